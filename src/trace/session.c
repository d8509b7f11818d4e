// SPDX-License-Identifier: GPL-2.0
/* What trace, count and hist share: BTF, symbols, plans and the tracer. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/session.h"
#include "lib/btfcheck.h"
#include "lib/udwarf.h"
#include "lib/util.h"
#include "trace/target.h"
#include "trace/tpoint.h"
#include "trace/ufunc.h"

static int check_traceable(struct session *s, struct func_plan *p)
{
	const char *why, *clone;

	if (plan_is_user(p) || !plan_returns(p))
		return 0;
	why = ksyms__untraceable_reason(s->ks, p->attach_name);
	if (!why)
		return 0;
	/* GCC may have left only a clone: trace that, by kprobe. */
	clone = ksyms__has_func(s->ks, p->attach_name) ? NULL
						       : ksyms__clone_of(s->ks, p->attach_name);
	if (clone && !ksyms__untraceable_reason(s->ks, clone)) {
		free(p->attach_name);
		p->attach_name = strdup(clone);
		snprintf(p->note, sizeof(p->note),
			 "%s exists only as the compiler clone %s; its arguments may differ",
			 p->name, clone);
		return p->attach_name ? 0 : -ENOMEM;
	}
	p_err("cannot trace %s: %s", p->name, why);
	return -EINVAL;
}

static bool is_glob(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

static struct func_plan *next_plan(struct session *s)
{
	if (s->nr >= KSNOOP_MAX_FUNCS) {
		p_err("more than %d functions to trace; narrow the pattern", KSNOOP_MAX_FUNCS);
		return NULL;
	}
	if (!grow_array(&s->plans, &s->cap, s->nr, sizeof(*s->plans), 8))
		return NULL;
	memset(&s->plans[s->nr], 0, sizeof(s->plans[0]));
	return &s->plans[s->nr];
}

static int add_plan(struct session *s, const struct spec *spec, const struct plan_opts *po)
{
	struct func_plan *p = next_plan(s);
	int err;

	if (!p)
		return -E2BIG;
	/* A plan counts only once it is good: a failed one is freed here. */
	err = plan_build(s->kb, spec, po, p) ?: check_traceable(s, p);
	if (err) {
		plan_free(p);
		return err;
	}
	s->nr++;
	if (s->opts.stack_mode)
		p->cfg.chain_pos = s->nr - 1;
	/* graph: every callee counts while its task is inside ENTRY, the first */
	if (s->opts.graph)
		p->cfg.chain_pos = s->nr > 1;
	if (p->note[0])
		p_warn("%s", p->note);
	return 0;
}

/*
 * A plan for each of names that has usable BTF and can be traced. The
 * others are left out, and moved to the front of names when left is not
 * NULL (*left of them). How many were added, or -E2BIG when the session is
 * full.
 */
static int add_each(struct session *s, const struct spec *spec, const char **names, int n,
		    const struct plan_opts *po, int *left)
{
	struct plan_opts each = *po;
	struct spec one = *spec;
	int i, added = 0, out = 0;

	each.from_glob = true;
	util_mute(true);
	for (i = 0; i < n && s->nr < KSNOOP_MAX_FUNCS; i++) {
		one.func = (char *)names[i];
		if (add_plan(s, &one, &each)) {
			if (left)
				names[out++] = names[i];
			continue;
		}
		s->plans[s->nr - 1].from_glob = true;
		added++;
	}
	util_mute(false);
	if (left)
		*left = out;
	return i < n ? -E2BIG : added;
}

/* A warning line's worth of names: past it, "..." and -d for the rest. */
#define LEFT_OUT_SHOWN 120

/*
 * A pattern that matched functions ksnoop cannot trace says so, with a
 * few of them (all of them at -d): a silent gap reads as "never called".
 */
static void report_left_out(const char *glob, const char *noun, int added, const char *const *left,
			    int nr_left)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	for (i = 0; i < nr_left; i++) {
		p_dbg("'%s': left out %s", glob, left[i]);
		if (sb.len > LEFT_OUT_SHOWN)
			continue;
		sb_printf(&sb, "%s%s", i ? ", " : "", left[i]);
		if (sb.len > LEFT_OUT_SHOWN && i + 1 < nr_left)
			sb_printf(&sb, ", ... (-d names them all)");
	}
	p_warn("'%s': %d %s%s matched, %d left out (no BTF / not traceable): %s", glob, added, noun,
	       added == 1 ? "" : "s", nr_left, sb_str(&sb));
	sb_free(&sb);
}

/*
 * The functions glob matched but could not trace: those ftrace cannot
 * trace at all (untraceable, nr_un of them), which the match never
 * offered, and those without BTF (left of them at the front of names).
 */
static void report_glob_gaps(const char *glob, int added, const char *const *names, int left,
			     const char *const *untraceable, int nr_un)
{
	const char **all;

	if (!nr_un) {
		if (left)
			report_left_out(glob, "function", added, names, left);
		return;
	}
	all = malloc((size_t)(nr_un + left) * sizeof(*all));
	if (!all)
		return;
	memcpy(all, untraceable, (size_t)nr_un * sizeof(*all));
	memcpy(all + nr_un, names, (size_t)left * sizeof(*all));
	report_left_out(glob, "function", added, all, nr_un + left);
	free(all);
}

static int add_glob(struct session *s, const struct spec *spec, const struct plan_opts *po)
{
	const char **names, **untraceable;
	int n, nr_un, added, left = 0;

	/* First: it reads kallsyms, which moves the names the others hand out. */
	nr_un = ksyms__match_untraceable(s->ks, spec->func, &untraceable);
	if (nr_un < 0)
		return nr_un;
	n = ksyms__match(s->ks, spec->func, &names);
	if (n < 0) {
		free(untraceable);
		return n;
	}
	added = add_each(s, spec, names, n, po, &left);
	if (added == -E2BIG)
		p_err("'%s' matches more than %d functions; narrow the pattern", spec->func,
		      KSNOOP_MAX_FUNCS);
	else if (!added)
		p_err("no traceable function with BTF matches '%s'", spec->func);
	else
		report_glob_gaps(spec->func, added, names, left, untraceable, nr_un);
	free(untraceable);
	free(names);
	p_dbg("'%s' matched %d functions", spec->func, added);
	return added < 0 ? added : added ? 0 : -ENOENT;
}

/* "c:str*", "tp:block:*": a glob over a program's or a library's functions, or tracepoints. */
static int add_expanded_glob(struct session *s, const struct spec *spec, const struct plan_opts *po)
{
	const char *noun = spec->target == SPEC_USER ? "function" : "tracepoint";
	int n, added, left = 0, max = KSNOOP_MAX_FUNCS - s->nr;
	const char **view;
	char **names;

	n = spec->target == SPEC_USER ? ufunc_expand(spec->func, po->pid, max, &names)
				      : tpoint_expand(s->kb, spec->func, max, &names);
	if (n < 0)
		return n;
	/* add_each moves the names left out to the front: of a copy, not of those to free */
	view = malloc((n ?: 1) * sizeof(*view));
	if (!view) {
		strs_free(names, max);
		return p_err_nomem(spec->func);
	}
	memcpy(view, names, n * sizeof(*view));
	added = add_each(s, spec, view, n, po, &left);
	if (!added)
		p_err("no %s '%s' can be traced", noun, spec->func);
	else if (left)
		report_left_out(spec->func, noun, added, view, left);
	free(view);
	strs_free(names, max);
	return added < 0 ? added : added ? 0 : -ENOENT;
}

/* What a spec may not be where: -s and graph follow calls, which tracepoints make none of. */
static int check_spec_place(const struct session *s, const struct spec *spec, bool first)
{
	bool glob = is_glob(spec->func);

	if (glob && s->opts.stack_mode)
		p_err("-s chains take exact function names, not '%s'", spec->func);
	else if (glob && s->opts.graph && first)
		p_err("graph's ENTRY is one function, not '%s'; callees may be patterns",
		      spec->func);
	else if ((spec->target == SPEC_TRACEPOINT || spec->target == SPEC_PROFILE) &&
		 (s->opts.stack_mode || s->opts.graph))
		p_err("%s: %s follows calls, and a %s makes none", spec->func,
		      s->opts.graph ? "graph" : "-s",
		      spec->target == SPEC_PROFILE ? "CPU sample" : "tracepoint");
	else if (glob && spec->target == SPEC_PROFILE)
		p_err("'%s': profile takes a rate, not a pattern (profile:99)", spec->func);
	else
		return 0;
	return -EINVAL;
}

static int add_spec(struct session *s, const struct spec *spec, const struct plan_opts *po,
		    bool first)
{
	int err = check_spec_place(s, spec, first);

	if (err)
		return err;
	if (!is_glob(spec->func))
		return add_plan(s, spec, po);
	return spec->target == SPEC_KERNEL ? add_glob(s, spec, po) : add_expanded_glob(s, spec, po);
}

int session__plan_funcs(struct session *s, const char *what, const char *const *names, int n,
			const struct plan_opts *po)
{
	struct spec bare = { .func = (char *)what };
	int i, added, before = s->nr, idx = s->nr_specs;
	char **funcs = realloc(s->spec_funcs, (idx + 1) * sizeof(*funcs));

	if (!funcs)
		return -ENOMEM;
	s->spec_funcs = funcs;
	s->spec_funcs[idx] = strdup(what);
	s->nr_specs = idx + 1;
	if (!s->spec_funcs[idx])
		return -ENOMEM;
	added = add_each(s, &bare, (const char **)names, n, po, NULL);
	for (i = before; i < s->nr; i++)
		s->plans[i].spec_idx = idx;
	return added;
}

int session__plan(struct session *s, int argc, char **argv, const struct plan_opts *po)
{
	struct plan_opts popts = *po;
	struct spec_error serr;
	struct spec spec;
	int i, j, before, first = s->nr_specs, err = 0;
	char **funcs = realloc(s->spec_funcs, (first + argc) * sizeof(*funcs));

	if (!funcs)
		return -ENOMEM;
	s->spec_funcs = funcs;
	popts.ks = s->ks;
	for (i = first; i < first + argc && !err; i++) {
		s->spec_funcs[i] = NULL;
		s->nr_specs = i + 1;
		before = s->nr;
		if (spec_parse(argv[i - first], &spec, &serr)) {
			char clip[CLIP_BUF];

			p_err("invalid function spec '%s': %s at offset %d",
			      str_clip(argv[i - first], clip), serr.msg, serr.pos);
			udwarf_forget();
			return -EINVAL;
		}
		spec.target = target_classify(spec.func);
		err = add_spec(s, &spec, &popts, i == 0);
		for (j = before; j < s->nr; j++)
			s->plans[j].spec_idx = i;
		s->spec_funcs[i] = strdup(spec.func);
		spec_free(&spec);
		if (!s->spec_funcs[i])
			err = -ENOMEM;
	}
	/* a user function's DWARF, kept open for the next one, is not needed past planning */
	udwarf_forget();
	if (!err)
		p_dbg("planned %d functions", s->nr);
	return err;
}

/*
 * Start-up work that needs no BTF runs beside the BTF parse, mostly
 * waiting on the kernel to format available_filter_functions and the
 * kprobe blacklist (0.4 and 0.2 s of a 2.2 s start on a small VM). The
 * ring comes later, beside libbpf's open: its size needs the plans.
 */
struct early_job {
	pthread_t thread;
	bool started;
	void *(*fn)(void *);
};

static void *early_ksyms(void *arg)
{
	struct session *s = arg;

	s->ks = ksyms__load();
	return NULL;
}

/* Each job runs in the caller when no thread can be had. */
static void start_early(struct session *s, struct early_job *jobs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		jobs[i].started = !pthread_create(&jobs[i].thread, NULL, jobs[i].fn, s);
		if (!jobs[i].started)
			jobs[i].fn(s);
	}
}

static void finish_early(struct early_job *jobs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
	}
}

int session__open(struct session *s, const struct session_opts *o)
{
	struct early_job jobs[] = { { .fn = early_ksyms } };

	memset(s, 0, sizeof(*s));
	s->opts = *o;
	if (o->share) {
		s->kb = o->share->kb;
		s->ks = o->share->ks;
		s->borrowed = true;
		return 0;
	}
	start_early(s, jobs, ARRAY_SIZE(jobs));
	s->kb = kbtf__open(o->btf_path);
	finish_early(jobs, ARRAY_SIZE(jobs));
	p_dbg("symbols read");
	/* ksyms__load fails only to allocate its table */
	if (s->kb && !s->ks)
		p_err("cannot read the kernel's symbols: %s", err_text(ENOMEM));
	if (!s->kb || !s->ks)
		return -ENOENT;
	return o->btf_path ? btf_check_running(kbtf__vmlinux(s->kb), s->ks, o->btf_path) : 0;
}

int session__prepare(struct session *s, const struct tracer_opts *to)
{
	s->tracer = tracer__new(to, s->plans, s->nr);
	if (!s->tracer)
		p_err("cannot set up the tracer: %s", err_text(errno ? errno : ENOMEM));
	return s->tracer ? 0 : -ENOMEM;
}

/* At exit, the spans that began and did not end, never silently. */
void session__report_open_spans(const struct session *s)
{
	int n;

	if (!s->span_from || !s->tracer)
		return;
	n = tracer__open_spans(s->tracer);
	if (n > 0)
		p_warn("%d span%s still open at exit: started, not ended", n, n == 1 ? "" : "s");
}

int session__attach(struct session *s)
{
	raise_fd_limit();
	return tracer__attach(s->tracer);
}

void session__close(struct session *s)
{
	int i;

	tracer__free(s->tracer);
	for (i = 0; i < s->nr; i++)
		plan_free(&s->plans[i]);
	free(s->plans);
	for (i = 0; i < s->nr_specs; i++)
		free(s->spec_funcs[i]);
	free(s->spec_funcs);
	if (!s->borrowed) {
		ksyms__free(s->ks);
		kbtf__free(s->kb);
	}
	memset(s, 0, sizeof(*s));
}
