// SPDX-License-Identifier: GPL-2.0
/*
 * count's run loop (src/agg/cmd_agg.c) on the host: the session, the
 * probes and the kernel's maps are replaced (ld --wrap, see the Makefile's
 * WRAP_test_agg_run) by a fixed count table, so that only the loop runs.
 * A reader gone from stdout (| head) ends the run at once, exit 0, with
 * nothing said but the "Tracing" line.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "testutil.h"
#include "agg/agg.h"
#include "env.h"
#include "lib/util.h"
#include "trace/session.h"

int cmd_count(struct env *env, int argc, char **argv);

static struct agg_field fields[] = { { AGG_F_VALUE, "x" } };
static struct agg_val vals[] = { { .text = "1", .number = true } };
static struct agg_row rows[] = { { .key = vals, .count = 3 } };
static struct agg_table table = {
	.kind = AGG_COUNT,
	.func = "f",
	.fields = fields,
	.nr_fields = 1,
	.rows = rows,
	.nr_rows = 1,
};
static int nr_reads;

int __wrap_session__open(struct session *s, const struct session_opts *o)
{
	(void)o;
	memset(s, 0, sizeof(*s));
	return 0;
}

int __wrap_session__plan(struct session *s, int argc, char **argv, const struct plan_opts *po)
{
	(void)argc, (void)argv, (void)po;
	s->nr = 1;
	return 0;
}

int __wrap_agg_layout_plans(struct session *s, const struct agg_opts *a, struct tracer_agg *l)
{
	(void)s, (void)a, (void)l;
	return 0;
}

int __wrap_session__prepare(struct session *s, const struct tracer_opts *to)
{
	(void)s, (void)to;
	return 0;
}

int __wrap_session__attach(struct session *s)
{
	(void)s;
	return 0;
}

void __wrap_session__report_open_spans(const struct session *s)
{
	(void)s;
}

void __wrap_session__close(struct session *s)
{
	(void)s;
}

void __wrap_tracer__detach(struct tracer *t)
{
	(void)t;
}

struct agg_reader *__wrap_agg_reader__new(const struct session *s, const struct agg_opts *a,
					  const struct tracer_agg *l)
{
	(void)s, (void)a, (void)l;
	return (struct agg_reader *)&table;
}

void __wrap_agg_reader__prime(struct agg_reader *r, const pid_t *pids, int nr)
{
	(void)r, (void)pids, (void)nr;
}

void __wrap_agg_reader__free(struct agg_reader *r)
{
	(void)r;
}

int __wrap_agg_reader__wait(struct agg_reader *r, int timeout_ms)
{
	(void)r;
	poll(NULL, 0, timeout_ms);
	return 0;
}

void __wrap_agg_reader__note_pending(struct agg_reader *r)
{
	(void)r;
}

int __wrap_agg_read(struct agg_reader *r, struct agg_table ***tables, int *nr)
{
	(void)r;
	nr_reads++;
	*tables = malloc(sizeof(**tables));
	if (!*tables)
		return -ENOMEM;
	(*tables)[0] = &table;
	*nr = 1;
	return 0;
}

void __wrap_agg_tables_free(struct agg_table **tables, int nr)
{
	(void)nr;
	free(tables);
}

int __wrap_agg_read_drops(struct agg_reader *r, struct agg_drops *d)
{
	(void)r;
	memset(d, 0, sizeof(*d));
	return 0;
}

struct run_result {
	int ret, nr_reads;
	long long ms;
	bool closed;
	char err[512];
};

/*
 * count -i 100ms -d 5 f | head -1, the reader gone before the first table,
 * stdout buffered as mode says; in a child, as util's state of stdout is
 * once per process.
 */
static void run_count(int mode, struct run_result *res)
{
	struct env env = { .cpu = -1 };
	char *argv[] = { "f", NULL };
	struct stderr_capture cap;
	long long start;
	int fds[2];

	env.agg.interval_ns = 100000000ULL;
	/* before the fix the run went on until here: 5 s */
	env.agg.run_ns = 5000000000ULL;
	if (pipe(fds))
		_exit(1);
	close(fds[0]);
	fflush(stdout);
	setvbuf(stdout, NULL, mode, 1 << 16);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	stderr_capture_begin(&cap);
	start = clock_ns(CLOCK_MONOTONIC);
	res->ret = cmd_count(&env, 1, argv);
	/* as ksnoop_main ends */
	res->ret = finish_stdout() < 0 && !res->ret ? 1 : res->ret;
	res->ms = (clock_ns(CLOCK_MONOTONIC) - start) / 1000000;
	stderr_capture_end(&cap, res->err, sizeof(res->err));
	res->nr_reads = nr_reads;
	res->closed = stdout_closed();
}

static void expect_quiet_end(int mode)
{
	struct run_result *res =
		mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	assert_true(res != MAP_FAILED);
	res->ret = -1;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		run_count(mode, res);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(res->err, "Tracing 1 function... Hit Ctrl-C to end.\n");
	assert_int_equal(res->ret, 0);
	assert_true(res->closed);
	/* the first interval's table met the closed pipe, and nothing after it */
	assert_int_equal(res->nr_reads, 1);
	assert_true(res->ms < 1000);
	munmap(res, sizeof(*res));
}

/* A pipe's stdout: the table waits in the buffer, and its flush meets EPIPE. */
static void test_reader_gone_full_buffer(void **state UNUSED)
{
	expect_quiet_end(_IOFBF);
}

/* Each line written at once: EPIPE met inside printf, its errno lost. */
static void test_reader_gone_line_buffer(void **state UNUSED)
{
	expect_quiet_end(_IOLBF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_gone_full_buffer),
		cmocka_unit_test(test_reader_gone_line_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
