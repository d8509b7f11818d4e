/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel memory, read through /proc/kcore's ELF view of it. */
#ifndef KSNOOP_KCORE_H
#define KSNOOP_KCORE_H

#include <stddef.h>
#include <stdint.h>

/* len bytes at kernel address addr into buf: 0, or a negative errno. */
int kcore_read(uint64_t addr, void *buf, size_t len);

#endif
