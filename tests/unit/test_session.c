// SPDX-License-Identifier: GPL-2.0
/*
 * session.c's setup: FUNC arguments to plans over a BTF and symbol lists
 * of fixtures (testutil.h's functions): globs expanded over the traceable
 * functions that have BTF, -s and graph positions, compiler clones, and
 * one error line for each refusal.
 */
#include <errno.h>

#include "testutil.h"
#include "lib/ksyms.h"
#include "trace/session.h"
#include "trace/follow.h"
#include "trace/span.h"

static const char kallsyms[] = "ffffffff81000000 T ip_send_skb\n"
			       "ffffffff81001000 T noargs\n"
			       "ffffffff81002000 T six\n"
			       "ffffffff81003000 T hash\n"
			       "ffffffff81004000 t paint.isra.0\n"
			       "ffffffff81005000 T argvfn\n"
			       "ffffffff81006000 T nobtf_fn\n";

/* paint exists only as its clone; nobtf_fn has no BTF; argvfn is blacklisted. */
static const char filter_funcs[] =
	"ip_send_skb\nnoargs\nsix\nhash\npaint.isra.0\nargvfn\nnobtf_fn\n";
static const char blacklist[] = "0xffffffff81005000-0xffffffff81005100\targvfn\n";

struct ctx {
	struct sym_files f;
	struct session s;
	struct stderr_capture cap;
	char err[1024];
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	if (sym_files_write(&c->f, kallsyms, filter_funcs, blacklist)) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	sym_files_remove(&c->f);
	free(c);
	return 0;
}

/* What session__open leaves, from the fixtures instead of this kernel's. */
static void open_fixture(struct ctx *c, bool stack_mode, bool graph)
{
	struct fixture_ids id;

	memset(&c->s, 0, sizeof(c->s));
	c->s.opts.stack_mode = stack_mode;
	c->s.opts.graph = graph;
	c->s.kb = fixture_kbtf(fixture_new(&id));
	c->s.ks = ksyms__load_from(c->f.kallsyms, c->f.filter, c->f.blacklist);
	assert_non_null(c->s.kb);
	assert_non_null(c->s.ks);
}

/* session__plan over argv (NULL-terminated), stderr kept in c->err. */
static int plan_with(struct ctx *c, char **argv, const struct plan_opts *po)
{
	int argc = 0, err;

	while (argv[argc])
		argc++;
	stderr_capture_begin(&c->cap);
	err = session__plan(&c->s, argc, argv, po);
	stderr_capture_end(&c->cap, c->err, sizeof(c->err));
	return err;
}

static int plan(struct ctx *c, char **argv)
{
	struct plan_opts po = { 0 };

	return plan_with(c, argv, &po);
}

static const struct func_plan *find(const struct session *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->plans[i].name, name))
			return &s->plans[i];
	}
	fail_msg("no plan for %s", name);
	return NULL;
}

static void test_exact_names(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "ip_send_skb", "six(a, f)", NULL };

	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), 0);
	assert_string_equal(c->err, "");
	assert_int_equal(c->s.nr, 2);
	assert_int_equal(c->s.nr_specs, 2);
	assert_string_equal(c->s.spec_funcs[1], "six");
	assert_int_equal(find(&c->s, "six")->spec_idx, 1);
	assert_string_equal(find(&c->s, "six")->attach_name, "six");
	assert_int_equal(find(&c->s, "ip_send_skb")->cfg.chain_pos, 0);
	assert_int_equal(find(&c->s, "six")->cfg.chain_pos, 0);
	session__close(&c->s);
}

/*
 * A glob: every traceable function with BTF; the rest left out, and named
 * in one warning (a silent gap reads as "never called").
 */
static void test_glob(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "*", "ip_send_skb", NULL };
	int i;

	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), 0);
	/* nobtf_fn has no BTF; the blacklisted argvfn the match never offered */
	assert_string_equal(c->err, "Warning: '*': 5 functions matched, 2 left out "
				    "(no BTF / not traceable): argvfn, nobtf_fn\n");
	/* hash ip_send_skb noargs paint.isra.0 six from "*", then ip_send_skb */
	assert_int_equal(c->s.nr, 6);
	/* a clone matched by name is traced with its function's BTF */
	assert_string_equal(find(&c->s, "paint.isra.0")->attach_name, "paint.isra.0");
	for (i = 0; i < 5; i++) {
		assert_true(c->s.plans[i].from_glob);
		assert_int_equal(c->s.plans[i].spec_idx, 0);
		assert_string_not_equal(c->s.plans[i].name, "argvfn");
		assert_string_not_equal(c->s.plans[i].name, "nobtf_fn");
	}
	assert_false(c->s.plans[5].from_glob);
	assert_int_equal(c->s.plans[5].spec_idx, 1);
	assert_string_equal(c->s.spec_funcs[0], "*");
	session__close(&c->s);
}

/* -s: a chain in argument order; patterns have no order to chain by. */
static void test_stack_mode(void **state)
{
	struct ctx *c = *state;
	char *chain[] = { "ip_send_skb", "six", "noargs", NULL };
	char *glob[] = { "ip_send_skb", "s*", NULL };

	open_fixture(c, true, false);
	assert_int_equal(plan(c, chain), 0);
	assert_int_equal(c->s.plans[0].cfg.chain_pos, 0);
	assert_int_equal(c->s.plans[1].cfg.chain_pos, 1);
	assert_int_equal(c->s.plans[2].cfg.chain_pos, 2);
	session__close(&c->s);

	open_fixture(c, true, false);
	assert_int_equal(plan(c, glob), -EINVAL);
	expect_one_error_line(c->err, "-s chains take exact function names, not 's*'");
	session__close(&c->s);
}

/* graph: ENTRY at 0, every callee at 1; ENTRY is one function. */
static void test_graph(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "ip_send_skb", "s*", "hash", NULL };
	char *glob_entry[] = { "i*", "six", NULL };

	open_fixture(c, false, true);
	assert_int_equal(plan(c, argv), 0);
	assert_int_equal(c->s.nr, 3);
	assert_int_equal(find(&c->s, "ip_send_skb")->cfg.chain_pos, 0);
	assert_int_equal(find(&c->s, "six")->cfg.chain_pos, 1);
	assert_int_equal(find(&c->s, "hash")->cfg.chain_pos, 1);
	session__close(&c->s);

	open_fixture(c, false, true);
	assert_int_equal(plan(c, glob_entry), -EINVAL);
	expect_one_error_line(c->err, "graph's ENTRY is one function, not 'i*'");
	session__close(&c->s);
}

/* A function GCC left only as a clone is traced as the clone, with a warning. */
static void test_clone(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "paint", NULL };

	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), 0);
	assert_int_equal(c->s.nr, 1);
	assert_string_equal(c->s.plans[0].name, "paint");
	assert_string_equal(c->s.plans[0].attach_name, "paint.isra.0");
	assert_non_null(strstr(c->err, "paint exists only as the compiler clone paint.isra.0"));
	session__close(&c->s);
}

static void expect_refused(struct ctx *c, const char *arg, int want_err, const char *want)
{
	char *argv[] = { (char *)arg, NULL };

	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), want_err);
	expect_one_error_line(c->err, want);
	assert_int_equal(c->s.nr, 0);
	session__close(&c->s);
}

static void test_refusals(void **state)
{
	struct ctx *c = *state;

	expect_refused(c, "argvfn", -EINVAL, "cannot trace argvfn: ");
	expect_refused(c, "nobtf*", -ENOENT, "no traceable function with BTF matches 'nobtf*'");
	expect_refused(c, "six(a", -EINVAL, "invalid function spec 'six(a'");
	expect_refused(c, "no_such_fn", -ENOENT, "no_such_fn");
}

/* A refusal after good plans leaves them to session__close (ASan and valgrind check). */
static void test_close_after_error(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "ip_send_skb", "six", "argvfn", "hash", NULL };

	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), -EINVAL);
	assert_int_equal(c->s.nr, 2);
	assert_int_equal(c->s.nr_specs, 3);
	session__close(&c->s);
	assert_null(c->s.plans);
	assert_int_equal(c->s.nr, 0);
}

/* Two calls plan one after the other: spec indexes go on. */
static void test_append(void **state)
{
	struct ctx *c = *state;
	char *first[] = { "ip_send_skb", NULL }, *more[] = { "six", "hash", NULL };

	open_fixture(c, false, false);
	assert_int_equal(plan(c, first), 0);
	assert_int_equal(plan(c, more), 0);
	assert_int_equal(c->s.nr, 3);
	assert_int_equal(c->s.nr_specs, 3);
	assert_int_equal(find(&c->s, "hash")->spec_idx, 2);
	assert_string_equal(c->s.spec_funcs[1], "six");
	session__close(&c->s);
}

/* Plans from, then to; span_mark_plans' verdict, its error line in c->err. */
static int spans(struct ctx *c, char *from, char *to)
{
	char *f[] = { from, NULL }, *t[] = { to, NULL };
	struct plan_opts po = { .span = true };
	int err;

	open_fixture(c, false, false);
	assert_int_equal(plan_with(c, f, &po), 0);
	assert_int_equal(plan_with(c, t, &po), 0);
	stderr_capture_begin(&c->cap);
	err = span_mark_plans(&c->s, 1);
	stderr_capture_end(&c->cap, c->err, sizeof(c->err));
	return err;
}

static void test_span_keys(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *from, *to;

	/* a struct pointer keys by its address: nothing is read at it */
	assert_int_equal(spans(c, "ip_send_skb(skb)", "ip_send_skb(skb, net)"), 0);
	from = &c->s.plans[0].cfg;
	to = &c->s.plans[1].cfg;
	assert_int_equal(from->flags & KSNOOP_CFG_SPAN, KSNOOP_CFG_SPAN_FROM);
	assert_int_equal(to->flags & KSNOOP_CFG_SPAN, KSNOOP_CFG_SPAN_TO);
	/* the whole word, and nothing past the key's one value */
	assert_memory_equal(from->span_key_width, ((__u8[]){ 8, 0, 0, 0 }), 4);
	assert_memory_equal(to->span_key_width, ((__u8[]){ 8, 0, 0, 0 }), 4);
	assert_int_equal(from->values[0].flags & KSNOOP_V_READ, 0);
	/* and shown as the pointer it is: struct sk_buff * */
	assert_int_equal(c->s.plans[0].values[0].show, SHOW_SCALAR);
	assert_true(btf_is_ptr(
		btf__type_by_id(c->s.plans[0].values[0].btf, c->s.plans[0].values[0].type_id)));
	session__close(&c->s);
	/* integers: a register, or a member read through a pointer */
	assert_int_equal(spans(c, "six(a)", "ip_send_skb(skb->len)"), 0);
	assert_int_equal(c->s.plans[0].cfg.span_key_width[0], 4);
	assert_true(c->s.plans[1].cfg.values[0].flags & KSNOOP_V_READ);
	session__close(&c->s);
}

static void test_span_tuple_keys(void **state)
{
	struct ctx *c = *state;
	const struct func_plan *from, *to;

	/* each value of the tuple at its own width; what follows keys nothing */
	assert_int_equal(
		spans(c, "ip_send_skb((skb, skb->len), net)", "ip_send_skb((skb, skb->len))"), 0);
	from = &c->s.plans[0];
	to = &c->s.plans[1];
	assert_int_equal(from->key_items, 2);
	assert_int_equal(to->key_items, 2);
	assert_memory_equal(from->cfg.span_key_width, ((__u8[]){ 8, 4, 0, 0 }), 4);
	assert_memory_equal(to->cfg.span_key_width, ((__u8[]){ 8, 4, 0, 0 }), 4);
	assert_int_equal(from->cfg.nr_values, 3);
	assert_string_equal(from->values[2].name, "net");
	session__close(&c->s);
	/* four values, the most a key holds */
	assert_int_equal(spans(c, "six((a, b, c, d))", "six((f, e, d, c))"), 0);
	assert_memory_equal(c->s.plans[1].cfg.span_key_width, ((__u8[]){ 4, 4, 4, 4 }), 4);
	session__close(&c->s);
}

static void expect_span_refused(struct ctx *c, char *from, char *to, const char *want)
{
	if (spans(c, from, to) != -EINVAL)
		fail_msg("%s -> %s: accepted", from, to);
	expect_one_error_line(c->err, want);
	session__close(&c->s);
}

static void test_span_refusals(void **state)
{
	struct ctx *c = *state;

	expect_span_refused(c, "ip_send_skb(skb)", "six(a)",
			    "six: its key a is an integer, ip_send_skb's a pointer");
	expect_span_refused(c, "six(a, return)", "six(a)", "its values cannot include the return");
	expect_span_refused(c, "six(comm)", "six(a)", "comm cannot key a span");
}

static void test_span_tuple_refusals(void **state)
{
	struct ctx *c = *state;
	char *argv[] = { "six((a, b))", NULL };

	expect_span_refused(c, "six((a, b))", "six(a)",
			    "six: its key has 1 value, six's 2: they never match");
	expect_span_refused(c, "ip_send_skb((skb, skb->len))", "ip_send_skb((skb->len, skb))",
			    "ip_send_skb: its key skb->len is an integer, ip_send_skb's a pointer");
	expect_span_refused(c, "six((a, comm))", "six((a, b))", "comm cannot key a span");
	/* outside a span, a tuple has nothing to key */
	open_fixture(c, false, false);
	assert_int_equal(plan(c, argv), -EINVAL);
	expect_one_error_line(c->err, "six: a tuple '(a, b)' keys a span: only specs of --from "
				      "and --to start with one");
	session__close(&c->s);
}

static const char follow_syms[] = "ffffffff81000000 T ip_send_skb\n"
				  "ffffffff81001000 T skb_clone\n"
				  "ffffffff81002000 T consume_skb\n"
				  "ffffffff81003000 T make_reply\n"
				  "ffffffff81004000 T six\n";
static const char follow_funcs[] = "ip_send_skb\nskb_clone\nconsume_skb\nmake_reply\nsix\n";

/* --follow param over the fixture's skb functions; stderr in c->err. */
static int follow(struct ctx *c, const struct follow_opts *fo, char *spec)
{
	struct plan_opts po = { 0 };
	int err;

	sym_files_remove(&c->f);
	assert_int_equal(sym_files_write(&c->f, follow_syms, follow_funcs, ""), 0);
	open_fixture(c, false, false);
	stderr_capture_begin(&c->cap);
	err = follow_plan(&c->s, fo, 1, &spec, &po);
	stderr_capture_end(&c->cap, c->err, sizeof(c->err));
	return err;
}

static void test_follow(void **state)
{
	struct follow_opts fo = { .param = "skb" };
	struct ctx *c = *state;
	const struct func_plan *p;

	assert_int_equal(follow(c, &fo, "ip_send_skb(skb->len > 1)"), 0);
	assert_string_equal(c->err, "");
	assert_int_equal(c->s.nr, 4);
	/* the start leads with its object, shown as an address */
	p = &c->s.plans[0];
	assert_string_equal(p->name, "ip_send_skb");
	assert_int_equal(p->cfg.flags & KSNOOP_CFG_FOLLOW, KSNOOP_CFG_FOLLOW_START);
	assert_int_equal(p->cfg.follow_arg, 1);
	assert_int_equal(p->cfg.emit, KSNOOP_EMIT_ENTRY);
	assert_string_equal(p->values[0].name, "skb");
	assert_int_equal(p->values[0].show, SHOW_SCALAR);
	/* a copy prints at its return and hands its return on */
	p = find(&c->s, "skb_clone");
	assert_int_equal(p->cfg.flags & (KSNOOP_CFG_FOLLOW | KSNOOP_CFG_ANY_TASK),
			 KSNOOP_CFG_FOLLOWED | KSNOOP_CFG_FOLLOW_CLONE | KSNOOP_CFG_ANY_TASK);
	assert_int_equal(p->cfg.emit, KSNOOP_EMIT_COMBINED);
	/* a free ends the follow */
	p = find(&c->s, "consume_skb");
	assert_int_equal(p->cfg.flags & KSNOOP_CFG_FOLLOW,
			 KSNOOP_CFG_FOLLOWED | KSNOOP_CFG_FOLLOW_END);
	/* an skb made from another is no copy: its entry alone, its object the second */
	p = find(&c->s, "make_reply");
	assert_int_equal(p->cfg.flags & KSNOOP_CFG_FOLLOW, KSNOOP_CFG_FOLLOWED);
	assert_int_equal(p->cfg.follow_arg, 1);
	assert_int_equal(p->cfg.emit, KSNOOP_EMIT_ENTRY);
	assert_int_equal(p->values[1].show, SHOW_SCALAR);
	session__close(&c->s);
	/* --follow-in narrows; the ends stay */
	fo.in[fo.nr_in++] = "make*";
	assert_int_equal(follow(c, &fo, "ip_send_skb"), 0);
	assert_int_equal(c->s.nr, 3);
	find(&c->s, "make_reply");
	find(&c->s, "consume_skb");
	session__close(&c->s);
}

static void expect_follow_refused(struct ctx *c, const char *param, char *spec, const char *want)
{
	struct follow_opts fo = { .param = param };

	if (!follow(c, &fo, spec))
		fail_msg("--follow %s %s: accepted", param, spec);
	expect_one_error_line(c->err, want);
	session__close(&c->s);
}

static void test_follow_refusals(void **state)
{
	struct ctx *c = *state;

	expect_follow_refused(c, "nope", "ip_send_skb", "ip_send_skb has no parameter nope");
	expect_follow_refused(c, "a", "six", "six's a is not one");
	expect_follow_refused(c, "skb", "ip_send_skb(return)", "cannot include the return");
	expect_follow_refused(c, "skb", "*_skb", "starts at one function, not a pattern");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_names),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_stack_mode),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_clone),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_close_after_error),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_span_keys),
		cmocka_unit_test(test_span_refusals),
		cmocka_unit_test(test_span_tuple_keys),
		cmocka_unit_test(test_span_tuple_refusals),
		cmocka_unit_test(test_follow),
		cmocka_unit_test(test_follow_refusals),
	};

	return cmocka_run_group_tests_name("session", tests, setup, teardown);
}
