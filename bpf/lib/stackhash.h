/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack's hash, which picks its slot in count and hist's stacks map:
 * bpf/agg/agg.h hashes the stacks the kernel walks, src/agg/agg.c those it
 * unwinds itself (--call-graph dwarf), so that one stack has one slot.
 */
#ifndef KSNOOP_STACKHASH_H
#define KSNOOP_STACKHASH_H

/*
 * A 64-bit mix of a stack's frames (and of which stack it is): a multiply
 * a frame, each step a bijection of the frame, so stacks that differ in
 * one frame never meet; the last mix brings the high bits to the slot's.
 */
static __always_inline __u64 ksnoop_stack_hash(const __u64 *ips, __u32 n, __u64 flags)
{
	__u64 h = 0x9e3779b97f4a7c15ULL ^ flags;
	__u32 i;

	for (i = 0; i < KSNOOP_STACK_DEPTH && i < n; i++)
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdULL;
	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}

#endif
