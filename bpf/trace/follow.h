/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace --follow: one object through the kernel. The start plan's calls
 * add the object (the pointer in its follow_arg) to `followed`; every
 * other plan takes an object of the same type and goes on only for one
 * followed, until an end plan's call (a free) or the time limit.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_FOLLOW_H
#define KSNOOP_TRACE_FOLLOW_H

#ifndef ENOSPC
#define ENOSPC 28 /* vmlinux.h has no errno names */
#endif

const volatile bool follow_mode;
const volatile __u64 follow_max_ns = ~0ULL;

/* Followed objects by address, each with the time it was first seen. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* --max-spans, set by user space */
	__type(key, __u64);
	__type(value, __u64);
} followed SEC(".maps");

static __always_inline __u64 follow_object(void *ctx, struct regs *regs,
					   struct ksnoop_func_cfg *cfg, bool func_args)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };

	return get_arg(&c, cfg->follow_arg, func_args);
}

/* A followed plan's call goes on: its object is followed, and not for too long. */
static __always_inline bool follow_pass(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					bool func_args)
{
	__u64 obj = follow_object(ctx, regs, cfg, func_args), *since;

	since = bpf_map_lookup_elem(&followed, &obj);
	if (!since)
		return false;
	if (bpf_ktime_get_ns() - *since > follow_max_ns) {
		/* Only the call whose delete succeeds counts it. */
		if (!bpf_map_delete_elem(&followed, &obj))
			count_drop(KSNOOP_DROP_FOLLOW_TIME);
		return false;
	}
	/* The end is shown; the address it frees may soon be another object. */
	if (cfg->flags & KSNOOP_CFG_FOLLOW_END)
		bpf_map_delete_elem(&followed, &obj);
	return true;
}

/* A start that passed its predicates: its object is followed from now. */
static __always_inline void follow_start(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					 bool func_args, __u64 now)
{
	__u64 obj = follow_object(ctx, regs, cfg, func_args);

	if (obj && bpf_map_update_elem(&followed, &obj, &now, BPF_ANY))
		count_drop(KSNOOP_DROP_FOLLOW);
}

/* A followed object's copy (skb_clone's return): followed from now too. */
static __always_inline void follow_clone(struct capture_ctx *c, bool func_args, __u64 now)
{
	__u64 obj = get_ret(c, func_args);

	/* NULL or ERR_PTR: no copy; the same object: followed already. */
	if (!obj || obj >= (__u64)-4095)
		return;
	if (bpf_map_update_elem(&followed, &obj, &now, BPF_NOEXIST) == -ENOSPC)
		count_drop(KSNOOP_DROP_FOLLOW);
}

#endif /* KSNOOP_TRACE_FOLLOW_H */
