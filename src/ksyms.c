// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "util.h"

#define TRACEFS "/sys/kernel/tracing"

struct sym {
	uint64_t addr;
	char *name;
};

/* A sorted set of names, for membership tests. */
struct name_set {
	char **names;
	size_t n, cap;
	bool loaded; /* the source file could be read */
};

struct ksyms {
	struct sym *syms; /* by address */
	size_t nr, cap;
	struct name_set by_name; /* kallsyms text symbols */
	struct name_set ftrace;	 /* available_filter_functions */
	struct name_set blacklist;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool set_add(struct name_set *s, const char *name)
{
	if (!grow_array(&s->names, &s->cap, s->n, sizeof(*s->names), 1024))
		return false;
	s->names[s->n] = strdup(name);
	return s->names[s->n++] != NULL;
}

static void set_sort(struct name_set *s)
{
	qsort(s->names, s->n, sizeof(*s->names), cmp_str);
}

static bool set_has(const struct name_set *s, const char *name)
{
	return s->n && bsearch(&name, s->names, s->n, sizeof(*s->names), cmp_str);
}

static void set_free(struct name_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
}

static bool add_sym(struct ksyms *ks, uint64_t addr, const char *name)
{
	if (!grow_array(&ks->syms, &ks->cap, ks->nr, sizeof(*ks->syms), 4096))
		return false;
	ks->syms[ks->nr].addr = addr;
	ks->syms[ks->nr].name = strdup(name);
	return ks->syms[ks->nr++].name != NULL;
}

static void load_kallsyms(struct ksyms *ks)
{
	char line[640], name[512], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (!add_sym(ks, addr, name) || !set_add(&ks->by_name, name))
			break;
	}
	fclose(f);
	ks->by_name.loaded = true;
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_sym);
	set_sort(&ks->by_name);
}

/* One name per line, first word; "[module]" suffixes are dropped. */
static void load_name_file(struct name_set *s, const char *path, int word)
{
	char line[640], w1[512], w2[512];
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return;
	/* Reading may fail later (EPERM on locked-down tracefs). */
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%511s %511s", w1, w2);
		if (n < word)
			continue;
		if (!set_add(s, word == 1 ? w1 : w2))
			break;
		s->loaded = true;
	}
	fclose(f);
	set_sort(s);
}

struct ksyms *ksyms__load(void)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	load_kallsyms(ks);
	load_name_file(&ks->ftrace, TRACEFS "/available_filter_functions", 1);
	/* blacklist lines: "0xstart-0xend\tname" */
	load_name_file(&ks->blacklist, "/sys/kernel/debug/kprobes/blacklist", 2);
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->nr; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	set_free(&ks->by_name);
	set_free(&ks->ftrace);
	set_free(&ks->blacklist);
	free(ks);
}

const char *ksyms__addr_name(const struct ksyms *ks, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = ks->nr;

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
	return ks->syms[lo - 1].name;
}

bool ksyms__has_func(const struct ksyms *ks, const char *name)
{
	return set_has(&ks->by_name, name);
}

const char *ksyms__untraceable_reason(const struct ksyms *ks, const char *name)
{
	if (ks->by_name.loaded && ks->by_name.n && !set_has(&ks->by_name, name))
		return "it has no symbol in /proc/kallsyms (inlined or optimised away)";
	if (set_has(&ks->blacklist, name))
		return "it is on the kprobe blacklist";
	if (ks->ftrace.loaded && !set_has(&ks->ftrace, name))
		return "it is not in available_filter_functions (notrace or not traceable)";
	return NULL;
}

const char *ksyms__clone_of(const struct ksyms *ks, const char *name)
{
	size_t len = strlen(name), i;
	const char *found = NULL;

	for (i = 0; i < ks->by_name.n; i++) {
		const char *s = ks->by_name.names[i];

		if (strncmp(s, name, len) || s[len] != '.')
			continue;
		if (found)
			return NULL;
		found = s;
	}
	return found;
}

int ksyms__match(const struct ksyms *ks, const char *glob, const char ***out)
{
	const struct name_set *src = ks->ftrace.loaded ? &ks->ftrace : &ks->by_name;
	const char **names = NULL, *prev = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < src->n; i++) {
		const char *name = src->names[i];

		if ((prev && !strcmp(prev, name)) || fnmatch(glob, name, 0) ||
		    set_has(&ks->blacklist, name))
			continue;
		if (!grow_array(&names, &cap, n, sizeof(*names), 64)) {
			free(names);
			return -ENOMEM;
		}
		names[n++] = prev = name;
	}
	*out = names;
	return n;
}
