/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU sampling as a spec: "profile:99" takes a sample HZ times a second on
 * each CPU, through a software clock perf event, and runs the same
 * programs a traced call does with nothing in its registers: `current`
 * (the task the sample interrupted), comm, pid, cpu and the stacks are its
 * values and keys.
 */
#ifndef KSNOOP_PROFILE_H
#define KSNOOP_PROFILE_H

#include <stdbool.h>

#include "lib/kbtf.h"
#include "trace/plan.h"
#include "trace/spec.h"

#define PROFILE_HZ_MAX 10000

/* "profile:..." names CPU sampling. */
bool profile_is(const char *func);

/*
 * The sampling rate and a prototype without parameters (plan->func,
 * plan->own_btf, plan->profile_hz). Errors are reported; 0 or -errno.
 */
int profile_plan(struct kbtf *kb, const struct spec *spec, struct func_plan *plan);

#endif
