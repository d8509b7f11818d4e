// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "trace/select.h"
#include "trace/straight.h"

const char *backend_name(enum backend_kind k)
{
	switch (k) {
	case BK_FENTRY:
		return "fentry";
	case BK_KPROBE:
		return "kprobe";
	case BK_KPROBE_MULTI:
		return "kprobe.multi";
	case BK_TRACEPOINT:
		return "raw tracepoint";
	case BK_PROFILE:
		return "perf event";
	default:
		return "?";
	}
}

bool backend_allows(enum backend_choice want, enum backend_kind kind)
{
	if (want == BACKEND_FENTRY)
		return kind == BK_FENTRY;
	if (want == BACKEND_KPROBE)
		return kind == BK_KPROBE;
	return kind == BK_FENTRY || kind == BK_KPROBE;
}

/*
 * From BACKEND_MULTI_NAMED_MIN named functions, auto attaches them through
 * kprobe.multi rather than fentry: each fentry function costs a verifier
 * pass and a trampoline of its own (0.4 s under TCG, 214 s for 500), while
 * one kprobe.multi link each way takes them all. Below it, fentry's cheaper
 * calls win.
 */
bool backend_multi_member(enum backend_choice want, int nr, const struct func_plan *p)
{
	if (want == BACKEND_FENTRY)
		return false;
	if (p->from_glob)
		return true;
	/* Before Linux 6.3 kprobe.multi resolves vmlinux symbols only. */
	if (p->func.module)
		return false;
	return want == BACKEND_KPROBE ? nr > 1 : nr >= BACKEND_MULTI_NAMED_MIN;
}

/*
 * A function whose events all come from one side, with nothing to pair
 * (see KSNOOP_CFG_FRAME), runs no program on the other: even an empty one
 * costs a trampoline round trip per call.
 */
bool backend_wants_prog(const struct ksnoop_func_cfg *cfg, bool entry)
{
	if (cfg->flags & KSNOOP_CFG_FRAME)
		return true;
	if (entry)
		return (cfg->emit & (KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_COMBINED)) ||
		       cfg->nr_fast_preds; /* a kprobe's fast verdict goes in a frame */
	return cfg->emit & (KSNOOP_EMIT_RETURN | KSNOOP_EMIT_COMBINED);
}

bool backend_can_fentry(const struct func_plan *p)
{
	/* A clone's symbol has no BTF function of its own to attach to. */
	return !p->no_btf && !strchr(p->attach_name, '.');
}

/* The general programs need bpf_loop and bpf_get_func_arg; else COMPAT ones. */
static bool compat(const struct select_env *e)
{
	return !kfeat_has(e->feat, KFEAT_LOOP) || !kfeat_has(e->feat, KFEAT_FUNC_ARG);
}

/*
 * Whether p's programs can be written out for it (straight.h): every side
 * it runs a program on qualifies, and the session filters no task, CPU or
 * cgroup. fentry needs a vmlinux function (a module's would need its BTF
 * object's fd), bpf_get_func_arg and the kernel's own BTF ids; kprobes the
 * kprobe PMU (libbpf falls back to tracefs kprobe_events without it).
 */
static bool straight_ok(const struct select_env *e, const struct func_plan *p,
			enum straight_ctx ctx)
{
	const struct tracer_opts *o = e->opts;
	int side;

	if (o->nr_pids || o->cpu >= 0 || o->cgroup || !plan_returns(p))
		return false;
	if (plan_is_user(p) && (ctx != STRAIGHT_KPROBE || !e->uprobe_pmu))
		return false;
	if (ctx == STRAIGHT_TRAMPOLINE && (p->func.module || !backend_can_fentry(p) ||
					   !kfeat_has(e->feat, KFEAT_FUNC_ARG) || o->offline_btf))
		return false;
	if (ctx == STRAIGHT_KPROBE && !plan_is_user(p) && !e->kprobe_pmu)
		return false;
	if (o->agg.mode == KSNOOP_AGG_COUNT)
		return (o->agg.keyless || !o->agg.by) && straight_count_ok(&p->cfg, ctx);
	if (o->agg.mode != KSNOOP_AGG_NONE)
		return false;
	for (side = KSNOOP_SIDE_ENTRY; side <= KSNOOP_SIDE_RETURN; side++) {
		if (backend_wants_prog(&p->cfg, side == KSNOOP_SIDE_ENTRY) &&
		    !straight_side_ok(&p->cfg, side, ctx))
			return false;
	}
	return true;
}

static enum select_run side_run(const struct select_env *e, const struct func_plan *p, int side,
				bool straight)
{
	if (!backend_wants_prog(&p->cfg, side == KSNOOP_SIDE_ENTRY))
		return SEL_RUN_NONE;
	if (straight)
		return SEL_RUN_STRAIGHT;
	if (e->opts->agg.mode != KSNOOP_AGG_NONE)
		return SEL_RUN_AGG;
	return p->cfg.flags & KSNOOP_CFG_LITE ? SEL_RUN_LITE : SEL_RUN_GENERAL;
}

static void set_tries(const struct select_env *e, const struct func_plan *p, struct select_func *s)
{
	int k;

	s->nr_tries = 0;
	/* a user function's uprobe runs the kprobe programs, whatever -b says */
	if (plan_is_user(p)) {
		s->tries[s->nr_tries++] = BK_KPROBE;
		return;
	}
	if (!plan_returns(p)) {
		s->tries[s->nr_tries++] = plan_is_tracepoint(p) ? BK_TRACEPOINT : BK_PROFILE;
		return;
	}
	for (k = BK_FENTRY; k <= BK_KPROBE; k++) {
		if (!backend_allows(e->opts->backend, k))
			continue;
		/* a compiler clone, or --btf's type ids: fentry cannot attach */
		if (k == BK_FENTRY && e->opts->offline_btf) {
			s->no_fentry = "fentry attaches by the type ids of the kernel's own BTF, "
				       "and --btf gives another file's";
			continue;
		}
		if (k == BK_FENTRY && !backend_can_fentry(p)) {
			s->no_fentry =
				p->no_btf ? "the kernel's BTF does not describe it"
					  : "a compiler clone has no BTF function to attach to";
			continue;
		}
		s->tries[s->nr_tries++] = k;
	}
}

/*
 * The first function fentry is tried for loads its programs with the
 * owner: an object of its own would parse the kernel's BTF once more
 * (180 ms of a 1.9 s start in a VM). The others load like them, so it takes
 * attach cookies, and vmlinux BTF. -1 when there is no such function.
 */
static int owner_fentry(const struct select_env *e, const struct func_plan *plans, int nr,
			const struct select_func *out)
{
	int i;

	if (!kfeat_has(e->feat, KFEAT_FENTRY_COOKIE) || compat(e) || e->opts->offline_btf ||
	    !backend_allows(e->opts->backend, BK_FENTRY))
		return -1;
	for (i = 0; i < nr; i++) {
		if (out[i].multi || select_straight(&out[i], BK_FENTRY))
			continue;
		if (!backend_can_fentry(&plans[i]) || plans[i].func.module)
			return -1;
		return i;
	}
	return -1;
}

bool select_straight(const struct select_func *s, enum backend_kind k)
{
	return s->run[k][0] == SEL_RUN_STRAIGHT || s->run[k][1] == SEL_RUN_STRAIGHT;
}

static bool tries_fentry(const struct select_func *s)
{
	return s->nr_tries > 0 && s->tries[0] == BK_FENTRY;
}

/*
 * How each fentry function that is neither the owner's nor written out
 * loads: like the first where attach cookies tell functions apart, else
 * as clones of the first COMPAT instance; a module function through a
 * skeleton of its own, which finds its module's BTF.
 */
static void set_fentry_loads(const struct select_env *e, const struct func_plan *plans, int nr,
			     struct select_func *out)
{
	bool cookie = kfeat_has(e->feat, KFEAT_FENTRY_COOKIE), have_tmpl = false;
	int owner = owner_fentry(e, plans, nr, out), i;

	for (i = 0; i < nr; i++) {
		struct select_func *s = &out[i];

		if (!tries_fentry(s) || s->multi || select_straight(s, BK_FENTRY))
			s->fentry_load = SEL_LOAD_NONE;
		else if (i == owner)
			s->fentry_load = SEL_LOAD_OWNER;
		else if (plans[i].func.module)
			s->fentry_load = SEL_LOAD_SKELETON;
		else if (have_tmpl && (cookie || compat(e)))
			s->fentry_load = cookie ? SEL_LOAD_LIKE_FIRST : SEL_LOAD_CLONE;
		else
			s->fentry_load = SEL_LOAD_SKELETON;
		if (s->fentry_load == SEL_LOAD_OWNER || s->fentry_load == SEL_LOAD_SKELETON)
			have_tmpl = have_tmpl || !plans[i].func.module;
	}
}

/*
 * A user function joins its binary's uprobe.multi link (6.6) where the
 * shared programs tell functions apart by their attach cookies.
 */
static bool umulti_ok(const struct select_env *e)
{
	return kfeat_has(e->feat, KFEAT_UPROBE_MULTI) && kfeat_has(e->feat, KFEAT_KPROBE_COOKIE) &&
	       kfeat_has(e->feat, KFEAT_LOOP);
}

void select_funcs(const struct select_env *e, const struct func_plan *plans, int nr,
		  struct select_func *out)
{
	int i, side;

	for (i = 0; i < nr; i++) {
		const struct func_plan *p = &plans[i];
		struct select_func *s = &out[i];
		bool straight[2] = { false, false };

		memset(s, 0, sizeof(*s));
		s->user = plan_is_user(p);
		s->multi = plan_returns(p) && backend_multi_member(e->opts->backend, nr, p) &&
			   (!s->user || umulti_ok(e));
		set_tries(e, p, s);
		/* also for a multi member: it goes alone if the link fails */
		straight[BK_FENTRY] = straight_ok(e, p, STRAIGHT_TRAMPOLINE);
		straight[BK_KPROBE] = straight_ok(e, p, STRAIGHT_KPROBE);
		for (side = 0; side < 2; side++) {
			s->run[BK_FENTRY][side] = side_run(e, p, side, straight[BK_FENTRY]);
			s->run[BK_KPROBE][side] = side_run(e, p, side, straight[BK_KPROBE]);
			s->run[BK_TRACEPOINT][side] = side_run(e, p, side, false);
			s->run[BK_PROFILE][side] = side_run(e, p, side, false);
		}
	}
	set_fentry_loads(e, plans, nr, out);
}

static const char *run_name(enum select_run r)
{
	static const char *const names[] = {
		[SEL_RUN_NONE] = "nothing",    [SEL_RUN_STRAIGHT] = "written out",
		[SEL_RUN_LITE] = "lite",       [SEL_RUN_GENERAL] = "general",
		[SEL_RUN_AGG] = "aggregation",
	};

	return r <= SEL_RUN_AGG ? names[r] : "?";
}

static const char *load_name(enum select_load l)
{
	static const char *const names[] = {
		[SEL_LOAD_NONE] = "",
		[SEL_LOAD_OWNER] = ", loaded with the owner",
		[SEL_LOAD_LIKE_FIRST] = ", loaded like the first",
		[SEL_LOAD_CLONE] = ", a clone",
		[SEL_LOAD_SKELETON] = ", an object of its own",
	};

	return l <= SEL_LOAD_SKELETON ? names[l] : "";
}

void select_describe(const struct select_func *s, struct strbuf *sb)
{
	int i, k;

	if (s->multi)
		sb_printf(sb, "%s, else ", s->user ? "uprobe.multi" : "kprobe.multi");
	for (i = 0; i < s->nr_tries; i++) {
		k = s->tries[i];
		sb_printf(sb, "%s%s: entry %s, return %s%s", i ? "; then " : "",
			  s->user ? "uprobe" : backend_name(k), run_name(s->run[k][0]),
			  run_name(s->run[k][1]), k == BK_FENTRY ? load_name(s->fentry_load) : "");
	}
}
