// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark floors (tests/bench/floor.c loads them). By default an
 * fentry/fexit pair that does nothing: the price of the BPF trampoline
 * itself, the least any fentry-based tracer can add. With with_events,
 * each side also sends a 48-byte record (time, pid, CPU, return value)
 * through a ring buffer nobody reads: the least a tracer that delivers an
 * event at entry and at return can add. The kprobe/kretprobe pair is the
 * same for tracers on kprobes (floor --kprobe). With dump_bytes, the entry
 * record also holds that many bytes read from where the first argument
 * points (floor --dump N): the least a tracer that dumps a struct can add.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile bool with_events;
const volatile __u32 dump_bytes; /* at most FLOOR_DUMP_MAX */

#define FLOOR_DUMP_MAX 256

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* floor.c sizes it for --events */
} events SEC(".maps");

struct floor_rec {
	__u64 ts;
	__u64 val;
	__u32 pid;
	__u32 cpu;
	__u32 kind;
	__u32 pad;
	__u64 spare[2];
};

/* A dump at entry; at return, ptr is 0 and the record stays small. */
static __always_inline void emit(__u32 kind, __u64 val, __u64 ptr)
{
	__u32 dump = ptr && dump_bytes <= FLOOR_DUMP_MAX ? dump_bytes : 0;
	struct floor_rec *r = bpf_ringbuf_reserve(&events, sizeof(*r) + dump, 0);

	if (!r)
		return;
	if (dump)
		bpf_probe_read_kernel(r + 1, dump, (void *)ptr);
	r->ts = bpf_ktime_get_ns();
	r->val = val;
	r->pid = (__u32)bpf_get_current_pid_tgid();
	r->cpu = bpf_get_smp_processor_id();
	r->kind = kind;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

SEC("fentry")
int BPF_PROG(floor_entry)
{
	if (with_events)
		emit(1, 0, ctx[0]);
	return 0;
}

SEC("fexit")
int BPF_PROG(floor_exit)
{
	__u64 ret = 0;

	if (with_events) {
		bpf_get_func_ret(ctx, &ret);
		emit(2, ret, 0);
	}
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(floor_kentry)
{
	if (with_events)
		emit(1, 0, PT_REGS_PARM1(ctx));
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(floor_kexit, long ret)
{
	if (with_events)
		emit(2, ret, 0);
	return 0;
}
