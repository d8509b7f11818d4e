/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace core's ABI between BPF (bpf/trace.bpf.c) and user space:
 * configuration (what each traced function captures) and the records sent
 * through the ring buffer. Fixed-width types only; no pointers into user
 * space.
 */
#ifndef KSNOOP_ABI_TRACE_H
#define KSNOOP_ABI_TRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "lib/arch.h"

#define KSNOOP_MAX_FUNCS 4096	/* traced functions per session */
#define KSNOOP_MAX_VALUES 16	/* values captured per function */
#define KSNOOP_MAX_STEPS 8	/* pointer dereferences in one path */
#define KSNOOP_MAX_ARGS 12	/* parameters addressable by a plan */
#define KSNOOP_MAX_PREDS 16	/* comparisons per function */
#define KSNOOP_MAX_PRED_OPS 32	/* comparisons and &&/|| in postfix order */
#define KSNOOP_PRED_STR_MAX 64	/* string/glob operand, NUL included */
#define KSNOOP_MAX_DEPTH 16	/* nested traced calls per task */
#define KSNOOP_MAX_CHAIN 8	/* functions in a -s chain */
#define KSNOOP_VALUE_MAX 2048	/* bytes captured for one value */
#define KSNOOP_DATA_MAX 16384	/* bytes of value data in one event */
#define KSNOOP_SCRATCH_LEVELS 4 /* nested programs sharing one CPU */
#define KSNOOP_MAX_FAST_PREDS 4 /* comparisons checked before any other work */
/* A tracepoint instance's tp_syscall: a syscalls event, through raw_syscalls'. */
enum ksnoop_tp_syscall {
	KSNOOP_TP_SYS_NONE,
	KSNOOP_TP_SYS_ENTER, /* sys_enter_NAME: sys_enter, the call's arguments */
	KSNOOP_TP_SYS_EXIT,  /* sys_exit_NAME: sys_exit, its return value */
};

/* Threads with a call in flight, where the kernel has no task storage. */
#define KSNOOP_MAX_TASKS 16384
/* The longest a stream of events goes without waking the reader. */
#define KSNOOP_WAKE_INTERVAL_NS (10 * 1000 * 1000)

/* Where a value starts. */
enum ksnoop_base {
	KSNOOP_BASE_ARG = 0,
	KSNOOP_BASE_RET = 1,
	KSNOOP_BASE_COMM = 2,	 /* the current task's comm, as a string */
	KSNOOP_BASE_CURRENT = 3, /* `current`: the running task's struct task_struct * */
};

enum ksnoop_value_flags {
	KSNOOP_V_ENTRY = 1 << 0,  /* captured at function entry */
	KSNOOP_V_READ = 1 << 1,	  /* read `size` bytes at the final address */
	KSNOOP_V_STRING = 1 << 2, /* the final read is a NUL-terminated string */
	KSNOOP_V_HIDDEN = 1 << 3, /* predicate operand only, not shown */
};

/*
 * v = base; for each step: v = *(u64 *)(v + offs[i]);
 * then with KSNOOP_V_READ: data = read(v + final_off, size), else the
 * value is v itself. Reads below the user/kernel split use the user
 * memory helper, so __user pointers work without BTF type tags.
 */
struct ksnoop_value {
	__u8 base;
	__u8 arg;
	__u8 nr_steps;
	__u8 flags;
	__u16 size;
	__u16 pad;
	__s32 final_off;
	__s32 offs[KSNOOP_MAX_STEPS];
};

enum ksnoop_cmp {
	KSNOOP_CMP_EQ,
	KSNOOP_CMP_NE,
	KSNOOP_CMP_LT,
	KSNOOP_CMP_LE,
	KSNOOP_CMP_GT,
	KSNOOP_CMP_GE,
};

enum ksnoop_pred_kind {
	KSNOOP_PRED_INT, /* value (width bytes, signed or not) OP rhs */
	KSNOOP_PRED_STR, /* string value OP glob pattern (== or !=) */
};

struct ksnoop_pred {
	__u8 value_idx;
	__u8 op;
	__u8 is_signed;
	__u8 width;
	__u8 kind;
	__u8 bit_off;  /* a bitfield: its first bit in the value's first byte */
	__u8 bit_size; /* a bitfield: its bits, 0 for a whole value */
	__u8 pad;
	__u64 rhs;
	char str[KSNOOP_PRED_STR_MAX];
};

/* pred_ops[]: an index into preds[], or one of these, in postfix order. */
#define KSNOOP_OP_AND 0xfe
#define KSNOOP_OP_OR 0xff

enum ksnoop_emit {
	KSNOOP_EMIT_ENTRY = 1 << 0,    /* an event at entry with entry values */
	KSNOOP_EMIT_RETURN = 1 << 1,   /* an event at return with return values */
	KSNOOP_EMIT_COMBINED = 1 << 2, /* one event at return, entry values stashed */
};

enum ksnoop_cfg_flags {
	/*
	 * Pair each return with its entry through a per-task frame: for the
	 * duration, -s chains, stashed entry values, and predicates whose
	 * entry-side verdict the return must know. Without it neither side
	 * touches task storage.
	 */
	KSNOOP_CFG_FRAME = 1 << 0,
	/*
	 * Captured straight into the ring record, in the layout the lite_*
	 * constants bound (see trace.bpf.c, lite_event): no predicate beyond
	 * the fast ones, no frame, stash, aggregate or stack.
	 */
	KSNOOP_CFG_LITE = 1 << 1,
	/*
	 * Spans (--from, --to): at entry, the first values are the span's
	 * key (span_key_width says how many).
	 * A FROM plan opens the span (its time and its agg key go in the
	 * spans map), a TO plan closes the open span of an equal key and
	 * adds its duration to the aggregates under the FROM side's key.
	 */
	KSNOOP_CFG_SPAN_FROM = 1 << 2,
	KSNOOP_CFG_SPAN_TO = 1 << 3,
	/*
	 * trace --follow: the object is the pointer in argument follow_arg.
	 * START's calls that pass the predicates add theirs to the followed
	 * objects; FOLLOWED plans go on only for an object followed (and
	 * not for longer than the time limit), END plans too, and then stop
	 * following it: the kernel is about to free it.
	 */
	KSNOOP_CFG_FOLLOW_START = 1 << 4,
	KSNOOP_CFG_FOLLOWED = 1 << 5,
	KSNOOP_CFG_FOLLOW_END = 1 << 6,
	/*
	 * Filters (-p, --comm, --cpu, --cgroup) pick what starts a span or a
	 * follow, not where it goes: plans with this run in any task.
	 */
	KSNOOP_CFG_ANY_TASK = 1 << 7,
	/* a FOLLOWED plan that copies the object (skb_clone): its return is followed too */
	KSNOOP_CFG_FOLLOW_CLONE = 1 << 8,
};

#define KSNOOP_CFG_SPAN (KSNOOP_CFG_SPAN_FROM | KSNOOP_CFG_SPAN_TO)
#define KSNOOP_CFG_FOLLOW                                                        \
	(KSNOOP_CFG_FOLLOW_START | KSNOOP_CFG_FOLLOWED | KSNOOP_CFG_FOLLOW_END | \
	 KSNOOP_CFG_FOLLOW_CLONE)

#define KSNOOP_LITE_VALUES 8 /* values per side that a lite event holds */

enum ksnoop_side { KSNOOP_SIDE_ENTRY, KSNOOP_SIDE_RETURN };

/*
 * --errors: how a function's return says it failed. An integer in
 * [-KSNOOP_ERRNO_MAX, -1], read at its own width; a pointer that is NULL
 * or an ERR_PTR.
 */
enum ksnoop_err_kind {
	KSNOOP_ERR_NONE,
	KSNOOP_ERR_INT32,
	KSNOOP_ERR_INT64,
	KSNOOP_ERR_PTR,
};

#define KSNOOP_ERRNO_MAX 4095				 /* the kernel's MAX_ERRNO */
#define KSNOOP_ERRNO_WORDS ((KSNOOP_ERRNO_MAX + 1) / 64) /* --errno: a bit per errno */

/*
 * count and hist: one sample per call goes into a BPF hash map instead of
 * the ring. The key is the function, the --by fields, and the spec's value
 * items packed into ksnoop_agg_key.data (8 bytes per scalar, up to 64 per
 * string, NUL-padded). A hist adds one value per sample to its key's
 * histogram.
 */
enum ksnoop_agg_mode { KSNOOP_AGG_NONE, KSNOOP_AGG_COUNT, KSNOOP_AGG_HIST };

enum ksnoop_agg_by {
	KSNOOP_BY_COMM = 1 << 0,
	KSNOOP_BY_PID = 1 << 1,
	KSNOOP_BY_TID = 1 << 2,
	KSNOOP_BY_CPU = 1 << 3,
	KSNOOP_BY_KSTACK = 1 << 4,
	KSNOOP_BY_USTACK = 1 << 5, /* and the process, whose addresses they are */
	KSNOOP_BY_CGROUP = 1 << 6, /* the task's cgroup v2 id, in data after the ustack's */
};

#define KSNOOP_AGG_MAX_KEYS 8	    /* value items in one key */
#define KSNOOP_AGG_KEY_DATA 192	    /* bytes of packed value items */
#define KSNOOP_AGG_STR_MAX 64	    /* bytes of a string in a key */
#define KSNOOP_AGG_LATENCY 0xff	    /* hist_value: the call's duration */
#define KSNOOP_HIST_BUCKETS 128	    /* log2 uses 66; linear up to 126 */
#define KSNOOP_HIST_LOG2_BUCKETS 66 /* negative, [0], then 2^0 .. 2^63 */
#define KSNOOP_STACK_DEPTH 64	    /* frames kept of a kernel stack */
#define KSNOOP_STACK_PROBES 4	    /* slots a stack may take after its hash's */
#define KSNOOP_DEFAULT_MAX_KEYS 10240
#define KSNOOP_DEFAULT_MAX_SPANS 10240 /* open spans kept in the kernel */
#define KSNOOP_SPAN_KEY_MAX 4	       /* values in a span's key */

struct ksnoop_agg_cfg {
	__u8 nr_keys;
	__u8 hist_value;		     /* index into values[], or KSNOOP_AGG_LATENCY */
	__u8 hist_signed;		     /* the hist value is a signed integer */
	__u8 hist_width;		     /* its bytes, 1 to 8 */
	__u8 key_value[KSNOOP_AGG_MAX_KEYS]; /* index into values[] */
	__u8 key_off[KSNOOP_AGG_MAX_KEYS];   /* in data[], a multiple of 8 */
	/* A scalar's width (1 to 8 bytes), or a string's slot (16 or more). */
	__u8 key_len[KSNOOP_AGG_MAX_KEYS];
	/*
	 * Every key value and the hist value come straight from argument
	 * registers or the return value, and every predicate is a fast one:
	 * the sample is made without the scratch event (agg_fast).
	 */
	__u8 fast;
	__u8 pad[3];
};

/*
 * The maps' keys are the header and the data in use (user space sets the
 * key size): hashing 232 bytes per call would cost more than the rest.
 */
#define KSNOOP_AGG_KEY_HDR 40
#define KSNOOP_AGG_FAST_DATA 64 /* agg_fast builds keys of at most this much data */

struct ksnoop_agg_key {
	__u32 func_id;
	__u32 tgid; /* --by pid */
	__u32 pid;  /* --by tid: the thread */
	__u32 cpu;
	__s32 stack_id; /* --by kstack: in the stacks map, or -errno */
	char comm[KSNOOP_COMM_LEN];
	__u32 epoch; /* -i's tables: the interval it counts in, 0 or 1 */
	__u8 data[KSNOOP_AGG_KEY_DATA];
};

/*
 * A stack of count and hist, in the stacks map under a slot its hash
 * picks: a key holds the slot (its stack_id), the hash tells a stack from
 * another that wanted the same slot. Frames past the stack's are zero.
 */
struct ksnoop_stack {
	__u64 hash;
	__u64 ips[KSNOOP_STACK_DEPTH];
};

/*
 * --by ustack: the first bytes of a key's data (the values' come after),
 * so that keys without it hash no more than they did.
 */
struct ksnoop_agg_ustack {
	__s32 id; /* in the stacks map (the tgid's), or -errno */
	__u32 pad;
	__u64 ra; /* at a user function's entry: its caller, in no frame yet; else 0 */
};

/*
 * count and hist --by ustack: the events ring carries one of these for
 * each process whose first sample it is, so that user space reads the
 * process's maps while it lives: its frames are named at the end even
 * when it has exited by then.
 */
#define KSNOOP_TASK_NOTE 0x7461736b /* "task" */
#define KSNOOP_TASK_NOTES_MAX 32768 /* processes noted; past them, named at the end only */

struct ksnoop_task_note {
	__u32 magic; /* KSNOOP_TASK_NOTE */
	__u32 tgid;
};

/*
 * An open span of count or hist, under its key in the spans map. The map
 * holds its first KSNOOP_SPAN_HDR bytes without a key, and those and the
 * key's bytes in use with one.
 */
struct ksnoop_span {
	__u64 start_ns;
	__u32 func_id; /* the FROM plan's */
	__u32 pad;
	struct ksnoop_agg_key key; /* the FROM side's, as count and hist key it */
};

#define KSNOOP_SPAN_HDR 16

struct ksnoop_hist {
	__u64 count;
	__u64 sum;
	__u64 min, max; /* as hist_signed says */
	__u64 buckets[KSNOOP_HIST_BUCKETS];
};

struct ksnoop_func_cfg {
	__u32 emit;
	__u32 nr_values;
	__u32 nr_preds;
	__u32 chain_pos; /* -s: position in the chain, 0 = first */
	__u32 nr_args;	 /* parameters the function has */
	__u32 nr_pred_ops;
	__u32 flags;	  /* enum ksnoop_cfg_flags */
	__u32 follow_arg; /* --follow: the argument holding the object */
	__u8 nr_side[2];  /* values captured at entry, at return */
	/*
	 * Comparisons of a register argument that must all hold for any
	 * event (conjuncts at the top of the predicate): checked first, on
	 * both sides, so a rejected call costs next to nothing.
	 */
	__u8 nr_fast_preds;
	__u8 err_kind; /* enum ksnoop_err_kind: --errors */
	/*
	 * Spans: the key's values, values[0] on; each compared at this many
	 * bytes (1 to 7: an integer's own; 8: the whole word, which pointers
	 * and addresses are). 0 past the last.
	 */
	__u8 span_key_width[KSNOOP_SPAN_KEY_MAX];
	__u8 side[2][KSNOOP_MAX_VALUES]; /* indexes into values[], per side */
	__u8 fast_preds[KSNOOP_MAX_FAST_PREDS];
	__u8 pred_ops[KSNOOP_MAX_PRED_OPS];
	struct ksnoop_value values[KSNOOP_MAX_VALUES];
	struct ksnoop_pred preds[KSNOOP_MAX_PREDS];
	struct ksnoop_agg_cfg agg;
};

enum ksnoop_event_kind {
	KSNOOP_EV_ENTRY = 1,
	KSNOOP_EV_RETURN = 2,
	KSNOOP_EV_COMBINED = 3,	 /* return event carrying stashed entry values */
	KSNOOP_EV_CHAIN_END = 4, /* -s: the chain's first function returned */
	/*
	 * trace --from/--to: a TO call's entry event that ended a span, its
	 * duration the span's; a KSNOOP_VREC_SPAN_FROM record carries the
	 * event its FROM call made.
	 */
	KSNOOP_EV_SPAN = 5,
	/*
	 * count and hist --by ustack with --call-graph dwarf: a sample for
	 * user space to add to the maps once it has unwound its stack
	 * (src/agg/agg.c). Its records: the key (KSNOOP_VREC_AGG_KEY, raw the
	 * hist's value, flags KSNOOP_VR_SIGNED when it is signed), then the
	 * user stack's dump (KSNOOP_VREC_USTACK_DUMP).
	 */
	KSNOOP_EV_AGG_SAMPLE = 6,
	/*
	 * ORed into an entry or return kind: the event has the short header
	 * of KSNOOP_LITE_HDR_SIZE bytes, with no duration and no chain. Lite
	 * events need neither, and the 16 bytes they spare keep the default
	 * plan's 100,000-call burst inside a ring of half the size.
	 */
	KSNOOP_EV_LITE = 1 << 8,
};

enum ksnoop_vrec_flags {
	KSNOOP_VR_FAULT = 1 << 0,      /* a read failed: raw holds the address */
	KSNOOP_VR_TRUNCATED = 1 << 1,  /* only part of the value fit */
	KSNOOP_VR_NULL = 1 << 2,       /* a pointer along the path was NULL */
	KSNOOP_VR_TRAMPOLINE = 1 << 3, /* a kstack taken in a BPF trampoline */
	KSNOOP_VR_SIGNED = 1 << 4,     /* an agg sample's value is signed */
};

/*
 * --kstack: the event's last record has this idx, no value of its own;
 * the data are the frames' addresses, innermost first; raw is, at a
 * kprobe's entry, the return address the function was entered with
 * (ksyms__restore_caller), else 0.
 */
#define KSNOOP_VREC_KSTACK 0xff
/*
 * A span's start: the data are the FROM call's whole entry event (header
 * and records), at most KSNOOP_SPAN_EVENT_MAX bytes.
 */
#define KSNOOP_VREC_SPAN_FROM 0xfe
/*
 * --ustack: the record after the kstack's (or the values'), the user
 * stack's addresses, innermost first, as the kernel walked them from the
 * task's user registers.
 */
#define KSNOOP_VREC_USTACK 0xfd
#define KSNOOP_USTACK_MAX 64 /* frames */
/*
 * --call-graph dwarf, in place of KSNOOP_VREC_USTACK: the task's user
 * registers (KSNOOP_UREGS_SIZE bytes, lib/arch.h), then a copy of its user
 * stack from sp upwards; raw is that sp. User space unwinds it with the
 * mapped objects' CFI, as perf does a PERF_SAMPLE_STACK_USER sample.
 */
#define KSNOOP_VREC_USTACK_DUMP 0xfc
#define KSNOOP_USTACK_DUMP_MAX 8192 /* bytes of stack, as perf's default */
/* A KSNOOP_EV_AGG_SAMPLE's key: a struct ksnoop_agg_key whole. */
#define KSNOOP_VREC_AGG_KEY 0xfb
/* Its ustack id until user space has unwound the stack: ENODATA. */
#define KSNOOP_USTACK_UNWIND (-61)
/*
 * After a KSNOOP_VREC_USTACK, where the kernel has bpf_find_vma (5.17):
 * the file mappings its frames are in, as the kernel has them at the
 * event, struct ksnoop_umap each. A process that exits before ksnoop
 * reads its /proc/PID/maps still has its frames named.
 */
#define KSNOOP_VREC_UMAPS 0xfa
#define KSNOOP_UMAPS_MAX 8   /* mappings, each of one file */
#define KSNOOP_UMAP_PATH 128 /* bytes of a mapping's path components */
#define KSNOOP_UMAP_DEPTH 16 /* components of a path, at most */

struct ksnoop_umap {
	__u64 start, end; /* the mapping's addresses */
	__u64 pgoff;	  /* the file offset start maps, in pages */
	__u64 ino;
	__u32 dev;   /* the file system's, as the kernel encodes it: major << 20 | minor */
	__u16 depth; /* components in path; 0 when none could be read */
	__u16 flags; /* KSNOOP_UMAP_* */
	/*
	 * The file's name, then each directory's up to its file system's
	 * root (the leaf first), each ending in a NUL.
	 */
	char path[KSNOOP_UMAP_PATH];
};

enum ksnoop_umap_flags {
	KSNOOP_UMAP_TRUNCATED = 1 << 0, /* the path goes on above its last component */
};
#define KSNOOP_SPAN_DATA 768 /* a start's records, at most */
#define KSNOOP_SPAN_EVENT_MAX (__builtin_offsetof(struct ksnoop_event, data) + KSNOOP_SPAN_DATA)
#define KSNOOP_KSTACK_MAX 127 /* frames, as the kernel's perf_event_max_stack */

/* One captured value: header, then len bytes of data padded to 8. */
struct ksnoop_vrec {
	__u64 raw; /* scalar value, or the address the data was read from */
	__u16 len; /* bytes of data that follow */
	__u8 idx;  /* index into the function's values[] */
	__u8 flags;
	__u32 pad;
};

/* The bytes a vrec with len bytes of data takes: its header, the data padded to 8. */
#define KSNOOP_VREC_SIZE(len) (sizeof(struct ksnoop_vrec) + (((len) + 7) & ~7U))

struct ksnoop_event {
	__u16 kind;
	__u8 nr_vrecs;
	__u8 depth; /* traced calls of this task around this one */
	__u32 func_id;
	__u64 ts; /* CLOCK_MONOTONIC ns at the event */
	__u32 cpu;
	__u32 tgid;
	__u32 pid;	/* thread id */
	__u32 data_len; /* bytes of vrecs that follow */
	char comm[KSNOOP_COMM_LEN];
	/* A lite event (KSNOOP_EV_LITE) stops here: its vrecs follow at once. */
	__u64 duration_ns; /* return events: time since entry */
	__u64 chain_id;	   /* -s: entry time of the chain's first call */
	__u8 data[KSNOOP_DATA_MAX + KSNOOP_VALUE_MAX + 64 + KSNOOP_UREGS_SIZE_MAX +
		  KSNOOP_USTACK_DUMP_MAX];
};

enum ksnoop_drop_reason {
	KSNOOP_DROP_RINGBUF,	 /* ring buffer full */
	KSNOOP_DROP_NESTING,	 /* too many nested programs on one CPU */
	KSNOOP_DROP_DEPTH,	 /* call nesting deeper than KSNOOP_MAX_DEPTH */
	KSNOOP_DROP_STASH,	 /* entry values could not be stashed */
	KSNOOP_DROP_KEYS,	 /* count/hist: the key table is full */
	KSNOOP_DROP_STACK,	 /* count/hist --by kstack: the stack was not taken */
	KSNOOP_DROP_TASKS,	 /* no task storage (before 5.11): the task table is full */
	KSNOOP_DROP_SPANS,	 /* spans: the open-span table is full */
	KSNOOP_DROP_RESTART,	 /* spans: a start with its key already open restarted it */
	KSNOOP_DROP_FOLLOW,	 /* --follow: the followed-object table is full */
	KSNOOP_DROP_FOLLOW_TIME, /* --follow: an object followed past the time limit */
	/*
	 * Calls the kernel made without running the program, counted by the
	 * kernel, not here: a probe or the program was already running on
	 * that CPU. User space reads them (backend.c, kernel_missed).
	 */
	KSNOOP_DROP_KERNEL,
	KSNOOP_DROP_NR,
};

/*
 * The words straight.c's written-out programs store at once, little-endian
 * as both architectures are: an event's first (kind, nr_vrecs, depth 0)
 * and a vrec's second (len, idx, flags). Before a lite header is written
 * its ts slot holds the record's own address for the wakeup test.
 */
#define KSNOOP_EV_HEAD_WORD(kind, nr) ((__u32)(kind) | (__u32)(nr) << 16)
#define KSNOOP_VREC_LEN_OFF __builtin_offsetof(struct ksnoop_vrec, len)
#define KSNOOP_VREC_LEN_WORD(len, idx, flags) \
	((__u32)(len) | (__u32)(idx) << 16 | (__u32)(flags) << 24)
#define KSNOOP_VREC_PAD_OFF __builtin_offsetof(struct ksnoop_vrec, pad)
#define KSNOOP_EV_SCRATCH_OFF __builtin_offsetof(struct ksnoop_event, ts)

#define KSNOOP_EVENT_HDR_SIZE __builtin_offsetof(struct ksnoop_event, data)
#define KSNOOP_LITE_HDR_SIZE __builtin_offsetof(struct ksnoop_event, duration_ns)

_Static_assert(KSNOOP_EVENT_HDR_SIZE == 64, "ksnoop_event header layout");
_Static_assert(__builtin_offsetof(struct ksnoop_event, kind) == 0 &&
		       sizeof(((struct ksnoop_event *)0)->kind) == 2 &&
		       __builtin_offsetof(struct ksnoop_event, nr_vrecs) == 2 &&
		       __builtin_offsetof(struct ksnoop_event, depth) == 3,
	       "KSNOOP_EV_HEAD_WORD packs kind, nr_vrecs and depth");
_Static_assert(sizeof(((struct ksnoop_vrec *)0)->len) == 2 &&
		       __builtin_offsetof(struct ksnoop_vrec, idx) == KSNOOP_VREC_LEN_OFF + 2 &&
		       __builtin_offsetof(struct ksnoop_vrec, flags) == KSNOOP_VREC_LEN_OFF + 3 &&
		       sizeof(((struct ksnoop_vrec *)0)->pad) == 4,
	       "KSNOOP_VREC_LEN_WORD packs len, idx and flags");
_Static_assert(sizeof(((struct ksnoop_event *)0)->ts) == 8, "the scratch slot holds an address");
_Static_assert(KSNOOP_LITE_HDR_SIZE == 48, "lite event header layout");
_Static_assert(sizeof(struct ksnoop_func_cfg) == 2128, "ksnoop_func_cfg layout");

_Static_assert(sizeof(struct ksnoop_value) == 44, "ksnoop_value layout");
_Static_assert(sizeof(struct ksnoop_pred) == 80, "ksnoop_pred layout");
_Static_assert(sizeof(struct ksnoop_vrec) == 16, "ksnoop_vrec layout");
_Static_assert(sizeof(struct ksnoop_agg_cfg) == 32, "ksnoop_agg_cfg layout");
_Static_assert(sizeof(struct ksnoop_agg_key) == KSNOOP_AGG_KEY_HDR + KSNOOP_AGG_KEY_DATA,
	       "ksnoop_agg_key layout");
_Static_assert(__builtin_offsetof(struct ksnoop_agg_key, data) == KSNOOP_AGG_KEY_HDR,
	       "ksnoop_agg_key header");
_Static_assert(sizeof(struct ksnoop_agg_ustack) == 16 && KSNOOP_AGG_KEY_HDR % 8 == 0,
	       "a ustack's key data: aligned, one slot of 16");
_Static_assert(__builtin_offsetof(struct ksnoop_span, key) == KSNOOP_SPAN_HDR,
	       "ksnoop_span header");
_Static_assert((KSNOOP_VALUE_MAX & (KSNOOP_VALUE_MAX - 1)) == 0, "power of two");
_Static_assert((KSNOOP_DATA_MAX & (KSNOOP_DATA_MAX - 1)) == 0, "power of two");
_Static_assert(KSNOOP_MAX_VALUES <= KSNOOP_VREC_KSTACK, "the kstack idx is no value's");
_Static_assert(KSNOOP_MAX_VALUES <= KSNOOP_VREC_SPAN_FROM, "the span idx is no value's");
/* A span's end: its records, a kstack, then the start's event. */
_Static_assert(16 + KSNOOP_KSTACK_MAX * 8 + 8 + 16 + KSNOOP_SPAN_EVENT_MAX <= KSNOOP_VALUE_MAX + 64,
	       "room for a kstack and a span's start");
_Static_assert(KSNOOP_MAX_VALUES + 1 <= 0xff && KSNOOP_MAX_DEPTH <= 0xff, "u8 event counts");
/* The stack records go after at most KSNOOP_DATA_MAX bytes of values. */
_Static_assert(16 + KSNOOP_KSTACK_MAX * 8 + 16 + 1023 <= KSNOOP_VALUE_MAX + 64,
	       "room for a kstack and a ustack (its size masked to 1023)");
_Static_assert(KSNOOP_USTACK_MAX * 8 <= 1023, "the ustack's mask holds it");
_Static_assert(KSNOOP_MAX_VALUES <= KSNOOP_VREC_USTACK, "the ustack idx is no value's");
_Static_assert(KSNOOP_MAX_VALUES <= KSNOOP_VREC_USTACK_DUMP, "the dump idx is no value's");
_Static_assert(16 + sizeof(struct ksnoop_agg_key) <= KSNOOP_DATA_MAX, "an agg sample's key fits");
/* A dump goes where a ustack would, after at most KSNOOP_DATA_MAX bytes of values and a kstack. */
_Static_assert(KSNOOP_DATA_MAX + 16 + KSNOOP_KSTACK_MAX * 8 + 16 + KSNOOP_UREGS_SIZE_MAX +
			       KSNOOP_USTACK_DUMP_MAX <=
		       sizeof(((struct ksnoop_event *)0)->data),
	       "room for a kstack and a stack dump");
/* The mappings go after a ustack, in the room a dump would have taken. */
_Static_assert(KSNOOP_DATA_MAX + 16 + KSNOOP_KSTACK_MAX * 8 + 16 + 1023 + 16 +
			       KSNOOP_UMAPS_MAX * sizeof(struct ksnoop_umap) <=
		       sizeof(((struct ksnoop_event *)0)->data),
	       "room for a kstack, a ustack and its mappings");
_Static_assert(sizeof(struct ksnoop_umap) % 8 == 0 &&
		       (KSNOOP_UMAP_PATH & (KSNOOP_UMAP_PATH - 1)) == 0 &&
		       (KSNOOP_UMAPS_MAX & (KSNOOP_UMAPS_MAX - 1)) == 0,
	       "masks bound the mappings' indexes");
_Static_assert(KSNOOP_MAX_VALUES <= KSNOOP_VREC_UMAPS, "the mappings' idx is no value's");
_Static_assert(KSNOOP_UREGS_SIZE_MAX + KSNOOP_USTACK_DUMP_MAX <= 0xffff,
	       "a vrec's len holds a dump");

#endif
