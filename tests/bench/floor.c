// SPDX-License-Identifier: GPL-2.0
/*
 * floor FUNC: attach the empty fentry/fexit pair of bpf/bench_floor.bpf.c
 * to FUNC, print "ready", and stay attached until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bench_floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bench_floor_bpf *skel;
	int err;

	if (argc != 2) {
		fputs("usage: floor FUNC\n", stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = bench_floor_bpf__open();
	if (!skel)
		return 1;
	err = bpf_program__set_attach_target(skel->progs.floor_entry, 0, argv[1]) ?:
	      bpf_program__set_attach_target(skel->progs.floor_exit, 0, argv[1]) ?:
	      bench_floor_bpf__load(skel) ?: bench_floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot attach to %s: %s\n", argv[1], strerror(-err));
		bench_floor_bpf__destroy(skel);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	bench_floor_bpf__destroy(skel);
	return 0;
}
