/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -s: events of a call chain are held per thread until the chain is
 * complete (the last function was reached), then released; a chain whose
 * first function returns before that is discarded.
 */
#ifndef KSNOOP_CHAIN_H
#define KSNOOP_CHAIN_H

#include <stddef.h>

#include "abi/trace.h"

struct chain;

typedef int (*chain_emit_fn)(void *ctx, const struct ksnoop_event *ev, size_t size);

struct chain *chain__new(int chain_len, chain_emit_fn emit, void *ctx);
void chain__free(struct chain *c);
/* pos is the event's function position in the chain. */
int chain__event(struct chain *c, const struct ksnoop_event *ev, size_t size, int pos);

#endif
