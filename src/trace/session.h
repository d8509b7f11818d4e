/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session, as trace, count and hist share it: the kernel's BTF
 * and symbols, one plan per traced function (globs expanded), and the
 * tracer that loads and attaches them.
 */
#ifndef KSNOOP_SESSION_H
#define KSNOOP_SESSION_H

#include <stddef.h>

#include "env.h"
#include "lib/kbtf.h"
#include "lib/ksyms.h"
#include "trace/backend.h"
#include "trace/plan.h"

struct session {
	struct env *env;
	struct kbtf *kb;
	struct ksyms *ks;
	struct func_plan *plans;
	int nr;
	size_t cap;
	char **spec_funcs; /* each FUNC argument's function or pattern */
	int nr_specs;
	struct tracer *tracer;
};

/*
 * BTF and symbols, the symbols read beside the BTF parse.
 * Errors are said; returns 0 or -errno. session__close frees it either way.
 */
int session__open(struct session *s, struct env *env);
/* One plan per FUNC spec, a glob's per function it matches. */
int session__plan(struct session *s, int argc, char **argv, const struct plan_opts *po);
/* Sizes the events ring and starts creating it; session__attach does if need be. */
int session__prepare(struct session *s);
int session__attach(struct session *s);
void session__close(struct session *s);

#endif
