// SPDX-License-Identifier: GPL-2.0
/*
 * lib/mounts.c: mountinfo lines as the kernel writes them (proc(5)'s
 * example, escapes, optional fields), lines that are none, the path a
 * file system's own path has here (root mounts, bind mounts of a
 * subdirectory, several mounts of one device), and paths rebuilt from the
 * components the kernel's dentries give, leaf first.
 */
#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "lib/mounts.h"

static void test_parse_proc5_example(void **state)
{
	char line[] = "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root "
		      "rw,errors=continue\n";
	struct mount_entry e;

	(void)state;
	assert_true(mountinfo_parse(line, &e));
	assert_int_equal(e.major, 98);
	assert_int_equal(e.minor, 0);
	assert_string_equal(e.root, "/mnt1");
	assert_string_equal(e.point, "/mnt/parent");
	assert_string_equal(e.fstype, "ext3");
}

/* No optional field, and a blank and a backslash in the mount point. */
static void test_parse_escapes(void **state)
{
	char line[] = "25 1 0:22 / /media/my\\040disk\\134x rw shared:7 unbindable - tmpfs tmp rw";
	struct mount_entry e;

	(void)state;
	assert_true(mountinfo_parse(line, &e));
	assert_string_equal(e.point, "/media/my disk\\x");
	assert_string_equal(e.root, "/");
	assert_string_equal(e.fstype, "tmpfs");
	assert_int_equal(e.minor, 22);
}

static void expect_not_parsed(const char *text)
{
	char line[256];
	struct mount_entry e;

	snprintf(line, sizeof(line), "%s", text);
	if (mountinfo_parse(line, &e))
		fail_msg("parsed: '%s'", text);
}

static void test_parse_refuses(void **state)
{
	(void)state;
	expect_not_parsed("");
	expect_not_parsed("36 35 98:0 /mnt1 /mnt/parent rw master:1 ext3 /dev/root rw");
	expect_not_parsed("36 35 98:0 /mnt1 /mnt/parent rw -");
	expect_not_parsed("36 35 98 /mnt1 /mnt/parent rw - ext3 /dev/root rw");
	expect_not_parsed("36 35 98:x /mnt1 /mnt/parent rw - ext3 /dev/root rw");
	expect_not_parsed("36 35 4096:0 /mnt1 /mnt/parent rw - ext3 /dev/root rw");
	expect_not_parsed("36 35 98:0 mnt1 /mnt/parent rw - ext3 /dev/root rw");
	expect_not_parsed("36 35 98:0");
}

static const struct mount_entry table[] = {
	{ 8, 1, "/", "/", "ext4" },
	{ 8, 2, "/", "/home", "ext4" },
	{ 8, 2, "/alice/src", "/srv/src", "ext4" },
	{ 0, 40, "/", "/tmp", "tmpfs" },
};

static void expect_join(unsigned int major, unsigned int minor, const char *fs_path, size_t skip,
			const char *want)
{
	char out[64];
	int err = mounts_join(table, ARRAY_SIZE(table), major, minor, fs_path, skip, out,
			      sizeof(out));

	if (!want) {
		assert_int_equal(err, -ENOENT);
		return;
	}
	assert_int_equal(err, 0);
	assert_string_equal(out, want);
}

static void test_join(void **state)
{
	char small[8];

	(void)state;
	expect_join(8, 1, "/usr/lib/libc.so.6", 0, "/usr/lib/libc.so.6");
	expect_join(8, 2, "/alice/bin/tool", 0, "/home/alice/bin/tool");
	/* one device mounted twice: the bind mount is the second candidate */
	expect_join(8, 2, "/alice/src/a.out", 0, "/home/alice/src/a.out");
	expect_join(8, 2, "/alice/src/a.out", 1, "/srv/src/a.out");
	expect_join(8, 2, "/alice/src/a.out", 2, NULL);
	/* a root is a prefix by whole components only */
	expect_join(8, 2, "/alice/srcs/x", 1, NULL);
	expect_join(8, 2, "/alice/src", 1, "/srv/src");
	expect_join(0, 40, "/prog", 0, "/tmp/prog");
	expect_join(8, 3, "/x", 0, NULL);
	assert_int_equal(mounts_join(table, ARRAY_SIZE(table), 0, 40, "/longer-name", 0, small,
				     sizeof(small)),
			 -ENAMETOOLONG);
}

static void test_path_from_leaf(void **state)
{
	static const char names[] = "libc.so.6\0x86_64-linux-gnu\0lib\0usr";
	static const char empty[] = "a\0\0b";
	char out[64], small[10];

	(void)state;
	assert_int_equal(fs_path_from_leaf(names, sizeof(names), 4, out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(fs_path_from_leaf(names, sizeof(names), 1, out, sizeof(out)), 0);
	assert_string_equal(out, "/libc.so.6");
	/* more components than the bytes hold, an empty one, none */
	assert_int_equal(fs_path_from_leaf(names, sizeof(names), 5, out, sizeof(out)), -EINVAL);
	assert_int_equal(fs_path_from_leaf(empty, sizeof(empty), 2, out, sizeof(out)), -EINVAL);
	assert_int_equal(fs_path_from_leaf(names, sizeof(names), 0, out, sizeof(out)), -EINVAL);
	/* a component that runs to the end unterminated */
	assert_int_equal(fs_path_from_leaf(names, 9, 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(fs_path_from_leaf(names, sizeof(names), 2, small, sizeof(small)),
			 -ENAMETOOLONG);
}

/* This process's own mounts: its root is one, at "/". */
static void test_self(void **state)
{
	struct mounts *m = mounts__new();
	char out[4096];

	(void)state;
	assert_non_null(m);
	assert_int_equal(mounts__path(m, 0xfff, 0xfffff, "/x", 1, out, sizeof(out)), -ENOENT);
	assert_int_equal(mounts__path(m, 0, 0, "relative", 1, out, sizeof(out)), -ENOENT);
	mounts__free(m);
	mounts__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_proc5_example), cmocka_unit_test(test_parse_escapes),
		cmocka_unit_test(test_parse_refuses),	    cmocka_unit_test(test_join),
		cmocka_unit_test(test_path_from_leaf),	    cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
