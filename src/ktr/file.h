/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ktrace trace file: header and record encoding, and a reader that
 * validates every record before handing it out (abi/ktrace.h has the
 * layout, doc/ktrace.1 documents it).
 */
#ifndef KSNOOP_KTR_FILE_H
#define KSNOOP_KTR_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/ktrace.h"
#include "lib/util.h"

void ktr_file_header_init(struct ktr_file_header *h, unsigned int machine);

/* NULL when h is a header kdump reads (version 1 or 2), else the reason. */
const char *ktr_file_header_check(const struct ktr_file_header *h);
/* NULL when ktrace may append records to a file with this header. */
const char *ktr_file_header_check_append(const struct ktr_file_header *h);

/*
 * NULL when the payload fits the record type in a file of this version,
 * else the reason. h->len is the length as stored.
 */
const char *ktr_rec_check(const struct ktr_rec *h, const void *payload, unsigned int version);

/* Append one version 2 record (header + payload) to sb; for tests. */
void ktr_encode(struct strbuf *sb, unsigned int type, unsigned int tid, uint64_t ts_ns,
		const void *payload, size_t len);
/* Append the KTR_THREAD record that introduces a thread. */
void ktr_encode_thread(struct strbuf *sb, unsigned int tid, unsigned int pid, const char *comm,
		       uint64_t ts_ns);

struct ktr_reader;

/* Read from fd (not closed); follow: at the end, wait for more (kdump -l). */
struct ktr_reader *ktr_reader__new_fd(int fd, const char *name, bool follow);
/* Read from memory (the fuzzer); data must outlive the reader. */
struct ktr_reader *ktr_reader__new_mem(const void *data, size_t len, const char *name);
void ktr_reader__free(struct ktr_reader *r);

/* Read and check the file header. 0, or -1 with ktr_reader__error() set. */
int ktr_reader__open(struct ktr_reader *r);
const struct ktr_file_header *ktr_reader__header(const struct ktr_reader *r);

/*
 * Next record: 1 with *hdr and *payload valid until the next call, 0 at
 * the end, -1 on a truncated or corrupt file (the error names the byte
 * offset of the bad record). Whatever the file's version, the record is
 * in version 1 form: pid and comm filled in, a CALL with all six argument
 * slots (those not recorded are zero). KTR_THREAD records are not handed
 * out: their news is in the records that follow them.
 */
int ktr_reader__next(struct ktr_reader *r, const struct ktr_rec **hdr, const void **payload);
const char *ktr_reader__error(const struct ktr_reader *r);
uint64_t ktr_reader__offset(const struct ktr_reader *r);

#endif
