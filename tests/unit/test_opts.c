// SPDX-License-Identifier: GPL-2.0
/*
 * lib/opts.c: the three operand modes, every option error and its exact
 * wording, long-option prefixes, "--", repeated options, the -pVALUE and
 * --pid=VALUE forms, -h/--help, typed targets and the pid and page parsers.
 */
#include <errno.h>

#include "testutil.h"
#include "env.h"
#include "abi/trace.h"
#include "lib/errnames.h"
#include "lib/opts.h"
#include "lib/util.h"

/* What the table below writes. */
struct target {
	bool all, brief;
	const char *file;
	int count;
	unsigned long long ns;
	pid_t pids[8];
	int nr_pids;
	char log[256]; /* operands and options in the order they came */
	int helps;
	bool paged;
};

static int add_pid(void *ctx, const char *arg)
{
	struct target *t = ctx;
	pid_t pid;

	if (opts_pid(arg, "pid", &pid))
		return -EINVAL;
	t->pids[t->nr_pids++] = pid;
	snprintf(t->log + strlen(t->log), sizeof(t->log) - strlen(t->log), "p%d ", pid);
	return 0;
}

static int stop_here(void *ctx, const char *arg)
{
	(void)ctx;
	(void)arg;
	return OPTS_HELP;
}

static int add_operand(void *ctx, const char *arg)
{
	struct target *t = ctx;

	snprintf(t->log + strlen(t->log), sizeof(t->log) - strlen(t->log), "%s ", arg);
	return 0;
}

static void help(void *ctx)
{
	((struct target *)ctx)->helps++;
}

static const struct opt table[] = {
	OPT_FLAG("all", 'a', struct target, all),
	OPT_FLAG("brief", 'b', struct target, brief),
	OPT_STRING("file", 'f', struct target, file),
	OPT_INT("count", 'c', struct target, count, 1, 100),
	OPT_INT(NULL, 'm', struct target, count, 0, 5),
	OPT_DURATION("duration", 0, struct target, ns),
	OPT_CALL("pid", 'p', true, add_pid),
	OPT_FLAG("pages", 0, struct target, paged),
	OPT_CALL("version", 'V', false, stop_here),
	OPT_FLAG("all-threads", 0, struct target, brief),
	{},
};

static const struct opts_spec permute = { .opts = table, .mode = OPTS_PERMUTE, .help = help };
static const struct opts_spec stop = { .opts = table, .mode = OPTS_STOP, .help = help };
static const struct opts_spec in_order = { .opts = table,
					   .mode = OPTS_IN_ORDER,
					   .help = help,
					   .operand = add_operand };
static const struct opts_spec named = { .opts = table,
					.mode = OPTS_STOP,
					.help = help,
					.cmd = "probe",
					.synopsis = "usage: x [-ab]" };

struct result {
	int ret;
	struct target t;
	struct opts_rest rest;
	char *argv[32];
	int argc;
	char err[4096];
};

/* Parse a NULL-terminated list, capturing stderr. */
static void parse(struct result *r, const struct opts_spec *spec, const char *const *args)
{
	struct stderr_capture cap;

	memset(r, 0, sizeof(*r));
	for (r->argc = 0; args[r->argc]; r->argc++)
		r->argv[r->argc] = (char *)args[r->argc];
	r->argv[r->argc] = NULL;
	stderr_capture_begin(&cap);
	r->ret = opts_parse(spec, &r->t, r->argc, r->argv, &r->rest);
	stderr_capture_end(&cap, r->err, sizeof(r->err));
}

#define PARSE(r, spec, ...) parse(r, spec, (const char *const[]){ __VA_ARGS__, NULL })

static void expect_operands(const struct result *r, int n, ...)
{
	va_list ap;
	int i;

	assert_int_equal(r->ret, 0);
	assert_string_equal(r->err, "");
	assert_int_equal(r->rest.argc, n);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		assert_string_equal(r->rest.argv[i], va_arg(ap, const char *));
	va_end(ap);
	assert_null(r->rest.argv[n]);
}

static void expect_error(const struct result *r, const char *line)
{
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err, line);
}

static void test_permute(void **state)
{
	static const char *const words[] = { "x", "-a", "y", "--file", "F", "z", "-p3" };
	struct result r;
	int i, j, seen;

	(void)state;
	PARSE(&r, &permute, "x", "-a", "y", "--file", "F", "z", "-p3");
	expect_operands(&r, 3, "x", "y", "z");
	assert_true(r.t.all);
	assert_string_equal(r.t.file, "F");
	assert_int_equal(r.t.pids[0], 3);
	/* permuted as getopt does: every word still there once */
	for (i = 0; i < (int)ARRAY_SIZE(words); i++) {
		for (seen = 0, j = 0; j < r.argc; j++)
			seen += r.argv[j] == words[i];
		assert_int_equal(seen, 1);
	}
	PARSE(&r, &permute, "-a", "-b");
	expect_operands(&r, 0);
	PARSE(&r, &permute, "only");
	expect_operands(&r, 1, "only");
	/* a lone "-" is an operand (stdin, say) */
	PARSE(&r, &permute, "-", "-a");
	expect_operands(&r, 1, "-");
}

static void test_stop(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &stop, "-a", "cmd", "-b", "--file", "x");
	expect_operands(&r, 4, "cmd", "-b", "--file", "x");
	assert_true(r.t.all);
	assert_false(r.t.brief);
	assert_null(r.t.file);
	assert_false(r.rest.dashdash);
	PARSE(&r, &stop, "cmd");
	expect_operands(&r, 1, "cmd");
	PARSE(&r, &stop, "-a");
	expect_operands(&r, 0);
}

static void test_in_order(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &in_order, "-p1", "D1", "--pid", "2", "D2", "D3", "-p", "3");
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.t.log, "p1 D1 p2 D2 D3 p3 ");
	assert_int_equal(r.rest.argc, 0);
	PARSE(&r, &in_order, "D1", "--", "-p", "4");
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.t.log, "D1 -p 4 ");
	assert_int_equal(r.t.nr_pids, 0);
}

static void test_dashdash(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &permute, "x", "--", "-a", "--file");
	expect_operands(&r, 3, "x", "-a", "--file");
	assert_false(r.t.all);
	assert_true(r.rest.dashdash);
	PARSE(&r, &stop, "-b", "--", "-a");
	expect_operands(&r, 1, "-a");
	assert_true(r.rest.dashdash);
	assert_false(r.t.all);
	PARSE(&r, &stop, "--");
	expect_operands(&r, 0);
	assert_true(r.rest.dashdash);
	/* only the first "--" ends the options; the others are operands */
	PARSE(&r, &permute, "--", "--");
	expect_operands(&r, 1, "--");
	/* an option's argument may be "--" */
	PARSE(&r, &permute, "-f", "--", "-a");
	expect_operands(&r, 0);
	assert_string_equal(r.t.file, "--");
	assert_true(r.t.all);
}

static void test_argument_forms(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &permute, "-p7", "-p", "8", "--pid=9", "--pid", "10", "--pi=11", "-abp12");
	expect_operands(&r, 0);
	assert_int_equal(r.t.nr_pids, 6);
	assert_int_equal(r.t.pids[0], 7);
	assert_int_equal(r.t.pids[3], 10);
	assert_int_equal(r.t.pids[4], 11);
	assert_int_equal(r.t.pids[5], 12);
	assert_true(r.t.all && r.t.brief);
	/* --file= is an empty argument, not a missing one */
	PARSE(&r, &permute, "--file=", "x");
	expect_operands(&r, 1, "x");
	assert_string_equal(r.t.file, "");
	/* everything after the letter is the value, '=' included */
	PARSE(&r, &permute, "-f=x", "--file=a=b");
	assert_string_equal(r.t.file, "a=b");
	PARSE(&r, &permute, "-f=x");
	assert_string_equal(r.t.file, "=x");
	/* the next word is the value even when it looks like an option */
	PARSE(&r, &permute, "-f", "-a");
	assert_string_equal(r.t.file, "-a");
	assert_false(r.t.all);
}

static void test_repeated(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &permute, "-f", "one", "-a", "--file=two", "-a", "-c", "5", "--count=6");
	expect_operands(&r, 0);
	assert_string_equal(r.t.file, "two");
	assert_int_equal(r.t.count, 6);
	assert_true(r.t.all);
	PARSE(&r, &permute, "-p", "1", "-p", "1");
	assert_int_equal(r.t.nr_pids, 2);
}

static void test_prefixes(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &permute, "--fi", "x", "--cou=3", "--d=1us");
	expect_operands(&r, 0);
	assert_string_equal(r.t.file, "x");
	assert_int_equal(r.t.count, 3);
	assert_int_equal(r.t.ns, 1000);
	/* "all" is exact, though it is also a prefix of "all-threads" */
	PARSE(&r, &permute, "--all");
	assert_true(r.t.all);
	assert_false(r.t.brief);
	PARSE(&r, &permute, "--all-");
	assert_false(r.t.all);
	assert_true(r.t.brief);
	/* "--al" could be either */
	PARSE(&r, &permute, "--al");
	expect_error(&r, "Error: ambiguous option '--al'\n");
	PARSE(&r, &permute, "--p=1");
	expect_error(&r, "Error: ambiguous option '--p'\n");
	/* help is in every table, so it counts: "--h" is help */
	PARSE(&r, &permute, "--h");
	assert_int_equal(r.ret, OPTS_HELP);
}

static void test_errors(void **state)
{
	char big[5000];
	struct result r;

	(void)state;
	PARSE(&r, &permute, "x", "-z");
	expect_error(&r, "Error: unknown option '-z'\n");
	PARSE(&r, &permute, "-az");
	expect_error(&r, "Error: unknown option '-z'\n");
	PARSE(&r, &permute, "--zap");
	expect_error(&r, "Error: unknown option '--zap'\n");
	PARSE(&r, &permute, "--zap=1");
	expect_error(&r, "Error: unknown option '--zap=1'\n");
	PARSE(&r, &permute, "--=1");
	expect_error(&r, "Error: unknown option '--=1'\n");
	PARSE(&r, &permute, "-\x01");
	expect_error(&r, "Error: unknown option '-?'\n");
	PARSE(&r, &permute, "-p");
	expect_error(&r, "Error: option '-p' needs an argument\n");
	PARSE(&r, &permute, "-ap");
	expect_error(&r, "Error: option '-p' needs an argument\n");
	PARSE(&r, &permute, "x", "--pid");
	expect_error(&r, "Error: option '--pid' needs an argument\n");
	PARSE(&r, &permute, "--pi");
	expect_error(&r, "Error: option '--pi' needs an argument\n");
	PARSE(&r, &permute, "--all=yes");
	expect_error(&r, "Error: option '--all' takes no argument\n");
	PARSE(&r, &permute, "--bri=");
	expect_error(&r, "Error: option '--bri' takes no argument\n");
	PARSE(&r, &permute, "--help=1");
	expect_error(&r, "Error: option '--help' takes no argument\n");
	/* the command and the synopsis, when the spec names them */
	PARSE(&r, &named, "-z");
	expect_error(&r, "Error: unknown option '-z' for probe; usage: x [-ab]\n");
	PARSE(&r, &named, "-f");
	expect_error(&r, "Error: option '-f' for probe needs an argument; usage: x [-ab]\n");
	/* an option error in STOP mode before any operand */
	PARSE(&r, &stop, "--nope", "cmd");
	expect_error(&r, "Error: unknown option '--nope'\n");
	/* a huge option is not echoed in full */
	memset(big, 'a', sizeof(big) - 1);
	big[0] = big[1] = '-';
	big[sizeof(big) - 1] = '\0';
	PARSE(&r, &permute, big);
	assert_int_equal(r.ret, -EINVAL);
	assert_true(strlen(r.err) < 120);
	assert_non_null(strstr(r.err, "Error: unknown option '--aaaa"));
	assert_non_null(strstr(r.err, "...'\n"));
	PARSE(&r, &permute,
	      "--all-threads=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	expect_error(&r, "Error: option '--all-threads' takes no argument\n");
}

static void test_setters_stop_the_parse(void **state)
{
	struct result r;

	(void)state;
	/* an error from a setter: nothing after it is read */
	PARSE(&r, &in_order, "D1", "-p", "0", "D2", "-a");
	expect_error(&r, "Error: invalid pid '0'\n");
	assert_string_equal(r.t.log, "D1 ");
	assert_false(r.t.all);
	/* a setter's OPTS_HELP (-V) stops too, and is not an error */
	PARSE(&r, &permute, "-V", "-z");
	assert_int_equal(r.ret, OPTS_HELP);
	assert_string_equal(r.err, "");
	PARSE(&r, &permute, "-aV", "-b");
	assert_int_equal(r.ret, OPTS_HELP);
	assert_false(r.t.brief);
}

static void test_help(void **state)
{
	static const char *const forms[] = { "-h", "--help", "--hel" };
	struct result r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		PARSE(&r, &permute, "x", forms[i], "-z", "-a");
		assert_int_equal(r.ret, OPTS_HELP);
		assert_int_equal(r.t.helps, 1);
		assert_string_equal(r.err, "");
		assert_false(r.t.all);
	}
	PARSE(&r, &stop, "-ah");
	assert_int_equal(r.ret, OPTS_HELP);
	assert_true(r.t.all);
	/* after the first operand, STOP mode reads no -h */
	PARSE(&r, &stop, "cmd", "-h");
	expect_operands(&r, 2, "cmd", "-h");
	assert_int_equal(r.t.helps, 0);
	/* an error before -h wins */
	PARSE(&r, &permute, "-z", "-h");
	expect_error(&r, "Error: unknown option '-z'\n");
	assert_int_equal(r.t.helps, 0);
}

static void test_typed_values(void **state)
{
	struct result r;

	(void)state;
	PARSE(&r, &permute, "-c", "0");
	expect_error(&r, "Error: invalid --count '0': need a number from 1 to 100\n");
	PARSE(&r, &permute, "--count=0100");
	assert_int_equal(r.t.count, 100);
	PARSE(&r, &permute, "--count=0x64");
	expect_error(&r, "Error: invalid --count '0x64': need a number from 1 to 100\n");
	PARSE(&r, &permute, "-m", "6");
	expect_error(&r, "Error: invalid -m '6': need a number from 0 to 5\n");
	PARSE(&r, &permute, "-m0");
	assert_int_equal(r.ret, 0);
	PARSE(&r, &permute, "--duration", "5ms");
	assert_int_equal(r.t.ns, 5000000);
	PARSE(&r, &permute, "--duration", "0");
	expect_error(&r, "Error: invalid --duration '0': use e.g. 500ns, 20us, 5ms or 1s\n");
	PARSE(&r, &permute, "--duration", "5 ms");
	expect_error(&r, "Error: invalid --duration '5 ms': use e.g. 500ns, 20us, 5ms or 1s\n");
}

static void test_pid_and_pages(void **state)
{
	static const char *const bad_pids[] = { "0",  "-1",  "",
						" 1", "1x",  "2147483648",
						"0x", "1.0", "99999999999999999999" };
	static const char *const bad_pages[] = { "0", "3", "65537", "131072", "-2", "", "8k" };
	char clip[CLIP_BUF];
	struct result r;
	pid_t pid = 0;
	int pages = 0;
	size_t i;

	(void)state;
	assert_int_equal(opts_pid("1", "pid", &pid), 0);
	assert_int_equal(pid, 1);
	assert_int_equal(opts_pid("2147483647", "pid", &pid), 0);
	assert_int_equal(pid, KSNOOP_PID_MAX);
	/* above the kernel's PID_MAX_LIMIT, yet a pid_t: accepted */
	assert_int_equal(opts_pid("4194305", "pid", &pid), 0);
	for (i = 0; i < ARRAY_SIZE(bad_pids); i++) {
		char want[128];

		PARSE(&r, &permute, "-p", bad_pids[i]);
		snprintf(want, sizeof(want), "Error: invalid pid '%s'\n",
			 str_clip(bad_pids[i], clip));
		expect_error(&r, want);
	}
	assert_int_equal(opts_pages("1", &pages), 0);
	assert_int_equal(pages, 1);
	assert_int_equal(opts_pages("065536", &pages), 0);
	assert_int_equal(pages, 65536);
	assert_int_equal(opts_pages("0x10000", &pages), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_pages); i++) {
		struct stderr_capture cap;
		char err[256];

		pages = 7;
		stderr_capture_begin(&cap);
		assert_int_equal(opts_pages(bad_pages[i], &pages), -EINVAL);
		stderr_capture_end(&cap, err, sizeof(err));
		assert_int_equal(pages, 7);
		assert_non_null(strstr(err, "need a power of two from 1 to 65536"));
	}
}

/* A command run on a NULL-terminated list: its return, stdout and stderr. */
struct cmd_run {
	int ret;
	char out[4096], err[4096];
};

static void run_cmd(struct cmd_run *r, cmd_fn fn, const char *const *args)
{
	struct env env = { .cpu = -1, .prog_name = "ksnoop" };
	struct stderr_capture out, err;
	char *argv[16];
	int argc;

	for (argc = 0; args[argc]; argc++)
		argv[argc] = (char *)args[argc];
	argv[argc] = NULL;
	fd_capture_begin(&out, STDOUT_FILENO);
	stderr_capture_begin(&err);
	r->ret = fn(&env, argc, argv);
	stderr_capture_end(&err, r->err, sizeof(r->err));
	stderr_capture_end(&out, r->out, sizeof(r->out));
	util_set_debug(false);
}

#define RUN_CMD(r, fn, ...) run_cmd(r, fn, (const char *const[]){ __VA_ARGS__, NULL })

/* -h and --help: the usage on stdout, nothing else, success, in every command. */
static void test_every_command_has_help(void **state)
{
	static const struct {
		cmd_fn fn;
		const char *usage;
	} cmds[] = {
		{ cmd_probe, "Usage: ksnoop probe [OPTIONS] DEF [DEF...]\n" },
		{ cmd_kprobe_events, "Usage: ksnoop kprobe-events [--fprobe]" },
		{ cmd_ktrace, "usage: ktrace [-aCcdi] [-f trfile]" },
		{ cmd_kdump, "usage: kdump [-dHlnRTXx] [-f file]" },
	};
	static const char *const forms[] = { "-h", "--help", "--he" };
	struct cmd_run r;
	size_t i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		for (j = 0; j < ARRAY_SIZE(forms); j++) {
			RUN_CMD(&r, cmds[i].fn, "-d", forms[j], "--nope");
			if (r.ret || strncmp(r.out, cmds[i].usage, strlen(cmds[i].usage)) || *r.err)
				print_error("%s %s: %d\n%s%s\n", cmds[i].usage, forms[j], r.ret,
					    r.out, r.err);
			assert_int_equal(r.ret, 0);
			assert_memory_equal(r.out, cmds[i].usage, strlen(cmds[i].usage));
			assert_string_equal(r.err, "");
		}
	}
}

/* The same error path, each command's context around it. */
static void test_every_command_shares_errors(void **state)
{
	struct cmd_run r;

	(void)state;
	RUN_CMD(&r, cmd_probe, "--p", "1", "p:a f");
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, "Error: ambiguous option '--p' for probe\n");
	RUN_CMD(&r, cmd_kprobe_events, "--fprobe=1", "f");
	assert_string_equal(r.err,
			    "Error: option '--fprobe' for kprobe-events takes no argument\n");
	RUN_CMD(&r, cmd_ktrace, "--nope");
	/* ktrace returns its exit status: 1 for a bad command line */
	assert_int_equal(r.ret, 1);
	assert_string_equal(r.err,
			    "Error: unknown option '--nope'; usage: ktrace [-aCcdi] [-f trfile] "
			    "[-g pgid] [-p pid] [-t trstr] [command [args]]\n");
	RUN_CMD(&r, cmd_ktrace, "-p");
	assert_string_equal(r.err, "Error: option '-p' needs an argument; usage: ktrace [-aCcdi] "
				   "[-f trfile] [-g pgid] [-p pid] [-t trstr] [command [args]]\n");
	RUN_CMD(&r, cmd_ktrace, "-g", "2147483648");
	assert_string_equal(r.err, "Error: invalid -g pgid '2147483648'\n");
	/* pid 0 is the idle task, which makes no system calls to show */
	RUN_CMD(&r, cmd_kdump, "-p", "0");
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, "Error: invalid -p pid '0'\n");
	RUN_CMD(&r, cmd_kdump, "-x", "--", "extra");
	assert_string_equal(r.err, "Error: unexpected argument 'extra'; usage: kdump [-dHlnRTXx] "
				   "[-f file] [--format=text|chrome] [-m maxdata] [-o file] "
				   "[-p pid] [-t trstr]\n");
	RUN_CMD(&r, cmd_kdump, "--format=json");
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, "Error: unknown --format 'json': use text or chrome\n");
	RUN_CMD(&r, cmd_kdump, "--format", "chrome", "-l");
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, "Error: -l cannot be combined with --format=chrome: its JSON "
				   "ends at the end of the file\n");
}

/* count and hist: their table first, then ksnoop's own (opts_spec.more). */
/* argv through spec into a fresh env; its stderr into err. */
static int parse_with(const struct opts_spec *spec, struct env *env, struct opts_rest *rest,
		      char *err, size_t size, int argc, char **argv)
{
	struct stderr_capture cap;
	int ret;

	memset(env, 0, sizeof(*env));
	env->cpu = -1;
	stderr_capture_begin(&cap);
	ret = opts_parse(spec, env, argc, argv, rest);
	stderr_capture_end(&cap, err, size);
	return ret;
}

#define PARSE_WITH(spec, env, rest, err, ...)                                                  \
	parse_with(spec, env, rest, err, sizeof(err), ARRAY_SIZE(((char *[]){ __VA_ARGS__ })), \
		   (char *[]){ __VA_ARGS__, NULL })
#define PARSE_AGG(env, rest, err, ...) PARSE_WITH(&agg_cmd_opts, env, rest, err, __VA_ARGS__)

static void test_agg_options(void **state)
{
	struct opts_rest rest;
	struct env env;
	char err[512];

	(void)state;
	/* -d is the run time, as bcc's argdist -d */
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-d", "5", "f", "--by", "comm,kstack"), 0);
	assert_true(env.agg.run_ns == 5000000000ULL);
	assert_false(util_debug());
	assert_int_equal(env.agg.by, KSNOOP_BY_COMM | KSNOOP_BY_KSTACK);
	assert_int_equal(rest.argc, 1);
	assert_string_equal(rest.argv[0], "f");
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-d", "1.5", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid -d/--run-time '1.5': use seconds, or e.g. 500ms "
				 "or 2s\n");
	assert_false(util_debug());
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--debug", "f", "-i", "500ms", "-p", "7"), 0);
	assert_true(util_debug());
	util_set_debug(false);
	assert_int_equal(env.agg.run_ns, 0);
	assert_true(env.agg.interval_ns == 500000000ULL);
	/* ksnoop's own options come from the shared table */
	assert_int_equal(env.nr_pids, 1);
	assert_int_equal(env.pids[0], 7);
	assert_int_equal(rest.argc, 1);
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--duration", "2s", "--linear", "0,100,10",
				   "--latency", "--unit", "us", "--top", "3", "f"),
			 0);
	assert_true(env.agg.run_ns == 2000000000ULL);
	assert_true(env.agg.linear && env.agg.lo == 0 && env.agg.hi == 100 && env.agg.step == 10);
	assert_true(env.agg.latency);
	assert_int_equal(env.agg.unit_ns, 1000);
	assert_int_equal(env.agg.top, 3);
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--by", "comm,nope", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid --by 'comm,nope': 'nope' is not one of comm, "
				 "pid, tid, cpu, kstack, ustack, cgroup\n");
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--linear", "10,0,1", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid --linear '10,0,1': need LO,HI,STEP integers with "
				 "LO < HI and STEP > 0\n");
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--linear", "0,1000,1", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid --linear '0,1000,1': (HI - LO) must be a "
				 "multiple of STEP, at most 126 steps\n");
	/* 2^62 - -2^62 is past INT64_MAX */
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--linear",
				   "-4611686018427387904,4611686018427387904,144115188075855872",
				   "f"),
			 -EINVAL);
	assert_non_null(strstr(err, "HI - LO must fit in 64 bits"));
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--unit", "s", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid --unit 's': use ns, us or ms\n");
	/* seconds in decimal: 010 is ten, not eight */
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-i", "010", "f"), 0);
	assert_true(env.agg.interval_ns == 10000000000ULL);
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-i", "0x10", "f"), -EINVAL);
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-i", "0", "f"), -EINVAL);
	assert_string_equal(err, "Error: invalid -i '0': use seconds, or e.g. 500ms or 2s\n");
}

/* trace's options, as ksnoop's own table has them. */
static const struct opts_spec trace_like = { .opts = env_opts, .mode = OPTS_PERMUTE };

#define PARSE_TRACE(env, rest, err, ...) PARSE_WITH(&trace_like, env, rest, err, __VA_ARGS__)

/*
 * One name, one meaning: trace's filter is --min-duration, count's and
 * hist's run time -d/--run-time; --duration, the old name of both, still
 * works in each, whole or abbreviated.
 */
static void test_duration_names(void **state)
{
	struct opts_rest rest;
	struct env env;
	char err[512];

	(void)state;
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--min-duration", "5ms", "f"), 0);
	assert_true(env.min_duration_ns == 5000000ULL);
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--duration", "20us", "f"), 0);
	assert_true(env.min_duration_ns == 20000ULL);
	/* a bare number is ns here, as it always was */
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--dur", "5", "f"), 0);
	assert_true(env.min_duration_ns == 5ULL);
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--min", "1s", "f"), 0);
	assert_true(env.min_duration_ns == 1000000000ULL);
	/* -d is --debug, as in bcc's ksnoop */
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "-d", "5", "f"), 0);
	assert_true(util_debug());
	util_set_debug(false);
	assert_int_equal(rest.argc, 2);

	assert_int_equal(PARSE_AGG(&env, &rest, err, "--run-time", "500ms", "f"), 0);
	assert_true(env.agg.run_ns == 500000000ULL && !env.min_duration_ns);
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--duration", "2", "f"), 0);
	assert_true(env.agg.run_ns == 2000000000ULL && !env.min_duration_ns);
	/* was "ambiguous option '--dur'" */
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--dur", "5", "f"), 0);
	assert_true(env.agg.run_ns == 5000000000ULL && !env.min_duration_ns);
	assert_string_equal(err, "");
	assert_int_equal(PARSE_AGG(&env, &rest, err, "--min-duration", "5ms", "f"), 0);
	assert_true(env.min_duration_ns == 5000000ULL && !env.agg.run_ns);
	/* -d takes its argument, whatever it is: no guess at debug */
	assert_int_equal(PARSE_AGG(&env, &rest, err, "-d", "f"), -EINVAL);
	assert_false(util_debug());
	expect_one_error_line(err, "in count and hist -d is the run time");
	assert_non_null(strstr(err, "--debug"));
}

static bool errno_set(const struct env *env, int e)
{
	return env->errno_mask[e / 64] & (1ULL << (e % 64));
}

/* --errno takes POSIX's second names of a number as well as the kernel's. */
static void test_errno_aliases(void **state)
{
	struct opts_rest rest;
	struct env env;
	char err[512];

	(void)state;
	assert_int_equal(
		PARSE_TRACE(&env, &rest, err, "--errno", "ENOTSUP,EWOULDBLOCK,edeadlock", "f"), 0);
	assert_true(errno_set(&env, 95) && errno_set(&env, 11) && errno_set(&env, 35));
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--errno", "EOPNOTSUPP,EAGAIN,EDEADLK", "f"),
			 0);
	assert_true(errno_set(&env, 95) && errno_set(&env, 11) && errno_set(&env, 35));
	/* ENOTSUPP (524) is the kernel's own, another number */
	assert_int_equal(PARSE_TRACE(&env, &rest, err, "--errno", "ENOTSUPP", "f"), 0);
	assert_true(errno_set(&env, 524) && !errno_set(&env, 95));
	/* printed by the one name */
	assert_string_equal(errno_name(errno_parse("ENOTSUP")), "EOPNOTSUPP");
	assert_string_equal(errno_name(errno_parse("EWOULDBLOCK")), "EAGAIN");
	assert_string_equal(errno_name(errno_parse("EDEADLOCK")), "EDEADLK");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_permute),
		cmocka_unit_test(test_duration_names),
		cmocka_unit_test(test_errno_aliases),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_dashdash),
		cmocka_unit_test(test_argument_forms),
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_setters_stop_the_parse),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_typed_values),
		cmocka_unit_test(test_pid_and_pages),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_every_command_shares_errors),
		cmocka_unit_test(test_agg_options),
	};

	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
