// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file encoding and a validating reader. The reader trusts nothing:
 * every length is checked against the record type before a byte of the
 * payload is interpreted, so kdump can be pointed at any file.
 */
#include <errno.h>
#include <stdio.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktr/file.h"

#define READ_CHUNK 65536
#define FOLLOW_POLL_NS (100 * 1000 * 1000)
#define MAX_EXTRA_HEADER 4096  /* header bytes a later version may add */
#define MAX_THREADS (1u << 20) /* threads one file may introduce */

void ktr_file_header_init(struct ktr_file_header *h, unsigned int machine)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, KTR_MAGIC, KTR_MAGIC_LEN);
	h->version = KTR_VERSION;
	h->hdr_len = sizeof(*h);
	h->rec_hdr_len = sizeof(struct ktr_hdr);
	h->machine = machine;
	h->byte_order = KTR_BYTE_ORDER;
}

const char *ktr_file_header_check(const struct ktr_file_header *h)
{
	if (memcmp(h->magic, KTR_MAGIC, KTR_MAGIC_LEN))
		return "not a ksnoop trace file (bad magic)";
	if (h->byte_order != KTR_BYTE_ORDER)
		return "trace file of the other byte order";
	if (h->version != KTR_VERSION && h->version != KTR_VERSION_V1)
		return "unsupported trace file version";
	if (h->hdr_len < sizeof(*h) || h->hdr_len > sizeof(*h) + MAX_EXTRA_HEADER)
		return "bad file header length";
	if (h->rec_hdr_len !=
	    (h->version == KTR_VERSION_V1 ? sizeof(struct ktr_rec) : sizeof(struct ktr_hdr)))
		return "unsupported record header length";
	return NULL;
}

const char *ktr_file_header_check_append(const struct ktr_file_header *h)
{
	const char *why = ktr_file_header_check(h);

	if (!why && h->version != KTR_VERSION)
		why = "an older trace file version (ktrace writes version 2: use a new file)";
	return why;
}

static const char *check_genio(const struct ktr_rec *h, const struct ktr_genio *g)
{
	size_t data;

	if (h->len < sizeof(*g))
		return "GIO record shorter than its fixed part";
	data = h->len - sizeof(*g);
	if (data > KTR_GIO_MAX)
		return "GIO record with more data than the capture limit";
	if (data > g->count)
		return "GIO record with more data than bytes transferred";
	if (g->rw != KTR_READ && g->rw != KTR_WRITE)
		return "GIO record with a bad direction";
	return NULL;
}

static const char *check_exec(const struct ktr_rec *h, const struct ktr_exec *e)
{
	if (h->len < sizeof(*e))
		return "ARGS/ENV record shorter than its fixed part";
	if (h->len - sizeof(*e) > KTR_EXEC_MAX)
		return "ARGS/ENV record longer than the capture limit";
	if (h->len - sizeof(*e) > e->total)
		return "ARGS/ENV record with more data than its total";
	return NULL;
}

/* Fixed-size records must match exactly. */
static const char *check_fixed(const struct ktr_rec *h, size_t want, const char *msg)
{
	return h->len == want ? NULL : msg;
}

/* Version 1 held six arguments always, version 2 just nargs of them. */
static const char *check_call(const struct ktr_rec *h, const struct ktr_syscall *c,
			      unsigned int version)
{
	if (h->len < KTR_SYSCALL_LEN(0))
		return "CALL record shorter than its fixed part";
	if (c->nargs > KTR_SYSCALL_ARGS)
		return "CALL record with too many arguments";
	if (h->len != (version == KTR_VERSION_V1 ? sizeof(*c) : KTR_SYSCALL_LEN(c->nargs)))
		return "CALL record of the wrong size";
	return NULL;
}

const char *ktr_rec_check(const struct ktr_rec *h, const void *payload, unsigned int version)
{
	if (h->len > KTR_MAX_PAYLOAD)
		return "record longer than any record type";
	switch (h->type) {
	case KTR_SYSCALL:
		return check_call(h, payload, version);
	case KTR_SYSRET:
		return check_fixed(h, sizeof(struct ktr_sysret), "RET record of the wrong size");
	case KTR_NAMEI:
		return h->len > KTR_PATH_MAX ? "NAMI record longer than a path" : NULL;
	case KTR_GENIO:
		return check_genio(h, payload);
	case KTR_PSIG:
		return check_fixed(h, sizeof(struct ktr_psig), "PSIG record of the wrong size");
	case KTR_EXECARGS:
	case KTR_EXECENV:
		return check_exec(h, payload);
	case KTR_DROP:
		return check_fixed(h, sizeof(struct ktr_drop), "DROP record of the wrong size");
	case KTR_THREAD:
		if (version == KTR_VERSION_V1)
			return "THREAD record in a version 1 file";
		return check_fixed(h, sizeof(struct ktr_thread), "THREAD record of the wrong size");
	default:
		return "unknown record type";
	}
}

void ktr_encode(struct strbuf *sb, unsigned int type, unsigned int tid, uint64_t ts_ns,
		const void *payload, size_t len)
{
	struct ktr_hdr hdr = { .type = type, .len = len, .tid = tid, .ts_ns = ts_ns };

	sb_write(sb, &hdr, sizeof(hdr));
	if (len)
		sb_write(sb, payload, len);
}

void ktr_encode_thread(struct strbuf *sb, unsigned int tid, unsigned int pid, const char *comm,
		       uint64_t ts_ns)
{
	struct ktr_thread t = { .pid = pid };

	memcpy(t.comm, comm, min(strlen(comm), sizeof(t.comm)));
	ktr_encode(sb, KTR_THREAD, tid, ts_ns, &t, sizeof(t));
}

/* Who a thread of a version 2 file is, as its last KTR_THREAD record says. */
struct thread_info {
	uint32_t tid;
	uint32_t pid;
	char comm[KTR_COMM_LEN];
};

/* A tree (tsearch), not a hash: no file can make a lookup slow. */
static int thread_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct thread_info *)a)->tid;
	uint32_t y = ((const struct thread_info *)b)->tid;

	return (x > y) - (x < y);
}

struct ktr_reader {
	int fd; /* -1 for a memory source */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	const char *name;
	bool follow;
	unsigned char *buf; /* read-ahead */
	size_t pos, len;
	uint64_t off;	  /* file offset of the next unread byte */
	uint64_t rec_off; /* offset of the record being read */
	struct ktr_file_header fh;
	struct ktr_rec hdr; /* the record handed out, in version 1 form */
	void *payload;	    /* KTR_MAX_PAYLOAD bytes, aligned for any record */
	void *threads;	    /* tsearch tree of struct thread_info */
	size_t nr_threads;
	struct strbuf err;
};

static struct ktr_reader *reader_alloc(const char *name)
{
	struct ktr_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	r->name = name;
	r->buf = malloc(READ_CHUNK);
	r->payload = malloc(KTR_MAX_PAYLOAD);
	sb_init(&r->err);
	if (!r->buf || !r->payload) {
		ktr_reader__free(r);
		return NULL;
	}
	return r;
}

struct ktr_reader *ktr_reader__new_fd(int fd, const char *name, bool follow)
{
	struct ktr_reader *r = reader_alloc(name);

	if (r) {
		r->fd = fd;
		r->follow = follow;
	}
	return r;
}

struct ktr_reader *ktr_reader__new_mem(const void *data, size_t len, const char *name)
{
	struct ktr_reader *r = reader_alloc(name);

	if (r) {
		r->mem = data;
		r->mem_len = len;
	}
	return r;
}

void ktr_reader__free(struct ktr_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r->payload);
	tdestroy(r->threads, free);
	sb_free(&r->err);
	free(r);
}

const char *ktr_reader__error(const struct ktr_reader *r)
{
	return sb_str(&r->err);
}

uint64_t ktr_reader__offset(const struct ktr_reader *r)
{
	return r->off;
}

const struct ktr_file_header *ktr_reader__header(const struct ktr_reader *r)
{
	return &r->fh;
}

static void set_error(struct ktr_reader *r, const char *what, const char *why)
{
	sb_reset(&r->err);
	sb_printf(&r->err, "%s: %s at byte offset %llu: %s", r->name, what,
		  (unsigned long long)r->rec_off, why);
}

/* Refill the read-ahead: bytes now buffered, 0 at the end, -1 on error. */
static ssize_t refill(struct ktr_reader *r)
{
	ssize_t n;

	r->pos = 0;
	r->len = 0;
	if (r->fd < 0) {
		n = r->mem_len - r->mem_pos;
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		memcpy(r->buf, r->mem + r->mem_pos, n);
		r->mem_pos += n;
	} else {
		do {
			n = read(r->fd, r->buf, READ_CHUNK);
		} while (n < 0 && errno == EINTR);
	}
	if (n > 0)
		r->len = n;
	return n;
}

static void follow_wait(void)
{
	struct timespec ts = { 0, FOLLOW_POLL_NS };

	nanosleep(&ts, NULL);
}

/* Copy n bytes from the stream; fewer only at the end (not following). */
static ssize_t take(struct ktr_reader *r, void *dst, size_t n)
{
	size_t got = 0, c;
	ssize_t rd;

	while (got < n) {
		if (r->pos == r->len) {
			rd = refill(r);
			if (rd < 0) {
				set_error(r, "read error", strerror(errno));
				return -1;
			}
			if (rd == 0) {
				if (!r->follow)
					break;
				follow_wait();
				continue;
			}
		}
		c = n - got < r->len - r->pos ? n - got : r->len - r->pos;
		memcpy((char *)dst + got, r->buf + r->pos, c);
		got += c;
		r->pos += c;
		r->off += c;
	}
	return got;
}

static int take_exact(struct ktr_reader *r, void *dst, size_t n, const char *what)
{
	ssize_t got = take(r, dst, n);
	char why[96];

	if (got < 0)
		return -1;
	if ((size_t)got < n) {
		snprintf(why, sizeof(why), "%s needs %zu bytes, the file ends after %zd", what, n,
			 got);
		set_error(r, "truncated record", why);
		return -1;
	}
	return 0;
}

int ktr_reader__open(struct ktr_reader *r)
{
	unsigned char skip[256];
	const char *why;
	size_t extra, n;

	r->rec_off = r->off;
	if (take_exact(r, &r->fh, sizeof(r->fh), "the file header"))
		return -1;
	why = ktr_file_header_check(&r->fh);
	if (why) {
		set_error(r, "bad file header", why);
		return -1;
	}
	/* A later minor version may append header fields: skip them. */
	for (extra = r->fh.hdr_len - sizeof(r->fh); extra; extra -= n) {
		n = extra < sizeof(skip) ? extra : sizeof(skip);
		if (take_exact(r, skip, n, "the file header"))
			return -1;
	}
	return 0;
}

/* A record header of n bytes into dst: 1, 0 at the end, -1 on error. */
static int take_header(struct ktr_reader *r, void *dst, size_t n)
{
	ssize_t got = take(r, dst, n);
	char why[96];

	if (got <= 0)
		return got;
	if ((size_t)got < n) {
		snprintf(why, sizeof(why), "record header needs %zu bytes, the file ends after %zd",
			 n, got);
		set_error(r, "truncated record", why);
		return -1;
	}
	return 1;
}

static struct thread_info *thread_get(struct ktr_reader *r, uint32_t tid)
{
	struct thread_info key = { .tid = tid };
	void *node = tfind(&key, &r->threads, thread_cmp);

	return node ? *(struct thread_info **)node : NULL;
}

/* Record what a KTR_THREAD record says: NULL, or why it cannot be kept. */
static const char *thread_set(struct ktr_reader *r, uint32_t tid, const struct ktr_thread *th)
{
	struct thread_info *t = thread_get(r, tid);

	if (!t) {
		if (r->nr_threads >= MAX_THREADS)
			return "more threads than kdump follows (1048576)";
		t = calloc(1, sizeof(*t));
		if (!t)
			return "out of memory for the thread table";
		t->tid = tid;
		if (!tsearch(t, &r->threads, thread_cmp)) {
			free(t);
			return "out of memory for the thread table";
		}
		r->nr_threads++;
	}
	t->pid = th->pid;
	memcpy(t->comm, th->comm, KTR_COMM_LEN);
	return NULL;
}

/*
 * A version 2 header in version 1 form: the process and command name
 * come from the thread's KTR_THREAD record. Only a DROP may come without
 * one: the recorder writes those itself when writes fail.
 */
static const char *expand_v2(struct ktr_reader *r, const struct ktr_hdr *h)
{
	struct thread_info *t = thread_get(r, h->tid);

	memset(&r->hdr, 0, sizeof(r->hdr));
	r->hdr.type = h->type;
	r->hdr.flags = h->flags;
	r->hdr.len = h->len;
	r->hdr.tid = h->tid;
	r->hdr.ts_ns = h->ts_ns;
	if (h->type == KTR_THREAD)
		return NULL; /* it introduces itself */
	if (t) {
		r->hdr.pid = t->pid;
		memcpy(r->hdr.comm, t->comm, KTR_COMM_LEN);
	} else if (h->type == KTR_DROP) {
		r->hdr.pid = h->tid;
		memcpy(r->hdr.comm, "ktrace", sizeof("ktrace"));
	} else {
		return "record of a thread no THREAD record introduced";
	}
	return NULL;
}

/* The next record, THREAD records included; 1, 0 at the end, -1. */
static int next_raw(struct ktr_reader *r)
{
	const char *why = NULL;
	struct ktr_hdr h2;
	int ret;

	r->rec_off = r->off;
	if (r->fh.version == KTR_VERSION_V1) {
		ret = take_header(r, &r->hdr, sizeof(r->hdr));
	} else {
		ret = take_header(r, &h2, sizeof(h2));
		if (ret > 0)
			why = expand_v2(r, &h2);
	}
	if (ret <= 0)
		return ret;
	if (!why && r->hdr.len > KTR_MAX_PAYLOAD)
		why = "record longer than any record type";
	if (!why && take_exact(r, r->payload, r->hdr.len, "record payload"))
		return -1;
	if (!why)
		why = ktr_rec_check(&r->hdr, r->payload, r->fh.version);
	if (!why && r->hdr.type == KTR_THREAD)
		why = thread_set(r, r->hdr.tid, r->payload);
	if (why) {
		set_error(r, "bad record", why);
		return -1;
	}
	return 1;
}

/* Version 2 CALLs hold only nargs arguments: the rest read as zero. */
static void widen_call(struct ktr_reader *r)
{
	size_t len = r->hdr.len;

	memset((char *)r->payload + len, 0, sizeof(struct ktr_syscall) - len);
	r->hdr.len = sizeof(struct ktr_syscall);
}

int ktr_reader__next(struct ktr_reader *r, const struct ktr_rec **hdr, const void **payload)
{
	int ret;

	do {
		ret = next_raw(r);
	} while (ret > 0 && r->hdr.type == KTR_THREAD);
	if (ret <= 0)
		return ret;
	if (r->hdr.type == KTR_SYSCALL)
		widen_call(r);
	*hdr = &r->hdr;
	*payload = r->payload;
	return 1;
}
