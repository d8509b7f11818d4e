// SPDX-License-Identifier: GPL-2.0
/* ksnoop ktrace: not implemented yet. */
#include <errno.h>

#include "env.h"
#include "util.h"

int cmd_ktrace(struct env *env, int argc, char **argv)
{
	(void)env;
	(void)argc;
	(void)argv;
	p_err("'ktrace' is not implemented yet");
	return -ENOSYS;
}
