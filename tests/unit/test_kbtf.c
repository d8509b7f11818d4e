// SPDX-License-Identifier: GPL-2.0
/*
 * kbtf.c: prototypes from small BTF blobs built here, name lookup (clones,
 * duplicates, module BTF), suggestions; then a few real functions from this
 * machine's /sys/kernel/btf/vmlinux when it exists.
 */
#include <errno.h>

#include "testutil.h"
#include "lib/kbtf.h"
#include "lib/util.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

struct ctx {
	struct fixture_ids id;
	struct btf *btf; /* owned by kb */
	struct btf *mod; /* owned by kb */
	struct kbtf *kb;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	c->btf = fixture_new(&c->id);
	c->kb = c->btf ? kbtf__new_from_btf(c->btf) : NULL;
	if (!c->kb) {
		btf__free(c->btf);
		free(c);
		return -1;
	}
	c->mod = fixture_module_new(c->btf, &c->id);
	if (!c->mod || kbtf__add_module(c->kb, "fakemod", c->mod)) {
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

	kbtf__free(c->kb);
	free(c);
	return 0;
}

/* The one prototype for name (which must have a single match). */
static void expect_proto(struct ctx *c, const char *name, const char *want)
{
	struct kbtf_func f[KBTF_MAX_MATCHES];
	struct strbuf sb;
	int n;

	n = kbtf__find_funcs(c->kb, name, f, KBTF_MAX_MATCHES);
	if (n != 1)
		print_error("%s: %d matches\n", name, n);
	assert_int_equal(n, 1);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f[0].btf, f[0].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static void test_simple(void **state)
{
	struct ctx *c = *state;

	expect_proto(c, "ip_send_skb", "int ip_send_skb(struct net *net, struct sk_buff *skb)");
	expect_proto(c, "paint", "enum color paint(enum color c)");
	expect_proto(c, "argvfn", "char **argvfn(char **argv)");
}

static void test_no_params(void **state)
{
	expect_proto(*state, "noargs", "long unsigned int noargs(void)");
}

static void test_more_than_five(void **state)
{
	expect_proto(*state, "six", "int six(int a, int b, int c, int d, int e, int f)");
}

static void test_variadic(void **state)
{
	struct ctx *c = *state;
	const struct btf_param *params;
	struct kbtf_func f;
	bool variadic;

	expect_proto(c, "vlog", "int vlog(int level, const char *fmt, ...)");
	expect_proto(c, "vonly", "int vonly(...)");

	assert_int_equal(kbtf__find_funcs(c->kb, "vlog", &f, 1), 1);
	assert_int_equal(kbtf_func_params(f.btf, f.id, &params, &variadic), 2);
	assert_true(variadic);
	assert_int_equal(params[1].type, c->id.const_char_ptr);
	assert_int_equal(kbtf__find_funcs(c->kb, "six", &f, 1), 1);
	assert_int_equal(kbtf_func_params(f.btf, f.id, &params, &variadic), 6);
	assert_false(variadic);
	assert_int_equal(kbtf__find_funcs(c->kb, "noargs", &f, 1), 1);
	assert_int_equal(kbtf_func_params(f.btf, f.id, &params, &variadic), 0);
	assert_false(variadic);
	/* not a FUNC */
	assert_int_equal(kbtf_func_params(c->btf, c->id.int_t, &params, &variadic), -EINVAL);
}

static void test_function_pointers(void **state)
{
	struct ctx *c = *state;

	expect_proto(c, "register_cb", "void register_cb(int (*cb)(void *), void *data)");
	/* a function returning a function pointer */
	expect_proto(c, "get_handler", "int (*get_handler(int type))(void *)");
}

static void test_array_param(void **state)
{
	expect_proto(*state, "fill", "void fill(int arr[4])");
}

static void test_const_volatile(void **state)
{
	/* CONST -> VOLATILE -> int; "volatile const" is the same C type */
	expect_proto(*state, "cv", "void cv(volatile const int *p, volatile int v, const void *q)");
}

static void test_typedef_chain(void **state)
{
	struct ctx *c = *state;

	/* typedefs are printed by name, not resolved */
	expect_proto(c, "hash", "my_u32 hash(my_u32 seed)");
	expect_proto(c, "vmlinux:hash", "my_u32 hash(my_u32 seed)");
}

static void test_unnamed_params(void **state)
{
	expect_proto(*state, "unnamed", "int unnamed(int, char *)");
}

static void test_anon_struct_param(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f;
	struct strbuf sb;

	assert_int_equal(kbtf__find_funcs(c->kb, "anon", &f, 1), 1);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f.btf, f.id, NULL, &sb), 0);
	/* spelled out in full, on one line */
	assert_string_equal(sb_str(&sb), "void anon(struct { int x; } s)");
	/* text already in the buffer is left alone */
	sb_reset(&sb);
	sb_printf(&sb, "a\n\tb ");
	assert_int_equal(kbtf_format_proto(f.btf, f.id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "a\n\tb void anon(struct { int x; } s)");
	sb_free(&sb);
}

static void test_format_decl(void **state)
{
	struct ctx *c = *state;
	struct strbuf sb;

	sb_init(&sb);
	assert_int_equal(kbtf_format_decl(c->btf, c->id.skb_ptr, "skb", &sb), 0);
	assert_string_equal(sb_str(&sb), "struct sk_buff *skb");
	sb_reset(&sb);
	assert_int_equal(kbtf_format_decl(c->btf, c->id.cb_ptr, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "int (*)(void *)");
	sb_reset(&sb);
	assert_int_equal(kbtf_format_decl(c->btf, c->id.int_arr4, "a", &sb), 0);
	assert_string_equal(sb_str(&sb), "int a[4]");
	sb_reset(&sb);
	assert_int_equal(kbtf_format_decl(c->btf, 0, "v", &sb), 0);
	assert_string_equal(sb_str(&sb), "void v");
	sb_free(&sb);
}

static void test_name_override(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f;
	struct strbuf sb;

	/* info prints a clone under the name it was asked for */
	assert_int_equal(kbtf__find_funcs(c->kb, "get_handler", &f, 1), 1);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f.btf, f.id, "get_handler.isra.0", &sb), 0);
	assert_string_equal(sb_str(&sb), "int (*get_handler.isra.0(int type))(void *)");
	sb_reset(&sb);
	/* not a FUNC id */
	assert_int_equal(kbtf_format_proto(c->btf, c->id.int_t, NULL, &sb), -EINVAL);
	assert_int_equal(kbtf_format_proto(c->btf, 99999, NULL, &sb), -EINVAL);
	sb_free(&sb);
}

static void test_clone_suffixes(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f[2];

	(void)state;
	assert_int_equal(kbtf_base_name_len("ip_send_skb"), 11);
	assert_int_equal(kbtf_base_name_len("ip_send_skb.isra.0"), 11);
	assert_int_equal(kbtf_base_name_len("foo.constprop.0"), 3);
	assert_int_equal(kbtf_base_name_len("foo.part.0"), 3);
	assert_int_equal(kbtf_base_name_len("foo.cold"), 3);
	assert_int_equal(kbtf_base_name_len(".foo"), 4);
	assert_int_equal(kbtf_base_name_len(""), 0);

	assert_int_equal(kbtf__find_funcs(c->kb, "ip_send_skb.isra.0", f, 2), 1);
	assert_string_equal(btf__name_by_offset(f[0].btf,
						btf__type_by_id(f[0].btf, f[0].id)->name_off),
			    "ip_send_skb");
	assert_null(f[0].module);
	assert_int_equal(kbtf__find_funcs(c->kb, "six.constprop.0", f, 2), 1);
	assert_int_equal(kbtf__find_funcs(c->kb, "six.constprop.0.isra.0", f, 2), 1);
	/* a prefix is not a match */
	assert_int_equal(kbtf__find_funcs(c->kb, "ip_send", f, 2), 0);
	assert_int_equal(kbtf__find_funcs(c->kb, "ip_send_skb_x", f, 2), 0);
	assert_int_equal(kbtf__find_funcs(c->kb, "", f, 2), -EINVAL);
	assert_int_equal(kbtf__find_funcs(c->kb, ".isra.0", f, 2), 0);
}

static void test_duplicates(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f[KBTF_MAX_MATCHES];
	struct strbuf sb;

	assert_int_equal(kbtf__find_funcs(c->kb, "dup_static", f, KBTF_MAX_MATCHES), 2);
	assert_true(f[0].id < f[1].id);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f[0].btf, f[0].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "int dup_static(int a)");
	sb_reset(&sb);
	assert_int_equal(kbtf_format_proto(f[1].btf, f[1].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "void dup_static(char *s)");
	sb_free(&sb);
	/* max is honoured */
	assert_int_equal(kbtf__find_funcs(c->kb, "dup_static", f, 1), 1);
}

static void test_module_lookup(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f[4];
	struct strbuf sb;

	/* not in vmlinux: found in module BTF */
	assert_int_equal(kbtf__find_funcs(c->kb, "mod_func", f, 4), 1);
	assert_non_null(f[0].module);
	assert_string_equal(f[0].module, "fakemod");
	assert_ptr_equal(f[0].btf, c->mod);
	/* module types refer to vmlinux types (split BTF) */
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f[0].btf, f[0].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "int mod_func(struct sk_buff *skb)");
	sb_reset(&sb);
	assert_int_equal(kbtf__find_funcs(c->kb, "mod_only", f, 4), 1);
	assert_int_equal(kbtf_format_proto(f[0].btf, f[0].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), "void mod_only(u32 x)");
	sb_free(&sb);

	/* module:function */
	assert_int_equal(kbtf__find_funcs(c->kb, "fakemod:mod_func", f, 4), 1);
	assert_string_equal(f[0].module, "fakemod");
	assert_int_equal(kbtf__find_funcs(c->kb, "fakemod:mod_func.isra.0", f, 4), 1);
	/* vmlinux functions are not in the module's own types */
	assert_int_equal(kbtf__find_funcs(c->kb, "fakemod:ip_send_skb", f, 4), 0);
	assert_int_equal(kbtf__find_funcs(c->kb, "vmlinux:ip_send_skb", f, 4), 1);
	assert_null(f[0].module);
	assert_int_equal(kbtf__find_funcs(c->kb, "vmlinux:mod_func", f, 4), 0);
	assert_int_equal(kbtf__find_funcs(c->kb, "othermod:mod_func", f, 4), 0);
	/* malformed module prefixes */
	assert_int_equal(kbtf__find_funcs(c->kb, ":mod_func", f, 4), -EINVAL);
	assert_int_equal(kbtf__find_funcs(c->kb, "fakemod:", f, 4), -EINVAL);
	{
		char name[200];

		memset(name, 'm', 100);
		strcpy(name + 100, ":mod_func");
		assert_int_equal(kbtf__find_funcs(c->kb, name, f, 4), -EINVAL);
	}
}

static void test_suggest(void **state)
{
	struct ctx *c = *state;
	const char *s;

	s = kbtf__suggest(c->kb, "ip_send_skbb");
	assert_non_null(s);
	assert_string_equal(s, "ip_send_skb");
	s = kbtf__suggest(c->kb, "ip_snd_skb");
	assert_non_null(s);
	assert_string_equal(s, "ip_send_skb");
	s = kbtf__suggest(c->kb, "regster_cb");
	assert_non_null(s);
	assert_string_equal(s, "register_cb");
	/* nothing close */
	assert_null(kbtf__suggest(c->kb, "completely_different_name"));
	/* short names allow few edits: "sx" -> "six" is 1 edit, "qq" is not close */
	s = kbtf__suggest(c->kb, "sx");
	assert_non_null(s);
	assert_string_equal(s, "six");
	assert_null(kbtf__suggest(c->kb, "qq"));
	assert_null(kbtf__suggest(c->kb, ""));
}

static void test_raw_file(void **state)
{
	struct ctx *c = *state;
	struct kbtf_func f;
	struct kbtf *kb;
	char *path;
	int err = 0;

	/* the same blob written out and read back through kbtf__new */
	path = fixture_write(c->btf);
	assert_non_null(path);
	kb = kbtf__new(path, &err);
	unlink(path);
	free(path);
	assert_non_null(kb);
	assert_int_equal(err, 0);
	assert_int_equal(kbtf__find_funcs(kb, "get_handler", &f, 1), 1);
	/* --btf means offline: no module BTF from sysfs */
	assert_int_equal(kbtf__find_funcs(kb, "mod_func", &f, 1), 0);
	kbtf__free(kb);

	kb = kbtf__new("/nonexistent/btf", &err);
	assert_null(kb);
	assert_int_equal(err, -ENOENT);
	kbtf__free(NULL);
}

/* Real kernel BTF. */

static struct kbtf *open_vmlinux(void)
{
	struct kbtf *kb;
	int err;

	if (access(VMLINUX, R_OK))
		return NULL;
	kb = kbtf__new(NULL, &err);
	assert_non_null(kb);
	return kb;
}

static void expect_vmlinux(struct kbtf *kb, const char *name, const char *want)
{
	struct kbtf_func f[KBTF_MAX_MATCHES];
	struct strbuf sb;
	int n;

	n = kbtf__find_funcs(kb, name, f, KBTF_MAX_MATCHES);
	if (n < 1)
		print_error("%s: not in " VMLINUX "\n", name);
	assert_true(n >= 1);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f[0].btf, f[0].id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static void test_vmlinux(void **state)
{
	struct kbtf *kb = open_vmlinux();

	(void)state;
	if (!kb) {
		skip();
		return;
	}
	/* stable for years, and listed in FACTS.md */
	expect_vmlinux(kb, "ip_send_skb", "int ip_send_skb(struct net *net, struct sk_buff *skb)");
	expect_vmlinux(kb, "vfs_write",
		       "ssize_t vfs_write(struct file *file, const char *buf, size_t count, "
		       "loff_t *pos)");
	expect_vmlinux(kb, "ksys_write",
		       "ssize_t ksys_write(unsigned int fd, const char *buf, size_t count)");
	expect_vmlinux(kb, "ip_send_skb.isra.0",
		       "int ip_send_skb(struct net *net, struct sk_buff *skb)");
	expect_vmlinux(kb, "vmlinux:ip_send_skb",
		       "int ip_send_skb(struct net *net, struct sk_buff *skb)");
	assert_string_equal(kbtf__suggest(kb, "ip_send_skbb"), "ip_send_skb");
	kbtf__free(kb);
}

static void test_vmlinux_variadic(void **state)
{
	struct kbtf *kb = open_vmlinux();
	struct kbtf_func f;
	struct strbuf sb;

	(void)state;
	if (!kb) {
		skip();
		return;
	}
	/* the reference spins forever on this one */
	assert_int_equal(kbtf__find_funcs(kb, "kthread_create_on_node", &f, 1), 1);
	sb_init(&sb);
	assert_int_equal(kbtf_format_proto(f.btf, f.id, NULL, &sb), 0);
	assert_string_equal(sb_str(&sb),
			    "struct task_struct *kthread_create_on_node(int (*threadfn)(void *), "
			    "void *data, int node, const char *namefmt, ...)");
	sb_free(&sb);
	kbtf__free(kb);
}

/* A stand-in for kallsyms: the names ctx lists, NULL-terminated. */
static bool listed(void *ctx, const char *name)
{
	const char *const *n;

	for (n = ctx; *n; n++) {
		if (!strcmp(*n, name))
			return true;
	}
	return false;
}

static void test_funcs_found(void **state)
{
	static const char *const some[] = { "vonly", "mod_only", "not_in_btf", NULL };
	static const char *const none[] = { NULL };
	struct ctx *c = *state;
	unsigned int total, found, all;

	found = kbtf__funcs_found(c->btf, listed, (void *)some, &total);
	assert_true(total > 2);
	/* vonly is vmlinux's; mod_only is a module's, not in this BTF */
	assert_int_equal(found, 1);
	assert_int_equal(kbtf__funcs_found(c->btf, listed, (void *)none, &all), 0);
	assert_int_equal(all, total);
}

/* The modules in turn, for walks over every module's types (trace --follow). */
static void test_modules_walk(void **state)
{
	struct ctx *c = *state;
	const char *name = NULL;

	assert_int_equal(kbtf__nr_modules(c->kb), 1);
	assert_ptr_equal(kbtf__module(c->kb, 0, &name), c->mod);
	assert_string_equal(name, "fakemod");
	assert_null(kbtf__module(c->kb, 1, &name));
	assert_null(kbtf__module(c->kb, -1, &name));
	/* its types follow vmlinux's */
	assert_true(btf__type_cnt(c->mod) > btf__type_cnt(c->btf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_no_params),
		cmocka_unit_test(test_more_than_five),
		cmocka_unit_test(test_variadic),
		cmocka_unit_test(test_function_pointers),
		cmocka_unit_test(test_array_param),
		cmocka_unit_test(test_const_volatile),
		cmocka_unit_test(test_typedef_chain),
		cmocka_unit_test(test_unnamed_params),
		cmocka_unit_test(test_anon_struct_param),
		cmocka_unit_test(test_format_decl),
		cmocka_unit_test(test_name_override),
		cmocka_unit_test(test_clone_suffixes),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_module_lookup),
		cmocka_unit_test(test_modules_walk),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_raw_file),
		cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_vmlinux_variadic),
		cmocka_unit_test(test_funcs_found),
	};

	return cmocka_run_group_tests_name("kbtf", tests, setup, teardown);
}
