// SPDX-License-Identifier: GPL-2.0
/* ksnoop kprobe-events SPEC...: the command around kpe_gen_spec (gen.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "kpe/gen.h"
#include "kpe/parse.h"
#include "lib/opts.h"
#include "lib/util.h"

static void gen_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s kprobe-events [--fprobe] [--group GRP] SPEC [SPEC...]\n"
		"\n"
		"Prints tracefs kprobe_events lines for ksnoop SPECs, offsets and types\n"
		"resolved from BTF: append them to /sys/kernel/tracing/kprobe_events\n"
		"(fprobe lines to dynamic_events).\n"
		"\n"
		"  -F, --fprobe        f: lines with $argN (kernels with fprobe events)\n"
		"  -g, --group GRP     event group (default ksnoop)\n"
		"      --btf FILE      read BTF from FILE instead of the running kernel\n"
		"  -j, --json          each event as a JSON object (see ksnoop(8))\n"
		"  -d, --debug         print debug output\n"
		"  -h, --help          show this help and exit\n",
		prog);
}

struct gen_args {
	struct env *env;
	struct kpe_gen_opts o;
};

static int set_group(void *ctx, const char *arg)
{
	struct gen_args *a = ctx;
	char clip[CLIP_BUF];

	if (strlen(arg) >= KPE_MAX_EVENT_NAME || !kpe_good_name(arg, strlen(arg))) {
		p_err("invalid --group '%s': a letter or '_', then letters, digits or '_', at most %d characters",
		      str_clip(arg, clip), KPE_MAX_EVENT_NAME - 1);
		return -EINVAL;
	}
	a->o.group = arg;
	return 0;
}

static int set_btf(void *ctx, const char *arg)
{
	((struct gen_args *)ctx)->env->btf_path = arg;
	return 0;
}

static int set_debug(void *ctx, const char *arg)
{
	return env_set_debug(((struct gen_args *)ctx)->env, arg);
}

static int set_json(void *ctx, const char *arg)
{
	return env_set_json(((struct gen_args *)ctx)->env, arg);
}

static void help(void *ctx)
{
	gen_usage(stdout, ((struct gen_args *)ctx)->env->prog_name);
}

static const struct opt gen_table[] = {
	OPT_FLAG("fprobe", 'F', struct gen_args, o.fprobe),
	OPT_CALL("group", 'g', true, set_group),
	OPT_CALL("btf", 0, true, set_btf),
	OPT_CALL("debug", 'd', false, set_debug),
	OPT_CALL("json", 'j', false, set_json),
	{},
};

static const struct opts_spec gen_opts = {
	.opts = gen_table,
	.mode = OPTS_STOP,
	.cmd = "kprobe-events",
	.help = help,
};

int cmd_kprobe_events(struct env *env, int argc, char **argv)
{
	struct strbuf used = {};
	struct gen_args a = { .env = env, .o = { .group = "ksnoop", .used = &used } };
	struct opts_rest rest;
	struct kbtf *kb;
	int i, err;

	err = opts_parse(&gen_opts, &a, argc, argv, &rest);
	if (err)
		return err == OPTS_HELP ? 0 : err;
	if (rest.argc < 1) {
		p_err("kprobe-events needs at least one function spec");
		return -EINVAL;
	}
	kb = kbtf__open(env->btf_path);
	if (!kb)
		return -ENOENT;
	a.o.json = util_json();
	for (i = 0; i < rest.argc && !err; i++)
		err = kpe_gen_spec(&a.o, kb, rest.argv[i], stdout);
	kbtf__free(kb);
	sb_free(&used);
	return err;
}
