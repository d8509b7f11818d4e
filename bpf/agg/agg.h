/* SPDX-License-Identifier: GPL-2.0 */
/*
 * count and hist in the kernel: keys, log2 and linear buckets, and the
 * fast path from registers alone. The aggregation family's half of
 * trace.bpf.c's programs; src/agg reads these maps.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_AGG_BPF_H
#define KSNOOP_AGG_BPF_H

#include "lib/bucket.h"
#include "lib/histadd.h"
#include "lib/stackhash.h"

const volatile __u32 agg_mode; /* enum ksnoop_agg_mode: count/hist, not events */
const volatile __u32 agg_by;   /* enum ksnoop_agg_by */
/*
 * No --by and no plan with a key: every aggregate is in the arrays, by
 * function, and no key is built. A constant, so that the verifier never
 * walks a path that pairs the arrays with a hash key or the reverse.
 */
const volatile bool agg_keyless;
const volatile bool hist_linear;  /* else log2 buckets */
const volatile __s64 hist_lo;	  /* linear: the first bucket's low bound */
const volatile __u64 hist_step;	  /* linear: a bucket's width, > 0 */
const volatile __u32 hist_nr;	  /* linear: buckets from lo up to hi */
const volatile __u64 latency_div; /* --latency: ns per unit */
/*
 * -i's tables: samples go to epoch agg_epoch, 0 or 1, in the key and in
 * the arrays' index (func_id * 2 + epoch). User space flips agg_epoch,
 * waits until no program still runs with the old one (an RCU grace
 * period), then reads and clears the old epoch alone: each sample lands
 * in exactly one interval.
 */
const volatile bool agg_epochs;
__u32 agg_epoch;

/* count: per CPU, so the hot path is a lookup and an add; summed at read time. */
/* Keys and sizes without BTF types: user space shortens the key. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1); /* --max-keys, set by user space */
	__uint(key_size, sizeof(struct ksnoop_agg_key));
	__uint(value_size, sizeof(__u64));
} agg_counts SEC(".maps");

/* hist: a kilobyte per key and CPU, allocated only for keys seen. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct ksnoop_agg_key));
	__uint(value_size, sizeof(struct ksnoop_hist));
} agg_hists SEC(".maps");

/*
 * A function counted with no key beyond itself (funccount, a plain hist)
 * has its slot in these, by func_id (and epoch): no hashing per call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* the functions, set by user space */
	__type(key, __u32);
	__type(value, __u64);
} func_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_hist);
} func_hists SEC(".maps");

/* The zeroed histogram a new key starts from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_hist);
} hist_zero SEC(".maps");

/* --by ustack: the processes noted to user space (struct ksnoop_task_note). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1); /* KSNOOP_TASK_NOTES_MAX with --by ustack */
	__type(key, __u32);
	__type(value, __u8);
} noted_tgids SEC(".maps");

/*
 * A process's first sample asks user space, at once, to read its maps;
 * one whose note found the ring full is noted again by its next sample.
 */
static __always_inline void note_tgid(__u32 tgid)
{
	struct ksnoop_task_note *n;
	__u8 one = 1;

	/* every sample asks: a lookup takes no lock, an insert attempt does */
	if (bpf_map_lookup_elem(&noted_tgids, &tgid) ||
	    bpf_map_update_elem(&noted_tgids, &tgid, &one, BPF_NOEXIST))
		return;
	n = bpf_ringbuf_reserve(&events, sizeof(*n), 0);
	if (!n) {
		bpf_map_delete_elem(&noted_tgids, &tgid);
		return;
	}
	n->magic = KSNOOP_TASK_NOTE;
	n->tgid = tgid;
	bpf_ringbuf_submit(n, BPF_RB_FORCE_WAKEUP);
}

/*
 * A new key starts at zero on every CPU, from zero or else hist_zero:
 * looked up only for a new key, as it costs a call. Two CPUs may race to
 * add a key.
 */
static __always_inline __u32 cur_epoch(void)
{
	return agg_epochs ? *(volatile __u32 *)&agg_epoch & 1 : 0;
}

static __always_inline void *agg_slot(void *map, struct ksnoop_agg_key *k, __u32 fid, void *zero)
{
	__u32 z0 = 0, idx;
	void *v;

	if (agg_keyless) {
		idx = agg_epochs ? fid * 2 + cur_epoch() : fid;
		return bpf_map_lookup_elem(map, &idx);
	}
	v = bpf_map_lookup_elem(map, k);

	if (v)
		return v;
	if (!zero)
		zero = bpf_map_lookup_elem(&hist_zero, &z0);
	if (!zero)
		return NULL;
	if (bpf_map_update_elem(map, k, zero, BPF_NOEXIST) && !bpf_map_lookup_elem(map, k)) {
		count_drop(KSNOOP_DROP_KEYS);
		return NULL;
	}
	return bpf_map_lookup_elem(map, k);
}

static __always_inline void pack_key_value(struct scratch *s, const struct ksnoop_agg_cfg *a,
					   __u32 n)
{
	__u32 vi = a->key_value[n & (KSNOOP_AGG_MAX_KEYS - 1)] & (KSNOOP_MAX_VALUES - 1);
	__u32 off = a->key_off[n & (KSNOOP_AGG_MAX_KEYS - 1)] & 0x78;
	__u32 len = a->key_len[n & (KSNOOP_AGG_MAX_KEYS - 1)];
	__u32 src = s->str_off[vi], have = s->str_len[vi];

	/* A register holds more than its type: only the type's bytes count. */
	if (len <= 8) {
		*(__u64 *)&s->key.data[off] = len < 8 ? s->scalars[vi] & ((1ULL << (len * 8)) - 1)
						      : s->scalars[vi];
		return;
	}
	/* A string: its bytes up to the slot, the rest stays zero. */
	if (have > len)
		have = len;
	if (have > KSNOOP_AGG_STR_MAX)
		have = KSNOOP_AGG_STR_MAX;
	if (src < KSNOOP_DATA_MAX + 64 && have)
		bpf_probe_read_kernel(&s->key.data[off], have, &s->ev.data[src]);
}

/*
 * The stack's slot in the stacks map, kept there on its first sample, as
 * bpf_get_stackid's id: -EFAULT where there is none (a kernel thread's
 * user stack, a user-mode sample's kernel one), else -errno when it could
 * not be kept (the map is full).
 */
static __always_inline __s32 stack_id(void *ctx, __u64 flags)
{
	struct ksnoop_stack *st, *old;
	__u32 zero = 0, i, id;
	long len, err;

	st = bpf_map_lookup_elem(&stack_buf, &zero);
	if (!st)
		return -12; /* ENOMEM */
	len = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (len <= 0)
		return len ? len : -14 /* EFAULT */;
	st->hash = ksnoop_stack_hash(st->ips, (__u32)len / 8, flags);
	for (i = 0; i < KSNOOP_STACK_PROBES; i++) {
		id = (st->hash + i) & 0x7fffffff;
		old = bpf_map_lookup_elem(&stacks, &id);
		if (!old) {
			err = bpf_map_update_elem(&stacks, &id, st, BPF_NOEXIST);
			if (!err)
				return id;
			/* -EEXIST: another CPU kept a stack there just now */
			old = bpf_map_lookup_elem(&stacks, &id);
			if (!old)
				return err;
		}
		if (old->hash == st->hash)
			return id;
	}
	return -17; /* EEXIST */
}

/* The --by fields; k is zeroed. */
static __always_inline void key_header(void *ctx, struct ksnoop_agg_key *k, __u32 fid, __u64 ra)
{
	__u64 id;

	k->func_id = fid;
	if (agg_epochs)
		k->epoch = cur_epoch();
	if (agg_by & (KSNOOP_BY_PID | KSNOOP_BY_TID | KSNOOP_BY_USTACK)) {
		id = bpf_get_current_pid_tgid();
		if (agg_by & (KSNOOP_BY_PID | KSNOOP_BY_USTACK))
			k->tgid = id >> 32;
		if (agg_by & KSNOOP_BY_TID)
			k->pid = (__u32)id;
	}
	if (agg_by & KSNOOP_BY_CPU)
		k->cpu = bpf_get_smp_processor_id();
	if (agg_by & KSNOOP_BY_COMM)
		bpf_get_current_comm(k->comm, sizeof(k->comm));
	if (agg_by & KSNOOP_BY_KSTACK) {
		/* A CPU sample in user mode has no kernel stack (-EFAULT): nothing is lost. */
		k->stack_id = stack_id(ctx, 0);
		if (k->stack_id < 0 && k->stack_id != -14 /* EFAULT */)
			count_drop(KSNOOP_DROP_STACK);
	}
	/* --call-graph dwarf: user space unwinds the stack and sets the id (agg_sample) */
	if ((agg_by & KSNOOP_BY_USTACK) && ustack_dump_bytes)
		((struct ksnoop_agg_ustack *)k->data)->id = KSNOOP_USTACK_UNWIND;
	/* A kernel thread has no user stack: its key says so (-EFAULT), nothing is lost. */
	else if (agg_by & KSNOOP_BY_USTACK) {
		struct ksnoop_agg_ustack *u = (void *)k->data;

		u->id = stack_id(ctx, BPF_F_USER_STACK);
		u->ra = KSNOOP_IS_USER_ADDR(ra) ? ra : 0;
		if (u->id < 0 && u->id != -14 /* EFAULT */)
			count_drop(KSNOOP_DROP_STACK);
		if (u->id >= 0)
			note_tgid(k->tgid);
	}
	if (agg_by & KSNOOP_BY_CGROUP)
		*(__u64 *)&k
			 ->data[agg_by & KSNOOP_BY_USTACK ? sizeof(struct ksnoop_agg_ustack) : 0] =
			bpf_get_current_cgroup_id();
}

static __always_inline void build_key(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				      __u64 ra)
{
	struct ksnoop_agg_key *k = &s->key;
	__u32 n;

	__builtin_memset(k, 0, sizeof(*k));
	key_header(ctx, k, s->ev.func_id, ra);
	for (n = 0; n < KSNOOP_AGG_MAX_KEYS; n++) {
		if (n >= cfg->agg.nr_keys)
			break;
		pack_key_value(s, &cfg->agg, n);
	}
}

/* The numbering is src/agg/table.h's. */
static __always_inline __u32 bucket_of(__u64 v, bool is_signed)
{
	return hist_bucket(v, is_signed, hist_linear, hist_lo, hist_step, hist_nr);
}

static __always_inline __u64 sign_extend(__u64 v, __u32 width, bool is_signed)
{
	__u32 shift = width >= 8 ? 0 : 64 - width * 8;

	if (!shift)
		return v;
	return is_signed ? (__u64)((__s64)(v << shift) >> shift) : (v << shift) >> shift;
}

/* k is not read when agg_keyless. */
static __always_inline void hist_add_value(struct ksnoop_agg_key *k, __u32 fid, __u64 v,
					   bool is_signed)
{
	struct ksnoop_hist *h;

	h = agg_slot(agg_keyless ? (void *)&func_hists : (void *)&agg_hists, k, fid, NULL);
	if (h)
		hist_slot_add(h, v, is_signed, bucket_of(v, is_signed));
}

/* The value a hist sample adds: its duration in the unit, or its value item's. */
static __always_inline __u64 hist_value_of(const struct ksnoop_agg_cfg *a, __u64 raw,
					   __u64 duration_ns, bool *is_signed)
{
	*is_signed = a->hist_value != KSNOOP_AGG_LATENCY && a->hist_signed;
	if (a->hist_value == KSNOOP_AGG_LATENCY)
		return duration_ns / (latency_div ?: 1);
	return sign_extend(raw, a->hist_width, a->hist_signed);
}

static __always_inline void hist_add(struct ksnoop_agg_key *k, __u32 fid,
				     const struct ksnoop_agg_cfg *a, __u64 raw, __u64 duration_ns)
{
	bool is_signed;
	__u64 v = hist_value_of(a, raw, duration_ns, &is_signed);

	hist_add_value(k, fid, v, is_signed);
}

static __always_inline void count_add(struct ksnoop_agg_key *k, __u32 fid)
{
	__u64 zero = 0, *n = agg_slot(agg_keyless ? (void *)&func_counts : (void *)&agg_counts, k,
				      fid, &zero);

	if (n)
		*n += 1;
}

/*
 * --by ustack with --call-graph dwarf: the sample goes to user space
 * whole, its key, its value and its user stack, to be added to the maps
 * once the stack is unwound there.
 */
static __always_inline void agg_sample(struct scratch *s, __u64 v, bool is_signed)
{
	struct ksnoop_event *ev = &s->ev;
	struct ksnoop_vrec *vr = (void *)ev->data;

	ev->kind = KSNOOP_EV_AGG_SAMPLE;
	ev->nr_vrecs = 1;
	vr->raw = v;
	vr->len = sizeof(s->key);
	vr->idx = KSNOOP_VREC_AGG_KEY;
	vr->flags = is_signed ? KSNOOP_VR_SIGNED : 0;
	__builtin_memcpy(vr + 1, &s->key, sizeof(s->key));
	ev->data_len = sizeof(*vr) + ((sizeof(s->key) + 7) & ~7);
	append_ustack_dump(ev);
	submit(ev);
}

static __always_inline void aggregate(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				      __u64 ra)
{
	__u32 vi = cfg->agg.hist_value & (KSNOOP_MAX_VALUES - 1);
	bool is_signed = false;
	__u64 v = 0;

	if (!agg_keyless)
		build_key(ctx, s, cfg, ra);
	if ((agg_by & KSNOOP_BY_USTACK) && ustack_dump_bytes) {
		if (agg_mode == KSNOOP_AGG_HIST)
			v = hist_value_of(&cfg->agg, s->scalars[vi], s->ev.duration_ns, &is_signed);
		agg_sample(s, v, is_signed);
		return;
	}
	if (agg_mode == KSNOOP_AGG_HIST)
		hist_add(&s->key, s->ev.func_id, &cfg->agg, s->scalars[vi], s->ev.duration_ns);
	else
		count_add(&s->key, s->ev.func_id);
}

/* The key of agg_fast: a header and the data it may fill. */
struct fast_key {
	__u8 hdr[KSNOOP_AGG_KEY_HDR];
	__u64 data[KSNOOP_AGG_FAST_DATA / 8];
};

/* An argument, the return value or `current`: no memory read. */
static __always_inline __u64 reg_value(struct capture_ctx *c, const struct ksnoop_value *v,
				       bool func_args)
{
	if (v->base == KSNOOP_BASE_CURRENT)
		return bpf_get_current_task();
	return v->base == KSNOOP_BASE_RET ? get_ret(c, func_args) : get_arg(c, v->arg, func_args);
}

/* agg_fast's key: zeroed, then the --by fields and the values from registers. */
static __always_inline void fast_key_fill(struct capture_ctx *c, struct ksnoop_func_cfg *cfg,
					  __u32 fid, bool func_args, struct fast_key *fk)
{
	const struct ksnoop_agg_cfg *a = &cfg->agg;
	__u32 n, len;
	__u64 v;

	__builtin_memset(fk, 0, sizeof(*fk));
	key_header(c->ctx, (struct ksnoop_agg_key *)fk, fid, 0);
	for (n = 0; n < KSNOOP_AGG_MAX_KEYS; n++) {
		if (n >= a->nr_keys)
			break;
		v = reg_value(c, &cfg->values[a->key_value[n] & (KSNOOP_MAX_VALUES - 1)],
			      func_args);
		len = a->key_len[n];
		if (len < 8)
			v &= (1ULL << (len * 8)) - 1;
		fk->data[(a->key_off[n] >> 3) & (KSNOOP_AGG_FAST_DATA / 8 - 1)] = v;
	}
}

/*
 * count and hist whose values all sit in registers (cfg->agg.fast): the
 * key is built on the stack, without the scratch event, its captures and
 * its predicates (all of them fast ones, checked already).
 */
static __always_inline void agg_fast(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
				     __u32 fid, bool func_args, __u64 duration_ns)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };
	const struct ksnoop_agg_cfg *a = &cfg->agg;
	struct fast_key fk;
	__u64 v;

	/* funccount and funclatency: no key to zero and fill, per call. */
	if (!agg_keyless)
		fast_key_fill(&c, cfg, fid, func_args, &fk);
	if (agg_mode == KSNOOP_AGG_COUNT) {
		count_add((struct ksnoop_agg_key *)&fk, fid);
		return;
	}
	v = 0;
	if (a->hist_value != KSNOOP_AGG_LATENCY)
		v = reg_value(&c, &cfg->values[a->hist_value & (KSNOOP_MAX_VALUES - 1)], func_args);
	hist_add((struct ksnoop_agg_key *)&fk, fid, a, v, duration_ns);
}

#endif /* KSNOOP_AGG_BPF_H */
