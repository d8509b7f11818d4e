/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This process's mounts (/proc/self/mountinfo): what a file that the
 * kernel knows by its file system and its path from that file system's
 * root is called here. One parser of mountinfo lines for the project.
 */
#ifndef KSNOOP_MOUNTS_H
#define KSNOOP_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

struct mount_entry {
	unsigned int major, minor; /* the file system's device */
	const char *root;	   /* the directory of it this mount shows, from its root */
	const char *point;	   /* where it is mounted, in this mount namespace */
	const char *fstype;
};

/*
 * A mountinfo line, cut at its newline, into e (pointing into line, its
 * \ooo escapes undone in place); false when it is not one.
 */
bool mountinfo_parse(char *line, struct mount_entry *e);

struct mounts;

/* NULL on no memory; mountinfo is read at the first lookup. */
struct mounts *mounts__new(void);
/* NULL-safe. */
void mounts__free(struct mounts *m);

/*
 * The path here of the file fs_path (from its file system's root, "/a/b")
 * on device major:minor whose inode is ino: the first mount of that file
 * system whose root holds fs_path, joined with the rest, where that path
 * is the very file (stat). Into out (size bytes); 0, or -ENOENT when no
 * mount shows it (mountinfo is read again then, at most once a second),
 * -ENAMETOOLONG.
 */
int mounts__path(struct mounts *m, unsigned int major, unsigned int minor, const char *fs_path,
		 unsigned long ino, char *out, size_t size);

/*
 * The same resolution on given entries, without stat (tests): the first
 * candidate path, or -ENOENT.
 */
int mounts_join(const struct mount_entry *entries, size_t nr, unsigned int major,
		unsigned int minor, const char *fs_path, size_t skip, char *out, size_t size);

/*
 * A path from its components as the kernel's dentries give them, the
 * file's name first and each up to the file system's root after it, each
 * ending in a NUL (depth of them in len bytes): "/root/.../name" into out.
 * 0, or -EINVAL (a component missing or empty, or none), -ENAMETOOLONG.
 */
int fs_path_from_leaf(const char *names, size_t len, unsigned int depth, char *out, size_t size);

#endif
