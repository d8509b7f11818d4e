// SPDX-License-Identifier: GPL-2.0
/*
 * bench: timed workloads and process probes for tests/bench/guest.sh.
 * Built static, so it runs the same in any guest.
 *
 *   bench getppid N            N getppid() system calls, timed
 *   bench write-null N EVERY   N write()s to /dev/null: 7 bytes once every
 *                              EVERY calls, 8 bytes otherwise (a predicate
 *                              "count == 7" keeps 1/EVERY of them), timed
 *   bench udp-send BYTES N     N loopback UDP datagrams of BYTES, timed
 *   bench ucall N              N calls of bench_ucall(i & 7), a user function
 *                              uprobes attach to, timed
 *   bench spin SECONDS [PAUSE_US]  getppid() in a loop for SECONDS (background
 *                              load); with PAUSE_US, one call per pause
 *   bench run [-k] [-w STOP_WAIT] TIMEOUT MATCH -- CMD [ARG...]
 *                              spawn CMD with stdout on a pipe, time until a
 *                              line containing MATCH appears, sample its peak
 *                              RSS, stop it with SIGINT (-k: SIGKILL, for a
 *                              tracer that would drain a flood first) and
 *                              time its exit. A CMD that never printed MATCH
 *                              gets SIGKILL (bpftrace does not act on SIGINT
 *                              while it attaches) and 10 s to exit; one
 *                              that did, STOP_WAIT seconds if given. Lines
 *                              read are dropped; stderr is inherited.
 *   bench stamp                copy stdin to stdout, each line prefixed with
 *                              the milliseconds since start (startup profiles)
 *
 * Timed workloads print one line "calls=N ns=T ns_per_call=X pid=P" on
 * stdout; the pid lets a caller count the events of this process only.
 * "run" prints "match_ms=A hwm_kb=H stop_ms=B rc=R lines=L" (match_ms=-1
 * when MATCH never appeared within TIMEOUT seconds).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "bench: invalid number '%s' (%ld..%ld)\n", s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static void report(long calls, long long ns)
{
	printf("calls=%ld ns=%lld ns_per_call=%.1f pid=%d\n", calls, ns,
	       calls ? (double)ns / calls : 0.0, (int)getpid());
}

static int do_getppid(long n)
{
	long long t0 = now_ns();
	long i;

	/* syscall(): no libc wrapper may answer from a cache. */
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	report(n, now_ns() - t0);
	return 0;
}

/* Not static, never inlined: the user function the uprobe sections trace. */
__attribute__((noinline)) long bench_ucall(long i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return i & 7;
}

static int do_ucall(long n)
{
	long long t0 = now_ns();
	long i, sum = 0;

	/* eight values: count by the argument makes as many keys as bpftrace's */
	for (i = 0; i < n; i++)
		sum += bench_ucall(i & 7);
	report(n, now_ns() - t0);
	return sum < 0;
}

static int do_write_null(long n, long every)
{
	static const char buf[8];
	long long t0;
	long i;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0) {
		perror("bench: /dev/null");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (write(fd, buf, i % every == 0 ? 7 : 8) < 0) {
			perror("bench: write");
			return 1;
		}
	}
	report(n, now_ns() - t0);
	close(fd);
	return 0;
}

static int do_udp_send(long bytes, long n)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	char *buf = calloc(1, bytes ? bytes : 1);
	int rx, tx;
	long long t0;
	long i;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (!buf || rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(rx, (struct sockaddr *)&addr, &alen) ||
	    connect(tx, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("bench: udp setup (is lo up?)");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (send(tx, buf, bytes, 0) != bytes ||
		    recv(rx, buf, bytes ? bytes : 1, 0) != bytes) {
			perror("bench: udp send/recv");
			return 1;
		}
	}
	report(n, now_ns() - t0);
	free(buf);
	return 0;
}

static int do_spin(long secs, long pause_us)
{
	long long end = now_ns() + secs * 1000000000LL;
	struct timespec pause = { .tv_nsec = pause_us * 1000 };
	long n = 0;

	while (now_ns() < end) {
		int i;

		for (i = 0; i < (pause_us ? 1 : 100); i++)
			syscall(SYS_getppid);
		n += pause_us ? 1 : 100;
		if (pause_us)
			nanosleep(&pause, NULL);
	}
	report(n, secs * 1000000000LL);
	return 0;
}

static long hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	}
	fclose(f);
	return kb;
}

/* Feeds pipe data into lines; returns 1 once a line contains match. */
static int scan(char *acc, size_t *len, size_t cap, const char *match, long *lines)
{
	char *nl;
	int found = 0;

	while ((nl = memchr(acc, '\n', *len))) {
		*nl = 0;
		(*lines)++;
		if (match && strstr(acc, match))
			found = 1;
		*len -= nl + 1 - acc;
		memmove(acc, nl + 1, *len);
	}
	if (*len == cap - 1) /* a line longer than the buffer: drop it */
		*len = 0;
	return found;
}

#define KILL_WAIT_S 10

/*
 * Read fd's lines into acc until a line contains match (true), or until
 * EOF or deadline (ns; -1: none) when match is NULL or never seen.
 */
static bool read_lines(int fd, char *acc, size_t *len, size_t cap, const char *match, long *lines,
		       long long deadline)
{
	while (deadline < 0 || now_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, acc + *len, cap - 1 - *len);
		if (n <= 0)
			break;
		*len += n;
		if (scan(acc, len, cap, match, lines) && match)
			return true;
	}
	return false;
}

/* waitpid, giving up at deadline (ns; -1: never). */
static bool reap(pid_t pid, int *status, long long deadline)
{
	if (deadline < 0)
		return waitpid(pid, status, 0) == pid;
	while (waitpid(pid, status, WNOHANG) != pid) {
		if (now_ns() >= deadline)
			return false;
		usleep(10000);
	}
	return true;
}

static int do_run(long timeout, const char *match, char **cmd, int stop_sig, long stop_wait)
{
	static char acc[1 << 16];
	long long t0, deadline, t_match = -1, t_stop;
	long lines = 0, hwm = -1;
	size_t len = 0;
	int fds[2], status = 0, rc;
	pid_t pid;

	if (pipe(fds))
		return 1;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(cmd[0], cmd);
		perror("bench: exec");
		_exit(127);
	}
	close(fds[1]);
	deadline = t0 + timeout * 1000000000LL;
	if (read_lines(fds[0], acc, &len, sizeof(acc), match, &lines, deadline))
		t_match = now_ns();
	hwm = hwm_kb(pid);
	t_stop = now_ns();
	kill(pid, t_match < 0 ? SIGKILL : stop_sig);
	/*
	 * Drain until the tracer closes its stdout, i.e. has exited. One that
	 * never became ready gets KILL_WAIT_S, one that did -w's seconds if
	 * given: bpftrace stuck in the kernel with its kprobes, or a child of
	 * it holding the pipe, would otherwise hold the whole run. It is then
	 * killed, and its stop time is unknown (-1).
	 */
	if (t_match < 0)
		stop_wait = KILL_WAIT_S;
	deadline = stop_wait < 0 ? -1 : now_ns() + stop_wait * 1000000000LL;
	read_lines(fds[0], acc, &len, sizeof(acc), NULL, &lines, deadline);
	if (!reap(pid, &status, deadline)) {
		kill(pid, SIGKILL);
		printf("match_ms=%.1f hwm_kb=%ld stop_ms=-1.0 rc=-1 lines=%ld\n",
		       t_match < 0 ? -1.0 : (t_match - t0) / 1e6, hwm, lines);
		return 0;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("match_ms=%.1f hwm_kb=%ld stop_ms=%.1f rc=%d lines=%ld\n",
	       t_match < 0 ? -1.0 : (t_match - t0) / 1e6, hwm, (now_ns() - t_stop) / 1e6, rc,
	       lines);
	return 0;
}

static int do_stamp(void)
{
	long long t0 = now_ns();
	char line[4096];

	while (fgets(line, sizeof(line), stdin))
		printf("%9.1f %s", (now_ns() - t0) / 1e6, line);
	return 0;
}

static int usage(void)
{
	fputs("usage: bench { getppid N | write-null N EVERY | udp-send BYTES N | ucall N |\n"
	      "               spin SECONDS [PAUSE_US] |\n"
	      "               run [-k] [-w STOP_WAIT] TIMEOUT MATCH -- CMD [ARG...] | stamp }\n",
	      stderr);
	return 2;
}

/* run [-k] [-w STOP_WAIT] TIMEOUT MATCH -- CMD... */
static int run_main(int argc, char **argv)
{
	int stop_sig = SIGINT, i = 0;
	long timeout, stop_wait = -1;

	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-k"))
			stop_sig = SIGKILL;
		else if (!strcmp(argv[i], "-w") && i + 1 < argc &&
			 !parse_long(argv[i + 1], 1, 3600, &stop_wait))
			i++;
		else
			return usage();
	}
	if (argc - i < 4 || strcmp(argv[i + 2], "--") || parse_long(argv[i], 1, 3600, &timeout))
		return usage();
	return do_run(timeout, argv[i + 1], argv + i + 3, stop_sig, stop_wait);
}

int main(int argc, char **argv)
{
	long a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "getppid") && argc == 3) {
		if (parse_long(argv[2], 0, 1000000000, &a))
			return 2;
		return do_getppid(a);
	}
	if (!strcmp(argv[1], "ucall") && argc == 3) {
		if (parse_long(argv[2], 0, 1000000000, &a))
			return 2;
		return do_ucall(a);
	}
	if (!strcmp(argv[1], "write-null") && argc == 4) {
		if (parse_long(argv[2], 0, 1000000000, &a) || parse_long(argv[3], 1, 1000000, &b))
			return 2;
		return do_write_null(a, b);
	}
	if (!strcmp(argv[1], "udp-send") && argc == 4) {
		if (parse_long(argv[2], 0, 65507, &a) || parse_long(argv[3], 0, 100000000, &b))
			return 2;
		return do_udp_send(a, b);
	}
	if (!strcmp(argv[1], "spin") && (argc == 3 || argc == 4)) {
		b = 0;
		if (parse_long(argv[2], 1, 3600, &a) ||
		    (argc == 4 && parse_long(argv[3], 0, 999999, &b)))
			return 2;
		return do_spin(a, b);
	}
	if (!strcmp(argv[1], "stamp") && argc == 2)
		return do_stamp();
	if (!strcmp(argv[1], "run"))
		return run_main(argc - 2, argv + 2);
	return usage();
}
