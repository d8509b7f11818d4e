// SPDX-License-Identifier: GPL-2.0
/*
 * This boot's copies of the kernel's symbol lists (see symcache.h). A copy
 * is "ksnoop symcache 1 KEY\n" then the file's bytes; it is written under
 * a temporary name and renamed, so a reader sees all of it or none.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/symcache.h"
#include "lib/util.h"

#define MAGIC "ksnoop symcache 1 "
#define KEY_MAX 96
#define HEADER_MAX (sizeof(MAGIC) + KEY_MAX + 1)
#define MODULES_MAX (4 << 20) /* /proc/modules bytes hashed at most */

const struct symcache_cfg symcache_system = {
	.dir = KSNOOP_RUN_DIR,
	.boot_id = "/proc/sys/kernel/random/boot_id",
	.modules = "/proc/modules",
};

struct symcache_copy {
	const struct symcache_cfg *cfg;
	int fd;
	bool failed;
	char key[KEY_MAX];
	char tmp[PATH_MAX];
	char path[PATH_MAX];
};

/* At most len - 1 bytes of a small file, NUL-terminated; -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (have < len - 1 && (n = read(fd, buf + have, len - 1 - have)) > 0)
		have += n;
	close(fd);
	buf[have] = 0;
	return have;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * /proc/modules lines are "name size refs deps state address": the
 * reference count moves as modules are used, the rest only when a module
 * is loaded, unloaded or replaced.
 */
static uint64_t hash_module_line(uint64_t h, char *line)
{
	char *save, *f;
	int i;

	for (i = 0, f = strtok_r(line, " ", &save); f; f = strtok_r(NULL, " ", &save), i++) {
		if (i != 2 && i != 3)
			h = fnv1a(h, f, strlen(f) + 1);
	}
	return h;
}

/* "BOOT-ID MODULES-HASH", or -errno when either cannot be read. */
static int cache_key(const struct symcache_cfg *cfg, char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char boot[64], *mods, *line, *save;
	ssize_t n = read_small(cfg->boot_id, boot, sizeof(boot));

	if (n <= 0)
		return n < 0 ? n : -ENODATA;
	boot[strcspn(boot, "\n")] = 0;
	mods = malloc(MODULES_MAX + 1);
	if (!mods)
		return -ENOMEM;
	n = read_small(cfg->modules, mods, MODULES_MAX + 1);
	if (n >= 0 && n < MODULES_MAX) {
		for (line = strtok_r(mods, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			h = hash_module_line(h, line);
	}
	free(mods);
	if (n < 0 || n >= MODULES_MAX)
		return n < 0 ? n : -EFBIG;
	snprintf(key, len, "%s %016llx", boot, (unsigned long long)h);
	return 0;
}

/* The copy at path, positioned after its header, if it is for key. */
static int open_copy(const char *path, const char *key)
{
	char want[HEADER_MAX], got[HEADER_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t n;

	if (fd < 0)
		return -1;
	n = snprintf(want, sizeof(want), MAGIC "%s\n", key);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || n >= sizeof(want) || pread(fd, got, n, 0) != (ssize_t)n ||
	    memcmp(got, want, n) || lseek(fd, n, SEEK_SET) != (off_t)n) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct symcache_copy *new_copy(const struct symcache_cfg *cfg, const char *path,
				      const char *key)
{
	struct symcache_copy *c = calloc(1, sizeof(*c));
	char header[HEADER_MAX];
	int n;

	if (!c)
		return NULL;
	c->cfg = cfg;
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (snprintf(c->tmp, sizeof(c->tmp), "%s.XXXXXX", path) >= (int)sizeof(c->tmp) ||
	    (c->fd = mkostemp(c->tmp, O_CLOEXEC)) < 0) {
		free(c);
		return NULL;
	}
	n = snprintf(header, sizeof(header), MAGIC "%s\n", key);
	symcache_write(c, header, n);
	return c;
}

/* This boot's key and the path of the copy named name; false when there is none to use. */
static bool copy_place(const struct symcache_cfg *cfg, const char *name, char *key, char *cpath)
{
	return !private_dir(cfg->dir) && !cache_key(cfg, key, KEY_MAX) &&
	       snprintf(cpath, PATH_MAX, "%s/symcache-%s", cfg->dir, name) < PATH_MAX;
}

int symcache_open(const struct symcache_cfg *cfg, const char *path, const char *name,
		  struct symcache_copy **copy)
{
	char key[KEY_MAX], cpath[PATH_MAX];
	int fd;

	*copy = NULL;
	if (copy_place(cfg, name, key, cpath)) {
		fd = open_copy(cpath, key);
		if (fd >= 0) {
			p_dbg("%s: this boot's copy", path);
			return fd;
		}
		*copy = new_copy(cfg, cpath, key);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		symcache_end(*copy, false);
		*copy = NULL;
	}
	return fd;
}

int symcache_open_copy(const struct symcache_cfg *cfg, const char *name)
{
	char key[KEY_MAX], cpath[PATH_MAX];

	return copy_place(cfg, name, key, cpath) ? open_copy(cpath, key) : -1;
}

struct symcache_copy *symcache_new(const struct symcache_cfg *cfg, const char *name)
{
	char key[KEY_MAX], cpath[PATH_MAX];

	return copy_place(cfg, name, key, cpath) ? new_copy(cfg, cpath, key) : NULL;
}

void symcache_write(struct symcache_copy *c, const void *buf, size_t len)
{
	ssize_t n;

	while (c && !c->failed && len) {
		n = write(c->fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			c->failed = true;
			break;
		}
		buf = (const char *)buf + n;
		len -= n;
	}
}

void symcache_end(struct symcache_copy *c, bool complete)
{
	char key[KEY_MAX];
	bool keep;

	if (!c)
		return;
	/* A module that came or went meanwhile may or may not be in it. */
	keep = complete && !c->failed && !cache_key(c->cfg, key, sizeof(key)) &&
	       !strcmp(key, c->key);
	if (close(c->fd) || !keep || rename(c->tmp, c->path)) {
		unlink(c->tmp);
	} else {
		p_dbg("%s: copy saved for this boot", c->path);
	}
	free(c);
}
