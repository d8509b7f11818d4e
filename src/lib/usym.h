/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space functions for uprobes: the ELF file a spec's target names
 * ("c", "libssl.so.3", "/usr/bin/bash", a library a process maps), and the
 * file offsets of its functions. No BPF, no kernel: ELF and /proc only.
 */
#ifndef KSNOOP_USYM_H
#define KSNOOP_USYM_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define USYM_NAME_MAX 256

/* A user-space function a uprobe attaches to. */
struct usym {
	char name[USYM_NAME_MAX];  /* the symbol's name, without @version */
	unsigned long long offset; /* file offset of its first instruction: what a uprobe takes */
	unsigned long long addr;   /* st_value, its ELF virtual address: where DWARF places it */
	unsigned long long size;   /* st_size, 0 when unknown */
	bool ifunc;		   /* STT_GNU_IFUNC: the resolver, not the implementation */
};

/*
 * The ELF file a spec's target names, into path (size bytes, bounded):
 *  - a path ("/usr/bin/bash", "./a.out", anything with a '/'): itself,
 *    after checking it exists and is an ELF file of this machine;
 *  - a library's short name as argdist takes it ("c" is libc.so.6,
 *    "pthread", "ssl"; "libc" and "libssl.so.3" too): from the dynamic
 *    linker's cache (/etc/ld.so.cache), else /lib/<triplet>,
 *    /usr/lib/<triplet>, /lib64, /usr/lib64, /lib, /usr/lib. The runtime
 *    name lib<name>.so.N wins over the development link lib<name>.so (a
 *    linker script, for libc), and only ELF files of this machine count;
 *  - with pid > 0, first the objects the process maps: a short name is a
 *    mapped file named lib<name>.so*, lib<name>-*.so* or the name itself.
 *    With pid > 0 every absolute path is opened through /proc/PID/root,
 *    so that a process in another mount namespace works, unless its root
 *    and mount namespace are ours.
 *  Of equally good names, the cache's win over the folders', an earlier
 *  folder's over a later one's, and in one place the later version
 *  (libssl.so.3 over libssl.so.1.1).
 * Returns 0, or reports one error naming target and returns -ENOENT (no
 * such file or library), -ENOEXEC (not an ELF executable or library of
 * this machine), -ESRCH (no process pid), -ENAMETOOLONG (the path does
 * not fit), -EINVAL (an empty target) or another -errno (a file that
 * cannot be read).
 */
int usym_resolve(const char *target, int pid, char *path, size_t size);

/*
 * usym_resolve's search for a library (target has no '/'), with the
 * directory root standing for "/": its etc/ld.so.cache and lib folders.
 * Tests give it a tree of their own; "" is the system's.
 */
int usym_resolve_lib(const char *root, const char *target, char *path, size_t size);

/*
 * The functions of the ELF file path whose names match pattern (the name,
 * or a glob of *, ? and [...]): STT_FUNC and STT_GNU_IFUNC symbols of
 * .symtab and .dynsym, defined, with a size or in an executable section.
 * Names lose any "@VERSION" or "@@VERSION". Names at one offset (aliases:
 * __libc_malloc and malloc) are one function, under the name that matched
 * (the first in file order when several did). Sorted by name; the first
 * max go into out (NULL when max is 0).
 * Returns how many matched in all, which may exceed max, or reports one
 * error and returns -ENOEXEC (not an ELF executable or shared object of
 * this machine), -EBADMSG (a damaged file: tables outside it, truncated),
 * -ENODATA (stripped: neither .symtab nor .dynsym), -ENOENT (no function
 * matches; for a name, the closest one the file has is suggested) or
 * another -errno (a file that cannot be read, out of memory).
 */
int usym_find(const char *path, const char *pattern, struct usym *out, int max);

/*
 * usym_find, and where the library at path has no function of that name
 * (not a glob), the first of the libraries it needs (DT_NEEDED, in its
 * folder) that has it: the definition a program linked against path
 * binds to (glibc 2.34 moved libpthread's functions into libc, leaving
 * libpthread.so.0 a stub that needs libc.so.6). The file that has the
 * function goes to def (size bytes). Errors as usym_find's for path.
 */
int usym_find_linked(const char *path, const char *pattern, struct usym *out, int max, char *def,
		     size_t size);

/*
 * The pieces ustack.c (the symbolizer of user stacks) shares: one reader
 * of /proc/PID/maps lines and one of ELF files, so that every file either
 * reads is checked the same way.
 */

/*
 * One line of f into buf (size bytes); a line too long for it is skipped
 * whole. false at the end of the file.
 */
bool usym_read_line(FILE *f, char *buf, size_t size);

/* A line of /proc/PID/maps: "start-end perms pgoff dev inode [path]". */
struct usym_map {
	unsigned long long start, end, pgoff;
	unsigned int dev_major, dev_minor;
	unsigned long inode;
	bool exec;
	bool deleted;	  /* the path ends in " (deleted)", which path keeps */
	const char *path; /* in the line ("/usr/bin/bash", "[vdso]"); NULL for none */
};

/* line, cut at its newline, into m; false when it is not a maps line. */
bool usym_maps_parse(char *line, struct usym_map *m);

/* Where an ELF reader's errors go: p_err, or p_dbg for a caller that must not print. */
typedef void (*usym_say_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * An ELF executable or shared object of this machine, open for reading
 * its functions: its headers and PT_LOAD segments are checked against the
 * file's size when it is opened, and each symbol table as it is walked.
 */
struct usym_elf {
	const char *path;
	int fd;
	Elf *elf;
	unsigned long long size; /* the file's */
	size_t shnum;
	GElf_Phdr *loads; /* its PT_LOAD segments */
	size_t nr_loads, cap_loads;
	usym_say_fn say;
};

/*
 * Open path (not copied: it must outlive ef). Returns 0, or says one line
 * through say and returns -ENOENT, -ENOEXEC (not an ELF file of this
 * machine), -EBADMSG (damaged) or another -errno. usym_elf_close ef
 * either way.
 */
int usym_elf_open(struct usym_elf *ef, const char *path, usym_say_fn say);
void usym_elf_close(struct usym_elf *ef);
/* Whether a section's bytes are all in the file (SHT_NOBITS has none). */
bool usym_elf_in_file(const struct usym_elf *ef, const GElf_Shdr *sh);

/* Whether ef has a section of type (SHT_SYMTAB) named name (any name when NULL), in the file. */
bool usym_elf_has_section(const struct usym_elf *ef, GElf_Word type, const char *name);

#define USYM_BUILD_ID_MAX 64

/* ef's NT_GNU_BUILD_ID into id (max bytes): its length, 0 when it has none. */
size_t usym_elf_build_id(const struct usym_elf *ef, unsigned char *id, size_t max);

typedef int (*usym_debug_cb)(void *ctx, struct usym_elf *dbg);

/*
 * The separate debug file of ef (Debian's -dbg packages), the object at
 * path as seen from the folder root ("" for /, "/proc/PID/root" for a
 * process's): root/usr/lib/debug/.build-id/xx/rest.debug, then the name
 * its .gnu_debuglink gives (a name, never a path) in path's folder, its
 * .debug/ and /usr/lib/debug/<folder>/. Each file there that has ef's
 * build-id is opened (its errors said through p_dbg) and handed to cb,
 * until cb returns nonzero; ef without a build-id has none, since only
 * the build-id tells a file of another build. Returns what cb returned,
 * or -ENOENT when no file took.
 */
int usym_debug_find(const struct usym_elf *ef, const char *root, const char *path, usym_debug_cb cb,
		    void *ctx);

typedef int (*usym_func_cb)(void *ctx, const char *name, const GElf_Sym *sym);

/*
 * cb for every function of .symtab and .dynsym (STT_FUNC and
 * STT_GNU_IFUNC, defined, with a size or in an executable section), in
 * file order, names as the table has them ("memcpy@GLIBC_2.2.5"). Stops
 * at the first nonzero cb return and returns it; -EBADMSG for a damaged
 * table (said once), -ENODATA (unsaid) when there are neither tables.
 */
int usym_elf_for_each_func(const struct usym_elf *ef, usym_func_cb cb, void *ctx);

#endif
