// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregate tables as text, folded stacks and NDJSON (format.h). The text
 * histograms keep bpftrace's hist()/lhist() layout, so its readers (and
 * their scripts) read ours: a 16-column left-aligned bucket label, an
 * 8-column right-aligned count, and a 52-column bar of '@' scaled to the
 * fullest bucket.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "agg/format.h"
#include "lib/json_writer.h"
#include "lib/util.h"

#define LABEL_WIDTH 16
#define COUNT_WIDTH 8
#define BAR_WIDTH 52
#define LABEL_MAX 64 /* "[-9223372036854775808, -9223372036854775807)" fits */
#define NUM_MAX 24   /* an int64 or uint64 in decimal */

/* ---- row order ---- */

/* -?(0|[1-9][0-9]*): a decimal integer, as JSON writes one. */
static bool is_integer_text(const char *s)
{
	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1]))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

/* Integers by value, of any length: the sign, then the digits' count, then the digits. */
static int integer_text_cmp(const char *a, const char *b)
{
	bool neg_a = *a == '-', neg_b = *b == '-';
	size_t len_a = strlen(a), len_b = strlen(b);
	int cmp;

	if (neg_a != neg_b)
		return neg_a ? -1 : 1;
	cmp = len_a != len_b ? (len_a < len_b ? -1 : 1) : strcmp(a, b);
	return neg_a ? -cmp : cmp;
}

static int text_cmp(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	if (is_integer_text(a) && is_integer_text(b))
		return integer_text_cmp(a, b);
	return strcmp(a, b);
}

static int val_cmp(const struct agg_val *a, const struct agg_val *b)
{
	int i, cmp;

	for (i = 0; i < a->nr_frames && i < b->nr_frames; i++) {
		cmp = strcmp(a->frames[i], b->frames[i]);
		if (cmp)
			return cmp;
	}
	if (a->nr_frames != b->nr_frames)
		return a->nr_frames < b->nr_frames ? -1 : 1;
	return text_cmp(a->text, b->text);
}

static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct agg_table *t = ctx;
	int a = *(const int *)pa, b = *(const int *)pb;
	const struct agg_row *ra = &t->rows[a], *rb = &t->rows[b];
	int i, cmp;

	if (ra->count != rb->count)
		return ra->count > rb->count ? -1 : 1;
	for (i = 0; i < t->nr_fields; i++) {
		cmp = val_cmp(&ra->key[i], &rb->key[i]);
		if (cmp)
			return cmp;
	}
	return a < b ? -1 : a > b;
}

int *agg_row_order(const struct agg_table *t)
{
	int *order, i;

	if (t->nr_rows <= 0)
		return NULL;
	order = calloc(t->nr_rows, sizeof(*order));
	if (!order)
		return NULL;
	for (i = 0; i < t->nr_rows; i++)
		order[i] = i;
	qsort_r(order, t->nr_rows, sizeof(*order), row_cmp, (void *)t);
	return order;
}

/* The i-th row shown; table order when sorting ran out of memory. */
static const struct agg_row *row_at(const struct agg_table *t, const int *order, int i)
{
	return &t->rows[order ? order[i] : i];
}

static const struct agg_print_opts no_opts;

static int rows_shown(const struct agg_table *t, const struct agg_print_opts *o)
{
	return o->top > 0 && o->top < t->nr_rows ? o->top : t->nr_rows;
}

/* "... 12 more rows" where top left rows out; blank_after where blocks end with a blank line. */
static void print_more(FILE *f, int left, bool blank_after)
{
	if (left > 0)
		fprintf(f, "... %d more row%s\n%s", left, left == 1 ? "" : "s",
			blank_after ? "\n" : "");
}

/* ---- keys ---- */

static int field_index(const struct agg_table *t, enum agg_field_kind kind)
{
	int i;

	for (i = 0; i < t->nr_fields; i++)
		if (t->fields[i].kind == kind)
			return i;
	return -1;
}

static const char *val_text(const struct agg_val *v)
{
	return v->text ? v->text : "";
}

/* The function a row counted: its "func" key under a glob, else the spec's. */
static const char *row_func(const struct agg_table *t, const struct agg_row *r)
{
	int i = field_index(t, AGG_F_FUNC);

	return i >= 0 ? val_text(&r->key[i]) : t->func;
}

/* The fields a histogram's title lists (its func and stack have their own places). */
static bool is_label_field(const struct agg_field *fl)
{
	return fl->kind != AGG_F_FUNC && !agg_field_is_stack(fl->kind);
}

static void print_frames(FILE *f, const struct agg_val *v, const char *indent)
{
	int i;

	for (i = 0; i < v->nr_frames; i++)
		fprintf(f, "%s%s\n", indent, v->frames[i]);
}

/* Every stack key of r, a frame a line: the kernel's, then the user's. */
static void print_row_stacks(FILE *f, const struct agg_table *t, const struct agg_row *r)
{
	int i;

	for (i = 0; i < t->nr_fields; i++)
		if (agg_field_is_stack(t->fields[i].kind))
			print_frames(f, &r->key[i], "  ");
}

/* " name=text" for each title field of r; returns how many. */
static int print_key_pairs(FILE *f, const struct agg_table *t, const struct agg_row *r,
			   const char *first_sep)
{
	int i, n = 0;

	for (i = 0; i < t->nr_fields; i++) {
		if (!is_label_field(&t->fields[i]))
			continue;
		fprintf(f, "%s%s=", n ? " " : first_sep, t->fields[i].name);
		fput_c_escaped(f, val_text(&r->key[i]), SIZE_MAX);
		n++;
	}
	return n;
}

static void print_ts(FILE *f, const struct agg_print_opts *o)
{
	if (o->ts)
		fprintf(f, "[%s]\n", o->ts);
}

/* ---- histogram labels ---- */

/* 2^power with bpftrace's suffixes for powers of 1024: 1K, 2M, 16E. */
static void pow2_label(char *buf, size_t size, int power)
{
	int decade = power / 10;

	snprintf(buf, size, "%llu%.1s", 1ULL << (power - 10 * decade), &"\0KMGTPE"[decade]);
}

static void log2_label(char *buf, size_t size, int idx)
{
	char low[NUM_MAX], high[NUM_MAX];

	if (idx == 0) {
		snprintf(buf, size, "(..., 0)");
	} else if (idx <= 2) {
		snprintf(buf, size, "[%d]", idx - 1);
	} else {
		pow2_label(low, sizeof(low), idx - 2);
		pow2_label(high, sizeof(high), idx - 1);
		snprintf(buf, size, "[%s, %s)", low, high);
	}
}

/* As bpftrace's lhist(): K and M suffixes only when the step is a multiple of 1024. */
static void linear_value_label(char *buf, size_t size, int64_t v, long long step)
{
	const int64_t kilo = 1024, mega = 1024 * 1024;

	if (step % kilo || v == 0)
		snprintf(buf, size, "%lld", (long long)v);
	else if (v % mega == 0)
		snprintf(buf, size, "%lldM", (long long)(v / mega));
	else if (v % kilo == 0)
		snprintf(buf, size, "%lldK", (long long)(v / kilo));
	else
		snprintf(buf, size, "%lld", (long long)v);
}

/*
 * The last bucket's label is its low edge, lo + n * step: that is hi when
 * step divides hi - lo, and otherwise the first value the bucket holds.
 */
static void linear_label(char *buf, size_t size, const struct agg_layout *l, int idx)
{
	char low[NUM_MAX] = "", high[NUM_MAX] = "";
	int64_t lv, hv;

	agg_bucket_bounds(l, idx, &lv, &hv);
	if (idx > 0)
		linear_value_label(low, sizeof(low), lv, l->step);
	if (idx < l->nr_buckets - 1)
		linear_value_label(high, sizeof(high), hv, l->step);
	if (idx == 0)
		snprintf(buf, size, "(..., %s)", high);
	else if (idx == l->nr_buckets - 1)
		snprintf(buf, size, "[%s, ...)", low);
	else
		snprintf(buf, size, "[%s, %s)", low, high);
}

static void bucket_label(char *buf, size_t size, const struct agg_layout *l, int idx)
{
	if (l->scale == AGG_LOG2)
		log2_label(buf, size, idx);
	else
		linear_label(buf, size, l, idx);
}

/* ---- histograms ---- */

/* The layout's buckets, no more than log2 has (its labels stop at 2^64). */
static int nr_buckets(const struct agg_layout *l)
{
	if (l->scale == AGG_LOG2 && l->nr_buckets > AGG_LOG2_BUCKETS)
		return AGG_LOG2_BUCKETS;
	return l->nr_buckets;
}

/* count / max * BAR_WIDTH, rounded down, without overflowing on huge counts. */
static int bar_len(uint64_t count, uint64_t max)
{
	if (!max)
		return 0;
	if (max > UINT64_MAX / BAR_WIDTH)
		return count / (max / BAR_WIDTH);
	return count * BAR_WIDTH / max;
}

/* The non-empty range [*first, *last] of r's buckets and its fullest count; false if none. */
static bool bucket_range(const struct agg_table *t, const struct agg_row *r, int *first, int *last,
			 uint64_t *max)
{
	int i;

	*first = *last = -1;
	*max = 0;
	for (i = 0; r->buckets && i < nr_buckets(&t->layout); i++) {
		if (!r->buckets[i])
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
		if (r->buckets[i] > *max)
			*max = r->buckets[i];
	}
	return *first >= 0;
}

static void print_bucket(FILE *f, const char *label, uint64_t count, uint64_t max)
{
	static const char bar[BAR_WIDTH + 1] =
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

	fprintf(f, "%-*s%*llu |%-*.*s|\n", LABEL_WIDTH, label, COUNT_WIDTH,
		(unsigned long long)count, BAR_WIDTH, bar_len(count, max), bar);
}

static void print_buckets(FILE *f, const struct agg_table *t, const struct agg_row *r)
{
	char label[LABEL_MAX];
	int i, first, last;
	uint64_t max;

	if (!bucket_range(t, r, &first, &last, &max))
		return;
	for (i = first; i <= last; i++) {
		bucket_label(label, sizeof(label), &t->layout, i);
		print_bucket(f, label, r->buckets[i], max);
	}
}

static const char *stat_text(char buf[NUM_MAX], int64_t v, bool is_signed)
{
	if (is_signed)
		snprintf(buf, NUM_MAX, "%lld", (long long)v);
	else
		snprintf(buf, NUM_MAX, "%llu", (unsigned long long)(uint64_t)v);
	return buf;
}

static double row_mean(const struct agg_row *r)
{
	if (r->is_signed)
		return (double)r->sum / r->count;
	return (double)(uint64_t)r->sum / r->count;
}

/* "count 10, sum 3180, min 78, max 1028, mean 318.00" */
static void print_stats(FILE *f, const struct agg_row *r)
{
	char sum[NUM_MAX], min[NUM_MAX], max[NUM_MAX];

	fprintf(f, "count %llu", (unsigned long long)r->count);
	if (r->count)
		fprintf(f, ", sum %s, min %s, max %s, mean %.2f",
			stat_text(sum, r->sum, r->is_signed), stat_text(min, r->min, r->is_signed),
			stat_text(max, r->max, r->is_signed), row_mean(r));
	fputc('\n', f);
}

/* "ip_send_skb: latency (us), comm=sshd pid=42" and the row's stack below it. */
static void print_hist_title(FILE *f, const struct agg_table *t, const struct agg_row *r)
{
	fprintf(f, "%s: %s", r ? row_func(t, r) : t->func, t->value ? t->value : "value");
	if (t->unit)
		fprintf(f, " (%s)", t->unit);
	if (r)
		print_key_pairs(f, t, r, ", ");
	fputc('\n', f);
	if (r)
		print_row_stacks(f, t, r);
}

static void print_hist_row(FILE *f, const struct agg_table *t, const struct agg_row *r)
{
	print_hist_title(f, t, r);
	print_stats(f, r);
	print_buckets(f, t, r);
	fputc('\n', f);
}

static void print_hist_text(FILE *f, const struct agg_table *t, const struct agg_print_opts *o)
{
	int *order = agg_row_order(t);
	int i, shown = rows_shown(t, o);

	if (!t->nr_rows) {
		print_hist_title(f, t, NULL);
		fprintf(f, "count 0\n\n");
	}
	for (i = 0; i < shown; i++)
		print_hist_row(f, t, row_at(t, order, i));
	print_more(f, t->nr_rows - shown, true);
	free(order);
}

/* ---- count tables ---- */

/* COMM, PID: built-in keys in upper case, as bcc's tools head them; expressions as written. */
static void column_head(char *buf, size_t size, const struct agg_field *fl)
{
	size_t i;

	snprintf(buf, size, "%s", fl->name ? fl->name : "");
	for (i = 0; fl->kind != AGG_F_VALUE && buf[i]; i++)
		buf[i] = toupper((unsigned char)buf[i]);
}

#define COLUMN_MAX 64 /* wider keys print whole, out of line */

static int clamp_width(size_t len, int width)
{
	int w = len > COLUMN_MAX ? COLUMN_MAX : (int)len;

	return w > width ? w : width;
}

/* Widths of the key columns (the heads' and the shown rows' texts) and of COUNT. */
static void column_widths(const struct agg_table *t, const int *order, int shown, int *widths,
			  int *count_width)
{
	char head[COLUMN_MAX + 1], num[NUM_MAX];
	int i, j;

	*count_width = strlen("COUNT");
	for (j = 0; j < t->nr_fields; j++) {
		column_head(head, sizeof(head), &t->fields[j]);
		widths[j] = clamp_width(strlen(head), 0);
	}
	for (i = 0; i < shown; i++) {
		const struct agg_row *r = row_at(t, order, i);

		for (j = 0; j < t->nr_fields; j++)
			widths[j] = clamp_width(c_escaped_len(val_text(&r->key[j]), SIZE_MAX),
						widths[j]);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->count);
		*count_width = clamp_width(strlen(num), *count_width);
	}
}

static void print_count_head(FILE *f, const struct agg_table *t, const int *widths, int count_width)
{
	char head[COLUMN_MAX + 1];
	int j;

	for (j = 0; j < t->nr_fields; j++) {
		column_head(head, sizeof(head), &t->fields[j]);
		fprintf(f, "%-*s  ", widths[j], head);
	}
	fprintf(f, "%*s\n", count_width, "COUNT");
}

static void print_count_line(FILE *f, const struct agg_table *t, const struct agg_row *r,
			     const int *widths, int count_width)
{
	int j;

	for (j = 0; j < t->nr_fields; j++) {
		const char *text = val_text(&r->key[j]);
		size_t len = c_escaped_len(text, SIZE_MAX);

		fput_c_escaped(f, text, SIZE_MAX);
		fprintf(f, "%*s  ", len < (size_t)widths[j] ? widths[j] - (int)len : 0, "");
	}
	fprintf(f, "%*llu\n", count_width, (unsigned long long)r->count);
}

static void print_count_columns(FILE *f, const struct agg_table *t, const int *order, int shown)
{
	int *widths = calloc(t->nr_fields > 0 ? (size_t)t->nr_fields : 1, sizeof(*widths));
	int i, count_width;

	if (!widths)
		return;
	column_widths(t, order, shown, widths, &count_width);
	print_count_head(f, t, widths, count_width);
	for (i = 0; i < shown; i++)
		print_count_line(f, t, row_at(t, order, i), widths, count_width);
	free(widths);
}

/* As bcc's stackcount: the frames, innermost first, then the other keys and the count. */
static void print_stack_row(FILE *f, const struct agg_table *t, const struct agg_row *r)
{
	print_row_stacks(f, t, r);
	if (print_key_pairs(f, t, r, "    "))
		fputc('\n', f);
	fprintf(f, "    %llu\n\n", (unsigned long long)r->count);
}

static void print_count_text(FILE *f, const struct agg_table *t, const struct agg_print_opts *o)
{
	int *order = agg_row_order(t);
	int i, shown = rows_shown(t, o);

	fprintf(f, "%s\n", t->func);
	if (field_index(t, AGG_F_KSTACK) >= 0 || field_index(t, AGG_F_USTACK) >= 0) {
		for (i = 0; i < shown; i++)
			print_stack_row(f, t, row_at(t, order, i));
		print_more(f, t->nr_rows - shown, true);
	} else {
		print_count_columns(f, t, order, shown);
		print_more(f, t->nr_rows - shown, false);
		fputc('\n', f);
	}
	free(order);
}

void agg_print_text(FILE *f, const struct agg_table *t, const struct agg_print_opts *o)
{
	o = o ? o : &no_opts;
	print_ts(f, o);
	if (t->kind == AGG_HIST)
		print_hist_text(f, t, o);
	else
		print_count_text(f, t, o);
}

/* ---- folded stacks ---- */

/*
 * Folded lines split frames at ';' and the count at the last space, so a
 * frame keeps neither: each of those (and any control byte) becomes '_'.
 * "udp_sendmsg+0x5a0 [udp]" folds to "udp_sendmsg_[udp]": the module stays,
 * since two modules' static functions may share a name, and "_[...]" is the
 * annotation flamegraph.pl already gives kernel frames. The "+0xoff" goes,
 * as stackcount -f and stackcollapse-perf.pl drop it: it is a return address
 * within the caller and would split one function into a tower per call site.
 */
static char folded_char(char c)
{
	return c == ';' || c == ' ' || (unsigned char)c < 0x20 || c == 0x7f ? '_' : c;
}

/* Where s's "+0x<hex>" offset (followed by the end or " [module]") ends, or NULL. */
static const char *offset_end(const char *off)
{
	const char *p = off + 3;

	if (strncmp(off, "+0x", 3) || !isxdigit((unsigned char)*p))
		return NULL;
	while (isxdigit((unsigned char)*p))
		p++;
	return *p == '\0' || *p == ' ' ? p : NULL;
}

/*
 * A frame's name for a flame graph, into sb: without its offset, and a
 * user frame without its object, " (/usr/lib/.../libc.so.6)", as perf's
 * folded stacks name them.
 */
static void fold_name(struct strbuf *sb, const char *s, bool strip_offset)
{
	const char *off = strip_offset ? strstr(s, "+0x") : NULL;
	const char *off_end = off ? offset_end(off) : NULL;
	const char *end = s + strlen(s), *obj = strip_offset ? strstr(s, " (") : NULL;

	if (obj && end[-1] == ')')
		end = obj;
	for (; s < end; s++) {
		if (s == off && off_end)
			s = off_end;
		if (s >= end)
			break;
		sb_putc(sb, folded_char(*s));
	}
}

struct fold_walk {
	agg_frame_fn *fn;
	void *ctx;
	struct strbuf sb;
};

static void fold_frame(struct fold_walk *w, const char *s, bool strip_offset)
{
	sb_reset(&w->sb);
	fold_name(&w->sb, *s ? s : "?", strip_offset);
	w->fn(w->ctx, sb_str(&w->sb));
}

/*
 * Keys other than the stack are the outermost frames, as stackcount -P puts
 * the process: a comm or func as its name, others as "pid=42". A func key
 * is left out where there is a stack: the stack's innermost frame names it.
 * A key frame is cut at 255 bytes.
 */
static void key_frames(struct fold_walk *w, const struct agg_table *t, const struct agg_row *r,
		       bool has_stack)
{
	char buf[256];
	int i;

	for (i = 0; i < t->nr_fields; i++) {
		const struct agg_field *fl = &t->fields[i];

		if (agg_field_is_stack(fl->kind) || (fl->kind == AGG_F_FUNC && has_stack))
			continue;
		if (fl->kind == AGG_F_COMM || fl->kind == AGG_F_FUNC)
			snprintf(buf, sizeof(buf), "%s", val_text(&r->key[i]));
		else
			snprintf(buf, sizeof(buf), "%s=%s", fl->name, val_text(&r->key[i]));
		fold_frame(w, buf, false);
	}
}

/*
 * One stack's frames, outermost first; none where there was no such stack
 * and the other one has frames (a CPU sample in user mode has no kernel
 * stack, as perf's folded stacks show it).
 */
static void stack_frames(struct fold_walk *w, const struct agg_row *r, int stack, int other)
{
	int i;

	if (stack < 0 || (other >= 0 && r->key[stack].no_stack && !r->key[other].no_stack))
		return;
	for (i = r->key[stack].nr_frames - 1; i >= 0; i--)
		fold_frame(w, r->key[stack].frames[i], true);
}

void agg_row_folded(const struct agg_table *t, const struct agg_row *r, agg_frame_fn *fn, void *ctx)
{
	int kstack = field_index(t, AGG_F_KSTACK), ustack = field_index(t, AGG_F_USTACK);
	struct fold_walk w = { .fn = fn, .ctx = ctx };

	sb_init(&w.sb);
	key_frames(&w, t, r, kstack >= 0 || ustack >= 0);
	stack_frames(&w, r, ustack, kstack);
	stack_frames(&w, r, kstack, ustack);
	sb_free(&w.sb);
}

static void put_frame(void *ctx, const char *name)
{
	struct strbuf *line = ctx;

	if (line->len)
		sb_putc(line, ';');
	sb_printf(line, "%s", name);
}

/* From the root: the key's other fields, the user's frames, then the kernel's. */
static char *folded_line(const struct agg_table *t, const struct agg_row *r)
{
	struct strbuf line;

	sb_init(&line);
	agg_row_folded(t, r, put_frame, &line);
	if (!line.len)
		put_frame(&line, t->func);
	return sb_take(&line);
}

struct folded {
	char *text;
	uint64_t count;
	int rank; /* its first row's, in agg_row_order */
};

static int cmp_text(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text, ((const struct folded *)b)->text);
}

static int cmp_count(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->rank - y->rank;
}

/* Equal lines as one, their counts summed: how many are left at the front. */
static int merge_lines(struct folded *lines, int nr)
{
	int i, n = 0;

	qsort(lines, nr, sizeof(*lines), cmp_text);
	for (i = 0; i < nr; i++) {
		if (n && !strcmp(lines[n - 1].text, lines[i].text)) {
			lines[n - 1].count += lines[i].count;
			lines[n - 1].rank = min(lines[n - 1].rank, lines[i].rank);
			free(lines[i].text);
			lines[i].text = NULL;
			continue;
		}
		lines[n++] = lines[i];
		if (n - 1 != i)
			lines[i].text = NULL;
	}
	return n;
}

/*
 * Keys that differ only in what a folded line leaves out (a frame's
 * offset, a user frame's object) fold to one line: their counts are
 * summed, as stackcount -f and perf's folded output give each stack once.
 * The lines keep the rows' order.
 */
void agg_print_folded(FILE *f, const struct agg_table *t)
{
	struct folded *lines = t->nr_rows ? calloc(t->nr_rows, sizeof(*lines)) : NULL;
	int *order = agg_row_order(t);
	int i, n = 0;

	for (i = 0; lines && order && i < t->nr_rows; i++) {
		const struct agg_row *r = row_at(t, order, i);

		lines[i] = (struct folded){ folded_line(t, r), r->count, i };
		if (!lines[i].text)
			goto out;
	}
	if (!lines || !order)
		goto out;
	n = merge_lines(lines, t->nr_rows);
	qsort(lines, n, sizeof(*lines), cmp_count);
	for (i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", lines[i].text, (unsigned long long)lines[i].count);
out:
	for (i = 0; lines && i < t->nr_rows; i++)
		free(lines[i].text);
	free(lines);
	free(order);
}

/* ---- JSON ---- */

static void json_frames(struct jw *w, const struct agg_val *v)
{
	int i;

	jw_array(w);
	for (i = 0; i < v->nr_frames; i++)
		jw_str(w, v->frames[i] ? v->frames[i] : "");
	jw_end(w);
}

static void json_val(struct jw *w, const struct agg_field *fl, const struct agg_val *v)
{
	if (agg_field_is_stack(fl->kind))
		json_frames(w, v);
	else if (v->number && is_integer_text(val_text(v)))
		jw_raw(w, "%s", v->text);
	else
		jw_str(w, v->text ? v->text : "");
}

/* "key" or "by": every field but the function (the object's "func"). */
static void json_key(struct jw *w, const char *name, const struct agg_table *t,
		     const struct agg_row *r)
{
	int i;

	jw_key(w, name);
	jw_object(w);
	for (i = 0; i < t->nr_fields; i++) {
		if (t->fields[i].kind == AGG_F_FUNC)
			continue;
		jw_key(w, t->fields[i].name ? t->fields[i].name : "");
		json_val(w, &t->fields[i], &r->key[i]);
	}
	jw_end(w);
}

static void json_head(struct jw *w, const char *type, const struct agg_table *t,
		      const struct agg_row *r, const struct agg_print_opts *o)
{
	const char *func = row_func(t, r);

	jw_object(w);
	jw_kstr(w, "type", type);
	if (o->ts)
		jw_kstr(w, "ts", o->ts);
	jw_kstr(w, "func", func ? func : "");
}

/*
 * A bucket's edges as JSON numbers: log2 in uint64 (its top bucket starts
 * at 2^63), linear from agg_bucket_bounds; null where there is no bound.
 */
static void json_edge(struct jw *w, const struct agg_layout *l, int idx, bool high)
{
	int64_t low_v, high_v;
	int edge = high ? idx + 1 : idx; /* edge e is bucket e's low bound */

	if (edge <= 0 || edge >= nr_buckets(l)) {
		jw_null(w);
	} else if (l->scale == AGG_LOG2) {
		jw_uint(w, edge == 1 ? 0ULL : 1ULL << (edge - 2));
	} else {
		agg_bucket_bounds(l, edge, &low_v, &high_v);
		jw_int(w, low_v);
	}
}

static void json_buckets(struct jw *w, const struct agg_table *t, const struct agg_row *r)
{
	int i;

	jw_key(w, "buckets");
	jw_array(w);
	for (i = 0; r->buckets && i < nr_buckets(&t->layout); i++) {
		if (!r->buckets[i])
			continue;
		jw_object(w);
		jw_key(w, "low");
		json_edge(w, &t->layout, i, false);
		jw_key(w, "high");
		json_edge(w, &t->layout, i, true);
		jw_kuint(w, "count", r->buckets[i]);
		jw_end(w);
	}
	jw_end(w);
}

static void json_stats(struct jw *w, const struct agg_row *r)
{
	char num[NUM_MAX];

	jw_kuint(w, "count", r->count);
	jw_key(w, "sum");
	jw_raw(w, "%s", stat_text(num, r->sum, r->is_signed));
	if (!r->count)
		return;
	jw_key(w, "min");
	jw_raw(w, "%s", stat_text(num, r->min, r->is_signed));
	jw_key(w, "max");
	jw_raw(w, "%s", stat_text(num, r->max, r->is_signed));
	jw_key(w, "mean");
	jw_raw(w, "%.2f", row_mean(r));
}

static void json_hist_row(struct jw *w, const struct agg_table *t, const struct agg_row *r,
			  const struct agg_print_opts *o)
{
	json_head(w, "hist", t, r, o);
	jw_kstr(w, "value", t->value ? t->value : "value");
	if (t->unit)
		jw_kstr(w, "unit", t->unit);
	json_key(w, "by", t, r);
	json_buckets(w, t, r);
	json_stats(w, r);
	jw_end(w);
}

static void json_count_row(struct jw *w, const struct agg_table *t, const struct agg_row *r,
			   const struct agg_print_opts *o)
{
	json_head(w, "count", t, r, o);
	json_key(w, "key", t, r);
	jw_kuint(w, "count", r->count);
	jw_end(w);
}

/* A line per object; one the memory ran out on is not printed half. */
void agg_print_json(FILE *f, const struct agg_table *t, const struct agg_print_opts *o)
{
	int *order, i, shown;
	struct strbuf sb;

	o = o ? o : &no_opts;
	order = agg_row_order(t);
	shown = rows_shown(t, o);
	sb_init(&sb);
	for (i = 0; i < shown; i++) {
		struct jw w;

		sb_reset(&sb);
		jw_init(&w, &sb);
		if (t->kind == AGG_HIST)
			json_hist_row(&w, t, row_at(t, order, i), o);
		else
			json_count_row(&w, t, row_at(t, order, i), o);
		if (!sb.oom)
			fprintf(f, "%s\n", sb_str(&sb));
	}
	sb_free(&sb);
	free(order);
}
