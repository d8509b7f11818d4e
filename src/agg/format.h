/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text, folded-stack and JSON writers of aggregate tables (table.h). They
 * read a table and print it; they neither sort nor change it (rows are
 * shown in agg_row_order's order).
 *
 * JSON (-j): one object per line (NDJSON), one per shown count row or
 * histogram. Key values whose agg_val.number is set, and which are
 * decimal integers, are bare JSON numbers; every other value is a string.
 * Rows past --top are left out.
 *
 *   {"type":"count", "ts":..., "func":..., "key":{...}, "count":N}
 *   {"type":"hist", "ts":..., "func":..., "value":..., "unit":...,
 *    "by":{...}, "buckets":[{"low":L,"high":H,"count":N},...],
 *    "count":N, "sum":S, "min":MIN, "max":MAX, "mean":M}
 *
 *   type     "count" or "hist".
 *   ts       string: the interval's time stamp, as the header shows it;
 *            only in interval output.
 *   func     string: the traced function. A glob spec's row names the
 *            function it counted; otherwise the spec's function.
 *   key      count: object, one member per key field, by its name
 *            ("skb->len", "comm", "pid", "tid", "cpu"); "kstack" is an
 *            array of frames, innermost first, "func+0xoff [module]".
 *            The function is not repeated here (it is "func").
 *   count    number: samples counted in the row or histogram.
 *   value    hist: string, what the histogram measures: "skb->len",
 *            "return", or "latency".
 *   unit     hist with --latency: string, "ns", "us" or "ms".
 *   by       hist: object, the --by key fields, as "key" above.
 *   buckets  hist: array of the non-empty buckets only, lowest first:
 *            low (inclusive) and high (exclusive) are numbers, or null
 *            where the bucket has no bound (the negative or below-lo
 *            bucket's low; the at-or-above-hi bucket's high, and the top
 *            log2 bucket's, 2^64); count is a number, never 0.
 *   sum, min, max
 *            hist: numbers, of the values measured, in the unit; signed
 *            or unsigned as the value's type is.
 *   mean     hist: number, sum / count with two decimals; absent when
 *            count is 0, as are min and max.
 */
#ifndef KSNOOP_AGG_FORMAT_H
#define KSNOOP_AGG_FORMAT_H

#include <stdio.h>

#include "agg/table.h"

struct agg_print_opts {
	int top;	/* rows to show, 0 = all */
	const char *ts; /* interval header/JSON "ts", or NULL */
};

/*
 * Histograms (bpftrace's hist()/lhist() layout) or a count table, each
 * block ending in a blank line. o may be NULL: all rows, no time stamp.
 */
void agg_print_text(FILE *f, const struct agg_table *t, const struct agg_print_opts *o);
/* One line per row, "outer;...;inner count", for flamegraph.pl, inferno, speedscope. */
void agg_print_folded(FILE *f, const struct agg_table *t);
/*
 * Row r's frames as a folded line names them, from the root: its other
 * keys, the user stack, then the kernel's; fn(ctx, name) for each (none
 * for a row with no key: the caller names the function).
 */
typedef void agg_frame_fn(void *ctx, const char *name);
void agg_row_folded(const struct agg_table *t, const struct agg_row *r, agg_frame_fn *fn,
		    void *ctx);
/* One JSON object per line per shown row, as described above; o may be NULL. */
void agg_print_json(FILE *f, const struct agg_table *t, const struct agg_print_opts *o);

/*
 * The writers' row order, as indexes into t->rows: count descending, then
 * by key, field by field (integers by value, other text and frames byte by
 * byte), then table order. malloc'd; NULL when t has no rows or on OOM.
 */
int *agg_row_order(const struct agg_table *t);

#endif
