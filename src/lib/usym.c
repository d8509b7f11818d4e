// SPDX-License-Identifier: GPL-2.0
/*
 * What a uprobe attaches to: the ELF file a target names, and the file
 * offset of a function in it; its readers of maps lines and ELF files are
 * ustack.c's too. Every table of a file (the linker's cache, ELF headers
 * and symbol tables) is checked against the file's size before it is
 * read: a damaged file is an error, never a crash.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/usym.h"
#include "lib/util.h"

/*
 * The machine whose files ksnoop can probe: its own. Debian's multiarch
 * triplet names its library folders.
 */
#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#define MULTIARCH "aarch64-linux-gnu"
#else
/* Elsewhere the class alone is checked, and no triplet folder is searched. */
#define NATIVE_MACHINE EM_NONE
#define MULTIARCH NULL
#endif
#define NATIVE_CLASS (sizeof(long) == 8 ? ELFCLASS64 : ELFCLASS32)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* e_type and e_machine follow e_ident in both classes. */
#define IDENT_LEN (EI_NIDENT + 4)

/* Why an ELF file's first bytes h (n of them) are not one this machine runs; NULL when they are. */
static const char *ident_why(const unsigned char *h, size_t n)
{
	uint16_t type, machine;

	if (n < IDENT_LEN || memcmp(h, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (h[EI_CLASS] != NATIVE_CLASS || h[EI_DATA] != NATIVE_DATA)
		return "an ELF file of another class or byte order than this machine's";
	memcpy(&type, h + EI_NIDENT, sizeof(type));
	memcpy(&machine, h + EI_NIDENT + 2, sizeof(machine));
	if (NATIVE_MACHINE != EM_NONE && machine != NATIVE_MACHINE)
		return "an ELF file for another machine";
	if (type != ET_EXEC && type != ET_DYN)
		return "an ELF file that is not an executable or a shared library";
	return NULL;
}

/* What a file's first bytes say of it. */
struct file_head {
	unsigned long long size;
	const char *why; /* why it is not an ELF file of this machine, NULL when it is */
};

/*
 * Open path, an ELF file of this machine: its descriptor, or -errno
 * (-ENOEXEC, with fh->why, for any other file).
 */
static int open_file(const char *path, struct file_head *fh)
{
	unsigned char h[IDENT_LEN];
	struct stat st;
	ssize_t got;
	int fd, err;

	fh->why = NULL;
	/* O_NONBLOCK: a FIFO is no ELF file, and must not hang the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	fh->size = st.st_size;
	if (!S_ISREG(st.st_mode)) {
		fh->why = S_ISDIR(st.st_mode) ? "a directory, not an ELF file"
					      : "not a regular file";
		err = -ENOEXEC;
		goto fail;
	}
	got = pread(fd, h, sizeof(h), 0);
	if (got < 0) {
		err = -errno;
		goto fail;
	}
	fh->why = ident_why(h, got);
	if (!fh->why)
		return fd;
	err = -ENOEXEC;
fail:
	close(fd);
	return err;
}

/* One line through say for open_file's err on path. */
static int err_file(usym_say_fn say, const char *path, int err, const struct file_head *fh)
{
	char clip[CLIP_BUF];

	if (err == -ENOENT)
		say("%s: no such file", str_clip(path, clip));
	else if (err == -ENOEXEC)
		say("%s is %s", str_clip(path, clip), fh->why);
	else
		say("cannot read %s: %s", str_clip(path, clip), err_text(err));
	return err;
}

/* 0 when path is an ELF file this machine runs, else -ENOEXEC or -errno. */
static int elf_native(const char *path, struct file_head *fh)
{
	int fd = open_file(path, fh);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* a, b and c into path (size bytes): 0, or -ENAMETOOLONG when they do not fit. */
static int join(char *path, size_t size, const char *a, const char *b, const char *c)
{
	int n = snprintf(path, size, "%s%s%s", a, b, c);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The file at path checked as a target: 0, or one error line and -errno. */
static int check_target(const char *path)
{
	struct file_head fh;
	int err = elf_native(path, &fh);

	return err ? err_file(p_err, path, err, &fh) : 0;
}

static int resolve_path(const char *root, const char *target, char *path, size_t size)
{
	char clip[CLIP_BUF];

	/* A relative path names a file of ours, wherever the process is. */
	if (target[0] != '/')
		root = "";
	if (join(path, size, root, target, "")) {
		p_err("%s%s: the path is longer than %zu bytes", root, str_clip(target, clip),
		      size ? size - 1 : 0);
		return -ENAMETOOLONG;
	}
	return check_target(path);
}

/* A library as a target names it: "c", "libc", "libc.so", "libssl.so.3". */
struct libname {
	const char *target;
	/* "c": what comes between "lib" and ".so"; NULL for a versioned file name */
	const char *stem;
	size_t stem_len;
};

static void libname_init(struct libname *ln, const char *target)
{
	const char *s = strncmp(target, "lib", 3) ? target : target + 3;
	size_t len = strlen(s);

	ln->target = target;
	ln->stem = NULL;
	ln->stem_len = 0;
	if (len > 3 && !strcmp(s + len - 3, ".so"))
		len -= 3;
	if (!len || memmem(s, len, ".so.", 4))
		return;
	ln->stem = s;
	ln->stem_len = len;
}

/* Whether s has ".so" as a whole component: at its end, or before a '.'. */
static bool has_so(const char *s)
{
	const char *so;

	for (so = strstr(s, ".so"); so; so = strstr(so + 1, ".so")) {
		if (!so[3] || so[3] == '.')
			return true;
	}
	return false;
}

#define RANK_NONE 3

/*
 * How well a file name base names the library, best first: 0 its runtime
 * name lib<stem>.so.N (or the target itself), 1 lib<stem>-VERSION.so*, 2
 * the development link lib<stem>.so, which is often a linker script;
 * RANK_NONE when it does not.
 */
static int lib_rank(const char *base, const struct libname *ln)
{
	const char *rest;

	if (!strcmp(base, ln->target))
		return 0;
	if (!ln->stem || strncmp(base, "lib", 3) || strncmp(base + 3, ln->stem, ln->stem_len))
		return RANK_NONE;
	rest = base + 3 + ln->stem_len;
	if (!strncmp(rest, ".so.", 4) && rest[4])
		return 0;
	if (rest[0] == '-' && has_so(rest))
		return 1;
	if (!strcmp(rest, ".so"))
		return 2;
	return RANK_NONE;
}

/* The best file found so far for a library. */
struct lib_pick {
	char path[PATH_MAX];
	int rank;
	int where; /* which folder (or the cache, or the maps) it came from */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Offer root + file, of rank, found in where. It is taken when it ranks
 * better than the pick, or as well in the same place and is a later
 * version (libssl.so.3 over libssl.so.1.1), and is an ELF file of this
 * machine.
 */
static void lib_offer(struct lib_pick *p, const char *root, const char *file, int rank, int where)
{
	char path[PATH_MAX];
	struct file_head fh;

	if (rank > p->rank ||
	    (rank == p->rank &&
	     (where != p->where || strverscmp(base_name(file), base_name(p->path)) <= 0)))
		return;
	if (join(path, sizeof(path), root, file, "") || elf_native(path, &fh))
		return;
	memcpy(p->path, path, sizeof(path));
	p->rank = rank;
	p->where = where;
}

/*
 * glibc's ld.so.cache, "new" format (glibc's struct cache_file_new and
 * file_entry_new). Before glibc 2.32 it may follow a table of the old
 * format (ld.so-1.7.0) in the same file. The strings' offsets count from
 * the new table's header.
 */
#define CACHE_MAGIC_NEW "glibc-ld.so.cache1.1"
#define CACHE_MAGIC_OLD "ld.so-1.7.0"
#define CACHE_OLD_HEADER 16 /* magic, padded, and nlibs */
#define CACHE_OLD_ENTRY 12  /* flags, key, value */
#define CACHE_MAX (64 << 20)

struct cache_header {
	char magic[sizeof(CACHE_MAGIC_NEW) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct cache_entry {
	int32_t flags;
	uint32_t key, value; /* library name ("libc.so.6") and path */
	uint32_t osversion;
	uint64_t hwcap;
};

_Static_assert(sizeof(struct cache_header) == 48, "glibc's struct cache_file_new");
_Static_assert(sizeof(struct cache_entry) == 24, "glibc's struct file_entry_new");

/* The new-format table of a cache (size bytes at map), or NULL when none fits in it. */
static const struct cache_header *cache_table(const char *map, size_t size)
{
	const struct cache_header *h;
	uint64_t off = 0;
	uint32_t nold;

	if (size >= CACHE_OLD_HEADER &&
	    !memcmp(map, CACHE_MAGIC_OLD, sizeof(CACHE_MAGIC_OLD) - 1)) {
		memcpy(&nold, map + CACHE_OLD_HEADER - 4, sizeof(nold));
		off = CACHE_OLD_HEADER + (uint64_t)nold * CACHE_OLD_ENTRY;
		off = (off + _Alignof(struct cache_entry) - 1) &
		      ~(uint64_t)(_Alignof(struct cache_entry) - 1);
	}
	if (off > size || size - off < sizeof(*h) ||
	    memcmp(map + off, CACHE_MAGIC_NEW, sizeof(h->magic)))
		return NULL;
	h = (const struct cache_header *)(map + off);
	if (h->nlibs > (size - off - sizeof(*h)) / sizeof(struct cache_entry))
		return NULL;
	return h;
}

/* The string at off of the avail bytes at base, or NULL when it does not end in them. */
static const char *cache_str(const char *base, size_t avail, uint32_t off)
{
	return off < avail && memchr(base + off, '\0', avail - off) ? base + off : NULL;
}

static void cache_search(const char *map, size_t size, const char *root, const struct libname *ln,
			 struct lib_pick *p)
{
	const struct cache_header *h = cache_table(map, size);
	const struct cache_entry *e;
	size_t avail;
	uint32_t i;

	if (!h) {
		p_dbg("%s/etc/ld.so.cache: not a glibc cache of a known format", root);
		return;
	}
	avail = map + size - (const char *)h;
	e = (const struct cache_entry *)(h + 1);
	for (i = 0; i < h->nlibs; i++, e++) {
		const char *key = cache_str((const char *)h, avail, e->key);
		const char *value = cache_str((const char *)h, avail, e->value);

		if (key && value && value[0] == '/')
			lib_offer(p, root, value, lib_rank(key, ln), -1);
	}
}

/* The library in the linker's cache under root, into p. */
static void cache_lookup(const char *root, const struct libname *ln, struct lib_pick *p)
{
	char path[PATH_MAX];
	struct stat st;
	void *map;
	int fd;

	if (join(path, sizeof(path), root, "/etc/ld.so.cache", ""))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size || st.st_size > CACHE_MAX) {
		close(fd);
		return;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	cache_search(map, st.st_size, root, ln, p);
	munmap(map, st.st_size);
}

/* The library in folder dir (the where-th searched) under root, into p. */
static void dir_search(const char *root, const char *dir, int where, const struct libname *ln,
		       struct lib_pick *p)
{
	char path[PATH_MAX], file[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	if (join(path, sizeof(path), root, dir, ""))
		return;
	dp = opendir(path);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		int rank = lib_rank(d->d_name, ln);

		if (rank < RANK_NONE && !join(file, sizeof(file), dir, "/", d->d_name))
			lib_offer(p, root, file, rank, where);
	}
	closedir(dp);
}

/* Where libraries live when the cache does not have one: the triplet's folders first. */
static void dirs_lookup(const char *root, const struct libname *ln, struct lib_pick *p)
{
	static const char *const dirs[] = { "/lib/",	  "/usr/lib/", "/lib64",
					    "/usr/lib64", "/lib",      "/usr/lib" };
	char dir[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs) && p->rank; i++) {
		/* The first two are the triplet's. */
		if (i < 2 && (!MULTIARCH || join(dir, sizeof(dir), dirs[i], MULTIARCH, "")))
			continue;
		dir_search(root, i < 2 ? dir : dirs[i], i, ln, p);
	}
}

/* The pick into path (size bytes): 0, or one error line and -ENAMETOOLONG. */
static int lib_picked(const struct lib_pick *p, const char *target, char *path, size_t size)
{
	char clip[CLIP_BUF];

	if (join(path, size, p->path, "", "")) {
		p_err("library '%s' is %s, longer than %zu bytes", str_clip(target, clip), p->path,
		      size ? size - 1 : 0);
		return -ENAMETOOLONG;
	}
	p_dbg("library '%s' is %s", target, path);
	return 0;
}

static void lib_lookup(const char *root, const struct libname *ln, struct lib_pick *p)
{
	cache_lookup(root, ln, p);
	if (p->rank)
		dirs_lookup(root, ln, p);
}

static int err_no_lib(const struct libname *ln, int pid)
{
	char clip[CLIP_BUF], mapped[64] = "";

	if (pid > 0)
		snprintf(mapped, sizeof(mapped), " mapped by process %d,", pid);
	if (ln->stem)
		p_err("no library '%s' (lib%.*s.so)%s in the linker cache or /lib, /usr/lib",
		      str_clip(ln->target, clip), (int)min(ln->stem_len, (size_t)CLIP_MAX),
		      ln->stem, mapped);
	else
		p_err("no library '%s'%s in the linker cache or /lib, /usr/lib",
		      str_clip(ln->target, clip), mapped);
	return -ENOENT;
}

int usym_resolve_lib(const char *root, const char *target, char *path, size_t size)
{
	struct lib_pick p = { .rank = RANK_NONE };
	struct libname ln;

	libname_init(&ln, target);
	lib_lookup(root, &ln, &p);
	if (p.rank == RANK_NONE)
		return err_no_lib(&ln, 0);
	return lib_picked(&p, target, path, size);
}

bool usym_maps_parse(char *line, struct usym_map *m)
{
	char perms[8];
	size_t len;
	int pos = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &m->start, &m->end, perms, &m->pgoff,
		   &m->dev_major, &m->dev_minor, &m->inode, &pos) != 7 ||
	    !pos)
		return false;
	m->exec = strlen(perms) > 2 && perms[2] == 'x';
	m->path = line[pos] ? line + pos : NULL;
	len = m->path ? strlen(m->path) : 0;
	m->deleted = len > 10 && !strcmp(m->path + len - 10, " (deleted)");
	return true;
}

/* The file of a line of /proc/PID/maps, or NULL when it maps none that is still there. */
static const char *maps_file(char *line)
{
	struct usym_map m;

	if (!usym_maps_parse(line, &m) || !m.inode || !m.path || m.path[0] != '/' || m.deleted)
		return NULL;
	return m.path;
}

bool usym_read_line(FILE *f, char *buf, size_t size)
{
	int c;

	while (fgets(buf, size, f)) {
		if (strchr(buf, '\n') || feof(f))
			return true;
		while ((c = getc(f)) != EOF && c != '\n')
			;
	}
	return false;
}

/* The library among the files pid maps, through root, into p. */
static int maps_lookup(int pid, const char *root, const struct libname *ln, struct lib_pick *p)
{
	char maps[32], line[PATH_MAX + 128];
	const char *file;
	FILE *f;
	int err;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f) {
		err = -errno;
		if (err == -ENOENT) {
			p_err("no process %d", pid);
			return -ESRCH;
		}
		p_err("cannot read %s: %s", maps, err_text(err));
		return err;
	}
	while (usym_read_line(f, line, sizeof(line))) {
		file = maps_file(line);
		if (file)
			lib_offer(p, root, file, lib_rank(base_name(file), ln), -2);
	}
	fclose(f);
	return 0;
}

/* Whether a and b are known to be different files (false when either cannot be read). */
static bool differ(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino);
}

/*
 * The prefix that opens pid's files as it sees them, into root: "" when
 * its root directory and mount namespace are ours (or cannot be read, when
 * the prefix would not open them either), else "/proc/PID/root".
 */
static int process_root(int pid, char *root, size_t size)
{
	char dir[32], ns[48];
	struct stat st;

	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (stat(dir, &st)) {
		int err = -errno;

		if (err != -ENOENT) {
			p_err("cannot read %s: %s", dir, err_text(err));
			return err;
		}
		p_err("no process %d", pid);
		return -ESRCH;
	}
	snprintf(root, size, "/proc/%d/root", pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", pid);
	if (!differ(root, "/") && !differ(ns, "/proc/self/ns/mnt"))
		root[0] = '\0';
	return 0;
}

int usym_resolve(const char *target, int pid, char *path, size_t size)
{
	struct lib_pick p = { .rank = RANK_NONE };
	char root[32] = "";
	struct libname ln;
	int err;

	if (!target[0]) {
		p_err("empty target: name an ELF file or a library");
		return -EINVAL;
	}
	if (pid > 0) {
		err = process_root(pid, root, sizeof(root));
		if (err)
			return err;
	}
	if (strchr(target, '/'))
		return resolve_path(root, target, path, size);
	libname_init(&ln, target);
	if (pid > 0) {
		err = maps_lookup(pid, root, &ln, &p);
		if (err)
			return err;
	}
	if (p.rank == RANK_NONE)
		lib_lookup(root, &ln, &p);
	if (p.rank == RANK_NONE)
		return err_no_lib(&ln, pid);
	return lib_picked(&p, target, path, size);
}

static int damaged(const struct usym_elf *ef, const char *why)
{
	char clip[CLIP_BUF];

	ef->say("%s is a damaged ELF file: %s", str_clip(ef->path, clip), why);
	return -EBADMSG;
}

/* Whether n entries of type at off, entsize bytes each, are all in the file, after its header. */
static bool table_in_file(const struct usym_elf *ef, unsigned long long off, size_t n,
			  size_t entsize, Elf_Type type)
{
	if (!n)
		return !off;
	return entsize == gelf_fsize(ef->elf, type, 1, EV_CURRENT) &&
	       off >= gelf_fsize(ef->elf, ELF_T_EHDR, 1, EV_CURRENT) && off <= ef->size &&
	       n <= (ef->size - off) / entsize;
}

/*
 * The section and program headers lie in the file: libelf reads a table
 * cut short as no table (a truncated file would look stripped).
 */
static int check_headers(struct usym_elf *ef, size_t *phnum)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(ef->elf, &eh) || elf_getshdrnum(ef->elf, &ef->shnum) ||
	    elf_getphdrnum(ef->elf, phnum))
		return damaged(ef, elf_errmsg(-1));
	if (!table_in_file(ef, eh.e_shoff, ef->shnum, eh.e_shentsize, ELF_T_SHDR))
		return damaged(ef, "the section headers lie outside the file");
	if (!table_in_file(ef, eh.e_phoff, *phnum, eh.e_phentsize, ELF_T_PHDR))
		return damaged(ef, "the program headers lie outside the file");
	return 0;
}

static int read_loads(struct usym_elf *ef)
{
	size_t i, n;
	GElf_Phdr ph;
	int err;

	err = check_headers(ef, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return damaged(ef, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!grow_array(&ef->loads, &ef->cap_loads, ef->nr_loads, sizeof(ph), 4)) {
			ef->say("reading an ELF file's segments: %s", err_text(ENOMEM));
			return -ENOMEM;
		}
		ef->loads[ef->nr_loads++] = ph;
	}
	return 0;
}

void usym_elf_close(struct usym_elf *ef)
{
	elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef->loads);
}

int usym_elf_open(struct usym_elf *ef, const char *path, usym_say_fn say)
{
	struct file_head fh;

	memset(ef, 0, sizeof(*ef));
	ef->path = path;
	ef->say = say;
	ef->fd = open_file(path, &fh);
	if (ef->fd < 0)
		return err_file(say, path, ef->fd, &fh);
	ef->size = fh.size;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		say("libelf: %s", elf_errmsg(-1));
		return -ENOTSUP;
	}
	/* ELF_C_READ, not _MMAP: a file cut short while it is read is no SIGBUS. */
	ef->elf = elf_begin(ef->fd, ELF_C_READ, NULL);
	if (!ef->elf)
		return damaged(ef, elf_errmsg(-1));
	return read_loads(ef);
}

bool usym_elf_in_file(const struct usym_elf *ef, const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_NOBITS ||
	       (sh->sh_offset <= ef->size && sh->sh_size <= ef->size - sh->sh_offset);
}

bool usym_elf_has_section(const struct usym_elf *ef, GElf_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	const char *sn;
	size_t strndx;
	GElf_Shdr sh;

	if (name && elf_getshdrstrndx(ef->elf, &strndx))
		return false;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !usym_elf_in_file(ef, &sh))
			continue;
		sn = name ? elf_strptr(ef->elf, strndx, sh.sh_name) : NULL;
		if (!name || (sn && !strcmp(sn, name)))
			return true;
	}
	return false;
}

size_t usym_elf_build_id(const struct usym_elf *ef, unsigned char *id, size_t max)
{
	size_t off, next, name_off, desc_off;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Nhdr nh;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !usym_elf_in_file(ef, &sh))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		/* gelf_getnote checks each note against the section's size. */
		for (off = 0; (next = gelf_getnote(data, off, &nh, &name_off, &desc_off));
		     off = next) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz > max)
				continue;
			memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

/*
 * The file name .gnu_debuglink gives into buf (size bytes): a name, never
 * a path, so that it cannot lead out of the folders searched. false when
 * there is none.
 */
static bool read_debuglink(const struct usym_elf *ef, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t shstrndx, len;

	if (elf_getshdrstrndx(ef->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !usym_elf_in_file(ef, &sh))
			continue;
		name = elf_strptr(ef->elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return false;
		len = strnlen(data->d_buf, data->d_size);
		if (!len || len >= data->d_size || len >= size || memchr(data->d_buf, '/', len) ||
		    !strcmp(data->d_buf, ".") || !strcmp(data->d_buf, ".."))
			return false;
		memcpy(buf, data->d_buf, len + 1);
		return true;
	}
	return false;
}

#define DEBUG_DIR "/usr/lib/debug"

/* What the search for a debug file knows of the object. */
struct debug_of {
	const char *root, *path, *link; /* link: NULL without .gnu_debuglink */
	unsigned char id[USYM_BUILD_ID_MAX];
	size_t id_len;
};

/* Where a debug file may be, the which-th place, into out; false when there is no such place. */
static bool debug_path(const struct debug_of *d, int which, struct strbuf *out)
{
	const char *slash = strrchr(d->path, '/');
	int dir = slash ? (int)(slash - d->path) : 0;
	size_t i;

	sb_reset(out);
	sb_printf(out, "%s", d->root);
	if (which == 0) {
		sb_printf(out, DEBUG_DIR "/.build-id/%02x/", d->id[0]);
		for (i = 1; i < d->id_len; i++)
			sb_printf(out, "%02x", d->id[i]);
		sb_printf(out, ".debug");
		return true;
	}
	/* A folder of a relative path is relative to ours; it has no place in /usr/lib/debug. */
	if (!slash || !d->link || (which == 3 && d->path[0] != '/'))
		return false;
	switch (which) {
	case 1:
		sb_printf(out, "%.*s/%s", dir, d->path, d->link);
		return true;
	case 2:
		sb_printf(out, "%.*s/.debug/%s", dir, d->path, d->link);
		return true;
	case 3:
		sb_printf(out, DEBUG_DIR "%.*s/%s", dir, d->path, d->link);
		return true;
	}
	return false;
}

/* The debug file at path handed to cb when it has the object's build-id; 0 when it is not its. */
static int debug_try(const struct debug_of *d, const char *path, usym_debug_cb cb, void *ctx)
{
	unsigned char id[USYM_BUILD_ID_MAX];
	struct usym_elf dbg;
	int ret = 0;

	/* Most places have none: say nothing of them. */
	if (access(path, F_OK))
		return 0;
	if (!usym_elf_open(&dbg, path, p_dbg)) {
		if (usym_elf_build_id(&dbg, id, sizeof(id)) == d->id_len &&
		    !memcmp(id, d->id, d->id_len))
			ret = cb(ctx, &dbg);
		else
			p_dbg("%s is not the debug file of %s: another build-id", path, d->path);
	}
	usym_elf_close(&dbg);
	return ret;
}

int usym_debug_find(const struct usym_elf *ef, const char *root, const char *path, usym_debug_cb cb,
		    void *ctx)
{
	struct debug_of d = { .root = root, .path = path };
	char link[NAME_MAX + 1];
	struct strbuf where;
	int i, ret = 0;

	d.id_len = usym_elf_build_id(ef, d.id, sizeof(d.id));
	if (!d.id_len)
		return -ENOENT;
	if (read_debuglink(ef, link, sizeof(link)))
		d.link = link;
	sb_init(&where);
	for (i = 0; i < 4 && !ret; i++) {
		if (debug_path(&d, i, &where) && !where.oom)
			ret = debug_try(&d, sb_str(&where), cb, ctx);
	}
	sb_free(&where);
	return ret ?: -ENOENT;
}

/* The file offset of vaddr, from the segment that loads it; false when none does. */
static bool file_offset(const struct usym_elf *ef, unsigned long long vaddr,
			unsigned long long *off)
{
	size_t i;

	for (i = 0; i < ef->nr_loads; i++) {
		const GElf_Phdr *ph = &ef->loads[i];

		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_filesz) {
			*off = ph->p_offset + (vaddr - ph->p_vaddr);
			return *off < ef->size;
		}
	}
	return false;
}

/*
 * A function defined here: with a size, or where code is (an assembly
 * entry point may have none).
 */
static bool is_func(const struct usym_elf *ef, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;

	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_shndx == SHN_UNDEF)
		return false;
	if (sym->st_size)
		return true;
	return sym->st_shndx < SHN_LORESERVE && sym->st_shndx < ef->shnum &&
	       gelf_getshdr(elf_getscn(ef->elf, sym->st_shndx), &sh) &&
	       (sh.sh_flags & SHF_EXECINSTR);
}

static int walk_table(const struct usym_elf *ef, Elf_Scn *scn, const GElf_Shdr *sh, usym_func_cb cb,
		      void *ctx)
{
	size_t i, n, entsize = gelf_fsize(ef->elf, ELF_T_SYM, 1, EV_CURRENT);
	const char *name;
	Elf_Data *data;
	GElf_Shdr strsh;
	GElf_Sym sym;
	int err;

	if (!usym_elf_in_file(ef, sh))
		return damaged(ef, "a symbol table lies outside the file");
	if (sh->sh_entsize != entsize)
		return damaged(ef, "a symbol table's entries have the wrong size");
	if (!sh->sh_link || sh->sh_link >= ef->shnum ||
	    !gelf_getshdr(elf_getscn(ef->elf, sh->sh_link), &strsh) ||
	    strsh.sh_type != SHT_STRTAB || !usym_elf_in_file(ef, &strsh))
		return damaged(ef, "a symbol table's string table is missing or outside the file");
	data = elf_getdata(scn, NULL);
	if (!data)
		return damaged(ef, elf_errmsg(-1));
	n = data->d_size / entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, i, &sym))
			return damaged(ef, elf_errmsg(-1));
		if (!sym.st_name || !is_func(ef, &sym))
			continue;
		name = elf_strptr(ef->elf, sh->sh_link, sym.st_name);
		if (!name)
			return damaged(ef, "a symbol's name lies outside its string table");
		err = cb(ctx, name, &sym);
		if (err)
			return err;
	}
	return 0;
}

int usym_elf_for_each_func(const struct usym_elf *ef, usym_func_cb cb, void *ctx)
{
	Elf_Scn *scn = NULL;
	bool tables = false;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return damaged(ef, elf_errmsg(-1));
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		tables = true;
		err = walk_table(ef, scn, &sh, cb, ctx);
		if (err)
			return err;
	}
	return tables ? 0 : -ENODATA;
}

/* name without its "@VERSION" into buf; false when it is empty or does not fit. */
static bool plain_name(const char *name, char buf[USYM_NAME_MAX])
{
	size_t len = strcspn(name, "@");

	if (!len || len >= USYM_NAME_MAX)
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return true;
}

struct match {
	struct usym u;
	size_t order; /* in the file: of aliases, the first that matched names the function */
};

struct collect {
	const struct usym_elf *ef;
	const char *pattern;
	bool glob;
	struct match *m;
	size_t nr, cap, order;
};

static int collect_func(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct collect *c = ctx;
	char buf[USYM_NAME_MAX];
	unsigned long long off;
	struct match *m;

	c->order++;
	if (!plain_name(name, buf) ||
	    (c->glob ? fnmatch(c->pattern, buf, 0) : strcmp(c->pattern, buf)))
		return 0;
	/* Not in the file: nothing there for a uprobe. */
	if (!file_offset(c->ef, sym->st_value, &off))
		return 0;
	if (!grow_array(&c->m, &c->cap, c->nr, sizeof(*c->m), 16))
		return p_err_nomem("matching an ELF file's functions");
	m = &c->m[c->nr++];
	memcpy(m->u.name, buf, sizeof(buf));
	m->u.offset = off;
	m->u.addr = sym->st_value;
	m->u.size = sym->st_size;
	m->u.ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	m->order = c->order;
	return 0;
}

static int cmp_offset(const void *a, const void *b)
{
	const struct match *x = a, *y = b;

	if (x->u.offset != y->u.offset)
		return x->u.offset < y->u.offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_name(const void *a, const void *b)
{
	const struct match *x = a, *y = b;

	return strcmp(x->u.name, y->u.name);
}

/* One function per offset: the first alias that matched, with the size any of them has. */
static size_t merge_aliases(struct match *m, size_t n)
{
	size_t i, kept = 0;

	if (!n)
		return 0;
	qsort(m, n, sizeof(*m), cmp_offset);
	for (i = 0; i < n; i++) {
		struct match *k = kept ? &m[kept - 1] : NULL;

		if (k && k->u.offset == m[i].u.offset) {
			k->u.size = max(k->u.size, m[i].u.size);
			k->u.ifunc |= m[i].u.ifunc;
			continue;
		}
		m[kept++] = m[i];
	}
	qsort(m, kept, sizeof(*m), cmp_name);
	return kept;
}

struct suggest {
	const char *name;
	char best[USYM_NAME_MAX];
	int best_d;
};

static int suggest_func(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct suggest *s = ctx;
	char buf[USYM_NAME_MAX];
	int d;

	(void)sym;
	if (!plain_name(name, buf))
		return 0;
	d = edit_distance(s->name, buf, s->best_d - 1);
	/* 0: the name itself, which has no code in the file; no help. */
	if (d && d < s->best_d) {
		s->best_d = d;
		memcpy(s->best, buf, sizeof(buf));
	}
	return 0;
}

static int err_no_func(const struct usym_elf *ef, const char *pattern, bool glob)
{
	char clip[CLIP_BUF], pclip[CLIP_BUF];
	const char *file = str_clip(ef->path, clip), *name = str_clip(pattern, pclip);
	struct suggest s = { .name = pattern };

	if (glob) {
		p_err("%s has no function matching '%s'", file, name);
		return -ENOENT;
	}
	s.best_d = suggest_max_distance(pattern) + 1;
	if (!usym_elf_for_each_func(ef, suggest_func, &s) && s.best[0])
		p_err("%s has no function '%s'; did you mean '%s'?", file, name, s.best);
	else
		p_err("%s has no function '%s'", file, name);
	return -ENOENT;
}

static int find_in(const struct usym_elf *ef, const char *pattern, struct usym *out, int max)
{
	struct collect c = { .ef = ef,
			     .pattern = pattern,
			     .glob = strpbrk(pattern, "*?[") != NULL };
	char clip[CLIP_BUF];
	size_t i, n;
	int err;

	err = usym_elf_for_each_func(ef, collect_func, &c);
	if (err == -ENODATA)
		p_err("%s is stripped: no symbol table", str_clip(ef->path, clip));
	if (err) {
		free(c.m);
		return err;
	}
	n = merge_aliases(c.m, c.nr);
	for (i = 0; i < n && i < (size_t)max; i++)
		out[i] = c.m[i].u;
	free(c.m);
	return n ? (int)min(n, (size_t)INT_MAX) : err_no_func(ef, pattern, c.glob);
}

int usym_find(const char *path, const char *pattern, struct usym *out, int max)
{
	char clip[CLIP_BUF];
	struct usym_elf ef;
	int err;

	if (!pattern[0]) {
		p_err("%s: empty function name", str_clip(path, clip));
		return -EINVAL;
	}
	err = usym_elf_open(&ef, path, p_err);
	if (!err)
		err = find_in(&ef, pattern, out, max < 0 ? 0 : max);
	usym_elf_close(&ef);
	return err;
}

/*
 * ef's DT_NEEDED libraries, in order, into names (each up to NAME_MAX), at
 * most max: how many.
 */
static int needed_libs(const struct usym_elf *ef, char names[][NAME_MAX + 1], int max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	int n = 0;
	size_t i;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !usym_elf_in_file(ef, &sh))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize && n < max; i++) {
			const char *name;

			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(ef->elf, sh.sh_link, dyn.d_un.d_val);
			if (name && strlen(name) <= NAME_MAX && !strchr(name, '/'))
				snprintf(names[n++], NAME_MAX + 1, "%s", name);
		}
		break;
	}
	return n;
}

#define NEEDED_MAX 16

int usym_find_linked(const char *path, const char *pattern, struct usym *out, int max, char *def,
		     size_t size)
{
	char needed[NEEDED_MAX][NAME_MAX + 1], lib[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct usym_elf ef;
	int n, i, found = -ENOENT;

	util_mute(true);
	n = usym_find(path, pattern, out, max);
	util_mute(false);
	if (n >= 0)
		return snprintf(def, size, "%s", path) < (int)size ? n : -ENAMETOOLONG;
	if (n == -ENOENT && !strpbrk(pattern, "*?[") && slash && !usym_elf_open(&ef, path, p_dbg)) {
		n = needed_libs(&ef, needed, NEEDED_MAX);
		for (i = 0; i < n && found < 0; i++) {
			if (snprintf(lib, sizeof(lib), "%.*s/%s", (int)(slash - path), path,
				     needed[i]) >= (int)sizeof(lib) ||
			    access(lib, R_OK))
				continue;
			util_mute(true);
			found = usym_find(lib, pattern, out, max);
			util_mute(false);
		}
	}
	usym_elf_close(&ef);
	if (found > 0)
		return snprintf(def, size, "%s", lib) < (int)size ? found : -ENAMETOOLONG;
	/* as usym_find says it, for path */
	return usym_find(path, pattern, out, max);
}
