/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register names of kprobe_events (regs_query_register_offset) as slots
 * of struct pt_regs, and where each architecture keeps function
 * arguments, the stack pointer and the return value.
 */
#ifndef KSNOOP_KPE_ARCH_H
#define KSNOOP_KPE_ARCH_H

struct kpe_reg {
	const char *name;
	int slot; /* u64 index into struct pt_regs */
};

struct kpe_arch {
	const char *name; /* "x86-64", "arm64" */
	const struct kpe_reg *regs;
	int nr_regs;
	int arg_slots[8]; /* $arg1.. in registers */
	int nr_reg_args;
	int sp, ret; /* $stack, $retval */
	/* $argN past the registers: *(sp + 8 * (N - stack_arg_base)), or 0 */
	int stack_arg_base;
	const char *arg_hint; /* "%di, %si, ..." for messages */
};

/* The architecture ksnoop was built for. */
const struct kpe_arch *kpe_arch_native(void);
/* The other one, to recognise its register names in errors. */
const struct kpe_arch *kpe_arch_foreign(void);

/* Slot of a register name (len bytes), or -1. */
int kpe_arch_reg(const struct kpe_arch *a, const char *name, int len);
/* Name of the register holding argument idx (0-based), or NULL. */
const char *kpe_arch_arg_reg(const struct kpe_arch *a, int idx);

#endif
