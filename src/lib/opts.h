/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options, table-driven: a command declares its options and how
 * its operands mix with them, and opts_parse walks argv once. Bad options
 * get one wording everywhere; -h/--help is every command's and is reported
 * by one signal, OPTS_HELP.
 */
#ifndef KSNOOP_OPTS_H
#define KSNOOP_OPTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The largest pid accepted: pid_t's range. The kernel's PID_MAX_LIMIT
 * (4194304 on 64-bit) only caps the sysctl pid_max of the kernel that was
 * built, which is not an ABI: it has been raised before, differs on 32-bit,
 * and a trace file may come from another machine. A pid under any such
 * bound may still not exist, so existence is checked where it matters
 * (ktrace -p), and the syntax takes every positive pid_t.
 */
#define KSNOOP_PID_MAX INT_MAX
_Static_assert(sizeof(pid_t) == sizeof(int), "KSNOOP_PID_MAX is pid_t's maximum");

/* Returned by opts_parse and by setters: help (or the version) was printed. */
#define OPTS_HELP 1

enum opts_mode {
	OPTS_PERMUTE,  /* options anywhere: "trace -p 1 f" and "trace f -p 1" */
	OPTS_STOP,     /* options end at the first operand: "ktrace -d cmd -x" */
	OPTS_IN_ORDER, /* each operand goes to spec->operand between the options */
};

enum opt_kind {
	OPT_K_CALL,	/* set(ctx, arg) */
	OPT_K_FLAG,	/* bool at off = true */
	OPT_K_STRING,	/* const char * at off = arg */
	OPT_K_INT,	/* int at off, from arg within [min, max] */
	OPT_K_DURATION, /* unsigned long long at off, ns from "20us" and the like, > 0 */
};

struct opt {
	const char *name; /* long name without "--", or NULL */
	char letter;	  /* short option, or 0 */
	bool has_arg;
	enum opt_kind kind;
	size_t off;	    /* typed kinds: the target's offset in ctx */
	long long min, max; /* OPT_K_INT */
	/* OPT_K_CALL: 0, OPTS_HELP to stop with success, or -errno once it said why */
	int (*set)(void *ctx, const char *arg);
	/*
	 * An old spelling of another entry's option, kept working: a word
	 * (or a prefix) names it only when it names no entry that is not an
	 * alias. Help and the man page show the current name.
	 */
	bool alias;
};

/* Compile-time check that a target field has the type its kind writes. */
#define OPT_FIELD(type, field, want)                                                              \
	(offsetof(type, field) +                                                                  \
	 sizeof(struct {                                                                          \
		 int typed : __builtin_types_compatible_p(typeof(((type *)0)->field), want) ? 1   \
											    : -1; \
	 }) * 0)

#define OPT_CALL(lname, c, arg, fn)                                                               \
	{                                                                                         \
		.name = (lname), .letter = (c), .has_arg = (arg), .kind = OPT_K_CALL, .set = (fn) \
	}
#define OPT_FLAG(lname, c, type, field)                             \
	{                                                           \
		.name = (lname), .letter = (c), .kind = OPT_K_FLAG, \
		.off = OPT_FIELD(type, field, bool)                 \
	}
#define OPT_STRING(lname, c, type, field)                                              \
	{                                                                              \
		.name = (lname), .letter = (c), .has_arg = true, .kind = OPT_K_STRING, \
		.off = OPT_FIELD(type, field, const char *)                            \
	}
#define OPT_INT(lname, c, type, field, lo, hi)                                      \
	{                                                                           \
		.name = (lname), .letter = (c), .has_arg = true, .kind = OPT_K_INT, \
		.off = OPT_FIELD(type, field, int), .min = (lo), .max = (hi)        \
	}
#define OPT_DURATION(lname, c, type, field)                                              \
	{                                                                                \
		.name = (lname), .letter = (c), .has_arg = true, .kind = OPT_K_DURATION, \
		.off = OPT_FIELD(type, field, unsigned long long)                        \
	}

struct opts_spec {
	const struct opt *opts; /* ends with {}; -h and --help are added, not listed */
	const struct opt *more; /* searched after opts: a shared table, or NULL */
	enum opts_mode mode;
	/* Option errors name the command ("... for probe") when it is set, */
	const char *cmd;
	/* and end with a synopsis ("...; usage: kdump [-dH]...") when it is. */
	const char *synopsis;
	/* -h/--help: print the usage text on stdout. */
	void (*help)(void *ctx);
	/* OPTS_IN_ORDER: takes each operand; 0 or -errno once it said why. */
	int (*operand)(void *ctx, const char *arg);
	/*
	 * The options of the commands that follow these words, and their
	 * names ("count and hist"): one of them given here is told where it
	 * goes, not called unknown.
	 */
	const struct opts_spec *later;
	const char *later_cmds;
};

/* The operands (none in OPTS_IN_ORDER mode), and whether "--" came first. */
struct opts_rest {
	int argc;
	char **argv;
	bool dashdash;
};

/*
 * Parse argv[0..argc) (no program name) against spec, writing into ctx.
 * As getopt does, argv is permuted: the operands end up last, in their
 * order, in rest->argv (still NULL-terminated if argv was). "--" ends the
 * options. Returns 0, OPTS_HELP, or -errno after one error line.
 */
int opts_parse(const struct opts_spec *spec, void *ctx, int argc, char **argv,
	       struct opts_rest *rest);

/* Typed values, for setters. Each prints one error naming `what` and fails with -EINVAL. */
int opts_pid(const char *arg, const char *what, pid_t *pid);
/* An int from min to max; what names it in the error ("--kstack-depth"). */
int opts_int(const char *arg, const char *what, long long min, long long max, int *out);
/* A ring buffer size: a power of two of pages, 1 to 65536. */
int opts_pages(const char *arg, int *pages);

#endif
