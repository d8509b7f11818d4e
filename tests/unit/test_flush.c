// SPDX-License-Identifier: GPL-2.0
/*
 * util.c's output checks: a stop signal never fails a write in progress,
 * a reader gone from stdout ends it quietly for good, and a file that
 * cannot be written is said once, by name. Each in a child: util keeps
 * the state of the outputs once per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "testutil.h"
#include "lib/util.h"

struct result {
	int ret[4];
	char err[512];
};

static struct result *res;

static void run_child(void (*fn)(void))
{
	int status;
	pid_t pid;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(res != MAP_FAILED);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void done(void)
{
	munmap(res, sizeof(*res));
}

/* A pipe full to the brim: the next write of it blocks until read. */
static int full_pipe(int fds[2])
{
	static char buf[4096];

	if (pipe2(fds, 0) || fcntl(fds[1], F_SETPIPE_SZ, 4096) < 0)
		return -1;
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	while (write(fds[1], buf, sizeof(buf)) > 0)
		;
	fcntl(fds[1], F_SETFL, 0);
	return 0;
}

static pthread_t main_thread;
static int drain_fd;

/* Ctrl-C while the write waits, then the reader takes everything. */
static void *stop_then_drain(void *arg)
{
	char buf[4096];

	(void)arg;
	usleep(100000);
	pthread_kill(main_thread, SIGINT);
	usleep(100000);
	while (read(drain_fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

static void write_through_stop(void)
{
	static char line[8192];
	pthread_t t;
	int fds[2];
	FILE *f;

	memset(line, 'x', sizeof(line));
	if (setup_stop_signals() || full_pipe(fds))
		_exit(1);
	f = fdopen(fds[1], "w");
	setvbuf(f, NULL, _IONBF, 0);
	main_thread = pthread_self();
	drain_fd = fds[0];
	pthread_create(&t, NULL, stop_then_drain, NULL);
	res->ret[0] = fwrite(line, 1, sizeof(line), f) == sizeof(line) && !ferror(f);
	res->ret[1] = stop_signal;
	fclose(f);
	pthread_join(t, NULL);
}

/* The demo stops ksnoop with SIGINT while it writes: nothing is lost. */
static void test_stop_signal_during_write(void **state UNUSED)
{
	run_child(write_through_stop);
	assert_int_equal(res->ret[1], SIGINT);
	assert_int_equal(res->ret[0], 1);
	done();
}

static void reader_gone(void)
{
	struct stderr_capture cap;
	int fds[2];

	if (pipe(fds))
		_exit(1);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	stderr_capture_begin(&cap);
	printf("a table\n");
	res->ret[0] = flush_stdout();
	/* nothing new: a flush of nothing still sees the error flag */
	res->ret[1] = flush_stdout();
	printf("the next interval\n");
	res->ret[2] = flush_stdout();
	res->ret[3] = finish_stdout();
	stderr_capture_end(&cap, res->err, sizeof(res->err));
}

/* | head: 1 every time, and never a word, not even at exit. */
static void test_reader_gone_quiet_for_good(void **state UNUSED)
{
	run_child(reader_gone);
	assert_int_equal(res->ret[0], 1);
	assert_int_equal(res->ret[1], 1);
	assert_int_equal(res->ret[2], 1);
	assert_int_equal(res->ret[3], 1);
	assert_string_equal(res->err, "");
	done();
}

static void file_full(void)
{
	struct stderr_capture cap;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		_exit(1);
	stderr_capture_begin(&cap);
	fprintf(f, "an event\n");
	res->ret[0] = flush_output(f, "/tmp/x/events");
	fprintf(f, "another\n");
	res->ret[1] = flush_output(f, "/tmp/x/events");
	res->ret[2] = close_output(f, "/tmp/x/events");
	stderr_capture_end(&cap, res->err, sizeof(res->err));
}

/* -o on a full disk: one line naming the file, -ENOSPC, said once. */
static void test_file_error_said_once(void **state UNUSED)
{
	run_child(file_full);
	assert_int_equal(res->ret[0], -ENOSPC);
	assert_int_equal(res->ret[1], -ENOSPC);
	assert_int_equal(res->ret[2], -ENOSPC);
	assert_string_equal(res->err, "Error: writing '/tmp/x/events': No space left on device\n");
	done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_signal_during_write),
		cmocka_unit_test(test_reader_gone_quiet_for_good),
		cmocka_unit_test(test_file_error_said_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
