/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -s: events of a call chain are held per thread until the chain is
 * complete (the last function was reached), then released; a chain whose
 * first function returns before that is discarded.
 *
 * --errors with several functions: the failures of a thread are held
 * until its outermost traced call fails too, then the error's origin is
 * released: the chain of failing calls from that call down to the deepest
 * one, outermost first. A chain end (the outermost call succeeded)
 * discards what was held.
 *
 * graph: the same, but the outermost call (ENTRY) releases every call
 * held within it, and at most max_nodes of them; cut says how many more
 * there were.
 */
#ifndef KSNOOP_CHAIN_H
#define KSNOOP_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "abi/trace.h"

struct chain;

/* When a return event's call began. */
static inline __u64 chain_entry_ts(const struct ksnoop_event *ev)
{
	return ev->ts - ev->duration_ns;
}

/* Whether the call of return event in ran within the call of out. */
static inline bool chain_within(const struct ksnoop_event *in, const struct ksnoop_event *out)
{
	return chain_entry_ts(in) >= chain_entry_ts(out) && in->ts <= out->ts;
}

typedef int (*chain_emit_fn)(void *ctx, const struct ksnoop_event *ev, size_t size);

typedef void (*chain_origin_fn)(void *ctx, const struct ksnoop_event *const *evs,
				const size_t *sizes, int n, int cut);

struct chain *chain__new(int chain_len, chain_emit_fn emit, void *ctx);
struct chain *chain__new_errors(chain_origin_fn origin, void *ctx);
struct chain *chain__new_graph(chain_origin_fn tree, int max_nodes, void *ctx);
void chain__free(struct chain *c);
/* pos is the event's function position in the chain. */
int chain__event(struct chain *c, const struct ksnoop_event *ev, size_t size, int pos);
/* outermost: the event's call is its thread's outermost traced one. */
int chain__nested(struct chain *c, const struct ksnoop_event *ev, size_t size, bool outermost);

#endif
