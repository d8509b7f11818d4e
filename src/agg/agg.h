/* SPDX-License-Identifier: GPL-2.0 */
/*
 * count and hist between the plans and the tables: what each function's
 * key holds (agg_layout_plans, before loading), and the kernel's maps read
 * back into struct agg_table (agg_read, any time while attached).
 */
#ifndef KSNOOP_AGG_H
#define KSNOOP_AGG_H

#include "agg/table.h"
#include "agg/agg_opts.h"
#include "lib/ksyms.h"
#include "trace/session.h"

/*
 * Fills each plan's cfg.agg, and in *layout what the tracer sizes and sets
 * for them; says what cannot be a key or a hist value.
 */
int agg_layout_plans(struct session *s, const struct agg_opts *a, struct tracer_agg *layout);
/*
 * The kernel memory count's and hist's maps take once loaded, before any
 * key is seen: the maps the kernel allocates whole (count's table, the
 * stack map of --by kstack) at full size, hist's table (it grows with its
 * keys) by its buckets.
 */
unsigned long long agg_kernel_bytes(const struct tracer_agg *layout, int nr_cpus);
/*
 * Refuses, with one error naming the size and --max-keys, maps that would
 * take more than AGG_MEMORY_CAP or a quarter of avail (bytes; 0: unknown).
 */
#define AGG_MEMORY_CAP (512ULL << 20)
int agg_check_memory(const struct tracer_agg *layout, int nr_cpus, unsigned long long avail);
/* Whether each -i table holds its interval's samples alone (the maps are cleared). */
bool agg_interval_resets(const struct agg_opts *a);

struct agg_reader;

/* layout: agg_layout_plans'; both stay the caller's. */
struct agg_reader *agg_reader__new(const struct session *s, const struct agg_opts *a,
				   const struct tracer_agg *layout);
/* --by ustack: these processes' maps are read now, for frames read after they exit. */
void agg_reader__prime(struct agg_reader *r, const pid_t *pids, int nr);
/* Processes noted in one poll at most; the rest wait in the ring. */
#define AGG_NOTES_BATCH 256
/*
 * Up to timeout_ms for --by ustack's notes of processes first sampled
 * (their maps are read by agg_reader__note_pending); without them, a
 * sleep. 0, or a negative errno.
 */
int agg_reader__wait(struct agg_reader *r, int timeout_ms);
/*
 * Reads the noted processes' maps and symbols, while they may still run:
 * under the lock that agg_read is called under.
 */
void agg_reader__note_pending(struct agg_reader *r);
void agg_reader__free(struct agg_reader *r);
/*
 * One table per FUNC argument; the caller frees them with agg_tables_free.
 * Where the interval resets, each call reads the samples since the last
 * and clears them: every sample is in exactly one table.
 */
int agg_read(struct agg_reader *r, struct agg_table ***tables, int *nr);
void agg_tables_free(struct agg_table **tables, int nr);
/* The samples lost so far, summed over CPUs, as the ring's drop lines name them. */
int agg_read_drops(struct agg_reader *r, struct agg_drops *d);

#endif
