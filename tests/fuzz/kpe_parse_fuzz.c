// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as one kprobe_events definition for ksnoop
 * probe, under both kernels' limits (Linux 6.x's and 7.x's). The parser
 * must not read past the text, must point a refusal inside it, and what it
 * accepts must name an event and a symbol, or an address. Built by `make
 * fuzz-kpe-parse` with ASan and UBSan; tests/host/kpe.sh runs it briefly
 * on tests/fuzz/kpe-corpus.
 *
 *   build/fuzz/kpe_parse_fuzz -max_total_time=10 NEWDIR tests/fuzz/kpe-corpus
 *   build/fuzz/kpe_parse_fuzz FILE...      (replay inputs once)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/kpe.h"
#include "kpe/parse.h"

static void check(const char *text, size_t len, const struct kpe_limits *lim)
{
	struct kpe_error e;
	struct kpe_def d;
	int err, i;

	err = kpe_parse_def_with(text, lim, &d, &e);
	if (err == -EINVAL) {
		/* A caret at the end of the text is allowed: "nothing follows". */
		if (e.pos < 0 || (size_t)e.pos > len || !e.msg[0])
			__builtin_trap();
	} else if (!err) {
		/* no symbol: an address, 0 included (refused when compiled) */
		if ((d.symbol && !d.symbol[0]) || !d.group || !d.event || !d.group[0] ||
		    !d.event[0])
			__builtin_trap();
		if (d.nr_args < 0 || d.nr_args > KPE_MAX_ARGS || (d.nr_args && !d.args))
			__builtin_trap();
		for (i = 0; i < d.nr_args; i++) {
			const struct kpe_fetch *f = &d.args[i].fetch;

			if (f->nr_derefs < 0 || f->nr_derefs > KPE_MAX_DEREFS ||
			    f->nr_steps < f->nr_derefs || f->nr_steps > KPE_MAX_STEPS)
				__builtin_trap();
		}
	} else if (err != -ENOMEM) {
		__builtin_trap();
	}
	kpe_def_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The command line gives a NUL-terminated string: the first NUL ends it. */
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check(text, strlen(text), &kpe_limits_6);
	check(text, strlen(text), &kpe_limits_7);
	free(text);
	return 0;
}
