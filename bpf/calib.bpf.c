// SPDX-License-Identifier: GPL-2.0
/*
 * Backend calibration: an fentry, a kprobe and a kprobe.multi program, each
 * counting calls of the target function for the current process. User
 * space loads, attaches and triggers them one at a time (ksnoop feature)
 * to learn which backends work: a kernel may accept one and refuse another.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lib/arch.h"

const volatile __u32 target_tgid;

__u64 fentry_hits;
__u64 kprobe_hits;
__u64 kprobe_multi_hits;

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

SEC("fentry/" KSNOOP_CALIB_FUNC)
int BPF_PROG(probe_fentry)
{
	if (is_target())
		__sync_fetch_and_add(&fentry_hits, 1);
	return 0;
}

SEC("kprobe/" KSNOOP_CALIB_FUNC)
int BPF_KPROBE(probe_kprobe)
{
	if (is_target())
		__sync_fetch_and_add(&kprobe_hits, 1);
	return 0;
}

/* kprobe.multi links: Linux 5.18 ("bpf: Add multi kprobe link"), CONFIG_FPROBE. */
SEC("kprobe.multi/" KSNOOP_CALIB_FUNC)
int BPF_KPROBE(probe_kprobe_multi)
{
	if (is_target())
		__sync_fetch_and_add(&kprobe_multi_hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
