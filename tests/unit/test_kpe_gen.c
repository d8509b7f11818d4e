// SPDX-License-Identifier: GPL-2.0
/*
 * kpe_gen.c: ksnoop specs into kprobe_events lines, against the BTF
 * fixture of testutil.h (sk_buff.len at 0, sk_buff.net at 8), then one
 * line from this machine's vmlinux BTF when it can be read.
 */
#include <errno.h>
#include <regex.h>

#include "testutil.h"
#include "kpe/gen.h"
#include "lib/util.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

struct ctx {
	struct fixture_ids id;
	struct kbtf *kb;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct btf *btf;

	if (!c)
		return -1;
	btf = fixture_new(&c->id);
	c->kb = btf ? kbtf__new_from_btf(btf) : NULL;
	if (!c->kb)
		return -1;
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

/* The lines kprobe-events prints for spec, or NULL when it fails. */
static char *gen(struct kbtf *kb, const struct kpe_gen_opts *o, const char *spec, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*err = kpe_gen_spec(o, kb, spec, f);
	fclose(f);
	return buf;
}

static void expect_gen(struct ctx *c, const struct kpe_gen_opts *o, const char *spec,
		       const char *want)
{
	int err;
	char *got = gen(c->kb, o, spec, &err);

	if (err || strcmp(got, want))
		print_error("'%s': err %d, got\n%s\nwant\n%s\n", spec, err, got, want);
	assert_int_equal(err, 0);
	assert_string_equal(got, want);
	free(got);
}

static const struct kpe_gen_opts kprobes = { .group = "ksnoop" };

static void test_members(void **state)
{
	struct ctx *c = *state;

	/* the example */
	expect_gen(c, &kprobes, "ip_send_skb(skb->len)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb_len=+0(%si):u32\n");
	expect_gen(c, &kprobes, "ip_send_skb(skb->net->ifindex, skb->net)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb_net_ifindex=+0(+8(%si)):s32 "
		   "skb_net=+8(%si):x64\n");
	/* a struct pointer is fetched as the pointer: tracefs cannot dump it */
	expect_gen(c, &kprobes, "ip_send_skb(skb)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb=%si:x64\n");
}

static void test_params_and_return(void **state)
{
	struct ctx *c = *state;

	expect_gen(c, &kprobes, "ip_send_skb",
		   "p:ksnoop/ip_send_skb ip_send_skb net=%di:x64 skb=%si:x64\n"
		   "r:ksnoop/ip_send_skb_ret ip_send_skb ret=$retval:s32\n");
	expect_gen(c, &kprobes, "noargs",
		   "p:ksnoop/noargs noargs\nr:ksnoop/noargs_ret noargs ret=$retval:u64\n");
	expect_gen(c, &kprobes, "six(f, a)", "p:ksnoop/six six f=%r9:s32 a=%di:s32\n");
	expect_gen(c, &kprobes, "vlog(fmt)", "p:ksnoop/vlog vlog fmt=+0(%si):string\n");
	expect_gen(c, &kprobes, "paint(c, return)",
		   "p:ksnoop/paint paint c=%di:s32\nr:ksnoop/paint_ret paint ret=$retval:s32\n");
	expect_gen(c, &kprobes, "hash(seed)", "p:ksnoop/hash hash seed=%di:u32\n");
	expect_gen(c, &kprobes, "argvfn(argv)", "p:ksnoop/argvfn argvfn argv=%di:x64\n");
	expect_gen(c, &kprobes, "ip_send_skb(return)",
		   "r:ksnoop/ip_send_skb_ret ip_send_skb ret=$retval:s32\n");
}

static void test_fprobe_and_group(void **state)
{
	struct ctx *c = *state;
	struct kpe_gen_opts o = { .fprobe = true, .group = "mine" };

	expect_gen(c, &o, "ip_send_skb(skb->len, return)",
		   "f:mine/ip_send_skb ip_send_skb skb_len=+0($arg2):u32\n"
		   "f:mine/ip_send_skb_ret ip_send_skb%return ret=$retval:s32\n");
}

/* Two specs of one function in one run get events of their own. */
static void test_unique_events(void **state)
{
	struct ctx *c = *state;
	struct strbuf used = {};
	struct kpe_gen_opts o = { .group = "ksnoop", .used = &used };

	expect_gen(c, &o, "ip_send_skb(skb->len)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb_len=+0(%si):u32\n");
	expect_gen(c, &o, "ip_send_skb(return)",
		   "r:ksnoop/ip_send_skb_2_ret ip_send_skb ret=$retval:s32\n");
	expect_gen(c, &o, "noargs(return)", "r:ksnoop/noargs_ret noargs ret=$retval:u64\n");
	sb_free(&used);
}

static void test_filters(void **state)
{
	struct ctx *c = *state;

	expect_gen(c, &kprobes, "ip_send_skb(skb->len > 100)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb_len=+0(%si):u32\n"
		   "# echo 'skb_len > 100' > events/ksnoop/ip_send_skb/filter\n");
	expect_gen(c, &kprobes, "vlog(level, fmt == \"err*\" || level != -1)",
		   "p:ksnoop/vlog vlog level=%di:s32 fmt=+0(%si):string level_1=%di:s32\n"
		   "# echo '(fmt ~ \"err*\" || level != -1)' > events/ksnoop/vlog/filter\n");
	/* entry and return values cannot be filtered together in tracefs */
	util_mute(true);
	expect_gen(c, &kprobes, "ip_send_skb(skb->len > 100 && return == 0)",
		   "p:ksnoop/ip_send_skb ip_send_skb skb_len=+0(%si):u32\n"
		   "r:ksnoop/ip_send_skb_ret ip_send_skb ret=$retval:s32\n");
	util_mute(false);
}

static void test_errors(void **state)
{
	struct ctx *c = *state;
	char *out;
	int err;

	util_mute(true);
	/* a struct passed by value has no kprobe_events type */
	out = gen(c->kb, &kprobes, "anon(s)", &err);
	assert_int_equal(err, -EINVAL);
	assert_string_equal(out, "");
	free(out);
	out = gen(c->kb, &kprobes, "ip_send_skb(skb->nope)", &err);
	assert_true(err < 0);
	free(out);
	out = gen(c->kb, &kprobes, "no_such_function(x)", &err);
	assert_true(err < 0);
	free(out);
	out = gen(c->kb, &kprobes, "ip_send_skb(", &err);
	assert_int_equal(err, -EINVAL);
	free(out);
	util_mute(false);
}

/* This machine's kernel: offsets come from its BTF, the shape is fixed. */
static void test_vmlinux(void **state)
{
	struct kbtf *kb;
	regex_t re;
	char *out;
	int err;

	(void)state;
	if (access(VMLINUX, R_OK)) {
		skip();
		return;
	}
	kb = kbtf__new(NULL, &err);
	assert_non_null(kb);
	out = gen(kb, &kprobes, "ip_send_skb(skb->len, skb->sk->__sk_common.skc_daddr)", &err);
	assert_int_equal(err, 0);
	assert_int_equal(
		regcomp(&re,
			"^p:ksnoop/ip_send_skb ip_send_skb skb_len=\\+[0-9]+\\(%si\\):u32 "
			"skb_sk___sk_common_skc_daddr=\\+[0-9]+\\(\\+[0-9]+\\(%si\\)\\):u32\n$",
			REG_EXTENDED),
		0);
	if (regexec(&re, out, 0, NULL, 0))
		print_error("got: %s", out);
	assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
	regfree(&re);
	free(out);
	out = gen(kb, &kprobes, "do_sys_openat2(filename)", &err);
	assert_int_equal(err, 0);
	assert_string_equal(out,
			    "p:ksnoop/do_sys_openat2 do_sys_openat2 filename=+0(%si):string\n");
	free(out);
	kbtf__free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members),		 cmocka_unit_test(test_params_and_return),
		cmocka_unit_test(test_fprobe_and_group), cmocka_unit_test(test_unique_events),
		cmocka_unit_test(test_filters),		 cmocka_unit_test(test_errors),
		cmocka_unit_test(test_vmlinux),
	};

	return cmocka_run_group_tests_name("kpe_gen", tests, setup, teardown);
}
