/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ktrace trace file: header and record encoding, and a reader that
 * validates every record before handing it out (bpf/ksnoop.h has the
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

/* NULL when h is a header this version reads, else the reason. */
const char *ktr_file_header_check(const struct ktr_file_header *h);

/* NULL when the payload fits the record type, else the reason. */
const char *ktr_rec_check(const struct ktr_rec *h, const void *payload);

/* Append one record (header + payload) to sb; tests and the recorder. */
void ktr_encode(struct strbuf *sb, const struct ktr_rec *h, const void *payload, size_t len);

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
 * offset of the bad record).
 */
int ktr_reader__next(struct ktr_reader *r, const struct ktr_rec **hdr, const void **payload);
const char *ktr_reader__error(const struct ktr_reader *r);
uint64_t ktr_reader__offset(const struct ktr_reader *r);

#endif
