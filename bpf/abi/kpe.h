/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksnoop probe's ABI between BPF (bpf/kpe.bpf.c) and user space.
 */
#ifndef KSNOOP_ABI_KPE_H
#define KSNOOP_ABI_KPE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "lib/arch.h"

/*
 * ksnoop probe: tracefs kprobe_events definitions compiled into a flat
 * fetch program per definition, interpreted by bpf/kprobe_events.bpf.c.
 * The program runs on one accumulator: a base op loads it, derefs replace
 * it, a store op writes argument slot `arg` and ends that argument.
 */
#define KPE_MAX_DEFS 64	      /* definitions per session */
#define KPE_MAX_ARGS 128      /* fetch arguments per definition (as tracefs) */
#define KPE_MAX_INSNS 1024    /* fetch ops per definition */
#define KPE_NR_REGS 64	      /* u64 slots of pt_regs copied for %REG */
#define KPE_STR_MAX 1024      /* bytes of one string value, NUL included */
#define KPE_DATA_MAX 8192     /* string and array bytes in one event */
#define KPE_STRTAB_MAX 1024   /* immediate strings of one definition */
#define KPE_MAX_PREDS 32      /* filter comparisons per definition */
#define KPE_MAX_FILTER_OPS 64 /* comparisons, &&, || and ! in postfix order */
#define KPE_PRED_STR_MAX 64   /* string/glob filter operand, NUL included */
#define KPE_KSTACK_MAX 127    /* --kstack frames: trace's KSNOOP_KSTACK_MAX */
#define KPE_MAX_EARGS 8	      /* entry arguments a return probe reads */
#define KPE_EARG_DEPTH 16     /* nested calls of one function whose entry values are kept */
#define KPE_SCRATCH_NEST 4    /* programs one CPU can have begun and not ended */

/* kprobe_def[]: a return probe's entry half, over the definition's index. */
#define KPE_PROG_ENTRY (1U << 31)

enum kpe_op {
	KPE_OP_REG,	  /* acc = regs[imm] */
	KPE_OP_IMM,	  /* acc = imm */
	KPE_OP_DEREF,	  /* acc = *(u64 *)(acc + imm), user or kernel by address */
	KPE_OP_UDEREF,	  /* acc = *(u64 *)(acc + imm) from user memory */
	KPE_OP_EARG,	  /* acc = the entry value kept in slot imm (return probes) */
	KPE_OP_FIELD,	  /* e: acc = the attached event's field at record + imm (KPE_F_*) */
	KPE_OP_TASK,	  /* acc = the current task's address + imm */
	KPE_OP_THIS_CPU,  /* acc += ((u64 *)imm)[this CPU]: __per_cpu_offset[] at imm */
	KPE_OP_ADD,	  /* acc += imm */
	KPE_OP_ST_VAL,	  /* vals[arg] = acc, `size` bytes, then bitfield shifts */
	KPE_OP_ST_MEM,	  /* vals[arg] = `size` bytes at acc + imm, then shifts */
	KPE_OP_ST_ARRAY,  /* `count` elements of `size` bytes at acc + imm -> data */
	KPE_OP_ST_STR,	  /* NUL-terminated string at acc + imm -> data */
	KPE_OP_ST_COMM,	  /* the current task's comm -> data */
	KPE_OP_ST_IMMSTR, /* strtab + imm -> data */
};

enum kpe_insn_flags {
	KPE_F_USER = 1 << 0, /* ST_MEM/ST_ARRAY/ST_STR: user memory only */
	/*
	 * OP_FIELD, as the kernel's event probes read a field: an integer of
	 * `size` bytes, sign-extended when signed; a string field's address.
	 */
	KPE_F_SIGNED = 1 << 1,
	KPE_F_ADDR = 1 << 2,	 /* char[N]: the field's own address */
	KPE_F_DATA_LOC = 1 << 3, /* __data_loc: record + the low 16 bits of the u32 */
	KPE_F_REL_LOC = 1 << 4,	 /* __rel_loc: the same, from the end of the u32 */
};

struct kpe_insn {
	__u8 op;
	__u8 arg;  /* argument slot a store writes */
	__u8 size; /* bytes of a value or array element: 1, 2, 4 or 8 */
	__u8 flags;
	__u8 shl; /* bitfield: v = (v << shl) >> shr, 0 and 0 otherwise */
	__u8 shr;
	__u16 count; /* array elements */
	__s64 imm;
};

enum kpe_cmp {
	KPE_CMP_EQ,
	KPE_CMP_NE,
	KPE_CMP_LT,
	KPE_CMP_LE,
	KPE_CMP_GT,
	KPE_CMP_GE,
	KPE_CMP_BAND, /* (value & rhs) != 0 */
	KPE_CMP_GLOB, /* string ~ pattern ('*' and '?') */
};

/* Filter operands other than the definition's own arguments. */
#define KPE_FIELD_COMM 0xfd /* the task's comm */
#define KPE_FIELD_PID 0xfe  /* common_pid: the thread id */
#define KPE_FIELD_CPU 0xff  /* CPU */

struct kpe_pred {
	__u8 field;  /* argument slot, or KPE_FIELD_* */
	__u8 op;     /* enum kpe_cmp */
	__u8 is_str; /* string comparison: ==, != or ~ against str */
	__u8 width;  /* bytes of the field, for sign extension */
	__u8 is_signed;
	__u8 pad[3];
	__u64 rhs;
	char str[KPE_PRED_STR_MAX];
};

/* filter_ops[]: an index into preds[], or one of these. */
#define KPE_FOP_NOT 0xfd
#define KPE_FOP_AND 0xfe
#define KPE_FOP_OR 0xff

enum kpe_def_flags {
	KPE_DEF_RETURN = 1 << 0, /* attached as a kretprobe */
	/*
	 * A return probe whose kernel runs it with the kretprobe trampoline's
	 * address for ip (before 5.13): its entry half keeps the return
	 * address, which the event shows.
	 */
	KPE_DEF_ENTRY_RA = 1 << 1,
};

/*
 * Each definition runs in a program of its own, told its definition before
 * loading: attach cookies came with 5.15, and with 6.10 for raw
 * tracepoints. Copies of the kprobe program: one per definition, and one
 * per return probe's entry half; of the trace event one (e), one per
 * definition; of the raw tracepoint one (t), KPE_MAX_TPROBES.
 */
#define KPE_MAX_KPROBES (2 * KPE_MAX_DEFS)
#define KPE_MAX_EPROBES KPE_MAX_DEFS
#define KPE_MAX_TPROBES 8

/* The arguments a raw tracepoint passes, at most (MAX_BPF_FUNC_ARGS). */
#define KPE_MAX_TP_ARGS 12

/*
 * An entry argument a return probe reads ($argN or a BTF parameter at
 * return, Linux 6.10): kept at entry from regs[reg], or from the 8 bytes
 * at regs[reg] + off for one passed on the stack.
 */
struct kpe_earg {
	__u16 reg;
	__u8 deref;
	__u8 pad;
	__s32 off;
};

/* Entry values of one task's calls of one return probe's function, innermost at depth. */
struct kpe_frames {
	__u32 depth;
	__u32 pad;
	__u64 vals[KPE_EARG_DEPTH][KPE_MAX_EARGS];
	__u64 ra[KPE_EARG_DEPTH]; /* KPE_DEF_ENTRY_RA: each call's return address */
};

struct kpe_frame_key {
	__u32 tid;
	__u32 def_id;
};

struct kpe_def_cfg {
	__u32 flags;
	__u32 nr_args;
	__u32 nr_insns;
	__u32 nr_preds;
	__u32 nr_filter_ops;
	__u32 nr_eargs;	  /* a return probe's entry half keeps eargs[] */
	__u32 nr_tp_args; /* t: the tracepoint's arguments, copied to regs[] */
	__u32 pad;
	struct kpe_earg eargs[KPE_MAX_EARGS];
	__u8 filter_ops[KPE_MAX_FILTER_OPS];
	struct kpe_pred preds[KPE_MAX_PREDS];
	char strtab[KPE_STRTAB_MAX];
	struct kpe_insn insns[KPE_MAX_INSNS];
};

/*
 * String and array arguments: vals[arg] = len << 32 | offset into data.
 * A fetch that faulted sets the argument's bit in faults[].
 */
#define KPE_VAL_LEN(v) ((__u32)((v) >> 32))
#define KPE_VAL_OFF(v) ((__u32)(v))

enum kpe_event_flags {
	KPE_EV_TRUNCATED = 1 << 0, /* data did not fit: later strings are empty */
	KPE_EV_KSTACK = 1 << 1,	   /* a struct kpe_kstack follows the data */
};

/*
 * --kstack: the event's last record, at data + data_len (8-aligned) to the
 * end of the ring buffer record: len bytes of frame addresses, innermost
 * first.
 */
struct kpe_kstack {
	__u32 len; /* 8 a frame */
	__u32 pad;
	/*
	 * A p probe's return address as the function was entered with it
	 * (x86-64: on top of the stack, arm64: in lr), 0 for r probes. At
	 * entry the prologue has not run, so a frame-pointer unwinder skips
	 * the caller (bpftrace#4159); user space puts it back from this.
	 */
	__u64 entry_ra;
	__u64 ips[];
};

/* The stack is kept out of data_len: room for it after the fullest data. */
#define KPE_KSTACK_ROOM (sizeof(struct kpe_kstack) + (KPE_KSTACK_MAX + 1) * 8)

/* Why an event, or part of one, was lost: kpe_drops' keys. */
enum kpe_drop {
	KPE_DROP_RINGBUF, /* ring buffer full */
	KPE_DROP_STACK,	  /* --kstack: the stack was not taken (shown without it) */
	KPE_DROP_KERNEL, /* calls the kernel skipped, counted by the kernel (user space reads them) */
	KPE_DROP_NEST, /* every scratch slot of the CPU held by programs it interrupted or preempted */
	KPE_DROP_NR,
};

struct kpe_event {
	__u32 def_id;
	__u32 cpu;
	__u32 tgid;
	__u32 pid; /* thread id */
	__u64 ts;  /* CLOCK_MONOTONIC ns */
	__u64 ip;  /* probed address; return probes: the return address */
	__u16 nr_args;
	__u16 flags;
	__u32 data_len;
	__u64 faults[KPE_MAX_ARGS / 64];
	char comm[KSNOOP_COMM_LEN];
	__u64 vals[KPE_MAX_ARGS];
	__u8 data[KPE_DATA_MAX + KPE_STR_MAX + KPE_KSTACK_ROOM];
};

#define KPE_EVENT_HDR_SIZE __builtin_offsetof(struct kpe_event, data)

_Static_assert(sizeof(struct kpe_insn) == 16, "kpe_insn layout");
_Static_assert(sizeof(struct kpe_pred) == 80, "kpe_pred layout");
_Static_assert(KPE_EVENT_HDR_SIZE == 1096, "kpe_event header layout");
_Static_assert((KPE_MAX_INSNS & (KPE_MAX_INSNS - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_ARGS & (KPE_MAX_ARGS - 1)) == 0, "power of two");
_Static_assert((KPE_DATA_MAX & (KPE_DATA_MAX - 1)) == 0, "power of two");
_Static_assert((KPE_STR_MAX & (KPE_STR_MAX - 1)) == 0, "power of two");
_Static_assert((KPE_NR_REGS & (KPE_NR_REGS - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_PREDS & (KPE_MAX_PREDS - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_FILTER_OPS & (KPE_MAX_FILTER_OPS - 1)) == 0, "power of two");
_Static_assert(((KPE_KSTACK_MAX + 1) & KPE_KSTACK_MAX) == 0, "KPE_KSTACK_MAX * 8 + 7 is a mask");
_Static_assert((KPE_STRTAB_MAX & (KPE_STRTAB_MAX - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_EARGS & (KPE_MAX_EARGS - 1)) == 0, "power of two");
_Static_assert((KPE_EARG_DEPTH & (KPE_EARG_DEPTH - 1)) == 0, "power of two");
_Static_assert(KPE_MAX_DEFS < KPE_PROG_ENTRY, "an index fits below the entry bit");
_Static_assert((KPE_MAX_KPROBES & (KPE_MAX_KPROBES - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_EPROBES & (KPE_MAX_EPROBES - 1)) == 0, "power of two");
_Static_assert((KPE_MAX_TPROBES & (KPE_MAX_TPROBES - 1)) == 0, "power of two");

#endif
