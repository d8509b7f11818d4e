// SPDX-License-Identifier: GPL-2.0
/* json_writer.c: commas, nesting, escaping and its bounds. */
#include "testutil.h"
#include "lib/json_writer.h"

static void test_nesting_and_commas(void **state)
{
	struct strbuf sb;
	struct jw w;

	(void)state;
	sb_init(&sb);
	jw_init(&w, &sb);
	jw_object(&w);
	jw_kstr(&w, "name", "ip_send_skb");
	jw_key(&w, "args");
	jw_array(&w);
	jw_object(&w);
	jw_kstr(&w, "name", "skb");
	jw_kint(&w, "size", -8);
	jw_end(&w);
	jw_uint(&w, 18446744073709551615ULL);
	jw_null(&w);
	jw_array(&w);
	jw_end(&w);
	jw_end(&w);
	jw_kbool(&w, "ok", false);
	jw_key(&w, "raw");
	jw_raw(&w, "%.3f", 1.5);
	jw_kuint(&w, "n", 7);
	jw_end(&w);
	assert_string_equal(sb_str(&sb),
			    "{\"name\":\"ip_send_skb\",\"args\":[{\"name\":\"skb\",\"size\":-8},"
			    "18446744073709551615,null,[]],\"ok\":false,\"raw\":1.500,\"n\":7}");
	/* ends past the outermost write nothing */
	jw_end(&w);
	assert_int_equal(sb.len, strlen(sb_str(&sb)));
	assert_string_equal(sb_str(&sb) + sb.len - 1, "}");
	sb_free(&sb);
}

static void test_escaping(void **state)
{
	struct strbuf sb;
	struct jw w;

	(void)state;
	sb_init(&sb);
	jw_init(&w, &sb);
	jw_array(&w);
	jw_str(&w, "a\"b\\c\n\x01\x7f\xc3\xa9");
	jw_strn(&w, "abcdef", 3);
	jw_strn(&w, NULL, 3);
	jw_end(&w);
	assert_string_equal(sb_str(&sb),
			    "[\"a\\\"b\\\\c\\u000a\\u0001\\u007f\\u00c3\\u00a9\",\"abc\",null]");
	sb_free(&sb);
}

/* An object closed after a key writes null for the missing value. */
static void test_key_without_value(void **state)
{
	struct strbuf sb;
	struct jw w;

	(void)state;
	sb_init(&sb);
	jw_init(&w, &sb);
	jw_object(&w);
	jw_key(&w, "a");
	jw_end(&w);
	assert_string_equal(sb_str(&sb), "{\"a\":null}");
	sb_free(&sb);
}

/* Past JW_MAX_DEPTH: one null, the deeper writes and their ends dropped. */
static void test_depth_bound(void **state)
{
	struct strbuf sb;
	struct jw w;
	int i;

	(void)state;
	sb_init(&sb);
	jw_init(&w, &sb);
	for (i = 0; i < JW_MAX_DEPTH + 3; i++)
		jw_array(&w);
	jw_int(&w, 1);
	jw_object(&w);
	jw_kint(&w, "x", 2);
	jw_end(&w);
	for (i = 0; i < JW_MAX_DEPTH + 3; i++)
		jw_end(&w);
	jw_int(&w, 3);
	assert_int_equal(sb.len, 2 * JW_MAX_DEPTH + 4 + 1);
	assert_int_equal(strncmp(sb_str(&sb) + JW_MAX_DEPTH, "null]", 5), 0);
	assert_string_equal(sb_str(&sb) + sb.len - 2, "]3");
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_key_without_value),
		cmocka_unit_test(test_depth_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
