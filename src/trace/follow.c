// SPDX-License-Identifier: GPL-2.0
/* trace --follow: the start's plan, then the functions its object goes through. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/follow.h"
#include "lib/kbtf.h"
#include "lib/util.h"

/* Arguments in registers on x86-64 and arm64 alike, at entry and in a kretprobe's frame. */
#define FOLLOW_REG_ARGS 6

/* Where the kernel lets an skb go: the address may be another skb's next. */
static const char *const skb_ends[] = {
	"kfree_skb",	    "kfree_skb_reason",	 "sk_skb_reason_drop",	    "__kfree_skb",
	"kfree_skbmem",	    "consume_skb",	 "__consume_stateless_skb", "napi_consume_skb",
	"__napi_kfree_skb", "kfree_skb_partial", "skb_attempt_defer_free",
};

/*
 * Functions whose return, a pointer to the type, is a copy of the object
 * they take: followed too. Others return other objects of the type (the
 * SYN-ACK tcp_make_synack makes for a SYN).
 */
static const char *const copy_globs[] = {
	"*clone*", "*copy*", "*split*", "*segment*", "skb_realloc_headroom", "skb_expand_head",
};

/* The type followed: vmlinux's id, which modules' split BTF shares. */
struct object_type {
	__u32 id;
	const char *name;
};

static bool in_globs(const char *const *globs, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!fnmatch(globs[i], name, 0))
			return true;
	}
	return false;
}

static bool is_end(const struct follow_opts *o, const struct object_type *ot, const char *name)
{
	size_t i;

	if (o->nr_end)
		return in_globs(o->end, o->nr_end, name);
	if (strcmp(ot->name, "sk_buff"))
		return false;
	for (i = 0; i < ARRAY_SIZE(skb_ends); i++) {
		if (!strcmp(skb_ends[i], name))
			return true;
	}
	return false;
}

/* The first register argument that points to type, or -1. */
static int object_arg(const struct btf *btf, __u32 func_id, __u32 type)
{
	const struct btf_param *params;
	bool variadic;
	int i, n = kbtf_func_params(btf, func_id, &params, &variadic);

	for (i = 0; i < n && i < FOLLOW_REG_ARGS; i++) {
		const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, params[i].type));

		if (t && btf_is_ptr(t) && btf_skip_mods(btf, t->type) == type)
			return i;
	}
	return -1;
}

/* The start's parameter o->param: a pointer to a struct or union, in a register. */
static int start_arg(const struct func_plan *p, const char *param, struct object_type *ot)
{
	const struct btf *btf = p->func.btf;
	const struct btf_param *params;
	const struct btf_type *t;
	bool variadic;
	int i, n = kbtf_func_params(btf, p->func.id, &params, &variadic);

	for (i = 0; i < n; i++) {
		if (!strcmp(btf__name_by_offset(btf, params[i].name_off), param))
			break;
	}
	if (i == n) {
		p_err("--follow %s: %s has no parameter %s", param, p->name, param);
		return -ENOENT;
	}
	t = btf__type_by_id(btf, btf_skip_mods(btf, params[i].type));
	ot->id = t && btf_is_ptr(t) ? btf_skip_mods(btf, t->type) : 0;
	t = btf__type_by_id(btf, ot->id);
	if (!ot->id || !t || !(btf_is_struct(t) || btf_is_union(t)) || !t->name_off) {
		p_err("--follow %s: a pointer to a named struct or union can be followed; %s's "
		      "%s is not one",
		      param, p->name, param);
		return -EINVAL;
	}
	if (i >= FOLLOW_REG_ARGS) {
		p_err("--follow %s: %s's %s is its argument %d; the first %d can be followed",
		      param, p->name, param, i + 1, FOLLOW_REG_ARGS);
		return -EINVAL;
	}
	ot->name = btf__name_by_offset(btf, t->name_off);
	return i;
}

/* Appends the names of btf's functions from id first on that take the type. */
static int collect_from(const struct btf *btf, __u32 first, const struct follow_opts *o,
			const struct object_type *ot, const char *start, const char ***names,
			size_t *cap, size_t *n)
{
	__u32 id, cnt = btf__type_cnt(btf);

	for (id = first; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!strcmp(name, start) || object_arg(btf, id, ot->id) < 0)
			continue;
		if (o->nr_in && !in_globs(o->in, o->nr_in, name) && !is_end(o, ot, name))
			continue;
		*names = names_push(*names, cap, (*n)++, name);
		if (!*names)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The names of the functions taking the type, in vmlinux and the loaded
 * modules, sorted and unique. A module's name is looked up in vmlinux
 * first when planned: a namesake there that takes no such object drops it.
 */
static int collect(struct session *s, const struct follow_opts *o, const struct object_type *ot,
		   const char *start, const char ***out)
{
	const struct btf *btf = kbtf__vmlinux(s->kb), *mod;
	__u32 first = btf__type_cnt(btf);
	const char **names = NULL;
	size_t cap = 0, n = 0;
	int i, nr_mods = kbtf__nr_modules(s->kb), err;

	err = collect_from(btf, 1, o, ot, start, &names, &cap, &n);
	for (i = 0; i < nr_mods && !err; i++) {
		mod = kbtf__module(s->kb, i, NULL);
		if (mod)
			err = collect_from(mod, first, o, ot, start, &names, &cap, &n);
	}
	if (err) {
		free(names);
		return err;
	}
	*out = names;
	return names_sort_unique(names, n);
}

/*
 * Each followed plan: the argument its object is in. A name whose first
 * BTF entry (a static function's namesake) takes no such object goes, and
 * so does a compiler clone: its arguments need not be where BTF says.
 */
static void mark_followed(struct session *s, const struct follow_opts *o,
			  const struct object_type *ot)
{
	int i, kept = 1, arg;

	for (i = 1; i < s->nr; i++) {
		struct func_plan *p = &s->plans[i];

		arg = object_arg(p->func.btf, p->func.id, ot->id);
		if (arg < 0 || strcmp(p->attach_name, p->name)) {
			plan_free(p);
			continue;
		}
		p->cfg.follow_arg = arg;
		p->cfg.flags |= KSNOOP_CFG_FOLLOWED | KSNOOP_CFG_ANY_TASK;
		if (is_end(o, ot, p->attach_name))
			p->cfg.flags |= KSNOOP_CFG_FOLLOW_END;
		if (p->cfg.emit & KSNOOP_EMIT_COMBINED)
			p->cfg.flags |= KSNOOP_CFG_FOLLOW_CLONE;
		if (kept != i)
			s->plans[kept] = *p;
		kept++;
	}
	s->nr = kept;
}

static int check_start(struct session *s, const char *param)
{
	struct func_plan *p = &s->plans[0];

	if (s->nr != 1) {
		p_err("--follow %s starts at one function, not a pattern", param);
		return -EINVAL;
	}
	if (p->cfg.emit != KSNOOP_EMIT_ENTRY) {
		p_err("--follow %s starts at %s's entry: its values cannot include the return",
		      param, p->name);
		return -EINVAL;
	}
	return 0;
}

/* Moves the names copy_globs matches first; how many. */
static int partition_copies(const char **names, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		const char *name = names[i];

		if (!in_globs(copy_globs, ARRAY_SIZE(copy_globs), name))
			continue;
		names[i] = names[k];
		names[k++] = name;
	}
	return k;
}

static int plan_followers(struct session *s, const struct follow_opts *o,
			  const struct object_type *ot, const struct plan_opts *po)
{
	struct plan_opts fpo = *po;
	const char **names = NULL;
	char what[160];
	int n, added, copies, more;

	n = collect(s, o, ot, s->plans[0].attach_name, &names);
	if (n < 0)
		return n;
	fpo.comm = NULL;
	fpo.follow = true;
	fpo.frames = false; /* entry events alone: no return program on thousands */
	snprintf(what, sizeof(what), "struct %s *", ot->name);
	copies = partition_copies(names, n);
	added = session__plan_funcs(s, what, names + copies, n - copies, &fpo);
	fpo.follow_copies = ot->id;
	if (added >= 0 && copies) {
		snprintf(what, sizeof(what), "copies of struct %s *", ot->name);
		more = session__plan_funcs(s, what, names, copies, &fpo);
		added = more < 0 ? more : added + more;
	}
	free(names);
	if (added == -E2BIG)
		p_err("--follow %s: more than %d functions take struct %s *; narrow them with "
		      "--follow-in",
		      o->param, KSNOOP_MAX_FUNCS - 1, ot->name);
	else if (!added)
		p_err("--follow %s: no traceable function %stakes struct %s *", o->param,
		      o->nr_in ? "--follow-in names " : "", ot->name);
	return added < 0 ? added : added ? 0 : -ENOENT;
}

/* Whether a spec's list shows param itself. */
static bool lists_param(const struct spec *sp, const char *param)
{
	int i;

	for (i = 0; i < sp->nr_items; i++) {
		const struct spec_path *p = &sp->items[i].path;

		if (!sp->items[i].is_pred && !p->nr_steps && !p->cast && !strcmp(p->base, param))
			return true;
	}
	return false;
}

/*
 * The start's spec, its list led by the object, so that its line names
 * the address the lines after it follow: "f(skb->len > 100)" becomes
 * "f(skb, skb->len > 100)". NULL when memory is short; a spec that does
 * not parse is left for session__plan to report.
 */
static char *start_text(const char *text, const char *param)
{
	struct spec_error serr;
	const char *open, *rest;
	struct spec sp;
	bool keep;
	char *out;

	if (spec_parse(text, &sp, &serr))
		return strdup(text);
	keep = !sp.has_list || lists_param(&sp, param);
	spec_free(&sp);
	open = strchr(text, '(');
	if (keep || !open)
		return strdup(text);
	rest = open + 1 + strspn(open + 1, " \t");
	if (asprintf(&out, "%.*s%s%s%s", (int)(open + 1 - text), text, param,
		     *rest == ')' ? "" : ", ", rest) < 0)
		return NULL;
	return out;
}

int follow_plan(struct session *s, const struct follow_opts *o, int argc, char **argv,
		const struct plan_opts *po)
{
	struct plan_opts start_po = *po;
	struct object_type ot;
	char *text;
	int arg, err;

	if (argc != 1) {
		p_err("--follow %s takes one SPEC: the function where the object is first seen",
		      o->param);
		return -EINVAL;
	}
	start_po.follow = true;
	text = start_text(argv[0], o->param);
	if (!text)
		return -ENOMEM;
	err = session__plan(s, 1, &text, &start_po) ?: check_start(s, o->param);
	free(text);
	if (err)
		return err;
	arg = start_arg(&s->plans[0], o->param, &ot);
	if (arg < 0)
		return arg;
	s->plans[0].cfg.follow_arg = arg;
	s->plans[0].cfg.flags |= KSNOOP_CFG_FOLLOW_START;
	err = plan_followers(s, o, &ot, po);
	if (err)
		return err;
	mark_followed(s, o, &ot);
	p_dbg("--follow %s: struct %s * through %d functions", o->param, ot.name, s->nr - 1);
	return 0;
}
