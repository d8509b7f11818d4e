/* SPDX-License-Identifier: GPL-2.0 */
/* The one header shared by BPF programs and user space. */
#ifndef KSNOOP_SHARED_H
#define KSNOOP_SHARED_H

#endif
