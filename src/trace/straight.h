/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Straight-line programs. A lite plan whose values all sit in registers
 * (arguments or the return value, each with at most a plain read where
 * it points) gets its fentry and fexit programs written out as BPF
 * instructions for that one function: its id, record layout and read
 * sizes are immediates, so a call reads no configuration and takes no
 * branch but the ring's and the reads' own. Any other plan runs
 * trace.bpf.c's programs, which decide the same things from the plan at
 * run time.
 */
#ifndef KSNOOP_TRACE_STRAIGHT_H
#define KSNOOP_TRACE_STRAIGHT_H

#include <stdbool.h>
#include <linux/bpf.h>

#include "abi/trace.h"

/* What a straight-line program needs of the session's object. */
struct straight_env {
	int ring_fd;	  /* the events ring buffer */
	int drops_fd;	  /* the drops per-CPU array */
	int bss_fd;	  /* the .bss map, holding last_wake_ns */
	__u32 wake_off;	  /* last_wake_ns's offset in it */
	__u64 wake_bytes; /* the wakeup mark, a power of two; 0 wakes per event */
	__u64 wake_ns;	  /* at most this long without a forced wakeup */
	bool want_comm;	  /* the header carries comm */
	/* count: the per-CPU array of keyless counts, and -i's epoch in .bss */
	int counts_fd;
	bool epochs;
	__u32 epoch_off; /* agg_epoch's offset in .bss */
	/* a count by values: the per-CPU hash of keys, its key size; 0 for funccount */
	int keyed_fd;
	__u32 key_size;
};

/* The programs' context: fentry/fexit's argument array, or a kprobe's registers. */
enum straight_ctx { STRAIGHT_TRAMPOLINE, STRAIGHT_KPROBE };

/*
 * Room for any side's program: about 60 instructions of header, wakeup
 * and submit, and at most 25 for each of KSNOOP_LITE_VALUES values.
 */
#define STRAIGHT_MAX_INSNS 320

/*
 * Whether cfg's side (enum ksnoop_side) can run straight-line in ctx: a
 * lite plan, without predicates, whose values there are registers (for a
 * kprobe, argument registers) with at most a plain read. Filters of the
 * session (pids, CPU, cgroup) are the caller's to rule out.
 */
bool straight_side_ok(const struct ksnoop_func_cfg *cfg, int side, enum straight_ctx ctx);

/*
 * Writes the program of function func_id's side into insns: fentry or
 * kprobe for ENTRY, fexit or kretprobe for RETURN. Returns how many
 * instructions, or -E2BIG without room.
 */
int straight_emit(const struct ksnoop_func_cfg *cfg, int side, enum straight_ctx ctx, __u32 func_id,
		  const struct straight_env *env, struct bpf_insn *insns, int max);

/*
 * Whether cfg counts calls in a way a straight-line program does: at entry
 * alone, no predicate, no frame, and keyed (if at all) by values in
 * registers that a kprobe finds in ctx. The session's count mode, its
 * --by fields (none) and its key layout are the caller's.
 */
bool straight_count_ok(const struct ksnoop_func_cfg *cfg, enum straight_ctx ctx);

/*
 * The entry program of function func_id's count, as bpf/agg/agg.h's
 * count_add: with no key (env->keyed_fd 0), its slot (func_id, or
 * func_id * 2 + the epoch with -i) of the per-CPU counts array, plus one;
 * keyed, the key agg_fast builds (the function, the epoch, each value's
 * bytes at its offset), added at zero when new. Returns how many
 * instructions, or -E2BIG.
 */
int straight_emit_count(const struct ksnoop_func_cfg *cfg, enum straight_ctx ctx, __u32 func_id,
			const struct straight_env *env, struct bpf_insn *insns, int max);

#endif
