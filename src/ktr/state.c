// SPDX-License-Identifier: GPL-2.0
/* Recorder state files and their locks (see ktr_state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktr/state.h"
#include "lib/util.h"

#define STATE_PREFIX "ktrace-"
#define STATE_MAX 8192 /* bytes of a state file we read */
#define WAIT_STEP_MS 10

int ktr_state_path(dev_t dev, ino_t ino, char *buf, size_t len)
{
	int n = snprintf(buf, len, KTR_STATE_DIR "/" STATE_PREFIX "%llx-%llu",
			 (unsigned long long)dev, (unsigned long long)ino);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The lock is only meaningful while fd is still the file at path. */
static bool still_linked(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int ktr_state_open(const char *path, bool create, bool *locked)
{
	int fd, tries, err;

	if (create) {
		err = private_dir(KTR_STATE_DIR); /* only ours may hold the map ids */
		if (err)
			return err;
	}
	for (tries = 0; tries < 8; tries++) {
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
		if (fd < 0)
			return -errno;
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			if (still_linked(fd, path)) {
				*locked = true;
				return fd;
			}
			close(fd); /* a recorder ended and unlinked it: retry */
			if (!create)
				return -ENOENT;
			continue;
		}
		err = errno;
		if (err == EWOULDBLOCK) {
			*locked = false;
			return fd;
		}
		close(fd);
		return -err;
	}
	return -EAGAIN;
}

static void parse_line(struct ktr_state *st, char *line)
{
	char *val = strchr(line, ' ');
	long long v;

	if (!val)
		return;
	*val++ = '\0';
	if (!strcmp(line, "file")) {
		snprintf(st->trfile, sizeof(st->trfile), "%s", val);
		return;
	}
	if (parse_long(val, 0, 0x7fffffffffffffffLL, &v))
		return;
	if (!strcmp(line, "pid"))
		st->pid = v;
	else if (!strcmp(line, "map"))
		st->map_id = v;
	else if (!strcmp(line, "dropped"))
		st->dropped = v;
	else if (!strcmp(line, "exited"))
		st->exited = v;
	else if (!strcmp(line, "facs"))
		st->facs = v;
	else if (!strcmp(line, "signal"))
		st->signal = v;
	else if (!strcmp(line, "abandoned"))
		st->abandoned = v;
	else if (!strcmp(line, "unmarked"))
		st->unmarked = v;
	else if (!strcmp(line, "write_error"))
		st->write_error = v;
}

int ktr_state_read(int fd, struct ktr_state *st)
{
	char buf[STATE_MAX + 1], *line, *save;
	ssize_t n;

	memset(st, 0, sizeof(*st));
	n = pread(fd, buf, STATE_MAX, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_line(st, line);
	return st->pid > 0 ? 0 : -ENODATA;
}

int ktr_state_write(int fd, const struct ktr_state *st)
{
	char buf[STATE_MAX];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "pid %d\nmap %u\nfacs %u\ndropped %llu\nexited %d\nsignal %d\n"
		     "abandoned %u\nunmarked %llu\nwrite_error %d\nfile %s\n",
		     (int)st->pid, st->map_id, st->facs, st->dropped, st->exited, st->signal,
		     st->abandoned, st->unmarked, st->write_error, st->trfile);
	if (n < 0 || n >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		return -errno;
	return 0;
}

void ktr_state_remove_stale(int fd, const char *path)
{
	if (flock(fd, LOCK_EX | LOCK_NB))
		return; /* a recorder runs on it */
	if (still_linked(fd, path))
		unlink(path);
	flock(fd, LOCK_UN);
}

int ktr_state_wait_exit(int fd, int timeout_ms)
{
	struct timespec step = { 0, WAIT_STEP_MS * 1000000L };
	int waited;

	for (waited = 0;; waited += WAIT_STEP_MS) {
		if (!flock(fd, LOCK_SH | LOCK_NB)) {
			flock(fd, LOCK_UN);
			return 0;
		}
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&step, NULL);
	}
}

static int visit(const char *name, ktr_state_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct ktr_state st;
	bool locked;
	int fd, ret = 0;

	if (snprintf(path, sizeof(path), KTR_STATE_DIR "/%s", name) >= (int)sizeof(path))
		return 0;
	fd = ktr_state_open(path, false, &locked);
	if (fd < 0)
		return 0;
	if (locked) {
		unlink(path); /* left by a recorder that died */
	} else if (!ktr_state_read(fd, &st)) {
		ret = fn(path, &st, ctx);
	}
	close(fd);
	return ret;
}

int ktr_state_for_each(ktr_state_fn fn, void *ctx)
{
	struct dirent *de;
	DIR *d = opendir(KTR_STATE_DIR);
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		if (!strncmp(de->d_name, STATE_PREFIX, strlen(STATE_PREFIX)))
			ret = visit(de->d_name, fn, ctx);
	}
	closedir(d);
	return ret;
}
