// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chain.h"
#include "lib/util.h"

#define CHAIN_MAX_HELD 4096 /* events held for one thread */
/* Threads holding events: one that died inside a call never releases its own. */
#define CHAIN_MAX_THREADS 4096
/* Failures under one outermost call: as deep as calls nest, and some more. */
#define CHAIN_MAX_FAILURES 256

struct held {
	void *data;
	size_t size;
};

struct pending {
	__u32 tid;
	__u64 chain_id;
	int complete;
	int cut; /* graph: calls past max_nodes */
	struct held *events;
	size_t nr, cap;
};

struct chain {
	int len;
	chain_emit_fn emit;
	chain_origin_fn origin;
	int max_nodes; /* graph: calls in one tree; 0 for --errors */
	void *ctx;
	struct pending *p;
	size_t nr, cap;
};

struct chain *chain__new(int chain_len, chain_emit_fn emit, void *ctx)
{
	struct chain *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->len = chain_len;
	c->emit = emit;
	c->ctx = ctx;
	return c;
}

struct chain *chain__new_errors(chain_origin_fn origin, void *ctx)
{
	struct chain *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->origin = origin;
	c->ctx = ctx;
	return c;
}

struct chain *chain__new_graph(chain_origin_fn tree, int max_nodes, void *ctx)
{
	struct chain *c = chain__new_errors(tree, ctx);

	if (c)
		c->max_nodes = max_nodes;
	return c;
}

static void pending_clear(struct pending *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->events[i].data);
	free(p->events);
	memset(p, 0, sizeof(*p));
}

void chain__free(struct chain *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		pending_clear(&c->p[i]);
	free(c->p);
	free(c);
}

static void drop_pending(struct chain *c, struct pending *p)
{
	pending_clear(p);
	*p = c->p[--c->nr];
}

static struct pending *find(struct chain *c, __u32 tid, __u64 chain_id, bool create)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		if (c->p[i].tid == tid && c->p[i].chain_id == chain_id)
			return &c->p[i];
	}
	if (!create)
		return NULL;
	if (c->nr >= CHAIN_MAX_THREADS) {
		pending_clear(&c->p[0]);
		memmove(c->p, c->p + 1, --c->nr * sizeof(*c->p));
	}
	if (!grow_array(&c->p, &c->cap, c->nr, sizeof(*c->p), 16))
		return NULL;
	memset(&c->p[c->nr], 0, sizeof(c->p[0]));
	c->p[c->nr].tid = tid;
	c->p[c->nr].chain_id = chain_id;
	return &c->p[c->nr++];
}

static void *copy_event(const struct ksnoop_event *ev, size_t size)
{
	void *copy = malloc(size);

	return copy ? memcpy(copy, ev, size) : NULL;
}

static int hold(struct pending *p, const struct ksnoop_event *ev, size_t size)
{
	struct held *h;

	if (p->nr >= CHAIN_MAX_HELD)
		return -E2BIG;
	if (!grow_array(&p->events, &p->cap, p->nr, sizeof(*p->events), 8))
		return -ENOMEM;
	h = &p->events[p->nr];
	h->data = copy_event(ev, size);
	if (!h->data)
		return -ENOMEM;
	h->size = size;
	p->nr++;
	return 0;
}

static void release(struct chain *c, struct pending *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		c->emit(c->ctx, p->events[i].data, p->events[i].size);
		free(p->events[i].data);
	}
	p->nr = 0;
}

int chain__event(struct chain *c, const struct ksnoop_event *ev, size_t size, int pos)
{
	bool first_returns = pos == 0 && ev->kind != KSNOOP_EV_ENTRY;
	struct pending *p = find(c, ev->pid, ev->chain_id, true);

	if (!p)
		return -ENOMEM;
	if (pos == c->len - 1)
		p->complete = 1;
	if (p->complete) {
		release(c, p);
		if (ev->kind != KSNOOP_EV_CHAIN_END)
			c->emit(c->ctx, ev, size);
	} else if (!first_returns) {
		hold(p, ev, size);
	}
	if (first_returns)
		drop_pending(c, p);
	return 0;
}

static void forget_oldest(struct pending *p)
{
	free(p->events[0].data);
	memmove(p->events, p->events + 1, --p->nr * sizeof(*p->events));
}

/* The deepest failure within top, the latest of equals; NULL for none. */
static const struct ksnoop_event *deepest_within(const struct pending *p,
						 const struct ksnoop_event *top)
{
	const struct ksnoop_event *best = NULL, *ev;
	size_t i;

	for (i = 0; i < p->nr; i++) {
		ev = p->events[i].data;
		if (!chain_within(ev, top) || ev->depth <= top->depth)
			continue;
		if (!best || ev->depth > best->depth ||
		    (ev->depth == best->depth && ev->ts > best->ts))
			best = ev;
	}
	return best;
}

/*
 * The origin of top's failure: top, the held failures whose calls
 * enclose the deepest one, and that one, outermost first.
 */
static void release_origin(struct chain *c, struct pending *p, const struct ksnoop_event *top,
			   size_t top_size)
{
	const struct ksnoop_event *evs[KSNOOP_MAX_DEPTH + 1], *deepest = deepest_within(p, top);
	size_t sizes[KSNOOP_MAX_DEPTH + 1];
	int n = 1, d;
	size_t i;

	evs[0] = top;
	sizes[0] = top_size;
	for (d = top->depth + 1; deepest && d <= deepest->depth && n < KSNOOP_MAX_DEPTH + 1; d++) {
		for (i = 0; i < p->nr; i++) {
			const struct ksnoop_event *ev = p->events[i].data;

			if (ev->depth == d && chain_within(deepest, ev) && chain_within(ev, top)) {
				evs[n] = ev;
				sizes[n++] = p->events[i].size;
				break;
			}
		}
	}
	c->origin(c->ctx, evs, sizes, n, 0);
}

/* graph: top and every call held within it, as they were held. */
static int release_tree(struct chain *c, struct pending *p, const struct ksnoop_event *top,
			size_t top_size)
{
	const struct ksnoop_event **evs = calloc(p->nr + 1, sizeof(*evs));
	size_t *sizes = calloc(p->nr + 1, sizeof(*sizes));
	size_t i;
	int n = 1;

	if (!evs || !sizes) {
		free(evs);
		free(sizes);
		return -ENOMEM;
	}
	evs[0] = top;
	sizes[0] = top_size;
	for (i = 0; i < p->nr; i++) {
		if (!chain_within(p->events[i].data, top))
			continue;
		evs[n] = p->events[i].data;
		sizes[n++] = p->events[i].size;
	}
	c->origin(c->ctx, evs, sizes, n, p->cut);
	free(evs);
	free(sizes);
	return 0;
}

/* The deepest held call, the last of equals: the first a full tree gives up. */
static size_t deepest_held(const struct pending *p)
{
	size_t i, best = 0;

	for (i = 1; i < p->nr; i++) {
		const struct ksnoop_event *ev = p->events[i].data, *b = p->events[best].data;

		if (ev->depth >= b->depth)
			best = i;
	}
	return best;
}

/*
 * A full tree keeps its outer calls: inner ones return, and arrive,
 * first, and a shallower call takes the place of the deepest held.
 */
static int replace_deepest(struct pending *p, const struct ksnoop_event *ev, size_t size)
{
	size_t d = deepest_held(p);
	const struct ksnoop_event *old = p->events[d].data;
	void *copy;

	p->cut++;
	if (!p->nr || old->depth <= ev->depth)
		return 0;
	copy = copy_event(ev, size);
	if (!copy)
		return -ENOMEM;
	free(p->events[d].data);
	p->events[d].data = copy;
	p->events[d].size = size;
	return 0;
}

/* Bounded: --errors forgets its oldest failures, a graph cuts its tree. */
static int hold_nested(struct chain *c, struct pending *p, const struct ksnoop_event *ev,
		       size_t size)
{
	if (c->max_nodes && (int)p->nr >= c->max_nodes)
		return replace_deepest(p, ev, size);
	if (!c->max_nodes && p->nr >= CHAIN_MAX_FAILURES)
		forget_oldest(p);
	return hold(p, ev, size);
}

int chain__nested(struct chain *c, const struct ksnoop_event *ev, size_t size, bool outermost)
{
	struct pending *p = find(c, ev->pid, 0, !outermost && ev->kind != KSNOOP_EV_CHAIN_END);
	int err = 0;

	if (ev->kind == KSNOOP_EV_CHAIN_END) {
		if (p)
			drop_pending(c, p);
		return 0;
	}
	if (!outermost)
		return p ? hold_nested(c, p, ev, size) : -ENOMEM;
	if (!p) {
		c->origin(c->ctx, &ev, &size, 1, 0);
		return 0;
	}
	if (c->max_nodes)
		err = release_tree(c, p, ev, size);
	else
		release_origin(c, p, ev, size);
	drop_pending(c, p);
	return err;
}
