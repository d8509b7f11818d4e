/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Predicates: the fast ones from registers at entry, the rest over the
 * captured values in bpf_loop steps.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_PREDS_H
#define KSNOOP_TRACE_PREDS_H

/* The value's bytes, or a bitfield's bits among its neighbours'. */
static __always_inline bool int_pred_holds(const struct ksnoop_pred *p, __u64 x)
{
	return intcmp(p->op, x >> (p->bit_off & 7), p->rhs,
		      p->bit_size ? p->bit_size : (p->width & 15) * 8, p->is_signed);
}

static __always_inline void glob_init(struct scratch *s, const struct ksnoop_pred *p, __u32 vi)
{
	struct glob *g = &s->glob;
	__u32 off = s->str_off[vi], len = s->str_len[vi];

	__builtin_memset(g->txt, 0, GLOB_TXT);
	if (len > GLOB_TXT)
		len = GLOB_TXT;
	if (off < KSNOOP_DATA_MAX + 64)
		bpf_probe_read_kernel(g->txt, len & (GLOB_TXT * 2 - 1), &s->ev.data[off]);
	bpf_probe_read_kernel(g->pat, GLOB_PAT, p->str);
	glob_start(g, false);
}

/*
 * Predicates run as bpf_loop state machines, so the verifier checks each
 * step once instead of every path through every comparison. Their
 * contexts live on the stack (6.1 insists) and point at the scratch.
 */
struct cmp_eval {
	struct ksnoop_func_cfg *cfg;
	struct scratch *s;
	__u32 at_entry; /* a constant at each call site */
};

static __always_inline void cmp_done(struct pred_state *ps, bool known, bool val)
{
	ps->known |= (__u32)known << (ps->k & 31);
	ps->val |= (__u32)val << (ps->k & 31);
	ps->k++;
	ps->started = 0;
}

static int cmp_step(__u32 i, void *arg)
{
	struct cmp_eval *e = arg;
	struct pred_state *ps = &e->s->ps;
	struct ksnoop_pred *p;
	__u32 k = ps->k, vi;

	if (k >= e->cfg->nr_preds)
		return 1;
	barrier_var(k);
	p = &e->cfg->preds[k & (KSNOOP_MAX_PREDS - 1)];
	vi = p->value_idx;
	barrier_var(vi);
	vi &= KSNOOP_MAX_VALUES - 1;
	/* At entry, a comparison on a return value is not known yet. */
	if (e->at_entry && !(e->cfg->values[vi].flags & KSNOOP_V_ENTRY)) {
		cmp_done(ps, false, false);
	} else if (p->kind != KSNOOP_PRED_STR) {
		cmp_done(ps, true, int_pred_holds(p, e->s->scalars[vi]));
	} else if (!ps->started) {
		glob_init(e->s, p, vi);
		ps->started = 1;
	} else if (glob_step(&e->s->glob)) {
		cmp_done(ps, true, e->s->glob.result ^ (p->op == KSNOOP_CMP_NE));
	}
	return 0;
}

static int op_step(__u32 i, void *arg)
{
	struct cmp_eval *e = arg;
	struct pred_state *ps = &e->s->ps;
	__u32 k, v, k1, v1, k2, v2, sp = ps->sp;
	__u8 op;

	if (i >= e->cfg->nr_pred_ops || sp > 31)
		return 1;
	barrier_var(i);
	op = e->cfg->pred_ops[i & (KSNOOP_MAX_PRED_OPS - 1)];
	if (op == KSNOOP_OP_AND || op == KSNOOP_OP_OR) {
		if (sp < 2)
			return 1;
		sp -= 2;
		k1 = ps->sk >> sp & 1, v1 = ps->sv >> sp & 1;
		k2 = ps->sk >> (sp + 1) & 1, v2 = ps->sv >> (sp + 1) & 1;
		if (op == KSNOOP_OP_AND) {
			v = v1 & v2;
			k = (k1 & k2) | (k1 & !v1) | (k2 & !v2);
		} else {
			v = v1 | v2;
			k = (k1 & k2) | (k1 & v1) | (k2 & v2);
		}
	} else {
		k = ps->known >> (op & 31) & 1;
		v = ps->val >> (op & 31) & 1;
	}
	ps->sk = (ps->sk & ~(1U << sp)) | (k << sp);
	ps->sv = (ps->sv & ~(1U << sp)) | (v << sp);
	ps->sp = sp + 1;
	return 0;
}

#define CMP_STEPS_MAX (KSNOOP_MAX_PREDS * (GLOB_PAT * GLOB_TXT + GLOB_PAT + GLOB_TXT + 2))

/* COMPAT: each comparison in one step, a string one by glob_match_one_star. */
static __always_inline void cmp_compat(struct cmp_eval *e)
{
	struct pred_state *ps = &e->s->ps;
	struct ksnoop_pred *p;
	__u32 vi;

	p = &e->cfg->preds[ps->k & (KSNOOP_MAX_PREDS - 1)];
	vi = p->value_idx & (KSNOOP_MAX_VALUES - 1);
	if (e->at_entry && !(e->cfg->values[vi].flags & KSNOOP_V_ENTRY)) {
		cmp_done(ps, false, false);
	} else if (p->kind != KSNOOP_PRED_STR) {
		cmp_done(ps, true, int_pred_holds(p, e->s->scalars[vi]));
	} else {
		glob_init(e->s, p, vi);
		cmp_done(ps, true, glob_match_one_star(&e->s->glob) ^ (p->op == KSNOOP_CMP_NE));
	}
}

/* Unknown (at entry) passes; the return side decides. */
static __always_inline bool preds_pass(struct ksnoop_func_cfg *cfg, struct scratch *s,
				       bool at_entry, enum prog_build b)
{
	struct cmp_eval e = { .cfg = cfg, .s = s, .at_entry = at_entry };
	__u32 i;

	if (!cfg->nr_pred_ops)
		return true;
	__builtin_memset(&s->ps, 0, sizeof(s->ps));
	if (b == MODERN) {
		bpf_loop(CMP_STEPS_MAX, cmp_step, &e, 0);
		bpf_loop(KSNOOP_MAX_PRED_OPS, op_step, &e, 0);
	} else {
		for (i = 0; i < KSNOOP_MAX_PREDS && i < cfg->nr_preds; i++)
			cmp_compat(&e);
		for (i = 0; i < KSNOOP_MAX_PRED_OPS; i++) {
			if (op_step(i, &e))
				break;
		}
	}
	return !(s->ps.sk & 1) || (s->ps.sv & 1);
}

/* The fast comparisons, from the argument registers alone. */
static __always_inline bool fast_preds_pass(void *ctx, struct regs *regs,
					    struct ksnoop_func_cfg *cfg, bool func_args)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };
	struct ksnoop_pred *p;
	__u32 k, vi;

	for (k = 0; k < KSNOOP_MAX_FAST_PREDS; k++) {
		if (k >= max_fast_preds || k >= cfg->nr_fast_preds)
			break;
		p = &cfg->preds[cfg->fast_preds[k] & (KSNOOP_MAX_PREDS - 1)];
		vi = p->value_idx & (KSNOOP_MAX_VALUES - 1);
		if (!int_pred_holds(p, get_arg(&c, cfg->values[vi].arg, func_args)))
			return false;
	}
	return true;
}

#endif /* KSNOOP_TRACE_PREDS_H */
