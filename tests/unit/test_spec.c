// SPDX-License-Identifier: GPL-2.0
/* spec.c: every accepted FUNC form, and the message and offset of each error. */
#include <errno.h>

#include "testutil.h"
#include "trace/spec.h"
#include "lib/util.h"

/* Parse text that must be accepted; the caller spec_free()s. */
static void parse_ok(const char *text, struct spec *s)
{
	struct spec_error e;
	int err = spec_parse(text, s, &e);

	if (err)
		print_error("'%s': %s at %d\n", text, e.msg, e.pos);
	assert_int_equal(err, 0);
}

/* text must be rejected with exactly this message at this offset. */
static void parse_err(const char *text, int pos, const char *msg)
{
	struct spec_error e;
	struct spec s;
	int err = spec_parse(text, &s, &e);

	if (!err)
		print_error("'%s' was accepted\n", text);
	assert_int_equal(err, -EINVAL);
	assert_string_equal(e.msg, msg);
	if (e.pos != pos)
		print_error("'%s': offset %d, expected %d\n", text, e.pos, pos);
	assert_int_equal(e.pos, pos);
	/* a failed parse leaves nothing to free */
	assert_null(s.func);
	assert_int_equal(s.nr_items, 0);
}

static char *repeat(const char *prefix, const char *unit, int n, const char *suffix)
{
	size_t len = strlen(prefix) + strlen(unit) * n + strlen(suffix) + 1;
	char *s = malloc(len), *p;
	int i;

	assert_non_null(s);
	p = stpcpy(s, prefix);
	for (i = 0; i < n; i++)
		p = stpcpy(p, unit);
	strcpy(p, suffix);
	return s;
}

static void test_bare_name(void **state)
{
	struct spec s;

	(void)state;
	parse_ok("ip_send_skb", &s);
	assert_string_equal(s.func, "ip_send_skb");
	assert_false(s.has_list);
	assert_int_equal(s.nr_items, 0);
	spec_free(&s);
	assert_null(s.func);

	parse_ok("  \tvfs_write  ", &s);
	assert_string_equal(s.func, "vfs_write");
	spec_free(&s);

	/* compiler clones, module prefix, globs */
	parse_ok("ip_send_skb.isra.0", &s);
	assert_string_equal(s.func, "ip_send_skb.isra.0");
	spec_free(&s);
	parse_ok("foo.constprop.0", &s);
	assert_string_equal(s.func, "foo.constprop.0");
	spec_free(&s);
	parse_ok("nf_tables:nft_do_chain", &s);
	assert_string_equal(s.func, "nf_tables:nft_do_chain");
	spec_free(&s);
	parse_ok("tcp_*", &s);
	assert_string_equal(s.func, "tcp_*");
	spec_free(&s);
}

static void test_args_and_return(void **state)
{
	struct spec s;

	(void)state;
	parse_ok("ip_send_skb(net, skb, return)", &s);
	assert_true(s.has_list);
	assert_int_equal(s.nr_items, 3);
	assert_false(s.items[0].is_pred);
	assert_string_equal(s.items[0].path.base, "net");
	assert_string_equal(s.items[0].path.text, "net");
	assert_int_equal(s.items[0].path.nr_steps, 0);
	assert_null(s.items[0].path.cast);
	assert_string_equal(s.items[1].path.base, "skb");
	assert_false(spec_path_is_return(&s.items[1].path));
	assert_string_equal(s.items[2].path.base, "return");
	assert_true(spec_path_is_return(&s.items[2].path));
	spec_free(&s);

	/* whitespace anywhere between tokens */
	parse_ok("  f ( a ,\tb\n)  ", &s);
	assert_string_equal(s.func, "f");
	assert_int_equal(s.nr_items, 2);
	assert_string_equal(s.items[1].path.base, "b");
	spec_free(&s);
}

static void test_member_paths(void **state)
{
	struct spec_path *p;
	struct spec s;

	(void)state;
	parse_ok("f(a->b.c[2], skb->sk->__sk_common.skc_daddr)", &s);
	p = &s.items[0].path;
	assert_string_equal(p->base, "a");
	assert_int_equal(p->nr_steps, 3);
	assert_int_equal(p->steps[0].kind, STEP_ARROW);
	assert_string_equal(p->steps[0].member, "b");
	assert_int_equal(p->steps[1].kind, STEP_DOT);
	assert_string_equal(p->steps[1].member, "c");
	assert_int_equal(p->steps[2].kind, STEP_INDEX);
	assert_int_equal(p->steps[2].index, 2);
	assert_null(p->steps[2].member);
	assert_string_equal(p->text, "a->b.c[2]");
	p = &s.items[1].path;
	assert_int_equal(p->nr_steps, 3);
	assert_string_equal(p->steps[2].member, "skc_daddr");
	assert_string_equal(p->text, "skb->sk->__sk_common.skc_daddr");
	spec_free(&s);

	/* spaces around operators are allowed, the text keeps them */
	parse_ok("f(a -> b [ 0x10 ])", &s);
	p = &s.items[0].path;
	assert_int_equal(p->nr_steps, 2);
	assert_string_equal(p->steps[0].member, "b");
	assert_int_equal(p->steps[1].index, 16);
	assert_string_equal(p->text, "a -> b [ 0x10 ]");
	spec_free(&s);

	/* members of the return value */
	parse_ok("f(return->len)", &s);
	assert_true(spec_path_is_return(&s.items[0].path));
	assert_string_equal(s.items[0].path.steps[0].member, "len");
	spec_free(&s);
}

static void test_casts(void **state)
{
	struct spec_path *p;
	struct spec s;

	(void)state;
	parse_ok("f((struct tcp_sock *)sk->snd_cwnd)", &s);
	p = &s.items[0].path;
	assert_false(s.items[0].is_pred);
	assert_string_equal(p->cast, "struct tcp_sock *");
	assert_string_equal(p->base, "sk");
	assert_string_equal(p->steps[0].member, "snd_cwnd");
	assert_string_equal(p->text, "(struct tcp_sock *)sk->snd_cwnd");
	spec_free(&s);

	parse_ok("f(( union foo )u, (enum e)x, (u8 **)p, (struct a*)b)", &s);
	assert_int_equal(s.nr_items, 4);
	assert_string_equal(s.items[0].path.cast, "union foo");
	assert_string_equal(s.items[1].path.cast, "enum e");
	assert_string_equal(s.items[2].path.cast, "u8 **");
	assert_string_equal(s.items[3].path.cast, "struct a*");
	spec_free(&s);

	/* a cast inside a predicate */
	parse_ok("f((struct tcp_sock *)sk->snd_cwnd > 10)", &s);
	assert_true(s.items[0].is_pred);
	assert_string_equal(s.items[0].pred->path.cast, "struct tcp_sock *");
	assert_int_equal(s.items[0].pred->op, CMP_GT);
	spec_free(&s);
}

static void test_grouping_vs_cast(void **state)
{
	struct spec_pred *n;
	struct spec s;

	(void)state;
	/* (a == 1) is grouping: no type, no trailing '*' */
	parse_ok("f((a == 1))", &s);
	n = s.items[0].pred;
	assert_int_equal(n->kind, PRED_CMP);
	assert_null(n->path.cast);
	spec_free(&s);

	/* a group that begins with a cast */
	parse_ok("f(((struct x *)p->v == 1 || y == 2))", &s);
	n = s.items[0].pred;
	assert_int_equal(n->kind, PRED_OR);
	assert_string_equal(n->left->path.cast, "struct x *");
	assert_string_equal(n->left->path.steps[0].member, "v");
	assert_string_equal(n->right->path.base, "y");
	spec_free(&s);

	/* a parenthesised bare path is just the path */
	parse_ok("f((a))", &s);
	assert_false(s.items[0].is_pred);
	assert_string_equal(s.items[0].path.base, "a");
	spec_free(&s);

	/* grouping changes precedence: && binds tighter than || */
	parse_ok("f(a == 1 && (b == 2 || c != 3))", &s);
	n = s.items[0].pred;
	assert_int_equal(n->kind, PRED_AND);
	assert_int_equal(n->right->kind, PRED_OR);
	spec_free(&s);
	parse_ok("f(a == 1 && b == 2 || c != 3)", &s);
	n = s.items[0].pred;
	assert_int_equal(n->kind, PRED_OR);
	assert_int_equal(n->left->kind, PRED_AND);
	assert_string_equal(n->right->path.base, "c");
	assert_int_equal(n->right->op, CMP_NE);
	spec_free(&s);
}

static void test_key_tuples(void **state)
{
	struct spec s;

	(void)state;
	/* flattened into the first items, the rest after them */
	parse_ok("f((sk, current->pid), len, x == 2)", &s);
	assert_int_equal(s.key_items, 2);
	assert_int_equal(s.nr_items, 4);
	assert_string_equal(s.items[0].path.base, "sk");
	assert_string_equal(s.items[1].path.text, "current->pid");
	assert_string_equal(s.items[2].path.base, "len");
	assert_true(s.items[3].is_pred);
	spec_free(&s);

	/* a cast, an index and a string comparison's comma-free text inside */
	parse_ok("f(((struct tcp_sock *)sk->x, a[2], b), c == \"(,)\")", &s);
	assert_int_equal(s.key_items, 3);
	assert_string_equal(s.items[0].path.cast, "struct tcp_sock *");
	assert_int_equal(s.items[1].path.steps[0].index, 2);
	assert_true(s.items[3].is_pred);
	assert_string_equal(s.items[3].pred->str, "(,)");
	spec_free(&s);

	/* four values, the most */
	parse_ok("f((a, b, c, d))", &s);
	assert_int_equal(s.key_items, 4);
	spec_free(&s);

	/* a group with no comma is no tuple */
	parse_ok("f((a), b)", &s);
	assert_int_equal(s.key_items, 0);
	spec_free(&s);
	parse_ok("f((a == 1 || b == 2))", &s);
	assert_int_equal(s.key_items, 0);
	spec_free(&s);
}

static void test_key_tuple_errors(void **state)
{
	(void)state;
	parse_err("f((a, b, c, d, e))", 2, "a key of more than 4 values");
	parse_err("f((a == 1, b))", 3, "a key's values are values, not comparisons");
	parse_err("f(x, (a, b))", 5, "only the first item can be a tuple: a span's key");
	parse_err("f((a, b)", 8, "missing ')'");
	parse_err("f((a, ))", 6, "empty argument");
	parse_err("f((a b, c))", 5, "expected ',' or ')' in the key");
}

static void test_predicates(void **state)
{
	static const struct {
		const char *text;
		enum spec_cmp op;
		unsigned long long value;
		bool negative;
	} cases[] = {
		{ "f(x == 5)", CMP_EQ, 5, false },
		{ "f(x != 0x10)", CMP_NE, 16, false },
		{ "f(x < 010)", CMP_LT, 8, false },
		{ "f(x <= 0)", CMP_LE, 0, false },
		{ "f(x > -5)", CMP_GT, 5, true },
		{ "f(x >= - 1)", CMP_GE, 1, true },
		{ "f(x==18446744073709551615)", CMP_EQ, 18446744073709551615ULL, false },
		{ "f(return < 0)", CMP_LT, 0, false },
	};
	struct spec_pred *n;
	struct spec s;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		parse_ok(cases[i].text, &s);
		assert_true(s.items[0].is_pred);
		n = s.items[0].pred;
		assert_int_equal(n->kind, PRED_CMP);
		assert_int_equal(n->op, cases[i].op);
		assert_true(n->value == cases[i].value);
		assert_int_equal(n->negative, cases[i].negative);
		assert_false(n->is_string);
		spec_free(&s);
	}
	assert_string_equal(spec_cmp_str(CMP_EQ), "==");
	assert_string_equal(spec_cmp_str(CMP_NE), "!=");
	assert_string_equal(spec_cmp_str(CMP_LT), "<");
	assert_string_equal(spec_cmp_str(CMP_LE), "<=");
	assert_string_equal(spec_cmp_str(CMP_GT), ">");
	assert_string_equal(spec_cmp_str(CMP_GE), ">=");
	assert_string_equal(spec_cmp_str((enum spec_cmp)99), "?");

	/* predicates and plain paths mixed, as in the reference's examples */
	parse_ok("ip_send_skb(skb->len > 128, skb)", &s);
	assert_int_equal(s.nr_items, 2);
	assert_true(s.items[0].is_pred);
	assert_string_equal(s.items[0].pred->path.text, "skb->len");
	assert_false(s.items[1].is_pred);
	spec_free(&s);
}

static void test_strings(void **state)
{
	struct spec_pred *n;
	struct spec s;

	(void)state;
	parse_ok("f(dev->name == \"lo\")", &s);
	n = s.items[0].pred;
	assert_true(n->is_string);
	assert_string_equal(n->str, "lo");
	spec_free(&s);

	parse_ok("f(s == \"a\\\"b\\\\c\\n\\t\\x\")", &s);
	assert_string_equal(s.items[0].pred->str, "a\"b\\c\n\tx");
	spec_free(&s);

	parse_ok("f(s != \"\")", &s);
	assert_string_equal(s.items[0].pred->str, "");
	spec_free(&s);

	/* commas, parentheses and operators inside a string are text */
	parse_ok("f(s == \"a, b) && c\", t)", &s);
	assert_int_equal(s.nr_items, 2);
	assert_string_equal(s.items[0].pred->str, "a, b) && c");
	spec_free(&s);

	parse_ok("f(x > 5 && (y == \"s*\" || z != -1))", &s);
	n = s.items[0].pred;
	assert_int_equal(n->kind, PRED_AND);
	assert_int_equal(n->right->kind, PRED_OR);
	assert_string_equal(n->right->left->str, "s*");
	assert_true(n->right->right->negative);
	assert_true(n->right->right->value == 1);
	spec_free(&s);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	parse_err("", 0, "empty function name");
	parse_err("   ", 3, "empty function name");
	parse_err("(f)", 0, "expected a function name");
	parse_err("-f", 0, "expected a function name");
	parse_err("f g", 2, "unexpected 'g' after the spec");
	parse_err("f)", 1, "unexpected ')' after the spec");
	parse_err("f(a) x", 5, "unexpected 'x' after the spec");
	parse_err("f(a))", 4, "unexpected ')' after the spec");
	parse_err("f(a) ==", 5, "unexpected '==' after the spec");
	parse_err("f(", 2, "expected an argument name, 'return' or a member path");
	parse_err("f()", 2, "empty argument list");
	parse_err("f( )", 3, "empty argument list");
	parse_err("f(a", 3, "missing ')'");
	/* "f(a b)" declares b, of type a: test_user_decls */
	parse_err("f(a b.c)", 4, "expected ',' or ')'");
	parse_err("f(,)", 2, "empty argument");
	parse_err("f(a,)", 4, "empty argument");
	parse_err("f(a,,b)", 4, "empty argument");
	parse_err("f(()", 3, "expected an argument name, 'return' or a member path");
	parse_err("f((a == 1)", 10, "missing ')'");
	parse_err("f(\"x\")", 2, "expected an argument name, 'return' or a member path");
	parse_err("f(a @ 1)", 4, "unexpected character '@'");
	parse_err("f(a = 1)", 4, "unexpected character '='");
	parse_err("f(!a)", 2, "unexpected character '!'");
	parse_err("f(a ! 1)", 4, "unexpected character '!'");
	parse_err("f(a & b)", 4, "unexpected character '&'");
	parse_err("f(a | b)", 4, "unexpected character '|'");
}

static void test_path_errors(void **state)
{
	(void)state;
	parse_err("f(a->)", 5, "expected a member name after '->'");
	parse_err("f(a->b->)", 8, "expected a member name after '->'");
	parse_err("f(a.)", 4, "expected a member name after '.'");
	parse_err("f(a->5)", 5, "expected a member name after '->'");
	parse_err("f(a[)", 4, "expected a number");
	parse_err("f(a[x])", 4, "expected a number");
	parse_err("f(a[-1])", 4, "expected a number");
	parse_err("f(a[1)", 5, "expected ']'");
	parse_err("f(a[1", 5, "expected ']'");
	parse_err("f(a[0x])", 4, "bad number '0x'");
	parse_err("f(a[99999999999])", 4, "array index larger than 2147483647");
	parse_err("f(a[2147483648])", 4, "array index larger than 2147483647");
}

static void test_number_errors(void **state)
{
	(void)state;
	parse_err("f(a == )", 7, "expected a number");
	parse_err("f(a ==)", 6, "expected a number");
	parse_err("f(a == -)", 8, "expected a number");
	parse_err("f(a == --1)", 8, "expected a number");
	parse_err("f(a == -\"x\")", 8, "expected a number");
	parse_err("f(a == b)", 7, "expected a number");
	parse_err("f(a == 0x)", 7, "bad number '0x'");
	parse_err("f(a == 08)", 7, "bad number '08'");
	parse_err("f(a == 1abc)", 7, "bad number '1abc'");
	parse_err("f(a == 0xfg)", 7, "bad number '0xfg'");
	parse_err("f(a == 99999999999999999999)", 7, "bad number '99999999999999999999'");
	parse_err("f(a == 18446744073709551616)", 7, "bad number '18446744073709551616'");
	parse_err("f(a == 1.5)", 8, "expected ',' or ')'");
}

static void test_predicate_errors(void **state)
{
	(void)state;
	parse_err("f(a && b == 1)", 4, "expected a comparison before '&&'");
	parse_err("f(a || b == 1)", 4, "expected a comparison before '||'");
	parse_err("f(a == 1 && b)", 12, "expected a comparison after '&&'");
	parse_err("f(a == 1 || b->c)", 12, "expected a comparison after '||'");
	parse_err("f(a == 1 ||)", 11, "expected an argument name, 'return' or a member path");
	parse_err("f(a == 1 && )", 12, "expected an argument name, 'return' or a member path");
	parse_err("f((a == 1) && c)", 14, "expected a comparison after '&&'");
	parse_err("f(a == \"abc)", 7, "unterminated string");
	parse_err("f(a == \"abc\\\")", 7, "unterminated string");
	parse_err("f(a == \"", 7, "unterminated string");
}

static void test_cast_errors(void **state)
{
	(void)state;
	parse_err("f((struct x *", 2, "unterminated cast");
	parse_err("f((struct x.y)p)", 11, "unexpected '.' in cast");
	parse_err("f((struct x *)", 14, "expected an argument name, 'return' or a member path");
	parse_err("f((struct x *)5)", 14, "expected an argument name, 'return' or a member path");
	parse_err("f((struct x *) == 1)", 15,
		  "expected an argument name, 'return' or a member path");
	/* not a pointer cast: read as a group holding the path "u32" */
	parse_err("f((u32)x)", 7, "expected ',' or ')'");
}

static void test_limits(void **state)
{
	char *t, name[SPEC_MAX_IDENT + 2];
	struct spec s;

	(void)state;
	/* names: SPEC_MAX_IDENT is fine, one more is not */
	memset(name, 'a', sizeof(name));
	name[SPEC_MAX_IDENT] = '\0';
	parse_ok(name, &s);
	assert_int_equal(strlen(s.func), SPEC_MAX_IDENT);
	spec_free(&s);
	name[SPEC_MAX_IDENT] = 'a';
	name[SPEC_MAX_IDENT + 1] = '\0';
	parse_err(name, 0, "function name longer than 255 characters");

	t = repeat("f(", "a", SPEC_MAX_IDENT + 1, ")");
	parse_err(t, 2, "name longer than 255 characters");
	free(t);
	t = repeat("f(x->", "m", SPEC_MAX_IDENT + 1, ")");
	parse_err(t, 5, "name longer than 255 characters");
	free(t);
	t = repeat("f(x.", "m", SPEC_MAX_IDENT, ")");
	parse_ok(t, &s);
	spec_free(&s);
	free(t);

	/* whole spec */
	t = repeat("f(a", " ", SPEC_MAX_LEN - 4, ")");
	assert_int_equal(strlen(t), SPEC_MAX_LEN);
	parse_ok(t, &s);
	spec_free(&s);
	free(t);
	t = repeat("f(a", " ", SPEC_MAX_LEN - 3, ")");
	parse_err(t, SPEC_MAX_LEN, "spec longer than 4096 characters");
	free(t);
	t = repeat("", "a", 20000, "");
	parse_err(t, SPEC_MAX_LEN, "spec longer than 4096 characters");
	free(t);

	/* items */
	t = repeat("f(a", ", a", SPEC_MAX_ITEMS - 1, ")");
	parse_ok(t, &s);
	assert_int_equal(s.nr_items, SPEC_MAX_ITEMS);
	spec_free(&s);
	free(t);
	t = repeat("f(a", ",a", SPEC_MAX_ITEMS, ")");
	parse_err(t, 2 + 2 * SPEC_MAX_ITEMS, "more than 16 arguments");
	free(t);

	/* path depth */
	t = repeat("f(a", "->b", SPEC_MAX_STEPS, ")");
	parse_ok(t, &s);
	assert_int_equal(s.items[0].path.nr_steps, SPEC_MAX_STEPS);
	spec_free(&s);
	free(t);
	t = repeat("f(a", "->b", SPEC_MAX_STEPS + 1, ")");
	parse_err(t, 3 + 3 * SPEC_MAX_STEPS, "path deeper than 16 components");
	free(t);
	t = repeat("f(a", "[0]", SPEC_MAX_STEPS + 1, ")");
	parse_err(t, 3 + 3 * SPEC_MAX_STEPS, "path deeper than 16 components");
	free(t);

	/* predicate terms: 16 comparisons and 15 '&&' make 31 nodes */
	t = repeat("f(a == 1", " && a == 1", 15, ")");
	parse_ok(t, &s);
	spec_free(&s);
	free(t);
	t = repeat("f(a == 1", " && a == 1", 16, ")");
	parse_err(t, 8 + 10 * 15 + 4, "predicate has more than 32 terms");
	free(t);
	/* the bound is per predicate, not per spec */
	t = repeat("f(a == 1 && b == 2", ", a == 1 && b == 2", SPEC_MAX_ITEMS - 1, ")");
	parse_ok(t, &s);
	assert_int_equal(s.nr_items, SPEC_MAX_ITEMS);
	spec_free(&s);
	free(t);

	/* deep nesting of parentheses is bounded by the spec length only */
	t = malloc(SPEC_MAX_LEN + 1);
	assert_non_null(t);
	{
		int depth = (SPEC_MAX_LEN - 16) / 2, i;
		char *p = stpcpy(t, "f(");

		for (i = 0; i < depth; i++)
			*p++ = '(';
		p = stpcpy(p, "a==1");
		for (i = 0; i < depth; i++)
			*p++ = ')';
		strcpy(p, ")");
	}
	parse_ok(t, &s);
	spec_free(&s);
	free(t);
}

/* spec_free leaves a zeroed spec, so freeing again (or a failed parse) is a no-op. */
/* User functions: TARGET:FUNC names, and C declarations of their parameters. */
static void test_user_decls(void **state)
{
	struct spec s;

	(void)state;
	parse_ok("/usr/lib/x86_64-linux-gnu/libstdc++.so.6:_Znwm(unsigned long n, return)", &s);
	assert_string_equal(s.func, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6:_Znwm");
	assert_int_equal(s.nr_items, 2);
	assert_string_equal(s.items[0].decl, "unsigned long");
	assert_string_equal(s.items[0].path.base, "n");
	assert_null(s.items[1].decl);
	spec_free(&s);

	parse_ok("c:getaddrinfo( const char  *node ,char**x, struct sock *sk, size_t size)", &s);
	assert_int_equal(s.nr_items, 4);
	assert_string_equal(s.items[0].decl, "const char  *");
	assert_string_equal(s.items[0].path.base, "node");
	assert_string_equal(s.items[0].path.text, "node");
	assert_string_equal(s.items[1].decl, "char**");
	assert_string_equal(s.items[1].path.base, "x");
	assert_string_equal(s.items[2].decl, "struct sock *");
	assert_string_equal(s.items[3].decl, "size_t");
	spec_free(&s);

	/* a declared return type; a declaration among paths and predicates */
	parse_ok("c:malloc(size_t size, void *return, size > 100, (char *)arg1)", &s);
	assert_string_equal(s.items[1].decl, "void *");
	assert_true(spec_path_is_return(&s.items[1].path));
	assert_true(s.items[2].is_pred);
	assert_null(s.items[2].decl);
	assert_string_equal(s.items[3].path.cast, "char *");
	spec_free(&s);

	/* not declarations: one word, a type without a name, member paths */
	parse_ok("c:f(size, skb->len, x.y)", &s);
	assert_null(s.items[0].decl);
	assert_null(s.items[1].decl);
	assert_null(s.items[2].decl);
	spec_free(&s);
	parse_err("c:malloc(unsigned long)", 18, "expected ',' or ')'");
	parse_err("c:malloc(char *)", 14, "expected ',' or ')'");
}

static void test_free_is_idempotent(void **state)
{
	struct spec s, zero;
	struct spec_error e;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	parse_ok("f(a->b == 1 || c == \"x\", (struct s *)d->e)", &s);
	assert_non_null(s.func);
	assert_int_equal(s.nr_items, 2);
	spec_free(&s);
	assert_memory_equal(&s, &zero, sizeof(s));
	spec_free(&s);
	assert_memory_equal(&s, &zero, sizeof(s));
	/* a parse that fails after allocating hands back nothing to free */
	assert_int_equal(spec_parse("f(a->b == 1 || c == \"x\", (struct s *)d->)", &s, &e),
			 -EINVAL);
	assert_memory_equal(&s, &zero, sizeof(s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_name),
		cmocka_unit_test(test_user_decls),
		cmocka_unit_test(test_args_and_return),
		cmocka_unit_test(test_member_paths),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_grouping_vs_cast),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_key_tuples),
		cmocka_unit_test(test_key_tuple_errors),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_path_errors),
		cmocka_unit_test(test_number_errors),
		cmocka_unit_test(test_predicate_errors),
		cmocka_unit_test(test_cast_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_free_is_idempotent),
	};

	return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
