/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C type names, as spec declarations ("size_t size", "const char *node")
 * and tracefs formats ("const char * filename") write them, to the
 * kernel's BTF: C's integer words, typedefs, struct/union/enum tags, and
 * pointers to any of them.
 */
#ifndef KSNOOP_CTYPE_H
#define KSNOOP_CTYPE_H

#include <bpf/btf.h>

struct ctype {
	char name[128]; /* the typedef or tag asked for; "" for C's own words */
	int stars;	/* pointers on top of the base type */
};

/*
 * The id of decl's base type (before its stars) in btf, into t: 0 is
 * void; -EINVAL when decl is no type C would take (or a qualifier follows
 * a star: "char * const"), -EOPNOTSUPP for floating point, -ENOENT when
 * BTF lacks the name.
 */
int ctype_read(const struct btf *btf, const char *decl, struct ctype *t);
/* id with stars pointers on top, added to btf where needed; -errno. */
int ctype_add_ptrs(struct btf *btf, int id, int stars);

#endif
