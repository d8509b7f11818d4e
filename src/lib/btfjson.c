// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/btfjson.h"
#include "lib/kbtf.h"

/* Where the captured bytes end inside a value. */
static void truncated(struct jw *jw)
{
	jw_object(jw);
	jw_kbool(jw, "__truncated__", true);
	jw_end(jw);
}

static __u64 load_uint(const void *data, size_t size)
{
	__u64 v = 0;

	memcpy(&v, data, size < 8 ? size : 8);
	return v;
}

static __s64 sign_extend(__u64 v, size_t size)
{
	int shift = 64 - size * 8;

	return size >= 8 ? (__s64)v : (__s64)(v << shift) >> shift;
}

static void json_int(struct jw *jw, const struct btf_type *t, __u64 v)
{
	int enc = btf_int_encoding(t);

	if (enc & BTF_INT_BOOL)
		jw_bool(jw, v);
	else if (enc & BTF_INT_SIGNED)
		jw_int(jw, sign_extend(v, t->size));
	else
		jw_uint(jw, v);
}

static void json_enum(struct jw *jw, const struct btf *btf, const struct btf_type *t, __u64 v)
{
	int i;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++, e++) {
			if ((__u32)e->val == (__u32)v) {
				jw_strn(jw, btf__name_by_offset(btf, e->name_off), 256);
				return;
			}
		}
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t); i++, e++) {
			if (btf_enum64_value(e) == v) {
				jw_strn(jw, btf__name_by_offset(btf, e->name_off), 256);
				return;
			}
		}
	}
	jw_int(jw, sign_extend(v, t->size));
}

static void json_pointer(struct jw *jw, const struct btf *btf, const struct btf_type *t, __u64 v,
			 const struct btfjson_opts *o)
{
	const struct btf_type *to = btf__type_by_id(btf, btf_skip_mods(btf, t->type));
	const char *sym;

	sym = to && btf_is_func_proto(to) && o->function_at ? o->function_at(o->ctx, v) : NULL;
	if (sym)
		jw_raw(jw, "\"0x%llx <%s>\"", (unsigned long long)v, sym);
	else
		jw_raw(jw, "\"0x%llx\"", (unsigned long long)v);
}

struct walk {
	struct jw *jw;
	const struct btf *btf;
	const struct btfjson_opts *o;
	int depth;
	int anon_depth; /* anonymous structs and unions within each other */
};

static void walk_value(struct walk *w, __u32 id, const __u8 *data, size_t len);

static bool is_char_type(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

static void walk_array(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len)
{
	const struct btf_array *a = btf_array(t);
	__s64 esz = btf__resolve_size(w->btf, a->type);
	__u32 i;

	if (is_char_type(w->btf, a->type)) {
		jw_strn(w->jw, (const char *)data, len < a->nelems ? len : a->nelems);
		return;
	}
	jw_array(w->jw);
	for (i = 0; esz > 0 && i < a->nelems; i++) {
		if ((i + 1) * (size_t)esz > len) {
			truncated(w->jw);
			break;
		}
		walk_value(w, a->type, data + i * esz, esz);
	}
	jw_end(w->jw);
}

static void walk_members(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len);

static void walk_member(struct walk *w, const struct btf_type *t, int i, const __u8 *data,
			size_t len)
{
	const struct btf_member *m = btf_members(t) + i;
	const char *name = btf__name_by_offset(w->btf, m->name_off);
	__u32 bits = btf_member_bit_offset(t, i), bsz = btf_member_bitfield_size(t, i);
	const struct btf_type *mt = btf__type_by_id(w->btf, m->type);
	__s64 msz = btf__resolve_size(w->btf, m->type);

	if (!name[0] && mt) {
		mt = btf__type_by_id(w->btf, btf_skip_mods(w->btf, m->type));
		/* Anonymous struct/union members read as the parent's, as in C. */
		if (btf_is_composite(mt) && bits / 8 < len && w->anon_depth < KBTF_MAX_TYPE_DEPTH) {
			w->anon_depth++;
			walk_members(w, mt, data + bits / 8, len - bits / 8);
			w->anon_depth--;
		}
		return;
	}
	jw_key(w->jw, name);
	if (bsz) {
		size_t at = bits / 8;
		__u64 v = 0;

		if (at < len)
			memcpy(&v, data + at, len - at < 8 ? len - at : 8);
		v = (v >> (bits % 8)) & (bsz < 64 ? (1ULL << bsz) - 1 : ~0ULL);
		jw_uint(w->jw, v);
	} else if (msz < 0 || bits / 8 + (size_t)msz > len) {
		truncated(w->jw);
	} else {
		walk_value(w, m->type, data + bits / 8, msz);
	}
}

static void walk_members(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len)
{
	int i;

	for (i = 0; i < btf_vlen(t); i++)
		walk_member(w, t, i, data, len);
}

static void walk_composite(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len)
{
	if (w->depth >= w->o->max_depth) {
		truncated(w->jw);
		return;
	}
	w->depth++;
	jw_object(w->jw);
	walk_members(w, t, data, len);
	jw_end(w->jw);
	w->depth--;
}

static void walk_value(struct walk *w, __u32 id, const __u8 *data, size_t len)
{
	const struct btf_type *t = btf__type_by_id(w->btf, btf_skip_mods(w->btf, id));

	if (!t || btf_is_void(t)) {
		jw_null(w->jw);
	} else if (btf_is_int(t)) {
		json_int(w->jw, t, load_uint(data, len < t->size ? len : t->size));
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		json_enum(w->jw, w->btf, t, load_uint(data, len < t->size ? len : t->size));
	} else if (btf_is_ptr(t)) {
		json_pointer(w->jw, w->btf, t, load_uint(data, len < 8 ? len : 8), w->o);
	} else if (btf_is_array(t)) {
		walk_array(w, t, data, len);
	} else if (btf_is_struct(t) || btf_is_union(t)) {
		walk_composite(w, t, data, len);
	} else {
		jw_null(w->jw);
	}
}

void btfjson_value(struct jw *jw, const struct btf *btf, __u32 id, const void *data, size_t len,
		   const struct btfjson_opts *o)
{
	struct walk w = { .jw = jw, .btf = btf, .o = o };

	walk_value(&w, id, data, len);
}
