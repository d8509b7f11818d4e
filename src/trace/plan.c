// SPDX-License-Identifier: GPL-2.0
/* Spec + BTF -> plan: parameter slots, member offsets, sizes, predicates. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/plan.h"
#include "trace/profile.h"
#include "trace/tpoint.h"
#include "trace/ufunc.h"
#include "lib/util.h"

/* Where a path currently points while it is being resolved. */
struct loc {
	const struct btf *btf;
	__u32 type_id;	/* type of the thing at this location */
	bool in_memory; /* at v + off (else the value v itself) */
	int off;
	__u8 bit_off, bit_size;
};

struct resolver {
	struct func_plan *plan;
	const struct btf *btf;
	const char *what; /* the path as written, for messages */
};

static const struct btf_type *real_type(const struct btf *btf, __u32 id)
{
	return btf__type_by_id(btf, btf_skip_mods(btf, id));
}

static bool is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = real_type(btf, id);

	return t && btf_is_int(t) && t->size == 1 &&
	       ((btf_int_encoding(t) & BTF_INT_CHAR) ||
		strstr(btf__name_by_offset(btf, t->name_off), "char"));
}

static bool is_composite(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

static char *type_str(const struct btf *btf, __u32 id)
{
	struct strbuf sb;

	sb_init(&sb);
	kbtf_format_decl(btf, id, NULL, &sb);
	return sb_take(&sb);
}

static void err_type(struct resolver *r, const char *msg, __u32 id)
{
	char *ts = type_str(r->btf, id);

	p_err("%s: %s '%s' in %s()", r->what, msg, ts ? ts : "?", r->plan->name);
	free(ts);
}

/*
 * Find a member by name, through anonymous structs/unions as C does, at
 * most depth of them deep. Offsets add up in 64 bits: one that does not
 * fit the plan's int is not found.
 */
static bool find_member(const struct btf *btf, __u32 id, const char *name, struct loc *out,
			__u64 base_bits, int depth)
{
	const struct btf_type *t = real_type(btf, id);
	const struct btf_member *m;
	int i;

	/* an anonymous member is reached through, never named */
	if (!is_composite(t) || depth < 0 || !name[0])
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u64 bits = base_bits + btf_member_bit_offset(t, i);

		if (!mn || bits / 8 > INT_MAX)
			return false;
		if (mn[0] == '\0' && find_member(btf, m->type, name, out, bits, depth - 1))
			return true;
		if (strcmp(mn, name))
			continue;
		out->type_id = m->type;
		out->bit_size = btf_member_bitfield_size(t, i);
		out->off = bits / 8;
		out->bit_off = out->bit_size ? bits % 8 : 0;
		return true;
	}
	return false;
}

bool plan_member(const struct btf *btf, __u32 id, const char *name, int *off, __u32 *type_id)
{
	struct loc l = { 0 };

	if (!find_member(btf, id, name, &l, 0, KBTF_MAX_TYPE_DEPTH) || l.bit_size)
		return false;
	*off = l.off;
	*type_id = l.type_id;
	return true;
}

bool plan_member_bits(const struct btf *btf, __u32 id, const char *name, __u64 *bits,
		      __u8 *bit_size, __u32 *type_id)
{
	struct loc l = { 0 };

	if (!find_member(btf, id, name, &l, 0, KBTF_MAX_TYPE_DEPTH))
		return false;
	*bits = (__u64)l.off * 8 + l.bit_off;
	*bit_size = l.bit_size;
	*type_id = l.type_id;
	return true;
}

static void closest_member(const struct btf *btf, __u32 id, const char *name, const char **best,
			   int *best_d, int depth)
{
	const struct btf_type *t = real_type(btf, id);
	const struct btf_member *m;
	int i, d;

	if (!is_composite(t) || depth < 0)
		return;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (!mn)
			return;
		if (!mn[0]) {
			closest_member(btf, m->type, name, best, best_d, depth - 1);
			continue;
		}
		d = edit_distance(name, mn, *best_d - 1);
		if (d < *best_d) {
			*best_d = d;
			*best = mn;
		}
	}
}

static int err_no_member(struct resolver *r, __u32 id, const char *name)
{
	const char *best = NULL;
	int best_d = 3;
	char *ts = type_str(r->btf, btf_skip_mods(r->btf, id));

	closest_member(r->btf, id, name, &best, &best_d, KBTF_MAX_TYPE_DEPTH);
	if (best)
		p_err("%s: no member '%s' in %s; did you mean '%s'?", r->what, name, ts ? ts : "?",
		      best);
	else
		p_err("%s: no member '%s' in %s", r->what, name, ts ? ts : "?");
	free(ts);
	return -ENOENT;
}

/* Turn "the value at v + off" into "the value v" by loading a pointer. */
static int load_pointer(struct resolver *r, struct loc *l, struct ksnoop_value *v)
{
	if (!l->in_memory)
		return 0;
	if (v->nr_steps >= KSNOOP_MAX_STEPS) {
		p_err("%s: more than %d pointer dereferences", r->what, KSNOOP_MAX_STEPS);
		return -E2BIG;
	}
	v->offs[v->nr_steps++] = l->off;
	l->in_memory = false;
	l->off = 0;
	return 0;
}

static int step_arrow(struct resolver *r, struct loc *l, struct ksnoop_value *v, const char *m)
{
	const struct btf_type *t = real_type(r->btf, l->type_id);
	__u32 pointee;
	int err;

	if (!t || !btf_is_ptr(t)) {
		err_type(r, "'->' needs a pointer, not", l->type_id);
		return -EINVAL;
	}
	pointee = t->type;
	if (!is_composite(real_type(r->btf, pointee))) {
		err_type(r, "'->' needs a pointer to a struct or union, not", l->type_id);
		return -EINVAL;
	}
	err = load_pointer(r, l, v);
	if (err)
		return err;
	if (!find_member(r->btf, pointee, m, l, 0, KBTF_MAX_TYPE_DEPTH))
		return err_no_member(r, pointee, m);
	l->in_memory = true;
	return 0;
}

static int step_dot(struct resolver *r, struct loc *l, const char *m)
{
	int base = l->off;

	if (!is_composite(real_type(r->btf, l->type_id))) {
		err_type(r, "'.' needs a struct or union, not", l->type_id);
		return -EINVAL;
	}
	if (!l->in_memory) {
		p_err("%s: struct passed by value cannot be followed with '.'", r->what);
		return -EINVAL;
	}
	if (!find_member(r->btf, l->type_id, m, l, 0, KBTF_MAX_TYPE_DEPTH))
		return err_no_member(r, l->type_id, m);
	if (l->off > INT_MAX - base) {
		p_err("%s: member '%s' is too far into the value", r->what, m);
		return -ERANGE;
	}
	l->off += base;
	return 0;
}

static int step_index(struct resolver *r, struct loc *l, struct ksnoop_value *v, long long idx)
{
	const struct btf_type *t = real_type(r->btf, l->type_id);
	__s64 esz;
	int err;

	if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);

		if (idx < 0 || idx >= a->nelems) {
			p_err("%s: index %lld is outside the array of %u", r->what, idx, a->nelems);
			return -ERANGE;
		}
		esz = btf__resolve_size(r->btf, a->type);
		l->type_id = a->type;
	} else if (t && btf_is_ptr(t)) {
		err = load_pointer(r, l, v);
		if (err)
			return err;
		esz = btf__resolve_size(r->btf, t->type);
		l->type_id = t->type;
		l->in_memory = true;
	} else {
		err_type(r, "'[]' needs an array or a pointer, not", l->type_id);
		return -EINVAL;
	}
	if (esz <= 0) {
		err_type(r, "'[]' cannot step over elements of unsized type", l->type_id);
		return esz < 0 ? (int)esz : -EINVAL;
	}
	if (idx > (1 << 20) / esz) {
		p_err("%s: index %lld is out of range", r->what, idx);
		return -ERANGE;
	}
	l->off += idx * esz;
	return 0;
}

static int find_ptr_to(const struct btf *btf, __u32 id)
{
	__u32 i, n = btf__type_cnt(btf);

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_ptr(t) && t->type == id)
			return i;
	}
	/* No such pointer type in the kernel: add one to our copy. */
	return btf__add_ptr((struct btf *)btf, id);
}

/* "(struct tcp_sock *)": a struct/union/enum/typedef name and stars. */
static int resolve_cast(struct resolver *r, const char *cast, __u32 *out)
{
	static const struct {
		const char *kw;
		int kind;
	} kinds[] = { { "struct ", BTF_KIND_STRUCT },
		      { "union ", BTF_KIND_UNION },
		      { "enum ", BTF_KIND_ENUM } };
	char name[SPEC_MAX_IDENT + 1];
	int kind = BTF_KIND_TYPEDEF, stars = 0, id;
	const char *s = cast;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!strncmp(s, kinds[i].kw, strlen(kinds[i].kw))) {
			kind = kinds[i].kind;
			s += strlen(kinds[i].kw);
		}
	}
	while (*s == ' ')
		s++;
	n = strcspn(s, " *");
	if (n == 0 || n > SPEC_MAX_IDENT) {
		p_err("%s: bad cast '(%s)'", r->what, cast);
		return -EINVAL;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	for (s += n; *s; s++)
		stars += *s == '*';
	id = btf__find_by_name_kind(r->btf, name, kind);
	if (id < 0 && kind == BTF_KIND_TYPEDEF)
		id = btf__find_by_name_kind(r->btf, name, BTF_KIND_INT);
	if (id < 0) {
		p_err("%s: unknown type '%s' in cast", r->what, cast);
		return -ENOENT;
	}
	while (stars-- > 0 && id > 0)
		id = find_ptr_to(r->btf, id);
	if (id < 0) {
		p_err("%s: cannot make a pointer type for cast '(%s)': %s", r->what, cast,
		      strerror(-id));
		return id;
	}
	*out = id;
	return 0;
}

/* No name is close: the ones there are (p_err cuts a long line short). */
static void err_no_param(struct resolver *r, const char *name, const struct btf_param *params,
			 int n)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	for (i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "",
			  btf__name_by_offset(r->btf, params[i].name_off));
	if (n > 0)
		p_err("%s: %s() has no parameter '%s'; its parameters are %s", r->what,
		      r->plan->name, name, sb_str(&sb));
	else
		p_err("%s: %s() has no parameter '%s': it takes none", r->what, r->plan->name,
		      name);
	sb_free(&sb);
}

/* A function traced without BTF has no parameter or return value to read. */
static int err_no_btf(struct resolver *r)
{
	p_err("%s: the kernel's BTF does not describe %s() (traced at %s): only current and "
	      "comm can be read",
	      r->what, r->plan->name, r->plan->attach_name);
	return -ENOENT;
}

static int find_param(struct resolver *r, const char *name, __u32 *type_id)
{
	const struct btf_param *params;
	bool variadic;
	int i, n, best_d = 3;
	const char *best = NULL;

	if (r->plan->no_btf)
		return err_no_btf(r);
	n = kbtf_func_params(r->btf, r->plan->func.id, &params, &variadic);
	for (i = plan_first_param(r->plan); i < n; i++) {
		const char *pn = btf__name_by_offset(r->btf, params[i].name_off);
		int d;

		if (!strcmp(pn, name)) {
			*type_id = params[i].type;
			return i;
		}
		d = edit_distance(name, pn, best_d - 1);
		if (d < best_d) {
			best_d = d;
			best = pn;
		}
	}
	if (best)
		p_err("%s: %s() has no parameter '%s'; did you mean '%s'?", r->what, r->plan->name,
		      name, best);
	else if (n > 0)
		err_no_param(r, name, params + plan_first_param(r->plan),
			     n - plan_first_param(r->plan));
	else
		err_no_param(r, name, params, n);
	return -ENOENT;
}

static bool has_param(struct resolver *r, const char *name)
{
	const struct btf_param *params;
	bool variadic;
	int i, n;

	n = kbtf_func_params(r->btf, r->plan->func.id, &params, &variadic);
	for (i = 0; i < n; i++) {
		if (!strcmp(btf__name_by_offset(r->btf, params[i].name_off), name))
			return true;
	}
	return false;
}

/* struct task_struct *, the type of `current`; 0 when the BTF has none (said). */
static __u32 task_ptr_type(struct resolver *r)
{
	int task = btf__find_by_name_kind(r->btf, "task_struct", BTF_KIND_STRUCT);
	__u32 ptr = task > 0 ? btf_ptr_to(r->btf, task) : 0;

	if (ptr)
		return ptr;
	p_err("%s: this kernel's BTF has no struct task_struct * for current", r->what);
	return 0;
}

static int resolve_base(struct resolver *r, const struct spec_path *p, struct loc *l,
			struct ksnoop_value *v, struct plan_value *pv)
{
	const struct btf_type *fn = btf__type_by_id(r->btf, r->plan->func.id);
	int idx;

	l->btf = r->btf;
	if (!strcmp(p->base, "comm") && !has_param(r, "comm")) {
		v->base = KSNOOP_BASE_COMM;
		v->flags |= KSNOOP_V_ENTRY;
		l->type_id = 0;
		if (!p->nr_steps && !p->cast)
			return 0;
		p_err("%s: comm is the task's name and takes no cast, member or index", r->what);
		return -EINVAL;
	}
	if (!strcmp(p->base, "current") && !has_param(r, "current")) {
		v->base = KSNOOP_BASE_CURRENT;
		v->flags |= KSNOOP_V_ENTRY;
		l->type_id = task_ptr_type(r);
		if (l->type_id == 0)
			return -ENOENT;
	} else if (spec_path_is_return(p) && r->plan->no_btf) {
		return err_no_btf(r);
	} else if (spec_path_is_return(p)) {
		v->base = KSNOOP_BASE_RET;
		l->type_id = btf__type_by_id(r->btf, fn->type)->type;
		pv->is_return = true;
		if (l->type_id == 0) {
			p_err("%s: %s() returns void", r->what, r->plan->name);
			return -EINVAL;
		}
	} else {
		idx = find_param(r, p->base, &l->type_id);
		if (idx < 0)
			return idx;
		if (idx >= KSNOOP_MAX_ARGS) {
			p_err("%s: parameter %d is past the %d that can be traced", r->what,
			      idx + 1, KSNOOP_MAX_ARGS);
			return -E2BIG;
		}
		v->base = KSNOOP_BASE_ARG;
		v->arg = idx;
		v->flags |= KSNOOP_V_ENTRY;
	}
	if (p->cast)
		return resolve_cast(r, p->cast, &l->type_id);
	return 0;
}

static int walk_steps(struct resolver *r, const struct spec_path *p, struct loc *l,
		      struct ksnoop_value *v)
{
	int i, err = 0;

	for (i = 0; i < p->nr_steps && !err; i++) {
		const struct spec_step *st = &p->steps[i];

		if (l->bit_size) {
			p_err("%s: a bitfield has no members", r->what);
			return -EINVAL;
		}
		if (st->kind == STEP_ARROW)
			err = step_arrow(r, l, v, st->member);
		else if (st->kind == STEP_DOT)
			err = step_dot(r, l, st->member);
		else
			err = step_index(r, l, v, st->index);
	}
	return err;
}

#define STRING_READ_MAX 256

/* Decide how the value at l is captured and shown. */
static int finish_value(struct resolver *r, struct loc *l, struct ksnoop_value *v,
			struct plan_value *pv)
{
	const struct btf_type *t = real_type(r->btf, l->type_id);
	__s64 size;
	int err;

	pv->btf = r->btf;
	pv->type_id = l->type_id;
	if (v->base == KSNOOP_BASE_COMM) {
		pv->show = SHOW_STRING;
		pv->full_size = 16;
		return 0;
	}
	pv->bit_off = l->bit_off;
	pv->bit_size = l->bit_size;
	if (t && btf_is_ptr(t) &&
	    (is_composite(real_type(r->btf, t->type)) || is_char(r->btf, t->type))) {
		err = load_pointer(r, l, v);
		if (err)
			return err;
		v->flags |= KSNOOP_V_READ;
		v->final_off = 0;
		pv->via_pointer = true;
		if (is_char(r->btf, t->type)) {
			pv->show = SHOW_STRING;
			v->flags |= KSNOOP_V_STRING;
			v->size = STRING_READ_MAX;
			return 0;
		}
		pv->show = SHOW_PTR_DUMP;
		pv->type_id = t->type;
		size = btf__resolve_size(r->btf, t->type);
	} else if (l->in_memory) {
		v->flags |= KSNOOP_V_READ;
		v->final_off = l->off;
		size = btf__resolve_size(r->btf, l->type_id);
		pv->show = SHOW_MEMORY;
		if (t && btf_is_array(t) && is_char(r->btf, btf_array(t)->type)) {
			pv->show = SHOW_STRING;
			v->flags |= KSNOOP_V_STRING;
		}
		if (l->bit_size)
			size = (l->bit_off + l->bit_size + 7) / 8;
	} else {
		pv->show = SHOW_SCALAR;
		size = btf__resolve_size(r->btf, l->type_id);
		if (size > 8) {
			err_type(r, "cannot trace a value passed in registers of type", l->type_id);
			return -EINVAL;
		}
	}
	if (size < 0) {
		err_type(r, "cannot size type", l->type_id);
		return (int)size;
	}
	pv->full_size = size;
	if (v->flags & KSNOOP_V_READ)
		v->size = size > KSNOOP_VALUE_MAX ? KSNOOP_VALUE_MAX + 1 : size;
	return 0;
}

static int add_value(struct func_plan *plan, const struct spec_path *p, bool hidden)
{
	struct resolver r = { .plan = plan, .btf = plan->func.btf, .what = p->text };
	struct ksnoop_value *v;
	struct plan_value *pv;
	struct loc l = {};
	int idx = plan->cfg.nr_values, err;

	if (idx >= KSNOOP_MAX_VALUES) {
		p_err("%s: %s() would capture more than %d values", p->text, plan->name,
		      KSNOOP_MAX_VALUES);
		return -E2BIG;
	}
	v = &plan->cfg.values[idx];
	pv = &plan->values[idx];
	memset(v, 0, sizeof(*v));
	err = resolve_base(&r, p, &l, v, pv);
	if (!err)
		err = walk_steps(&r, p, &l, v);
	if (!err)
		err = finish_value(&r, &l, v, pv);
	if (err)
		return err;
	pv->name = strdup(p->text);
	if (!pv->name) {
		p_err("%s: out of memory", p->text);
		return -ENOMEM;
	}
	if (pv->show != SHOW_STRING && !pv->bit_size)
		pv->decode = decode_of(pv->btf, pv->type_id, p->text, plan->name);
	pv->hidden = hidden;
	if (hidden)
		v->flags |= KSNOOP_V_HIDDEN;
	plan->cfg.nr_values++;
	return idx;
}

static bool type_is_signed(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = real_type(btf, id);

	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED;
	/* Newer BTF marks signed enums with kflag; C enums are ints anyway. */
	if (btf_is_enum(t) || btf_is_enum64(t))
		return true;
	return false;
}

static int check_int_operand(const struct plan_value *pv, const char *what)
{
	const struct btf_type *t = real_type(pv->btf, pv->type_id);

	if (pv->show == SHOW_PTR_DUMP || pv->show == SHOW_STRING || pv->full_size > 8 ||
	    !(btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) || btf_is_ptr(t))) {
		p_err("%s: only integers, enums and pointers compare with numbers", what);
		return -EINVAL;
	}
	return 0;
}

static int fill_str_pred(struct ksnoop_pred *p, const struct plan_value *pv,
			 const struct spec_pred *sp)
{
	if (pv->show != SHOW_STRING) {
		p_err("%s: only strings (char arrays, char *, comm) compare with \"...\"",
		      sp->path.text);
		return -EINVAL;
	}
	if (sp->op != CMP_EQ && sp->op != CMP_NE) {
		p_err("%s: strings compare only with == and !=", sp->path.text);
		return -EINVAL;
	}
	if (strlen(sp->str) >= KSNOOP_PRED_STR_MAX) {
		p_err("%s: string operand longer than %d characters", sp->path.text,
		      KSNOOP_PRED_STR_MAX - 1);
		return -E2BIG;
	}
	p->kind = KSNOOP_PRED_STR;
	strcpy(p->str, sp->str);
	return 0;
}

/* Whether the literal fits in a value of that many bits, signed or not. */
static bool literal_fits(const struct spec_pred *sp, int bits, bool is_signed)
{
	unsigned long long half = 1ULL << (bits - 1);

	if (!is_signed) /* -0 is 0; the maximum is 2^bits - 1 */
		return (!sp->negative || !sp->value) && sp->value <= half - 1 + half;
	return sp->negative ? sp->value <= half : sp->value < half;
}

static int err_literal_range(const struct plan_value *pv, const struct spec_pred *sp,
			     const char *fname)
{
	char *ts = type_str(pv->btf, pv->type_id);
	char bits[16] = "";

	if (pv->bit_size)
		snprintf(bits, sizeof(bits), ":%u", pv->bit_size);
	p_err("%s(): literal %s%llu is out of range for %s%s (%s)", fname, sp->negative ? "-" : "",
	      sp->value, ts ? ts : "?", bits, sp->path.text);
	free(ts);
	return -ERANGE;
}

static int fill_int_pred(struct ksnoop_pred *p, const struct plan_value *pv,
			 const struct spec_pred *sp, const char *fname)
{
	int err = check_int_operand(pv, sp->path.text);

	if (err)
		return err;
	p->kind = KSNOOP_PRED_INT;
	p->width = pv->bit_size ? 8 : pv->full_size;
	p->bit_off = pv->bit_off;
	p->bit_size = pv->bit_size;
	p->is_signed = type_is_signed(pv->btf, pv->type_id);
	if (sp->negative && sp->value && !p->is_signed) {
		p_err("%s: compared with a negative number, but its type is unsigned",
		      sp->path.text);
		return -EINVAL;
	}
	if (!literal_fits(sp, pv->bit_size ? pv->bit_size : pv->full_size * 8, p->is_signed))
		return err_literal_range(pv, sp, fname);
	/* in unsigned arithmetic, so that -9223372036854775808 does not overflow */
	p->rhs = sp->negative ? 0 - sp->value : sp->value;
	return 0;
}

static int push_op(struct func_plan *plan, __u8 op)
{
	if (plan->cfg.nr_pred_ops >= KSNOOP_MAX_PRED_OPS) {
		p_err("%s(): predicate has more than %d terms", plan->name, KSNOOP_MAX_PRED_OPS);
		return -E2BIG;
	}
	plan->cfg.pred_ops[plan->cfg.nr_pred_ops++] = op;
	return 0;
}

/* A comparison: its operand becomes a value, shown unless hidden. */
/* The spec's comparison operators as the BPF side numbers them. */
static const __u8 bpf_cmp[] = {
	[CMP_EQ] = KSNOOP_CMP_EQ, [CMP_NE] = KSNOOP_CMP_NE, [CMP_LT] = KSNOOP_CMP_LT,
	[CMP_LE] = KSNOOP_CMP_LE, [CMP_GT] = KSNOOP_CMP_GT, [CMP_GE] = KSNOOP_CMP_GE,
};
_Static_assert(ARRAY_SIZE(bpf_cmp) == CMP_GE + 1, "every spec comparison maps to BPF's");

static int add_cmp(struct func_plan *plan, const struct spec_pred *sp, bool hidden)
{
	struct ksnoop_pred *p;
	int idx, err;

	if (plan->cfg.nr_preds >= KSNOOP_MAX_PREDS) {
		p_err("%s: %s() would have more than %d comparisons", sp->path.text, plan->name,
		      KSNOOP_MAX_PREDS);
		return -E2BIG;
	}
	idx = add_value(plan, &sp->path, hidden);
	if (idx < 0)
		return idx;
	p = &plan->cfg.preds[plan->cfg.nr_preds];
	memset(p, 0, sizeof(*p));
	p->value_idx = idx;
	p->op = bpf_cmp[sp->op];
	err = sp->is_string ? fill_str_pred(p, &plan->values[idx], sp)
			    : fill_int_pred(p, &plan->values[idx], sp, plan->name);
	if (err)
		return err;
	return push_op(plan, plan->cfg.nr_preds++);
}

/* Postfix order, so BPF evaluates it with a small stack. */
static int add_pred_tree(struct func_plan *plan, const struct spec_pred *sp, bool hidden)
{
	if (sp->kind == PRED_CMP)
		return add_cmp(plan, sp, hidden);
	return add_pred_tree(plan, sp->left, true) ?: add_pred_tree(plan, sp->right, true)
		?: push_op(plan, sp->kind == PRED_AND ? KSNOOP_OP_AND : KSNOOP_OP_OR);
}

/* Several predicate items must all hold. */
static int add_pred_item(struct func_plan *plan, const struct spec_pred *sp, bool cmp_hidden)
{
	bool first = plan->cfg.nr_pred_ops == 0;

	/* A lone comparison shows its operand, as ksnoop(8) does. */
	return add_pred_tree(plan, sp, sp->kind != PRED_CMP || cmp_hidden)
		       ?: (first ? 0 : push_op(plan, KSNOOP_OP_AND));
}

static int add_all_params(struct func_plan *plan)
{
	const struct btf_param *params;
	struct spec_path p = {};
	bool variadic;
	int i, n, err;

	n = kbtf_func_params(plan->func.btf, plan->func.id, &params, &variadic);
	for (i = plan_first_param(plan); i < n && i < KSNOOP_MAX_ARGS; i++) {
		p.base = (char *)btf__name_by_offset(plan->func.btf, params[i].name_off);
		p.text = p.base;
		err = add_value(plan, &p, false);
		if (err < 0)
			return err;
	}
	if (n > KSNOOP_MAX_ARGS)
		p_warn("%s(): only the first %d of %d parameters are traced", plan->name,
		       KSNOOP_MAX_ARGS, n);
	return 0;
}

static int add_return(struct func_plan *plan)
{
	const struct btf_type *fn = btf__type_by_id(plan->func.btf, plan->func.id);
	struct spec_path p = { .base = "return", .text = "return" };

	int idx;

	if (btf__type_by_id(plan->func.btf, fn->type)->type == 0)
		return 0; /* void: the return event shows no value */
	idx = add_value(plan, &p, false);
	return idx < 0 ? idx : 0;
}

void plan_show_address(struct func_plan *plan, int i)
{
	struct ksnoop_value *v = &plan->cfg.values[i];
	struct plan_value *pv = &plan->values[i];
	__u32 ptr = btf_ptr_to(pv->btf, pv->type_id);

	v->flags &= ~(KSNOOP_V_READ | KSNOOP_V_STRING);
	pv->show = SHOW_SCALAR;
	pv->via_pointer = false;
	pv->decode = DECODE_NONE;
	pv->type_id =
		ptr ?: (__u32)btf__find_by_name_kind(pv->btf, "long unsigned int", BTF_KIND_INT);
	pv->full_size = 8;
}

/* Whether the function returns a pointer to type (0: never). */
static bool returns_ptr_to(const struct func_plan *plan, __u32 type)
{
	const struct btf *btf = plan->func.btf;
	const struct btf_type *proto =
		btf__type_by_id(btf, btf__type_by_id(btf, plan->func.id)->type);
	const struct btf_type *ret = btf__type_by_id(btf, btf_skip_mods(btf, proto->type));

	return type && ret && btf_is_ptr(ret) && btf_skip_mods(btf, ret->type) == type;
}

/*
 * --follow's functions: each argument at entry, and the return where it
 * is a copy of the object followed (skb_clone).
 */
static int add_follow_params(struct func_plan *plan, __u32 copy_type)
{
	int err = add_all_params(plan);

	if (!err && returns_ptr_to(plan, copy_type))
		err = add_return(plan);
	plan->bare = false;
	return err;
}

/* --follow's one-line calls show pointers, never the structs behind them. */
static void show_addresses(struct func_plan *plan)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++) {
		if (plan->values[i].show == SHOW_PTR_DUMP)
			plan_show_address(plan, i);
	}
}

/* How the return type says the call failed, ERR_NONE if it cannot. */
static __u8 err_kind_of(const struct func_plan *plan)
{
	const struct btf *btf = plan->func.btf;
	__u32 ret = btf__type_by_id(btf, btf__type_by_id(btf, plan->func.id)->type)->type;
	const struct btf_type *t = ret ? real_type(btf, ret) : NULL;

	if (t && btf_is_ptr(t))
		return KSNOOP_ERR_PTR;
	if (t && (btf_is_int(t) || btf_is_any_enum(t)) && (t->size == 4 || t->size == 8))
		return t->size == 4 ? KSNOOP_ERR_INT32 : KSNOOP_ERR_INT64;
	return KSNOOP_ERR_NONE;
}

/* --errors: the function must be able to fail. */
static int set_err_kind(struct func_plan *plan)
{
	const struct btf *btf = plan->func.btf;
	__u32 ret = btf__type_by_id(btf, btf__type_by_id(btf, plan->func.id)->type)->type;
	char *ts;

	plan->cfg.err_kind = err_kind_of(plan);
	if (plan->cfg.err_kind != KSNOOP_ERR_NONE)
		return 0;
	ts = ret ? type_str(btf, ret) : NULL;
	p_err("%s() returns %s: --errors needs an int, a long or a pointer return", plan->name,
	      ts ? ts : "void");
	free(ts);
	return -EINVAL;
}

bool plan_value_is_ret(const struct plan_value *pv)
{
	return pv->is_return && pv->name && !strcmp(pv->name, "return");
}

static bool has_return(const struct func_plan *plan)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++) {
		if (plan_value_is_ret(&plan->values[i]) && !plan->values[i].hidden)
			return true;
	}
	return false;
}

/* A failure is shown with its return, whether or not the spec asked for it. */
static int plan_errors(struct func_plan *plan)
{
	return set_err_kind(plan) ?: has_return(plan) ? 0 : add_return(plan);
}

/* A graph node shows its return, and its errno when it has one. */
static int plan_graph(struct func_plan *plan)
{
	plan->cfg.err_kind = err_kind_of(plan);
	return has_return(plan) ? 0 : add_return(plan);
}

/* comm and current are the same at entry and return: they follow the rest. */
static bool side_neutral(const struct ksnoop_value *v)
{
	return v->base == KSNOOP_BASE_COMM || v->base == KSNOOP_BASE_CURRENT;
}

/* Which sides the values need. */
static void value_sides(const struct func_plan *plan, bool *entry, bool *ret)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++) {
		const struct ksnoop_value *v = &plan->cfg.values[i];

		if (side_neutral(v))
			continue;
		if (v->flags & KSNOOP_V_ENTRY)
			*entry = true;
		else
			*ret = true;
	}
}

static void place_side_neutral(struct func_plan *plan)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++) {
		struct ksnoop_value *v = &plan->cfg.values[i];

		if (!side_neutral(v))
			continue;
		if (plan->cfg.emit == KSNOOP_EMIT_RETURN)
			v->flags &= ~KSNOOP_V_ENTRY;
		else
			v->flags |= KSNOOP_V_ENTRY;
	}
}

static void set_emit(struct func_plan *plan, bool combined)
{
	bool entry = false, ret = false;

	value_sides(plan, &entry, &ret);
	/* one event per call: entry values wait in the stash, if there are any */
	if ((combined && entry) || (entry && ret && !plan->bare))
		plan->cfg.emit = KSNOOP_EMIT_COMBINED;
	else if (combined)
		plan->cfg.emit = KSNOOP_EMIT_RETURN;
	else if (plan->bare)
		plan->cfg.emit = KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN;
	else
		plan->cfg.emit = ret ? KSNOOP_EMIT_RETURN : KSNOOP_EMIT_ENTRY;
	place_side_neutral(plan);
}

/*
 * One sample per call: at entry when every value is known there, else at
 * return, with the entry's values stashed. A duration needs the return,
 * and the frame that timed the entry.
 */
static void set_sample(struct func_plan *plan, enum plan_sample sample)
{
	bool entry = false, ret = sample == PLAN_LATENCY;

	value_sides(plan, &entry, &ret);
	plan->cfg.emit = !ret	 ? KSNOOP_EMIT_ENTRY
			 : entry ? KSNOOP_EMIT_COMBINED
				 : KSNOOP_EMIT_RETURN;
	if (sample == PLAN_LATENCY)
		plan->cfg.flags |= KSNOOP_CFG_FRAME;
	place_side_neutral(plan);
}

/* Where each operator's operands sit in pred_ops (postfix). */
struct pred_tree {
	int left[KSNOOP_MAX_PRED_OPS], right[KSNOOP_MAX_PRED_OPS];
	int root;
};

static int build_pred_tree(const struct ksnoop_func_cfg *cfg, struct pred_tree *t)
{
	int stack[KSNOOP_MAX_PRED_OPS], sp = 0;
	__u32 i;

	for (i = 0; i < cfg->nr_pred_ops; i++) {
		__u8 op = cfg->pred_ops[i];

		if (op == KSNOOP_OP_AND || op == KSNOOP_OP_OR) {
			if (sp < 2)
				return -EINVAL;
			t->right[i] = stack[--sp];
			t->left[i] = stack[--sp];
		}
		stack[sp++] = i;
	}
	if (sp != 1)
		return -EINVAL;
	t->root = stack[0];
	return 0;
}

/*
 * A comparison BPF can make from the argument registers alone, before it
 * reads anything else. Arguments past the sixth may sit on the stack,
 * which a kretprobe cannot see again.
 */
static bool is_fast_cmp(const struct ksnoop_func_cfg *cfg, __u8 k)
{
	const struct ksnoop_pred *p = &cfg->preds[k];
	const struct ksnoop_value *v = &cfg->values[p->value_idx];

	return p->kind == KSNOOP_PRED_INT && v->base == KSNOOP_BASE_ARG && !v->nr_steps &&
	       !(v->flags & KSNOOP_V_READ) && v->arg < 6;
}

/* Collects the fast conjuncts under pos; true when every conjunct is one. */
static bool collect_fast(struct ksnoop_func_cfg *cfg, const struct pred_tree *t, int pos)
{
	__u8 op = cfg->pred_ops[pos];
	bool left, right;

	if (op == KSNOOP_OP_AND) {
		left = collect_fast(cfg, t, t->left[pos]);
		right = collect_fast(cfg, t, t->right[pos]);
		return left && right;
	}
	if (op == KSNOOP_OP_OR || !is_fast_cmp(cfg, op) ||
	    cfg->nr_fast_preds >= KSNOOP_MAX_FAST_PREDS)
		return false;
	cfg->fast_preds[cfg->nr_fast_preds++] = op;
	return true;
}

/*
 * What BPF can skip per call: the values of the other side, task storage
 * when nothing pairs a return with its entry, and all of it for a call a
 * fast comparison rejects.
 */
static void set_fast_paths(struct func_plan *plan, const struct plan_opts *opts)
{
	struct ksnoop_func_cfg *cfg = &plan->cfg;
	bool all_fast = true;
	struct pred_tree t;
	__u32 i;

	for (i = 0; i < cfg->nr_values; i++) {
		int side = cfg->values[i].flags & KSNOOP_V_ENTRY ? KSNOOP_SIDE_ENTRY
								 : KSNOOP_SIDE_RETURN;

		cfg->side[side][cfg->nr_side[side]++] = i;
		/*
		 * A return event of its own has no entry values to compare
		 * (they are in the scratch of the CPU the entry ran on): comm
		 * and current, --comm's operand, are read again there.
		 */
		if (side == KSNOOP_SIDE_ENTRY && side_neutral(&cfg->values[i]) &&
		    (cfg->emit & KSNOOP_EMIT_RETURN))
			cfg->side[KSNOOP_SIDE_RETURN][cfg->nr_side[KSNOOP_SIDE_RETURN]++] = i;
	}
	if (cfg->nr_pred_ops)
		all_fast = !build_pred_tree(cfg, &t) && collect_fast(cfg, &t, t.root);
	plan->preds_fast = all_fast;
	/* A return must know that a slow comparison rejected its entry. */
	if (!plan_returns(plan))
		return;
	if (opts->frames || opts->combined || opts->errors || opts->graph ||
	    (cfg->emit & KSNOOP_EMIT_COMBINED) || (!all_fast && (cfg->emit & KSNOOP_EMIT_RETURN)))
		cfg->flags |= KSNOOP_CFG_FRAME;
}

/* --comm: every function also requires comm to match, hidden. */
static int add_comm_filter(struct func_plan *plan, const char *pattern)
{
	struct spec_pred sp = {
		.kind = PRED_CMP,
		.path = { .base = "comm", .text = "comm" },
		.op = CMP_EQ,
		.is_string = true,
		.str = (char *)pattern,
	};
	bool first = plan->cfg.nr_pred_ops == 0;

	return add_pred_tree(plan, &sp, true) ?: (first ? 0 : push_op(plan, KSNOOP_OP_AND));
}

static void cap_sizes(struct func_plan *plan, int max_bytes)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++) {
		struct ksnoop_value *v = &plan->cfg.values[i];

		if ((v->flags & KSNOOP_V_READ) && v->size > max_bytes)
			v->size = max_bytes;
	}
}

static int add_items(struct func_plan *plan, const struct spec *spec, bool cmp_hidden)
{
	int i, err = 0;

	for (i = 0; i < spec->nr_items && !err; i++) {
		const struct spec_item *it = &spec->items[i];

		if (it->decl && !plan_is_user(plan)) {
			p_err("%s: '%s %s' declares a parameter: a kernel function's come from BTF; "
			      "only user functions (TARGET:FUNC) take declarations",
			      plan->name, it->decl, it->path.base);
			err = -EINVAL;
		} else if (it->is_pred) {
			err = add_pred_item(plan, it->pred, cmp_hidden);
		} else {
			err = add_value(plan, &it->path, false);
			err = err < 0 ? err : 0;
		}
	}
	return err;
}

static void note_ambiguity(struct func_plan *plan, int n)
{
	const char *btf_name = btf__name_by_offset(
		plan->func.btf, btf__type_by_id(plan->func.btf, plan->func.id)->name_off);
	const char *bare = strchr(plan->name, ':') ? strchr(plan->name, ':') + 1 : plan->name;

	if (n > 1)
		snprintf(plan->note, sizeof(plan->note),
			 "%s has %d BTF entries (static functions); using the first", btf_name, n);
	else if (strcmp(bare, btf_name))
		snprintf(plan->note, sizeof(plan->note),
			 "%s is a compiler clone of %s; its arguments may differ", bare, btf_name);
}

/* "mod:func" may have meant a library's function: the error says so. */
static void report_unknown(struct kbtf *kb, const char *func)
{
	const char *colon = strchr(func, ':');
	char clip[CLIP_BUF];

	if (!colon || ufunc_module_loaded(func)) {
		kbtf__report_unknown(kb, func);
		return;
	}
	p_err("function '%s' not found: no module '%.*s' loaded has it in BTF, and no library "
	      "'%.*s' (lib%.*s.so) was found",
	      str_clip(func, clip), (int)(colon - func), func, (int)(colon - func), func,
	      (int)(colon - func), func);
}

static bool pred_reads_return(const struct spec_pred *p)
{
	if (!p)
		return false;
	if (p->kind == PRED_CMP)
		return spec_path_is_return(&p->path);
	return pred_reads_return(p->left) || pred_reads_return(p->right);
}

/* Whether a spec item reads the return value, which a tracepoint has not. */
static bool reads_return(const struct spec *spec)
{
	int i;

	for (i = 0; i < spec->nr_items; i++) {
		const struct spec_item *it = &spec->items[i];

		if (!it->is_pred && spec_path_is_return(&it->path))
			return true;
		if (it->is_pred && pred_reads_return(it->pred))
			return true;
	}
	return false;
}

/* What needs a return, which a tracepoint or a sample never makes. */
static int no_return_refusals(const struct spec *spec, const struct plan_opts *opts)
{
	const char *why = reads_return(spec)		 ? "there is no return value to read"
			  : opts->sample == PLAN_LATENCY ? "there is no return to time"
			  : opts->combined		 ? "there is no return: no duration"
			  : opts->errors		 ? "there is no return to fail"
			  : opts->graph			 ? "there is no call to nest in"
			  : opts->follow ? "--follow passes objects between functions"
					 : NULL;

	if (!why)
		return 0;
	p_err("%s: %s and does not return: %s (--from and --to time two events)", spec->func,
	      spec->target == SPEC_PROFILE ? "a CPU sample is taken" : "a tracepoint fires", why);
	return -EINVAL;
}

int plan_own_void_func(struct kbtf *kb, struct func_plan *plan, const char *name,
		       const char *attach)
{
	struct btf *btf = btf__new_empty_split(kbtf__vmlinux(kb));
	int id;

	plan->own_btf = btf;
	id = btf ? btf__add_func_proto(btf, 0) : -ENOMEM;
	id = id > 0 ? btf__add_func(btf, name, BTF_FUNC_GLOBAL, id) : id;
	free(plan->attach_name);
	plan->attach_name = id > 0 ? strdup(attach) : NULL;
	if (!plan->attach_name)
		return p_err_nomem(name);
	plan->func = (struct kbtf_func){ .btf = btf, .id = id };
	return 0;
}

/*
 * GCC may change a static function's signature in its clone (foo.isra.0),
 * and pahole then leaves the function out of BTF: finish_task_switch on
 * Debian's 6.12. Its arguments are unknown, but current and comm are
 * not, which is all a span's end often needs: trace it by kprobe under a
 * prototype of ksnoop's without parameters. 1 when kallsyms has no such
 * function either.
 */
static int plan_without_btf(struct kbtf *kb, const struct spec *spec, const struct plan_opts *opts,
			    struct func_plan *plan)
{
	const char *sym = NULL;

	if (opts->ks && !strchr(spec->func, ':'))
		sym = ksyms__symbol_or_clone(opts->ks, spec->func);
	if (!sym)
		return 1;
	if (plan_own_void_func(kb, plan, spec->func, sym))
		return -ENOMEM;
	plan->no_btf = true;
	snprintf(plan->note, sizeof(plan->note),
		 "%s has no BTF: traced by kprobe at %s, where only current and comm can be read",
		 spec->func, sym);
	return 0;
}

/* The BTF function spec names, into plan->func; errors said. */
static int find_func(struct kbtf *kb, const struct spec *spec, const struct plan_opts *opts,
		     struct func_plan *plan)
{
	struct kbtf_func funcs[KBTF_MAX_MATCHES];
	int n;

	if (spec->target == SPEC_USER)
		return ufunc_plan(kb, spec, opts->pid, plan);
	if (spec->target == SPEC_TRACEPOINT)
		return no_return_refusals(spec, opts) ?: tpoint_plan(kb, spec, plan);
	if (spec->target == SPEC_PROFILE)
		return no_return_refusals(spec, opts) ?: profile_plan(kb, spec, plan);
	n = kbtf__find_funcs(kb, spec->func, funcs, KBTF_MAX_MATCHES);
	if (n == 0 && !opts->from_glob) {
		n = plan_without_btf(kb, spec, opts, plan);
		if (n <= 0)
			return n;
		n = 0;
	}
	if (n <= 0) {
		/* A damaged module BTF has been reported already. */
		if (n != -EBADMSG && !opts->from_glob)
			report_unknown(kb, spec->func);
		return n < 0 ? n : -ENOENT;
	}
	plan->func = funcs[0];
	note_ambiguity(plan, n);
	return 0;
}

int plan_build(struct kbtf *kb, const struct spec *spec, const struct plan_opts *opts,
	       struct func_plan *plan)
{
	const struct btf_param *params;
	bool variadic;
	int err;

	memset(plan, 0, sizeof(*plan));
	plan->name = strdup(spec->func);
	plan->attach_name =
		strdup(strchr(spec->func, ':') ? strchr(spec->func, ':') + 1 : spec->func);
	if (!plan->name || !plan->attach_name) {
		p_err("%s: out of memory", spec->func);
		return -ENOMEM;
	}
	plan->target = spec->target;
	err = find_func(kb, spec, opts, plan);
	if (err)
		return err;
	plan->nr_args = kbtf_func_params(plan->func.btf, plan->func.id, &params, &variadic);
	plan->cfg.nr_args = plan->nr_args;
	plan->bare = !spec->has_list;
	if (spec->key_items && !opts->span) {
		p_err("%s: a tuple '(a, b)' keys a span: only specs of --from and --to start with one",
		      spec->func);
		return -EINVAL;
	}
	plan->key_items = spec->key_items ?: 1;
	/* A bare count or hist counts calls: it captures nothing. */
	if (plan->bare && opts->follow)
		err = add_follow_params(plan, opts->follow_copies);
	else if (plan->bare && opts->sample == PLAN_EVENTS && !opts->graph)
		err = add_all_params(plan) ?: add_return(plan);
	else if (!plan->bare)
		err = add_items(plan, spec, opts->cmp_hidden);
	else
		err = 0;
	if (!err && opts->graph)
		err = plan_graph(plan);
	else if (!err && opts->errors)
		err = plan_errors(plan);
	else if (!err) /* for the errno a timeline names */
		plan->cfg.err_kind = err_kind_of(plan);
	if (!err && opts->comm)
		err = add_comm_filter(plan, opts->comm);
	if (err)
		return err;
	if (opts->follow)
		show_addresses(plan);
	if (opts->max_bytes)
		cap_sizes(plan, opts->max_bytes);
	if (opts->sample == PLAN_EVENTS)
		set_emit(plan, opts->combined || opts->errors || opts->graph);
	else
		set_sample(plan, opts->sample);
	/* a tracepoint's or a sample's one event is its entry; no frame waits for a return */
	if (!plan_returns(plan))
		plan->cfg.emit = KSNOOP_EMIT_ENTRY;
	set_fast_paths(plan, opts);
	return 0;
}

void plan_free(struct func_plan *plan)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_VALUES; i++)
		free(plan->values[i].name);
	free(plan->name);
	free(plan->attach_name);
	free(plan->user.path);
	btf__free(plan->own_btf);
	memset(plan, 0, sizeof(*plan));
}

int plan_resolve_path(const struct kbtf_func *func, const char *fname, const struct spec_path *p,
		      struct plan_path *out)
{
	struct func_plan *plan = calloc(1, sizeof(*plan));
	struct plan_value pv = {};
	struct resolver r;
	struct loc l = {};
	int err;

	if (!plan) {
		p_err("%s: out of memory", p->text);
		return -ENOMEM;
	}
	/* The resolver reads only the name and the function from its plan. */
	plan->name = (char *)fname;
	plan->func = *func;
	r = (struct resolver){ .plan = plan, .btf = func->btf, .what = p->text };
	memset(out, 0, sizeof(*out));
	err = resolve_base(&r, p, &l, &out->v, &pv) ?: walk_steps(&r, p, &l, &out->v);
	free(plan);
	if (err)
		return err;
	out->btf = func->btf;
	out->type_id = l.type_id;
	out->in_memory = l.in_memory;
	out->off = l.off;
	out->bit_off = l.bit_off;
	out->bit_size = l.bit_size;
	return 0;
}
