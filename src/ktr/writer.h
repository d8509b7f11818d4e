/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's writes to its trace file. A write the file system cuts
 * short (ENOSPC, EFBIG, EIO) would leave half a record, and kdump would
 * stop there: instead the file is cut back to its last whole record, and
 * what was lost is counted in a DROP record where the loss happened when
 * there is room for one, or added to the DROP record the file ends with.
 */
#ifndef KSNOOP_KTR_WRITER_H
#define KSNOOP_KTR_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct ktr_writer {
	int fd;
	uint64_t end;		       /* the file's size: where the last whole record ends */
	uint64_t drop_off;	       /* our DROP record that ends the file, or UINT64_MAX */
	unsigned long long drop_count; /* the count in it */
	unsigned long long lost;       /* records (other than DROPs) failed writes lost */
	unsigned long long unmarked;   /* losses no DROP record in the file counts */
	int error;		       /* errno of the first failed write, or 0 */
};

/* Write to fd from its end on (O_APPEND is cleared: writes are positioned). */
int ktr_writer_init(struct ktr_writer *w, int fd);

/* Write len bytes of whole records, or account for those that do not fit. */
void ktr_writer_write(struct ktr_writer *w, const void *buf, size_t len);

/* n records lost elsewhere (in BPF): put them in a DROP record now. */
void ktr_writer_mark(struct ktr_writer *w, unsigned long long n);

#endif
