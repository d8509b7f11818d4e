// SPDX-License-Identifier: GPL-2.0
/* Command line: options into struct env, then dispatch by command table. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "abi/trace.h"
#include "lib/util.h"

struct cmd {
	const char *name;
	cmd_fn fn;
	bool own_opts;	 /* parses its own options (ktrace, kdump) */
	bool own_status; /* returns its exit status (ktrace: its command's) */
};

static int cmd_help(struct env *env, int argc, char **argv);

static const struct cmd cmds[] = {
	{ "info", cmd_info, false, false },
	{ "trace", cmd_trace, false, false },
	{ "feature", cmd_feature, false, false },
	{ "ktrace", cmd_ktrace, true, true },
	{ "kdump", cmd_kdump, true, false },
	{ "probe", cmd_probe, true, false },
	{ "kprobe-events", cmd_kprobe_events, true, false },
	{ "help", cmd_help, false, false },
};

/* Programs that answer to their own name through an installed link. */
static const struct cmd aliases[] = {
	{ "ktrace", cmd_ktrace, true, true },
	{ "kdump", cmd_kdump, true, false },
};

void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTIONS] { COMMAND FUNC [FUNC...] | FUNC [FUNC...] | help }\n"
		"\n"
		"COMMAND := { trace | info | feature | ktrace | kdump | probe | kprobe-events }\n"
		"FUNC := { name | name(arg[,arg]...) }\n"
		"  arg := parameter | return | parameter->member... | predicate\n"
		"\n"
		"OPTIONS:\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version and exit\n"
		"  -d, --debug           print debug output, including libbpf's\n"
		"  -p, --pid PID         trace only this process (all its threads)\n"
		"  -P, --pages N         ring buffer pages per CPU (default %d)\n"
		"  -s, --stack           trace only when FUNCs are called in the order given\n"
		"  -b, --backend KIND    fentry, kprobe or auto (default auto)\n"
		"      --btf FILE        read BTF from FILE (raw BTF or vmlinux ELF; info only)\n"
		"  -j, --json            one JSON object per event (NDJSON)\n"
		"  -T, --wallclock       wall-clock time instead of monotonic ns\n"
		"      --compact         struct dumps on one line\n"
		"      --comm PATTERN    only tasks whose comm matches (glob)\n"
		"      --cpu N           only events on CPU N\n"
		"      --cgroup PATH     only tasks in this cgroup v2 (or below it)\n"
		"      --duration TIME   only calls lasting at least TIME (ns, us, ms, s)\n"
		"      --max-depth N     show struct nesting down to N levels\n"
		"      --max-bytes N     capture at most N bytes per value (default 2048)\n"
		"      --symbolize       name function pointers: 0xffffffff81234560 <tcp_v4_rcv>\n",
		prog, KSNOOP_DEFAULT_PAGES);
}

static int cmd_help(struct env *env, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout, env->prog_name);
	return 0;
}

enum {
	OPT_BTF = 256,
	OPT_COMM,
	OPT_CPU,
	OPT_CGROUP,
	OPT_DURATION,
	OPT_COMPACT,
	OPT_MAX_DEPTH,
	OPT_MAX_BYTES,
	OPT_SYMBOLIZE,
};

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "debug", no_argument, NULL, 'd' },
	{ "pid", required_argument, NULL, 'p' },
	{ "pages", required_argument, NULL, 'P' },
	{ "stack", no_argument, NULL, 's' },
	{ "backend", required_argument, NULL, 'b' },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "json", no_argument, NULL, 'j' },
	{ "wallclock", no_argument, NULL, 'T' },
	{ "compact", no_argument, NULL, OPT_COMPACT },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "symbolize", no_argument, NULL, OPT_SYMBOLIZE },
	{},
};

enum { PARSE_OK = 0, PARSE_EXIT_OK = -1, PARSE_ERR = -2 };

static int add_pid(struct env *env, const char *arg)
{
	char clip[CLIP_BUF];
	long long v;

	if (parse_long(arg, 1, 0x7fffffff, &v)) {
		p_err("invalid pid '%s'", str_clip(arg, clip));
		return PARSE_ERR;
	}
	if (env->nr_pids >= KSNOOP_MAX_PIDS) {
		p_err("at most %d pids can be given", KSNOOP_MAX_PIDS);
		return PARSE_ERR;
	}
	env->pids[env->nr_pids++] = v;
	return PARSE_OK;
}

static int set_pages(struct env *env, const char *arg)
{
	char clip[CLIP_BUF];
	long long v;

	/* The ring buffer size must be a power of two pages. */
	if (parse_long(arg, 1, 1 << 16, &v) || (v & (v - 1))) {
		p_err("invalid page count '%s': need a power of two from 1 to 65536",
		      str_clip(arg, clip));
		return PARSE_ERR;
	}
	env->pages = v;
	return PARSE_OK;
}

static int set_backend(struct env *env, const char *arg)
{
	char clip[CLIP_BUF];

	if (!strcmp(arg, "auto"))
		env->backend = BACKEND_AUTO;
	else if (!strcmp(arg, "fentry"))
		env->backend = BACKEND_FENTRY;
	else if (!strcmp(arg, "kprobe"))
		env->backend = BACKEND_KPROBE;
	else {
		p_err("invalid backend '%s': use fentry, kprobe or auto", str_clip(arg, clip));
		return PARSE_ERR;
	}
	return PARSE_OK;
}

static int set_comm(struct env *env, const char *arg)
{
	if (!*arg || strlen(arg) >= KSNOOP_PRED_STR_MAX) {
		p_err("invalid --comm '%.32s': 1 to %d characters, '*' and '?' allowed", arg,
		      KSNOOP_PRED_STR_MAX - 1);
		return PARSE_ERR;
	}
	env->comm = arg;
	return PARSE_OK;
}

static int set_number(struct env *env, int opt, const char *arg)
{
	static const struct {
		int opt;
		const char *name;
		long long min, max;
	} limits[] = {
		{ OPT_CPU, "--cpu", 0, 8191 },
		{ OPT_MAX_DEPTH, "--max-depth", 1, 64 },
		{ OPT_MAX_BYTES, "--max-bytes", 1, KSNOOP_VALUE_MAX },
	};
	long long v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(limits) && limits[i].opt != opt; i++)
		;
	if (parse_long(arg, limits[i].min, limits[i].max, &v)) {
		p_err("invalid %s '%.32s': need a number from %lld to %lld", limits[i].name, arg,
		      limits[i].min, limits[i].max);
		return PARSE_ERR;
	}
	if (opt == OPT_CPU)
		env->cpu = v;
	else if (opt == OPT_MAX_DEPTH)
		env->max_depth = v;
	else
		env->max_bytes = v;
	return PARSE_OK;
}

static int set_duration(struct env *env, const char *arg)
{
	if (parse_duration_ns(arg, &env->min_duration_ns) || !env->min_duration_ns) {
		p_err("invalid --duration '%.32s': use e.g. 500ns, 20us, 5ms or 1s", arg);
		return PARSE_ERR;
	}
	return PARSE_OK;
}

static int parse_opt(struct env *env, int opt, const char *arg)
{
	switch (opt) {
	case 'h':
		usage(stdout, env->prog_name);
		return PARSE_EXIT_OK;
	case 'V':
		printf("%s v%s\n", env->prog_name, KSNOOP_VERSION);
		return PARSE_EXIT_OK;
	case 'd':
		env->debug = true;
		util_set_debug(true);
		return PARSE_OK;
	case 'p':
		return add_pid(env, arg);
	case 'P':
		return set_pages(env, arg);
	case 's':
		env->stack_mode = true;
		return PARSE_OK;
	case 'b':
		return set_backend(env, arg);
	case OPT_BTF:
		env->btf_path = arg;
		return PARSE_OK;
	case 'j':
		env->json = true;
		util_set_json_errors(true);
		return PARSE_OK;
	case 'T':
		env->wallclock = true;
		return PARSE_OK;
	case OPT_COMPACT:
		env->compact = true;
		return PARSE_OK;
	case OPT_SYMBOLIZE:
		env->symbolize = true;
		return PARSE_OK;
	case OPT_COMM:
		return set_comm(env, arg);
	case OPT_CGROUP:
		env->cgroup = arg;
		return PARSE_OK;
	case OPT_CPU:
	case OPT_MAX_DEPTH:
	case OPT_MAX_BYTES:
		return set_number(env, opt, arg);
	case OPT_DURATION:
		return set_duration(env, arg);
	default:
		/* getopt already printed the reason */
		return PARSE_ERR;
	}
}

/* Say why getopt_long rejected arg. */
static void bad_option(const char *arg)
{
	size_t i, len = strcspn(arg, "=");
	char clip[CLIP_BUF];
	int matches = 0;

	if (strncmp(arg, "--", 2) || len <= 2) {
		p_err("unknown option '-%c'", optopt);
		return;
	}
	for (i = 0; long_opts[i].name; i++) {
		if (!strncmp(long_opts[i].name, arg + 2, len - 2))
			matches++;
	}
	if (matches > 1)
		p_err("ambiguous option '%.*s'", (int)len, str_clip(arg, clip));
	else if (matches == 1 && arg[len] == '=')
		p_err("option '%.*s' takes no argument", (int)len, str_clip(arg, clip));
	else
		p_err("unknown option '%s'", str_clip(arg, clip));
}

/*
 * Options may come before the command ("ksnoop -p 1 trace f") and after it
 * ("ksnoop trace -p 1 f"); getopt_long's permutation handles both.
 */
static int parse_opts(struct env *env, int argc, char **argv, bool stop_at_word)
{
	const char *optstr = stop_at_word ? "+:hVdp:P:sb:jT" : ":hVdp:P:sb:jT";
	char clip[CLIP_BUF];
	int opt, ret;

	optind = 0; /* full re-initialisation of GNU getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, optstr, long_opts, NULL)) != -1) {
		if (opt == '?') {
			bad_option(argv[optind - 1]);
			return PARSE_ERR;
		}
		if (opt == ':') {
			p_err("option '%s' needs an argument", str_clip(argv[optind - 1], clip));
			return PARSE_ERR;
		}
		ret = parse_opt(env, opt, optarg);
		if (ret != PARSE_OK)
			return ret;
	}
	return PARSE_OK;
}

/* Unique-prefix match; NULL with *ambiguous set when several match. */
static const struct cmd *find_cmd(const char *word, bool *ambiguous)
{
	const struct cmd *found = NULL;
	size_t i, len = strlen(word);

	*ambiguous = false;
	/* "" would be a prefix of every command; it is an (empty) FUNC. */
	if (!len)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strncmp(cmds[i].name, word, len))
			continue;
		if (!strcmp(cmds[i].name, word))
			return &cmds[i];
		if (found)
			*ambiguous = true;
		found = &cmds[i];
	}
	return *ambiguous ? NULL : found;
}

static int run_cmd(struct env *env, const struct cmd *cmd, int argc, char **argv)
{
	int ret;

	/* argv[0] is the command word (or the program), options may follow it. */
	if (cmd->own_opts) {
		ret = cmd->fn(env, argc - 1, argv + 1);
		if (cmd->own_status)
			return ret;
		return ret ? 1 : 0;
	}
	ret = parse_opts(env, argc, argv, false);
	if (ret == PARSE_EXIT_OK)
		return 0;
	if (ret == PARSE_ERR)
		return 2;
	return cmd->fn(env, argc - optind, argv + optind) ? 1 : 0;
}

static const struct cmd trace_cmd = { "trace", cmd_trace, false, false };

int ksnoop_main(int argc, char **argv)
{
	struct env env = { .pages = KSNOOP_DEFAULT_PAGES, .cpu = -1 };
	const struct cmd *cmd;
	bool ambiguous;
	size_t i;
	int ret;

	util_route_libbpf_print();
	if (argc < 1 || !argv[0]) {
		/* exec with an empty argv */
		usage(stderr, "ksnoop");
		return 2;
	}
	env.prog_name = basename(argv[0]);
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (!strcmp(env.prog_name, aliases[i].name))
			return run_cmd(&env, &aliases[i], argc, argv);
	}
	ret = parse_opts(&env, argc, argv, true);
	if (ret == PARSE_EXIT_OK)
		return 0;
	if (ret == PARSE_ERR)
		return 2;
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		usage(stderr, env.prog_name);
		return 2;
	}
	cmd = find_cmd(argv[0], &ambiguous);
	if (ambiguous) {
		p_err("ambiguous command '%s'", argv[0]);
		return 2;
	}
	if (!cmd) {
		/* After "--" every word is a FUNC, even "-x". */
		if (!strcmp(argv[-1], "--"))
			return cmd_trace(&env, argc, argv) ? 1 : 0;
		/* A bare FUNC means "trace FUNC": keep it as an argument. */
		return run_cmd(&env, &trace_cmd, argc + 1, argv - 1);
	}
	return run_cmd(&env, cmd, argc, argv);
}
