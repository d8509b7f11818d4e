/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksnoop serve's configuration file: many metrics, one exporter.
 *
 *   # comment (a whole line; '#' or ';' first, after blanks)
 *   listen = 127.0.0.1:9435              global keys, before any section
 *   textfile = /var/lib/prometheus/node-exporter/ksnoop.prom
 *   textfile-interval = 15s
 *   max-series = 1000                    default cap per metric
 *
 *   [syscall_errors_total]               one section per metric: its name
 *   help = System calls that failed, by errno
 *   kind = count                         count | hist | latency
 *   spec = tp:raw_syscalls:sys_exit(ret < 0)   repeatable
 *   by = comm                            count's and hist's --by list
 *
 *   [block_io_seconds]
 *   help = Block requests from issue to completion
 *   kind = latency
 *   from = blk_mq_start_request(rq)      a span instead of spec
 *   to = blk_mq_end_request(rq)
 *   unit = us                            latency: ns, us or ms
 *   buckets = log2                       or: linear LO,HI,STEP (hist, latency)
 *   max-keys = 10240                     the kernel map's size
 *   max-series = 500                     this metric's cap
 *   comm = nginx*                        only tasks whose comm matches
 *   cgroup = /sys/fs/cgroup/system.slice only tasks in this cgroup v2
 *
 * A key is "name = value": blanks around both are dropped, the value is
 * the rest of the line, verbatim (no quoting, no inline comment). Every
 * error is one line "Error: FILE:LINE: ..." and parsing goes on, so one
 * run lists them all.
 */
#ifndef KSNOOP_SERVE_CONFIG_H
#define KSNOOP_SERVE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* A line longer than this is an error; a file larger than SERVE_CONFIG_MAX too. */
#define SERVE_LINE_MAX 4096
#define SERVE_CONFIG_MAX (1 << 20)
#define SERVE_MAX_METRICS 64
#define SERVE_MAX_SPECS 16
#define SERVE_DEFAULT_LISTEN "127.0.0.1:9435"
#define SERVE_DEFAULT_MAX_SERIES 1000
#define SERVE_MAX_SERIES_LIMIT 1000000
#define SERVE_DEFAULT_TEXTFILE_NS 15000000000ULL

enum serve_kind { SERVE_COUNT, SERVE_HIST, SERVE_LATENCY };

struct serve_metric {
	char *name; /* the section's: a Prometheus metric name */
	int line;   /* of its [name] */
	char *help;
	enum serve_kind kind;
	char *specs[SERVE_MAX_SPECS];
	int spec_lines[SERVE_MAX_SPECS];
	int nr_specs;
	char *from, *to; /* a span, or both NULL */
	char *by;	 /* "comm,cpu", or NULL */
	char *linear;	 /* buckets = linear LO,HI,STEP: "LO,HI,STEP"; NULL for log2 */
	char *unit;	 /* latency: "ns", "us" or "ms"; NULL: us */
	int max_keys;	 /* 0: ksnoop's default */
	int max_series;	 /* 0: the global max-series */
	char *comm, *cgroup;
};

struct serve_config {
	char *path;
	char *listen;	/* NULL when only textfile is given */
	char *textfile; /* NULL unless given */
	unsigned long long textfile_ns;
	int max_series;
	struct serve_metric metrics[SERVE_MAX_METRICS];
	int nr;
};

/*
 * Parse text (len bytes, not necessarily NUL-terminated; path names it in
 * errors) into *c, which the caller frees with serve_config_free whatever
 * the result. 0, or -EINVAL after one error line per problem found, or
 * -ENOMEM. Checked here: the syntax, known keys, each key at most once
 * (spec excepted), names (unique, [a-zA-Z_][a-zA-Z0-9_]*, not reserved
 * "ksnoop_serve_*", count's ending in _total, latency's in _seconds), help
 * and kind given, spec or from and to (not both), options that fit the
 * kind, numbers in range, at least one metric, listen or textfile.
 * Without either of those, listen is SERVE_DEFAULT_LISTEN.
 */
int serve_config_parse(const char *path, const char *text, size_t len, struct serve_config *c);
/* The same from the file at path: read whole, at most SERVE_CONFIG_MAX bytes. */
int serve_config_load(const char *path, struct serve_config *c);
void serve_config_free(struct serve_config *c);

/* Whether a and b count the same thing the same way (their lines may differ). */
bool serve_metric_same(const struct serve_metric *a, const struct serve_metric *b);

/*
 * The ksnoop command line m stands for, NULL-terminated:
 *   { "count"|"hist", [--latency, --unit U], [--linear L,H,S], [--by B],
 *     [--max-keys N], [--comm P], [--cgroup P], [--from F --to T | spec...] }
 * The caller frees it with serve_argv_free. NULL when out of memory.
 */
char **serve_metric_argv(const struct serve_metric *m, int *argc);
void serve_argv_free(char **argv);

#endif
