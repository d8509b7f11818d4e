// SPDX-License-Identifier: GPL-2.0
/*
 * serve/cap.c, the series cap: sticky admission, the most counted first
 * among keys seen together, one "other" row per table that sums the rest
 * (counts and histograms), and the counters it exposes never shrinking
 * across reads. Then agg/prom.c's named families as serve writes them:
 * the metric's name and help (escaped), and folded="true" on "other".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "agg/prom.h"
#include "serve/cap.h"

/* A count table keyed by pid: rows "pid" = counts[i]. */
static struct agg_table *count_table(const char *const *pids, const uint64_t *counts, int nr)
{
	struct agg_table *t = calloc(1, sizeof(*t));
	int i;

	assert_non_null(t);
	t->kind = AGG_COUNT;
	t->func = strdup("f");
	t->nr_fields = 1;
	t->fields = calloc(1, sizeof(*t->fields));
	t->fields[0] = (struct agg_field){ AGG_F_PID, strdup("pid") };
	t->rows = calloc(nr ?: 1, sizeof(*t->rows));
	t->nr_rows = nr;
	for (i = 0; i < nr; i++) {
		t->rows[i].key = calloc(1, sizeof(struct agg_val));
		t->rows[i].key[0].text = strdup(pids[i]);
		t->rows[i].key[0].number = true;
		t->rows[i].count = counts[i];
	}
	return t;
}

/* A linear hist 0..30 step 10 keyed by comm, each row one value v[i] counted n[i] times. */
static struct agg_table *hist_table(const char *const *comms, const int *v, const uint64_t *n,
				    int nr)
{
	struct agg_table *t = calloc(1, sizeof(*t));
	int i;

	assert_non_null(t);
	t->kind = AGG_HIST;
	t->func = strdup("g");
	t->value = strdup("x");
	t->layout = (struct agg_layout){
		.scale = AGG_LINEAR, .lo = 0, .hi = 30, .step = 10, .nr_buckets = 5
	};
	t->nr_fields = 1;
	t->fields = calloc(1, sizeof(*t->fields));
	t->fields[0] = (struct agg_field){ AGG_F_COMM, strdup("comm") };
	t->rows = calloc(nr ?: 1, sizeof(*t->rows));
	t->nr_rows = nr;
	for (i = 0; i < nr; i++) {
		struct agg_row *r = &t->rows[i];

		r->key = calloc(1, sizeof(struct agg_val));
		r->key[0].text = strdup(comms[i]);
		r->buckets = calloc(5, sizeof(*r->buckets));
		r->buckets[1 + v[i] / 10] = n[i];
		r->count = n[i];
		r->sum = (int64_t)v[i] * (int64_t)n[i];
		r->min = r->max = v[i];
	}
	return t;
}

static void free_table(struct agg_table *t)
{
	agg_table_free(t);
	free(t);
}

static const struct agg_row *row_of(const struct agg_table *t, const char *key, bool folded)
{
	int i;

	for (i = 0; i < t->nr_rows; i++) {
		if (t->rows[i].folded == folded && !strcmp(t->rows[i].key[0].text, key))
			return &t->rows[i];
	}
	return NULL;
}

static void test_under_cap_untouched(void **state)
{
	const char *pids[] = { "1", "2" };
	const uint64_t counts[] = { 5, 7 };
	struct agg_table *t = count_table(pids, counts, 2);
	struct series_cap c;

	(void)state;
	series_cap_init(&c, 3);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	assert_int_equal(t->nr_rows, 2);
	assert_int_equal(c.folded_keys, 0);
	assert_null(row_of(t, CAP_OTHER, true));
	series_cap_free(&c);
	free_table(t);
}

/* max 3, one table: 2 keys of their own, the most counted, and "other". */
static void test_most_counted_admitted_first(void **state)
{
	const char *pids[] = { "1", "2", "3", "4", "5" };
	const uint64_t counts[] = { 1, 100, 2, 50, 3 };
	struct agg_table *t = count_table(pids, counts, 5);
	struct series_cap c;
	const struct agg_row *o;

	(void)state;
	series_cap_init(&c, 3);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	assert_int_equal(t->nr_rows, 3);
	assert_non_null(row_of(t, "2", false));
	assert_non_null(row_of(t, "4", false));
	o = row_of(t, CAP_OTHER, true);
	assert_non_null(o);
	assert_int_equal(o->count, 6);
	assert_int_equal(c.folded_keys, 3);
	series_cap_free(&c);
	free_table(t);
}

/* A key admitted early keeps its series when later keys outgrow it; "other" only grows. */
static void test_admission_is_sticky(void **state)
{
	const char *first[] = { "10" };
	const uint64_t c1[] = { 1 };
	const char *later[] = { "10", "20", "30", "40" };
	const uint64_t c2[] = { 2, 500, 400, 300 };
	const uint64_t c3[] = { 3, 600, 500, 400 };
	struct agg_table *t = count_table(first, c1, 1);
	struct series_cap c;
	uint64_t other;

	(void)state;
	series_cap_init(&c, 3);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	free_table(t);

	t = count_table(later, c2, 4);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	assert_non_null(row_of(t, "10", false));
	assert_non_null(row_of(t, "20", false));
	assert_null(row_of(t, "30", false));
	other = row_of(t, CAP_OTHER, true)->count;
	assert_int_equal(other, 700);
	free_table(t);

	t = count_table(later, c3, 4);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	assert_int_equal(row_of(t, "10", false)->count, 3);
	assert_int_equal(row_of(t, "20", false)->count, 600);
	assert_true(row_of(t, CAP_OTHER, true)->count >= other);
	assert_int_equal(row_of(t, CAP_OTHER, true)->count, 900);
	series_cap_free(&c);
	free_table(t);
}

/*
 * Two tables, max 4: 4 - 2 = 2 keys of their own in all, room kept for an
 * "other" in each; the first table's two take them, the second's fold.
 */
static void test_cap_counts_every_table(void **state)
{
	const char *pa[] = { "1", "2" }, *pb[] = { "3", "4" };
	const uint64_t ca[] = { 9, 8 }, cb[] = { 7, 6 };
	struct agg_table *t[2] = { count_table(pa, ca, 2), count_table(pb, cb, 2) };
	struct series_cap c;

	(void)state;
	series_cap_init(&c, 4);
	assert_int_equal(series_cap_apply(&c, t, 2), 0);
	assert_int_equal(t[0]->nr_rows, 2);
	assert_int_equal(t[1]->nr_rows, 1);
	assert_non_null(row_of(t[0], "1", false));
	assert_non_null(row_of(t[0], "2", false));
	assert_int_equal(row_of(t[1], CAP_OTHER, true)->count, 13);
	series_cap_free(&c);
	free_table(t[0]);
	free_table(t[1]);
}

/* Folded histograms add bucket by bucket, with their sums, mins and maxes. */
static void test_hist_rows_fold(void **state)
{
	const char *comms[] = { "a", "b", "c" };
	const int v[] = { 5, 15, 25 };
	const uint64_t n[] = { 10, 2, 3 };
	struct agg_table *t = hist_table(comms, v, n, 3);
	struct series_cap c;
	const struct agg_row *o;

	(void)state;
	series_cap_init(&c, 2);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	assert_non_null(row_of(t, "a", false));
	o = row_of(t, CAP_OTHER, true);
	assert_non_null(o);
	assert_int_equal(o->count, 5);
	assert_int_equal(o->buckets[2], 2);
	assert_int_equal(o->buckets[3], 3);
	assert_int_equal(o->buckets[1], 0);
	assert_int_equal(o->sum, 15 * 2 + 25 * 3);
	assert_int_equal(o->min, 15);
	assert_int_equal(o->max, 25);
	series_cap_free(&c);
	free_table(t);
}

static char *render_named(const char *name, const char *help, struct agg_table **t, int nr, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = prom_write_named(f, name, help, t, nr);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_named_count_with_folded(void **state)
{
	const char *pids[] = { "1", "2", "3" };
	const uint64_t counts[] = { 5, 4, 3 };
	struct agg_table *t = count_table(pids, counts, 3);
	struct series_cap c;
	char *got;
	int rc;

	(void)state;
	series_cap_init(&c, 2);
	assert_int_equal(series_cap_apply(&c, &t, 1), 0);
	got = render_named("calls_total", "Calls, a \\ and a\nnewline", &t, 1, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "# HELP calls_total Calls, a \\\\ and a\\nnewline\n"
				 "# TYPE calls_total counter\n"
				 "calls_total{func=\"f\",pid=\"1\"} 5\n"
				 "calls_total{func=\"f\",pid=\"other\",folded=\"true\"} 7\n");
	free(got);
	series_cap_free(&c);
	free_table(t);
}

static void test_named_hist(void **state)
{
	const char *comms[] = { "a" };
	const int v[] = { 15 };
	const uint64_t n[] = { 2 };
	struct agg_table *t = hist_table(comms, v, n, 1);
	char *got;
	int rc;

	(void)state;
	got = render_named("x_size", "Sizes", &t, 1, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "# HELP x_size Sizes\n"
				 "# TYPE x_size histogram\n"
				 "x_size_bucket{func=\"g\",value=\"x\",comm=\"a\",le=\"-1\"} 0\n"
				 "x_size_bucket{func=\"g\",value=\"x\",comm=\"a\",le=\"9\"} 0\n"
				 "x_size_bucket{func=\"g\",value=\"x\",comm=\"a\",le=\"19\"} 2\n"
				 "x_size_bucket{func=\"g\",value=\"x\",comm=\"a\",le=\"29\"} 2\n"
				 "x_size_bucket{func=\"g\",value=\"x\",comm=\"a\",le=\"+Inf\"} 2\n"
				 "x_size_sum{func=\"g\",value=\"x\",comm=\"a\"} 30\n"
				 "x_size_count{func=\"g\",value=\"x\",comm=\"a\"} 2\n");
	free(got);
	free_table(t);
}

/* One name is one family: a count and a hist cannot share it. */
static void test_named_mixed_families_refused(void **state)
{
	const char *pids[] = { "1" }, *comms[] = { "a" };
	const uint64_t counts[] = { 1 }, n[] = { 1 };
	const int v[] = { 1 };
	struct agg_table *t[2] = { count_table(pids, counts, 1), hist_table(comms, v, n, 1) };
	char *got;
	int rc;

	(void)state;
	got = render_named("m_total", "M", t, 2, &rc);
	assert_int_equal(rc, -EINVAL);
	free(got);
	got = render_named("m_total", "M", t, 0, &rc);
	assert_int_equal(rc, -EINVAL);
	free(got);
	free_table(t[0]);
	free_table(t[1]);
}

/* A key field a value names "folded" does not clash with the folded label. */
static void test_folded_label_reserved(void **state)
{
	const char *pids[] = { "1" };
	const uint64_t counts[] = { 1 };
	struct agg_table *t = count_table(pids, counts, 1);
	char *got;
	int rc;

	(void)state;
	free(t->fields[0].name);
	t->fields[0] = (struct agg_field){ AGG_F_VALUE, strdup("folded") };
	got = render_named("m_total", "M", &t, 1, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(got, "m_total{func=\"f\",folded_2=\"1\"} 1\n"));
	free(got);
	free_table(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_under_cap_untouched),
		cmocka_unit_test(test_most_counted_admitted_first),
		cmocka_unit_test(test_admission_is_sticky),
		cmocka_unit_test(test_cap_counts_every_table),
		cmocka_unit_test(test_hist_rows_fold),
		cmocka_unit_test(test_named_count_with_folded),
		cmocka_unit_test(test_named_hist),
		cmocka_unit_test(test_named_mixed_families_refused),
		cmocka_unit_test(test_folded_label_reserved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
