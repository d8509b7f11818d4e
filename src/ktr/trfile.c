// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file check (see ktr_trfile.h). A trace holds what the traced
 * processes read and write and their environment: it must be private,
 * have one name, and be a real file. What the path named is checked
 * before the open (opening a device, FIFO or kernel file can have side
 * effects); what the fd is, after it, and that is what counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ktr/trfile.h"
#include "lib/outfile.h"
#include "lib/util.h"

#define TRFILE_MODE 0600

/* Not in every linux/magic.h. */
#define ZFS_MAGIC 0x2fc12fc1
#define BCACHEFS_MAGIC 0xca451a4e
#define NTFS_MAGIC 0x5346544e
#define JFS_MAGIC 0x3153464a
#define GFS2_MAGIC 0x01161970
#define CONFIGFS_MAGIC 0x62656570
#define FUSECTL_MAGIC 0x65735543

struct fs_type {
	long magic;
	const char *name;
	bool stores_files;
};

static const struct fs_type fs_types[] = {
	{ EXT4_SUPER_MAGIC, "ext4", true },
	{ XFS_SUPER_MAGIC, "xfs", true },
	{ BTRFS_SUPER_MAGIC, "btrfs", true },
	{ F2FS_SUPER_MAGIC, "f2fs", true },
	{ ZFS_MAGIC, "zfs", true },
	{ BCACHEFS_MAGIC, "bcachefs", true },
	{ TMPFS_MAGIC, "tmpfs", true },
	{ RAMFS_MAGIC, "ramfs", true },
	{ OVERLAYFS_SUPER_MAGIC, "overlay", true },
	{ ECRYPTFS_SUPER_MAGIC, "ecryptfs", true },
	{ NFS_SUPER_MAGIC, "nfs", true },
	{ SMB2_SUPER_MAGIC, "smb", true },
	{ CIFS_SUPER_MAGIC, "cifs", true },
	{ CEPH_SUPER_MAGIC, "ceph", true },
	{ AFS_FS_MAGIC, "afs", true },
	{ V9FS_MAGIC, "9p", true },
	{ FUSE_SUPER_MAGIC, "fuse", true },
	{ MSDOS_SUPER_MAGIC, "vfat", true },
	{ EXFAT_SUPER_MAGIC, "exfat", true },
	{ NTFS_MAGIC, "ntfs", true },
	{ JFS_MAGIC, "jfs", true },
	{ REISERFS_SUPER_MAGIC, "reiserfs", true },
	{ NILFS_SUPER_MAGIC, "nilfs2", true },
	{ OCFS2_SUPER_MAGIC, "ocfs2", true },
	{ GFS2_MAGIC, "gfs2", true },
	{ PROC_SUPER_MAGIC, "proc", false },
	{ SYSFS_MAGIC, "sysfs", false },
	{ DEBUGFS_MAGIC, "debugfs", false },
	{ TRACEFS_MAGIC, "tracefs", false },
	{ CGROUP_SUPER_MAGIC, "cgroup", false },
	{ CGROUP2_SUPER_MAGIC, "cgroup2", false },
	{ BPF_FS_MAGIC, "bpf", false },
	{ SECURITYFS_MAGIC, "securityfs", false },
	{ CONFIGFS_MAGIC, "configfs", false },
	{ PSTOREFS_MAGIC, "pstore", false },
	{ EFIVARFS_MAGIC, "efivarfs", false },
	{ SELINUX_MAGIC, "selinuxfs", false },
	{ SMACK_MAGIC, "smackfs", false },
	{ DEVPTS_SUPER_MAGIC, "devpts", false },
	{ HUGETLBFS_MAGIC, "hugetlbfs", false },
	{ BINFMTFS_MAGIC, "binfmt_misc", false },
	{ FUSECTL_MAGIC, "fusectl", false },
	{ NSFS_MAGIC, "nsfs", false },
};

bool ktr_fs_stores_files(long magic, const char **name)
{
	size_t i;

	/* f_type is a signed word: compare its low 32 bits, as stat(1) does. */
	magic &= 0xffffffffL;
	for (i = 0; i < ARRAY_SIZE(fs_types); i++) {
		if (fs_types[i].magic == magic) {
			*name = fs_types[i].name;
			return fs_types[i].stores_files;
		}
	}
	*name = NULL;
	return false;
}

/* Every output's rules, and ours alone: ktrace appends to a file it owns. */
static int check_stat(const char *path, const struct stat *st)
{
	int err = outfile_check_stat("trace file", path, st);

	if (err)
		return err;
	if (st->st_uid != geteuid()) {
		p_err("refusing trace file '%s': owned by uid %u, not %u", path,
		      (unsigned int)st->st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	return 0;
}

static int check_fs(const char *path, const struct statfs *sfs)
{
	const char *name;

	if (ktr_fs_stores_files(sfs->f_type, &name))
		return 0;
	if (name)
		p_err("refusing trace file '%s': it is on a %s file system, not one that stores files",
		      path, name);
	else
		p_err("refusing trace file '%s': it is on a file system of unknown type 0x%lx",
		      path, (unsigned long)sfs->f_type & 0xffffffffUL);
	return -EINVAL;
}

/* The opened file: the only check that cannot be raced. */
static int check_fd(const char *path, int fd, bool create, struct stat *st)
{
	struct statfs sfs;
	int err;

	if (fstat(fd, st) || fstatfs(fd, &sfs)) {
		err = -errno;
		p_err("cannot stat trace file '%s': %s", path, strerror(-err));
		return err;
	}
	err = check_stat(path, st);
	if (!err)
		err = check_fs(path, &sfs);
	/* Private before the first byte of the trace is written. */
	if (!err && create && (st->st_mode & 07777) != TRFILE_MODE && fchmod(fd, TRFILE_MODE)) {
		err = -errno;
		p_err("cannot make trace file '%s' mode 0600: %s", path, strerror(-err));
	}
	return err;
}

int ktr_trfile_open(const char *path, bool create, struct stat *st)
{
	struct statfs sfs;
	int fd, err;

	if (!lstat(path, st)) {
		err = check_stat(path, st);
		if (!err && !statfs(path, &sfs))
			err = check_fs(path, &sfs);
		if (err)
			return err;
	}
	fd = open(path,
		  O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (create ? O_CREAT : 0),
		  TRFILE_MODE);
	if (fd < 0) {
		err = -errno;
		if (err == -ELOOP)
			p_err("refusing trace file '%s': it is a symbolic link", path);
		else
			p_err("cannot open trace file '%s': %s", path, strerror(-err));
		return err;
	}
	err = check_fd(path, fd, create, st);
	if (err) {
		close(fd);
		return err;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
