// SPDX-License-Identifier: GPL-2.0
/* The rules of the files ksnoop writes (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"

static int refuse(const char *what, const char *path, const char *why, int err)
{
	char clip[CLIP_BUF];

	p_err("refusing %s '%s': %s", what, str_clip(path, clip), why);
	return err;
}

int outfile_check_stat(const char *what, const char *path, const struct stat *st)
{
	char why[48];

	if (S_ISLNK(st->st_mode))
		return refuse(what, path, "it is a symbolic link", -ELOOP);
	if (!S_ISREG(st->st_mode))
		return refuse(what, path, "not a regular file", -EINVAL);
	if (st->st_nlink > 1) {
		snprintf(why, sizeof(why), "it has %lu hard links", (unsigned long)st->st_nlink);
		return refuse(what, path, why, -EMLINK);
	}
	return 0;
}

/* The opened file, the check that cannot be raced; then emptied, and blocking again. */
static int check_opened(const char *what, const char *path, int fd)
{
	char clip[CLIP_BUF];
	struct stat st;
	int err;

	if (fstat(fd, &st)) {
		err = -errno;
		p_err("cannot stat %s '%s': %s", what, str_clip(path, clip), strerror(-err));
		return err;
	}
	err = outfile_check_stat(what, path, &st);
	if (err)
		return err;
	if (ftruncate(fd, 0) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		p_err("cannot write %s '%s': %s", what, str_clip(path, clip), strerror(-err));
		return err;
	}
	return 0;
}

int outfile_open(const char *what, const char *path)
{
	char clip[CLIP_BUF];
	struct stat st;
	int fd, err;

	if (!lstat(path, &st)) {
		err = outfile_check_stat(what, path, &st);
		if (err)
			return err;
	}
	/* No O_TRUNC: a file refused after the open is left as it was. */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		  OUTFILE_MODE);
	if (fd < 0) {
		err = -errno;
		/* made one since the lstat */
		if (err == -ELOOP)
			return refuse(what, path, "it is a symbolic link", err);
		p_err("cannot create %s '%s': %s", what, str_clip(path, clip), strerror(-err));
		return err;
	}
	err = check_opened(what, path, fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

FILE *outfile_fopen(const char *what, const char *path)
{
	char clip[CLIP_BUF];
	int fd = outfile_open(what, path);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		p_err("cannot write %s '%s': %s", what, str_clip(path, clip), strerror(errno));
		close(fd);
	}
	return f;
}

int outfile_temp(char *tmpl, const char *path)
{
	struct stat st;
	int fd, err;

	/* mkstemp: O_EXCL, so nothing is followed, and a regular file of one link */
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!lstat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) != OUTFILE_MODE &&
	    fchmod(fd, st.st_mode & 07777)) {
		err = -errno;
		close(fd);
		unlink(tmpl);
		return err;
	}
	return fd;
}
