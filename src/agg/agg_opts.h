/* SPDX-License-Identifier: GPL-2.0 */
/* count's and hist's options, as the command line gives them. */
#ifndef KSNOOP_AGG_OPTS_H
#define KSNOOP_AGG_OPTS_H

#include <stdbool.h>

/* The words of --by, word i for bit i of enum ksnoop_agg_by (bpf/abi/trace.h). */
#define AGG_BY_WORDS                                                      \
	{                                                                 \
		"comm", "pid", "tid", "cpu", "kstack", "ustack", "cgroup" \
	}
#define AGG_BY_LIST "comm, pid, tid, cpu, kstack, ustack, cgroup"
#define AGG_BY_JOINED_MAX sizeof("comm,pid,tid,cpu,kstack,ustack,cgroup")

struct agg_opts {
	int mode;	 /* enum ksnoop_agg_mode */
	unsigned int by; /* enum ksnoop_agg_by */
	bool linear;	 /* --linear LO,HI,STEP, else log2 */
	long long lo, hi, step;
	bool latency;		    /* --latency */
	unsigned long long unit_ns; /* --unit, in ns */
	const char *unit;
	int max_keys;				/* --max-keys */
	int top;				/* --top, 0 = all */
	unsigned long long interval_ns, run_ns; /* -i, -d */
	bool cumulative;			/* --cumulative: -i prints running totals */
	bool folded;				/* --folded */
	const char *svg;			/* --svg FILE: a flame graph */
	const char *prometheus;			/* --prometheus HOST:PORT */
	const char *textfile;			/* --textfile FILE */
	int ustack_dump_bytes; /* --by ustack with --call-graph dwarf: unwound here */
};

#endif
