// SPDX-License-Identifier: GPL-2.0
/* Trace file writes that keep the file decodable (see ktr_writer.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi/ktrace.h"
#include "ktr/writer.h"
#include "lib/util.h"

#define NO_DROP UINT64_MAX

struct drop_rec {
	struct ktr_hdr hdr;
	struct ktr_drop drop;
};

#define DROP_SZ sizeof(struct drop_rec)

int ktr_writer_init(struct ktr_writer *w, int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->drop_off = NO_DROP;
	/* pwrite on an O_APPEND file ignores its offset. */
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_APPEND) || fstat(fd, &st))
		return -errno;
	w->end = st.st_size;
	return 0;
}

/* Bytes written at off before the first failure; *err is its errno. */
static size_t pwrite_most(int fd, const char *buf, size_t len, uint64_t off, int *err)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			break;
		}
		done += n;
	}
	return done;
}

static size_t rec_size(const char *rec, size_t left)
{
	struct ktr_hdr h;

	if (left < sizeof(h))
		return left;
	memcpy(&h, rec, sizeof(h));
	return h.len > left - sizeof(h) ? left : sizeof(h) + h.len;
}

/* The last record boundary in buf at or before limit. */
static size_t boundary_before(const char *buf, size_t len, size_t limit)
{
	size_t at = 0, sz;

	while (at < len && (sz = rec_size(buf + at, len - at)) <= limit - at)
		at += sz;
	return at;
}

/* The records from buf + at on are not in the file: count them. */
static void account_lost(struct ktr_writer *w, const char *buf, size_t len, size_t at)
{
	struct drop_rec d;
	size_t sz;

	for (; at < len; at += sz) {
		sz = rec_size(buf + at, len - at);
		memcpy(&d, buf + at, sz < sizeof(d) ? sz : sizeof(d));
		if (d.hdr.type == KTR_DROP && sz == DROP_SZ) {
			w->unmarked += d.drop.count; /* the losses it counted */
		} else {
			w->lost++;
			w->unmarked++;
		}
	}
}

static void drop_init(struct drop_rec *d, unsigned long long count)
{
	memset(d, 0, sizeof(*d));
	d->hdr.type = KTR_DROP;
	d->hdr.len = sizeof(d->drop);
	/* No THREAD record: kdump shows a DROP of an unknown thread as ktrace's. */
	d->hdr.tid = getpid();
	d->hdr.ts_ns = clock_ns(CLOCK_REALTIME);
	d->drop.count = count;
}

/* Add the unmarked losses to the DROP record that ends the file. */
static void bump_last_drop(struct ktr_writer *w)
{
	unsigned long long count = w->drop_count + w->unmarked;
	int err;

	if (w->drop_off == NO_DROP || !w->unmarked)
		return;
	/* Rewriting bytes already in the file needs no more room. */
	if (pwrite_most(w->fd, (const char *)&count, sizeof(count),
			w->drop_off + offsetof(struct drop_rec, drop.count), &err) != sizeof(count))
		return;
	w->drop_count = count;
	w->unmarked = 0;
}

/*
 * A write stopped after done of len bytes. Cut the file back to a whole
 * record; where the bytes written leave room, end it with a DROP record
 * over the last of them, so the loss is marked where it happened.
 */
static void cut_back(struct ktr_writer *w, const char *buf, size_t len, size_t done)
{
	size_t at = boundary_before(buf, len, done >= DROP_SZ ? done - DROP_SZ : done);
	struct drop_rec d;
	int err;

	account_lost(w, buf, len, at);
	if (done >= DROP_SZ) {
		drop_init(&d, w->unmarked);
		if (pwrite_most(w->fd, (const char *)&d, DROP_SZ, w->end + at, &err) == DROP_SZ &&
		    !ftruncate(w->fd, w->end + at + DROP_SZ)) {
			w->drop_off = w->end + at;
			w->drop_count = w->unmarked;
			w->unmarked = 0;
			w->end += at + DROP_SZ;
			return;
		}
	}
	if (ftruncate(w->fd, w->end + at))
		return; /* nothing else to try: kdump reports the cut record */
	if (at)
		w->drop_off = NO_DROP;
	w->end += at;
	bump_last_drop(w);
}

static void put(struct ktr_writer *w, const char *buf, size_t len)
{
	int err = 0;
	size_t done = pwrite_most(w->fd, buf, len, w->end, &err);

	if (done == len) {
		w->end += len;
		w->drop_off = NO_DROP;
		return;
	}
	if (!w->error)
		w->error = err;
	cut_back(w, buf, len, done);
}

/* Unmarked losses go in a DROP record before the records that follow. */
static void mark_unmarked(struct ktr_writer *w)
{
	uint64_t off = w->end;
	struct drop_rec d;

	bump_last_drop(w);
	if (!w->unmarked)
		return;
	drop_init(&d, w->unmarked);
	w->unmarked = 0; /* in d now; put() counts them again if it fails */
	put(w, (const char *)&d, DROP_SZ);
	if (w->end == off + DROP_SZ) {
		w->drop_off = off;
		w->drop_count = d.drop.count;
	}
}

void ktr_writer_write(struct ktr_writer *w, const void *buf, size_t len)
{
	if (!len)
		return;
	mark_unmarked(w);
	put(w, buf, len);
}

void ktr_writer_mark(struct ktr_writer *w, unsigned long long n)
{
	w->unmarked += n;
	mark_unmarked(w);
}
