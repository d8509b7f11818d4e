// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols, the one kallsyms table of every command: trace, count
 * and hist keep its text symbols, ksnoop probe every symbol. /proc/kallsyms
 * has some 100,000 text symbols and available_filter_functions some 50,000
 * lines, and both are read at every start, so loading is kept cheap: files
 * are parsed in large chunks without sscanf, every name is stored once in
 * one string table (offsets, not pointers, so the table can grow),
 * membership is a hash lookup, and nothing is sorted by name until a glob
 * or a by-name question (ksyms__finish) asks for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ksyms.h"
#include "lib/symcache.h"
#include "lib/util.h"

#define TRACEFS "/sys/kernel/tracing"
#define READ_CHUNK (256 << 10)
#define MAX_LINE 1024
#define MAX_HEX 16
/* available_filter_functions: 38,641 lines on Debian's 6.1, more with modules. */
#define FTRACE_NAMES 65536
/* Kernel addresses live in the upper half; per-CPU symbols count up from 0. */
#define KERNEL_ADDR_MIN 0x8000000000000000ULL

struct sym {
	uint64_t addr;
	uint32_t name; /* offset into the string table */
	uint16_t mod;  /* index into mods + 1; 0 for the kernel's own */
	char type;     /* kallsyms' letter */
};

/*
 * vmlinux's section markers, as kallsyms_lookup() bounds its symbols
 * (is_ksym_addr): with CONFIG_KALLSYMS_ALL, which lists data symbols,
 * [_stext, _end) resolves; without it only text, [_stext, _etext) and
 * [_sinittext, _einittext). 0 where not listed.
 */
struct vmlinux_bounds {
	uint64_t stext, etext, sinittext, einittext, end;
	bool all; /* data symbols are listed */
};

/* One kallsyms line, parsed; name is NUL-terminated, mod is not. */
struct kline {
	uint64_t addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;
};

/* A set of names: open addressing, slots hold string offset + 1. */
struct name_set {
	uint32_t *slots;
	size_t cap, n;
	bool loaded; /* the source file could be read */
};

struct ksyms {
	char *strs; /* NUL-terminated names, back to back */
	size_t strs_len, strs_cap;
	struct sym *syms; /* kallsyms symbols, by address */
	size_t nr, cap;
	/* modules' names in strs; a module's symbols come together: once each */
	uint32_t *mods;
	size_t nr_mods, mods_cap;
	/* ksyms__finish: every symbol by name, open addressing, index + 1 */
	uint32_t *name_idx;
	size_t name_cap;
	struct name_set by_name; /* kallsyms text symbols */
	struct name_set ftrace;	 /* available_filter_functions */
	struct name_set blacklist;
	struct vmlinux_bounds vm; /* ksyms__finish */
	bool all_types;		  /* data symbols too, not only text */
	bool restricted;	  /* kptr_restrict: every address reads 0 */
	bool kallsyms_tried;	  /* loaded on first need: see need_kallsyms() */
	char *kallsyms_path;	  /* NULL: no kallsyms */
};

/* kallsyms' text types: local, global and weak */
static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static const char *str_at(const struct ksyms *ks, uint32_t off)
{
	return ks->strs + off;
}

/* Appends name (len bytes) and returns its offset, or -1. */
static int64_t str_add(struct ksyms *ks, const char *name, size_t len)
{
	size_t off = ks->strs_len;

	if (ks->strs_len + len + 1 > ks->strs_cap) {
		size_t cap = ks->strs_cap ? ks->strs_cap * 2 : (1 << 20);
		char *ns;

		while (cap < ks->strs_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -1;
		ns = realloc(ks->strs, cap);
		if (!ns)
			return -1;
		ks->strs = ns;
		ks->strs_cap = cap;
	}
	memcpy(ks->strs + off, name, len);
	ks->strs[off + len] = 0;
	ks->strs_len += len + 1;
	return off;
}

/* The slot holding name, or the empty slot where it would go. */
static uint32_t *set_slot(const struct ksyms *ks, const struct name_set *s, const char *name)
{
	size_t mask = s->cap - 1, i = hash_name(name) & mask;

	while (s->slots[i] && strcmp(str_at(ks, s->slots[i] - 1), name))
		i = (i + 1) & mask;
	return &s->slots[i];
}

static bool set_grow(const struct ksyms *ks, struct name_set *s)
{
	struct name_set big = { .cap = s->cap ? s->cap * 2 : 4096 };
	size_t i;

	big.slots = calloc(big.cap, sizeof(*big.slots));
	if (!big.slots)
		return false;
	for (i = 0; i < s->cap; i++) {
		if (s->slots[i])
			*set_slot(ks, &big, str_at(ks, s->slots[i] - 1)) = s->slots[i];
	}
	free(s->slots);
	s->slots = big.slots;
	s->cap = big.cap;
	return true;
}

/*
 * Room for n names in an empty set from the start: growing rehashes every
 * name so far, most of the work of reading available_filter_functions.
 */
static void set_reserve(struct name_set *s, size_t n)
{
	size_t cap = 4096;

	while (cap < 2 * n)
		cap *= 2;
	if (!s->cap && (s->slots = calloc(cap, sizeof(*s->slots))))
		s->cap = cap;
}

static bool set_has(const struct ksyms *ks, const struct name_set *s, const char *name)
{
	return s->n && *set_slot(ks, s, name);
}

/* Adds a name already in the string table; duplicates are ignored. */
static bool set_add_off(struct ksyms *ks, struct name_set *s, uint32_t off)
{
	uint32_t *slot;

	if ((s->n + 1) * 2 > s->cap && !set_grow(ks, s))
		return false;
	slot = set_slot(ks, s, str_at(ks, off));
	if (!*slot) {
		*slot = off + 1;
		s->n++;
	}
	return true;
}

/* Adds name, sharing the string of an equal kallsyms name when there is one. */
static bool set_add(struct ksyms *ks, struct name_set *s, const char *name, size_t len)
{
	char buf[MAX_LINE];
	uint32_t *slot;
	int64_t off;

	memcpy(buf, name, len);
	buf[len] = 0;
	if (s != &ks->by_name && ks->by_name.n) {
		slot = set_slot(ks, &ks->by_name, buf);
		if (*slot)
			return set_add_off(ks, s, *slot - 1);
	}
	off = str_add(ks, buf, len);
	return off >= 0 && set_add_off(ks, s, off);
}

/*
 * Calls fn for each line of path (NUL-terminated, without the newline);
 * overlong lines are skipped. Returns -errno when path cannot be opened,
 * -ENOMEM when fn fails; a read error later ends the file early (EPERM on
 * locked-down tracefs). With a cache, path is read from this boot's
 * copy when it holds, and copied when not (lib/symcache.h).
 */
static int for_each_line(const char *path, const struct symcache_cfg *cache, const char *name,
			 bool (*fn)(struct ksyms *, char *, size_t), struct ksyms *ks)
{
	char *buf = malloc(READ_CHUNK + 1), *line, *nl;
	struct symcache_copy *copy = NULL;
	size_t have = 0;
	bool skipping = false;
	int fd, err = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	fd = cache ? symcache_open(cache, path, name, &copy) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return cache ? fd : -errno;
	}
	while ((n = read(fd, buf + have, READ_CHUNK - have)) > 0) {
		symcache_write(copy, buf + have, n);
		have += n;
		line = buf;
		while ((nl = memchr(line, '\n', buf + have - line))) {
			*nl = 0;
			if (!skipping && !fn(ks, line, nl - line)) {
				err = -ENOMEM;
				goto out;
			}
			skipping = false;
			line = nl + 1;
		}
		have = buf + have - line;
		memmove(buf, line, have);
		if (have == READ_CHUNK) { /* a line longer than the buffer */
			have = 0;
			skipping = true;
		}
	}
	if (have && !skipping) {
		buf[have] = 0;
		if (!fn(ks, buf, have))
			err = -ENOMEM;
	}
out:
	symcache_end(copy, !err && n == 0);
	close(fd);
	free(buf);
	return err;
}

/* The module's index + 1, adding it when new; -1 when full or OOM. */
static int mod_index(struct ksyms *ks, const char *name, size_t len)
{
	const char *last;
	int64_t off;

	if (ks->nr_mods) {
		last = str_at(ks, ks->mods[ks->nr_mods - 1]);
		if (!strncmp(last, name, len) && !last[len])
			return ks->nr_mods;
	}
	if (ks->nr_mods == UINT16_MAX ||
	    !grow_array(&ks->mods, &ks->mods_cap, ks->nr_mods, sizeof(*ks->mods), 64))
		return -1;
	off = str_add(ks, name, len);
	if (off < 0)
		return -1;
	ks->mods[ks->nr_mods++] = off;
	return ks->nr_mods;
}

/*
 * A text symbol's name: static functions of the same name share one
 * string, as ftrace's do, and each is in by_name once. Offset or -1.
 * The slot found empty takes the name: one hash per line.
 */
static int64_t text_name(struct ksyms *ks, const char *name, size_t len)
{
	struct name_set *s = &ks->by_name;
	uint32_t *slot, *in_ftrace;
	int64_t off;

	if ((s->n + 1) * 2 > s->cap && !set_grow(ks, s))
		return -1;
	slot = set_slot(ks, s, name);
	if (*slot)
		return *slot - 1;
	in_ftrace = ks->ftrace.n ? set_slot(ks, &ks->ftrace, name) : NULL;
	off = in_ftrace && *in_ftrace ? (int64_t)*in_ftrace - 1 : str_add(ks, name, len);
	if (off < 0)
		return -1;
	*slot = off + 1;
	s->n++;
	return off;
}

static bool add_sym(struct ksyms *ks, const struct kline *k)
{
	int64_t name;
	int mod;

	if (!grow_array(&ks->syms, &ks->cap, ks->nr, sizeof(*ks->syms), 65536))
		return false;
	mod = k->mod_len ? mod_index(ks, k->mod, k->mod_len) : 0;
	if (mod < 0)
		return false;
	/* Tables of every symbol answer by name through ksyms__finish's index. */
	name = is_text(k->type) && !ks->all_types ? text_name(ks, k->name, k->name_len)
						  : str_add(ks, k->name, k->name_len);
	if (name < 0)
		return false;
	ks->syms[ks->nr++] =
		(struct sym){ .addr = k->addr, .name = name, .mod = mod, .type = k->type };
	return true;
}

/* A hex digit's value, or -1. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * "ffffffff81000000 T _stext" or "... t name\t[module]" into k (the name
 * is terminated in place); false for any other line.
 */
static bool parse_kallsyms_line(char *line, size_t len, struct kline *k)
{
	char *p = line, *end = line + len, *name, *open, *close;
	size_t nlen;
	int v;

	k->addr = 0;
	for (; (v = hex_value(*p)) >= 0; p++) /* the line ends in a NUL */
		k->addr = k->addr << 4 | v;
	if (p == line || p - line > MAX_HEX || p + 3 > end || p[0] != ' ' || p[2] != ' ')
		return false;
	k->type = p[1];
	name = p + 3;
	nlen = strcspn(name, " \t");
	if (!nlen || nlen >= MAX_LINE)
		return false;
	k->mod = NULL;
	k->mod_len = 0;
	open = memchr(name + nlen, '[', end - (name + nlen));
	close = open ? memchr(open, ']', end - open) : NULL;
	if (close) {
		k->mod = open + 1;
		k->mod_len = close - open - 1;
	}
	name[nlen] = 0;
	k->name = name;
	k->name_len = nlen;
	return true;
}

static bool kallsyms_line(struct ksyms *ks, char *line, size_t len)
{
	struct kline k;

	if (!parse_kallsyms_line(line, len, &k) || (!ks->all_types && !is_text(k.type)))
		return true;
	return add_sym(ks, &k);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sort_by_addr(struct ksyms *ks)
{
	size_t i;

	/* kallsyms is nearly always in address order already. */
	for (i = 1; i < ks->nr; i++) {
		if (ks->syms[i - 1].addr > ks->syms[i].addr) {
			qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_sym);
			break;
		}
	}
	ks->restricted = ks->nr && ks->syms[ks->nr - 1].addr == 0;
}

static int read_kallsyms(struct ksyms *ks)
{
	int err;

	if (!ks->kallsyms_path)
		return -ENOENT;
	err = for_each_line(ks->kallsyms_path, NULL, NULL, kallsyms_line, ks);
	if (err)
		return err;
	ks->by_name.loaded = true;
	sort_by_addr(ks);
	return 0;
}

/* One name per line, first word; "[module]" suffixes are dropped. */
static bool ftrace_line(struct ksyms *ks, char *line, size_t len)
{
	size_t n = strcspn(line, " \t");

	(void)len;
	if (!n || n >= MAX_LINE)
		return true;
	if (!set_add(ks, &ks->ftrace, line, n))
		return false;
	ks->ftrace.loaded = true;
	return true;
}

/* "0xstart-0xend\tname" */
static bool blacklist_line(struct ksyms *ks, char *line, size_t len)
{
	char *name = line + strcspn(line, " \t");
	size_t n;

	(void)len;
	name += strspn(name, " \t");
	n = strcspn(name, " \t");
	if (!n || n >= MAX_LINE)
		return true;
	if (!set_add(ks, &ks->blacklist, name, n))
		return false;
	ks->blacklist.loaded = true;
	return true;
}

/* Hand back what the doubling growth left unused. */
static void trim(struct ksyms *ks)
{
	void *p;

	if (ks->strs_len && (p = realloc(ks->strs, ks->strs_len))) {
		ks->strs = p;
		ks->strs_cap = ks->strs_len;
	}
	if (ks->nr && (p = realloc(ks->syms, ks->nr * sizeof(*ks->syms)))) {
		ks->syms = p;
		ks->cap = ks->nr;
	}
}

/*
 * /proc/kallsyms is the slowest file to read (the kernel formats every
 * symbol on each read: a third of a second on a large kernel, seconds
 * under emulation), and a trace of functions ftrace knows never needs it.
 * It is read when something asks what ftrace cannot answer: why a
 * function is missing, its clones, an address's name, or a glob without
 * available_filter_functions.
 */
static bool index_names(struct ksyms *ks);

static void need_kallsyms(struct ksyms *ks)
{
	if (ks->kallsyms_tried)
		return;
	ks->kallsyms_tried = true;
	read_kallsyms(ks);
	trim(ks);
	/* addresses by name (ksyms__addr_of); without it, none are found */
	index_names(ks);
}

void ksyms__load_kallsyms(struct ksyms *ks)
{
	need_kallsyms(ks);
}

/* An empty table that reads kallsyms from path on need (NULL: never). */
static struct ksyms *new_table(const char *kallsyms)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->kallsyms_path = kallsyms ? strdup(kallsyms) : NULL;
	if (kallsyms && !ks->kallsyms_path) {
		free(ks);
		return NULL;
	}
	return ks;
}

/*
 * The two lists as parsed, saved for this boot: the hash sets and their
 * names, which take 15 times longer to build from the text than to read
 * (0.3 s of a start under emulation). Native byte order: the file is in
 * KSNOOP_RUN_DIR and lives as long as the boot.
 */
#define INDEX_NAME "lists-index"
/* Bumped with any change to the layout or to hash_name, which places the slots. */
#define INDEX_MAGIC 0x6b73796d31ULL /* "ksym1" */
#define INDEX_STRS_MAX (256UL << 20)
#define INDEX_SET_MAX (1UL << 24)

struct index_hdr {
	uint64_t magic;
	uint64_t strs_len;
	uint64_t cap[2], n[2];
	uint64_t loaded[2];
};

static struct name_set *index_set(struct ksyms *ks, int i)
{
	return i ? &ks->blacklist : &ks->ftrace;
}

static bool read_full(int fd, void *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf = (char *)buf + n;
		len -= n;
	}
	return true;
}

static bool index_hdr_ok(const struct index_hdr *h)
{
	int i;

	if (h->magic != INDEX_MAGIC || !h->strs_len || h->strs_len > INDEX_STRS_MAX)
		return false;
	for (i = 0; i < 2; i++) {
		if (h->cap[i] > INDEX_SET_MAX || (h->cap[i] & (h->cap[i] - 1)) ||
		    h->n[i] * 2 > h->cap[i] || h->loaded[i] > 1)
			return false;
	}
	return true;
}

/* Every slot names a string of the table, and the last string ends. */
static bool index_sets_ok(const struct ksyms *ks)
{
	size_t i, used;
	int j;

	if (ks->strs[ks->strs_len - 1])
		return false;
	for (j = 0; j < 2; j++) {
		const struct name_set *set = j ? &ks->blacklist : &ks->ftrace;

		for (i = used = 0; i < set->cap; i++) {
			if (set->slots[i] > ks->strs_len)
				return false;
			used += !!set->slots[i];
		}
		if (used != set->n)
			return false;
	}
	return true;
}

static bool read_index(struct ksyms *ks, int fd)
{
	struct index_hdr h;
	int i;

	if (!read_full(fd, &h, sizeof(h)) || !index_hdr_ok(&h))
		return false;
	ks->strs = malloc(h.strs_len);
	if (!ks->strs || !read_full(fd, ks->strs, h.strs_len))
		return false;
	ks->strs_len = ks->strs_cap = h.strs_len;
	for (i = 0; i < 2; i++) {
		struct name_set *set = index_set(ks, i);

		set->cap = h.cap[i];
		set->n = h.n[i];
		set->loaded = h.loaded[i];
		set->slots = h.cap[i] ? malloc(h.cap[i] * sizeof(*set->slots)) : NULL;
		if (h.cap[i] &&
		    (!set->slots || !read_full(fd, set->slots, h.cap[i] * sizeof(*set->slots))))
			return false;
	}
	return index_sets_ok(ks);
}

/* Empties what a failed read_index left, for the lists to be read instead. */
static void drop_index(struct ksyms *ks)
{
	int i;

	free(ks->strs);
	ks->strs = NULL;
	ks->strs_len = ks->strs_cap = 0;
	for (i = 0; i < 2; i++) {
		free(index_set(ks, i)->slots);
		memset(index_set(ks, i), 0, sizeof(struct name_set));
	}
}

static bool load_index(struct ksyms *ks, const struct symcache_cfg *cache)
{
	int fd = symcache_open_copy(cache, INDEX_NAME);
	bool ok;

	if (fd < 0)
		return false;
	ok = read_index(ks, fd);
	close(fd);
	if (!ok)
		drop_index(ks);
	return ok;
}

static void save_index(struct ksyms *ks, const struct symcache_cfg *cache)
{
	struct index_hdr h = { .magic = INDEX_MAGIC, .strs_len = ks->strs_len };
	struct symcache_copy *c;
	int i;

	/* Only the lists' names: kallsyms', when read, are not this file's. */
	if (ks->kallsyms_tried || !ks->strs_len || !ks->ftrace.loaded)
		return;
	c = symcache_new(cache, INDEX_NAME);
	if (!c)
		return;
	for (i = 0; i < 2; i++) {
		h.cap[i] = index_set(ks, i)->cap;
		h.n[i] = index_set(ks, i)->n;
		h.loaded[i] = index_set(ks, i)->loaded;
	}
	symcache_write(c, &h, sizeof(h));
	symcache_write(c, ks->strs, ks->strs_len);
	for (i = 0; i < 2; i++)
		symcache_write(c, index_set(ks, i)->slots, h.cap[i] * sizeof(uint32_t));
	symcache_end(c, true);
}

/* Tracefs lists, from this boot's index or copies when cache is set and they hold. */
static struct ksyms *load_lists(const char *kallsyms, const char *filter_funcs,
				const char *blacklist, const struct symcache_cfg *cache)
{
	struct ksyms *ks = new_table(kallsyms);

	if (!ks)
		return NULL;
	if (cache && filter_funcs && blacklist && load_index(ks, cache)) {
		p_dbg("symbol lists: this boot's index");
		return ks;
	}
	if (filter_funcs) {
		set_reserve(&ks->ftrace, FTRACE_NAMES);
		for_each_line(filter_funcs, cache, "available_filter_functions", ftrace_line, ks);
	}
	if (blacklist)
		for_each_line(blacklist, cache, "kprobes_blacklist", blacklist_line, ks);
	if (!ks->ftrace.loaded)
		need_kallsyms(ks);
	trim(ks);
	if (cache && filter_funcs && blacklist)
		save_index(ks, cache);
	return ks;
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_cached(&symcache_system, "/proc/kallsyms",
				  TRACEFS "/available_filter_functions",
				  "/sys/kernel/debug/kprobes/blacklist");
}

struct ksyms *ksyms__load_cached(const struct symcache_cfg *cache, const char *kallsyms,
				 const char *filter_funcs, const char *blacklist)
{
	return load_lists(kallsyms, filter_funcs, blacklist, cache);
}

struct ksyms *ksyms__load_from(const char *kallsyms, const char *filter_funcs,
			       const char *blacklist)
{
	return load_lists(kallsyms, filter_funcs, blacklist, NULL);
}

struct ksyms *ksyms__load_all(const char *path)
{
	struct ksyms *ks = new_table(path ? path : "/proc/kallsyms");
	int err;

	if (!ks)
		return NULL;
	ks->all_types = true;
	ks->kallsyms_tried = true;
	err = read_kallsyms(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	ksyms__finish(ks);
	return ks;
}

struct ksyms *ksyms__new(void)
{
	struct ksyms *ks = new_table(NULL);

	if (ks) {
		ks->all_types = true;
		ks->kallsyms_tried = true;
		ks->by_name.loaded = true;
	}
	return ks;
}

int ksyms__add(struct ksyms *ks, uint64_t addr, char type, const char *name, const char *module)
{
	struct kline k = { .addr = addr,
			   .type = type,
			   .name = name,
			   .name_len = strlen(name),
			   .mod = module,
			   .mod_len = module ? strlen(module) : 0 };

	return add_sym(ks, &k) ? 0 : -ENOMEM;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->strs);
	free(ks->syms);
	free(ks->mods);
	free(ks->name_idx);
	free(ks->by_name.slots);
	free(ks->ftrace.slots);
	free(ks->blacklist.slots);
	free(ks->kallsyms_path);
	free(ks);
}

/* The last symbol at or below addr, or NULL. */
static const struct sym *sym_floor(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &ks->syms[lo - 1] : NULL;
}

static const char *sym_module(const struct ksyms *ks, const struct sym *k)
{
	return k->mod ? str_at(ks, ks->mods[k->mod - 1]) : NULL;
}

const char *ksyms__addr_name(struct ksyms *ks, uint64_t addr, uint64_t *start)
{
	return ksyms__addr_sym(ks, addr, start, NULL);
}

const char *ksyms__addr_sym(struct ksyms *ks, uint64_t addr, uint64_t *start, const char **mod)
{
	const struct sym *k;

	need_kallsyms(ks);
	k = sym_floor(ks, addr);
	/* kptr_restrict: with every address 0, the last symbol would name them all. */
	if (!k || !addr || ks->restricted)
		return NULL;
	if (start)
		*start = k->addr;
	if (mod)
		*mod = sym_module(ks, k);
	return str_at(ks, k->name);
}

static bool vmlinux_resolves(const struct vmlinux_bounds *b, uint64_t addr);

/* The symbol %pS would name for addr, or NULL. */
static const struct sym *covering(const struct ksyms *ks, uint64_t addr)
{
	const struct sym *k = sym_floor(ks, addr);

	/* %pS never shows the per-CPU symbols, which count up from 0. */
	if (!k || addr < KERNEL_ADDR_MIN || k->addr < KERNEL_ADDR_MIN || ks->restricted)
		return NULL;
	if (!k->mod && !vmlinux_resolves(&ks->vm, addr))
		return NULL;
	return k;
}

/* From k to the next symbol at a higher address, 0 for the last one. */
static uint64_t sym_size(const struct ksyms *ks, const struct sym *k)
{
	size_t next;

	for (next = k - ks->syms + 1; next < ks->nr && ks->syms[next].addr == k->addr; next++)
		;
	return next < ks->nr ? ks->syms[next].addr - k->addr : 0;
}

/*
 * The text symbol a stack frame's address lies in. kallsyms has no sizes, so
 * a symbol ends where the next one starts; BPF programs and trampolines
 * loaded since kallsyms was read sit in gaps past a module's last symbol,
 * which no function is as large as.
 */
#define KSYMS_FUNC_MAX (1 << 20)

/* The text symbol addr lies in; the last symbol reaches last_size bytes. */
static const struct sym *text_sym(const struct ksyms *ks, uint64_t addr, uint64_t last_size)
{
	const struct sym *k = covering(ks, addr);
	uint64_t size;

	if (!k || !is_text(k->type))
		return NULL;
	size = sym_size(ks, k);
	if (addr - k->addr >= (size ? size : last_size))
		return NULL;
	return k;
}

static const char *frame_sym(struct ksyms *ks, uint64_t ip, uint64_t *start, const char **mod)
{
	const struct sym *k;

	if (!ks)
		return NULL;
	need_kallsyms(ks);
	k = text_sym(ks, ip, KSYMS_FUNC_MAX);
	if (!k || ip - k->addr >= KSYMS_FUNC_MAX)
		return NULL;
	*start = k->addr;
	if (mod)
		*mod = sym_module(ks, k);
	return str_at(ks, k->name);
}

void ksyms__frame(struct ksyms *ks, uint64_t ip, struct strbuf *sb)
{
	const char *name, *mod = NULL;
	uint64_t start;

	name = frame_sym(ks, ip, &start, &mod);
	if (name)
		sb_printf(sb, "%s+0x%llx", name, (unsigned long long)(ip - start));
	else
		sb_printf(sb, "0x%llx", (unsigned long long)ip);
	if (mod)
		sb_printf(sb, " [%s]", mod);
}

static bool bpf_sym(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trampoline_", 15);
}

/* The path a tracepoint takes to a BPF program: its iterator, its stub, bpf_trace_run. */
static bool tracepoint_path_sym(const char *name)
{
	static const char *const prefixes[] = { "bpf_trace_run", "__bpf_trace_", "__traceiter_" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

/* Where a tracepoint's path to BPF shows in a stack's first frames: past its last frame; else -1. */
#define TP_PATH_FRAMES 8

static int past_tracepoint_path(struct ksyms *ks, const uint64_t *ips, int n)
{
	const char *name;
	uint64_t start;
	int i, last = -1;

	for (i = 0; i < n && i < TP_PATH_FRAMES; i++) {
		name = frame_sym(ks, ips[i], &start, NULL);
		if (name && tracepoint_path_sym(name))
			last = i;
	}
	return last >= 0 && last + 1 < n ? last + 1 : -1;
}

int ksyms__stack_start(struct ksyms *ks, const uint64_t *ips, int n, const char *func)
{
	const char *name;
	uint64_t start;
	int i;

	for (i = 0; i < n && ks; i++) {
		name = ksyms__addr_name(ks, ips[i], NULL);
		if (name && !strcmp(name, func))
			return i;
	}
	/*
	 * A tracepoint's stack starts in BPF's own frames, which kallsyms as
	 * read at start may name as anything near them (arm64 6.1: a kprobe
	 * insn page): where the tracepoint fired is past its path.
	 */
	i = ks ? past_tracepoint_path(ks, ips, n) : -1;
	if (i >= 0)
		return i;
	/* 7.x unwinds from a trampoline straight to func's caller */
	for (i = 0; i < n && ks; i++) {
		name = frame_sym(ks, ips[i], &start, NULL);
		if (name && !bpf_sym(name))
			return i;
	}
	return 0;
}

int ksyms__restore_func(struct ksyms *ks, uint64_t *ips, int n, const char *func)
{
	uint64_t addr;
	int at;

	if (!n || !ks)
		return n;
	at = ksyms__stack_start(ks, ips, n, func);
	if (ksyms__addr_of(ks, func, &addr))
		return n;
	if (ksyms__addr_name(ks, ips[at], NULL) == ksyms__addr_name(ks, addr, NULL))
		return n;
	memmove(ips + at + 1, ips + at, (n - at) * sizeof(*ips));
	ips[at] = addr;
	return n + 1;
}

void ksyms__stack_frames(struct ksyms *ks, const uint64_t *ips, int n, const char *func, int depth,
			 void (*fn)(void *ctx, const char *frame, int i), void *ctx)
{
	struct strbuf sb;
	int i, shown = 0;

	sb_init(&sb);
	for (i = func ? ksyms__stack_start(ks, ips, n, func) : 0; i < n && shown < depth; i++) {
		sb_reset(&sb);
		ksyms__frame(ks, ips[i], &sb);
		fn(ctx, sb_str(&sb), shown++);
	}
	sb_free(&sb);
}

int ksyms__restore_caller(struct ksyms *ks, uint64_t *ips, int n, const char *func,
			  uint64_t entry_ra)
{
	const char *name;
	uint64_t start;
	int at;

	if (!n || !entry_ra || !ks)
		return n;
	name = ksyms__find_text(ks, entry_ra, &start);
	/* a return probe's trampoline stands in for the caller: no telling who */
	if (!name || strstr(name, "kretprobe_trampoline") || strstr(name, "rethook_trampoline"))
		return n;
	at = ksyms__stack_start(ks, ips, n, func);
	name = ksyms__find_text(ks, ips[at], &start);
	if (!name || strcmp(name, func) || (at + 1 < n && ips[at + 1] == entry_ra))
		return n;
	memmove(ips + at + 2, ips + at + 1, (n - at - 1) * sizeof(*ips));
	ips[at + 1] = entry_ra;
	return n + 1;
}

bool ksyms__has_func(struct ksyms *ks, const char *name)
{
	need_kallsyms(ks);
	return set_has(ks, &ks->by_name, name);
}

const char *ksyms__untraceable_reason(struct ksyms *ks, const char *name)
{
	/* What ftrace lists has a symbol; kallsyms explains only the rest. */
	if (!set_has(ks, &ks->ftrace, name))
		need_kallsyms(ks);
	if (ks->by_name.loaded && ks->by_name.n && !set_has(ks, &ks->by_name, name))
		return "it has no symbol in /proc/kallsyms (inlined or optimised away)";
	if (set_has(ks, &ks->blacklist, name))
		return "it is on the kprobe blacklist";
	if (ks->ftrace.loaded && !set_has(ks, &ks->ftrace, name))
		return "it is not in available_filter_functions (notrace or not traceable)";
	return NULL;
}

/*
 * Every kallsyms entry counts, so two static clones of one name are
 * ambiguous. A clone's cold part (foo.isra.0.cold) is not one: no call
 * enters there.
 */
const char *ksyms__clone_of(struct ksyms *ks, const char *name)
{
	size_t len = strlen(name), i;
	const char *found = NULL;

	need_kallsyms(ks);
	for (i = 0; i < ks->nr; i++) {
		const char *s = str_at(ks, ks->syms[i].name);

		if (strncmp(s, name, len) || s[len] != '.' || strstr(s + len, ".cold"))
			continue;
		if (found)
			return NULL;
		found = s;
	}
	return found;
}

const char *ksyms__symbol_or_clone(struct ksyms *ks, const char *name)
{
	return ksyms__has_func(ks, name) ? name : ksyms__clone_of(ks, name);
}

/* Whether a glob's match leaves name out: ksyms__match's test, or its converse. */
typedef bool (*name_skip_fn)(const struct ksyms *ks, const char *name);

static bool blacklisted(const struct ksyms *ks, const char *name)
{
	return set_has(ks, &ks->blacklist, name);
}

/* What ksyms__match offers, and compiler clones, which no glob names. */
static bool traceable_or_clone(const struct ksyms *ks, const char *name)
{
	return strchr(name, '.') || (set_has(ks, &ks->ftrace, name) && !blacklisted(ks, name));
}

/* The names of src glob matches and skip keeps, sorted; their count or -ENOMEM. */
static int match_set(const struct ksyms *ks, const struct name_set *src, const char *glob,
		     name_skip_fn skip, const char ***out)
{
	const char **names = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < src->cap; i++) {
		const char *name;

		if (!src->slots[i])
			continue;
		name = str_at(ks, src->slots[i] - 1);
		if (fnmatch(glob, name, 0) || skip(ks, name))
			continue;
		names = names_push(names, &cap, n++, name);
		if (!names)
			return -ENOMEM;
	}
	/* The set holds each name once; sorting makes the order stable. */
	*out = names;
	return names_sort_unique(names, n);
}

int ksyms__match(const struct ksyms *ks, const char *glob, const char ***out)
{
	return match_set(ks, ks->ftrace.loaded ? &ks->ftrace : &ks->by_name, glob, blacklisted,
			 out);
}

int ksyms__match_untraceable(struct ksyms *ks, const char *glob, const char ***out)
{
	*out = NULL;
	if (!ks->ftrace.loaded)
		return 0;
	need_kallsyms(ks);
	return match_set(ks, &ks->by_name, glob, traceable_or_clone, out);
}

/* The symbols called name, as next_named hands them out. */
struct name_iter {
	const char *name;
	size_t pos;
};

static struct name_iter iter_named(const struct ksyms *ks, const char *name)
{
	return (struct name_iter){ .name = name,
				   .pos = ks->name_cap ? hash_name(name) & (ks->name_cap - 1) : 0 };
}

/* The next symbol called it->name, in no order, or NULL. */
static const struct sym *next_named(const struct ksyms *ks, struct name_iter *it)
{
	uint32_t slot;

	if (!ks->name_cap)
		return NULL;
	/* at most half full: the run ends */
	while ((slot = ks->name_idx[it->pos])) {
		const struct sym *k = &ks->syms[slot - 1];

		it->pos = (it->pos + 1) & (ks->name_cap - 1);
		if (!strcmp(str_at(ks, k->name), it->name))
			return k;
	}
	return NULL;
}

/* Hashing beats sorting 100,000 names at every ksnoop probe start. */
static bool index_names(struct ksyms *ks)
{
	size_t cap = 16, i, pos;

	while (cap < 2 * ks->nr)
		cap *= 2;
	free(ks->name_idx);
	ks->name_cap = 0;
	ks->name_idx = calloc(cap, sizeof(*ks->name_idx));
	if (!ks->name_idx)
		return false;
	ks->name_cap = cap;
	for (i = 0; i < ks->nr; i++) {
		pos = hash_name(str_at(ks, ks->syms[i].name)) & (cap - 1);
		while (ks->name_idx[pos])
			pos = (pos + 1) & (cap - 1);
		ks->name_idx[pos] = i + 1;
	}
	return true;
}

/* The address of vmlinux's symbol name (the lowest, if several), or 0. */
static uint64_t vmlinux_addr(const struct ksyms *ks, const char *name)
{
	struct name_iter it = iter_named(ks, name);
	const struct sym *k;
	uint64_t addr = 0;

	while ((k = next_named(ks, &it))) {
		if (!k->mod && (!addr || k->addr < addr))
			addr = k->addr;
	}
	return addr;
}

/* [_stext, _etext] or [_sinittext, _einittext], markers included. */
static bool in_text(const struct vmlinux_bounds *b, uint64_t addr)
{
	return (addr >= b->stext && addr <= b->etext) ||
	       (b->sinittext && addr >= b->sinittext && addr <= b->einittext);
}

/*
 * Would the kernel's %pS name a vmlinux address? Outside the ranges it
 * prints the bare address, as for a data address when kallsyms lists no
 * data. A table without the markers (a test's) takes every address.
 */
static bool vmlinux_resolves(const struct vmlinux_bounds *b, uint64_t addr)
{
	if (!b->stext || !b->etext)
		return true;
	if (b->all)
		return addr >= b->stext && (!b->end || addr < b->end);
	return in_text(b, addr) && addr != b->etext && addr != b->einittext;
}

static void find_vmlinux_bounds(struct ksyms *ks)
{
	struct vmlinux_bounds *b = &ks->vm;
	size_t i;

	b->stext = vmlinux_addr(ks, "_stext");
	b->etext = vmlinux_addr(ks, "_etext");
	b->sinittext = vmlinux_addr(ks, "_sinittext");
	b->einittext = vmlinux_addr(ks, "_einittext");
	b->end = vmlinux_addr(ks, "_end");
	/*
	 * Only CONFIG_KALLSYMS_ALL lists symbols outside the text ranges
	 * (arm64's _etext itself is a 'D' at the end of one).
	 */
	b->all = false;
	for (i = 0; i < ks->nr && !b->all; i++) {
		const struct sym *k = &ks->syms[i];

		b->all = !k->mod && k->addr >= KERNEL_ADDR_MIN && !in_text(b, k->addr);
	}
}

void ksyms__finish(struct ksyms *ks)
{
	sort_by_addr(ks);
	trim(ks);
	if (!index_names(ks)) {
		ks->nr = 0;
		return;
	}
	find_vmlinux_bounds(ks);
}

bool ksyms__restricted(const struct ksyms *ks)
{
	return ks->restricted;
}

/* Of several symbols called name, the one at the lowest address counts first. */
int ksyms__count_text(const struct ksyms *ks, const char *name, const char *module, uint64_t *addr)
{
	struct name_iter it = iter_named(ks, name);
	const struct sym *k, *first = NULL;
	int n = 0;

	while ((k = next_named(ks, &it))) {
		const char *mod = sym_module(ks, k);

		if (!is_text(k->type) || (module && (!mod || strcmp(module, mod))))
			continue;
		if (!first || k->addr < first->addr)
			first = k;
		n++;
	}
	if (first && addr)
		*addr = first->addr;
	return n;
}

int ksyms__addr_of(const struct ksyms *ks, const char *name, uint64_t *addr)
{
	struct name_iter it = iter_named(ks, name);
	const struct sym *k, *first = NULL;

	while ((k = next_named(ks, &it))) {
		if (!first || k->addr < first->addr)
			first = k;
	}
	if (!first)
		return -ENOENT;
	*addr = first->addr;
	return 0;
}

const char *ksyms__find(const struct ksyms *ks, uint64_t addr, uint64_t *start, uint64_t *size,
			const char **module)
{
	const struct sym *k = covering(ks, addr);

	if (!k)
		return NULL;
	*start = k->addr;
	*size = sym_size(ks, k);
	if (module)
		*module = sym_module(ks, k);
	return str_at(ks, k->name);
}

const char *ksyms__find_text(const struct ksyms *ks, uint64_t addr, uint64_t *start)
{
	/* the last symbol has no end to hold the address against */
	const struct sym *k = text_sym(ks, addr, 0);
	const struct vmlinux_bounds *b = &ks->vm;

	if (!k)
		return NULL;
	/*
	 * vmlinux: inside [_stext, _etext), when listed. The init text is
	 * freed after boot, and the kernel refuses probes there
	 * (core_kernel_text).
	 */
	if (!k->mod && b->stext && b->etext && (addr < b->stext || addr >= b->etext))
		return NULL;
	*start = k->addr;
	return str_at(ks, k->name);
}
