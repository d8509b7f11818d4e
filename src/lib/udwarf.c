// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF to BTF, one function at a time. The function is the
 * DW_TAG_subprogram whose code starts at its symbol's address, found in
 * the CU .debug_aranges gives for it, else in every CU whose ranges hold
 * it; its return type and parameters are converted with every type they
 * reach, each DIE once (a table of DIE offset -> BTF id), within
 * UDWARF_MAX_TYPES and UDWARF_MAX_DEPTH.
 *
 * A struct is added once its members' types are (libbpf appends members
 * to the type added last), so a struct that reaches itself (struct list
 * { struct list *next; }) is met again before it has an id: the pointer,
 * typedef or qualifier made then is pointed at it once it is added.
 * libdw checks what it reads: damaged DWARF is an error, never a crash.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/btf.h>

#include "lib/kbtf.h"
#include "lib/udwarf.h"
#include "lib/usym.h"
#include "lib/util.h"

/* Past these, members, enum values, parameters and dimensions are left out. */
#define MAX_MEMBERS 1024
#define MAX_PARAMS 64
#define MAX_DIMS 8
/* The ranges of one function's code searched for its start. */
#define MAX_RANGES 64
/* How deep namespaces are searched for a function, and structs in structs for floats. */
#define MAX_NEST 8
/* DIEs converted, at most UDWARF_MAX_TYPES: the table stays half empty. */
#define SEEN_SLOTS (2 * UDWARF_MAX_TYPES)
#define NAME_LEN 256
/* A parameter's name, when it is a C identifier this long at most. */
#define PARAM_NAME_LEN 64

/* What type_id answers besides ids and -errno. */
#define NONE INT_MAX	      /* no type: past the bounds, or one BTF cannot hold */
#define PENDING (INT_MAX - 1) /* a struct whose members are being converted: no id yet */

struct seen {
	Dwarf_Off key; /* the DIE's offset + 1; 0: a free slot */
	int id;	       /* or PENDING */
};

/* A type made while the struct it refers to had no id. */
struct fixup {
	__u32 id;
	Dwarf_Off target;
};

struct conv {
	struct btf *btf;
	const struct btf *kernel; /* btf's base: types reused by name */
	const char *func, *file;  /* for messages */
	struct seen *seen;
	size_t nr_seen;
	struct fixup *fix;
	size_t nr_fix, cap_fix;
	Dwarf_Off pending; /* the struct type_id last answered PENDING for */
	int budget;	   /* new BTF types left */
	int index_id;	   /* arrays' index type, once found or made */
	int byte_id;	   /* the element of placeholders, once made */
	int void_ptr;	   /* void *, once made */
	char name[NAME_LEN];
	bool said;
};

/* One error per prototype: the first. */
static int damaged(struct conv *c, const char *why)
{
	char clip[CLIP_BUF];

	if (!c->said)
		p_err("%s: %s has damaged DWARF (%s); declare the parameters to trace it without",
		      c->func, str_clip(c->file, clip), why);
	c->said = true;
	return -EBADMSG;
}

static int libdw_damaged(struct conv *c)
{
	return damaged(c, dwarf_errmsg(-1));
}

static int nomem(struct conv *c)
{
	if (!c->said)
		p_err_nomem(c->func);
	c->said = true;
	return -ENOMEM;
}

/* What libbpf answered for a type added: its id, or one error. */
static int added(struct conv *c, int id)
{
	if (id == -ENOMEM)
		return nomem(c);
	if (id < 0)
		return damaged(c, "a type BTF cannot hold");
	c->budget--;
	return id;
}

/* s as a BTF name: bytes outside printable ASCII as '?', cut at NAME_LEN - 1. */
static const char *bname(struct conv *c, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; s[i] && i < sizeof(c->name) - 1; i++) {
		unsigned char ch = s[i];

		c->name[i] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	c->name[i] = '\0';
	return c->name;
}

static struct seen *seen_slot(const struct conv *c, Dwarf_Off off)
{
	size_t i = ((off + 1) * 0x9e3779b97f4a7c15ULL >> 32) & (SEEN_SLOTS - 1);

	while (c->seen[i].key && c->seen[i].key != off + 1)
		i = (i + 1) & (SEEN_SLOTS - 1);
	return &c->seen[i];
}

static void seen_set(struct conv *c, Dwarf_Off off, int id)
{
	struct seen *s = seen_slot(c, off);

	c->nr_seen += !s->key;
	s->key = off + 1;
	s->id = id;
}

static int fixup_add(struct conv *c, int id, Dwarf_Off target)
{
	if (!grow_array(&c->fix, &c->cap_fix, c->nr_fix, sizeof(*c->fix), 16))
		return nomem(c);
	c->fix[c->nr_fix++] = (struct fixup){ .id = id, .target = target };
	return id;
}

/*
 * The types made while the struct at off had no id, pointed at it now.
 * libbpf has no call to change a type; these are ours, in the split
 * BTF's own (writable) data.
 */
static void fixups_apply(struct conv *c, Dwarf_Off off, int id)
{
	size_t i = 0;

	while (i < c->nr_fix) {
		if (c->fix[i].target != off) {
			i++;
			continue;
		}
		((struct btf_type *)btf__type_by_id(c->btf, c->fix[i].id))->type = id;
		c->fix[i] = c->fix[--c->nr_fix];
	}
}

static int encoding(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr(die, DW_AT_encoding, &a) && !dwarf_formudata(&a, &w) ? (int)w : -1;
}

static bool is_signed(int enc)
{
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* die's DW_AT_type into t: 1, or 0 when it has none (void); -EBADMSG when it leads nowhere. */
static int type_of(struct conv *c, Dwarf_Die *die, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a))
		return 0;
	return dwarf_formref_die(&a, t) ? 1 : libdw_damaged(c);
}

static int type_id(struct conv *c, Dwarf_Die *die, int depth);

/* The id of the type die refers to; 0 for void. */
static int target_id(struct conv *c, Dwarf_Die *die, int depth)
{
	Dwarf_Die t;
	int has = type_of(c, die, &t);

	return has <= 0 ? has : type_id(c, &t, depth + 1);
}

/* The kernel's type of this name, kind and size; 0 when it has none. */
static int kernel_type(const struct conv *c, const char *name, int kind, int size)
{
	int id = btf__find_by_name_kind(c->kernel, name, kind);
	const struct btf_type *t = id > 0 ? btf__type_by_id(c->kernel, id) : NULL;

	return t && t->size == (__u32)size ? id : 0;
}

/* Arrays' index type: the kernel's int, else one of ours. */
static int index_type(struct conv *c)
{
	if (!c->index_id)
		c->index_id = kernel_type(c, "int", BTF_KIND_INT, 4);
	if (!c->index_id)
		c->index_id = added(c, btf__add_int(c->btf, "int", 4, BTF_INT_SIGNED));
	return c->index_id;
}

/*
 * What BTF has no type for (a complex number, a 3-byte integer), as an
 * array of its bytes, which output shows as numbers; NONE without a size.
 */
static int opaque(struct conv *c, Dwarf_Die *die)
{
	Dwarf_Word size;
	int index;

	if (dwarf_aggregate_size(die, &size) || !size || size > UINT32_MAX)
		return NONE;
	index = index_type(c);
	if (index < 0)
		return index;
	if (!c->byte_id)
		c->byte_id = added(c, btf__add_int(c->btf, "byte", 1, 0));
	if (c->byte_id < 0)
		return c->byte_id;
	return added(c, btf__add_array(c->btf, index, c->byte_id, size));
}

static bool is_pow2(int n)
{
	return n > 0 && !(n & (n - 1));
}

static int base_type(struct conv *c, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	int size = dwarf_bytesize(die), enc = encoding(die), flags, id;

	if (name && enc == DW_ATE_float && (is_pow2(size) || size == 12) && size >= 2 &&
	    size <= 16) {
		id = kernel_type(c, name, BTF_KIND_FLOAT, size);
		return id ?: added(c, btf__add_float(c->btf, bname(c, name), size));
	}
	if (!name || !is_pow2(size) || size > 16 ||
	    (enc != DW_ATE_signed && enc != DW_ATE_unsigned && enc != DW_ATE_signed_char &&
	     enc != DW_ATE_unsigned_char && enc != DW_ATE_boolean && enc != DW_ATE_UTF))
		return opaque(c, die);
	id = kernel_type(c, name, BTF_KIND_INT, size);
	if (id)
		return id;
	flags = is_signed(enc) ? BTF_INT_SIGNED : 0;
	if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char)
		flags |= BTF_INT_CHAR;
	if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	return added(c, btf__add_int(c->btf, bname(c, name), size, flags));
}

static int add_ref(struct conv *c, int kind, const char *name, int target)
{
	switch (kind) {
	case BTF_KIND_PTR:
		return added(c, btf__add_ptr(c->btf, target));
	case BTF_KIND_CONST:
		return added(c, btf__add_const(c->btf, target));
	case BTF_KIND_VOLATILE:
		return added(c, btf__add_volatile(c->btf, target));
	default:
		return added(c, btf__add_typedef(c->btf, bname(c, name), target));
	}
}

/* A pointer, qualifier or typedef (name) of die's type; a pointer to what has no type, void *. */
static int ref_type(struct conv *c, Dwarf_Die *die, int kind, const char *name, int depth)
{
	int target = target_id(c, die, depth), id;

	if (target == NONE && kind == BTF_KIND_PTR)
		target = 0;
	if (target < 0 || target == NONE)
		return target;
	id = add_ref(c, kind, name, target == PENDING ? 0 : target);
	if (id >= 0 && target == PENDING)
		id = fixup_add(c, id, c->pending);
	return id;
}

/*
 * The kernel's typedef of this name when both name the same integer
 * (size_t, uint32_t), so that values print as the kernel's do; another
 * one, a struct's say, would lay out another type. 0 when there is none.
 */
static int kernel_typedef(struct conv *c, Dwarf_Die *die, const char *name)
{
	int id = btf__find_by_name_kind(c->kernel, name, BTF_KIND_TYPEDEF);
	const struct btf_type *k;
	Dwarf_Die t;

	if (id <= 0 || dwarf_peel_type(die, &t) || dwarf_tag(&t) != DW_TAG_base_type)
		return 0;
	k = btf__type_by_id(c->kernel, btf_skip_mods(c->kernel, id));
	if (!k || !btf_is_int(k) || (int)k->size != dwarf_bytesize(&t) ||
	    !(btf_int_encoding(k) & BTF_INT_SIGNED) != !is_signed(encoding(&t)))
		return 0;
	return id;
}

static int typedef_type(struct conv *c, Dwarf_Die *die, int depth)
{
	const char *name = dwarf_diename(die);

	if (!name)
		return target_id(c, die, depth);
	return kernel_typedef(c, die, name) ?: ref_type(c, die, BTF_KIND_TYPEDEF, name, depth);
}

struct member {
	const char *name;
	int type;
	__u32 bit_off, bit_size;
};

/* An offset as a constant, or as DWARF 2 says it: the expression DW_OP_plus_uconst N. */
static bool const_location(Dwarf_Attribute *a, Dwarf_Word *loc)
{
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_formudata(a, loc))
		return true;
	if (dwarf_getlocation(a, &ops, &n) || n != 1 || ops[0].atom != DW_OP_plus_uconst)
		return false;
	*loc = ops[0].number;
	return true;
}

/*
 * d's offset in bits, and width for a bitfield; false for a static member,
 * or an offset BTF cannot hold.
 */
static bool member_offset(Dwarf_Die *d, bool is_union, struct member *m)
{
	int width = dwarf_hasattr(d, DW_AT_bit_size) ? dwarf_bitsize(d) : 0;
	Dwarf_Word loc = 0, bits;
	Dwarf_Attribute a;
	int unit, from;

	if (width < 0 || width > 255)
		return false;
	m->bit_size = width;
	if (dwarf_attr(d, DW_AT_data_bit_offset, &a)) {
		if (dwarf_formudata(&a, &bits))
			return false;
	} else {
		if (dwarf_attr(d, DW_AT_data_member_location, &a)) {
			if (!const_location(&a, &loc))
				return false;
		} else if (!is_union && (dwarf_hasattr(d, DW_AT_external) ||
					 dwarf_hasattr(d, DW_AT_declaration))) {
			return false; /* C++'s static members are not in the object */
		}
		if (loc > UINT32_MAX / 8)
			return false;
		bits = loc * 8;
		/* DWARF 2 and 3 count from the storage unit's top bit (little-endian here) */
		if (width && dwarf_hasattr(d, DW_AT_bit_offset)) {
			unit = dwarf_bytesize(d);
			from = dwarf_bitoffset(d);
			if (unit <= 0 || unit > 16 || from < 0 || from + width > unit * 8)
				return false;
			bits += unit * 8 - from - width;
		}
	}
	m->bit_off = bits;
	return bits <= UINT32_MAX;
}

/* The data members of struct die into m, their types converted: how many, or -errno. */
static int members(struct conv *c, Dwarf_Die *die, bool is_union, struct member *m, int depth)
{
	int r, has, type, tag, n = 0;
	Dwarf_Die d, t;

	for (r = dwarf_child(die, &d); r == 0 && n < MAX_MEMBERS; r = dwarf_siblingof(&d, &d)) {
		tag = dwarf_tag(&d);
		/* a base class is an anonymous member: its members are the derived one's */
		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    !member_offset(&d, is_union, &m[n]))
			continue;
		has = type_of(c, &d, &t);
		if (has < 0)
			return has;
		type = has ? type_id(c, &t, depth + 1) : NONE;
		if (type == PENDING)
			return damaged(c, "a struct holds itself");
		if (type < 0)
			return type;
		/* nothing to read it as: left out */
		if (type == NONE || type == 0)
			continue;
		m[n].name = tag == DW_TAG_inheritance ? NULL : dwarf_diename(&d);
		m[n++].type = type;
	}
	return r < 0 ? libdw_damaged(c) : n;
}

static int struct_type(struct conv *c, Dwarf_Die *die, int depth)
{
	bool is_union = dwarf_tag(die) == DW_TAG_union_type;
	const char *name = dwarf_diename(die);
	Dwarf_Off off = dwarf_dieoffset(die);
	struct member *m;
	Dwarf_Word size;
	int n, i, id, err = 0;

	if (dwarf_hasattr(die, DW_AT_declaration) || dwarf_aggregate_size(die, &size))
		return name ? added(c, btf__add_fwd(c->btf, bname(c, name),
						    is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT))
			    : NONE;
	if (size > UINT32_MAX)
		return NONE;
	m = calloc(MAX_MEMBERS, sizeof(*m));
	if (!m)
		return nomem(c);
	seen_set(c, off, PENDING);
	n = members(c, die, is_union, m, depth);
	id = n < 0 ? n
		   : added(c, (is_union ? btf__add_union : btf__add_struct)(c->btf, bname(c, name),
									    size));
	/* a member BTF cannot place (a bitfield past 16 MiB) is left out */
	for (i = 0; id >= 0 && i < n && err != -ENOMEM; i++)
		err = btf__add_field(c->btf, bname(c, m[i].name), m[i].type, m[i].bit_off,
				     m[i].bit_size);
	free(m);
	if (err == -ENOMEM)
		return nomem(c);
	if (id < 0)
		return id;
	fixups_apply(c, off, id);
	seen_set(c, off, id);
	return id;
}

/* Whether an enum's values are signed: its underlying type's, else C's int. */
static bool enum_signed(struct conv *c, Dwarf_Die *die)
{
	Dwarf_Die t;

	if (type_of(c, die, &t) <= 0 || dwarf_peel_type(&t, &t))
		return true;
	return is_signed(encoding(&t));
}

static bool enum_value(Dwarf_Die *d, bool sign, __u64 *v)
{
	Dwarf_Attribute a;
	Dwarf_Sword s;
	Dwarf_Word u;

	if (!dwarf_attr(d, DW_AT_const_value, &a))
		return false;
	/* the form says it when it can; data1..8 are as the type is */
	if (dwarf_whatform(&a) == DW_FORM_sdata || dwarf_whatform(&a) == DW_FORM_implicit_const)
		sign = true;
	else if (dwarf_whatform(&a) == DW_FORM_udata)
		sign = false;
	if (sign ? dwarf_formsdata(&a, &s) : dwarf_formudata(&a, &u))
		return false;
	*v = sign ? (__u64)s : u;
	return true;
}

static int enum_type(struct conv *c, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	int size = dwarf_hasattr(die, DW_AT_byte_size) ? dwarf_bytesize(die) : 4;
	bool sign = enum_signed(c, die);
	int r, id, err, n = 0;
	Dwarf_Die d;
	__u64 v;

	if (dwarf_hasattr(die, DW_AT_declaration))
		return name ? added(c, btf__add_fwd(c->btf, bname(c, name), BTF_FWD_ENUM)) : NONE;
	if (!is_pow2(size) || size > 8)
		return opaque(c, die);
	id = added(c, size == 8 ? btf__add_enum64(c->btf, bname(c, name), size, sign)
				: btf__add_enum(c->btf, bname(c, name), size));
	for (r = dwarf_child(die, &d); id >= 0 && r == 0 && n < MAX_MEMBERS;
	     r = dwarf_siblingof(&d, &d)) {
		if (dwarf_tag(&d) != DW_TAG_enumerator || !dwarf_diename(&d) ||
		    !enum_value(&d, sign, &v))
			continue;
		name = bname(c, dwarf_diename(&d));
		err = size == 8 ? btf__add_enum64_value(c->btf, name, v)
				: btf__add_enum_value(c->btf, name, (__s64)v);
		if (err == -ENOMEM)
			return nomem(c);
		/* a value past the enum's 32 bits is left out */
		n += !err;
	}
	return id >= 0 && r < 0 ? libdw_damaged(c) : id;
}

/* A subrange's element count; 0 for a flexible array or a VLA, whose bound is no constant. */
static __u32 subrange_count(Dwarf_Die *d)
{
	Dwarf_Word lo = 0, hi;
	Dwarf_Attribute a;

	if (dwarf_attr(d, DW_AT_count, &a))
		return !dwarf_formudata(&a, &hi) && hi <= UINT32_MAX ? hi : 0;
	if (!dwarf_attr(d, DW_AT_upper_bound, &a) || dwarf_formudata(&a, &hi))
		return 0;
	if (dwarf_attr(d, DW_AT_lower_bound, &a) && dwarf_formudata(&a, &lo))
		return 0;
	/* [0] says its upper bound as -1 */
	return hi >= lo && hi - lo < UINT32_MAX ? hi - lo + 1 : 0;
}

static int array_type(struct conv *c, Dwarf_Die *die, int depth)
{
	__u32 count[MAX_DIMS];
	int r, id, index, n = 0;
	Dwarf_Die d;

	for (r = dwarf_child(die, &d); r == 0; r = dwarf_siblingof(&d, &d)) {
		if (dwarf_tag(&d) != DW_TAG_subrange_type)
			continue;
		if (n == MAX_DIMS)
			return opaque(c, die);
		count[n++] = subrange_count(&d);
	}
	if (r < 0)
		return libdw_damaged(c);
	if (!n)
		count[n++] = 0;
	id = target_id(c, die, depth);
	if (id == PENDING)
		return damaged(c, "a struct holds itself");
	if (id == 0 || id == NONE)
		return opaque(c, die);
	index = index_type(c);
	/* int a[2][3]: an array of 2 arrays of 3 */
	while (n-- > 0 && id >= 0 && index >= 0)
		id = added(c, btf__add_array(c->btf, index, id, count[n]));
	return index < 0 ? index : id;
}

static bool is_pointer(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

/* What a pointer past the bounds is: one void * for all of them. */
static int void_ptr(struct conv *c)
{
	if (!c->void_ptr)
		c->void_ptr = added(c, btf__add_ptr(c->btf, 0));
	return c->void_ptr;
}

/*
 * A function type, what a function pointer points at: its prototype, so
 * that output knows the pointer for one (and names the function). A type
 * past the bounds is void * there.
 */
static int subroutine_type(struct conv *c, Dwarf_Die *die, int depth)
{
	int ret = target_id(c, die, depth), ids[MAX_PARAMS], n = 0, r, id, i, err = 0;
	bool variadic = false;
	Dwarf_Die d;

	if (ret < 0)
		return ret;
	if (ret == NONE)
		ret = void_ptr(c);
	for (r = dwarf_child(die, &d); r == 0 && n < MAX_PARAMS; r = dwarf_siblingof(&d, &d)) {
		if (dwarf_tag(&d) == DW_TAG_unspecified_parameters)
			variadic = true;
		if (dwarf_tag(&d) != DW_TAG_formal_parameter)
			continue;
		id = target_id(c, &d, depth);
		if (id < 0)
			return id;
		ids[n++] = id == 0 || id == NONE ? void_ptr(c) : id;
	}
	if (r < 0)
		return libdw_damaged(c);
	id = added(c, btf__add_func_proto(c->btf, ret));
	for (i = 0; id >= 0 && !err && i < n; i++)
		err = btf__add_func_param(c->btf, NULL, ids[i]);
	if (id >= 0 && !err && variadic)
		err = btf__add_func_param(c->btf, NULL, 0);
	return id < 0 || !err ? id : added(c, err);
}

static int convert(struct conv *c, Dwarf_Die *die, int depth)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return base_type(c, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return ref_type(c, die, BTF_KIND_PTR, NULL, depth);
	case DW_TAG_const_type:
		return ref_type(c, die, BTF_KIND_CONST, NULL, depth);
	case DW_TAG_volatile_type:
		return ref_type(c, die, BTF_KIND_VOLATILE, NULL, depth);
	case DW_TAG_typedef:
		return typedef_type(c, die, depth);
	/* ksnoop reads the value the same without them */
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return target_id(c, die, depth);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return struct_type(c, die, depth);
	case DW_TAG_enumeration_type:
		return enum_type(c, die);
	case DW_TAG_array_type:
		return array_type(c, die, depth);
	case DW_TAG_subroutine_type:
		return subroutine_type(c, die, depth);
	default:
		return opaque(c, die);
	}
}

/* The BTF id of type die, converted once; NONE past the bounds. */
static int type_id(struct conv *c, Dwarf_Die *die, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	const struct seen *s = seen_slot(c, off);
	int id;

	if (s->key) {
		if (s->id == PENDING)
			c->pending = off;
		return s->id;
	}
	/* Not remembered: met again nearer the top, it may fit then. */
	if (depth > UDWARF_MAX_DEPTH || c->budget <= 0 || c->nr_seen >= UDWARF_MAX_TYPES)
		return is_pointer(die) ? void_ptr(c) : NONE;
	id = convert(c, die, depth);
	if (id >= 0 && id != NONE && id != PENDING)
		seen_set(c, off, id);
	return id;
}

/*
 * Whether a value of type die travels in integer registers, where ksnoop
 * reads arguments and return values: not floating point, nor a struct
 * over 8 bytes, with a float in it, or that C++ passes by reference.
 */
static bool in_int_regs(Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t, d, mt;
	Dwarf_Word size, cc;
	int r, tag;

	if (depth > MAX_NEST || dwarf_peel_type(die, &t))
		return false;
	tag = dwarf_tag(&t);
	switch (tag) {
	case DW_TAG_base_type:
		return encoding(&t) != DW_ATE_float && encoding(&t) != DW_ATE_complex_float &&
		       encoding(&t) != DW_ATE_imaginary_float &&
		       encoding(&t) != DW_ATE_decimal_float;
	case DW_TAG_array_type:
		return !dwarf_hasattr(&t, DW_AT_GNU_vector) && dwarf_attr(&t, DW_AT_type, &a) &&
		       dwarf_formref_die(&a, &mt) && in_int_regs(&mt, depth + 1);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		break;
	case DW_TAG_ptr_to_member_type:
		return !dwarf_aggregate_size(&t, &size) && size <= 8;
	default:
		return true;
	}
	if (dwarf_aggregate_size(&t, &size) || size > 8 ||
	    (dwarf_attr(&t, DW_AT_calling_convention, &a) && !dwarf_formudata(&a, &cc) &&
	     cc == DW_CC_pass_by_reference))
		return false;
	for (r = dwarf_child(&t, &d); r == 0; r = dwarf_siblingof(&d, &d)) {
		tag = dwarf_tag(&d);
		if ((tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
		    !dwarf_hasattr(&d, DW_AT_declaration) &&
		    (!dwarf_attr(&d, DW_AT_type, &a) || !dwarf_formref_die(&a, &mt) ||
		     !in_int_regs(&mt, depth + 1)))
			return false;
	}
	return r == 1;
}

/* Whether die's code (one of its ranges, for code split hot and cold) starts at addr. */
static bool starts_at(Dwarf_Die *die, Dwarf_Addr addr)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int n;

	for (n = 0; n < MAX_RANGES && (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;
	     n++) {
		if (start == addr)
			return true;
	}
	return false;
}

/* The subprogram of scope (or its namespaces, classes) starting at addr into fn: 1, 0, -errno. */
static int search_scope(struct conv *c, Dwarf_Die *scope, Dwarf_Addr addr, Dwarf_Die *fn, int depth)
{
	int r, found;
	Dwarf_Die d;

	for (r = dwarf_child(scope, &d); r == 0; r = dwarf_siblingof(&d, &d)) {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			if (!starts_at(&d, addr))
				break;
			*fn = d;
			return 1;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			found = depth < MAX_NEST ? search_scope(c, &d, addr, fn, depth + 1) : 0;
			if (found)
				return found;
			break;
		}
	}
	return r < 0 ? libdw_damaged(c) : 0;
}

/* The function starting at addr into fn: 1, 0 when DWARF has none, -errno. */
static int find_func(struct conv *c, Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *fn)
{
	Dwarf_Off off, next;
	Dwarf_Die cu;
	size_t hsize;
	int r;

	if (dwarf_addrdie(dw, addr, &cu)) {
		r = search_scope(c, &cu, addr, fn, 0);
		if (r)
			return r;
	}
	/* Without .debug_aranges (clang leaves them out), or left out of them: each CU's ranges. */
	for (off = 0;
	     !(r = dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL));
	     off = next) {
		if (!dwarf_offdie(dw, off + hsize, &cu))
			return libdw_damaged(c);
		if (dwarf_haspc(&cu, addr) > 0) {
			r = search_scope(c, &cu, addr, fn, 0);
			if (r)
				return r;
		}
	}
	return r < 0 ? libdw_damaged(c) : 0;
}

struct proto {
	Dwarf_Die ret, types[MAX_PARAMS];
	bool ret_typed, typed[MAX_PARAMS];
	const char *names[MAX_PARAMS];
	int ret_id, ids[MAX_PARAMS];
	int nr;
	bool variadic;
};

/* Where fn lists its parameters: itself, else (a copy of an inline function) its origin. */
static Dwarf_Die *params_die(Dwarf_Die *fn, Dwarf_Die *origin)
{
	Dwarf_Attribute a;
	Dwarf_Die d;
	int r, tag;

	for (r = dwarf_child(fn, &d); r == 0; r = dwarf_siblingof(&d, &d)) {
		tag = dwarf_tag(&d);
		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_unspecified_parameters)
			return fn;
	}
	if (dwarf_attr(fn, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, origin))
		return origin;
	return fn;
}

/* Not integer registers: said in debug output only, for the caller falls back on arg0.. */
static int not_in_regs(struct conv *c, const char *what)
{
	p_dbg("%s: its %s is not passed in integer registers: its parameters are arg0.., as long",
	      c->func, what);
	return -ENOENT;
}

/* fn's return type and parameters, as DIEs, into p. */
static int read_proto(struct conv *c, Dwarf_Die *fn, struct proto *p)
{
	Dwarf_Die origin, *src = params_die(fn, &origin), d;
	int r, has = type_of(c, fn, &p->ret);

	if (has < 0)
		return has;
	if (has && !in_int_regs(&p->ret, 0))
		return not_in_regs(c, "return value");
	p->ret_typed = has;
	for (r = dwarf_child(src, &d); r == 0 && p->nr < MAX_PARAMS; r = dwarf_siblingof(&d, &d)) {
		if (dwarf_tag(&d) == DW_TAG_unspecified_parameters)
			p->variadic = true;
		if (dwarf_tag(&d) != DW_TAG_formal_parameter)
			continue;
		has = type_of(c, &d, &p->types[p->nr]);
		if (has < 0)
			return has;
		if (has && !in_int_regs(&p->types[p->nr], 0))
			return not_in_regs(c, "parameter");
		p->typed[p->nr] = has;
		p->names[p->nr++] = dwarf_diename(&d);
	}
	return r < 0 ? libdw_damaged(c) : 0;
}

/* A parameter's or return value's type: its id; void when it has none, or past the bounds. */
static int value_type(struct conv *c, Dwarf_Die *t, bool typed, int *id)
{
	*id = typed ? type_id(c, t, 0) : 0;
	if (*id == NONE)
		*id = 0;
	return *id < 0 ? *id : 0;
}

/*
 * p's types converted, the return type's then each parameter's: each may
 * take its share of the types left, so that one parameter's many structs
 * leave room for the next one's.
 */
static int convert_proto(struct conv *c, struct proto *p)
{
	int i, share, err, left = UDWARF_MAX_TYPES;

	for (i = -1, err = 0; !err && i < p->nr; i++) {
		share = left / (p->nr - i);
		c->budget = share;
		err = i < 0 ? value_type(c, &p->ret, p->ret_typed, &p->ret_id)
			    : value_type(c, &p->types[i], p->typed[i], &p->ids[i]);
		left = max(left - (share - c->budget), 0);
	}
	return err;
}

/* name when it is a C identifier (specs name it, output prints it), else "argN". */
static const char *param_name(const char *name, int i, char *buf, size_t size)
{
	size_t n = name ? strspn(name, "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
			: 0;

	if (n && n < size && !name[n] && !(name[0] >= '0' && name[0] <= '9'))
		return name;
	snprintf(buf, size, "arg%d", i);
	return buf;
}

static int emit_proto(struct conv *c, const struct proto *p, __u32 *proto_id)
{
	int id = added(c, btf__add_func_proto(c->btf, p->ret_id)), i, err = 0;
	char buf[PARAM_NAME_LEN];

	for (i = 0; id >= 0 && !err && i < p->nr; i++)
		err = btf__add_func_param(c->btf, param_name(p->names[i], i, buf, sizeof(buf)),
					  p->ids[i]);
	/* "...": a nameless parameter of type void */
	if (id >= 0 && !err && p->variadic)
		err = btf__add_func_param(c->btf, NULL, 0);
	if (id < 0 || err)
		return id < 0 ? id : added(c, err);
	*proto_id = id;
	return 0;
}

static int add_proto(struct conv *c, Dwarf_Die *fn, __u32 *proto_id)
{
	struct proto *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return nomem(c);
	err = read_proto(c, fn, p) ?: convert_proto(c, p) ?: emit_proto(c, p, proto_id);
	free(p);
	return err;
}

/*
 * The last file's DWARF stays open for the next prototype: a glob's
 * functions are all in one file, and libdw takes 60 ms to open libc's
 * debug file (it uncompresses its sections). Known by the identity of the
 * file asked for; udwarf_forget closes it.
 */
static struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *path; /* the file read: the one asked for, or its debug file */
	struct usym_elf ef;
	Dwarf *dw;
} last;

void udwarf_forget(void)
{
	if (!last.dw)
		return;
	dwarf_end(last.dw);
	usym_elf_close(&last.ef);
	free(last.path);
	memset(&last, 0, sizeof(last));
}

static bool is_last(const struct stat *st)
{
	return last.dw && last.dev == st->st_dev && last.ino == st->st_ino &&
	       last.size == st->st_size && last.mtime.tv_sec == st->st_mtim.tv_sec &&
	       last.mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* A debug file with the object's build-id and DWARF: its path into *ctx, and 1. */
static int has_dwarf(void *ctx, struct usym_elf *dbg)
{
	char **path = ctx;

	if (!usym_elf_has_section(dbg, SHT_PROGBITS, ".debug_info"))
		return 0;
	*path = strdup(dbg->path);
	return *path ? 1 : -ENOMEM;
}

/*
 * path as usym_resolve gives a process's file ("/proc/PID/root/usr/lib/..."):
 * that root into root, and the path in it; else "" and path.
 */
static const char *split_root(const char *path, char *root, size_t size)
{
	int n = 0;

	if (sscanf(path, "/proc/%*u/root%n", &n) == 0 && n > 0 && path[n] == '/' &&
	    (size_t)n < size) {
		memcpy(root, path, n);
		root[n] = '\0';
		return path + n;
	}
	root[0] = '\0';
	return path;
}

/* The file holding path's DWARF, itself or its debug file, into *dwarf_path; -ENOENT for none. */
static int dwarf_file(struct conv *c, const char *path, char **dwarf_path)
{
	char root[32];
	const char *in_root = split_root(path, root, sizeof(root));
	struct usym_elf ef;
	int err;

	*dwarf_path = NULL;
	err = usym_elf_open(&ef, path, p_err);
	if (!err && usym_elf_has_section(&ef, SHT_PROGBITS, ".debug_info")) {
		*dwarf_path = strdup(path);
		err = *dwarf_path ? 0 : -ENOMEM;
	} else if (!err) {
		err = usym_debug_find(&ef, root, in_root, has_dwarf, dwarf_path);
		err = err == 1 ? 0 : err;
		if (err == -ENOENT)
			p_dbg("%s: neither %s nor a debug file of it has DWARF", c->func, path);
	}
	usym_elf_close(&ef);
	return err == -ENOMEM ? nomem(c) : err;
}

/* path's DWARF, opened (and kept, for the next call) or the one kept. */
static int dwarf_open(struct conv *c, const char *path, Dwarf **dw)
{
	struct stat st;
	int err;

	if (stat(path, &st))
		memset(&st, 0, sizeof(st)); /* opening it says why */
	else if (is_last(&st))
		goto out;
	udwarf_forget();
	err = dwarf_file(c, path, &last.path);
	if (err)
		return err;
	c->file = last.path;
	err = usym_elf_open(&last.ef, last.path, p_err);
	if (!err) {
		last.dw = dwarf_begin_elf(last.ef.elf, DWARF_C_READ, NULL);
		err = last.dw ? 0 : libdw_damaged(c);
	}
	if (err) {
		usym_elf_close(&last.ef);
		free(last.path);
		memset(&last, 0, sizeof(last));
		return err;
	}
	last.dev = st.st_dev;
	last.ino = st.st_ino;
	last.size = st.st_size;
	last.mtime = st.st_mtim;
out:
	c->file = last.path;
	*dw = last.dw;
	return 0;
}

int udwarf_add_proto(struct btf *btf, const char *path, unsigned long long addr, const char *func,
		     __u32 *proto_id)
{
	struct conv c = { .btf = btf,
			  .kernel = btf__base_btf(btf) ?: btf,
			  .func = func,
			  .file = path,
			  .budget = UDWARF_MAX_TYPES };
	Dwarf_Die fn;
	Dwarf *dw;
	int err;

	c.seen = calloc(SEEN_SLOTS, sizeof(*c.seen));
	if (!c.seen)
		return p_err_nomem(func);
	err = dwarf_open(&c, path, &dw) ?: find_func(&c, dw, addr, &fn);
	if (!err)
		p_dbg("%s: %s has no DWARF for the function at %#llx", func, c.file, addr);
	err = err > 0 ? add_proto(&c, &fn, proto_id) : err ?: -ENOENT;
	free(c.seen);
	free(c.fix);
	return err;
}
