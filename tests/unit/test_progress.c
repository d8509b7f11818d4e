// SPDX-License-Identifier: GPL-2.0
/*
 * progress: the exact bytes a terminal gets (rate limited, then cleared)
 * and that anything else gets none. A fake clock moves time by hand.
 */
#include "testutil.h"
#include "lib/progress.h"

static long long fake_now;

static long long fake_clock(void)
{
	return fake_now;
}

/* What a progress run wrote to its memory stream. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	fake_now = 1000;
}

static const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->buf;
}

static void capture_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

static void test_tty_rate_limited_then_cleared(void **state UNUSED)
{
	struct capture c;
	struct progress *p;

	capture_open(&c);
	p = progress__new_to(c.f, true, fake_clock, 5, "attaching", "functions");
	assert_non_null(p);
	progress__step(p); /* within the first interval: nothing yet */
	assert_string_equal(capture_text(&c), "");
	fake_now += PROGRESS_INTERVAL_NS;
	progress__step(p);
	assert_string_equal(capture_text(&c), "\rattaching 2/5 functions");
	fake_now += PROGRESS_INTERVAL_NS - 1;
	progress__step(p); /* one nanosecond short of the next interval */
	fake_now += 1;
	progress__step(p);
	fake_now += 3 * PROGRESS_INTERVAL_NS;
	progress__step(p);
	progress__done(p);
	assert_string_equal(capture_text(&c), "\rattaching 2/5 functions"
					      "\rattaching 4/5 functions"
					      "\rattaching 5/5 functions"
					      "\r\033[K");
	capture_close(&c);
}

/* Three steps gap ns apart, on a terminal or not, write nothing. */
static void three_steps_write_nothing(bool is_tty, long long gap)
{
	struct capture c;
	struct progress *p;
	int i;

	capture_open(&c);
	p = progress__new_to(c.f, is_tty, fake_clock, 3, "attaching", "functions");
	for (i = 0; i < 3; i++) {
		fake_now += gap;
		progress__step(p);
	}
	progress__clear(p);
	progress__done(p);
	assert_string_equal(capture_text(&c), "");
	capture_close(&c);
}

static void test_tty_quick_work_shows_nothing(void **state UNUSED)
{
	three_steps_write_nothing(true, PROGRESS_INTERVAL_NS / 4);
}

static void test_clear_before_an_error(void **state UNUSED)
{
	struct capture c;
	struct progress *p;

	capture_open(&c);
	p = progress__new_to(c.f, true, fake_clock, 9, "attaching", "functions");
	progress__clear(p); /* nothing shown yet: nothing to erase */
	fake_now += PROGRESS_INTERVAL_NS;
	progress__step(p);
	progress__clear(p);
	fputs("Error: x\n", c.f);
	progress__done(p); /* already erased */
	assert_string_equal(capture_text(&c), "\rattaching 1/9 functions\r\033[KError: x\n");
	capture_close(&c);
}

static void test_not_a_tty_gets_nothing(void **state UNUSED)
{
	three_steps_write_nothing(false, 2 * PROGRESS_INTERVAL_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tty_rate_limited_then_cleared),
		cmocka_unit_test(test_tty_quick_work_shows_nothing),
		cmocka_unit_test(test_clear_before_an_error),
		cmocka_unit_test(test_not_a_tty_gets_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
