/* SPDX-License-Identifier: GPL-2.0 */
/* BTF-typed values as JSON (NDJSON events, see ksnoop(8) "JSON OUTPUT"). */
#ifndef KSNOOP_JSON_H
#define KSNOOP_JSON_H

#include <stddef.h>
#include <bpf/btf.h>

#include "lib/ksyms.h"
#include "lib/util.h"

struct json_opts {
	int max_depth;	  /* nested structs beyond this become a marker */
	struct ksyms *ks; /* symbolises function pointers; may be NULL */
};

void json_string(struct strbuf *sb, const char *s, size_t max);
/* The value of BTF type id stored in data (len bytes available). */
void json_value(struct strbuf *sb, const struct btf *btf, __u32 id, const void *data, size_t len,
		const struct json_opts *o);

#endif
