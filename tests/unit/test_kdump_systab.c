// SPDX-License-Identifier: GPL-2.0
/* The generated syscall, errno and signal tables and what the recorder
 * derives from them. */
#include <errno.h>

#include "lib/arch.h"
#include "test_kdump_common.h"
#include "lib/errnames.h"

static void test_known_numbers(void **state)
{
	const struct ktr_sysent *e;

	(void)state;
#ifndef KSNOOP_ARCH_ARM64
	assert_int_equal(ktr_systab_machine, 62);
	assert_int_equal(ktr_sys_by_name("read"), 0);
	assert_int_equal(ktr_sys_by_name("execve"), 59);
	assert_int_equal(ktr_sys_by_name("openat"), 257);
#else
	assert_int_equal(ktr_systab_machine, 183);
	assert_int_equal(ktr_sys_by_name("openat"), 56);
	assert_int_equal(ktr_sys_by_name("execve"), 221);
#endif
	e = ktr_sys_lookup(ktr_sys_by_name("read"));
	assert_non_null(e);
	assert_int_equal(e->nargs, 3);
	assert_string_equal(e->args[0].type, "unsigned int");
	assert_string_equal(e->args[0].name, "fd");
	assert_string_equal(e->args[1].type, "char *");
	assert_int_equal(ktr_sys_by_name("no_such_syscall"), -1);
	assert_null(ktr_sys_lookup(100000));
}

/* Every entry is usable: a name, at most six arguments, each named. */
static void test_table_sane(void **state)
{
	unsigned int nr, named = 0, protos = 0;
	const struct ktr_sysent *e;
	int a;

	(void)state;
	for (nr = 0; nr < ktr_systab_len; nr++) {
		e = ktr_sys_lookup(nr);
		if (!e)
			continue;
		named++;
		assert_true(e->name[0] != '\0');
		assert_int_equal(ktr_sys_by_name(e->name), nr);
		assert_true(e->nargs >= -1 && e->nargs <= KTR_SYSCALL_ARGS);
		if (e->nargs >= 0)
			protos++;
		for (a = 0; a < e->nargs; a++) {
			assert_non_null(e->args[a].type);
			assert_true(e->args[a].name[0] != '\0');
		}
	}
	assert_true(named > 300);
	assert_true(protos > named * 9 / 10);
	assert_true(ktr_systab_len <= KTR_MAX_SYSCALLS);
}

static void test_errno_names(void **state)
{
	(void)state;
	assert_string_equal(errno_name(1), "EPERM");
	assert_string_equal(errno_name(2), "ENOENT");
	assert_string_equal(errno_name(-2), "ENOENT");
	assert_string_equal(errno_name(11), "EAGAIN");
	assert_string_equal(errno_name(35), "EDEADLK");
	assert_string_equal(errno_name(133), "EHWPOISON");
	/* kernel-internal: returned by functions, never by syscalls */
	assert_string_equal(errno_name(512), "ERESTARTSYS");
	assert_string_equal(errno_name(524), "ENOTSUPP");
	assert_string_equal(errno_name(531), "ENOGRACE");
	assert_null(errno_name(0));
	assert_null(errno_name(520));
	assert_null(errno_name(100000));
	assert_int_equal(errno_parse("ENOENT"), 2);
	assert_int_equal(errno_parse("eacces"), 13);
	assert_int_equal(errno_parse("EWOULDBLOCK"), 11);
	/* POSIX's name of EOPNOTSUPP, not the kernel-internal ENOTSUPP */
	assert_int_equal(errno_parse("ENOTSUP"), 95);
	assert_int_equal(errno_parse("ENOTSUPP"), 524);
	assert_int_equal(errno_parse("ERESTARTSYS"), 512);
	assert_int_equal(errno_parse("17"), 17);
	assert_int_equal(errno_parse("4095"), 4095);
	assert_int_equal(errno_parse("0"), -EINVAL);
	assert_int_equal(errno_parse("4096"), -EINVAL);
	assert_int_equal(errno_parse("2x"), -EINVAL);
	assert_int_equal(errno_parse("ENOPE"), -EINVAL);
	assert_int_equal(errno_parse(""), -EINVAL);
}

static void test_signal_names(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(ktr_signal_name(10, buf, sizeof(buf)), "SIGUSR1");
	assert_string_equal(ktr_signal_name(6, buf, sizeof(buf)), "SIGABRT");
	assert_string_equal(ktr_signal_name(29, buf, sizeof(buf)), "SIGIO");
	assert_string_equal(ktr_signal_name(34, buf, sizeof(buf)), "SIGRT2");
	assert_null(ktr_signal_name(0, buf, sizeof(buf)));
	assert_null(ktr_signal_name(65, buf, sizeof(buf)));
}

static struct ktr_sysinfo info(const char *name)
{
	struct ktr_sysinfo si;

	ktr_sysinfo_for(ktr_sys_by_name(name), &si);
	return si;
}

static void test_sysinfo(void **state)
{
	(void)state;
	assert_int_equal(info("openat").path_args, 0x2);
	assert_int_equal(info("renameat2").path_args, 0xa);
	assert_int_equal(info("rename").path_args, 0x3);
	assert_int_equal(info("execve").path_args, 0x1);
	assert_true(info("execve").is_exec);
	assert_true(info("execveat").is_exec);
	assert_int_equal(info("read").gio, KTR_GIO_BUF);
	assert_int_equal(info("read").gio_rw, KTR_READ);
	assert_int_equal(info("pwrite64").gio_rw, KTR_WRITE);
	assert_int_equal(info("writev").gio, KTR_GIO_IOV);
	assert_int_equal(info("writev").gio_rw, KTR_WRITE);
	assert_int_equal(info("recvmsg").gio, KTR_GIO_MSG);
	assert_int_equal(info("sendto").gio, KTR_GIO_BUF);
	/* Not paths: an xattr name, argv. */
	assert_int_equal(info("getxattr").path_args, 0x1);
	assert_int_equal(info("close").path_args, 0);
	assert_int_equal(info("close").gio, KTR_GIO_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_numbers), cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_errno_names),   cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_sysinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
