// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop's tracing programs. One instance of this object is loaded per
 * traced function (func_id in .rodata); every instance shares the maps of
 * the first, so all events flow through one ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ksnoop.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 func_id;
const volatile bool filter_tgid;
const volatile __s32 filter_cpu = -1;
const volatile bool chain_mode;

/* Addresses below this are user memory (x86-64 and arm64 48-bit VA). */
#if defined(__TARGET_ARCH_arm64)
#define USER_ADDR_END 0x0001000000000000ULL
#else
#define USER_ADDR_END 0x0000800000000000ULL
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KSNOOP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct ksnoop_func_cfg);
} func_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16); /* resized by user space */
} events SEC(".maps");

struct scratch {
	__u64 scalars[KSNOOP_MAX_VALUES]; /* predicate operands */
	struct ksnoop_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_SCRATCH_LEVELS);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nesting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct frame {
	__u32 func_id;
	__u32 flags;
	__u64 entry_ts;
	__u64 chain_id;
};

enum frame_flags {
	FRAME_SKIP = 1 << 0, /* filtered at entry: no return event */
};

/* Freed by the kernel when the task exits. */
struct task_state {
	__u32 depth;
	__u32 pad;
	struct frame frames[KSNOOP_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tasks SEC(".maps");

struct stash_key {
	__u32 tid;
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stash_key);
	__type(value, struct scratch);
} stash SEC(".maps");

static __always_inline void count_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	if (n)
		*n += 1;
}

static __always_inline bool pass_filters(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (filter_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)filter_cpu)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&tgids, &tgid))
		return false;
	return true;
}

/* Per-CPU scratch, one slot per nesting level (an IRQ may interrupt us). */
static __always_inline struct scratch *scratch_get(void)
{
	__u32 zero = 0, level;
	__u32 *depth = bpf_map_lookup_elem(&nesting, &zero);
	struct scratch *s;

	if (!depth)
		return NULL;
	level = *depth;
	if (level >= KSNOOP_SCRATCH_LEVELS) {
		count_drop(KSNOOP_DROP_NESTING);
		return NULL;
	}
	s = bpf_map_lookup_elem(&scratch_map, &level);
	if (s)
		*depth = level + 1;
	return s;
}

static __always_inline void scratch_put(void)
{
	__u32 zero = 0;
	__u32 *depth = bpf_map_lookup_elem(&nesting, &zero);

	if (depth && *depth > 0)
		*depth -= 1;
}

static __always_inline long read_any(void *dst, __u32 size, __u64 addr)
{
	if (addr < USER_ADDR_END)
		return bpf_probe_read_user(dst, size, (void *)addr);
	return bpf_probe_read_kernel(dst, size, (void *)addr);
}

static __always_inline long read_any_str(void *dst, __u32 size, __u64 addr)
{
	if (addr < USER_ADDR_END)
		return bpf_probe_read_user_str(dst, size, (void *)addr);
	return bpf_probe_read_kernel_str(dst, size, (void *)addr);
}

/*
 * kprobe registers are copied out of pt_regs once, with constant offsets:
 * the verifier refuses ctx loads at offsets the compiler computed.
 */
struct regs {
	__u64 arg[8];
	__u64 sp;
	__u64 rc;
};

#if defined(__TARGET_ARCH_arm64)
#define NR_REG_ARGS 8
/* arm64: arguments past x7 start at sp on entry. */
#define STACK_ARG_OFF(n) (((n) - NR_REG_ARGS) * 8)

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	struct user_pt_regs *u = (void *)ctx;

	r->arg[0] = u->regs[0];
	r->arg[1] = u->regs[1];
	r->arg[2] = u->regs[2];
	r->arg[3] = u->regs[3];
	r->arg[4] = u->regs[4];
	r->arg[5] = u->regs[5];
	r->arg[6] = u->regs[6];
	r->arg[7] = u->regs[7];
	r->sp = u->sp;
	r->rc = u->regs[0];
}
#else
#define NR_REG_ARGS 6
/* x86-64: past the return address, the seventh argument and on. */
#define STACK_ARG_OFF(n) (8 + ((n) - NR_REG_ARGS) * 8)

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	r->arg[0] = ctx->di;
	r->arg[1] = ctx->si;
	r->arg[2] = ctx->dx;
	r->arg[3] = ctx->cx;
	r->arg[4] = ctx->r8;
	r->arg[5] = ctx->r9;
	r->sp = ctx->sp;
	r->rc = ctx->ax;
}
#endif

enum prog_kind { PK_FENTRY, PK_FEXIT, PK_KPROBE, PK_KRETPROBE };

struct capture_ctx {
	void *ctx;
	struct regs *regs; /* kprobe/kretprobe only */
	enum prog_kind kind;
	bool at_entry;
	struct ksnoop_func_cfg *cfg;
	struct scratch *s;
};

/*
 * `trampoline` is a compile-time constant in every caller: the verifier
 * refuses fentry-only helpers in kprobe programs even on dead paths it
 * cannot prove dead.
 */
static __always_inline __u64 get_arg(struct capture_ctx *c, __u32 n, bool trampoline)
{
	__u64 v = 0;

	if (trampoline) {
		bpf_get_func_arg(c->ctx, n, &v);
		return v;
	}
	if (n < NR_REG_ARGS)
		return c->regs->arg[n & 7];
	/* Stack arguments are only valid at entry: the caller's frame. */
	bpf_probe_read_kernel(&v, sizeof(v), (void *)(c->regs->sp + STACK_ARG_OFF(n)));
	return v;
}

static __always_inline __u64 get_ret(struct capture_ctx *c, bool trampoline)
{
	__u64 v = 0;

	if (trampoline)
		bpf_get_func_ret(c->ctx, &v);
	else
		v = c->regs->rc;
	return v;
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
		if (i >= v->nr_steps)
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

static __always_inline __u32 read_final(const struct ksnoop_value *v, __u8 *dst, __u64 addr,
					__u8 *flags)
{
	__u32 size = v->size;
	long n;

	if (size > KSNOOP_VALUE_MAX)
		size = KSNOOP_VALUE_MAX;
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

static __always_inline int capture_one(__u32 i, struct capture_ctx *c, bool trampoline)
{
	struct ksnoop_event *ev = &c->s->ev;
	struct ksnoop_value *v;
	struct ksnoop_vrec *vr;
	__u32 off = ev->data_len, len = 0;
	__u8 flags = 0;
	__u64 p;

	if (i >= c->cfg->nr_values)
		return 1;
	/* Re-bound i after the compiler has had its way with it. */
	barrier_var(i);
	i &= KSNOOP_MAX_VALUES - 1;
	v = &c->cfg->values[i];
	if (!!(v->flags & KSNOOP_V_ENTRY) != c->at_entry)
		return 0;
	if (off >= KSNOOP_DATA_MAX)
		return 1;
	barrier_var(off);
	off &= KSNOOP_DATA_MAX - 1;
	vr = (void *)&ev->data[off];
	p = v->base == KSNOOP_BASE_RET ? get_ret(c, trampoline) : get_arg(c, v->arg, trampoline);
	p = follow_steps(v, p, &flags);
	if ((v->flags & KSNOOP_V_READ) && !flags) {
		p += v->final_off;
		len = read_final(v, (__u8 *)(vr + 1), p, &flags);
		c->s->scalars[i] = load_scalar((__u8 *)(vr + 1), len);
	} else {
		c->s->scalars[i] = p;
	}
	vr->raw = p;
	vr->len = len;
	vr->idx = i;
	vr->flags = flags;
	ev->data_len = off + sizeof(*vr) + ((len + 7) & ~7U);
	ev->nr_vrecs++;
	return 0;
}

static int capture_trampoline(__u32 i, void *c)
{
	return capture_one(i, c, true);
}

static int capture_kprobe(__u32 i, void *c)
{
	return capture_one(i, c, false);
}

/* bpf_loop keeps the verifier's work per value, not per combination. */
static __always_inline void capture(struct capture_ctx *c)
{
	if (c->kind == PK_FENTRY || c->kind == PK_FEXIT)
		bpf_loop(KSNOOP_MAX_VALUES, capture_trampoline, c, 0);
	else
		bpf_loop(KSNOOP_MAX_VALUES, capture_kprobe, c, 0);
}

static __always_inline bool pred_holds(const struct ksnoop_pred *p, __u64 x)
{
	__u32 shift = 64 - p->width * 8;
	__u64 rhs = p->rhs;

	if (p->is_signed) {
		__s64 a = (__s64)(x << shift) >> shift, b = (__s64)rhs;

		switch (p->op) {
		case KSNOOP_CMP_EQ: return a == b;
		case KSNOOP_CMP_NE: return a != b;
		case KSNOOP_CMP_LT: return a < b;
		case KSNOOP_CMP_LE: return a <= b;
		case KSNOOP_CMP_GT: return a > b;
		case KSNOOP_CMP_GE: return a >= b;
		}
		return false;
	}
	x = (x << shift) >> shift;
	switch (p->op) {
	case KSNOOP_CMP_EQ: return x == rhs;
	case KSNOOP_CMP_NE: return x != rhs;
	case KSNOOP_CMP_LT: return x < rhs;
	case KSNOOP_CMP_LE: return x <= rhs;
	case KSNOOP_CMP_GT: return x > rhs;
	case KSNOOP_CMP_GE: return x >= rhs;
	}
	return false;
}

/* Predicates whose operand was captured at this point (entry or return). */
static __always_inline bool preds_hold(struct ksnoop_func_cfg *cfg, struct scratch *s,
				       bool at_entry, bool all)
{
	__u32 i;

	for (i = 0; i < KSNOOP_MAX_PREDS; i++) {
		struct ksnoop_pred *p = &cfg->preds[i];
		__u32 vi = p->value_idx & (KSNOOP_MAX_VALUES - 1);
		bool entry_val = cfg->values[vi].flags & KSNOOP_V_ENTRY;

		if (i >= cfg->nr_preds)
			break;
		if (!all && entry_val != at_entry)
			continue;
		if (!pred_holds(p, s->scalars[vi]))
			return false;
	}
	return true;
}

static __always_inline void init_event(struct ksnoop_event *ev, __u16 kind, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	ev->kind = kind;
	ev->nr_vrecs = 0;
	ev->func_id = func_id;
	ev->ts = now;
	ev->duration_ns = 0;
	ev->cpu = bpf_get_smp_processor_id();
	ev->tgid = id >> 32;
	ev->pid = (__u32)id;
	ev->data_len = 0;
	ev->chain_id = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
}

static __always_inline void submit(struct ksnoop_event *ev)
{
	__u64 len = KSNOOP_EVENT_HDR_SIZE + ev->data_len;

	if (len > sizeof(*ev))
		len = sizeof(*ev);
	if (bpf_ringbuf_output(&events, ev, len, 0))
		count_drop(KSNOOP_DROP_RINGBUF);
}

/* -s: this function counts only while its predecessor is running. */
static __always_inline bool chain_allows(struct task_state *ts, __u32 pos, __u64 *chain_id)
{
	__u32 i, d = ts->depth;

	for (i = 0; i < KSNOOP_MAX_DEPTH; i++) {
		struct frame *f;
		struct ksnoop_func_cfg *cfg;
		__u32 id;

		if (i >= d)
			break;
		f = &ts->frames[(d - 1 - i) & (KSNOOP_MAX_DEPTH - 1)];
		if (f->flags & FRAME_SKIP)
			continue;
		id = f->func_id;
		cfg = bpf_map_lookup_elem(&func_cfg, &id);
		if (cfg && cfg->chain_pos + 1 == pos) {
			*chain_id = f->chain_id;
			return true;
		}
	}
	return false;
}

static __always_inline struct frame *push_frame(struct task_state *ts, __u64 now)
{
	struct frame *f;

	if (ts->depth >= KSNOOP_MAX_DEPTH) {
		count_drop(KSNOOP_DROP_DEPTH);
		return NULL;
	}
	f = &ts->frames[ts->depth & (KSNOOP_MAX_DEPTH - 1)];
	f->func_id = func_id;
	f->flags = 0;
	f->entry_ts = now;
	f->chain_id = 0;
	ts->depth++;
	return f;
}

static __always_inline void stash_entry(struct scratch *s, __u32 depth, struct frame *f)
{
	struct stash_key key = { .tid = s->ev.pid, .depth = depth };

	if (bpf_map_update_elem(&stash, &key, s, BPF_ANY)) {
		count_drop(KSNOOP_DROP_STASH);
		f->flags |= FRAME_SKIP;
	}
}

static __always_inline int on_entry(void *ctx, struct regs *regs, enum prog_kind kind)
{
	__u32 id = func_id;
	struct ksnoop_func_cfg *cfg;
	struct task_state *ts;
	struct capture_ctx c;
	struct frame *f;
	__u64 now;

	if (!pass_filters())
		return 0;
	cfg = bpf_map_lookup_elem(&func_cfg, &id);
	ts = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!cfg || !ts)
		return 0;
	now = bpf_ktime_get_ns();
	f = push_frame(ts, now);
	if (!f)
		return 0;
	if (chain_mode) {
		if (cfg->chain_pos == 0)
			f->chain_id = now;
		else if (!chain_allows(ts, cfg->chain_pos, &f->chain_id))
			f->flags |= FRAME_SKIP;
		if (f->flags & FRAME_SKIP)
			return 0;
	}
	if (!(cfg->emit & (KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_COMBINED)))
		return 0;
	c.s = scratch_get();
	if (!c.s) {
		f->flags |= FRAME_SKIP;
		return 0;
	}
	c.ctx = ctx;
	c.regs = regs;
	c.kind = kind;
	c.at_entry = true;
	c.cfg = cfg;
	init_event(&c.s->ev, KSNOOP_EV_ENTRY, now);
	c.s->ev.chain_id = f->chain_id;
	capture(&c);
	if (!preds_hold(cfg, c.s, true, false))
		f->flags |= FRAME_SKIP;
	else if (cfg->emit & KSNOOP_EMIT_COMBINED)
		stash_entry(c.s, ts->depth - 1, f);
	else
		submit(&c.s->ev);
	scratch_put();
	return 0;
}

static __always_inline bool pop_frame(struct task_state *ts, struct frame *out)
{
	struct frame *f;

	if (ts->depth == 0 || ts->depth > KSNOOP_MAX_DEPTH)
		return false;
	f = &ts->frames[(ts->depth - 1) & (KSNOOP_MAX_DEPTH - 1)];
	/* A missed entry (e.g. kretprobe maxactive) must not unbalance us. */
	if (f->func_id != func_id)
		return false;
	*out = *f;
	ts->depth--;
	return true;
}

static __always_inline bool unstash(struct scratch *s, __u32 depth)
{
	struct stash_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .depth = depth };
	struct scratch *saved = bpf_map_lookup_elem(&stash, &key);

	if (!saved)
		return false;
	bpf_probe_read_kernel(s, sizeof(*s), saved);
	bpf_map_delete_elem(&stash, &key);
	return true;
}

static __always_inline int on_return(void *ctx, struct regs *regs, enum prog_kind kind)
{
	__u32 id = func_id;
	struct ksnoop_func_cfg *cfg;
	struct task_state *ts;
	struct capture_ctx c;
	struct frame f;
	__u64 now;

	if (!pass_filters())
		return 0;
	cfg = bpf_map_lookup_elem(&func_cfg, &id);
	ts = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	if (!cfg || !ts || !pop_frame(ts, &f))
		return 0;
	if (f.flags & FRAME_SKIP)
		return 0;
	if (!(cfg->emit & (KSNOOP_EMIT_RETURN | KSNOOP_EMIT_COMBINED)) &&
	    !(chain_mode && cfg->chain_pos == 0))
		return 0;
	c.s = scratch_get();
	if (!c.s)
		return 0;
	now = bpf_ktime_get_ns();
	if (!(cfg->emit & (KSNOOP_EMIT_RETURN | KSNOOP_EMIT_COMBINED))) {
		/* User space holds the chain's events until it ends. */
		init_event(&c.s->ev, KSNOOP_EV_CHAIN_END, now);
		c.s->ev.chain_id = f.chain_id;
		submit(&c.s->ev);
		goto out;
	}
	if (cfg->emit & KSNOOP_EMIT_COMBINED) {
		if (!unstash(c.s, ts->depth))
			goto out;
		c.s->ev.kind = KSNOOP_EV_COMBINED;
		c.s->ev.ts = now;
		c.s->ev.cpu = bpf_get_smp_processor_id();
	} else {
		init_event(&c.s->ev, KSNOOP_EV_RETURN, now);
	}
	c.s->ev.duration_ns = now - f.entry_ts;
	c.s->ev.chain_id = f.chain_id;
	c.ctx = ctx;
	c.regs = regs;
	c.kind = kind;
	c.at_entry = false;
	c.cfg = cfg;
	capture(&c);
	if (preds_hold(cfg, c.s, false, true))
		submit(&c.s->ev);
out:
	scratch_put();
	return 0;
}

SEC("fentry")
int BPF_PROG(ksnoop_fentry)
{
	return on_entry(ctx, NULL, PK_FENTRY);
}

SEC("fexit")
int BPF_PROG(ksnoop_fexit)
{
	return on_return(ctx, NULL, PK_FEXIT);
}

SEC("kprobe")
int ksnoop_kprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE);
}

SEC("kretprobe")
int ksnoop_kretprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE);
}

/* A task that dies inside a traced call leaves its stash behind. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ksnoop_task_exit, struct task_struct *task)
{
	struct stash_key key = { .tid = task->pid };
	__u32 d;

	for (d = 0; d < KSNOOP_MAX_DEPTH; d++) {
		key.depth = d;
		bpf_map_delete_elem(&stash, &key);
	}
	return 0;
}
