/* SPDX-License-Identifier: GPL-2.0 */
/* The one configuration struct: options parsed once, passed down. */
#ifndef KSNOOP_ENV_H
#define KSNOOP_ENV_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "agg/agg_opts.h"
#include "lib/opts.h"
#include "trace/follow.h"
#include "trace/span_opts.h"
#include "trace/tracer_opts.h"

#define KSNOOP_MAX_PIDS 64

/* -d is util_debug(): p_dbg and the rest read it there. */
struct env {
	bool stack_mode; /* -s */
	bool compact;	 /* --compact */
	bool wallclock;	 /* -T */
	bool show_comm;	 /* --show-comm */
	bool symbolize;	 /* --symbolize */
	int pages;	 /* -P; 0 when not given */
	pid_t pids[KSNOOP_MAX_PIDS];
	int nr_pids;
	int cpu;			    /* --cpu, -1 for all */
	const char *comm;		    /* --comm */
	const char *cgroup;		    /* --cgroup */
	unsigned long long min_duration_ns; /* --duration */
	int max_depth;			    /* --max-depth, 0 = unbounded */
	int max_bytes;			    /* --max-bytes per value, 0 = default */
	int kstack_depth;		    /* --kstack frames, 0 = no stacks */
	int ustack_depth;		    /* --ustack frames, 0 = no user stacks */
	int ustack_dump_bytes;		    /* --call-graph dwarf, 0 = frame pointers */
	bool call_graph;		    /* --call-graph given */
	bool errors;			    /* --errors: failing calls only */
	bool graph;			    /* ksnoop graph: call trees under ENTRY */
	bool chrome;			    /* --format=chrome: Chrome Trace Event JSON */
	const char *output_path;	    /* -o FILE, else stdout */
	int max_nodes;			    /* graph --max-nodes per tree */
	bool errno_filter;		    /* --errno: only these errnos */
	unsigned long long errno_mask[64];  /* --errno, a bit per errno 0-4095 */
	const char *btf_path;		    /* --btf */
	enum backend_choice backend;
	const char *prog_name; /* argv[0] basename */
	struct agg_opts agg;
	struct span_opts spans;	   /* --from, --to, --max-spans */
	struct follow_opts follow; /* --follow, --follow-in, --follow-end, --follow-time */
};

/* A subcommand gets the env and the arguments after the command word. */
typedef int (*cmd_fn)(struct env *env, int argc, char **argv);

int cmd_info(struct env *env, int argc, char **argv);
int cmd_trace(struct env *env, int argc, char **argv);
int cmd_graph(struct env *env, int argc, char **argv);
int cmd_feature(struct env *env, int argc, char **argv);
int cmd_ktrace(struct env *env, int argc, char **argv);
int cmd_kdump(struct env *env, int argc, char **argv);
int cmd_probe(struct env *env, int argc, char **argv);
int cmd_kprobe_events(struct env *env, int argc, char **argv);
int cmd_count(struct env *env, int argc, char **argv);
int cmd_hist(struct env *env, int argc, char **argv);
int cmd_serve(struct env *env, int argc, char **argv);

/*
 * Setters of struct env's options (ctx is the env) for the commands whose
 * tables share them: opts_parse's 0 or -errno.
 */
int env_add_pid(void *env, const char *arg);	      /* -p, --pid */
int env_set_pages(void *env, const char *arg);	      /* -P, --pages */
int env_set_debug(void *env, const char *arg);	      /* -d, --debug */
int env_set_json(void *env, const char *arg);	      /* -j, --json */
int env_set_kstack(void *env, const char *arg);	      /* --kstack */
int env_set_kstack_depth(void *env, const char *arg); /* --kstack-depth N */
int env_set_ustack(void *env, const char *arg);	      /* --ustack */
int env_set_call_graph(void *env, const char *arg);   /* --call-graph */

/* ksnoop's own options, and count's and hist's, which come first. */
extern const struct opt env_opts[];
extern const struct opts_spec agg_cmd_opts;
void agg_usage(FILE *f, const char *prog);

/*
 * The options the core takes, from env: what session.c and the tracer
 * read of a command line (the tracer's agg part is count's and hist's).
 */
struct session_opts;
void env_session_opts(const struct env *env, struct session_opts *o);
void env_tracer_opts(const struct env *env, struct tracer_opts *o);

void usage(FILE *f, const char *prog);
int ksnoop_main(int argc, char **argv);

#endif
