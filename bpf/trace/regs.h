/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registers: a kprobe's pt_regs and a trampoline's arguments, copied into
 * one frame that capture reads.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_REGS_H
#define KSNOOP_TRACE_REGS_H

/*
 * kprobe registers are copied out of pt_regs once, with constant offsets:
 * the verifier refuses ctx loads at offsets the compiler computed.
 */
struct regs {
	__u64 arg[8];
	__u64 sp;
	__u64 rc;
	__u64 lr; /* arm64: the return address at entry */
};

#ifdef KSNOOP_ARCH_ARM64
/*
 * AAPCS64: x0..x7 carry the first 8 arguments and x0 the return value; the
 * 9th and on sit at [sp], [sp+8], ... when the callee starts, one 8-byte
 * slot each. A kprobe at function+0 runs before the prologue, so the saved
 * sp is still the caller's. (ip_make_skb's 9th and 10th, cork and flags,
 * are checked in tests/arm64/cases/arm64.case.)
 */
#define STACK_ARG_OFF(n) (((n)-KSNOOP_REG_ARGS) * 8)

/*
 * The register frame as the ptrace ABI fixes it (uapi user_pt_regs), read
 * at plain offsets: a CO-RE relocation here would make libbpf parse the
 * kernel's BTF on every start only to find offsets that cannot move.
 */
struct abi_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

_Static_assert(__builtin_offsetof(struct abi_regs, regs[1]) == KSNOOP_PT_REGS_ARG_OFF(1) &&
		       __builtin_offsetof(struct abi_regs, regs[7]) == KSNOOP_PT_REGS_ARG_OFF(7) &&
		       KSNOOP_PT_REGS_RET_OFF == 0,
	       "the register offsets user space writes programs with");

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	const struct abi_regs *u = (void *)ctx;

	r->arg[0] = u->regs[0];
	r->arg[1] = u->regs[1];
	r->arg[2] = u->regs[2];
	r->arg[3] = u->regs[3];
	r->arg[4] = u->regs[4];
	r->arg[5] = u->regs[5];
	r->arg[6] = u->regs[6];
	r->arg[7] = u->regs[7];
	r->sp = u->sp;
	r->rc = u->regs[0];
	r->lr = u->regs[30];
}

/*
 * A system call's arguments and number from its pt_regs, as the ABI
 * passes them: x0..x5, and syscallno past user_pt_regs and orig_x0.
 */
#define SYSCALLNO_OFF 280

static __always_inline bool read_syscall(const void *regs, __u64 args[6], __u64 *nr)
{
	__s32 no;

	if (bpf_probe_read_kernel(args, 6 * 8, regs) ||
	    bpf_probe_read_kernel(&no, sizeof(no), regs + SYSCALLNO_OFF))
		return false;
	*nr = no;
	return true;
}

/* At a function's first instruction its caller is in lr. */
static __always_inline __u64 entry_ra(struct regs *r)
{
	return r->lr;
}
#else
/* x86-64: past the return address, the seventh argument and on. */
#define STACK_ARG_OFF(n) (8 + ((n)-KSNOOP_REG_ARGS) * 8)

/*
 * The register frame in the order the entry code pushes it, which the
 * ptrace ABI fixes (uapi asm/ptrace.h), read at plain offsets: a CO-RE
 * relocation here would make libbpf parse the kernel's BTF on every start
 * only to find offsets that cannot move.
 */
struct abi_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

_Static_assert(__builtin_offsetof(struct abi_regs, di) == KSNOOP_PT_REGS_ARG_OFF(0) &&
		       __builtin_offsetof(struct abi_regs, si) == KSNOOP_PT_REGS_ARG_OFF(1) &&
		       __builtin_offsetof(struct abi_regs, dx) == KSNOOP_PT_REGS_ARG_OFF(2) &&
		       __builtin_offsetof(struct abi_regs, cx) == KSNOOP_PT_REGS_ARG_OFF(3) &&
		       __builtin_offsetof(struct abi_regs, r8) == KSNOOP_PT_REGS_ARG_OFF(4) &&
		       __builtin_offsetof(struct abi_regs, r9) == KSNOOP_PT_REGS_ARG_OFF(5) &&
		       __builtin_offsetof(struct abi_regs, ax) == KSNOOP_PT_REGS_RET_OFF,
	       "the register offsets user space writes programs with");

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	const struct abi_regs *u = (void *)ctx;

	r->arg[0] = u->di;
	r->arg[1] = u->si;
	r->arg[2] = u->dx;
	r->arg[3] = u->cx;
	r->arg[4] = u->r8;
	r->arg[5] = u->r9;
	r->sp = u->sp;
	r->rc = u->ax;
}

/*
 * A system call's arguments and number from its pt_regs, as the ABI
 * passes them (rdi, rsi, rdx, r10, r8, r9; orig_ax): the run of the frame
 * from r10 to orig_ax, read at once.
 */
struct syscall_regs {
	__u64 r10, r9, r8, ax, cx, dx, si, di, orig_ax;
};

_Static_assert(__builtin_offsetof(struct abi_regs, orig_ax) -
			       __builtin_offsetof(struct abi_regs, r10) ==
		       __builtin_offsetof(struct syscall_regs, orig_ax),
	       "the syscall registers are one run of the frame");

static __always_inline bool read_syscall(const void *regs, __u64 args[6], __u64 *nr)
{
	struct syscall_regs s;

	if (bpf_probe_read_kernel(&s, sizeof(s), regs + __builtin_offsetof(struct abi_regs, r10)))
		return false;
	args[0] = s.di;
	args[1] = s.si;
	args[2] = s.dx;
	args[3] = s.r10;
	args[4] = s.r8;
	args[5] = s.r9;
	*nr = s.orig_ax;
	return true;
}

/* At a function's first instruction its caller is on top of the stack (a uprobe's: the user's). */
static __always_inline __u64 entry_ra(struct regs *r)
{
	__u64 ra = 0;

	if (KSNOOP_IS_USER_ADDR(r->sp))
		bpf_probe_read_user(&ra, sizeof(ra), (void *)r->sp);
	else
		bpf_probe_read_kernel(&ra, sizeof(ra), (void *)r->sp);
	return ra;
}
#endif

/*
 * Before bpf_get_func_arg and bpf_get_func_ret (5.17), a trampoline's
 * register arguments and return value, copied like a kprobe's. Copied by
 * the helper, not loaded: the verifier types a pointer loaded from the
 * context by the function's BTF and refuses the arithmetic plans do on
 * it (5.10: "pointer arithmetic with <<= operator prohibited"). nargs is a
 * constant of the instance's plan (cfg_const), so the sizes are too.
 */
static __always_inline void save_tramp_regs(void *ctx, struct regs *r, __u32 nargs, bool ret)
{
	__u32 n = nargs < KSNOOP_REG_ARGS ? nargs : KSNOOP_REG_ARGS;

	if (n)
		bpf_probe_read_kernel(r->arg, n * 8, ctx);
	if (ret && nargs <= KSNOOP_MAX_ARGS)
		bpf_probe_read_kernel(&r->rc, 8, (char *)ctx + nargs * 8);
}

/*
 * A tracepoint's arguments, as its BPF stub's parameters (the plan's, see
 * src/trace/tpoint.h): the stub's first, __data, is none of the
 * tracepoint's, so they go one slot along, into all 8 of arg[] (get_arg()
 * reads them there for PK_TP). Those past them are read from the context
 * through sp, as a kprobe's stack arguments are from the stack; the
 * context's address is copied, not loaded, so that it is a number the
 * verifier lets get_arg() add to.
 */
#define TP_REG_ARGS 8

static __always_inline void save_tp_regs(void *ctx, struct regs *r, __u32 nargs)
{
	__u32 n = nargs <= TP_REG_ARGS ? nargs - 1 : TP_REG_ARGS - 1;
	void *args = ctx;

	if (nargs < 2)
		return;
	if (n && n < TP_REG_ARGS)
		bpf_probe_read_kernel(&r->arg[1], n * 8, ctx);
	if (nargs <= TP_REG_ARGS)
		return;
	bpf_probe_read_kernel(&r->sp, sizeof(r->sp), &args);
	r->sp += (TP_REG_ARGS - 1) * 8 - STACK_ARG_OFF(TP_REG_ARGS);
}

enum prog_kind { PK_FENTRY, PK_FEXIT, PK_KPROBE, PK_KRETPROBE, PK_TP, PK_PROFILE };

#endif /* KSNOOP_TRACE_REGS_H */
