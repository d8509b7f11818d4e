// SPDX-License-Identifier: GPL-2.0
/* /proc scans: process groups, descendants, thread group ids. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktr/proc.h"
#include "lib/opts.h"
#include "lib/util.h"

struct proc_ent {
	pid_t pid, ppid, pgrp;
};

void ktr_pidset_free(struct ktr_pidset *s)
{
	free(s->pids);
	memset(s, 0, sizeof(*s));
}

bool ktr_pidset_has(const struct ktr_pidset *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->pids[i] == pid)
			return true;
	}
	return false;
}

int ktr_pidset_add(struct ktr_pidset *s, pid_t pid)
{
	pid_t *np;

	if (ktr_pidset_has(s, pid))
		return 0;
	if (s->n == s->cap) {
		np = realloc(s->pids, (s->cap ? s->cap * 2 : 16) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		s->pids = np;
		s->cap = s->cap ? s->cap * 2 : 16;
	}
	s->pids[s->n++] = pid;
	return 0;
}

/* A small /proc file into buf, NUL-terminated; bytes read or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses. */
static int parse_stat(const char *buf, struct proc_ent *e)
{
	const char *p = strrchr(buf, ')');
	char *end;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -EINVAL;
	e->ppid = strtol(p + 4, &end, 10);
	if (*end != ' ')
		return -EINVAL;
	e->pgrp = strtol(end + 1, &end, 10);
	return *end == ' ' ? 0 : -EINVAL;
}

static int read_proc(pid_t pid, struct proc_ent *e)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	e->pid = pid;
	return parse_stat(buf, e);
}

int ktr_proc_tgid(pid_t pid, pid_t *tgid)
{
	char path[64], buf[4096], *p;
	long long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -ESRCH;
	p += strlen("\nTgid:");
	while (*p == ' ' || *p == '\t')
		p++;
	*strchrnul(p, '\n') = '\0';
	if (parse_long(p, 1, KSNOOP_PID_MAX, &v))
		return -ESRCH;
	*tgid = v;
	return 0;
}

/* Every process now: a snapshot, so the walks below see one state. */
static int scan_procs(struct proc_ent **out, size_t *n)
{
	struct proc_ent *ents = NULL, *ne, e;
	size_t cap = 0, cnt = 0;
	struct dirent *de;
	long long pid;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (parse_long(de->d_name, 1, KSNOOP_PID_MAX, &pid) || read_proc(pid, &e))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 256;
			ne = realloc(ents, cap * sizeof(*ents));
			if (!ne) {
				free(ents);
				closedir(d);
				return -ENOMEM;
			}
			ents = ne;
		}
		ents[cnt++] = e;
	}
	closedir(d);
	*out = ents;
	*n = cnt;
	return 0;
}

int ktr_proc_add_pgrp(struct ktr_pidset *s, pid_t pgid)
{
	struct proc_ent *ents;
	size_t n, i;
	int err, found = 0;

	err = scan_procs(&ents, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		if (ents[i].pgrp == pgid) {
			err = ktr_pidset_add(s, ents[i].pid);
			found++;
		}
	}
	free(ents);
	return err ? err : found ? 0 : -ESRCH;
}

int ktr_proc_add_descendants(struct ktr_pidset *s)
{
	struct proc_ent *ents;
	size_t n, i, before;
	int err;

	err = scan_procs(&ents, &n);
	if (err)
		return err;
	/* Grow the set until a pass adds nothing: children of members join. */
	do {
		before = s->n;
		for (i = 0; i < n && !err; i++) {
			if (ktr_pidset_has(s, ents[i].ppid))
				err = ktr_pidset_add(s, ents[i].pid);
		}
	} while (!err && s->n != before);
	free(ents);
	return err;
}
