// SPDX-License-Identifier: GPL-2.0
/* ksnoop kdump: not implemented yet. */
#include <errno.h>

#include "env.h"
#include "util.h"

int cmd_kdump(struct env *env, int argc, char **argv)
{
	(void)env;
	(void)argc;
	(void)argv;
	p_err("'kdump' is not implemented yet");
	return -ENOSYS;
}
