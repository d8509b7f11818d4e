// SPDX-License-Identifier: GPL-2.0
/*
 * BTF validation: one linear pass over names, ids, kinds and sizes, then
 * an iterative depth-first search per type graph for loops.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/btfcheck.h"
#include "lib/kbtf.h"
#include "lib/ksyms.h"
#include "lib/util.h"

struct checker {
	const struct btf *btf;
	__u32 start, cnt; /* the types this BTF adds: [start, cnt) */
	__u32 str_end;	  /* name offsets below it are valid */
	/* [id - start] for the types it adds: */
	const struct btf_type **types;
	__u8 *leads; /* graphs (1 << graph) the type has edges in */
	__u8 *colour;
	__u64 *parts;
	size_t nr_edges; /* at most, in either graph */
	char *why;
	size_t size;
};

static const struct btf_type *type_of(const struct checker *c, __u32 id)
{
	return id >= c->start ? c->types[id - c->start] : btf__type_by_id(c->btf, id);
}

static const char *const kind_names[] = {
	[BTF_KIND_UNKN] = "void",	  [BTF_KIND_INT] = "INT",
	[BTF_KIND_PTR] = "PTR",		  [BTF_KIND_ARRAY] = "ARRAY",
	[BTF_KIND_STRUCT] = "STRUCT",	  [BTF_KIND_UNION] = "UNION",
	[BTF_KIND_ENUM] = "ENUM",	  [BTF_KIND_FWD] = "FWD",
	[BTF_KIND_TYPEDEF] = "TYPEDEF",	  [BTF_KIND_VOLATILE] = "VOLATILE",
	[BTF_KIND_CONST] = "CONST",	  [BTF_KIND_RESTRICT] = "RESTRICT",
	[BTF_KIND_FUNC] = "FUNC",	  [BTF_KIND_FUNC_PROTO] = "FUNC_PROTO",
	[BTF_KIND_VAR] = "VAR",		  [BTF_KIND_DATASEC] = "DATASEC",
	[BTF_KIND_FLOAT] = "FLOAT",	  [BTF_KIND_DECL_TAG] = "DECL_TAG",
	[BTF_KIND_TYPE_TAG] = "TYPE_TAG", [BTF_KIND_ENUM64] = "ENUM64",
};

static const char *kind_name(const struct btf_type *t)
{
	__u16 k = btf_kind(t);

	return k < ARRAY_SIZE(kind_names) && kind_names[k] ? kind_names[k] : "UNKNOWN";
}

/* "member 'bar' " or "member 3 ": names an element of a type, for messages. */
static const char *item_name(const struct checker *c, const char *what, int idx, __u32 name_off,
			     char *buf, size_t size)
{
	const char *name = btf__name_by_offset(c->btf, name_off);
	char clip[CLIP_BUF];

	if (name && name[0])
		snprintf(buf, size, "%s '%s' ", what, str_clip(name, clip));
	else
		snprintf(buf, size, "%s %d ", what, idx);
	return buf;
}

/* "type [12] STRUCT 'foo' " and the rest of the message. */
static int __attribute__((format(printf, 3, 4)))
fail(struct checker *c, __u32 id, const char *fmt, ...)
{
	const struct btf_type *t = type_of(c, id);
	const char *name = btf__name_by_offset(c->btf, t->name_off);
	char clip[CLIP_BUF];
	va_list ap;
	int n;

	if (name && name[0])
		n = snprintf(c->why, c->size, "type [%u] %s '%s' ", id, kind_name(t),
			     str_clip(name, clip));
	else
		n = snprintf(c->why, c->size, "type [%u] %s ", id, kind_name(t));
	if (n >= 0 && (size_t)n < c->size) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->size - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static bool name_ok(const struct checker *c, __u32 name_off)
{
	return name_off < c->str_end;
}

static int check_name(struct checker *c, __u32 id, const char *what, __u32 name_off)
{
	if (name_ok(c, name_off))
		return 0;
	return fail(c, id, "%shas name offset %u, outside the string section", what, name_off);
}

static int check_ref(struct checker *c, __u32 id, const char *what, __u32 ref)
{
	if (ref < c->cnt)
		return 0;
	return fail(c, id, "%srefers to type %u, past the last type %u", what, ref, c->cnt - 1);
}

/* A named element (member, parameter, enumerator) and the type it has. */
static int check_item(struct checker *c, __u32 id, const char *what, int idx, __u32 name_off,
		      const __u32 *type)
{
	char buf[CLIP_BUF + 32];

	/* Messages cost: build one only for a failing element. */
	if (name_ok(c, name_off) && (!type || *type < c->cnt))
		return 0;
	item_name(c, what, idx, name_off, buf, sizeof(buf));
	return check_name(c, id, buf, name_off) ?: check_ref(c, id, buf, *type);
}

static int check_members(struct checker *c, __u32 id, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	int i, err = 0;

	for (i = 0; i < btf_vlen(t) && !err; i++, m++)
		err = check_item(c, id, "member", i, m->name_off, &m->type);
	return err;
}

static int check_proto(struct checker *c, __u32 id, const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	int i, err = check_ref(c, id, "return type ", t->type);

	for (i = 0; i < btf_vlen(t) && !err; i++, p++)
		err = check_item(c, id, "parameter", i, p->name_off, &p->type);
	return err;
}

static int check_enum(struct checker *c, __u32 id, const struct btf_type *t)
{
	bool is64 = btf_is_enum64(t);
	int i, err = 0;

	if (t->size == 0 || t->size > 8 || (t->size & (t->size - 1)))
		return fail(c, id, "has size %u, not 1, 2, 4 or 8", t->size);
	for (i = 0; i < btf_vlen(t) && !err; i++) {
		__u32 off = is64 ? btf_enum64(t)[i].name_off : btf_enum(t)[i].name_off;

		err = check_item(c, id, "value", i, off, NULL);
	}
	return err;
}

static int check_int(struct checker *c, __u32 id, const struct btf_type *t)
{
	__u32 bits = btf_int_bits(t), off = btf_int_offset(t);

	if (t->size == 0 || t->size > 16 || (t->size & (t->size - 1)))
		return fail(c, id, "has size %u, not 1, 2, 4, 8 or 16", t->size);
	if (bits == 0 || off + bits > t->size * 8)
		return fail(c, id, "has %u bits at bit %u, outside its %u bytes", bits, off,
			    t->size);
	return 0;
}

/* The kernel's sizes; libbpf's dumper copies a float into 16 bytes. */
static int check_float(struct checker *c, __u32 id, const struct btf_type *t)
{
	switch (t->size) {
	case 2:
	case 4:
	case 8:
	case 12:
	case 16:
		return 0;
	default:
		return fail(c, id, "has size %u, not 2, 4, 8, 12 or 16", t->size);
	}
}

static int check_datasec(struct checker *c, __u32 id, const struct btf_type *t)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(t);
	int i, err = 0;

	for (i = 0; i < btf_vlen(t) && !err; i++, v++)
		err = check_ref(c, id, "variable ", v->type);
	return err;
}

/* Names and type ids: what btf_dump__new and every lookup rely on. */
static int check_type(struct checker *c, __u32 id)
{
	const struct btf_type *t = type_of(c, id);
	int err = check_name(c, id, "", t->name_off);

	if (err)
		return err;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return check_int(c, id, t);
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return check_ref(c, id, "", t->type);
	case BTF_KIND_FUNC:
		err = check_ref(c, id, "", t->type);
		if (!err && !btf_is_func_proto(type_of(c, t->type)))
			err = fail(c, id, "has type %u, which is not a FUNC_PROTO", t->type);
		return err;
	case BTF_KIND_ARRAY:
		return check_ref(c, id, "element type ", btf_array(t)->type)
			       ?: check_ref(c, id, "index type ", btf_array(t)->index_type);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (t->size > BTF_CHECK_MAX_COMPOSITE)
			return fail(c, id, "has size %u, more than %u", t->size,
				    BTF_CHECK_MAX_COMPOSITE);
		return check_members(c, id, t);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return check_enum(c, id, t);
	case BTF_KIND_FUNC_PROTO:
		return check_proto(c, id, t);
	case BTF_KIND_DATASEC:
		return check_datasec(c, id, t);
	case BTF_KIND_FLOAT:
		return check_float(c, id, t);
	default: /* FWD: nothing to follow */
		return 0;
	}
}

/*
 * Two graphs over the types, each of which must be free of loops:
 * - DECL: what btf_dump's declaration printer and btf_skip_mods follow.
 *   It stops at named structs and unions, so a pointer to a struct that
 *   points back is fine, but a pointer to itself is not.
 * - VALUE: what walks a value in memory follows (btf_dump's data dump,
 *   the JSON writer, member lookup): members, arrays, modifiers, not
 *   pointers. A loop here is a type that contains itself.
 * A type has the same edges in each graph it is part of, so the walk
 * needs only to know which graphs a type is part of (leads).
 */
enum graph { DECL_GRAPH, VALUE_GRAPH };

static __u8 leads_of(const struct btf_type *t)
{
	const __u8 both = 1 << DECL_GRAPH | 1 << VALUE_GRAPH;

	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ARRAY:
		return both;
	case BTF_KIND_PTR:
	case BTF_KIND_FUNC_PROTO:
		return 1 << DECL_GRAPH;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		/* btf_dump prints an anonymous one inline, members and all */
		if (!btf_vlen(t))
			return 0;
		return t->name_off ? 1 << VALUE_GRAPH : both;
	default:
		return 0;
	}
}

enum { WHITE, GREY, BLACK };

/* On the stack, a type whose walk is done when it is popped. */
#define EXIT_MARK 0x80000000u

struct dfs {
	struct checker *c;
	enum graph g;
	__u8 *colour, *leads; /* indexed by type id */
	__u64 *parts;	      /* what a declaration or a value prints, indexed by id */
	__u32 *stack, sp;
	__u64 sum; /* of the parts of the refs visited */
};

/*
 * The declaration printer spells anonymous structs, unions and enums out
 * in place, with a padding line per 8 bytes of hole, at every reference:
 * an anonymous type used twice by one used twice... doubles at each
 * level. So what each declaration prints is counted, and bounded.
 */
#define MAX_DECL_PARTS (1u << 16)

static long long member_bits(const struct checker *c, const struct btf_type *t, int i);

/* Padding lines the printer adds to an anonymous struct: one per 64 bits. */
static __u64 padding_parts(const struct checker *c, const struct btf_type *t)
{
	__u64 off = 0, pad = 0, end = (__u64)t->size * 8;
	int i;

	if (!btf_is_struct(t))
		return 0;
	for (i = 0; i < btf_vlen(t); i++) {
		__u64 at = btf_member_bit_offset(t, i);

		pad += at > off ? (at - off) / 64 : 0;
		off = at + member_bits(c, t, i);
	}
	return pad + (end > off ? (end - off) / 64 : 0);
}

static __u64 own_parts(const struct checker *c, const struct btf_type *t)
{
	if (t->name_off)
		return 1;
	if (btf_is_composite(t))
		return 1 + padding_parts(c, t);
	return 1 + (btf_is_any_enum(t) ? btf_vlen(t) : 0);
}

/* A type of the base, checked with it, counts as one. */
static __u64 parts_of(const struct dfs *d, __u32 id, bool walked)
{
	if (walked)
		return d->parts[id];
	if (id < d->c->start || d->g == VALUE_GRAPH)
		return 1;
	return own_parts(d->c, d->c->types[id - d->c->start]);
}

/* Inlined: it runs once or twice for every edge of the DECL graph. */
static inline __attribute__((always_inline)) void visit(struct dfs *d, __u32 ref, bool sum)
{
	bool walked = ref >= d->c->start && (d->leads[ref] & (1 << d->g));

	if (sum)
		d->sum += parts_of(d, ref, walked);
	/* the base, a type outside this graph, a finished one: no loop */
	else if (walked && d->colour[ref] != BLACK)
		d->stack[d->sp++] = ref;
}

/* Push the types t leads to, or add up their parts. */
static void visit_refs(struct dfs *d, const struct btf_type *t, bool sum)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_param *p = btf_params(t);
	__u32 i, n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		visit(d, btf_array(t)->type, sum);
		break;
	case BTF_KIND_FUNC_PROTO:
		visit(d, t->type, sum);
		for (i = 0; i < n; i++)
			visit(d, p[i].type, sum);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < n; i++)
			visit(d, m[i].type, sum);
		break;
	default:
		visit(d, t->type, sum);
	}
}

/*
 * Printing a value visits every member and element, zero-sized ones too,
 * and libbpf's zero check walks them again at each level: an array of
 * 2^32 empty structs holds no byte and takes minutes. Real BTF has arrays
 * of a few dozen empty structs (lock_class_key when lockdep is off), and
 * up to 12 visits per byte (unions of bitfield structs, in 5.10 to 7.3).
 */
#define MAX_VALUE_PARTS (1u << 16)
#define MAX_VALUE_PARTS_PER_BYTE 64

static int finish_value(struct dfs *d, __u32 id, const struct btf_type *t)
{
	__s64 size = btf__resolve_size(d->c->btf, id);
	__u64 max = MAX_VALUE_PARTS + (__u64)size * MAX_VALUE_PARTS_PER_BYTE;

	/* no size: check_sizes() says why */
	d->parts[id] = 1;
	if (size < 0)
		return 0;
	d->sum = 0;
	visit_refs(d, t, true);
	if (btf_is_array(t))
		d->sum *= btf_array(t)->nelems; /* below 2^49: each part is bounded */
	d->sum++;
	if (d->sum > max)
		return fail(d->c, id, "would print more than %llu members and elements",
			    (unsigned long long)max);
	d->parts[id] = d->sum;
	return 0;
}

/* A type is done, and so is all it leads to: its parts add up. */
static int finish(struct dfs *d, __u32 id)
{
	const struct btf_type *t = d->c->types[id - d->c->start];

	d->colour[id] = BLACK;
	if (d->g == VALUE_GRAPH)
		return finish_value(d, id, t);
	d->sum = own_parts(d->c, t);
	visit_refs(d, t, true);
	if (d->sum > MAX_DECL_PARTS)
		return fail(d->c, id, "has a declaration of more than %u parts", MAX_DECL_PARTS);
	d->parts[id] = d->sum;
	return 0;
}

static int report_loop(struct dfs *d, __u32 id)
{
	__u32 i = d->sp, from = id;

	/* Children sit just above their parent's exit mark. */
	while (i-- > 0 && !(d->stack[i] & EXIT_MARK))
		;
	if (i < d->sp)
		from = d->stack[i] & ~EXIT_MARK;
	if (d->g == VALUE_GRAPH)
		return fail(d->c, id, "contains itself (back from type [%u])", from);
	return fail(d->c, id,
		    "is in a loop of typedefs, modifiers, pointers, arrays or function prototypes "
		    "(back from type [%u])",
		    from);
}

/* Depth-first from root; grey marks the types on the current path. */
static int walk_from(struct dfs *d, __u32 root)
{
	d->sp = 0;
	d->stack[d->sp++] = root;
	while (d->sp) {
		__u32 id = d->stack[--d->sp];

		if (id & EXIT_MARK) {
			if (finish(d, id & ~EXIT_MARK))
				return -EBADMSG;
		} else if (d->colour[id] == GREY) {
			return report_loop(d, id);
		} else if (d->colour[id] == WHITE) {
			d->colour[id] = GREY;
			d->stack[d->sp++] = id | EXIT_MARK;
			visit_refs(d, d->c->types[id - d->c->start], false);
		}
	}
	return 0;
}

static int check_loops(struct checker *c, enum graph g, __u32 *stack)
{
	struct dfs d = { .c = c, .g = g, .stack = stack, .parts = c->parts - c->start };
	__u32 id;
	int err = 0;

	d.colour = c->colour - c->start;
	d.leads = c->leads - c->start;
	memset(c->colour, WHITE, c->cnt - c->start);
	for (id = c->start; id < c->cnt && !err; id++) {
		if (d.colour[id] == WHITE && (d.leads[id] & (1 << g)))
			err = walk_from(&d, id);
	}
	return err;
}

/* The type under typedefs and modifiers, once they are known to end. */
static const struct btf_type *strip(const struct checker *c, __u32 id)
{
	const struct btf_type *t = type_of(c, id);

	while (btf_is_mod(t) || btf_is_typedef(t))
		t = type_of(c, t->type);
	return t;
}

/* What a member or an array element may be: libbpf divides by its alignment. */
static bool has_size(const struct btf_type *t)
{
	return btf_is_int(t) || btf_is_ptr(t) || btf_is_array(t) || btf_is_composite(t) ||
	       btf_is_any_enum(t) || btf_is_float(t);
}

/* Bits a member covers: its bitfield, or its type's size (an int's bits). */
static long long member_bits(const struct checker *c, const struct btf_type *t, int i)
{
	const struct btf_member *m = btf_members(t) + i;
	__u32 bsz = btf_member_bitfield_size(t, i);
	const struct btf_type *mt = strip(c, m->type);
	__s64 size;

	if (bsz)
		return bsz;
	/* Without kflag, a bitfield is a member whose int type is narrow. */
	if (btf_is_int(mt))
		return btf_int_bits(mt) < mt->size * 8 ? btf_int_offset(mt) + btf_int_bits(mt)
						       : mt->size * 8;
	if (btf_is_composite(mt) || btf_is_any_enum(mt))
		return mt->size * 8ll;
	size = btf__resolve_size(c->btf, m->type);
	return size < 0 ? 0 : size * 8;
}

/*
 * As the kernel's verifier has it: a bitfield is an int's or an enum's, no
 * wider than its type. libbpf 1.1's btf_dump reads a bitfield of a union
 * as the whole union, past the data it was given.
 */
static bool bitfield_ok(const struct btf_type *mt, __u32 bsz)
{
	if (!bsz)
		return true;
	return (btf_is_int(mt) || btf_is_any_enum(mt)) && bsz <= mt->size * 8;
}

static int check_layout(struct checker *c, __u32 id, const struct btf_type *t)
{
	char buf[CLIP_BUF + 32];
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const struct btf_type *mt = strip(c, m->type);
		__u32 bsz = btf_member_bitfield_size(t, i);
		__u64 off = btf_member_bit_offset(t, i);
		__u64 end = off + member_bits(c, t, i);

		if (has_size(mt) && end <= (__u64)t->size * 8 && bitfield_ok(mt, bsz))
			continue;
		item_name(c, "member", i, m->name_off, buf, sizeof(buf));
		if (has_size(mt) && !bitfield_ok(mt, bsz))
			return fail(c, id,
				    "%sis a %u-bit bitfield of type %u, of kind %s and %u bytes",
				    buf, bsz, m->type, kind_name(mt), mt->size);
		if (!has_size(mt))
			return fail(c, id, "%shas type %u, of kind %s, which has no size", buf,
				    m->type, kind_name(mt));
		return fail(c, id, "%sat bit %llu ends at bit %llu, past the end of its %u bytes",
			    buf, (unsigned long long)off, (unsigned long long)end, t->size);
	}
	return 0;
}

static int check_array_size(struct checker *c, __u32 id, const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);
	__s64 esz = btf__resolve_size(c->btf, a->type);

	if (!has_size(strip(c, a->type)))
		return fail(c, id, "has elements of type %u, of kind %s, which has no size",
			    a->type, kind_name(strip(c, a->type)));
	if (esz <= 0 || a->nelems <= UINT32_MAX / esz)
		return 0;
	return fail(c, id, "has %u elements of %lld bytes, more than 4 GiB", a->nelems,
		    (long long)esz);
}

/* Sizes and offsets, once every type chain is known to end. */
static int check_sizes(struct checker *c)
{
	__u32 id;
	int err = 0;

	for (id = c->start; id < c->cnt && !err; id++) {
		const struct btf_type *t = type_of(c, id);

		if (btf_is_composite(t))
			err = check_layout(c, id, t);
		else if (btf_is_array(t))
			err = check_array_size(c, id, t);
	}
	return err;
}

/*
 * The valid name offsets are [0, end), the base's strings and then this
 * BTF's own: find end with O(log n) lookups instead of one per name.
 */
static __u32 strings_end(const struct btf *btf)
{
	__u64 lo = 0, hi = 1;

	while (hi <= UINT32_MAX && btf__str_by_offset(btf, hi - 1))
		hi *= 2;
	/* [0, lo) valid, hi - 1 not (or past 32 bits) */
	lo = hi / 2;
	while (lo + 1 < hi) {
		__u64 mid = lo + (hi - lo) / 2;

		if (btf__str_by_offset(btf, mid - 1))
			lo = mid;
		else
			hi = mid;
	}
	return lo > UINT32_MAX ? UINT32_MAX : lo;
}

/* Names, ids, kinds; which graphs each type is part of; its edges. */
static int check_types(struct checker *c)
{
	__u32 i;
	int err = 0;

	for (i = 0; i < c->cnt - c->start; i++)
		c->types[i] = btf__type_by_id(c->btf, c->start + i);
	for (i = 0; i < c->cnt - c->start && !err; i++) {
		err = check_type(c, c->start + i);
		c->leads[i] = leads_of(c->types[i]);
		c->nr_edges += btf_vlen(c->types[i]) + 1;
	}
	return err;
}

static int run_checks(struct checker *c)
{
	__u32 n = c->cnt - c->start;
	__u32 *stack = NULL;
	int err = -ENOMEM;

	c->types = malloc(n * sizeof(*c->types));
	c->leads = malloc(n);
	c->colour = malloc(n);
	c->parts = malloc(n * sizeof(*c->parts));
	if (c->types && c->leads && c->colour && c->parts)
		err = check_types(c);
	/* A walk holds at most one exit mark per type and each edge once. */
	if (!err) {
		stack = malloc((n + c->nr_edges + 1) * sizeof(*stack));
		err = stack ? 0 : -ENOMEM;
	}
	if (!err)
		err = check_loops(c, DECL_GRAPH, stack) ?: check_loops(c, VALUE_GRAPH, stack)
			?: check_sizes(c);
	free(c->types);
	free(c->leads);
	free(c->colour);
	free(c->parts);
	free(stack);
	return err;
}

int btf_check(const struct btf *btf, char *why, size_t size)
{
	const struct btf *base = btf__base_btf(btf);
	struct checker c = { .btf = btf, .why = why, .size = size };
	int err;

	c.start = base ? btf__type_cnt(base) : 1;
	c.cnt = btf__type_cnt(btf);
	c.str_end = strings_end(btf);
	why[0] = '\0';
	if (c.cnt == c.start)
		return 0;
	/* Every record is 4-byte sized: an aligned first one aligns them all. */
	if ((uintptr_t)btf__type_by_id(btf, c.start) % 4) {
		snprintf(why, size, "its type section is not 4-byte aligned");
		return -EBADMSG;
	}
	err = run_checks(&c);
	if (err == -ENOMEM)
		snprintf(why, size, "out of memory");
	return err;
}

/* By the name set a tracing table has, or the name index of a whole one (probe's). */
static bool kallsyms_has(void *ks, const char *name)
{
	return ksyms__has_func(ks, name) || ksyms__count_text(ks, name, NULL, NULL) > 0;
}

/*
 * The share of a --btf file's functions that the running kernel's
 * kallsyms must name for the file to be taken as this kernel's. A
 * kernel's own BTF: 100% (Debian's 5.10), 98.3% (6.18, where the rest are
 * compiler clones and functions kallsyms lists under other names);
 * Debian 6.1's given to 5.10: 84%.
 */
#define BTF_FILE_MIN_SHARE 95

int btf_check_running(const struct btf *btf, struct ksyms *ks, const char *path)
{
	unsigned int total, found;
	char clip[CLIP_BUF];

	found = kbtf__funcs_found(btf, kallsyms_has, ks, &total);
	p_dbg("%s: %u of its %u functions are in /proc/kallsyms", path, found, total);
	if (total && (unsigned long)found * 100 >= (unsigned long)total * BTF_FILE_MIN_SHARE)
		return 0;
	p_err("'%s' does not describe the running kernel: /proc/kallsyms has %u of its %u "
	      "functions (%u%%, %d%% wanted)",
	      str_clip(path, clip), found, total,
	      total ? (unsigned int)((unsigned long)found * 100 / total) : 0, BTF_FILE_MIN_SHARE);
	return -EINVAL;
}
