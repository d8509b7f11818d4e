// SPDX-License-Identifier: GPL-2.0
/* ksnoop info FUNC...: prototypes from kernel (or --btf) BTF. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "env.h"
#include "lib/kbtf.h"
#include "trace/spec.h"

static void print_note(const char *name, const struct kbtf_func *f, int i, int n)
{
	const char *btf_name =
		btf__name_by_offset(f->btf, btf__type_by_id(f->btf, f->id)->name_off);
	const char *bare = strchr(name, ':') ? strchr(name, ':') + 1 : name;
	bool clone = strcmp(bare, btf_name) != 0;

	if (!f->module && n == 1 && !clone)
		return;
	printf(" /*");
	if (f->module)
		printf(" module %s;", f->module);
	if (n > 1)
		printf(" BTF entry %d of %d named %s (static functions in several files);", i + 1,
		       n, btf_name);
	if (clone)
		printf(" %s is a compiler clone of %s, its arguments may differ;", bare, btf_name);
	printf(" */");
}

static int info_one(struct kbtf *kb, const char *arg)
{
	struct kbtf_func funcs[KBTF_MAX_MATCHES];
	char clip[CLIP_BUF];
	struct spec_error serr;
	struct strbuf sb;
	struct spec spec;
	int i, n, err = 0;

	if (spec_parse(arg, &spec, &serr)) {
		p_err("invalid function '%s': %s at offset %d", str_clip(arg, clip), serr.msg,
		      serr.pos);
		return -EINVAL;
	}
	n = kbtf__find_funcs(kb, spec.func, funcs, KBTF_MAX_MATCHES);
	if (n <= 0) {
		if (n != -EBADMSG) /* damaged module BTF: already reported */
			kbtf__report_unknown(kb, spec.func);
		spec_free(&spec);
		return -ENOENT;
	}
	sb_init(&sb);
	for (i = 0; i < n && !err; i++) {
		sb_reset(&sb);
		err = kbtf_format_proto(funcs[i].btf, funcs[i].id, NULL, &sb);
		if (err) {
			p_err("cannot format the prototype of '%s': %s", spec.func, strerror(-err));
			break;
		}
		printf("%s;", sb_str(&sb));
		print_note(spec.func, &funcs[i], i, n);
		printf("\n");
	}
	sb_free(&sb);
	spec_free(&spec);
	return err;
}

int cmd_info(struct env *env, int argc, char **argv)
{
	struct kbtf *kb;
	int i, err = 0;

	if (argc < 1) {
		p_err("info needs at least one function name");
		return -EINVAL;
	}
	kb = kbtf__open(env->btf_path);
	if (!kb)
		return -ENOENT;
	for (i = 0; i < argc; i++) {
		if (info_one(kb, argv[i]))
			err = -ENOENT;
	}
	kbtf__free(kb);
	return err;
}
