// SPDX-License-Identifier: GPL-2.0
/* ktr/print_chrome.c: pairing CALL and RET per thread, and its bounds. */
#include <errno.h>

#include "testutil.h"
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

/* The JSON kdump --format=chrome makes of the trace image (malloc'd). */
static char *to_chrome(struct strbuf *trace)
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
	assert_int_equal(kdump_run(&c, r), 0);
	assert_int_equal(kdump_chrome__finish(c.emit_arg), 0);
	kdump_ctx_free(&c);
	ktr_reader__free(r);
	fclose(f);
	return text;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
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
	assert_int_equal(count(out, "\"name\":\"thread_name\""), 4);
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
	assert_int_equal(count(out, "\"ph\":\"X\""), KDUMP_CHROME_PENDING);
	assert_int_equal(count(out, "(not paired: more than 1024 threads were in calls)"), over);
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
	};

	return cmocka_run_group_tests_name("kdump_chrome", tests, NULL, NULL);
}
