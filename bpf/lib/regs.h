/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registers as BPF programs read them, per architecture: a kprobe's return
 * address and instruction pointer, and a syscall's number and arguments.
 * The constants they rest on are in lib/arch.h, user space's view of the
 * same registers in src/lib/archinfo.c.
 */
#ifndef KSNOOP_LIB_REGS_H
#define KSNOOP_LIB_REGS_H

#include "lib/arch.h"

#ifdef KSNOOP_ARCH_ARM64
/* arm64 kprobes run with pc at the probed instruction. */
#define KPROBE_IP_ADJ 0

/* A function is entered with its return address in lr. */
static __always_inline __u64 kprobe_entry_ra(struct pt_regs *ctx)
{
	return PT_REGS_RET(ctx);
}
#else
/* x86 kprobes run with ip just past the int3 at the probed address. */
#define KPROBE_IP_ADJ 1

/* A function is entered with its return address on top of the stack. */
static __always_inline __u64 kprobe_entry_ra(struct pt_regs *ctx)
{
	__u64 ra = 0;

	bpf_probe_read_kernel(&ra, sizeof(ra), (void *)PT_REGS_SP(ctx));
	return ra;
}
#endif

/*
 * Syscall number and arguments from the saved user registers. They are
 * intact at sys_exit too: the syscall ABI preserves them (arm64 keeps its
 * first argument in orig_x0, x0 becomes the return value). regs is a
 * BTF-typed tracepoint argument: plain loads read it, with no helper call
 * per register.
 */
#ifndef KSNOOP_ARCH_ARM64
#define SYSCALL_NR(regs) ((regs)->orig_ax)

static __always_inline __u64 syscall_arg(struct pt_regs *regs, int n)
{
	switch (n) {
	case 0:
		return regs->di;
	case 1:
		return regs->si;
	case 2:
		return regs->dx;
	case 3:
		return regs->r10;
	case 4:
		return regs->r8;
	default:
		return regs->r9;
	}
}
#else
/* CO-RE flavor: compiles against any vmlinux.h, relocates on arm64. */
struct pt_regs___ktr_arm64 {
	unsigned long regs[31];
	unsigned long orig_x0;
	int syscallno;
} __attribute__((preserve_access_index));
#define ARM64_REGS(regs) ((struct pt_regs___ktr_arm64 *)(regs))
#define SYSCALL_NR(regs) (ARM64_REGS(regs)->syscallno)

static __always_inline __u64 syscall_arg(struct pt_regs *regs, int n)
{
	switch (n) {
	case 0:
		return ARM64_REGS(regs)->orig_x0;
	case 1:
		return ARM64_REGS(regs)->regs[1];
	case 2:
		return ARM64_REGS(regs)->regs[2];
	case 3:
		return ARM64_REGS(regs)->regs[3];
	case 4:
		return ARM64_REGS(regs)->regs[4];
	default:
		return ARM64_REGS(regs)->regs[5];
	}
}
#endif

#endif /* KSNOOP_LIB_REGS_H */
