// SPDX-License-Identifier: GPL-2.0
/* The shared event loop: see ring.h for the order it stops in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "lib/ring.h"
#include "lib/util.h"

#define POLL_MS 100
#define DROP_REPORT_NS 1000000000LL
/* A drain that has run this long says how much is left, once. */
#define DRAIN_NOTE_NS 1000000000LL
/* Records between clock reads while draining. */
#define DRAIN_CHECK_EVERY 256

struct ring_loop {
	struct ring_source src;
	struct ring_buffer *rb;
	/* The kernel's positions, for "N events remain" (libbpf 1.1 has no API). */
	const unsigned long *cons_pos, *prod_pos;
	size_t page_size;
	__u64 delivered, malformed, skipped;
	__u64 bytes; /* of the records handled, for an average size */
	__u64 drops_reported;
	long long drain_start;
	bool draining, noted, skipping, out_closed;
};

static void map_positions(struct ring_loop *rl)
{
	void *c, *p;

	rl->page_size = sysconf(_SC_PAGESIZE);
	c = mmap(NULL, rl->page_size, PROT_READ, MAP_SHARED, rl->src.map_fd, 0);
	if (c == MAP_FAILED)
		return;
	p = mmap(NULL, rl->page_size, PROT_READ, MAP_SHARED, rl->src.map_fd, rl->page_size);
	if (p == MAP_FAILED) {
		munmap(c, rl->page_size);
		return;
	}
	rl->cons_pos = c;
	rl->prod_pos = p;
}

/* Records still in the ring, estimated from the average size so far. */
static __u64 records_left(const struct ring_loop *rl)
{
	__u64 left, avg;

	if (!rl->cons_pos)
		return 0;
	left = __atomic_load_n(rl->prod_pos, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(rl->cons_pos, __ATOMIC_ACQUIRE);
	avg = rl->delivered + rl->malformed ? rl->bytes / (rl->delivered + rl->malformed) : 0;
	return avg ? left / avg : left ? 1 : 0;
}

static void check_drain(struct ring_loop *rl)
{
	__u64 left;

	if (stop_count > 1) {
		rl->skipping = true;
		return;
	}
	if (rl->noted || clock_ns(CLOCK_MONOTONIC) - rl->drain_start < DRAIN_NOTE_NS)
		return;
	rl->noted = true;
	left = records_left(rl);
	if (!left)
		return;
	fflush(stdout);
	p_warn("printing about %llu more events captured before the stop; Ctrl-C again skips them",
	       (unsigned long long)left);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct ring_loop *rl = ctx;

	if (rl->draining && !rl->skipping && (rl->delivered + rl->skipped) % DRAIN_CHECK_EVERY == 0)
		check_drain(rl);
	if (rl->skipping) {
		rl->skipped++;
		return 0;
	}
	rl->bytes += (size + 8 + 7) & ~7UL; /* the kernel's header and padding */
	if (rl->src.handle(rl->src.ctx, data, size) == RING_MALFORMED)
		rl->malformed++;
	else
		rl->delivered++;
	/*
	 * A stop that lands while a poll is emptying a full ring must not wait
	 * for the ring to empty: break out (this record counts as consumed), so
	 * that the probes are detached first and the drain can note and skip.
	 */
	if (!rl->draining && stop_signal)
		return -EINTR;
	return 0;
}

struct ring_loop *ring_loop__new(const struct ring_source *src)
{
	struct ring_loop *rl = calloc(1, sizeof(*rl));

	if (!rl) {
		p_err("out of memory");
		return NULL;
	}
	rl->src = *src;
	rl->rb = ring_buffer__new(src->map_fd, on_record, rl, NULL);
	if (!rl->rb) {
		p_err("cannot open the ring buffer: %s", strerror(errno));
		free(rl);
		return NULL;
	}
	map_positions(rl);
	return rl;
}

static void drop_line(struct ring_loop *rl, bool final)
{
	__u64 raw[RING_MAX_DROP_REASONS] = { 0 };
	uint64_t d[RING_MAX_DROP_REASONS];
	unsigned long long total;
	const char *hint = "";
	struct strbuf sb;
	int r, n = rl->src.nr_drop_reasons;

	if (n > RING_MAX_DROP_REASONS)
		n = RING_MAX_DROP_REASONS;
	if (rl->src.read_drops(rl->src.ctx, raw))
		return;
	for (r = 0; r < n; r++)
		d[r] = raw[r];
	sb_init(&sb);
	total = sb_counts(&sb, d, rl->src.drop_names, n);
	if (rl->skipped) {
		total += rl->skipped;
		sb_printf(&sb, "%s%llu skipped at exit", sb.len ? ", " : "",
			  (unsigned long long)rl->skipped);
	}
	if (rl->src.ring_full >= 0 && rl->src.ring_full < n && d[rl->src.ring_full])
		hint = "; a larger -P helps";
	if (total != rl->drops_reported || (final && total)) {
		fflush(stdout);
		p_warn("lost %llu events %s(%s)%s", (unsigned long long)total,
		       final ? "" : "so far ", sb_str(&sb), hint);
		rl->drops_reported = total;
	}
	if (final)
		p_dbg("%llu events delivered, %llu lost, %llu malformed",
		      (unsigned long long)rl->delivered, (unsigned long long)total,
		      (unsigned long long)rl->malformed);
	sb_free(&sb);
}

/* 0, or -errno of a failed write; a closed pipe ends output quietly. */
static int flush_output(struct ring_loop *rl)
{
	int err = flush_stdout();

	if (err > 0)
		rl->out_closed = true;
	return err < 0 ? err : 0;
}

int ring_loop__run(struct ring_loop *rl)
{
	long long last_report = clock_ns(CLOCK_MONOTONIC);
	int err;

	while (!stop_signal && !rl->out_closed) {
		err = ring_buffer__poll(rl->rb, POLL_MS);
		/* Events below the BPF side's wakeup threshold wake nobody. */
		if (err == 0)
			err = ring_buffer__consume(rl->rb);
		if (err < 0 && err != -EINTR) {
			p_err("reading the ring buffer: %s", strerror(-err));
			return err;
		}
		err = flush_output(rl);
		if (err)
			return err;
		if (clock_ns(CLOCK_MONOTONIC) - last_report > DROP_REPORT_NS) {
			drop_line(rl, false);
			last_report = clock_ns(CLOCK_MONOTONIC);
		}
	}
	return 0;
}

int ring_loop__finish(struct ring_loop *rl)
{
	int err;

	/* Nothing can be added once detached: the drain below is complete. */
	rl->src.detach(rl->src.ctx);
	rl->draining = true;
	rl->drain_start = clock_ns(CLOCK_MONOTONIC);
	rl->skipping = stop_count > 1;
	err = 0;
	if (!rl->out_closed) {
		ring_buffer__consume(rl->rb);
		err = flush_output(rl);
	}
	drop_line(rl, true);
	return err;
}

void ring_loop__free(struct ring_loop *rl)
{
	if (!rl)
		return;
	ring_buffer__free(rl->rb);
	if (rl->cons_pos)
		munmap((void *)rl->cons_pos, rl->page_size);
	if (rl->prod_pos)
		munmap((void *)rl->prod_pos, rl->page_size);
	free(rl);
}

__u64 ring_loop__delivered(const struct ring_loop *rl)
{
	return rl->delivered;
}
