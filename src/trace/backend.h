/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and attaching: one BPF object instance per traced function,
 * fentry/fexit where the kernel allows it and kprobe/kretprobe otherwise,
 * all sharing the first instance's maps.
 */
#ifndef KSNOOP_BACKEND_H
#define KSNOOP_BACKEND_H

#include "abi/trace.h"
#include "lib/bpfutil.h"
#include "trace/lite.h"
#include "trace/plan.h"
#include "trace/select.h"
#include "trace/tracer_opts.h"

struct tracer;

/*
 * The lifecycle: tracer__new sizes the events ring (-P's, else from the
 * plans: backend_ring_bytes) and starts creating it, so the kernel zeroes
 * it while the caller sets up its output; tracer__attach then loads and
 * attaches everything, or reports one error line and fails.
 */
struct tracer *tracer__new(const struct tracer_opts *opts, struct func_plan *plans, int nr);
int tracer__attach(struct tracer *t);
/* Stops every probe; the maps (events, drops) stay. Safe on NULL, and twice. */
void tracer__detach(struct tracer *t);
/* Detaches and frees everything; safe on NULL. */
void tracer__free(struct tracer *t);

int tracer__events_fd(const struct tracer *t);
/* count and hist: the per-CPU hash of counts or histograms, and the stacks. */
int tracer__agg_fd(const struct tracer *t);
int tracer__stacks_fd(const struct tracer *t);
/*
 * With agg.epochs: samples go to the other epoch from now on, and once no
 * program runs with the old one, returns the old epoch (0 or 1), whose
 * slots nothing adds to until the next flip; or -errno.
 */
int tracer__agg_flip_epoch(struct tracer *t);
/* Spans started and not ended (yet), or -errno. */
int tracer__open_spans(const struct tracer *t);
/* The per-CPU arrays, by function, of those counted with no key but themselves. */
int tracer__func_agg_fd(const struct tracer *t);
/* Drops summed over CPUs, by enum ksnoop_drop_reason, and their names. */
extern const char *const tracer_drop_names[KSNOOP_DROP_NR];
int tracer__read_drops(const struct tracer *t, __u64 drops[KSNOOP_DROP_NR]);
enum backend_kind tracer__backend(const struct tracer *t, int func);

/* Ring buffer bytes for -P pages per CPU (see ksnoop(8)). */
unsigned long ringbuf_size(int pages_per_cpu, int nr_cpus);
/* Without a plan to size it from: -P's, else at least 64 MiB. */
unsigned long ringbuf_size_unplanned(int pages_per_cpu, int nr_cpus);
/* The most bytes one call of cfg puts in the ring. */
unsigned long backend_call_bytes(const struct ksnoop_func_cfg *cfg, int kstack_bytes,
				 bool chain_end);
/*
 * The ring for these plans: -P's, else a 100,000-call burst, up to 64 MiB.
 * The lite plans' calls take what the layout reserves.
 */
unsigned long backend_ring_bytes(const struct tracer_opts *o, const struct func_plan *plans, int nr,
				 int nr_cpus, const struct lite_layout *lite);
/* Queued bytes of a ring of that size that wake the reader. */
__u64 ringbuf_wakeup_bytes(unsigned long ring);

/*
 * Appends to why which limit an fentry ENOTSUPP/EOPNOTSUPP at op hit, where
 * BTF and the prototype tell; false (nothing appended) otherwise.
 */
bool backend_explain_fentry(struct strbuf *why, const struct func_plan *p, enum bpfutil_op op,
			    int err);

#endif
