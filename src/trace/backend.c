// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>

#include "lib/archinfo.h"
#include "trace/backend.h"
#include "lib/bpfutil.h"
#include "lib/kfeat.h"
#include "lib/progress.h"
#include "lib/util.h"
#include "trace/straight.h"
#include "trace.skel.h"

/*
 * The owner object holds the maps, the kprobe programs (one program
 * serves every kprobe-traced function; the attach cookie names the
 * function) and the task-exit cleanup. fentry needs one program per
 * target, so each fentry-traced function gets its own small instance;
 * so does each kprobe function where the kernel lacks attach cookies or
 * bpf_loop (see per_func_kprobes).
 */
struct func_state {
	struct trace_bpf *skel;	      /* per-function instance, if any */
	int prog_fds[2], link_fds[2]; /* by side: written out, or like the template; or 0 */
	int perf_fds[2];	      /* by side: a straight-line kprobe's perf event, or 0 */
	struct bpf_link *entry, *ret;
	struct bpf_link **cpu_links; /* profile: one perf event link a CPU */
	int nr_cpu_links;
	enum backend_kind kind;
	bool attached;
};

struct tracer {
	struct tracer_opts opts;
	struct select_func *sel; /* what runs for each function */
	struct func_plan *plans;
	int nr;
	struct func_state *fs;
	struct trace_bpf *owner;
	int kprobe_load_err; /* why the owner has no kprobe programs */
	bool has_multi;	     /* kprobe.multi (and uprobe.multi) programs loaded */
	struct bpf_link *multi_entry, *multi_ret;
	int *umulti_fds; /* uprobe.multi links: per binary, each way */
	int nr_umulti_fds;
	struct bpf_link *exit_link;
	/* what the kernel skipped, kept at detach: its counts go with the links */
	__u64 missed_at_detach;
	bool detached;
	int nr_cpus;
	int ring_fd; /* once created, or negative */
	unsigned long ring_size;
	__u8 max_fast_preds, max_steps; /* over the session: find_loop_bounds */
	struct lite_layout lite;
	struct ring_job { /* creating the ring beside libbpf's open */
		pthread_t thread;
		bool started;
		int fd;
	} ring_job;
	kfeat_set feat;	    /* what the kernel offers (lib/kfeat.h) */
	bool fentry_cookie; /* the kernel has fentry attach cookies */
	bool compat;	    /* the COMPAT programs: no bpf_loop or bpf_get_func_arg */
	bool kprobe_pmu;    /* perf has a kprobe PMU (Linux 4.17) */
	bool uprobe_pmu;    /* and a uprobe PMU */
	bool no_umaps;	    /* the verifier refused the mappings' capture: see umaps_refused */
	struct trace_bpf *fentry_tmpl;	 /* first fentry instance, for the rest */
	struct trace_bpf *clone_tmpl[2]; /* by fentry: the first one-function instance */
	int owner_fentry;		 /* function whose fentry programs the owner holds, or -1 */
	char *left_out_why;		 /* why the first glob function left out failed */
	struct fast_prog {		 /* what loading like it needs, per program */
		int btf_fd;
		struct bpf_func_info *finfo;
		__u32 nr_finfo;
	} fast[2];
};

/*
 * Without -P the ring holds a burst of RING_BURST_CALLS calls of the
 * plan's largest (see backend_ring_bytes), up to RINGBUF_DEFAULT_MAX: the
 * reader may be far slower than the traced code. Its pages are the
 * tracer's memory, and a 6.12 kernel counts its mapping twice in RSS.
 */
#define RING_BURST_CALLS 100000UL
#define RINGBUF_DEFAULT_MAX (64UL << 20)
#define RINGBUF_MAX (1UL << 30)

/* The kernel wants a power of two. */
static unsigned long ring_pow2(unsigned long want)
{
	unsigned long size = getpagesize();

	while (size < want && size < RINGBUF_MAX)
		size <<= 1;
	return size;
}

unsigned long ringbuf_size(int pages_per_cpu, int nr_cpus)
{
	return ring_pow2((unsigned long)pages_per_cpu * nr_cpus * getpagesize());
}

/* The BPF program's and the trampoline's frames, and one spare. */
#define KSTACK_HIDDEN 3

/* Room for the frames above the function at fentry, which output cuts. */
static int kstack_bytes_of(const struct tracer_opts *o)
{
	return o->kstack_depth ? 8 * min(o->kstack_depth + KSTACK_HIDDEN, KSNOOP_KSTACK_MAX) : 0;
}

/* --ustack's record, header included, beside the kstack's bytes. */
static int stacks_bytes_of(const struct tracer_opts *o)
{
	int ustack = o->ustack_dump_bytes
			     ? KSNOOP_UREGS_SIZE + o->ustack_dump_bytes
			     : 8 * o->ustack_depth + 16 +
				       KSNOOP_UMAPS_MAX * (int)sizeof(struct ksnoop_umap);

	return kstack_bytes_of(o) + (o->ustack_depth ? 16 + ustack : 0);
}

unsigned long ringbuf_size_unplanned(int pages_per_cpu, int nr_cpus)
{
	if (pages_per_cpu)
		return ringbuf_size(pages_per_cpu, nr_cpus);
	return max(ringbuf_size(KSNOOP_DEFAULT_PAGES, nr_cpus), RINGBUF_DEFAULT_MAX);
}

/* What one event of these values can take in the ring, record header included. */
static unsigned long event_bytes(const struct ksnoop_func_cfg *cfg, int side0, int side1,
				 int kstack_bytes)
{
	unsigned long n = 8 + KSNOOP_EVENT_HDR_SIZE;
	int s, i;

	for (s = side0; s <= side1; s++) {
		for (i = 0; i < cfg->nr_side[s] && i < KSNOOP_MAX_VALUES; i++) {
			const struct ksnoop_value *v =
				&cfg->values[cfg->side[s][i] % KSNOOP_MAX_VALUES];

			n += KSNOOP_VREC_SIZE(v->size);
		}
	}
	if (kstack_bytes)
		n += sizeof(struct ksnoop_vrec) + kstack_bytes;
	return n;
}

/* The most one call of cfg sends: its events, and a chain end (-s, graph, --errors). */
unsigned long backend_call_bytes(const struct ksnoop_func_cfg *cfg, int kstack_bytes,
				 bool chain_end)
{
	unsigned long n = chain_end ? 8 + KSNOOP_EVENT_HDR_SIZE : 0;

	if (cfg->emit & KSNOOP_EMIT_ENTRY)
		n += event_bytes(cfg, 0, 0, kstack_bytes);
	if (cfg->emit & KSNOOP_EMIT_RETURN)
		n += event_bytes(cfg, 1, 1, kstack_bytes);
	if (cfg->emit & KSNOOP_EMIT_COMBINED)
		n += event_bytes(cfg, 0, 1, kstack_bytes);
	return n;
}

unsigned long backend_ring_bytes(const struct tracer_opts *o, const struct func_plan *plans, int nr,
				 int nr_cpus, const struct lite_layout *lite)
{
	unsigned long most = 0, want;
	int i;

	if (o->pages) /* -P, even -P 16, is taken as given */
		return ringbuf_size(o->pages, nr_cpus);
	for (i = 0; i < nr; i++) {
		const struct ksnoop_func_cfg *cfg = &plans[i].cfg;

		if (cfg->flags & KSNOOP_CFG_LITE)
			most = max(most, lite_call_bytes(lite, cfg));
		else
			most = max(most,
				   backend_call_bytes(cfg, stacks_bytes_of(o),
						      o->stack_mode || o->graph || o->errors));
	}
	want = min(most * RING_BURST_CALLS, RINGBUF_DEFAULT_MAX);
	return max(ring_pow2(want), ringbuf_size(KSNOOP_DEFAULT_PAGES, nr_cpus));
}

/*
 * A batch, well before the ring fills: a power of two that divides the
 * ring's size, as the BPF side's place_wakeup() needs.
 */
__u64 ringbuf_wakeup_bytes(unsigned long ring)
{
	return ring / 16 < (256UL << 10) ? ring / 16 : (256UL << 10);
}

static void set_errors_rodata(const struct tracer_opts *o, struct trace_bpf *skel)
{
	_Static_assert(sizeof(o->errno_mask) == sizeof(skel->rodata->errno_mask),
		       "one bit per errno on both sides");

	skel->rodata->errors_only = o->errors && !o->graph;
	skel->rodata->errno_filter = o->errno_filter;
	memcpy((void *)skel->rodata->errno_mask, o->errno_mask, sizeof(o->errno_mask));
}

static void set_agg_rodata(const struct tracer_agg *a, struct trace_bpf *skel)
{
	skel->rodata->agg_mode = a->mode;
	skel->rodata->agg_by = a->by;
	skel->rodata->agg_keyless = a->keyless;
	skel->rodata->agg_epochs = a->epochs;
	skel->rodata->hist_linear = a->linear;
	skel->rodata->hist_lo = a->lo;
	skel->rodata->hist_step = tracer_agg_step(a);
	skel->rodata->hist_nr = tracer_agg_nr_linear(a);
	skel->rodata->latency_div = a->unit_ns ? a->unit_ns : 1;
}

/* The aggregates' tables: as large as --max-keys where they are used. */
static int size_agg_maps(const struct tracer_agg *a, int nr_funcs, struct trace_bpf *skel)
{
	int keys = a->max_keys > 0 ? a->max_keys : KSNOOP_DEFAULT_MAX_KEYS;
	int slots = a->epochs ? nr_funcs * 2 : nr_funcs;
	int err;

	if (a->key_size) {
		err = bpf_map__set_key_size(skel->maps.agg_counts, a->key_size)
			      ?: bpf_map__set_key_size(skel->maps.agg_hists, a->key_size);
		if (err)
			return err;
	}
	return bpf_map__set_max_entries(skel->maps.agg_counts,
					a->mode == KSNOOP_AGG_COUNT ? keys : 1) ?:
	       bpf_map__set_max_entries(skel->maps.agg_hists,
					a->mode == KSNOOP_AGG_HIST ? keys : 1) ?:
	       bpf_map__set_max_entries(skel->maps.stacks,
					a->by & (KSNOOP_BY_KSTACK | KSNOOP_BY_USTACK) ? keys : 1) ?:
	       bpf_map__set_max_entries(skel->maps.func_counts,
					a->mode == KSNOOP_AGG_COUNT ? slots : 1) ?:
	       bpf_map__set_max_entries(skel->maps.func_hists,
					a->mode == KSNOOP_AGG_HIST ? slots : 1) ?:
	       bpf_map__set_max_entries(skel->maps.noted_tgids,
					a->by & KSNOOP_BY_USTACK ? KSNOOP_TASK_NOTES_MAX : 1);
}

/* An open span of count or hist: its time, and its key up to the bytes in use. */
static __u32 span_value_size(const struct tracer_opts *o)
{
	if (!o->spans || o->agg.mode == KSNOOP_AGG_NONE)
		return sizeof(struct ksnoop_span);
	return KSNOOP_SPAN_HDR + (o->agg.keyless ? 0 : o->agg.key_size);
}

/* A span's key in the maps: a word per value of the key, as many in every plan. */
static __u32 span_key_size(const struct tracer *t)
{
	__u32 i, n = 0;

	for (i = 0; t->opts.spans && t->nr && i < KSNOOP_SPAN_KEY_MAX; i++)
		n += t->plans[0].cfg.span_key_width[i] != 0;
	return 8 * (n ?: 1);
}

/* The open spans: their times and keys for count and hist, their start events for trace. */
static int size_span_maps(const struct tracer *t, struct trace_bpf *skel)
{
	const struct tracer_opts *o = &t->opts;
	int n = o->max_spans > 0 ? o->max_spans : KSNOOP_DEFAULT_MAX_SPANS;
	bool agg = o->agg.mode != KSNOOP_AGG_NONE;

	return bpf_map__set_max_entries(skel->maps.spans, o->spans && agg ? n : 1)
		       ?: bpf_map__set_key_size(skel->maps.spans, span_key_size(t))
		       ?: bpf_map__set_value_size(skel->maps.spans, span_value_size(o))
		       ?: bpf_map__set_max_entries(skel->maps.span_events,
						   o->spans && !agg ? n : 1)
		       ?: bpf_map__set_key_size(skel->maps.span_events, span_key_size(t))
		       ?: bpf_map__set_max_entries(skel->maps.followed, o->follow ? n : 1);
}

/*
 * The loop bounds of every function of the session (see max_steps in
 * trace.bpf.c), once: each of a slow path's per-function objects takes them.
 */
static void find_loop_bounds(struct tracer *t)
{
	__u32 i, v;

	for (i = 0; i < (__u32)t->nr; i++) {
		const struct ksnoop_func_cfg *cfg = &t->plans[i].cfg;

		t->max_fast_preds = max(t->max_fast_preds, cfg->nr_fast_preds);
		for (v = 0; v < cfg->nr_values && v < KSNOOP_MAX_VALUES; v++)
			t->max_steps = max(t->max_steps, cfg->values[v].nr_steps);
	}
}

/* JSON and Chrome traces show each event's comm. */
static bool want_comm(const struct tracer *t)
{
	return t->opts.want_comm;
}

/*
 * one_func: the instance serves func alone (and is no template for
 * others), so its plan is a constant.
 */
static void set_rodata(const struct tracer *t, struct trace_bpf *skel, int func, bool one_func)
{
	skel->rodata->func_id = func;
	skel->rodata->task_storage = kfeat_has(t->feat, KFEAT_TASK_STORAGE);
	skel->rodata->kprobe_cookie = kfeat_has(t->feat, KFEAT_KPROBE_COOKIE);
	skel->rodata->filter_tgid = t->opts.nr_pids > 0;
	skel->rodata->filter_cpu = t->opts.cpu;
	skel->rodata->filter_cgroup = t->opts.cgroup != NULL;
	skel->rodata->chain_mode = t->opts.stack_mode || t->opts.graph;
	/* graph keeps or drops whole trees, by ENTRY's duration and error */
	skel->rodata->min_duration_ns = t->opts.graph ? 0 : t->opts.min_duration_ns;
	skel->rodata->kstack_bytes = kstack_bytes_of(&t->opts);
	skel->rodata->ustack_bytes = 8 * t->opts.ustack_depth;
	skel->rodata->ustack_dump_bytes = t->opts.ustack_dump_bytes;
	skel->rodata->ustack_maps = t->opts.ustack_depth && !t->opts.ustack_dump_bytes &&
				    !t->no_umaps;
	skel->rodata->task_pt_regs = kfeat_has(t->feat, KFEAT_TASK_PT_REGS);
	skel->rodata->wakeup_bytes = ringbuf_wakeup_bytes(t->ring_size);
	skel->rodata->fentry_cookie = t->fentry_cookie;
	skel->rodata->want_comm = want_comm(t);
	_Static_assert(sizeof(t->lite.off) == sizeof(skel->rodata->lite_off) &&
			       sizeof(t->lite.len) == sizeof(skel->rodata->lite_len),
		       "one lite layout on both sides");
	memcpy((void *)skel->rodata->lite_rec, t->lite.rec, sizeof(t->lite.rec));
	memcpy((void *)skel->rodata->lite_off, t->lite.off, sizeof(t->lite.off));
	memcpy((void *)skel->rodata->lite_len, t->lite.len, sizeof(t->lite.len));
	memcpy((void *)skel->rodata->lite_slots, t->lite.slots, sizeof(t->lite.slots));
	skel->rodata->lite_only = t->lite.only;
	skel->rodata->max_fast_preds = t->max_fast_preds;
	skel->rodata->max_steps = t->max_steps;
	skel->rodata->cfg_const = one_func;
	skel->rodata->tp_syscall = t->plans[func].tp.syscall;
	skel->rodata->tp_syscall_nr = t->plans[func].tp.syscall_nr;
	if (one_func)
		memcpy((void *)&skel->rodata->the_cfg, &t->plans[func].cfg,
		       sizeof(t->plans[func].cfg));
	set_agg_rodata(&t->opts.agg, skel);
	set_errors_rodata(&t->opts, skel);
	skel->rodata->spans_mode = t->opts.spans;
	skel->rodata->follow_mode = t->opts.follow;
	skel->rodata->follow_max_ns = t->opts.follow_max_ns ?: ~0ULL;
	skel->rodata->late_filters = t->opts.spans || t->opts.follow;
	skel->rodata->span_value_size = span_value_size(&t->opts);
}

static void autoload_only(struct trace_bpf *skel, struct bpf_program *keep1,
			  struct bpf_program *keep2)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == keep1 || p == keep2);
}

/* Stashes, and the task table that stands in for task storage. */
static bool needs_exit_cleanup(const struct tracer *t)
{
	int i;

	if (!kfeat_has(t->feat, KFEAT_TASK_STORAGE))
		return true;
	for (i = 0; i < t->nr; i++) {
		if (t->plans[i].cfg.emit & KSNOOP_EMIT_COMBINED)
			return true;
	}
	return false;
}

static bool multi_member(const struct tracer *t, int i)
{
	return t->sel[i].multi;
}

/* A member of a binary's uprobe.multi link; multi_member too. */
static bool umulti_member(const struct tracer *t, int i)
{
	return t->sel[i].multi && t->sel[i].user;
}

static bool any_func(const struct tracer *t, bool (*is)(const struct tracer *t, int i))
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (is(t, i))
			return true;
	}
	return false;
}

static bool wants_umulti(const struct tracer *t)
{
	return any_func(t, umulti_member);
}

static bool wants_multi(const struct tracer *t)
{
	return any_func(t, multi_member);
}

enum owner_progs { OWN_KPROBE = 1, OWN_MULTI = 2, OWN_FENTRY = 4 };

/* Whether some function may attach with kind. */
static bool tries_kind(const struct tracer *t, enum backend_kind kind)
{
	int i, k;

	for (i = 0; i < t->nr; i++) {
		for (k = 0; k < t->sel[i].nr_tries; k++) {
			if (t->sel[i].tries[k] == kind)
				return true;
		}
	}
	return false;
}

/* Whether func's programs are written out for it (select.c decides). */
static bool straight_ok(const struct tracer *t, int func, enum straight_ctx ctx)
{
	return select_straight(&t->sel[func], ctx == STRAIGHT_TRAMPOLINE ? BK_FENTRY : BK_KPROBE);
}

/* The function whose fentry programs load with the owner (select.c), or -1. */
static int first_fentry_func(const struct tracer *t)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (t->sel[i].fentry_load == SEL_LOAD_OWNER)
			return i;
	}
	return -1;
}

/*
 * libbpf 1.1 parses the kernel's BTF for any tracing program it loads
 * without a target program (a sixth of a start under emulation), only to
 * find the attach id that ksnoop's own parse already has. So the fentry
 * and fexit programs sit in sections of ksnoop's own. A placeholder target
 * program tells libbpf the target comes later; load_deferred() swaps in
 * the kernel function when the program is loaded. Should a libbpf refuse
 * this, the owner loads without them and the function goes the long way.
 */
#define DEFERRED_TARGET_FD 1
static __u32 deferred_btf_id;

static int load_deferred(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	(void)prog;
	(void)cookie;
	if (opts->attach_prog_fd == DEFERRED_TARGET_FD && !opts->attach_btf_id) {
		opts->attach_prog_fd = 0;
		opts->attach_btf_obj_fd = 0;
		opts->attach_btf_id = deferred_btf_id;
	}
	return 0;
}

/* BPF_TRACE_UPROBE_MULTI (6.6), which libbpf 1.1's UAPI headers predate. */
#define UPROBE_MULTI_ATTACH 48
#define UPROBE_MULTI_RETURN 1 /* BPF_F_UPROBE_MULTI_RETURN */

/*
 * uprobe.multi's programs are kprobe programs expecting that attach type:
 * its value as the running kernel's BTF names it (the UAPI's, unless a
 * kernel differs).
 */
static int register_umulti_sections(const struct btf *vmlinux)
{
	long long type =
		vmlinux ? btf_enum_value(vmlinux, "bpf_attach_type", "BPF_TRACE_UPROBE_MULTI") : -1;
	int err;

	if (type < 0)
		type = UPROBE_MULTI_ATTACH;
	err = libbpf_register_prog_handler("ksnoop.umulti", BPF_PROG_TYPE_KPROBE, type, NULL);
	if (err >= 0)
		err = libbpf_register_prog_handler("ksnoop.uretmulti", BPF_PROG_TYPE_KPROBE, type,
						   NULL);
	return err < 0 ? err : 0;
}

static int register_own_sections(const struct btf *vmlinux)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, opts, .prog_prepare_load_fn = load_deferred);
	static int err = 1;

	if (err > 0) {
		err = libbpf_register_prog_handler("ksnoop.fentry", BPF_PROG_TYPE_TRACING,
						   BPF_TRACE_FENTRY, &opts);
		if (err >= 0)
			err = libbpf_register_prog_handler("ksnoop.fexit", BPF_PROG_TYPE_TRACING,
							   BPF_TRACE_FEXIT, &opts);
		if (err >= 0)
			err = register_umulti_sections(vmlinux);
		err = err < 0 ? err : 0;
		if (err)
			p_err("libbpf refused ksnoop's own sections: %s", strerror(-err));
	}
	return err;
}

static int set_owner_fentry(struct tracer *t, struct trace_bpf *skel)
{
	deferred_btf_id = t->plans[t->owner_fentry].func.id;
	bpf_program__set_autoload(skel->progs.ksnoop_fentry, true);
	bpf_program__set_autoload(skel->progs.ksnoop_fexit, true);
	return bpf_program__set_attach_target(skel->progs.ksnoop_fentry, DEFERRED_TARGET_FD, NULL)
		       ?: bpf_program__set_attach_target(skel->progs.ksnoop_fexit,
							 DEFERRED_TARGET_FD, NULL);
}

static int create_ring(unsigned long size)
{
	union bpf_attr attr;
	int fd;

	/*
	 * The bare syscall: libbpf's bpf_map_create would first probe whether
	 * maps may have names by loading a program. The name must be the
	 * skeleton's, which finds maps by name (share_maps).
	 */
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_RINGBUF;
	attr.max_entries = size;
	strncpy(attr.map_name, "events", sizeof(attr.map_name) - 1);
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

static void *ring_thread(void *arg)
{
	struct tracer *t = arg;

	t->ring_job.fd = create_ring(t->ring_size);
	return NULL;
}

/* Tens of MB take the kernel a while: allocated while libbpf opens the object. */
static void start_ring(struct tracer *t)
{
	t->ring_job.fd = -1;
	t->ring_job.started = !pthread_create(&t->ring_job.thread, NULL, ring_thread, t);
}

/* The ring's fd once created, or negative: libbpf then creates it, and says why not. */
static int ring_ready(struct tracer *t)
{
	if (t->ring_job.started) {
		pthread_join(t->ring_job.thread, NULL);
		t->ring_job.started = false;
		t->ring_fd = t->ring_job.fd;
	}
	return t->ring_fd;
}

/* Without task storage (5.11): a hash of thread ids (see task_state_get). */
static int task_table(struct bpf_map *tasks)
{
	return bpf_map__set_type(tasks, BPF_MAP_TYPE_HASH)
		       ?: bpf_map__set_max_entries(tasks, KSNOOP_MAX_TASKS);
}

/*
 * The capture of a user stack's mappings (bpf_find_vma over its frames)
 * costs the verifier most of what it may spend on some kernels (arm64 6.1
 * refuses a raw tracepoint's program with it). Refused once, the programs
 * load without it: only processes gone before their maps are read lose
 * their frames' names. Whether to load again.
 */
static bool umaps_refused(struct tracer *t, int err)
{
	if (t->no_umaps || !(t->opts.ustack_depth && !t->opts.ustack_dump_bytes) ||
	    (err != -EACCES && err != -E2BIG && err != -EINVAL))
		return false;
	p_dbg("the verifier refused the programs with the user stacks' mappings (%s): "
	      "loading them without",
	      strerror(-err));
	t->no_umaps = true;
	return true;
}

static struct trace_bpf *open_owner(struct tracer *t, int progs, int *err)
{
	struct trace_bpf *skel = trace_bpf__open();
	struct bpf_program *p;

	if (!skel) {
		*err = -errno;
		return NULL;
	}
	set_rodata(t, skel, 0, t->nr == 1);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(skel->progs.ksnoop_kprobe, progs & OWN_KPROBE);
	bpf_program__set_autoload(skel->progs.ksnoop_kretprobe, progs & OWN_KPROBE);
	bpf_program__set_autoload(skel->progs.ksnoop_kmulti, progs & OWN_MULTI);
	bpf_program__set_autoload(skel->progs.ksnoop_kretmulti, progs & OWN_MULTI);
	bpf_program__set_autoload(skel->progs.ksnoop_umulti,
				  (progs & OWN_MULTI) && wants_umulti(t));
	bpf_program__set_autoload(skel->progs.ksnoop_uretmulti,
				  (progs & OWN_MULTI) && wants_umulti(t));
	bpf_program__set_autoload(skel->progs.ksnoop_task_exit, needs_exit_cleanup(t));
	*err = progs & OWN_FENTRY ? set_owner_fentry(t, skel) : 0;
	if (!*err && ring_ready(t) >= 0)
		*err = bpf_map__reuse_fd(skel->maps.events, t->ring_fd);
	else if (!*err)
		*err = bpf_map__set_max_entries(skel->maps.events, t->ring_size);
	if (!*err)
		*err = bpf_map__set_max_entries(skel->maps.func_cfg, max(t->nr, 1))
			       ?: size_agg_maps(&t->opts.agg, t->nr, skel)
			       ?: size_span_maps(t, skel);
	if (!*err && !kfeat_has(t->feat, KFEAT_TASK_STORAGE))
		*err = task_table(skel->maps.tasks);
	if (!*err)
		*err = trace_bpf__load(skel);
	if (*err) {
		trace_bpf__destroy(skel);
		return umaps_refused(t, *err) ? open_owner(t, progs, err) : NULL;
	}
	return skel;
}

/*
 * Without attach cookies a shared kprobe program cannot tell its functions
 * apart; without bpf_loop the COMPAT programs want one plan as constants.
 */
static bool per_func_kprobes(const struct tracer *t)
{
	return !kfeat_has(t->feat, KFEAT_KPROBE_COOKIE) || t->compat;
}

/*
 * Prefer an owner with kprobe (and multi) programs; fall back to maps only.
 * Each is tried first with the first fentry function's programs: if those
 * fail, that function is loaded alone later, and reports why.
 */
static int load_owner(struct tracer *t)
{
	static const int tries[] = { OWN_KPROBE | OWN_MULTI, OWN_KPROBE, 0 };
	/*
	 * -b fentry never attaches kprobes: spare the verifier their programs;
	 * nor do per-function kprobe instances need them.
	 */
	size_t i = t->opts.backend == BACKEND_FENTRY || per_func_kprobes(t) ||
				   !tries_kind(t, BK_KPROBE)
			   ? 2
		   : wants_multi(t) ? 0
				    : 1;
	int fentry = t->owner_fentry >= 0 ? OWN_FENTRY : 0, progs = 0, err = 0;

	while (i < ARRAY_SIZE(tries) && !t->owner) {
		progs = tries[i] | fentry;
		t->owner = open_owner(t, progs, &err);
		if (t->owner) {
			t->has_multi = progs & OWN_MULTI;
			if (!(progs & OWN_KPROBE))
				t->kprobe_load_err = err ? err : -EINVAL;
		} else if ((progs & OWN_KPROBE) && !fentry) {
			t->kprobe_load_err = err;
		}
		p_dbg("owner object (progs %#x): %s", progs, t->owner ? "loaded" : strerror(-err));
		if (!t->owner && fentry)
			fentry = 0;
		else
			i++;
	}
	if (!(progs & OWN_FENTRY))
		t->owner_fentry = -1;
	if (!t->owner)
		p_err("cannot load ksnoop's BPF object: %s%s", err_text(err),
		      bpfutil_perm_hint(err));
	return t->owner ? 0 : err;
}

/*
 * Later instances reuse the owner's maps by file descriptor, .bss too (its
 * wakeup clock is one for the ring); .rodata is each function's own.
 */
static int share_maps(struct trace_bpf *skel, struct trace_bpf *owner)
{
	struct bpf_map *m;
	int err;

	bpf_object__for_each_map(m, skel->obj) {
		struct bpf_map *om;

		if (bpf_map__is_internal(m) && m != skel->maps.bss)
			continue;
		om = bpf_object__find_map_by_name(owner->obj, bpf_map__name(m));
		if (!om)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, bpf_map__fd(om));
		if (err)
			return err;
	}
	return 0;
}

static struct bpf_link *attach_trace(struct tracer *t, struct bpf_program *prog, int func)
{
	LIBBPF_OPTS(bpf_trace_opts, opts, .cookie = t->fentry_cookie ? func : 0);

	return bpf_program__attach_trace_opts(prog, &opts);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Where subprograms start: where calls and callback references point (the verifier's rule). */
static __u32 *subprog_starts(const struct bpf_insn *insn, size_t n, __u32 *nr_out)
{
	__u32 *starts = calloc(n + 1, sizeof(*starts)), nr = 1, i, k;

	if (!starts)
		return NULL;
	for (i = 0; i < n; i++) {
		bool call = insn[i].code == (BPF_JMP | BPF_CALL) &&
			    insn[i].src_reg == BPF_PSEUDO_CALL;
		bool func = insn[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    insn[i].src_reg == BPF_PSEUDO_FUNC;

		if (call || func)
			starts[nr++] = i + insn[i].imm + 1;
		if (insn[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
	qsort(starts, nr, sizeof(*starts), cmp_u32);
	for (i = 1, k = 1; i < nr; i++) {
		if (starts[i] != starts[k - 1])
			starts[k++] = starts[i];
	}
	*nr_out = k;
	return starts;
}

/* The object's symbol table and the index of its .text, where subprograms live. */
static Elf_Scn *text_symbols(Elf *elf, size_t *text)
{
	Elf_Scn *scn = NULL, *symtab = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*text = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);

		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (name && !strcmp(name, ".text"))
			*text = elf_ndxscn(scn);
	}
	return *text ? symtab : NULL;
}

/* The BTF FUNC of the .text function that is len instructions long, if one is. */
static __u32 func_of_len(Elf *elf, Elf_Scn *symtab, size_t text, const struct btf *btf, size_t len)
{
	Elf_Data *d = elf_getdata(symtab, NULL);
	const char *found = NULL;
	size_t i, nr;
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!d || !gelf_getshdr(symtab, &sh) || !sh.sh_entsize)
		return 0;
	nr = d->d_size / sh.sh_entsize;
	for (i = 0; i < nr && gelf_getsym(d, i, &sym); i++) {
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx != text ||
		    sym.st_size != len * sizeof(struct bpf_insn))
			continue;
		if (found) /* two of one length: no telling them apart */
			return 0;
		found = elf_strptr(elf, sh.sh_link, sym.st_name);
	}
	return found ? max(btf__find_by_name_kind(btf, found, BTF_KIND_FUNC), 0) : 0;
}

/*
 * When the verifier dropped subprograms that the session's constants left
 * dead (a session of lite events drops the predicate loops), the loaded
 * program reports fewer records than its instructions have subprograms.
 * Each subprogram is then named by its length, as the object's symbols
 * give it.
 */
static int finfo_from_symbols(struct fast_prog *fp, const __u32 *starts, __u32 nr, size_t n,
			      const struct btf *btf)
{
	size_t size;
	const void *bytes = trace_bpf__elf_bytes(&size);
	Elf_Scn *symtab;
	size_t text;
	Elf *elf;
	__u32 k;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_memory((char *)bytes, size);
	if (!elf)
		return -EINVAL;
	symtab = text_symbols(elf, &text);
	err = symtab ? 0 : -ENOENT;
	for (k = 1; k < nr && !err; k++) {
		fp->finfo[k].insn_off = starts[k];
		fp->finfo[k].type_id = func_of_len(elf, symtab, text, btf,
						   (k + 1 < nr ? starts[k + 1] : n) - starts[k]);
		err = fp->finfo[k].type_id ? 0 : -ENOENT;
	}
	elf_end(elf);
	return err;
}

/*
 * The kernel wants BTF func_info for programs with callbacks (bpf_loop):
 * one record per subprogram, at its first instruction. libbpf keeps its
 * records to itself, so they are rebuilt from the loaded template's: its
 * BTF type ids, in the order of its records, or its symbols when the
 * verifier dropped some.
 */
static int prepare_fast(struct fast_prog *fp, const struct bpf_program *prog, struct btf *btf)
{
	size_t n = bpf_program__insn_cnt(prog);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nr, k, *starts, rec;
	struct bpf_func_info *kinfo = NULL;
	int err = -EINVAL;

	starts = subprog_starts(bpf_program__insns(prog), n, &nr);
	if (!starts)
		return -ENOMEM;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) || !info.nr_func_info ||
	    info.nr_func_info > nr)
		goto out;
	rec = info.func_info_rec_size;
	kinfo = calloc(info.nr_func_info, rec);
	fp->finfo = calloc(nr, sizeof(*fp->finfo));
	if (!kinfo || !fp->finfo || rec < sizeof(*kinfo))
		goto out;
	k = info.nr_func_info;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = k;
	info.func_info_rec_size = rec;
	info.func_info = (__u64)(unsigned long)kinfo;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		goto out;
	fp->finfo[0].type_id = kinfo->type_id;
	if (info.nr_func_info == nr) {
		for (k = 0; k < nr; k++) {
			fp->finfo[k].insn_off = starts[k];
			fp->finfo[k].type_id =
				((struct bpf_func_info *)((char *)kinfo + k * rec))->type_id;
		}
	} else if (finfo_from_symbols(fp, starts, nr, n, btf)) {
		goto out;
	} else {
		p_dbg("%s: the verifier kept %u of %u subprograms; the rest named by their symbols",
		      bpf_program__name(prog), info.nr_func_info, nr);
	}
	fp->nr_finfo = nr;
	fp->btf_fd = btf__fd(btf);
	err = fp->btf_fd >= 0 ? 0 : -EINVAL;
out:
	if (err) {
		free(fp->finfo);
		fp->finfo = NULL;
	}
	free(kinfo);
	free(starts);
	return err;
}

/* The first fentry instance becomes the template, if it can. */
static void set_fentry_tmpl(struct tracer *t, struct trace_bpf *skel)
{
	struct btf *btf = bpf_object__btf(skel->obj);

	if (t->fentry_tmpl || !t->fentry_cookie || !btf)
		return;
	if (prepare_fast(&t->fast[0], skel->progs.ksnoop_fentry, btf) ||
	    prepare_fast(&t->fast[1], skel->progs.ksnoop_fexit, btf)) {
		p_dbg("fentry: no BTF func_info to reuse; loading each function through libbpf");
		return;
	}
	t->fentry_tmpl = skel;
}

/* A program; with -d, the end of the verifier's log when it is refused. */
static int load_prog(enum bpf_prog_type type, const char *name, const struct bpf_insn *insns,
		     size_t n, struct bpf_prog_load_opts *opts)
{
	char *log;
	int fd;

	fd = bpf_prog_load(type, name, "GPL", insns, n, opts);
	if (fd >= 0 || !util_debug())
		return fd;
	log = calloc(1, 1 << 20);
	if (!log)
		return fd;
	opts->log_buf = log;
	opts->log_size = 1 << 20;
	opts->log_level = 1;
	if (bpf_prog_load(type, name, "GPL", insns, n, opts) < 0)
		p_dbg("verifier log (end): %s",
		      strlen(log) > 2000 ? log + strlen(log) - 2000 : log);
	opts->log_buf = NULL;
	opts->log_size = 0;
	opts->log_level = 0;
	free(log);
	return fd;
}

/* A tracing program with tmpl's final instructions, bound to btf_id. */
static int load_like(const struct tracer *t, int k, const struct bpf_program *tmpl, __u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = bpf_program__expected_attach_type(tmpl),
		    .attach_btf_id = btf_id, .prog_flags = bpf_program__flags(tmpl),
		    .prog_btf_fd = t->fast[k].btf_fd, .func_info = t->fast[k].finfo,
		    .func_info_cnt = t->fast[k].nr_finfo,
		    .func_info_rec_size = sizeof(struct bpf_func_info));

	return load_prog(BPF_PROG_TYPE_TRACING, bpf_program__name(tmpl), bpf_program__insns(tmpl),
			 bpf_program__insn_cnt(tmpl), &opts);
}

/*
 * fentry programs are bound to their target when loaded, so every traced
 * function needs a load (and a verifier pass) of its own. Only the first
 * goes through libbpf; the others reuse its relocated instructions (maps
 * already embedded), which spares each a libbpf object, a parse of the
 * kernel's BTF and the relocations. The attach cookie names the function.
 */
static int attach_fentry_fast(struct tracer *t, int func, enum bpfutil_op *op)
{
	const struct bpf_program *progs[2] = { t->fentry_tmpl->progs.ksnoop_fentry,
					       t->fentry_tmpl->progs.ksnoop_fexit };
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .tracing.cookie = func);
	struct func_state *fs = &t->fs[func];
	int i, fd;

	for (i = 0; i < 2; i++) {
		if (!backend_wants_prog(&t->plans[func].cfg, i == 0))
			continue;
		*op = BPFUTIL_LOAD;
		fd = load_like(t, i, progs[i], t->plans[func].func.id);
		if (fd < 0)
			return fd;
		fs->prog_fds[i] = fd;
		*op = BPFUTIL_ATTACH;
		fd = bpf_link_create(fd, 0, bpf_program__expected_attach_type(progs[i]), &lopts);
		if (fd < 0)
			return fd;
		fs->link_fds[i] = fd;
	}
	return 0;
}

static void detach_func(struct tracer *t, struct func_state *fs)
{
	int i;

	bpf_link__destroy(fs->ret);
	bpf_link__destroy(fs->entry);
	fs->ret = fs->entry = NULL;
	for (i = 0; i < fs->nr_cpu_links; i++)
		bpf_link__destroy(fs->cpu_links[i]);
	free(fs->cpu_links);
	fs->cpu_links = NULL;
	fs->nr_cpu_links = 0;
	for (i = 1; i >= 0; i--) {
		if (fs->link_fds[i] > 0)
			close(fs->link_fds[i]);
		if (fs->perf_fds[i] > 0)
			close(fs->perf_fds[i]);
		if (fs->prog_fds[i] > 0)
			close(fs->prog_fds[i]);
		fs->link_fds[i] = fs->perf_fds[i] = fs->prog_fds[i] = 0;
	}
	if (fs->skel && (fs->skel == t->fentry_tmpl || fs->skel == t->clone_tmpl[0] ||
			 fs->skel == t->clone_tmpl[1]))
		return; /* freed last, in tracer__free */
	trace_bpf__destroy(fs->skel);
	fs->skel = NULL;
}

static void straight_env_of(const struct tracer *t, struct straight_env *env)
{
	const struct trace_bpf *o = t->owner;

	env->ring_fd = bpf_map__fd(o->maps.events);
	env->drops_fd = bpf_map__fd(o->maps.drops);
	env->bss_fd = bpf_map__fd(o->maps.bss);
	env->wake_off = (const char *)&o->bss->last_wake_ns - (const char *)o->bss;
	env->wake_bytes = ringbuf_wakeup_bytes(t->ring_size);
	env->wake_ns = KSNOOP_WAKE_INTERVAL_NS;
	env->want_comm = want_comm(t);
	env->counts_fd = bpf_map__fd(o->maps.func_counts);
	env->keyed_fd = t->opts.agg.keyless ? 0 : bpf_map__fd(o->maps.agg_counts);
	env->key_size = t->opts.agg.key_size;
	env->epochs = t->opts.agg.epochs;
	env->epoch_off = (const char *)&o->bss->agg_epoch - (const char *)o->bss;
}

/* side's program, attached to a new perf event on the kprobe (or uprobe) PMU. */
static int attach_kprobe_fd(struct tracer *t, int func, int side, int prog_fd)
{
	const struct func_plan *p = &t->plans[func];
	struct func_state *fs = &t->fs[func];
	bool ret = side == KSNOOP_SIDE_RETURN;
	int fd;

	fd = plan_is_user(p) ? bpfutil_uprobe_open(p->user.path, p->user.offset, ret)
			     : bpfutil_kprobe_open(p->attach_name, 0, ret);
	if (fd < 0)
		return fd;
	fs->perf_fds[side] = fd;
	return bpfutil_perf_attach(prog_fd, fd);
}

/*
 * func's own programs, from straight_emit(), which name it with an
 * immediate: no attach cookie. The return probe first, as
 * attach_kprobe() says.
 */
static int attach_straight(struct tracer *t, int func, enum straight_ctx ctx, enum bpfutil_op *op)
{
	static const enum bpf_attach_type types[2] = { BPF_TRACE_FENTRY, BPF_TRACE_FEXIT };
	static const char *const names[2][2] = { { "ksnoop_fentry", "ksnoop_fexit" },
						 { "ksnoop_kprobe", "ksnoop_kretprobe" } };
	const struct ksnoop_func_cfg *cfg = &t->plans[func].cfg;
	bool kprobe = ctx == STRAIGHT_KPROBE;
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];
	struct func_state *fs = &t->fs[func];
	struct straight_env env;
	int side, n, fd;

	straight_env_of(t, &env);
	for (side = KSNOOP_SIDE_RETURN; side >= KSNOOP_SIDE_ENTRY; side--) {
		LIBBPF_OPTS(bpf_prog_load_opts, opts);

		if (!backend_wants_prog(cfg, side == KSNOOP_SIDE_ENTRY))
			continue;
		*op = BPFUTIL_LOAD;
		n = t->opts.agg.mode == KSNOOP_AGG_COUNT
			    ? straight_emit_count(cfg, ctx, func, &env, insns, STRAIGHT_MAX_INSNS)
			    : straight_emit(cfg, side, ctx, func, &env, insns, STRAIGHT_MAX_INSNS);
		if (n < 0)
			return n;
		if (!kprobe) {
			opts.expected_attach_type = types[side];
			opts.attach_btf_id = t->plans[func].func.id;
		}
		fd = load_prog(kprobe ? BPF_PROG_TYPE_KPROBE : BPF_PROG_TYPE_TRACING,
			       names[kprobe][side], insns, n, &opts);
		if (fd < 0)
			return fd;
		fs->prog_fds[side] = fd;
		p_dbg("%s: %s written out straight-line, %d instructions", t->plans[func].name,
		      names[kprobe][side], n);
		*op = BPFUTIL_ATTACH;
		fd = kprobe ? attach_kprobe_fd(t, func, side, fd)
			    : bpf_link_create(fd, 0, types[side], NULL);
		if (fd < 0)
			return fd;
		fs->link_fds[side] = fd;
	}
	return 0;
}

/*
 * straight_ok()'s functions run their own programs. Where the kernel
 * refuses them, the general ones are tried as they would have been, and
 * give the error if they fail too: -d says why. Returns 0 once attached,
 * 1 when the caller is to load the general ones.
 */
static int try_straight(struct tracer *t, int func, enum straight_ctx ctx)
{
	enum bpfutil_op op = BPFUTIL_LOAD;
	int err;

	if (!straight_ok(t, func, ctx))
		return 1;
	err = attach_straight(t, func, ctx, &op);
	if (!err)
		return 0;
	p_dbg("%s: straight-line programs: %s failed: %s; the general ones instead",
	      t->plans[func].name, op == BPFUTIL_LOAD ? "load" : "attach", strerror(-err));
	detach_func(t, &t->fs[func]);
	return 1;
}

/* An instance's entry and return programs, by backend and build. */
static void instance_progs(struct trace_bpf *skel, enum backend_kind kind, bool compat,
			   struct bpf_program *progs[2])
{
	if (kind == BK_FENTRY) {
		progs[0] = compat ? skel->progs.ksnoop_fentry_compat : skel->progs.ksnoop_fentry;
		progs[1] = compat ? skel->progs.ksnoop_fexit_compat : skel->progs.ksnoop_fexit;
	} else if (kind == BK_TRACEPOINT) {
		progs[0] = compat ? skel->progs.ksnoop_tp_compat : skel->progs.ksnoop_tp;
		progs[1] = NULL; /* a tracepoint does not return */
	} else if (kind == BK_PROFILE) {
		progs[0] = compat ? skel->progs.ksnoop_profile_compat : skel->progs.ksnoop_profile;
		progs[1] = NULL;
	} else {
		progs[0] = compat ? skel->progs.ksnoop_kprobe_compat : skel->progs.ksnoop_kprobe;
		progs[1] = compat ? skel->progs.ksnoop_kretprobe_compat
				  : skel->progs.ksnoop_kretprobe;
	}
}

/*
 * func's own instance with only its entry and return programs, sharing
 * the owner's maps. Its plan is a constant unless it is to be the fentry
 * template of the others.
 */
static struct trace_bpf *load_instance(struct tracer *t, int func, enum backend_kind kind,
				       enum bpfutil_op *op, int *err)
{
	bool fentry = kind == BK_FENTRY, one_func = !fentry || !t->fentry_cookie || t->nr == 1;
	struct bpf_program *progs[2];
	struct trace_bpf *skel;
	int i;

	*op = BPFUTIL_OPEN;
	skel = trace_bpf__open();
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	set_rodata(t, skel, func, one_func);
	*op = BPFUTIL_LOAD;
	instance_progs(skel, kind, t->compat, progs);
	autoload_only(skel, progs[0], progs[1]);
	*err = 0;
	/* A module's function needs its BTF object's fd, which libbpf finds by name. */
	deferred_btf_id = t->plans[func].func.id;
	for (i = 0; i < 2 && fentry && !*err; i++)
		*err = t->plans[func].func.module
			       ? bpf_program__set_attach_target(progs[i], 0,
								t->plans[func].attach_name)
			       : bpf_program__set_attach_target(progs[i], DEFERRED_TARGET_FD, NULL);
	*err = *err ?: share_maps(skel, t->owner) ?: trace_bpf__load(skel);
	if (*err) {
		trace_bpf__destroy(skel);
		return umaps_refused(t, *err) ? load_instance(t, func, kind, op, err) : NULL;
	}
	return skel;
}

/*
 * Without attach cookies or bpf_loop every function has an instance of its
 * own whose plan is a constant. Only the first goes through libbpf (an
 * object opened, relocated and probed: most of a second each under
 * emulation); the others load its final instructions with a .rodata of
 * their own: func's id and plan in a copy of the template's.
 */
static int clone_rodata(const struct tracer *t, const struct trace_bpf *tmpl, int func)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_RDONLY_PROG);
	size_t size = bpf_map__value_size(tmpl->maps.rodata);
	struct trace_bpf__rodata *ro;
	__u32 zero = 0;
	int fd, err;

	if (size < sizeof(*ro))
		return -EINVAL;
	ro = malloc(size);
	if (!ro)
		return -ENOMEM;
	memcpy(ro, tmpl->rodata, size);
	ro->func_id = func;
	ro->cfg_const = true;
	memcpy((void *)&ro->the_cfg, &t->plans[func].cfg, sizeof(t->plans[func].cfg));
	/* No name: libbpf would load a program to learn whether maps may have one. */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(zero), size, 1, &opts);
	err = fd < 0 ? fd : bpf_map_update_elem(fd, &zero, ro, 0) ?: bpf_map_freeze(fd);
	free(ro);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

/* prog's final instructions, with its .rodata (old_fd) swapped for new_fd. */
static struct bpf_insn *clone_insns(const struct bpf_program *prog, int old_fd, int new_fd)
{
	size_t n = bpf_program__insn_cnt(prog), i;
	struct bpf_insn *insns = malloc(n * sizeof(*insns));

	if (!insns)
		return NULL;
	memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
	for (i = 0; i + 1 < n; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if ((insns[i].src_reg == BPF_PSEUDO_MAP_VALUE ||
		     insns[i].src_reg == BPF_PSEUDO_MAP_FD) &&
		    insns[i].imm == old_fd)
			insns[i].imm = new_fd;
		i++;
	}
	return insns;
}

/* side's program of the clone, loaded, or a negative errno. */
static int load_clone_prog(const struct tracer *t, int func, const struct trace_bpf *tmpl,
			   const struct bpf_program *prog, int rodata_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = bpf_program__expected_attach_type(prog));
	struct bpf_insn *insns;
	int fd;

	insns = clone_insns(prog, bpf_map__fd(tmpl->maps.rodata), rodata_fd);
	if (bpf_program__type(prog) == BPF_PROG_TYPE_TRACING)
		opts.attach_btf_id = t->plans[func].func.id;
	fd = insns ? load_prog(bpf_program__type(prog), bpf_program__name(prog), insns,
			       bpf_program__insn_cnt(prog), &opts)
		   : -ENOMEM;
	free(insns);
	return fd;
}

/* fentry: a raw tracepoint link, as 5.10 attaches tracing programs. */
static int attach_clone_prog(struct tracer *t, int func, int side, bool fentry, int prog_fd)
{
	int fd;

	if (fentry) {
		fd = bpf_raw_tracepoint_open(NULL, prog_fd);
		return fd < 0 ? -errno : fd;
	}
	fd = bpfutil_kprobe_open(t->plans[func].attach_name, 0, side == KSNOOP_SIDE_RETURN);
	if (fd < 0)
		return fd;
	t->fs[func].perf_fds[side] = fd;
	return bpfutil_perf_attach(prog_fd, fd);
}

/*
 * The loaded programs hold their .rodata: its fd goes at once. Kept, it
 * was one more open file per function, and a --follow of 1,400 functions
 * on 5.10 is near the 4,096 a process may have by default.
 */
static int attach_clone(struct tracer *t, int func, bool fentry, enum bpfutil_op *op)
{
	struct trace_bpf *tmpl = t->clone_tmpl[fentry];
	struct func_state *fs = &t->fs[func];
	struct bpf_program *progs[2];
	int side, fd, rodata_fd, err = 0;

	instance_progs(tmpl, fentry ? BK_FENTRY : BK_KPROBE, t->compat, progs);
	*op = BPFUTIL_LOAD;
	rodata_fd = clone_rodata(t, tmpl, func);
	if (rodata_fd < 0)
		return rodata_fd;
	/* The return side first, as attach_kprobe() says. */
	for (side = KSNOOP_SIDE_RETURN; side >= KSNOOP_SIDE_ENTRY; side--) {
		if (!backend_wants_prog(&t->plans[func].cfg, side == KSNOOP_SIDE_ENTRY))
			continue;
		*op = BPFUTIL_LOAD;
		fd = load_clone_prog(t, func, tmpl, progs[side], rodata_fd);
		if (fd < 0) {
			err = fd;
			break;
		}
		fs->prog_fds[side] = fd;
		*op = BPFUTIL_ATTACH;
		fd = attach_clone_prog(t, func, side, fentry, fd);
		if (fd < 0) {
			err = fd;
			break;
		}
		fs->link_fds[side] = fd;
	}
	close(rodata_fd);
	return err;
}

/*
 * A COMPAT instance loaded through libbpf serves as the clones' template
 * (the MODERN programs' bpf_loop callbacks would want BTF func_info, as
 * attach_fentry_fast gives them). Module functions are not cloned: fentry
 * needs their BTF object. Kprobe clones attach through the kprobe PMU.
 */
static bool can_clone(const struct tracer *t, int func, bool fentry)
{
	return t->compat && !t->plans[func].func.module && !plan_is_user(&t->plans[func]) &&
	       (fentry || t->kprobe_pmu);
}

/* The loaded fentry/fexit pair of skel, as func wants; the first becomes the template. */
static int attach_fentry_pair(struct tracer *t, int func, struct trace_bpf *skel,
			      enum bpfutil_op *op)
{
	struct func_state *fs = &t->fs[func];
	struct bpf_program *progs[2];

	instance_progs(skel, BK_FENTRY, t->compat, progs);
	*op = BPFUTIL_ATTACH;
	if (backend_wants_prog(&t->plans[func].cfg, true)) {
		fs->entry = attach_trace(t, progs[0], func);
		if (!fs->entry)
			return -errno;
	}
	if (backend_wants_prog(&t->plans[func].cfg, false)) {
		fs->ret = attach_trace(t, progs[1], func);
		if (!fs->ret)
			return -errno;
	}
	set_fentry_tmpl(t, skel);
	return 0;
}

static int attach_fentry(struct tracer *t, int func, enum bpfutil_op *op)
{
	struct func_state *fs = &t->fs[func];
	int err;

	/* Its programs were loaded with the owner (first_fentry_func). */
	if (func == t->owner_fentry)
		return attach_fentry_pair(t, func, t->owner, op);
	if (!try_straight(t, func, STRAIGHT_TRAMPOLINE))
		return 0;
	/* Module functions need their module's BTF object: libbpf finds it. */
	if (t->fentry_tmpl && !t->plans[func].func.module)
		return attach_fentry_fast(t, func, op);
	if (t->clone_tmpl[1] && can_clone(t, func, true))
		return attach_clone(t, func, true, op);
	fs->skel = load_instance(t, func, BK_FENTRY, op, &err);
	if (!fs->skel)
		return err;
	err = attach_fentry_pair(t, func, fs->skel, op);
	if (!err && !t->clone_tmpl[1] && !t->fentry_tmpl && can_clone(t, func, true))
		t->clone_tmpl[1] = fs->skel;
	return err;
}

/*
 * A kprobe program on func's entry or return: a kprobe, or a uprobe for a
 * user function, only in -p's process when there is one (the kernel then
 * plants no breakpoint in any other).
 */
static struct bpf_link *attach_probe(const struct tracer *t, int func, struct bpf_program *prog,
				     bool ret, __u64 cookie)
{
	const struct func_plan *p = &t->plans[func];
	LIBBPF_OPTS(bpf_kprobe_opts, kopts, .retprobe = ret, .bpf_cookie = cookie);
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .retprobe = ret, .bpf_cookie = cookie);

	if (!plan_is_user(p))
		return bpf_program__attach_kprobe_opts(prog, p->attach_name, &kopts);
	return bpf_program__attach_uprobe_opts(prog, t->opts.nr_pids == 1 ? t->opts.pids[0] : -1,
					       p->user.path, p->user.offset, &uopts);
}

static int attach_kprobe(struct tracer *t, int func, enum bpfutil_op *op)
{
	__u64 cookie = func;
	struct func_state *fs = &t->fs[func];
	struct bpf_program *progs[2];
	int err;

	if (!try_straight(t, func, STRAIGHT_KPROBE))
		return 0;
	if (per_func_kprobes(t) && t->clone_tmpl[0] && can_clone(t, func, false))
		return attach_clone(t, func, false, op);
	if (per_func_kprobes(t)) {
		fs->skel = load_instance(t, func, BK_KPROBE, op, &err);
		if (fs->skel && !t->clone_tmpl[0] && can_clone(t, func, false))
			t->clone_tmpl[0] = fs->skel;
		if (!fs->skel)
			return err;
		instance_progs(fs->skel, BK_KPROBE, t->compat, progs);
		/* The instance knows its function: libbpf refuses cookies the kernel lacks. */
		cookie = 0;
	} else {
		*op = BPFUTIL_LOAD;
		if (t->kprobe_load_err)
			return t->kprobe_load_err;
		instance_progs(t->owner, BK_KPROBE, false, progs);
	}
	*op = BPFUTIL_ATTACH;
	/*
	 * The return probe first: kprobes on one address run newest first,
	 * so the entry program reads the return address before the kretprobe
	 * swaps in its trampoline (--kstack puts the caller back from it),
	 * and no call opens a frame before its return is probed.
	 */
	if (backend_wants_prog(&t->plans[func].cfg, false)) {
		fs->ret = attach_probe(t, func, progs[1], true, cookie);
		if (!fs->ret)
			return -errno;
	}
	if (!backend_wants_prog(&t->plans[func].cfg, true))
		return 0;
	fs->entry = attach_probe(t, func, progs[0], false, cookie);
	return fs->entry ? 0 : -errno;
}

/*
 * A tracepoint's instance, its plan a constant, as a raw tracepoint: by
 * name, which modules' tracepoints answer to as well.
 */
static int attach_tracepoint(struct tracer *t, int func, enum bpfutil_op *op)
{
	struct func_state *fs = &t->fs[func];
	struct bpf_program *progs[2];
	int err;

	fs->skel = load_instance(t, func, BK_TRACEPOINT, op, &err);
	if (!fs->skel)
		return err;
	instance_progs(fs->skel, BK_TRACEPOINT, t->compat, progs);
	*op = BPFUTIL_ATTACH;
	fs->entry = bpf_program__attach_raw_tracepoint(progs[0], t->plans[func].attach_name);
	return fs->entry ? 0 : -errno;
}

/* A software clock sampling cpu hz times a second: its perf event's fd, or -errno. */
static int open_cpu_clock(int cpu, int hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = hz,
		.freq = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * profile:HZ: the instance on a clock of each CPU that is online (the
 * others refuse one: ENODEV), or of --cpu's alone.
 */
static int attach_profile(struct tracer *t, int func, enum bpfutil_op *op)
{
	int cpu, nr = libbpf_num_possible_cpus(), fd, err = 0;
	struct func_state *fs = &t->fs[func];
	struct bpf_program *progs[2];

	fs->skel = load_instance(t, func, BK_PROFILE, op, &err);
	if (!fs->skel)
		return err;
	instance_progs(fs->skel, BK_PROFILE, t->compat, progs);
	*op = BPFUTIL_ATTACH;
	fs->cpu_links = nr > 0 ? calloc(nr, sizeof(*fs->cpu_links)) : NULL;
	if (!fs->cpu_links)
		return nr < 0 ? nr : -ENOMEM;
	for (cpu = 0; cpu < nr && !err; cpu++) {
		if (t->opts.cpu >= 0 && cpu != t->opts.cpu)
			continue;
		fd = open_cpu_clock(cpu, t->plans[func].profile_hz);
		if (fd == -ENODEV)
			continue;
		if (fd < 0)
			return fd;
		fs->cpu_links[fs->nr_cpu_links] = bpf_program__attach_perf_event(progs[0], fd);
		if (!fs->cpu_links[fs->nr_cpu_links]) {
			err = -errno;
			close(fd);
		} else {
			fs->nr_cpu_links++;
		}
	}
	return err ?: fs->nr_cpu_links ? 0 : -ENODEV;
}

/*
 * Whether fentry works at all, as far as BTF tells: on arm64 a kernel
 * without ftrace direct calls fails every fentry attach with ENOTSUPP.
 */
static bool has_direct_calls(const struct btf *btf)
{
	const struct arch *a = arch_native();

	return !a->direct_call_struct ||
	       btf_struct_has_member(btf, a->direct_call_struct, a->direct_call_member);
}

/*
 * fentry's ENOTSUPP alone reads as "no fentry on this kernel"; say which
 * limit it was where BTF and the prototype tell. Returns false to leave
 * the explanation to bpfutil_explain().
 */
bool backend_explain_fentry(struct strbuf *why, const struct func_plan *p, enum bpfutil_op op,
			    int err)
{
	const char *ename;
	char buf[32];

	err = abs(err);
	if (err != ENOTSUPP && err != EOPNOTSUPP)
		return false;
	ename = bpfutil_errno_name(err, buf, sizeof(buf));
	if (!has_direct_calls(p->func.btf)) {
		sb_printf(why,
			  "arm64 attaches fentry programs through ftrace direct calls, which "
			  "this kernel lacks (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) (%s)",
			  ename);
		return true;
	}
	/*
	 * BPF trampolines pass a limited number of arguments; past it the
	 * JIT refuses the function with ENOTSUPP when the link is made.
	 */
	if (op != BPFUTIL_ATTACH || p->nr_args <= arch_native()->nr_reg_args)
		return false;
	sb_printf(why, "%s has %d arguments and %s; kprobes read the rest from the stack (%s)",
		  p->name, p->nr_args, arch_native()->tramp_args_why, ename);
	return true;
}

static int attach_kind(struct tracer *t, int func, enum backend_kind kind, enum bpfutil_op *op)
{
	switch (kind) {
	case BK_FENTRY:
		return attach_fentry(t, func, op);
	case BK_TRACEPOINT:
		return attach_tracepoint(t, func, op);
	case BK_PROFILE:
		return attach_profile(t, func, op);
	default:
		return attach_kprobe(t, func, op);
	}
}

/* A user function's kprobe programs run as uprobes. */
static const char *kind_name(const struct tracer *t, int func, enum backend_kind kind)
{
	if (t->sel[func].user)
		return kind == BK_KPROBE_MULTI ? "uprobe.multi" : "uprobe";
	return backend_name(kind);
}

static int try_kind(struct tracer *t, int func, enum backend_kind kind, struct strbuf *why)
{
	enum bpfutil_op op = BPFUTIL_LOAD;
	int err;

	err = attach_kind(t, func, kind, &op);
	if (!err)
		return 0;
	detach_func(t, &t->fs[func]);
	if (kind != BK_FENTRY || !backend_explain_fentry(why, &t->plans[func], op, err))
		bpfutil_explain(why, kind_name(t, func, kind), op, err);
	p_dbg("%s: %s failed: %s", t->plans[func].name, kind_name(t, func, kind), sb_str(why));
	return err;
}

/*
 * Why func attached with no backend: an error, or, when it is left out, a
 * debug line (the first one kept: the error if none attaches).
 */
static void report_attach_error(struct tracer *t, int func, struct strbuf *why, int nr,
				bool left_out)
{
	const struct select_func *s = &t->sel[func];
	const char *no_fentry = s->multi ? NULL : s->no_fentry;
	struct strbuf all, msg;
	int k;

	sb_init(&all);
	if (no_fentry)
		sb_printf(&all, "fentry: %s", no_fentry);
	for (k = 0; k < nr; k++)
		sb_printf(&all, "%s%s: %s", all.len ? "; " : "", kind_name(t, func, s->tries[k]),
			  sb_str(&why[k]));
	sb_init(&msg);
	sb_printf(&msg, "cannot trace %s%s%s", t->plans[func].name,
		  nr + !!no_fentry == 1 ? " with " : ": ", sb_str(&all));
	if (!left_out)
		p_err("%s", sb_str(&msg));
	else
		p_dbg("%s", sb_str(&msg));
	if (left_out && !t->left_out_why)
		t->left_out_why = strdup(sb_str(&msg));
	sb_free(&msg);
	sb_free(&all);
}

/*
 * The backends select.c chose for func, in order, until one attaches;
 * kprobe first where kprobes_first is set. A glob's function that none
 * attaches is left out (reported by the caller) where left_out is set.
 */
static int attach_func(struct tracer *t, int func, struct progress *progress, bool kprobes_first,
		       bool left_out)
{
	struct select_func *s = &t->sel[func];
	struct strbuf why[ARRAY_SIZE(s->tries)];
	int i, err = -EINVAL;

	if (kprobes_first && s->multi && s->nr_tries == 2 && s->tries[1] == BK_KPROBE) {
		s->tries[1] = s->tries[0];
		s->tries[0] = BK_KPROBE;
	}
	for (i = 0; i < s->nr_tries; i++) {
		sb_init(&why[i]);
		err = try_kind(t, func, s->tries[i], &why[i]);
		if (!err) {
			t->fs[func].kind = s->tries[i];
			t->fs[func].attached = true;
			p_dbg("%s: attached with %s", t->plans[func].name,
			      kind_name(t, func, s->tries[i]));
			i++;
			break;
		}
	}
	if (err) {
		if (!left_out)
			progress__clear(progress); /* the error gets a line of its own */
		report_attach_error(t, func, why, i, left_out);
	}
	while (i-- > 0)
		sb_free(&why[i]);
	return err;
}

/*
 * Globs, and lists of named functions (see multi_member): one kprobe.multi
 * link each way, if the kernel takes them all; else each is attached alone.
 * Modules' functions are members only where modules is set.
 */
static int attach_multi_link(struct tracer *t, bool modules)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	/* Every member at entry, first; those with a return program after them. */
	const char **syms = calloc(2 * t->nr, sizeof(*syms));
	__u64 *cookies = calloc(2 * t->nr, sizeof(*cookies));
	int i, n = 0, nr_ret = 0, err = 0;

	if (!syms || !cookies) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->nr; i++) {
		if (!multi_member(t, i) || umulti_member(t, i) ||
		    (!modules && t->plans[i].func.module))
			continue;
		syms[n] = t->plans[i].attach_name;
		cookies[n++] = i;
	}
	if (!n)
		goto out;
	for (i = 0; i < n; i++) {
		if (!backend_wants_prog(&t->plans[cookies[i]].cfg, false))
			continue;
		syms[n + nr_ret] = syms[i];
		cookies[n + nr_ret++] = cookies[i];
	}
	/* The return side first, for the reason given in attach_kprobe. */
	opts.syms = syms + n;
	opts.cookies = cookies + n;
	opts.cnt = nr_ret;
	opts.retprobe = true;
	if (nr_ret)
		t->multi_ret = bpf_program__attach_kprobe_multi_opts(
			t->owner->progs.ksnoop_kretmulti, NULL, &opts);
	opts.syms = syms;
	opts.cookies = cookies;
	opts.cnt = n;
	opts.retprobe = false;
	if (t->multi_ret || !nr_ret)
		t->multi_entry = bpf_program__attach_kprobe_multi_opts(
			t->owner->progs.ksnoop_kmulti, NULL, &opts);
	if (!t->multi_entry) {
		err = -errno;
		bpf_link__destroy(t->multi_ret);
		t->multi_ret = NULL;
		p_dbg("kprobe.multi for %d functions failed: %s; attaching one by one", n,
		      strerror(-err));
		goto out;
	}
	for (i = 0; i < n; i++) {
		t->fs[cookies[i]].kind = BK_KPROBE_MULTI;
		t->fs[cookies[i]].attached = true;
	}
	p_dbg("kprobe.multi: attached %d functions with one link %s", n,
	      nr_ret == n ? "each way" : "at entry");
	if (nr_ret && nr_ret < n)
		p_dbg("kprobe.multi: and %d of them with one link at return", nr_ret);
out:
	free(syms);
	free(cookies);
	return err;
}

/*
 * One uprobe.multi link (6.6) for nr of a binary's functions, at entry or
 * at return, in -p's process alone where there is one: its fd, or -errno.
 * libbpf 1.1 has no API for it, so the attr is laid out here as the UAPI
 * lays out union bpf_attr's link_create.
 */
static int umulti_link(const struct tracer *t, int prog_fd, const char *path,
		       const unsigned long *offsets, const __u64 *cookies, int nr, bool ret)
{
	struct {
		__u32 prog_fd, target_fd, attach_type, flags;
		__u64 path, offsets, ref_ctr_offsets, cookies;
		__u32 cnt, flags2, pid;
	} * lc;
	union bpf_attr attr;
	int fd;

	_Static_assert(sizeof(*lc) <= sizeof(attr), "link_create fits bpf_attr");
	memset(&attr, 0, sizeof(attr));
	lc = (void *)&attr;
	lc->prog_fd = prog_fd;
	lc->attach_type = bpf_program__expected_attach_type(t->owner->progs.ksnoop_umulti);
	lc->path = (uintptr_t)path;
	lc->offsets = (uintptr_t)offsets;
	lc->cookies = (uintptr_t)cookies;
	lc->cnt = nr;
	lc->flags2 = ret ? UPROBE_MULTI_RETURN : 0;
	lc->pid = t->opts.nr_pids == 1 ? t->opts.pids[0] : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

static int umulti_keep(struct tracer *t, int fd)
{
	int *fds = realloc(t->umulti_fds, (t->nr_umulti_fds + 1) * sizeof(*fds));

	if (!fds) {
		close(fd);
		return -ENOMEM;
	}
	t->umulti_fds = fds;
	fds[t->nr_umulti_fds++] = fd;
	return 0;
}

/*
 * The members of path from first on, each way: the return side first, as
 * for kprobe.multi (attach_kprobe). Returns how many are attached.
 */
static int attach_umulti_path(struct tracer *t, int first, unsigned long *offsets, __u64 *cookies,
			      bool *tried)
{
	const char *path = t->plans[first].user.path;
	int i, n = 0, nr_ret = 0, fd = 0;

	for (i = first; i < t->nr; i++) {
		if (!umulti_member(t, i) || t->fs[i].attached ||
		    strcmp(t->plans[i].user.path, path))
			continue;
		/* A refused link is not tried again for the path's other members. */
		tried[i] = true;
		offsets[n] = t->plans[i].user.offset;
		cookies[n++] = i;
	}
	for (i = 0; i < n; i++) {
		if (!backend_wants_prog(&t->plans[cookies[i]].cfg, false))
			continue;
		offsets[n + nr_ret] = offsets[i];
		cookies[n + nr_ret++] = cookies[i];
	}
	if (nr_ret)
		fd = umulti_link(t, bpf_program__fd(t->owner->progs.ksnoop_uretmulti), path,
				 offsets + n, cookies + n, nr_ret, true);
	if (fd >= 0 && nr_ret)
		fd = umulti_keep(t, fd);
	if (fd >= 0)
		fd = umulti_link(t, bpf_program__fd(t->owner->progs.ksnoop_umulti), path, offsets,
				 cookies, n, false);
	if (fd < 0 || umulti_keep(t, fd)) {
		p_dbg("uprobe.multi for %d functions of %s failed: %s; attaching one by one", n,
		      path, strerror(fd < 0 ? -fd : ENOMEM));
		if (nr_ret && t->nr_umulti_fds)
			close(t->umulti_fds[--t->nr_umulti_fds]);
		return 0;
	}
	for (i = 0; i < n; i++) {
		t->fs[cookies[i]].kind = BK_KPROBE_MULTI;
		t->fs[cookies[i]].attached = true;
	}
	p_dbg("uprobe.multi: attached %d functions of %s with one link %s", n, path,
	      nr_ret == n ? "each way" : "at entry");
	return n;
}

/* Each binary's user functions (see umulti_member): one uprobe.multi link each way. */
static void attach_umulti(struct tracer *t)
{
	unsigned long *offsets = calloc(2 * t->nr, sizeof(*offsets));
	__u64 *cookies = calloc(2 * t->nr, sizeof(*cookies));
	bool *tried = calloc(t->nr, sizeof(*tried));
	int i;

	for (i = 0; offsets && cookies && tried && i < t->nr; i++) {
		if (umulti_member(t, i) && !t->fs[i].attached && !tried[i])
			attach_umulti_path(t, i, offsets, cookies, tried);
	}
	free(offsets);
	free(cookies);
	free(tried);
}

static bool has_module_member(const struct tracer *t)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (multi_member(t, i) && t->plans[i].func.module)
			return true;
	}
	return false;
}

/*
 * Before Linux 6.3 a kprobe.multi link resolves vmlinux's symbols alone: a
 * link refused with modules' functions among its members is tried again
 * without them, and they go alone.
 */
static void attach_multi(struct tracer *t)
{
	if (attach_multi_link(t, true) && has_module_member(t))
		attach_multi_link(t, false);
}

static int fill_maps(struct tracer *t)
{
	int cfg_fd = bpf_map__fd(t->owner->maps.func_cfg);
	int tgid_fd = bpf_map__fd(t->owner->maps.tgids);
	__u8 one = 1;
	__u32 i;

	for (i = 0; i < (__u32)t->nr; i++) {
		if (bpf_map_update_elem(cfg_fd, &i, &t->plans[i].cfg, BPF_ANY))
			return -errno;
	}
	for (i = 0; i < (__u32)t->opts.nr_pids; i++) {
		__u32 tgid = t->opts.pids[i];

		if (bpf_map_update_elem(tgid_fd, &tgid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int set_cgroup(struct tracer *t)
{
	__u32 zero = 0;
	int fd, err;

	if (!t->opts.cgroup)
		return 0;
	fd = open(t->opts.cgroup, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		err = -errno;
		p_err("cannot open cgroup '%s': %s", t->opts.cgroup, err_text(err));
		return err;
	}
	/* cli.c checked it is a cgroup v2 directory: what is left is ours */
	err = bpf_map_update_elem(bpf_map__fd(t->owner->maps.cgroup), &zero, &fd, BPF_ANY);
	if (err)
		p_err("cannot filter by cgroup '%s': %s", t->opts.cgroup, err_text(err));
	close(fd);
	return err;
}

/*
 * kprobe.multi members the link did not take (a kernel without it, or
 * before 5.18) go alone. Many of them go as kprobes first where attach
 * cookies let the one loaded program serve them all: each fentry function
 * costs a verifier pass of its own (0.4 s under TCG, minutes for an skb's
 * 1,400 functions).
 */
static bool kprobes_first(const struct tracer *t)
{
	int i, n = 0;

	if (!kfeat_has(t->feat, KFEAT_KPROBE_COOKIE))
		return false;
	for (i = 0; i < t->nr; i++)
		n += t->sel[i].multi && !t->fs[i].attached;
	return n >= BACKEND_MULTI_NAMED_MIN;
}

/*
 * A glob's functions that no backend attaches (a name kallsyms holds
 * twice, which a kprobe refuses on newer kernels; a function ftrace
 * patches for another tracer) are left out, named on one line, as long as
 * one function attaches.
 */
static int report_left_out(const struct tracer *t, const bool *left, int nr_left)
{
	struct strbuf sb;
	int i, shown = 0;

	if (!nr_left)
		return 0;
	if (nr_left == t->nr) {
		if (t->left_out_why && nr_left > 1)
			p_err("%s (none of the %d functions attached)", t->left_out_why, nr_left);
		else if (t->left_out_why)
			p_err("%s", t->left_out_why);
		else
			p_err("none of the %d functions could be attached", t->nr);
		return -ENOENT;
	}
	sb_init(&sb);
	for (i = 0; i < t->nr; i++) {
		if (!left[i] || shown++ >= 8)
			continue;
		sb_printf(&sb, "%s%s", sb.len ? ", " : "", t->plans[i].name);
	}
	p_warn("%d of %d functions could not be attached, left out: %s%s (-d says why)", nr_left,
	       t->nr, sb_str(&sb), nr_left > 8 ? ", ..." : "");
	sb_free(&sb);
	return 0;
}

/* One by one, with a progress line on a terminal: hundreds take seconds. */
static int attach_each(struct tracer *t)
{
	struct progress *progress = progress__new(t->nr, "attaching", "functions");
	bool *left = calloc(t->nr, sizeof(*left)), kp_first = kprobes_first(t);
	int i, err = 0, nr_left = 0;

	for (i = 0; i < t->nr && !err && left; i++) {
		if (!t->fs[i].attached)
			err = attach_func(t, i, progress, kp_first, t->plans[i].from_glob);
		if (err && t->plans[i].from_glob) {
			left[i] = true;
			nr_left++;
			err = 0;
		}
		progress__step(progress);
	}
	progress__done(progress);
	if (!left)
		return -ENOMEM;
	if (!err)
		err = report_left_out(t, left, nr_left);
	free(left);
	return err;
}

static int attach_all(struct tracer *t)
{
	int err;

	if (t->has_multi && wants_multi(t))
		attach_multi(t);
	if (t->has_multi && wants_umulti(t))
		attach_umulti(t);
	err = attach_each(t);
	if (err)
		return err;
	if (needs_exit_cleanup(t)) {
		t->exit_link = bpf_program__attach(t->owner->progs.ksnoop_task_exit);
		if (!t->exit_link) {
			p_err("cannot attach the task-exit cleanup program: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

struct tracer *tracer__new(const struct tracer_opts *opts, struct func_plan *plans, int nr)
{
	struct tracer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ring_fd = -1;
	t->opts = *opts;
	t->plans = plans;
	t->nr = nr;
	t->nr_cpus = libbpf_num_possible_cpus();
	if (t->nr_cpus <= 0) {
		free(t);
		return NULL;
	}
	lite_layout_plans(opts, plans, nr, &t->lite);
	find_loop_bounds(t);
	if (t->lite.rec[0] || t->lite.rec[1])
		p_dbg("lite events: %u bytes at entry, %u at return%s", t->lite.rec[0],
		      t->lite.rec[1], t->lite.only ? ", every function" : "");
	t->ring_size = backend_ring_bytes(opts, plans, nr, t->nr_cpus, &t->lite);
	p_dbg("ring buffer: %lu KiB", t->ring_size >> 10);
	/* Under emulation the kernel zeroes a 32 MiB ring for 120 ms. */
	start_ring(t);
	return t;
}

/*
 * Without bpf_loop a string pattern is matched as a head and a tail
 * (glob_match_one_star in bpf/lib/glob.h): one '*' at most.
 */
static int check_compat_patterns(const struct tracer *t)
{
	const struct ksnoop_func_cfg *cfg;
	const char *star;
	int i, k;

	for (i = 0; i < t->nr && !kfeat_has(t->feat, KFEAT_LOOP); i++) {
		cfg = &t->plans[i].cfg;
		for (k = 0; k < (int)cfg->nr_preds && k < KSNOOP_MAX_PREDS; k++) {
			if (cfg->preds[k].kind != KSNOOP_PRED_STR)
				continue;
			star = strchr(cfg->preds[k].str, '*');
			if (star && strchr(star + 1, '*')) {
				p_err("%s: the pattern \"%.*s\" has more than one '*', which needs "
				      "bpf_loop (Linux 5.17); this kernel lacks it",
				      t->plans[i].name, KSNOOP_PRED_STR_MAX, cfg->preds[k].str);
				return -EOPNOTSUPP;
			}
		}
	}
	return 0;
}

/*
 * Before 6.1 a perf event program may use only preallocated hash maps, and
 * ksnoop's (aggregates, stashes, tasks) are not: profile:HZ is refused
 * before anything loads, in one line.
 */
static int check_profile_support(const struct tracer *t)
{
	int i;

	for (i = 0; i < t->nr && !kfeat_has(t->feat, KFEAT_MEM_ALLOC); i++) {
		if (t->plans[i].target != SPEC_PROFILE)
			continue;
		p_err("%s: CPU sampling needs Linux 6.1 (%s): before it, perf event programs may "
		      "use only preallocated hash maps, and ksnoop's are not",
		      t->plans[i].name, kfeat_name(KFEAT_MEM_ALLOC));
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Before 6.1 the verifier warns (a WARN_ONCE, with a backtrace in the
 * kernel's log) when a tracing program uses a hash map allocated at run
 * time, as ksnoop's stashes, tables and aggregates are. Where
 * panic_on_warn is set that warning panics the machine: refused instead.
 */
static int check_warn_panic(const struct tracer *t)
{
	if (kfeat_has(t->feat, KFEAT_MEM_ALLOC))
		return 0;
	/* "": the file's number */
	if (!proc_kb("/proc/sys/kernel/panic_on_warn", "")) {
		p_dbg("Linux before 6.1: its log warns, once a boot, of ksnoop's run-time "
		      "allocated hash maps");
		return 0;
	}
	p_err("kernel.panic_on_warn is set, and Linux before 6.1 warns when a tracing program "
	      "uses hash maps allocated at run time, as ksnoop's are: loading them would panic "
	      "this machine");
	return -EPERM;
}

/* The decision of select.c for every function, shown with -d. */
static int select_all(struct tracer *t)
{
	struct select_env e = { .opts = &t->opts,
				.feat = t->feat,
				.kprobe_pmu = t->kprobe_pmu,
				.uprobe_pmu = t->uprobe_pmu };
	struct strbuf sb;
	int i;

	t->sel = calloc(t->nr, sizeof(*t->sel));
	if (!t->sel)
		return -ENOMEM;
	select_funcs(&e, t->plans, t->nr, t->sel);
	if (!util_debug())
		return 0;
	sb_init(&sb);
	for (i = 0; i < t->nr; i++) {
		sb_reset(&sb);
		select_describe(&t->sel[i], &sb);
		p_dbg("%s: %s", t->plans[i].name, sb_str(&sb));
	}
	sb_free(&sb);
	return 0;
}

int tracer__attach(struct tracer *t)
{
	if (t->nr <= 0)
		return -EINVAL;
	t->fs = calloc(t->nr, sizeof(*t->fs));
	if (!t->fs)
		return p_err_nomem("cannot attach");
	t->feat = kfeat_probe(t->plans[0].func.btf);
	t->fentry_cookie = kfeat_has(t->feat, KFEAT_FENTRY_COOKIE);
	t->compat = !kfeat_has(t->feat, KFEAT_LOOP) || !kfeat_has(t->feat, KFEAT_FUNC_ARG);
	if (t->compat)
		p_dbg("the kernel lacks bpf_loop or bpf_get_func_arg: one COMPAT instance per function");
	t->kprobe_pmu = bpfutil_have_kprobe_pmu();
	t->uprobe_pmu = bpfutil_have_uprobe_pmu();
	if (select_all(t))
		return p_err_nomem("cannot attach");
	t->owner_fentry = first_fentry_func(t);
	/* Configuration is in place before the first program can run. */
	if (check_compat_patterns(t) || check_profile_support(t) || check_warn_panic(t) ||
	    register_own_sections(t->plans[0].func.btf) || load_owner(t) || fill_maps(t) ||
	    set_cgroup(t) || attach_all(t)) {
		tracer__detach(t);
		return -EINVAL;
	}
	return 0;
}

/* The kernel's count of an instance's skipped calls (bpfutil_object_missed). */
static __u64 skel_missed(const struct trace_bpf *skel)
{
	return skel ? bpfutil_object_missed(skel->obj) : 0;
}

/*
 * What the kernel counted of the calls it made without running ours: each
 * program's misses and each probe link's (see lib/bpfutil.h).
 */
static __u64 kernel_missed(const struct tracer *t)
{
	__u64 n = skel_missed(t->owner) + skel_missed(t->fentry_tmpl) +
		  skel_missed(t->clone_tmpl[0]) + skel_missed(t->clone_tmpl[1]) +
		  bpfutil_blink_missed(t->multi_entry) + bpfutil_blink_missed(t->multi_ret);
	int i, side;

	for (i = 0; i < t->nr_umulti_fds; i++)
		n += bpfutil_link_missed(t->umulti_fds[i]);
	for (i = 0; t->fs && i < t->nr; i++) {
		const struct func_state *fs = &t->fs[i];

		n += skel_missed(fs->skel) + bpfutil_blink_missed(fs->entry) +
		     bpfutil_blink_missed(fs->ret);
		for (side = 0; side < 2; side++)
			n += bpfutil_prog_missed(fs->prog_fds[side]) +
			     bpfutil_link_missed(fs->link_fds[side]);
	}
	return n;
}

void tracer__detach(struct tracer *t)
{
	int i;

	if (!t)
		return;
	if (!t->detached)
		t->missed_at_detach = kernel_missed(t);
	t->detached = true;
	bpf_link__destroy(t->multi_ret);
	bpf_link__destroy(t->multi_entry);
	t->multi_ret = t->multi_entry = NULL;
	for (i = 0; i < t->nr_umulti_fds; i++)
		close(t->umulti_fds[i]);
	t->nr_umulti_fds = 0;
	for (i = 0; t->fs && i < t->nr; i++)
		detach_func(t, &t->fs[i]);
	/* Last: a task that exits inside a traced call still cleans up. */
	bpf_link__destroy(t->exit_link);
	t->exit_link = NULL;
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	tracer__detach(t);
	free(t->umulti_fds);
	free(t->left_out_why);
	if (t->fentry_tmpl != t->owner)
		trace_bpf__destroy(t->fentry_tmpl);
	trace_bpf__destroy(t->clone_tmpl[0]);
	trace_bpf__destroy(t->clone_tmpl[1]);
	ring_ready(t); /* a thread still creating it */
	if (t->ring_fd >= 0)
		close(t->ring_fd);
	free(t->fast[0].finfo);
	free(t->fast[1].finfo);
	trace_bpf__destroy(t->owner);
	free(t->fs);
	free(t->sel);
	free(t);
}

int tracer__events_fd(const struct tracer *t)
{
	return bpf_map__fd(t->owner->maps.events);
}

const char *const tracer_drop_names[KSNOOP_DROP_NR] = {
	[KSNOOP_DROP_RINGBUF] = "ring buffer full",
	[KSNOOP_DROP_NESTING] = "nested too deeply on one CPU",
	[KSNOOP_DROP_DEPTH] = "call depth over 16",
	[KSNOOP_DROP_STASH] = "entry values could not be stashed",
	[KSNOOP_DROP_KEYS] = "key table full",
	[KSNOOP_DROP_STACK] = "kernel stack not taken",
	[KSNOOP_DROP_TASKS] = "task table full",
	[KSNOOP_DROP_SPANS] = "open-span table full",
	[KSNOOP_DROP_RESTART] = "span restarted before its end",
	[KSNOOP_DROP_FOLLOW] = "followed-object table full",
	[KSNOOP_DROP_FOLLOW_TIME] = "follows cut by --follow-time",
	[KSNOOP_DROP_KERNEL] = "calls the kernel skipped: a probe already running on the CPU",
};

int tracer__agg_fd(const struct tracer *t)
{
	return bpf_map__fd(t->opts.agg.mode == KSNOOP_AGG_HIST ? t->owner->maps.agg_hists
							       : t->owner->maps.agg_counts);
}

int tracer__func_agg_fd(const struct tracer *t)
{
	return bpf_map__fd(t->opts.agg.mode == KSNOOP_AGG_HIST ? t->owner->maps.func_hists
							       : t->owner->maps.func_counts);
}

int tracer__agg_flip_epoch(struct tracer *t)
{
	volatile __u32 *epoch = &t->owner->bss->agg_epoch;
	__u32 old = *epoch & 1;
	int err;

	*epoch = old ^ 1;
	err = bpfutil_wait_programs();
	if (err) {
		p_err("cannot wait for the BPF programs to finish: %s", strerror(-err));
		return err;
	}
	return old;
}

/* count and hist keep them in spans, trace in span_events. */
int tracer__open_spans(const struct tracer *t)
{
	const struct trace_bpf *o = t->owner;
	int fd = bpf_map__fd(t->opts.agg.mode == KSNOOP_AGG_NONE ? o->maps.span_events
								 : o->maps.spans),
	    n = 0;
	__u64 key[KSNOOP_SPAN_KEY_MAX], next[KSNOOP_SPAN_KEY_MAX];
	int err = bpf_map_get_next_key(fd, NULL, next);

	while (!err) {
		n++;
		memcpy(key, next, sizeof(key));
		err = bpf_map_get_next_key(fd, key, next);
	}
	return err == -ENOENT ? n : err;
}

int tracer__stacks_fd(const struct tracer *t)
{
	return bpf_map__fd(t->owner->maps.stacks);
}

int tracer__read_drops(const struct tracer *t, __u64 drops[KSNOOP_DROP_NR])
{
	int fd = bpf_map__fd(t->owner->maps.drops);
	__u64 *vals = calloc(t->nr_cpus, sizeof(*vals));
	__u32 r;
	int c;

	if (!vals)
		return -ENOMEM;
	for (r = 0; r < KSNOOP_DROP_NR; r++) {
		drops[r] = 0;
		if (bpf_map_lookup_elem(fd, &r, vals))
			continue;
		for (c = 0; c < t->nr_cpus; c++)
			drops[r] += vals[c];
	}
	free(vals);
	drops[KSNOOP_DROP_KERNEL] = t->detached ? t->missed_at_detach : kernel_missed(t);
	return 0;
}

enum backend_kind tracer__backend(const struct tracer *t, int func)
{
	return t->fs[func].kind;
}
