// SPDX-License-Identifier: GPL-2.0
/*
 * workload: known sequences of syscalls for tracing tests.
 *
 * Every subcommand first prints "pid=N" (its process id, which is also its
 * only thread's id) so a test can pass it to ksnoop -p. Built static so it
 * runs in any guest.
 *
 *   workload pid                      print the pid and exit
 *   workload udp-send N_BYTES [COUNT [FLAGS]]
 *                                     COUNT (default 1) loopback datagrams,
 *                                     sent with send() flags FLAGS (default
 *                                     0; e.g. 0x4040, MSG_DONTWAIT|
 *                                     MSG_NOSIGNAL, a value tests can find
 *                                     in the kernel's msg_flags arguments)
 *   workload tcp-send N_BYTES         one loopback TCP connection, N bytes
 *   workload udp-then-tcp N_BYTES COUNT
 *                                     COUNT datagrams, then a TCP connection
 *                                     sending N bytes: one process whose
 *                                     calls a filter must tell apart
 *   workload open-missing PATH        open() a missing file, expect ENOENT
 *   workload getppid-loop N           N getppid() system calls
 *   workload read-file PATH           read PATH to its end; /proc/self/cmdline
 *                                     makes the kernel copy our own memory
 *                                     through get_user_pages()
 *   workload fork-signal              fork; the child handles SIGUSR1, exits
 *   workload forks N                  N children forked one by one, each
 *                                     exiting at once and reaped
 *   workload setuid UID               a child calls setuid(UID), which as root
 *                                     succeeds, then setuid(0), which fails
 *                                     with EPERM
 *   workload naps MS...               one nanosleep(2) per argument, of MS
 *                                     milliseconds (the syscall itself: libc's
 *                                     nanosleep() is clock_nanosleep(2))
 *   workload epoll-nest N             N eventfd writes under an epoll watched
 *                                     by another epoll: each wakes the inner
 *                                     epoll's ep_poll_callback, which wakes
 *                                     the outer's, nested on our own stack
 *   workload malloc SIZE... COUNT      COUNT rounds of one malloc(3) per SIZE,
 *                                     each freed at once
 *   workload-dyn resolve NAME COUNT   COUNT getaddrinfo(3) calls for NAME (the
 *                                     dynamic build only: static glibc's
 *                                     would load NSS modules behind our back)
 *   workload-dyn threads COUNT [MS]   COUNT threads, one after another, each
 *                                     started at workload_thread and joined
 *                                     (the dynamic build: libc.so's
 *                                     pthread_create, which libpthread's
 *                                     stub leads to since glibc 2.34); then
 *                                     one nap of MS milliseconds
 *   workload ucall COUNT [MS]         COUNT calls of workload_ucall(i, "item-i"),
 *                                     which returns 2 * i + 1: a user function
 *                                     whose arguments and return tests know;
 *                                     then one nap of MS milliseconds
 *   workload migrate COUNT            COUNT calls of workload_migrate(i), each
 *                                     moving the process to another CPU before
 *                                     it returns: a return on another CPU than
 *                                     its entry (at least 2 CPUs)
 *
 * With -S before the subcommand, workload stops itself (SIGSTOP) right after
 * printing its pid and runs on SIGCONT: a test learns the pid, starts a
 * tracer filtered on it, then lets the workload go.
 *
 * Exit status 0 when the sequence ran as intended, 1 otherwise (with one
 * "workload: ..." line on stderr), 2 for bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_BYTES (1 << 20)
#define TCP_CHUNK 8192

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errno)
		fprintf(stderr, ": %s", strerror(errno));
	fputc('\n', stderr);
	return 1;
}

static int parse_count(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "workload: invalid number '%s' (%ld..%ld)\n", s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* A socket bound to 127.0.0.1 on a kernel-chosen port; *addr gets it. */
static int loopback_socket(int type, struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd;

	fd = socket(AF_INET, type, 0);
	if (fd < 0)
		return -1;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The receiver is bound before the first send: a connected UDP socket whose
 * peer port is closed gets ECONNREFUSED on its next send.
 */
static void close_open(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int do_udp_send(long bytes, long count, int flags)
{
	struct sockaddr_in raddr;
	char *buf = NULL;
	int rx = -1, tx = -1, ret = 1;
	long i;

	errno = 0;
	buf = calloc(1, bytes ? bytes : 1);
	if (!buf)
		return fail("out of memory");
	rx = loopback_socket(SOCK_DGRAM, &raddr);
	if (rx < 0) {
		fail("udp receiver");
		goto out;
	}
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&raddr, sizeof(raddr))) {
		fail("udp connect");
		goto out;
	}
	for (i = 0; i < count; i++) {
		memset(buf, 'a' + i % 26, bytes);
		if (send(tx, buf, bytes, flags) != bytes) {
			fail("udp send %ld", i);
			goto out;
		}
		if (recv(rx, buf, bytes ? bytes : 1, 0) != bytes) {
			fail("udp recv %ld", i);
			goto out;
		}
	}
	printf("udp: sent %ld datagrams of %ld bytes\n", count, bytes);
	ret = 0;
out:
	close_open(tx);
	close_open(rx);
	free(buf);
	return ret;
}

/*
 * Datagrams to a loopback port nobody has open (it was bound, then
 * closed): the kernel drops each for want of a socket and answers with an
 * ICMP port unreachable, which an unconnected sender never reads.
 */
static int do_udp_closed(long bytes, long count)
{
	struct sockaddr_in raddr;
	char *buf = calloc(1, bytes ? bytes : 1);
	int tx = -1, ret = 1;
	long i;

	if (!buf)
		return fail("out of memory");
	tx = loopback_socket(SOCK_DGRAM, &raddr);
	if (tx < 0) {
		fail("udp socket");
		goto out;
	}
	close(tx);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	for (i = 0; tx >= 0 && i < count; i++) {
		if (sendto(tx, buf, bytes, 0, (struct sockaddr *)&raddr, sizeof(raddr)) != bytes) {
			fail("udp sendto %ld", i);
			goto out;
		}
	}
	if (tx < 0) {
		fail("udp socket");
		goto out;
	}
	printf("udp: sent %ld datagrams of %ld bytes to a closed port\n", count, bytes);
	ret = 0;
out:
	close_open(tx);
	free(buf);
	return ret;
}

static int xfer(int fd, char *buf, long bytes, int sending)
{
	long done = 0;
	ssize_t n;

	while (done < bytes) {
		n = sending ? send(fd, buf + done, bytes - done, 0)
			    : recv(fd, buf + done, bytes - done, 0);
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static int do_tcp_send(long bytes)
{
	struct sockaddr_in addr;
	int lfd, cfd = -1, afd = -1, ret = 1;
	long done, chunk;
	char *buf;

	errno = 0;
	buf = malloc(bytes ? bytes : 1);
	if (!buf)
		return fail("out of memory");
	memset(buf, 'x', bytes);
	lfd = loopback_socket(SOCK_STREAM, &addr);
	if (lfd < 0 || listen(lfd, 1)) {
		fail("tcp listen");
		goto out;
	}
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&addr, sizeof(addr))) {
		fail("tcp connect");
		goto out;
	}
	afd = accept(lfd, NULL, NULL);
	if (afd < 0) {
		fail("tcp accept");
		goto out;
	}
	/* Chunks small enough for an empty socket buffer: send never blocks. */
	for (done = 0; done < bytes; done += chunk) {
		chunk = bytes - done < TCP_CHUNK ? bytes - done : TCP_CHUNK;
		if (xfer(cfd, buf + done, chunk, 1) || xfer(afd, buf + done, chunk, 0)) {
			fail("tcp transfer at byte %ld", done);
			goto out;
		}
	}
	printf("tcp: sent %ld bytes\n", bytes);
	ret = 0;
out:
	close_open(afd);
	close_open(cfd);
	close_open(lfd);
	free(buf);
	return ret;
}

static int do_open_missing(const char *path)
{
	int fd;

	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		close(fd);
		errno = 0;
		return fail("'%s' exists", path);
	}
	if (errno != ENOENT)
		return fail("open '%s' failed, but not with ENOENT", path);
	printf("open: %s: ENOENT\n", path);
	return 0;
}

/* n opens of PATH that exist and n of PATH.missing that fail, interleaved. */
static int do_open_mixed(const char *path, long n)
{
	char missing[4096];
	long i, failed = 0, opened = 0;
	int fd;

	if (snprintf(missing, sizeof(missing), "%s.missing", path) >= (int)sizeof(missing))
		return fail("path too long");
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return fail("open '%s'", path);
		close(fd);
		opened++;
		if (open(missing, O_RDONLY) >= 0 || errno != ENOENT)
			return fail("open '%s' did not fail with ENOENT", missing);
		failed++;
	}
	printf("open-mixed: %ld opened, %ld ENOENT\n", opened, failed);
	return 0;
}

static int do_getppid_loop(long n)
{
	long i;

	/* syscall(): no libc wrapper may answer from a cache. */
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("getppid: %ld calls\n", n);
	return 0;
}

static int do_read_file(const char *path)
{
	char buf[4096];
	ssize_t n, total = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return fail("cannot open '%s'", path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	if (n < 0)
		return fail("cannot read '%s'", path);
	printf("read: %s: %zd bytes\n", path, total);
	return 0;
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* Reap child; it must have exited with status 0. */
static int reap(pid_t child)
{
	int status;

	if (waitpid(child, &status, 0) != child)
		return fail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		return fail("child %d did not exit cleanly (status 0x%x)", (int)child, status);
	}
	return 0;
}

/*
 * SIGUSR1 is blocked before the fork, so the parent may send it at any
 * time and the child still takes it inside sigsuspend().
 */
static int do_fork_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block, old;
	pid_t child;

	errno = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL) || sigprocmask(SIG_BLOCK, &block, &old))
		return fail("signal setup");
	fflush(stdout);
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		while (!got_usr1)
			sigsuspend(&old);
		_exit(0);
	}
	printf("child=%d\n", (int)child);
	if (kill(child, SIGUSR1))
		return fail("kill %d", (int)child);
	if (reap(child))
		return 1;
	printf("fork-signal: child %d handled SIGUSR1\n", (int)child);
	return 0;
}

static int do_forks(long n)
{
	long i;

	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid_t child = fork();

		if (child < 0)
			return fail("fork %ld", i);
		if (child == 0)
			_exit(0);
		if (reap(child))
			return 1;
	}
	printf("forks: %ld children\n", n);
	return 0;
}

static int do_setuid(long uid)
{
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		if (setuid((uid_t)uid))
			_exit(fail("setuid(%ld)", uid));
		errno = 0;
		if (setuid(0) == 0 || errno != EPERM)
			_exit(fail("setuid(0) after dropping root did not fail with EPERM"));
		_exit(0);
	}
	if (reap(child))
		return 1;
	printf("setuid: child %d became uid %ld, then was refused uid 0\n", (int)child, uid);
	return 0;
}

static int do_naps(int n, char **ms)
{
	int i;
	long v;

	for (i = 0; i < n; i++) {
		struct timespec ts;

		if (parse_count(ms[i], 1, 10000, &v))
			return 2;
		ts.tv_sec = v / 1000;
		ts.tv_nsec = v % 1000 * 1000000;
		if (syscall(SYS_nanosleep, &ts, NULL))
			return fail("nanosleep %ld ms", v);
	}
	printf("naps: %d\n", n);
	return 0;
}

static int epoll_watch(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int do_epoll_nest(long n)
{
	int efd = eventfd(0, EFD_NONBLOCK), inner = epoll_create1(0), outer = epoll_create1(0);
	uint64_t v = 1;
	int ret = 1;
	long i;

	if (efd < 0 || inner < 0 || outer < 0 || epoll_watch(inner, efd) ||
	    epoll_watch(outer, inner)) {
		fail("epoll setup");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (write(efd, &v, sizeof(v)) != sizeof(v) ||
		    read(efd, &v, sizeof(v)) != sizeof(v)) {
			fail("eventfd round %ld", i);
			goto out;
		}
	}
	printf("epoll-nest: %ld wakeups through two epolls\n", n);
	ret = 0;
out:
	close_open(efd);
	close_open(inner);
	close_open(outer);
	return ret;
}

static int do_malloc(int nr, char **sizes, long rounds)
{
	long i, size[16];
	int j;

	if (nr > 16)
		return 2;
	for (j = 0; j < nr; j++) {
		if (parse_count(sizes[j], 0, 1L << 30, &size[j]))
			return 2;
	}
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < nr; j++) {
			/* volatile: the compiler may not pair and drop them */
			void *volatile p = malloc(size[j]);

			if (!p && size[j]) {
				fail("malloc(%ld)", size[j]);
				return 1;
			}
			free(p);
		}
	}
	printf("malloc: %ld rounds of %d sizes\n", rounds, nr);
	return 0;
}

/* Not static, never inlined: a symbol a uprobe finds, with known values. */
__attribute__((noinline)) long workload_ucall(int i, const char *name)
{
	__asm__ volatile("" : : "r"(name) : "memory");
	return 2L * i + 1;
}

/* Not static, never inlined: entered on one CPU, left on another. */
__attribute__((noinline)) int workload_migrate(int i)
{
	int cpu = sched_getcpu(), to;
	cpu_set_t set;

	for (to = 0; to < CPU_SETSIZE; to++) {
		CPU_ZERO(&set);
		CPU_SET(to, &set);
		if (to != cpu && !sched_setaffinity(0, sizeof(set), &set))
			break;
	}
	__asm__ volatile("" : : "r"(i) : "memory");
	return to < CPU_SETSIZE && sched_getcpu() == to ? 0 : -1;
}

static int do_migrate(long n)
{
	long i, moved = 0;

	for (i = 0; i < n; i++)
		moved += !workload_migrate(i);
	printf("migrate: %ld of %ld calls returned on another CPU\n", moved, n);
	return moved == n ? 0 : fail("migrate: %ld of %ld calls did not move", n - moved, n);
}

/* Then a nap of nap_ms, if any: a tracer notes the process while it lives. */
static int do_ucall(long n, char *nap_ms)
{
	char name[32];
	long i, sum = 0;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "item-%ld", i);
		sum += workload_ucall(i, name);
	}
	printf("ucall: %ld calls, sum %ld\n", n, sum);
	return nap_ms ? do_naps(1, &nap_ms) : 0;
}

#ifndef WORKLOAD_STATIC
#include <netdb.h>

static int do_resolve(const char *name, long n)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res;
	long i;
	int err;

	for (i = 0; i < n; i++) {
		err = getaddrinfo(name, NULL, &hints, &res);
		if (err) {
			fail("getaddrinfo(%s): %s", name, gai_strerror(err));
			return 1;
		}
		freeaddrinfo(res);
	}
	printf("resolve: %ld lookups of %s\n", n, name);
	return 0;
}

#include <pthread.h>

/* Not static: the start routine a tracer names by its symbol. */
__attribute__((noinline)) void *workload_thread(void *arg)
{
	__asm__ volatile("" : : "r"(arg) : "memory");
	return arg;
}

/* Then a nap of nap_ms, if any: a tracer names the start routine while the process lives. */
static int do_threads(long n, char *nap_ms)
{
	pthread_t t;
	long i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, workload_thread, (void *)i) || pthread_join(t, NULL)) {
			fail("thread %ld", i);
			return 1;
		}
	}
	printf("threads: %ld\n", n);
	return nap_ms ? do_naps(1, &nap_ms) : 0;
}
#endif

static int usage(void)
{
	fputs("usage: workload [-S] { pid | udp-send N_BYTES [COUNT [FLAGS]] | tcp-send N_BYTES |\n"
	      "                       udp-then-tcp N_BYTES COUNT | udp-closed N_BYTES COUNT |\n"
	      "                       open-missing PATH | open-mixed PATH N | getppid-loop N |\n"
	      "                       read-file PATH | epoll-nest N |\n"
	      "                       fork-signal | forks N | setuid UID | naps MS... |\n"
	      "                       malloc SIZE... COUNT | ucall COUNT [MS] | migrate COUNT }\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	bool stop = false;
	long a, b = 1, flags = 0;

	/* Line buffered even into a file: tests read the pid while we run. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "-S")) {
		stop = true;
		argc--;
		argv++;
	}
	if (argc < 2)
		return usage();
	printf("pid=%d\n", (int)getpid());
	if (stop)
		raise(SIGSTOP);

	if (!strcmp(argv[1], "pid") && argc == 2)
		return 0;
	if (!strcmp(argv[1], "udp-send") && argc >= 3 && argc <= 5) {
		if (parse_count(argv[2], 0, 65507, &a) ||
		    (argc >= 4 && parse_count(argv[3], 0, 100000000, &b)) ||
		    (argc == 5 && parse_count(argv[4], 0, 0x7fffffff, &flags)))
			return 2;
		return do_udp_send(a, b, (int)flags);
	}
	if (!strcmp(argv[1], "udp-closed") && argc == 4) {
		if (parse_count(argv[2], 0, 65507, &a) || parse_count(argv[3], 0, 100000000, &b))
			return 2;
		return do_udp_closed(a, b);
	}
	if (!strcmp(argv[1], "tcp-send") && argc == 3) {
		if (parse_count(argv[2], 0, MAX_BYTES, &a))
			return 2;
		return do_tcp_send(a);
	}
	if (!strcmp(argv[1], "udp-then-tcp") && argc == 4) {
		if (parse_count(argv[2], 0, 65507, &a) || parse_count(argv[3], 0, 100000000, &b))
			return 2;
		return do_udp_send(a, b, 0) ?: do_tcp_send(a);
	}
	if (!strcmp(argv[1], "open-missing") && argc == 3)
		return do_open_missing(argv[2]);
	if (!strcmp(argv[1], "open-mixed") && argc == 4) {
		if (parse_count(argv[3], 0, 1000000, &a))
			return 2;
		return do_open_mixed(argv[2], a);
	}
	if (!strcmp(argv[1], "getppid-loop") && argc == 3) {
		if (parse_count(argv[2], 0, 1000000000, &a))
			return 2;
		return do_getppid_loop(a);
	}
	if (!strcmp(argv[1], "read-file") && argc == 3)
		return do_read_file(argv[2]);
	if (!strcmp(argv[1], "fork-signal") && argc == 2)
		return do_fork_signal();
	if (!strcmp(argv[1], "forks") && argc == 3) {
		if (parse_count(argv[2], 0, 100000, &a))
			return 2;
		return do_forks(a);
	}
	if (!strcmp(argv[1], "setuid") && argc == 3) {
		if (parse_count(argv[2], 1, 65535, &a))
			return 2;
		return do_setuid(a);
	}
	if (!strcmp(argv[1], "naps") && argc >= 3)
		return do_naps(argc - 2, argv + 2);
	if (!strcmp(argv[1], "malloc") && argc >= 4) {
		if (parse_count(argv[argc - 1], 0, 100000000, &a))
			return 2;
		return do_malloc(argc - 3, argv + 2, a);
	}
#ifndef WORKLOAD_STATIC
	if (!strcmp(argv[1], "resolve") && argc == 4) {
		if (parse_count(argv[3], 0, 100000, &a))
			return 2;
		return do_resolve(argv[2], a);
	}
	if (!strcmp(argv[1], "threads") && (argc == 3 || argc == 4)) {
		if (parse_count(argv[2], 0, 1000, &a))
			return 2;
		return do_threads(a, argc == 4 ? argv[3] : NULL);
	}
#endif
	if (!strcmp(argv[1], "migrate") && argc == 3) {
		if (parse_count(argv[2], 1, 1000000, &a))
			return 2;
		return do_migrate(a);
	}
	if (!strcmp(argv[1], "ucall") && (argc == 3 || argc == 4)) {
		if (parse_count(argv[2], 0, 100000000, &a))
			return 2;
		return do_ucall(a, argc == 4 ? argv[3] : NULL);
	}
	if (!strcmp(argv[1], "epoll-nest") && argc == 3) {
		if (parse_count(argv[2], 1, 1000000, &a))
			return 2;
		return do_epoll_nest(a);
	}
	return usage();
}
