// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/chrome.h"
#include "lib/json_writer.h"
#include "lib/util.h"

struct chrome {
	FILE *out;
	struct strbuf sb; /* the event being written */
	size_t events;
	bool failed; /* a write or an allocation failed */
};

struct chrome *chrome__new(FILE *out)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	sb_init(&c->sb);
	fputs("{\"traceEvents\":[", out);
	return c;
}

/* Microseconds from ns, exact: three decimals. */
static void put_us(struct jw *w, const char *key, unsigned long long ns)
{
	jw_key(w, key);
	jw_raw(w, "%llu.%03llu", ns / 1000, ns % 1000);
}

static bool args_json_ok(const char *s)
{
	size_t n = s ? strnlen(s, CHROME_ARGS_MAX + 1) : 0;

	return !s || (n >= 2 && n <= CHROME_ARGS_MAX && s[0] == '{' && s[n - 1] == '}');
}

/* The members of the object s, "" for "{}" or "{ }". */
static void object_members(const char *s, const char **start, size_t *len)
{
	const char *end = s + strlen(s) - 1; /* at the closing brace */

	for (s++; s < end && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r'); s++)
		;
	*start = s;
	*len = end - s;
}

static void put_args(struct jw *w, const struct chrome_event *e)
{
	const char *members = NULL;
	size_t i, mlen = 0;

	if (e->args_json)
		object_members(e->args_json, &members, &mlen);
	if (!e->nkv && !mlen)
		return;
	jw_key(w, "args");
	jw_object(w);
	for (i = 0; i < e->nkv; i++) {
		jw_key(w, e->kv[i].key);
		jw_strn(w, e->kv[i].val, CHROME_STR_MAX);
	}
	jw_members(w, members, mlen);
	jw_end(w);
}

/* Opens the event's object in c->sb, after the separator from the last. */
static void put_head(struct chrome *c, struct jw *w, const char *name, const char *cat, char ph)
{
	sb_reset(&c->sb);
	sb_printf(&c->sb, "%s\n", c->events ? "," : "");
	jw_init(w, &c->sb);
	jw_object(w);
	jw_kstrn(w, "name", name ? name : "", CHROME_NAME_MAX);
	if (cat)
		jw_kstrn(w, "cat", cat, CHROME_NAME_MAX);
	jw_key(w, "ph");
	jw_raw(w, "\"%c\"", ph);
}

static int put_end(struct chrome *c, struct jw *w)
{
	jw_end(w);
	if (c->sb.oom) {
		/* Start afresh: the flag stays until the buffer is freed. */
		sb_free(&c->sb);
		c->failed = true;
		return -ENOMEM;
	}
	if (fwrite(c->sb.buf, 1, c->sb.len, c->out) != c->sb.len)
		c->failed = true;
	c->events++;
	return 0;
}

static void put_ids(struct jw *w, unsigned int pid, unsigned int tid)
{
	jw_kuint(w, "pid", pid);
	jw_kuint(w, "tid", tid);
}

static int put_event(struct chrome *c, const struct chrome_event *e, char ph, char scope)
{
	struct jw w;

	if (!args_json_ok(e->args_json))
		return -EINVAL;
	put_head(c, &w, e->name, e->cat, ph);
	put_us(&w, "ts", e->ts_ns);
	if (ph == 'X')
		put_us(&w, "dur", e->dur_ns);
	if (scope) {
		jw_key(&w, "s");
		jw_raw(&w, "\"%c\"", scope);
	}
	put_ids(&w, e->pid, e->tid);
	put_args(&w, e);
	return put_end(c, &w);
}

int chrome__complete(struct chrome *c, const struct chrome_event *e)
{
	return put_event(c, e, 'X', 0);
}

int chrome__instant(struct chrome *c, const struct chrome_event *e, char scope)
{
	if (scope != 't' && scope != 'p' && scope != 'g')
		return -EINVAL;
	return put_event(c, e, 'i', scope);
}

static int put_name(struct chrome *c, const char *what, unsigned int pid, unsigned int tid,
		    const char *name)
{
	struct jw w;

	put_head(c, &w, what, NULL, 'M');
	put_ids(&w, pid, tid);
	jw_key(&w, "args");
	jw_object(&w);
	jw_kstrn(&w, "name", name, CHROME_NAME_MAX);
	jw_end(&w);
	return put_end(c, &w);
}

int chrome__thread_name(struct chrome *c, unsigned int pid, unsigned int tid, const char *name)
{
	return put_name(c, "thread_name", pid, tid, name);
}

int chrome__process_name(struct chrome *c, unsigned int pid, const char *name)
{
	return put_name(c, "process_name", pid, pid, name);
}

int chrome__finish(struct chrome *c)
{
	int ret;

	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", c->out);
	ret = fflush(c->out) || ferror(c->out) || c->failed ? -EIO : 0;
	sb_free(&c->sb);
	free(c);
	return ret;
}
