/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a trace file: what ktrace agrees to fill with the data, the
 * environment and the file contents of the processes it traces.
 */
#ifndef KSNOOP_KTR_TRFILE_H
#define KSNOOP_KTR_TRFILE_H

#include <stdbool.h>
#include <sys/stat.h>

/*
 * True for a file system that stores files (a disk, network or memory
 * one), false for procfs, sysfs, debugfs and the like, whose "files" are
 * kernel interfaces, and for any unknown type. *name: the type's name, or
 * NULL when unknown.
 */
bool ktr_fs_stores_files(long magic, const char **name);

/*
 * Open path read-write for tracing (create: O_CREAT, and make it 0600).
 * Refuses, with the reason printed, a symbolic link, anything but a
 * regular file of our own with one link, and a file on a file system that
 * does not store files. Returns the fd with *st filled, or -errno.
 */
int ktr_trfile_open(const char *path, bool create, struct stat *st);

#endif
