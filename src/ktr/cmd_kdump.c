// SPDX-License-Identifier: GPL-2.0
/*
 * kdump [-dHlnRTXx] [-f file] [-m maxdata] [-p pid] [-t trstr]
 *
 * Decode a ktrace trace file, after OpenBSD's kdump(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "ktr/print.h"
#include "ktr/systab.h"
#include "lib/util.h"

#define KDUMP_USAGE "usage: kdump [-dHlnRTXx] [-f file] [-m maxdata] [-p pid] [-t trstr]"
#define DEFAULT_TRFILE "ktrace.out"

struct kdump_args {
	struct kdump_opts opts;
	const char *file;
};

static int parse_kdump_opt(struct kdump_args *a, int opt, const char *arg)
{
	unsigned int facs;
	long long v;
	char bad;

	switch (opt) {
	case 'd':
		a->opts.decimal = true;
		break;
	case 'H':
		a->opts.tid = true;
		break;
	case 'l':
		a->opts.follow = true;
		break;
	case 'n':
		a->opts.raw = true;
		break;
	case 'R':
		a->opts.rel_ts = true;
		break;
	case 'T':
		a->opts.abs_ts = true;
		break;
	case 'X':
		a->opts.hex = 2;
		break;
	case 'x':
		a->opts.hex = 1;
		break;
	case 'f':
		a->file = arg;
		break;
	case 'm':
		if (parse_long(arg, 0, KTR_MAX_PAYLOAD, &v)) {
			p_err("invalid -m maxdata '%s': need 0 to %d bytes", arg, KTR_MAX_PAYLOAD);
			return -EINVAL;
		}
		a->opts.maxdata = v;
		break;
	case 'p':
		if (parse_long(arg, 0, 0x7fffffff, &v)) {
			p_err("invalid -p pid '%s'", arg);
			return -EINVAL;
		}
		a->opts.pid = v;
		break;
	case 't':
		if (ktr_parse_trstr(arg, &facs, &bad)) {
			p_err("unknown trace point '%c' in -t '%s': use c, i, n, s, x, X or +", bad,
			      arg);
			return -EINVAL;
		}
		a->opts.types = ktr_facs_to_types(facs);
		break;
	case 'h':
		printf("%s\n", KDUMP_USAGE);
		return 1;
	default:
		return -EINVAL;
	}
	return 0;
}

static int parse_kdump_args(struct kdump_args *a, int argc, char **argv)
{
	int opt, ret;

	kdump_opts_default(&a->opts);
	a->file = DEFAULT_TRFILE;
	optind = 0;
	opterr = 0;
	/* argv[-1] is the command word (or program name): getopt's argv[0]. */
	while ((opt = getopt(argc + 1, argv - 1, "+:dHlnRTXxf:m:p:t:h")) != -1) {
		if (opt == '?') {
			p_err("unknown option '-%c'; %s", optopt, KDUMP_USAGE);
			return -EINVAL;
		}
		if (opt == ':') {
			p_err("option '-%c' needs an argument; %s", optopt, KDUMP_USAGE);
			return -EINVAL;
		}
		ret = parse_kdump_opt(a, opt, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc + 1) {
		p_err("unexpected argument '%s'; %s", argv[optind - 1], KDUMP_USAGE);
		return -EINVAL;
	}
	return 0;
}

static int open_input(const char *file)
{
	int fd;

	if (!strcmp(file, "-"))
		return STDIN_FILENO;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		p_err("cannot open trace file '%s': %s", file, strerror(errno));
	return fd;
}

int cmd_kdump(struct env *env, int argc, char **argv)
{
	struct ktr_reader *r = NULL;
	struct kdump_args a;
	struct kdump_ctx ctx;
	int fd, ret;

	(void)env;
	ret = parse_kdump_args(&a, argc, argv);
	if (ret)
		return ret > 0 ? 0 : ret;
	fd = open_input(a.file);
	if (fd < 0)
		return -errno;
	r = ktr_reader__new_fd(fd, !strcmp(a.file, "-") ? "stdin" : a.file, a.opts.follow);
	if (!r) {
		p_err("out of memory");
		ret = -ENOMEM;
		goto out;
	}
	kdump_ctx_init(&ctx, &a.opts, stdout);
	ret = kdump_begin(&ctx, r);
	if (ret > 0)
		p_warn("'%s' was recorded on ELF machine %u, kdump decodes %u: raw numbers shown",
		       a.file, ktr_reader__header(r)->machine, ktr_systab_machine);
	if (ret >= 0)
		ret = kdump_run(&ctx, r);
	fflush(stdout);
	if (ret)
		p_err("%s", ktr_reader__error(r));
	kdump_ctx_free(&ctx);
out:
	ktr_reader__free(r);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret ? -EINVAL : 0;
}
