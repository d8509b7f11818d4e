// SPDX-License-Identifier: GPL-2.0
/* ksnoop trace FUNC...: plan, attach, then stream events until a signal. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "trace/backend.h"
#include "trace/chain.h"
#include "trace/follow.h"
#include "env.h"
#include "lib/ksyms.h"
#include "lib/outfile.h"
#include "trace/output.h"
#include "trace/plan.h"
#include "trace/session.h"
#include "trace/span.h"
#include "lib/ring.h"
#include "lib/util.h"

#define GRAPH_DEFAULT_NODES 1024 /* calls shown in one tree */

struct trace_run {
	const struct env *env;
	struct session ses;
	struct ring_loop *ring;
	struct output *out;
	struct chain *chain;
	FILE *file;		   /* where events go */
	struct ksnoop_event *wide; /* the last lite event, in the full layout */
};

static int emit_event(void *ctx, const struct ksnoop_event *ev, size_t size)
{
	struct trace_run *s = ctx;

	return output__event(s->out, ev, size) ? RING_MALFORMED : 0;
}

static void emit_origin(void *ctx, const struct ksnoop_event *const *evs, const size_t *sizes,
			int n, int cut)
{
	struct trace_run *s = ctx;

	(void)cut;
	output__origin(s->out, evs, sizes, n);
}

static void emit_tree(void *ctx, const struct ksnoop_event *const *evs, const size_t *sizes, int n,
		      int cut)
{
	struct trace_run *s = ctx;

	output__tree(s->out, evs, sizes, n, cut);
}

/* --errors: the call whose failure releases the origin chain under it. */
static bool outermost(const struct trace_run *s, const struct ksnoop_event *ev)
{
	return ev->depth == 0 || ((s->env->stack_mode || s->env->graph) &&
				  s->ses.plans[ev->func_id].cfg.chain_pos == 0);
}

/* --errors names a failure's origin when the traced functions can nest. */
static bool wants_origin(const struct trace_run *s)
{
	return s->env->errors && !s->env->graph && (s->ses.nr > 1 || s->env->stack_mode);
}

static int handle_event(void *ctx, const void *data, size_t size)
{
	struct trace_run *s = ctx;
	const struct ksnoop_event *ev = data;

	if (size >= KSNOOP_LITE_HDR_SIZE && (ev->kind & KSNOOP_EV_LITE)) {
		if (event_widen(data, size, s->wide, &size))
			return RING_MALFORMED;
		ev = s->wide;
	}
	if (event_validate(ev, size, s->ses.nr))
		return RING_MALFORMED;
	output__arrived(s->out, ev);
	if (s->chain && (wants_origin(s) || s->env->graph))
		return chain__nested(s->chain, ev, size, outermost(s, ev));
	if (s->chain)
		return chain__event(s->chain, ev, size, s->ses.plans[ev->func_id].cfg.chain_pos);
	return emit_event(s, ev, size);
}

static int read_drops(void *ctx, __u64 *drops)
{
	struct trace_run *s = ctx;

	return tracer__read_drops(s->ses.tracer, drops);
}

static void detach(void *ctx)
{
	struct trace_run *s = ctx;

	tracer__detach(s->ses.tracer);
}

/* Symbols serve planning; output wants them only to name function pointers. */
static bool output_needs_ksyms(const struct env *env)
{
	return util_json() || env->symbolize || env->kstack_depth;
}

/* -o FILE, or stdout; fully buffered unless a terminal reads it. */
static int open_events_file(struct trace_run *s)
{
	const char *path = s->env->output_path;

	s->file = path ? outfile_fopen("output file", path) : stdout;
	if (!s->file)
		return -EINVAL;
	if (!isatty(fileno(s->file)))
		setvbuf(s->file, NULL, _IOFBF, 1 << 16);
	return 0;
}

static void output_opts_of(const struct env *env, struct output_opts *o)
{
	_Static_assert(sizeof(o->errno_mask) == sizeof(env->errno_mask), "errno masks differ");
	*o = (struct output_opts){
		.json = util_json(),
		.chrome = env->chrome,
		.compact = env->compact,
		.wallclock = env->wallclock,
		.show_comm = env->show_comm,
		.symbolize = env->symbolize,
		.errors = env->errors,
		.graph = env->graph,
		.one_line = follow_wanted(&env->follow),
		.max_depth = env->max_depth,
		.max_nodes = env->max_nodes,
		.kstack_depth = env->kstack_depth,
		.ustack_depth = env->ustack_depth,
		.ustack_dwarf = env->ustack_dump_bytes > 0,
		.pids = env->pids,
		.nr_pids = env->nr_pids,
		.min_duration_ns = env->min_duration_ns,
		.errno_filter = env->errno_filter,
	};
	memcpy(o->errno_mask, env->errno_mask, sizeof(o->errno_mask));
}

static int setup_output(struct trace_run *s)
{
	struct output_opts oo;
	int err = open_events_file(s);

	if (err)
		return err;
	output_opts_of(s->env, &oo);
	s->out = output__new(&oo, s->ses.plans, s->ses.nr, s->file,
			     output_needs_ksyms(s->env) ? s->ses.ks : NULL);
	if (!s->out)
		return p_err_nomem("cannot set up the output");
	/* Not while events stream: naming a pointer would stall the first. */
	if (output_needs_ksyms(s->env))
		ksyms__load_kallsyms(s->ses.ks);
	s->wide = malloc(sizeof(*s->wide));
	if (!s->wide)
		return p_err_nomem("cannot set up the output");
	/* Some MB, freed before libbpf opens its object. */
	if (!output_needs_ksyms(s->env)) {
		ksyms__free(s->ses.ks);
		s->ses.ks = NULL;
		/* Small blocks stay in the heap unless given back: peak RSS. */
		malloc_trim(0);
	}
	if (s->env->graph)
		s->chain = chain__new_graph(emit_tree, s->env->max_nodes, s);
	else if (wants_origin(s))
		s->chain = chain__new_errors(emit_origin, s);
	else if (s->env->stack_mode)
		s->chain = chain__new(s->ses.nr, emit_event, s);
	else
		return 0;
	return s->chain ? 0 : p_err_nomem("cannot set up the output");
}

_Static_assert(KSNOOP_DROP_NR <= RING_MAX_DROP_REASONS, "the ring loop reads every drop reason");

static int setup_ringbuf(struct trace_run *s)
{
	struct ring_source src = {
		.map_fd = tracer__events_fd(s->ses.tracer),
		.handle = handle_event,
		.read_drops = read_drops,
		.drop_names = tracer_drop_names,
		.nr_drop_reasons = KSNOOP_DROP_NR,
		.ring_full = KSNOOP_DROP_RINGBUF,
		.detach = detach,
		.ctx = s,
		.out = s->file,
		.out_path = s->env->output_path,
	};

	s->ring = ring_loop__new(&src);
	return s->ring ? 0 : p_err_nomem("cannot set up the ring buffer reader");
}

/*
 * Finish and close the events' output: 0, or -EIO once said. A write error
 * is said once, by close_output; a reader gone from stdout is no error.
 */
static int close_events(struct trace_run *s)
{
	bool unfinished = s->out && output__finish(s->out);
	int closed = 0;

	output__free(s->out);
	if (s->file)
		closed = close_output(s->file, s->env->output_path);
	if (closed < 0)
		return -EIO;
	if (!closed && unfinished) {
		p_err("writing %s failed", s->env->output_path ?: "the events");
		return -EIO;
	}
	return 0;
}

/* 0, or -EIO when the events could not all be written. */
static int cleanup(struct trace_run *s)
{
	int err;

	ring_loop__free(s->ring);
	/* The probes go first; the output reads the plans and their BTF. */
	tracer__free(s->ses.tracer);
	s->ses.tracer = NULL;
	chain__free(s->chain);
	free(s->wide);
	err = close_events(s);
	session__close(&s->ses);
	return err;
}

static int check_span_args(const struct env *env, int argc)
{
	int err = span_check_args(&env->spans, argc, env->graph ? "graph" : "trace");

	if (!err && (env->graph || env->stack_mode || env->errors)) {
		p_err("spans are events of their own: graph, -s and --errors do not apply");
		err = -EINVAL;
	} else if (!err && env->ustack_depth) {
		p_err("--ustack shows a call's user stack; a span's is not kept yet");
		err = -EINVAL;
	}
	return err;
}

static int check_follow_args(const struct env *env)
{
	const struct follow_opts *f = &env->follow;

	if (!follow_wanted(f) && (f->nr_in || f->nr_end || f->max_ns)) {
		p_err("--follow-in, --follow-end and --follow-time go with --follow PARAM");
		return -EINVAL;
	}
	if (!follow_wanted(f))
		return 0;
	if (span_wanted(&env->spans) || env->graph || env->stack_mode || env->errors) {
		p_err("--follow shows one object's calls: spans, graph, -s and --errors do not "
		      "apply");
		return -EINVAL;
	}
	if (env->min_duration_ns || env->chrome) {
		p_err("--follow shows each call at its entry: --min-duration and --format=chrome "
		      "do not apply");
		return -EINVAL;
	}
	return 0;
}

static int check_args(const struct env *env, int argc)
{
	int err = check_follow_args(env);

	if (err)
		return err;
	if (span_wanted(&env->spans))
		return check_span_args(env, argc);
	if (argc < 1) {
		p_err("%s needs at least one function", env->graph ? "graph" : "trace");
		return -EINVAL;
	}
	if (argc > KSNOOP_MAX_FUNCS) {
		p_err("at most %d functions can be traced at once", KSNOOP_MAX_FUNCS);
		return -E2BIG;
	}
	if (env->chrome && util_json()) {
		p_err("-j and --format=chrome are two formats; choose one");
		return -EINVAL;
	}
	if (env->graph && env->stack_mode) {
		p_err("graph's callees count inside ENTRY at any depth; -s does not apply");
		return -EINVAL;
	}
	if (env->stack_mode && argc > KSNOOP_MAX_CHAIN) {
		p_err("a -s chain has at most %d functions", KSNOOP_MAX_CHAIN);
		return -E2BIG;
	}
	return 0;
}

static int trace_opts(const struct env *env, struct plan_opts *po)
{
	/* a span's two ends are entry events: their pairing times them */
	bool spans = span_wanted(&env->spans);

	*po = (struct plan_opts){ .comm = env->comm,
				  /* a timeline shows each call once, whole */
				  .combined = !spans && (env->min_duration_ns > 0 || env->chrome),
				  /* JSON shows every return's duration. */
				  .frames = !spans && (util_json() || env->stack_mode),
				  .errors = env->errors,
				  .graph = env->graph,
				  .max_bytes = env->max_bytes,
				  .pid = env->nr_pids == 1 ? env->pids[0] : 0 };
	return 0;
}

/* FUNC arguments, or the spans' ends. */
static int plan_all(struct trace_run *s, int argc, char **argv, const struct plan_opts *po)
{
	if (span_wanted(&s->env->spans))
		return span_plan(&s->ses, &s->env->spans, po);
	if (follow_wanted(&s->env->follow))
		return follow_plan(&s->ses, &s->env->follow, argc, argv, po);
	return session__plan(&s->ses, argc, argv, po);
}

int cmd_trace(struct env *env, int argc, char **argv)
{
	struct trace_run s = { .env = env };
	struct session_opts so;
	struct tracer_opts to;
	struct plan_opts po;
	int err;

	err = check_args(env, argc);
	if (err)
		return err;
	env_session_opts(env, &so);
	env_tracer_opts(env, &to);
	err = session__open(&s.ses, &so) ?: trace_opts(env, &po) ?:
	      plan_all(&s, argc, argv, &po) ?: session__prepare(&s.ses, &to) ?: setup_output(&s) ?: setup_stop_signals() ?:
	      session__attach(&s.ses) ?: setup_ringbuf(&s);
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
	session__report_open_spans(&s.ses);
	if (stop_signal)
		p_dbg("stopped by signal %d", (int)stop_signal);
out:
	return cleanup(&s) ?: err;
}

/* graph ENTRY [CALLEE...]: trace's engine, every call at its return, in trees. */
int cmd_graph(struct env *env, int argc, char **argv)
{
	env->graph = true;
	if (!env->max_nodes)
		env->max_nodes = GRAPH_DEFAULT_NODES;
	return cmd_trace(env, argc, argv);
}
