// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop serve's configuration: text to struct serve_config, every problem
 * one "FILE:LINE: ..." error. No BPF, no kernel: what is checked here is
 * what a line of the file alone can be blamed for; the specs themselves
 * are ksnoop's to judge when the metric starts.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/trace.h"
#include "lib/util.h"
#include "agg/agg_opts.h"
#include "serve/config.h"

#define DAY_NS (86400ULL * 1000000000ULL)
/* linear's bounds: those of count's and hist's own --linear. */
#define LINEAR_MAX (1LL << 62)

enum { G_LISTEN, G_TEXTFILE, G_INTERVAL, G_MAX_SERIES, G_NR };
enum {
	M_HELP,
	M_KIND,
	M_SPEC,
	M_FROM,
	M_TO,
	M_BY,
	M_BUCKETS,
	M_UNIT,
	M_MAX_KEYS,
	M_MAX_SERIES,
	M_COMM,
	M_CGROUP,
	M_NR
};

struct parser;

struct key {
	const char *name;
	void (*set)(struct parser *p, void *base, const struct key *k, const char *v);
	size_t off;	    /* set_text, set_int: the field in base */
	long long min, max; /* set_int */
	bool repeat;
};

struct parser {
	const char *path;
	struct serve_config *c;
	struct serve_metric *m; /* the section being read; NULL before the first */
	/* A section past SERVE_MAX_METRICS: checked all the same, then dropped. */
	struct serve_metric extra;
	int line;
	int glines[G_NR]; /* each global key's first line, 0: not given */
	int mlines[M_NR]; /* the same for the current section's keys */
	bool kind_ok;	  /* m->kind was given and valid */
	bool over;	  /* "more than SERVE_MAX_METRICS" was said */
	bool nomem;
	int errors;
	char where[CLIP_BUF + 8];
};

static void __attribute__((format(printf, 3, 4)))
perr(struct parser *p, int line, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	sb_init(&sb);
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	util_set_where(p->path, line);
	p_err("%s", sb_str(&sb));
	util_set_where(NULL, 0);
	sb_free(&sb);
	p->errors++;
}

/* " in [name]" inside a section, else "": one use per message. */
static const char *in_sec(struct parser *p)
{
	char clip[CLIP_BUF];

	if (!p->m)
		return "";
	snprintf(p->where, sizeof(p->where), " in [%s]",
		 p->m->name ? str_clip(p->m->name, clip) : "");
	return p->where;
}

/* User text in a message, clipped; its buffer lasts to the end of the caller's block. */
#define CLIP(s) str_clip((s), (char[CLIP_BUF]){ 0 })

static char *copy_str(struct parser *p, const char *s)
{
	char *d = strdup(s);

	if (!d && !p->nomem) {
		p_err_nomem("reading the serve configuration");
		p->nomem = true;
	}
	return d;
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static bool has_control(const char *s)
{
	for (; *s; s++) {
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return true;
	}
	return false;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

struct item {
	const char *s;
	size_t len;
};

/*
 * The next comma-separated item of *s, blanks trimmed. *s moves past it
 * and its comma, to NULL after the last item.
 */
static struct item next_item(const char **s)
{
	const char *a = *s, *b = a + strcspn(a, ",");

	*s = *b ? b + 1 : NULL;
	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	return (struct item){ a, b - a };
}

static bool item_number(struct item it, long long min, long long max, long long *out)
{
	char num[32];

	if (it.len >= sizeof(num))
		return false;
	memcpy(num, it.s, it.len);
	num[it.len] = '\0';
	return !parse_long(num, min, max, out);
}

static void set_text(struct parser *p, void *base, const struct key *k, const char *v)
{
	*(char **)((char *)base + k->off) = copy_str(p, v);
}

static void set_int(struct parser *p, void *base, const struct key *k, const char *v)
{
	long long n;

	if (parse_long(v, k->min, k->max, &n)) {
		perr(p, p->line, "bad number '%s' for %s%s (%lld to %lld)", CLIP(v), k->name,
		     in_sec(p), k->min, k->max);
		return;
	}
	*(int *)((char *)base + k->off) = n;
}

/* "15s", "500ms", "2m", "1h"; a bare number is seconds, as in bcc's intervals. */
static int parse_interval(const char *s, unsigned long long *ns)
{
	static const struct {
		const char *suffix;
		unsigned long long mult;
	} units[] = { { "ms", 1000000ULL },
		      { "s", 1000000000ULL },
		      { "m", 60000000000ULL },
		      { "h", 3600000000000ULL },
		      { "", 1000000000ULL } };
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; i < ARRAY_SIZE(units) && !errno; i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (!v || v > DAY_NS / units[i].mult)
			return -ERANGE;
		*ns = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

static void set_interval(struct parser *p, void *base, const struct key *k, const char *v)
{
	if (parse_interval(v, (unsigned long long *)((char *)base + k->off)))
		perr(p, p->line,
		     "bad duration '%s' for %s: like 15s, 500ms, 2m or 1h, more than 0 and at most "
		     "1 day",
		     CLIP(v), k->name);
}

static void set_kind(struct parser *p, void *base, const struct key *k, const char *v)
{
	static const char *const kinds[] = {
		[SERVE_COUNT] = "count", [SERVE_HIST] = "hist", [SERVE_LATENCY] = "latency"
	};
	size_t i;

	(void)k;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!strcmp(v, kinds[i])) {
			((struct serve_metric *)base)->kind = i;
			p->kind_ok = true;
			return;
		}
	}
	perr(p, p->line, "unknown kind '%s'%s: count, hist or latency", CLIP(v), in_sec(p));
}

static void set_spec(struct parser *p, void *base, const struct key *k, const char *v)
{
	struct serve_metric *m = base;

	if (m->nr_specs == SERVE_MAX_SPECS) {
		perr(p, p->line, "more than %d '%s'%s", SERVE_MAX_SPECS, k->name, in_sec(p));
		return;
	}
	m->spec_lines[m->nr_specs] = p->line;
	m->specs[m->nr_specs++] = copy_str(p, v);
}

/* Stored in ksnoop's own order of the words, which is its keys' order whatever the user's. */
static void set_by(struct parser *p, void *base, const struct key *k, const char *v)
{
	static const char *const words[] = AGG_BY_WORDS;
	char by[AGG_BY_JOINED_MAX] = "";
	const char *rest = v;
	unsigned int bits = 0;
	struct item it;
	size_t i;

	while (rest) {
		it = next_item(&rest);
		if (!it.len) {
			perr(p, p->line, "%s%s has an empty item: a comma list of %s", k->name,
			     in_sec(p), AGG_BY_LIST);
			return;
		}
		for (i = 0; i < ARRAY_SIZE(words); i++) {
			if (it.len == strlen(words[i]) && !strncmp(it.s, words[i], it.len))
				break;
		}
		if (i == ARRAY_SIZE(words)) {
			perr(p, p->line, "unknown word '%.*s' in %s%s: a comma list of %s",
			     (int)min(it.len, CLIP_MAX), it.s, k->name, in_sec(p), AGG_BY_LIST);
			return;
		}
		if (bits & (1u << i)) {
			perr(p, p->line, "'%s' is twice in %s%s", words[i], k->name, in_sec(p));
			return;
		}
		bits |= 1u << i;
	}
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (bits & (1u << i)) {
			strcat(by, *by ? "," : "");
			strcat(by, words[i]);
		}
	}
	((struct serve_metric *)base)->by = copy_str(p, by);
}

/* LO,HI,STEP as count's and hist's --linear takes them, so that ksnoop agrees later. */
static bool parse_linear(const char *s, long long v[3])
{
	long long range;
	int i;

	for (i = 0; i < 3 && s; i++) {
		if (!item_number(next_item(&s), i == 2 ? 1 : -LINEAR_MAX, LINEAR_MAX, &v[i]))
			return false;
	}
	if (i < 3 || s || v[1] <= v[0])
		return false;
	range = v[1] - v[0];
	return range % v[2] == 0 && range / v[2] <= KSNOOP_HIST_BUCKETS - 2;
}

static void set_buckets(struct parser *p, void *base, const struct key *k, const char *v)
{
	char buf[96];
	long long n[3];

	if (!strcmp(v, "log2"))
		return;
	if (strncmp(v, "linear", 6) || (v[6] != ' ' && v[6] != '\t') || !parse_linear(v + 7, n)) {
		perr(p, p->line,
		     "bad %s '%s'%s: log2, or linear LO,HI,STEP (integers, LO < HI, STEP > 0 "
		     "dividing HI - LO in at most %d steps)",
		     k->name, CLIP(v), in_sec(p), KSNOOP_HIST_BUCKETS - 2);
		return;
	}
	snprintf(buf, sizeof(buf), "%lld,%lld,%lld", n[0], n[1], n[2]);
	((struct serve_metric *)base)->linear = copy_str(p, buf);
}

static void set_unit(struct parser *p, void *base, const struct key *k, const char *v)
{
	if (strcmp(v, "ns") && strcmp(v, "us") && strcmp(v, "ms")) {
		perr(p, p->line, "bad %s '%s'%s: ns, us or ms", k->name, CLIP(v), in_sec(p));
		return;
	}
	((struct serve_metric *)base)->unit = copy_str(p, v);
}

#define TEXT(s, f) .set = set_text, .off = offsetof(s, f)
#define INT(s, f, lo, hi) .set = set_int, .off = offsetof(s, f), .min = (lo), .max = (hi)

static const struct key global_keys[] = {
	[G_LISTEN] = { .name = "listen", TEXT(struct serve_config, listen) },
	[G_TEXTFILE] = { .name = "textfile", TEXT(struct serve_config, textfile) },
	[G_INTERVAL] = { .name = "textfile-interval",
			 .set = set_interval,
			 .off = offsetof(struct serve_config, textfile_ns) },
	[G_MAX_SERIES] = { .name = "max-series",
			   INT(struct serve_config, max_series, 1, SERVE_MAX_SERIES_LIMIT) },
};

static const struct key metric_keys[] = {
	[M_HELP] = { .name = "help", TEXT(struct serve_metric, help) },
	[M_KIND] = { .name = "kind", .set = set_kind },
	[M_SPEC] = { .name = "spec", .set = set_spec, .repeat = true },
	[M_FROM] = { .name = "from", TEXT(struct serve_metric, from) },
	[M_TO] = { .name = "to", TEXT(struct serve_metric, to) },
	[M_BY] = { .name = "by", .set = set_by },
	[M_BUCKETS] = { .name = "buckets", .set = set_buckets },
	[M_UNIT] = { .name = "unit", .set = set_unit },
	[M_MAX_KEYS] = { .name = "max-keys", INT(struct serve_metric, max_keys, 1, 1 << 20) },
	[M_MAX_SERIES] = { .name = "max-series",
			   INT(struct serve_metric, max_series, 1, SERVE_MAX_SERIES_LIMIT) },
	[M_COMM] = { .name = "comm", TEXT(struct serve_metric, comm) },
	[M_CGROUP] = { .name = "cgroup", TEXT(struct serve_metric, cgroup) },
};

_Static_assert(ARRAY_SIZE(global_keys) == G_NR, "a global key without its name");
_Static_assert(ARRAY_SIZE(metric_keys) == M_NR, "a metric key without its name");

static int find_key(const struct key *keys, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(keys[i].name, name))
			return i;
	}
	return -1;
}

static void unknown_key(struct parser *p, const struct key *keys, size_t n, const char *name)
{
	int best = -1, d, dmax = suggest_max_distance(name), dbest = dmax + 1;
	size_t i;

	if (!p->m && find_key(metric_keys, ARRAY_SIZE(metric_keys), name) >= 0) {
		perr(p, p->line, "key '%s' belongs in a [metric] section, after the global keys",
		     name);
		return;
	}
	if (p->m && find_key(global_keys, ARRAY_SIZE(global_keys), name) >= 0) {
		perr(p, p->line, "key '%s' is global: give it before the first [metric], not%s",
		     name, in_sec(p));
		return;
	}
	for (i = 0; i < n; i++) {
		d = edit_distance(name, keys[i].name, dmax);
		if (d < dbest) {
			best = i;
			dbest = d;
		}
	}
	perr(p, p->line, "unknown %skey '%s'%s%s%s%s", p->m ? "" : "global ", CLIP(name), in_sec(p),
	     best >= 0 ? " (did you mean '" : "", best >= 0 ? keys[best].name : "",
	     best >= 0 ? "'?)" : "");
}

static void parse_key(struct parser *p, const char *name, const char *v)
{
	const struct key *keys = p->m ? metric_keys : global_keys;
	size_t n = p->m ? ARRAY_SIZE(metric_keys) : ARRAY_SIZE(global_keys);
	int *lines = p->m ? p->mlines : p->glines;
	void *base = p->m ? (void *)p->m : (void *)p->c;
	int i = find_key(keys, n, name);

	if (!*name) {
		perr(p, p->line, "a key is missing before '='");
		return;
	}
	if (i < 0) {
		unknown_key(p, keys, n, name);
		return;
	}
	if (lines[i] && !keys[i].repeat) {
		perr(p, p->line, "key '%s' given twice%s (first at line %d)", name, in_sec(p),
		     lines[i]);
		return;
	}
	if (!lines[i])
		lines[i] = p->line;
	if (!*v)
		perr(p, p->line, "key '%s' has an empty value%s", name, in_sec(p));
	else if (has_control(v))
		perr(p, p->line, "the value of '%s'%s has a control character", name, in_sec(p));
	else
		keys[i].set(p, base, &keys[i], v);
}

static bool is_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	}
	return true;
}

static void check_name(struct parser *p, const char *name)
{
	int i;

	if (!is_name(name)) {
		perr(p, p->line,
		     "bad metric name '%s': letters, digits and '_', not starting with a digit",
		     CLIP(name));
	} else if (!strncmp(name, "__", 2)) {
		perr(p, p->line, "metric name '%s' starts with '__', which Prometheus reserves",
		     CLIP(name));
	} else if (!strncmp(name, "ksnoop_serve_", 13)) {
		perr(p, p->line,
		     "metric name '%s' is reserved: ksnoop_serve_* are the exporter's own",
		     CLIP(name));
	}
	for (i = 0; i < p->c->nr; i++) {
		if (&p->c->metrics[i] != p->m && p->c->metrics[i].name &&
		    !strcmp(p->c->metrics[i].name, name)) {
			perr(p, p->line, "duplicate metric [%s] (first at line %d)", CLIP(name),
			     p->c->metrics[i].line);
			break;
		}
	}
}

static void free_metric(struct serve_metric *m)
{
	int i;

	for (i = 0; i < m->nr_specs; i++)
		free(m->specs[i]);
	free(m->name);
	free(m->help);
	free(m->from);
	free(m->to);
	free(m->by);
	free(m->linear);
	free(m->unit);
	free(m->comm);
	free(m->cgroup);
	memset(m, 0, sizeof(*m));
}

/* The first line of the section's span, from or to; 0 without one. */
static int span_line(const struct parser *p)
{
	int from = p->mlines[M_FROM], to = p->mlines[M_TO];

	return from && to ? min(from, to) : from | to;
}

/* Either specs or a span, never both, and a span needs both of its ends. */
static void check_source(struct parser *p)
{
	int spec = p->mlines[M_SPEC], from = p->mlines[M_FROM], to = p->mlines[M_TO];
	int span = span_line(p);

	if (spec && span)
		perr(p, max(spec, span), "'spec' and 'from'/'to' cannot both be given%s",
		     in_sec(p));
	else if (from && !to)
		perr(p, from, "'from' without 'to'%s: a span needs both", in_sec(p));
	else if (to && !from)
		perr(p, to, "'to' without 'from'%s: a span needs both", in_sec(p));
	else if (!spec && !span)
		perr(p, p->m->line, "'spec' (or 'from' and 'to') is missing%s", in_sec(p));
}

static void check_kind(struct parser *p)
{
	static const char *const series[] = { "_total", "_bucket", "_sum", "_count" };
	const struct serve_metric *m = p->m;
	const char *name = m->name ? m->name : "";
	int span = span_line(p);
	size_t i;

	/* A bad name has had its error: its suffix is beside the point. */
	if (!is_name(name))
		name = "";
	if (m->kind == SERVE_COUNT && *name && !ends_with(name, "_total"))
		perr(p, m->line, "metric name '%s' of kind count must end in _total", CLIP(name));
	if (m->kind == SERVE_LATENCY && *name && !ends_with(name, "_seconds"))
		perr(p, m->line, "metric name '%s' of kind latency must end in _seconds",
		     CLIP(name));
	for (i = 0; m->kind == SERVE_HIST && i < ARRAY_SIZE(series); i++) {
		if (ends_with(name, series[i]))
			perr(p, m->line, "metric name '%s' of kind hist must not end in %s",
			     CLIP(name), series[i]);
	}
	if (m->kind == SERVE_HIST && span)
		perr(p, span,
		     "kind hist takes no 'from'/'to'%s: a hist of a span is kind = latency",
		     in_sec(p));
	if (m->kind == SERVE_COUNT && p->mlines[M_BUCKETS])
		perr(p, p->mlines[M_BUCKETS], "'buckets'%s is for kind hist or latency, not count",
		     in_sec(p));
	if (m->kind != SERVE_LATENCY && p->mlines[M_UNIT])
		perr(p, p->mlines[M_UNIT], "'unit'%s is for kind latency only", in_sec(p));
}

static void end_section(struct parser *p)
{
	if (!p->m)
		return;
	if (!p->mlines[M_HELP])
		perr(p, p->m->line, "'help' is missing%s", in_sec(p));
	if (!p->mlines[M_KIND])
		perr(p, p->m->line, "'kind' is missing%s: count, hist or latency", in_sec(p));
	check_source(p);
	if (p->kind_ok)
		check_kind(p);
	if (p->m == &p->extra)
		free_metric(&p->extra);
	p->m = NULL;
}

static void start_section(struct parser *p, char *s)
{
	struct serve_config *c = p->c;
	size_t n = strlen(s);
	bool closed = n > 1 && s[n - 1] == ']';

	end_section(p);
	if (closed)
		s[n - 1] = '\0';
	else
		perr(p, p->line, "'%s' is no section header: expected '[metric]' alone on its line",
		     CLIP(s));
	if (c->nr < SERVE_MAX_METRICS) {
		p->m = &c->metrics[c->nr++];
	} else {
		if (!p->over)
			perr(p, p->line, "more than %d metrics", SERVE_MAX_METRICS);
		p->over = true;
		p->m = &p->extra;
	}
	p->m->name = copy_str(p, s + 1);
	p->m->line = p->line;
	memset(p->mlines, 0, sizeof(p->mlines));
	p->kind_ok = false;
	if (closed)
		check_name(p, s + 1);
}

static void parse_line(struct parser *p, char *s)
{
	char *eq;

	s = trim(s);
	if (!*s || *s == '#' || *s == ';')
		return;
	if (*s == '[') {
		start_section(p, s);
		return;
	}
	eq = strchr(s, '=');
	if (!eq) {
		perr(p, p->line, "expected 'key = value' or '[metric]', not '%s'", CLIP(s));
		return;
	}
	*eq = '\0';
	parse_key(p, trim(s), trim(eq + 1));
}

/* What needs the whole file: at least one metric, and where to serve them. */
static void end_file(struct parser *p)
{
	struct serve_config *c = p->c;

	end_section(p);
	if (!c->nr)
		perr(p, max(p->line, 1), "no [metric] section: the file defines no metric");
	if (!c->listen && !c->textfile)
		c->listen = copy_str(p, SERVE_DEFAULT_LISTEN);
}

int serve_config_parse(const char *path, const char *text, size_t len, struct serve_config *c)
{
	struct parser p = { .path = path, .c = c };
	char buf[SERVE_LINE_MAX + 1];
	const char *s, *nl;
	size_t pos = 0, n;

	memset(c, 0, sizeof(*c));
	c->path = copy_str(&p, path);
	c->max_series = SERVE_DEFAULT_MAX_SERIES;
	c->textfile_ns = SERVE_DEFAULT_TEXTFILE_NS;
	while (pos < len) {
		s = text + pos;
		nl = memchr(s, '\n', len - pos);
		n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + !!nl;
		p.line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (n > SERVE_LINE_MAX) {
			perr(&p, p.line, "line longer than %d bytes", SERVE_LINE_MAX);
		} else if (memchr(s, '\0', n)) {
			perr(&p, p.line, "a NUL byte: the file must be text");
		} else {
			memcpy(buf, s, n);
			buf[n] = '\0';
			parse_line(&p, buf);
		}
	}
	end_file(&p);
	free_metric(&p.extra);
	if (p.nomem)
		return -ENOMEM;
	return p.errors ? -EINVAL : 0;
}

/* Up to SERVE_CONFIG_MAX + 1 bytes into buf: one more tells a file too large. */
static ssize_t read_all(int fd, char *buf)
{
	size_t got = 0;
	ssize_t n;

	while (got <= SERVE_CONFIG_MAX) {
		n = read(fd, buf + got, SERVE_CONFIG_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += n;
	}
	return got;
}

int serve_config_load(const char *path, struct serve_config *c)
{
	char *buf;
	ssize_t n;
	int fd, err;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		p_err("%s: %s", path, err_text(err));
		return err;
	}
	buf = malloc(SERVE_CONFIG_MAX + 1);
	if (!buf) {
		close(fd);
		return p_err_nomem("reading the serve configuration");
	}
	n = read_all(fd, buf);
	close(fd);
	if (n < 0) {
		p_err("%s: %s", path, err_text(n));
		err = n;
	} else if (n > SERVE_CONFIG_MAX) {
		p_err("%s: larger than %d bytes, the most a configuration may have", path,
		      SERVE_CONFIG_MAX);
		err = -EFBIG;
	} else {
		err = serve_config_parse(path, buf, n, c);
	}
	free(buf);
	return err;
}

void serve_config_free(struct serve_config *c)
{
	int i;

	for (i = 0; i < c->nr && i < SERVE_MAX_METRICS; i++)
		free_metric(&c->metrics[i]);
	free(c->path);
	free(c->listen);
	free(c->textfile);
	memset(c, 0, sizeof(*c));
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool serve_metric_same(const struct serve_metric *a, const struct serve_metric *b)
{
	int i;

	if (a->kind != b->kind || a->nr_specs != b->nr_specs || a->max_keys != b->max_keys ||
	    a->max_series != b->max_series)
		return false;
	for (i = 0; i < a->nr_specs; i++) {
		if (!str_same(a->specs[i], b->specs[i]))
			return false;
	}
	return str_same(a->name, b->name) && str_same(a->help, b->help) &&
	       str_same(a->from, b->from) && str_same(a->to, b->to) && str_same(a->by, b->by) &&
	       str_same(a->linear, b->linear) && str_same(a->unit, b->unit) &&
	       str_same(a->comm, b->comm) && str_same(a->cgroup, b->cgroup);
}

/* Appends "opt" then val, when val is set; false when out of memory. */
static bool push(char **argv, int *n, const char *opt, const char *val)
{
	if (!val)
		return true;
	if (opt && !(argv[(*n)++] = strdup(opt)))
		return false;
	return (argv[(*n)++] = strdup(val)) != NULL;
}

/* The words before the specs: at most 1 + 3 + 2 * 5. */
#define ARGV_OPTS 14

char **serve_metric_argv(const struct serve_metric *m, int *argc)
{
	char **argv = calloc(ARGV_OPTS + SERVE_MAX_SPECS + 2, sizeof(*argv));
	char keys[16];
	bool ok;
	int n = 0, i;

	if (!argv)
		return NULL;
	snprintf(keys, sizeof(keys), "%d", m->max_keys);
	ok = push(argv, &n, NULL, m->kind == SERVE_COUNT ? "count" : "hist");
	if (m->kind == SERVE_LATENCY)
		ok = ok && push(argv, &n, NULL, "--latency") &&
		     push(argv, &n, "--unit", m->unit ? m->unit : "us");
	ok = ok && push(argv, &n, "--linear", m->linear) && push(argv, &n, "--by", m->by) &&
	     push(argv, &n, "--max-keys", m->max_keys > 0 ? keys : NULL) &&
	     push(argv, &n, "--comm", m->comm) && push(argv, &n, "--cgroup", m->cgroup);
	if (m->from || m->to)
		ok = ok && push(argv, &n, "--from", m->from) && push(argv, &n, "--to", m->to);
	for (i = 0; !m->from && !m->to && i < m->nr_specs && i < SERVE_MAX_SPECS; i++)
		ok = ok && push(argv, &n, NULL, m->specs[i]);
	if (!ok) {
		serve_argv_free(argv);
		return NULL;
	}
	*argc = n;
	return argv;
}

void serve_argv_free(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}
