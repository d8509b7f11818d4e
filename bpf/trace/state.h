/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU scratch, per-thread frames and stashes, the maps that hold them,
 * and the filters every call passes first.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_STATE_H
#define KSNOOP_TRACE_STATE_H

#define GLOB_PAT KSNOOP_PRED_STR_MAX
#define GLOB_TXT KSNOOP_PRED_STR_MAX
#include "lib/glob.h"
#include "lib/intcmp.h"

_Static_assert(KSNOOP_CMP_EQ == INTCMP_EQ && KSNOOP_CMP_NE == INTCMP_NE &&
		       KSNOOP_CMP_LT == INTCMP_LT && KSNOOP_CMP_LE == INTCMP_LE &&
		       KSNOOP_CMP_GT == INTCMP_GT && KSNOOP_CMP_GE == INTCMP_GE,
	       "trace's comparisons are intcmp's");

/*
 * Predicate evaluation state, carried across bpf_loop steps. It lives in
 * the scratch map, not in the loop context on the stack: before 6.7 the
 * verifier checks a callback once, as called with the caller's stack,
 * so it took these fields for the constants they start as and dropped
 * the branches a later step needs (on 6.1 a string comparison never got
 * past its first step: never decided, it let every event through, after
 * 67,000 steps).
 */
struct pred_state {
	__u32 k;	  /* comparison being evaluated */
	__u32 started;	  /* glob state initialised for k */
	__u32 known;	  /* bit k: result of comparison k is known */
	__u32 val;	  /* bit k: its result */
	__u32 sk, sv, sp; /* three-valued stack: known and value bits, depth */
	__u32 pad;
};

struct scratch {
	__u64 scalars[KSNOOP_MAX_VALUES]; /* integer predicate operands */
	__u16 str_off[KSNOOP_MAX_VALUES]; /* string operands: where in ev.data */
	__u16 str_len[KSNOOP_MAX_VALUES];
	struct pred_state ps;
	struct glob glob;
	struct ksnoop_agg_key key;
	struct ksnoop_event ev;
	/* past ev, so that the small stash does not copy it */
	struct ksnoop_span span;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_SCRATCH_LEVELS);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

/* Per-CPU: the programs claiming each of scratch_map's slots (lib/claim.h). */
struct scratch_claims {
	__u32 n[KSNOOP_SCRATCH_LEVELS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch_claims);
} nesting SEC(".maps");

/*
 * count and hist's stacks, by their contents: a STACK_TRACE map refuses a
 * new stack whose hash bucket another holds (bpf_get_stackid's -EEXIST),
 * and lost a few samples in a hundred of a profile with many stacks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_stack);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_stack);
} stack_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

struct frame {
	__u32 func_id;
	__u32 flags;
	__u64 entry_ts;
	__u64 chain_id;
};

enum frame_flags {
	FRAME_SKIP = 1 << 0,	    /* filtered at entry: no return event */
	FRAME_ERR_BELOW = 1 << 1,   /* --errors: a call inside this one failed */
	FRAME_STASH_SMALL = 1 << 2, /* its entry values are in stash_small */
};

/* Freed by the kernel when the task exits. */
struct task_state {
	__u32 depth;
	__u32 pad;
	struct frame frames[KSNOOP_MAX_DEPTH];
};

/* A hash of KSNOOP_MAX_TASKS where task_storage is false (see backend.c). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tasks SEC(".maps");

/* A new thread's state in the hash (too big for the stack). */
static const struct task_state zero_task;

struct stash_key {
	__u32 tid;
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stash_key);
	__type(value, struct scratch);
} stash SEC(".maps");

/*
 * The stash copies a whole value per call: most entries need the scratch
 * up to the event's first STASH_SMALL_DATA bytes of values (1.7 KB, not
 * 19), and go here.
 */
#define STASH_SMALL_DATA 1024
#define STASH_SMALL_SIZE (__builtin_offsetof(struct scratch, ev.data) + STASH_SMALL_DATA)

struct stash_small_val {
	__u8 bytes[STASH_SMALL_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stash_key);
	__type(value, struct stash_small_val);
} stash_small SEC(".maps");

static __always_inline void count_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	/* Atomic: a program that interrupts or preempts this one counts too. */
	if (n)
		__sync_fetch_and_add(n, 1);
}

/* The current thread's frames; created on the first call it makes. */
static __always_inline struct task_state *task_state_get(bool create)
{
	struct task_state *ts;
	int tid;

	if (task_storage)
		return bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = (__u32)bpf_get_current_pid_tgid();
	ts = bpf_map_lookup_elem(&tasks, &tid);
	if (ts || !create)
		return ts;
	if (bpf_map_update_elem(&tasks, &tid, (void *)&zero_task, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tasks, &tid)) {
		count_drop(KSNOOP_DROP_TASKS);
		return NULL;
	}
	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline bool pass_filters(void)
{
	__u32 tgid;

	if (filter_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)filter_cpu)
		return false;
	if (filter_tgid) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		if (!bpf_map_lookup_elem(&tgids, &tgid))
			return false;
	}
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return false;
	return true;
}

/* A scratch slot of the CPU (lib/claim.h); NULL, counted, when all are held. */
static __always_inline struct scratch *scratch_get(__u32 **claim)
{
	struct scratch *s = slot_claim(&nesting, &scratch_map, KSNOOP_SCRATCH_LEVELS, claim, NULL);

	if (!s)
		count_drop(KSNOOP_DROP_NESTING);
	return s;
}

static __always_inline void scratch_put(__u32 *claim)
{
	slot_release(claim);
}

static __always_inline long read_any(void *dst, __u32 size, __u64 addr)
{
	if (KSNOOP_IS_USER_ADDR(addr))
		return bpf_probe_read_user(dst, size, (void *)addr);
	return bpf_probe_read_kernel(dst, size, (void *)addr);
}

static __always_inline long read_any_str(void *dst, __u32 size, __u64 addr)
{
	if (KSNOOP_IS_USER_ADDR(addr))
		return bpf_probe_read_user_str(dst, size, (void *)addr);
	return bpf_probe_read_kernel_str(dst, size, (void *)addr);
}

#endif /* KSNOOP_TRACE_STATE_H */
