// SPDX-License-Identifier: GPL-2.0
/*
 * floor [--kprobe] [--events] [--dump N] FUNC: attach the fentry/fexit
 * pair of tests/bench/floor.bpf.c to FUNC, or with --kprobe its
 * kprobe/kretprobe pair (empty, or with --events sending a small record
 * from each side, the entry one with N bytes read where the first
 * argument points), print "ready", and stay attached until SIGINT or
 * SIGTERM.
 */
#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bench/floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The pair for FUNC: fentry/fexit targets set, or the kprobes left to attach. */
static int choose(struct floor_bpf *skel, bool kprobe, const char *func)
{
	bpf_program__set_autoload(skel->progs.floor_entry, !kprobe);
	bpf_program__set_autoload(skel->progs.floor_exit, !kprobe);
	bpf_program__set_autoload(skel->progs.floor_kentry, kprobe);
	bpf_program__set_autoload(skel->progs.floor_kexit, kprobe);
	if (kprobe)
		return 0;
	return bpf_program__set_attach_target(skel->progs.floor_entry, 0, func)
		       ?: bpf_program__set_attach_target(skel->progs.floor_exit, 0, func);
}

static int attach(struct floor_bpf *skel, bool kprobe, const char *func, struct bpf_link **l)
{
	if (!kprobe)
		return floor_bpf__attach(skel);
	l[0] = bpf_program__attach_kprobe(skel->progs.floor_kentry, false, func);
	l[1] = bpf_program__attach_kprobe(skel->progs.floor_kexit, true, func);
	return libbpf_get_error(l[0]) ?: libbpf_get_error(l[1]);
}

int main(int argc, char **argv)
{
	struct bpf_link *links[2] = { NULL, NULL };
	bool events = false, kprobe = false;
	unsigned long dump = 0;
	struct floor_bpf *skel;
	char *end;
	int i, err;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--events")) {
			events = true;
		} else if (!strcmp(argv[i], "--kprobe")) {
			kprobe = true;
		} else if (!strcmp(argv[i], "--dump") && i + 2 < argc) {
			errno = 0;
			dump = strtoul(argv[++i], &end, 10);
			if (errno || *end || dump > 256)
				break;
		} else {
			break;
		}
	}
	if (i != argc - 1) {
		fputs("usage: floor [--kprobe] [--events [--dump N<=256]] FUNC\n", stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = floor_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->with_events = events;
	skel->rodata->dump_bytes = dump;
	/* Room for a 100,000-call burst of two records each, never read. */
	err = (events ? bpf_map__set_max_entries(skel->maps.events, 32 << 20) : 0) ?:
	      choose(skel, kprobe, argv[i]) ?: floor_bpf__load(skel) ?:
	      attach(skel, kprobe, argv[i], links);
	if (err) {
		fprintf(stderr, "floor: cannot attach to %s: %s\n", argv[i], strerror(-err));
	} else {
		printf("ready\n");
		fflush(stdout);
		while (!stop)
			pause();
	}
	for (i = 0; i < 2; i++) {
		if (!libbpf_get_error(links[i]))
			bpf_link__destroy(links[i]);
	}
	floor_bpf__destroy(skel);
	return err ? 1 : 0;
}
