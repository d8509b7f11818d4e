/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregate tables (agg/table.h) as Prometheus metrics: the text
 * exposition format 0.0.4, served over HTTP (--prometheus HOST:PORT) or
 * written atomically to a file for node_exporter's textfile collector
 * (--textfile PATH).
 *
 * METRICS
 *
 *   ksnoop_calls_total                      counter, one series per row of
 *                                           each count table
 *   ksnoop_value_bucket, _sum, _count       histogram of a hist table's value
 *                                           (label value="skb->len": the
 *                                           expression as written)
 *   ksnoop_latency_seconds_bucket, _sum, _count
 *                                           histogram of --latency, in seconds
 *   ksnoop_lost_samples_total{reason="..."} counter: samples the kernel could
 *                                           not count ("key table full", ...);
 *                                           every reason is always present,
 *                                           0 included, so rate() works
 *
 * LABELS
 *
 *   func     the function: the row's own for a glob's table, else the spec's
 *            function as written. Always present, always first.
 *   one label per key field, named after the field: comm, pid, tid, cpu,
 *            kstack, or the value item ("skb->len" -> skb_len). A name is
 *            sanitized: each run of characters other than ASCII letters and
 *            digits (underscores included) becomes one '_', none is kept at
 *            either end (leading "__" is reserved by Prometheus), a leading
 *            digit gets a '_' before it ("1st" -> _1st), and an empty name
 *            becomes "key". "return" stays "return" (a valid label name;
 *            PromQL has no such keyword). A name that is
 *            already taken in its series - func, spec, value (ksnoop_value),
 *            le (histograms), folded, container and pod (beside a cgroup
 *            field), or an earlier field's - gets "_2" (or "_3",
 *            ...) appended: skb->len and skb_len become skb_len and skb_len_2.
 *   kstack   the stack's frames ("func+0xoff [module]") joined by ';',
 *            outermost first, the folded format flame graph tools read.
 *   cgroup   the task's cgroup v2 path; beside it container (the
 *            container's id) and pod (the Kubernetes pod's uid) where the
 *            path names them (lib/cgroup.h), else neither.
 *   folded   "true" on serve's series of the keys past a metric's cap
 *            (serve/cap.h), whose key labels read "other"; absent elsewhere.
 *   spec     only where two tables of one family could expose the same
 *            series (the same function twice with the same key fields, or
 *            a glob beside a function it matches or beside another glob):
 *            the table's position on the command line,
 *            1 for the first spec. Decided from the specs alone, so a series
 *            never changes its labels during a run.
 *   Label values are escaped as the format says (\\, \", \n); bytes that
 *   are not valid UTF-8 (a comm can hold any) become U+FFFD, since
 *   Prometheus rejects the whole scrape over one invalid label value.
 *
 * BUCKETS
 *
 *   Every bucket of the table's layout is always exposed, so no series
 *   appears in the middle of a run. le is the largest value a bucket
 *   holds, which makes the cumulative counts exact:
 *     values (integers): bucket [low, high) has le = high - 1; log2 gives
 *       le = 0, 1, 3, 7, ..., 2^64 - 1, and "-1" for the negative bucket
 *       (exposed for a signed value only); linear gives le = lo - 1 (below
 *       lo), lo + step - 1, ..., and the last bucket (hi and above) is
 *       le="+Inf" alone.
 *     --latency: the kernel measures nanoseconds and truncates them to the
 *       unit (ns, us, ms) before bucketing, so bucket [low, high) in the
 *       unit holds exactly the durations of at most high * unit - 1 ns;
 *       le is that, in seconds: us buckets read le = "0.000000999",
 *       "0.000001999", "0.000003999", ... _sum is the truncated values'
 *       sum, in seconds (at most one unit per call low).
 *   _count is the +Inf bucket's count.
 *
 * WARNING: the endpoint and the file expose kernel data - function
 * arguments, process names, kernel stacks with their addresses - to anyone
 * who can reach the address or read the file. Bind a loopback address
 * unless the network in between is trusted; there is no TLS and no
 * authentication.
 */
#ifndef KSNOOP_AGG_PROM_H
#define KSNOOP_AGG_PROM_H

#include <stdio.h>

#include "agg/table.h"

/* The Content-Type of the text format this writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/*
 * Write the exposition of nr tables (in spec order) and the drops (may be
 * NULL) to out. Returns 0, -EINVAL for a table the format cannot express
 * (an unknown unit, a layout whose bucket count disagrees), -ENOMEM, or
 * -EIO when out failed; prints nothing.
 */
int prom_write(FILE *out, struct agg_table *const *tables, int nr, const struct agg_drops *drops);

/*
 * serve's metric: the tables of one family (all count, or all hist of
 * the same kind) as the metric name with its help text, the labels as
 * above. -EINVAL for tables of different families, else as prom_write.
 */
int prom_write_named(FILE *out, const char *name, const char *help, struct agg_table *const *tables,
		     int nr);
/* # HELP (escaped as the format says) and # TYPE lines. */
void prom_put_header(FILE *out, const char *name, const char *type, const char *help);
/* name="value", the value escaped and made valid UTF-8 as above. */
void prom_put_label(FILE *out, const char *name, const char *value);

/* Writes the exposition to out: 0, or a negative errno (HTTP answers 500). */
typedef int (*prom_render_fn)(void *ctx, FILE *out);

/*
 * The same into path, atomically: a hidden temporary file beside it,
 * fsync, rename. Returns 0, or -errno after one "Error: ..." line; no
 * temporary file is left behind.
 */
int prom_textfile_write(const char *path, struct agg_table *const *tables, int nr,
			const struct agg_drops *drops);
/*
 * Whether prom_textfile_write could create its file at path: before any
 * probe attaches. 0, or -errno after one "Error: ..." line.
 */
int prom_textfile_check(const char *path);
/* What render writes, into path as prom_textfile_write does. */
int prom_textfile_render(const char *path, prom_render_fn render, void *ctx);

/*
 * HTTP: GET (or HEAD) /metrics answers the exposition render writes, with
 * Content-Type PROM_CONTENT_TYPE; any other path is 404, any other method
 * 405. render runs on the server's own thread, one request at a time, so
 * the caller locks what it shares with its main thread; a negative return
 * answers 500.
 */

struct prom_server;

/*
 * Bind and listen on hostport, "127.0.0.1:9100" or "[::1]:9100": a numeric
 * address (no name lookup, so exactly the address given is bound, and only
 * it; "[::]" is IPv6 alone, "0.0.0.0" IPv4 alone) and a port 1-65535.
 * Connections wait in the backlog, unanswered, until prom_server__serve.
 * Returns NULL after one "Error: ..." line on bad input, when the address
 * cannot be bound, or when ksnoop was built without libmicrohttpd
 * (HAVE_MHD=0: static builds, which cannot link it). Listening before the
 * probes attach puts these errors before any attach.
 */
struct prom_server *prom_server__listen(const char *hostport);
/*
 * Answer on srv's socket from a server thread. Clients cannot keep others
 * out: 16 connections, and one more shuts down the one that has waited
 * longest for its request; a request has 5 s from the accept (or the last
 * answer) to send its header, whatever it trickles, and 10 s to take its
 * answer; 32 KiB of headers; fewer connections when few descriptors are
 * free. Signals stay with the calling threads: the
 * server threads block them all. 0, or a negative errno after one
 * "Error: ..." line.
 */
int prom_server__serve(struct prom_server *srv, prom_render_fn render, void *ctx);
/* Both: listen, then serve. */
struct prom_server *prom_server__start(const char *hostport, prom_render_fn render, void *ctx);
/* Stops serving and frees srv (NULL is fine); waits for a request being answered. */
void prom_server__stop(struct prom_server *srv);

#endif
