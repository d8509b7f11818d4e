// SPDX-License-Identifier: GPL-2.0
/* This process's mounts; see mounts.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "lib/mounts.h"
#include "lib/util.h"

/* A lookup no mount answers reads mountinfo again at most this often. */
#define REREAD_NS 1000000000LL
/* Mounts past this many are not looked at: a bound on memory. */
#define MOUNTS_MAX 65536
#define LINE_MAX_BYTES 8192

struct mounts {
	struct mount_entry *entries;
	char **lines; /* what the entries point into */
	size_t nr, cap;
	bool read;
	long long read_ns;
};

/* mountinfo writes a blank, tab, newline or backslash in a path as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* The next blank-separated field of *s, NUL-terminated in place; NULL at the end. */
static char *field(char **s)
{
	char *f = *s;

	while (*f == ' ')
		f++;
	if (!*f)
		return NULL;
	*s = f + strcspn(f, " ");
	if (**s)
		*(*s)++ = '\0';
	return f;
}

bool mountinfo_parse(char *line, struct mount_entry *e)
{
	char *s = line, *f[5], *sep, *dev, *end;
	unsigned long maj, min;
	int i;

	line[strcspn(line, "\n")] = '\0';
	for (i = 0; i < 5; i++) {
		f[i] = field(&s);
		if (!f[i])
			return false;
	}
	/* optional fields, up to the lone "-" before the file system's type */
	do {
		sep = field(&s);
	} while (sep && strcmp(sep, "-"));
	if (!sep)
		return false;
	e->fstype = field(&s);
	if (!e->fstype)
		return false;
	dev = f[2];
	maj = strtoul(dev, &end, 10);
	if (end == dev || *end != ':')
		return false;
	dev = end + 1;
	min = strtoul(dev, &end, 10);
	if (end == dev || *end || maj > 0xfff || min > 0xfffff)
		return false;
	unescape(f[3]);
	unescape(f[4]);
	if (f[3][0] != '/' || f[4][0] != '/')
		return false;
	e->major = maj;
	e->minor = min;
	e->root = f[3];
	e->point = f[4];
	return true;
}

/* fs_path's part below root, when root holds it: "" for root itself, else "/rest". */
static const char *below(const char *root, const char *fs_path)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return fs_path;
	if (strncmp(fs_path, root, n) || (fs_path[n] && fs_path[n] != '/'))
		return NULL;
	return fs_path + n;
}

int mounts_join(const struct mount_entry *entries, size_t nr, unsigned int major,
		unsigned int minor, const char *fs_path, size_t skip, char *out, size_t size)
{
	const char *rest;
	size_t i;
	int n;

	for (i = 0; i < nr; i++) {
		const struct mount_entry *e = &entries[i];

		if (e->major != major || e->minor != minor)
			continue;
		rest = below(e->root, fs_path);
		if (!rest || skip-- > 0)
			continue;
		/* "/" mounted at "/": no doubled slash; the mount's own root: its point */
		n = snprintf(out, size, "%s%s", strcmp(e->point, "/") || !*rest ? e->point : "",
			     rest);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	return -ENOENT;
}

struct mounts *mounts__new(void)
{
	return calloc(1, sizeof(struct mounts));
}

static void drop_entries(struct mounts *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->lines[i]);
	m->nr = 0;
}

void mounts__free(struct mounts *m)
{
	if (!m)
		return;
	drop_entries(m);
	free(m->lines);
	free(m->entries);
	free(m);
}

static int add_line(struct mounts *m, const char *text)
{
	char *line = strdup(text);
	struct mount_entry e;

	if (!line)
		return -ENOMEM;
	if (!mountinfo_parse(line, &e)) {
		free(line);
		return 0;
	}
	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct mount_entry *entries = realloc(m->entries, cap * sizeof(*entries));
		char **lines;

		if (!entries) {
			free(line);
			return -ENOMEM;
		}
		m->entries = entries;
		lines = realloc(m->lines, cap * sizeof(*lines));
		if (!lines) {
			free(line);
			return -ENOMEM;
		}
		m->lines = lines;
		m->cap = cap;
	}
	m->lines[m->nr] = line;
	m->entries[m->nr++] = e;
	return 0;
}

static void mounts_read(struct mounts *m)
{
	char line[LINE_MAX_BYTES];
	FILE *f;

	drop_entries(m);
	m->read = true;
	m->read_ns = clock_ns(CLOCK_MONOTONIC);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		p_dbg("cannot read /proc/self/mountinfo: %s", strerror(errno));
		return;
	}
	/* a line longer than the buffer is cut: its tail is read as a line that is no mount */
	while (m->nr < MOUNTS_MAX && fgets(line, sizeof(line), f)) {
		if (add_line(m, line))
			break;
	}
	fclose(f);
}

/* The first candidate from the mounts read that is the very file. */
static int find(struct mounts *m, unsigned int major, unsigned int minor, const char *fs_path,
		unsigned long ino, char *out, size_t size)
{
	struct stat st;
	size_t skip;
	int err;

	for (skip = 0;; skip++) {
		err = mounts_join(m->entries, m->nr, major, minor, fs_path, skip, out, size);
		if (err == -ENOENT)
			return err;
		if (!err && !stat(out, &st) && st.st_ino == ino && major(st.st_dev) == major &&
		    minor(st.st_dev) == minor)
			return 0;
	}
}

int mounts__path(struct mounts *m, unsigned int major, unsigned int minor, const char *fs_path,
		 unsigned long ino, char *out, size_t size)
{
	int err;

	if (!m || fs_path[0] != '/')
		return -ENOENT;
	if (!m->read)
		mounts_read(m);
	err = find(m, major, minor, fs_path, ino, out, size);
	if (err && clock_ns(CLOCK_MONOTONIC) - m->read_ns >= REREAD_NS) {
		mounts_read(m);
		err = find(m, major, minor, fs_path, ino, out, size);
	}
	return err;
}

int fs_path_from_leaf(const char *names, size_t len, unsigned int depth, char *out, size_t size)
{
	const char *comp[64];
	size_t off = 0, used = 0, n;
	unsigned int i;

	if (!depth || depth > ARRAY_SIZE(comp))
		return -EINVAL;
	for (i = 0; i < depth; i++) {
		n = off < len ? strnlen(names + off, len - off) : 0;
		if (!n || off + n >= len)
			return -EINVAL;
		comp[i] = names + off;
		off += n + 1;
	}
	for (i = depth; i-- > 0;) {
		n = strlen(comp[i]);
		if (used + 1 + n >= size)
			return -ENAMETOOLONG;
		out[used++] = '/';
		memcpy(out + used, comp[i], n);
		used += n;
	}
	out[used] = '\0';
	return 0;
}
