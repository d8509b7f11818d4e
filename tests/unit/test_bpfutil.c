// SPDX-License-Identifier: GPL-2.0
/*
 * bpfutil: errno names and the one-phrase explanations that ksnoop feature
 * and the attach fallback print. The texts depend on the caller's uid and on
 * whether kprobes exist, so each test asks the same questions the code does.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "testutil.h"
#include "lib/bpfutil.h"
#include "lib/errnames.h"
#include "lib/util.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

static const char *explain(const char *kind, enum bpfutil_op op, int err, struct strbuf *sb)
{
	sb_reset(sb);
	bpfutil_explain(sb, kind, op, err);
	return sb_str(sb);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = strlen(s), lt = strlen(tail);

	return ls >= lt && !strcmp(s + ls - lt, tail);
}

static void test_errno_names(void **state UNUSED)
{
	char buf[32];

	assert_string_equal(bpfutil_errno_name(EPERM, buf, sizeof(buf)), "EPERM");
	assert_string_equal(bpfutil_errno_name(-EPERM, buf, sizeof(buf)), "EPERM");
	assert_string_equal(bpfutil_errno_name(-EOPNOTSUPP, buf, sizeof(buf)), "EOPNOTSUPP");
	assert_string_equal(bpfutil_errno_name(ENOTSUPP, buf, sizeof(buf)), "ENOTSUPP");
	assert_string_equal(bpfutil_errno_name(4242, buf, sizeof(buf)), "errno 4242");
	/* A crafted trace file can carry any error; negating INT_MIN is UB. */
	assert_null(errno_name(INT_MIN));
	assert_string_equal(bpfutil_errno_name(INT_MIN, buf, sizeof(buf)), "errno 2147483648");
}

static void test_explain_permission(void **state UNUSED)
{
	struct strbuf sb;

	sb_init(&sb);
	if (geteuid() == 0) {
		assert_string_equal(
			explain("fentry", BPFUTIL_LOAD, -EPERM, &sb),
			"loading fentry programs is not permitted on this kernel (EPERM)");
		assert_string_equal(explain("fentry", BPFUTIL_LOAD, EACCES, &sb),
				    "the kernel's verifier rejected the fentry program; "
				    "run with -d for its log (EACCES)");
	} else {
		assert_string_equal(explain("fentry", BPFUTIL_LOAD, -EPERM, &sb),
				    "loading fentry programs needs root "
				    "(or CAP_BPF and CAP_PERFMON) (EPERM)");
	}
	sb_free(&sb);
}

static void test_explain_missing(void **state UNUSED)
{
	struct strbuf sb;
	const char *s;

	sb_init(&sb);
	s = explain("kprobe", BPFUTIL_ATTACH, -ENOENT, &sb);
	if (bpfutil_have_kprobes())
		assert_non_null(strstr(s, "no such function"));
	else
		assert_non_null(strstr(s, "kprobes are not available on this kernel"));
	assert_true(ends_with(s, " (ENOENT)"));

	/* Not a kprobe: never blamed on missing kprobes. */
	s = explain("fentry", BPFUTIL_ATTACH, ENOENT, &sb);
	assert_string_equal(s, "the kernel has no such function to attach fentry programs to, "
			       "or it is not traceable (ENOENT)");
	sb_free(&sb);
}

static void test_explain_unsupported(void **state UNUSED)
{
	struct strbuf sb;

	sb_init(&sb);
	assert_string_equal(explain("kprobe.multi", BPFUTIL_ATTACH, -EOPNOTSUPP, &sb),
			    "kprobe.multi links are not supported by this kernel, they need "
			    "Linux 5.18+ with CONFIG_FPROBE=y (EOPNOTSUPP)");
	assert_string_equal(explain("fexit", BPFUTIL_ATTACH, -ENOTSUPP, &sb),
			    "fexit programs are not supported by this kernel (ENOTSUPP)");
	/* 5.10 knows no kprobe.multi attach type: EINVAL at attach */
	assert_string_equal(explain("kprobe.multi", BPFUTIL_ATTACH, -EINVAL, &sb),
			    "kprobe.multi links are not supported by this kernel, they need "
			    "Linux 5.18+ with CONFIG_FPROBE=y (EINVAL)");
	assert_non_null(strstr(explain("kprobe.multi", BPFUTIL_LOAD, -EINVAL, &sb),
			       "rejected loading the kprobe.multi program as invalid"));
	sb_free(&sb);
}

static void test_explain_other(void **state UNUSED)
{
	struct strbuf sb;

	sb_init(&sb);
	assert_string_equal(explain("fentry", BPFUTIL_LOAD, -ESRCH, &sb),
			    "the target function of the fentry program is not in kernel BTF "
			    "(ESRCH)");
	assert_string_equal(explain("kprobe", BPFUTIL_ATTACH, -EMFILE, &sb),
			    "attaching kprobe programs: too many open files (EMFILE): raise the "
			    "limit with ulimit -n");
	/* Unknown errors fall back to strerror and the number. */
	assert_true(ends_with(explain("kprobe", BPFUTIL_ATTACH, -4242, &sb), " (errno 4242)"));
	assert_non_null(strstr(sb_str(&sb), "attaching kprobe programs failed: "));
	sb_free(&sb);
}

/* The process's own memory, not the kernel's nor the function's fault. */
static void test_explain_out_of_memory(void **state UNUSED)
{
	struct strbuf sb;

	sb_init(&sb);
	assert_string_equal(explain("fentry", BPFUTIL_LOAD, -ENOMEM, &sb),
			    "loading fentry programs: out of memory (ENOMEM): free memory, or "
			    "raise the limit of ulimit -v");
	sb_free(&sb);
}

/*
 * libbpf says ESRCH ("not in BTF") of a target it failed to look up for
 * want of memory: near the end of the address space ulimit -v allows, the
 * ESRCH is memory's. (ASan's shadow mappings leave no room for a limit.)
 */
static void test_explain_esrch_near_the_limit(void **state UNUSED)
{
#if defined(__SANITIZE_ADDRESS__)
	skip();
#else
	struct rlimit saved, tight;
	char status[8192], *vm;
	const char *why;
	struct strbuf sb;
	FILE *f;
	size_t n;

	f = fopen("/proc/self/status", "r");
	assert_non_null(f);
	n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = '\0';
	vm = strstr(status, "VmSize:");
	assert_non_null(vm);
	sb_init(&sb);
	assert_int_equal(getrlimit(RLIMIT_AS, &saved), 0);
	tight = saved;
	/* 4 MB above the current size: under the 16 MB margin */
	tight.rlim_cur = strtoull(vm + 7, NULL, 10) * 1024 + (4 << 20);
	assert_int_equal(setrlimit(RLIMIT_AS, &tight), 0);
	why = explain("fentry", BPFUTIL_LOAD, -ESRCH, &sb);
	assert_int_equal(setrlimit(RLIMIT_AS, &saved), 0);
	assert_non_null(strstr(why, "out of memory (ENOMEM)"));
	assert_null(strstr(why, "kernel BTF"));
	sb_free(&sb);
#endif
}

/*
 * The grace period through a map-in-map: it needs the right to create
 * maps, which a unit run as root has on this kernel and every one since
 * 5.10; an unprivileged run gets EPERM, named.
 */
static void test_wait_programs(void **state UNUSED)
{
	int err = bpfutil_wait_programs();

	if (geteuid() != 0) {
		assert_true(err == 0 || err == -EPERM);
		skip();
	}
	assert_int_equal(err, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_names),
		cmocka_unit_test(test_explain_permission),
		cmocka_unit_test(test_explain_missing),
		cmocka_unit_test(test_explain_unsupported),
		cmocka_unit_test(test_explain_other),
		cmocka_unit_test(test_wait_programs),
		cmocka_unit_test(test_explain_out_of_memory),
		cmocka_unit_test(test_explain_esrch_near_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
