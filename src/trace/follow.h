/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace --follow PARAM SPEC: the object SPEC's function receives as PARAM,
 * followed through every function of the kernel that takes one of its
 * type, until a function that frees it or a time limit.
 */
#ifndef KSNOOP_FOLLOW_H
#define KSNOOP_FOLLOW_H

#include <stdbool.h>

#include "trace/session.h"

#define KSNOOP_MAX_FOLLOW_GLOBS 8		/* --follow-in and --follow-end, each */
#define KSNOOP_FOLLOW_DEFAULT_NS 10000000000ULL /* --follow-time: 10 s */

struct follow_opts {
	const char *param; /* --follow: the start's parameter; NULL: not following */
	const char *in[KSNOOP_MAX_FOLLOW_GLOBS];  /* --follow-in: where to look */
	const char *end[KSNOOP_MAX_FOLLOW_GLOBS]; /* --follow-end: what frees it */
	int nr_in, nr_end;
	unsigned long long max_ns; /* --follow-time; 0: the default */
};

static inline bool follow_wanted(const struct follow_opts *o)
{
	return o->param != NULL;
}

/*
 * The start (argv's one SPEC, planned with po), then a plan for each
 * function that takes the object's type, po's filters aside: they run
 * wherever the object goes. Errors are said; 0 or -errno.
 */
int follow_plan(struct session *s, const struct follow_opts *o, int argc, char **argv,
		const struct plan_opts *po);

#endif
