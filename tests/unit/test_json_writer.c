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
			    "[\"a\\\"b\\\\c\\u000a\\u0001\\u007f\xc3\xa9\",\"abc\",null]");
	sb_free(&sb);
}

/* s[0..max) as jw_escape writes it. */
static const char *escaped(const char *s, size_t max)
{
	static char out[256];
	struct strbuf sb;

	sb_init(&sb);
	jw_escape(&sb, s, max);
	snprintf(out, sizeof(out), "%s", sb_str(&sb));
	sb_free(&sb);
	return out;
}

/* Valid UTF-8 is kept as written; each byte of an invalid sequence is escaped. */
static void test_utf8(void **state)
{
	(void)state;
	/* 2, 3 and 4 bytes, at the edges of their ranges */
	assert_string_equal(escaped("/tmp/\xc3\xa9t\xc3\xa9.txt", 99),
			    "\"/tmp/\xc3\xa9t\xc3\xa9.txt\"");
	assert_string_equal(escaped("\xc2\xa0\xdf\xbf", 99), "\"\xc2\xa0\xdf\xbf\"");
	assert_string_equal(escaped("\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf", 99),
			    "\"\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf\"");
	assert_string_equal(escaped("\xed\x9f\xbf\xee\x80\x80", 99),
			    "\"\xed\x9f\xbf\xee\x80\x80\"");
	assert_string_equal(escaped("\xf0\x90\x80\x80\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", 99),
			    "\"\xf0\x90\x80\x80\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"");
	/* C1 controls are valid but reach a terminal as controls: escaped as themselves */
	assert_string_equal(escaped("\xc2\x9b"
				    "31m",
				    99),
			    "\"\\u009b31m\"");
	/* overlong forms */
	assert_string_equal(escaped("\xc0\xaf", 99), "\"\\u00c0\\u00af\"");
	assert_string_equal(escaped("\xc1\xbf", 99), "\"\\u00c1\\u00bf\"");
	assert_string_equal(escaped("\xe0\x9f\xbf", 99), "\"\\u00e0\\u009f\\u00bf\"");
	assert_string_equal(escaped("\xf0\x8f\xbf\xbf", 99), "\"\\u00f0\\u008f\\u00bf\\u00bf\"");
	/* UTF-16 surrogates, and past U+10FFFF */
	assert_string_equal(escaped("\xed\xa0\x80", 99), "\"\\u00ed\\u00a0\\u0080\"");
	assert_string_equal(escaped("\xed\xbf\xbf", 99), "\"\\u00ed\\u00bf\\u00bf\"");
	assert_string_equal(escaped("\xf4\x90\x80\x80", 99), "\"\\u00f4\\u0090\\u0080\\u0080\"");
	assert_string_equal(escaped("\xf5\x80\x80\x80", 99), "\"\\u00f5\\u0080\\u0080\\u0080\"");
	assert_string_equal(escaped("\xff\xfe", 99), "\"\\u00ff\\u00fe\"");
	/* truncated: by the end, by another byte, by the bound */
	assert_string_equal(escaped("a\xc3", 99), "\"a\\u00c3\"");
	assert_string_equal(escaped("\xe2\x82", 99), "\"\\u00e2\\u0082\"");
	assert_string_equal(escaped("\xe2\x82x\xc3\xa9", 99), "\"\\u00e2\\u0082x\xc3\xa9\"");
	assert_string_equal(escaped("\xf0\x9f\x98\x80", 3), "\"\\u00f0\\u009f\\u0098\"");
	assert_string_equal(escaped("\xc3\xa9", 1), "\"\\u00c3\"");
	/* a lone continuation byte */
	assert_string_equal(escaped("\x80"
				    "a\xbf",
				    99),
			    "\"\\u0080a\\u00bf\"");
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
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_key_without_value),
		cmocka_unit_test(test_depth_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
