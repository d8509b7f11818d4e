/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON writer into a strbuf: it places the commas, escapes strings and
 * closes what it opened, so a caller writes keys and values in order and
 * cannot produce invalid JSON by forgetting a separator. Every command
 * that prints JSON writes it through here.
 *
 *	jw_object(&w);
 *	jw_kstr(&w, "name", "ip_send_skb");
 *	jw_key(&w, "args");
 *	jw_array(&w);
 *	...
 *	jw_end(&w);
 *	jw_end(&w);
 */
#ifndef KSNOOP_JSON_WRITER_H
#define KSNOOP_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

/* Deeper nesting is written as null, and its ends are dropped. */
#define JW_MAX_DEPTH 256

struct jw {
	struct strbuf *sb;
	int depth;		     /* open objects and arrays */
	int dropped;		     /* opened past JW_MAX_DEPTH: written as null */
	bool key;		     /* a key was written: its value comes next */
	bool more[JW_MAX_DEPTH + 1]; /* the level has a member already */
	char close[JW_MAX_DEPTH + 1];
};

/* Appends to sb, which the caller owns and resets between documents. */
void jw_init(struct jw *w, struct strbuf *sb);
void jw_object(struct jw *w);
void jw_array(struct jw *w);
/* Closes the innermost object or array; nothing when none is open. */
void jw_end(struct jw *w);
void jw_key(struct jw *w, const char *key);

void jw_str(struct jw *w, const char *s);
/* At most max bytes of s (a NUL ends it earlier); NULL writes null. */
void jw_strn(struct jw *w, const char *s, size_t max);
void jw_int(struct jw *w, long long v);
void jw_uint(struct jw *w, unsigned long long v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* A value the caller formats: a number, or JSON it wrote itself. */
void jw_raw(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Members the caller rendered ("a":1,"b":2), spliced into the open object. */
void jw_members(struct jw *w, const char *members, size_t len);

/* A key and its value. */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_kint(struct jw *w, const char *key, long long v);
void jw_kuint(struct jw *w, const char *key, unsigned long long v);
void jw_kbool(struct jw *w, const char *key, bool v);
void jw_kstrn(struct jw *w, const char *key, const char *s, size_t max);

/* s as a JSON string, quotes included, at most max bytes of it. */
void jw_escape(struct strbuf *sb, const char *s, size_t max);

#endif
