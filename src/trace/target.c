// SPDX-License-Identifier: GPL-2.0
#include "trace/target.h"
#include "trace/profile.h"
#include "trace/tpoint.h"
#include "trace/ufunc.h"

enum spec_target target_classify(const char *func)
{
	if (tpoint_is(func))
		return SPEC_TRACEPOINT;
	if (profile_is(func))
		return SPEC_PROFILE;
	return ufunc_is_user(func) ? SPEC_USER : SPEC_KERNEL;
}
