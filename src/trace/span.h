/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spans (--from SPEC, --to SPEC): which plans open a span and which close
 * one, and the key that ties them, the first value of each.
 */
#ifndef KSNOOP_SPAN_H
#define KSNOOP_SPAN_H

#include "trace/session.h"
#include "trace/span_opts.h"

/* Both ends, and no FUNC arguments beside them (argc). Errors are said. */
int span_check_args(const struct span_opts *o, int argc, const char *cmd);
/*
 * The FROM specs' plans with po, then the TO specs' without po's comm
 * (an end runs wherever the span ends: an interrupt, another task), then
 * span_mark_plans. Errors are said; 0 or -errno.
 */
int span_plan(struct session *s, const struct span_opts *o, const struct plan_opts *po);

/*
 * The session's first nr_from specs open spans, the rest close them:
 * marks each plan's cfg and checks that every one has a key (its first
 * value, at entry: a pointer or an integer of at most 8 bytes) of one
 * kind, pointer or integer, on both sides. Errors are said; 0 or -errno.
 */
int span_mark_plans(struct session *s, int nr_from);

#endif
