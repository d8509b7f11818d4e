/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lite events (KSNOOP_CFG_LITE): which functions BPF may capture straight
 * into their ring records, and the record layout the verifier checks
 * those writes against. A lite record is reserved at its side's largest
 * size for the session, which bounds the ring's sizing too.
 */
#ifndef KSNOOP_TRACE_LITE_H
#define KSNOOP_TRACE_LITE_H

#include "trace/tracer_opts.h"
#include "abi/trace.h"
#include "trace/plan.h"

/* Past this the event keeps the scratch path, sized by its own values. */
#define LITE_REC_MAX 4096

struct lite_layout {
	__u32 rec[2];			  /* bytes reserved per event, by side; 0: none */
	__u16 off[2][KSNOOP_LITE_VALUES]; /* the furthest slot k starts in the data */
	__u16 len[2][KSNOOP_LITE_VALUES]; /* the most bytes slot k reads */
	__u8 slots[2];			  /* the most values a lite plan has, by side */
	bool only; /* every plan is lite on both sides, whatever its backend */
};

/* Marks the plans that go the lite way, and lays out their records. */
void lite_layout_plans(const struct tracer_opts *o, struct func_plan *plans, int nr,
		       struct lite_layout *l);
/* The ring bytes one call of a lite plan takes, record headers included. */
unsigned long lite_call_bytes(const struct lite_layout *l, const struct ksnoop_func_cfg *cfg);

#endif
