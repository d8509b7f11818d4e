// SPDX-License-Identifier: GPL-2.0
/* bpf/lib/bucket.h, hist's buckets, on the host. */
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "testutil.h"
#include "lib/bucket.h"

/* --linear LO,HI,STEP as the backend sets it: nr = (HI - LO) / STEP. */
static __u32 lin(__u64 v, bool is_signed, __s64 lo, __s64 hi, __u64 step)
{
	return hist_bucket(v, is_signed, true, lo, step, (__u32)((hi - lo) / (__s64)step));
}

static void test_linear_unsigned_negative_lo(void **state UNUSED)
{
	/* --linear -10,100,10 of a latency in ms: [-10,0) is 1, [0,10) is 2 */
	assert_int_equal(lin(0, false, -10, 100, 10), 2);
	assert_int_equal(lin(5, false, -10, 100, 10), 2);
	assert_int_equal(lin(10, false, -10, 100, 10), 3);
	assert_int_equal(lin(89, false, -10, 100, 10), 10);
	assert_int_equal(lin(99, false, -10, 100, 10), 11);
	assert_int_equal(lin(100, false, -10, 100, 10), 12);
	/* never below a negative lo, and v - lo past 2^64 is above hi */
	assert_int_equal(lin(UINT64_MAX, false, -10, 100, 10), 12);
	assert_int_equal(lin(UINT64_MAX - 9, false, -10, 100, 10), 12);
	assert_int_equal(lin(1ULL << 63, false, -10, 100, 10), 12);
}

static void test_linear_unsigned(void **state UNUSED)
{
	assert_int_equal(lin(9, false, 10, 100, 10), 0);
	assert_int_equal(lin(10, false, 10, 100, 10), 1);
	assert_int_equal(lin(99, false, 10, 100, 10), 9);
	assert_int_equal(lin(100, false, 10, 100, 10), 10);
	assert_int_equal(lin(UINT64_MAX, false, 10, 100, 10), 10);
	/* at or above 2^63 is above hi, not a negative number below lo */
	assert_int_equal(lin(1ULL << 63, false, 0, 100, 10), 11);
}

static void test_linear_signed(void **state UNUSED)
{
	assert_int_equal(lin((__u64)-11, true, -10, 100, 10), 0);
	assert_int_equal(lin((__u64)-10, true, -10, 100, 10), 1);
	assert_int_equal(lin((__u64)-1, true, -10, 100, 10), 1);
	assert_int_equal(lin(0, true, -10, 100, 10), 2);
	assert_int_equal(lin(100, true, -10, 100, 10), 12);
	assert_int_equal(lin((__u64)INT64_MIN, true, -10, 100, 10), 0);
	assert_int_equal(lin((__u64)INT64_MAX, true, -10, 100, 10), 12);
	/* a range past 2^63: v - lo is exact in 64 bits */
	assert_int_equal(lin((__u64) - (1LL << 62), true, -(1LL << 62), 1LL << 61, 1ULL << 60), 1);
	assert_int_equal(lin((1ULL << 61) - 1, true, -(1LL << 62), 1LL << 61, 1ULL << 60), 6);
	assert_int_equal(lin((__u64)INT64_MAX, true, -(1LL << 62), 1LL << 61, 1ULL << 60), 7);
}

static void test_log2(void **state UNUSED)
{
	assert_int_equal(hist_bucket((__u64)-1, true, false, 0, 0, 0), 0);
	assert_int_equal(hist_bucket(0, false, false, 0, 0, 0), 1);
	assert_int_equal(hist_bucket(1, false, false, 0, 0, 0), 2);
	assert_int_equal(hist_bucket(3, false, false, 0, 0, 0), 3);
	assert_int_equal(hist_bucket(4, false, false, 0, 0, 0), 4);
	assert_int_equal(hist_bucket(UINT64_MAX, false, false, 0, 0, 0), 65);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_unsigned_negative_lo),
		cmocka_unit_test(test_linear_unsigned),
		cmocka_unit_test(test_linear_signed),
		cmocka_unit_test(test_log2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
