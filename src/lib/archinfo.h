/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What user space knows of each architecture, in one table: register names
 * of kprobe_events (regs_query_register_offset) as slots of struct pt_regs;
 * where functions keep their arguments, the stack pointer and the return
 * value; what BPF trampolines take; which addresses are user memory. BPF
 * programs take the build architecture's part from bpf/lib/arch.h, and
 * test_archinfo checks the two agree.
 */
#ifndef KSNOOP_LIB_ARCHINFO_H
#define KSNOOP_LIB_ARCHINFO_H

#include <stdbool.h>

struct arch_reg {
	const char *name;
	int slot; /* u64 index into struct pt_regs */
};

struct arch {
	const char *name; /* "x86-64", "arm64" */
	const struct arch_reg *regs;
	int nr_regs;
	int arg_slots[8]; /* $arg1.. in registers */
	int nr_reg_args;
	int sp, ret; /* $stack, $retval */
	int pc;	     /* the slot of the user pc, as --call-graph dwarf copies pt_regs */
	/*
	 * --call-graph dwarf: DWARF register n (the psABI's numbering, which
	 * libdw's unwinder takes) is in slot dwarf_slots[n], for n < nr_dwarf.
	 */
	signed char dwarf_slots[32];
	int nr_dwarf;
	/* $argN past the registers: *(sp + 8 * (N - stack_arg_base)), or 0 */
	int stack_arg_base;
	const char *arg_hint; /* "%di, %si, ..." for messages */
	/* fentry takes nr_reg_args arguments at most; why, for messages */
	const char *tramp_args_why;
	/*
	 * The BTF member whose presence says fentry can attach at all
	 * (struct, member), or NULL where every kernel can.
	 */
	const char *direct_call_struct, *direct_call_member;
	/*
	 * User memory: addresses with bit kernel_addr_bit clear, or where
	 * kernel_addr_bit is -1, those below user_addr_end.
	 */
	int kernel_addr_bit;
	unsigned long long user_addr_end;
	/*
	 * A kprobe entry_window bytes into a function that starts with one of
	 * entry_insns (x86-64's ENDBR64, or what the kernel wrote over it
	 * where IBT is off or the function sealed) is on its entry, as the
	 * kernel's arch_adjust_kprobe_addr() has it; 0: only at the start.
	 */
	int entry_window;
	unsigned char entry_insns[4][4];
};

/* The architecture ksnoop was built for. */
const struct arch *arch_native(void);

/* Whether addr is user memory on a (see kernel_addr_bit). */
bool arch_is_user_addr(const struct arch *a, unsigned long long addr);
/* The other one, to recognise its register names in errors. */
const struct arch *arch_foreign(void);

/* Slot of a register name (len bytes), or -1. */
int arch_reg(const struct arch *a, const char *name, int len);
/* Name of the register holding argument idx (0-based), or NULL. */
const char *arch_arg_reg(const struct arch *a, int idx);

#endif
