/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols: kallsyms, ftrace's traceable set and the kprobe blacklist. */
#ifndef KSNOOP_KSYMS_H
#define KSNOOP_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct ksyms;

/* Reads ftrace's traceable set and the kprobe blacklist; kallsyms on need. */
struct ksyms *ksyms__load(void);
/*
 * The same from other files (tests use fixtures); a NULL path is a file
 * that cannot be read. The kallsyms path is kept for the lazy read.
 */
struct ksyms *ksyms__load_from(const char *kallsyms, const char *filter_funcs,
			       const char *blacklist);
/* Reads kallsyms now rather than at the first question that needs it. */
void ksyms__load_kallsyms(struct ksyms *ks);
void ksyms__free(struct ksyms *ks);

/* Symbol covering addr, with its start; NULL when unknown. */
const char *ksyms__addr_name(struct ksyms *ks, uint64_t addr, uint64_t *start);
/* The same, and *mod the module it is in ("nf_tables"), NULL for the kernel's own. */
const char *ksyms__addr_sym(struct ksyms *ks, uint64_t addr, uint64_t *start, const char **mod);
bool ksyms__has_func(struct ksyms *ks, const char *name);

/*
 * Why name cannot be traced, or NULL when it can (as far as we can tell:
 * a file we cannot read is not held against the function).
 */
const char *ksyms__untraceable_reason(struct ksyms *ks, const char *name);

/*
 * Traceable function names matching a glob, sorted and unique, from
 * available_filter_functions (kallsyms when that cannot be read), minus
 * the kprobe blacklist. *out is malloc'ed, the names are not.
 */
int ksyms__match(const struct ksyms *ks, const char *glob, const char ***out);

/* The single compiler clone ("name.isra.0") of name, or NULL. */
const char *ksyms__clone_of(struct ksyms *ks, const char *name);

#endif
