// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as a trace file through kdump's reader and
 * printer, with several option sets. Built by `make fuzz-kdump` with ASan
 * and UBSan; tests/host/ktrace.sh runs it briefly on tests/fuzz/corpus.
 *
 *   build/fuzz/kdump_fuzz -max_total_time=10 NEWDIR tests/fuzz/corpus
 *   build/fuzz/kdump_fuzz FILE...      (replay inputs once)
 */
#include <stdint.h>
#include <stdio.h>

#include "ktr/print.h"
#include "ktr/print_chrome.h"

static void set_variant(struct kdump_opts *o, int v)
{
	kdump_opts_default(o);
	switch (v) {
	case 1:
		o->raw = o->decimal = o->tid = o->abs_ts = true;
		o->hex = 1;
		o->maxdata = 7;
		break;
	case 2:
		o->rel_ts = true;
		o->hex = 2;
		o->types = ktr_facs_to_types(KTRFAC_GENIO | KTRFAC_EXECARGS | KTRFAC_EXECENV);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct kdump_opts o;
	struct kdump_ctx c;
	struct ktr_reader *r;
	int v, ret;

	if (!sink)
		sink = fopen("/dev/null", "w");
	for (v = 0; v < 4 && sink; v++) {
		set_variant(&o, v);
		r = ktr_reader__new_mem(data, size, "fuzz");
		if (!r)
			return 0;
		kdump_ctx_init(&c, &o, sink);
		/* Variant 3: --format=chrome. */
		c.emit_arg = v == 3 ? kdump_chrome__new(&c, sink) : NULL;
		if (c.emit_arg)
			c.emit = kdump_chrome__record;
		ret = kdump_begin(&c, r);
		if (ret >= 0)
			ret = kdump_run(&c, r);
		/* A failure always comes with its message ... */
		if (ret < 0 && !ktr_reader__error(r)[0])
			__builtin_trap();
		/* ... and success means every byte was a valid record. */
		if (ret >= 0 && ktr_reader__offset(r) != size)
			__builtin_trap();
		if (c.emit_arg)
			kdump_chrome__finish(c.emit_arg);
		kdump_ctx_free(&c);
		ktr_reader__free(r);
	}
	return 0;
}
