// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 ids to paths, and paths to containers; see cgroup.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/mounts.h"
#include "lib/util.h"

/* Walks deeper than this, or past this many cgroups, stop: a bound on time and memory. */
#define WALK_DEPTH 32
#define WALK_MAX 200000
#define RESCAN_NS 1000000000LL

struct cg_entry {
	uint64_t id;
	char *path;
};

struct cgroup_names {
	char root[4096];	  /* the cgroup2 mount point, "" until one is found */
	struct cg_entry *entries; /* sorted by id */
	size_t nr, size;
	long long last_walk_ns;
	bool walked;
};

/* The first cgroup2 mount in /proc/self/mountinfo. */
static void find_root(struct cgroup_names *c)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct mount_entry e;
	char line[8192];

	while (f && fgets(line, sizeof(line), f)) {
		if (mountinfo_parse(line, &e) && !strcmp(e.fstype, "cgroup2")) {
			snprintf(c->root, sizeof(c->root), "%s", e.point);
			break;
		}
	}
	if (f)
		fclose(f);
}

static struct cg_entry *find(const struct cgroup_names *c, uint64_t id, size_t *at)
{
	size_t lo = 0, hi = c->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->entries[mid].id == id)
			return &c->entries[mid];
		if (c->entries[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return NULL;
}

static int add(struct cgroup_names *c, uint64_t id, const char *path)
{
	size_t at;
	char *copy;

	if (find(c, id, &at))
		return 0;
	if (c->nr >= WALK_MAX)
		return -E2BIG;
	if (!grow_array(&c->entries, &c->size, c->nr, sizeof(*c->entries), 64))
		return -ENOMEM;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	memmove(&c->entries[at + 1], &c->entries[at], (c->nr - at) * sizeof(*c->entries));
	c->entries[at] = (struct cg_entry){ id, copy };
	c->nr++;
	return 0;
}

/* The directory fd, its path below the root in rel; its subdirectories after it. */
static int walk(struct cgroup_names *c, int fd, char *rel, size_t rel_len, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int sub, err = 0;

	if (fstat(fd, &st) || (err = add(c, st.st_ino, rel_len ? rel : "/"))) {
		close(fd);
		return err;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!err && depth < WALK_DEPTH && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (rel_len + 1 + strlen(e->d_name) >= PATH_MAX)
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		sprintf(rel + rel_len, "/%s", e->d_name);
		err = walk(c, sub, rel, strlen(rel), depth + 1);
		rel[rel_len] = '\0';
	}
	closedir(d);
	return err == -E2BIG ? 0 : err;
}

/* cgroup v2 ids are the kernfs inode numbers of their directories (64-bit kernels). */
static void walk_all(struct cgroup_names *c)
{
	char rel[PATH_MAX] = "";
	int fd;

	c->walked = true;
	c->last_walk_ns = clock_ns(CLOCK_MONOTONIC);
	/* cgroup2 may be mounted after ksnoop started: looked for at each walk until found */
	if (!c->root[0])
		find_root(c);
	if (!c->root[0])
		return;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && walk(c, fd, rel, 0, 0))
		p_dbg("cgroup: the walk of %s stopped early", c->root);
}

struct cgroup_names *cgroup_names__new(void)
{
	return calloc(1, sizeof(struct cgroup_names));
}

void cgroup_names__free(struct cgroup_names *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		free(c->entries[i].path);
	free(c->entries);
	free(c);
}

const char *cgroup_names__path(struct cgroup_names *c, uint64_t id)
{
	struct cg_entry *e;
	size_t at;

	e = find(c, id, &at);
	if (!e && (!c->walked || clock_ns(CLOCK_MONOTONIC) - c->last_walk_ns >= RESCAN_NS)) {
		walk_all(c);
		e = find(c, id, &at);
	}
	return e ? e->path : NULL;
}

/* ---- containers ---------------------------------------------------------- */

static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	}
	return n > 0;
}

/* Copy n bytes of s into out (size bytes), if they fit. */
static bool take(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* "<prefix>-<64 hex>.scope" of a runtime, or a bare 64-hex component (cgroupfs drivers). */
static bool runtime_id(const char *comp, size_t n, char *id)
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-",
						"libpod-", "containerd-",     "nerdctl-" };
	size_t i, p;

	if (n == 64 && all_hex(comp, 64))
		return take(id, CGROUP_NAME_MAX, comp, 64);
	if (n < 6 || strncmp(comp + n - 6, ".scope", 6))
		return false;
	n -= 6;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		p = strlen(prefixes[i]);
		if (n == p + 64 && !strncmp(comp, prefixes[i], p) && all_hex(comp + p, 64))
			return take(id, CGROUP_NAME_MAX, comp + p, 64);
	}
	return false;
}

/* systemd's escaping of a unit name: "\x2d" is '-'. */
static bool unescape(char *out, size_t size, const char *s, size_t n)
{
	size_t i, o = 0;
	unsigned int v;

	for (i = 0; i < n; i++) {
		if (o + 1 >= size)
			return false;
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3]) &&
		    sscanf(s + i + 2, "%2x", &v) == 1) {
			out[o++] = (char)v;
			i += 3;
			continue;
		}
		out[o++] = s[i];
	}
	out[o] = '\0';
	return o > 0;
}

/* systemd-nspawn@NAME.service, machine-NAME.scope: a machine, named. */
static bool machine_name(const char *comp, size_t n, char *id)
{
	static const struct {
		const char *prefix, *suffix;
	} forms[] = { { "systemd-nspawn@", ".service" }, { "machine-", ".scope" } };
	size_t i, p, s;

	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		p = strlen(forms[i].prefix);
		s = strlen(forms[i].suffix);
		if (n > p + s && !strncmp(comp, forms[i].prefix, p) &&
		    !strncmp(comp + n - s, forms[i].suffix, s))
			return unescape(id, CGROUP_NAME_MAX, comp + p, n - p - s);
	}
	return false;
}

/*
 * A pod's uid: "pod<uid>" (cgroupfs), "kubepods[-qos]-pod<uid>.slice"
 * (systemd, the uid's '-' written '_').
 */
static bool pod_uid(const char *comp, size_t n, char *pod)
{
	const char *at = NULL;
	size_t i, len;

	if (n > 3 && !strncmp(comp, "pod", 3))
		at = comp + 3;
	else if (n > 6 && !strncmp(comp + n - 6, ".slice", 6) && !strncmp(comp, "kubepods", 8))
		at = strstr(comp, "-pod");
	if (!at)
		return false;
	if (at != comp + 3)
		at += 4;
	len = comp + n - at;
	if (len > 6 && !strncmp(at + len - 6, ".slice", 6))
		len -= 6;
	if (len != 36 || !take(pod, CGROUP_POD_MAX, at, len))
		return false;
	for (i = 0; i < len; i++) {
		if (pod[i] == '_')
			pod[i] = '-';
		if (pod[i] != '-' && !isxdigit((unsigned char)pod[i]))
			return false;
	}
	return true;
}

bool cgroup_container(const char *path, char id[CGROUP_NAME_MAX], char pod[CGROUP_POD_MAX])
{
	const char *comp, *end = path + strlen(path);
	size_t n;

	id[0] = pod[0] = '\0';
	/* From the deepest component up: the first container found is the process's. */
	while (end > path) {
		comp = end;
		while (comp > path && comp[-1] != '/')
			comp--;
		n = end - comp;
		if (!id[0] && n && !runtime_id(comp, n, id) && !machine_name(comp, n, id))
			id[0] = '\0';
		if (id[0] && !pod[0] && n && !pod_uid(comp, n, pod))
			pod[0] = '\0';
		end = comp > path ? comp - 1 : path;
	}
	if (!id[0])
		pod[0] = '\0';
	return id[0] != '\0';
}
