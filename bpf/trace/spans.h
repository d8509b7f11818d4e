/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spans (--from, --to): two events tied by a key. A FROM plan's call opens
 * a span under its first value, or its first values when the spec wrote
 * a tuple; a TO plan's call with an equal key closes it, and count and hist add the span, timed from FROM to TO, under
 * the key FROM's call built: its comm, pid or stack, not the closer's.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_SPANS_H
#define KSNOOP_TRACE_SPANS_H

/*
 * Some plan is a span's: filters then apply to FROM plans alone, the TO
 * side running wherever the span ends (an interrupt, another task).
 */
const volatile bool spans_mode;

#ifndef EEXIST
#define EEXIST 17 /* vmlinux.h has no errno names */
#endif

/*
 * The maps' keys are its first 8 bytes per value in the key (user space
 * sets their key size): one word hashes as fast as before tuples.
 */
struct span_key {
	__u64 v[KSNOOP_SPAN_KEY_MAX];
};

/*
 * count and hist: a span's time and key. Sized by user space (--max-spans;
 * full, a start is counted and dropped), and so is its value: struct
 * ksnoop_span up to the key's bytes in use, or its time alone without a
 * key. Preallocated, as bpftrace's maps are: an insert takes an element
 * off a per-CPU free list rather than allocating one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct span_key));
	__uint(value_size, sizeof(struct ksnoop_span));
} spans SEC(".maps");

const volatile __u32 span_value_size = sizeof(struct ksnoop_span);

/* trace: the start's event. */
struct span_event {
	__u8 bytes[KSNOOP_SPAN_EVENT_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct span_key));
	__uint(value_size, sizeof(struct span_event));
} span_events SEC(".maps");

/* Into map under key: a start whose key is open restarts the span, counted. */
static __always_inline void span_open(void *map, struct span_key *key, void *val)
{
	long err = bpf_map_update_elem(map, key, val, BPF_NOEXIST);

	if (err == -EEXIST) {
		count_drop(KSNOOP_DROP_RESTART);
		err = bpf_map_update_elem(map, key, val, BPF_EXIST);
	}
	if (err)
		count_drop(KSNOOP_DROP_SPANS);
}

/* A key's value as wide as its type: a pointer's word, an integer's bytes. */
static __always_inline __u64 span_key_word(__u64 v, __u8 width)
{
	return width && width < 8 ? v & ((1ULL << (width * 8)) - 1) : v;
}

/* The key of a call whose values are in vals[], zero past the key's last. */
static __always_inline void span_key_make(struct ksnoop_func_cfg *cfg, __u64 *vals,
					  struct span_key *key)
{
	int i;

	for (i = 0; i < KSNOOP_SPAN_KEY_MAX; i++)
		key->v[i] = cfg->span_key_width[i] ? span_key_word(vals[i], cfg->span_key_width[i])
						   : 0;
}

static __always_inline void span_start(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				       struct span_key *key, __u64 now)
{
	struct ksnoop_span *sp = &s->span;

	if (!agg_keyless) {
		build_key(ctx, s, cfg, 0);
		__builtin_memcpy(&sp->key, &s->key, sizeof(sp->key));
	}
	sp->start_ns = now;
	sp->func_id = s->ev.func_id;
	sp->pad = 0;
	span_open(&spans, key, sp);
}

/*
 * Into sp, the span open under key, and out of the map: only the closer
 * whose delete succeeds has it (two TOs race). Without a key, its time
 * alone is copied.
 */
static __always_inline bool span_take(struct span_key *key, struct ksnoop_span *sp, __u32 room)
{
	struct ksnoop_span *open = bpf_map_lookup_elem(&spans, key);
	__u64 size = span_value_size;

	if (!open)
		return false;
	sp->start_ns = open->start_ns;
	sp->func_id = open->func_id;
	/* Bound the register the helper takes: clang may test a copy. */
	barrier_var(size);
	if (!agg_keyless) {
		if (size > room || size <= KSNOOP_SPAN_HDR)
			return false;
		bpf_probe_read_kernel(&sp->key, size - KSNOOP_SPAN_HDR, &open->key);
	}
	return !bpf_map_delete_elem(&spans, key);
}

/* count and hist add a span under its start's key, at the time it ends. */
static __always_inline void span_add(struct ksnoop_span *sp, __u64 now)
{
	if (agg_epochs && !agg_keyless)
		sp->key.epoch = cur_epoch();
	if (agg_mode == KSNOOP_AGG_HIST)
		hist_add_value(&sp->key, sp->func_id, (now - sp->start_ns) / (latency_div ?: 1),
			       false);
	else
		count_add(&sp->key, sp->func_id);
}

static __always_inline void span_end(struct scratch *s, struct span_key *key, __u64 now)
{
	if (span_take(key, &s->span, sizeof(s->span)))
		span_add(&s->span, now);
}

/* A span's start whose key fits agg_fast's: on the stack. */
struct fast_span {
	__u64 start_ns;
	__u32 func_id;
	__u32 pad;
	struct fast_key key;
};

/* span_take and span_add take one as a struct ksnoop_span. */
_Static_assert(__builtin_offsetof(struct fast_span, key) == KSNOOP_SPAN_HDR, "fast_span header");

/*
 * A span whose key, and FROM's values, sit in registers or are `current`
 * (cfg->agg.fast): no scratch event, captures or predicates (fast ones,
 * checked already).
 */
static __always_inline void span_fast(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
				      __u32 fid, bool func_args, __u64 now)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };
	struct span_key key = {
		.v[0] = span_key_word(reg_value(&c, &cfg->values[0], func_args),
				      cfg->span_key_width[0]),
	};
	struct fast_span sp;

	if (!(cfg->flags & KSNOOP_CFG_SPAN_FROM)) {
		if (span_take(&key, (struct ksnoop_span *)&sp, sizeof(sp)))
			span_add((struct ksnoop_span *)&sp, now);
		return;
	}
	if (!agg_keyless)
		fast_key_fill(&c, cfg, fid, func_args, &sp.key);
	sp.start_ns = now;
	sp.func_id = fid;
	sp.pad = 0;
	span_open(&spans, &key, &sp);
}

/* trace: the start's whole entry event, its --kstack too, waits for the end. */
static __always_inline void span_start_event(void *ctx, struct scratch *s, struct span_key *key,
					     __u64 ra, bool trampoline)
{
	if (kstack_bytes)
		append_kstack(ctx, &s->ev, ra, trampoline);
	if (s->ev.data_len > KSNOOP_SPAN_DATA) {
		count_drop(KSNOOP_DROP_STASH);
		return;
	}
	span_open(&span_events, key, &s->ev);
}

/* Where the start's record may begin: past the end's records and kstack. */
#define SPAN_REC_OFF_MAX (KSNOOP_DATA_MAX + 16 + KSNOOP_KSTACK_MAX * 8 + 8)

/*
 * trace: the end's event, the start's event as its last record, sent as
 * one KSNOOP_EV_SPAN; shorter than --duration, nothing is sent.
 */
static __always_inline void span_end_event(void *ctx, struct scratch *s, struct span_key *key,
					   __u64 now, __u64 ra, bool trampoline)
{
	struct ksnoop_event *ev = &s->ev, *start = bpf_map_lookup_elem(&span_events, key);
	struct ksnoop_vrec *vr;
	__u64 size;
	__u32 off;

	if (!start)
		return;
	ev->duration_ns = now - start->ts;
	size = __builtin_offsetof(struct ksnoop_event, data) + start->data_len;
	if (size > KSNOOP_SPAN_EVENT_MAX)
		size = KSNOOP_SPAN_EVENT_MAX;
	/* Bound the register the helper takes: clang may test a copy. */
	barrier_var(size);
	size &= 1023;
	if (size > KSNOOP_SPAN_EVENT_MAX)
		return;
	if (kstack_bytes)
		append_kstack(ctx, ev, ra, trampoline);
	off = ev->data_len;
	if (off > SPAN_REC_OFF_MAX)
		return;
	barrier_var(off);
	if (off > SPAN_REC_OFF_MAX)
		return;
	vr = (void *)&ev->data[off];
	bpf_probe_read_kernel(vr + 1, size, start);
	if (bpf_map_delete_elem(&span_events, key))
		return;
	if (ev->duration_ns < min_duration_ns)
		return;
	vr->raw = 0;
	vr->len = size;
	vr->idx = KSNOOP_VREC_SPAN_FROM;
	vr->flags = 0;
	vr->pad = 0;
	ev->data_len = off + sizeof(*vr) + ((size + 7) & ~7U);
	ev->nr_vrecs++;
	ev->kind = KSNOOP_EV_SPAN;
	submit(ev);
}

static __always_inline void span_event(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				       __u64 now, __u64 ra, bool trampoline)
{
	bool from = cfg->flags & KSNOOP_CFG_SPAN_FROM;
	struct span_key key;

	span_key_make(cfg, s->scalars, &key);
	if (agg_mode == KSNOOP_AGG_NONE && from)
		span_start_event(ctx, s, &key, ra, trampoline);
	else if (agg_mode == KSNOOP_AGG_NONE)
		span_end_event(ctx, s, &key, now, ra, trampoline);
	else if (from)
		span_start(ctx, s, cfg, &key, now);
	else
		span_end(s, &key, now);
}

#endif /* KSNOOP_TRACE_SPANS_H */
