// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes as ksnoop serve's configuration file. The
 * parser must take them without reading past their end, and what it
 * accepts must hold: every metric turns into a command line, and is the
 * same metric as itself. Built by `make fuzz-serve-config` with ASan and
 * UBSan; tests/host/serve.sh runs it briefly on tests/fuzz/serve-config-corpus.
 *
 *   build/fuzz/serve_config_fuzz -max_total_time=10 NEWDIR tests/fuzz/serve-config-corpus
 *   build/fuzz/serve_config_fuzz FILE...      (replay inputs once)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "serve/config.h"

static void check_metric(const struct serve_metric *m, bool valid)
{
	char **argv;
	int argc = -1, i;

	if (!serve_metric_same(m, m))
		__builtin_trap();
	argv = serve_metric_argv(m, &argc);
	if (!argv)
		return;
	for (i = 0; i < argc; i++) {
		if (!argv[i])
			__builtin_trap(); /* argc words, then NULL */
	}
	if (argv[argc] || argc < 1 || (strcmp(argv[0], "count") && strcmp(argv[0], "hist")))
		__builtin_trap();
	if (valid && argc < 2)
		__builtin_trap(); /* a valid metric traces something */
	serve_argv_free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_config c;
	int i, err;

	/* Thousands of error lines per second would be the run's whole cost. */
	util_mute(true);
	err = serve_config_parse("fuzz", (const char *)data, size, &c);
	if (err != 0 && err != -EINVAL && err != -ENOMEM)
		__builtin_trap();
	/* Accepted: at least one metric, and somewhere to serve them. */
	if (!err && (c.nr < 1 || c.nr > SERVE_MAX_METRICS || (!c.listen && !c.textfile)))
		__builtin_trap();
	for (i = 0; i < c.nr; i++) {
		check_metric(&c.metrics[i], !err);
		if (i && serve_metric_same(&c.metrics[i], &c.metrics[0]) && !err)
			__builtin_trap(); /* names are unique */
	}
	serve_config_free(&c);
	util_mute(false);
	return 0;
}
