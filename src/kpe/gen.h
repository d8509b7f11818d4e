/* SPDX-License-Identifier: GPL-2.0 */
/* ksnoop specs -> tracefs kprobe_events lines (see gen.c). */
#ifndef KSNOOP_KPE_GEN_H
#define KSNOOP_KPE_GEN_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/kbtf.h"
#include "lib/util.h"

struct kpe_gen_opts {
	bool fprobe;	   /* f: lines with $argN instead of p:/r: with registers */
	const char *group; /* event group */
	/* event names printed so far, kept unique across specs; or NULL */
	struct strbuf *used;
	bool json; /* each event as an NDJSON object instead of its lines */
};

/* Prints the lines for one spec to out; errors go through p_err. */
int kpe_gen_spec(const struct kpe_gen_opts *o, struct kbtf *kb, const char *text, FILE *out);

#endif
