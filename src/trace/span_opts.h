/* SPDX-License-Identifier: GPL-2.0 */
/* Spans' options, as the command line gives them (trace, count, hist). */
#ifndef KSNOOP_SPAN_OPTS_H
#define KSNOOP_SPAN_OPTS_H

#include <stdbool.h>

#define KSNOOP_MAX_SPAN_SPECS 8 /* --from, and --to, at most this often */

/* --from SPEC, --to SPEC, --max-spans: in place of FUNC arguments. */
struct span_opts {
	const char *from[KSNOOP_MAX_SPAN_SPECS], *to[KSNOOP_MAX_SPAN_SPECS];
	int nr_from, nr_to;
	int max_spans; /* 0: the default */
};

/* Either end given: the command traces spans. */
static inline bool span_wanted(const struct span_opts *o)
{
	return o->nr_from || o->nr_to;
}

#endif
