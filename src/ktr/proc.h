/* SPDX-License-Identifier: GPL-2.0 */
/* Process lookups for ktrace -p, -g and -d, from /proc. */
#ifndef KSNOOP_KTR_PROC_H
#define KSNOOP_KTR_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ktr_pidset {
	pid_t *pids;
	size_t n, cap;
};

void ktr_pidset_free(struct ktr_pidset *s);
int ktr_pidset_add(struct ktr_pidset *s, pid_t pid); /* ignores duplicates */
bool ktr_pidset_has(const struct ktr_pidset *s, pid_t pid);

/* The process (thread group) a pid or thread id belongs to: 0 or -ESRCH. */
int ktr_proc_tgid(pid_t pid, pid_t *tgid);

/* Add every process in process group pgid; -ESRCH when there is none. */
int ktr_proc_add_pgrp(struct ktr_pidset *s, pid_t pgid);

/* Add the descendants of every process already in s (ktrace -d). */
int ktr_proc_add_descendants(struct ktr_pidset *s);

#endif
