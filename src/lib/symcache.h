/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This boot's copies of the kernel's symbol lists. The kernel formats
 * available_filter_functions and the kprobe blacklist anew on every read
 * (0.2 s of a 1.2 s start under emulation), yet they change only when a
 * module comes or goes. A copy in KSNOOP_RUN_DIR holds while the boot id
 * and the modules (name, size, state, address) are what they were.
 */
#ifndef KSNOOP_SYMCACHE_H
#define KSNOOP_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct symcache_cfg {
	const char *dir;     /* KSNOOP_RUN_DIR */
	const char *boot_id; /* /proc/sys/kernel/random/boot_id */
	const char *modules; /* /proc/modules */
};

extern const struct symcache_cfg symcache_system;

struct symcache_copy;

/*
 * An fd to read path from: this boot's copy (named name) when it holds,
 * else path itself, and then *copy is a new copy to pass what is read to,
 * or NULL when none can be made. -errno when path cannot be opened.
 */
int symcache_open(const struct symcache_cfg *cfg, const char *path, const char *name,
		  struct symcache_copy **copy);
/*
 * The same for what ksnoop derives from such lists: this boot's copy
 * named name, positioned after its header (-1 when there is none that
 * holds), and a new one to write (NULL when none can be made).
 */
int symcache_open_copy(const struct symcache_cfg *cfg, const char *name);
struct symcache_copy *symcache_new(const struct symcache_cfg *cfg, const char *name);
void symcache_write(struct symcache_copy *c, const void *buf, size_t len);
/*
 * complete: all of path was read and written. The copy is kept only then,
 * and only if the modules did not change while it was read. Frees c.
 */
void symcache_end(struct symcache_copy *c, bool complete);

#endif
