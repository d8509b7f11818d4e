/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A plan is what one traced function captures and how each captured value
 * is shown: the BPF side's ksnoop_func_cfg plus the BTF types and names
 * the formatter needs. Built once at start-up from a spec and BTF.
 */
#ifndef KSNOOP_PLAN_H
#define KSNOOP_PLAN_H

#include <stdbool.h>
#include <bpf/btf.h>

#include "abi/trace.h"
#include "lib/decode.h"
#include "lib/kbtf.h"
#include "lib/ksyms.h"
#include "trace/spec.h"

enum show_kind {
	SHOW_SCALAR,   /* raw value as its BTF type: (int)0x0 */
	SHOW_PTR_DUMP, /* *(0xaddr) then the pointee: (struct sk_buff){...} */
	SHOW_MEMORY,   /* bytes read from memory, shown as the BTF type */
	SHOW_STRING,   /* char * or char[]: "text" */
};

struct plan_value {
	char *name; /* "skb", "skb->len", "return" */
	const struct btf *btf;
	__u32 type_id;	 /* type of what is shown (pointee for SHOW_PTR_DUMP) */
	__u32 full_size; /* size of that type, before capping */
	enum show_kind show;
	bool is_return;
	bool hidden;		/* predicate operand only */
	bool via_pointer;	/* read through a pointer: show *(0xaddr) */
	__u8 bit_off, bit_size; /* bitfield members */
	enum decode decode;	/* shown also as an address, port, signal... */
};

struct func_plan {
	char *name;	   /* as the user wrote it */
	char *attach_name; /* kernel symbol to attach to; a tracepoint's event */
	enum spec_target target;
	struct kbtf_func func;
	int nr_args;
	bool bare;	/* "name" without a list: all args and return */
	bool from_glob; /* expanded from a wildcard */
	int spec_idx;	/* the FUNC argument it came from */
	int key_items;	/* spans: values[0 .. key_items - 1] are the key */
	struct plan_value values[KSNOOP_MAX_VALUES];
	struct ksnoop_func_cfg cfg;
	bool preds_fast; /* no comparison but fast ones (cfg.fast_preds) */
	/* a user function (ufunc.h): its uprobe's file and offset; path is NULL for the kernel's */
	struct {
		char *path;
		unsigned long long offset;
	} user;
	/* a syscalls event: raw_syscalls' sys_enter or sys_exit, kept to one call */
	struct {
		enum ksnoop_tp_syscall syscall;
		int syscall_nr;
	} tp;
	int profile_hz; /* profile:HZ */
	/* a kernel function without BTF (only its clone in kallsyms): kprobe, no arguments */
	bool no_btf;
	struct btf *own_btf; /* a prototype of ksnoop's, split on vmlinux's BTF */
	char note[160];	     /* a warning shown at start (clones, duplicates) */
};

/* How a call reaches user space. */
enum plan_sample {
	PLAN_EVENTS,  /* trace: entry and return events, as the spec asks */
	PLAN_SAMPLE,  /* count, hist: one sample per call, once its values are known */
	PLAN_LATENCY, /* hist --latency: one sample per call, at return, with its duration */
};

struct plan_opts {
	enum plan_sample sample;
	const char *comm; /* only tasks whose comm matches this glob */
	bool combined;	  /* one event per call, at return (--duration) */
	int max_bytes;	  /* cap on bytes captured per value, 0 for the default */
	bool frames;	  /* pair returns with entries always (-s, durations shown) */
	bool errors;	  /* --errors: one event per failing call, at return */
	bool graph;	  /* graph: one event per call, at return; bare: the return only */
	/*
	 * The name came from a pattern: one without BTF fails with -ENOENT
	 * at once, without a message or the costly "did you mean".
	 */
	bool from_glob;
	/* --follow's functions: bare is each argument at entry, structs by address */
	bool follow;
	/* and the return, where it points to this type (vmlinux's id; 0: never) */
	__u32 follow_copies;
	bool span; /* --from, --to: the spec may start with a key tuple */
	int pid;   /* -p's one process, or 0: a user target is first what it maps */
	/* count: a lone comparison only filters; its operand keys where listed */
	bool cmp_hidden;
	/* kallsyms: a function without BTF is traced for current and comm; NULL refuses it */
	struct ksyms *ks;
};

static inline bool plan_is_user(const struct func_plan *p)
{
	return p->user.path != NULL;
}

static inline bool plan_is_tracepoint(const struct func_plan *p)
{
	return p->target == SPEC_TRACEPOINT;
}

/* A tracepoint fires, a sample is taken: neither is a call, which returns. */
static inline bool plan_returns(const struct func_plan *p)
{
	return p->target != SPEC_TRACEPOINT && p->target != SPEC_PROFILE;
}

/*
 * The first of func's parameters that the traced call has: a tracepoint's
 * stub takes __data before the tracepoint's own (tpoint.h).
 */
static inline int plan_first_param(const struct func_plan *p)
{
	return plan_is_tracepoint(p) ? 1 : 0;
}

/* Value i shows the pointer it holds, reading nothing there. */
void plan_show_address(struct func_plan *plan, int i);

/* The return value itself, not a member reached from it. */
bool plan_value_is_ret(const struct plan_value *pv);

/*
 * plan->func becomes name(void), in a BTF of the plan's own split on
 * vmlinux's, attached at attach: what a target without a BTF function of
 * its own traces under. 0, or -ENOMEM said.
 */
int plan_own_void_func(struct kbtf *kb, struct func_plan *plan, const char *name,
		       const char *attach);
/* Errors are reported with p_err; returns 0 or a negative errno. */
int plan_build(struct kbtf *kb, const struct spec *spec, const struct plan_opts *opts,
	       struct func_plan *plan);
void plan_free(struct func_plan *plan);

/*
 * Where a parameter path leads, before a plan decides how to show it:
 * start from argument v.arg (or the return value), load a pointer at
 * +v.offs[i] for each step; then the value is the member at +off of the
 * last pointer when in_memory, else the loaded value itself.
 * (kprobe_events BTF arguments and the kprobe-events generator use it.)
 */
struct plan_path {
	struct ksnoop_value v; /* base, arg, nr_steps, offs[] */
	const struct btf *btf;
	__u32 type_id; /* type of the value at the end */
	bool in_memory;
	int off;
	__u8 bit_off, bit_size;
};

/*
 * Member name of the struct or union id, found as C finds it (through
 * anonymous structs and unions): its byte offset and type. false when
 * there is none, or it is a bitfield.
 */
bool plan_member(const struct btf *btf, __u32 id, const char *name, int *off, __u32 *type_id);
/* The same, bitfields too: the offset in bits, and the width (0: not a bitfield). */
bool plan_member_bits(const struct btf *btf, __u32 id, const char *name, __u64 *bits,
		      __u8 *bit_size, __u32 *type_id);
/* Errors are reported with p_err; returns 0 or a negative errno. */
int plan_resolve_path(const struct kbtf_func *func, const char *fname, const struct spec_path *p,
		      struct plan_path *out);

#endif
