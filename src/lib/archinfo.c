// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/arch.h"
#include "lib/archinfo.h"
#include "lib/util.h"

/* arch/x86/kernel/ptrace.c regoffset_table, in struct pt_regs order. */
static const struct arch_reg x86_regs[] = {
	{ "r15", 0 },	 { "r14", 1 }, { "r13", 2 }, { "r12", 3 },	{ "bp", 4 },  { "bx", 5 },
	{ "r11", 6 },	 { "r10", 7 }, { "r9", 8 },  { "r8", 9 },	{ "ax", 10 }, { "cx", 11 },
	{ "dx", 12 },	 { "si", 13 }, { "di", 14 }, { "orig_ax", 15 }, { "ip", 16 }, { "cs", 17 },
	{ "flags", 18 }, { "sp", 19 }, { "ss", 20 },
};

/* arch/arm64/kernel/ptrace.c: x0..x29, lr (x30), sp, pc, pstate. */
static const struct arch_reg arm64_regs[] = {
	{ "x0", 0 },   { "x1", 1 },   { "x2", 2 },   { "x3", 3 },      { "x4", 4 },   { "x5", 5 },
	{ "x6", 6 },   { "x7", 7 },   { "x8", 8 },   { "x9", 9 },      { "x10", 10 }, { "x11", 11 },
	{ "x12", 12 }, { "x13", 13 }, { "x14", 14 }, { "x15", 15 },    { "x16", 16 }, { "x17", 17 },
	{ "x18", 18 }, { "x19", 19 }, { "x20", 20 }, { "x21", 21 },    { "x22", 22 }, { "x23", 23 },
	{ "x24", 24 }, { "x25", 25 }, { "x26", 26 }, { "x27", 27 },    { "x28", 28 }, { "x29", 29 },
	{ "lr", 30 },  { "sp", 31 },  { "pc", 32 },  { "pstate", 33 },
};

static const struct arch x86_64 = {
	.name = "x86-64",
	.regs = x86_regs,
	.nr_regs = ARRAY_SIZE(x86_regs),
	.arg_slots = { 14, 13, 12, 11, 9, 8 }, /* di si dx cx r8 r9 */
	.nr_reg_args = 6,
	.sp = 19,
	.ret = 10,
	.pc = 16,
	/* ax dx cx bx si di bp sp r8..r15 ip */
	.dwarf_slots = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16 },
	.nr_dwarf = 17,
	/* regs_get_kernel_argument: the 7th is $stack1, past the return address */
	.stack_arg_base = 6,
	.arg_hint = "%di, %si, %dx, %cx, %r8, %r9",
	.entry_window = 4,
	.entry_insns = {
		{ 0xf3, 0x0f, 0x1e, 0xfa }, /* endbr64 */
		{ 0xf3, 0x0f, 0x1e, 0xfb }, /* endbr32 */
		{ 0x66, 0x0f, 0x1f, 0x00 }, /* its poison from 6.11: osp nopl (%rax) */
		{ 0x0f, 0x1f, 0x40, 0xd6 }, /* and before: nopl -42(%rax) */
	},
	/* Linux 6.6 taught them to read the stack */
	.tramp_args_why = "x86-64 BPF trampolines take at most 6 before Linux 6.6",
	/* x86-64 had direct calls before ftrace_ops said so */
	.direct_call_struct = NULL,
	.kernel_addr_bit = -1,
	.user_addr_end = KSNOOP_X86_USER_ADDR_END,
};

static const struct arch arm64 = {
	.name = "arm64",
	.regs = arm64_regs,
	.nr_regs = ARRAY_SIZE(arm64_regs),
	.arg_slots = { 0, 1, 2, 3, 4, 5, 6, 7 },
	.nr_reg_args = 8,
	.sp = 31,
	.ret = 0,
	.pc = 32,
	/* x0..x30, sp */
	.dwarf_slots = { 0,  1,	 2,  3,	 4,  5,	 6,  7,	 8,  9,	 10, 11, 12, 13, 14, 15,
			 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
	.nr_dwarf = 32,
	.stack_arg_base = -1, /* arm64 reads arguments past x7 as 0 */
	.arg_hint = "%x0 to %x7",
	.tramp_args_why = "arm64 BPF trampolines take at most 8",
	/*
	 * arm64 attaches trampolines through ftrace direct calls, which came
	 * after ftrace_ops gained direct_call: Debian's 6.12 has it, its 6.1
	 * fails every fentry attach with ENOTSUPP.
	 */
	.direct_call_struct = "ftrace_ops",
	.direct_call_member = "direct_call",
	.kernel_addr_bit = KSNOOP_ARM64_KERNEL_ADDR_BIT,
};

const struct arch *arch_native(void)
{
#ifdef KSNOOP_ARCH_ARM64
	return &arm64;
#else
	return &x86_64;
#endif
}

const struct arch *arch_foreign(void)
{
#ifdef KSNOOP_ARCH_ARM64
	return &x86_64;
#else
	return &arm64;
#endif
}

int arch_reg(const struct arch *a, const char *name, int len)
{
	int i;

	for (i = 0; i < a->nr_regs; i++) {
		if ((int)strlen(a->regs[i].name) == len && !strncmp(a->regs[i].name, name, len))
			return a->regs[i].slot;
	}
	return -1;
}

const char *arch_arg_reg(const struct arch *a, int idx)
{
	int i;

	if (idx < 0 || idx >= a->nr_reg_args)
		return NULL;
	for (i = 0; i < a->nr_regs; i++) {
		if (a->regs[i].slot == a->arg_slots[idx])
			return a->regs[i].name;
	}
	return NULL;
}

bool arch_is_user_addr(const struct arch *a, unsigned long long addr)
{
	if (a->kernel_addr_bit >= 0)
		return !(addr >> a->kernel_addr_bit & 1);
	return addr < a->user_addr_end;
}
