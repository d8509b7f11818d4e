/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a spec's name is: a kernel function, a user function, a
 * tracepoint or CPU sampling. The spec's text alone cannot tell "nf_conntrack:func" (a
 * module's) from "c:malloc" (a library's): the system decides, once per
 * spec, before anything is planned.
 */
#ifndef KSNOOP_TARGET_H
#define KSNOOP_TARGET_H

#include "trace/spec.h"

enum spec_target target_classify(const char *func);

#endif
