// SPDX-License-Identifier: GPL-2.0
/* The shared event loop: see ring.h for the order it stops in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ring.h"
#include "lib/ringbuf.h"
#include "lib/util.h"

#define POLL_MS 100
#define DROP_REPORT_NS 1000000000LL
/* A drain that has run this long says how much is left, once. */
#define DRAIN_NOTE_NS 1000000000LL
/* Records between clock reads while draining. */
#define DRAIN_CHECK_EVERY 256

struct ring_loop {
	struct ring_source src;
	struct rb_reader *rb;
	__u64 delivered, malformed, skipped;
	__u64 bytes; /* of the records handled, for an average size */
	__u64 drops_reported;
	long long drain_start;
	bool draining, noted, skipping, out_closed;
};

/* Records still in the ring, estimated from the average size so far. */
static __u64 records_left(const struct ring_loop *rl)
{
	__u64 left = rb_reader__pending(rl->rb), avg;

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
	rl->rb = rb_reader__new(src->map_fd, on_record, rl);
	if (!rl->rb) {
		p_err("cannot open the ring buffer: %s", strerror(errno));
		free(rl);
		return NULL;
	}
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
	/* A record the reader cannot take is an event lost too, never a silent one. */
	if (rl->malformed) {
		total += rl->malformed;
		sb_printf(&sb, "%s%llu malformed", sb.len ? ", " : "",
			  (unsigned long long)rl->malformed);
	}
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
static int flush_events(struct ring_loop *rl)
{
	int err = flush_output(rl->src.out ?: stdout, rl->src.out_path);

	if (err > 0)
		rl->out_closed = true;
	return err < 0 ? err : 0;
}

int ring_loop__run(struct ring_loop *rl)
{
	long long last_report = clock_ns(CLOCK_MONOTONIC);
	int err;

	while (!stop_signal && !rl->out_closed) {
		err = rb_reader__poll(rl->rb, POLL_MS);
		if (err < 0 && err != -EINTR) {
			p_err("reading the ring buffer: %s", strerror(-err));
			return err;
		}
		err = flush_events(rl);
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
		rb_reader__consume(rl->rb);
		err = flush_events(rl);
	}
	drop_line(rl, true);
	return err;
}

void ring_loop__free(struct ring_loop *rl)
{
	if (!rl)
		return;
	rb_reader__free(rl->rb);
	free(rl);
}

__u64 ring_loop__delivered(const struct ring_loop *rl)
{
	return rl->delivered;
}
