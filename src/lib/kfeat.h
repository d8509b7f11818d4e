/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel features ksnoop's BPF programs use beyond Linux 5.10's, each
 * probed in the running kernel's own BTF (its UAPI enums and the structs
 * that came with a feature), never inferred from a version number, so a
 * backport counts. Each has a fallback, which `ksnoop feature` names.
 */
#ifndef KSNOOP_KFEAT_H
#define KSNOOP_KFEAT_H

#include <stdbool.h>

struct btf;

enum kfeat {
	KFEAT_TASK_STORAGE,  /* BPF_MAP_TYPE_TASK_STORAGE, bpf_get_current_task_btf: 5.11 */
	KFEAT_KPROBE_COOKIE, /* bpf_get_attach_cookie: 5.15 */
	KFEAT_TASK_PT_REGS,  /* bpf_task_pt_regs: 5.15 */
	KFEAT_LOOP,	     /* bpf_loop: 5.17 */
	KFEAT_FUNC_ARG,	     /* bpf_get_func_arg, bpf_get_func_ret: 5.17 */
	KFEAT_FENTRY_COOKIE, /* attach cookies on fentry/fexit links: 5.19 */
	KFEAT_MEM_ALLOC,     /* any hash map in perf event programs (bpf_mem_alloc): 6.1 */
	KFEAT_UPROBE_MULTI,  /* BPF_TRACE_UPROBE_MULTI links: 6.6 */
	KFEAT_NR,
};

/* A set of features, by bit (1 << enum kfeat). */
typedef unsigned int kfeat_set;

#define KFEAT_ALL ((1U << KFEAT_NR) - 1)

/* The features vmlinux's BTF shows; none without BTF. */
kfeat_set kfeat_probe(const struct btf *vmlinux);

static inline bool kfeat_has(kfeat_set set, enum kfeat f)
{
	return set & (1U << f);
}

/* Its name as `feature` prints it, the release it came with, and what ksnoop does without it. */
const char *kfeat_name(enum kfeat f);
const char *kfeat_since(enum kfeat f);
const char *kfeat_fallback(enum kfeat f);

/* The value of enumerator vname of enum ename in btf, or -1 where it has none. */
long long btf_enum_value(const struct btf *btf, const char *ename, const char *vname);

/* Whether btf's struct sname has a member mname: kernel features show so too. */
bool btf_struct_has_member(const struct btf *btf, const char *sname, const char *mname);

#endif
