// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark floor: an fentry/fexit pair that does nothing. What it
 * costs per call is the price of the BPF trampoline itself, the least any
 * fentry-based tracer can add (tests/bench/floor.c loads it).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry")
int BPF_PROG(floor_entry)
{
	return 0;
}

SEC("fexit")
int BPF_PROG(floor_exit)
{
	return 0;
}
