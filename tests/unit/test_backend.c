// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c without a kernel: ring sizes, backend names, and the decisions
 * behind tracer__attach (which backends -b allows, which programs a plan
 * needs, fentry's limits and cookies) for plans of the testutil fixture.
 */
#include <errno.h>

#include "lib/arch.h"
#include "testutil.h"
#include "lib/kbtf.h"
#include "trace/backend.h"
#include "trace/plan.h"
#include "trace/spec.h"

#define MB (1UL << 20)

struct ctx {
	struct fixture_ids id;
	struct kbtf *kb;
	struct func_plan plan;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c || !(c->kb = fixture_kbtf(fixture_new(&c->id)))) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	plan_free(&c->plan);
	kbtf__free(c->kb);
	free(c);
	return 0;
}

static const struct func_plan *plan(struct ctx *c, const char *text)
{
	struct plan_opts opts = { 0 };
	struct spec_error serr;
	struct spec spec;

	plan_free(&c->plan);
	assert_int_equal(spec_parse(text, &spec, &serr), 0);
	assert_int_equal(plan_build(c->kb, &spec, &opts, &c->plan), 0);
	spec_free(&spec);
	return &c->plan;
}

static void test_names(void **state UNUSED)
{
	assert_string_equal(backend_name(BK_FENTRY), "fentry");
	assert_string_equal(backend_name(BK_KPROBE), "kprobe");
	assert_string_equal(backend_name(BK_KPROBE_MULTI), "kprobe.multi");
	assert_string_equal(backend_name(BK_NR), "?");
	assert_string_equal(backend_name((enum backend_kind)99), "?");
}

/* -P is taken as asked, in powers of two; unplanned, the default is 64 MiB at least. */
static void test_ringbuf_size(void **state UNUSED)
{
	unsigned long page = getpagesize();

	assert_int_equal(ringbuf_size_unplanned(0, 1), 64 * MB);
	assert_int_equal(ringbuf_size_unplanned(0, 2), 64 * MB);
	/* many CPUs: the default grows past the floor */
	assert_int_equal(ringbuf_size_unplanned(0, 2 * 64 * MB / (16 * page)), 128 * MB);
	/* -P 16 given is taken as asked, not as the default */
	assert_int_equal(ringbuf_size_unplanned(KSNOOP_DEFAULT_PAGES, 1), 16 * page);
	assert_int_equal(ringbuf_size_unplanned(1, 1), page);
	/* powers of two, rounded up */
	assert_int_equal(ringbuf_size(1, 1), page);
	assert_int_equal(ringbuf_size(3, 1), 4 * page);
	assert_int_equal(ringbuf_size(32, 2), 64 * page);
	assert_int_equal(ringbuf_size(33, 2), 128 * page);
	/* and at most 1 GiB */
	assert_int_equal(ringbuf_size(1 << 20, 64), 1024 * MB);
}

/* Record header, event header, and per value a record and its 8-byte-aligned data. */
static void test_call_bytes(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg = { .emit = KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN };
	unsigned long ev = 8 + KSNOOP_EVENT_HDR_SIZE;

	/* entry: a 168-byte pt_regs; return: a long */
	cfg.nr_side[0] = 1;
	cfg.side[0][0] = 0;
	cfg.values[0].size = 168;
	cfg.nr_side[1] = 1;
	cfg.side[1][0] = 1;
	cfg.values[1].size = 8;
	assert_int_equal(backend_call_bytes(&cfg, 0, false), (ev + 16 + 168) + (ev + 16 + 8));
	/* -s, graph and --errors may send a chain end too */
	assert_int_equal(backend_call_bytes(&cfg, 0, true), ev + (ev + 16 + 168) + (ev + 16 + 8));
	/* --kstack adds a record to each event */
	assert_int_equal(backend_call_bytes(&cfg, 88, false),
			 (ev + 16 + 168 + 16 + 88) + (ev + 16 + 8 + 16 + 88));
	/* combined: one event with both sides; odd sizes round up */
	cfg.emit = KSNOOP_EMIT_COMBINED;
	cfg.values[1].size = 5;
	assert_int_equal(backend_call_bytes(&cfg, 0, false), ev + 16 + 168 + 16 + 8);
	cfg.emit = 0;
	assert_int_equal(backend_call_bytes(&cfg, 0, false), 0);
}

/* A 100,000-call burst of the largest plan, in powers of two, up to 64 MiB; -P wins. */
static void test_ring_bytes(void **state UNUSED)
{
	struct tracer_opts env = { .pages = 0 }; /* no -P */
	struct func_plan plans[2] = { 0 };

	/* the return alone: 8 + 64 + 16 + 8 = 96 bytes a call, 9.6 MB */
	plans[0].cfg.emit = KSNOOP_EMIT_RETURN;
	plans[0].cfg.nr_side[1] = 1;
	plans[0].cfg.values[0].size = 8;
	assert_int_equal(backend_ring_bytes(&env, plans, 1, 2, NULL), 16 * MB);
	/* the largest of the functions counts: a 168-byte entry dump, 35 MB */
	plans[1].cfg = plans[0].cfg;
	plans[1].cfg.emit |= KSNOOP_EMIT_ENTRY;
	plans[1].cfg.nr_side[0] = 1;
	plans[1].cfg.side[0][0] = 1;
	plans[1].cfg.values[1].size = 168;
	assert_int_equal(backend_ring_bytes(&env, plans, 2, 2, NULL), 64 * MB);
	/* a 2 KiB struct would want 200 MB: the default stops at 64 MiB */
	plans[1].cfg.values[1].size = 2048;
	assert_int_equal(backend_ring_bytes(&env, plans, 2, 2, NULL), 64 * MB);
	/* nothing sent: the default pages per CPU */
	plans[0].cfg.emit = 0;
	assert_int_equal(backend_ring_bytes(&env, plans, 1, 2, NULL),
			 ringbuf_size(KSNOOP_DEFAULT_PAGES, 2));
	/* -s: room for the chain ends, 168 bytes a call */
	plans[0].cfg.emit = KSNOOP_EMIT_RETURN;
	env.stack_mode = true;
	assert_int_equal(backend_ring_bytes(&env, plans, 1, 2, NULL), 32 * MB);
	env.pages = 4;
	assert_int_equal(backend_ring_bytes(&env, plans, 2, 2, NULL), ringbuf_size(4, 2));
	/* -P 16, the default's own number, still wins over the plan */
	env.pages = KSNOOP_DEFAULT_PAGES;
	assert_int_equal(backend_ring_bytes(&env, plans, 2, 2, NULL), ringbuf_size(16, 2));
}

static void test_wakeup_bytes(void **state UNUSED)
{
	assert_int_equal(ringbuf_wakeup_bytes(64 * MB), 256 << 10);
	assert_int_equal(ringbuf_wakeup_bytes(1024 * MB), 256 << 10);
	assert_int_equal(ringbuf_wakeup_bytes(1 * MB), 64 << 10);
	assert_int_equal(ringbuf_wakeup_bytes(4096), 256);
}

/* -b auto tries fentry then kprobe; -b fentry and -b kprobe only theirs. */
static void test_allows(void **state UNUSED)
{
	assert_true(backend_allows(BACKEND_AUTO, BK_FENTRY));
	assert_true(backend_allows(BACKEND_AUTO, BK_KPROBE));
	assert_true(backend_allows(BACKEND_FENTRY, BK_FENTRY));
	assert_false(backend_allows(BACKEND_FENTRY, BK_KPROBE));
	assert_false(backend_allows(BACKEND_KPROBE, BK_FENTRY));
	assert_true(backend_allows(BACKEND_KPROBE, BK_KPROBE));
	/* kprobe.multi is for globs, never a per-function fallback */
	assert_false(backend_allows(BACKEND_AUTO, BK_KPROBE_MULTI));
}

static void expect_progs(const struct func_plan *p, bool entry, bool ret)
{
	if (backend_wants_prog(&p->cfg, true) != entry || backend_wants_prog(&p->cfg, false) != ret)
		print_error("%s: emit %#x flags %#x fast %u\n", p->name, p->cfg.emit, p->cfg.flags,
			    p->cfg.nr_fast_preds);
	assert_int_equal(backend_wants_prog(&p->cfg, true), entry);
	assert_int_equal(backend_wants_prog(&p->cfg, false), ret);
}

/* A side that emits nothing and pairs nothing runs no program. */
static void test_wants_prog(void **state)
{
	struct ctx *c = *state;

	expect_progs(plan(c, "ip_send_skb"), true, true);
	expect_progs(plan(c, "ip_send_skb(skb->len)"), true, false);
	expect_progs(plan(c, "ip_send_skb(return)"), false, true);
	expect_progs(plan(c, "ip_send_skb(skb, return)"), true, true);
	expect_progs(plan(c, "six(a == 1)"), true, false);
	/* a slow predicate on the return still needs the entry's frame */
	expect_progs(plan(c, "six(return == 1)"), true, true);
}

static void test_wants_prog_cfg(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg = { .emit = KSNOOP_EMIT_RETURN };

	assert_false(backend_wants_prog(&cfg, true));
	assert_true(backend_wants_prog(&cfg, false));
	/* a kprobe keeps its fast verdict in a frame for the return */
	cfg.nr_fast_preds = 1;
	assert_true(backend_wants_prog(&cfg, true));
	cfg = (struct ksnoop_func_cfg){ .emit = KSNOOP_EMIT_ENTRY, .flags = KSNOOP_CFG_FRAME };
	assert_true(backend_wants_prog(&cfg, false));
	cfg = (struct ksnoop_func_cfg){ .emit = KSNOOP_EMIT_COMBINED };
	assert_true(backend_wants_prog(&cfg, true));
	assert_true(backend_wants_prog(&cfg, false));
}

static void test_can_fentry(void **state)
{
	struct ctx *c = *state;

	assert_true(backend_can_fentry(plan(c, "ip_send_skb")));
	assert_false(backend_can_fentry(plan(c, "ip_send_skb.isra.0")));
	assert_false(backend_can_fentry(plan(c, "six.constprop.0(a)")));
	/* a name without BTF traced at its own symbol: a prototype of ksnoop's */
	assert_false(
		backend_can_fentry(&(struct func_plan){ .attach_name = "plain", .no_btf = true }));
}

static void test_multi_member(void **state UNUSED)
{
	struct func_plan named = { .name = "f" }, glob = { .name = "g", .from_glob = true };
	struct func_plan mod = { .name = "m", .func.module = "nf_tables" };
	int many = BACKEND_MULTI_NAMED_MIN;

	assert_false(backend_multi_member(BACKEND_FENTRY, 1000, &glob));
	assert_false(backend_multi_member(BACKEND_FENTRY, 1000, &named));
	assert_true(backend_multi_member(BACKEND_AUTO, 1, &glob));
	assert_true(backend_multi_member(BACKEND_KPROBE, 1, &glob));
	/* auto: fentry for a short list, kprobe.multi from BACKEND_MULTI_NAMED_MIN */
	assert_false(backend_multi_member(BACKEND_AUTO, many - 1, &named));
	assert_true(backend_multi_member(BACKEND_AUTO, many, &named));
	/* -b kprobe: any list */
	assert_false(backend_multi_member(BACKEND_KPROBE, 1, &named));
	assert_true(backend_multi_member(BACKEND_KPROBE, 2, &named));
	/* module functions one by one, named or not */
	assert_false(backend_multi_member(BACKEND_KPROBE, many, &mod));
	assert_false(backend_multi_member(BACKEND_AUTO, many, &mod));
}

static const char *explain(const struct func_plan *p, enum bpfutil_op op, int err,
			   struct strbuf *sb)
{
	sb_reset(sb);
	return backend_explain_fentry(sb, p, op, err) ? sb_str(sb) : NULL;
}

/* Only ENOTSUPP at attach, past the trampoline's arguments, is explained here. */
static void test_explain_fentry(void **state)
{
	struct ctx *c = *state;
	struct func_plan p;
	struct strbuf sb;

	sb_init(&sb);
	p = *plan(c, "six(a)");
#ifdef KSNOOP_ARCH_ARM64
	/* the fixture has no ftrace_ops: a kernel without direct calls */
	assert_non_null(strstr(explain(&p, BPFUTIL_ATTACH, -ENOTSUPP, &sb),
			       "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"));
#else
	assert_null(explain(&p, BPFUTIL_ATTACH, -ENOTSUPP, &sb));
	p.nr_args = 7;
	assert_string_equal(explain(&p, BPFUTIL_ATTACH, -ENOTSUPP, &sb),
			    "six has 7 arguments and x86-64 BPF trampolines take at most 6 before "
			    "Linux 6.6; kprobes read the rest from the stack (ENOTSUPP)");
	assert_string_equal(explain(&p, BPFUTIL_ATTACH, EOPNOTSUPP, &sb),
			    "six has 7 arguments and x86-64 BPF trampolines take at most 6 before "
			    "Linux 6.6; kprobes read the rest from the stack (EOPNOTSUPP)");
	/* the trampoline is built at attach, so a load error is something else */
	assert_null(explain(&p, BPFUTIL_LOAD, -ENOTSUPP, &sb));
	assert_null(explain(&p, BPFUTIL_ATTACH, -EPERM, &sb));
#endif
	sb_free(&sb);
}

/* ---- select.c: what runs for each function, as a table ---- */

struct sel_case {
	const char *name;
	const char *specs[3]; /* the session's functions */
	enum backend_choice backend;
	kfeat_set feat;
	bool no_pmu, pids, offline_btf;
	int agg_mode;
	int func; /* the function checked */
	bool multi;
	int nr_tries;
	enum backend_kind first_try;
	enum select_run fentry[2], kprobe[2];
	enum select_load load;
};

#define NO_FUNC_ARG (KFEAT_ALL & ~(1U << KFEAT_FUNC_ARG) & ~(1U << KFEAT_FENTRY_COOKIE))
#define ST SEL_RUN_STRAIGHT
#define LI SEL_RUN_LITE
#define GE SEL_RUN_GENERAL
#define AG SEL_RUN_AGG
#define NO SEL_RUN_NONE

static const struct sel_case sel_cases[] = {
	{ "one function, entry values: written out for both backends",
	  { "ip_send_skb(skb->len)" },
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { ST, NO },
	  .kprobe = { ST, NO },
	  .load = SEL_LOAD_NONE },
	{ "a filtered task: the lite path, loaded with the owner",
	  { "ip_send_skb(skb->len)" },
	  .pids = true,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { LI, NO },
	  .kprobe = { LI, NO },
	  .load = SEL_LOAD_OWNER },
	{ "the second function loads like the first",
	  { "six(a)", "ip_send_skb(skb->len)" },
	  .pids = true,
	  .func = 1,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { LI, NO },
	  .kprobe = { LI, NO },
	  .load = SEL_LOAD_LIKE_FIRST },
	{ "without bpf_get_func_arg: fentry not written out; the first COMPAT instance",
	  { "ip_send_skb(skb->len)" },
	  .feat = NO_FUNC_ARG,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { LI, NO },
	  .kprobe = { ST, NO },
	  .load = SEL_LOAD_SKELETON },
	{ "without bpf_get_func_arg, the second function is a clone",
	  { "six(a)", "ip_send_skb(skb->len)" },
	  .feat = NO_FUNC_ARG,
	  .pids = true,
	  .func = 1,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { LI, NO },
	  .kprobe = { LI, NO },
	  .load = SEL_LOAD_CLONE },
	{ "-b kprobe, two named functions: kprobe.multi",
	  { "six(a)", "ip_send_skb(skb->len)" },
	  .backend = BACKEND_KPROBE,
	  .multi = true,
	  .nr_tries = 1,
	  .first_try = BK_KPROBE,
	  .fentry = { ST, NO },
	  .kprobe = { ST, NO },
	  .load = SEL_LOAD_NONE },
	{ "count: aggregation, never written out",
	  { "ip_send_skb(skb->len)" },
	  .agg_mode = KSNOOP_AGG_COUNT,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { AG, NO },
	  .kprobe = { AG, NO },
	  .load = SEL_LOAD_OWNER },
	{ "--btf: kprobes only",
	  { "ip_send_skb(skb->len)" },
	  .offline_btf = true,
	  .nr_tries = 1,
	  .first_try = BK_KPROBE,
	  .fentry = { LI, NO },
	  .kprobe = { ST, NO },
	  .load = SEL_LOAD_NONE },
	{ "a compiler clone: kprobes only",
	  { "ip_send_skb.isra.0(skb->len)" },
	  .nr_tries = 1,
	  .first_try = BK_KPROBE,
	  .fentry = { LI, NO },
	  .kprobe = { ST, NO },
	  .load = SEL_LOAD_NONE },
	{ "no kprobe PMU: kprobes not written out",
	  { "ip_send_skb(skb->len)" },
	  .no_pmu = true,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { ST, NO },
	  .kprobe = { LI, NO },
	  .load = SEL_LOAD_NONE },
	{ "both sides, general programs",
	  { "ip_send_skb(skb, return)" },
	  .pids = true,
	  .nr_tries = 2,
	  .first_try = BK_FENTRY,
	  .fentry = { GE, GE },
	  .kprobe = { GE, GE },
	  .load = SEL_LOAD_OWNER },
};

static void check_sel_case(struct ctx *c, const struct sel_case *k)
{
	struct tracer_opts opts = { .backend = k->backend,
				    .cpu = -1,
				    .offline_btf = k->offline_btf };
	struct select_env e = { .opts = &opts,
				.feat = k->feat ? k->feat : KFEAT_ALL,
				.kprobe_pmu = !k->no_pmu };
	struct func_plan plans[3] = {};
	struct select_func sel[3];
	struct lite_layout lite;
	struct plan_opts po = { 0 };
	const struct select_func *s;
	struct spec_error serr;
	struct spec spec;
	pid_t pid = 1;
	int n, i;

	opts.agg.mode = k->agg_mode;
	if (k->pids) {
		opts.pids = &pid;
		opts.nr_pids = 1;
	}
	po.sample = k->agg_mode ? PLAN_SAMPLE : 0;
	for (n = 0; n < 3 && k->specs[n]; n++) {
		assert_int_equal(spec_parse(k->specs[n], &spec, &serr), 0);
		assert_int_equal(plan_build(c->kb, &spec, &po, &plans[n]), 0);
		spec_free(&spec);
	}
	lite_layout_plans(&opts, plans, n, &lite);
	select_funcs(&e, plans, n, sel);
	s = &sel[k->func];
	if (s->multi != k->multi || s->nr_tries != k->nr_tries || s->tries[0] != k->first_try ||
	    s->run[BK_FENTRY][0] != k->fentry[0] || s->run[BK_FENTRY][1] != k->fentry[1] ||
	    s->run[BK_KPROBE][0] != k->kprobe[0] || s->run[BK_KPROBE][1] != k->kprobe[1] ||
	    s->fentry_load != k->load)
		print_error(
			"%s: multi %d, tries %d (first %d), fentry %d/%d, kprobe %d/%d, load %d\n",
			k->name, s->multi, s->nr_tries, s->tries[0], s->run[BK_FENTRY][0],
			s->run[BK_FENTRY][1], s->run[BK_KPROBE][0], s->run[BK_KPROBE][1],
			s->fentry_load);
	assert_int_equal(s->multi, k->multi);
	assert_int_equal(s->nr_tries, k->nr_tries);
	assert_int_equal(s->tries[0], k->first_try);
	assert_int_equal(s->run[BK_FENTRY][0], k->fentry[0]);
	assert_int_equal(s->run[BK_FENTRY][1], k->fentry[1]);
	assert_int_equal(s->run[BK_KPROBE][0], k->kprobe[0]);
	assert_int_equal(s->run[BK_KPROBE][1], k->kprobe[1]);
	assert_int_equal(s->fentry_load, k->load);
	for (i = 0; i < n; i++)
		plan_free(&plans[i]);
}

static void test_select(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sel_cases); i++)
		check_sel_case(*state, &sel_cases[i]);
}

/* -d's line for a function. */
static void test_select_describe(void **state UNUSED)
{
	struct select_func s = { .nr_tries = 2,
				 .tries = { BK_FENTRY, BK_KPROBE },
				 .run = { { SEL_RUN_LITE, SEL_RUN_NONE },
					  { SEL_RUN_STRAIGHT, SEL_RUN_NONE } },
				 .fentry_load = SEL_LOAD_OWNER };
	struct strbuf sb;

	sb_init(&sb);
	select_describe(&s, &sb);
	assert_string_equal(sb_str(&sb),
			    "fentry: entry lite, return nothing, loaded with the owner; "
			    "then kprobe: entry written out, return nothing");
	sb_reset(&sb);
	s.multi = true;
	select_describe(&s, &sb);
	assert_non_null(strstr(sb_str(&sb), "kprobe.multi, else fentry: "));
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),		cmocka_unit_test(test_ringbuf_size),
		cmocka_unit_test(test_wakeup_bytes),	cmocka_unit_test(test_allows),
		cmocka_unit_test(test_wants_prog),	cmocka_unit_test(test_wants_prog_cfg),
		cmocka_unit_test(test_can_fentry),	cmocka_unit_test(test_explain_fentry),
		cmocka_unit_test(test_multi_member),	cmocka_unit_test(test_call_bytes),
		cmocka_unit_test(test_ring_bytes),	cmocka_unit_test(test_select),
		cmocka_unit_test(test_select_describe),
	};

	return cmocka_run_group_tests_name("backend", tests, setup, teardown);
}
