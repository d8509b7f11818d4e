// SPDX-License-Identifier: GPL-2.0
/* ksnoop feature: not implemented yet. */
#include <errno.h>

#include "env.h"
#include "util.h"

int cmd_feature(struct env *env, int argc, char **argv)
{
	(void)env;
	(void)argc;
	(void)argv;
	p_err("'feature' is not implemented yet");
	return -ENOSYS;
}
