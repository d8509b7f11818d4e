// SPDX-License-Identifier: GPL-2.0
/* ksnoop: trace kernel function entry and return with BTF-decoded values. */
#include "env.h"

int main(int argc, char **argv)
{
	return ksnoop_main(argc, argv);
}
