/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one header shared by BPF programs and user space: configuration
 * (what each traced function captures) and the records sent through the
 * ring buffer. Fixed-width types only; no pointers into user space.
 */
#ifndef KSNOOP_SHARED_H
#define KSNOOP_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KSNOOP_MAX_FUNCS 1024	 /* traced functions per session */
#define KSNOOP_MAX_VALUES 16	 /* values captured per function */
#define KSNOOP_MAX_STEPS 8	 /* pointer dereferences in one path */
#define KSNOOP_MAX_ARGS 12	 /* parameters addressable by a plan */
#define KSNOOP_MAX_PREDS 16	 /* comparisons per function */
#define KSNOOP_MAX_PRED_OPS 32	 /* comparisons and &&/|| in postfix order */
#define KSNOOP_PRED_STR_MAX 64	 /* string/glob operand, NUL included */
#define KSNOOP_MAX_DEPTH 16	 /* nested traced calls per task */
#define KSNOOP_MAX_CHAIN 8	 /* functions in a -s chain */
#define KSNOOP_VALUE_MAX 2048	 /* bytes captured for one value */
#define KSNOOP_DATA_MAX 16384	 /* bytes of value data in one event */
#define KSNOOP_SCRATCH_LEVELS 4	 /* nested programs sharing one CPU */
#define KSNOOP_MAX_FAST_PREDS 4	 /* comparisons checked before any other work */

/*
 * The backend calibration target: getppid's body as BTF names it, the
 * cheapest traceable function a test can call at will. x86-64 builds
 * SYSCALL_DEFINE0 as a __do_sys_ body behind an __x64_sys_ stub that has
 * no BTF; arm64 builds it as __arm64_sys_getppid alone.
 */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define KSNOOP_CALIB_FUNC "__arm64_sys_getppid"
#else
#define KSNOOP_CALIB_FUNC "__do_sys_getppid"
#endif

/* Where a value starts. */
enum ksnoop_base {
	KSNOOP_BASE_ARG = 0,
	KSNOOP_BASE_RET = 1,
	KSNOOP_BASE_COMM = 2, /* the current task's comm, as a string */
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
	__u8 pad[3];
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
};

enum ksnoop_side { KSNOOP_SIDE_ENTRY, KSNOOP_SIDE_RETURN };

struct ksnoop_func_cfg {
	__u32 emit;
	__u32 nr_values;
	__u32 nr_preds;
	__u32 chain_pos; /* -s: position in the chain, 0 = first */
	__u32 nr_args;	 /* parameters the function has */
	__u32 nr_pred_ops;
	__u32 flags;	 /* enum ksnoop_cfg_flags */
	__u8 nr_side[2]; /* values captured at entry, at return */
	/*
	 * Comparisons of a register argument that must all hold for any
	 * event (conjuncts at the top of the predicate): checked first, on
	 * both sides, so a rejected call costs next to nothing.
	 */
	__u8 nr_fast_preds;
	__u8 pad;
	__u8 side[2][KSNOOP_MAX_VALUES]; /* indexes into values[], per side */
	__u8 fast_preds[KSNOOP_MAX_FAST_PREDS];
	__u8 pred_ops[KSNOOP_MAX_PRED_OPS];
	struct ksnoop_value values[KSNOOP_MAX_VALUES];
	struct ksnoop_pred preds[KSNOOP_MAX_PREDS];
};

enum ksnoop_event_kind {
	KSNOOP_EV_ENTRY = 1,
	KSNOOP_EV_RETURN = 2,
	KSNOOP_EV_COMBINED = 3, /* return event carrying stashed entry values */
	KSNOOP_EV_CHAIN_END = 4, /* -s: the chain's first function returned */
};

enum ksnoop_vrec_flags {
	KSNOOP_VR_FAULT = 1 << 0,     /* a read failed: raw holds the address */
	KSNOOP_VR_TRUNCATED = 1 << 1, /* only part of the value fit */
	KSNOOP_VR_NULL = 1 << 2,      /* a pointer along the path was NULL */
};

/* One captured value: header, then len bytes of data padded to 8. */
struct ksnoop_vrec {
	__u64 raw;   /* scalar value, or the address the data was read from */
	__u16 len;   /* bytes of data that follow */
	__u8 idx;    /* index into the function's values[] */
	__u8 flags;
	__u32 pad;
};

struct ksnoop_event {
	__u16 kind;
	__u16 nr_vrecs;
	__u32 func_id;
	__u64 ts;	     /* CLOCK_MONOTONIC ns at the event */
	__u64 duration_ns;   /* return events: time since entry */
	__u32 cpu;
	__u32 tgid;
	__u32 pid;	     /* thread id */
	__u32 data_len;	     /* bytes of vrecs that follow */
	__u64 chain_id;	     /* -s: entry time of the chain's first call */
	char comm[16];
	__u8 data[KSNOOP_DATA_MAX + KSNOOP_VALUE_MAX + 64];
};

enum ksnoop_drop_reason {
	KSNOOP_DROP_RINGBUF, /* ring buffer full */
	KSNOOP_DROP_NESTING, /* too many nested programs on one CPU */
	KSNOOP_DROP_DEPTH,   /* call nesting deeper than KSNOOP_MAX_DEPTH */
	KSNOOP_DROP_STASH,   /* entry values could not be stashed */
	KSNOOP_DROP_NR,
};

#define KSNOOP_EVENT_HDR_SIZE ((unsigned long)&((struct ksnoop_event *)0)->data)

_Static_assert(sizeof(struct ksnoop_value) == 44, "ksnoop_value layout");
_Static_assert(sizeof(struct ksnoop_pred) == 80, "ksnoop_pred layout");
_Static_assert(sizeof(struct ksnoop_vrec) == 16, "ksnoop_vrec layout");
_Static_assert((KSNOOP_VALUE_MAX & (KSNOOP_VALUE_MAX - 1)) == 0, "power of two");
_Static_assert((KSNOOP_DATA_MAX & (KSNOOP_DATA_MAX - 1)) == 0, "power of two");

/* ---- kprobe_events records ---- */
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

enum kpe_op {
	KPE_OP_REG,	 /* acc = regs[imm] */
	KPE_OP_IMM,	 /* acc = imm */
	KPE_OP_DEREF,	 /* acc = *(u64 *)(acc + imm), user or kernel by address */
	KPE_OP_UDEREF,	 /* acc = *(u64 *)(acc + imm) from user memory */
	KPE_OP_ST_VAL,	 /* vals[arg] = acc, `size` bytes, then bitfield shifts */
	KPE_OP_ST_MEM,	 /* vals[arg] = `size` bytes at acc + imm, then shifts */
	KPE_OP_ST_ARRAY, /* `count` elements of `size` bytes at acc + imm -> data */
	KPE_OP_ST_STR,	 /* NUL-terminated string at acc + imm -> data */
	KPE_OP_ST_COMM,	 /* the current task's comm -> data */
	KPE_OP_ST_IMMSTR, /* strtab + imm -> data */
};

enum kpe_insn_flags {
	KPE_F_USER = 1 << 0, /* ST_MEM/ST_ARRAY/ST_STR: user memory only */
};

struct kpe_insn {
	__u8 op;
	__u8 arg;   /* argument slot a store writes */
	__u8 size;  /* bytes of a value or array element: 1, 2, 4 or 8 */
	__u8 flags;
	__u8 shl;   /* bitfield: v = (v << shl) >> shr, 0 and 0 otherwise */
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
	__u8 field;   /* argument slot, or KPE_FIELD_* */
	__u8 op;      /* enum kpe_cmp */
	__u8 is_str;  /* string comparison: ==, != or ~ against str */
	__u8 width;   /* bytes of the field, for sign extension */
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
};

struct kpe_def_cfg {
	__u32 flags;
	__u32 nr_args;
	__u32 nr_insns;
	__u32 nr_preds;
	__u32 nr_filter_ops;
	__u32 pad;
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
};

struct kpe_event {
	__u32 def_id;
	__u32 cpu;
	__u32 tgid;
	__u32 pid;  /* thread id */
	__u64 ts;   /* CLOCK_MONOTONIC ns */
	__u64 ip;   /* probed address; return probes: the return address */
	__u16 nr_args;
	__u16 flags;
	__u32 data_len;
	__u64 faults[KPE_MAX_ARGS / 64];
	char comm[16];
	__u64 vals[KPE_MAX_ARGS];
	__u8 data[KPE_DATA_MAX + KPE_STR_MAX];
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
_Static_assert((KPE_STRTAB_MAX & (KPE_STRTAB_MAX - 1)) == 0, "power of two");
/* ---- end kprobe_events records ---- */

/* ---- ktrace records ---- */

/*
 * ktrace(1) trace file and ring buffer records, after BSD's ktrace(9).
 *
 * A trace file is one struct ktr_file_header, then records. Every record is
 * a struct ktr_rec header followed by exactly ktr_rec.len payload bytes, no
 * padding. The BPF program emits the very same records into its ring
 * buffer, with ts_ns on CLOCK_BOOTTIME; the recorder rewrites ts_ns to
 * CLOCK_REALTIME before writing the file. Everything is little-endian
 * (native x86-64 and arm64); doc/ktrace.1 documents the layout.
 */
#define KTR_MAGIC "KSNKTRC\0"
#define KTR_MAGIC_LEN 8
#define KTR_VERSION 1
#define KTR_BYTE_ORDER 0x01020304u
#define KTR_COMM_LEN 16

struct ktr_file_header {
	char magic[KTR_MAGIC_LEN]; /* KTR_MAGIC */
	__u16 version;		   /* KTR_VERSION */
	__u16 hdr_len;		   /* sizeof(struct ktr_file_header) */
	__u16 rec_hdr_len;	   /* sizeof(struct ktr_rec) */
	__u16 machine;		   /* ELF e_machine of the traced kernel */
	__u32 byte_order;	   /* KTR_BYTE_ORDER as written */
	__u32 reserved;
};

/* Record types: BSD's KTR_* numbers where BSD has one. */
enum ktr_type {
	KTR_SYSCALL = 1,
	KTR_SYSRET = 2,
	KTR_NAMEI = 3,
	KTR_GENIO = 4,
	KTR_PSIG = 5,
	KTR_EXECARGS = 10,
	KTR_EXECENV = 11,
	KTR_DROP = 16, /* records lost before this point */
	KTR_TYPE_MAX = 16,
};

struct ktr_rec {
	__u16 type;  /* enum ktr_type */
	__u16 flags; /* KTR_F_* */
	__u32 len;   /* payload bytes following this header */
	__u32 pid;   /* process (thread group) id */
	__u32 tid;   /* thread id */
	__u64 ts_ns; /* CLOCK_REALTIME ns in files */
	char comm[KTR_COMM_LEN];
};

/* The data of this record was cut at the capture limit. */
#define KTR_F_TRUNC 0x1

/* Upper bounds a reader enforces; the BPF side never exceeds them. */
#define KTR_SYSCALL_ARGS 6
#define KTR_PATH_MAX 4096     /* NAMI payload */
#define KTR_GIO_MAX 4096      /* data bytes in one GIO record */
#define KTR_EXEC_MAX 8192     /* ARGS or ENV strings */
#define KTR_MAX_PAYLOAD 65536 /* any record */

struct ktr_syscall { /* KTR_SYSCALL */
	__u32 code;  /* syscall number */
	__u32 nargs; /* KTR_SYSCALL_ARGS: all argument registers */
	__u64 args[KTR_SYSCALL_ARGS];
};

struct ktr_sysret { /* KTR_SYSRET */
	__u32 code;
	__s32 error;  /* errno, 0 on success */
	__s64 retval; /* the raw return value (negative errno on error) */
};

/* KTR_NAMEI: the payload is the path, without a terminating NUL. */

enum ktr_rw { KTR_READ = 0, KTR_WRITE = 1 };

struct ktr_genio { /* KTR_GENIO, followed by the captured data */
	__s32 fd;
	__u32 rw;   /* enum ktr_rw */
	__u32 code; /* syscall number */
	__u32 pad;
	__u64 count; /* bytes transferred; the data is the first of them */
};

struct ktr_psig { /* KTR_PSIG */
	__s32 signo;
	__s32 code;	  /* si_code */
	__s32 err;	  /* si_errno */
	__s32 sender_pid; /* si_pid when the code carries one */
	__u32 sender_uid;
	__u32 flags;  /* KTR_PSIG_* */
	__u64 action; /* handler: 0 SIG_DFL, 1 SIG_IGN, else its address */
	__u64 mask;   /* blocked signals at delivery, bit n-1 = signal n */
	__u64 sa_flags;
};

/* No siginfo: sent by the kernel, or a fatal signal's group exit. */
#define KTR_PSIG_NOINFO 0x1

struct ktr_exec {    /* KTR_EXECARGS, KTR_EXECENV: then NUL-separated strings */
	__u32 total; /* bytes of the whole area; more than captured if cut */
	__u32 pad;
};

struct ktr_drop {    /* KTR_DROP */
	__u64 count; /* records lost since the previous KTR_DROP */
};

_Static_assert(sizeof(struct ktr_file_header) == 24, "ktr_file_header layout");
_Static_assert(sizeof(struct ktr_rec) == 40, "ktr_rec layout");
_Static_assert(sizeof(struct ktr_syscall) == 56, "ktr_syscall layout");
_Static_assert(sizeof(struct ktr_sysret) == 16, "ktr_sysret layout");
_Static_assert(sizeof(struct ktr_genio) == 24, "ktr_genio layout");
_Static_assert(sizeof(struct ktr_psig) == 48, "ktr_psig layout");
_Static_assert(sizeof(struct ktr_exec) == 8, "ktr_exec layout");
_Static_assert(sizeof(struct ktr_drop) == 8, "ktr_drop layout");

/* Facilities, the letters of ktrace -t. */
#define KTRFAC_SYSCALL 0x01  /* c: CALL and RET */
#define KTRFAC_NAMEI 0x02    /* n */
#define KTRFAC_GENIO 0x04    /* i */
#define KTRFAC_PSIG 0x08     /* s */
#define KTRFAC_EXECARGS 0x10 /* x */
#define KTRFAC_EXECENV 0x20  /* X */

/* Value of the traced-process map, keyed by process id (tgid). */
struct ktr_target {
	__u32 facs;  /* KTRFAC_* */
	__u32 flags; /* KTR_T_* */
};
#define KTR_T_INHERIT 0x1    /* -i: new child processes are traced too */
#define KTR_T_AWAIT_EXEC 0x2 /* ktrace cmd: start at the next execve */

/* What the BPF side must capture per syscall number, set by user space. */
enum ktr_gio_kind {
	KTR_GIO_NONE = 0,
	KTR_GIO_BUF, /* (fd, buf, ...) transferring the return value */
	KTR_GIO_IOV, /* (fd, iov, iovcnt, ...) */
	KTR_GIO_MSG, /* (fd, struct user_msghdr *, ...) */
};

struct ktr_sysinfo {
	__u8 path_args; /* bit n: argument n is a path the kernel looks up */
	__u8 gio;	/* enum ktr_gio_kind */
	__u8 gio_rw;	/* enum ktr_rw */
	__u8 is_exec;	/* execve, execveat */
};
_Static_assert(sizeof(struct ktr_target) == 8, "ktr_target layout");
_Static_assert(sizeof(struct ktr_sysinfo) == 4, "ktr_sysinfo layout");

#define KTR_MAX_SYSCALLS 1024 /* syscall numbers the sysinfo map covers */
#define KTR_GIO_MAX_IOV 8     /* iovec entries followed per GIO record */
/* ---- end ktrace records ---- */

#endif
