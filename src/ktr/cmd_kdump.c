// SPDX-License-Identifier: GPL-2.0
/*
 * kdump [-dHlnRTXx] [-f file] [--format=text|chrome] [-m maxdata] [-o file] [-p pid]
 *       [-t trstr]
 *
 * Decode a ktrace trace file, after OpenBSD's kdump(1): as its text lines,
 * or as Chrome Trace Event JSON for the timeline viewers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "ktr/print.h"
#include "ktr/print_chrome.h"
#include "ktr/systab.h"
#include "lib/outfile.h"
#include "lib/opts.h"
#include "lib/util.h"

#define KDUMP_USAGE                                                                         \
	"usage: kdump [-dHlnRTXx] [-f file] [--format=text|chrome] [-m maxdata] [-o file] " \
	"[-p pid] [-t trstr]"
#define DEFAULT_TRFILE "ktrace.out"

struct kdump_args {
	struct kdump_opts opts;
	const char *file;
	const char *output; /* -o, NULL: stdout */
	bool chrome;	    /* --format=chrome */
};

static int set_hex(void *ctx, const char *arg)
{
	(void)arg;
	((struct kdump_args *)ctx)->opts.hex = 1;
	return 0;
}

static int set_hex_ascii(void *ctx, const char *arg)
{
	(void)arg;
	((struct kdump_args *)ctx)->opts.hex = 2;
	return 0;
}

static int set_maxdata(void *ctx, const char *arg)
{
	char clip[CLIP_BUF];
	long long v;

	if (parse_long(arg, 0, KTR_MAX_PAYLOAD, &v)) {
		p_err("invalid -m maxdata '%s': need 0 to %d bytes", str_clip(arg, clip),
		      KTR_MAX_PAYLOAD);
		return -EINVAL;
	}
	((struct kdump_args *)ctx)->opts.maxdata = v;
	return 0;
}

static int set_pid(void *ctx, const char *arg)
{
	pid_t pid;

	if (opts_pid(arg, "-p pid", &pid))
		return -EINVAL;
	((struct kdump_args *)ctx)->opts.pid = pid;
	return 0;
}

static int set_trstr(void *ctx, const char *arg)
{
	char clip[CLIP_BUF];
	unsigned int facs;
	char bad;

	if (ktr_parse_trstr(arg, &facs, &bad)) {
		p_err("unknown trace point '%c' in -t '%s': use c, i, n, s, x, X or +", bad,
		      str_clip(arg, clip));
		return -EINVAL;
	}
	((struct kdump_args *)ctx)->opts.types = ktr_facs_to_types(facs);
	return 0;
}

static int set_format(void *ctx, const char *arg)
{
	char clip[CLIP_BUF];

	if (strcmp(arg, "text") && strcmp(arg, "chrome")) {
		p_err("unknown --format '%s': use text or chrome", str_clip(arg, clip));
		return -EINVAL;
	}
	((struct kdump_args *)ctx)->chrome = !strcmp(arg, "chrome");
	return 0;
}

static void kdump_help(void *ctx)
{
	(void)ctx;
	printf("%s\n", KDUMP_USAGE);
}

static const struct opt kdump_table[] = {
	OPT_FLAG(NULL, 'd', struct kdump_args, opts.decimal),
	OPT_FLAG(NULL, 'H', struct kdump_args, opts.tid),
	OPT_FLAG(NULL, 'l', struct kdump_args, opts.follow),
	OPT_FLAG(NULL, 'n', struct kdump_args, opts.raw),
	OPT_FLAG(NULL, 'R', struct kdump_args, opts.rel_ts),
	OPT_FLAG(NULL, 'T', struct kdump_args, opts.abs_ts),
	OPT_CALL(NULL, 'X', false, set_hex_ascii),
	OPT_CALL(NULL, 'x', false, set_hex),
	OPT_STRING(NULL, 'f', struct kdump_args, file),
	OPT_CALL("format", 0, true, set_format),
	OPT_STRING(NULL, 'o', struct kdump_args, output),
	OPT_CALL(NULL, 'm', true, set_maxdata),
	OPT_CALL(NULL, 'p', true, set_pid),
	OPT_CALL(NULL, 't', true, set_trstr),
	{},
};

static const struct opts_spec kdump_opts = {
	.opts = kdump_table,
	.mode = OPTS_STOP,
	.synopsis = KDUMP_USAGE,
	.help = kdump_help,
};

static int parse_kdump_args(struct kdump_args *a, int argc, char **argv)
{
	struct opts_rest rest;
	int ret;

	kdump_opts_default(&a->opts);
	a->file = DEFAULT_TRFILE;
	a->output = NULL;
	a->chrome = false;
	ret = opts_parse(&kdump_opts, a, argc, argv, &rest);
	if (ret)
		return ret;
	if (rest.argc) {
		char clip[CLIP_BUF];

		p_err("unexpected argument '%s'; %s", str_clip(rest.argv[0], clip), KDUMP_USAGE);
		return -EINVAL;
	}
	if (a->chrome && a->opts.follow) {
		p_err("-l cannot be combined with --format=chrome: its JSON ends at the end of the file");
		return -EINVAL;
	}
	return 0;
}

static int open_input(const char *file)
{
	char clip[CLIP_BUF];
	int fd;

	if (!strcmp(file, "-"))
		return STDIN_FILENO;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		p_err("cannot open trace file '%s': %s", str_clip(file, clip), strerror(errno));
	return fd;
}

/* -o: the output file, or stdout; never the trace file being read. */
static FILE *open_output(const char *path, int in_fd)
{
	struct stat in, st;
	char clip[CLIP_BUF];

	if (!path)
		return stdout;
	if (!stat(path, &st) && !fstat(in_fd, &in) && st.st_dev == in.st_dev &&
	    st.st_ino == in.st_ino && S_ISREG(st.st_mode)) {
		p_err("refusing to write the output '%s' over the trace file it reads",
		      str_clip(path, clip));
		return NULL;
	}
	return outfile_fopen("output file", path);
}

/* Close -o's file: 0, or -EIO after saying so. Stdout is checked at exit. */
static int close_out(FILE *out, const char *path, bool quiet)
{
	if (out == stdout)
		return 0;
	if (quiet) {
		fclose(out);
		return 0;
	}
	return close_output(out, path) ? -EIO : 0;
}

/* Decode the trace into c->out: as text lines, or as chrome JSON. */
/*
 * The earliest record of a seekable trace file, read once through before
 * the real pass (then rewound): after ktrace -a appended to a file once
 * the clock was set back, the first record need not be the earliest.
 */
static bool earliest_ts(int fd, const char *name, const struct kdump_opts *o, uint64_t *ts)
{
	struct ktr_reader *r;
	struct kdump_ctx c;

	*ts = UINT64_MAX;
	if (o->follow || lseek(fd, 0, SEEK_CUR) != 0)
		return false;
	r = ktr_reader__new_fd(fd, name, false);
	if (!r)
		return false;
	kdump_ctx_init(&c, o, NULL);
	c.emit = kdump_chrome__note_earliest;
	c.emit_arg = ts;
	if (kdump_begin(&c, r) >= 0)
		kdump_run(&c, r);
	kdump_ctx_free(&c);
	ktr_reader__free(r);
	return lseek(fd, 0, SEEK_SET) == 0 && *ts != UINT64_MAX;
}

/* earliest: --format=chrome's time 0, NULL for the first record's. */
static int dump(struct kdump_args *a, struct ktr_reader *r, struct kdump_ctx *c,
		const uint64_t *earliest)
{
	struct kdump_chrome *k = NULL;
	int ret = kdump_begin(c, r);

	if (ret > 0)
		p_warn("'%s' was recorded on ELF machine %u, kdump decodes %u: raw numbers shown",
		       a->file, ktr_reader__header(r)->machine, ktr_systab_machine);
	if (ret < 0) {
		p_err("%s", ktr_reader__error(r));
		return -EINVAL;
	}
	if (a->chrome) {
		k = kdump_chrome__new(c, c->out);
		if (!k) {
			p_err("out of memory");
			return -ENOMEM;
		}
		if (earliest)
			kdump_chrome__set_base(k, *earliest);
		c->emit = kdump_chrome__record;
		c->emit_arg = k;
	}
	ret = kdump_run(c, r);
	if (ret)
		p_err("%s", ktr_reader__error(r));
	/* After a corrupt record too: the JSON of the records before it. */
	if (k)
		kdump_chrome__finish(k);
	return ret ? -EINVAL : 0;
}

int cmd_kdump(struct env *env, int argc, char **argv)
{
	struct ktr_reader *r = NULL;
	struct kdump_args a;
	struct kdump_ctx ctx;
	FILE *out = NULL;
	uint64_t earliest;
	bool have_earliest;
	const char *name;
	int fd, ret;

	(void)env;
	ret = parse_kdump_args(&a, argc, argv);
	if (ret)
		return ret > 0 ? 0 : ret;
	fd = open_input(a.file);
	if (fd < 0)
		return -errno;
	ret = -EINVAL;
	out = open_output(a.output, fd);
	if (!out)
		goto out;
	name = !strcmp(a.file, "-") ? "stdin" : a.file;
	have_earliest = a.chrome && earliest_ts(fd, name, &a.opts, &earliest);
	r = ktr_reader__new_fd(fd, name, a.opts.follow);
	if (!r) {
		p_err("out of memory");
		ret = -ENOMEM;
		goto out;
	}
	kdump_ctx_init(&ctx, &a.opts, out);
	ret = dump(&a, r, &ctx, have_earliest ? &earliest : NULL);
	kdump_ctx_free(&ctx);
out:
	if (out && close_out(out, a.output, ret) && !ret)
		ret = -EIO;
	ktr_reader__free(r);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret ? -EINVAL : 0;
}
