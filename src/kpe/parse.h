/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs dynamic probe definitions (Documentation/trace/kprobetrace.rst)
 * -> syntax tree, without BTF or kallsyms:
 *
 *   p[:[GRP/|GRP.]EVENT] [MOD:]SYM[+offs]|MEMADDR [FETCHARGS]
 *   r[MAXACTIVE][:[GRP/|GRP.]EVENT] [MOD:]SYM[+0] [FETCHARGS]
 *   p ... SYM%return ...                     (a return probe too)
 *   f[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[%return] [FETCHARGS]
 *   t[:[GRP/][EVENT]] TRACEPOINT [FETCHARGS]  (args: the tracepoint's, by BTF)
 *   e[:[GRP/][EVENT]] SYSTEM.EVENT|SYSTEM/EVENT [FETCHARGS] ($FIELD: the event's)
 *
 *   FETCHARG := [NAME=]BODY[:TYPE]
 *   BODY := %REG | @ADDR | @SYM[+|-offs] | $stackN | $stack | $argN
 *         | $retval | $comm | $current | +|-[u]OFFS(BODY) | \IMM | \"STR"
 *         | BTFARG | CAST | this_cpu_ptr(BODY) | this_cpu_read(BODY)
 *   BTFARG := ident { ->ident | .ident }     (and $arg*, alone)
 *   CAST := (STRUCT[,MEMBERS])INNER->MEMBERS  (Linux 7.3)
 *   INNER := (BODY) | +|-[u]OFFS(BODY) | BODY without '-'
 *   MEMBERS := ident { ->ident | .ident }
 *   TYPE := u8..u64 | s8..s64 | x8..x64 | char | string | ustring
 *         | symbol | b<width>@<offset>/<container>, each with [N]
 *
 * Errors carry the kernel's own messages (trace_probe.h) and the byte
 * offset in the definition they point at, as tracefs error_log does.
 */
#ifndef KSNOOP_KPE_PARSE_H
#define KSNOOP_KPE_PARSE_H

#include <stdbool.h>

#define KPE_DEF_MAX_LEN 4096	 /* whole definition, as MAX_DYNEVENT_CMD_LEN */
#define KPE_MAX_EVENT_NAME 64	 /* group and event names (MAX_EVENT_NAME_LEN) */
#define KPE_MAX_ARG_NAME 32	 /* MAX_ARG_NAME_LEN */
#define KPE_MAX_DEREFS 13	 /* nested +OFFS(...) in one argument */
#define KPE_MAX_STEPS 24	 /* dereferences and typecasts in one argument */
#define KPE_MAX_OPS 12		 /* the kernel's fetch operations of one argument, less two */
#define KPE_MAX_ARRAY 64	 /* MAX_ARRAY_LEN */
#define KPE_MAX_MAXACTIVE 4096	 /* KRETPROBE_MAXACTIVE_MAX */
#define KPE_PARAM_MAX_STACK 2048 /* $stackN and $argN (THREAD_SIZE / 8) */

enum kpe_base {
	KPE_B_REG,	/* %REG */
	KPE_B_STACK,	/* $stackN */
	KPE_B_STACKP,	/* $stack */
	KPE_B_ARG,	/* $argN */
	KPE_B_RETVAL,	/* $retval */
	KPE_B_COMM,	/* $comm */
	KPE_B_CURRENT,	/* $current: the task's address, a struct task_struct * */
	KPE_B_IMM,	/* \IMM */
	KPE_B_IMMSTR,	/* \"STR" */
	KPE_B_ADDR,	/* @ADDR: memory at ADDR */
	KPE_B_SYM,	/* @SYM[+|-offs]: memory at SYM + offs */
	KPE_B_BTF,	/* skb, skb->len: a BTF parameter and its members */
	KPE_B_ARGS_ALL, /* $arg*: every parameter, expanded with BTF */
	KPE_B_FIELD,	/* e: $FIELD, a field of the attached event */
};

enum kpe_type_kind {
	KPE_T_NONE, /* no :TYPE given: x64, string, or from BTF */
	KPE_T_U,
	KPE_T_S,
	KPE_T_X,
	KPE_T_CHAR,
	KPE_T_STRING,
	KPE_T_USTRING,
	KPE_T_SYMBOL,
	KPE_T_SYMSTR,	/* the same, kept and shown as a string */
	KPE_T_BITFIELD, /* unsigned, size is the container */
	KPE_T_DENTRY,	/* %pd: a struct dentry *, printed as its name (a string) */
	KPE_T_FILE,	/* %pD: a struct file *, printed as its dentry's name */
};

struct kpe_type {
	enum kpe_type_kind kind;
	int size;     /* bytes: 1, 2, 4 or 8 */
	int bf_width; /* bitfield bits */
	int bf_off;   /* bitfield offset in the container */
	int count;    /* array elements, 0 for a single value */
};

enum kpe_step_kind {
	KPE_S_DEREF,	/* +|-[u]OFFS(...): the memory at value + off */
	KPE_S_CAST,	/* (STRUCT[,FIELD])...->MEMBERS (Linux 7.3) */
	KPE_S_THIS_CPU, /* this_cpu_ptr(...): value + this CPU's per-CPU offset (7.3) */
};

/* What is done to the value so far, in the order written from the inside. */
struct kpe_step {
	enum kpe_step_kind kind;
	int pos;
	long long off;
	bool user;
	/*
	 * A typecast: the value points to STRUCT, or to its member path FIELD
	 * (container_of); MEMBERS are read from STRUCT, as "a.b->c".
	 */
	char *cast;
	char *cast_field;
	char *members;
	int field_pos, members_pos;
};

struct kpe_fetch {
	enum kpe_base base;
	int pos;			      /* of the base */
	char *name;			      /* REG, SYM, BTF expression or immediate string */
	long long num;			      /* $stackN/$argN index, \IMM, @ADDR, @SYM offset */
	struct kpe_step steps[KPE_MAX_STEPS]; /* innermost first */
	int nr_steps;
	int nr_derefs; /* of them, dereferences */
	int nr_ops;    /* the kernel's fetch operations they take */
	bool retval;   /* a BTF expression on $retval: name is "return->..." */
	bool bare;     /* e: a field named without '$' */
};

struct kpe_arg {
	char *name; /* NULL until the compiler names an unnamed argument */
	char *body; /* the fetch expression as written, without :TYPE */
	struct kpe_fetch fetch;
	struct kpe_type type;
	int pos; /* of the argument */
	int body_pos;
	int type_pos; /* of TYPE, or -1 */
};

struct kpe_def {
	char *text; /* the definition as given */
	/* 'p' (kprobe, also 'r'), 'f' (fprobe), 't' (tracepoint probe), 'e' (event probe) */
	char kind;
	bool is_return;
	int maxactive; /* r<N>, 0 for the default */
	char *group;
	char *event;		 /* given or generated */
	char *module;		 /* MOD: or NULL */
	char *system;		 /* e: the attached event's SYSTEM */
	char *symbol;		 /* NULL for MEMADDR; t: the tracepoint; e: the EVENT */
	unsigned long long addr; /* MEMADDR */
	long long offset;
	int sym_pos;
	/*
	 * A kprobe within the architecture's entry window (SYM+4 on x86-64)
	 * that reads what only an entry has: the first such error, which the
	 * compiler gives unless the function starts with ENDBR64.
	 */
	const char *entry_err;
	int entry_err_pos;
	struct kpe_arg *args;
	int nr_args;
};

struct kpe_error {
	int pos; /* byte offset in the input */
	char msg[160];
};

/*
 * What the running kernel's parser allows, which moved in Linux 7.x: an
 * argument of 63 bytes, or 255; 13 nested dereferences, a 14th refused at
 * the 13th from the inside, or 8, the 9th from the outside refused with
 * its own message.
 */
struct kpe_limits {
	int argstr_max;
	int nest_max;
	bool nest_outside_in;
};

extern const struct kpe_limits kpe_limits_6, kpe_limits_7;

/* The limits of the kernel this runs on (uname). */
const struct kpe_limits *kpe_limits_running(void);

/* Returns 0, or -EINVAL with err filled in; def is always safe to free. */
int kpe_parse_def_with(const char *text, const struct kpe_limits *lim, struct kpe_def *def,
		       struct kpe_error *err);
/* kpe_parse_def_with() under Linux 6.x's limits. */
int kpe_parse_def(const char *text, struct kpe_def *def, struct kpe_error *err);
void kpe_def_free(struct kpe_def *def);

/* A C identifier (is_good_name). */
bool kpe_good_name(const char *s, int len);

/*
 * Error context as tracefs error_log shows it, after a one-line p_err:
 *   "  Command: TEXT" and a caret line under pos.
 */
void kpe_print_caret(const char *label, const char *text, int pos);

#endif
