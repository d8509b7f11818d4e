/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The background recorder: one detached process per trace file that owns
 * the BPF programs, drains their ring buffer into the file and ends when
 * no traced process is left or on SIGTERM (ktrace -c, -C).
 */
#ifndef KSNOOP_KTR_RECORDER_H
#define KSNOOP_KTR_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "abi/ktrace.h"

struct ktr_initial_target {
	__u32 pid;
	struct ktr_target t;
};

struct ktr_recorder_opts {
	int trace_fd; /* open, checked, header written: records go at its end */
	int state_fd; /* the state file, exclusively locked */
	const char *state_path;
	const char *trfile; /* for the state file and messages */
	const struct ktr_initial_target *targets;
	size_t nr_targets;
	unsigned int facs; /* KTRFAC_* any target may ever use */
};

/*
 * Start a detached recorder. Returns 0 once its programs are attached and
 * the targets are in its map (then *pid and *map_id are set), or a
 * negative errno after the reason was printed.
 */
int ktr_recorder_start(const struct ktr_recorder_opts *o, pid_t *pid, unsigned int *map_id);

/* Target map of a running recorder: add (update) or remove processes. */
int ktr_targets_update(unsigned int map_id, const struct ktr_initial_target *t, size_t n);
int ktr_targets_remove(unsigned int map_id, const pid_t *pids, size_t n);
/* 1 if any process is traced, 0 if none, negative errno. */
int ktr_targets_any(unsigned int map_id);

#endif
