/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A value into a hist's slot: bpf/agg/agg.h adds the samples the kernel
 * takes, src/agg/agg.c those whose stacks it unwinds itself (--call-graph
 * dwarf), so that both add alike. After abi/trace.h (struct ksnoop_hist).
 */
#ifndef KSNOOP_HISTADD_H
#define KSNOOP_HISTADD_H

static __always_inline bool hist_less(__u64 a, __u64 b, bool is_signed)
{
	return is_signed ? (__s64)a < (__s64)b : a < b;
}

static __always_inline void hist_slot_add(struct ksnoop_hist *h, __u64 v, bool is_signed,
					  __u32 bucket)
{
	if (!h->count || hist_less(v, h->min, is_signed))
		h->min = v;
	if (!h->count || hist_less(h->max, v, is_signed))
		h->max = v;
	h->count++;
	h->sum += v;
	h->buckets[bucket & (KSNOOP_HIST_BUCKETS - 1)]++;
}

#endif
