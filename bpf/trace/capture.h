/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture: arguments and return values, followed through pointers and
 * copied into the event's value records.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_CAPTURE_H
#define KSNOOP_TRACE_CAPTURE_H

/*
 * The programs come in two builds of the same code: MODERN ones use
 * bpf_loop and bpf_get_func_arg/ret (5.17), COMPAT ones neither, for
 * older kernels, whose verifier refuses a program that merely mentions a
 * bpf_loop callback. COMPAT programs always serve one function, whose plan
 * is a constant (cfg_const), so their plain loops cost the verifier only
 * the iterations that plan takes.
 */
enum prog_build { COMPAT, MODERN };

struct capture_ctx {
	void *ctx;
	struct regs *regs; /* kprobe/kretprobe only */
	enum prog_kind kind;
	bool at_entry;
	__u32 side; /* enum ksnoop_side, as at_entry says */
	struct ksnoop_func_cfg *cfg;
	struct scratch *s;
};

/*
 * func_args (through bpf_get_func_arg/ret, else from c->regs) is a
 * compile-time constant in every caller: the verifier refuses
 * fentry-only helpers in kprobe programs even on dead paths it cannot
 * prove dead.
 */
static __always_inline __u64 get_arg(struct capture_ctx *c, __u32 n, bool func_args)
{
	__u64 v = 0;

	if (func_args) {
		bpf_get_func_arg(c->ctx, n, &v);
		return v;
	}
	if (n < KSNOOP_REG_ARGS || (c->kind == PK_TP && n < TP_REG_ARGS))
		return c->regs->arg[n & 7];
	/* Stack arguments are only valid at entry: the caller's frame. */
	bpf_probe_read_kernel(&v, sizeof(v), (void *)(c->regs->sp + STACK_ARG_OFF(n)));
	return v;
}

static __always_inline __u64 get_ret(struct capture_ctx *c, bool func_args)
{
	__u64 v = 0;

	if (func_args)
		bpf_get_func_ret(c->ctx, &v);
	else
		v = c->regs->rc;
	return v;
}

/*
 * kprobes name their function with the attach cookie; so do fentry/fexit
 * where the kernel has tracing cookies (5.19), which lets one set of
 * instructions serve every function (see backend.c, attach_fentry_fast).
 */
static __always_inline __u32 get_func_id(void *ctx, bool trampoline)
{
	if (cfg_const || (trampoline && !fentry_cookie) || (!trampoline && !kprobe_cookie))
		return func_id;
	return (__u32)bpf_get_attach_cookie(ctx);
}

/* The plan of function id: the_cfg, or its func_cfg entry. */
static __always_inline struct ksnoop_func_cfg *get_cfg(__u32 id)
{
	struct ksnoop_func_cfg *cfg = (void *)&the_cfg;

	if (!cfg_const)
		return bpf_map_lookup_elem(&func_cfg, &id);
	/* Loads the compiler cannot fold, which the verifier reads as constants. */
	barrier_var(cfg);
	return cfg;
}

static __always_inline __u64 load_scalar(const __u8 *p, __u32 len)
{
	if (len >= 8)
		return *(__u64 *)p;
	if (len >= 4)
		return *(__u32 *)p;
	if (len >= 2)
		return *(__u16 *)p;
	if (len >= 1)
		return *p;
	return 0;
}

static __always_inline __u64 follow_steps(const struct ksnoop_value *v, __u64 p, __u8 *flags)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_STEPS; i++) {
		if (i >= max_steps || i >= v->nr_steps)
			break;
		if (!p) {
			*flags |= KSNOOP_VR_NULL;
			return 0;
		}
		if (read_any(&p, sizeof(p), p + v->offs[i])) {
			*flags |= KSNOOP_VR_FAULT;
			return 0;
		}
	}
	return p;
}

/* At most max bytes (a constant), flagged truncated past KSNOOP_VALUE_MAX. */
static __always_inline __u32 read_final(const struct ksnoop_value *v, __u8 *dst, __u64 addr,
					__u8 *flags, __u32 max)
{
	__u32 size = v->size;
	long n;

	if (size > max)
		size = max;
	if (!addr) {
		*flags |= KSNOOP_VR_NULL;
		return 0;
	}
	if (v->flags & KSNOOP_V_STRING) {
		n = read_any_str(dst, size, addr);
		if (n < 0) {
			*flags |= KSNOOP_VR_FAULT;
			return 0;
		}
		return n;
	}
	if (read_any(dst, size, addr)) {
		*flags |= KSNOOP_VR_FAULT;
		return 0;
	}
	if (v->size > KSNOOP_VALUE_MAX)
		*flags |= KSNOOP_VR_TRUNCATED;
	return size;
}

/*
 * One value into vr and the max bytes after it (a constant). with_comm is
 * a constant too: lite events have no comm values, and their slots may be
 * smaller than a comm.
 */
static __always_inline __u32 capture_value(struct capture_ctx *c, const struct ksnoop_value *v,
					   struct ksnoop_vrec *vr, __u32 max, bool with_comm,
					   bool func_args)
{
	__u32 len = 0;
	__u8 flags = 0;
	__u64 p = 0;

	if (with_comm && v->base == KSNOOP_BASE_COMM) {
		len = KSNOOP_COMM_LEN;
		bpf_get_current_comm(vr + 1, KSNOOP_COMM_LEN);
	} else {
		if (v->base == KSNOOP_BASE_CURRENT)
			p = bpf_get_current_task();
		else
			p = v->base == KSNOOP_BASE_RET ? get_ret(c, func_args)
						       : get_arg(c, v->arg, func_args);
		p = follow_steps(v, p, &flags);
	}
	if ((v->flags & KSNOOP_V_READ) && !flags) {
		p += v->final_off;
		len = read_final(v, (__u8 *)(vr + 1), p, &flags, max);
	}
	vr->raw = p;
	vr->len = len;
	vr->flags = flags;
	vr->pad = 0;
	return len;
}

static __always_inline int capture_one(__u32 n, struct capture_ctx *c, bool func_args)
{
	struct ksnoop_event *ev = &c->s->ev;
	struct ksnoop_vrec *vr;
	__u32 off = ev->data_len, len, i, side;

	/* Re-bound after the compiler has had its way with them. */
	barrier_var(n);
	side = c->side;
	barrier_var(side);
	i = c->cfg->side[side & 1][n & (KSNOOP_MAX_VALUES - 1)];
	barrier_var(i);
	i &= KSNOOP_MAX_VALUES - 1;
	if (off >= KSNOOP_DATA_MAX)
		return 1;
	barrier_var(off);
	off &= KSNOOP_DATA_MAX - 1;
	vr = (void *)&ev->data[off];
	len = capture_value(c, &c->cfg->values[i], vr, KSNOOP_VALUE_MAX, true, func_args);
	c->s->scalars[i] = len ? load_scalar((__u8 *)(vr + 1), len) : vr->raw;
	c->s->str_off[i] = off + sizeof(*vr);
	c->s->str_len[i] = len;
	vr->idx = i;
	ev->data_len = off + sizeof(*vr) + ((len + 7) & ~7U);
	ev->nr_vrecs++;
	return 0;
}

static int capture_func_args(__u32 i, void *c)
{
	return capture_one(i, c, true);
}

static int capture_regs(__u32 i, void *c)
{
	return capture_one(i, c, false);
}

/*
 * bpf_loop keeps the verifier's work per value, not per combination.
 * func_args is a constant at each call site (see get_arg): through
 * c->kind the compiler may keep both callbacks in a kprobe program.
 */
static __always_inline void capture(struct capture_ctx *c, bool func_args, enum prog_build b)
{
	__u32 n = c->cfg->nr_side[c->side & 1], i;

	if (!n)
		return;
	if (n > KSNOOP_MAX_VALUES)
		n = KSNOOP_MAX_VALUES;
	if (b == COMPAT) {
		for (i = 0; i < KSNOOP_MAX_VALUES; i++) {
			if (i >= n || capture_one(i, c, false))
				break;
		}
	} else if (func_args) {
		bpf_loop(n, capture_func_args, c, 0);
	} else {
		bpf_loop(n, capture_regs, c, 0);
	}
}

#endif /* KSNOOP_TRACE_CAPTURE_H */
