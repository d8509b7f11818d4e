/* SPDX-License-Identifier: GPL-2.0 */
/* libbpf glue shared by every command that loads BPF. */
#ifndef KSNOOP_BPFUTIL_H
#define KSNOOP_BPFUTIL_H

#include <stdbool.h>

/* libbpf's own messages appear only with -d. */
void route_libbpf_messages(bool debug);

#endif
