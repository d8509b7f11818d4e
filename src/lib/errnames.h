/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel errno numbers and their names, one table for every command. */
#ifndef KSNOOP_ERRNAMES_H
#define KSNOOP_ERRNAMES_H

/* The largest errno: returns in [-ERRNO_MAX, -1] are errors (IS_ERR_VALUE). */
#define ERRNO_MAX 4095

/* "ENOENT" for 2 or -2; NULL for a number without a name. */
const char *errno_name(int err);
/* A name (any case, "ENOENT") or a number in 1..ERRNO_MAX; else -EINVAL. */
int errno_parse(const char *s);

#endif
