// SPDX-License-Identifier: GPL-2.0
/* bpf/lib/intcmp.h, the predicates' integer comparison, on the host. */
#include <stdbool.h>
#include <linux/types.h>

#include "testutil.h"
#include "lib/intcmp.h"

static void test_widths(void **state UNUSED)
{
	/* an int's -1 is 0xffffffff in a u64 slot: signed, it is below 0 */
	assert_true(intcmp(INTCMP_LT, 0xffffffffULL, 0, 32, true));
	assert_false(intcmp(INTCMP_LT, 0xffffffffULL, 0, 32, false));
	assert_true(intcmp(INTCMP_EQ, 0xffffffffULL, (__u64)-1, 32, true));
	/* bits above the width are not the value's: masked when unsigned */
	assert_true(intcmp(INTCMP_EQ, 0xab00000003ULL, 3, 32, false));
	assert_true(intcmp(INTCMP_EQ, 0x1ff, 0xff, 8, false));
	assert_true(intcmp(INTCMP_EQ, 0x1ff, (__u64)-1, 8, true));
	/* a 3-bit field holding 7 is -1 signed, 7 unsigned */
	assert_true(intcmp(INTCMP_EQ, 7, 7, 3, false));
	assert_true(intcmp(INTCMP_EQ, 7, (__u64)-1, 3, true));
	/* 0 and 64 bits take the whole value */
	assert_true(intcmp(INTCMP_GT, ~0ULL, 1, 64, false));
	assert_true(intcmp(INTCMP_LT, ~0ULL, 1, 0, true));
}

static void test_ops(void **state UNUSED)
{
	assert_true(intcmp(INTCMP_EQ, 5, 5, 32, false));
	assert_true(intcmp(INTCMP_NE, 5, 6, 32, false));
	assert_true(intcmp(INTCMP_LE, 5, 5, 32, true));
	assert_false(intcmp(INTCMP_LT, 5, 5, 32, true));
	assert_true(intcmp(INTCMP_GE, 5, 5, 32, false));
	assert_false(intcmp(INTCMP_GT, 5, 5, 32, false));
	assert_true(intcmp(INTCMP_BAND, 0x12, 0x10, 8, false));
	assert_false(intcmp(INTCMP_BAND, 0x12, 0x01, 8, false));
	assert_false(intcmp(99, 5, 5, 32, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
