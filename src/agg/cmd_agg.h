/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One count or hist from its command line to its tables, in steps: what
 * the count and hist commands run once, and serve once per metric.
 */
#ifndef KSNOOP_AGG_CMD_AGG_H
#define KSNOOP_AGG_CMD_AGG_H

#include <pthread.h>
#include <stdio.h>

#include "agg/agg.h"
#include "env.h"
#include "trace/session.h"

struct prom_server;

struct agg_run {
	struct session ses;
	const struct agg_opts *a;
	struct tracer_agg layout; /* agg_layout_plans' */
	struct agg_reader *reader;
	struct prom_server *prom;
	FILE *svg; /* --svg's file, opened before anything attaches */
	/* The reader's maps and symbols, between the main loop and the HTTP thread. */
	pthread_mutex_t lock;
};

/* count or hist (enum ksnoop_agg_mode), and what it implies of env's options. */
void agg_set_mode(struct env *env, int mode);
/*
 * Checks the options, plans the specs and sizes the maps: every error of
 * the command line is said here, before anything loads. share: a session
 * whose BTF and symbols this one borrows, or NULL. env stays the caller's
 * and must outlive r. agg_run__close frees r whatever this returns.
 */
int agg_run__open(struct agg_run *r, struct env *env, int argc, char **argv, const char *cmd,
		  const struct session *share);
/* Loads, attaches and starts reading. 0 or -errno after one error line. */
int agg_run__attach(struct agg_run *r, const struct env *env);
/*
 * --by ustack: waits up to timeout_ms for processes first sampled, and
 * reads their maps while they run (agg_reader__note_pending), under r's
 * lock; else a sleep. 0 or -errno.
 */
int agg_run__note_processes(struct agg_run *r, int timeout_ms);
/* The tables (agg_read's) and drops (d may be NULL), under r's lock. */
int agg_run__read(struct agg_run *r, struct agg_table ***tables, int *nr, struct agg_drops *d);
/* The functions planned, each one attached once agg_run__attach succeeded. */
int agg_run__nr_attached(const struct agg_run *r);
void agg_run__close(struct agg_run *r);

#endif
