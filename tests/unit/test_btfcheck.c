// SPDX-License-Identifier: GPL-2.0
/*
 * btfcheck.c: small BTF blobs, each damaged in one way (patched in place
 * after libbpf's builder, which checks little, then read back from raw
 * bytes as a --btf file would be), must give one clear message; valid
 * shapes (pointer loops through structs, split BTF referring into its
 * base) must pass. Then the walkers' own bounds, on unchecked BTF.
 */
#include <errno.h>

#include "testutil.h"
#include "lib/btfcheck.h"
#include "lib/btfjson.h"
#include "lib/kbtf.h"
#include "lib/util.h"
#include "trace/plan.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

/* Writable view of a type the builder made, to damage it. */
static struct btf_type *mut(struct btf *btf, int id)
{
	return (struct btf_type *)btf__type_by_id(btf, id);
}

/* btf serialised and parsed again, as a file would be; btf is freed. */
static struct btf *reparse(struct btf *btf)
{
	const void *data;
	struct btf *copy;
	__u32 size;

	data = btf__raw_data(btf, &size);
	assert_non_null(data);
	copy = btf__new(data, size);
	assert_non_null(copy);
	btf__free(btf);
	return copy;
}

/* The message btf_check gives for btf (freed), "" when it passes. */
static char *check_msg(struct btf *btf)
{
	static char why[256];
	struct btf *b = reparse(btf);
	int err = btf_check(b, why, sizeof(why));

	btf__free(b);
	assert_int_equal(err, why[0] ? -EBADMSG : 0);
	return why;
}

static void expect_msg(struct btf *btf, const char *want)
{
	const char *got = check_msg(btf);

	if (!strstr(got, want))
		print_error("got \"%s\", want \"%s\"\n", got, want);
	assert_non_null(strstr(got, want));
}

/* int, and struct foo { int bar; int baz; } (8 bytes): ids 1, 2. */
static struct btf *base_btf(void)
{
	struct btf *btf = btf__new_empty();

	assert_non_null(btf);
	assert_int_equal(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 1);
	assert_int_equal(btf__add_struct(btf, "foo", 8), 2);
	assert_int_equal(btf__add_field(btf, "bar", 1, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "baz", 1, 32, 0), 0);
	return btf;
}

/* Adds int f(int x) and returns the FUNC_PROTO id; the FUNC follows it. */
static int add_f(struct btf *btf)
{
	int proto = btf__add_func_proto(btf, 1);

	assert_true(proto > 0);
	assert_int_equal(btf__add_func_param(btf, "x", 1), 0);
	assert_int_equal(btf__add_func(btf, "f", BTF_FUNC_GLOBAL, proto), proto + 1);
	return proto;
}

static void test_valid(void **state)
{
	struct btf *btf = base_btf();

	(void)state;
	add_f(btf);
	/* struct a { struct b *b; }; struct b { struct a *a; struct b *self; }; */
	assert_int_equal(btf__add_struct(btf, "a", 8), 5);
	assert_int_equal(btf__add_field(btf, "b", 8, 0, 0), 0);
	assert_int_equal(btf__add_struct(btf, "b", 16), 6);
	assert_int_equal(btf__add_field(btf, "a", 7, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "self", 8, 64, 0), 0);
	assert_int_equal(btf__add_ptr(btf, 5), 7);
	assert_int_equal(btf__add_ptr(btf, 6), 8);
	/* typedef struct b b_t; and a function taking a pointer to a function */
	assert_int_equal(btf__add_typedef(btf, "b_t", 6), 9);
	assert_int_equal(btf__add_func_proto(btf, 9), 10);
	assert_int_equal(btf__add_func_param(btf, "cb", 11), 0);
	assert_int_equal(btf__add_ptr(btf, 3), 11);
	/* lockdep off: struct lock_class_key {} keys[46]; */
	assert_int_equal(btf__add_struct(btf, "lock_class_key", 0), 12);
	assert_int_equal(btf__add_array(btf, 1, 12, 46), 13);
	assert_string_equal(check_msg(btf), "");
}

/* Member baz of struct foo, to damage. */
static struct btf_member *baz(struct btf *btf)
{
	return btf_members(mut(btf, 2)) + 1;
}

static void bad_name(struct btf *btf)
{
	mut(btf, add_f(btf) + 1)->name_off = 0x7fffff00;
}

static void bad_member_name(struct btf *btf)
{
	baz(btf)->name_off = 0xffffffff;
}

static void bad_param_type(struct btf *btf)
{
	btf_params(mut(btf, add_f(btf)))[0].type = 99999;
}

static void bad_return_type(struct btf *btf)
{
	mut(btf, add_f(btf))->type = 5;
}

static void bad_member_type(struct btf *btf)
{
	baz(btf)->type = 99999;
}

static void func_not_proto(struct btf *btf)
{
	mut(btf, add_f(btf) + 1)->type = 1;
}

/* typedef const t t; */
static void typedef_loop(struct btf *btf)
{
	int td = btf__add_typedef(btf, "t", 1);

	mut(btf, td)->type = btf__add_const(btf, td);
}

static void pointer_loop(struct btf *btf)
{
	int p = btf__add_ptr(btf, 1);

	mut(btf, p)->type = p;
}

static void array_loop(struct btf *btf)
{
	int arr = btf__add_array(btf, 1, 1, 4);

	btf_array(mut(btf, arr))->type = btf__add_ptr(btf, arr);
}

/* int f(<pointer to this very prototype>): no C spelling of it ends */
static void proto_loop(struct btf *btf)
{
	int proto = add_f(btf);

	btf_params(mut(btf, proto))[0].type = btf__add_ptr(btf, proto);
}

/* struct { <pointer to this anonymous struct> next; }: printed inline forever */
static void anon_pointer_loop(struct btf *btf)
{
	int s = btf__add_struct(btf, NULL, 8);

	btf__add_field(btf, "next", s + 1, 0, 0);
	btf__add_ptr(btf, s);
}

/* struct foo { int bar; struct foo <anonymous>; } */
static void anon_member_self(struct btf *btf)
{
	baz(btf)->type = 2;
	baz(btf)->name_off = 0;
}

/* struct foo { int bar; struct foo baz[2]; } */
static void contains_itself(struct btf *btf)
{
	baz(btf)->type = btf__add_array(btf, 1, 2, 2);
}

static void huge_bit_offset(struct btf *btf)
{
	baz(btf)->offset = 0xfffffff8;
}

static void member_past_end(struct btf *btf)
{
	mut(btf, 2)->size = 6;
}

static void array_overflow(struct btf *btf)
{
	btf__add_array(btf, 1, 1, 0x40000000);
}

/* 40 bits in a 4-byte int */
static void bad_int(struct btf *btf)
{
	*(__u32 *)(mut(btf, 1) + 1) = 40;
}

/* libbpf 1.1 divides by a member's alignment: 0 for void */
static void void_member(struct btf *btf)
{
	baz(btf)->type = 0;
}

/* an anonymous struct of 128 MiB prints 2^24 lines of padding */
static void huge_anon(struct btf *btf)
{
	btf__add_struct(btf, NULL, 1 << 27);
	btf__add_ptr(btf, 3);
}

/* anonymous structs, each holding two of the one before: 2^n parts */
static void doubling_anon(struct btf *btf)
{
	int i, prev = 1;

	for (i = 0; i < 20; i++) {
		prev = btf__add_struct(btf, NULL, 8);
		btf__add_field(btf, "a", prev - 1 > 2 ? prev - 1 : 1, 0, 0);
		btf__add_field(btf, "b", prev - 1 > 2 ? prev - 1 : 1, 0, 0);
	}
}

/* libbpf 1.1's btf_dump read a whole union for this, past the data (fuzzer) */
static void composite_bitfield(struct btf *btf)
{
	btf__add_struct(btf, "bf", 8);
	btf__add_field(btf, "s", 2, 0, 3);
}

static void wide_bitfield(struct btf *btf)
{
	btf__add_struct(btf, "bf", 8);
	btf__add_field(btf, "w", 1, 0, 40);
}

/* libbpf 1.1's btf_dump copied it into 16 bytes (fuzzer) */
static void float_size(struct btf *btf)
{
	btf__add_float(btf, "f", 16);
	mut(btf, 3)->size = 130;
}

/* libbpf 1.1's btf_dump walked every element of it, for minutes (fuzzer) */
static void empty_elements(struct btf *btf)
{
	int e = btf__add_struct(btf, "e", 0);

	btf__add_array(btf, 1, e, 0xffffffff);
}

/* unions of unions, 4 bytes each: every level multiplies the walk by 300 */
static void nested_unions(struct btf *btf)
{
	int i, j, prev = 1;

	for (i = 0; i < 3; i++) {
		int u = btf__add_union(btf, "u", 4);

		for (j = 0; j < 300; j++)
			btf__add_field(btf, NULL, prev, 0, 0);
		prev = u;
	}
}

static const struct {
	void (*damage)(struct btf *btf);
	const char *want;
} damaged[] = {
	{ composite_bitfield, "type [3] STRUCT 'bf' member 's' is a 3-bit bitfield of type 2, of "
			      "kind STRUCT and 8 bytes" },
	{ wide_bitfield, "type [3] STRUCT 'bf' member 'w' is a 40-bit bitfield of type 1, of kind "
			 "INT and 4 bytes" },
	{ bad_name, "type [4] FUNC has name offset 2147483392, outside the string section" },
	{ bad_member_name, "type [2] STRUCT 'foo' member 1 has name offset 4294967295, outside "
			   "the string section" },
	{ bad_param_type, "type [3] FUNC_PROTO parameter 'x' refers to type 99999, past the last "
			  "type 4" },
	{ bad_return_type, "type [3] FUNC_PROTO return type refers to type 5, past the last type "
			   "4" },
	{ bad_member_type, "type [2] STRUCT 'foo' member 'baz' refers to type 99999, past the "
			   "last type 2" },
	{ func_not_proto, "type [4] FUNC 'f' has type 1, which is not a FUNC_PROTO" },
	{ typedef_loop, "type [3] TYPEDEF 't' is in a loop of typedefs, modifiers, pointers, "
			"arrays or function prototypes (back from type [4])" },
	{ pointer_loop, "type [3] PTR is in a loop of typedefs, modifiers, pointers, arrays or "
			"function prototypes (back from type [3])" },
	{ array_loop, "type [3] ARRAY is in a loop" },
	{ proto_loop, "type [3] FUNC_PROTO is in a loop" },
	{ anon_pointer_loop, "type [3] STRUCT is in a loop" },
	{ anon_member_self, "type [2] STRUCT 'foo' contains itself (back from type [2])" },
	{ contains_itself, "type [2] STRUCT 'foo' contains itself (back from type [3])" },
	{ huge_bit_offset, "type [2] STRUCT 'foo' member 'baz' at bit 4294967288 ends at bit "
			   "4294967320, past the end of its 8 bytes" },
	{ member_past_end, "type [2] STRUCT 'foo' member 'baz' at bit 32 ends at bit 64, past "
			   "the end of its 6 bytes" },
	{ array_overflow, "type [3] ARRAY has 1073741824 elements of 4 bytes, more than 4 GiB" },
	{ bad_int, "type [1] INT 'int' has 40 bits at bit 0, outside its 4 bytes" },
	{ void_member, "type [2] STRUCT 'foo' member 'baz' has type 0, of kind void, which has no "
		       "size" },
	{ huge_anon, "type [4] PTR has a declaration of more than 65536 parts" },
	{ doubling_anon, "STRUCT has a declaration of more than 65536 parts" },
	{ float_size, "type [3] FLOAT 'f' has size 130, not 2, 4, 8, 12 or 16" },
	{ empty_elements, "type [4] ARRAY would print more than 65536 members and elements" },
	{ nested_unions, "type [4] UNION 'u' would print more than 65792 members and elements" },
};

static void test_damaged(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(damaged); i++) {
		struct btf *btf = base_btf();

		damaged[i].damage(btf);
		expect_msg(btf, damaged[i].want);
	}
}

/* libbpf takes a type section at any offset; ksnoop reads it as __u32s. */
static void test_misaligned(void **state)
{
	struct btf *btf = base_btf();
	struct btf_header *h;
	const void *data;
	char why[256];
	__u8 *raw;
	__u32 size;

	(void)state;
	data = btf__raw_data(btf, &size);
	raw = calloc(1, size + 1);
	assert_non_null(data);
	assert_non_null(raw);
	memcpy(raw, data, size);
	h = (struct btf_header *)raw;
	/* a header one (zero) byte longer */
	memmove(raw + h->hdr_len + 1, raw + h->hdr_len, size - h->hdr_len);
	raw[h->hdr_len] = 0;
	h->hdr_len++;
	btf__free(btf);
	btf = btf__new(raw, size + 1);
	free(raw);
	assert_non_null(btf);
	assert_int_equal(btf_check(btf, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "its type section is not 4-byte aligned");
	btf__free(btf);
}

/* A module's types may refer to vmlinux; its own ids are what is checked. */
static void test_split(void **state)
{
	struct btf *base = reparse(base_btf()), *mod;
	char why[256];
	int s;

	(void)state;
	assert_int_equal(btf_check(base, why, sizeof(why)), 0);
	mod = btf__new_empty_split(base);
	s = btf__add_struct(mod, "m", 12);
	assert_int_equal(s, 3);
	assert_int_equal(btf__add_field(mod, "foo", 2, 0, 0), 0);
	assert_int_equal(btf__add_field(mod, "n", 1, 64, 0), 0);
	assert_int_equal(btf_check(mod, why, sizeof(why)), 0);
	btf_members(mut(mod, s))[1].type = 4;
	assert_int_equal(btf_check(mod, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "type [3] STRUCT 'm' member 'n' refers to type 4, past the last "
				 "type 3");
	btf__free(mod);
	btf__free(base);
}

/* Through kbtf: the file is refused, with -EBADMSG, and not opened. */
static void test_kbtf_refuses(void **state)
{
	struct btf *btf = base_btf();
	struct kbtf *kb;
	char *path;
	int err = 0;

	(void)state;
	add_f(btf);
	btf_members(mut(btf, 2))[0].type = 77;
	path = fixture_write(btf);
	assert_non_null(path);
	util_mute(true);
	kb = kbtf__new(path, &err);
	assert_null(kb);
	assert_int_equal(err, -EBADMSG);
	assert_null(kbtf__new_from_btf(btf));
	util_mute(false);
	unlink(path);
	free(path);
	btf__free(btf);
}

/* A damaged module makes lookups in it fail rather than find nothing. */
static void test_kbtf_bad_module(void **state)
{
	struct btf *base = base_btf(), *mod;
	struct kbtf_func f;
	struct kbtf *kb;

	(void)state;
	add_f(base);
	kb = kbtf__new_from_btf(base);
	assert_non_null(kb);
	mod = btf__new_empty_split(base);
	assert_non_null(mod);
	assert_true(btf__add_ptr(mod, 1) > 0);
	mut(mod, 5)->type = 6;
	util_mute(true);
	assert_int_equal(kbtf__add_module(kb, "badmod", mod), -EBADMSG);
	util_mute(false);
	assert_int_equal(kbtf__find_funcs(kb, "badmod:g", &f, 1), -EBADMSG);
	assert_int_equal(kbtf__find_funcs(kb, "f", &f, 1), 1);
	kbtf__free(kb);
}

static void test_vmlinux(void **state)
{
	char why[256];
	struct btf *btf;

	(void)state;
	if (access(VMLINUX, R_OK)) {
		skip();
		return;
	}
	btf = btf__parse(VMLINUX, NULL);
	assert_non_null(btf);
	if (btf_check(btf, why, sizeof(why)))
		print_error("%s\n", why);
	assert_int_equal(btf_check(btf, why, sizeof(why)), 0);
	btf__free(btf);
}

/* The walkers' own bounds, should unchecked BTF ever reach them. */

static void test_skip_mods_bounded(void **state)
{
	struct btf *btf = base_btf();

	(void)state;
	typedef_loop(btf);
	assert_int_equal(btf_skip_mods(btf, 3), 0);
	btf__free(btf);
}

/*
 * Resolves "g(path)" for int g(struct foo *s) added to btf (freed), after
 * damage; returns plan_resolve_path's result, the offset in *off.
 */
static int resolve_in_g(struct btf *btf, void (*damage)(struct btf *), const char *spec_text,
			int *off)
{
	int ptr = btf__add_ptr(btf, 2), proto = btf__add_func_proto(btf, 1);
	struct kbtf_func f = { .btf = btf };
	struct spec_error serr;
	struct plan_path pp;
	struct spec spec;
	int err;

	assert_int_equal(btf__add_func_param(btf, "s", ptr), 0);
	f.id = btf__add_func(btf, "g", BTF_FUNC_GLOBAL, proto);
	damage(btf);
	assert_int_equal(spec_parse(spec_text, &spec, &serr), 0);
	util_mute(true);
	err = plan_resolve_path(&f, "g", &spec.items[0].path, &pp);
	util_mute(false);
	*off = pp.off;
	spec_free(&spec);
	btf__free(btf);
	return err;
}

static void test_find_member_bounded(void **state)
{
	int off;

	(void)state;
	assert_int_equal(resolve_in_g(base_btf(), anon_member_self, "g(s->nothere)", &off),
			 -ENOENT);
}

static void test_member_offset_64bit(void **state)
{
	int off;

	(void)state;
	/* an int sum of bits went negative here */
	assert_int_equal(resolve_in_g(base_btf(), huge_bit_offset, "g(s->baz)", &off), 0);
	assert_int_equal(off, 0x1fffffff);
}

static void test_json_bounded(void **state)
{
	struct btf *btf = base_btf();
	struct btfjson_opts o = { .max_depth = 4 };
	struct jw jw;
	__u8 data[8] = { 1 };
	struct strbuf sb;
	const char *p;
	int n = 0;

	(void)state;
	/* struct foo { int bar; struct foo <anonymous> at offset 0; } */
	anon_member_self(btf);
	baz(btf)->offset = 0;
	sb_init(&sb);
	jw_init(&jw, &sb);
	btfjson_value(&jw, btf, 2, data, sizeof(data), &o);
	for (p = sb_str(&sb); (p = strstr(p, "\"bar\":1")); p++)
		n++;
	assert_int_equal(n, KBTF_MAX_TYPE_DEPTH + 1);
	sb_free(&sb);
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_kbtf_refuses),
		cmocka_unit_test(test_kbtf_bad_module),
		cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_skip_mods_bounded),
		cmocka_unit_test(test_find_member_bounded),
		cmocka_unit_test(test_member_offset_64bit),
		cmocka_unit_test(test_json_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
