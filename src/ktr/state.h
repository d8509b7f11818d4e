/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One state file per running recorder, /run/ksnoop/ktrace-DEV-INO for the
 * trace file with that device and inode. The recorder holds an exclusive
 * flock(2) on it for its whole life, so "is a recorder writing this file"
 * is a non-blocking lock attempt, and a crashed recorder leaves no lock.
 * The file names the recorder's pid and its BPF target map (by id), which
 * is how later ktrace invocations add or remove processes.
 */
#ifndef KSNOOP_KTR_STATE_H
#define KSNOOP_KTR_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/util.h"

#define KTR_STATE_DIR KSNOOP_RUN_DIR

struct ktr_state {
	pid_t pid;		     /* the recorder */
	unsigned int map_id;	     /* its targets map */
	unsigned long long dropped;  /* records lost, final once exited */
	bool exited;		     /* written by the recorder as it ends */
	unsigned int facs;	     /* trace points its programs can record */
	int signal;		     /* that stopped it; 0: nothing was left to trace */
	unsigned int abandoned;	     /* processes still traced when it stopped */
	unsigned long long unmarked; /* of the dropped, those no DROP record counts */
	int write_error;	     /* errno of the first failed write, or 0 */
	char trfile[PATH_MAX];	     /* the trace file, for messages */
};

int ktr_state_path(dev_t dev, ino_t ino, char *buf, size_t len);

/*
 * Open a state file. *locked says whether the caller now holds the
 * exclusive lock (no recorder is running; the caller may start one) or a
 * recorder holds it. With create false a missing file is -ENOENT.
 */
int ktr_state_open(const char *path, bool create, bool *locked);

int ktr_state_read(int fd, struct ktr_state *st);
int ktr_state_write(int fd, const struct ktr_state *st);

/*
 * Unlink the state file at path that fd has open, left by a recorder that
 * died, unless a recorder holds it again.
 */
void ktr_state_remove_stale(int fd, const char *path);

/* Wait until the recorder locking path's file lets go: 0, or -ETIMEDOUT. */
int ktr_state_wait_exit(int fd, int timeout_ms);

/* fn for every running recorder; a non-zero return stops the walk. */
typedef int (*ktr_state_fn)(const char *path, const struct ktr_state *st, void *ctx);
int ktr_state_for_each(ktr_state_fn fn, void *ctx);

#endif
