/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files ksnoop writes (trace -o, graph -o, kdump -o, --textfile), by
 * the rules of ktrace's trace file: they hold kernel data, comms, file
 * contents and environments, so a path never leads them somewhere the
 * user did not name, and nobody else reads them unless the user says so.
 */
#ifndef KSNOOP_OUTFILE_H
#define KSNOOP_OUTFILE_H

#include <stdio.h>
#include <sys/stat.h>

/* A new file's mode; a file that exists keeps its own (the user chose it). */
#define OUTFILE_MODE 0600

/*
 * 0, or -errno after "Error: refusing WHAT 'PATH': ..." when st is a
 * symbolic link, not a regular file, or a file with other hard links
 * (through which we would write a file the user did not name).
 */
int outfile_check_stat(const char *what, const char *path, const struct stat *st);

/*
 * Open path to write it from the start, O_CLOEXEC: what is there is
 * checked before the open (opening a device or a FIFO can have side
 * effects, or block), opened without following a symbolic link or
 * blocking, checked again as opened, then truncated. what names it in
 * the one error line ("output file"). Returns the fd or -errno.
 */
int outfile_open(const char *what, const char *path);
/* The same as a stdio stream, or NULL. */
FILE *outfile_fopen(const char *what, const char *path);

/*
 * A new file from tmpl (mkstemp's "...XXXXXX", filled in), O_CLOEXEC, to
 * be renamed over path: mode OUTFILE_MODE, or path's when it is a file
 * already. Returns the fd, or -errno (nothing printed: the caller names
 * path, not the temporary name).
 */
int outfile_temp(char *tmpl, const char *path);

#endif
