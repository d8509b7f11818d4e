/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What runs for each traced function, decided in one place before anything
 * loads. For each side (entry, return): nothing, programs written out for
 * the function alone (straight.h), the general programs' lite path, the
 * general programs, or aggregation. How it attaches: one kprobe.multi link
 * for many, or fentry and then kprobe as the backend choice allows. How its
 * fentry programs load: with the owner object, like the first function
 * (a copy with the same BTF func_info), as a clone of a COMPAT template, or
 * through a skeleton of their own. A tracepoint has an instance of its
 * own, attached as a raw tracepoint; profile:HZ one attached to a perf
 * event on each CPU. backend.c carries the decision out and
 * falls back at run time only where the kernel refuses it; -d prints it.
 */
#ifndef KSNOOP_SELECT_H
#define KSNOOP_SELECT_H

#include <stdbool.h>

#include "lib/kfeat.h"
#include "lib/util.h"
#include "trace/plan.h"
#include "trace/tracer_opts.h"

enum backend_kind { BK_FENTRY, BK_KPROBE, BK_KPROBE_MULTI, BK_TRACEPOINT, BK_PROFILE, BK_NR };

enum select_run {
	SEL_RUN_NONE,	  /* no program on this side */
	SEL_RUN_STRAIGHT, /* written out for this function */
	SEL_RUN_LITE,	  /* the general programs, writing its ring record directly */
	SEL_RUN_GENERAL,  /* the general programs */
	SEL_RUN_AGG,	  /* count/hist: the general programs, into the maps */
};

enum select_load {
	SEL_LOAD_NONE,	     /* fentry is not tried */
	SEL_LOAD_OWNER,	     /* with the owner object: the first fentry function */
	SEL_LOAD_LIKE_FIRST, /* a copy of the first's programs, cookie-keyed */
	SEL_LOAD_CLONE,	     /* a copy of a COMPAT instance, the plan a constant */
	SEL_LOAD_SKELETON,   /* an object of its own */
};

/* What the kernel and the session offer the decision. */
struct select_env {
	const struct tracer_opts *opts;
	kfeat_set feat;
	bool kprobe_pmu; /* kprobes as perf events, not tracefs kprobe_events */
	bool uprobe_pmu; /* uprobes the same */
};

struct select_func {
	bool multi; /* one of the kprobe.multi link's functions */
	bool user;  /* a user function: a uprobe runs the kprobe programs */
	/* the backends tried, in order, when not multi */
	enum backend_kind tries[2];
	int nr_tries;
	/* what runs on each side, by backend */
	enum select_run run[BK_NR][2];
	enum select_load fentry_load;
	/* why fentry, which -b allows, is not tried for a kernel function; else NULL */
	const char *no_fentry;
};

/* out[i] for plans[i]; the plans' cfg flags (lite, frame) are set already. */
void select_funcs(const struct select_env *e, const struct func_plan *plans, int nr,
		  struct select_func *out);
/* Whether s's programs are written out for backend k (on either side). */
bool select_straight(const struct select_func *s, enum backend_kind k);
/* "entry lite, return straight (fentry, like the first), then kprobe: ..." */
void select_describe(const struct select_func *s, struct strbuf *sb);

/* The predicates the decision is made of. */
bool backend_allows(enum backend_choice want, enum backend_kind kind);
/* From this many named functions auto attaches them through kprobe.multi. */
#define BACKEND_MULTI_NAMED_MIN 16
bool backend_multi_member(enum backend_choice want, int nr, const struct func_plan *p);
/* Whether cfg needs a program at entry (else at return): see KSNOOP_CFG_FRAME. */
bool backend_wants_prog(const struct ksnoop_func_cfg *cfg, bool entry);
/* Not a compiler clone (foo.isra.0), which has no BTF function to attach to. */
bool backend_can_fentry(const struct func_plan *p);
const char *backend_name(enum backend_kind k);

#endif
