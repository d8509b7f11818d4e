/* SPDX-License-Identifier: GPL-2.0 */
/* BTF-typed values as JSON (NDJSON events, see ksnoop(8) "JSON OUTPUT"). */
#ifndef KSNOOP_BTFJSON_H
#define KSNOOP_BTFJSON_H

#include <stddef.h>
#include <bpf/btf.h>

#include "lib/json_writer.h"

struct btfjson_opts {
	int max_depth; /* nested structs beyond this become a marker */
	/* the function starting at addr, naming function pointers; may be NULL */
	const char *(*function_at)(void *ctx, unsigned long long addr);
	void *ctx;
};

/* The value of BTF type id stored in data (len bytes available). */
void btfjson_value(struct jw *jw, const struct btf *btf, __u32 id, const void *data, size_t len,
		   const struct btfjson_opts *o);

#endif
