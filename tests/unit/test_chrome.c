// SPDX-License-Identifier: GPL-2.0
/* lib/chrome.c: the exact Chrome Trace Event JSON of each kind of event. */
#include <errno.h>

#include "testutil.h"
#include "lib/chrome.h"

#define HEAD "{\"traceEvents\":["
#define TAIL "\n],\"displayTimeUnit\":\"ns\"}\n"

struct capture {
	FILE *f;
	char *text;
	size_t len;
	struct chrome *c;
};

static void begin(struct capture *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->f = open_memstream(&cap->text, &cap->len);
	assert_non_null(cap->f);
	cap->c = chrome__new(cap->f);
	assert_non_null(cap->c);
}

/* Finish, and the whole document must be want. */
static void end_equal(struct capture *cap, const char *want)
{
	assert_int_equal(chrome__finish(cap->c), 0);
	fclose(cap->f);
	assert_string_equal(cap->text, want);
	free(cap->text);
}

static void test_empty(void **state UNUSED)
{
	struct capture cap;

	begin(&cap);
	end_equal(&cap, HEAD TAIL);
}

static void test_complete(void **state UNUSED)
{
	struct chrome_event e = {
		.name = "openat",
		.cat = "syscall",
		.ts_ns = 1234567,
		.dur_ns = 89,
		.pid = 10,
		.tid = 11,
	};
	struct capture cap;

	begin(&cap);
	assert_int_equal(chrome__complete(cap.c, &e), 0);
	e.ts_ns = 2000000000123ULL;
	e.dur_ns = 0;
	e.cat = NULL;
	assert_int_equal(chrome__complete(cap.c, &e), 0);
	end_equal(&cap, HEAD "\n{\"name\":\"openat\",\"cat\":\"syscall\",\"ph\":\"X\","
			     "\"ts\":1234.567,\"dur\":0.089,\"pid\":10,\"tid\":11},"
			     "\n{\"name\":\"openat\",\"ph\":\"X\",\"ts\":2000000000.123,"
			     "\"dur\":0.000,\"pid\":10,\"tid\":11}" TAIL);
}

static void test_escaping(void **state UNUSED)
{
	struct chrome_arg kv[] = { { "path", "a\"b\\c\n" }, { "k\"ey", "\001" } };
	struct chrome_event e = {
		.name = "say \"hi\"\\", .ts_ns = 1000, .pid = 1, .tid = 2, .kv = kv, .nkv = 2
	};
	struct capture cap;

	begin(&cap);
	assert_int_equal(chrome__instant(cap.c, &e, 't'), 0);
	end_equal(&cap,
		  HEAD "\n{\"name\":\"say \\\"hi\\\"\\\\\",\"ph\":\"i\",\"ts\":1.000,"
		       "\"s\":\"t\",\"pid\":1,\"tid\":2,\"args\":{\"path\":\"a\\\"b\\\\c\\u000a\","
		       "\"k\\\"ey\":\"\\u0001\"}}" TAIL);
}

static void test_args_json(void **state UNUSED)
{
	struct chrome_arg kv[] = { { "ret", "-2 ENOENT" } };
	struct chrome_event e = { .name = "f",
				  .ts_ns = 5,
				  .dur_ns = 1500,
				  .pid = 3,
				  .tid = 3,
				  .args_json = "{\"x\":[1,{\"y\":null}],\"s\":\"}\"}" };
	struct capture cap;

	begin(&cap);
	assert_int_equal(chrome__complete(cap.c, &e), 0);
	e.kv = kv;
	e.nkv = 1;
	assert_int_equal(chrome__complete(cap.c, &e), 0);
	/* An empty object adds no members, nor an empty "args". */
	e.args_json = "{ }";
	e.nkv = 0;
	assert_int_equal(chrome__complete(cap.c, &e), 0);
	end_equal(&cap, HEAD "\n{\"name\":\"f\",\"ph\":\"X\",\"ts\":0.005,\"dur\":1.500,\"pid\":3,"
			     "\"tid\":3,\"args\":{\"x\":[1,{\"y\":null}],\"s\":\"}\"}},"
			     "\n{\"name\":\"f\",\"ph\":\"X\",\"ts\":0.005,\"dur\":1.500,\"pid\":3,"
			     "\"tid\":3,\"args\":{\"ret\":\"-2 ENOENT\",\"x\":[1,{\"y\":null}],"
			     "\"s\":\"}\"}},"
			     "\n{\"name\":\"f\",\"ph\":\"X\",\"ts\":0.005,\"dur\":1.500,\"pid\":3,"
			     "\"tid\":3}" TAIL);
}

static void test_refused(void **state UNUSED)
{
	struct chrome_event e = { .name = "f", .args_json = "[1]" };
	struct capture cap;
	char *big;

	begin(&cap);
	assert_int_equal(chrome__complete(cap.c, &e), -EINVAL);
	e.args_json = "{";
	assert_int_equal(chrome__complete(cap.c, &e), -EINVAL);
	e.args_json = NULL;
	assert_int_equal(chrome__instant(cap.c, &e, 'x'), -EINVAL);
	big = malloc(CHROME_ARGS_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', CHROME_ARGS_MAX + 1);
	big[0] = '{';
	big[CHROME_ARGS_MAX] = '}';
	big[CHROME_ARGS_MAX + 1] = '\0';
	e.args_json = big;
	assert_int_equal(chrome__complete(cap.c, &e), -EINVAL);
	free(big);
	/* Nothing of the refused events was written. */
	end_equal(&cap, HEAD TAIL);
}

static void test_bounded(void **state UNUSED)
{
	struct chrome_event e = { .pid = 1, .tid = 1 };
	struct capture cap;
	char *name;

	name = malloc(CHROME_NAME_MAX + 100);
	assert_non_null(name);
	memset(name, 'a', CHROME_NAME_MAX + 99);
	name[CHROME_NAME_MAX + 99] = '\0';
	e.name = name;
	begin(&cap);
	assert_int_equal(chrome__instant(cap.c, &e, 'g'), 0);
	assert_int_equal(chrome__finish(cap.c), 0);
	fclose(cap.f);
	/* The name is cut: exactly CHROME_NAME_MAX of its bytes are there. */
	assert_non_null(strstr(cap.text, name + 99));
	assert_null(strstr(cap.text, name + 98));
	free(cap.text);
	free(name);
}

static void test_metadata(void **state UNUSED)
{
	struct capture cap;

	begin(&cap);
	assert_int_equal(chrome__process_name(cap.c, 7, "cat"), 0);
	assert_int_equal(chrome__thread_name(cap.c, 7, 8, "wor\"ker"), 0);
	end_equal(&cap, HEAD "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":7,\"tid\":7,"
			     "\"args\":{\"name\":\"cat\"}},"
			     "\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":7,\"tid\":8,"
			     "\"args\":{\"name\":\"wor\\\"ker\"}}" TAIL);
}

static void test_write_error(void **state UNUSED)
{
	struct chrome_event e = { .name = "f" };
	FILE *full = fopen("/dev/full", "w");
	struct chrome *c;

	assert_non_null(full);
	setvbuf(full, NULL, _IONBF, 0);
	c = chrome__new(full);
	assert_non_null(c);
	chrome__complete(c, &e);
	assert_int_equal(chrome__finish(c), -EIO);
	fclose(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),	 cmocka_unit_test(test_complete),
		cmocka_unit_test(test_escaping), cmocka_unit_test(test_args_json),
		cmocka_unit_test(test_refused),	 cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_metadata), cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("chrome", tests, NULL, NULL);
}
