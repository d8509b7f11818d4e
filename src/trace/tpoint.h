/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints in specs: "tp:sched:sched_switch(prev->comm, next->pid)",
 * "rawtp:sched_switch". The kernel gives every tracepoint a BPF stub,
 * __bpf_trace_EVENT(void *__data, ...the tracepoint's own arguments),
 * whose BTF names and types them as TP_PROTO declares them (5.0 and on).
 * A plan's prototype is that stub's without __data: plans, filters and
 * output then treat a tracepoint as a function called with exactly the
 * arguments a raw tracepoint program receives, which never returns.
 */
#ifndef KSNOOP_TPOINT_H
#define KSNOOP_TPOINT_H

#include <stdbool.h>

#include "lib/kbtf.h"
#include "trace/plan.h"
#include "trace/spec.h"

/* "tp:..." or "rawtp:...": whether func names a tracepoint. */
bool tpoint_is(const char *func);

/*
 * Checks spec's tracepoint (its category in tracefs, where tracefs is
 * mounted) and builds its prototype: plan->func and plan->own_btf, and
 * attach_name the raw tracepoint. Errors are reported; 0 or -errno.
 */
int tpoint_plan(struct kbtf *kb, const struct spec *spec, struct func_plan *plan);

/*
 * "tp:block:*", "tp:*:sched_wak*", "rawtp:sched_*": the tracepoints a
 * pattern matches, each as a spec's name, up to max; those of tracefs
 * without a BPF stub too (their plans fail, and are named as left out).
 * How many, or -errno (said; -E2BIG past max). Free with
 * strs_free(names, max).
 */
int tpoint_expand(struct kbtf *kb, const char *pattern, int max, char ***names);

#endif
