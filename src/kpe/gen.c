// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop specs -> tracefs kprobe_events (or fprobe) lines, with member
 * offsets and types resolved from BTF the way perf probe resolves them
 * from DWARF. For systems where BPF is not allowed but tracefs is:
 *
 *   ip_send_skb(skb->len)
 *   -> p:ksnoop/ip_send_skb ip_send_skb skb_len=+112(%si):u32
 *
 * Each spec is planned exactly as `ksnoop trace` plans it (plan.c); entry
 * values go to a p: line, return values to an r: line, and predicates to a
 * "# filter" comment line (kprobe_events ignores '#' lines).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/archinfo.h"
#include "kpe/compile.h"
#include "kpe/gen.h"
#include "lib/json_writer.h"
#include "trace/plan.h"
#include "trace/spec.h"
#include "lib/util.h"

/* Reserved by tracefs, so never used as argument names. */
static const char *const reserved[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", "__probe_ip",   "__probe_ret_ip",       "__probe_func",
};

static bool name_taken(char names[][KPE_MAX_ARG_NAME + 1], int n, const char *name)
{
	size_t r;
	int i;

	for (r = 0; r < ARRAY_SIZE(reserved); r++) {
		if (!strcmp(name, reserved[r]))
			return true;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], name))
			return true;
	}
	return false;
}

/* "skb->sk->__sk_common.skc_daddr" -> "skb_sk___sk_common_skc_daddr", unique. */
static void field_name(const char *path, char names[][KPE_MAX_ARG_NAME + 1], int n)
{
	char *out = names[n], base[KPE_MAX_ARG_NAME + 1];
	int len = 0, k;
	const char *s;

	if (!strcmp(path, "return"))
		path = "ret";
	for (s = path; *s && len < KPE_MAX_ARG_NAME; s++) {
		if (isalnum((unsigned char)*s) || *s == '_')
			out[len++] = *s;
		else if (len && out[len - 1] != '_')
			out[len++] = '_';
	}
	while (len && out[len - 1] == '_')
		len--;
	out[len] = '\0';
	if (!len || isdigit((unsigned char)out[0]))
		len = snprintf(out, KPE_MAX_ARG_NAME + 1, "arg%d", n + 1);
	memcpy(base, out, len + 1);
	for (k = 1; name_taken(names, n, out) && k < 1000; k++)
		snprintf(out, KPE_MAX_ARG_NAME + 1, "%.*s_%d", KPE_MAX_ARG_NAME - 4, base, k);
}

/* Argument idx (0-based) where a kprobe at the function entry finds it. */
static void gen_arg(struct strbuf *sb, int idx, bool fprobe)
{
	const struct arch *a = arch_native();
	const char *reg = arch_arg_reg(a, idx);

	if (fprobe || !reg)
		sb_printf(sb, "$arg%d", idx + 1);
	else
		sb_printf(sb, "%%%s", reg);
}

static void wrap_load(struct strbuf *sb, long long off)
{
	struct strbuf inner;

	sb_init(&inner);
	sb_printf(&inner, "%s%lld(%s)", off < 0 ? "" : "+", off, sb_str(sb));
	sb_reset(sb);
	sb_printf(sb, "%s", sb_str(&inner));
	sb_free(&inner);
}

/* The kprobe_events type of a value, or -1 if it has none. */
static int value_type(const struct plan_value *pv, struct kpe_type *t, char *buf, size_t size)
{
	if (pv->bit_size) {
		int cont = 1;

		while (cont * 8 < pv->bit_off + pv->bit_size)
			cont *= 2;
		memset(t, 0, sizeof(*t));
		t->kind = KPE_T_BITFIELD;
		t->size = cont;
		t->bf_width = pv->bit_size;
		t->bf_off = pv->bit_off;
	} else if (pv->show == SHOW_STRING) {
		memset(t, 0, sizeof(*t));
		t->kind = KPE_T_STRING;
	} else if (pv->show == SHOW_PTR_DUMP) {
		memset(t, 0, sizeof(*t));
		t->kind = KPE_T_X;
		t->size = 8;
	} else if (kpe_type_from_btf(pv->btf, pv->type_id, t)) {
		return -1;
	}
	kpe_type_str(t, buf, size);
	return 0;
}

/*
 * A plan value as a fetch argument: the base, a +OFF(...) per pointer
 * load, then the final read. A struct shown through a pointer is fetched
 * as the pointer; kprobe_events cannot dump structs.
 */
static int gen_fetch(struct strbuf *sb, const struct ksnoop_value *v, const struct plan_value *pv,
		     bool fprobe)
{
	char type[32];
	struct kpe_type t;
	int i;

	if (v->base == KSNOOP_BASE_COMM) {
		sb_printf(sb, "$comm");
		return 0;
	}
	if (v->base == KSNOOP_BASE_CURRENT) {
		p_err("%s: kprobe_events has no fetch argument for the current task", pv->name);
		return -EINVAL;
	}
	if (v->base == KSNOOP_BASE_RET)
		sb_printf(sb, "$retval");
	else
		gen_arg(sb, v->arg, fprobe);
	if (value_type(pv, &t, type, sizeof(type))) {
		p_err("%s: kprobe_events cannot fetch a value of this type; name a member or a pointer",
		      pv->name);
		return -EINVAL;
	}
	for (i = 0; i < v->nr_steps; i++)
		wrap_load(sb, v->offs[i]);
	/* A string is read at the final address; a scalar from it. */
	if ((v->flags & KSNOOP_V_READ) && pv->show != SHOW_PTR_DUMP)
		wrap_load(sb, v->final_off);
	sb_printf(sb, ":%s", type);
	return 0;
}

struct gen_event {
	struct strbuf line;
	struct strbuf filter;
	int nr_args;
};

/* Filter text for a predicate tree, in the kernel's event filter syntax. */
static int gen_filter(struct strbuf *sb, const struct spec_pred *sp, const struct func_plan *plan,
		      char names[][KPE_MAX_ARG_NAME + 1], __u32 *entry_mask)
{
	__u32 i;

	if (sp->kind != PRED_CMP) {
		sb_putc(sb, '(');
		if (gen_filter(sb, sp->left, plan, names, entry_mask))
			return -EINVAL;
		sb_printf(sb, " %s ", sp->kind == PRED_AND ? "&&" : "||");
		if (gen_filter(sb, sp->right, plan, names, entry_mask))
			return -EINVAL;
		sb_putc(sb, ')');
		return 0;
	}
	for (i = 0; i < plan->cfg.nr_values; i++) {
		if (!strcmp(plan->values[i].name, sp->path.text))
			break;
	}
	if (i == plan->cfg.nr_values)
		return -ENOENT;
	*entry_mask |= (plan->cfg.values[i].flags & KSNOOP_V_ENTRY) ? 1 : 2;
	if (sp->is_string)
		sb_printf(sb, "%s %s \"%s\"", names[i],
			  strpbrk(sp->str, "*?") ? (sp->op == CMP_EQ ? "~" : "!~")
						 : spec_cmp_str(sp->op),
			  sp->str);
	else
		sb_printf(sb, "%s %s %s%llu", names[i], spec_cmp_str(sp->op),
			  sp->negative ? "-" : "", sp->value);
	return 0;
}

static void gen_filters(const struct spec *spec, const struct func_plan *plan,
			char names[][KPE_MAX_ARG_NAME + 1], struct gen_event ev[2])
{
	struct strbuf f;
	__u32 mask = 0;
	int i;

	sb_init(&f);
	for (i = 0; i < spec->nr_items; i++) {
		if (!spec->items[i].is_pred)
			continue;
		if (f.len)
			sb_printf(&f, " && ");
		if (gen_filter(&f, spec->items[i].pred, plan, names, &mask))
			mask = 3;
	}
	if (mask == 1 || mask == 2)
		sb_printf(&ev[mask == 1 ? 0 : 1].filter, "%s", sb_str(&f));
	else if (mask == 3)
		p_warn("%s: a filter on both entry and return values cannot be expressed in kprobe_events; none written",
		       plan->name);
	sb_free(&f);
}

/* "sym", or "sym_2"... when an earlier spec of this run took it. */
static void event_name(const struct kpe_gen_opts *o, const char *sym, char *buf, size_t size)
{
	char key[KPE_MAX_EVENT_NAME + 8];
	int n;

	snprintf(buf, size, "%s", sym);
	if (!o->used)
		return;
	for (n = 2; n < 1000; n++) {
		snprintf(key, sizeof(key), "\n%s\n", buf);
		if (!strstr(sb_str(o->used), key))
			break;
		snprintf(buf, size, "%.*s_%d", KPE_MAX_EVENT_NAME - 8, sym, n);
	}
	if (!o->used->len)
		sb_putc(o->used, '\n');
	sb_printf(o->used, "%s\n", buf);
}

/* One event as NDJSON: its definition, the file it goes to, its filter. */
static void emit_json(const struct kpe_gen_opts *o, const char *spec, const char *event,
		      const struct strbuf *def, const struct strbuf *filter, FILE *out)
{
	struct strbuf sb;
	struct jw w;

	sb_init(&sb);
	jw_init(&w, &sb);
	jw_object(&w);
	jw_kstr(&w, "spec", spec);
	jw_kstr(&w, "event", event);
	jw_kstr(&w, "definition", sb_str(def));
	jw_kstr(&w, "file", o->fprobe ? "dynamic_events" : "kprobe_events");
	jw_kstr(&w, "filter", filter->len ? sb_str(filter) : NULL);
	jw_end(&w);
	fprintf(out, "%s\n", sb_str(&sb));
	sb_free(&sb);
}

static void emit_lines(const struct kpe_gen_opts *o, const char *spec, const struct func_plan *plan,
		       struct gen_event ev[2], FILE *out)
{
	const char *sym = plan->attach_name;
	char name[KPE_MAX_EVENT_NAME + 1];
	struct strbuf def, event;
	int i;

	event_name(o, sym, name, sizeof(name));
	sb_init(&def);
	sb_init(&event);
	for (i = 0; i < 2; i++) {
		bool ret = i == 1;

		/* ksnoop trace shows a bare function's calls even without values */
		if (!ev[i].nr_args && !plan->bare && (ret || plan->cfg.nr_values))
			continue;
		sb_reset(&def);
		sb_reset(&event);
		sb_printf(&event, "%s/%s%s", o->group, name, ret ? "_ret" : "");
		if (o->fprobe)
			sb_printf(&def, "f:%s %s%s%s", sb_str(&event), sym, ret ? "%return" : "",
				  sb_str(&ev[i].line));
		else
			sb_printf(&def, "%c:%s %s%s", ret ? 'r' : 'p', sb_str(&event), sym,
				  sb_str(&ev[i].line));
		if (o->json) {
			emit_json(o, spec, sb_str(&event), &def, &ev[i].filter, out);
			continue;
		}
		fprintf(out, "%s\n", sb_str(&def));
		if (ev[i].filter.len)
			fprintf(out, "# echo '%s' > events/%s/filter\n", sb_str(&ev[i].filter),
				sb_str(&event));
	}
	sb_free(&event);
	sb_free(&def);
}

int kpe_gen_spec(const struct kpe_gen_opts *o, struct kbtf *kb, const char *text, FILE *out)
{
	char(*names)[KPE_MAX_ARG_NAME + 1] = NULL;
	struct plan_opts popts = {};
	struct gen_event ev[2];
	struct strbuf fetch;
	struct spec_error serr;
	struct func_plan *plan;
	struct spec spec;
	__u32 i;
	int err;

	if (spec_parse(text, &spec, &serr)) {
		char clip[CLIP_BUF];

		p_err("invalid function spec '%s': %s at offset %d", str_clip(text, clip), serr.msg,
		      serr.pos);
		return -EINVAL;
	}
	sb_init(&fetch);
	plan = calloc(1, sizeof(*plan));
	names = calloc(KSNOOP_MAX_VALUES, sizeof(*names));
	for (i = 0; i < 2; i++) {
		sb_init(&ev[i].line);
		sb_init(&ev[i].filter);
		ev[i].nr_args = 0;
	}
	err = plan && names ? plan_build(kb, &spec, &popts, plan) : -ENOMEM;
	for (i = 0; !err && i < plan->cfg.nr_values; i++) {
		const struct ksnoop_value *v = &plan->cfg.values[i];
		struct gen_event *e = &ev[(v->flags & KSNOOP_V_ENTRY) ? 0 : 1];

		field_name(plan->values[i].name, names, i);
		sb_reset(&fetch);
		err = gen_fetch(&fetch, v, &plan->values[i], o->fprobe);
		sb_printf(&e->line, " %s=%s", names[i], sb_str(&fetch));
		e->nr_args++;
	}
	if (!err) {
		gen_filters(&spec, plan, names, ev);
		emit_lines(o, text, plan, ev, out);
	}
	for (i = 0; i < 2; i++) {
		sb_free(&ev[i].line);
		sb_free(&ev[i].filter);
	}
	sb_free(&fetch);
	if (plan)
		plan_free(plan);
	free(plan);
	free(names);
	spec_free(&spec);
	return err;
}
