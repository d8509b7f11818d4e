// SPDX-License-Identifier: GPL-2.0
/* The series cap of serve's metrics; see cap.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "serve/cap.h"

void series_cap_init(struct series_cap *c, int max)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
}

void series_cap_free(struct series_cap *c)
{
	int i;

	for (i = 0; i < c->nr; i++)
		free(c->admitted[i]);
	free(c->admitted);
	memset(c, 0, sizeof(*c));
}

/*
 * A row's identity: its table, then each key value, stacks frame by
 * frame. Separators no rendered text holds keep two keys apart.
 */
static char *row_identity(int table, const struct agg_table *t, const struct agg_row *r)
{
	struct strbuf sb;
	int i, f;

	sb_init(&sb);
	sb_printf(&sb, "%d", table);
	for (i = 0; i < t->nr_fields; i++) {
		sb_printf(&sb, "\x1f%s", r->key[i].text ?: "");
		for (f = 0; r->key[i].frames && f < r->key[i].nr_frames; f++)
			sb_printf(&sb, "\x1e%s", r->key[i].frames[f]);
	}
	return sb_take(&sb);
}

/* Where id is, or would go, in the sorted admitted keys. */
static int find(const struct series_cap *c, const char *id, bool *found)
{
	int lo = 0, hi = c->nr, mid, cmp;

	*found = false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = strcmp(c->admitted[mid], id);
		if (!cmp) {
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int admit(struct series_cap *c, int at, char *id)
{
	size_t size = c->size;

	if (!grow_array(&c->admitted, &size, c->nr, sizeof(*c->admitted), 16))
		return -ENOMEM;
	c->size = size;
	memmove(&c->admitted[at + 1], &c->admitted[at], (c->nr - at) * sizeof(*c->admitted));
	c->admitted[at] = id;
	c->nr++;
	return 0;
}

struct by_count {
	uint64_t count;
	int row;
	char *id; /* row_identity's, freed or admitted */
};

static int cmp_by_count(const void *a, const void *b)
{
	const struct by_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->row - y->row;
}

/*
 * Which rows keep a series (keep[i]): those admitted before, then new
 * keys while there is room, the most counted first, so that keys first
 * seen together are not admitted by the order of their names. Each
 * row's identity is made once.
 */
static int choose(struct series_cap *c, int limit, int table, const struct agg_table *t, bool *keep)
{
	struct by_count *order = calloc(t->nr_rows ?: 1, sizeof(*order));
	int i, n = 0, at, err = order ? 0 : -ENOMEM;
	bool found;
	char *id;

	for (i = 0; !err && i < t->nr_rows; i++) {
		id = row_identity(table, t, &t->rows[i]);
		if (!id) {
			err = -ENOMEM;
			break;
		}
		find(c, id, &found);
		keep[i] = found;
		if (found)
			free(id);
		else
			order[n++] = (struct by_count){ t->rows[i].count, i, id };
	}
	if (!err)
		qsort(order, n, sizeof(*order), cmp_by_count);
	for (i = 0; i < n; i++) {
		id = order[i].id;
		if (!err && c->nr < limit) {
			at = find(c, id, &found);
			err = admit(c, at, id);
			keep[order[i].row] = !err;
			if (!err)
				continue;
		}
		free(id);
	}
	free(order);
	return err;
}

static void add_row(struct agg_row *to, const struct agg_row *from, const struct agg_table *t)
{
	int i;

	to->count += from->count;
	if (t->kind != AGG_HIST)
		return;
	for (i = 0; i < t->layout.nr_buckets; i++)
		to->buckets[i] += from->buckets[i];
	to->sum += from->sum;
	to->min = to->min < from->min ? to->min : from->min;
	to->max = to->max > from->max ? to->max : from->max;
	to->is_signed |= from->is_signed;
}

/* The "other" row: every key value "other", a glob's function its pattern. */
static int other_row(const struct agg_table *t, struct agg_row *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->folded = true;
	o->min = INT64_MAX;
	o->max = INT64_MIN;
	o->key = calloc(t->nr_fields ?: 1, sizeof(*o->key));
	if (t->kind == AGG_HIST)
		o->buckets = calloc(t->layout.nr_buckets ?: 1, sizeof(*o->buckets));
	if (!o->key || (t->kind == AGG_HIST && !o->buckets))
		return -ENOMEM;
	for (i = 0; i < t->nr_fields; i++) {
		o->key[i].text = strdup(t->fields[i].kind == AGG_F_FUNC ? t->func : CAP_OTHER);
		if (!o->key[i].text)
			return -ENOMEM;
		if (!agg_field_is_stack(t->fields[i].kind))
			continue;
		o->key[i].frames = calloc(1, sizeof(char *));
		if (!o->key[i].frames || !(o->key[i].frames[0] = strdup(CAP_OTHER)))
			return -ENOMEM;
		o->key[i].nr_frames = 1;
	}
	return 0;
}

/* Keeps t's admitted rows in order, and folds the rest into one row at the end. */
static int fold_table(struct series_cap *c, int limit, int table, struct agg_table *t)
{
	bool *keep = calloc(t->nr_rows ?: 1, sizeof(*keep));
	struct agg_row other = { 0 };
	int i, kept = 0, folded = 0, err;

	err = !keep ? -ENOMEM : other_row(t, &other) ?: choose(c, limit, table, t, keep);
	for (i = 0; !err && i < t->nr_rows; i++) {
		if (keep[i]) {
			t->rows[kept++] = t->rows[i];
			continue;
		}
		add_row(&other, &t->rows[i], t);
		agg_row_free(&t->rows[i], t->nr_fields);
		folded++;
	}
	free(keep);
	if (!err)
		t->nr_rows = kept;
	if (err || !folded) {
		agg_row_free(&other, t->nr_fields);
		return err;
	}
	/* There were kept + folded rows: the "other" one fits where they were. */
	t->rows[t->nr_rows++] = other;
	c->folded_keys += folded;
	return 0;
}

int series_cap_apply(struct series_cap *c, struct agg_table **tables, int nr)
{
	int i, err = 0, limit = c->max - nr;

	if (limit < 1)
		limit = 1;
	c->folded_keys = 0;
	for (i = 0; !err && i < nr; i++)
		err = fold_table(c, limit, i, tables[i]);
	return err;
}
