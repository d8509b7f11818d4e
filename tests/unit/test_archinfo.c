// SPDX-License-Identifier: GPL-2.0
/*
 * src/lib/archinfo.c, user space's table of each architecture, against
 * bpf/lib/arch.h, the constants BPF programs of this build read registers
 * and classify addresses with: the two must describe the same machine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "testutil.h"
#include "lib/arch.h"
#include "lib/archinfo.h"

static const struct arch *by_name(const char *name)
{
	if (!strcmp(arch_native()->name, name))
		return arch_native();
	assert_string_equal(arch_foreign()->name, name);
	return arch_foreign();
}

static void test_native_matches_bpf(void **state UNUSED)
{
	const struct arch *a = arch_native();
	int i;

	assert_int_equal(a->nr_reg_args, KSNOOP_REG_ARGS);
	for (i = 0; i < a->nr_reg_args; i++)
		assert_int_equal(a->arg_slots[i] * 8, KSNOOP_PT_REGS_ARG_OFF(i));
	assert_int_equal(a->ret * 8, KSNOOP_PT_REGS_RET_OFF);
#ifdef KSNOOP_ARCH_ARM64
	assert_string_equal(a->name, "arm64");
	assert_int_equal(a->kernel_addr_bit, KSNOOP_KERNEL_ADDR_BIT);
#else
	assert_string_equal(a->name, "x86-64");
	assert_int_equal(a->kernel_addr_bit, -1);
	assert_true(a->user_addr_end == KSNOOP_USER_ADDR_END);
#endif
}

/* The ptrace ABI's register numbers, as kprobe_events names them. */
static void test_registers(void **state UNUSED)
{
	const struct arch *x86 = by_name("x86-64"), *arm64 = by_name("arm64");

	assert_int_equal(arch_reg(x86, "di", 2), 14);
	assert_int_equal(arch_reg(x86, "ax", 2), x86->ret);
	assert_int_equal(arch_reg(x86, "sp", 2), x86->sp);
	assert_int_equal(arch_reg(x86, "x0", 2), -1);
	assert_int_equal(arch_reg(arm64, "x0", 2), arm64->ret);
	assert_int_equal(arch_reg(arm64, "sp", 2), arm64->sp);
	assert_int_equal(arch_reg(arm64, "lr", 2), 30);
	assert_int_equal(arch_reg(arm64, "di", 2), -1);
	/* a name is matched whole: "x1" is not "x10" */
	assert_int_equal(arch_reg(arm64, "x10", 2), 1);
	assert_int_equal(arch_reg(arm64, "x10", 3), 10);
	assert_string_equal(arch_arg_reg(x86, 0), "di");
	assert_string_equal(arch_arg_reg(x86, 3), "cx");
	assert_null(arch_arg_reg(x86, 6));
	assert_string_equal(arch_arg_reg(arm64, 7), "x7");
	assert_null(arch_arg_reg(arm64, 8));
	assert_null(arch_arg_reg(arm64, -1));
}

/* What fentry can take, and what says it can attach at all. */
static void test_trampolines(void **state UNUSED)
{
	const struct arch *x86 = by_name("x86-64"), *arm64 = by_name("arm64");

	assert_null(x86->direct_call_struct);
	assert_string_equal(arm64->direct_call_struct, "ftrace_ops");
	assert_string_equal(arm64->direct_call_member, "direct_call");
	assert_non_null(strstr(x86->tramp_args_why, "at most 6"));
	assert_non_null(strstr(arm64->tramp_args_why, "at most 8"));
	assert_int_equal(arm64->kernel_addr_bit, KSNOOP_ARM64_KERNEL_ADDR_BIT);
	assert_true(x86->user_addr_end == KSNOOP_X86_USER_ADDR_END);
}

/*
 * --call-graph dwarf's registers: each DWARF number names the slot of the
 * register the psABI gives it, and the copy BPF takes holds sp and pc
 * where user space looks.
 */
static void test_dwarf_registers(void **state UNUSED)
{
	const struct arch *x86 = by_name("x86-64"), *arm64 = by_name("arm64");
	const struct arch *a = arch_native();
	static const char *const x86_dwarf[] = { "ax",	"dx",  "cx",  "bx",  "si",  "di",
						 "bp",	"sp",  "r8",  "r9",  "r10", "r11",
						 "r12", "r13", "r14", "r15", "ip" };
	char name[8];
	int i;

	assert_int_equal(x86->nr_dwarf, ARRAY_SIZE(x86_dwarf));
	for (i = 0; i < x86->nr_dwarf; i++)
		assert_int_equal(x86->dwarf_slots[i],
				 arch_reg(x86, x86_dwarf[i], strlen(x86_dwarf[i])));
	assert_int_equal(x86->pc, arch_reg(x86, "ip", 2));
	assert_int_equal(arm64->nr_dwarf, 32);
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		assert_int_equal(arm64->dwarf_slots[i], arch_reg(arm64, name, strlen(name)));
	}
	assert_int_equal(arm64->dwarf_slots[30], arch_reg(arm64, "lr", 2));
	assert_int_equal(arm64->dwarf_slots[31], arch_reg(arm64, "sp", 2));
	assert_int_equal(arm64->pc, arch_reg(arm64, "pc", 2));
	assert_int_equal(a->sp * 8, KSNOOP_UREGS_SP_OFF);
	assert_int_equal(a->pc * 8, KSNOOP_UREGS_PC_OFF);
	assert_true(a->dwarf_slots[a->nr_dwarf - 1] * 8 < KSNOOP_UREGS_SIZE);
	assert_true(KSNOOP_UREGS_SIZE <= KSNOOP_UREGS_SIZE_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_matches_bpf),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_trampolines),
		cmocka_unit_test(test_dwarf_registers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
