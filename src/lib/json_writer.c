// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <string.h>

#include "lib/json_writer.h"

/*
 * The length of the well-formed UTF-8 sequence (RFC 3629) of 2 to 4 bytes
 * at s, of which n are there to read; 0 when there is none: a lone or
 * truncated byte, an overlong form, a surrogate or past U+10FFFF.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	/* the second byte's range, by the first: what rules out the bad forms */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/* One byte that is not part of a valid multi-byte sequence. */
static void escape_byte(struct strbuf *sb, unsigned char c)
{
	if (c == '"' || c == '\\')
		sb_printf(sb, "\\%c", c);
	else if (c < 0x20 || c >= 0x7f)
		sb_printf(sb, "\\u%04x", c);
	else
		sb_putc(sb, c);
}

/*
 * Valid UTF-8 is kept as written; controls, DEL and each byte of an
 * invalid sequence are escaped, the bytes as \u00XX. So are U+0080 to
 * U+009F, valid but C1 controls to a terminal (U+009B is CSI).
 */
void jw_escape(struct strbuf *sb, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n;

	max = strnlen(s, max);
	sb_putc(sb, '"');
	for (i = 0; i < max; i += n ? n : 1) {
		n = u[i] >= 0x80 ? utf8_seq_len(u + i, max - i) : 0;
		if (!n)
			escape_byte(sb, u[i]);
		else if (u[i] == 0xc2 && u[i + 1] <= 0x9f)
			sb_printf(sb, "\\u%04x", u[i + 1]);
		else
			sb_write(sb, u + i, n);
	}
	sb_putc(sb, '"');
}

void jw_init(struct jw *w, struct strbuf *sb)
{
	*w = (struct jw){ .sb = sb };
}

/*
 * Before any value or key: the comma that separates it from the last.
 * Top-level values are documents of their own (NDJSON lines): no comma.
 */
static void separate(struct jw *w)
{
	if (w->key) {
		w->key = false;
		return;
	}
	if (w->depth && w->more[w->depth])
		sb_putc(w->sb, ',');
	w->more[w->depth] = true;
}

static void open_level(struct jw *w, char open, char close)
{
	if (w->dropped || w->depth == JW_MAX_DEPTH) {
		if (!w->dropped)
			jw_null(w);
		w->dropped++;
		return;
	}
	separate(w);
	sb_putc(w->sb, open);
	w->depth++;
	w->more[w->depth] = false;
	w->close[w->depth] = close;
}

void jw_object(struct jw *w)
{
	open_level(w, '{', '}');
}

void jw_array(struct jw *w)
{
	open_level(w, '[', ']');
}

void jw_end(struct jw *w)
{
	if (w->dropped) {
		w->dropped--;
		return;
	}
	if (!w->depth)
		return;
	/* a key without its value: the value is null */
	if (w->key)
		jw_null(w);
	sb_putc(w->sb, w->close[w->depth--]);
}

void jw_key(struct jw *w, const char *key)
{
	if (w->dropped)
		return;
	separate(w);
	jw_escape(w->sb, key, SIZE_MAX);
	sb_putc(w->sb, ':');
	w->key = true;
}

void jw_strn(struct jw *w, const char *s, size_t max)
{
	if (!s) {
		jw_null(w);
		return;
	}
	if (w->dropped)
		return;
	separate(w);
	jw_escape(w->sb, s, max);
}

void jw_str(struct jw *w, const char *s)
{
	jw_strn(w, s, SIZE_MAX);
}

void jw_raw(struct jw *w, const char *fmt, ...)
{
	va_list ap;

	if (w->dropped)
		return;
	separate(w);
	va_start(ap, fmt);
	sb_vprintf(w->sb, fmt, ap);
	va_end(ap);
}

void jw_int(struct jw *w, long long v)
{
	jw_raw(w, "%lld", v);
}

void jw_uint(struct jw *w, unsigned long long v)
{
	jw_raw(w, "%llu", v);
}

void jw_bool(struct jw *w, bool v)
{
	jw_raw(w, "%s", v ? "true" : "false");
}

void jw_null(struct jw *w)
{
	jw_raw(w, "null");
}

void jw_members(struct jw *w, const char *members, size_t len)
{
	if (w->dropped || !len)
		return;
	separate(w);
	sb_write(w->sb, members, len);
}

void jw_kstrn(struct jw *w, const char *key, const char *s, size_t max)
{
	jw_key(w, key);
	jw_strn(w, s, max);
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

void jw_kint(struct jw *w, const char *key, long long v)
{
	jw_key(w, key);
	jw_int(w, v);
}

void jw_kuint(struct jw *w, const char *key, unsigned long long v)
{
	jw_key(w, key);
	jw_uint(w, v);
}

void jw_kbool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}
