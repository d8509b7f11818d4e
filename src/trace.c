// SPDX-License-Identifier: GPL-2.0
/* ksnoop trace FUNC...: placeholder until the trace engine lands. */
#include <errno.h>
#include <stdio.h>

#include "env.h"
#include "util.h"

int cmd_trace(struct env *env, int argc, char **argv)
{
	(void)env;
	(void)argv;
	if (argc < 1) {
		p_err("trace needs at least one function");
		return -EINVAL;
	}
	return -ENOSYS;
}
