/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks unwound in user space with the mapped objects' CFI
 * (.eh_frame, .debug_frame), from the registers and the copy of the
 * stack BPF took (--call-graph dwarf), through elfutils' libdwfl, as
 * perf's --call-graph dwarf does. Where an object has no CFI, libdw's
 * unwinder falls back to frame pointers.
 * Not thread-safe: one uunwind per thread.
 */
#ifndef KSNOOP_UUNWIND_H
#define KSNOOP_UUNWIND_H

#include <stddef.h>
#include <sys/types.h>

/* Processes whose modules are kept reported: the least recently used goes. */
#define UUNWIND_MAX_PIDS 256

struct uunwind;

struct uunwind *uunwind__new(void);
/* NULL-safe. */
void uunwind__free(struct uunwind *u);

/* One sample as BPF took it. */
struct uunwind_sample {
	const void *regs; /* KSNOOP_UREGS_SIZE bytes, the ptrace layout */
	unsigned long long sp;
	const void *stack; /* stack_len bytes copied from sp up */
	size_t stack_len;
};

/*
 * The sample's frames' addresses into ips, innermost first (the others
 * are return addresses), at most max. Returns how many: the first is the
 * sample's pc, however little is known of the process; 0 only for bad
 * input. An address outside every object reported re-reads the process's
 * maps (a dlopen since), at most once a second per pid.
 */
int uunwind__frames(struct uunwind *u, pid_t pid, const struct uunwind_sample *s,
		    unsigned long long *ips, int max);

/*
 * Reads pid's maps now, while it lives: an event's, as it arrives. NULL-safe,
 * and nothing for a pid already known.
 */
void uunwind__note(struct uunwind *u, pid_t pid);

#endif
