/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregates as user space hands them to the formatters: one
 * table per spec (a glob's functions share it, keyed by "func"), its rows
 * already summed over CPUs and merged by rendered key. A count row is a
 * key and its count; a hist row is a key and one histogram. The text, JSON and Prometheus writers read
 * only this; they know nothing of BPF maps.
 */
#ifndef KSNOOP_AGG_TABLE_H
#define KSNOOP_AGG_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum agg_kind { AGG_COUNT, AGG_HIST };

/*
 * Histogram bucket numbering, shared with the BPF side (bpf/abi/agg.h):
 * log2:   0 = negative, 1 = [0], k >= 2 = [2^(k-2), 2^(k-1)); 66 in all.
 * linear: 0 = below lo, i in 1..n = [lo + (i-1)*step, lo + i*step),
 *         n + 1 = hi and above, where n = (hi - lo) / step.
 */
enum agg_scale { AGG_LOG2, AGG_LINEAR };

#define AGG_LOG2_BUCKETS 66

struct agg_layout {
	enum agg_scale scale;
	long long lo, hi, step; /* AGG_LINEAR */
	int nr_buckets;		/* log2: 66; linear: n + 2 */
};

/* One field of a key, as rendered from its BTF type. */
struct agg_val {
	char *text;    /* as shown in text and as a Prometheus label: "178", "TCP_CLOSE", "sshd" */
	bool number;   /* JSON writes text bare (a number), else as a string */
	char **frames; /* stacks: "func+0xoff [module]", "malloc+0x1a (libc.so.6)", innermost first */
	int nr_frames;
	/* no such stack to take (a sample in user mode, a kernel thread): frames says so */
	bool no_stack;
};

enum agg_field_kind {
	AGG_F_FUNC,  /* the function, where a spec is a glob or has no value items */
	AGG_F_VALUE, /* a spec value item: "skb->len", "return" */
	AGG_F_COMM,
	AGG_F_PID,
	AGG_F_TID,
	AGG_F_CPU,
	AGG_F_KSTACK,
	AGG_F_USTACK, /* the user stack, in its process */
	AGG_F_CGROUP, /* the task's cgroup v2, as its path */
};

static inline bool agg_field_is_stack(enum agg_field_kind kind)
{
	return kind == AGG_F_KSTACK || kind == AGG_F_USTACK;
}

struct agg_field {
	enum agg_field_kind kind;
	char *name; /* "func", "skb->len", "comm", "pid", "tid", "cpu", "kstack", "ustack", "cgroup" */
};

struct agg_row {
	struct agg_val *key; /* table->nr_fields of them */
	uint64_t count;
	/* AGG_HIST: */
	uint64_t *buckets;     /* layout.nr_buckets */
	int64_t sum, min, max; /* of the values, in the table's unit */
	bool is_signed;	       /* how min, max and sum read */
	/* serve: the keys past a metric's series cap, summed; its key reads "other" */
	bool folded;
};

struct agg_table {
	enum agg_kind kind;
	char *func;	  /* the spec's function or pattern, as the user wrote it */
	char *value;	  /* AGG_HIST: "skb->len", or "latency"; NULL for AGG_COUNT */
	const char *unit; /* --latency: "ns", "us" or "ms"; else NULL */
	struct agg_field *fields;
	int nr_fields;
	struct agg_layout layout; /* AGG_HIST */
	struct agg_row *rows;
	int nr_rows;
};

/* Samples the kernel could not count, by reason, as the ring's drop lines name them. */
struct agg_drops {
	const char *const *names; /* "key table full", ... */
	const uint64_t *counts;
	int nr;
};

/*
 * A bucket's bounds as numbers: [low, high); high is INT64_MAX for the last
 * linear bucket, low INT64_MIN for the first bucket of either scale (below
 * lo, negative). Log2 bounds of 2^63 and more saturate to INT64_MAX.
 */
void agg_bucket_bounds(const struct agg_layout *l, int idx, int64_t *low, int64_t *high);

/*
 * Frees what t owns (rows with their keys' texts, frames and buckets, the
 * fields' names, func and value), not t itself, and leaves it zeroed, an
 * empty table. NULL is ignored.
 */
void agg_table_free(struct agg_table *t);
/* Frees what row r owns (its key of nr_fields values, its buckets). */
void agg_row_free(struct agg_row *r, int nr_fields);

#endif
