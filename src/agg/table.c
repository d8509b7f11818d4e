// SPDX-License-Identifier: GPL-2.0
/* Bucket bounds and the freeing of tables (see table.h). */
#include <stdlib.h>
#include <string.h>

#include "agg/table.h"

/* 2^power as an int64, saturated: 2^63 and above do not fit. */
static int64_t pow2_saturated(int power)
{
	return power >= 63 ? INT64_MAX : (int64_t)1 << power;
}

static void log2_bounds(int idx, int64_t *low, int64_t *high)
{
	if (idx <= 0) {
		*low = INT64_MIN;
		*high = 0;
	} else if (idx == 1) {
		*low = 0;
		*high = 1;
	} else {
		*low = pow2_saturated(idx - 2);
		*high = pow2_saturated(idx - 1);
	}
}

/* lo + i * step, wrapping rather than overflowing (undefined) on absurd layouts. */
static int64_t linear_edge(const struct agg_layout *l, int i)
{
	return (int64_t)((uint64_t)l->lo + (uint64_t)i * (uint64_t)l->step);
}

static void linear_bounds(const struct agg_layout *l, int idx, int64_t *low, int64_t *high)
{
	int last = l->nr_buckets - 1;

	*low = idx <= 0 ? INT64_MIN : linear_edge(l, idx - 1);
	*high = idx >= last ? INT64_MAX : linear_edge(l, idx);
}

void agg_bucket_bounds(const struct agg_layout *l, int idx, int64_t *low, int64_t *high)
{
	if (l->scale == AGG_LOG2)
		log2_bounds(idx, low, high);
	else
		linear_bounds(l, idx, low, high);
}

static void agg_val_free(struct agg_val *v)
{
	int i;

	free(v->text);
	for (i = 0; v->frames && i < v->nr_frames; i++)
		free(v->frames[i]);
	free(v->frames);
}

void agg_row_free(struct agg_row *r, int nr_fields)
{
	int i;

	for (i = 0; r->key && i < nr_fields; i++)
		agg_val_free(&r->key[i]);
	free(r->key);
	free(r->buckets);
}

void agg_table_free(struct agg_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; t->rows && i < t->nr_rows; i++)
		agg_row_free(&t->rows[i], t->nr_fields);
	free(t->rows);
	for (i = 0; t->fields && i < t->nr_fields; i++)
		free(t->fields[i].name);
	free(t->fields);
	free(t->func);
	free(t->value);
	memset(t, 0, sizeof(*t));
}
