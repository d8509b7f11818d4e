/* SPDX-License-Identifier: GPL-2.0 */
/* Events -> text in ksnoop(8)'s layout, or NDJSON. */
#ifndef KSNOOP_OUTPUT_H
#define KSNOOP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "abi/trace.h"
#include "lib/ksyms.h"
#include "trace/plan.h"

struct output;

#define OUTPUT_ERRNO_WORDS 64 /* a bit per errno 0-4095 */

/* What the printers need of the command line, and nothing else. */
struct output_opts {
	bool json;	/* NDJSON, else text */
	bool chrome;	/* --format=chrome */
	bool compact;	/* struct dumps on one line */
	bool wallclock; /* HH:MM:SS in the TIME column, wall_ns in JSON */
	bool show_comm; /* a COMM column in text */
	bool symbolize; /* name function pointers */
	bool errors;	/* --errors: failing calls only */
	bool graph;	/* call trees under ENTRY */
	bool one_line;	/* each call on one line, values inline (--follow) */
	int max_depth;	/* struct nesting shown, 0 = unbounded */
	int max_nodes;	/* graph: calls per tree */
	int kstack_depth;
	int ustack_depth;  /* --ustack: symbolized in user space */
	bool ustack_dwarf; /* --call-graph dwarf: unwound in user space too */
	/* -p's processes: their maps are read at start (for frames printed after they exit) */
	const pid_t *pids;
	int nr_pids;
	unsigned long long min_duration_ns;
	bool errno_filter; /* --errno: only these */
	unsigned long long errno_mask[OUTPUT_ERRNO_WORDS];
};

struct output *output__new(const struct output_opts *opts, const struct func_plan *plans, int nr,
			   FILE *out, struct ksyms *ks);
/* Ends a --format=chrome file: 0 or -EIO (a write failed); also done by free. */
int output__finish(struct output *o);
void output__free(struct output *o);
void output__header(struct output *o);
/* Validates the record; returns 0, or -EINVAL for a malformed one. */
int output__event(struct output *o, const struct ksnoop_event *ev, size_t size);
/*
 * A validated event as it arrives, before any is held for a chain or a
 * tree: with --ustack, its process's maps are read while it is likely
 * still there (one that exits at once would leave its frames unnamed).
 */
void output__arrived(struct output *o, const struct ksnoop_event *ev);

/*
 * --errors: a failure's origin, outermost call first (chain.h); each
 * event is validated. Text names the chain under its events.
 */
void output__origin(struct output *o, const struct ksnoop_event *const *evs, const size_t *sizes,
		    int n);

/*
 * graph: ENTRY's call first, then the calls within it, in any order;
 * cut calls were left out (--max-nodes). Kept only when ENTRY's call
 * passes --errors, --errno and --duration.
 */
void output__tree(struct output *o, const struct ksnoop_event *const *evs, const size_t *sizes,
		  int n, int cut);

/*
 * A btf_dump text cut short (-E2BIG) ends in the openings of the member the
 * cut fell in, "(rwlock_t){" with nothing inside: they go, as the reference
 * ksnoop's libbpf leaves them out.
 */
void dump_drop_open_tail(struct strbuf *b);

/* Checks a ring buffer record before anything reads it. */
int event_validate(const struct ksnoop_event *ev, size_t size, int nr_funcs);

/*
 * A lite event (KSNOOP_EV_LITE) of size bytes, copied to out in the full
 * layout that event_validate and the printers read; *out_size is its size
 * there. -EINVAL if it is too short or too long for that.
 */
int event_widen(const void *lite, size_t size, struct ksnoop_event *out, size_t *out_size);

#endif
