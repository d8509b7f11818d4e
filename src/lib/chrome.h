/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chrome Trace Event JSON, the format Perfetto's UI, chrome://tracing and
 * speedscope open: {"traceEvents":[...],"displayTimeUnit":"ns"}, one event
 * per line. Times are given in ns and written in the format's microseconds
 * with three decimals, so nothing is rounded.
 */
#ifndef KSNOOP_CHROME_H
#define KSNOOP_CHROME_H

#include <stddef.h>
#include <stdio.h>

/* Bounds: longer names and string values are cut, longer args_json refused. */
#define CHROME_NAME_MAX 512
#define CHROME_STR_MAX 8192
#define CHROME_ARGS_MAX (1 << 20)

struct chrome;

/* A string argument: "key":"val", both escaped. */
struct chrome_arg {
	const char *key;
	const char *val;
};

struct chrome_event {
	const char *name;
	const char *cat; /* NULL: no "cat" */
	unsigned long long ts_ns;
	unsigned long long dur_ns; /* complete events only */
	unsigned int pid, tid;	   /* the kernel's tgid and tid */
	const struct chrome_arg *kv;
	size_t nkv;
	/*
	 * Typed arguments the caller rendered, a JSON object "{...}" written
	 * as it is, its members after those of kv. NULL: none.
	 */
	const char *args_json;
};

/* A writer to out (not closed); NULL when out of memory. */
struct chrome *chrome__new(FILE *out);
/*
 * One event each: 0, or -EINVAL (nothing written) when args_json is not
 * an object or longer than CHROME_ARGS_MAX.
 */
int chrome__complete(struct chrome *c, const struct chrome_event *e); /* "ph":"X" */
/* "ph":"i"; scope 't' (thread), 'p' (process) or 'g' (global). */
int chrome__instant(struct chrome *c, const struct chrome_event *e, char scope);
/* "ph":"M" metadata naming a thread or a process in the viewer. */
int chrome__thread_name(struct chrome *c, unsigned int pid, unsigned int tid, const char *name);
int chrome__process_name(struct chrome *c, unsigned int pid, const char *name);
/*
 * Close the JSON (also after no event at all), flush out and free c.
 * 0, or -EIO when an event could not be written (a write or an
 * allocation failed).
 */
int chrome__finish(struct chrome *c);

#endif
