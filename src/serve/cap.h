/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A metric's series cap. The first keys seen keep their own series for
 * the metric's life; keys past the cap are summed into one series per
 * spec, its key labels "other" and a folded="true" label. Admission is
 * sticky, so no series moves in or out of "other" and every counter,
 * "other" included, only grows.
 */
#ifndef KSNOOP_SERVE_CAP_H
#define KSNOOP_SERVE_CAP_H

#include "agg/table.h"

#define CAP_OTHER "other"

struct series_cap {
	int max;	 /* series in all, "other" ones included */
	char **admitted; /* the keys with a series of their own, sorted */
	int nr, size;
	int folded_keys; /* distinct keys in "other" at the last apply */
};

void series_cap_init(struct series_cap *c, int max);
void series_cap_free(struct series_cap *c);
/*
 * Folds, in place, the rows of tables[0..nr) past the cap. At most max
 * series come out: max - nr keys of their own, and one "other" per table
 * that has any (a glob's keys are its table's). 0 or -ENOMEM.
 */
int series_cap_apply(struct series_cap *c, struct agg_table **tables, int nr);

#endif
