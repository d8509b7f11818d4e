// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop count and hist: the probes add to maps in the kernel, and user
 * space reads them every interval, at exit, and when Prometheus scrapes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "agg/agg.h"
#include "agg/cmd_agg.h"
#include "agg/flame.h"
#include "agg/format.h"
#include "agg/prom.h"
#include "env.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "trace/session.h"
#include "trace/span.h"

static int check_span_args(const struct env *env, int argc, const char *cmd)
{
	const struct agg_opts *a = &env->agg;
	int err = span_check_args(&env->spans, argc, cmd);

	if (err)
		return err;
	if (a->mode == KSNOOP_AGG_HIST && !a->latency) {
		p_err("hist of spans is a histogram of their durations: add --latency");
		return -EINVAL;
	}
	return 0;
}

/* --svg draws count's stacks, of the whole run. */
static int check_svg_args(const struct agg_opts *a)
{
	const char *why = a->mode != KSNOOP_AGG_COUNT ? "it draws count's stacks"
			  : !(a->by & (KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK))
				  ? "it needs --by kstack or ustack"
			  : a->interval_ns && !a->cumulative
				  ? "it draws the whole run: with -i it needs --cumulative"
				  : NULL;

	if (a->svg && why) {
		p_err("--svg: %s", why);
		return -EINVAL;
	}
	return 0;
}

/* Options that shape or filter trace's events, which count and hist have none of. */
static int check_trace_only(const struct env *env, const char *cmd)
{
	if (follow_wanted(&env->follow) || env->follow.nr_in || env->follow.nr_end ||
	    env->follow.max_ns) {
		p_err("--follow shows an object's path as trace's events, not in %s", cmd);
		return -EINVAL;
	}
	if (env->stack_mode) {
		p_err("-s chains work with trace only, not %s", cmd);
		return -EINVAL;
	}
	if (env->kstack_depth || (env->ustack_depth && !env->call_graph)) {
		p_err("--%cstack puts stacks on trace's events; %s counts them with --by kstack",
		      env->kstack_depth ? 'k' : 'u', cmd);
		return -EINVAL;
	}
	if (env->errors) {
		p_err("--errors and --errno filter trace's events; %s can key on the return: "
		      "'%s FUNC(return)'",
		      cmd, cmd);
		return -EINVAL;
	}
	if (env->output_path) {
		p_err("-o writes trace's events; %s prints its tables on stdout", cmd);
		return -EINVAL;
	}
	if (env->chrome) {
		p_err("--format=chrome is trace's and graph's; %s prints tables, or JSON with -j",
		      cmd);
		return -EINVAL;
	}
	if (env->min_duration_ns) {
		p_err("--min-duration filters trace's calls; %s's run time is -d: '%s -d 5 FUNC'",
		      cmd, cmd);
		return -EINVAL;
	}
	return 0;
}

static int check_args(const struct env *env, int argc, const char *cmd)
{
	const struct agg_opts *a = &env->agg;
	int err = check_trace_only(env, cmd);

	if (err)
		return err;
	if (span_wanted(&env->spans))
		return check_span_args(env, argc, cmd);
	if (argc < 1) {
		p_err("%s needs at least one function", cmd);
		return -EINVAL;
	}
	if (argc > KSNOOP_MAX_FUNCS) {
		p_err("at most %d functions can be traced at once", KSNOOP_MAX_FUNCS);
		return -E2BIG;
	}
	if (a->mode == KSNOOP_AGG_COUNT && (a->linear || a->latency || a->unit)) {
		p_err("--linear, --latency and --unit are hist options");
		return -EINVAL;
	}
	if (a->unit && !a->latency) {
		p_err("--unit is the unit of --latency");
		return -EINVAL;
	}
	if (a->cumulative && !a->interval_ns) {
		p_err("--cumulative says what -i prints: it needs -i");
		return -EINVAL;
	}
	if (a->folded && !(a->by & (KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK))) {
		p_err("--folded prints stacks: it needs --by kstack or ustack");
		return -EINVAL;
	}
	return check_svg_args(a);
}

static int plan_opts_of(const struct env *env, struct plan_opts *po)
{
	*po = (struct plan_opts){
		/* a span's latency is from one call's entry to another's */
		.sample = env->agg.latency && !span_wanted(&env->spans) ? PLAN_LATENCY
									: PLAN_SAMPLE,
		.comm = env->comm,
		/* A key keeps at most this much of a string. */
		.max_bytes = env->max_bytes ? env->max_bytes : KSNOOP_AGG_STR_MAX,
		.pid = env->nr_pids == 1 ? env->pids[0] : 0,
		/*
		 * A count keys by what it shows: "f(x > 100)" counts the calls
		 * that pass, not each x (cpuwalk's current->pid != 0). A hist
		 * keeps the operand as its value.
		 */
		.cmp_hidden = env->agg.mode == KSNOOP_AGG_COUNT,
	};
	return 0;
}

/* "2026-12-01T13:40:05+0000": the interval's header, and JSON's "ts". */
static void now_iso(char *buf, size_t size)
{
	struct tm tm;
	time_t t = time(NULL);

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm))
		snprintf(buf, size, "%lld", (long long)t);
}

static void print_table(const struct agg_opts *a, const struct agg_table *t,
			const struct agg_print_opts *o)
{
	if (util_json())
		agg_print_json(stdout, t, o);
	else if (a->folded)
		agg_print_folded(stdout, t);
	else
		agg_print_text(stdout, t, o);
}

static void report_drops(struct agg_run *r, bool final)
{
	unsigned long long total;
	struct agg_drops d;
	struct strbuf sb;

	if (agg_read_drops(r->reader, &d))
		return;
	sb_init(&sb);
	total = sb_counts(&sb, d.counts, d.names, d.nr);
	if (total)
		p_warn("lost %llu samples %s(%s)%s", (unsigned long long)total,
		       final ? "" : "so far ", sb_str(&sb),
		       d.counts[KSNOOP_DROP_KEYS] ? "; a larger --max-keys helps" : "");
	sb_free(&sb);
	if (final)
		session__report_open_spans(&r->ses);
}

/* 0, 1 when stdout's reader went away (| head: the run ends), or -errno. */
static int print_all(struct agg_run *r, bool interval)
{
	struct agg_print_opts o = { .top = r->a->top };
	struct agg_table **tables;
	char ts[64];
	int i, nr, err;

	now_iso(ts, sizeof(ts));
	if (interval)
		o.ts = ts;
	pthread_mutex_lock(&r->lock);
	err = agg_read(r->reader, &tables, &nr);
	pthread_mutex_unlock(&r->lock);
	if (err)
		return err;
	for (i = 0; i < nr; i++)
		print_table(r->a, tables[i], &o);
	agg_tables_free(tables, nr);
	err = flush_stdout();
	if (!err)
		report_drops(r, !interval);
	return err;
}

/* The metrics, to out (the HTTP thread's buffer), or to --textfile when out is NULL. */
static int write_metrics(struct agg_run *r, FILE *out)
{
	struct agg_table **tables;
	struct agg_drops d;
	int nr, err;

	err = agg_run__read(r, &tables, &nr, &d);
	if (err)
		return err;
	err = out ? prom_write(out, tables, nr, &d)
		  : prom_textfile_write(r->a->textfile, tables, nr, &d);
	agg_tables_free(tables, nr);
	return err;
}

static int render_prom(void *ctx, FILE *out)
{
	return write_metrics(ctx, out);
}

static int write_textfile(struct agg_run *r)
{
	return write_metrics(r, NULL);
}

/* "count --by kstack profile:99": what the flame graph's title says was counted. */
static void svg_title(const struct agg_run *r, struct strbuf *sb)
{
	int i;

	sb_printf(sb, "ksnoop count");
	for (i = 0; i < r->ses.nr_specs; i++)
		sb_printf(sb, " %s", r->ses.spec_funcs[i] ? r->ses.spec_funcs[i] : "?");
}

static int write_svg(struct agg_run *r)
{
	struct agg_table **tables;
	struct strbuf title;
	FILE *f = r->svg;
	int nr, err;

	r->svg = NULL;
	sb_init(&title);
	svg_title(r, &title);
	err = agg_read(r->reader, &tables, &nr);
	if (!err) {
		err = flame_write_svg(f, tables, nr, sb_str(&title));
		agg_tables_free(tables, nr);
	}
	sb_free(&title);
	if (err) {
		p_err("--svg %s: %s", r->a->svg, err_text(-err));
		fclose(f);
		return err;
	}
	return close_output(f, r->a->svg);
}

int agg_run__note_processes(struct agg_run *r, int timeout_ms)
{
	int err = agg_reader__wait(r->reader, timeout_ms);

	pthread_mutex_lock(&r->lock);
	agg_reader__note_pending(r->reader);
	pthread_mutex_unlock(&r->lock);
	return err;
}

#define TICK_MS 100
/* Pages per CPU of --by ustack's ring: 4,096 notes a poll on two CPUs. */
#define AGG_NOTE_PAGES 8
/* With --call-graph dwarf: 1 MiB per CPU, a hundred samples and more. */
#define AGG_SAMPLE_PAGES 256
/* How often --textfile is written without -i. */
#define TEXTFILE_NS 5000000000ULL

/*
 * Until a signal, -d, or a reader gone from stdout (1); every -i (and
 * textfile period) print or write.
 */
static int wait_loop(struct agg_run *r)
{
	unsigned long long start = clock_ns(CLOCK_MONOTONIC), last = start, last_file = start, now;
	unsigned long long file_every = r->a->interval_ns ? r->a->interval_ns : TEXTFILE_NS;
	int err = 0;

	while (!stop_signal && !err) {
		err = agg_run__note_processes(r, TICK_MS);
		now = clock_ns(CLOCK_MONOTONIC);
		if (r->a->interval_ns && now - last >= r->a->interval_ns) {
			last += r->a->interval_ns;
			err = print_all(r, true);
		}
		if (!err && r->a->textfile && now - last_file >= file_every) {
			last_file = now;
			err = write_textfile(r);
		}
		if (r->a->run_ns && now - start >= r->a->run_ns)
			break;
	}
	return err;
}

/* Before any attach, so that a bad or busy address, or a bad file, fails first. */
static int listen_outputs(struct agg_run *r)
{
	if (r->a->textfile && prom_textfile_check(r->a->textfile))
		return -EINVAL;
	if (r->a->svg) {
		r->svg = outfile_fopen("--svg file", r->a->svg);
		if (!r->svg)
			return -EINVAL;
	}
	if (!r->a->prometheus)
		return 0;
	r->prom = prom_server__listen(r->a->prometheus);
	return r->prom ? 0 : -EINVAL;
}

/* Serving begins once every probe is attached: an answer means ready. */
static int start_outputs(struct agg_run *r)
{
	if (r->prom && prom_server__serve(r->prom, render_prom, r))
		return -EINVAL;
	if (r->a->textfile)
		return write_textfile(r);
	return 0;
}

static int run(struct agg_run *r)
{
	int err, fin;

	fprintf(stderr, "Tracing %d function%s... Hit Ctrl-C to end.\n", r->ses.nr,
		r->ses.nr == 1 ? "" : "s");
	err = wait_loop(r);
	/* The final tables are complete: nothing adds to them once detached. */
	tracer__detach(r->ses.tracer);
	/* the last processes noted, where they still run */
	err = err ?: agg_run__note_processes(r, 0);
	prom_server__stop(r->prom);
	r->prom = NULL;
	if (r->a->textfile)
		err = write_textfile(r) ?: err;
	/* A reader that went away is the normal end, as for trace: exit 0. */
	fin = stdout_closed() ? 0 : print_all(r, false);
	err = fin < 0 ? fin : err;
	if (r->svg)
		err = write_svg(r) ?: err;
	return err < 0 ? err : 0;
}

/* The tracer loads count's and hist's programs for agg's key layout. */
static int prepare(struct agg_run *r, const struct env *env)
{
	struct tracer_opts to;

	env_tracer_opts(env, &to);
	to.agg = r->layout;
	return session__prepare(&r->ses, &to);
}

/* Before anything is loaded: maps the kernel allocates whole, at attach. */
static int check_memory(const struct agg_run *r)
{
	return agg_check_memory(&r->layout, libbpf_num_possible_cpus(),
				proc_kb("/proc/meminfo", "MemAvailable:") * 1024);
}

/* The plans: FUNC arguments, or the spans' ends. */
static int plan_all(struct agg_run *r, const struct env *env, int argc, char **argv)
{
	struct plan_opts po;

	plan_opts_of(env, &po);
	if (span_wanted(&env->spans))
		return span_plan(&r->ses, &env->spans, &po);
	return session__plan(&r->ses, argc, argv, &po);
}

/*
 * --call-graph says how --by ustack's stacks are unwound: dwarf's go to
 * user space with each sample (agg.c on_sample).
 */
static int take_call_graph(struct env *env)
{
	if (!env->call_graph)
		return 0;
	if (!(env->agg.by & KSNOOP_BY_USTACK)) {
		p_err("--call-graph says how --by ustack unwinds user stacks: add --by ustack");
		return -EINVAL;
	}
	if (env->ustack_dump_bytes && span_wanted(&env->spans)) {
		p_err("--call-graph dwarf: a span keeps its start's user stack by frame pointers");
		return -EINVAL;
	}
	env->agg.ustack_dump_bytes = env->ustack_dump_bytes;
	env->ustack_depth = 0;
	return 0;
}

int agg_run__open(struct agg_run *r, struct env *env, int argc, char **argv, const char *cmd,
		  const struct session *share)
{
	struct session_opts so;
	int err;

	memset(r, 0, sizeof(*r));
	r->a = &env->agg;
	pthread_mutex_init(&r->lock, NULL);
	err = check_args(env, argc, cmd) ?: take_call_graph(env);
	if (err)
		return err;
	/*
	 * No events flow: the ring is there for the shared BPF object, for
	 * --by ustack's notes of new processes (8 bytes each), and for
	 * --call-graph dwarf's samples (each with its stack, 8 KiB).
	 */
	env->pages = env->agg.ustack_dump_bytes	      ? AGG_SAMPLE_PAGES
		     : env->agg.by & KSNOOP_BY_USTACK ? AGG_NOTE_PAGES
						      : 1;
	env_session_opts(env, &so);
	so.share = share;
	return session__open(&r->ses, &so) ?: plan_all(r, env, argc, argv) ?:
	       agg_layout_plans(&r->ses, &env->agg, &r->layout) ?: check_memory(r);
}

int agg_run__attach(struct agg_run *r, const struct env *env)
{
	int err = prepare(r, env) ?: session__attach(&r->ses);

	if (err)
		return err;
	r->reader = agg_reader__new(&r->ses, r->a, &r->layout);
	if (!r->reader) {
		p_err("out of memory");
		return -ENOMEM;
	}
	agg_reader__prime(r->reader, env->pids, env->nr_pids);
	return 0;
}

int agg_run__read(struct agg_run *r, struct agg_table ***tables, int *nr, struct agg_drops *d)
{
	int err;

	pthread_mutex_lock(&r->lock);
	err = agg_read(r->reader, tables, nr);
	/* Unreadable drops read 0: every reason stays in the exposition. */
	if (!err && d)
		agg_read_drops(r->reader, d);
	pthread_mutex_unlock(&r->lock);
	return err;
}

int agg_run__nr_attached(const struct agg_run *r)
{
	return r->ses.nr;
}

void agg_run__close(struct agg_run *r)
{
	prom_server__stop(r->prom);
	if (r->svg)
		fclose(r->svg);
	agg_reader__free(r->reader);
	session__close(&r->ses);
	pthread_mutex_destroy(&r->lock);
}

static int cmd_agg(struct env *env, int argc, char **argv, const char *cmd)
{
	struct agg_run r;
	int err;

	err = agg_run__open(&r, env, argc, argv, cmd, NULL) ?: listen_outputs(&r) ?:
	      setup_stop_signals() ?: agg_run__attach(&r, env) ?: start_outputs(&r);
	if (!err)
		err = run(&r);
	if (stop_signal)
		p_dbg("stopped by signal %d", (int)stop_signal);
	agg_run__close(&r);
	return err;
}

void agg_set_mode(struct env *env, int mode)
{
	env->agg.mode = mode;
	if (mode == KSNOOP_AGG_HIST && env->agg.latency && !env->agg.unit) {
		env->agg.unit = "ns";
		env->agg.unit_ns = 1;
	}
}

int cmd_count(struct env *env, int argc, char **argv)
{
	agg_set_mode(env, KSNOOP_AGG_COUNT);
	return cmd_agg(env, argc, argv, "count");
}

int cmd_hist(struct env *env, int argc, char **argv)
{
	agg_set_mode(env, KSNOOP_AGG_HIST);
	return cmd_agg(env, argc, argv, "hist");
}
