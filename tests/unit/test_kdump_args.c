// SPDX-License-Identifier: GPL-2.0
/* Argument, return value and signal decoding for kdump lines. */
#include "test_kdump_common.h"

#include "ktr/args.h"

static const struct ktr_fmt_opts fancy = { .names = true };
static const struct ktr_fmt_opts raw = { .raw = true, .names = true };
static const struct ktr_fmt_opts dec = { .decimal = true, .names = true };

static struct ktr_syscall call(const char *name, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
			       uint64_t a4, uint64_t a5)
{
	struct ktr_syscall c = { .nargs = KTR_SYSCALL_ARGS, .args = { a0, a1, a2, a3, a4, a5 } };
	int nr = ktr_sys_by_name(name);

	assert_true(nr >= 0);
	c.code = nr;
	return c;
}

static void expect_call(const struct ktr_syscall *c, const struct ktr_fmt_opts *o, const char *want)
{
	struct strbuf sb;

	sb_init(&sb);
	ktr_format_call(&sb, c, o);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

/* The example line, with the upper register half an int leaves. */
static void test_openat_example(void **state)
{
	struct ktr_syscall c = call("openat", 0xffffff9c, 0x7ffd5c2e3a10, 0x80000, 0x1234, 0, 0);

	(void)state;
	expect_call(&c, &fancy, "openat(AT_FDCWD,0x7ffd5c2e3a10,0x80000<O_RDONLY|O_CLOEXEC>)");
	c.args[0] = (uint64_t)-100; /* sign-extended the other way: same */
	expect_call(&c, &fancy, "openat(AT_FDCWD,0x7ffd5c2e3a10,0x80000<O_RDONLY|O_CLOEXEC>)");
}

static void test_openat_create_shows_mode(void **state)
{
	struct ktr_syscall c = call("openat", 5, 0x1000, 0x80241, 0644, 0, 0);

	(void)state;
	expect_call(&c, &fancy,
		    "openat(5,0x1000,0x80241<O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC>,0644)");
}

static void test_oflags_rest(void **state)
{
	struct strbuf sb;

	(void)state;
	sb_init(&sb);
	ktr_format_oflags(&sb, 0x2 | 0x40000000);
	assert_string_equal(sb_str(&sb), "0x40000002<O_RDWR|0x40000000>");
	sb_reset(&sb);
	ktr_format_oflags(&sb, 0);
	assert_string_equal(sb_str(&sb), "0<O_RDONLY>");
	sb_free(&sb);
}

static void test_mmap(void **state)
{
	struct ktr_syscall c = call("mmap", 0, 0x1000, 3, 0x22, 0xffffffffffffffffULL, 0);

	(void)state;
	expect_call(
		&c, &fancy,
		"mmap(0,0x1000,0x3<PROT_READ|PROT_WRITE>,0x22<MAP_PRIVATE|MAP_ANONYMOUS>,-1,0)");
	c = call("mprotect", 0x7f0000000000, 0x2000, 0, 0, 0, 0);
	expect_call(&c, &fancy, "mprotect(0x7f0000000000,0x2000,0<PROT_NONE>)");
}

static void test_read_and_decimal(void **state)
{
	struct ktr_syscall c = call("read", 3, 0x7ffe00001000, 0x1000, 0, 0, 0);

	(void)state;
	expect_call(&c, &fancy, "read(3,0x7ffe00001000,0x1000)");
	expect_call(&c, &dec, "read(3,0x7ffe00001000,4096)");
	expect_call(&c, &raw, "read(0x3,0x7ffe00001000,0x1000)");
}

static void test_raw_keeps_registers(void **state)
{
	struct ktr_syscall c = call("openat", 0xffffff9c, 0x7ffd5c2e3a10, 0x80000, 0, 0, 0);

	(void)state;
	expect_call(&c, &raw, "openat(0xffffff9c,0x7ffd5c2e3a10,0x80000,0)");
}

static void test_unknown_syscall(void **state)
{
	struct ktr_syscall c = { .code = 999, .nargs = 6, .args = { 1, 2, 3, 4, 5, 6 } };
	struct ktr_fmt_opts foreign = { .raw = true };

	(void)state;
	expect_call(&c, &fancy, "[999](0x1,0x2,0x3,0x4,0x5,0x6)");
	/* No prototype: the arguments the record holds, no more. */
	c.nargs = 2;
	expect_call(&c, &fancy, "[999](0x1,0x2)");
	c.code = 0;
	c.nargs = 6;
	expect_call(&c, &foreign, "[0](0x1,0x2,0x3,0x4,0x5,0x6)");
}

static void test_signals_and_at_flags(void **state)
{
	struct ktr_syscall c = call("kill", 1234, 10, 0, 0, 0, 0);

	(void)state;
	expect_call(&c, &fancy, "kill(1234,SIGUSR1)");
	c = call("kill", 1, 99, 0, 0, 0, 0);
	expect_call(&c, &fancy, "kill(1,99)");
	c = call("unlinkat", 0xffffff9c, 0x5000, 0x200, 0, 0, 0);
	expect_call(&c, &fancy, "unlinkat(AT_FDCWD,0x5000,0x200<AT_REMOVEDIR>)");
	c = call("rt_sigprocmask", 2, 0x6000, 0, 8, 0, 0);
	expect_call(&c, &fancy, "rt_sigprocmask(SIG_SETMASK,0x6000,0,0x8)");
}

static void test_negative_int(void **state)
{
	struct ktr_syscall c = call("exit_group", 0xffffffff, 0, 0, 0, 0, 0);

	(void)state;
	expect_call(&c, &fancy, "exit_group(-1)");
	c = call("close", 0xffffffff, 0, 0, 0, 0, 0);
	expect_call(&c, &fancy, "close(-1)");
}

static void expect_ret(int32_t err, int64_t val, const struct ktr_fmt_opts *o, const char *want)
{
	struct ktr_sysret r = { .code = ktr_sys_by_name("openat"), .error = err, .retval = val };
	struct strbuf sb;

	sb_init(&sb);
	ktr_format_ret(&sb, &r, o);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static void test_sysret(void **state)
{
	(void)state;
	expect_ret(0, 3, &fancy, "openat 3");
	expect_ret(0, 4096, &fancy, "openat 4096/0x1000");
	expect_ret(0, 4096, &dec, "openat 4096");
	expect_ret(2, -2, &fancy, "openat -1 errno 2 ENOENT");
	expect_ret(2, -2, &raw, "openat -1 errno 2");
	expect_ret(512, -512, &fancy, "openat RESTART");
	expect_ret(4000, -4000, &fancy, "openat -1 errno 4000");
}

static void expect_psig(const struct ktr_psig *p, const char *want)
{
	struct strbuf sb;

	sb_init(&sb);
	ktr_format_psig(&sb, p, &fancy);
	assert_string_equal(sb_str(&sb), want);
	sb_free(&sb);
}

static void test_psig(void **state)
{
	struct ktr_psig p = { .signo = 10,
			      .code = 0,
			      .sender_pid = 7,
			      .sender_uid = 1000,
			      .action = 0x401136,
			      .mask = 0x4 };

	(void)state;
	expect_psig(&p, "SIGUSR1 caught handler=0x401136 mask=0x4 code=SI_USER pid=7 uid=1000");
	p.signo = 15;
	p.action = 0;
	p.code = -6;
	expect_psig(&p, "SIGTERM SIG_DFL code=SI_TKILL pid=7 uid=1000");
	p.signo = 11;
	p.code = 1;
	p.action = 1;
	expect_psig(&p, "SIGSEGV SIG_IGN code=SEGV_MAPERR");
	p.signo = 17;
	p.code = 1;
	p.action = 0;
	expect_psig(&p, "SIGCHLD SIG_DFL code=CLD_EXITED pid=7 uid=1000");
	p.signo = 36;
	p.code = 99;
	p.err = 5;
	expect_psig(&p, "SIGRT4 SIG_DFL code=99 errno=5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat_example),
		cmocka_unit_test(test_openat_create_shows_mode),
		cmocka_unit_test(test_oflags_rest),
		cmocka_unit_test(test_mmap),
		cmocka_unit_test(test_read_and_decimal),
		cmocka_unit_test(test_raw_keeps_registers),
		cmocka_unit_test(test_unknown_syscall),
		cmocka_unit_test(test_signals_and_at_flags),
		cmocka_unit_test(test_negative_int),
		cmocka_unit_test(test_sysret),
		cmocka_unit_test(test_psig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
