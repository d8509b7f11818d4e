// SPDX-License-Identifier: GPL-2.0
/*
 * ringbuf: the window the reader maps for a record, against the kernel's
 * layout (the data twice in a row, 2 * ring bytes). The reading itself is
 * tested on a real ring in tests/host/ringbuf.sh.
 */
#include "testutil.h"
#include "lib/ringbuf.h"

#define PAGE 4096u
#define KIB 1024u
#define MIB (1024u * 1024u)

static void span(size_t off, size_t len, size_t ring, size_t window, size_t want_start,
		 size_t want_len)
{
	size_t start = 1, length = 1;

	assert_int_equal(rb_window_span(off, len, ring, window, PAGE, &start, &length), 0);
	assert_int_equal(start, want_start);
	assert_int_equal(length, want_len);
}

static void test_window_starts_at_the_records_page(void **state UNUSED)
{
	span(0, 8, 32 * MIB, MIB, 0, MIB);
	span(PAGE + 40, 8, 32 * MIB, MIB, PAGE, MIB);
	span(5 * MIB + 123, 200, 32 * MIB, MIB, 5 * MIB, MIB);
}

static void test_a_wrapping_record_reads_the_second_copy(void **state UNUSED)
{
	/* 64 bytes before the end: the window runs on into the second copy. */
	span(32 * MIB - 64, 4000, 32 * MIB, MIB, 32 * MIB - PAGE, MIB);
}

static void test_a_long_record_widens_the_window(void **state UNUSED)
{
	span(100, 3 * MIB, 32 * MIB, MIB, 0, 3 * MIB + PAGE);
	span(PAGE - 8, PAGE + 16, 64 * KIB, 8 * KIB, 0, 3 * PAGE);
}

static void test_the_window_never_passes_the_doubled_area(void **state UNUSED)
{
	/* The last page of the ring: only a page of the first copy plus one. */
	span(64 * KIB - 8, 8, 64 * KIB, 96 * KIB, 60 * KIB, 68 * KIB);
	span(64 * KIB - 8, 64 * KIB, 64 * KIB, 8 * KIB, 60 * KIB, 68 * KIB);
}

static void test_a_small_ring_is_mapped_whole(void **state UNUSED)
{
	span(0, 8, 256 * KIB, MIB, 0, 512 * KIB);
	span(200 * KIB, 100 * KIB, 256 * KIB, 512 * KIB, 0, 512 * KIB);
}

static void test_impossible_spans_are_refused(void **state UNUSED)
{
	size_t s, l;

	assert_int_equal(rb_window_span(64 * KIB, 8, 64 * KIB, 8 * KIB, PAGE, &s, &l), -1);
	assert_int_equal(rb_window_span(0, 64 * KIB + 1, 64 * KIB, 8 * KIB, PAGE, &s, &l), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_starts_at_the_records_page),
		cmocka_unit_test(test_a_wrapping_record_reads_the_second_copy),
		cmocka_unit_test(test_a_long_record_widens_the_window),
		cmocka_unit_test(test_the_window_never_passes_the_doubled_area),
		cmocka_unit_test(test_a_small_ring_is_mapped_whole),
		cmocka_unit_test(test_impossible_spans_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
