// SPDX-License-Identifier: GPL-2.0
/* A windowed reader of a BPF ring buffer: see ringbuf.h for why. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "lib/ringbuf.h"

/* The kernel's record header: the length word and the page offset. */
#define RB_HDR 8u
#define RB_BUSY (1u << 31)
#define RB_DISCARD (1u << 30)

struct rb_reader {
	int fd, epoll_fd;
	rb_record_fn fn;
	void *ctx;
	size_t page, ring, window;
	unsigned long *cons_pos;
	const unsigned long *prod_pos;
	/* Data bytes [win_start, win_start + win_len) of the doubled area. */
	const char *win;
	size_t win_start, win_len;
};

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) & ~(to - 1);
}

int rb_window_span(size_t off, size_t len, size_t ring, size_t window, size_t page, size_t *start,
		   size_t *length)
{
	size_t s, l;

	if (off >= ring || len > ring)
		return -1;
	if (window >= 2 * ring) {
		*start = 0;
		*length = 2 * ring;
		return 0;
	}
	s = off & ~(page - 1);
	l = round_up(off + len - s, page);
	if (l < window)
		l = round_up(window, page);
	if (s + l > 2 * ring)
		l = 2 * ring - s;
	*start = s;
	*length = l;
	return 0;
}

static int map_window(struct rb_reader *r, size_t off, size_t len)
{
	size_t start, length;
	void *p;

	if (r->win && off >= r->win_start && off + len <= r->win_start + r->win_len)
		return 0;
	if (rb_window_span(off, len, r->ring, r->window, r->page, &start, &length))
		return -EINVAL;
	if (r->win)
		munmap((void *)r->win, r->win_len);
	r->win = NULL;
	p = mmap(NULL, length, PROT_READ, MAP_SHARED, r->fd, 2 * r->page + start);
	if (p == MAP_FAILED)
		return -errno;
	r->win = p;
	r->win_start = start;
	r->win_len = length;
	return 0;
}

static const void *at(const struct rb_reader *r, size_t off)
{
	return r->win + (off - r->win_start);
}

static int ring_size(int fd, size_t *ring)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries ||
	    (info.max_entries & (info.max_entries - 1)))
		return -EINVAL;
	*ring = info.max_entries;
	return 0;
}

/* epoll rather than poll(2): harnesses see the loop by its epoll_wait wchan. */
static int open_epoll(struct rb_reader *r)
{
	struct epoll_event ev = { .events = EPOLLIN };

	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0)
		return -errno;
	return epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->fd, &ev) ? -errno : 0;
}

static int map_positions(struct rb_reader *r)
{
	void *c, *p;

	c = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	p = mmap(NULL, r->page, PROT_READ, MAP_SHARED, r->fd, r->page);
	if (p == MAP_FAILED) {
		munmap(c, r->page);
		return -errno;
	}
	r->cons_pos = c;
	r->prod_pos = p;
	return 0;
}

struct rb_reader *rb_reader__new_window(int map_fd, rb_record_fn fn, void *ctx, size_t window)
{
	struct rb_reader *r = calloc(1, sizeof(*r));
	int err;

	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->fd = map_fd;
	r->epoll_fd = -1;
	r->fn = fn;
	r->ctx = ctx;
	r->page = sysconf(_SC_PAGESIZE);
	r->window = window;
	err = ring_size(map_fd, &r->ring);
	if (!err)
		err = open_epoll(r);
	if (!err)
		err = map_positions(r);
	if (!err)
		err = map_window(r, 0, RB_HDR);
	if (err) {
		rb_reader__free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

struct rb_reader *rb_reader__new(int map_fd, rb_record_fn fn, void *ctx)
{
	return rb_reader__new_window(map_fd, fn, ctx, RB_WINDOW);
}

/* One pass up to the producer position seen at its start. */
static int consume_once(struct rb_reader *r, int *count)
{
	unsigned long cons = __atomic_load_n(r->cons_pos, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(r->prod_pos, __ATOMIC_ACQUIRE);
	size_t mask = r->ring - 1, off;
	__u32 hdr, len;
	int err;

	while (cons < prod) {
		off = cons & mask;
		err = map_window(r, off, RB_HDR);
		if (err)
			return err;
		hdr = __atomic_load_n((const __u32 *)at(r, off), __ATOMIC_ACQUIRE);
		if (hdr & RB_BUSY)
			break;
		len = hdr & ~(RB_BUSY | RB_DISCARD);
		/* The kernel never commits these: a corrupt ring, stop reading it. */
		if (len > r->ring - RB_HDR)
			return -EINVAL;
		cons += round_up(len + RB_HDR, 8);
		if (!(hdr & RB_DISCARD)) {
			err = map_window(r, off, RB_HDR + len);
			if (!err)
				err = r->fn(r->ctx, (void *)at(r, off + RB_HDR), len);
			if (err < 0) {
				__atomic_store_n(r->cons_pos, cons, __ATOMIC_RELEASE);
				return err;
			}
			if (*count < INT_MAX)
				(*count)++;
		}
		__atomic_store_n(r->cons_pos, cons, __ATOMIC_RELEASE);
	}
	return 0;
}

int rb_reader__consume(struct rb_reader *r)
{
	unsigned long before;
	int count = 0, err;

	do {
		before = __atomic_load_n(r->cons_pos, __ATOMIC_ACQUIRE);
		err = consume_once(r, &count);
		if (err)
			return err;
	} while (__atomic_load_n(r->cons_pos, __ATOMIC_ACQUIRE) != before);
	return count;
}

int rb_reader__poll(struct rb_reader *r, int timeout_ms)
{
	struct epoll_event ev;

	/* A timeout still reads: records below the wakeup threshold wake nobody. */
	if (epoll_wait(r->epoll_fd, &ev, 1, timeout_ms) < 0)
		return -errno;
	return rb_reader__consume(r);
}

__u64 rb_reader__pending(const struct rb_reader *r)
{
	return __atomic_load_n(r->prod_pos, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(r->cons_pos, __ATOMIC_ACQUIRE);
}

size_t rb_reader__mapped(const struct rb_reader *r)
{
	return r->win_len;
}

void rb_reader__free(struct rb_reader *r)
{
	if (!r)
		return;
	if (r->win)
		munmap((void *)r->win, r->win_len);
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	if (r->cons_pos)
		munmap(r->cons_pos, r->page);
	if (r->prod_pos)
		munmap((void *)r->prod_pos, r->page);
	free(r);
}
