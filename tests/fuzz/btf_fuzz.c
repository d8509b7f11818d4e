// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as a raw BTF file. What libbpf parses must
 * either be refused by btf_check with a message, or survive everything
 * ksnoop does with BTF: function lookup, prototypes, a plan of every
 * parameter and the return value, declarations, and values dumped by
 * btf_dump and the JSON writer. Built by `make fuzz-btf` with ASan and
 * UBSan; tests/host/fuzz.sh runs it briefly on tests/fuzz/btf-corpus.
 *
 *   build/fuzz/btf_fuzz -max_total_time=10 NEWDIR tests/fuzz/btf-corpus
 *   build/fuzz/btf_fuzz FILE...      (replay inputs once)
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/btfcheck.h"
#include "lib/btfjson.h"
#include "lib/kbtf.h"
#include "trace/plan.h"

/* Bounds on the work per input, so that runs stay fast. */
#define MAX_FUNCS 16
#define MAX_TYPES 64
#define DATA_MAX 4096

static void __attribute__((format(printf, 2, 0))) discard(void *ctx, const char *fmt, va_list ap)
{
	(void)ctx;
	(void)fmt;
	(void)ap;
}

/* Names kbtf__find_funcs takes as they are: no "mod:", no ".isra.0". */
static bool is_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	}
	return true;
}

static void plan_func(struct kbtf *kb, const char *name)
{
	struct plan_opts opts = {};
	struct spec_error serr;
	struct func_plan *plan;
	struct spec spec;

	if (spec_parse(name, &spec, &serr))
		return;
	plan = calloc(1, sizeof(*plan));
	if (plan) {
		plan_build(kb, &spec, &opts, plan);
		plan_free(plan);
		free(plan);
	}
	spec_free(&spec);
}

static void use_funcs(struct kbtf *kb, const struct btf *btf)
{
	__u32 id, n = 0, cnt = btf__type_cnt(btf);
	struct kbtf_func f[KBTF_MAX_MATCHES];
	struct strbuf sb;

	sb_init(&sb);
	for (id = 1; id < cnt && n < MAX_FUNCS; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (!btf_is_func(t))
			continue;
		n++;
		sb_reset(&sb);
		kbtf_format_proto(btf, id, NULL, &sb);
		if (is_ident(name) && kbtf__find_funcs(kb, name, f, KBTF_MAX_MATCHES) <= 0)
			__builtin_trap(); /* a FUNC of this BTF must be found by its name */
		plan_func(kb, name);
	}
	kbtf__suggest(kb, "ip_send_skb");
	sb_free(&sb);
}

static void use_types(const struct btf *btf)
{
	static const __u8 zeros[DATA_MAX];
	struct btfjson_opts jo = { .max_depth = 8 };
	struct jw jw;
	__u32 id, cnt = btf__type_cnt(btf);
	struct btf_dump *d;
	struct strbuf sb;

	d = btf_dump__new(btf, discard, NULL, NULL);
	sb_init(&sb);
	for (id = 1; id < cnt && id <= MAX_TYPES; id++) {
		LIBBPF_OPTS(btf_dump_type_data_opts, opts);
		__s64 size = btf__resolve_size(btf, id);

		sb_reset(&sb);
		kbtf_format_decl(btf, id, "x", &sb);
		btf_skip_mods(btf, id);
		if (size < 0 || size > DATA_MAX)
			continue;
		sb_reset(&sb);
		jw_init(&jw, &sb);
		btfjson_value(&jw, btf, id, zeros, size, &jo);
		if (d)
			btf_dump__dump_type_data(d, id, zeros, size, &opts);
	}
	btf_dump__free(d);
	sb_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btf *btf = btf__new(data, size);
	char why[256];
	struct kbtf *kb;

	if (!btf)
		return 0;
	if (btf_check(btf, why, sizeof(why))) {
		if (!why[0])
			__builtin_trap(); /* a refusal always says why */
		btf__free(btf);
		return 0;
	}
	util_mute(true);
	kb = kbtf__new_from_btf(btf);
	if (!kb)
		__builtin_trap(); /* checked once, it must pass again */
	use_types(btf);
	use_funcs(kb, btf);
	kbtf__free(kb);
	util_mute(false);
	return 0;
}
