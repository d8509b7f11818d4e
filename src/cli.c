// SPDX-License-Identifier: GPL-2.0
/* Command line: options into struct env, then dispatch by command table. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "env.h"
#include "trace/session.h"
#include "abi/trace.h"
#include "lib/errnames.h"
#include "lib/opts.h"
#include "lib/util.h"

/*
 * A command gets the words after its word. Its options are either ksnoop's
 * own, parsed here into env (opts = &cmd_opts), or its own table, which fn
 * parses with the same opts_parse (opts = NULL): ktrace(1) and kdump(1)
 * keep BSD's letters, probe reads its filters in order.
 */
struct cmd {
	const char *name;
	cmd_fn fn;
	const struct opts_spec *opts;
	bool own_status; /* returns its exit status (ktrace: its command's) */
};

static const struct opts_spec cmd_opts;
static int cmd_help(struct env *env, int argc, char **argv);

static const struct cmd cmds[] = {
	{ "info", cmd_info, &cmd_opts, false },
	{ "trace", cmd_trace, &cmd_opts, false },
	{ "graph", cmd_graph, &cmd_opts, false },
	{ "count", cmd_count, &agg_cmd_opts, false },
	{ "hist", cmd_hist, &agg_cmd_opts, false },
	{ "feature", cmd_feature, &cmd_opts, false },
	{ "ktrace", cmd_ktrace, NULL, true },
	{ "kdump", cmd_kdump, NULL, false },
	{ "probe", cmd_probe, NULL, false },
	{ "kprobe-events", cmd_kprobe_events, NULL, false },
	{ "serve", cmd_serve, NULL, false },
	{ "help", cmd_help, &cmd_opts, false },
};

/* Programs that answer to their own name through an installed link. */
static const struct cmd aliases[] = {
	{ "ktrace", cmd_ktrace, NULL, true },
	{ "kdump", cmd_kdump, NULL, false },
};

/* "ksnoop FUNC...": trace, without the word. */
static const struct cmd trace_cmd = { "trace", cmd_trace, &cmd_opts, false };

void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTIONS] { COMMAND FUNC [FUNC...] | FUNC [FUNC...] | help }\n"
		"\n"
		"COMMAND := { trace | graph | count | hist | info | feature | ktrace | kdump | probe | kprobe-events | serve }\n"
		"FUNC := { name | name(arg[,arg]...) }\n"
		"  name := function | module:function | target:function (a program's or library's)\n"
		"          | tp:category:event | rawtp:event | profile:HZ\n"
		"  arg := parameter | return | comm | current | parameter->member... | predicate\n"
		"\n"
		"OPTIONS:\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version and exit\n"
		"  -d, --debug           print debug output, including libbpf's\n"
		"  -p, --pid PID         trace only this process (all its threads)\n"
		"  -P, --pages N         ring buffer pages per CPU (default: sized from the\n"
		"                        events for a 100,000-call burst, at most 64 MiB)\n"
		"  -s, --stack           trace only when FUNCs are called in the order given\n"
		"  -b, --backend KIND    fentry, kprobe or auto (default auto)\n"
		"      --btf FILE        read BTF from FILE (raw BTF or vmlinux ELF); tracing\n"
		"                        commands refuse one the running kernel does not fit\n"
		"  -j, --json            JSON: one object per event (NDJSON), or per answer of\n"
		"                        info, feature and kprobe-events\n"
		"  -T, --wallclock       wall-clock time instead of monotonic ns\n"
		"      --show-comm       trace, graph: a COMM column after PID (a span's\n"
		"                        start shows its issuer's)\n"
		"      --compact         struct dumps on one line\n"
		"      --comm PATTERN    only tasks whose comm matches (glob)\n"
		"      --cpu N           only events on CPU N\n"
		"      --cgroup PATH     only tasks in this cgroup v2 (or below it)\n"
		"      --min-duration TIME  only calls lasting at least TIME (ns, us, ms, s;\n"
		"                        a bare number is ns); was --duration, which still works\n"
		"      --max-depth N     show struct nesting down to N levels\n"
		"      --max-bytes N     capture at most N bytes per value (default 2048)\n"
		"      --symbolize       name function pointers: 0xffffffff81234560 <tcp_v4_rcv>\n"
		"      --kstack          the kernel stack under each event\n"
		"      --kstack-depth N  at most N frames of it (1-%d, default %d; implies --kstack)\n"
		"      --ustack          the user stack under each event, by frame pointers\n"
		"      --call-graph MODE  how --ustack unwinds: fp (frame pointers, the\n"
		"                        default) or dwarf[,BYTES] (copies BYTES of stack,\n"
		"                        default and most %d, and unwinds it with the\n"
		"                        objects' CFI); either implies --ustack\n"
		"      --errors          only calls that fail (an errno, NULL or ERR_PTR return),\n"
		"                        with the error's origin when FUNCs nest\n"
		"      --errno LIST      only failures with these errnos (ENOENT,EACCES,13;\n"
		"                        implies --errors)\n"
		"      --max-nodes N     graph: at most N calls in one tree (default 1024)\n"
		"      --from SPEC       instead of FUNCs: a span starts at SPEC's call, keyed\n"
		"                        by its first value, or a tuple 'f((a, b))' (trace,\n"
		"                        count and hist)\n"
		"      --to SPEC         the span of an equal key ends at SPEC's call\n"
		"      --max-spans N     open spans kept in the kernel (default %d), or\n"
		"                        objects followed\n"
		"      --follow PARAM    trace: follow the object SPEC receives as PARAM\n"
		"                        through every function taking its type\n"
		"      --follow-in GLOB  only the functions GLOB matches (repeatable)\n"
		"      --follow-end GLOB stop following at these (default for skbs: the\n"
		"                        kfree_skb and consume_skb family)\n"
		"      --follow-time TIME\n"
		"                        stop following an object after TIME (default 10s)\n"
		"      --format FMT      text (the default) or chrome: Chrome Trace Event JSON\n"
		"                        for Perfetto, one complete event per call\n"
		"  -o, --output FILE     write events to FILE instead of stdout\n",
		prog, KSNOOP_KSTACK_MAX, KSNOOP_KSTACK_MAX, KSNOOP_USTACK_DUMP_MAX,
		KSNOOP_DEFAULT_MAX_SPANS);
}

int env_add_pid(void *ctx, const char *arg)
{
	struct env *env = ctx;
	pid_t pid;

	if (opts_pid(arg, "pid", &pid))
		return -EINVAL;
	if (env->nr_pids >= KSNOOP_MAX_PIDS) {
		p_err("at most %d pids can be given", KSNOOP_MAX_PIDS);
		return -E2BIG;
	}
	env->pids[env->nr_pids++] = pid;
	return 0;
}

int env_set_pages(void *ctx, const char *arg)
{
	return opts_pages(arg, &((struct env *)ctx)->pages);
}

void env_session_opts(const struct env *env, struct session_opts *o)
{
	*o = (struct session_opts){
		.btf_path = env->btf_path,
		.stack_mode = env->stack_mode,
		.graph = env->graph,
	};
}

void env_tracer_opts(const struct env *env, struct tracer_opts *o)
{
	_Static_assert(sizeof(o->errno_mask) == sizeof(env->errno_mask), "errno masks differ");
	*o = (struct tracer_opts){
		.backend = env->backend,
		.pids = env->pids,
		.nr_pids = env->nr_pids,
		.cpu = env->cpu,
		.cgroup = env->cgroup,
		.offline_btf = env->btf_path != NULL,
		.pages = env->pages,
		.stack_mode = env->stack_mode,
		.graph = env->graph,
		.errors = env->errors,
		.want_comm = util_json() || env->chrome || env->show_comm,
		.kstack_depth = env->kstack_depth,
		.ustack_depth = env->ustack_depth,
		.ustack_dump_bytes = env->ustack_dump_bytes,
		.min_duration_ns = env->min_duration_ns,
		.errno_filter = env->errno_filter,
		.spans = span_wanted(&env->spans),
		.max_spans = env->spans.max_spans,
		.follow = follow_wanted(&env->follow),
		.follow_max_ns = env->follow.max_ns ?: KSNOOP_FOLLOW_DEFAULT_NS,
	};
	memcpy(o->errno_mask, env->errno_mask, sizeof(o->errno_mask));
}

int env_set_debug(void *ctx, const char *arg)
{
	(void)ctx;
	(void)arg;
	/* the second -d (-dd) adds libbpf's debug messages */
	if (util_debug())
		util_set_libbpf_debug(true);
	util_set_debug(true);
	return 0;
}

int env_set_json(void *ctx, const char *arg)
{
	(void)ctx;
	(void)arg;
	util_set_json(true);
	return 0;
}

static int show_version(void *ctx, const char *arg)
{
	(void)arg;
	printf("%s v%s\n", ((struct env *)ctx)->prog_name, KSNOOP_VERSION);
	return OPTS_HELP;
}

static int set_backend(void *ctx, const char *arg)
{
	struct env *env = ctx;
	char clip[CLIP_BUF];

	if (!strcmp(arg, "auto"))
		env->backend = BACKEND_AUTO;
	else if (!strcmp(arg, "fentry"))
		env->backend = BACKEND_FENTRY;
	else if (!strcmp(arg, "kprobe"))
		env->backend = BACKEND_KPROBE;
	else {
		p_err("invalid backend '%s': use fentry, kprobe or auto", str_clip(arg, clip));
		return -EINVAL;
	}
	return 0;
}

static int set_comm(void *ctx, const char *arg)
{
	if (!*arg || strlen(arg) >= KSNOOP_PRED_STR_MAX) {
		p_err("invalid --comm '%.32s': 1 to %d characters, '*' and '?' allowed", arg,
		      KSNOOP_PRED_STR_MAX - 1);
		return -EINVAL;
	}
	((struct env *)ctx)->comm = arg;
	return 0;
}

int env_set_kstack(void *ctx, const char *arg)
{
	struct env *env = ctx;

	(void)arg;
	if (!env->kstack_depth)
		env->kstack_depth = KSNOOP_KSTACK_MAX;
	return 0;
}

/* One errno of an --errno list; the name is cut to what any errno fits in. */
static int add_errno(struct env *env, const char *s, size_t len)
{
	char word[32];
	int e = -EINVAL;

	if (len < sizeof(word)) {
		memcpy(word, s, len);
		word[len] = 0;
		e = errno_parse(word);
	}
	if (e < 0) {
		p_err("invalid --errno '%.*s': an errno name (ENOENT) or number (1-%d)",
		      (int)(len < sizeof(word) ? len : sizeof(word)), s, ERRNO_MAX);
		return -EINVAL;
	}
	env->errno_mask[e / 64] |= 1ULL << (e % 64);
	return 0;
}

static int set_errno(void *ctx, const char *arg)
{
	struct env *env = ctx;
	size_t len;
	int err;

	for (;; arg += len + 1) {
		len = strcspn(arg, ",");
		err = add_errno(env, arg, len);
		if (err)
			return err;
		if (!arg[len])
			break;
	}
	env->errors = env->errno_filter = true;
	return 0;
}

int env_set_ustack(void *ctx, const char *arg)
{
	(void)arg;
	((struct env *)ctx)->ustack_depth = KSNOOP_USTACK_MAX;
	return 0;
}

/* perf's --call-graph: "fp", "dwarf" or "dwarf,BYTES". */
int env_set_call_graph(void *ctx, const char *arg)
{
	struct env *env = ctx;
	char clip[CLIP_BUF];
	int bytes = KSNOOP_USTACK_DUMP_MAX;

	env->ustack_depth = KSNOOP_USTACK_MAX;
	env->call_graph = true;
	if (!strcmp(arg, "fp")) {
		env->ustack_dump_bytes = 0;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		p_err("invalid --call-graph '%s': use fp or dwarf[,BYTES]", str_clip(arg, clip));
		return -EINVAL;
	}
	if (arg[5] &&
	    opts_int(arg + 6, "--call-graph dwarf's BYTES", 8, KSNOOP_USTACK_DUMP_MAX, &bytes))
		return -EINVAL;
	env->ustack_dump_bytes = (bytes + 7) & ~7;
	return 0;
}

int env_set_kstack_depth(void *ctx, const char *arg)
{
	return opts_int(arg, "--kstack-depth", 1, KSNOOP_KSTACK_MAX,
			&((struct env *)ctx)->kstack_depth);
}

static int set_format(void *ctx, const char *arg)
{
	struct env *env = ctx;
	char clip[CLIP_BUF];

	if (strcmp(arg, "text") && strcmp(arg, "chrome")) {
		p_err("invalid --format '%s': use text or chrome", str_clip(arg, clip));
		return -EINVAL;
	}
	env->chrome = !strcmp(arg, "chrome");
	return 0;
}

static void help(void *ctx)
{
	usage(stdout, ((struct env *)ctx)->prog_name);
}

/* arg at the end of list, which holds max: a repeatable option's values. */
static int append_arg(const char **list, int *nr, int max, const char *opt, const char *arg)
{
	if (*nr >= max) {
		p_err("%s is given more than %d times", opt, max);
		return -E2BIG;
	}
	list[(*nr)++] = arg;
	return 0;
}

static int add_from(void *ctx, const char *arg)
{
	struct env *env = ctx;

	return append_arg(env->spans.from, &env->spans.nr_from, KSNOOP_MAX_SPAN_SPECS, "--from",
			  arg);
}

static int add_to(void *ctx, const char *arg)
{
	struct env *env = ctx;

	return append_arg(env->spans.to, &env->spans.nr_to, KSNOOP_MAX_SPAN_SPECS, "--to", arg);
}

static int add_follow_glob(const char **globs, int *nr, const char *what, const char *arg)
{
	if (!*arg || strlen(arg) > 255) {
		p_err("invalid %s '%.32s': 1 to 255 characters", what, arg);
		return -EINVAL;
	}
	return append_arg(globs, nr, KSNOOP_MAX_FOLLOW_GLOBS, what, arg);
}

/* A parameter's name: a C identifier, short enough to quote in errors. */
static int set_follow(void *ctx, const char *arg)
{
	struct env *env = ctx;
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	char clip[CLIP_BUF];

	if (!n || n > 64 || arg[n] || (*arg >= '0' && *arg <= '9')) {
		p_err("invalid --follow '%s': the name of the start's parameter, as in "
		      "--follow skb",
		      str_clip(arg, clip));
		return -EINVAL;
	}
	env->follow.param = arg;
	return 0;
}

static int add_follow_in(void *ctx, const char *arg)
{
	struct env *env = ctx;

	return add_follow_glob(env->follow.in, &env->follow.nr_in, "--follow-in", arg);
}

static int add_follow_end(void *ctx, const char *arg)
{
	struct env *env = ctx;

	return add_follow_glob(env->follow.end, &env->follow.nr_end, "--follow-end", arg);
}

/*
 * Checked when given: BPF would only say EBADF of a directory that is not
 * a cgroup v2 one, and only once the programs are loaded.
 */
static int set_cgroup(void *ctx, const char *arg)
{
	char clip[CLIP_BUF];
	struct statfs fs;
	struct stat st;

	if (statfs(arg, &fs) || stat(arg, &st)) {
		p_err("cannot open cgroup '%s': %s", str_clip(arg, clip), err_text(errno));
		return -EINVAL;
	}
	if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		p_err("'%s' is not a cgroup v2 directory: give one on a cgroup2 mount",
		      str_clip(arg, clip));
		return -EINVAL;
	}
	((struct env *)ctx)->cgroup = arg;
	return 0;
}

const struct opt env_opts[] = {
	OPT_CALL("version", 'V', false, show_version),
	OPT_CALL("debug", 'd', false, env_set_debug),
	OPT_CALL("pid", 'p', true, env_add_pid),
	OPT_CALL("pages", 'P', true, env_set_pages),
	OPT_FLAG("stack", 's', struct env, stack_mode),
	OPT_CALL("backend", 'b', true, set_backend),
	OPT_STRING("btf", 0, struct env, btf_path),
	OPT_CALL("json", 'j', false, env_set_json),
	OPT_FLAG("wallclock", 'T', struct env, wallclock),
	OPT_FLAG("show-comm", 0, struct env, show_comm),
	OPT_FLAG("compact", 0, struct env, compact),
	OPT_CALL("comm", 0, true, set_comm),
	OPT_INT("cpu", 0, struct env, cpu, 0, 8191),
	OPT_CALL("cgroup", 0, true, set_cgroup),
	OPT_DURATION("min-duration", 0, struct env, min_duration_ns),
	/* its old name, which count and hist's run time also had */
	{ .name = "duration",
	  .has_arg = true,
	  .kind = OPT_K_DURATION,
	  .off = OPT_FIELD(struct env, min_duration_ns, unsigned long long),
	  .alias = true },
	OPT_INT("max-depth", 0, struct env, max_depth, 1, 64),
	OPT_INT("max-bytes", 0, struct env, max_bytes, 1, KSNOOP_VALUE_MAX),
	OPT_FLAG("symbolize", 0, struct env, symbolize),
	OPT_CALL("kstack", 0, false, env_set_kstack),
	OPT_CALL("kstack-depth", 0, true, env_set_kstack_depth),
	OPT_CALL("ustack", 0, false, env_set_ustack),
	OPT_CALL("call-graph", 0, true, env_set_call_graph),
	OPT_FLAG("errors", 0, struct env, errors),
	OPT_INT("max-nodes", 0, struct env, max_nodes, 1, 65536),
	OPT_CALL("format", 0, true, set_format),
	OPT_STRING("output", 'o', struct env, output_path),
	OPT_CALL("errno", 0, true, set_errno),
	OPT_CALL("from", 0, true, add_from),
	OPT_CALL("to", 0, true, add_to),
	OPT_INT("max-spans", 0, struct env, spans.max_spans, 1, 1 << 22),
	OPT_CALL("follow", 0, true, set_follow),
	OPT_CALL("follow-in", 0, true, add_follow_in),
	OPT_CALL("follow-end", 0, true, add_follow_end),
	OPT_DURATION("follow-time", 0, struct env, follow.max_ns),
	{},
};

/* Before the command word: "ksnoop -p 1 trace f". */
static const struct opts_spec global_opts = {
	.opts = env_opts,
	.mode = OPTS_STOP,
	.help = help,
	.later = &agg_cmd_opts,
	.later_cmds = "count and hist",
};

/* After it, among the FUNCs: "ksnoop trace -p 1 f -s g". */
static const struct opts_spec cmd_opts = {
	.opts = env_opts,
	.mode = OPTS_PERMUTE,
	.help = help,
};

static int cmd_help(struct env *env, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout, env->prog_name);
	return 0;
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

/* A usage error in ksnoop's own options: nothing runs. */
#define EXIT_USAGE 2

/* The exit status of cmd on the words after its word. */
static int run_cmd(struct env *env, const struct cmd *cmd, int argc, char **argv)
{
	struct opts_rest rest = { .argc = argc, .argv = argv };
	int ret;

	if (cmd->opts) {
		ret = opts_parse(cmd->opts, env, argc, argv, &rest);
		if (ret)
			return ret == OPTS_HELP ? 0 : EXIT_USAGE;
	}
	ret = cmd->fn(env, rest.argc, rest.argv);
	if (cmd->own_status)
		return ret;
	return ret ? 1 : 0;
}

/* The exit status of the command line argv[0..argc). */
static int dispatch(int argc, char **argv)
{
	struct env env = { .cpu = -1 };
	const struct cmd *cmd;
	struct opts_rest rest;
	bool ambiguous;
	size_t i;
	int ret;

	util_route_libbpf_print();
	if (argc < 1 || !argv[0]) {
		/* exec with an empty argv */
		usage(stderr, "ksnoop");
		return EXIT_USAGE;
	}
	env.prog_name = basename(argv[0]);
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (!strcmp(env.prog_name, aliases[i].name))
			return run_cmd(&env, &aliases[i], argc - 1, argv + 1);
	}
	ret = opts_parse(&global_opts, &env, argc - 1, argv + 1, &rest);
	if (ret)
		return ret == OPTS_HELP ? 0 : EXIT_USAGE;
	if (rest.argc == 0) {
		usage(stderr, env.prog_name);
		return EXIT_USAGE;
	}
	cmd = find_cmd(rest.argv[0], &ambiguous);
	if (ambiguous) {
		p_err("ambiguous command '%s'", rest.argv[0]);
		return EXIT_USAGE;
	}
	if (cmd)
		return run_cmd(&env, cmd, rest.argc - 1, rest.argv + 1);
	/* After "--" every word is a FUNC, even "-x". */
	if (rest.dashdash)
		return cmd_trace(&env, rest.argc, rest.argv) ? 1 : 0;
	return run_cmd(&env, &trace_cmd, rest.argc, rest.argv);
}

/* Every command's output is checked once, here: a failed write is a failure. */
int ksnoop_main(int argc, char **argv)
{
	int ret = dispatch(argc, argv);

	return finish_stdout() < 0 && !ret ? 1 : ret;
}
