// SPDX-License-Identifier: GPL-2.0
/*
 * floor [--events] FUNC: attach the fentry/fexit pair of
 * tests/bench/floor.bpf.c to FUNC (empty, or with --events sending a small
 * record from each side), print "ready", and stay attached until SIGINT
 * or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
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

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	bool events = argc == 3 && !strcmp(argv[1], "--events");
	int err;

	if (argc != 2 && !events) {
		fputs("usage: floor [--events] FUNC\n", stderr);
		return 2;
	}
	argv += events;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = floor_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->with_events = events;
	/* Room for a 100,000-call burst of two records each, never read. */
	err = (events ? bpf_map__set_max_entries(skel->maps.events, 32 << 20) : 0) ?:
	      bpf_program__set_attach_target(skel->progs.floor_entry, 0, argv[1]) ?:
	      bpf_program__set_attach_target(skel->progs.floor_exit, 0, argv[1]) ?:
	      floor_bpf__load(skel) ?: floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot attach to %s: %s\n", argv[1], strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
