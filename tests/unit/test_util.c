// SPDX-License-Identifier: GPL-2.0
/* util.c: parse_long, strbuf, edit_distance, name lists, str_clip, p_err. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>

#include "testutil.h"
#include "lib/util.h"

static void test_parse_long_ok(void **state)
{
	long long v;

	(void)state;
	assert_int_equal(parse_long("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_long("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_long("-7", -10, 10, &v), 0);
	assert_int_equal(v, -7);
	/* decimal only: a leading 0 is no octal prefix */
	assert_int_equal(parse_long("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_long("080", 0, 100, &v), 0);
	assert_int_equal(v, 80);
	assert_int_equal(parse_long("-010", -100, 100, &v), 0);
	assert_int_equal(v, -10);
	assert_int_equal(parse_long("+5", 0, 10, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(parse_long("9223372036854775807", 0, LLONG_MAX, &v), 0);
	assert_true(v == LLONG_MAX);
	assert_int_equal(parse_long("-9223372036854775808", LLONG_MIN, 0, &v), 0);
	assert_true(v == LLONG_MIN);
	/* the bounds are inclusive */
	assert_int_equal(parse_long("10", 1, 10, &v), 0);
	assert_int_equal(parse_long("1", 1, 10, &v), 0);
}

static void test_parse_long_bad(void **state)
{
	long long v = 1234;

	(void)state;
	assert_int_equal(parse_long(NULL, 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("abc", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("12abc", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_long("5 ", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long(" 5", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("\t5", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("1.5", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("0x", 0, 10, &v), -EINVAL);
	assert_int_equal(parse_long("0x10", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_long("0X1", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_long("0b1", 0, 100, &v), -EINVAL);
	assert_int_equal(parse_long("11", 0, 10, &v), -ERANGE);
	assert_int_equal(parse_long("0", 1, 10, &v), -ERANGE);
	assert_int_equal(parse_long("-1", 0, 10, &v), -ERANGE);
	assert_int_equal(parse_long("9223372036854775808", 0, LLONG_MAX, &v), -ERANGE);
	assert_int_equal(parse_long("99999999999999999999999", 0, LLONG_MAX, &v), -ERANGE);
	/* the output is untouched on failure */
	assert_int_equal(v, 1234);
}

/* The drop lines of trace, probe, count and hist: nonzero counts only. */
static void test_sb_counts(void **state)
{
	const char *names[] = { "ring buffer full", "key table full", "no stack" };
	uint64_t counts[] = { 3, 0, 1 }, none[] = { 0, 0, 0 };
	struct strbuf sb;
	char *s;

	(void)state;
	sb_init(&sb);
	assert_int_equal(sb_counts(&sb, counts, names, 3), 4);
	s = sb_take(&sb);
	assert_string_equal(s, "3 ring buffer full, 1 no stack");
	free(s);
	sb_init(&sb);
	assert_int_equal(sb_counts(&sb, counts, names, 1), 3);
	assert_string_equal(sb_str(&sb), "3 ring buffer full");
	sb_reset(&sb);
	assert_int_equal(sb_counts(&sb, none, names, 3), 0);
	assert_string_equal(sb_str(&sb), "");
	sb_free(&sb);
}

static void test_strbuf(void **state)
{
	struct strbuf sb;
	int i;

	(void)state;
	sb_init(&sb);
	assert_string_equal(sb_str(&sb), "");
	sb_printf(&sb, "%s=%d", "x", 5);
	sb_putc(&sb, ';');
	sb_write(&sb, "abc", 2);
	assert_string_equal(sb_str(&sb), "x=5;ab");
	assert_int_equal(sb.len, 6);
	sb_reset(&sb);
	assert_string_equal(sb_str(&sb), "");
	assert_int_equal(sb.len, 0);
	/* growth well past the first allocation */
	for (i = 0; i < 10000; i++)
		sb_putc(&sb, 'a' + i % 26);
	assert_int_equal(sb.len, 10000);
	assert_int_equal(strlen(sb_str(&sb)), 10000);
	assert_int_equal(sb_str(&sb)[9999], 'a' + 9999 % 26);
	sb_printf(&sb, "%5000s", "");
	assert_int_equal(sb.len, 15000);
	sb_free(&sb);
	assert_string_equal(sb_str(&sb), "");
	/* an empty printf still gives a valid string */
	sb_printf(&sb, "%s", "");
	assert_string_equal(sb_str(&sb), "");
	sb_free(&sb);
}

static void test_names_sort_unique(void **state)
{
	const char *in[] = { "udp_rcv", "ip_output", "udp_rcv", "consume_skb", "ip_output" };
	const char **names = NULL;
	size_t cap = 0, n = 0, i;

	(void)state;
	assert_int_equal(names_sort_unique(NULL, 0), 0);
	for (i = 0; i < 5; i++) {
		names = names_push(names, &cap, n++, in[i]);
		assert_non_null(names);
	}
	assert_int_equal(names_sort_unique(names, n), 3);
	assert_string_equal(names[0], "consume_skb");
	assert_string_equal(names[1], "ip_output");
	assert_string_equal(names[2], "udp_rcv");
	free(names);
}

static void test_edit_distance(void **state)
{
	char a[300], b[300];

	(void)state;
	assert_int_equal(edit_distance("", "", 3), 0);
	assert_int_equal(edit_distance("abc", "abc", 3), 0);
	assert_int_equal(edit_distance("abc", "abd", 3), 1);  /* substitution */
	assert_int_equal(edit_distance("abc", "abcd", 3), 1); /* insertion */
	assert_int_equal(edit_distance("abcd", "abc", 3), 1); /* deletion */
	assert_int_equal(edit_distance("", "abc", 3), 3);
	assert_int_equal(edit_distance("kitten", "sitting", 5), 3);
	assert_int_equal(edit_distance("ip_send_skbb", "ip_send_skb", 4), 1);
	assert_int_equal(edit_distance("tcp_sendmsg_lockd", "tcp_sendmsg_locked", 4), 1);
	/* capped: anything beyond cap comes back as cap + 1 */
	assert_int_equal(edit_distance("kitten", "sitting", 2), 3);
	assert_int_equal(edit_distance("abc", "xyz", 1), 2);
	assert_int_equal(edit_distance("a", "abcdefgh", 2), 3);
	assert_int_equal(edit_distance("abcdefgh", "a", 2), 3);
	assert_int_equal(edit_distance("abc", "abc", 0), 0);
	assert_int_equal(edit_distance("abc", "abd", 0), 1);
	/* very long strings are refused rather than costing O(n*m) */
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	assert_int_equal(edit_distance(a, b, 4), 5);
	a[256] = '\0';
	b[256] = '\0';
	assert_int_equal(edit_distance(a, b, 4), 0);
}

static void test_str_clip(void **state)
{
	char buf[CLIP_BUF], in[200];
	const char *r;

	(void)state;
	assert_string_equal(str_clip("short", buf), "short");
	assert_string_equal(str_clip("", buf), "");
	memset(in, 'x', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	in[CLIP_MAX] = '\0';
	/* exactly CLIP_MAX characters are kept whole, and not copied */
	assert_ptr_equal(str_clip(in, buf), in);
	in[CLIP_MAX] = 'y';
	r = str_clip(in, buf);
	assert_ptr_equal(r, buf);
	assert_int_equal(strlen(r), CLIP_MAX + 3);
	assert_string_equal(r + CLIP_MAX, "...");
	assert_int_equal(r[CLIP_MAX - 1], 'x');
}

/* What p_err("%s", msg) writes to stderr (in JSON mode if json). */
static const char *captured_err(bool json, const char *msg)
{
	static char out[512];
	struct stderr_capture cap;

	stderr_capture_begin(&cap);
	util_set_json(json);
	p_err("%s", msg);
	util_set_json(false);
	stderr_capture_end(&cap, out, sizeof(out));
	return out;
}

/* Control and non-ASCII bytes of any message never reach the terminal. */
static void test_err_printable(void **state)
{
	(void)state;
	assert_string_equal(captured_err(false, "spec 'a\033[2Jb\n\xff\t'"),
			    "Error: spec 'a?[2Jb\?\?\?'\n");
	assert_string_equal(captured_err(false, "\x7f\x9b"
						"31m"),
			    "Error: \?\?31m\n");
	assert_string_equal(captured_err(true, "x \"\033]0;t\007\""),
			    "{\"error\": \"x \\\"?]0;t?\\\"\"}\n");
	assert_string_equal(captured_err(false, "plain ~!@#$%^&*()"), "Error: plain ~!@#$%^&*()\n");
}

/* However long the input quoted in it, an error is one short line. */
static void test_err_bounded(void **state)
{
	static char msg[100000], out[120000];
	struct stderr_capture cap;
	size_t len;

	(void)state;
	memset(msg, 'a', sizeof(msg) - 1);
	stderr_capture_begin(&cap);
	p_err("cannot write %s: %s", msg, "No such file or directory");
	stderr_capture_end(&cap, out, sizeof(out));
	len = strlen(out);
	assert_true(len < 300);
	assert_int_equal(strncmp(out, "Error: cannot write aaa", 23), 0);
	assert_string_equal(out + len - 4, "...\n");
	assert_int_equal(strchr(out, '\n') - out, len - 1);
}

/* What fput_c_escaped writes for s[0..max), and c_escaped_len agrees. */
static const char *c_escaped(const char *s, size_t max)
{
	static char out[256];
	FILE *f;

	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out), "w");
	assert_non_null(f);
	fput_c_escaped(f, s, max);
	fclose(f);
	assert_int_equal(c_escaped_len(s, max), strlen(out));
	return out;
}

/* Text output's one way to show a string's bytes: as C writes them. */
static void test_c_escaped(void **state)
{
	(void)state;
	assert_string_equal(c_escaped("plain text", 99), "plain text");
	assert_string_equal(c_escaped("a\"b\\c\nd\te\x80", 99), "a\\\"b\\\\c\\nd\\x09e\\x80");
	assert_string_equal(c_escaped("\033[2J\x7f", 99), "\\x1b[2J\\x7f");
	assert_string_equal(c_escaped("abc\033", 3), "abc");
	assert_string_equal(c_escaped("", 99), "");
}

/* Debug lines quote input too, under the same rule. */
static void test_dbg_printable(void **state)
{
	struct stderr_capture cap;
	char out[256];

	(void)state;
	stderr_capture_begin(&cap);
	util_set_debug(true);
	p_dbg("'%s' matched %d functions", "a\033[2J", 3);
	util_set_debug(false);
	p_dbg("not shown");
	stderr_capture_end(&cap, out, sizeof(out));
	assert_string_equal(out, "debug: 'a?[2J' matched 3 functions\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_long_ok), cmocka_unit_test(test_parse_long_bad),
		cmocka_unit_test(test_strbuf),	      cmocka_unit_test(test_sb_counts),
		cmocka_unit_test(test_edit_distance), cmocka_unit_test(test_names_sort_unique),
		cmocka_unit_test(test_str_clip),      cmocka_unit_test(test_err_printable),
		cmocka_unit_test(test_dbg_printable), cmocka_unit_test(test_err_bounded),
		cmocka_unit_test(test_c_escaped),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
