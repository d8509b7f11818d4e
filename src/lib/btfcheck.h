/* SPDX-License-Identifier: GPL-2.0 */
/* One validation pass over BTF from outside, before anything walks it. */
#ifndef KSNOOP_BTFCHECK_H
#define KSNOOP_BTFCHECK_H

#include <stddef.h>
#include <bpf/btf.h>

/*
 * Largest struct or union accepted, in bytes: every bit offset inside one
 * fits in an int, as the plan's offsets are.
 */
#define BTF_CHECK_MAX_COMPOSITE (1u << 28)

/*
 * libbpf 1.1 checks only the layout of a BTF blob: btf_dump indexes its
 * arrays with unchecked type ids and follows type chains without a bound,
 * and ksnoop's walkers trust names and offsets. Checks the types a BTF adds
 * (for split BTF not its base, which must have been checked already):
 * names inside the string section, type ids in range, no loop of
 * typedefs, modifiers, pointers, arrays, prototypes and anonymous structs
 * (what the declaration printer follows), no type containing itself by
 * value (what the data walkers follow), members inside their struct,
 * arrays whose size fits in 32 bits. Returns 0, or -EBADMSG with the first
 * problem found in why ("type [12] STRUCT 'foo' member 'bar' ...").
 */
int btf_check(const struct btf *btf, char *why, size_t size);

struct ksyms;
/*
 * Whether btf, read from path (--btf), describes the running kernel: its
 * functions as kallsyms names them. 0, or -EINVAL after one error line.
 */
int btf_check_running(const struct btf *btf, struct ksyms *ks, const char *path);

#endif
