/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event loop every streaming command shares: poll the BPF ring buffer,
 * hand each record to the command, report drops as they grow, and stop on
 * a signal in the one order that loses nothing silently: detach, read the
 * final drop counts, then deliver what the ring still holds. A second stop
 * signal skips the rest of the ring, and the skipped records are reported
 * with the drops, so that printed + reported = generated.
 */
#ifndef KSNOOP_RING_H
#define KSNOOP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define RING_MAX_DROP_REASONS 16 /* read_drops fills this many at most */

/* What a command hands the loop. */
struct ring_source {
	int map_fd; /* BPF_MAP_TYPE_RINGBUF */
	/* One record: 0 when delivered, RING_MALFORMED when rejected. */
	int (*handle)(void *ctx, const void *data, size_t size);
	/* Totals since attach, by reason; may be called after detach. */
	int (*read_drops)(void *ctx, __u64 *drops);
	const char *const *drop_names;
	int nr_drop_reasons;
	int ring_full; /* the reason a larger -P helps with, or -1 */
	/* Stops every probe; the maps stay readable. */
	void (*detach)(void *ctx);
	void *ctx;
	/* Where handle prints, flushed after each poll: -o's file, or NULL for stdout. */
	FILE *out;
	const char *out_path;
};

#define RING_MALFORMED 1

struct ring_loop;

/* Reports one error line and returns NULL on failure. */
struct ring_loop *ring_loop__new(const struct ring_source *src);
/* Until a stop signal or an output error (-errno; EPIPE ends quietly). */
int ring_loop__run(struct ring_loop *rl);
/*
 * Detaches, delivers the rest of the ring (a second stop signal skips
 * it) and prints the final drop line. Returns 0 or an output error.
 */
int ring_loop__finish(struct ring_loop *rl);
void ring_loop__free(struct ring_loop *rl);

__u64 ring_loop__delivered(const struct ring_loop *rl);

#endif
