/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture constants shared by BPF programs and user space.
 */
#ifndef KSNOOP_LIB_ARCH_H
#define KSNOOP_LIB_ARCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * The backend calibration target: getppid's body as BTF names it, the
 * cheapest traceable function a test can call at will. x86-64 builds
 * SYSCALL_DEFINE0 as a __do_sys_ body behind an __x64_sys_ stub that has
 * no BTF; arm64 builds it as __arm64_sys_getppid alone.
 */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define KSNOOP_ARCH_ARM64 1
#endif

#ifdef KSNOOP_ARCH_ARM64
#define KSNOOP_CALIB_FUNC "__arm64_sys_getppid"
#else
#define KSNOOP_CALIB_FUNC "__do_sys_getppid"
#endif

/*
 * Arguments passed in registers: x0..x7 on arm64 (AAPCS64), rdi, rsi, rdx,
 * rcx, r8, r9 on x86-64. Past them they sit on the caller's stack. BPF
 * trampolines take exactly these on arm64, and on x86-64 before Linux 6.6.
 */
#ifdef KSNOOP_ARCH_ARM64
#define KSNOOP_REG_ARGS 8
#else
#define KSNOOP_REG_ARGS 6
#endif

/*
 * Where a kprobe's struct pt_regs holds the register arguments and the
 * return value: the ptrace ABI fixes the layout (trace.bpf.c checks these
 * against its struct abi_regs).
 */
#ifdef KSNOOP_ARCH_ARM64
#define KSNOOP_PT_REGS_ARG_OFF(n) ((n)*8) /* x0..x7 */
#define KSNOOP_PT_REGS_RET_OFF 0	  /* x0 */
#else
/* di, si, dx, cx, r8, r9 */
#define KSNOOP_PT_REGS_ARG_OFF(n) \
	((n) == 0 ? 112 : (n) == 1 ? 104 : (n) == 2 ? 96 : (n) == 3 ? 88 : (n) == 4 ? 72 : 64)
#define KSNOOP_PT_REGS_RET_OFF 80 /* ax */
#endif

/*
 * --call-graph dwarf: the user registers as BPF copies them, in the ptrace
 * layout (x86-64's struct pt_regs; arm64's struct user_pt_regs: x0..x30,
 * sp, pc, pstate), and where sp and pc are in it. archinfo.c maps them to
 * DWARF's register numbers.
 */
#ifdef KSNOOP_ARCH_ARM64
#define KSNOOP_UREGS_SIZE 272
#define KSNOOP_UREGS_SP_OFF 248
#define KSNOOP_UREGS_PC_OFF 256
#else
#define KSNOOP_UREGS_SIZE 168
#define KSNOOP_UREGS_SP_OFF 152
#define KSNOOP_UREGS_PC_OFF 128
#endif
#define KSNOOP_UREGS_SIZE_MAX 272

/*
 * Where a task's user registers sit without bpf_task_pt_regs (5.15): at
 * the top of its kernel stack, THREAD_SIZE bytes on both architectures as
 * Debian builds them (no KASAN), with no padding above on x86-64.
 */
#define KSNOOP_THREAD_SIZE 16384

/* TASK_COMM_LEN, which user space cannot include. */
#define KSNOOP_COMM_LEN 16

/*
 * Whether an address is user memory: Debian's GCC-built BTF has no __user
 * tags, so the address decides which helper reads it.
 * x86-64: user space ends at 0x0000800000000000 (4-level paging; 5-level
 * kernels would need 0x0100000000000000).
 * arm64: bit 55 selects TTBR1 (kernel) or TTBR0 (user) whatever the VA size
 * (6.12's Debian kernel has 52-bit VA, 6.1's 48-bit) and whatever tag a user
 * pointer carries in its top byte (Top Byte Ignore), so no range would do.
 */
#define KSNOOP_X86_USER_ADDR_END 0x0000800000000000ULL
#define KSNOOP_ARM64_KERNEL_ADDR_BIT 55
#ifdef KSNOOP_ARCH_ARM64
#define KSNOOP_KERNEL_ADDR_BIT KSNOOP_ARM64_KERNEL_ADDR_BIT
#define KSNOOP_IS_USER_ADDR(a) (!((__u64)(a) & (1ULL << KSNOOP_KERNEL_ADDR_BIT)))
#else
#define KSNOOP_USER_ADDR_END KSNOOP_X86_USER_ADDR_END
#define KSNOOP_IS_USER_ADDR(a) ((__u64)(a) < KSNOOP_USER_ADDR_END)
#endif

#endif
