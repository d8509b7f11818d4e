// SPDX-License-Identifier: GPL-2.0
/*
 * A known sequence of syscalls for tests/host/ktrace.sh to trace and
 * check line by line: file I/O, a failed open, vectored and socket I/O,
 * a caught signal, and a forked child that writes too.
 *
 *   ktrace_target DIR     (works in DIR; prints "child PID" on stdout)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int file_io(void)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "hello ktrace\n", 13) != 13 || close(fd))
		return -1;
	fd = openat(AT_FDCWD, "data.txt", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != 13)
		return -1;
	/* Expected to fail with ENOENT. */
	return open("does-not-exist", O_RDONLY) < 0 && errno == ENOENT ? 0 : -1;
}

static int vector_io(void)
{
	struct iovec out[2] = { { "vec-one ", 8 }, { "vec-two\n", 8 } };
	char a[4], b[32];
	struct iovec in[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd = open("vec.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || writev(fd, out, 2) != 16)
		return -1;
	if (preadv(fd, in, 2, 0) != 16)
		return -1;
	return close(fd);
}

static int socket_io(void)
{
	char rbuf[32];
	struct iovec siov = { "sock-msg", 8 }, riov = { rbuf, sizeof(rbuf) };
	struct msghdr smsg = { .msg_iov = &siov, .msg_iovlen = 1 };
	struct msghdr rmsg = { .msg_iov = &riov, .msg_iovlen = 1 };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return -1;
	if (sendmsg(sv[0], &smsg, 0) != 8 || recvmsg(sv[1], &rmsg, 0) != 8)
		return -1;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int signal_self(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t none;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&none);
	/* A known mask at delivery: nothing blocked. */
	if (sigaction(SIGUSR1, &sa, NULL) || sigprocmask(SIG_SETMASK, &none, NULL))
		return -1;
	kill(getpid(), SIGUSR1);
	return got_usr1 ? 0 : -1;
}

static int fork_child(void)
{
	int status, fd;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open("child.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		_exit(fd >= 0 && write(fd, "from child\n", 11) == 11 ? 0 : 1);
	}
	printf("child %d\n", (int)pid);
	fflush(stdout);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 || chdir(argv[1])) {
		fprintf(stderr, "usage: ktrace_target DIR\n");
		return 2;
	}
	if (file_io() || vector_io() || socket_io() || signal_self() || fork_child()) {
		perror("ktrace_target");
		return 1;
	}
	return 0;
}
