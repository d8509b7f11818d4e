/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chains (-s) and error origins (--errors): which calls count, and the
 * chain ends that tell user space what to keep.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_CHAINS_H
#define KSNOOP_TRACE_CHAINS_H

/* --errors: only failing calls, and with --errno only these errnos. */
const volatile bool errors_only;
const volatile bool errno_filter;
const volatile __u64 errno_mask[KSNOOP_ERRNO_WORDS];

/* -s: this function counts only while its predecessor is running. */
static __always_inline bool chain_allows(struct task_state *ts, __u32 pos, __u64 *chain_id)
{
	__u32 i, d = ts->depth;

	for (i = 0; i < KSNOOP_MAX_DEPTH; i++) {
		struct frame *f;
		struct ksnoop_func_cfg *cfg;
		__u32 id;

		if (i >= d)
			break;
		f = &ts->frames[(d - 1 - i) & (KSNOOP_MAX_DEPTH - 1)];
		if (f->flags & FRAME_SKIP)
			continue;
		id = f->func_id;
		cfg = bpf_map_lookup_elem(&func_cfg, &id);
		if (cfg && cfg->chain_pos + 1 == pos) {
			*chain_id = f->chain_id;
			return true;
		}
	}
	return false;
}

/* -s: a frame outside a complete-so-far chain is skipped, events and all. */
static __always_inline bool chain_skip(struct task_state *ts, struct ksnoop_func_cfg *cfg,
				       struct frame *f, __u64 now)
{
	if (!chain_mode)
		return false;
	if (cfg->chain_pos == 0) {
		f->chain_id = now;
		return false;
	}
	return !chain_allows(ts, cfg->chain_pos, &f->chain_id);
}

/* -s: tell user space the chain's first call returned, so it can decide. */
static __always_inline void chain_end(struct scratch *s, __u32 id, struct frame *f, __u64 now)
{
	init_event(&s->ev, KSNOOP_EV_CHAIN_END, id, now);
	s->ev.chain_id = f->chain_id;
	submit(&s->ev);
}

/* --errors: whether the return value is a failure that --errno keeps. */
static __always_inline bool ret_fails(__u8 kind, __u64 v)
{
	__s64 e = kind == KSNOOP_ERR_INT32 ? (__s64)(__s32)v : (__s64)v;

	if (kind == KSNOOP_ERR_NONE)
		return true;
	if (kind == KSNOOP_ERR_PTR && !v)
		return !errno_filter; /* NULL has no errno */
	if (e < -KSNOOP_ERRNO_MAX || e > -1)
		return false;
	e = -e;
	return !errno_filter || ((errno_mask[(e >> 6) & (KSNOOP_ERRNO_WORDS - 1)] >> (e & 63)) & 1);
}

static __always_inline bool call_failed(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					bool func_args)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };

	return ret_fails(cfg->err_kind, get_ret(&c, func_args));
}

static __always_inline void send_chain_end(__u32 id, struct frame *f)
{
	__u32 *claim;
	struct scratch *s = scratch_get(&claim);

	if (!s)
		return;
	chain_end(s, id, f, bpf_ktime_get_ns());
	scratch_put(claim);
}

/*
 * --errors: user space holds the failures inside an outermost call until
 * that call fails too; when it does not, a chain end says to forget them.
 */
static __always_inline void forget_failures_below(__u32 id, struct frame *f, __u32 depth)
{
	if (errors_only && !depth && (f->flags & FRAME_ERR_BELOW))
		send_chain_end(id, f);
}

/*
 * --errors: false for a call that succeeded, which sends nothing but the
 * chain end that -s or the failures below it need.
 */
static __always_inline bool keep_failure(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					 bool func_args, struct task_state *ts, __u32 id,
					 struct frame *f, __u32 depth)
{
	if (!errors_only)
		return true;
	if (call_failed(ctx, regs, cfg, func_args)) {
		if (ts && depth)
			ts->frames[0].flags |= FRAME_ERR_BELOW;
		return true;
	}
	if (cfg->emit & KSNOOP_EMIT_COMBINED)
		drop_stash(depth, f);
	if (chain_mode && cfg->chain_pos == 0)
		send_chain_end(id, f);
	else
		forget_failures_below(id, f, depth);
	return false;
}

#endif /* KSNOOP_TRACE_CHAINS_H */
