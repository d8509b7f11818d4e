/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks' symbols: a user address of a process, as BPF records it,
 * to the function and the file it is in. No BPF here: /proc and ELF only.
 * Not thread-safe: one ustack_syms per thread.
 */
#ifndef KSNOOP_USTACK_H
#define KSNOOP_USTACK_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/util.h"
#include "lib/usym.h"

/* What is cached: at most this many processes' maps and objects' symbol tables. */
#define USTACK_MAX_PIDS 4096
#define USTACK_MAX_OBJS 1024

/* Per-process maps and per-object symbol tables, cached. */
struct ustack_syms;

struct ustack_syms *ustack_syms__new(void);
/* The same with other bounds (tests): both at least 1. */
struct ustack_syms *ustack_syms__new_bounded(unsigned int max_pids, unsigned int max_objs);
/* NULL-safe. */
void ustack_syms__free(struct ustack_syms *u);

struct ustack_frame {
	unsigned long long addr;
	const char *func;	/* the function symbol containing addr, or NULL when unknown */
	unsigned long long off; /* addr's offset into func */
	/*
	 * The mapped file's path as /proc/PID/maps names it ("[vdso]" for
	 * the vdso, "... (deleted)" for a file deleted since it was mapped),
	 * or NULL for anonymous memory / no map.
	 */
	const char *object;
	/* With ustack_syms__want_lines: the source file and line, from DWARF; or NULL and 0. */
	const char *file;
	int line;
};

/*
 * addr in process pid, as of its current maps. The strings live as long
 * as u (however much of its cache is evicted meanwhile).
 * Returns 0 (frame filled, func/object possibly NULL), or -ESRCH when pid
 * is gone (frame has only addr). Never prints for an unknown address; a
 * file it cannot read leaves func NULL (one p_dbg line).
 * An address outside every mapping known re-reads the maps (a dlopen
 * since), at once the first time, then at most once a second per pid.
 */
int ustack_syms__resolve(struct ustack_syms *u, int pid, unsigned long long addr,
			 struct ustack_frame *out);

/*
 * The same for a frame of a stack: a return address (every frame but the
 * innermost) takes the line of the call before it.
 */
int ustack_syms__resolve_frame(struct ustack_syms *u, int pid, unsigned long long addr,
			       bool return_address, struct ustack_frame *out);

/*
 * Frames get their source file and line where the object, or its debug
 * file, has a DWARF line table (as perf's srcline): off by default, as a
 * table of folded stacks wants functions.
 */
void ustack_syms__want_lines(struct ustack_syms *u, bool on);

/*
 * Appended to sb: "malloc+0x1a (/usr/lib/x86_64-linux-gnu/libc.so.6)" with
 * with_object, "malloc+0x1a" without; off 0 prints no "+0x0"; then
 * " at malloc.c:3287" where the frame has a line (the file's base name);
 * unknown:
 * "[unknown] 0x7f1234567890", with " (object)" when the map is known,
 * with_object or not: an address alone does not say where it is.
 * Bytes outside printable ASCII (a name is untrusted input) show as '?'.
 */
void ustack_frame_format(const struct ustack_frame *f, bool with_object, struct strbuf *sb);

/*
 * Reads these processes' maps and their objects' symbols now, so that
 * their frames are named even once they have exited (-p's processes, at
 * start). NULL-safe.
 */
void ustack_syms__prime(struct ustack_syms *u, const pid_t *pids, int nr);

/*
 * ustack_syms__prime for a process not cached yet: an event's, as the
 * event arrives, while a short-lived one may still be there to read (its
 * files are reached through /proc/PID/root). NULL-safe.
 */
void ustack_syms__note(struct ustack_syms *u, int pid);

/*
 * Whether pid's maps cannot be read (it has exited): its frames need
 * mappings from elsewhere (ustack_syms__learn). NULL-safe: false.
 */
bool ustack_syms__gone(struct ustack_syms *u, int pid);

/* Whether a mapping of pid known now holds addr; reads nothing. NULL-safe. */
bool ustack_syms__knows(struct ustack_syms *u, int pid, unsigned long long addr);

/*
 * Mappings of pid as an event recorded them in the kernel, each with the
 * path of its file as seen here (the very file: dev and inode match): a
 * process that has exited has its frames named from them. Only mappings
 * that overlap none known are taken. NULL-safe.
 */
void ustack_syms__learn(struct ustack_syms *u, int pid, const struct usym_map *maps, size_t nr);

/* Forget pid's maps (it exited or exec'd); its objects' symbols stay cached. */
void ustack_syms__forget(struct ustack_syms *u, int pid);

/* For tests: how many times a maps file was read, and an object's symbols. */
unsigned long ustack_syms__maps_reads(const struct ustack_syms *u);
unsigned long ustack_syms__objects_read(const struct ustack_syms *u);

#endif
