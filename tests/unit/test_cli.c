// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c through ksnoop_main(): options, validation, command dispatch and
 * exit codes (0 ok, 1 command failed, 2 usage).  The commands are replaced
 * with recorders (ld --wrap, see WRAP_test_cli in the Makefile); info also
 * runs for real against a BTF fixture passed with --btf.
 */
#include <errno.h>
#include <fcntl.h>

#include "testutil.h"
#include "env.h"
#include "lib/util.h"

/* What the last command saw. */
static struct {
	const char *cmd;
	int argc;
	char argv[8][64];
	struct env env;
	char btf_path[256];
	int ret; /* what the recorder returns */
} rec;

int __real_cmd_info(struct env *env, int argc, char **argv);

static int record(const char *cmd, struct env *env, int argc, char **argv)
{
	int i;

	rec.cmd = cmd;
	rec.argc = argc;
	for (i = 0; i < argc && i < 8; i++)
		snprintf(rec.argv[i], sizeof(rec.argv[i]), "%s", argv[i]);
	rec.env = *env;
	snprintf(rec.btf_path, sizeof(rec.btf_path), "%s", env->btf_path ? env->btf_path : "");
	return rec.ret;
}

int __wrap_cmd_info(struct env *env, int argc, char **argv)
{
	record("info", env, argc, argv);
	return __real_cmd_info(env, argc, argv);
}

int __wrap_cmd_trace(struct env *env, int argc, char **argv)
{
	return record("trace", env, argc, argv);
}

int __wrap_cmd_feature(struct env *env, int argc, char **argv)
{
	return record("feature", env, argc, argv);
}

int __wrap_cmd_ktrace(struct env *env, int argc, char **argv)
{
	return record("ktrace", env, argc, argv);
}

int __wrap_cmd_kdump(struct env *env, int argc, char **argv)
{
	return record("kdump", env, argc, argv);
}

int __wrap_cmd_graph(struct env *env, int argc, char **argv)
{
	return record("graph", env, argc, argv);
}

int __wrap_cmd_count(struct env *env, int argc, char **argv)
{
	return record("count", env, argc, argv);
}

int __wrap_cmd_hist(struct env *env, int argc, char **argv)
{
	return record("hist", env, argc, argv);
}

int __wrap_cmd_probe(struct env *env, int argc, char **argv)
{
	return record("probe", env, argc, argv);
}

int __wrap_cmd_kprobe_events(struct env *env, int argc, char **argv)
{
	return record("kprobe-events", env, argc, argv);
}

/* ksnoop_main's result and everything it printed. */
struct run {
	int code;
	char out[16384];
	char err[16384];
};

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;

	lseek(fd, 0, SEEK_SET);
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
}

static int tmpfd(void)
{
	char path[] = "/tmp/ksnoop-test-out.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/* Run ksnoop_main on a NULL-terminated argument list (argv[0] included). */
static void run_argv(struct run *r, const char *const *args)
{
	char *argv[160];
	int argc, i, out, err, save_out, save_err;

	for (argc = 0; args[argc]; argc++) {
		assert_true(argc < 159);
		argv[argc] = strdup(args[argc]);
	}
	argv[argc] = NULL;

	memset(&rec, 0, sizeof(rec));
	util_set_debug(false);
	out = tmpfd();
	err = tmpfd();
	fflush(stdout);
	fflush(stderr);
	save_out = dup(1);
	save_err = dup(2);
	dup2(out, 1);
	dup2(err, 2);
	r->code = ksnoop_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	for (i = 0; i < argc; i++)
		free(argv[i]);
}

#define RUN(r, ...) run_argv(r, (const char *const[]){ "ksnoop", __VA_ARGS__, NULL })
#define RUN0(r) run_argv(r, (const char *const[]){ "ksnoop", NULL })

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (!strncmp(s, prefix, strlen(prefix)))
			n++;
	}
	return n;
}

static int count_all_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A usage error: exit 2, exactly one Error line naming what, nothing run. */
static void expect_usage_error(struct run *r, const char *what)
{
	if (r->code != 2 || count_lines(r->err, "Error: ") != 1 || !strstr(r->err, what))
		print_error("exit %d, stderr:\n%s\n", r->code, r->err);
	assert_int_equal(r->code, 2);
	assert_int_equal(count_lines(r->err, "Error: "), 1);
	assert_non_null(strstr(r->err, what));
	assert_string_equal(r->out, "");
	assert_null(rec.cmd);
}

static void expect_usage_text(struct run *r)
{
	assert_int_equal(r->code, 2);
	assert_string_equal(r->out, "");
	assert_non_null(strstr(r->err, "Usage: ksnoop"));
	assert_int_equal(count_lines(r->err, "Error: "), 0);
	assert_null(rec.cmd);
}

static void expect_cmd(struct run *r, const char *cmd, int argc)
{
	if (!rec.cmd || strcmp(rec.cmd, cmd) || rec.argc != argc)
		print_error("ran %s with %d args, exit %d, stderr:\n%s\n",
			    rec.cmd ? rec.cmd : "nothing", rec.argc, r->code, r->err);
	assert_non_null(rec.cmd);
	assert_string_equal(rec.cmd, cmd);
	assert_int_equal(rec.argc, argc);
}

static void test_no_arguments(void **state)
{
	struct run r;

	(void)state;
	RUN0(&r);
	expect_usage_text(&r);

	/* exec with an empty argv */
	{
		char *argv[] = { NULL };

		memset(&rec, 0, sizeof(rec));
		fflush(stderr);
		int save = dup(2), fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		assert_int_equal(ksnoop_main(0, argv), 2);
		dup2(save, 2);
		close(save);
		close(fd);
		assert_null(rec.cmd);
	}
}

static void test_options_without_command(void **state)
{
	static const char *const cases[][3] = {
		{ "-s" },	   { "--stack" },  { "-p", "1" },   { "--pid", "1" },
		{ "-d" },	   { "-P", "8" },  { "--pages=8" }, { "-b", "kprobe" },
		{ "--btf", "/x" }, { "-s", "-d" },
	};
	struct run r;
	size_t i;

	(void)state;
	/* the reference segfaults on these */
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		run_argv(&r, (const char *const[]){ "ksnoop", cases[i][0], cases[i][1], cases[i][2],
						    NULL });
		expect_usage_text(&r);
	}
}

static void test_help_and_version(void **state)
{
	static const char *const help[] = { "-h", "--help", "help", "he", "hel" };
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(help); i++) {
		RUN(&r, help[i]);
		assert_int_equal(r.code, 0);
		assert_non_null(strstr(r.out, "Usage: ksnoop [OPTIONS]"));
		assert_non_null(strstr(r.out, "--stack"));
		assert_non_null(strstr(r.out, "--btf FILE"));
		assert_string_equal(r.err, "");
	}
	/* "h" names help and hist alike */
	RUN(&r, "h");
	assert_int_equal(r.code, 2);
	assert_string_equal(r.err, "Error: ambiguous command 'h'\n");
	/* -h wins over a command */
	RUN(&r, "-h", "trace", "myfunc");
	assert_int_equal(r.code, 0);
	assert_null(rec.cmd);
	RUN(&r, "trace", "-h", "myfunc");
	assert_int_equal(r.code, 0);
	assert_null(rec.cmd);

	RUN(&r, "-V");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "ksnoop v" KSNOOP_VERSION "\n");
	RUN(&r, "--version");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "ksnoop v" KSNOOP_VERSION "\n");
	assert_string_equal(r.err, "");
	assert_null(rec.cmd);
}

static void test_unknown_options(void **state)
{
	char big[20000];
	struct run r;

	(void)state;
	RUN(&r, "-x");
	expect_usage_error(&r, "unknown option '-x'");
	RUN(&r, "-x", "trace", "myfunc");
	expect_usage_error(&r, "unknown option '-x'");
	RUN(&r, "trace", "-x", "myfunc");
	expect_usage_error(&r, "unknown option '-x'");
	RUN(&r, "info", "myfunc", "-x");
	expect_usage_error(&r, "unknown option '-x'");
	RUN(&r, "--bogus");
	expect_usage_error(&r, "unknown option '--bogus'");
	RUN(&r, "--bogus=1", "trace", "myfunc");
	expect_usage_error(&r, "unknown option '--bogus=1'");
	/* -v is the reference's verbose mode, which ksnoop does not have */
	RUN(&r, "-v", "trace", "myfunc");
	expect_usage_error(&r, "unknown option '-v'");
	/* --p could be --pid or --pages */
	RUN(&r, "--p", "5", "trace", "myfunc");
	expect_usage_error(&r, "ambiguous option '--p'");
	RUN(&r, "trace", "--p=5", "myfunc");
	expect_usage_error(&r, "ambiguous option '--p'");
	/* an option that takes no argument given one */
	RUN(&r, "--stack=1", "trace", "myfunc");
	expect_usage_error(&r, "option '--stack' takes no argument");
	RUN(&r, "--st=1", "trace", "myfunc");
	expect_usage_error(&r, "option '--st' takes no argument");
	RUN(&r, "--zz=1", "trace", "myfunc");
	expect_usage_error(&r, "unknown option '--zz=1'");
	RUN(&r, "-dx");
	expect_usage_error(&r, "unknown option '-x'");
	/* a command's own option before the command: where it goes */
	RUN(&r, "-i", "1", "count", "myfunc");
	expect_usage_error(&r, "'-i' is an option of count and hist: put it after the command");
	RUN(&r, "--by=comm", "hist", "myfunc");
	expect_usage_error(&r, "'--by' is an option of count and hist: put it after the command");
	RUN(&r, "--interval", "1", "count", "myfunc");
	expect_usage_error(&r, "'--interval' is an option of count and hist: put it after");
	RUN(&r, "-");
	expect_cmd(&r, "trace", 1);
	assert_string_equal(rec.argv[0], "-");

	/* a huge option is not echoed in full */
	memset(big, 'a', sizeof(big) - 1);
	big[0] = big[1] = '-';
	big[sizeof(big) - 1] = '\0';
	RUN(&r, big);
	expect_usage_error(&r, "unknown option '--aaaa");
	assert_true(strlen(r.err) < 200);
}

static void test_missing_arguments(void **state)
{
	static const char *const opts[] = { "-p", "--pid",     "-P",   "--pages",
					    "-b", "--backend", "--btf" };
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		RUN(&r, opts[i]);
		expect_usage_error(&r, "needs an argument");
		assert_non_null(strstr(r.err, opts[i]));
		/* after the command too */
		RUN(&r, "trace", opts[i]);
		expect_usage_error(&r, "needs an argument");
	}
}

static void test_pid(void **state)
{
	static const char *const bad[] = {
		"0", "-1", "abc", "", "1x", " 1", "1.0", "2147483648", "99999999999999999999", "0x"
	};
	char many[2 * (KSNOOP_MAX_PIDS + 2) + 3][16];
	const char *args[2 * (KSNOOP_MAX_PIDS + 2) + 4];
	struct run r;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		RUN(&r, "-p", bad[i], "trace", "myfunc");
		expect_usage_error(&r, "invalid pid");
	}
	/* decimal: hex is refused, a leading 0 is no octal prefix */
	RUN(&r, "-p", "0x10", "trace", "myfunc");
	expect_usage_error(&r, "invalid pid");
	RUN(&r, "-p", "1", "trace", "myfunc");
	expect_cmd(&r, "trace", 1);
	assert_int_equal(r.code, 0);
	assert_int_equal(rec.env.nr_pids, 1);
	assert_int_equal(rec.env.pids[0], 1);

	RUN(&r, "--pid=016", "-p", "2147483647", "trace", "--pid", "42", "myfunc");
	expect_cmd(&r, "trace", 1);
	assert_int_equal(rec.env.nr_pids, 3);
	assert_int_equal(rec.env.pids[0], 16);
	assert_int_equal(rec.env.pids[1], 2147483647);
	assert_int_equal(rec.env.pids[2], 42);

	/* up to KSNOOP_MAX_PIDS */
	for (n = 0, i = 0; (int)i < KSNOOP_MAX_PIDS + 1; i++) {
		snprintf(many[i], sizeof(many[i]), "%zu", i + 1);
		args[n++] = "-p";
		args[n++] = many[i];
	}
	args[n++] = "myfunc";
	args[n] = NULL;
	/* 65 pids */
	{
		const char *full[2 * (KSNOOP_MAX_PIDS + 2) + 5] = { "ksnoop" };

		memcpy(full + 1, args, (n + 1) * sizeof(*args));
		run_argv(&r, full);
		expect_usage_error(&r, "at most 64 pids");
		/* 64 pids: drop the first "-p 1" */
		full[2] = "ksnoop";
		run_argv(&r, full + 2);
		expect_cmd(&r, "trace", 1);
		assert_int_equal(rec.env.nr_pids, KSNOOP_MAX_PIDS);
		assert_int_equal(rec.env.pids[KSNOOP_MAX_PIDS - 1], KSNOOP_MAX_PIDS + 1);
	}
}

static void test_pages(void **state)
{
	static const char *const bad[] = { "0", "3", "6",  "100",   "131072", "-2",
					   "x", "",  "8k", "65537", "0x40" };
	static const struct {
		const char *arg;
		int pages;
	} good[] = { { "1", 1 }, { "2", 2 }, { "8", 8 }, { "064", 64 }, { "65536", 65536 } };
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		RUN(&r, "-P", bad[i], "trace", "myfunc");
		expect_usage_error(&r, "power of two");
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		RUN(&r, "--pages", good[i].arg, "myfunc");
		expect_cmd(&r, "trace", 1);
		assert_int_equal(rec.env.pages, good[i].pages);
	}
	RUN(&r, "myfunc");
	assert_int_equal(rec.env.pages, 0); /* not given: sized from the plan */
}

static void test_backend(void **state)
{
	struct run r;

	(void)state;
	RUN(&r, "myfunc");
	assert_int_equal(rec.env.backend, BACKEND_AUTO);
	RUN(&r, "-b", "fentry", "myfunc");
	assert_int_equal(rec.env.backend, BACKEND_FENTRY);
	RUN(&r, "--backend=kprobe", "myfunc");
	assert_int_equal(rec.env.backend, BACKEND_KPROBE);
	RUN(&r, "-b", "kprobe", "-b", "auto", "myfunc");
	assert_int_equal(rec.env.backend, BACKEND_AUTO);
	RUN(&r, "-b", "uprobe", "myfunc");
	expect_usage_error(&r, "invalid backend 'uprobe'");
	RUN(&r, "-b", "", "myfunc");
	expect_usage_error(&r, "invalid backend ''");
}

static void test_flags(void **state)
{
	struct run r;

	(void)state;
	RUN(&r, "myfunc");
	expect_cmd(&r, "trace", 1);
	assert_false(rec.env.stack_mode);
	assert_false(util_debug());
	assert_int_equal(rec.env.nr_pids, 0);
	assert_string_equal(rec.btf_path, "");

	/* --stack works (the reference only knows -s) */
	RUN(&r, "--stack", "trace", "udp_sendmsg", "ip_send_skb");
	expect_cmd(&r, "trace", 2);
	assert_true(rec.env.stack_mode);
	assert_string_equal(rec.argv[0], "udp_sendmsg");
	assert_string_equal(rec.argv[1], "ip_send_skb");
	RUN(&r, "trace", "--stack", "a", "b");
	expect_cmd(&r, "trace", 2);
	assert_true(rec.env.stack_mode);
	RUN(&r, "-s", "a", "b");
	expect_cmd(&r, "trace", 2);
	assert_true(rec.env.stack_mode);
	RUN(&r, "--st", "a");
	assert_true(rec.env.stack_mode);

	RUN(&r, "-d", "myfunc");
	assert_true(util_debug());
	RUN(&r, "--debug", "myfunc");
	assert_true(util_debug());
	/* clustered short options */
	RUN(&r, "-dsp", "7", "myfunc");
	expect_cmd(&r, "trace", 1);
	assert_true(util_debug());
	assert_true(rec.env.stack_mode);
	assert_int_equal(rec.env.pids[0], 7);

	RUN(&r, "--btf", "/some/file", "trace", "myfunc");
	assert_string_equal(rec.btf_path, "/some/file");
	RUN(&r, "trace", "--btf=/other", "myfunc");
	assert_string_equal(rec.btf_path, "/other");
	/* options on both sides of the command word, and after FUNCs */
	RUN(&r, "-p", "1", "trace", "-p", "2", "myfunc", "-s", "g");
	expect_cmd(&r, "trace", 2);
	assert_int_equal(rec.env.nr_pids, 2);
	assert_true(rec.env.stack_mode);
	assert_string_equal(rec.argv[0], "myfunc");
	assert_string_equal(rec.argv[1], "g");
}

static void test_commands_by_prefix(void **state)
{
	static const struct {
		const char *word, *cmd;
	} cases[] = {
		{ "trace", "trace" },	  { "tr", "trace" },	 { "t", "trace" },
		{ "feature", "feature" }, { "feat", "feature" }, { "f", "feature" },
		{ "ktrace", "ktrace" },	  { "kt", "ktrace" },	 { "kdump", "kdump" },
		{ "kd", "kdump" },
	};
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		RUN(&r, cases[i].word, "x");
		expect_cmd(&r, cases[i].cmd, 1);
		assert_string_equal(rec.argv[0], "x");
		assert_int_equal(r.code, 0);
	}
	/* "k" is both ktrace and kdump */
	RUN(&r, "k", "x");
	expect_usage_error(&r, "ambiguous command 'k'");
	/* not a prefix of a command: a FUNC to trace */
	RUN(&r, "infox");
	expect_cmd(&r, "trace", 1);
	assert_string_equal(rec.argv[0], "infox");
	RUN(&r, "ip_send_skb", "vfs_write(file, return)");
	expect_cmd(&r, "trace", 2);
	assert_string_equal(rec.argv[0], "ip_send_skb");
	assert_string_equal(rec.argv[1], "vfs_write(file, return)");
	/* "" is not a prefix of every command */
	RUN(&r, "");
	expect_cmd(&r, "trace", 1);
	assert_string_equal(rec.argv[0], "");
	/* after "--" everything is a FUNC */
	RUN(&r, "--", "-s");
	expect_cmd(&r, "trace", 1);
	assert_false(rec.env.stack_mode);
	assert_string_equal(rec.argv[0], "-s");
	RUN(&r, "-p", "3", "--", "-x", "-s");
	expect_cmd(&r, "trace", 2);
	assert_int_equal(rec.env.pids[0], 3);
	assert_string_equal(rec.argv[1], "-s");
	RUN(&r, "trace", "--", "-x");
	expect_cmd(&r, "trace", 1);
	assert_string_equal(rec.argv[0], "-x");
	RUN(&r, "--", "info", "x");
	expect_cmd(&r, "info", 1);
	/* trace and info without a FUNC still reach the command, which says so */
	RUN(&r, "trace");
	expect_cmd(&r, "trace", 0);
}

/* Every command of the table is reached, by its name and by a prefix. */
static void test_every_command(void **state)
{
	static const struct {
		const char *word, *cmd;
	} cases[] = {
		{ "graph", "graph" },
		{ "g", "graph" },
		{ "count", "count" },
		{ "co", "count" },
		{ "hist", "hist" },
		{ "hi", "hist" },
		{ "probe", "probe" },
		{ "pr", "probe" },
		{ "kprobe-events", "kprobe-events" },
		{ "kp", "kprobe-events" },
		{ "trace", "trace" },
		{ "feature", "feature" },
		{ "ktrace", "ktrace" },
		{ "kdump", "kdump" },
	};
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&rec, 0, sizeof(rec));
		RUN(&r, cases[i].word, "x");
		expect_cmd(&r, cases[i].cmd, 1);
		assert_string_equal(rec.argv[0], "x");
		assert_int_equal(r.code, 0);
	}
	/* "h" is both hist and help */
	RUN(&r, "h", "x");
	expect_usage_error(&r, "ambiguous command 'h'");
	/* count and hist take their own options, parsed into env.agg */
	RUN(&r, "count", "--top", "3", "x");
	expect_cmd(&r, "count", 1);
	assert_int_equal(rec.env.agg.top, 3);
	RUN(&r, "trace", "--top", "3", "x");
	expect_usage_error(&r, "--top");
	/* probe and kprobe-events judge their own options */
	RUN(&r, "probe", "-x", "p:a b");
	expect_cmd(&r, "probe", 2);
	assert_string_equal(rec.argv[0], "-x");
	RUN(&r, "kprobe-events", "--whatever");
	expect_cmd(&r, "kprobe-events", 1);
	/* help prints the usage and runs nothing */
	memset(&rec, 0, sizeof(rec));
	RUN(&r, "help");
	assert_int_equal(r.code, 0);
	assert_null(rec.cmd);
	assert_non_null(strstr(r.out, "COMMAND :="));
}

static void test_own_option_commands(void **state)
{
	struct run r;

	(void)state;
	/* ktrace and kdump parse their own options: -x is theirs to judge */
	RUN(&r, "ktrace", "-x", "--whatever", "ls");
	expect_cmd(&r, "ktrace", 3);
	assert_string_equal(rec.argv[0], "-x");
	assert_string_equal(rec.argv[2], "ls");
	/* called through a link named after them */
	run_argv(&r, (const char *const[]){ "/usr/local/bin/ktrace", "-p", "1", NULL });
	expect_cmd(&r, "ktrace", 2);
	assert_string_equal(rec.argv[0], "-p");
	run_argv(&r, (const char *const[]){ "kdump", NULL });
	expect_cmd(&r, "kdump", 0);
}

static void test_exit_codes(void **state)
{
	struct run r;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	RUN(&r, "trace", "myfunc");
	assert_int_equal(r.code, 0);
	/* any failing command exits 1; negative errnos never leak out */
	rec.ret = -ENOENT;
	{
		const char *const args[] = { "ksnoop", "trace", "myfunc", NULL };
		char *argv[4];
		int i, code;

		for (i = 0; i < 3; i++)
			argv[i] = strdup(args[i]);
		argv[3] = NULL;
		code = ksnoop_main(3, argv);
		for (i = 0; i < 3; i++)
			free(argv[i]);
		assert_int_equal(code, 1);
	}
}

/* ksnoop_main on args while the wrapped command returns ret. */
static int exit_code_of(const char *const *args, int ret)
{
	char *argv[8];
	int argc, i, code;

	for (argc = 0; args[argc]; argc++)
		argv[argc] = strdup(args[argc]);
	argv[argc] = NULL;
	memset(&rec, 0, sizeof(rec));
	rec.ret = ret;
	code = ksnoop_main(argc, argv);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	return code;
}

static void test_ktrace_exit_status(void **state)
{
	const char *const kt[] = { "ksnoop", "ktrace", "sh", NULL };
	const char *const link[] = { "/usr/bin/ktrace", "sh", NULL };
	const char *const kd[] = { "ksnoop", "kdump", NULL };

	(void)state;
	/* ktrace exits as its command did (ktrace cmd && ...) */
	assert_int_equal(exit_code_of(kt, 3), 3);
	assert_int_equal(exit_code_of(kt, 138), 138);
	assert_int_equal(exit_code_of(kt, 125), 125);
	assert_int_equal(exit_code_of(link, 3), 3);
	assert_int_equal(exit_code_of(kt, 0), 0);
	/* the other commands still exit 0 or 1 */
	assert_int_equal(exit_code_of(kd, 3), 1);
	assert_int_equal(exit_code_of(kd, -EINVAL), 1);
}

/* info for real, against the fixture written to a file. */

struct info_ctx {
	char *path;
};

static int info_setup(void **state)
{
	struct fixture_ids id;
	struct info_ctx *c = calloc(1, sizeof(*c));
	struct btf *btf = fixture_new(&id);

	if (!c || !btf)
		return -1;
	c->path = fixture_write(btf);
	btf__free(btf);
	if (!c->path)
		return -1;
	*state = c;
	return 0;
}

static int info_teardown(void **state)
{
	struct info_ctx *c = *state;

	unlink(c->path);
	free(c->path);
	free(c);
	return 0;
}

static void test_info(void **state)
{
	struct info_ctx *c = *state;
	struct run r;

	RUN(&r, "--btf", c->path, "info", "ip_send_skb", "six", "kt:get_handler");
	assert_int_equal(r.code, 1); /* kt: is no module of an offline BTF */
	assert_string_equal(r.out, "int ip_send_skb(struct net *net, struct sk_buff *skb);\n"
				   "int six(int a, int b, int c, int d, int e, int f);\n");
	assert_int_equal(count_lines(r.err, "Error: "), 1);
	assert_non_null(strstr(r.err, "'kt:get_handler' not found"));

	/* prefix, --btf after the command, several functions */
	RUN(&r, "in", "--btf", c->path, "vlog", "get_handler", "noargs");
	expect_cmd(&r, "info", 3);
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "int vlog(int level, const char *fmt, ...);\n"
				   "int (*get_handler(int type))(void *);\n"
				   "long unsigned int noargs(void);\n");
	assert_string_equal(r.err, "");

	/* several BTF functions with one name: all shown, and said so */
	RUN(&r, "--btf", c->path, "info", "dup_static");
	assert_int_equal(r.code, 0);
	assert_int_equal(count_all_lines(r.out), 2);
	assert_non_null(strstr(r.out, "int dup_static(int a); /* BTF entry 1 of 2"));
	assert_non_null(strstr(r.out, "\nvoid dup_static(char *s); /* BTF entry 2 of 2"));

	/* a compiler clone resolves to its origin, with a note */
	RUN(&r, "--btf", c->path, "info", "ip_send_skb.isra.0");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "int ip_send_skb(struct net *net, struct sk_buff *skb);"));
	assert_non_null(strstr(r.out, "ip_send_skb.isra.0 is a compiler clone of ip_send_skb"));
	assert_int_equal(count_all_lines(r.out), 1);

	/* an argument list is accepted and ignored */
	RUN(&r, "--btf", c->path, "info", "ip_send_skb(skb->len > 5)");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "int ip_send_skb(struct net *net, struct sk_buff *skb);\n");
}

static void test_info_errors(void **state)
{
	struct info_ctx *c = *state;
	char big[20001];
	struct run r;

	/* unknown function: one line with a suggestion, exit 1 */
	RUN(&r, "--btf", c->path, "info", "ip_send_skbb");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "Error: function 'ip_send_skbb' not found in kernel BTF; "
				   "did you mean 'ip_send_skb'?\n");
	RUN(&r, "--btf", c->path, "info", "zzzzzzzzzzzz");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.err, "Error: function 'zzzzzzzzzzzz' not found in kernel BTF\n");

	/* good and bad together: the good one is printed, the exit is 1 */
	RUN(&r, "--btf", c->path, "info", "nosuch", "noargs");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.out, "long unsigned int noargs(void);\n");
	assert_int_equal(count_lines(r.err, "Error: "), 1);

	RUN(&r, "--btf", c->path, "info", "f(a->)");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.err, "Error: invalid function 'f(a->)': expected a member name "
				   "after '->' at offset 5\n");

	RUN(&r, "--btf", c->path, "info");
	assert_int_equal(r.code, 1);
	assert_int_equal(count_lines(r.err, "Error: "), 1);
	assert_non_null(strstr(r.err, "at least one function"));

	/* a 20,000-character name: one short line */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	RUN(&r, "--btf", c->path, "info", big);
	assert_int_equal(r.code, 1);
	assert_int_equal(count_all_lines(r.err), 1);
	assert_int_equal(count_lines(r.err, "Error: invalid function 'aaaa"), 1);
	assert_true(strlen(r.err) < 200);

	/* BTF files that are not */
	RUN(&r, "--btf", "/nonexistent/vmlinux", "info", "myfunc");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.err, "Error: cannot read BTF from '/nonexistent/vmlinux': "
				   "No such file or directory\n");
	RUN(&r, "--btf", "/", "info", "myfunc");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.err, "Error: cannot read BTF from '/': not a regular file\n");
	RUN(&r, "--btf", "/dev/null", "info", "myfunc");
	assert_string_equal(r.err, "Error: cannot read BTF from '/dev/null': not a regular file\n");
	{
		char path[] = "/tmp/ksnoop-test-junk.XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "not BTF at all\n", 15), 15);
		close(fd);
		RUN(&r, "--btf", path, "info", "myfunc");
		unlink(path);
		assert_int_equal(r.code, 1);
		assert_int_equal(count_all_lines(r.err), 1);
		assert_non_null(strstr(r.err, "neither raw BTF nor an ELF file"));
	}
	/* libbpf's own complaints appear only with -d */
	RUN(&r, "-d", "--btf", "/etc/hostname", "info", "myfunc");
	assert_int_equal(r.code, 1);
	assert_int_equal(count_lines(r.err, "Error: "), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_arguments),
		cmocka_unit_test(test_options_without_command),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_unknown_options),
		cmocka_unit_test(test_missing_arguments),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_backend),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_commands_by_prefix),
		cmocka_unit_test(test_every_command),
		cmocka_unit_test(test_own_option_commands),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_ktrace_exit_status),
	};
	const struct CMUnitTest info_tests[] = {
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_info_errors),
	};
	int fails;

	fails = cmocka_run_group_tests_name("cli", tests, NULL, NULL);
	fails += cmocka_run_group_tests_name("cli-info", info_tests, info_setup, info_teardown);
	return fails;
}
