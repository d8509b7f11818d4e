/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User functions in specs: "c:malloc(size_t size)", "/usr/bin/bash:readline".
 * The target and symbol become a uprobe site; the parameters, declared in
 * the spec, else as the function's DWARF names them, else arg0..argN,
 * become a BTF prototype split on vmlinux's, so plans, filters and output
 * treat them as they do a kernel function's.
 */
#ifndef KSNOOP_UFUNC_H
#define KSNOOP_UFUNC_H

#include <stdbool.h>

#include "lib/kbtf.h"
#include "trace/plan.h"
#include "trace/spec.h"

/*
 * Whether a spec's function is in user space: a path ("/usr/bin/bash:f"),
 * or "target:func" whose target is no kernel module loaded here.
 */
bool ufunc_is_user(const char *func);
/* Whether "mod:func"'s mod is a kernel module loaded here. */
bool ufunc_module_loaded(const char *func);

/*
 * Resolves spec's target (the libraries process pid maps first, when
 * pid > 0) and symbol, and builds the prototype: plan->user, plan->func
 * and plan->own_btf. Errors are reported; returns 0 or -errno.
 */
int ufunc_plan(struct kbtf *kb, const struct spec *spec, int pid, struct func_plan *plan);

/*
 * "c:mallo*" -> "c:malloc", "c:malloc_info"...: the functions a user
 * pattern matches, each as a spec's function, up to max. How many, or
 * -errno (said; -E2BIG past max). Free with strs_free(names, max).
 */
int ufunc_expand(const char *pattern, int pid, int max, char ***names);

#endif
