// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU that stops making progress, for tests/vm/selftest.sh: run once on
 * a packet (bpftool prog run), this socket filter spins in the kernel for
 * minutes inside an RCU read-side section and without a preemption point,
 * so the soft-lockup watchdog and RCU's stall detector fire for real.
 * bpf_loop allows at most 1 << 23 rounds and the verifier walks every
 * round of a bounded loop, so the work is 1 << 23 rounds of a bounded
 * inner loop.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define INNER_ROUNDS 4096

static long spin(__u64 index, void *ctx)
{
	volatile __u64 sum = index;
	int i;

	for (i = 0; i < INNER_ROUNDS; i++)
		sum += i;
	return 0;
}

SEC("socket")
int lockup(struct __sk_buff *skb)
{
	bpf_loop(1 << 23, spin, NULL, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
