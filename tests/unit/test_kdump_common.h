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

#define TEST_PID 42
#define TEST_TID 43
#define TEST_TS 1000000000ULL

/*
 * A trace file image: header, the THREAD record of the test thread, then
 * records appended with test_rec(). TEST_PREFIX is its size before them.
 */
#define TEST_PREFIX \
	(sizeof(struct ktr_file_header) + sizeof(struct ktr_hdr) + sizeof(struct ktr_thread))

static inline void test_trace_init(struct strbuf *sb)
{
	struct ktr_file_header h;

	sb_init(sb);
	ktr_file_header_init(&h, ktr_systab_machine);
	sb_write(sb, &h, sizeof(h));
	ktr_encode_thread(sb, TEST_TID, TEST_PID, "unit", TEST_TS);
}

static inline void test_rec(struct strbuf *sb, unsigned int type, const void *payload, size_t len)
{
	ktr_encode(sb, type, TEST_TID, TEST_TS, payload, len);
}

/* Version 1 images, which kdump still reads: pid and comm in every record. */
static inline void test_trace_init_v1(struct strbuf *sb)
{
	struct ktr_file_header h;

	sb_init(sb);
	ktr_file_header_init(&h, ktr_systab_machine);
	h.version = KTR_VERSION_V1;
	h.rec_hdr_len = sizeof(struct ktr_rec);
	sb_write(sb, &h, sizeof(h));
}

static inline void test_rec_v1(struct strbuf *sb, unsigned int type, const void *payload,
			       size_t len)
{
	struct ktr_rec h = {
		.type = type, .len = len, .pid = TEST_PID, .tid = TEST_TID, .ts_ns = TEST_TS
	};

	memcpy(h.comm, "unit", 5);
	sb_write(sb, &h, sizeof(h));
	sb_write(sb, payload, len);
}

#endif
