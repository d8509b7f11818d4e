/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the ktrace/kdump unit tests. */
#ifndef KSNOOP_TEST_KDUMP_COMMON_H
#define KSNOOP_TEST_KDUMP_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ktr/file.h"
#include "ktr/systab.h"

/* A trace file image: header, then records appended with test_rec(). */
static inline void test_trace_init(struct strbuf *sb)
{
	struct ktr_file_header h;

	sb_init(sb);
	ktr_file_header_init(&h, ktr_systab_machine);
	sb_write(sb, &h, sizeof(h));
}

static inline void test_rec(struct strbuf *sb, unsigned int type, const void *payload, size_t len)
{
	struct ktr_rec h = { .type = type, .pid = 42, .tid = 43, .ts_ns = 1000000000ULL };

	memcpy(h.comm, "unit", 5);
	ktr_encode(sb, &h, payload, len);
}

#endif
