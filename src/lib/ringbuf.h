/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of a BPF ring buffer (BPF_MAP_TYPE_RINGBUF) that maps a window
 * of the data area, not all of it twice as libbpf's ring_buffer does.
 *
 * The kernel maps the data pages twice in a row, so a record that wraps is
 * contiguous. Newer kernels (6.12 here) count every page of a read-only
 * mapping of them in the reader's RSS: libbpf's full double mapping of a
 * 32 MiB ring costs 64 MiB of RSS although the reader looks at a few pages
 * at a time. This reader maps the positions and a window of the doubled
 * data that starts at the consumer's page and moves with it, so it counts
 * RB_WINDOW bytes. A record longer than the window widens it.
 */
#ifndef KSNOOP_RINGBUF_H
#define KSNOOP_RINGBUF_H

#include <stddef.h>
#include <linux/types.h>

#define RB_WINDOW (1u << 20)

/* One record: a negative return stops the read, the record counts as read. */
typedef int (*rb_record_fn)(void *ctx, void *data, size_t size);

struct rb_reader;

/* NULL with errno set on failure. */
struct rb_reader *rb_reader__new(int map_fd, rb_record_fn fn, void *ctx);
/* The same with a window of at least window bytes (tests use small ones). */
struct rb_reader *rb_reader__new_window(int map_fd, rb_record_fn fn, void *ctx, size_t window);
/*
 * Waits up to timeout_ms for the kernel's wakeup (in epoll_wait), then
 * reads what the ring holds. Both return the records read (at most
 * INT_MAX), or -errno (a wait interrupted by a signal is -EINTR), or the
 * callback's negative return.
 */
int rb_reader__poll(struct rb_reader *r, int timeout_ms);
int rb_reader__consume(struct rb_reader *r);
/* Bytes committed or reserved and not yet read. */
__u64 rb_reader__pending(const struct rb_reader *r);
/* The size of the data window mapped now (for tests). */
size_t rb_reader__mapped(const struct rb_reader *r);
void rb_reader__free(struct rb_reader *r);

/*
 * The window to map so that data bytes [off, off + len) are covered: it
 * starts at off's page and is window bytes long, or longer for the record,
 * and never ends past the doubled data (2 * ring). off < ring; ring and
 * page are powers of two. 0, or -1 when the span cannot fit.
 */
int rb_window_span(size_t off, size_t len, size_t ring, size_t window, size_t page, size_t *start,
		   size_t *length);

#endif
