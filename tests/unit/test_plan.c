// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c: the ksnoop_func_cfg a BPF program gets for a spec, from a small
 * BTF blob built here:
 *
 *   struct inner { int a; int b; };
 *   struct outer {
 *           int id;                            0
 *           struct inner in;                   4
 *           char name[8];                     12
 *           union { int u1; long long u2; };  24
 *           struct { int deep; };             32
 *           unsigned int lo:3, hi:5;          36 (bits 0-2, 3-7)
 *           struct outer *next;               40
 *           int arr[4];                       48
 *           char *label;                      64
 *   };                                        72 bytes
 *   typedef struct outer outer_t;
 *   struct big { char data[4096]; };
 *   enum color { RED, GREEN };
 *
 *   int do_thing(int flags, struct outer *o, char *label, unsigned int mask,
 *                long long off, int *count);
 *   int many(int a, ..., int h);          8 parameters
 *   int thirteen(int a, ..., int m);      13 parameters
 *   void vfn(int a);
 *   enum color paint(enum color c);
 *   int bigfn(struct big *b);
 *   int comm_param(char *comm);
 *   int byval(struct inner in);
 *   int wide(struct outer s);
 *   int u16fn(unsigned short s);
 *   int dup(int a);  int dup(char *s);    two static functions
 */
#include <errno.h>

#include "testutil.h"
#include "lib/kbtf.h"
#include "agg/agg.h"
#include "lib/archinfo.h"
#include "trace/plan.h"
#include "trace/spec.h"
#include "trace/target.h"

#define E KSNOOP_V_ENTRY
#define R KSNOOP_V_READ
#define S KSNOOP_V_STRING
#define H KSNOOP_V_HIDDEN
#define AND KSNOOP_OP_AND
#define OR KSNOOP_OP_OR

struct ctx {
	struct kbtf *kb;
	struct func_plan plan;
	struct plan_opts opts;
};

static int add_fields(struct btf *btf, int nr, ...)
{
	va_list ap;
	int i, err = 0;

	va_start(ap, nr);
	for (i = 0; i < nr; i++) {
		const char *name = va_arg(ap, const char *);
		int type = va_arg(ap, int), bit_off = va_arg(ap, int), bits = va_arg(ap, int);

		err |= btf__add_field(btf, name, type, bit_off, bits);
	}
	va_end(ap);
	return err;
}

struct ids {
	int int_t, uint_t, char_t, ll_t, ushort_t, inner, outer, outer_ptr, char_ptr, int_ptr;
	int big_ptr, color;
};

/* The types above; struct outer through a pointer made ahead of it. */
static int add_types(struct btf *btf, struct ids *t)
{
	int anon_u, anon_s, name_arr, int_arr, data_arr, big, comm_arr, task_ptr, err = 0;

	t->int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t->uint_t = btf__add_int(btf, "unsigned int", 4, 0);
	t->char_t = btf__add_int(btf, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	t->ll_t = btf__add_int(btf, "long long int", 8, BTF_INT_SIGNED);
	t->ushort_t = btf__add_int(btf, "short unsigned int", 2, 0);
	t->inner = btf__add_struct(btf, "inner", 8);
	err |= add_fields(btf, 2, "a", t->int_t, 0, 0, "b", t->int_t, 32, 0);
	anon_u = btf__add_union(btf, NULL, 8);
	err |= add_fields(btf, 2, "u1", t->int_t, 0, 0, "u2", t->ll_t, 0, 0);
	anon_s = btf__add_struct(btf, NULL, 4);
	err |= add_fields(btf, 1, "deep", t->int_t, 0, 0);
	name_arr = btf__add_array(btf, t->int_t, t->char_t, 8);
	int_arr = btf__add_array(btf, t->int_t, t->int_t, 4);
	t->char_ptr = btf__add_ptr(btf, t->char_t);
	t->outer_ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	t->outer = btf__add_struct(btf, "outer", 72);
	err |= add_fields(btf, 10, "id", t->int_t, 0, 0, "in", t->inner, 32, 0, "name", name_arr,
			  96, 0, NULL, anon_u, 192, 0, NULL, anon_s, 256, 0, "lo", t->uint_t, 288,
			  3, "hi", t->uint_t, 291, 5, "next", t->outer_ptr, 320, 0, "arr", int_arr,
			  384, 0, "label", t->char_ptr, 512, 0);
	err |= btf__add_typedef(btf, "outer_t", t->outer) < 0;
	data_arr = btf__add_array(btf, t->int_t, t->char_t, 4096);
	big = btf__add_struct(btf, "big", 4096);
	err |= add_fields(btf, 1, "data", data_arr, 0, 0);
	t->big_ptr = btf__add_ptr(btf, big);
	t->color = btf__add_enum(btf, "color", 4);
	err |= btf__add_enum_value(btf, "RED", 0) | btf__add_enum_value(btf, "GREEN", 1);
	t->int_ptr = btf__add_ptr(btf, t->int_t);
	/* struct task_struct { int pid; char comm[16]; struct task_struct *real_parent; } */
	comm_arr = btf__add_array(btf, t->int_t, t->char_t, 16);
	task_ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	err |= btf__add_struct(btf, "task_struct", 32) != task_ptr + 1;
	err |= add_fields(btf, 3, "pid", t->int_t, 0, 0, "comm", comm_arr, 32, 0, "real_parent",
			  task_ptr, 192, 0);
	return err || t->outer != t->outer_ptr + 1 || t->int_ptr < 0 ? -EINVAL : 0;
}

/* int thirteen(int a, ..., int m) */
static int add_thirteen(struct btf *btf, int int_t)
{
	int proto = btf__add_func_proto(btf, int_t), i, err = proto < 0;

	for (i = 0; i < 13; i++) {
		char name[2] = { (char)('a' + i), '\0' };

		err |= btf__add_func_param(btf, name, int_t);
	}
	return err || btf__add_func(btf, "thirteen", BTF_FUNC_GLOBAL, proto) < 0 ? -EINVAL : 0;
}

/* btf_trace_NAME: the pointer to a prototype (void *, types...) every tracepoint has. */
static int add_tp_typedef(struct btf *btf, const char *name, int void_ptr, int nr, const int *types)
{
	int proto = btf__add_func_proto(btf, 0), i, err = proto < 0;

	err |= btf__add_func_param(btf, NULL, void_ptr);
	for (i = 0; i < nr; i++)
		err |= btf__add_func_param(btf, NULL, types[i]);
	return err || btf__add_typedef(btf, name, btf__add_ptr(btf, proto)) < 0 ? -EINVAL : 0;
}

/*
 * Tracepoints as kernels describe them: tick, a TRACE_EVENT with a stub of
 * its own; ev_wake, an event of the class ev_template (no stub of its own
 * before 6.4), beside a stub of other types; tock, with a 6.4 probe stub;
 * lone, with its typedef alone.
 */
static int add_tracepoints(struct btf *btf, const struct ids *t)
{
	int void_ptr = btf__add_ptr(btf, 0);
	int task_ptr =
		btf__add_ptr(btf, btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT));
	int tick[] = { t->outer_ptr, t->int_t }, ev[] = { task_ptr };
	int err;

	err = add_func(btf, "__bpf_trace_tick", 0, 3, "__data", void_ptr, "o", t->outer_ptr, "n",
		       t->int_t) < 0;
	err |= add_tp_typedef(btf, "btf_trace_tick", void_ptr, 2, tick);
	err |= add_func(btf, "__bpf_trace_other", 0, 2, "__data", void_ptr, "x", t->int_t) < 0;
	err |= add_func(btf, "__bpf_trace_ev_template", 0, 2, "__data", void_ptr, "p", task_ptr) <
	       0;
	err |= add_tp_typedef(btf, "btf_trace_ev_wake", void_ptr, 1, ev);
	err |= add_func(btf, "__probestub_tock", 0, 2, "__data", void_ptr, "when", t->ll_t) < 0;
	/* lone: a typedef and no stub, as Debian's 5.10 BTF has them */
	err |= add_tp_typedef(btf, "btf_trace_lone", void_ptr, 2,
			      (int[]){ t->int_t, t->outer_ptr });
	return err ? -EINVAL : 0;
}

static struct btf *fixture(void)
{
	struct btf *btf = btf__new_empty();
	struct ids t;
	int err;

	if (!btf || add_types(btf, &t))
		goto fail;
	err = add_func(btf, "do_thing", t.int_t, 6, "flags", t.int_t, "o", t.outer_ptr, "label",
		       t.char_ptr, "mask", t.uint_t, "off", t.ll_t, "count", t.int_ptr) < 0;
	err |= add_func(btf, "many", t.int_t, 8, "a", t.int_t, "b", t.int_t, "c", t.int_t, "d",
			t.int_t, "e", t.int_t, "f", t.int_t, "g", t.int_t, "h", t.int_t) < 0;
	err |= add_thirteen(btf, t.int_t);
	err |= add_func(btf, "vfn", 0, 1, "a", t.int_t) < 0;
	err |= add_func(btf, "paint", t.color, 1, "c", t.color) < 0;
	err |= add_func(btf, "bigfn", t.int_t, 1, "b", t.big_ptr) < 0;
	err |= add_func(btf, "comm_param", t.int_t, 1, "comm", t.char_ptr) < 0;
	err |= add_func(btf, "byval", t.int_t, 1, "in", t.inner) < 0;
	err |= add_func(btf, "wide", t.int_t, 1, "s", t.outer) < 0;
	err |= add_func(btf, "u16fn", t.int_t, 1, "s", t.ushort_t) < 0;
	err |= add_func(btf, "dup", t.int_t, 1, "a", t.int_t) < 0;
	err |= add_func(btf, "dup", t.int_t, 1, "s", t.char_ptr) < 0;
	/* what user functions' prototypes take of vmlinux's types */
	err |= btf__add_int(btf, "long int", 8, BTF_INT_SIGNED) < 0;
	err |= btf__add_typedef(btf, "size_t", btf__add_int(btf, "long unsigned int", 8, 0)) < 0;
	err |= add_tracepoints(btf, &t);
	if (!err)
		return btf;
fail:
	btf__free(btf);
	return NULL;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c || !(c->kb = fixture_kbtf(fixture()))) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	kbtf__free(c->kb);
	free(c);
	return 0;
}

/* Default options before each test; the plan it built is freed after. */
static int reset(void **state)
{
	struct ctx *c = *state;

	memset(&c->opts, 0, sizeof(c->opts));
	return 0;
}

static int free_plan(void **state)
{
	struct ctx *c = *state;

	plan_free(&c->plan);
	return 0;
}

static int build(struct ctx *c, const char *text)
{
	struct spec_error serr;
	struct spec spec;
	int err;

	plan_free(&c->plan);
	if (spec_parse(text, &spec, &serr)) {
		print_error("%s: spec error at %d: %s\n", text, serr.pos, serr.msg);
		fail();
	}
	spec.target = target_classify(spec.func);
	err = plan_build(c->kb, &spec, &c->opts, &c->plan);
	spec_free(&spec);
	return err;
}

/* text's plan, which must build without a word on stderr. */
static const struct ksnoop_func_cfg *plan_ok(struct ctx *c, const char *text)
{
	struct stderr_capture cap;
	char out[512];
	int err;

	stderr_capture_begin(&cap);
	err = build(c, text);
	stderr_capture_end(&cap, out, sizeof(out));
	if (err || out[0])
		print_error("%s: %d, stderr: %s\n", text, err, out);
	assert_int_equal(err, 0);
	assert_string_equal(out, "");
	return &c->plan.cfg;
}

/* text must fail with one error line that holds want. */
static void plan_err(struct ctx *c, const char *text, const char *want)
{
	struct stderr_capture cap;
	char out[512];
	int err;

	stderr_capture_begin(&cap);
	err = build(c, text);
	stderr_capture_end(&cap, out, sizeof(out));
	if (err >= 0)
		print_error("%s: built, want an error\n", text);
	assert_true(err < 0);
	expect_one_error_line(out, want);
}

/* What one captured value looks like to BPF, and how it is shown. */
struct want {
	const char *name;
	__u8 base, arg, flags, nr_steps;
	__u16 size;
	__s32 final_off;
	__s32 offs[KSNOOP_MAX_STEPS];
	enum show_kind show;
};

static void check_value(const struct func_plan *p, __u32 i, const struct want *w)
{
	const struct ksnoop_value *v = &p->cfg.values[i];
	int k;

	assert_true(i < p->cfg.nr_values);
	assert_string_equal(p->values[i].name, w->name);
	assert_int_equal(v->base, w->base);
	assert_int_equal(v->arg, w->arg);
	assert_int_equal(v->flags, w->flags);
	assert_int_equal(v->nr_steps, w->nr_steps);
	for (k = 0; k < v->nr_steps; k++)
		assert_int_equal(v->offs[k], w->offs[k]);
	assert_int_equal(v->size, w->size);
	assert_int_equal(v->final_off, w->final_off);
	assert_int_equal(p->values[i].show, w->show);
	assert_int_equal(p->values[i].hidden, !!(w->flags & H));
}

#define VAL(c, i, ...) check_value(&(c)->plan, i, &(struct want){ __VA_ARGS__ })

/* The value indexes captured on one side, in order, ending with -1. */
static void expect_side(const struct ksnoop_func_cfg *cfg, int side, const int *want)
{
	int n;

	for (n = 0; want[n] >= 0; n++) {
		assert_true(n < cfg->nr_side[side]);
		assert_int_equal(cfg->side[side][n], want[n]);
	}
	assert_int_equal(cfg->nr_side[side], n);
}

/* The bytes of a __u8 array and its count, against a -1 terminated list. */
static void expect_bytes(const __u8 *got, __u32 nr, const int *want)
{
	__u32 n;

	for (n = 0; want[n] >= 0; n++) {
		assert_true(n < nr);
		assert_int_equal(got[n], want[n]);
	}
	assert_int_equal(nr, n);
}

#define SIDE(cfg, side, ...) expect_side(cfg, side, (const int[]){ __VA_ARGS__, -1 })
#define OPS(cfg, ...) \
	expect_bytes((cfg)->pred_ops, (cfg)->nr_pred_ops, (const int[]){ __VA_ARGS__, -1 })
#define FAST(cfg, ...) \
	expect_bytes((cfg)->fast_preds, (cfg)->nr_fast_preds, (const int[]){ __VA_ARGS__, -1 })
#define ENTRY KSNOOP_SIDE_ENTRY
#define RETURN KSNOOP_SIDE_RETURN

static void expect_int_pred(const struct ksnoop_func_cfg *cfg, int k, int value_idx, int op,
			    int width, bool is_signed, __u64 rhs)
{
	const struct ksnoop_pred *p = &cfg->preds[k];

	assert_true(k < (int)cfg->nr_preds);
	assert_int_equal(p->kind, KSNOOP_PRED_INT);
	assert_int_equal(p->value_idx, value_idx);
	assert_int_equal(p->op, op);
	assert_int_equal(p->width, width);
	assert_int_equal(p->is_signed, is_signed);
	assert_int_equal(p->rhs, rhs);
}

static void expect_str_pred(const struct ksnoop_func_cfg *cfg, int k, int value_idx, int op,
			    const char *str)
{
	const struct ksnoop_pred *p = &cfg->preds[k];

	assert_true(k < (int)cfg->nr_preds);
	assert_int_equal(p->kind, KSNOOP_PRED_STR);
	assert_int_equal(p->value_idx, value_idx);
	assert_int_equal(p->op, op);
	assert_string_equal(p->str, str);
}

/* A bare name: every parameter at entry, the return value at return. */
static void test_bare(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg = plan_ok(c, "do_thing");

	assert_true(c->plan.bare);
	assert_int_equal(c->plan.nr_args, 6);
	assert_int_equal(cfg->nr_args, 6);
	assert_int_equal(cfg->nr_values, 7);
	VAL(c, 0, .name = "flags", .flags = E, .show = SHOW_SCALAR);
	VAL(c, 1, .name = "o", .arg = 1, .flags = E | R, .size = 72, .show = SHOW_PTR_DUMP);
	VAL(c, 2, .name = "label", .arg = 2, .flags = E | R | S, .size = 256, .show = SHOW_STRING);
	VAL(c, 3, .name = "mask", .arg = 3, .flags = E, .show = SHOW_SCALAR);
	VAL(c, 4, .name = "off", .arg = 4, .flags = E, .show = SHOW_SCALAR);
	/* a pointer to a scalar is shown as the pointer, not read */
	VAL(c, 5, .name = "count", .arg = 5, .flags = E, .show = SHOW_SCALAR);
	VAL(c, 6, .name = "return", .base = KSNOOP_BASE_RET, .show = SHOW_SCALAR);
	assert_true(c->plan.values[6].is_return);
	assert_true(c->plan.values[1].via_pointer);
	assert_int_equal(c->plan.values[1].full_size, 72);
	SIDE(cfg, ENTRY, 0, 1, 2, 3, 4, 5);
	SIDE(cfg, RETURN, 6);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->flags, 0);
	assert_int_equal(cfg->nr_preds, 0);
	assert_int_equal(cfg->nr_pred_ops, 0);
	assert_int_equal(cfg->nr_fast_preds, 0);
	assert_string_equal(c->plan.note, "");
}

static void test_bare_void(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg = plan_ok(c, "vfn");

	/* no return value, but the return still gets its event */
	assert_int_equal(cfg->nr_values, 1);
	SIDE(cfg, ENTRY, 0);
	assert_int_equal(cfg->nr_side[RETURN], 0);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN);
}

/* Only the arguments past KSNOOP_MAX_ARGS are left out, with a warning. */
static void test_bare_too_many_args(void **state)
{
	struct ctx *c = *state;
	struct stderr_capture cap;
	char out[256];

	stderr_capture_begin(&cap);
	assert_int_equal(build(c, "thirteen"), 0);
	stderr_capture_end(&cap, out, sizeof(out));
	assert_string_equal(out, "Warning: thirteen(): only the first 12 of 13 parameters are "
				 "traced\n");
	assert_int_equal(c->plan.cfg.nr_args, 13);
	assert_int_equal(c->plan.cfg.nr_side[ENTRY], KSNOOP_MAX_ARGS);
	assert_string_equal(c->plan.values[11].name, "l");
	assert_int_equal(c->plan.cfg.values[11].arg, 11);
	assert_string_equal(c->plan.values[12].name, "return");
}

static void test_emit(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(flags, o->id)");
	assert_false(c->plan.bare);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
	assert_int_equal(cfg->flags, 0);
	SIDE(cfg, ENTRY, 0, 1);
	assert_int_equal(cfg->nr_side[RETURN], 0);

	cfg = plan_ok(c, "do_thing(return)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->flags, 0);
	assert_int_equal(cfg->nr_side[ENTRY], 0);
	SIDE(cfg, RETURN, 0);

	/* both sides in one event: entry values wait in a frame */
	cfg = plan_ok(c, "do_thing(return, flags)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_COMBINED);
	assert_int_equal(cfg->flags, KSNOOP_CFG_FRAME);
	SIDE(cfg, ENTRY, 1);
	SIDE(cfg, RETURN, 0);
}

static void test_emit_options(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	c->opts.combined = true;
	cfg = plan_ok(c, "do_thing(flags)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_COMBINED);
	assert_int_equal(cfg->flags, KSNOOP_CFG_FRAME);
	cfg = plan_ok(c, "do_thing");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_COMBINED);

	c->opts.combined = false;
	c->opts.frames = true;
	cfg = plan_ok(c, "do_thing(flags)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
	assert_int_equal(cfg->flags, KSNOOP_CFG_FRAME);
}

/* comm is the task's, the same on both sides: it goes with the others. */
static void test_comm_value(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(comm)");
	VAL(c, 0, .name = "comm", .base = KSNOOP_BASE_COMM, .flags = E, .show = SHOW_STRING);
	assert_int_equal(c->plan.values[0].full_size, 16);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);

	cfg = plan_ok(c, "do_thing(comm, return)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->values[0].flags, 0);
	SIDE(cfg, RETURN, 0, 1);
	assert_int_equal(cfg->flags, 0);

	cfg = plan_ok(c, "do_thing(comm, return, flags)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_COMBINED);
	SIDE(cfg, ENTRY, 0, 2);

	/* a parameter of that name wins */
	plan_ok(c, "comm_param(comm)");
	assert_int_equal(c->plan.cfg.values[0].base, KSNOOP_BASE_ARG);
	assert_int_equal(c->plan.cfg.values[0].flags, E | R | S);
}

/* current: the running task, on either side, through its pointer. */
static void test_current(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(current->pid, current->real_parent->comm)");
	VAL(c, 0, .name = "current->pid", .base = KSNOOP_BASE_CURRENT, .flags = E | R, .size = 4,
	    .show = SHOW_MEMORY);
	VAL(c, 1, .name = "current->real_parent->comm", .base = KSNOOP_BASE_CURRENT,
	    .flags = E | R | S, .nr_steps = 1, .offs = { 24 }, .size = 16, .final_off = 4,
	    .show = SHOW_STRING);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
	/* with the return, it goes to the return side, as comm does: one event */
	cfg = plan_ok(c, "do_thing(current->pid, return)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->values[0].flags, R);
	/* a predicate on it is no register comparison */
	cfg = plan_ok(c, "do_thing(current->pid == 1)");
	assert_int_equal(cfg->nr_fast_preds, 0);
	plan_err(c, "do_thing(current->nosuch)", "no member 'nosuch' in struct task_struct");
}

/* --comm: a hidden string comparison ANDed with the rest. */
static void test_comm_option(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	c->opts.comm = "ksn*";
	cfg = plan_ok(c, "do_thing(flags)");
	assert_int_equal(cfg->nr_values, 2);
	VAL(c, 1, .name = "comm", .base = KSNOOP_BASE_COMM, .flags = E | H, .show = SHOW_STRING);
	expect_str_pred(cfg, 0, 1, KSNOOP_CMP_EQ, "ksn*");
	OPS(cfg, 0);
	assert_int_equal(cfg->nr_fast_preds, 0);
	assert_int_equal(cfg->flags, 0);

	cfg = plan_ok(c, "do_thing(flags == 1)");
	OPS(cfg, 0, 1, AND);
	expect_str_pred(cfg, 1, 1, KSNOOP_CMP_EQ, "ksn*");
	FAST(cfg, 0);

	/* a return event must know whether comm let its entry through */
	cfg = plan_ok(c, "do_thing");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->flags, KSNOOP_CFG_FRAME);
	assert_int_equal(cfg->nr_values, 8);
	assert_true(c->plan.values[7].hidden);
	SIDE(cfg, ENTRY, 0, 1, 2, 3, 4, 5, 7);
	/* and comm is read again there: the entry's is in another CPU's scratch */
	SIDE(cfg, RETURN, 6, 7);
}

static void test_pred_lone(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg = plan_ok(c, "do_thing(flags == 1)");

	/* a lone comparison shows its operand */
	VAL(c, 0, .name = "flags", .flags = E, .show = SHOW_SCALAR);
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 4, true, 1);
	OPS(cfg, 0);
	FAST(cfg, 0);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
	assert_int_equal(cfg->flags, 0);
}

/* count: a lone comparison filters; its operand is a key only where listed */
static void test_pred_lone_count(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	c->opts.cmp_hidden = true;
	cfg = plan_ok(c, "do_thing(flags == 1)");
	assert_true(c->plan.values[0].hidden);
	assert_int_equal(cfg->values[0].flags, E | H);
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 4, true, 1);
	cfg = plan_ok(c, "do_thing(flags, flags == 1)");
	assert_false(c->plan.values[0].hidden);
	c->opts.cmp_hidden = false;
}

static void test_pred_and_or(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	/* operands of && and || are hidden */
	cfg = plan_ok(c, "do_thing(flags == 1 && mask > 3)");
	assert_true(c->plan.values[0].hidden);
	assert_int_equal(cfg->values[1].flags, E | H);
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 4, true, 1);
	expect_int_pred(cfg, 1, 1, KSNOOP_CMP_GT, 4, false, 3);
	OPS(cfg, 0, 1, AND);
	FAST(cfg, 0, 1);

	cfg = plan_ok(c, "do_thing(flags == 1 || mask > 3)");
	OPS(cfg, 0, 1, OR);
	assert_int_equal(cfg->nr_fast_preds, 0);

	/* items are ANDed, and each shows its operand */
	cfg = plan_ok(c, "do_thing(flags != 1, mask <= 3, off >= 2)");
	assert_false(c->plan.values[1].hidden);
	OPS(cfg, 0, 1, AND, 2, AND);
	FAST(cfg, 0, 1, 2);
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_NE, 4, true, 1);
	expect_int_pred(cfg, 1, 1, KSNOOP_CMP_LE, 4, false, 3);
	expect_int_pred(cfg, 2, 2, KSNOOP_CMP_GE, 8, true, 2);

	/* && binds tighter: a || (b && c) */
	cfg = plan_ok(c, "many(a == 1 || b == 2 && c < 3)");
	OPS(cfg, 0, 1, 2, AND, OR);
	assert_int_equal(cfg->nr_fast_preds, 0);
}

/* Only top-level conjuncts are fast; a disjunction under && is not. */
static void test_fast_conjuncts(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "many(a == 1 && (b == 2 || c == 3) && d == 4)");
	OPS(cfg, 0, 1, 2, OR, AND, 3, AND);
	FAST(cfg, 0, 3);
	assert_int_equal(cfg->flags, 0);

	cfg = plan_ok(c, "many((a == 1 && b == 2) || c == 3, d == 4)");
	OPS(cfg, 0, 1, AND, 2, OR, 3, AND);
	FAST(cfg, 3);
}

static void test_fast_limit(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "many(a == 1 && b == 2 && c == 3 && d == 4 && e == 5 && f == 6)");
	assert_int_equal(cfg->nr_preds, 6);
	FAST(cfg, 0, 1, 2, 3);
	/* the two left over are checked later; entry-only needs no frame */
	assert_int_equal(cfg->flags, 0);
}

/* Not from a register alone: members, strings, the return, stack arguments. */
static void test_fast_not(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(o->id == 1)");
	assert_int_equal(cfg->nr_preds, 1);
	assert_int_equal(cfg->nr_fast_preds, 0);
	cfg = plan_ok(c, "do_thing(label == \"eth*\")");
	assert_int_equal(cfg->nr_fast_preds, 0);
	cfg = plan_ok(c, "many(g == 1)");
	assert_int_equal(cfg->nr_fast_preds, 0);
	cfg = plan_ok(c, "many(f == 1)");
	FAST(cfg, 0);

	/* a slow comparison of the return value: the return needs the frame */
	cfg = plan_ok(c, "do_thing(return == 0)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_RETURN);
	assert_int_equal(cfg->nr_fast_preds, 0);
	assert_int_equal(cfg->flags, KSNOOP_CFG_FRAME);
	SIDE(cfg, RETURN, 0);
}

static void test_pred_widths(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(off == -5)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 8, true, (__u64)-5LL);
	cfg = plan_ok(c, "do_thing(mask < 0xff)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_LT, 4, false, 255);
	cfg = plan_ok(c, "u16fn(s >= 2)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_GE, 2, false, 2);
	/* enums compare signed */
	cfg = plan_ok(c, "paint(c == 1)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 4, true, 1);
	cfg = plan_ok(c, "paint(return != -1)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_NE, 4, true, (__u64)-1LL);
	/* pointers to scalars are plain numbers */
	cfg = plan_ok(c, "do_thing(count == 0)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 8, false, 0);
	FAST(cfg, 0);
	/* a bitfield is loaded whole, then shifted and masked to its bits */
	cfg = plan_ok(c, "do_thing(o->hi == 3)");
	expect_int_pred(cfg, 0, 0, KSNOOP_CMP_EQ, 8, false, 3);
	assert_int_equal(cfg->preds[0].bit_off, 3);
	assert_int_equal(cfg->preds[0].bit_size, 5);
	cfg = plan_ok(c, "do_thing(o->lo == 1)");
	assert_int_equal(cfg->preds[0].bit_off, 0);
	assert_int_equal(cfg->preds[0].bit_size, 3);
	/* a whole value has no bit range */
	cfg = plan_ok(c, "do_thing(off == -5)");
	assert_int_equal(cfg->preds[0].bit_size, 0);
}

static void test_pred_strings(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "do_thing(label == \"eth*\")");
	expect_str_pred(cfg, 0, 0, KSNOOP_CMP_EQ, "eth*");
	assert_int_equal(cfg->values[0].flags, E | R | S);
	cfg = plan_ok(c, "do_thing(o->name != \"lo\")");
	expect_str_pred(cfg, 0, 0, KSNOOP_CMP_NE, "lo");
	cfg = plan_ok(c, "do_thing(comm == \"a\" && o->label == \"b?\")");
	expect_str_pred(cfg, 0, 0, KSNOOP_CMP_EQ, "a");
	expect_str_pred(cfg, 1, 1, KSNOOP_CMP_EQ, "b?");
	OPS(cfg, 0, 1, AND);
	/* 63 characters fit */
	cfg = plan_ok(c, "do_thing(label == \""
			 "0123456789012345678901234567890123456789"
			 "01234567890123456789012\")");
	assert_int_equal(strlen(cfg->preds[0].str), KSNOOP_PRED_STR_MAX - 1);
}

static void test_member_offsets(void **state)
{
	struct ctx *c = *state;

	/* one pointer (the argument itself), read at the member */
	plan_ok(c, "do_thing(o->id, o->in.b, o->name, o->in, o->arr[2])");
	VAL(c, 0, .name = "o->id", .arg = 1, .flags = E | R, .size = 4, .show = SHOW_MEMORY);
	VAL(c, 1, .name = "o->in.b", .arg = 1, .flags = E | R, .size = 4, .final_off = 8,
	    .show = SHOW_MEMORY);
	VAL(c, 2, .name = "o->name", .arg = 1, .flags = E | R | S, .size = 8, .final_off = 12,
	    .show = SHOW_STRING);
	VAL(c, 3, .name = "o->in", .arg = 1, .flags = E | R, .size = 8, .final_off = 4,
	    .show = SHOW_MEMORY);
	VAL(c, 4, .name = "o->arr[2]", .arg = 1, .flags = E | R, .size = 4, .final_off = 56,
	    .show = SHOW_MEMORY);
}

static void test_anonymous_members(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing(o->u1, o->u2, o->deep)");
	VAL(c, 0, .name = "o->u1", .arg = 1, .flags = E | R, .size = 4, .final_off = 24,
	    .show = SHOW_MEMORY);
	VAL(c, 1, .name = "o->u2", .arg = 1, .flags = E | R, .size = 8, .final_off = 24,
	    .show = SHOW_MEMORY);
	VAL(c, 2, .name = "o->deep", .arg = 1, .flags = E | R, .size = 4, .final_off = 32,
	    .show = SHOW_MEMORY);
}

static void test_bitfields(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing(o->lo, o->hi)");
	VAL(c, 0, .name = "o->lo", .arg = 1, .flags = E | R, .size = 1, .final_off = 36,
	    .show = SHOW_MEMORY);
	assert_int_equal(c->plan.values[0].bit_off, 0);
	assert_int_equal(c->plan.values[0].bit_size, 3);
	VAL(c, 1, .name = "o->hi", .arg = 1, .flags = E | R, .size = 1, .final_off = 36,
	    .show = SHOW_MEMORY);
	assert_int_equal(c->plan.values[1].bit_off, 3);
	assert_int_equal(c->plan.values[1].bit_size, 5);
}

/* Each pointer followed past the argument is one step. */
static void test_pointer_steps(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing(o->next->id, o->next->next->in.a, o->next, o->label, o->label[1])");
	VAL(c, 0, .name = "o->next->id", .arg = 1, .flags = E | R, .nr_steps = 1, .offs = { 40 },
	    .size = 4, .show = SHOW_MEMORY);
	VAL(c, 1, .name = "o->next->next->in.a", .arg = 1, .flags = E | R, .nr_steps = 2,
	    .offs = { 40, 40 }, .size = 4, .final_off = 4, .show = SHOW_MEMORY);
	VAL(c, 2, .name = "o->next", .arg = 1, .flags = E | R, .nr_steps = 1, .offs = { 40 },
	    .size = 72, .show = SHOW_PTR_DUMP);
	VAL(c, 3, .name = "o->label", .arg = 1, .flags = E | R | S, .nr_steps = 1, .offs = { 64 },
	    .size = 256, .show = SHOW_STRING);
	VAL(c, 4, .name = "o->label[1]", .arg = 1, .flags = E | R, .nr_steps = 1, .offs = { 64 },
	    .size = 1, .final_off = 1, .show = SHOW_MEMORY);
}

static void test_pointer_index(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing(count[3], o->next[1])");
	VAL(c, 0, .name = "count[3]", .arg = 5, .flags = E | R, .size = 4, .final_off = 12,
	    .show = SHOW_MEMORY);
	/* the second struct outer after o->next */
	VAL(c, 1, .name = "o->next[1]", .arg = 1, .flags = E | R, .nr_steps = 1, .offs = { 40 },
	    .size = 72, .final_off = 72, .show = SHOW_MEMORY);
}

static void test_casts(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing((struct inner *)o->b, (outer_t *)count->next->id, "
		   "(struct outer *)label)");
	VAL(c, 0, .name = "(struct inner *)o->b", .arg = 1, .flags = E | R, .size = 4,
	    .final_off = 4, .show = SHOW_MEMORY);
	VAL(c, 1, .name = "(outer_t *)count->next->id", .arg = 5, .flags = E | R, .nr_steps = 1,
	    .offs = { 40 }, .size = 4, .show = SHOW_MEMORY);
	VAL(c, 2, .name = "(struct outer *)label", .arg = 2, .flags = E | R, .size = 72,
	    .show = SHOW_PTR_DUMP);
}

static void test_max_steps(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing(o->next->next->next->next->next->next->next->next->id)");
	assert_int_equal(c->plan.cfg.values[0].nr_steps, KSNOOP_MAX_STEPS);
	plan_err(c, "do_thing(o->next->next->next->next->next->next->next->next->next->id)",
		 "more than 8 pointer dereferences");
}

static void test_sizes(void **state)
{
	struct ctx *c = *state;

	/* more than one value holds: one byte over marks it truncated */
	plan_ok(c, "bigfn(b)");
	assert_int_equal(c->plan.cfg.values[0].size, KSNOOP_VALUE_MAX + 1);
	assert_int_equal(c->plan.values[0].full_size, 4096);
	c->opts.max_bytes = 16;
	plan_ok(c, "do_thing(o, flags, label, o->name)");
	assert_int_equal(c->plan.cfg.values[0].size, 16);
	assert_int_equal(c->plan.cfg.values[1].size, 0);
	assert_int_equal(c->plan.cfg.values[2].size, 16);
	assert_int_equal(c->plan.cfg.values[3].size, 8);
	assert_int_equal(c->plan.values[0].full_size, 72);
}

static void test_notes(void **state)
{
	struct ctx *c = *state;

	plan_ok(c, "do_thing.isra.0(flags)");
	assert_string_equal(c->plan.name, "do_thing.isra.0");
	assert_string_equal(c->plan.attach_name, "do_thing.isra.0");
	assert_string_equal(c->plan.note,
			    "do_thing.isra.0 is a compiler clone of do_thing; its arguments may "
			    "differ");
	plan_ok(c, "dup(a)");
	assert_string_equal(c->plan.note,
			    "dup has 2 BTF entries (static functions); using the first");
}

static void test_errors_paths(void **state)
{
	struct ctx *c = *state;

	plan_err(c, "nosuch", "function 'nosuch' not found");
	plan_err(c, "do_thing(flag)", "no parameter 'flag'; did you mean 'flags'?");
	plan_err(c, "do_thing(o->idd)", "no member 'idd' in struct outer; did you mean 'id'?");
	plan_err(c, "do_thing(o->in.zzz)", "no member 'zzz' in struct inner");
	plan_err(c, "do_thing(flags->x)", "'->' needs a pointer");
	plan_err(c, "do_thing(count->x)", "'->' needs a pointer to a struct or union");
	plan_err(c, "do_thing(o.id)", "'.' needs a struct or union");
	plan_err(c, "byval(in.a)", "struct passed by value");
	plan_err(c, "do_thing(o->arr[4])", "index 4 is outside the array of 4");
	plan_err(c, "do_thing(flags[0])", "'[]' needs an array or a pointer");
	plan_err(c, "do_thing(o->lo.x)", "a bitfield has no members");
	plan_err(c, "vfn(return)", "vfn() returns void");
	plan_err(c, "thirteen(m)", "parameter 13 is past the 12");
	plan_err(c, "wide(s)", "cannot trace a value passed in registers");
	plan_err(c, "do_thing((struct nosuch *)o)", "unknown type 'struct nosuch *'");
	/* comm (no such parameter) is the task's name: nothing to follow */
	plan_err(c, "do_thing(comm->x)", "comm->x: comm");
	plan_err(c, "do_thing((struct inner *)comm)", "comm");
}

static void test_errors_preds(void **state)
{
	struct ctx *c = *state;

	plan_err(c, "do_thing(flags == \"x\")", "only strings");
	plan_err(c, "do_thing(label == 1)", "only integers, enums and pointers");
	plan_err(c, "do_thing(o->in == 1)", "only integers, enums and pointers");
	plan_err(c, "do_thing(label < \"x\")", "strings compare only with == and !=");
	plan_err(c, "do_thing(mask == -1)", "negative number, but its type is unsigned");
	plan_err(c,
		 "do_thing(label == \""
		 "0123456789012345678901234567890123456789"
		 "0123456789012345678901234\")",
		 "longer than 63");
	/* the error of the second operand, under || */
	plan_err(c, "do_thing(flags == 1 || o->idd == 2)", "no member 'idd'");
}

static void test_errors_limits(void **state)
{
	struct ctx *c = *state;
	const char *sixteen = "many(a, b, c, d, e, f, g, h, a, b, c, d, e, f, g, h)";

	plan_ok(c, sixteen);
	assert_int_equal(c->plan.cfg.nr_values, KSNOOP_MAX_VALUES);
	/* --comm's operand is the seventeenth */
	c->opts.comm = "x";
	plan_err(c, sixteen, "more than 16 values");
}

/* text fails with err (the failing step's, not a blanket -EINVAL) and one line. */
static void plan_errno(struct ctx *c, const char *text, int err, const char *want)
{
	struct stderr_capture cap;
	char out[512];
	int ret;

	stderr_capture_begin(&cap);
	ret = build(c, text);
	stderr_capture_end(&cap, out, sizeof(out));
	if (ret != err)
		print_error("%s: returned %d, want %d\n", text, ret, err);
	assert_int_equal(ret, err);
	expect_one_error_line(out, want);
}

static void test_errors_errno(void **state)
{
	struct ctx *c = *state;

	plan_errno(c, "nosuch", -ENOENT, "function 'nosuch' not found");
	plan_errno(c, "do_thing(flag)", -ENOENT, "no parameter 'flag'");
	plan_errno(c, "do_thing(flags, o->idd)", -ENOENT, "no member 'idd'");
	plan_errno(c, "do_thing(o->arr[4])", -ERANGE, "index 4 is outside the array of 4");
	plan_errno(c, "do_thing((struct nosuch *)o)", -ENOENT, "unknown type");
	plan_errno(c, "do_thing(o->next->next->next->next->next->next->next->next->next->id)",
		   -E2BIG, "more than 8 pointer dereferences");
	plan_errno(c, "do_thing(comm[0])", -EINVAL, "comm[0]: comm");
	plan_errno(c, "do_thing(comm.x)", -EINVAL, "comm.x: comm");
	plan_errno(c, "do_thing(flags, comm->x == 1)", -EINVAL, "comm->x: comm");
}

/* text plans, silently, into one integer comparison against rhs. */
static void plan_rhs(struct ctx *c, const char *text, __u64 rhs)
{
	const struct ksnoop_func_cfg *cfg = plan_ok(c, text);

	assert_int_equal(cfg->nr_preds, 1);
	if (cfg->preds[0].rhs != rhs)
		print_error("%s: rhs %#llx, want %#llx\n", text,
			    (unsigned long long)cfg->preds[0].rhs, (unsigned long long)rhs);
	assert_true(cfg->preds[0].rhs == rhs);
}

/* Every literal in the compared type's range, and no other. */
static void test_literal_range(void **state)
{
	struct ctx *c = *state;

	plan_rhs(c, "do_thing(off == -9223372036854775808)", 0x8000000000000000ULL);
	plan_rhs(c, "do_thing(off == 9223372036854775807)", 0x7fffffffffffffffULL);
	plan_rhs(c, "do_thing(count == 18446744073709551615)", ~0ULL);
	plan_rhs(c, "do_thing(mask == -0)", 0);
	plan_rhs(c, "do_thing(mask == 4294967295)", 0xffffffff);
	plan_rhs(c, "do_thing(flags == -2147483648)", 0xffffffff80000000ULL);
	plan_rhs(c, "do_thing(return <= 2147483647)", 0x7fffffff);
	plan_rhs(c, "u16fn(s == 65535)", 0xffff);
	plan_rhs(c, "do_thing(o->lo == 7)", 7);
	plan_rhs(c, "do_thing(o->hi == 31)", 31);
	plan_rhs(c, "paint(c == -2147483648)", 0xffffffff80000000ULL);

	plan_errno(c, "do_thing(off == -18446744073709551615)", -ERANGE,
		   "do_thing(): literal -18446744073709551615 is out of range for long long int "
		   "(off)");
	plan_errno(c, "do_thing(off == -9223372036854775809)", -ERANGE,
		   "literal -9223372036854775809 is out of range for long long int (off)");
	plan_errno(c, "do_thing(off == 9223372036854775808)", -ERANGE, "out of range");
	plan_errno(c, "do_thing(flags == 2147483648)", -ERANGE,
		   "literal 2147483648 is out of range for int (flags)");
	plan_errno(c, "do_thing(return == -2147483649)", -ERANGE, "for int (return)");
	plan_errno(c, "do_thing(mask == 4294967296)", -ERANGE,
		   "literal 4294967296 is out of range for unsigned int (mask)");
	plan_errno(c, "u16fn(s == 65536)", -ERANGE, "for short unsigned int (s)");
	plan_errno(c, "do_thing(o->lo == 8)", -ERANGE,
		   "literal 8 is out of range for unsigned int:3 (o->lo)");
	plan_errno(c, "do_thing(o->hi == 32)", -ERANGE, "for unsigned int:5 (o->hi)");
	plan_errno(c, "paint(c == 2147483648)", -ERANGE, "for enum color (c)");
	plan_errno(c, "do_thing(count == -1)", -EINVAL,
		   "negative number, but its type is unsigned");
}

/* A name from a pattern without BTF is skipped: no message, no suggestion. */
static void test_glob_name_unknown(void **state)
{
	struct ctx *c = *state;
	struct stderr_capture cap;
	char out[256];

	c->opts.from_glob = true;
	stderr_capture_begin(&cap);
	assert_int_equal(build(c, "do_thingg"), -ENOENT);
	stderr_capture_end(&cap, out, sizeof(out));
	assert_string_equal(out, "");
	/* named directly, it gets the suggestion */
	c->opts.from_glob = false;
	plan_err(c, "do_thingg", "did you mean 'do_thing'?");
}

/* In kallsyms, not in BTF: traced by kprobe for current and comm only. */
static void test_without_btf(void **state)
{
	struct ctx *c = *state;
	struct stderr_capture cap;
	struct sym_files f;
	struct ksyms *ks;
	char out[256];

	assert_int_equal(sym_files_write(&f,
					 "ffffffff81001000 t hidden.isra.0\n"
					 "ffffffff81001800 t hidden.isra.0.cold\n"
					 "ffffffff81002000 t plain_only\n",
					 "hidden.isra.0\nplain_only\n", ""),
			 0);
	ks = ksyms__load_from(f.kallsyms, f.filter, f.blacklist);
	assert_non_null(ks);
	/* without kallsyms, the name is unknown */
	plan_err(c, "hidden(current->pid)", "function 'hidden' not found in kernel BTF");
	c->opts.ks = ks;
	plan_ok(c, "hidden(current->pid, comm)");
	assert_true(c->plan.no_btf);
	assert_string_equal(c->plan.attach_name, "hidden.isra.0");
	assert_int_equal(c->plan.nr_args, 0);
	assert_non_null(
		strstr(c->plan.note, "hidden has no BTF: traced by kprobe at hidden.isra.0"));
	VAL(c, 0, .name = "current->pid", .base = KSNOOP_BASE_CURRENT, .flags = E | R, .size = 4,
	    .show = SHOW_MEMORY);
	plan_ok(c, "plain_only");
	assert_string_equal(c->plan.attach_name, "plain_only");
	plan_ok(c, "hidden.isra.0(current->pid)");
	assert_string_equal(c->plan.attach_name, "hidden.isra.0");
	plan_err(c, "hidden(prev)", "hidden() (traced at hidden.isra.0): only current and comm");
	plan_err(c, "hidden(return)", "does not describe hidden()");
	plan_err(c, "hidden(current->pid == 1 && prev > 0)", "only current and comm can be read");
	plan_err(c, "nowhere(current->pid)", "function 'nowhere' not found in kernel BTF");
	/* a pattern's names stay silent, and BTF's */
	c->opts.from_glob = true;
	stderr_capture_begin(&cap);
	assert_int_equal(build(c, "hidden"), -ENOENT);
	stderr_capture_end(&cap, out, sizeof(out));
	assert_string_equal(out, "");
	c->opts.ks = NULL;
	ksyms__free(ks);
	sym_files_remove(&f);
}

static void test_resolve_path(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f;
	struct spec_error serr;
	struct plan_path out;
	struct spec spec;

	assert_int_equal(kbtf__find_funcs(c->kb, "do_thing", &f, 1), 1);
	assert_int_equal(spec_parse("do_thing(o->next->in.b, o->hi)", &spec, &serr), 0);
	assert_int_equal(plan_resolve_path(&f, "do_thing", &spec.items[0].path, &out), 0);
	assert_int_equal(out.v.base, KSNOOP_BASE_ARG);
	assert_int_equal(out.v.arg, 1);
	assert_int_equal(out.v.nr_steps, 1);
	assert_int_equal(out.v.offs[0], 40);
	assert_true(out.in_memory);
	assert_int_equal(out.off, 8);
	assert_int_equal(plan_resolve_path(&f, "do_thing", &spec.items[1].path, &out), 0);
	assert_int_equal(out.off, 36);
	assert_int_equal(out.bit_off, 3);
	assert_int_equal(out.bit_size, 5);
	spec_free(&spec);
}

/* agg_layout_plans over the one plan built last; stderr in err (may be NULL). */
static int agg_layout(struct ctx *c, const struct agg_opts *a, struct tracer_agg *layout, char *err,
		      size_t size)
{
	struct session s = { .plans = &c->plan, .nr = 1 };
	struct stderr_capture cap;
	char out[512];
	int ret;

	stderr_capture_begin(&cap);
	ret = agg_layout_plans(&s, a, layout);
	stderr_capture_end(&cap, err ? err : out, err ? size : sizeof(out));
	return ret;
}

/* count and hist: each value's key slot, the key size, the hist value. */
static void test_agg_layout(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_agg_cfg *a = &c->plan.cfg.agg;
	struct agg_opts count = { .mode = KSNOOP_AGG_COUNT, .max_keys = 99 };
	struct agg_opts hist = { .mode = KSNOOP_AGG_HIST };
	struct tracer_agg layout;
	char err[512];

	c->opts.sample = PLAN_SAMPLE;
	/* an int and a string: 8-byte slots, the string as long as it needs */
	plan_ok(c, "do_thing(flags, label)");
	assert_int_equal(agg_layout(c, &count, &layout, NULL, 0), 0);
	assert_int_equal(a->nr_keys, 2);
	assert_int_equal(a->key_off[0], 0);
	assert_int_equal(a->key_len[0], 4);
	assert_int_equal(a->key_off[1], 8);
	assert_true(a->key_len[1] >= 16 && a->key_len[1] % 8 == 0);
	assert_int_equal(layout.key_size, KSNOOP_AGG_KEY_HDR + 8 + a->key_len[1]);
	assert_false(layout.keyless);
	assert_int_equal(layout.mode, KSNOOP_AGG_COUNT);
	assert_int_equal(layout.max_keys, 99);
	/* nothing to key on and no --by: the arrays by function serve */
	plan_ok(c, "vfn");
	assert_int_equal(agg_layout(c, &count, &layout, NULL, 0), 0);
	assert_int_equal(a->nr_keys, 0);
	assert_true(layout.keyless);
	count.by = KSNOOP_BY_COMM;
	assert_int_equal(agg_layout(c, &count, &layout, NULL, 0), 0);
	assert_false(layout.keyless);
	/* -i clears each interval, unless the totals must keep growing */
	assert_false(layout.epochs);
	count.interval_ns = 1000000000ULL;
	assert_int_equal(agg_layout(c, &count, &layout, NULL, 0), 0);
	assert_true(layout.epochs);
	count.cumulative = true;
	assert_false(agg_interval_resets(&count));
	count.cumulative = false;
	count.prometheus = "127.0.0.1:9999";
	assert_false(agg_interval_resets(&count));
	count.prometheus = NULL;
	count.textfile = "/tmp/metrics.prom";
	assert_false(agg_interval_resets(&count));
	count.textfile = NULL;
	count.interval_ns = 0;
	/* hist: one integer, signed or not, by its width */
	plan_ok(c, "do_thing(off)");
	assert_int_equal(agg_layout(c, &hist, &layout, NULL, 0), 0);
	assert_int_equal(a->hist_value, 0);
	assert_true(a->hist_signed);
	assert_int_equal(a->hist_width, 8);
	plan_ok(c, "do_thing(flags, mask)");
	assert_int_equal(agg_layout(c, &hist, &layout, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hist takes one value item"));
	plan_ok(c, "do_thing(label)");
	assert_int_equal(agg_layout(c, &hist, &layout, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "it is not an integer"));
	/* a pointer to a struct keys by its address, read no further */
	count.by = 0;
	plan_ok(c, "do_thing(o, o->next)");
	assert_int_equal(agg_layout(c, &count, &layout, err, sizeof(err)), 0);
	assert_int_equal(a->nr_keys, 2);
	assert_int_equal(a->key_len[0], 8);
	assert_int_equal(a->key_len[1], 8);
	assert_int_equal(c->plan.values[0].show, SHOW_SCALAR);
	assert_true(btf_is_ptr(btf__type_by_id(c->plan.values[0].btf, c->plan.values[0].type_id)));
	assert_false(c->plan.cfg.values[0].flags & KSNOOP_V_READ);
	/* o->next is read from *o, as the pointer it is: 8 bytes */
	assert_int_equal(c->plan.values[1].show, SHOW_SCALAR);
	assert_int_equal(c->plan.values[1].full_size, 8);
	assert_false(c->plan.cfg.values[1].flags & KSNOOP_V_READ);
	assert_int_equal(c->plan.cfg.values[1].nr_steps, 1);
	/* a struct is no key */
	plan_ok(c, "do_thing(o->in)");
	assert_int_equal(agg_layout(c, &count, &layout, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a key is an integer, enum, pointer or string, not a struct"));
}

/* agg_check_memory's answer, its stderr in err. */
static int check_memory(const struct tracer_agg *l, int cpus, unsigned long long avail, char *err,
			size_t size)
{
	struct stderr_capture cap;
	int ret;

	stderr_capture_begin(&cap);
	ret = agg_check_memory(l, cpus, avail);
	stderr_capture_end(&cap, err, size);
	return ret;
}

/*
 * The kernel memory of count's and hist's maps, before they are loaded:
 * count's table and the stacks are allocated whole at attach (262144
 * stacks: bpftool's memlock on 6.18 is 912 bytes over this sum's 148
 * MiB), hist's table grows with its keys.
 */
static void test_agg_memory(void **state UNUSED)
{
	const unsigned long long M = 1ULL << 20;
	struct tracer_agg l = { .mode = KSNOOP_AGG_COUNT, .key_size = 40, .max_keys = 1 << 20 };
	char err[512];

	/* buckets, elements (header, key, per-CPU pointer, 2 CPUs' values) */
	assert_true(agg_kernel_bytes(&l, 2) == M * 16 + M * (48 + 40 + 8 + 16));
	l.by = KSNOOP_BY_KSTACK;
	/* the stacks: buckets, and elements (header, key, hash and 64 frames), 2 CPUs' more */
	assert_true(agg_kernel_bytes(&l, 2) ==
		    M * 16 + M * (48 + 40 + 8 + 16) + M * 16 + (M + 2) * (48 + 8 + 8 + 64 * 8));
	/* the default, 10240 keys in 16384 slots */
	l.max_keys = 0;
	assert_true(agg_kernel_bytes(&l, 2) ==
		    16384ULL * 16 + 10240ULL * (48 + 40 + 8 + 16) + 16384ULL * 16 + 10242ULL * 576);
	assert_int_equal(check_memory(&l, 2, 0, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* hist: the buckets alone */
	l = (struct tracer_agg){ .mode = KSNOOP_AGG_HIST, .key_size = 40, .max_keys = 1 << 20 };
	assert_true(agg_kernel_bytes(&l, 64) == M * 16);
	/* 720 MiB: over the bound, whatever memory is free */
	l = (struct tracer_agg){ .mode = KSNOOP_AGG_COUNT,
				 .by = KSNOOP_BY_KSTACK,
				 .key_size = 40,
				 .max_keys = 1 << 20 };
	assert_int_equal(check_memory(&l, 2, 64ULL << 30, err, sizeof(err)), -E2BIG);
	expect_one_error_line(err,
			      "--max-keys 1048576 with --by kstack takes 720 MiB of kernel "
			      "memory at attach, over ksnoop's bound (512 MiB); lower --max-keys");
	/* 128 MiB of 400 MiB free: over a quarter of it */
	l.by = 0;
	assert_int_equal(check_memory(&l, 2, 400ULL << 20, err, sizeof(err)), -E2BIG);
	expect_one_error_line(err, "over a quarter of MemAvailable (100 MiB)");
	assert_int_equal(check_memory(&l, 2, 4ULL << 30, err, sizeof(err)), 0);
}

/* A user function of this very program: plan_build's uprobe side. */
__attribute__((noinline)) long test_plan_user_target(unsigned long size, const char *name)
{
	__asm__ volatile("" : : "r"(name) : "memory");
	return (long)size;
}

#define USER_FN "/proc/self/exe:test_plan_user_target"

/* One without DWARF (assembly, which says nothing of its parameters): arg0.., as long. */
__asm__(".text\n"
	".globl test_plan_user_nodwarf\n"
	".type test_plan_user_nodwarf, STT_FUNC\n"
	"test_plan_user_nodwarf:\n"
	"	ret\n"
	".size test_plan_user_nodwarf, . - test_plan_user_nodwarf\n");

#define USER_NODWARF "/proc/self/exe:test_plan_user_nodwarf"

static void test_user_function(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;
	const struct btf_type *t;

	cfg = plan_ok(c, USER_FN "(size_t size, const char *name, return)");
	assert_true(plan_is_user(&c->plan));
	assert_string_equal(c->plan.user.path, "/proc/self/exe");
	assert_true(c->plan.user.offset > 0);
	/* past the declared ones, arg2.. up to the register arguments */
	assert_int_equal(c->plan.nr_args, arch_native()->nr_reg_args);
	assert_int_equal(cfg->nr_values, 3);
	assert_int_equal(c->plan.values[0].show, SHOW_SCALAR);
	assert_int_equal(c->plan.values[1].show, SHOW_STRING);
	t = btf__type_by_id(c->plan.values[0].btf, c->plan.values[0].type_id);
	assert_string_equal(btf__name_by_offset(c->plan.values[0].btf, t->name_off), "size_t");
	t = btf__type_by_id(c->plan.values[2].btf, c->plan.values[2].type_id);
	assert_string_equal(btf__name_by_offset(c->plan.values[2].btf, t->name_off), "long int");

	/* a declared return type; undeclared parameters are arg0.., long, past DWARF's reach */
	plan_ok(c, USER_FN "(char *return)");
	assert_int_equal(c->plan.values[0].show, SHOW_STRING);
	plan_ok(c, USER_FN "(size_t size, arg1 == 0)");
	assert_int_equal(c->plan.nr_args, arch_native()->nr_reg_args);

	/* nothing declared: this binary's DWARF names and types them */
	plan_ok(c, USER_FN "(size, name)");
	assert_int_equal(c->plan.nr_args, 2);
	assert_int_equal(c->plan.values[0].show, SHOW_SCALAR);
	assert_int_equal(c->plan.values[1].show, SHOW_STRING);
	t = btf__type_by_id(c->plan.values[0].btf, c->plan.values[0].type_id);
	assert_string_equal(btf__name_by_offset(c->plan.values[0].btf, t->name_off),
			    "long unsigned int");
	plan_err(c, USER_FN "(arg0)", "has no parameter 'arg0'; its parameters are size, name");
	/* bare: its parameters, from DWARF */
	plan_ok(c, USER_FN);
	assert_int_equal(c->plan.nr_args, 2);
	/* declarations win: DWARF's name is no parameter then */
	plan_err(c, USER_FN "(size_t len, size)", "has no parameter 'size'");

	/* without DWARF: arg0.., long, and casts read them; bare, none */
	plan_ok(c, USER_NODWARF "(arg0, (char *)arg1)");
	assert_int_equal(c->plan.nr_args, arch_native()->nr_reg_args);
	assert_int_equal(c->plan.values[1].show, SHOW_STRING);
	t = btf__type_by_id(c->plan.values[0].btf, c->plan.values[0].type_id);
	assert_string_equal(btf__name_by_offset(c->plan.values[0].btf, t->name_off), "long int");
	plan_ok(c, USER_NODWARF);
	assert_int_equal(c->plan.nr_args, 0);

	plan_errno(c, USER_FN "(FILE *f)", -ENOENT, "the kernel's BTF has no type 'FILE'");
	plan_errno(c, USER_FN "(struct nope *p)", -ENOENT, "no type 'nope'");
	plan_errno(c, USER_FN "(double d)", -EINVAL, "floating point values are not supported");
	plan_errno(c, USER_FN "(void v)", -EINVAL, "a value cannot be void");
	plan_errno(c, USER_FN "(char * const p)", -EINVAL, "not a type ksnoop reads");
	plan_errno(c, "/proc/self/exe:no_such_function_xyz", -ENOENT, "has no function");
	plan_errno(c, "/proc/self/exe", -EINVAL, "a user function is TARGET:FUNC");
	plan_errno(c, "do_thing(int flags)", -EINVAL, "a kernel function's come from BTF");
}

/*
 * A tracepoint's plan is its stub's, the arguments one along (__data is
 * none of them); one event, at entry, with no frame waiting for a return.
 */
static void test_tracepoint(void **state)
{
	struct ctx *c = *state;
	const struct ksnoop_func_cfg *cfg;

	cfg = plan_ok(c, "rawtp:tick(o->id, n)");
	assert_string_equal(c->plan.attach_name, "tick");
	assert_true(plan_is_tracepoint(&c->plan));
	assert_int_equal(cfg->nr_args, 3);
	assert_int_equal(cfg->nr_values, 2);
	assert_int_equal(cfg->values[0].arg, 1);
	assert_int_equal(cfg->values[1].arg, 2);
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
	assert_false(cfg->flags & KSNOOP_CFG_FRAME);

	/* bare: the tracepoint's arguments, not __data, and no return */
	cfg = plan_ok(c, "rawtp:tick");
	assert_int_equal(cfg->nr_values, 2);
	assert_string_equal(c->plan.values[0].name, "o");
	assert_string_equal(c->plan.values[1].name, "n");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);

	/* -j traces pair entries with returns: not a tracepoint's */
	c->opts.frames = true;
	cfg = plan_ok(c, "rawtp:tick(n > 2)");
	assert_false(cfg->flags & KSNOOP_CFG_FRAME);
	c->opts.frames = false;

	/* an event of a class: the class's stub, found by the event's types */
	cfg = plan_ok(c, "rawtp:ev_wake(p->pid)");
	assert_string_equal(
		btf__name_by_offset(c->plan.func.btf,
				    btf__type_by_id(c->plan.func.btf, c->plan.func.id)->name_off),
		"__bpf_trace_ev_template");
	assert_int_equal(cfg->values[0].arg, 1);
	assert_true(cfg->values[0].flags & KSNOOP_V_READ);

	/* 6.4's probe stub, each event's own */
	cfg = plan_ok(c, "rawtp:tock(when)");
	assert_int_equal(cfg->values[0].arg, 1);
	assert_string_equal(c->plan.values[0].name, "when");

	/* no stub: the typedef's types, named arg0.. */
	cfg = plan_ok(c, "rawtp:lone(arg1->id, arg0)");
	assert_int_equal(cfg->nr_args, 3);
	assert_int_equal(cfg->values[0].arg, 2);
	assert_true(cfg->values[0].flags & KSNOOP_V_READ);
	assert_int_equal(cfg->values[1].arg, 1);
	plan_err(c, "rawtp:lone(n)", "its parameters are arg0, arg1");

	c->opts.sample = PLAN_SAMPLE;
	cfg = plan_ok(c, "rawtp:tick(n)");
	assert_int_equal(cfg->emit, KSNOOP_EMIT_ENTRY);
}

static void test_tracepoint_refusals(void **state)
{
	struct ctx *c = *state;

	plan_err(c, "rawtp:tick(return)", "there is no return value to read");
	plan_err(c, "rawtp:tick(n, return > 0)", "there is no return value to read");
	plan_err(c, "rawtp:tick(zzz)", "its parameters are o, n");
	plan_err(c, "rawtp:nope", "no tracepoint 'nope' in the kernel's BTF");
	plan_err(c, "tp:tick", "a tracepoint is tp:CATEGORY:EVENT");
	plan_err(c, "rawtp:", "which event?");
	c->opts.sample = PLAN_LATENCY;
	plan_err(c, "rawtp:tick", "there is no return to time");
	c->opts.sample = PLAN_EVENTS;
	c->opts.combined = true;
	plan_err(c, "rawtp:tick(n)", "no duration");
	c->opts.combined = false;
	c->opts.errors = true;
	plan_err(c, "rawtp:tick(n)", "there is no return to fail");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, reset, free_plan)
	const struct CMUnitTest tests[] = {
		T(test_bare),
		T(test_bare_void),
		T(test_bare_too_many_args),
		T(test_emit),
		T(test_emit_options),
		T(test_comm_value),
		T(test_comm_option),
		T(test_pred_lone),
		T(test_pred_lone_count),
		T(test_pred_and_or),
		T(test_fast_conjuncts),
		T(test_fast_limit),
		T(test_fast_not),
		T(test_pred_widths),
		T(test_pred_strings),
		T(test_member_offsets),
		T(test_anonymous_members),
		T(test_bitfields),
		T(test_pointer_steps),
		T(test_pointer_index),
		T(test_casts),
		T(test_max_steps),
		T(test_sizes),
		T(test_notes),
		T(test_errors_paths),
		T(test_errors_preds),
		T(test_errors_limits),
		T(test_errors_errno),
		T(test_literal_range),
		T(test_glob_name_unknown),
		T(test_without_btf),
		T(test_resolve_path),
		T(test_agg_layout),
		T(test_agg_memory),
		T(test_current),
		T(test_user_function),
		T(test_tracepoint),
		T(test_tracepoint_refusals),
	};
#undef T

	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
