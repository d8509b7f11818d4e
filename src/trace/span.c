// SPDX-License-Identifier: GPL-2.0
/* Spans: FROM and TO plans, tied by their first value, or a tuple of them. */
#include <errno.h>
#include <string.h>

#include "trace/span.h"
#include "trace/spec.h"
#include "lib/kbtf.h"
#include "lib/util.h"

_Static_assert(SPEC_MAX_TUPLE == KSNOOP_SPAN_KEY_MAX, "a tuple the spans map can key by");

enum key_kind { KEY_NONE, KEY_POINTER, KEY_INTEGER };

static const char *const key_names[] = { "no key", "a pointer", "an integer" };

static bool is_pointer(const struct plan_value *pv)
{
	const struct btf_type *t = btf__type_by_id(pv->btf, btf_skip_mods(pv->btf, pv->type_id));

	return t && btf_is_ptr(t);
}

/*
 * Value i of p's key: a struct shown through its pointer keys by the
 * pointer, read no further, as pointers do (the whole word); an integer (a
 * register, or the bytes read at a member) by its own bytes.
 */
static enum key_kind key_item(struct func_plan *p, int i)
{
	struct ksnoop_value *v = &p->cfg.values[i];
	struct plan_value *pv = &p->values[i];
	__u8 *width = &p->cfg.span_key_width[i];

	if (pv->show == SHOW_PTR_DUMP) {
		plan_show_address(p, i);
		*width = 8;
		return KEY_POINTER;
	}
	if (pv->show == SHOW_STRING || pv->bit_size || v->size > 8 ||
	    ((v->flags & KSNOOP_V_READ) && !v->size)) {
		p_err("%s: %s cannot key a span: a pointer or an integer can", p->name, pv->name);
		return KEY_NONE;
	}
	/* a register's value has no read size: its type's says which bytes count */
	*width = is_pointer(pv) ? 8 : pv->full_size;
	return is_pointer(pv) ? KEY_POINTER : KEY_INTEGER;
}

/* Into kinds[], what each value of p's key is; how many, or -EINVAL. */
static int key_kinds(struct func_plan *p, enum key_kind kinds[KSNOOP_SPAN_KEY_MAX])
{
	int i;

	if (p->cfg.nr_values < (__u32)p->key_items || p->values[0].hidden) {
		p_err("%s: a span needs a key, the spec's first value: '%s(rq)', '%s(sk)'", p->name,
		      p->name, p->name);
		return -EINVAL;
	}
	for (i = 0; i < p->key_items; i++) {
		if (!(p->cfg.values[i].flags & KSNOOP_V_ENTRY) ||
		    p->cfg.emit != KSNOOP_EMIT_ENTRY) {
			p_err("%s: spans start and end at a function's entry: its values cannot "
			      "include the return",
			      p->name);
			return -EINVAL;
		}
		kinds[i] = key_item(p, i);
		if (kinds[i] == KEY_NONE)
			return -EINVAL;
	}
	return p->key_items;
}

int span_check_args(const struct span_opts *o, int argc, const char *cmd)
{
	if (argc) {
		p_err("%s --from/--to takes no FUNC arguments: each end's spec goes after "
		      "--from or --to",
		      cmd);
		return -EINVAL;
	}
	if (!o->nr_from || !o->nr_to) {
		p_err("a span needs both ends: --from SPEC and --to SPEC");
		return -EINVAL;
	}
	return 0;
}

int span_plan(struct session *s, const struct span_opts *o, const struct plan_opts *po)
{
	struct plan_opts from_po = *po, to_po;
	int err;

	from_po.span = true;
	to_po = from_po;
	to_po.comm = NULL;
	err = session__plan(s, o->nr_from, (char **)o->from, &from_po)
		      ?: session__plan(s, o->nr_to, (char **)o->to, &to_po);
	return err ?: span_mark_plans(s, o->nr_from);
}

/* Whether p's key can equal the first plan's: as many values, of the same kinds. */
static int key_matches(const struct func_plan *p, const enum key_kind *kinds, int n,
		       const struct func_plan *first, const enum key_kind *first_kinds, int first_n)
{
	int i;

	if (n != first_n) {
		p_err("%s: its key has %d value%s, %s's %d: they never match", p->name, n,
		      n == 1 ? "" : "s", first->name, first_n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (kinds[i] == first_kinds[i])
			continue;
		p_err("%s: its key %s is %s, %s's %s: they never match", p->name, p->values[i].name,
		      key_names[kinds[i]], first->name, key_names[first_kinds[i]]);
		return -EINVAL;
	}
	return 0;
}

int span_mark_plans(struct session *s, int nr_from)
{
	enum key_kind kinds[KSNOOP_SPAN_KEY_MAX], first_kinds[KSNOOP_SPAN_KEY_MAX];
	int i, n, first_n = 0;

	s->span_from = nr_from;
	for (i = 0; i < s->nr; i++) {
		struct func_plan *p = &s->plans[i];
		bool from = p->spec_idx < nr_from;

		p->cfg.flags |= from ? KSNOOP_CFG_SPAN_FROM
				     : KSNOOP_CFG_SPAN_TO | KSNOOP_CFG_ANY_TASK;
		n = key_kinds(p, i ? kinds : first_kinds);
		if (n < 0)
			return n;
		if (!i)
			first_n = n;
		else if (key_matches(p, kinds, n, &s->plans[0], first_kinds, first_n))
			return -EINVAL;
	}
	return 0;
}
