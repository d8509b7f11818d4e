// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lib/util.h"
#include "trace/lite.h"

/* What makes any event of the session need the scratch path. */
static bool session_allows_lite(const struct tracer_opts *o)
{
	return o->agg.mode == KSNOOP_AGG_NONE && !o->kstack_depth && !o->ustack_depth &&
	       !o->stack_mode && !o->graph && !o->errors && !o->min_duration_ns;
}

/* The bytes a value's record holds after its header, at most. */
static __u32 value_bytes(const struct ksnoop_value *v)
{
	if (!(v->flags & KSNOOP_V_READ))
		return 0;
	return v->size < KSNOOP_VALUE_MAX ? v->size : KSNOOP_VALUE_MAX;
}

/*
 * The slots of one side of cfg: where each record starts at most, and how
 * much it reads. False when the side does not fit a lite event.
 */
static bool side_layout(const struct ksnoop_func_cfg *cfg, int side, __u16 off[KSNOOP_LITE_VALUES],
			__u16 len[KSNOOP_LITE_VALUES], __u32 *rec)
{
	__u32 o = 0, k;

	if (cfg->nr_side[side] > KSNOOP_LITE_VALUES)
		return false;
	for (k = 0; k < cfg->nr_side[side]; k++) {
		const struct ksnoop_value *v = &cfg->values[cfg->side[side][k] % KSNOOP_MAX_VALUES];

		if (v->base == KSNOOP_BASE_COMM || v->base == KSNOOP_BASE_CURRENT)
			return false;
		off[k] = o;
		len[k] = value_bytes(v);
		o += KSNOOP_VREC_SIZE(len[k]);
	}
	*rec = KSNOOP_LITE_HDR_SIZE + o;
	return *rec <= LITE_REC_MAX;
}

static bool plan_allows_lite(const struct func_plan *p)
{
	const struct ksnoop_func_cfg *cfg = &p->cfg;

	return p->preds_fast &&
	       !(cfg->flags & (KSNOOP_CFG_FRAME | KSNOOP_CFG_SPAN | KSNOOP_CFG_FOLLOW)) &&
	       !(cfg->emit & KSNOOP_EMIT_COMBINED);
}

/* Slot bounds are the largest of any lite plan's, so each plan fits them. */
static void merge_side(struct lite_layout *l, int side, const __u16 off[KSNOOP_LITE_VALUES],
		       const __u16 len[KSNOOP_LITE_VALUES], int nr)
{
	int k;

	l->slots[side] = max(l->slots[side], (__u8)nr);
	for (k = 0; k < nr; k++) {
		l->off[side][k] = max(l->off[side][k], off[k]);
		l->len[side][k] = max(l->len[side][k], len[k]);
	}
}

/*
 * Room for every slot at its bounds. Even a side without values has room
 * for one empty slot: the verifier checks every slot's code, used or not.
 */
static __u32 side_rec(const struct lite_layout *l, int side)
{
	__u32 k, rec = KSNOOP_LITE_HDR_SIZE + KSNOOP_VREC_SIZE(0);

	for (k = 0; k < KSNOOP_LITE_VALUES; k++)
		rec = max(rec, (__u32)(KSNOOP_LITE_HDR_SIZE + l->off[side][k] +
				       KSNOOP_VREC_SIZE(l->len[side][k])));
	return rec;
}

static void clear_lite(struct func_plan *plans, int nr, struct lite_layout *l)
{
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < nr; i++)
		plans[i].cfg.flags &= ~KSNOOP_CFG_LITE;
}

void lite_layout_plans(const struct tracer_opts *o, struct func_plan *plans, int nr,
		       struct lite_layout *l)
{
	__u16 off[2][KSNOOP_LITE_VALUES], len[2][KSNOOP_LITE_VALUES];
	int lite = 0, paired = 0;
	__u32 rec;
	int i, s;

	clear_lite(plans, nr, l);
	if (!session_allows_lite(o))
		return;
	for (i = 0; i < nr; i++) {
		struct ksnoop_func_cfg *cfg = &plans[i].cfg;

		if (!plan_allows_lite(&plans[i]) || !side_layout(cfg, 0, off[0], len[0], &rec) ||
		    !side_layout(cfg, 1, off[1], len[1], &rec))
			continue;
		cfg->flags |= KSNOOP_CFG_LITE;
		for (s = 0; s < 2; s++)
			merge_side(l, s, off[s], len[s], cfg->nr_side[s]);
		lite++;
		/* A kretprobe learns the fast verdict from a frame (see trace.bpf.c). */
		paired += cfg->nr_fast_preds && (cfg->emit & KSNOOP_EMIT_RETURN);
	}
	if (!lite)
		return;
	l->only = lite == nr && !paired;
	for (s = 0; s < 2; s++)
		l->rec[s] = side_rec(l, s);
	/* Merged bounds may outgrow every one plan's record: then none goes lite. */
	if (l->rec[0] > LITE_REC_MAX || l->rec[1] > LITE_REC_MAX)
		clear_lite(plans, nr, l);
}

unsigned long lite_call_bytes(const struct lite_layout *l, const struct ksnoop_func_cfg *cfg)
{
	unsigned long n = 0;

	if (cfg->emit & KSNOOP_EMIT_ENTRY)
		n += 8 + l->rec[KSNOOP_SIDE_ENTRY];
	if (cfg->emit & KSNOOP_EMIT_RETURN)
		n += 8 + l->rec[KSNOOP_SIDE_RETURN];
	return n;
}
