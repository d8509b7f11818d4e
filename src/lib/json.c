// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/json.h"
#include "lib/kbtf.h"

#define TRUNCATED "{\"__truncated__\":true}"

void json_string(struct strbuf *sb, const char *s, size_t max)
{
	size_t i;

	sb_putc(sb, '"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			sb_printf(sb, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			sb_printf(sb, "\\u%04x", c);
		else
			sb_putc(sb, c);
	}
	sb_putc(sb, '"');
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

static void json_int(struct strbuf *sb, const struct btf_type *t, __u64 v)
{
	int enc = btf_int_encoding(t);

	if (enc & BTF_INT_BOOL)
		sb_printf(sb, v ? "true" : "false");
	else if (enc & BTF_INT_SIGNED)
		sb_printf(sb, "%lld", (long long)sign_extend(v, t->size));
	else
		sb_printf(sb, "%llu", (unsigned long long)v);
}

static void json_enum(struct strbuf *sb, const struct btf *btf, const struct btf_type *t, __u64 v)
{
	int i;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++, e++) {
			if ((__u32)e->val == (__u32)v) {
				json_string(sb, btf__name_by_offset(btf, e->name_off), 256);
				return;
			}
		}
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t); i++, e++) {
			if (btf_enum64_value(e) == v) {
				json_string(sb, btf__name_by_offset(btf, e->name_off), 256);
				return;
			}
		}
	}
	sb_printf(sb, "%lld", (long long)sign_extend(v, t->size));
}

static void json_pointer(struct strbuf *sb, const struct btf *btf, const struct btf_type *t,
			 __u64 v, const struct json_opts *o)
{
	const struct btf_type *to = btf__type_by_id(btf, btf_skip_mods(btf, t->type));
	uint64_t start = 0;
	const char *sym;

	sym = to && btf_is_func_proto(to) && o->ks ? ksyms__addr_name(o->ks, v, &start) : NULL;
	if (sym && start == v)
		sb_printf(sb, "\"0x%llx <%s>\"", (unsigned long long)v, sym);
	else
		sb_printf(sb, "\"0x%llx\"", (unsigned long long)v);
}

struct walk {
	struct strbuf *sb;
	const struct btf *btf;
	const struct json_opts *o;
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
		json_string(w->sb, (const char *)data, len < a->nelems ? len : a->nelems);
		return;
	}
	sb_putc(w->sb, '[');
	for (i = 0; esz > 0 && i < a->nelems; i++) {
		if ((i + 1) * (size_t)esz > len) {
			sb_printf(w->sb, "%s" TRUNCATED, i ? "," : "");
			break;
		}
		if (i)
			sb_putc(w->sb, ',');
		walk_value(w, a->type, data + i * esz, esz);
	}
	sb_putc(w->sb, ']');
}

static bool walk_members(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len,
			 bool first);

static bool walk_member(struct walk *w, const struct btf_type *t, int i, const __u8 *data,
			size_t len, bool first)
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
			first = walk_members(w, mt, data + bits / 8, len - bits / 8, first);
			w->anon_depth--;
		}
		return first;
	}
	if (!first)
		sb_putc(w->sb, ',');
	json_string(w->sb, name, 256);
	sb_putc(w->sb, ':');
	if (bsz) {
		size_t at = bits / 8;
		__u64 v = 0;

		if (at < len)
			memcpy(&v, data + at, len - at < 8 ? len - at : 8);
		v = (v >> (bits % 8)) & (bsz < 64 ? (1ULL << bsz) - 1 : ~0ULL);
		sb_printf(w->sb, "%llu", (unsigned long long)v);
	} else if (msz < 0 || bits / 8 + (size_t)msz > len) {
		sb_printf(w->sb, TRUNCATED);
	} else {
		walk_value(w, m->type, data + bits / 8, msz);
	}
	return false;
}

static bool walk_members(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len,
			 bool first)
{
	int i;

	for (i = 0; i < btf_vlen(t); i++)
		first = walk_member(w, t, i, data, len, first);
	return first;
}

static void walk_composite(struct walk *w, const struct btf_type *t, const __u8 *data, size_t len)
{
	if (w->depth >= w->o->max_depth) {
		sb_printf(w->sb, TRUNCATED);
		return;
	}
	w->depth++;
	sb_putc(w->sb, '{');
	walk_members(w, t, data, len, true);
	sb_putc(w->sb, '}');
	w->depth--;
}

static void walk_value(struct walk *w, __u32 id, const __u8 *data, size_t len)
{
	const struct btf_type *t = btf__type_by_id(w->btf, btf_skip_mods(w->btf, id));

	if (!t || btf_is_void(t)) {
		sb_printf(w->sb, "null");
	} else if (btf_is_int(t)) {
		json_int(w->sb, t, load_uint(data, len < t->size ? len : t->size));
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		json_enum(w->sb, w->btf, t, load_uint(data, len < t->size ? len : t->size));
	} else if (btf_is_ptr(t)) {
		json_pointer(w->sb, w->btf, t, load_uint(data, len < 8 ? len : 8), w->o);
	} else if (btf_is_array(t)) {
		walk_array(w, t, data, len);
	} else if (btf_is_struct(t) || btf_is_union(t)) {
		walk_composite(w, t, data, len);
	} else {
		sb_printf(w->sb, "null");
	}
}

void json_value(struct strbuf *sb, const struct btf *btf, __u32 id, const void *data, size_t len,
		const struct json_opts *o)
{
	struct walk w = { .sb = sb, .btf = btf, .o = o };

	walk_value(&w, id, data, len);
}
