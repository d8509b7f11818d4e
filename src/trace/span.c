// SPDX-License-Identifier: GPL-2.0
/* Spans: FROM and TO plans, tied by their first values. */
#include <errno.h>
#include <string.h>

#include "trace/span.h"
#include "lib/kbtf.h"
#include "lib/util.h"

enum key_kind { KEY_NONE, KEY_POINTER, KEY_INTEGER };

static const char *const key_names[] = { "no key", "a pointer", "an integer" };

static bool is_pointer(const struct plan_value *pv)
{
	const struct btf_type *t = btf__type_by_id(pv->btf, btf_skip_mods(pv->btf, pv->type_id));

	return t && btf_is_ptr(t);
}

/* A struct pointer key: its address, not the struct, is captured and shown. */
static void key_by_address(struct func_plan *p)
{
	plan_show_address(p, 0);
	p->cfg.flags |= KSNOOP_CFG_SPAN_KEY_RAW;
}

/*
 * A struct shown through its pointer keys by the pointer, read no further;
 * an integer (a register, or the bytes read at a member) by its value.
 */
static enum key_kind key_kind(struct func_plan *p)
{
	const struct ksnoop_value *v = &p->cfg.values[0];
	const struct plan_value *pv = &p->values[0];

	if (!p->cfg.nr_values || pv->hidden) {
		p_err("%s: a span needs a key, the spec's first value: '%s(rq)', '%s(sk)'", p->name,
		      p->name, p->name);
		return KEY_NONE;
	}
	if (!(v->flags & KSNOOP_V_ENTRY) || p->cfg.emit != KSNOOP_EMIT_ENTRY) {
		p_err("%s: spans start and end at a function's entry: its values cannot "
		      "include the return",
		      p->name);
		return KEY_NONE;
	}
	if (pv->show == SHOW_PTR_DUMP) {
		key_by_address(p);
		return KEY_POINTER;
	}
	if (pv->show == SHOW_STRING || pv->bit_size || v->size > 8 ||
	    ((v->flags & KSNOOP_V_READ) && !v->size)) {
		p_err("%s: %s cannot key a span: a pointer or an integer can", p->name, pv->name);
		return KEY_NONE;
	}
	if (is_pointer(pv)) {
		p->cfg.flags |= KSNOOP_CFG_SPAN_KEY_RAW;
		return KEY_POINTER;
	}
	return KEY_INTEGER;
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
	struct plan_opts to_po = *po;
	int err;

	to_po.comm = NULL;
	err = session__plan(s, o->nr_from, (char **)o->from, po)
		      ?: session__plan(s, o->nr_to, (char **)o->to, &to_po);
	return err ?: span_mark_plans(s, o->nr_from);
}

int span_mark_plans(struct session *s, int nr_from)
{
	enum key_kind kind, from_kind = KEY_NONE;
	int i;

	s->span_from = nr_from;
	for (i = 0; i < s->nr; i++) {
		struct func_plan *p = &s->plans[i];
		bool from = p->spec_idx < nr_from;

		p->cfg.flags |= from ? KSNOOP_CFG_SPAN_FROM
				     : KSNOOP_CFG_SPAN_TO | KSNOOP_CFG_ANY_TASK;
		kind = key_kind(p);
		if (kind == KEY_NONE)
			return -EINVAL;
		if (from_kind == KEY_NONE)
			from_kind = kind;
		if (kind != from_kind) {
			p_err("%s: its key %s is %s, %s's %s: they never match", p->name,
			      p->values[0].name, key_names[kind], s->plans[0].name,
			      key_names[from_kind]);
			return -EINVAL;
		}
	}
	return 0;
}
