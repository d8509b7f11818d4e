// SPDX-License-Identifier: GPL-2.0
/*
 * lite.c: which plans BPF captures straight into their ring records, and
 * the slot bounds the verifier checks those writes against. A record that
 * could outgrow its reservation would be refused at load, or worse,
 * silently cut; so each bound here is the exact sum the layout must hold.
 */
#include "testutil.h"
#include "trace/backend.h"
#include "trace/lite.h"

#define HDR KSNOOP_LITE_HDR_SIZE
#define VREC ((int)sizeof(struct ksnoop_vrec))

/* A plan whose entry reads these sizes (0: a register value) and whose return is a scalar. */
static void make_plan(struct func_plan *p, const int *sizes, int n)
{
	memset(p, 0, sizeof(*p));
	p->preds_fast = true;
	fixture_cfg(&p->cfg, sizes, n);
}

static bool is_lite(const struct func_plan *p)
{
	return p->cfg.flags & KSNOOP_CFG_LITE;
}

/* The default trace of __do_sys_getppid: a pt_regs at entry, the return. */
static void test_default_trace(void **state UNUSED)
{
	struct tracer_opts env = {};
	struct lite_layout l;
	struct func_plan p;

	make_plan(&p, (int[]){ 168 }, 1);
	lite_layout_plans(&env, &p, 1, &l);
	assert_true(is_lite(&p));
	assert_int_equal(l.rec[KSNOOP_SIDE_ENTRY], HDR + VREC + 168);
	assert_int_equal(l.rec[KSNOOP_SIDE_RETURN], HDR + VREC);
	assert_int_equal(l.off[0][0], 0);
	assert_int_equal(l.len[0][0], 168);
	assert_int_equal(l.len[1][0], 0);
	assert_int_equal(l.slots[0], 1);
	assert_int_equal(l.slots[1], 1);
	assert_true(l.only);
	/*
	 * What the scratch path would send, ring headers included, less the
	 * duration and chain of two headers: 312 bytes, so 100,000 calls fit
	 * in 32 MiB.
	 */
	assert_int_equal(lite_call_bytes(&l, &p.cfg) + 2 * (KSNOOP_EVENT_HDR_SIZE - HDR),
			 backend_call_bytes(&p.cfg, 0, false));
	assert_int_equal(lite_call_bytes(&l, &p.cfg), 312);
}

/* Slot k's bounds are the largest over the plans; the record fits every slot at them. */
static void test_merged_bounds(void **state UNUSED)
{
	struct func_plan p[2];
	struct tracer_opts env = {};
	struct lite_layout l;

	make_plan(&p[0], (int[]){ 168, 8 }, 2);
	make_plan(&p[1], (int[]){ 0, 0, 2000 }, 3);
	lite_layout_plans(&env, p, 2, &l);
	assert_true(is_lite(&p[0]) && is_lite(&p[1]));
	assert_int_equal(l.off[0][1], VREC + 168);
	assert_int_equal(l.len[0][1], 8);
	assert_int_equal(l.off[0][2], 2 * VREC);
	assert_int_equal(l.len[0][2], 2000);
	assert_int_equal(l.rec[0], HDR + 2 * VREC + VREC + 2000);
	assert_int_equal(l.slots[0], 3);
	/* The ring is sized for the reservation, not for the values. */
	assert_int_equal(lite_call_bytes(&l, &p[0].cfg), 8 + l.rec[0] + 8 + l.rec[1]);
	assert_true(lite_call_bytes(&l, &p[0].cfg) > backend_call_bytes(&p[0].cfg, 0, false));
}

/* Each plan fits alone, their merged bounds do not: none goes lite. */
static void test_merged_too_large(void **state UNUSED)
{
	struct func_plan p[2];
	struct tracer_opts env = {};
	struct lite_layout l;

	make_plan(&p[0], (int[]){ 8, 2048 }, 2);
	make_plan(&p[1], (int[]){ 2048, 8 }, 2);
	lite_layout_plans(&env, &p[0], 1, &l);
	assert_true(is_lite(&p[0]));
	lite_layout_plans(&env, p, 2, &l);
	assert_false(is_lite(&p[0]) || is_lite(&p[1]));
	assert_int_equal(l.rec[0], 0);
	assert_int_equal(l.rec[1], 0);
}

/* What the lite path cannot do keeps a plan, or the session, on the scratch path. */
static void test_not_lite(void **state UNUSED)
{
	struct tracer_opts env = {};
	struct lite_layout l;
	struct func_plan p;

	make_plan(&p, (int[]){ 8 }, 1);
	p.cfg.flags |= KSNOOP_CFG_FRAME;
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	assert_int_equal(l.rec[0], 0);

	make_plan(&p, (int[]){ 8 }, 1);
	p.preds_fast = false;
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));

	make_plan(&p, (int[]){ 8 }, 1);
	p.cfg.emit = KSNOOP_EMIT_COMBINED;
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));

	make_plan(&p, (int[]){ 16 }, 1);
	p.cfg.values[0].base = KSNOOP_BASE_COMM;
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));

	make_plan(&p, (int[]){ 0, 0, 0, 0, 0, 0, 0, 0, 0 }, KSNOOP_LITE_VALUES + 1);
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));

	make_plan(&p, (int[]){ 2048, 2048 }, 2);
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));

	make_plan(&p, (int[]){ 8 }, 1);
	env.kstack_depth = 4;
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	env = (struct tracer_opts){ .agg.mode = KSNOOP_AGG_COUNT };
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	env = (struct tracer_opts){ .errors = true };
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	env = (struct tracer_opts){ .stack_mode = true };
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	env = (struct tracer_opts){ .min_duration_ns = 1000 };
	lite_layout_plans(&env, &p, 1, &l);
	assert_false(is_lite(&p));
	assert_int_equal(l.rec[0], 0);
}

/*
 * Only a session of lite plans, none of which pairs a kretprobe with its
 * entry's fast verdict, leaves the rest of the program unverified.
 */
static void test_lite_only(void **state UNUSED)
{
	struct func_plan p[2];
	struct tracer_opts env = {};
	struct lite_layout l;

	make_plan(&p[0], (int[]){ 8 }, 1);
	make_plan(&p[1], (int[]){ 8 }, 1);
	p[1].cfg.nr_fast_preds = 1;
	lite_layout_plans(&env, p, 2, &l);
	assert_true(is_lite(&p[0]) && is_lite(&p[1]));
	assert_false(l.only);
	p[1].cfg.emit = KSNOOP_EMIT_ENTRY;
	lite_layout_plans(&env, p, 2, &l);
	assert_true(l.only);
	p[1].cfg.flags |= KSNOOP_CFG_FRAME;
	lite_layout_plans(&env, p, 2, &l);
	assert_true(is_lite(&p[0]) && !is_lite(&p[1]));
	assert_false(l.only);
}

/* A plan with no entry values still gets room for the slot the verifier checks. */
static void test_empty_side(void **state UNUSED)
{
	struct tracer_opts env = {};
	struct lite_layout l;
	struct func_plan p;

	make_plan(&p, NULL, 0);
	lite_layout_plans(&env, &p, 1, &l);
	assert_true(is_lite(&p));
	assert_int_equal(l.rec[KSNOOP_SIDE_ENTRY], HDR + VREC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_trace),	 cmocka_unit_test(test_merged_bounds),
		cmocka_unit_test(test_merged_too_large), cmocka_unit_test(test_not_lite),
		cmocka_unit_test(test_lite_only),	 cmocka_unit_test(test_empty_side),
	};

	return cmocka_run_group_tests_name("lite", tests, NULL, NULL);
}
