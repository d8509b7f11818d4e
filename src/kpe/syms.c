// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpe/syms.h"

#define KERNEL_ADDR_MIN 0x8000000000000000ULL

struct ksym {
	uint64_t addr;
	char *name;
	char *module; /* NULL for vmlinux */
	char type;
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

/* kallsyms' text types: local, global and weak */
static bool is_text(char type)
{
	return strchr("tTwW", type) != NULL;
}

struct kpe_syms {
	struct ksym *syms;     /* by address */
	struct ksym **by_name; /* by name, then address */
	size_t nr, cap;
	bool restricted;
	struct vmlinux_bounds vm;
};

struct kpe_syms *kpe_syms__new(void)
{
	return calloc(1, sizeof(struct kpe_syms));
}

int kpe_syms__add(struct kpe_syms *s, uint64_t addr, char type, const char *name,
		  const char *module)
{
	struct ksym *k;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct ksym *n = realloc(s->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->syms = n;
		s->cap = cap;
	}
	k = &s->syms[s->nr];
	k->addr = addr;
	k->type = type;
	k->name = strdup(name);
	k->module = module ? strdup(module) : NULL;
	if (!k->name || (module && !k->module)) {
		free(k->name);
		free(k->module);
		return -ENOMEM;
	}
	s->nr++;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_name(const void *a, const void *b)
{
	const struct ksym *x = *(struct ksym *const *)a, *y = *(struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr < y->addr ? -1 : x->addr > y->addr);
}

static size_t first_named(const struct kpe_syms *s, const char *name)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(s->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The address of vmlinux's symbol name, or 0. */
static uint64_t vmlinux_addr(const struct kpe_syms *s, const char *name)
{
	size_t i;

	for (i = first_named(s, name); i < s->nr && !strcmp(s->by_name[i]->name, name); i++) {
		if (!s->by_name[i]->module)
			return s->by_name[i]->addr;
	}
	return 0;
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

void kpe_syms__finish(struct kpe_syms *s)
{
	size_t i;

	qsort(s->syms, s->nr, sizeof(*s->syms), cmp_addr);
	free(s->by_name);
	s->by_name = malloc((s->nr ? s->nr : 1) * sizeof(*s->by_name));
	if (!s->by_name) {
		s->nr = 0;
		return;
	}
	for (i = 0; i < s->nr; i++)
		s->by_name[i] = &s->syms[i];
	qsort(s->by_name, s->nr, sizeof(*s->by_name), cmp_name);
	s->restricted = s->nr && s->syms[s->nr - 1].addr == 0;
	s->vm.stext = vmlinux_addr(s, "_stext");
	s->vm.etext = vmlinux_addr(s, "_etext");
	s->vm.sinittext = vmlinux_addr(s, "_sinittext");
	s->vm.einittext = vmlinux_addr(s, "_einittext");
	s->vm.end = vmlinux_addr(s, "_end");
	/*
	 * Only CONFIG_KALLSYMS_ALL lists symbols outside the text ranges
	 * (arm64's _etext itself is a 'D' at the end of one).
	 */
	s->vm.all = false;
	for (i = 0; i < s->nr && !s->vm.all; i++) {
		const struct ksym *k = &s->syms[i];

		s->vm.all = !k->module && k->addr >= KERNEL_ADDR_MIN && !in_text(&s->vm, k->addr);
	}
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static int add_line(struct kpe_syms *s, char *line)
{
	char *p = line, *end, *name, *mod = NULL;
	unsigned long long addr;
	char type;

	addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return 0;
	p = end + 1;
	type = *p++;
	if (*p++ != ' ')
		return 0;
	name = p;
	p += strcspn(p, " \t\n");
	if (*p == '\t' || *p == ' ') {
		*p++ = '\0';
		p += strspn(p, " \t");
		if (*p == '[') {
			mod = p + 1;
			mod[strcspn(mod, "]")] = '\0';
		}
	} else {
		*p = '\0';
	}
	return kpe_syms__add(s, addr, type, name, mod);
}

struct kpe_syms *kpe_syms__load(const char *path)
{
	struct kpe_syms *s = kpe_syms__new();
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (!s)
		return NULL;
	f = fopen(path ? path : "/proc/kallsyms", "r");
	if (!f) {
		kpe_syms__free(s);
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		if (add_line(s, line)) {
			free(line);
			fclose(f);
			kpe_syms__free(s);
			errno = ENOMEM;
			return NULL;
		}
	}
	free(line);
	fclose(f);
	kpe_syms__finish(s);
	return s;
}

void kpe_syms__free(struct kpe_syms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		free(s->syms[i].name);
		free(s->syms[i].module);
	}
	free(s->syms);
	free(s->by_name);
	free(s);
}

bool kpe_syms__restricted(const struct kpe_syms *s)
{
	return s->restricted;
}

int kpe_syms__count_text(const struct kpe_syms *s, const char *name, const char *module,
			 uint64_t *addr)
{
	size_t i = first_named(s, name);
	int n = 0;

	for (; i < s->nr && !strcmp(s->by_name[i]->name, name); i++) {
		const struct ksym *k = s->by_name[i];

		if (!is_text(k->type))
			continue;
		if (module && (!k->module || strcmp(module, k->module)))
			continue;
		if (!n++ && addr)
			*addr = k->addr;
	}
	return n;
}

int kpe_syms__addr(const struct kpe_syms *s, const char *name, uint64_t *addr)
{
	size_t i = first_named(s, name);

	if (i >= s->nr || strcmp(s->by_name[i]->name, name))
		return -ENOENT;
	*addr = s->by_name[i]->addr;
	return 0;
}

/* The symbol %pS would name for addr, or NULL. */
static const struct ksym *covering(const struct kpe_syms *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Kernel addresses live in the upper half; per-CPU symbols count up
	 * from 0 and %pS never shows them.
	 */
	if (lo == 0 || addr < KERNEL_ADDR_MIN || s->syms[lo - 1].addr < KERNEL_ADDR_MIN ||
	    s->restricted)
		return NULL;
	if (!s->syms[lo - 1].module && !vmlinux_resolves(&s->vm, addr))
		return NULL;
	return &s->syms[lo - 1];
}

/* From k to the next symbol at a higher address, 0 for the last one. */
static uint64_t sym_size(const struct kpe_syms *s, const struct ksym *k)
{
	size_t next;

	for (next = k - s->syms + 1; next < s->nr && s->syms[next].addr == k->addr; next++)
		;
	return next < s->nr ? s->syms[next].addr - k->addr : 0;
}

const char *kpe_syms__find(const struct kpe_syms *s, uint64_t addr, uint64_t *start, uint64_t *size,
			   const char **module)
{
	const struct ksym *k = covering(s, addr);

	if (!k)
		return NULL;
	*start = k->addr;
	*size = sym_size(s, k);
	if (module)
		*module = k->module;
	return k->name;
}

const char *kpe_syms__find_text(const struct kpe_syms *s, uint64_t addr, uint64_t *start)
{
	const struct ksym *k = covering(s, addr);
	uint64_t size;

	if (!k || !is_text(k->type))
		return NULL;
	/*
	 * vmlinux: inside [_stext, _etext), when listed. The init text is
	 * freed after boot, and the kernel refuses probes there
	 * (core_kernel_text).
	 */
	if (!k->module && s->vm.stext && s->vm.etext && (addr < s->vm.stext || addr >= s->vm.etext))
		return NULL;
	/* the last symbol has no end to hold the address against */
	size = sym_size(s, k);
	if (!size || addr - k->addr >= size)
		return NULL;
	*start = k->addr;
	return k->name;
}
