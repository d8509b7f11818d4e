// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <bpf/btf.h>

#include "lib/kfeat.h"

struct kfeat_desc {
	const char *name;
	const char *since;
	const char *fallback;
	const char *enum_name; /* the UAPI enum that names it, and its value */
	const char *value;
	const char *struct_name; /* or the struct member that came with it */
	const char *member;
};

static const struct kfeat_desc descs[KFEAT_NR] = {
	[KFEAT_TASK_STORAGE] = {
		.name = "task storage",
		.since = "5.11",
		.fallback = "a hash of thread ids, its entries removed at thread exit; a full one "
			    "counts 'task table full' drops",
		.enum_name = "bpf_map_type",
		.value = "BPF_MAP_TYPE_TASK_STORAGE",
	},
	[KFEAT_KPROBE_COOKIE] = {
		.name = "kprobe attach cookies",
		.since = "5.15",
		.fallback = "a kprobe program instance per function",
		.enum_name = "bpf_func_id",
		.value = "BPF_FUNC_get_attach_cookie",
	},
	[KFEAT_TASK_PT_REGS] = {
		.name = "bpf_task_pt_regs",
		.since = "5.15",
		.fallback = "--call-graph dwarf finds a task's user registers at the top of its "
			    "16 KiB kernel stack",
		.enum_name = "bpf_func_id",
		.value = "BPF_FUNC_task_pt_regs",
	},
	[KFEAT_LOOP] = {
		.name = "bpf_loop",
		.since = "5.17",
		.fallback = "plain loops in one instance per function; a string pattern takes at "
			    "most one '*'",
		.enum_name = "bpf_func_id",
		.value = "BPF_FUNC_loop",
	},
	[KFEAT_FUNC_ARG] = {
		.name = "bpf_get_func_arg",
		.since = "5.17",
		.fallback = "fentry/fexit read the arguments at fixed context offsets, one "
			    "instance per function",
		.enum_name = "bpf_func_id",
		.value = "BPF_FUNC_get_func_arg",
	},
	[KFEAT_FENTRY_COOKIE] = {
		.name = "fentry attach cookies",
		.since = "5.19",
		.fallback = "an fentry instance per function, each loaded through libbpf",
		.struct_name = "bpf_tramp_link",
		.member = "cookie",
	},
	[KFEAT_UPROBE_MULTI] = {
		.name = "uprobe.multi",
		.since = "6.6",
		.fallback = "a uprobe per user function",
		.enum_name = "bpf_attach_type",
		.value = "BPF_TRACE_UPROBE_MULTI",
	},
	[KFEAT_MEM_ALLOC] = {
		.name = "hash maps in perf event programs",
		.since = "6.1",
		.fallback = "profile:HZ is refused: its perf event programs could use only "
			    "preallocated hash maps",
		.struct_name = "bpf_mem_alloc",
		.member = "cache",
	},
};

long long btf_enum_value(const struct btf *btf, const char *ename, const char *vname)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, i;

	id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), vname))
			return e->val;
	}
	return -1;
}

static bool enum_has(const struct btf *btf, const char *ename, const char *vname)
{
	return btf_enum_value(btf, ename, vname) >= 0;
}

bool btf_struct_has_member(const struct btf *btf, const char *sname, const char *mname)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), mname))
			return true;
	}
	return false;
}

kfeat_set kfeat_probe(const struct btf *vmlinux)
{
	kfeat_set set = 0;
	int f;

	if (!vmlinux)
		return 0;
	for (f = 0; f < KFEAT_NR; f++) {
		const struct kfeat_desc *d = &descs[f];
		bool has = d->enum_name ? enum_has(vmlinux, d->enum_name, d->value)
					: btf_struct_has_member(vmlinux, d->struct_name, d->member);

		if (has)
			set |= 1U << f;
	}
	return set;
}

const char *kfeat_name(enum kfeat f)
{
	return f < KFEAT_NR ? descs[f].name : "?";
}

const char *kfeat_since(enum kfeat f)
{
	return f < KFEAT_NR ? descs[f].since : "?";
}

const char *kfeat_fallback(enum kfeat f)
{
	return f < KFEAT_NR ? descs[f].fallback : "?";
}
