// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols. /proc/kallsyms has some 100,000 text symbols and
 * available_filter_functions some 50,000 lines, and both are read at every
 * start, so loading is kept cheap: files are parsed in large chunks
 * without sscanf, every name is stored once in one string table (offsets,
 * not pointers, so the table can grow), membership is a hash lookup, and
 * nothing is sorted by name until a glob asks for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ksyms.h"
#include "lib/util.h"

#define TRACEFS "/sys/kernel/tracing"
#define READ_CHUNK (256 << 10)
#define MAX_LINE 1024

struct sym {
	uint64_t addr;
	uint32_t name; /* offset into the string table */
	uint32_t mod;  /* the module's name there, + 1; 0 for the kernel's own */
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
	struct sym *syms; /* kallsyms text symbols, by address */
	size_t nr, cap;
	struct name_set by_name; /* kallsyms text symbols */
	struct name_set ftrace;	 /* available_filter_functions */
	struct name_set blacklist;
	bool kallsyms_tried; /* loaded on first need: see need_kallsyms() */
	uint32_t last_mod;   /* a module's symbols come together: its name once */
	char *kallsyms_path; /* NULL: no kallsyms */
};

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
 * overlong lines are skipped. Returns -errno when path cannot be opened;
 * a read error later ends the file early (EPERM on locked-down tracefs).
 */
static int for_each_line(const char *path, bool (*fn)(struct ksyms *, char *, size_t),
			 struct ksyms *ks)
{
	char *buf = malloc(READ_CHUNK + 1), *line, *nl;
	size_t have = 0;
	bool skipping = false;
	ssize_t n;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while ((n = read(fd, buf + have, READ_CHUNK - have)) > 0) {
		have += n;
		line = buf;
		while ((nl = memchr(line, '\n', buf + have - line))) {
			*nl = 0;
			if (!skipping && !fn(ks, line, nl - line))
				goto out;
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
		fn(ks, buf, have);
	}
out:
	close(fd);
	free(buf);
	return 0;
}

/* After a name, "\t[module]": the module's string offset + 1, 0 for none, -1 OOM. */
static int64_t kallsyms_module(struct ksyms *ks, const char *p, const char *end)
{
	const char *open = memchr(p, '[', end - p), *close;
	int64_t off;

	if (!open)
		return 0;
	close = memchr(open, ']', end - open);
	if (!close || close == open + 1)
		return 0;
	if (ks->last_mod && !strncmp(ks->strs + ks->last_mod - 1, open + 1, close - open - 1) &&
	    !ks->strs[ks->last_mod - 1 + (close - open - 1)])
		return ks->last_mod;
	off = str_add(ks, open + 1, close - open - 1);
	if (off < 0)
		return -1;
	ks->last_mod = off + 1;
	return off + 1;
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static bool kallsyms_line(struct ksyms *ks, char *line, size_t len)
{
	char *p = line, *name;
	uint32_t *slot;
	uint64_t addr = 0;
	size_t nlen;
	int64_t off, mod;
	char type;

	for (; *p && *p != ' '; p++) {
		char c = *p;

		addr = addr << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	if (p == line || p + 3 > line + len || p[2] != ' ')
		return true;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'W' && type != 'w')
		return true;
	name = p + 3;
	nlen = strcspn(name, " \t");
	if (!nlen || nlen >= MAX_LINE)
		return true;
	if (!grow_array(&ks->syms, &ks->cap, ks->nr, sizeof(*ks->syms), 65536))
		return false;
	mod = kallsyms_module(ks, name + nlen, line + len);
	if (mod < 0)
		return false;
	name[nlen] = 0;
	/* Static functions of the same name share one string, as ftrace's do. */
	slot = ks->by_name.n ? set_slot(ks, &ks->by_name, name) : NULL;
	if (!(slot && *slot) && ks->ftrace.n)
		slot = set_slot(ks, &ks->ftrace, name);
	if (slot && *slot) {
		off = *slot - 1;
		if (!set_has(ks, &ks->by_name, name) && !set_add_off(ks, &ks->by_name, off))
			return false;
	} else {
		off = str_add(ks, name, nlen);
		if (off < 0 || !set_add_off(ks, &ks->by_name, off))
			return false;
	}
	ks->syms[ks->nr].addr = addr;
	ks->syms[ks->nr].mod = mod;
	ks->syms[ks->nr++].name = off;
	return true;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(struct ksyms *ks)
{
	size_t i;

	if (!ks->kallsyms_path || for_each_line(ks->kallsyms_path, kallsyms_line, ks))
		return;
	ks->by_name.loaded = true;
	/* kallsyms is nearly always in address order already. */
	for (i = 1; i < ks->nr; i++) {
		if (ks->syms[i - 1].addr > ks->syms[i].addr) {
			qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_sym);
			break;
		}
	}
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
static void need_kallsyms(struct ksyms *ks)
{
	if (ks->kallsyms_tried)
		return;
	ks->kallsyms_tried = true;
	load_kallsyms(ks);
	trim(ks);
}

void ksyms__load_kallsyms(struct ksyms *ks)
{
	need_kallsyms(ks);
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_from("/proc/kallsyms", TRACEFS "/available_filter_functions",
				"/sys/kernel/debug/kprobes/blacklist");
}

struct ksyms *ksyms__load_from(const char *kallsyms, const char *filter_funcs,
			       const char *blacklist)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->kallsyms_path = kallsyms ? strdup(kallsyms) : NULL;
	if (kallsyms && !ks->kallsyms_path) {
		free(ks);
		return NULL;
	}
	if (filter_funcs)
		for_each_line(filter_funcs, ftrace_line, ks);
	if (blacklist)
		for_each_line(blacklist, blacklist_line, ks);
	if (!ks->ftrace.loaded)
		need_kallsyms(ks);
	trim(ks);
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->strs);
	free(ks->syms);
	free(ks->by_name.slots);
	free(ks->ftrace.slots);
	free(ks->blacklist.slots);
	free(ks->kallsyms_path);
	free(ks);
}

const char *ksyms__addr_name(struct ksyms *ks, uint64_t addr, uint64_t *start)
{
	return ksyms__addr_sym(ks, addr, start, NULL);
}

const char *ksyms__addr_sym(struct ksyms *ks, uint64_t addr, uint64_t *start, const char **mod)
{
	size_t lo, hi;

	need_kallsyms(ks);
	lo = 0;
	hi = ks->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !addr)
		return NULL;
	if (start)
		*start = ks->syms[lo - 1].addr;
	if (mod)
		*mod = ks->syms[lo - 1].mod ? str_at(ks, ks->syms[lo - 1].mod - 1) : NULL;
	return str_at(ks, ks->syms[lo - 1].name);
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

/* Every kallsyms entry counts, so two static clones of one name are ambiguous. */
const char *ksyms__clone_of(struct ksyms *ks, const char *name)
{
	size_t len = strlen(name), i;
	const char *found = NULL;

	need_kallsyms(ks);
	for (i = 0; i < ks->nr; i++) {
		const char *s = str_at(ks, ks->syms[i].name);

		if (strncmp(s, name, len) || s[len] != '.')
			continue;
		if (found)
			return NULL;
		found = s;
	}
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ksyms__match(const struct ksyms *ks, const char *glob, const char ***out)
{
	const struct name_set *src = ks->ftrace.loaded ? &ks->ftrace : &ks->by_name;
	const char **names = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < src->cap; i++) {
		const char *name;

		if (!src->slots[i])
			continue;
		name = str_at(ks, src->slots[i] - 1);
		if (fnmatch(glob, name, 0) || set_has(ks, &ks->blacklist, name))
			continue;
		if (!grow_array(&names, &cap, n, sizeof(*names), 64)) {
			free(names);
			return -ENOMEM;
		}
		names[n++] = name;
	}
	/* The set holds each name once; sorting makes the order stable. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	return n;
}
