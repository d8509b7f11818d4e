// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks' symbols. An address of a process is in one of its
 * executable mappings (/proc/PID/maps, cached per pid), at a file offset
 * of the mapped object; the PT_LOAD segment holding that offset gives the
 * ELF virtual address, and the object's function symbols the name. An
 * object's symbols are cached, known by its file's identity (found
 * without opening the file) and by its build-id (which finds a copy of
 * it too), so a library 100 processes map is read once. Files are read
 * through usym.c's ELF reader, which checks every table against the
 * file: a damaged object leaves names unknown, never a crash.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/ustack.h"
#include "lib/usym.h"

/* Processes are looked up on every frame: a hash of them. */
#define PID_BUCKETS 1024
/* A miss re-reads a process's maps at most this often. */
#define REREAD_NS 1000000000LL
/* The vdso is a page or two; more is not one. */
#define VDSO_MAX (1 << 20)

/* A function: [addr, end) in the object's ELF virtual addresses. */
struct ufunc {
	unsigned long long addr, end;
	uint32_t name;	    /* offset in the object's names */
	uint32_t rank : 31; /* of aliases at one address, the lowest names the function */
	uint32_t sized : 1; /* end is st_size's, not its section's end */
};

/* An object's file: device, inode, size, mtime. */
struct file_key {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct uobj {
	unsigned long serial; /* unique in u: mappings refer to an object by slot and serial */
	unsigned int slot;
	unsigned long long used; /* u->tick when last used: the least recent goes first */
	unsigned char build_id[USYM_BUILD_ID_MAX];
	size_t build_id_len;
	bool has_key; /* a file's (a vdso copied from memory has none) */
	struct file_key key;
	GElf_Phdr *loads;
	size_t nr_loads;
	struct ufunc *funcs; /* by address, one per address */
	size_t nr_funcs;
	struct strbuf names;
	/* a file with the object's DWARF line table (its own, or its debug file's), or -1 */
	int lines_fd;
	Dwarf *dw; /* lines_fd's, opened at the first line asked for */
	bool dw_tried;
};

/* An executable mapping of a process. */
struct umap {
	unsigned long long start, end, pgoff;
	unsigned int dev_major, dev_minor; /* of the file, as the maps line gives them */
	unsigned long inode;
	const char *path; /* interned; NULL for anonymous memory */
	bool deleted;
	bool failed; /* its file could not be read: no symbols, and no second try */
	/* Its object, u->objs[slot] while that has this serial; 0 before it is known. */
	unsigned int slot;
	unsigned long serial;
};

struct upid {
	struct upid *next; /* in its hash bucket */
	int pid;
	bool gone;   /* the last read found no process (or no user mapping) */
	bool reread; /* a miss has re-read the maps, at reread_ns */
	long long reread_ns;
	unsigned long long used;
	struct umap *maps; /* by address */
	size_t nr_maps, cap_maps;
};

/*
 * The strings frames hold, each once: they outlive the cache's evictions.
 * They grow with the functions and files frames named, not with lookups.
 */
struct strset {
	char **slots;
	size_t cap, nr;
};

struct ustack_syms {
	struct upid *pids[PID_BUCKETS];
	unsigned int nr_pids, max_pids;
	struct uobj **objs; /* max_objs slots */
	unsigned int max_objs;
	struct strset strs;
	unsigned long long tick;
	unsigned long serial;
	unsigned long maps_reads, objects_read;
	bool want_lines;
};

static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The slot of s in a table of cap (a power of 2) slots: its own, or the empty one it goes in. */
static size_t strset_slot(char **slots, size_t cap, const char *s, size_t len)
{
	size_t i = str_hash(s, len) & (cap - 1);

	while (slots[i] && (strncmp(slots[i], s, len) || slots[i][len]))
		i = (i + 1) & (cap - 1);
	return i;
}

static bool strset_grow(struct strset *set)
{
	size_t cap = set->cap ? set->cap * 2 : 256, i;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return false;
	for (i = 0; i < set->cap; i++) {
		char *s = set->slots[i];

		if (s)
			slots[strset_slot(slots, cap, s, strlen(s))] = s;
	}
	free(set->slots);
	set->slots = slots;
	set->cap = cap;
	return true;
}

/* The set's copy of the len bytes at s; NULL when out of memory. */
static const char *intern(struct strset *set, const char *s, size_t len)
{
	size_t i;

	if (set->nr >= set->cap / 2 && !strset_grow(set))
		return NULL;
	i = strset_slot(set->slots, set->cap, s, len);
	if (!set->slots[i]) {
		set->slots[i] = strndup(s, len);
		if (!set->slots[i])
			return NULL;
		set->nr++;
	}
	return set->slots[i];
}

static void strset_free(struct strset *set)
{
	size_t i;

	for (i = 0; i < set->cap; i++)
		free(set->slots[i]);
	free(set->slots);
}

/*
 * Whether a mapping's name is an object a frame names: a file, or one of
 * the kernel's code mappings; not "[heap]", "[stack]" or "[anon:...]".
 */
static bool names_object(const char *path)
{
	return path[0] == '/' || !strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") ||
	       !strcmp(path, "[uprobes]");
}

/* The mapping of p holding addr, or NULL. */
static struct umap *map_search(const struct upid *p, unsigned long long addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

/* A maps line's mapping into new (nr of cap), when it is executable. */
static int map_add(struct ustack_syms *u, const struct usym_map *m, struct umap **maps, size_t *nr,
		   size_t *cap)
{
	struct umap *um;

	/* Only code is in stacks; the kernel lists mappings in order, and one overlapping is none. */
	if (!m->exec || m->end <= m->start || (*nr && m->start < (*maps)[*nr - 1].end))
		return 0;
	if (!grow_array(maps, cap, *nr, sizeof(*um), 16))
		return -ENOMEM;
	um = &(*maps)[(*nr)++];
	memset(um, 0, sizeof(*um));
	um->start = m->start;
	um->end = m->end;
	um->pgoff = m->pgoff;
	um->dev_major = m->dev_major;
	um->dev_minor = m->dev_minor;
	um->inode = m->inode;
	um->deleted = m->deleted;
	if (m->path && names_object(m->path)) {
		um->path = intern(&u->strs, m->path, strlen(m->path));
		if (!um->path)
			return -ENOMEM;
	}
	return 0;
}

/* What a mapping read before knew of its object, when it is the same mapping. */
static void map_carry(const struct upid *old, struct umap *m)
{
	const struct umap *o = map_search(old, m->start);

	if (o && o->start == m->start && o->end == m->end && o->pgoff == m->pgoff &&
	    o->path == m->path) {
		m->failed = o->failed;
		m->slot = o->slot;
		m->serial = o->serial;
	}
}

/* pid's executable mappings from f into p; -ESRCH when it has none (a zombie, a kernel thread). */
static int maps_parse(struct ustack_syms *u, struct upid *p, FILE *f)
{
	char line[PATH_MAX + 128];
	size_t nr = 0, cap = 0, i;
	struct umap *maps = NULL;
	struct usym_map m;
	int err = 0;

	while (!err && usym_read_line(f, line, sizeof(line))) {
		if (usym_maps_parse(line, &m))
			err = map_add(u, &m, &maps, &nr, &cap);
	}
	if (!err && !nr)
		err = -ESRCH;
	if (err) {
		free(maps);
		return err;
	}
	for (i = 0; i < nr; i++)
		map_carry(p, &maps[i]);
	free(p->maps);
	p->maps = maps;
	p->nr_maps = nr;
	p->cap_maps = cap;
	return 0;
}

/*
 * (Re-)read p's maps. A process that is gone keeps the maps read before:
 * its late events still find their frames.
 */
static void maps_read(struct ustack_syms *u, struct upid *p)
{
	char path[32];
	FILE *f;
	int err;

	u->maps_reads++;
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
	} else {
		err = maps_parse(u, p, f);
		fclose(f);
	}
	p->gone = err == -ENOENT || err == -ESRCH;
	if (err && !p->gone)
		p_dbg("cannot read %s: %s", path, err_text(err));
}

static unsigned int pid_bucket(int pid)
{
	return (unsigned int)pid % PID_BUCKETS;
}

static void pid_free(struct upid *p)
{
	free(p->maps);
	free(p);
}

/* Unlink and free p from its bucket. */
static void pid_remove(struct ustack_syms *u, struct upid *p)
{
	struct upid **pp = &u->pids[pid_bucket(p->pid)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	pid_free(p);
	u->nr_pids--;
}

static struct upid *pid_lookup(const struct ustack_syms *u, int pid)
{
	struct upid *p;

	for (p = u->pids[pid_bucket(pid)]; p && p->pid != pid; p = p->next)
		;
	return p;
}

/* Make room for one more process: the least recently used goes. */
static void pid_evict(struct ustack_syms *u)
{
	struct upid *p, *oldest = NULL;
	size_t i;

	for (i = 0; i < PID_BUCKETS; i++) {
		for (p = u->pids[i]; p; p = p->next) {
			if (!oldest || p->used < oldest->used)
				oldest = p;
		}
	}
	if (oldest)
		pid_remove(u, oldest);
}

/* pid's entry, its maps read when it is new (*fresh); NULL when out of memory. */
static struct upid *pid_get(struct ustack_syms *u, int pid, bool *fresh)
{
	struct upid *p = pid_lookup(u, pid);

	*fresh = !p;
	if (!p) {
		if (u->nr_pids >= u->max_pids)
			pid_evict(u);
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->pid = pid;
		p->next = u->pids[pid_bucket(pid)];
		u->pids[pid_bucket(pid)] = p;
		u->nr_pids++;
		maps_read(u, p);
	}
	p->used = ++u->tick;
	return p;
}

/*
 * The mapping holding addr. An address outside the maps read may be in
 * a library loaded since: the first miss re-reads them at once, later
 * ones at most once a second, so that a stream of addresses no mapping
 * holds does not read the file each time.
 */
static struct umap *map_find(struct ustack_syms *u, struct upid *p, unsigned long long addr,
			     bool fresh)
{
	struct umap *m = map_search(p, addr);
	long long now;

	if (m || fresh)
		return m;
	now = clock_ns(CLOCK_MONOTONIC);
	if (p->reread && now - p->reread_ns < REREAD_NS)
		return NULL;
	p->reread = true;
	p->reread_ns = now;
	maps_read(u, p);
	return map_search(p, addr);
}

static void obj_free(struct uobj *o)
{
	if (!o)
		return;
	free(o->loads);
	free(o->funcs);
	sb_free(&o->names);
	dwarf_end(o->dw);
	if (o->lines_fd >= 0)
		close(o->lines_fd);
	free(o);
}

static void key_of(const struct stat *st, struct file_key *k)
{
	memset(k, 0, sizeof(*k));
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
}

static bool key_equal(const struct file_key *a, const struct file_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static struct uobj *obj_by_key(const struct ustack_syms *u, const struct file_key *k)
{
	unsigned int i;

	for (i = 0; i < u->max_objs; i++) {
		if (u->objs[i] && u->objs[i]->has_key && key_equal(&u->objs[i]->key, k))
			return u->objs[i];
	}
	return NULL;
}

static struct uobj *obj_by_build_id(const struct ustack_syms *u, const unsigned char *id,
				    size_t len)
{
	unsigned int i;

	for (i = 0; i < u->max_objs; i++) {
		const struct uobj *o = u->objs[i];

		if (o && o->build_id_len == len && !memcmp(o->build_id, id, len))
			return u->objs[i];
	}
	return NULL;
}

/* o into a free slot, or the least recently used object's. */
static void obj_insert(struct ustack_syms *u, struct uobj *o)
{
	unsigned int i, slot = 0;

	for (i = 0; i < u->max_objs; i++) {
		if (!u->objs[i]) {
			slot = i;
			break;
		}
		if (u->objs[i]->used < u->objs[slot]->used)
			slot = i;
	}
	obj_free(u->objs[slot]);
	o->slot = slot;
	o->serial = ++u->serial;
	u->objs[slot] = o;
	u->objects_read++;
}

/* Symbols being collected into an object, from the file ef. */
struct collect {
	struct uobj *o;
	const struct usym_elf *ef;
	struct ufunc *funcs;
	size_t nr, cap;
};

/* The end of the section holding sym: how far a symbol without a size can reach. */
static unsigned long long section_end(const struct usym_elf *ef, const GElf_Sym *sym)
{
	GElf_Shdr sh;

	if (sym->st_shndx >= SHN_LORESERVE || sym->st_shndx >= ef->shnum ||
	    !gelf_getshdr(elf_getscn(ef->elf, sym->st_shndx), &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return ULLONG_MAX;
	return sh.sh_addr + sh.sh_size;
}

/*
 * Of aliases, a global name over a local one, then the one with fewer
 * leading underscores: "write" over "__write", "malloc" over "__libc_malloc".
 */
static unsigned int name_rank(const char *name, const GElf_Sym *sym)
{
	size_t under = strspn(name, "_");

	return (GELF_ST_BIND(sym->st_info) == STB_LOCAL ? 256 : 0) + min(under, (size_t)255);
}

static int add_func(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct collect *c = ctx;
	struct strbuf *names = &c->o->names;
	size_t len = strcspn(name, "@"); /* "memcpy@GLIBC_2.2.5" is memcpy */
	struct ufunc *f;

	/* Names are 32-bit offsets: a pool past 4 GiB takes no more. */
	if (!len || !sym->st_value || names->len + len >= UINT32_MAX)
		return 0;
	if (!grow_array(&c->funcs, &c->cap, c->nr, sizeof(*f), 256))
		return -ENOMEM;
	f = &c->funcs[c->nr++];
	f->addr = sym->st_value;
	f->sized = sym->st_size != 0;
	f->end = f->sized ? f->addr + sym->st_size : section_end(c->ef, sym);
	if (f->end <= f->addr)
		f->end = ULLONG_MAX;
	f->name = names->len;
	f->rank = name_rank(name, sym);
	sb_write(names, name, len);
	sb_putc(names, '\0');
	return 0;
}

/* By address; at one address, the best name first (then file order). */
static int cmp_func(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* k takes what its alias f knows of the function's end: a size over a section's end. */
static void merge_end(struct ufunc *k, const struct ufunc *f)
{
	if (f->sized && !k->sized)
		k->end = f->end;
	else if (f->sized == k->sized)
		k->end = max(k->end, f->end);
	k->sized |= f->sized;
}

/*
 * The collected symbols into o: sorted, one per address, and a symbol
 * without a size reaching up to the next one (or its section's end).
 */
static int funcs_finish(struct collect *c)
{
	size_t i, n = 0;

	if (c->o->names.oom)
		return -ENOMEM;
	if (c->nr)
		qsort(c->funcs, c->nr, sizeof(*c->funcs), cmp_func);
	for (i = 0; i < c->nr; i++) {
		if (n && c->funcs[n - 1].addr == c->funcs[i].addr)
			merge_end(&c->funcs[n - 1], &c->funcs[i]);
		else
			c->funcs[n++] = c->funcs[i];
	}
	for (i = 0; i + 1 < n; i++) {
		if (!c->funcs[i].sized)
			c->funcs[i].end = min(c->funcs[i].end, c->funcs[i + 1].addr);
	}
	c->o->funcs = c->funcs;
	c->o->nr_funcs = n;
	c->funcs = NULL;
	return 0;
}

/*
 * Keeps a descriptor of ef when it has a DWARF line table, for the
 * frames' file:line: the file itself may be gone by then, or reached
 * through a /proc/PID/root that has gone.
 */
static void keep_lines(struct uobj *o, const struct usym_elf *ef)
{
	if (o->lines_fd < 0 && usym_elf_has_section(ef, SHT_PROGBITS, ".debug_line") &&
	    usym_elf_has_section(ef, SHT_PROGBITS, ".debug_info"))
		o->lines_fd = fcntl(ef->fd, F_DUPFD_CLOEXEC, 3);
}

/* The symbols of o's debug file dbg into c, when it has a .symtab. */
static int debug_symbols(void *ctx, struct usym_elf *dbg)
{
	struct collect *c = ctx;
	const struct usym_elf *main_ef = c->ef;
	bool ok;

	if (!usym_elf_has_section(dbg, SHT_SYMTAB, NULL)) {
		p_dbg("%s has no .symtab: not the debug file of %s", dbg->path, main_ef->path);
		return 0;
	}
	c->ef = dbg;
	ok = !usym_elf_for_each_func(dbg, add_func, c);
	c->ef = main_ef;
	if (ok)
		keep_lines(c->o, dbg);
	return ok;
}

/*
 * A stripped object's .symtab from its separate debug file (Debian's
 * -dbg packages), in pid's root. Only one with the object's build-id is
 * taken: one from another build would name the wrong functions.
 */
static void debug_funcs(struct collect *c, int pid, const struct umap *m)
{
	char root[32];

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	/* a process gone: its object was found as we see it (obj_path), and so is the debug file */
	if (access(root, X_OK))
		root[0] = '\0';
	usym_debug_find(c->ef, root, m->path[0] == '/' ? m->path : "", debug_symbols, c);
}

/* The functions of ef, and of its debug file when it is stripped, into o. */
static int obj_read_funcs(struct uobj *o, int pid, const struct umap *m, const struct usym_elf *ef)
{
	struct collect c = { .o = o, .ef = ef };
	int err;

	keep_lines(o, ef);
	err = usym_elf_for_each_func(ef, add_func, &c);
	/* Neither table: no names, but the object is known. */
	if (err == -ENODATA)
		err = 0;
	if (!err && o->build_id_len && !usym_elf_has_section(ef, SHT_SYMTAB, NULL))
		debug_funcs(&c, pid, m);
	if (!err)
		err = funcs_finish(&c);
	if (err == -ENOMEM)
		p_dbg("reading the symbols of %s: %s", ef->path, err_text(err));
	free(c.funcs);
	return err;
}

/* The object of the open file ef: cached by its build-id, else read now. */
static struct uobj *obj_from_elf(struct ustack_syms *u, int pid, const struct umap *m,
				 struct usym_elf *ef, bool is_file)
{
	unsigned char id[USYM_BUILD_ID_MAX];
	size_t id_len = usym_elf_build_id(ef, id, sizeof(id));
	struct uobj *o = id_len ? obj_by_build_id(u, id, id_len) : NULL;
	struct stat st;

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->lines_fd = -1;
	sb_init(&o->names);
	memcpy(o->build_id, id, id_len);
	o->build_id_len = id_len;
	o->has_key = is_file && !fstat(ef->fd, &st);
	if (o->has_key)
		key_of(&st, &o->key);
	if (obj_read_funcs(o, pid, m, ef)) {
		obj_free(o);
		return NULL;
	}
	/* The segments outlive the file: they turn file offsets into addresses. */
	o->loads = ef->loads;
	o->nr_loads = ef->nr_loads;
	ef->loads = NULL;
	obj_insert(u, o);
	return o;
}

/*
 * The vdso of pid, which is no file: its bytes copied from the process's
 * memory into a memfd that the ELF reader opens like one. The descriptor,
 * or -errno.
 */
static int vdso_copy(int pid, const struct umap *m)
{
	size_t len = m->end - m->start;
	int fd, mfd = -EIO;
	char path[32];
	ssize_t n = -1;
	void *buf;

	if (len > VDSO_MAX)
		return -EFBIG;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		mfd = -errno;
	} else {
		n = pread(fd, buf, len, m->start);
		mfd = n < 0 ? -errno : -EIO;
		close(fd);
	}
	if (n > 0) {
		mfd = memfd_create("ksnoop-vdso", MFD_CLOEXEC);
		if (mfd < 0)
			mfd = -errno;
	}
	if (mfd >= 0 && write(mfd, buf, n) != n) {
		close(mfd);
		mfd = -EIO;
	}
	free(buf);
	return mfd;
}

/*
 * The path that opens a mapping's file, into path: /proc/PID/map_files
 * first, which opens the very file mapped even when it was deleted or
 * replaced since (root only), else the path in the process's root; for
 * the vdso, a copy (*memfd). -errno when there is none.
 */
static int obj_path(int pid, const struct umap *m, struct strbuf *path, int *memfd)
{
	struct stat st;

	if (!strcmp(m->path, "[vdso]")) {
		*memfd = vdso_copy(pid, m);
		if (*memfd < 0)
			return *memfd;
		sb_printf(path, "/proc/self/fd/%d", *memfd);
		return 0;
	}
	if (m->path[0] != '/')
		return -ENOENT;
	sb_printf(path, "/proc/%d/map_files/%llx-%llx", pid, m->start, m->end);
	if (!stat(sb_str(path), &st))
		return 0;
	/* The file at that path now is another one. */
	if (m->deleted)
		return -errno;
	sb_reset(path);
	sb_printf(path, "/proc/%d/root%s", pid, m->path);
	if (!stat(sb_str(path), &st) || errno != ENOENT)
		return 0;
	/*
	 * A process that has exited since its maps were read: the path as we
	 * see it, when it is the very file the maps named.
	 */
	if (stat(m->path, &st) || st.st_ino != m->inode || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor)
		return -ENOENT;
	sb_reset(path);
	sb_printf(path, "%s", m->path);
	return 0;
}

/* The object m maps, from the cache or read now; NULL when it cannot be read. */
static struct uobj *obj_get(struct ustack_syms *u, int pid, const struct umap *m)
{
	struct uobj *o = NULL;
	struct usym_elf ef;
	struct file_key key;
	struct strbuf path;
	int err, memfd = -1;
	struct stat st;

	sb_init(&path);
	err = obj_path(pid, m, &path, &memfd);
	if (!err && path.oom)
		err = -ENOMEM;
	if (!err && memfd < 0 && stat(sb_str(&path), &st))
		err = -errno;
	if (err) {
		/* [vsyscall] and [uprobes] are no files: nothing to say. */
		if (err != -ENOENT || m->path[0] == '/')
			p_dbg("cannot read %s: %s", m->path, err_text(err));
		goto out;
	}
	if (memfd < 0) {
		key_of(&st, &key);
		o = obj_by_key(u, &key);
		if (o)
			goto out;
	}
	if (!usym_elf_open(&ef, sb_str(&path), p_dbg))
		o = obj_from_elf(u, pid, m, &ef, memfd < 0);
	usym_elf_close(&ef);
out:
	if (memfd >= 0)
		close(memfd);
	sb_free(&path);
	return o;
}

/* The object a mapping maps, remembered in it by slot and serial. */
static struct uobj *map_object(struct ustack_syms *u, int pid, struct umap *m)
{
	struct uobj *o = m->serial ? u->objs[m->slot] : NULL;

	if (!o || o->serial != m->serial) {
		if (m->failed)
			return NULL;
		o = obj_get(u, pid, m);
		if (!o) {
			m->failed = true;
			return NULL;
		}
		m->slot = o->slot;
		m->serial = o->serial;
	}
	o->used = ++u->tick;
	return o;
}

/* The ELF virtual address at file offset off: through the PT_LOAD segment holding it. */
static bool obj_vaddr(const struct uobj *o, unsigned long long off, unsigned long long *vaddr)
{
	size_t i;

	for (i = 0; i < o->nr_loads; i++) {
		const GElf_Phdr *ph = &o->loads[i];

		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*vaddr = ph->p_vaddr + (off - ph->p_offset);
			return true;
		}
	}
	return false;
}

/* The function holding vaddr, or NULL. */
static const struct ufunc *func_at(const struct uobj *o, unsigned long long vaddr)
{
	size_t lo = 0, hi = o->nr_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && vaddr < o->funcs[lo - 1].end ? &o->funcs[lo - 1] : NULL;
}

/* out's source file and line, for vaddr in o: from its DWARF, when it has one. */
static void frame_line(struct ustack_syms *u, struct uobj *o, unsigned long long vaddr,
		       struct ustack_frame *out)
{
	const char *src;
	Dwarf_Line *l;
	Dwarf_Die cu;
	int line;

	if (o->lines_fd < 0)
		return;
	if (!o->dw_tried) {
		o->dw_tried = true;
		o->dw = dwarf_begin(o->lines_fd, DWARF_C_READ);
		if (!o->dw)
			p_dbg("user stacks: no DWARF lines: %s", dwarf_errmsg(-1));
	}
	if (!o->dw || !dwarf_addrdie(o->dw, vaddr, &cu))
		return;
	l = dwarf_getsrc_die(&cu, vaddr);
	src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!src || dwarf_lineno(l, &line) || line <= 0)
		return;
	out->file = intern(&u->strs, src, strlen(src));
	out->line = out->file ? line : 0;
}

/*
 * out's function, for addr in m; and where lines are wanted, its line,
 * of the call before a return address.
 */
static void frame_func(struct ustack_syms *u, int pid, struct umap *m, unsigned long long addr,
		       bool return_address, struct ustack_frame *out)
{
	struct uobj *o = map_object(u, pid, m);
	unsigned long long vaddr;
	const struct ufunc *f;
	const char *name;

	if (!o || !obj_vaddr(o, addr - m->start + m->pgoff, &vaddr))
		return;
	if (u->want_lines)
		frame_line(u, o, vaddr - (return_address && vaddr), out);
	f = func_at(o, vaddr);
	if (!f)
		return;
	name = sb_str(&o->names) + f->name;
	out->func = intern(&u->strs, name, strlen(name));
	if (out->func)
		out->off = vaddr - f->addr;
}

int ustack_syms__resolve(struct ustack_syms *u, int pid, unsigned long long addr,
			 struct ustack_frame *out)
{
	return ustack_syms__resolve_frame(u, pid, addr, false, out);
}

void ustack_syms__want_lines(struct ustack_syms *u, bool on)
{
	if (u)
		u->want_lines = on;
}

int ustack_syms__resolve_frame(struct ustack_syms *u, int pid, unsigned long long addr,
			       bool return_address, struct ustack_frame *out)
{
	struct umap *m;
	struct upid *p;
	bool fresh;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	p = pid_get(u, pid, &fresh);
	if (!p)
		return 0;
	m = map_find(u, p, addr, fresh);
	if (!m)
		return p->gone ? -ESRCH : 0;
	out->object = m->path;
	if (m->path)
		frame_func(u, pid, m, addr, return_address, out);
	return 0;
}

/* s, its bytes outside printable ASCII as '?': a name is no terminal control. */
static void sb_put_printable(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_putc(sb, (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?');
}

void ustack_frame_format(const struct ustack_frame *f, bool with_object, struct strbuf *sb)
{
	if (f->func) {
		sb_put_printable(sb, f->func);
		if (f->off)
			sb_printf(sb, "+0x%llx", f->off);
	} else {
		sb_printf(sb, "[unknown] 0x%llx", f->addr);
	}
	if (f->object && (with_object || !f->func)) {
		sb_write(sb, " (", 2);
		sb_put_printable(sb, f->object);
		sb_putc(sb, ')');
	}
	if (f->file) {
		const char *base = strrchr(f->file, '/');

		sb_write(sb, " at ", 4);
		sb_put_printable(sb, base ? base + 1 : f->file);
		sb_printf(sb, ":%d", f->line);
	}
}

void ustack_syms__forget(struct ustack_syms *u, int pid)
{
	struct upid *p = pid_lookup(u, pid);

	if (p)
		pid_remove(u, p);
}

struct ustack_syms *ustack_syms__new_bounded(unsigned int max_pids, unsigned int max_objs)
{
	struct ustack_syms *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->max_pids = max(max_pids, 1U);
	u->max_objs = max(max_objs, 1U);
	u->objs = calloc(u->max_objs, sizeof(*u->objs));
	if (!u->objs) {
		free(u);
		return NULL;
	}
	return u;
}

struct ustack_syms *ustack_syms__new(void)
{
	return ustack_syms__new_bounded(USTACK_MAX_PIDS, USTACK_MAX_OBJS);
}

void ustack_syms__free(struct ustack_syms *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; i < PID_BUCKETS; i++) {
		while (u->pids[i])
			pid_remove(u, u->pids[i]);
	}
	for (i = 0; i < u->max_objs; i++)
		obj_free(u->objs[i]);
	free(u->objs);
	strset_free(&u->strs);
	free(u);
}

unsigned long ustack_syms__maps_reads(const struct ustack_syms *u)
{
	return u->maps_reads;
}

unsigned long ustack_syms__objects_read(const struct ustack_syms *u)
{
	return u->objects_read;
}

/*
 * Its maps and their objects' symbols, read while it runs: a process that
 * has exited cannot be asked (/proc/PID is gone), and its frames would be
 * [unknown].
 */
static void prime_pid(struct ustack_syms *u, int pid)
{
	struct upid *p;
	bool fresh;
	size_t i;

	p = pid_get(u, pid, &fresh);
	for (i = 0; p && i < p->nr_maps; i++) {
		if (p->maps[i].path)
			map_object(u, pid, &p->maps[i]);
	}
}

void ustack_syms__prime(struct ustack_syms *u, const pid_t *pids, int nr)
{
	int i;

	for (i = 0; u && i < nr; i++)
		prime_pid(u, pids[i]);
}

void ustack_syms__note(struct ustack_syms *u, int pid)
{
	if (u && pid > 0 && !pid_lookup(u, pid))
		prime_pid(u, pid);
}

bool ustack_syms__gone(struct ustack_syms *u, int pid)
{
	struct upid *p;
	bool fresh;

	if (!u || pid <= 0)
		return false;
	p = pid_get(u, pid, &fresh);
	return p && p->gone;
}

bool ustack_syms__knows(struct ustack_syms *u, int pid, unsigned long long addr)
{
	struct upid *p = u && pid > 0 ? pid_lookup(u, pid) : NULL;

	return p && map_search(p, addr);
}

static int cmp_usym_map(const void *a, const void *b)
{
	const struct usym_map *x = *(const struct usym_map *const *)a;
	const struct usym_map *y = *(const struct usym_map *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A mapping already known, kept with what it learnt of its object. */
static int map_keep(const struct umap *m, struct umap **maps, size_t *nr, size_t *cap)
{
	if (!grow_array(maps, cap, *nr, sizeof(*m), 16))
		return -ENOMEM;
	(*maps)[(*nr)++] = *m;
	return 0;
}

/*
 * The mappings known and those learnt (sorted), merged by address as a
 * maps file lists them. One learnt that overlaps a known one, or one
 * learnt before it, is not taken: the address was mapped twice over the
 * events, and what was seen first names it.
 */
static void maps_merge(struct ustack_syms *u, struct upid *p, const struct usym_map **add,
		       size_t nr_add)
{
	struct umap *all = NULL;
	size_t n = 0, cap = 0, i = 0, j = 0;
	int err = 0;

	while (!err && (i < p->nr_maps || j < nr_add)) {
		if (j == nr_add || (i < p->nr_maps && p->maps[i].start <= add[j]->start))
			err = map_keep(&p->maps[i++], &all, &n, &cap);
		else if (i < p->nr_maps && add[j]->end > p->maps[i].start)
			j++;
		else
			err = map_add(u, add[j++], &all, &n, &cap);
	}
	if (err) {
		free(all);
		return;
	}
	free(p->maps);
	p->maps = all;
	p->nr_maps = n;
	p->cap_maps = cap;
}

void ustack_syms__learn(struct ustack_syms *u, int pid, const struct usym_map *maps, size_t nr)
{
	const struct usym_map **add;
	struct upid *p;
	size_t nr_add = 0, i;
	bool fresh;

	if (!u || pid <= 0 || !nr)
		return;
	p = pid_get(u, pid, &fresh);
	if (!p || !p->gone)
		return;
	add = calloc(nr, sizeof(*add));
	if (!add)
		return;
	for (i = 0; i < nr; i++) {
		if (maps[i].path && !map_search(p, maps[i].start))
			add[nr_add++] = &maps[i];
	}
	qsort(add, nr_add, sizeof(*add), cmp_usym_map);
	maps_merge(u, p, add, nr_add);
	free(add);
}
