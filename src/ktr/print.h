/* SPDX-License-Identifier: GPL-2.0 */
/* kdump's record printer, in the line format of BSD's kdump(1). */
#ifndef KSNOOP_KDUMP_PRINT_H
#define KSNOOP_KDUMP_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ktr/args.h"
#include "ktr/file.h"

struct kdump_opts {
	bool decimal;	    /* -d */
	bool tid;	    /* -H */
	bool follow;	    /* -l */
	bool raw;	    /* -n */
	bool rel_ts;	    /* -R */
	bool abs_ts;	    /* -T */
	int hex;	    /* 0, 1 for -x, 2 for -X */
	long long maxdata;  /* -m, -1: everything captured */
	long long pid;	    /* -p, -1: every process */
	unsigned int types; /* -t: bit (1 << enum ktr_type) per record type */
};

struct kdump_ctx {
	struct kdump_opts opts;
	struct ktr_fmt_opts fmt;
	FILE *out;
	struct strbuf line;
	uint64_t prev_ts;
	bool have_prev;
	/* Where each wanted record goes instead of the text lines, when set. */
	void (*emit)(void *arg, const struct ktr_rec *h, const void *payload);
	void *emit_arg;
};

void kdump_opts_default(struct kdump_opts *o);
void kdump_ctx_init(struct kdump_ctx *c, const struct kdump_opts *o, FILE *out);
void kdump_ctx_free(struct kdump_ctx *c);

/*
 * Read r's file header: 0, or -1 (reader's error). A trace from another
 * architecture switches to raw numbers and returns 1, for the caller to
 * say so.
 */
int kdump_begin(struct kdump_ctx *c, struct ktr_reader *r);
/* Print every record after the header: 0, or -1 (reader's error). */
int kdump_run(struct kdump_ctx *c, struct ktr_reader *r);

/* Print one validated record. */
void kdump_print(struct kdump_ctx *c, const struct ktr_rec *h, const void *payload);

/*
 * ktrace -t / kdump -t letters: c n i s x X and + for the default set.
 * Fills KTRFAC_* bits; -1 (with *bad set) on an unknown letter.
 */
int ktr_parse_trstr(const char *s, unsigned int *facs, char *bad);
/* Record types (1 << KTR_*) that facilities produce; DROP always. */
unsigned int ktr_facs_to_types(unsigned int facs);

#endif
