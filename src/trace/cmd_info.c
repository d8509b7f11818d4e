// SPDX-License-Identifier: GPL-2.0
/* ksnoop info FUNC...: prototypes from kernel (or --btf) BTF. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "env.h"
#include "lib/json_writer.h"
#include "lib/kbtf.h"
#include "lib/ksyms.h"
#include "lib/udwarf.h"
#include "trace/spec.h"
#include "trace/target.h"
#include "trace/tpoint.h"
#include "trace/ufunc.h"

static void print_note(const char *name, const struct kbtf_func *f, int i, int n,
		       const struct func_plan *plan)
{
	enum spec_target target = plan->target;
	const char *btf_name =
		btf__name_by_offset(f->btf, btf__type_by_id(f->btf, f->id)->name_off);
	const char *bare = strchr(name, ':') ? strchr(name, ':') + 1 : name;
	bool clone = target != SPEC_TRACEPOINT && strcmp(bare, btf_name) != 0;

	if (!f->module && n == 1 && !clone && target != SPEC_TRACEPOINT)
		return;
	printf(" /*");
	if (plan->tp.syscall)
		printf(" tracepoint: raw_syscalls' %s, of this call's number;", plan->attach_name);
	else if (target == SPEC_TRACEPOINT)
		printf(" tracepoint, through %s;", btf_name);
	if (f->module)
		printf(" module %s;", f->module);
	if (n > 1)
		printf(" BTF entry %d of %d named %s (static functions in several files);", i + 1,
		       n, btf_name);
	if (clone)
		printf(" %s is a compiler clone of %s, its arguments may differ;", bare, btf_name);
	printf(" */");
}

/* A type as C names it: "struct sk_buff *", "void". */
static void json_type(struct jw *w, const struct btf *btf, __u32 id, struct strbuf *tmp)
{
	sb_reset(tmp);
	if (kbtf_format_decl(btf, id, NULL, tmp))
		jw_null(w);
	else
		jw_str(w, sb_str(tmp));
}

static void json_params(struct jw *w, const struct kbtf_func *f, int first, struct strbuf *tmp)
{
	const struct btf_param *params;
	bool variadic = false;
	int i, n;

	n = kbtf_func_params(f->btf, f->id, &params, &variadic);
	jw_key(w, "args");
	jw_array(w);
	for (i = first; i < n; i++) {
		jw_object(w);
		jw_kstr(w, "name", btf__name_by_offset(f->btf, params[i].name_off));
		jw_key(w, "type");
		json_type(w, f->btf, params[i].type, tmp);
		jw_end(w);
	}
	jw_end(w);
	jw_kbool(w, "variadic", variadic);
}

/* One BTF match of name as an NDJSON line; proto is its prototype. */
static void print_json(const char *name, const struct kbtf_func *f, int i, int n, int first,
		       const char *proto)
{
	const struct btf_type *fn = btf__type_by_id(f->btf, f->id);
	const struct btf_type *fp = btf__type_by_id(f->btf, fn->type);
	struct strbuf sb, tmp;
	struct jw w;

	sb_init(&sb);
	sb_init(&tmp);
	jw_init(&w, &sb);
	jw_object(&w);
	jw_kstr(&w, "function", name);
	jw_kstr(&w, "btf_name", btf__name_by_offset(f->btf, fn->name_off));
	jw_kstr(&w, "module", f->module);
	jw_kstr(&w, "prototype", proto);
	jw_key(&w, "return");
	json_type(&w, f->btf, fp->type, &tmp);
	json_params(&w, f, first, &tmp);
	jw_kint(&w, "btf_entry", i + 1);
	jw_kint(&w, "btf_entries", n);
	jw_end(&w);
	printf("%s\n", sb_str(&sb));
	sb_free(&tmp);
	sb_free(&sb);
}

/* A user function's prototype, as its spec, DWARF or arg0.. give it: funcs[0]. */
static int find_user(struct kbtf *kb, const struct spec *spec, int pid, struct func_plan *plan,
		     struct kbtf_func *funcs)
{
	int err = ufunc_plan(kb, spec, pid, plan);

	funcs[0] = plan->func;
	return err ?: 1;
}

/* A tracepoint's stub, whose parameters past __data are the tracepoint's: funcs[0]. */
static int find_tracepoint(struct kbtf *kb, const struct spec *spec, struct func_plan *plan,
			   struct kbtf_func *funcs)
{
	int err = tpoint_plan(kb, spec, plan);

	funcs[0] = plan->func;
	return err ?: 1;
}

/*
 * A kernel function BTF leaves out but kallsyms has (only its compiler
 * clone, often): no prototype, but trace can still reach it (plan.h's
 * no_btf). Said, if so.
 */
static bool report_without_btf(const char *func)
{
	struct ksyms *ks = strchr(func, ':') ? NULL : ksyms__load();
	const char *sym = NULL;

	if (ks)
		sym = ksyms__symbol_or_clone(ks, func);
	if (sym)
		p_err("function '%s' has no BTF, so no prototype: kallsyms has it as %s, which "
		      "trace, count and hist trace by kprobe, reading current and comm only",
		      func, sym);
	ksyms__free(ks);
	return sym != NULL;
}

static int find_funcs(struct kbtf *kb, const struct spec *spec, const struct env *env,
		      struct func_plan *plan, struct kbtf_func *funcs)
{
	int n;

	if (spec->target == SPEC_USER)
		return find_user(kb, spec, env->nr_pids == 1 ? env->pids[0] : 0, plan, funcs);
	if (spec->target == SPEC_TRACEPOINT)
		return find_tracepoint(kb, spec, plan, funcs);
	n = kbtf__find_funcs(kb, spec->func, funcs, KBTF_MAX_MATCHES);
	/* a damaged module BTF's error is said when it was loaded; --btf's kernel is not this one */
	if (n == 0 && !env->btf_path && report_without_btf(spec->func))
		return -ENOENT;
	if (n <= 0 && n != -EBADMSG)
		kbtf__report_unknown(kb, spec->func);
	return n ?: -ENOENT;
}

static int info_one(struct kbtf *kb, const char *arg, const struct env *env)
{
	struct kbtf_func funcs[KBTF_MAX_MATCHES];
	struct func_plan plan = {};
	char clip[CLIP_BUF];
	struct spec_error serr;
	struct strbuf sb;
	struct spec spec;
	int i, n, first, err = 0;
	const char *name;

	if (spec_parse(arg, &spec, &serr)) {
		p_err("invalid function '%s': %s at offset %d", str_clip(arg, clip), serr.msg,
		      serr.pos);
		return -EINVAL;
	}
	spec.target = target_classify(spec.func);
	n = find_funcs(kb, &spec, env, &plan, funcs);
	if (n < 0) {
		plan_free(&plan);
		spec_free(&spec);
		return n;
	}
	first = plan_first_param(&plan);
	/* a tracepoint by its event's name: "sched_switch", "sys_enter_openat" */
	name = plan_is_tracepoint(&plan) ? strrchr(spec.func, ':') + 1 : NULL;
	sb_init(&sb);
	for (i = 0; i < n && !err; i++) {
		sb_reset(&sb);
		err = kbtf_format_proto_from(funcs[i].btf, funcs[i].id, name, first, &sb);
		if (err) {
			p_err("cannot format the prototype of '%s': %s", spec.func, strerror(-err));
			break;
		}
		if (util_json()) {
			print_json(spec.func, &funcs[i], i, n, first, sb_str(&sb));
			continue;
		}
		printf("%s;", sb_str(&sb));
		print_note(spec.func, &funcs[i], i, n, &plan);
		printf("\n");
	}
	sb_free(&sb);
	plan_free(&plan);
	spec_free(&spec);
	return err;
}

int cmd_info(struct env *env, int argc, char **argv)
{
	struct kbtf *kb;
	int i, err = 0;

	if (argc < 1) {
		p_err("info needs at least one function name");
		return -EINVAL;
	}
	kb = kbtf__open(env->btf_path);
	if (!kb)
		return -ENOENT;
	for (i = 0; i < argc; i++) {
		if (info_one(kb, argv[i], env))
			err = -ENOENT;
	}
	udwarf_forget(); /* the last user function's DWARF, kept for the next */
	kbtf__free(kb);
	return err;
}
