/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User functions' prototypes from DWARF: the parameters' names and types
 * and the return type of a function of a program or library, read with
 * libdw from the file's own DWARF or its separate debug file (Debian's
 * -dbg packages), as BTF that plans read like a kernel function's. No
 * BPF here: ELF and DWARF only.
 */
#ifndef KSNOOP_UDWARF_H
#define KSNOOP_UDWARF_H

#include <linux/types.h>

struct btf;

/* What one prototype may add to its BTF, and how deep its types may nest. */
#define UDWARF_MAX_TYPES 4096
#define UDWARF_MAX_DEPTH 32

/*
 * The prototype of the function whose code starts at addr (its symbol's
 * st_value: an alias such as malloc finds __libc_malloc's DWARF) in the
 * ELF file path, added to btf, a split BTF on the kernel's, as a
 * BTF_KIND_FUNC_PROTO whose id goes into *proto_id. Parameters are named
 * as DWARF names them ("argN" where it does not, or with a name that is
 * no C identifier); variadic ones end in "...". Types come with the
 * structs, unions, enums and typedefs they reach, members and offsets
 * included; base types and scalar typedefs the kernel's BTF has by name
 * and size are the kernel's. Past UDWARF_MAX_TYPES new types (shared
 * out among the return value and parameters) or UDWARF_MAX_DEPTH levels,
 * pointers point at void, and other members are left out.
 * Returns 0; -ENOENT, unsaid, when there is no DWARF for the function or
 * its values do not all travel in integer registers (floating point, a
 * struct by value over 8 bytes), so that the caller falls back on
 * arg0..; else one error naming func (the spec's "c:malloc") and
 * -EBADMSG (damaged DWARF) or another -errno.
 */
int udwarf_add_proto(struct btf *btf, const char *path, unsigned long long addr, const char *func,
		     __u32 *proto_id);

/*
 * The last file's DWARF stays open, for the next call's function is most
 * likely in it too (a glob's are): close it once a plan is made. Not
 * thread-safe: planning runs in one thread.
 */
void udwarf_forget(void);

#endif
