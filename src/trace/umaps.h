/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mappings the kernel recorded with a user stack (KSNOOP_VREC_UMAPS,
 * a task note's): for a process that exited before ksnoop could read its
 * /proc/PID/maps, the files its frames are in, found here by device,
 * inode and path through this process's mounts.
 */
#ifndef KSNOOP_TRACE_UMAPS_H
#define KSNOOP_TRACE_UMAPS_H

#include <stddef.h>

#include "abi/trace.h"
#include "lib/mounts.h"
#include "lib/ustack.h"

/*
 * When pid's maps cannot be read (it is gone), its frames are named from
 * km's nr mappings: each whose file is found here (ustack_syms__learn).
 */
void umaps_learn(struct ustack_syms *u, struct mounts *m, int pid, const struct ksnoop_umap *km,
		 size_t nr);

#endif
