/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session, as trace, count and hist share it: the kernel's BTF
 * and symbols, one plan per traced function (globs expanded), and the
 * tracer that loads and attaches them.
 */
#ifndef KSNOOP_SESSION_H
#define KSNOOP_SESSION_H

#include <stddef.h>

#include "lib/kbtf.h"
#include "lib/ksyms.h"
#include "trace/backend.h"
#include "trace/plan.h"

/* What the session needs of a command's options. */
struct session_opts {
	const char *btf_path; /* --btf: this kernel's BTF from a file */
	bool stack_mode;      /* -s: the plans form a chain, in order */
	bool graph;	      /* the first plan is ENTRY, the rest its callees */
	/*
	 * Its BTF and symbols, borrowed instead of read again: serve's
	 * metrics share one copy. It must outlive this session.
	 */
	const struct session *share;
};

struct session {
	struct session_opts opts;
	struct kbtf *kb;
	struct ksyms *ks;
	struct func_plan *plans;
	int nr;
	size_t cap;
	char **spec_funcs; /* each FUNC argument's function or pattern */
	int nr_specs;
	int span_from; /* spans: the first span_from specs open them; 0 without */
	struct tracer *tracer;
	bool borrowed; /* kb and ks are opts.share's */
};

/*
 * BTF and symbols, the symbols read beside the BTF parse.
 * Errors are said; returns 0 or -errno. session__close frees it either way.
 */
int session__open(struct session *s, const struct session_opts *o);
/*
 * One plan per FUNC spec, a glob's per function it matches, after those of
 * earlier calls (spec indexes go on from theirs).
 */
int session__plan(struct session *s, int argc, char **argv, const struct plan_opts *po);
/*
 * One plan per function of names, bare, under one spec index named what;
 * those without usable BTF, or that cannot be traced, are skipped without
 * a word. How many were planned, or a negative errno (-E2BIG: the session
 * is full).
 */
int session__plan_funcs(struct session *s, const char *what, const char *const *names, int n,
			const struct plan_opts *po);
/* Sizes the events ring and starts creating it, before session__attach. */
int session__prepare(struct session *s, const struct tracer_opts *to);
int session__attach(struct session *s);
void session__report_open_spans(const struct session *s);
void session__close(struct session *s);

#endif
