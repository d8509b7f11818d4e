/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FUNC spec text -> syntax tree, without BTF:
 *   name | name(item, ...) | name((path, path, ...), item, ...)
 *   name := func | module:func | target:func (a user function)
 *         | tp:category:event | rawtp:event (a tracepoint) | profile:hz
 *   item := path | pred | decl
 *   path := ['(' type ')'] ident { '->' ident | '.' ident | '[' int ']' }
 *   pred := and { '||' and };  and := prim { '&&' prim }
 *   prim := '(' pred ')' | path cmpop (number | "string")
 *   decl := type ident (a user function's parameter, declared: "size_t size")
 */
#ifndef KSNOOP_SPEC_H
#define KSNOOP_SPEC_H

#include <stdbool.h>

#define SPEC_MAX_LEN 4096  /* whole spec text */
#define SPEC_MAX_IDENT 255 /* identifiers and function names */
#define SPEC_MAX_ITEMS 16  /* comma-separated items */
#define SPEC_MAX_STEPS 16  /* components of one path */
#define SPEC_MAX_PRED_NODES 32
#define SPEC_MAX_TUPLE 4 /* values of a key tuple */

enum spec_step_kind {
	STEP_ARROW, /* ->member */
	STEP_DOT,   /* .member */
	STEP_INDEX, /* [n] */
};

struct spec_step {
	enum spec_step_kind kind;
	char *member;
	long long index;
};

struct spec_path {
	char *base; /* parameter name or "return" */
	char *cast; /* "struct tcp_sock *" or NULL */
	struct spec_step steps[SPEC_MAX_STEPS];
	int nr_steps;
	char *text; /* as written, for display: "skb->len" */
};

enum spec_cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

enum spec_pred_kind { PRED_CMP, PRED_AND, PRED_OR };

struct spec_pred {
	enum spec_pred_kind kind;
	struct spec_pred *left, *right; /* AND/OR */
	struct spec_path path;		/* CMP */
	enum spec_cmp op;
	bool is_string;
	char *str;
	bool negative; /* literal written with a leading '-' */
	unsigned long long value;
};

struct spec_item {
	bool is_pred;
	char *decl;		/* a declaration's type, "const char *"; its name is path.base */
	struct spec_path path;	/* !is_pred */
	struct spec_pred *pred; /* is_pred */
};

/* What a spec's name is, which only the system can tell (target.h). */
enum spec_target {
	SPEC_KERNEL,	 /* a kernel function: "ip_send_skb", "nf_conntrack:func" */
	SPEC_USER,	 /* a function of a program or library: "c:malloc" */
	SPEC_TRACEPOINT, /* "tp:sched:sched_switch", "rawtp:sched_switch" */
	SPEC_PROFILE,	 /* "profile:99": CPU sampling */
};

struct spec {
	char *func;
	enum spec_target target; /* the parser leaves SPEC_KERNEL: see target_classify() */
	bool has_list;		 /* "name(...)" rather than bare "name" */
	struct spec_item items[SPEC_MAX_ITEMS];
	int nr_items;
	int key_items; /* "(a, b)" first: a span's key of items[0 .. key_items - 1] */
};

struct spec_error {
	int pos; /* byte offset in the input */
	char msg[160];
};

/* Returns 0, or -EINVAL with err filled in. */
int spec_parse(const char *text, struct spec *spec, struct spec_error *err);
void spec_free(struct spec *spec);

const char *spec_cmp_str(enum spec_cmp op);
bool spec_path_is_return(const struct spec_path *p);
/* Frees what a path holds (steps below nr_steps) and zeroes it. */
void spec_path_free(struct spec_path *p);

#endif
