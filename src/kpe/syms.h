/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kallsyms symbol, text and data, with the module it belongs to:
 * ksnoop probe resolves @SYM and MEMADDR with it, checks probe points,
 * and prints %pS-style "sym+0xoff/0xsize". (ksyms.h keeps only the
 * traceable text symbols the trace command needs.)
 */
#ifndef KSNOOP_KPE_SYMS_H
#define KSNOOP_KPE_SYMS_H

#include <stdbool.h>
#include <stdint.h>

struct kpe_syms;

/* path NULL means /proc/kallsyms. NULL on failure, errno set. */
struct kpe_syms *kpe_syms__load(const char *path);
/* An empty table for tests; kpe_syms__add then kpe_syms__finish. */
struct kpe_syms *kpe_syms__new(void);
int kpe_syms__add(struct kpe_syms *s, uint64_t addr, char type, const char *name,
		  const char *module);
void kpe_syms__finish(struct kpe_syms *s);
void kpe_syms__free(struct kpe_syms *s);

/* Addresses all read as zero (kptr_restrict): only names can be checked. */
bool kpe_syms__restricted(const struct kpe_syms *s);

/*
 * Text symbols called name (only module's, when not NULL): how many, and
 * the first one's address.
 */
int kpe_syms__count_text(const struct kpe_syms *s, const char *name, const char *module,
			 uint64_t *addr);
/* Any symbol called name: 0 and its address, or -ENOENT. */
int kpe_syms__addr(const struct kpe_syms *s, const char *name, uint64_t *addr);
/*
 * The symbol covering addr: its name, start and size (to the next one),
 * and its module (NULL for vmlinux) when module is not NULL.
 */
const char *kpe_syms__find(const struct kpe_syms *s, uint64_t addr, uint64_t *start, uint64_t *size,
			   const char **module);
/*
 * The text symbol (kallsyms type t, T, w or W) holding addr, where a probe
 * can go: for vmlinux inside [_stext, _etext). NULL for data, rodata, the
 * init text, gaps and anything past the last symbol.
 */
const char *kpe_syms__find_text(const struct kpe_syms *s, uint64_t addr, uint64_t *start);

#endif
