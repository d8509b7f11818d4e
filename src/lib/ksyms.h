/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols: kallsyms, ftrace's traceable set and the kprobe
 * blacklist. One table serves two families: trace, count and hist keep the
 * text symbols (ksyms__load); ksnoop probe keeps every symbol, text and
 * data, with its type (ksyms__load_all), to resolve @SYM and MEMADDR,
 * check probe points and print %pS-style "sym+0xoff/0xsize".
 */
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
struct symcache_cfg;
/*
 * ksyms__load_from, through cache's per-boot copies of the lists and the
 * index built from them (lib/symcache.h); ksyms__load uses the system's.
 */
struct ksyms *ksyms__load_cached(const struct symcache_cfg *cache, const char *kallsyms,
				 const char *filter_funcs, const char *blacklist);
/* Reads kallsyms now rather than at the first question that needs it. */
void ksyms__load_kallsyms(struct ksyms *ks);
void ksyms__free(struct ksyms *ks);

/* Symbol covering addr, with its start; NULL when unknown. */
const char *ksyms__addr_name(struct ksyms *ks, uint64_t addr, uint64_t *start);
/* The same, and *mod the module it is in ("nf_tables"), NULL for the kernel's own. */
const char *ksyms__addr_sym(struct ksyms *ks, uint64_t addr, uint64_t *start, const char **mod);

struct strbuf;
/* A stack frame as "func+0xoff [module]" (no module for vmlinux), or "0x..." unnamed. */
void ksyms__frame(struct ksyms *ks, uint64_t ip, struct strbuf *sb);
/*
 * Where a stack taken in a probe of func starts to be the kernel's: the
 * first of the n frames inside func; if none is, the first inside a kernel
 * function other than BPF's; else 0. Above it at fentry sit the BPF
 * program and its trampoline, which were not in kallsyms when it was read.
 */
int ksyms__stack_start(struct ksyms *ks, const uint64_t *ips, int n, const char *func);
/*
 * Names the frames of a stack from ksyms__stack_start(func) (the first
 * frame when func is NULL) outwards, at most depth of them, and hands each
 * to fn with its position among those shown.
 */
void ksyms__stack_frames(struct ksyms *ks, const uint64_t *ips, int n, const char *func, int depth,
			 void (*fn)(void *ctx, const char *frame, int i), void *ctx);
/*
 * At a kprobe on func's first instruction, a frame-pointer unwinder (arm64,
 * x86-64 without ORC) goes from func straight to its caller's caller.
 * entry_ra, the return address func was entered with, is the caller: it
 * goes back after func's frame unless it is there. ips has room for n + 1;
 * returns the new n.
 */
int ksyms__restore_caller(struct ksyms *ks, uint64_t *ips, int n, const char *func,
			  uint64_t entry_ra);
/*
 * At fentry, 7.x's unwinder leaves out func's own frame: it goes from the
 * trampoline to the caller. The event is at func's entry, so func's address
 * goes first unless func is there. ips has room for n + 1; returns the new n.
 */
int ksyms__restore_func(struct ksyms *ks, uint64_t *ips, int n, const char *func);
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
/*
 * The kernel's functions glob matches that ftrace cannot trace (notrace,
 * kprobe blacklist), which ksyms__match leaves out; none when the ftrace
 * list is not loaded. *out as ksyms__match's.
 */
int ksyms__match_untraceable(struct ksyms *ks, const char *glob, const char ***out);

/* The single compiler clone ("name.isra.0") of name, or NULL. */
const char *ksyms__clone_of(struct ksyms *ks, const char *name);
/* name's own text symbol if kallsyms has one, else its single clone, else NULL. */
const char *ksyms__symbol_or_clone(struct ksyms *ks, const char *name);

/* Every kallsyms symbol, read now; path NULL means /proc/kallsyms. NULL and errno on failure. */
struct ksyms *ksyms__load_all(const char *path);
/* An empty table for tests; ksyms__add then ksyms__finish. */
struct ksyms *ksyms__new(void);
int ksyms__add(struct ksyms *ks, uint64_t addr, char type, const char *name, const char *module);
/* Sorts and indexes by name: the questions below need it (ksyms__load_all does it). */
void ksyms__finish(struct ksyms *ks);

/* Addresses all read as zero (kptr_restrict): only names can be checked. */
bool ksyms__restricted(const struct ksyms *ks);
/*
 * Text symbols called name (only module's, when not NULL): how many, and
 * the first one's address.
 */
int ksyms__count_text(const struct ksyms *ks, const char *name, const char *module, uint64_t *addr);
/* Any symbol called name: 0 and its address, or -ENOENT. */
int ksyms__addr_of(const struct ksyms *ks, const char *name, uint64_t *addr);
/*
 * The symbol %pS names for addr: its name, start and size (to the next
 * one), and its module (NULL for vmlinux) when module is not NULL.
 */
const char *ksyms__find(const struct ksyms *ks, uint64_t addr, uint64_t *start, uint64_t *size,
			const char **module);
/*
 * The text symbol (kallsyms type t, T, w or W) holding addr, where a probe
 * can go: for vmlinux inside [_stext, _etext). NULL for data, rodata, the
 * init text, gaps and anything past the last symbol.
 */
const char *ksyms__find_text(const struct ksyms *ks, uint64_t addr, uint64_t *start);

#endif
