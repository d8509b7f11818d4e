/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spans (--from, --to): two events tied by a key. A FROM plan's call opens
 * a span under its first value; a TO plan's call with an equal first value
 * closes it, and count and hist add the span, timed from FROM to TO, under
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
 * Sized by user space (--max-spans); full, a start is counted and dropped.
 * count and hist keep a span's time and key, trace its start's event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct ksnoop_span);
} spans SEC(".maps");

struct span_event {
	__u8 bytes[KSNOOP_SPAN_EVENT_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct span_event);
} span_events SEC(".maps");

/* Into map under key: a start whose key is open restarts the span, counted. */
static __always_inline void span_open(void *map, __u64 key, void *val)
{
	long err = bpf_map_update_elem(map, &key, val, BPF_NOEXIST);

	if (err == -EEXIST) {
		count_drop(KSNOOP_DROP_RESTART);
		err = bpf_map_update_elem(map, &key, val, BPF_EXIST);
	}
	if (err)
		count_drop(KSNOOP_DROP_SPANS);
}

/* The first value, as wide as its type: a pointer, or an integer. */
static __always_inline __u64 span_key(struct scratch *s, struct ksnoop_func_cfg *cfg)
{
	__u32 size = cfg->values[0].size;
	__u64 k = s->scalars[0];

	if (!(cfg->flags & KSNOOP_CFG_SPAN_KEY_RAW) && size < 8)
		k &= (1ULL << (size * 8)) - 1;
	return k;
}

static __always_inline void span_start(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				       __u64 key, __u64 now)
{
	struct ksnoop_span *sp = &s->span;

	if (!agg_keyless)
		build_key(ctx, s, cfg);
	__builtin_memcpy(&sp->key, &s->key, sizeof(sp->key));
	sp->start_ns = now;
	sp->func_id = s->ev.func_id;
	sp->pad = 0;
	span_open(&spans, key, sp);
}

/* Only the closer whose delete succeeds adds the span: two TOs race. */
static __always_inline void span_end(struct scratch *s, __u64 key, __u64 now)
{
	struct ksnoop_span *sp = &s->span, *open = bpf_map_lookup_elem(&spans, &key);

	if (!open)
		return;
	bpf_probe_read_kernel(sp, sizeof(*sp), open);
	if (bpf_map_delete_elem(&spans, &key))
		return;
	if (agg_epochs)
		sp->key.epoch = cur_epoch();
	if (agg_mode == KSNOOP_AGG_HIST)
		hist_add_value(&sp->key, sp->func_id, (now - sp->start_ns) / (latency_div ?: 1),
			       false);
	else
		count_add(&sp->key, sp->func_id);
}

/* trace: the start's whole entry event waits for the end. */
static __always_inline void span_start_event(struct scratch *s, __u64 key)
{
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
static __always_inline void span_end_event(void *ctx, struct scratch *s, __u64 key, __u64 now,
					   __u64 ra, bool trampoline)
{
	struct ksnoop_event *ev = &s->ev, *start = bpf_map_lookup_elem(&span_events, &key);
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
	if (bpf_map_delete_elem(&span_events, &key))
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
	__u64 key = span_key(s, cfg);
	bool from = cfg->flags & KSNOOP_CFG_SPAN_FROM;

	if (agg_mode == KSNOOP_AGG_NONE && from)
		span_start_event(s, key);
	else if (agg_mode == KSNOOP_AGG_NONE)
		span_end_event(ctx, s, key, now, ra, trampoline);
	else if (from)
		span_start(ctx, s, cfg, key, now);
	else
		span_end(s, key, now);
}

#endif /* KSNOOP_TRACE_SPANS_H */
