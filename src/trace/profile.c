// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "trace/profile.h"

#define PROFILE_PREFIX "profile:"

bool profile_is(const char *func)
{
	return !strncmp(func, PROFILE_PREFIX, strlen(PROFILE_PREFIX));
}

int profile_plan(struct kbtf *kb, const struct spec *spec, struct func_plan *plan)
{
	const char *rate = spec->func + strlen(PROFILE_PREFIX);
	long long hz;

	if (parse_long(rate, 1, PROFILE_HZ_MAX, &hz)) {
		p_err("%s: sample how often? profile:HZ takes 1 to %d samples a second per CPU "
		      "(profile:99)",
		      spec->func, PROFILE_HZ_MAX);
		return -EINVAL;
	}
	if (plan_own_void_func(kb, plan, "profile", "profile"))
		return -ENOMEM;
	plan->profile_hz = hz;
	plan->target = SPEC_PROFILE;
	return 0;
}
