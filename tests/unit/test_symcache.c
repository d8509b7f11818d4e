// SPDX-License-Identifier: GPL-2.0
/*
 * lib/symcache.c: a copy is made on the first read, used while the boot
 * id and the modules are unchanged, and dropped when either changes or
 * the read was not complete. Files in a temporary directory stand in for
 * /proc and tracefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "lib/symcache.h"

struct env {
	char root[64];
	char dir[96], boot[96], modules[96], src[96];
	struct symcache_cfg cfg;
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	snprintf(e->root, sizeof(e->root), "/tmp/symcache.XXXXXX");
	assert_non_null(mkdtemp(e->root));
	snprintf(e->dir, sizeof(e->dir), "%s/run", e->root);
	snprintf(e->boot, sizeof(e->boot), "%s/boot_id", e->root);
	snprintf(e->modules, sizeof(e->modules), "%s/modules", e->root);
	snprintf(e->src, sizeof(e->src), "%s/available_filter_functions", e->root);
	put(e->boot, "5f0e6c1a-2b7d-4c59-9a3e-0d1f2e3c4b5a\n");
	put(e->modules, "dummy 16384 0 - Live 0xffffffffc0a00000\n"
			"nf_tables 262144 3 - Live 0xffffffffc0b00000\n");
	put(e->src, "vfs_read\nvfs_write\n");
	e->cfg = (struct symcache_cfg){ .dir = e->dir, .boot_id = e->boot, .modules = e->modules };
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->root);
	assert_int_equal(system(cmd), 0);
	free(e);
	return 0;
}

/* Read src through the cache as ksyms does; *copied: a copy was being made. */
static char *read_through(struct env *e, bool *copied, bool complete)
{
	struct symcache_copy *copy;
	char *buf = calloc(1, 4096);
	int fd = symcache_open(&e->cfg, e->src, "aff", &copy);
	ssize_t n;

	assert_true(fd >= 0);
	*copied = copy != NULL;
	n = read(fd, buf, 4095);
	assert_true(n >= 0);
	symcache_write(copy, buf, n);
	symcache_end(copy, complete);
	close(fd);
	return buf;
}

static void expect_read(struct env *e, const char *want, bool want_copied)
{
	bool copied;
	char *got = read_through(e, &copied, true);

	assert_string_equal(got, want);
	assert_int_equal(copied, want_copied);
	free(got);
}

static void test_copy_then_reuse(void **state)
{
	struct env *e = *state;
	struct stat st;
	char path[160];

	expect_read(e, "vfs_read\nvfs_write\n", true);
	snprintf(path, sizeof(path), "%s/symcache-aff", e->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(e->dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* The source changes, the key does not: the copy is what is read. */
	put(e->src, "changed\n");
	expect_read(e, "vfs_read\nvfs_write\n", false);
}

static void test_module_change_invalidates(void **state)
{
	struct env *e = *state;

	expect_read(e, "vfs_read\nvfs_write\n", true);
	put(e->src, "vfs_read\nvfs_write\ndummy_xmit\n");
	/* A reference count moving is no change ... */
	put(e->modules, "dummy 16384 7 - Live 0xffffffffc0a00000\n"
			"nf_tables 262144 3 - Live 0xffffffffc0b00000\n");
	expect_read(e, "vfs_read\nvfs_write\n", false);
	/* ... a module loaded again elsewhere is. */
	put(e->modules, "dummy 16384 0 - Live 0xffffffffc0c00000\n"
			"nf_tables 262144 3 - Live 0xffffffffc0b00000\n");
	expect_read(e, "vfs_read\nvfs_write\ndummy_xmit\n", true);
	expect_read(e, "vfs_read\nvfs_write\ndummy_xmit\n", false);
}

static void test_new_boot_invalidates(void **state)
{
	struct env *e = *state;

	expect_read(e, "vfs_read\nvfs_write\n", true);
	put(e->boot, "00000000-1111-2222-3333-444444444444\n");
	put(e->src, "after_reboot\n");
	expect_read(e, "after_reboot\n", true);
}

static void test_incomplete_read_not_kept(void **state)
{
	struct env *e = *state;
	bool copied;
	char *got = read_through(e, &copied, false);

	assert_true(copied);
	free(got);
	put(e->src, "second\n");
	expect_read(e, "second\n", true);
}

/* A directory others may write to is not used: the source is read. */
static void test_unsafe_dir_not_used(void **state)
{
	struct env *e = *state;
	bool copied;
	char *got;

	assert_int_equal(mkdir(e->dir, 0777), 0);
	assert_int_equal(chmod(e->dir, 0777), 0);
	got = read_through(e, &copied, true);
	assert_string_equal(got, "vfs_read\nvfs_write\n");
	assert_false(copied);
	free(got);
}

static void test_missing_source(void **state)
{
	struct env *e = *state;
	struct symcache_copy *copy;
	char path[160];
	struct stat st;

	unlink(e->src);
	assert_int_equal(symcache_open(&e->cfg, e->src, "aff", &copy), -ENOENT);
	assert_null(copy);
	snprintf(path, sizeof(path), "%s/symcache-aff", e->dir);
	assert_int_not_equal(stat(path, &st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_then_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_change_invalidates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_boot_invalidates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_read_not_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_dir_not_used, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_source, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
