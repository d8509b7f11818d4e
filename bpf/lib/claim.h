/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU scratch slots claimed by the programs running on the CPU. Not a
 * stack depth: an interrupt, or a preempting task (a raw tracepoint
 * program can be preempted: 7.3's system call tracepoints are), may run
 * programs in the middle of another's, and they need not end in the
 * reverse order they began, so a depth could hand one slot to two.
 */
#ifndef KSNOOP_CLAIM_H
#define KSNOOP_CLAIM_H

/*
 * A free one of slots_map's nr slots, claimed in claims_map's per-CPU
 * counters (nr __u32s under key 0), or NULL when the programs in flight
 * hold them all. A claim is an atomic add that then reads 1: whatever ran
 * in between, only one program sees its own add alone. Atomic adds
 * without fetch, which the BPF of every kernel here has; unrolled, so
 * that each slot is a constant to the verifier. The caller owes
 * slot_release(*claim). idx, unless NULL, gets the slot's key: code that
 * cannot be handed the pointer (a global function) looks it up again.
 */
static __always_inline void *slot_claim(void *claims_map, void *slots_map, const __u32 nr,
					__u32 **claim, __u32 *idx)
{
	__u32 zero = 0, k, slot;
	__u32 *c = bpf_map_lookup_elem(claims_map, &zero);
	void *s;

	if (!c)
		return NULL;
#pragma unroll
	for (k = 0; k < nr; k++) {
		__sync_fetch_and_add(&c[k], 1);
		if (*(volatile __u32 *)&c[k] == 1) {
			slot = k;
			s = bpf_map_lookup_elem(slots_map, &slot);
			if (s) {
				*claim = &c[k];
				if (idx)
					*idx = slot;
				return s;
			}
		}
		__sync_fetch_and_add(&c[k], -1);
	}
	return NULL;
}

static __always_inline void slot_release(__u32 *claim)
{
	__sync_fetch_and_add(claim, -1);
}

#endif
