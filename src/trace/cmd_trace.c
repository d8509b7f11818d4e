// SPDX-License-Identifier: GPL-2.0
/* ksnoop trace FUNC...: plan, attach, then stream events until a signal. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "trace/backend.h"
#include "trace/chain.h"
#include "env.h"
#include "lib/ksyms.h"
#include "trace/output.h"
#include "trace/plan.h"
#include "lib/ring.h"
#include "lib/util.h"

struct session {
	struct env *env;
	int ring_fd; /* created beside the BTF parse; see start_early() */
	struct kbtf *kb;
	struct ksyms *ks;
	struct func_plan *plans;
	int nr;
	size_t cap;
	struct tracer *tracer;
	struct ring_loop *ring;
	struct output *out;
	struct chain *chain;
};

static int check_traceable(struct session *s, struct func_plan *p)
{
	const char *why, *clone;

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
	if (s->env->stack_mode)
		p->cfg.chain_pos = s->nr - 1;
	if (p->note[0])
		p_warn("%s", p->note);
	return 0;
}

/* Functions a pattern matches but that have no usable BTF are skipped. */
static int add_glob(struct session *s, const struct spec *spec, const struct plan_opts *po)
{
	struct plan_opts glob_opts = *po;
	struct spec one = *spec;
	const char **names;
	int i, n, added = 0, err = 0;

	n = ksyms__match(s->ks, spec->func, &names);
	if (n < 0)
		return n;
	glob_opts.from_glob = true;
	util_mute(true);
	for (i = 0; i < n; i++) {
		if (s->nr >= KSNOOP_MAX_FUNCS) {
			err = -E2BIG;
			break;
		}
		one.func = (char *)names[i];
		if (add_plan(s, &one, &glob_opts))
			continue;
		s->plans[s->nr - 1].from_glob = true;
		added++;
	}
	util_mute(false);
	free(names);
	if (err == -E2BIG)
		p_err("'%s' matches more than %d functions; narrow the pattern", spec->func,
		      KSNOOP_MAX_FUNCS);
	else if (!added)
		p_err("no traceable function with BTF matches '%s'", spec->func);
	p_dbg("'%s' matched %d functions", spec->func, added);
	return err ? err : added ? 0 : -ENOENT;
}

static int setup_plans(struct session *s, int argc, char **argv)
{
	struct plan_opts popts = { .comm = s->env->comm,
				   .combined = s->env->min_duration_ns > 0,
				   /* JSON shows every return's duration. */
				   .frames = s->env->json || s->env->stack_mode,
				   .max_bytes = s->env->max_bytes };
	struct spec_error serr;
	struct spec spec;
	int i, err = 0;

	for (i = 0; i < argc && !err; i++) {
		if (spec_parse(argv[i], &spec, &serr)) {
			char clip[CLIP_BUF];

			p_err("invalid function spec '%s': %s at offset %d",
			      str_clip(argv[i], clip), serr.msg, serr.pos);
			return -EINVAL;
		}
		if (is_glob(spec.func) && s->env->stack_mode) {
			p_err("-s chains take exact function names, not '%s'", spec.func);
			err = -EINVAL;
		} else {
			err = is_glob(spec.func) ? add_glob(s, &spec, &popts)
						 : add_plan(s, &spec, &popts);
		}
		spec_free(&spec);
	}
	return err;
}

static int emit_event(void *ctx, const struct ksnoop_event *ev, size_t size)
{
	struct session *s = ctx;

	return output__event(s->out, ev, size) ? RING_MALFORMED : 0;
}

static int handle_event(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;
	const struct ksnoop_event *ev = data;

	if (event_validate(ev, size, s->nr))
		return RING_MALFORMED;
	if (s->chain)
		return chain__event(s->chain, ev, size, s->plans[ev->func_id].cfg.chain_pos);
	return emit_event(s, ev, size);
}

static const char *const drop_names[KSNOOP_DROP_NR] = {
	[KSNOOP_DROP_RINGBUF] = "ring buffer full",
	[KSNOOP_DROP_NESTING] = "nested too deeply on one CPU",
	[KSNOOP_DROP_DEPTH] = "call depth over 16",
	[KSNOOP_DROP_STASH] = "entry values could not be stashed",
};

static int read_drops(void *ctx, __u64 *drops)
{
	struct session *s = ctx;

	return tracer__read_drops(s->tracer, drops);
}

static void detach(void *ctx)
{
	struct session *s = ctx;

	tracer__detach(s->tracer);
}

/* Symbols serve planning; output wants them only to name function pointers. */
static bool output_needs_ksyms(const struct env *env)
{
	return env->json || env->symbolize;
}

static int setup_output(struct session *s)
{
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	s->out = output__new(s->env, s->plans, s->nr, stdout,
			     output_needs_ksyms(s->env) ? s->ks : NULL);
	if (!s->out)
		return -ENOMEM;
	/* Not while events stream: naming a pointer would stall the first. */
	if (output_needs_ksyms(s->env))
		ksyms__load_kallsyms(s->ks);
	/* Some MB, freed before libbpf parses the kernel's BTF once more. */
	if (!output_needs_ksyms(s->env)) {
		ksyms__free(s->ks);
		s->ks = NULL;
		/* Small blocks stay in the heap unless given back: peak RSS. */
		malloc_trim(0);
	}
	if (s->env->stack_mode) {
		s->chain = chain__new(s->nr, emit_event, s);
		if (!s->chain)
			return -ENOMEM;
	}
	return 0;
}

static int setup_ringbuf(struct session *s)
{
	struct ring_source src = {
		.map_fd = tracer__events_fd(s->tracer),
		.handle = handle_event,
		.read_drops = read_drops,
		.drop_names = drop_names,
		.nr_drop_reasons = KSNOOP_DROP_NR,
		.ring_full = KSNOOP_DROP_RINGBUF,
		.detach = detach,
		.ctx = s,
	};

	s->ring = ring_loop__new(&src);
	return s->ring ? 0 : -ENOMEM;
}

static void cleanup(struct session *s)
{
	int i;

	ring_loop__free(s->ring);
	tracer__free(s->tracer);
	chain__free(s->chain);
	output__free(s->out);
	for (i = 0; i < s->nr; i++)
		plan_free(&s->plans[i]);
	free(s->plans);
	ksyms__free(s->ks);
	kbtf__free(s->kb);
	if (s->ring_fd >= 0)
		close(s->ring_fd);
}

/*
 * Start-up work that needs no BTF runs beside the BTF parse, each piece
 * mostly waiting on the kernel: allocating the ring (64 MiB by default),
 * and formatting available_filter_functions and the kprobe blacklist.
 * On a small VM the three took 0.5, 0.4 and 0.2 s of a 2.2 s start.
 */
struct early_job {
	pthread_t thread;
	bool started;
	void *(*fn)(void *);
};

static void *early_ring(void *arg)
{
	struct session *s = arg;

	s->ring_fd = tracer__create_ring(s->env);
	return NULL;
}

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

static int check_args(const struct env *env, int argc)
{
	if (argc < 1) {
		p_err("trace needs at least one function");
		return -EINVAL;
	}
	if (argc > KSNOOP_MAX_FUNCS) {
		p_err("at most %d functions can be traced at once", KSNOOP_MAX_FUNCS);
		return -E2BIG;
	}
	if (env->stack_mode && argc > KSNOOP_MAX_CHAIN) {
		p_err("a -s chain has at most %d functions", KSNOOP_MAX_CHAIN);
		return -E2BIG;
	}
	if (env->btf_path) {
		p_err("--btf describes another kernel; it works with 'info' only");
		return -EINVAL;
	}
	return 0;
}

int cmd_trace(struct env *env, int argc, char **argv)
{
	struct early_job jobs[] = { { .fn = early_ring }, { .fn = early_ksyms } };
	struct session s = { .env = env, .ring_fd = -1 };
	int err;

	err = check_args(env, argc);
	if (err)
		return err;
	start_early(&s, jobs, ARRAY_SIZE(jobs));
	s.kb = open_kernel_btf(env);
	finish_early(jobs, ARRAY_SIZE(jobs));
	if (!s.kb || !s.ks) {
		err = -ENOENT;
		goto out;
	}
	err = setup_plans(&s, argc, argv) ?: setup_output(&s) ?: setup_stop_signals();
	if (err)
		goto out;
	raise_fd_limit();
	s.tracer = tracer__open(env, s.plans, s.nr, s.ring_fd);
	if (!s.tracer) {
		err = -EINVAL;
		goto out;
	}
	err = setup_ringbuf(&s);
	if (err)
		goto out;
	output__header(s.out);
	err = flush_stdout();
	if (err) {
		err = err < 0 ? err : 0;
		goto out;
	}
	err = ring_loop__run(s.ring);
	err = ring_loop__finish(s.ring) ?: err;
	if (stop_signal)
		p_dbg("stopped by signal %d", (int)stop_signal);
out:
	cleanup(&s);
	return err;
}
