/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdump --format=chrome: the records of a trace file as Chrome Trace
 * Event JSON (lib/chrome.h). Each syscall, its CALL paired with the RET of
 * the same thread, is one complete event; signals and drops are instants.
 * doc/kdump.1 "CHROME TRACE FORMAT" describes the events.
 */
#ifndef KSNOOP_KDUMP_PRINT_CHROME_H
#define KSNOOP_KDUMP_PRINT_CHROME_H

#include <stdio.h>

#include "ktr/print.h"

/* Threads in a call at one time that get paired; a call beyond is an instant. */
#define KDUMP_CHROME_PENDING 1024
/* Bytes of paths, I/O and exec strings kept per call; more are cut. */
#define KDUMP_CHROME_CALL_MAX 16384
/* Threads named in the viewer (thread_name metadata). */
#define KDUMP_CHROME_NAMED 4096

struct kdump_chrome;

/* Events to out, decoded with c's options (read at each record); NULL: no memory. */
struct kdump_chrome *kdump_chrome__new(const struct kdump_ctx *c, FILE *out);
/*
 * Times are relative to ts, the earliest record's (kdump_chrome__note_earliest
 * over the file first, a kdump_ctx.emit with a uint64_t set to UINT64_MAX),
 * else to the first record's.
 */
void kdump_chrome__set_base(struct kdump_chrome *k, uint64_t ts);
void kdump_chrome__note_earliest(void *earliest, const struct ktr_rec *h, const void *payload);
/* One validated record; a kdump_ctx.emit. */
void kdump_chrome__record(void *k, const struct ktr_rec *h, const void *payload);
/*
 * End of the file: the calls still open, the thread names, the closing of
 * the JSON; frees k. 0, or -EIO when the output could not be written.
 */
int kdump_chrome__finish(struct kdump_chrome *k);

#endif
