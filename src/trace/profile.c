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
	struct btf *btf;
	int id;

	if (parse_long(rate, 1, PROFILE_HZ_MAX, &hz)) {
		p_err("%s: sample how often? profile:HZ takes 1 to %d samples a second per CPU "
		      "(profile:99)",
		      spec->func, PROFILE_HZ_MAX);
		return -EINVAL;
	}
	btf = btf__new_empty_split(kbtf__vmlinux(kb));
	plan->own_btf = btf;
	id = btf ? btf__add_func_proto(btf, 0) : -ENOMEM;
	id = id > 0 ? btf__add_func(btf, "profile", BTF_FUNC_GLOBAL, id) : id;
	if (id < 0)
		return p_err_nomem(spec->func);
	free(plan->attach_name);
	plan->attach_name = strdup("profile");
	if (!plan->attach_name)
		return p_err_nomem(spec->func);
	plan->func = (struct kbtf_func){ .btf = btf, .id = id };
	plan->profile_hz = hz;
	plan->target = SPEC_PROFILE;
	return 0;
}
