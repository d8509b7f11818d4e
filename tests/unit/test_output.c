// SPDX-License-Identifier: GPL-2.0
/*
 * output.c: text and JSON formatting of synthetic events, for a function
 * from a small BTF blob built here:
 *
 *   struct inner { int a; int b; };
 *   struct outer { int id; struct inner in; char name[8]; };
 *   int do_thing(int flags, struct outer *o, char *label);
 *
 * Every expected string is written out in full.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "testutil.h"
#include "lib/kbtf.h"
#include "lib/mounts.h"
#include "lib/usym.h"
#include "trace/output.h"
#include "trace/plan.h"
#include "trace/spec.h"

#define O_ADDR 0xffff888001234560ULL
#define ERESTARTSYS_NR 512 /* kernel-internal, in no libc header */
#define L_ADDR 0xffff888001234600ULL

/* Column prefixes of the text layout. */
#define HEAD "    123456789012    3     4243 do_thing(\n"
#define NAME "                                   "  /* 34 + 1 spaces */
#define DUMP "                                    " /* 36 spaces */
#define CLOSE "\n                               );\n\n"

/* struct outer as the BTF below lays it out. */
struct outer_data {
	int id;
	struct {
		int a, b;
	} in;
	char name[8];
};

struct ctx {
	struct kbtf *kb;
	struct func_plan plan;
	struct output_opts oo;
	struct ksnoop_event ev;
	int flags_idx, o_idx, label_idx, ret_idx;
};

static struct btf *fixture(void)
{
	struct btf *btf = btf__new_empty();
	int int_t, char_t, inner, outer, arr, outer_ptr, char_ptr, proto, err = 0;

	if (!btf)
		return NULL;
	int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	char_t = btf__add_int(btf, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	inner = btf__add_struct(btf, "inner", 8);
	err |= btf__add_field(btf, "a", int_t, 0, 0);
	err |= btf__add_field(btf, "b", int_t, 32, 0);
	arr = btf__add_array(btf, int_t, char_t, 8);
	outer = btf__add_struct(btf, "outer", 20);
	err |= btf__add_field(btf, "id", int_t, 0, 0);
	err |= btf__add_field(btf, "in", inner, 32, 0);
	err |= btf__add_field(btf, "name", arr, 96, 0);
	outer_ptr = btf__add_ptr(btf, outer);
	char_ptr = btf__add_ptr(btf, char_t);
	/* parameters go right after their prototype */
	proto = btf__add_func_proto(btf, int_t);
	err |= btf__add_func_param(btf, "flags", int_t);
	err |= btf__add_func_param(btf, "o", outer_ptr);
	err |= btf__add_func_param(btf, "label", char_ptr);
	if (err || proto < 0 || btf__add_func(btf, "do_thing", BTF_FUNC_GLOBAL, proto) < 0) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

static int value_idx(const struct func_plan *plan, const char *name)
{
	__u32 i;

	for (i = 0; i < plan->cfg.nr_values; i++)
		if (!strcmp(plan->values[i].name, name))
			return i;
	return -1;
}

static int build_plan(struct ctx *c)
{
	struct plan_opts popts = { 0 };
	struct spec_error serr;
	struct spec spec;
	int err;

	if (spec_parse("do_thing", &spec, &serr))
		return -1;
	err = plan_build(c->kb, &spec, &popts, &c->plan);
	spec_free(&spec);
	if (err)
		return err;
	c->flags_idx = value_idx(&c->plan, "flags");
	c->o_idx = value_idx(&c->plan, "o");
	c->label_idx = value_idx(&c->plan, "label");
	c->ret_idx = value_idx(&c->plan, "return");
	if (c->flags_idx < 0 || c->o_idx < 0 || c->label_idx < 0 || c->ret_idx < 0)
		return -1;
	return 0;
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct btf *btf;

	if (!c)
		return -1;
	btf = fixture();
	c->kb = btf ? kbtf__new_from_btf(btf) : NULL;
	if (!c->kb) {
		btf__free(btf);
		free(c);
		return -1;
	}
	if (build_plan(c)) {
		plan_free(&c->plan);
		kbtf__free(c->kb);
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	if (!c)
		return 0;
	plan_free(&c->plan);
	kbtf__free(c->kb);
	free(c);
	return 0;
}

/* Fresh options and an empty event before each test. */
static int reset(void **state)
{
	struct ctx *c = *state;

	memset(&c->oo, 0, sizeof(c->oo));
	memset(&c->ev, 0, sizeof(c->ev));
	c->plan.cfg.err_kind = KSNOOP_ERR_NONE;
	return 0;
}

static void ev_init(struct ksnoop_event *ev, __u16 kind)
{
	memset(ev, 0, KSNOOP_EVENT_HDR_SIZE);
	ev->kind = kind;
	ev->ts = 123456789012ULL;
	ev->duration_ns = 1500;
	ev->cpu = 3;
	ev->tgid = 4242;
	ev->pid = 4243;
	strcpy(ev->comm, "tester");
}

static void ev_add(struct ksnoop_event *ev, int idx, __u64 raw, const void *data, __u16 len,
		   __u8 flags)
{
	struct ksnoop_vrec *vr = (void *)&ev->data[ev->data_len];

	vr->raw = raw;
	vr->len = len;
	vr->idx = idx;
	vr->flags = flags;
	if (len)
		memcpy(vr + 1, data, len);
	ev->data_len += sizeof(*vr) + ((len + 7) & ~7U);
	ev->nr_vrecs++;
}

static const struct outer_data sample = { .id = 7, .in = { .a = -3, .b = 0 }, .name = "eth0" };

/* flags = 5, o -> sample (only its first o_len bytes), label -> "eth0". */
static void entry_event_of(struct ctx *c, const struct outer_data *o, __u16 o_len)
{
	ev_init(&c->ev, KSNOOP_EV_ENTRY);
	ev_add(&c->ev, c->flags_idx, 5, NULL, 0, 0);
	ev_add(&c->ev, c->o_idx, O_ADDR, o, o_len, o_len < sizeof(*o) ? KSNOOP_VR_TRUNCATED : 0);
	ev_add(&c->ev, c->label_idx, L_ADDR, "eth0", 5, 0);
}

static void entry_event(struct ctx *c, __u16 o_len)
{
	entry_event_of(c, &sample, o_len);
}

static void return_event(struct ctx *c, int ret)
{
	ev_init(&c->ev, KSNOOP_EV_RETURN);
	ev_add(&c->ev, c->ret_idx, (__u64)(__s64)ret, NULL, 0, 0);
}

/* What output.c writes for c->ev under c->oo. */
/* What output prints for c's event; the caller frees it. */
static char *output_of(struct ctx *c)
{
	struct output *o;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	o = output__new(&c->oo, &c->plan, 1, f, NULL);
	assert_non_null(o);
	assert_int_equal(output__event(o, &c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len), 0);
	output__free(o);
	fclose(f);
	return buf;
}

static void expect_output(struct ctx *c, const char *want)
{
	char *buf = output_of(c);

	if (strcmp(buf, want))
		print_error("got:\n%s\nwant:\n%s\n", buf, want);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_header(void **state)
{
	struct ctx *c = *state;
	struct output *o;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	o = output__new(&c->oo, &c->plan, 1, f, NULL);
	assert_non_null(o);
	output__header(o);
	output__free(o);
	fclose(f);
	assert_string_equal(buf, "            TIME  CPU      PID FUNCTION/ARGS\n");
	free(buf);
}

/*
 * The entry event's lines around o's dump, one output line per source
 * line. btf_dump in libbpf 1.1 prints char arrays element by element.
 */
/* clang-format off */
#define ENTRY_HEAD						\
	HEAD							\
	NAME "flags = \n"					\
	DUMP "(int)5,\n"					\
	NAME "o = *(0xffff888001234560)\n"
#define ENTRY_TAIL						\
	NAME "label = *(0xffff888001234600)\n"			\
	DUMP "\"eth0\""						\
	CLOSE
/* clang-format on */

static void test_entry(void **state)
{
	struct ctx *c = *state;

	entry_event(c, sizeof(sample));
	/* o.in.b is zero, so not shown */
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){\n"
		      DUMP " .id = (int)7,\n"
		      DUMP " .in = (struct inner){\n"
		      DUMP "  .a = (int)-3,\n"
		      DUMP " },\n"
		      DUMP " .name = (char[8])[\n"
		      DUMP "  'e',\n"
		      DUMP "  't',\n"
		      DUMP "  'h',\n"
		      DUMP "  '0',\n"
		      DUMP " ],\n"
		      DUMP "},\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

static void test_return(void **state)
{
	struct ctx *c = *state;

	return_event(c, 3);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)3"
		      CLOSE);
	/* clang-format on */
}

static void test_return_negative(void **state)
{
	struct ctx *c = *state;

	return_event(c, -EINVAL);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)-22"
		      CLOSE);
	/* clang-format on */
}

static void test_return_duration(void **state)
{
	struct ctx *c = *state;

	c->oo.min_duration_ns = 1000;
	return_event(c, -EINVAL);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)-22,\n"
		      NAME "duration = 1500 ns"
		      CLOSE);
	/* clang-format on */
}

static void test_compact(void **state)
{
	struct ctx *c = *state;

	c->oo.compact = true;
	entry_event(c, sizeof(sample));
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){.id = (int)7,.in = (struct inner){.a = (int)-3,},"
			   ".name = (char[8])['e','t','h','0',],},\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

static void test_max_depth(void **state)
{
	struct ctx *c = *state;

	c->oo.max_depth = 1;
	entry_event(c, sizeof(sample));
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){\n"
		      DUMP " .id = (int)7,\n"
		      DUMP " .in = (struct inner){\n"
		      DUMP "  ... /* deeper than --max-depth 1 */\n"
		      DUMP " },\n"
		      DUMP " .name = (char[8])[\n"
		      DUMP "  ... /* deeper than --max-depth 1 */\n"
		      DUMP " ],\n"
		      DUMP "},\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

static void test_truncated(void **state)
{
	struct ctx *c = *state;

	/* 8 of 20 bytes: btf_dump stops at in.b with -E2BIG */
	entry_event(c, 8);
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){\n"
		      DUMP " .id = (int)7,\n"
		      DUMP " .in = (struct inner){\n"
		      DUMP "  .a = (int)-3,\n"
		      DUMP "... /* 8 bytes of 20 */,\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

/* A cut inside a member that opened no value: its openings go too. */
static void expect_trimmed(const char *dump, const char *want)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%s", dump);
	dump_drop_open_tail(&sb);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static void test_truncated_opening(void **state)
{
	(void)state;
	expect_trimmed(
		"(struct net){\n .ifindex = (u32)2,\n .lock = (rwlock_t){\n"
		"  .raw_lock = (arch_rwlock_t){\n   (union){\n    .cnts = (atomic_t){\n     ",
		"(struct net){\n .ifindex = (u32)2,\n");
	expect_trimmed("(struct x){\n .ids = (int[4])[\n", "(struct x){\n");
	/* an opening with a value inside stays */
	expect_trimmed("(struct x){\n .in = (struct y){\n  .a = (int)1,\n",
		       "(struct x){\n .in = (struct y){\n  .a = (int)1,\n");
	expect_trimmed("", "");
}

static void test_truncated_quiet(void **state)
{
	struct ctx *c = *state;

	/* 12 of 20 bytes: btf_dump takes the missing name for zeros, no -E2BIG */
	entry_event(c, 12);
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){\n"
		      DUMP " .id = (int)7,\n"
		      DUMP " .in = (struct inner){\n"
		      DUMP "  .a = (int)-3,\n"
		      DUMP " },\n"
		      DUMP "}\n"
		      DUMP "... /* 12 bytes of 20 */,\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

static void test_truncated_compact(void **state)
{
	struct ctx *c = *state;

	c->oo.compact = true;
	entry_event(c, 8);
	/* clang-format off */
	expect_output(c, ENTRY_HEAD
		      DUMP "(struct outer){.id = (int)7,.in = (struct inner){.a = (int)-3, "
			   "... /* 8 bytes of 20 */,\n"
		      ENTRY_TAIL);
	/* clang-format on */
}

static void test_string_escapes(void **state)
{
	struct ctx *c = *state;

	ev_init(&c->ev, KSNOOP_EV_ENTRY);
	ev_add(&c->ev, c->label_idx, L_ADDR, "a\"b\\c\nd\te\x80", 11, 0);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "label = *(0xffff888001234600)\n"
		      DUMP "\"a\\\"b\\\\c\\nd\\x09e\\x80\""
		      CLOSE);
	/* clang-format on */
}

static void test_null_pointer(void **state)
{
	struct ctx *c = *state;

	ev_init(&c->ev, KSNOOP_EV_ENTRY);
	ev_add(&c->ev, c->o_idx, 0, NULL, 0, KSNOOP_VR_NULL);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "o = *(0x0)\n"
		      DUMP " /* Cannot show 'o' as 'struct outer *'; NULL pointer */"
		      CLOSE);
	/* clang-format on */
}

#define JHEAD                                                                           \
	"{\"ts\":123456789012,\"cpu\":3,\"pid\":4242,\"tid\":4243,\"comm\":\"tester\"," \
	"\"function\":\"do_thing\","
#define JFLAGS "{\"name\":\"flags\",\"type\":\"int\",\"value\":5}"
#define JLABEL                                                                     \
	"{\"name\":\"label\",\"type\":\"char *\",\"addr\":\"0xffff888001234600\"," \
	"\"value\":\"eth0\"}"
#define JO_HEAD "{\"name\":\"o\",\"type\":\"struct outer *\",\"addr\":\"0xffff888001234560\","

static void test_json_entry(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	entry_event(c, sizeof(sample));
	expect_output(c, JHEAD
		      "\"event\":\"entry\",\"values\":[" JFLAGS "," JO_HEAD
		      "\"value\":{\"id\":7,\"in\":{\"a\":-3,\"b\":0},\"name\":\"eth0\"}}," JLABEL
		      "]}\n");
}

static void test_json_return(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	return_event(c, -EINVAL);
	expect_output(c, JHEAD "\"event\":\"return\",\"duration_ns\":1500,\"values\":["
			       "{\"name\":\"return\",\"type\":\"int\",\"value\":-22}]}\n");
}

/* --errors: the errno named after the number, and only with --errors. */
static void test_errors_int(void **state)
{
	struct ctx *c = *state;

	c->oo.errors = true;
	c->plan.cfg.err_kind = KSNOOP_ERR_INT32;
	return_event(c, -ENOENT);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)-2 (ENOENT)"
		      CLOSE);
	/* clang-format on */
	return_event(c, -4095);
	expect_output(c, HEAD NAME "return = \n" DUMP "(int)-4095 (errno 4095)" CLOSE);
	return_event(c, -4096);
	expect_output(c, HEAD NAME "return = \n" DUMP "(int)-4096" CLOSE);
	c->oo.errors = false;
	return_event(c, -ENOENT);
	expect_output(c, HEAD NAME "return = \n" DUMP "(int)-2" CLOSE);
}

/* A pointer return that failed is no address to dump. */
static void test_errors_ptr(void **state)
{
	struct ctx *c = *state;

	c->oo.errors = true;
	c->plan.cfg.err_kind = KSNOOP_ERR_PTR;
	return_event(c, -ENOENT);
	expect_output(c, HEAD NAME "return = \n" DUMP "ERR_PTR(-2) (ENOENT)" CLOSE);
	ev_init(&c->ev, KSNOOP_EV_RETURN);
	ev_add(&c->ev, c->ret_idx, 0, NULL, 0, KSNOOP_VR_NULL);
	expect_output(c, HEAD NAME "return = \n" DUMP "NULL" CLOSE);
	c->oo.json = true;
	return_event(c, -EACCES);
	expect_output(c, JHEAD "\"event\":\"return\",\"duration_ns\":1500,\"depth\":0,\"values\":["
			       "{\"name\":\"return\",\"type\":\"int\",\"error\":\"ERR_PTR(-13)\","
			       "\"errno\":\"EACCES\"}]}\n");
}

static void test_errors_json(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	c->oo.errors = true;
	c->plan.cfg.err_kind = KSNOOP_ERR_INT32;
	return_event(c, -ERESTARTSYS_NR);
	c->ev.depth = 2;
	expect_output(c, JHEAD "\"event\":\"return\",\"duration_ns\":1500,\"depth\":2,\"values\":["
			       "{\"name\":\"return\",\"type\":\"int\",\"errno\":\"ERESTARTSYS\","
			       "\"value\":-512}]}\n");
}

/* The origin, under the chain's events: deepest first, then its callers. */
static void test_errors_origin(void **state)
{
	struct ctx *c = *state;
	struct ksnoop_event outer, inner;
	const struct ksnoop_event *evs[] = { &outer, &inner };
	size_t sizes[2];
	char *buf = NULL, *tail;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct output *o;

	c->oo.errors = true;
	c->plan.cfg.err_kind = KSNOOP_ERR_INT32;
	return_event(c, -EACCES);
	memcpy(&outer, &c->ev, sizeof(outer));
	return_event(c, -ENOENT);
	memcpy(&inner, &c->ev, sizeof(inner));
	sizes[0] = sizes[1] = KSNOOP_EVENT_HDR_SIZE + c->ev.data_len;
	assert_non_null(f);
	o = output__new(&c->oo, &c->plan, 1, f, NULL);
	assert_non_null(o);
	output__origin(o, evs, sizes, 2);
	output__free(o);
	fclose(f);
	tail = strstr(buf, "(int)-2 (ENOENT)");
	assert_non_null(strstr(buf, "(int)-13 (EACCES)"));
	assert_non_null(tail);
	assert_true(strstr(buf, "(int)-13 (EACCES)") < tail);
	assert_non_null(
		strstr(tail, CLOSE
		       "                                  error origin: do_thing() = -2 (ENOENT)\n"
		       "                                     called by: do_thing() = -13 (EACCES)\n"
		       "\n"));
	free(buf);
}

static void test_json_max_depth(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	c->oo.max_depth = 1;
	entry_event(c, sizeof(sample));
	expect_output(c, JHEAD "\"event\":\"entry\",\"values\":[" JFLAGS "," JO_HEAD
			       "\"value\":{\"id\":7,\"in\":{\"__truncated__\":true},"
			       "\"name\":\"eth0\"}}," JLABEL "]}\n");
}

static void test_json_truncated(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	entry_event(c, 8);
	expect_output(c, JHEAD "\"event\":\"entry\",\"values\":[" JFLAGS "," JO_HEAD
			       "\"value\":{\"id\":7,\"in\":{\"__truncated__\":true},"
			       "\"name\":{\"__truncated__\":true}},\"truncated\":true}," JLABEL
			       "]}\n");
}

static void test_json_null_pointer(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	ev_init(&c->ev, KSNOOP_EV_ENTRY);
	ev_add(&c->ev, c->o_idx, 0, NULL, 0, KSNOOP_VR_NULL);
	expect_output(c, JHEAD "\"event\":\"entry\",\"values\":[{\"name\":\"o\","
			       "\"type\":\"struct outer *\",\"addr\":\"0x0\","
			       "\"error\":\"NULL pointer\"}]}\n");
}

/* Plans of one BTF share a dump: three functions print alike, free once. */
static void test_plans_share_dump(void **state)
{
	struct ctx *c = *state;
	struct func_plan plans[3] = { c->plan, c->plan, c->plan };
	char *buf = NULL, *one = NULL;
	size_t size = 0, one_size = 0;
	FILE *f = open_memstream(&buf, &size), *g = open_memstream(&one, &one_size);
	struct output *o;
	__u32 i;

	assert_non_null(f);
	assert_non_null(g);
	o = output__new(&c->oo, plans, 3, g, NULL);
	assert_non_null(o);
	assert_int_equal(output__event(o, &c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len), 0);
	output__free(o);
	fclose(g);
	o = output__new(&c->oo, plans, 3, f, NULL);
	assert_non_null(o);
	for (i = 0; i < 3; i++) {
		c->ev.func_id = i;
		assert_int_equal(output__event(o, &c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len),
				 0);
	}
	c->ev.func_id = 0;
	output__free(o);
	fclose(f);
	assert_true(one_size > 0);
	assert_int_equal(size, 3 * one_size);
	for (i = 0; i < 3; i++)
		assert_memory_equal(buf + i * one_size, one, one_size);
	free(buf);
	free(one);
}

/* --kstack: two frames, unnamed without kallsyms; --kstack-depth 1 keeps one. */
static void kstack_event(struct ctx *c)
{
	static const __u64 ips[] = { 0xffffffff81000010ULL, 0xffffffff81000420ULL };

	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_KSTACK, 2, ips, sizeof(ips), 0);
}

static void test_kstack(void **state)
{
	struct ctx *c = *state;

	c->oo.kstack_depth = KSNOOP_KSTACK_MAX;
	kstack_event(c);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)3"
		      "\n                               );\n"
		      "                                  0xffffffff81000010\n"
		      "                                  0xffffffff81000420\n\n");
	/* clang-format on */
}

static void test_json_kstack_depth(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	c->oo.kstack_depth = 1;
	kstack_event(c);
	expect_output(c, JHEAD "\"event\":\"return\",\"duration_ns\":1500,\"values\":["
			       "{\"name\":\"return\",\"type\":\"int\",\"value\":3}],"
			       "\"kstack\":[\"0xffffffff81000010\"]}\n");
}

/* A stack record only last, and in whole frames. */
static void test_kstack_malformed(void **state)
{
	static const __u64 ips[] = { 1, 2 };
	struct ctx *c = *state;

	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_KSTACK, 2, ips, 12, 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	memset(&c->ev, 0, sizeof(c->ev));
	ev_init(&c->ev, KSNOOP_EV_RETURN);
	ev_add(&c->ev, KSNOOP_VREC_KSTACK, 2, ips, sizeof(ips), 0);
	ev_add(&c->ev, c->ret_idx, 3, NULL, 0, 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	memset(&c->ev, 0, sizeof(c->ev));
	kstack_event(c);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1), 0);
}

/*
 * --call-graph dwarf: the registers and the stack copy. A process that is
 * gone (no pid is this high) still shows its pc, as an unknown frame.
 */
static void dump_event(struct ctx *c, size_t stack_len)
{
	static __u8 dump[KSNOOP_UREGS_SIZE + 64];
	__u64 pc = 0x401000, sp = 0x7ffc0000;

	memset(dump, 0, sizeof(dump));
	memcpy(dump + KSNOOP_UREGS_PC_OFF, &pc, sizeof(pc));
	memcpy(dump + KSNOOP_UREGS_SP_OFF, &sp, sizeof(sp));
	return_event(c, 3);
	c->ev.tgid = 0x7fffffff;
	ev_add(&c->ev, KSNOOP_VREC_USTACK_DUMP, sp, dump, KSNOOP_UREGS_SIZE + stack_len, 0);
}

static void test_ustack_dump(void **state)
{
	struct ctx *c = *state;

	c->oo.ustack_depth = KSNOOP_USTACK_MAX;
	c->oo.ustack_dwarf = true;
	dump_event(c, 20);
	/* clang-format off */
	expect_output(c, HEAD
		      NAME "return = \n"
		      DUMP "(int)3"
		      "\n                               );\n"
		      "                                  [unknown] 0x401000\n\n");
	/* clang-format on */
}

/* A dump holds the registers whole, its stack at most KSNOOP_USTACK_DUMP_MAX, and comes last. */
static void test_ustack_dump_malformed(void **state)
{
	static const __u8 regs[KSNOOP_UREGS_SIZE];
	struct ctx *c = *state;
	size_t size;

	dump_event(c, 0);
	c->ev.data_len -= 16 + KSNOOP_UREGS_SIZE;
	c->ev.nr_vrecs--;
	ev_add(&c->ev, KSNOOP_VREC_USTACK_DUMP, 0, regs, KSNOOP_UREGS_SIZE - 8, 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	dump_event(c, 0);
	((struct ksnoop_vrec *)&c->ev.data[c->ev.data_len - 16 - KSNOOP_UREGS_SIZE])->len =
		KSNOOP_UREGS_SIZE + KSNOOP_USTACK_DUMP_MAX + 8;
	size = sizeof(c->ev);
	assert_int_equal(event_validate(&c->ev, size, 1), -EINVAL);
	dump_event(c, 0);
	ev_add(&c->ev, c->ret_idx, 3, NULL, 0, 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	dump_event(c, 12);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1), 0);
}

/* A function of this binary, for a frame that a mapping the kernel recorded names. */
__attribute__((noinline)) void umaps_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The mount of this process that holds path: the longest mount point before it on its device. */
static void own_mount(const char *path, dev_t dev, struct mount_entry *best, char *keep,
		      size_t size)
{
	char line[8192];
	struct mount_entry e;
	size_t n, best_n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!mountinfo_parse(line, &e) || e.major != major(dev) || e.minor != minor(dev))
			continue;
		n = strcmp(e.point, "/") ? strlen(e.point) : 0;
		if (strncmp(path, e.point, n) || (path[n] && path[n] != '/') || n < best_n ||
		    (best_n && !n))
			continue;
		best_n = n;
		snprintf(keep, size, "%s", strcmp(e.root, "/") ? e.root : "");
		snprintf(keep + strlen(keep) + 1, size - strlen(keep) - 1, "%s", path + n);
		*best = e;
	}
	fclose(f);
}

/*
 * The KSNOOP_VREC_UMAPS the kernel would record for addr in this binary:
 * its exec mapping, device, inode and path from its file system's root,
 * components leaf first.
 */
static void own_umap(unsigned long long addr, struct ksnoop_umap *km)
{
	char line[4096 + 128], exe[4096], keep[8192], fs_path[16384], *comp;
	struct mount_entry mnt = {};
	struct usym_map m;
	struct stat st;
	size_t off = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (!found && usym_read_line(f, line, sizeof(line)))
		found = usym_maps_parse(line, &m) && m.exec && m.start <= addr && addr < m.end;
	fclose(f);
	assert_true(found);
	assert_non_null(realpath("/proc/self/exe", exe));
	assert_int_equal(stat(exe, &st), 0);
	keep[0] = '\0';
	own_mount(exe, st.st_dev, &mnt, keep, sizeof(keep));
	snprintf(fs_path, sizeof(fs_path), "%s%s", keep, keep + strlen(keep) + 1);
	memset(km, 0, sizeof(*km));
	km->start = m.start;
	km->end = m.end;
	km->pgoff = m.pgoff / sysconf(_SC_PAGESIZE);
	km->ino = st.st_ino;
	km->dev = major(st.st_dev) << 20 | minor(st.st_dev);
	while ((comp = strrchr(fs_path, '/'))) {
		size_t n = strlen(comp + 1);

		if (n && off + n + 1 <= sizeof(km->path)) {
			memcpy(km->path + off, comp + 1, n + 1);
			off += n + 1;
			km->depth++;
		}
		*comp = '\0';
	}
}

/*
 * A process gone before its maps were read (no pid is this high): its
 * frame is named from the mapping the event carried.
 */
static void test_ustack_umaps(void **state)
{
	struct ctx *c = *state;
	__u64 ip = (__u64)(uintptr_t)umaps_target;
	struct ksnoop_umap km;
	char *out;

	own_umap(ip, &km);
	c->oo.ustack_depth = KSNOOP_USTACK_MAX;
	return_event(c, 3);
	c->ev.tgid = 0x7fffffff;
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, &km, sizeof(km), 0);
	out = output_of(c);
	if (!strstr(out, " umaps_target ("))
		fail_msg("no frame named from the event's mapping:\n%s", out);
	free(out);
	/* without the mapping, the address alone */
	return_event(c, 3);
	c->ev.tgid = 0x7fffffff;
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	out = output_of(c);
	assert_non_null(strstr(out, "[unknown] 0x"));
	free(out);
}

/* The mappings come right after a ustack, whole entries, at most KSNOOP_UMAPS_MAX. */
static void test_ustack_umaps_malformed(void **state)
{
	static struct ksnoop_umap km[KSNOOP_UMAPS_MAX + 1];
	struct ctx *c = *state;
	__u64 ip = 0x401000;

	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, km, sizeof(km[0]), 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, km, sizeof(km[0]) - 8, 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, km, sizeof(km), 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	/* a second user stack after the mappings */
	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, km, sizeof(km[0]), 0);
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1),
			 -EINVAL);
	return_event(c, 3);
	ev_add(&c->ev, KSNOOP_VREC_USTACK, 0, &ip, sizeof(ip), 0);
	ev_add(&c->ev, KSNOOP_VREC_UMAPS, 0, km, 2 * sizeof(km[0]), 0);
	assert_int_equal(event_validate(&c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len, 1), 0);
}

static void test_malformed(void **state)
{
	struct ctx *c = *state;
	struct output *o;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	o = output__new(&c->oo, &c->plan, 1, f, NULL);
	assert_non_null(o);
	entry_event(c, sizeof(sample));
	/* data_len beyond the record, then an unknown function */
	assert_int_equal(output__event(o, &c->ev, KSNOOP_EVENT_HDR_SIZE + 8), -EINVAL);
	c->ev.func_id = 1;
	assert_int_equal(output__event(o, &c->ev, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len), -EINVAL);
	output__free(o);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
}

/*
 * trace --from/--to: do_thing(flags = 9) ended the span that do_thing(flags
 * = 5) began 1000 ns before, on another CPU and task.
 */
static void span_event(struct ctx *c)
{
	static struct ksnoop_event start;

	ev_init(&start, KSNOOP_EV_ENTRY);
	start.ts -= 1000;
	start.cpu = 1;
	start.tgid = 76;
	start.pid = 77;
	strcpy(start.comm, "starter");
	ev_add(&start, c->flags_idx, 5, NULL, 0, 0);
	ev_init(&c->ev, KSNOOP_EV_SPAN);
	c->ev.duration_ns = 1000;
	ev_add(&c->ev, c->flags_idx, 9, NULL, 0, 0);
	ev_add(&c->ev, KSNOOP_VREC_SPAN_FROM, 0, &start, KSNOOP_EVENT_HDR_SIZE + start.data_len, 0);
}

/* The start as its own call just above the end, which gives the span's time. */
static void test_span(void **state)
{
	struct ctx *c = *state;

	span_event(c);
	/* clang-format off */
	expect_output(c, "    123456788012    1       77 do_thing(\n"
		      NAME "flags = \n"
		      DUMP "(int)5"
		      "\n                               );\n"
		      HEAD
		      NAME "flags = \n"
		      DUMP "(int)9,\n"
		      NAME "span = 1000 ns"
		      CLOSE);
	/* clang-format on */
}

static void test_json_span(void **state)
{
	struct ctx *c = *state;

	c->oo.json = true;
	span_event(c);
	expect_output(c, JHEAD "\"event\":\"span\",\"duration_ns\":1000,\"values\":["
			       "{\"name\":\"flags\",\"type\":\"int\",\"value\":9}],"
			       "\"from\":{\"ts\":123456788012,\"cpu\":1,\"pid\":76,\"tid\":77,"
			       "\"comm\":\"starter\",\"function\":\"do_thing\",\"event\":\"entry\","
			       "\"values\":[" JFLAGS "]}}\n");
}

/* A span's start is its last record, a whole entry event; nothing else has one. */
static void test_span_malformed(void **state)
{
	struct ctx *c = *state;
	size_t size;

	span_event(c);
	size = KSNOOP_EVENT_HDR_SIZE + c->ev.data_len;
	assert_int_equal(event_validate(&c->ev, size, 1), 0);
	c->ev.kind = KSNOOP_EV_ENTRY;
	assert_int_equal(event_validate(&c->ev, size, 1), -EINVAL);
	c->ev.kind = KSNOOP_EV_SPAN;
	/* the start names a function that is not traced */
	((struct ksnoop_event *)(c->ev.data + 32))->func_id = 1;
	assert_int_equal(event_validate(&c->ev, size, 1), -EINVAL);
	((struct ksnoop_event *)(c->ev.data + 32))->func_id = 0;
	/* shorter than a header */
	((struct ksnoop_vrec *)(c->ev.data + 16))->len = 8;
	assert_int_equal(event_validate(&c->ev, size, 1), -EINVAL);
}

/* A lite event reads as the full event with no duration and no chain. */
static void test_lite_widen(void **state)
{
	struct ctx *c = *state;
	size_t size = KSNOOP_LITE_HDR_SIZE, wide_size;
	struct ksnoop_event *wide = malloc(sizeof(*wide));
	__u8 *lite = calloc(1, KSNOOP_LITE_HDR_SIZE + sizeof(c->ev.data) + 8);

	assert_non_null(wide);
	assert_non_null(lite);
	entry_event(c, sizeof(sample));
	c->ev.kind |= KSNOOP_EV_LITE;
	memcpy(lite, &c->ev, KSNOOP_LITE_HDR_SIZE);
	memcpy(lite + size, c->ev.data, c->ev.data_len);
	size += c->ev.data_len;
	assert_int_equal(event_widen(lite, size, wide, &wide_size), 0);
	assert_int_equal(wide_size, KSNOOP_EVENT_HDR_SIZE + c->ev.data_len);
	assert_int_equal(wide->kind, KSNOOP_EV_ENTRY);
	assert_int_equal(wide->duration_ns, 0);
	assert_int_equal(wide->chain_id, 0);
	assert_int_equal(wide->pid, 4243);
	assert_string_equal(wide->comm, "tester");
	assert_memory_equal(wide->data, c->ev.data, c->ev.data_len);
	assert_int_equal(event_validate(wide, wide_size, 1), 0);
	/* shorter than its header, longer than any event */
	assert_int_equal(event_widen(lite, KSNOOP_LITE_HDR_SIZE - 1, wide, &wide_size), -EINVAL);
	assert_int_equal(event_widen(lite, KSNOOP_LITE_HDR_SIZE + sizeof(wide->data) + 1, wide,
				     &wide_size),
			 -EINVAL);
	free(lite);
	free(wide);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_header, reset),
		cmocka_unit_test_setup(test_span, reset),
		cmocka_unit_test_setup(test_json_span, reset),
		cmocka_unit_test_setup(test_span_malformed, reset),
		cmocka_unit_test_setup(test_entry, reset),
		cmocka_unit_test_setup(test_return, reset),
		cmocka_unit_test_setup(test_return_negative, reset),
		cmocka_unit_test_setup(test_return_duration, reset),
		cmocka_unit_test_setup(test_compact, reset),
		cmocka_unit_test_setup(test_max_depth, reset),
		cmocka_unit_test_setup(test_truncated, reset),
		cmocka_unit_test(test_truncated_opening),
		cmocka_unit_test_setup(test_truncated_quiet, reset),
		cmocka_unit_test_setup(test_truncated_compact, reset),
		cmocka_unit_test_setup(test_string_escapes, reset),
		cmocka_unit_test_setup(test_null_pointer, reset),
		cmocka_unit_test_setup(test_json_entry, reset),
		cmocka_unit_test_setup(test_json_return, reset),
		cmocka_unit_test_setup(test_errors_int, reset),
		cmocka_unit_test_setup(test_errors_ptr, reset),
		cmocka_unit_test_setup(test_errors_json, reset),
		cmocka_unit_test_setup(test_errors_origin, reset),
		cmocka_unit_test_setup(test_json_max_depth, reset),
		cmocka_unit_test_setup(test_json_truncated, reset),
		cmocka_unit_test_setup(test_json_null_pointer, reset),
		cmocka_unit_test_setup(test_malformed, reset),
		cmocka_unit_test_setup(test_lite_widen, reset),
		cmocka_unit_test_setup(test_kstack, reset),
		cmocka_unit_test_setup(test_json_kstack_depth, reset),
		cmocka_unit_test_setup(test_kstack_malformed, reset),
		cmocka_unit_test_setup(test_ustack_dump, reset),
		cmocka_unit_test_setup(test_ustack_dump_malformed, reset),
		cmocka_unit_test_setup(test_ustack_umaps, reset),
		cmocka_unit_test_setup(test_ustack_umaps_malformed, reset),
		cmocka_unit_test_setup(test_plans_share_dump, reset),
	};

	return cmocka_run_group_tests_name("output", tests, setup, teardown);
}
