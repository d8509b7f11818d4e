// SPDX-License-Identifier: GPL-2.0
/* Filter text -> a probe's predicates and postfix operations. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpe/filter.h"
#include "lib/util.h"

/* The kernel's messages, from kernel/trace/trace_events_filter.c. */
#define E_INVALID_OP "Invalid operator"
#define E_TOO_MANY_OPEN "Too many '('"
#define E_TOO_MANY_CLOSE "Too few '('"
#define E_MISSING_QUOTE "Missing matching quote"
#define E_OPERAND_TOO_LONG "Operand too long"
#define E_ILLEGAL_FIELD_OP "Illegal operation for field type"
#define E_FIELD_NOT_FOUND "Field not found"
#define E_ILLEGAL_INTVAL "Illegal integer value"
#define E_TOO_MANY_PREDS "Too many terms in predicate expression"
#define E_INVALID_FILTER "Meaningless filter expression"

struct fparser {
	const char *s;
	int pos;
	int depth;
	struct kpe_probe *p;
	struct kpe_def_cfg *cfg;
	struct kpe_error *err;
	bool failed;
};

static int fail(struct fparser *f, int pos, const char *msg)
{
	if (!f->failed) {
		f->failed = true;
		f->err->pos = pos;
		snprintf(f->err->msg, sizeof(f->err->msg), "%s", msg);
	}
	return -EINVAL;
}

static void skip_space(struct fparser *f)
{
	while (isspace((unsigned char)f->s[f->pos]))
		f->pos++;
}

static bool take(struct fparser *f, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(f);
	if (strncmp(f->s + f->pos, tok, n))
		return false;
	f->pos += n;
	return true;
}

static int push_op(struct fparser *f, __u8 op, int pos)
{
	if (f->cfg->nr_filter_ops >= KPE_MAX_FILTER_OPS)
		return fail(f, pos, E_TOO_MANY_PREDS);
	f->cfg->filter_ops[f->cfg->nr_filter_ops++] = op;
	return 0;
}

/* == != <= >= < > & ~, longest first. */
static int parse_cmp_op(struct fparser *f, __u8 *op)
{
	static const struct {
		const char *text;
		enum kpe_cmp op;
	} ops[] = {
		{ "==", KPE_CMP_EQ },  { "!=", KPE_CMP_NE },  { "<=", KPE_CMP_LE },
		{ ">=", KPE_CMP_GE },  { "<", KPE_CMP_LT },   { ">", KPE_CMP_GT },
		{ "&", KPE_CMP_BAND }, { "~", KPE_CMP_GLOB },
	};
	size_t i;

	skip_space(f);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		/* "&&" is not "&" */
		if (ops[i].op == KPE_CMP_BAND && f->s[f->pos + 1] == '&')
			continue;
		if (take(f, ops[i].text)) {
			*op = ops[i].op;
			return 0;
		}
	}
	return fail(f, f->pos, E_INVALID_OP);
}

/* A quoted string or a bare word, into buf. */
static int parse_value(struct fparser *f, char *buf, size_t size, bool *quoted)
{
	int start, n;
	char q;

	skip_space(f);
	start = f->pos;
	q = f->s[f->pos];
	*quoted = q == '"' || q == '\'';
	if (*quoted) {
		const char *end = strchr(f->s + start + 1, q);

		if (!end)
			return fail(f, start, E_MISSING_QUOTE);
		n = end - (f->s + start + 1);
		f->pos = end - f->s + 1;
		start++;
	} else {
		while (f->s[f->pos] && !isspace((unsigned char)f->s[f->pos]) &&
		       !strchr("()&|!", f->s[f->pos]))
			f->pos++;
		n = f->pos - start;
		if (!n)
			return fail(f, start, E_INVALID_FILTER);
	}
	if ((size_t)n >= size)
		return fail(f, start - *quoted, E_OPERAND_TOO_LONG);
	memcpy(buf, f->s + start, n);
	buf[n] = '\0';
	return 0;
}

/* The field's predicate slot and how it compares; -1 if unknown. */
static int field_of(struct fparser *f, const char *name, struct kpe_pred *pr)
{
	int i = kpe_probe_field(f->p, name);
	const struct kpe_field *fd;

	if (i < 0) {
		if (!strcmp(name, "common_pid")) {
			pr->field = KPE_FIELD_PID;
			pr->width = 4;
			pr->is_signed = 1;
		} else if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
			pr->field = KPE_FIELD_COMM;
			pr->is_str = 1;
		} else if (!strcmp(name, "cpu") || !strcmp(name, "CPU")) {
			pr->field = KPE_FIELD_CPU;
			pr->width = 4;
		} else {
			return -1;
		}
		return 0;
	}
	fd = &f->p->fields[i];
	if (fd->type.kind == KPE_T_SYMSTR)
		return -3;
	pr->field = i;
	pr->is_str = fd->is_data;
	pr->width = fd->type.kind == KPE_T_BITFIELD ? 8 : fd->type.size;
	pr->is_signed = fd->type.kind == KPE_T_S;
	return fd->type.count ? -2 : 0;
}

static int fill_number(struct fparser *f, struct kpe_pred *pr, const char *v, bool quoted, int pos)
{
	char *end;

	if (pr->op == KPE_CMP_GLOB || quoted)
		return fail(f, pos, quoted ? E_ILLEGAL_INTVAL : E_ILLEGAL_FIELD_OP);
	errno = 0;
	pr->rhs = pr->is_signed ? (__u64)strtoll(v, &end, 0) : strtoull(v, &end, 0);
	if (errno || *end || end == v || (!pr->is_signed && strchr(v, '-')))
		return fail(f, pos, E_ILLEGAL_INTVAL);
	return 0;
}

static int parse_cmp(struct fparser *f)
{
	char name[KPE_MAX_ARG_NAME + 16], val[KPE_PRED_STR_MAX];
	int start, vpos, ret;
	struct kpe_pred *pr;
	bool quoted;
	__u8 op;

	skip_space(f);
	start = f->pos;
	while (isalnum((unsigned char)f->s[f->pos]) || f->s[f->pos] == '_')
		f->pos++;
	if (f->pos == start)
		return fail(f, start, E_INVALID_FILTER);
	if (f->pos - start >= (int)sizeof(name))
		return fail(f, start, E_FIELD_NOT_FOUND);
	memcpy(name, f->s + start, f->pos - start);
	name[f->pos - start] = '\0';
	if (f->cfg->nr_preds >= KPE_MAX_PREDS)
		return fail(f, start, E_TOO_MANY_PREDS);
	pr = &f->cfg->preds[f->cfg->nr_preds];
	memset(pr, 0, sizeof(*pr));
	ret = field_of(f, name, pr);
	if (ret == -1)
		return fail(f, start, E_FIELD_NOT_FOUND);
	if (ret == -2)
		return fail(f, start, E_ILLEGAL_FIELD_OP);
	if (ret == -3)
		return fail(f, start,
			    "ksnoop names a symstr in user space, after the filter: it has no "
			    "text to compare");
	if (parse_cmp_op(f, &op))
		return -EINVAL;
	pr->op = op;
	skip_space(f);
	vpos = f->pos;
	if (parse_value(f, val, sizeof(val), &quoted))
		return -EINVAL;
	if (pr->is_str) {
		if (op != KPE_CMP_EQ && op != KPE_CMP_NE && op != KPE_CMP_GLOB)
			return fail(f, vpos, E_ILLEGAL_FIELD_OP);
		strcpy(pr->str, val);
	} else if (fill_number(f, pr, val, quoted, vpos)) {
		return -EINVAL;
	}
	return push_op(f, f->cfg->nr_preds++, start);
}

static int parse_or(struct fparser *f);

static int parse_unary(struct fparser *f)
{
	int pos;

	skip_space(f);
	pos = f->pos;
	if (take(f, "!"))
		return parse_unary(f) ?: push_op(f, KPE_FOP_NOT, pos);
	if (take(f, "(")) {
		if (++f->depth > 32)
			return fail(f, pos, E_TOO_MANY_OPEN);
		if (parse_or(f))
			return -EINVAL;
		if (!take(f, ")"))
			return fail(f, pos, E_TOO_MANY_OPEN);
		f->depth--;
		return 0;
	}
	return parse_cmp(f);
}

static int parse_and(struct fparser *f)
{
	int pos;

	if (parse_unary(f))
		return -EINVAL;
	for (;;) {
		skip_space(f);
		pos = f->pos;
		if (!take(f, "&&"))
			return 0;
		if (parse_unary(f) || push_op(f, KPE_FOP_AND, pos))
			return -EINVAL;
	}
}

static int parse_or(struct fparser *f)
{
	int pos;

	if (parse_and(f))
		return -EINVAL;
	for (;;) {
		skip_space(f);
		pos = f->pos;
		if (!take(f, "||"))
			return 0;
		if (parse_and(f) || push_op(f, KPE_FOP_OR, pos))
			return -EINVAL;
	}
}

int kpe_filter_compile(struct kpe_probe *p, const char *text, struct kpe_error *err)
{
	struct fparser f = { .s = text, .p = p, .cfg = p->cfg, .err = err };
	__u32 nr_preds = p->cfg->nr_preds, nr_ops = p->cfg->nr_filter_ops;

	memset(err, 0, sizeof(*err));
	if (strlen(text) > KPE_FILTER_MAX_LEN)
		return fail(&f, KPE_FILTER_MAX_LEN, E_OPERAND_TOO_LONG);
	/* A second filter on the same probe must hold too. */
	if (!parse_or(&f)) {
		skip_space(&f);
		if (f.s[f.pos] == ')')
			fail(&f, f.pos, E_TOO_MANY_CLOSE);
		else if (f.s[f.pos])
			fail(&f, f.pos, E_INVALID_FILTER);
		else if (nr_ops)
			push_op(&f, KPE_FOP_AND, f.pos);
	}
	if (f.failed) {
		p->cfg->nr_preds = nr_preds;
		p->cfg->nr_filter_ops = nr_ops;
		return -EINVAL;
	}
	return 0;
}
