// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/spec.h"

enum tok_kind {
	T_END,
	T_IDENT,
	T_NUMBER,
	T_STRING,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_ARROW,
	T_DOT,
	T_LBRACK,
	T_RBRACK,
	T_STAR,
	T_AND,
	T_OR,
	T_CMP,
	T_MINUS,
};

struct tok {
	enum tok_kind kind;
	int pos, len;
	enum spec_cmp cmp;
};

struct parser {
	const char *s;
	int pos;
	struct tok tok;
	struct spec_error *err;
	int nodes;
	bool failed;
	bool in_tuple; /* a key's values: paths, never declarations */
};

static void fail(struct parser *p, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *p, int pos, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	p->err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int lex_string(struct parser *p, int start)
{
	int i = start + 1;

	while (p->s[i] && p->s[i] != '"') {
		if (p->s[i] == '\\' && p->s[i + 1])
			i++;
		i++;
	}
	if (!p->s[i]) {
		fail(p, start, "unterminated string");
		return i;
	}
	return i + 1;
}

static void lex_operator(struct parser *p, struct tok *t)
{
	static const struct {
		const char *text;
		enum tok_kind kind;
		enum spec_cmp cmp;
	} ops[] = {
		{ "->", T_ARROW, 0 },	 { "&&", T_AND, 0 },	  { "||", T_OR, 0 },
		{ "==", T_CMP, CMP_EQ }, { "!=", T_CMP, CMP_NE }, { "<=", T_CMP, CMP_LE },
		{ ">=", T_CMP, CMP_GE }, { "<", T_CMP, CMP_LT },  { ">", T_CMP, CMP_GT },
		{ "(", T_LPAREN, 0 },	 { ")", T_RPAREN, 0 },	  { ",", T_COMMA, 0 },
		{ ".", T_DOT, 0 },	 { "[", T_LBRACK, 0 },	  { "]", T_RBRACK, 0 },
		{ "*", T_STAR, 0 },	 { "-", T_MINUS, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (!strncmp(p->s + t->pos, ops[i].text, n)) {
			t->kind = ops[i].kind;
			t->cmp = ops[i].cmp;
			t->len = n;
			return;
		}
	}
	if (isprint((unsigned char)p->s[t->pos]))
		fail(p, t->pos, "unexpected character '%c'", p->s[t->pos]);
	else
		fail(p, t->pos, "unexpected byte 0x%02x", (unsigned char)p->s[t->pos]);
	t->kind = T_END;
}

static void next(struct parser *p)
{
	struct tok *t = &p->tok;
	int i;

	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
	t->pos = p->pos;
	t->len = 0;
	if (!p->s[p->pos]) {
		t->kind = T_END;
		return;
	}
	i = p->pos;
	if (is_ident_start(p->s[i])) {
		while (is_ident_char(p->s[i]))
			i++;
		t->kind = T_IDENT;
	} else if (isdigit((unsigned char)p->s[i])) {
		while (isalnum((unsigned char)p->s[i]))
			i++;
		t->kind = T_NUMBER;
	} else if (p->s[i] == '"') {
		i = lex_string(p, i);
		/* an unterminated string has failed; never unescape it */
		t->kind = p->failed ? T_END : T_STRING;
	} else {
		lex_operator(p, t);
		i += t->len;
	}
	t->len = i - t->pos;
	p->pos = i;
}

static char *tok_strdup(struct parser *p, const struct tok *t)
{
	if (t->len > SPEC_MAX_IDENT) {
		fail(p, t->pos, "name longer than %d characters", SPEC_MAX_IDENT);
		return NULL;
	}
	return strndup(p->s + t->pos, t->len);
}

static char *span_strdup(struct parser *p, int from, int to)
{
	while (to > from && isspace((unsigned char)p->s[to - 1]))
		to--;
	return strndup(p->s + from, to - from);
}

static bool parse_number(struct parser *p, unsigned long long *out)
{
	char *end;

	if (p->tok.kind != T_NUMBER) {
		fail(p, p->tok.pos, "expected a number");
		return false;
	}
	errno = 0;
	*out = strtoull(p->s + p->tok.pos, &end, 0);
	if (errno || end != p->s + p->tok.pos + p->tok.len) {
		fail(p, p->tok.pos, "bad number '%.*s'", p->tok.len, p->s + p->tok.pos);
		return false;
	}
	next(p);
	return true;
}

/*
 * A parenthesis that starts a path is a cast when it names a type:
 * "(struct x ...", or words and stars up to the next ')' ending in '*'.
 * Anything else, such as "((struct x *)p == 1 || ...)", is grouping.
 */
static bool looks_like_cast(struct parser *p)
{
	const char *s = p->s + p->tok.pos + 1;
	const char *q, *last = NULL;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "struct ", 7) || !strncmp(s, "union ", 6) || !strncmp(s, "enum ", 5))
		return true;
	for (q = s; *q != ')'; q++) {
		if (!is_ident_char(*q) && !isspace((unsigned char)*q) && *q != '*')
			return false;
		if (!isspace((unsigned char)*q))
			last = q;
	}
	return last && *last == '*';
}

static bool parse_cast(struct parser *p, struct spec_path *path)
{
	int from = p->tok.pos + 1;
	const char *close = strchr(p->s + from, ')');
	const char *q;

	if (!close) {
		fail(p, p->tok.pos, "unterminated cast");
		return false;
	}
	for (q = p->s + from; q < close; q++) {
		if (!is_ident_char(*q) && !isspace((unsigned char)*q) && *q != '*') {
			fail(p, q - p->s, "unexpected '%c' in cast", *q);
			return false;
		}
	}
	while (isspace((unsigned char)p->s[from]))
		from++;
	path->cast = span_strdup(p, from, close - p->s);
	p->pos = close - p->s + 1;
	next(p);
	return path->cast != NULL;
}

static bool parse_step(struct parser *p, struct spec_path *path)
{
	struct spec_step *st;

	if (path->nr_steps >= SPEC_MAX_STEPS) {
		fail(p, p->tok.pos, "path deeper than %d components", SPEC_MAX_STEPS);
		return false;
	}
	st = &path->steps[path->nr_steps];
	if (p->tok.kind == T_LBRACK) {
		unsigned long long idx;
		int pos;

		st->kind = STEP_INDEX;
		next(p);
		pos = p->tok.pos;
		if (!parse_number(p, &idx))
			return false;
		if (idx > INT_MAX) {
			fail(p, pos, "array index larger than %d", INT_MAX);
			return false;
		}
		st->index = idx;
		if (p->tok.kind != T_RBRACK) {
			fail(p, p->tok.pos, "expected ']'");
			return false;
		}
		next(p);
		path->nr_steps++;
		return true;
	}
	st->kind = p->tok.kind == T_ARROW ? STEP_ARROW : STEP_DOT;
	next(p);
	if (p->tok.kind != T_IDENT) {
		fail(p, p->tok.pos, "expected a member name after '%s'",
		     st->kind == STEP_ARROW ? "->" : ".");
		return false;
	}
	st->member = tok_strdup(p, &p->tok);
	if (!st->member)
		return false;
	path->nr_steps++;
	next(p);
	return true;
}

static bool parse_path(struct parser *p, struct spec_path *path)
{
	int from = p->tok.pos;

	if (p->tok.kind == T_LPAREN && !parse_cast(p, path))
		return false;
	if (p->tok.kind != T_IDENT) {
		fail(p, p->tok.pos, "expected an argument name, 'return' or a member path");
		return false;
	}
	path->base = tok_strdup(p, &p->tok);
	if (!path->base)
		return false;
	next(p);
	while (p->tok.kind == T_ARROW || p->tok.kind == T_DOT || p->tok.kind == T_LBRACK) {
		if (!parse_step(p, path))
			return false;
	}
	path->text = span_strdup(p, from, p->tok.pos);
	return path->text != NULL;
}

static char *unescape(const char *s, int len)
{
	char *out = malloc(len + 1), *o = out;
	int i;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len) {
			i++;
			*o++ = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i];
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static struct spec_pred *new_node(struct parser *p, enum spec_pred_kind kind)
{
	struct spec_pred *n;

	if (++p->nodes > SPEC_MAX_PRED_NODES) {
		fail(p, p->tok.pos, "predicate has more than %d terms", SPEC_MAX_PRED_NODES);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		fail(p, p->tok.pos, "out of memory");
	else
		n->kind = kind;
	return n;
}

static bool parse_literal(struct parser *p, struct spec_pred *n)
{
	if (p->tok.kind == T_STRING) {
		n->is_string = true;
		n->str = unescape(p->s + p->tok.pos + 1, p->tok.len - 2);
		next(p);
		return n->str != NULL;
	}
	if (p->tok.kind == T_MINUS) {
		n->negative = true;
		next(p);
	}
	return parse_number(p, &n->value);
}

static void pred_free(struct spec_pred *n);
static struct spec_pred *parse_or(struct parser *p);

/* A bare path comes back as a CMP node with op < 0 (no comparison). */
#define BARE_PATH ((enum spec_cmp) - 1)

static struct spec_pred *parse_prim(struct parser *p)
{
	struct spec_pred *n;

	if (p->tok.kind == T_LPAREN && !looks_like_cast(p)) {
		next(p);
		n = parse_or(p);
		if (n && p->tok.kind != T_RPAREN) {
			fail(p, p->tok.pos, "expected ')'");
		} else if (n) {
			next(p);
		}
		return n;
	}
	n = new_node(p, PRED_CMP);
	if (!n || !parse_path(p, &n->path))
		return n;
	if (p->tok.kind != T_CMP) {
		n->op = BARE_PATH;
		return n;
	}
	n->op = p->tok.cmp;
	next(p);
	parse_literal(p, n);
	return n;
}

static bool is_bare(const struct spec_pred *n)
{
	return n && n->kind == PRED_CMP && n->op == BARE_PATH;
}

static struct spec_pred *parse_binary(struct parser *p, enum tok_kind op, enum spec_pred_kind kind,
				      struct spec_pred *(*sub)(struct parser *))
{
	struct spec_pred *l = sub(p), *n;

	while (!p->failed && p->tok.kind == op) {
		int pos = p->tok.pos;

		if (is_bare(l))
			fail(p, pos, "expected a comparison before '%s'",
			     op == T_AND ? "&&" : "||");
		next(p);
		pos = p->tok.pos;
		n = new_node(p, kind);
		if (!n)
			break;
		n->left = l;
		n->right = sub(p);
		l = n;
		if (is_bare(n->right))
			fail(p, pos, "expected a comparison after '%s'", op == T_AND ? "&&" : "||");
	}
	return l;
}

static struct spec_pred *parse_and(struct parser *p)
{
	return parse_binary(p, T_AND, PRED_AND, parse_prim);
}

static struct spec_pred *parse_or(struct parser *p)
{
	return parse_binary(p, T_OR, PRED_OR, parse_and);
}

/* Words a declaration's name cannot be: it would be part of its type. */
static bool is_type_word(const char *w, int len)
{
	static const char *const words[] = { "char",	 "short",  "int",    "long", "signed",
					     "unsigned", "float",  "double", "void", "const",
					     "volatile", "struct", "union",  "enum", "_Bool" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if ((int)strlen(words[i]) == len && !strncmp(w, words[i], len))
			return true;
	}
	return false;
}

/*
 * A C declaration, "size_t size" or "const char *name": words and stars
 * up to the item's end, at least two words, the last one the name. Where
 * it ends, in *end; the name's start in *name.
 */
static bool looks_like_decl(const struct parser *p, int *name, int *end)
{
	int i = p->tok.pos, words = 0, last = -1;

	if (p->tok.kind != T_IDENT)
		return false;
	while (p->s[i] && p->s[i] != ',' && p->s[i] != ')') {
		if (is_ident_start(p->s[i])) {
			last = i;
			words++;
			while (is_ident_char(p->s[i]))
				i++;
		} else if (isspace((unsigned char)p->s[i]) || p->s[i] == '*') {
			i++;
		} else {
			return false;
		}
	}
	while (i > 0 && isspace((unsigned char)p->s[i - 1]))
		i--;
	if (words < 2 || !is_ident_char(p->s[i - 1]) || is_type_word(p->s + last, i - last))
		return false;
	*name = last;
	*end = i;
	return true;
}

/* "const char *name": declares a parameter of a user function, and shows it. */
static bool parse_decl(struct parser *p, struct spec_item *item, int name, int end)
{
	int type_end = name;

	while (type_end > p->tok.pos && isspace((unsigned char)p->s[type_end - 1]))
		type_end--;
	item->decl = span_strdup(p, p->tok.pos, type_end);
	item->path.base = span_strdup(p, name, end);
	item->path.text = span_strdup(p, name, end);
	p->pos = end;
	next(p);
	return item->decl && item->path.base && item->path.text;
}

static bool parse_item(struct parser *p, struct spec_item *item)
{
	struct spec_pred *n;
	int name, end;

	if (p->tok.kind == T_COMMA || p->tok.kind == T_RPAREN) {
		fail(p, p->tok.pos, "empty argument");
		return false;
	}
	if (!p->in_tuple && looks_like_decl(p, &name, &end))
		return parse_decl(p, item, name, end);
	p->nodes = 0; /* the bound is per predicate */
	n = parse_or(p);
	if (is_bare(n)) {
		item->path = n->path;
		memset(&n->path, 0, sizeof(n->path));
		pred_free(n);
		return !p->failed;
	}
	item->is_pred = true;
	item->pred = n;
	return !p->failed && n;
}

static bool valid_func_char(char c)
{
	/*
	 * dots for clones (foo.isra.0), ':' for module:func and target:func,
	 * globs, and what paths to user programs hold (/usr/lib/libstdc++.so.6)
	 */
	return is_ident_char(c) || c == '.' || c == ':' || c == '*' || c == '?' || c == '/' ||
	       c == '-' || c == '+';
}

static bool parse_func_name(struct parser *p, struct spec *spec)
{
	int i = 0, end;

	while (isspace((unsigned char)p->s[i]))
		i++;
	end = i;
	/* not '-' or '+' first: "-f" is an option put in the wrong place */
	while (valid_func_char(p->s[end]) && (end > i || (p->s[end] != '-' && p->s[end] != '+')))
		end++;
	if (end == i) {
		fail(p, i, p->s[i] ? "expected a function name" : "empty function name");
		return false;
	}
	if (end - i > SPEC_MAX_IDENT) {
		fail(p, i, "function name longer than %d characters", SPEC_MAX_IDENT);
		return false;
	}
	spec->func = strndup(p->s + i, end - i);
	p->pos = end;
	next(p);
	return spec->func != NULL;
}

/*
 * Whether the '(' at the token opens a tuple: a ',' inside it, outside
 * any deeper bracket or string, before its ')'.
 */
static bool at_tuple(const struct parser *p)
{
	const char *q = p->s + p->tok.pos + 1;
	int depth = 0;

	if (p->tok.kind != T_LPAREN)
		return false;
	for (; *q; q++) {
		if (*q == '"') {
			while (*++q && *q != '"')
				if (*q == '\\' && q[1])
					q++;
			if (!*q)
				return false;
		} else if (*q == '(' || *q == '[') {
			depth++;
		} else if (*q == ')' || *q == ']') {
			if (!depth--)
				return false;
		} else if (*q == ',' && !depth) {
			return true;
		}
	}
	return false;
}

/* "(a, b)" as the first item: a span's key of several values, flattened. */
static bool parse_tuple(struct parser *p, struct spec *spec)
{
	int open = p->tok.pos;
	bool ok;

	next(p);
	for (;;) {
		struct spec_item *it = &spec->items[spec->nr_items];

		if (spec->nr_items >= SPEC_MAX_TUPLE) {
			fail(p, open, "a key of more than %d values", SPEC_MAX_TUPLE);
			return false;
		}
		spec->nr_items++;
		p->in_tuple = true;
		ok = parse_item(p, it);
		p->in_tuple = false;
		if (!ok)
			return false;
		if (it->is_pred) {
			fail(p, open + 1, "a key's values are values, not comparisons");
			return false;
		}
		if (p->tok.kind == T_RPAREN)
			break;
		if (p->tok.kind != T_COMMA) {
			fail(p, p->tok.pos, "expected ',' or ')' in the key");
			return false;
		}
		next(p);
	}
	spec->key_items = spec->nr_items;
	next(p);
	return true;
}

/* One item, or the key tuple that only the first may be. */
static bool parse_next_item(struct parser *p, struct spec *spec)
{
	if (!at_tuple(p))
		return parse_item(p, &spec->items[spec->nr_items++]);
	if (spec->nr_items) {
		fail(p, p->tok.pos, "only the first item can be a tuple: a span's key");
		return false;
	}
	return parse_tuple(p, spec);
}

static bool parse_items(struct parser *p, struct spec *spec)
{
	spec->has_list = true;
	next(p);
	if (p->tok.kind == T_RPAREN) {
		fail(p, p->tok.pos, "empty argument list");
		return false;
	}
	for (;;) {
		if (spec->nr_items >= SPEC_MAX_ITEMS) {
			fail(p, p->tok.pos, "more than %d arguments", SPEC_MAX_ITEMS);
			return false;
		}
		if (!parse_next_item(p, spec))
			return false;
		if (p->tok.kind == T_RPAREN)
			break;
		if (p->tok.kind != T_COMMA) {
			fail(p, p->tok.pos,
			     p->tok.kind == T_END ? "missing ')'" : "expected ',' or ')'");
			return false;
		}
		next(p);
	}
	next(p);
	return true;
}

int spec_parse(const char *text, struct spec *spec, struct spec_error *err)
{
	struct parser p = { .s = text, .err = err };

	memset(spec, 0, sizeof(*spec));
	memset(err, 0, sizeof(*err));
	if (strnlen(text, SPEC_MAX_LEN + 1) > SPEC_MAX_LEN) {
		fail(&p, SPEC_MAX_LEN, "spec longer than %d characters", SPEC_MAX_LEN);
		return -EINVAL;
	}
	if (parse_func_name(&p, spec) && p.tok.kind == T_LPAREN)
		parse_items(&p, spec);
	if (!p.failed && p.tok.kind != T_END)
		fail(&p, p.tok.pos, "unexpected '%.*s' after the spec", p.tok.len ? p.tok.len : 1,
		     text + p.tok.pos);
	if (p.failed) {
		spec_free(spec);
		return -EINVAL;
	}
	return 0;
}

void spec_path_free(struct spec_path *path)
{
	int i;

	for (i = 0; i < path->nr_steps; i++)
		free(path->steps[i].member);
	free(path->base);
	free(path->cast);
	free(path->text);
	memset(path, 0, sizeof(*path));
}

static void pred_free(struct spec_pred *n)
{
	if (!n)
		return;
	pred_free(n->left);
	pred_free(n->right);
	spec_path_free(&n->path);
	free(n->str);
	free(n);
}

void spec_free(struct spec *spec)
{
	int i;

	for (i = 0; i < spec->nr_items; i++) {
		free(spec->items[i].decl);
		spec_path_free(&spec->items[i].path);
		pred_free(spec->items[i].pred);
	}
	free(spec->func);
	memset(spec, 0, sizeof(*spec));
}

const char *spec_cmp_str(enum spec_cmp op)
{
	static const char *const names[] = { "==", "!=", "<", "<=", ">", ">=" };

	return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

bool spec_path_is_return(const struct spec_path *p)
{
	return p->base && !strcmp(p->base, "return");
}
