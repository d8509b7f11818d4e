// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop's tracing programs. One instance of this object is loaded per
 * traced function (func_id in .rodata); every instance shares the maps of
 * the first, so all events flow through one ring buffer.
 *
 * This file holds the entry and return paths and the program sections;
 * their parts are one concern per header below (bpf/trace/, and count and
 * hist's bpf/agg/), each using only those included before it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/trace.h"
#include "lib/arch.h"
#include "lib/claim.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 func_id;	   /* fentry instances without fentry_cookie */
const volatile bool fentry_cookie; /* fentry/fexit take func_id from the attach cookie */
const volatile bool filter_tgid;
const volatile __s32 filter_cpu = -1;
const volatile bool filter_cgroup;
const volatile bool chain_mode;
const volatile __u64 min_duration_ns;
const volatile __u32 kstack_bytes; /* --kstack: 8 a frame, 0 without */
const volatile __u32 ustack_bytes; /* --ustack: the same */
/* --call-graph dwarf: user stack bytes copied (a multiple of 8), 0 without */
const volatile __u32 ustack_dump_bytes;
const volatile __u64 wakeup_bytes; /* see wakeup_flag(); 0 wakes per event */
const volatile bool want_comm;	   /* the event header carries comm (JSON shows it) */

/*
 * The most fast comparisons and pointer steps any function of the session
 * has. Their loops run to counts read from func_cfg, which the verifier
 * cannot know: it walked every iteration, for 4,000 instructions of a
 * kprobe that captures one argument. With these constants it walks only
 * the iterations some function may take.
 */
const volatile __u8 max_fast_preds = KSNOOP_MAX_FAST_PREDS;
const volatile __u8 max_steps = KSNOOP_MAX_STEPS;
/*
 * cfg_const: these programs serve one function, func_id, whose plan is
 * the_cfg. A call then needs neither the attach cookie nor a map lookup,
 * and as the verifier reads a frozen .rodata as constants, it walks only
 * the branches that plan takes and drops the code no plan of the session
 * reaches.
 */
const volatile bool cfg_const;
const volatile struct ksnoop_func_cfg the_cfg;
/*
 * What the kernel offers, as user space found it (lib/kfeat.c). Without
 * task storage (5.11) `tasks` is a hash keyed by thread id, its entries
 * removed when their threads exit. Without kprobe attach cookies (5.15)
 * each kprobe function has an instance of its own, named by func_id.
 */
const volatile bool task_storage = true;
const volatile bool kprobe_cookie = true;
/* Without bpf_task_pt_regs (5.15), user registers are found at KSNOOP_THREAD_SIZE. */
const volatile bool task_pt_regs = true;
/* --ustack: each event also carries its frames' mappings (KSNOOP_VREC_UMAPS). */
const volatile bool ustack_maps;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KSNOOP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct ksnoop_func_cfg);
} func_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16); /* resized by user space */
} events SEC(".maps");

#include "trace/state.h"
#include "trace/regs.h"
#include "trace/capture.h"
#include "trace/preds.h"
#include "trace/record.h"
#include "trace/lite.h"
#include "agg/agg.h"
#include "trace/frames.h"
#include "trace/chains.h"
#include "trace/spans.h"
#include "trace/follow.h"

/*
 * Spans and --follow: filters pick what starts, and the plans that carry
 * on (KSNOOP_CFG_ANY_TASK) run wherever the object goes.
 */
const volatile bool late_filters;

/* Past get_cfg: the filters of a plan that does not run in any task. */
static __always_inline bool plan_filters_pass(struct ksnoop_func_cfg *cfg)
{
	return !late_filters || (cfg->flags & KSNOOP_CFG_ANY_TASK) || pass_filters();
}

/* An event into the ring, or a sample into the aggregates. */

static __always_inline void deliver(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				    __u64 ra, bool trampoline, enum prog_build b)
{
	if (agg_mode == KSNOOP_AGG_NONE)
		append_stacks(ctx, &s->ev, ra, trampoline, b);
	if (agg_mode == KSNOOP_AGG_NONE)
		submit(&s->ev);
	else
		aggregate(ctx, s, cfg, ra);
}

static __always_inline bool is_trampoline(enum prog_kind kind)
{
	return kind == PK_FENTRY || kind == PK_FEXIT;
}

/* The address a probed function was entered from; 0 where there is none to read. */
static __always_inline __u64 call_ra(enum prog_kind kind, struct regs *regs)
{
	return kind == PK_KPROBE ? entry_ra(regs) : 0;
}

static __always_inline void init_capture(struct capture_ctx *c, void *ctx, struct regs *regs,
					 enum prog_kind kind, struct ksnoop_func_cfg *cfg,
					 bool at_entry)
{
	c->ctx = ctx;
	c->regs = regs;
	c->kind = kind;
	c->at_entry = at_entry;
	c->side = at_entry ? KSNOOP_SIDE_ENTRY : KSNOOP_SIDE_RETURN;
	c->cfg = cfg;
}

/*
 * fexit repeats the fast comparisons itself; a kretprobe cannot see the
 * arguments again and learns the entry's verdict from the frame.
 */
static __always_inline bool uses_frame(struct ksnoop_func_cfg *cfg, bool trampoline)
{
	return (cfg->flags & KSNOOP_CFG_FRAME) ||
	       (!trampoline && cfg->nr_fast_preds && (cfg->emit & KSNOOP_EMIT_RETURN));
}

/* Whether this side of cfg goes the lite way; lite_rec is 0 where none may. */
static __always_inline bool lite_side(struct ksnoop_func_cfg *cfg, __u32 side, bool trampoline)
{
	return lite_rec[side] && (cfg->flags & KSNOOP_CFG_LITE) && !uses_frame(cfg, trampoline);
}

/*
 * lite_only: one side of a call, all of it. Taken first and apart, so the
 * verifier sees lite_only decide a branch and walks nothing else.
 */
static __always_inline int lite_call(void *ctx, struct regs *regs, enum prog_kind kind, __u32 id,
				     __u32 side, enum prog_build b)
{
	bool trampoline = is_trampoline(kind), entry = side == KSNOOP_SIDE_ENTRY;
	bool func_args = trampoline && b == MODERN;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;

	if (!pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg || !(cfg->emit & (entry ? KSNOOP_EMIT_ENTRY : KSNOOP_EMIT_RETURN)))
		return 0;
	/* No kretprobe here has fast comparisons (lite.c): they need a frame. */
	if ((entry || trampoline) && !fast_preds_pass(ctx, regs, cfg, func_args))
		return 0;
	init_capture(&c, ctx, regs, kind, cfg, entry);
	lite_event(&c, id, side, func_args);
	return 0;
}

static __always_inline int on_entry(void *ctx, struct regs *regs, enum prog_kind kind,
				    enum prog_build b)
{
	bool trampoline = is_trampoline(kind), pass, func_args = trampoline && b == MODERN;
	__u32 id = get_func_id(ctx, trampoline);
	struct frame unpaired = {}, *f = &unpaired;
	struct task_state *ts = NULL;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;
	__u32 *claim;
	__u64 now;

	if (lite_only)
		return lite_call(ctx, regs, kind, id, KSNOOP_SIDE_ENTRY, b);
	if (!late_filters && !pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg)
		return 0;
	if (!plan_filters_pass(cfg))
		return 0;
	if (follow_mode && (cfg->flags & (KSNOOP_CFG_FOLLOWED | KSNOOP_CFG_FOLLOW_END)) &&
	    !follow_pass(ctx, regs, cfg, func_args))
		return 0;
	pass = fast_preds_pass(ctx, regs, cfg, func_args);
	if (!pass && (trampoline || !uses_frame(cfg, trampoline)))
		return 0;
	if (lite_side(cfg, KSNOOP_SIDE_ENTRY, trampoline)) {
		if (cfg->emit & KSNOOP_EMIT_ENTRY) {
			init_capture(&c, ctx, regs, kind, cfg, true);
			lite_event(&c, id, KSNOOP_SIDE_ENTRY, func_args);
		}
		return 0;
	}
	/* funccount's calls need no clock: a count in the kernel has no time in it */
	now = 0;
	if (uses_frame(cfg, trampoline) || agg_mode == KSNOOP_AGG_NONE || !cfg->agg.fast ||
	    (spans_mode && (cfg->flags & KSNOOP_CFG_SPAN)))
		now = bpf_ktime_get_ns();
	if (uses_frame(cfg, trampoline)) {
		ts = task_state_get(true);
		if (!ts)
			return 0;
		f = push_frame(ts, id, now);
		if (!f)
			return 0;
		if (!pass || chain_skip(ts, cfg, f, now)) {
			f->flags |= FRAME_SKIP;
			return 0;
		}
	}
	if (!(cfg->emit & (KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_COMBINED)))
		return 0;
	if (agg_mode != KSNOOP_AGG_NONE && cfg->agg.fast) {
		if (spans_mode && (cfg->flags & KSNOOP_CFG_SPAN))
			span_fast(ctx, regs, cfg, id, func_args, now);
		else
			agg_fast(ctx, regs, cfg, id, func_args, 0);
		return 0;
	}
	c.s = scratch_get(&claim);
	if (!c.s) {
		f->flags |= FRAME_SKIP;
		return 0;
	}
	init_capture(&c, ctx, regs, kind, cfg, true);
	init_event(&c.s->ev, KSNOOP_EV_ENTRY, id, now);
	c.s->ev.chain_id = f->chain_id;
	c.s->ev.depth = ts ? ts->depth - 1 : 0;
	capture(&c, func_args, b);
	if (!preds_pass(cfg, c.s, true, b)) {
		f->flags |= FRAME_SKIP;
		goto out;
	}
	if (follow_mode && (cfg->flags & KSNOOP_CFG_FOLLOW_START))
		follow_start(ctx, regs, cfg, func_args, now);
	if (spans_mode && (cfg->flags & KSNOOP_CFG_SPAN))
		span_event(ctx, c.s, cfg, now, kstack_bytes ? call_ra(kind, regs) : 0, trampoline);
	else if (cfg->emit & KSNOOP_EMIT_COMBINED)
		stash_entry(c.s, ts ? ts->depth - 1 : 0, f);
	else
		deliver(ctx, c.s, cfg,
			kstack_bytes || ustack_bytes || (agg_by & KSNOOP_BY_USTACK)
				? call_ra(kind, regs)
				: 0,
			trampoline, b);
out:
	scratch_put(claim);
	return 0;
}

static __always_inline bool start_return_event(struct scratch *s, struct ksnoop_func_cfg *cfg,
					       __u32 id, __u32 depth, const struct frame *f,
					       __u64 now)
{
	if (!(cfg->emit & KSNOOP_EMIT_COMBINED)) {
		init_event(&s->ev, KSNOOP_EV_RETURN, id, now);
		return true;
	}
	if (!unstash(s, depth, f))
		return false;
	s->ev.kind = KSNOOP_EV_COMBINED;
	s->ev.ts = now;
	s->ev.cpu = bpf_get_smp_processor_id();
	return true;
}

static __always_inline int on_return(void *ctx, struct regs *regs, enum prog_kind kind,
				     enum prog_build b)
{
	bool trampoline = is_trampoline(kind), emits, ends_chain,
	     func_args = trampoline && b == MODERN;
	__u32 id = get_func_id(ctx, trampoline), depth = 0;
	struct task_state *ts = NULL;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;
	struct frame f = {};
	__u32 *claim;
	__u64 now;

	if (lite_only)
		return lite_call(ctx, regs, kind, id, KSNOOP_SIDE_RETURN, b);
	if (!late_filters && !pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg || (trampoline && !fast_preds_pass(ctx, regs, cfg, func_args)))
		return 0;
	if (!plan_filters_pass(cfg))
		return 0;
	if (lite_side(cfg, KSNOOP_SIDE_RETURN, trampoline)) {
		if (cfg->emit & KSNOOP_EMIT_RETURN) {
			init_capture(&c, ctx, regs, kind, cfg, false);
			lite_event(&c, id, KSNOOP_SIDE_RETURN, func_args);
		}
		return 0;
	}
	if (uses_frame(cfg, trampoline)) {
		ts = task_state_get(false);
		if (!ts || !pop_frame(ts, id, &f))
			return 0;
		depth = ts->depth;
		if (f.flags & FRAME_SKIP) {
			forget_failures_below(id, &f, depth);
			return 0;
		}
	}
	if (!keep_failure(ctx, regs, cfg, func_args, ts, id, &f, depth))
		return 0;
	emits = cfg->emit & (KSNOOP_EMIT_RETURN | KSNOOP_EMIT_COMBINED);
	ends_chain = chain_mode && cfg->chain_pos == 0;
	if (!emits && !ends_chain)
		return 0;
	if (agg_mode != KSNOOP_AGG_NONE && cfg->agg.fast) {
		agg_fast(ctx, regs, cfg, id, func_args,
			 f.entry_ts ? bpf_ktime_get_ns() - f.entry_ts : 0);
		return 0;
	}
	c.s = scratch_get(&claim);
	if (!c.s)
		return 0;
	now = bpf_ktime_get_ns();
	if (!emits) {
		chain_end(c.s, id, &f, now);
		goto out;
	}
	if (!start_return_event(c.s, cfg, id, depth, &f, now))
		goto out;
	c.s->ev.duration_ns = f.entry_ts ? now - f.entry_ts : 0;
	c.s->ev.chain_id = f.chain_id;
	c.s->ev.depth = depth;
	init_capture(&c, ctx, regs, kind, cfg, false);
	capture(&c, func_args, b);
	if (c.s->ev.duration_ns >= min_duration_ns && preds_pass(cfg, c.s, false, b)) {
		if (follow_mode && (cfg->flags & KSNOOP_CFG_FOLLOW_CLONE))
			follow_clone(&c, func_args, now);
		deliver(ctx, c.s, cfg, 0, trampoline, b);
	} else if (ends_chain)
		chain_end(c.s, id, &f, now);
out:
	scratch_put(claim);
	return 0;
}

/* Sections of ksnoop's own: see register_fentry_sections() in backend.c. */
SEC("ksnoop.fentry")
int BPF_PROG(ksnoop_fentry)
{
	return on_entry(ctx, NULL, PK_FENTRY, MODERN);
}

SEC("ksnoop.fexit")
int BPF_PROG(ksnoop_fexit)
{
	return on_return(ctx, NULL, PK_FEXIT, MODERN);
}

SEC("kprobe")
int ksnoop_kprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, MODERN);
}

SEC("kretprobe")
int ksnoop_kretprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, MODERN);
}

SEC("kprobe.multi")
int ksnoop_kmulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, MODERN);
}

SEC("kretprobe.multi")
int ksnoop_kretmulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, MODERN);
}

/*
 * The user functions of one binary, on one uprobe.multi link each way
 * (6.6): sections of ksnoop's own, as libbpf 1.1 knows no uprobe.multi
 * (backend.c registers them).
 */
SEC("ksnoop.umulti")
int ksnoop_umulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, MODERN);
}

SEC("ksnoop.uretmulti")
int ksnoop_uretmulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, MODERN);
}

/* The COMPAT builds (see enum prog_build), one function each. */
SEC("ksnoop.fentry")
int ksnoop_fentry_compat(void *ctx)
{
	struct regs r = {};

	save_tramp_regs(ctx, &r, the_cfg.nr_args, false);
	return on_entry(ctx, &r, PK_FENTRY, COMPAT);
}

SEC("ksnoop.fexit")
int ksnoop_fexit_compat(void *ctx)
{
	struct regs r = {};

	save_tramp_regs(ctx, &r, the_cfg.nr_args, true);
	return on_return(ctx, &r, PK_FEXIT, COMPAT);
}

SEC("kprobe")
int ksnoop_kprobe_compat(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, COMPAT);
}

SEC("kretprobe")
int ksnoop_kretprobe_compat(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, COMPAT);
}

/*
 * Tracepoints (src/trace/tpoint.h): an instance each, its plan a constant,
 * attached as a raw tracepoint, which any kernel since 4.17 has and which
 * needs no BTF id at load. The arguments come as the context's array.
 */
const volatile __u8 tp_syscall;	    /* enum ksnoop_tp_syscall */
const volatile __s64 tp_syscall_nr; /* with tp_syscall: the call's number */

/*
 * syscalls' events (tp:syscalls:sys_enter_openat) are raw_syscalls'
 * sys_enter(regs, id) and sys_exit(regs, ret) of one call's number: the
 * plan's arguments are the call's, or its return value.
 */
static __always_inline bool save_syscall_regs(void *ctx, struct regs *r)
{
	__u64 tp[2], args[6], nr;

	if (bpf_probe_read_kernel(tp, sizeof(tp), ctx) || !read_syscall((void *)tp[0], args, &nr))
		return false;
	if (tp_syscall == KSNOOP_TP_SYS_ENTER)
		nr = tp[1];
	if ((__s64)nr != tp_syscall_nr)
		return false;
	if (tp_syscall == KSNOOP_TP_SYS_EXIT) {
		r->arg[1] = tp[1];
		return true;
	}
	__builtin_memcpy(&r->arg[1], args, sizeof(args));
	return true;
}

static __always_inline bool save_tp_args(void *ctx, struct regs *r)
{
	if (tp_syscall)
		return save_syscall_regs(ctx, r);
	save_tp_regs(ctx, r, the_cfg.nr_args);
	return true;
}

SEC("raw_tp")
int ksnoop_tp(void *ctx)
{
	struct regs r = {};

	if (!save_tp_args(ctx, &r))
		return 0;
	return on_entry(ctx, &r, PK_TP, MODERN);
}

SEC("raw_tp")
int ksnoop_tp_compat(void *ctx)
{
	struct regs r = {};

	if (!save_tp_args(ctx, &r))
		return 0;
	return on_entry(ctx, &r, PK_TP, COMPAT);
}

/*
 * profile:HZ (src/trace/profile.h): an instance on a perf event of each
 * CPU; a sample has no arguments, only the task and stacks it interrupted.
 */
SEC("perf_event")
int ksnoop_profile(void *ctx)
{
	struct regs r = {};

	return on_entry(ctx, &r, PK_PROFILE, MODERN);
}

SEC("perf_event")
int ksnoop_profile_compat(void *ctx)
{
	struct regs r = {};

	return on_entry(ctx, &r, PK_PROFILE, COMPAT);
}

/*
 * A task that dies inside a traced call leaves its stash behind. The raw
 * tracepoint, not tp_btf, which would need the kernel's BTF in libbpf for
 * its attach id; do_exit() fires it for current.
 */
SEC("raw_tp/sched_process_exit")
int ksnoop_task_exit(void *ctx)
{
	struct stash_key key = { .tid = (__u32)bpf_get_current_pid_tgid() };
	int tid = key.tid;
	__u32 d;

	if (!task_storage)
		bpf_map_delete_elem(&tasks, &tid);
	for (d = 0; d < KSNOOP_MAX_DEPTH; d++) {
		key.depth = d;
		bpf_map_delete_elem(&stash, &key);
		bpf_map_delete_elem(&stash_small, &key);
	}
	return 0;
}
