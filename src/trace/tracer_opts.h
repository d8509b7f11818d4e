/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tracer (backend.c, lite.c) needs of a command's options: the
 * command fills it, nothing below the commands reads the CLI struct.
 */
#ifndef KSNOOP_TRACER_OPTS_H
#define KSNOOP_TRACER_OPTS_H

#include <stdbool.h>
#include <sys/types.h>

enum backend_choice { BACKEND_AUTO, BACKEND_FENTRY, BACKEND_KPROBE };

#define TRACER_ERRNO_WORDS 64	/* a bit per errno 0-4095 */
#define KSNOOP_DEFAULT_PAGES 16 /* ring pages per CPU, at least */

/* count and hist: what BPF aggregates, and the key layout agg chose. */
struct tracer_agg {
	int mode;	 /* enum ksnoop_agg_mode; KSNOOP_AGG_NONE for trace */
	unsigned int by; /* enum ksnoop_agg_by */
	bool linear;	 /* linear buckets, else log2 */
	long long lo, hi, step;
	unsigned long long unit_ns; /* latency divisor */
	int max_keys;		    /* 0: the default */
	int key_size;		    /* bytes of the maps' keys */
	bool keyless;		    /* the arrays by function serve */
	bool epochs;		    /* two epochs, flipped and cleared per interval */
};

/* A linear layout's bucket width, never 0. */
static inline unsigned long long tracer_agg_step(const struct tracer_agg *a)
{
	return a->step > 0 ? a->step : 1;
}

/* A linear layout's bucket count (0 for log2), as BPF and user space number them. */
static inline unsigned long long tracer_agg_nr_linear(const struct tracer_agg *a)
{
	return a->linear ? (a->hi - a->lo) / tracer_agg_step(a) : 0;
}

struct tracer_opts {
	enum backend_choice backend;
	const pid_t *pids; /* -p: these processes only */
	int nr_pids;
	int cpu;	    /* -1: every CPU */
	const char *cgroup; /* cgroup v2 directory, or NULL */
	bool offline_btf;   /* --btf: this kernel's BTF from a file */
	int pages;	    /* -P; 0: sized from the plans */
	bool stack_mode;    /* -s */
	bool graph;	    /* call trees under ENTRY */
	bool errors;	    /* --errors */
	bool want_comm;	    /* events carry the task's comm (JSON, chrome) */
	int kstack_depth;   /* frames per event; 0: no stacks */
	int ustack_depth;   /* user frames per event; 0: none */
	/* --call-graph dwarf: user stack bytes copied per event; 0: frame pointers */
	int ustack_dump_bytes;
	unsigned long long min_duration_ns;
	bool errno_filter;
	unsigned long long errno_mask[TRACER_ERRNO_WORDS];
	struct tracer_agg agg;
	bool spans;    /* --from/--to: some plans open and close spans */
	int max_spans; /* 0: the default; objects followed too */
	bool follow;   /* --follow: one plan starts, the others follow its object */
	unsigned long long follow_max_ns; /* 0: no limit */
};

#endif
