// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chain.h"
#include "lib/util.h"

#define CHAIN_MAX_HELD 4096 /* events held for one thread */

struct held {
	void *data;
	size_t size;
};

struct pending {
	__u32 tid;
	__u64 chain_id;
	int complete;
	struct held *events;
	size_t nr, cap;
};

struct chain {
	int len;
	chain_emit_fn emit;
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

static struct pending *find(struct chain *c, __u32 tid, __u64 chain_id, bool create)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		if (c->p[i].tid == tid && c->p[i].chain_id == chain_id)
			return &c->p[i];
	}
	if (!create)
		return NULL;
	if (!grow_array(&c->p, &c->cap, c->nr, sizeof(*c->p), 16))
		return NULL;
	memset(&c->p[c->nr], 0, sizeof(c->p[0]));
	c->p[c->nr].tid = tid;
	c->p[c->nr].chain_id = chain_id;
	return &c->p[c->nr++];
}

static void drop_pending(struct chain *c, struct pending *p)
{
	pending_clear(p);
	*p = c->p[--c->nr];
}

static int hold(struct pending *p, const struct ksnoop_event *ev, size_t size)
{
	struct held *h;

	if (p->nr >= CHAIN_MAX_HELD)
		return -E2BIG;
	if (!grow_array(&p->events, &p->cap, p->nr, sizeof(*p->events), 8))
		return -ENOMEM;
	h = &p->events[p->nr];
	h->data = malloc(size);
	if (!h->data)
		return -ENOMEM;
	memcpy(h->data, ev, size);
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
