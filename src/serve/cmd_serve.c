// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop serve CONFIG: the metrics of a config file (serve/config.h), each
 * one a count or hist run in the kernel, served on one port or written to
 * one textfile, until SIGINT or SIGTERM. SIGHUP reloads the file: metrics
 * whose entry did not change keep running, and their counters; a file
 * that fails keeps the running set.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/cmd_agg.h"
#include "agg/prom.h"
#include "env.h"
#include "lib/opts.h"
#include "lib/util.h"
#include "serve/cap.h"
#include "serve/config.h"

struct metric {
	const struct serve_metric *conf; /* in the running config */
	char **argv;			 /* serve_metric_argv's, which env points into */
	struct env env;
	struct agg_run run;
	struct series_cap cap;
};

struct server {
	const char *path;
	struct serve_config *cfg;
	struct metric *metrics[SERVE_MAX_METRICS];
	int nr;
	struct session base; /* the BTF and symbols every metric borrows */
	struct prom_server *prom;
	/* The metrics, between the main thread (reloads) and the HTTP thread. */
	pthread_mutex_t lock;
	unsigned long long reloads[2]; /* failed, succeeded */
	bool last_reload_ok;
	double last_reload_ts;
	double last_scrape_s;
};

static volatile sig_atomic_t reload_wanted;

static void on_sighup(int sig)
{
	(void)sig;
	reload_wanted = 1;
}

/* ---- one metric ---------------------------------------------------------- */

static void metric_free(struct metric *m)
{
	if (!m)
		return;
	agg_run__close(&m->run);
	series_cap_free(&m->cap);
	serve_argv_free(m->argv);
	free(m);
}

/* Its command line parsed, its specs planned: nothing loaded yet. */
static int metric_open(struct server *srv, const struct serve_metric *conf, struct metric **out)
{
	struct metric *m = calloc(1, sizeof(*m));
	struct opts_rest rest;
	int argc, err;

	*out = m;
	if (!m)
		return p_err_nomem("a metric");
	m->conf = conf;
	m->env.cpu = -1;
	m->env.prog_name = "ksnoop";
	series_cap_init(&m->cap, conf->max_series ?: srv->cfg->max_series);
	m->argv = serve_metric_argv(conf, &argc);
	if (!m->argv)
		return p_err_nomem("a metric");
	util_set_where(srv->path, conf->line);
	err = opts_parse(&agg_cmd_opts, &m->env, argc - 1, m->argv + 1, &rest);
	if (!err) {
		agg_set_mode(&m->env,
			     conf->kind == SERVE_COUNT ? KSNOOP_AGG_COUNT : KSNOOP_AGG_HIST);
		err = agg_run__open(&m->run, &m->env, rest.argc, rest.argv, m->argv[0], &srv->base);
	}
	util_set_where(NULL, 0);
	return err ? -EINVAL : 0;
}

static int metric_attach(struct server *srv, struct metric *m)
{
	int err;

	util_set_where(srv->path, m->conf->line);
	err = agg_run__attach(&m->run, &m->env);
	util_set_where(NULL, 0);
	return err;
}

/* ---- the exposition ------------------------------------------------------ */

static void put_metric_gauge(FILE *out, const char *name, const struct metric *m, double v)
{
	fprintf(out, "%s{", name);
	prom_put_label(out, "metric", m->conf->name);
	fprintf(out, "} %.17g\n", v);
}

static void put_drops(FILE *out, struct server *srv, struct agg_drops *drops)
{
	static const char name[] = "ksnoop_serve_lost_samples_total";
	int i, j;

	prom_put_header(out, name, "counter",
			"Samples the kernel could not count, by metric and reason.");
	for (i = 0; i < srv->nr; i++) {
		for (j = 0; drops[i].names && j < drops[i].nr; j++) {
			fprintf(out, "%s{", name);
			prom_put_label(out, "metric", srv->metrics[i]->conf->name);
			fputc(',', out);
			prom_put_label(out, "reason", drops[i].names[j]);
			fprintf(out, "} %llu\n", (unsigned long long)drops[i].counts[j]);
		}
	}
}

static void put_per_metric(FILE *out, struct server *srv)
{
	int i;

	prom_put_header(out, "ksnoop_serve_probes_attached", "gauge",
			"Functions, tracepoints or events each metric has attached to.");
	for (i = 0; i < srv->nr; i++)
		put_metric_gauge(out, "ksnoop_serve_probes_attached", srv->metrics[i],
				 agg_run__nr_attached(&srv->metrics[i]->run));
	prom_put_header(
		out, "ksnoop_serve_series_folded", "gauge",
		"Keys past the metric's max-series, summed into its folded=\"true\" series.");
	for (i = 0; i < srv->nr; i++)
		put_metric_gauge(out, "ksnoop_serve_series_folded", srv->metrics[i],
				 srv->metrics[i]->cap.folded_keys);
}

static void put_server(FILE *out, const struct server *srv)
{
	prom_put_header(out, "ksnoop_serve_config_reloads_total", "counter",
			"Reloads of the config file (SIGHUP), by result.");
	fprintf(out, "ksnoop_serve_config_reloads_total{result=\"failure\"} %llu\n",
		srv->reloads[0]);
	fprintf(out, "ksnoop_serve_config_reloads_total{result=\"success\"} %llu\n",
		srv->reloads[1]);
	prom_put_header(out, "ksnoop_serve_config_last_reload_successful", "gauge",
			"Whether the last load of the config file succeeded.");
	fprintf(out, "ksnoop_serve_config_last_reload_successful %d\n", srv->last_reload_ok);
	prom_put_header(out, "ksnoop_serve_config_last_reload_success_timestamp_seconds", "gauge",
			"When the running config was loaded, in seconds since the epoch.");
	fprintf(out, "ksnoop_serve_config_last_reload_success_timestamp_seconds %.3f\n",
		srv->last_reload_ts);
	prom_put_header(out, "ksnoop_serve_last_scrape_duration_seconds", "gauge",
			"How long the previous exposition took to make.");
	fprintf(out, "ksnoop_serve_last_scrape_duration_seconds %.6f\n", srv->last_scrape_s);
}

static int put_metric(FILE *out, struct metric *m, struct agg_drops *drops)
{
	struct agg_table **tables;
	int nr, err;

	err = agg_run__read(&m->run, &tables, &nr, drops);
	if (err)
		return err;
	err = series_cap_apply(&m->cap, tables, nr)
		      ?: prom_write_named(out, m->conf->name, m->conf->help, tables, nr);
	agg_tables_free(tables, nr);
	return err;
}

static int render_locked(struct server *srv, FILE *out)
{
	struct agg_drops drops[SERVE_MAX_METRICS] = {};
	int i, err = 0;

	for (i = 0; !err && i < srv->nr; i++)
		err = put_metric(out, srv->metrics[i], &drops[i]);
	if (err)
		return err;
	put_drops(out, srv, drops);
	put_per_metric(out, srv);
	put_server(out, srv);
	return fflush(out) == EOF || ferror(out) ? -EIO : 0;
}

static int render(void *ctx, FILE *out)
{
	struct server *srv = ctx;
	long long start;
	int err;

	pthread_mutex_lock(&srv->lock);
	start = clock_ns(CLOCK_MONOTONIC);
	err = render_locked(srv, out);
	srv->last_scrape_s = (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
	pthread_mutex_unlock(&srv->lock);
	if (err)
		p_dbg("serve: cannot render the metrics: %s", err_text(-err));
	return err;
}

/* ---- loading a config ---------------------------------------------------- */

/*
 * The running metric that counts exactly what conf says, taken out of
 * srv (its slot in *from); or NULL.
 */
static struct metric *take_same(struct server *srv, const struct serve_metric *conf, int *from)
{
	struct metric *m;
	int i;

	for (i = 0; i < srv->nr; i++) {
		m = srv->metrics[i];
		if (m && serve_metric_same(m->conf, conf)) {
			srv->metrics[i] = NULL;
			*from = i;
			return m;
		}
	}
	return NULL;
}

/*
 * The metrics of cfg in next[]: the running ones it keeps, the others
 * planned, every error said, then attached. On error next[] holds what
 * was made, for the caller to free, and the running ones are back.
 */
static int build(struct server *srv, struct serve_config *cfg, struct metric **next, bool attach)
{
	struct serve_config *running = srv->cfg;
	const struct serve_metric *was[SERVE_MAX_METRICS];
	int from[SERVE_MAX_METRICS];
	bool fresh[SERVE_MAX_METRICS] = {};
	int i, err = 0;

	srv->cfg = cfg; /* metric_open reads its defaults */
	for (i = 0; i < cfg->nr; i++) {
		next[i] = take_same(srv, &cfg->metrics[i], &from[i]);
		if (next[i]) {
			was[i] = next[i]->conf;
			next[i]->conf = &cfg->metrics[i];
			continue;
		}
		fresh[i] = true;
		err = metric_open(srv, &cfg->metrics[i], &next[i]) ?: err;
	}
	for (i = 0; !err && attach && i < cfg->nr; i++) {
		if (fresh[i])
			err = metric_attach(srv, next[i]);
	}
	srv->cfg = running;
	if (!err)
		return 0;
	/* Put the running ones back where they were. */
	for (i = 0; i < cfg->nr; i++) {
		if (fresh[i])
			continue;
		next[i]->conf = was[i];
		srv->metrics[from[i]] = next[i];
		next[i] = NULL;
	}
	return err;
}

static void free_metrics(struct metric **ms, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		metric_free(ms[i]);
}

/* Running metrics that the new config kept are NULL in srv->metrics: compact them out. */
static void compact(struct server *srv)
{
	int i, n = 0;

	for (i = 0; i < srv->nr; i++) {
		if (srv->metrics[i])
			srv->metrics[n++] = srv->metrics[i];
	}
	srv->nr = n;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void swap_str(char **a, char **b)
{
	char *t = *a;

	*a = *b;
	*b = t;
}

/* The running listener and file stay until a restart: cfg takes them over from old. */
static void keep_outputs(struct serve_config *old, struct serve_config *cfg)
{
	if (!same_str(old->listen, cfg->listen) || !same_str(old->textfile, cfg->textfile))
		p_warn("%s: listen and textfile take effect at the next start; the running "
		       "ones stay",
		       cfg->path);
	swap_str(&old->listen, &cfg->listen);
	swap_str(&old->textfile, &cfg->textfile);
}

/* Loads path into srv: the first time (planned only), and at each SIGHUP. */
static int load(struct server *srv, bool attach)
{
	struct metric *next[SERVE_MAX_METRICS] = {};
	struct serve_config *cfg = calloc(1, sizeof(*cfg));
	int err;

	if (!cfg)
		return p_err_nomem("the config");
	err = serve_config_load(srv->path, cfg);
	if (!err) {
		compact(srv);
		err = build(srv, cfg, next, attach);
		compact(srv);
	}
	if (err) {
		free_metrics(next, cfg->nr);
		serve_config_free(cfg);
		free(cfg);
		return err;
	}
	/* What is left in srv->metrics is what the new config dropped or changed. */
	free_metrics(srv->metrics, srv->nr);
	memcpy(srv->metrics, next, sizeof(next));
	srv->nr = cfg->nr;
	if (srv->cfg) {
		keep_outputs(srv->cfg, cfg);
		serve_config_free(srv->cfg);
		free(srv->cfg);
	}
	srv->cfg = cfg;
	srv->last_reload_ts = (double)clock_ns(CLOCK_REALTIME) / 1e9;
	return 0;
}

static void reload(struct server *srv)
{
	int err;

	p_dbg("serve: reloading %s", srv->path);
	/* A scrape waits for the reload: it never sees half a set. */
	pthread_mutex_lock(&srv->lock);
	err = load(srv, true);
	srv->reloads[!err]++;
	srv->last_reload_ok = !err;
	pthread_mutex_unlock(&srv->lock);
	if (err)
		p_err("%s: not reloaded; the running metrics stay", srv->path);
}

/* ---- the run ------------------------------------------------------------- */

static int write_textfile(struct server *srv)
{
	return prom_textfile_render(srv->cfg->textfile, render, srv);
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_sighup, .sa_flags = SA_RESTART };
	int err = setup_stop_signals();

	sigemptyset(&sa.sa_mask);
	if (!err && sigaction(SIGHUP, &sa, NULL))
		err = -errno;
	return err;
}

#define TICK_MS 100

/* A tick's wait: the first metric's, the others' noted processes read at once. */
static int note_processes(struct server *srv)
{
	int i, err = 0;

	if (!srv->nr)
		poll(NULL, 0, TICK_MS);
	for (i = 0; i < srv->nr && !err; i++)
		err = agg_run__note_processes(&srv->metrics[i]->run, i ? 0 : TICK_MS);
	return err;
}

static int run(struct server *srv)
{
	unsigned long long last = clock_ns(CLOCK_MONOTONIC), now;
	int err = 0;

	fprintf(stderr, "Serving %d metric%s from %s... SIGHUP reloads, Ctrl-C ends.\n", srv->nr,
		srv->nr == 1 ? "" : "s", srv->path);
	while (!stop_signal && !err) {
		err = note_processes(srv);
		if (reload_wanted) {
			reload_wanted = 0;
			reload(srv);
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (srv->cfg->textfile && now - last >= srv->cfg->textfile_ns) {
			last = now;
			err = write_textfile(srv);
		}
	}
	/* The file's last word is the run's last count, as count --textfile's is. */
	if (!err && srv->cfg->textfile)
		err = write_textfile(srv);
	return err;
}

/* Before anything attaches: a busy address or an unwritable file fails first. */
static int open_outputs(struct server *srv)
{
	if (srv->cfg->textfile && prom_textfile_check(srv->cfg->textfile))
		return -EINVAL;
	if (!srv->cfg->listen)
		return 0;
	srv->prom = prom_server__listen(srv->cfg->listen);
	return srv->prom ? 0 : -EINVAL;
}

static int start(struct server *srv)
{
	srv->last_reload_ok = true;
	if (srv->prom && prom_server__serve(srv->prom, render, srv))
		return -EINVAL;
	return srv->cfg->textfile ? write_textfile(srv) : 0;
}

/* The first load plans alone: every error comes before any output opens or probe attaches. */
static int first_load(struct server *srv)
{
	struct session_opts so = {};
	int err = session__open(&srv->base, &so);

	if (err)
		return err;
	return load(srv, false);
}

static int attach_all(struct server *srv)
{
	int i, err = 0;

	for (i = 0; !err && i < srv->nr; i++)
		err = metric_attach(srv, srv->metrics[i]);
	return err;
}

static void serve_close(struct server *srv)
{
	prom_server__stop(srv->prom);
	free_metrics(srv->metrics, srv->nr);
	if (srv->cfg) {
		serve_config_free(srv->cfg);
		free(srv->cfg);
	}
	session__close(&srv->base);
	pthread_mutex_destroy(&srv->lock);
}

/* ---- the command --------------------------------------------------------- */

static void serve_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s serve [-d] [--check] CONFIG\n"
		"\n"
		"Serve the metrics CONFIG lists, each counted in the kernel, to Prometheus\n"
		"(listen = HOST:PORT) or to a node_exporter textfile (textfile = PATH).\n"
		"SIGHUP reloads CONFIG: unchanged metrics keep their counters.\n"
		"\n"
		"  -d, --debug   print debug output\n"
		"      --check   check CONFIG and the functions it names, attach nothing\n"
		"\n"
		"The format: ksnoop-serve(5), or the example in ksnoop(8).\n",
		prog);
}

struct serve_args {
	struct env *env;
	bool check;
	const char *path;
};

static void help(void *ctx)
{
	serve_usage(stdout, ((struct serve_args *)ctx)->env->prog_name);
}

static const struct opt serve_table[] = {
	OPT_CALL("debug", 'd', false, env_set_debug),
	OPT_FLAG("check", 0, struct serve_args, check),
	{},
};

static const struct opts_spec serve_opts = {
	.opts = serve_table,
	.mode = OPTS_PERMUTE,
	.cmd = "serve",
	.help = help,
};

static int parse_args(struct serve_args *a, int argc, char **argv)
{
	struct opts_rest rest;
	int err = opts_parse(&serve_opts, a, argc, argv, &rest);

	if (err)
		return err;
	if (rest.argc != 1) {
		p_err("serve takes one config file; usage: ksnoop serve [-d] [--check] CONFIG");
		return -EINVAL;
	}
	a->path = rest.argv[0];
	return 0;
}

int cmd_serve(struct env *env, int argc, char **argv)
{
	struct serve_args a = { .env = env };
	struct server srv = {};
	int err = parse_args(&a, argc, argv);

	if (err)
		return err == OPTS_HELP ? 0 : err;
	srv.path = a.path;
	pthread_mutex_init(&srv.lock, NULL);
	err = first_load(&srv);
	if (!err && a.check) {
		printf("%s: %d metric%s, every spec planned\n", srv.path, srv.nr,
		       srv.nr == 1 ? "" : "s");
	} else if (!err) {
		err = open_outputs(&srv) ?: setup_signals() ?: attach_all(&srv) ?: start(&srv);
		if (!err)
			err = run(&srv);
	}
	serve_close(&srv);
	return err;
}
