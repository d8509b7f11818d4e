// SPDX-License-Identifier: GPL-2.0
/* ktr/print_chrome.c: pairing CALL and RET per thread, and its bounds. */
#include <errno.h>

#include "testutil.h"
#include "env.h"
#include "test_kdump_common.h"
#include "ktr/print.h"
#include "ktr/print_chrome.h"

/* A record of thread tid, which a THREAD record introduces each time. */
static void rec(struct strbuf *sb, unsigned int type, unsigned int tid, uint64_t ts,
		const void *payload, size_t len)
{
	ktr_encode_thread(sb, tid, TEST_PID, "unit", ts);
	ktr_encode(sb, type, tid, ts, payload, len);
}

static void call(struct strbuf *sb, unsigned int tid, uint64_t ts, const char *name)
{
	struct ktr_syscall c = { .code = ktr_sys_by_name(name), .nargs = KTR_SYSCALL_ARGS };

	c.args[0] = (__u64)-100; /* AT_FDCWD */
	rec(sb, KTR_SYSCALL, tid, ts, &c, sizeof(c));
}

static void ret(struct strbuf *sb, unsigned int tid, uint64_t ts, const char *name, int err)
{
	struct ktr_sysret r = { .code = ktr_sys_by_name(name), .error = err, .retval = -err };

	rec(sb, KTR_SYSRET, tid, ts, &r, sizeof(r));
}

/* The trace image's earliest record time, as kdump's first pass finds it. */
static uint64_t earliest(struct strbuf *trace)
{
	struct kdump_opts o;
	struct kdump_ctx c;
	struct ktr_reader *r;
	uint64_t ts = UINT64_MAX;

	kdump_opts_default(&o);
	kdump_ctx_init(&c, &o, NULL);
	r = ktr_reader__new_mem(trace->buf, trace->len, "t.ktr");
	assert_non_null(r);
	assert_int_equal(kdump_begin(&c, r), 0);
	c.emit = kdump_chrome__note_earliest;
	c.emit_arg = &ts;
	assert_int_equal(kdump_run(&c, r), 0);
	kdump_ctx_free(&c);
	ktr_reader__free(r);
	return ts;
}

/* The JSON kdump --format=chrome makes of the trace image (malloc'd); base: time 0 or NULL. */
static char *to_chrome_from(struct strbuf *trace, const uint64_t *base)
{
	struct kdump_opts o;
	struct kdump_ctx c;
	struct ktr_reader *r;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	kdump_opts_default(&o);
	kdump_ctx_init(&c, &o, f);
	r = ktr_reader__new_mem(trace->buf, trace->len, "t.ktr");
	assert_non_null(r);
	assert_int_equal(kdump_begin(&c, r), 0);
	c.emit = kdump_chrome__record;
	c.emit_arg = kdump_chrome__new(&c, f);
	assert_non_null(c.emit_arg);
	if (base)
		kdump_chrome__set_base(c.emit_arg, *base);
	assert_int_equal(kdump_run(&c, r), 0);
	assert_int_equal(kdump_chrome__finish(c.emit_arg), 0);
	kdump_ctx_free(&c);
	ktr_reader__free(r);
	fclose(f);
	return text;
}

static char *to_chrome(struct strbuf *trace)
{
	return to_chrome_from(trace, NULL);
}

static void test_pairs(void **state UNUSED)
{
	struct strbuf sb;
	char *out;

	test_trace_init(&sb);
	call(&sb, 43, 5000000, "openat");
	call(&sb, 44, 5000100, "read"); /* another thread, in between */
	rec(&sb, KTR_NAMEI, 43, 5000200, "does-not-exist", 14);
	ret(&sb, 43, 5002500, "openat", ENOENT);
	ret(&sb, 44, 5003000, "read", 0);
	call(&sb, 43, 5004000, "exit_group");
	call(&sb, 45, 5004001, "nanosleep"); /* open when the file ends */
	ret(&sb, 46, 5004003, "clone", 0);   /* no CALL */
	out = to_chrome(&sb);
	assert_non_null(strstr(out, "\n{\"name\":\"openat\",\"cat\":\"syscall\",\"ph\":\"X\","
				    "\"ts\":0.000,\"dur\":2.500,\"pid\":42,\"tid\":43,\"args\":{"
				    "\"args\":\"AT_FDCWD,0,0<O_RDONLY>\","
				    "\"ret\":\"-1 errno 2 ENOENT\",\"path\":\"does-not-exist\"}}"));
	assert_non_null(strstr(out, "{\"name\":\"read\",\"cat\":\"syscall\",\"ph\":\"X\","
				    "\"ts\":0.100,\"dur\":2.900,\"pid\":42,\"tid\":44,"));
	assert_non_null(strstr(out, "{\"name\":\"exit_group\",\"cat\":\"syscall\",\"ph\":\"i\","
				    "\"ts\":4.000,\"s\":\"t\",\"pid\":42,\"tid\":43,"));
	assert_non_null(strstr(out, "{\"name\":\"nanosleep\",\"cat\":\"syscall\",\"ph\":\"X\","
				    "\"ts\":4.001,\"dur\":0.002,"));
	assert_non_null(strstr(out, "\"ret\":\"(none: the trace ended first)\""));
	assert_non_null(
		strstr(out, "{\"name\":\"clone\",\"cat\":\"syscall\",\"ph\":\"i\","
			    "\"ts\":4.003,\"s\":\"t\",\"pid\":42,\"tid\":46,\"args\":{"
			    "\"args\":\"(no CALL of this thread in the trace)\",\"ret\":\"0\"}}"));
	assert_int_equal(count_of(out, "\"name\":\"thread_name\""), 4);
	free(out);
	sb_free(&sb);
}

/*
 * A file ktrace -a appended to after the clock went back: times count from
 * its earliest record, so the older session keeps its own times; read
 * without that first pass, the records before the first one are at 0, and
 * that is said.
 */
static void test_clock_set_back(void **state UNUSED)
{
	struct stderr_capture cap;
	uint64_t base;
	char err[512], *out;
	struct strbuf sb;

	test_trace_init(&sb);
	call(&sb, 43, 5000000, "openat");
	ret(&sb, 43, 5002500, "openat", ENOENT);
	call(&sb, 44, 4000000, "read");
	ret(&sb, 44, 4000900, "read", 0);
	base = earliest(&sb);
	assert_int_equal(base, 4000000);
	out = to_chrome_from(&sb, &base);
	assert_non_null(strstr(out, "{\"name\":\"openat\",\"cat\":\"syscall\",\"ph\":\"X\","
				    "\"ts\":1000.000,\"dur\":2.500,"));
	assert_non_null(strstr(out, "{\"name\":\"read\",\"cat\":\"syscall\",\"ph\":\"X\","
				    "\"ts\":0.000,\"dur\":0.900,"));
	free(out);
	stderr_capture_begin(&cap);
	out = to_chrome(&sb);
	stderr_capture_end(&cap, err, sizeof(err));
	assert_string_equal(err, "Warning: 2 records dated before the first one shown at time 0 "
				 "(the clock went back, or the trace was read from a pipe after "
				 "ktrace -a)\n");
	free(out);
	sb_free(&sb);
}

/* kdump --format=chrome of such a file: its first pass finds the earliest record. */
static void test_clock_set_back_file(void **state UNUSED)
{
	char dir[] = "/tmp/kdump-chrome.XXXXXX", in[64], out[64], *text = NULL;
	struct stderr_capture cap;
	struct env env = { 0 };
	struct strbuf sb;
	char err[512];
	size_t len = 0;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/t.ktr", dir);
	snprintf(out, sizeof(out), "%s/t.json", dir);
	test_trace_init(&sb);
	call(&sb, 43, 5000000, "openat");
	ret(&sb, 43, 5002500, "openat", ENOENT);
	call(&sb, 44, 4000000, "read");
	ret(&sb, 44, 4000900, "read", 0);
	f = fopen(in, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(sb.buf, 1, sb.len, f), sb.len);
	assert_int_equal(fclose(f), 0);
	stderr_capture_begin(&cap);
	assert_int_equal(
		cmd_kdump(&env, 5, (char *[]){ "--format=chrome", "-f", in, "-o", out, NULL }), 0);
	stderr_capture_end(&cap, err, sizeof(err));
	assert_string_equal(err, "");
	f = fopen(out, "r");
	assert_non_null(f);
	assert_int_equal(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	assert_non_null(strstr(text, "\"ts\":1000.000,\"dur\":2.500,"));
	assert_non_null(strstr(text, "\"ts\":0.000,\"dur\":0.900,"));
	free(text);
	unlink(in);
	unlink(out);
	rmdir(dir);
	sb_free(&sb);
}

/* A return dated before its call: duration 0, and said (it was silent). */
static void test_return_before_call(void **state UNUSED)
{
	struct stderr_capture cap;
	char err[512], *out;
	struct strbuf sb;

	test_trace_init(&sb);
	call(&sb, 44, 4000000, "read");
	ret(&sb, 44, 4000900, "read", 0);
	call(&sb, 43, 5000000, "openat");
	ret(&sb, 43, 4999999, "openat", 0);
	stderr_capture_begin(&cap);
	out = to_chrome(&sb);
	stderr_capture_end(&cap, err, sizeof(err));
	assert_non_null(strstr(out, "\"ts\":1000.000,\"dur\":0.000,"));
	assert_string_equal(err, "Warning: 1 system call returned before its call (the clock "
				 "went back): shown with duration 0\n");
	free(out);
	sb_free(&sb);
}

/* More threads in calls than the table holds: the rest are instants. */
static void test_pending_bound(void **state UNUSED)
{
	unsigned int i, over = 100;
	struct strbuf sb;
	char *out;

	test_trace_init(&sb);
	for (i = 0; i < KDUMP_CHROME_PENDING + over; i++)
		call(&sb, 1000 + i, 1000 + i, "read");
	out = to_chrome(&sb);
	assert_int_equal(count_of(out, "\"ph\":\"X\""), KDUMP_CHROME_PENDING);
	assert_int_equal(count_of(out, "(not paired: more than 1024 threads were in calls)"), over);
	free(out);
	sb_free(&sb);
}

/* A call gathers at most KDUMP_CHROME_CALL_MAX bytes of paths. */
static void test_call_bound(void **state UNUSED)
{
	char path[4000];
	struct strbuf sb;
	char *out, *end;
	int i;

	memset(path, 'p', sizeof(path));
	test_trace_init(&sb);
	call(&sb, 43, 1000, "openat");
	for (i = 0; i < 50; i++)
		rec(&sb, KTR_NAMEI, 43, 1000, path, sizeof(path));
	ret(&sb, 43, 2000, "openat", ENOENT);
	out = to_chrome(&sb);
	assert_non_null(strstr(out, "\"cut\":\"more than 16384 bytes of paths and data\""));
	/* strcspn, not strchr: GCC's ASan build misreads strchr's bound */
	end = out + 2 + strcspn(out + 2, "\n");
	end += 1 + strcspn(end + 1, "\n");
	assert_true(end - out < KDUMP_CHROME_CALL_MAX + 1000);
	assert_non_null(strstr(out, "\"path4\":"));
	assert_null(strstr(out, "\"path5\":"));
	free(out);
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_pending_bound),
		cmocka_unit_test(test_call_bound),
		cmocka_unit_test(test_clock_set_back),
		cmocka_unit_test(test_clock_set_back_file),
		cmocka_unit_test(test_return_before_call),
	};

	return cmocka_run_group_tests_name("kdump_chrome", tests, NULL, NULL);
}
