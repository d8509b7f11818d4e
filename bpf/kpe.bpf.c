// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop probe: tracefs kprobe_events definitions run through BPF.
 *
 * Each definition runs in a copy of its kind's program of its own, told
 * the definition before loading (kprobe_def, eprobe_def, tprobe_def):
 * attach cookies came only with 5.15 (6.10 for raw tracepoints). A return
 * probe that reads entry arguments has an entry half too (KPE_PROG_ENTRY)
 * that keeps them. User space compiles each definition into a flat fetch
 * program (struct kpe_def_cfg in abi/kpe.h) that this file interprets: a
 * bounded loop calling a global function per instruction. A global
 * function is verified once, on its own, so the verifier checks each kind
 * of step once instead of every argument's combination, and the same for
 * the filter; bpf_loop (5.17) would do that too, but 5.10 lacks it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "abi/kpe.h"
#include "lib/arch.h"
#include "lib/regs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool filter_tgid;   /* -p: only the tgids in kpe_tgids */
const volatile __u32 kstack_bytes; /* --kstack: 8 a frame, 0 without */
/* kpe_kprobeN's definition, KPE_PROG_ENTRY for a return probe's entry half */
const volatile __u32 kprobe_def[KPE_MAX_KPROBES];
const volatile __u32 eprobe_def[KPE_MAX_EPROBES]; /* kpe_eprobeN's definition */
const volatile __u32 tprobe_def[KPE_MAX_TPROBES]; /* kpe_tprobeN's definition */

_Static_assert(sizeof(struct pt_regs) <= KPE_NR_REGS * 8, "pt_regs fits the register copy");

#define GLOB_PAT KPE_PRED_STR_MAX
#define GLOB_TXT 256 /* string field bytes a filter looks at */

#include "lib/glob.h"
#include "lib/intcmp.h"
#include "lib/claim.h"

_Static_assert(KPE_CMP_EQ == INTCMP_EQ && KPE_CMP_NE == INTCMP_NE && KPE_CMP_LT == INTCMP_LT &&
		       KPE_CMP_LE == INTCMP_LE && KPE_CMP_GT == INTCMP_GT &&
		       KPE_CMP_GE == INTCMP_GE && KPE_CMP_BAND == INTCMP_BAND,
	       "kprobe_events' comparisons are intcmp's");

/* Filter evaluation state, carried across steps. */
struct filter_state {
	__u32 k;       /* comparison being evaluated */
	__u32 started; /* glob state initialised for k */
	__u32 val;     /* bit k: result of comparison k */
	__u32 sp;      /* depth of the boolean stack */
	__u64 stack;   /* boolean stack, bit sp-1 on top */
	__u32 bad;     /* malformed program: the event is dropped */
	__u32 pad;
};

struct scratch {
	__u64 regs[KPE_NR_REGS];
	__u64 acc;	/* the fetch program's accumulator */
	__u64 tmp;	/* a sized memory read lands here */
	__u64 rec;	/* e: the attached event's record */
	__u32 faulted;	/* a load of the current argument failed */
	__u32 no_entry; /* a return probe's call had no entry kept: its eargs fault */
	__u64 eargs[KPE_MAX_EARGS];
	__u64 ra; /* the return address its entry kept */
	struct filter_state fs;
	struct glob glob;
	struct kpe_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KPE_MAX_DEFS);
	__type(key, __u32);
	__type(value, struct kpe_def_cfg);
} kpe_defs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 64); /* resized by user space */
} kpe_events SEC(".maps");

/*
 * A slot for each program running on the CPU: kprobe and tracepoint
 * programs exclude each other (bpf_prog_active), but raw tracepoint
 * programs do not take it, so a kprobe in an interrupt, or another raw
 * tracepoint, can run in the middle of a t: definition's event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KPE_SCRATCH_NEST);
	__type(key, __u32);
	__type(value, struct scratch);
} kpe_scratch SEC(".maps");

/* Per-CPU: the programs claiming each of kpe_scratch's slots (lib/claim.h). */
struct kpe_claims {
	__u32 n[KPE_SCRATCH_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpe_claims);
} kpe_nest SEC(".maps");

/* Events, or their stacks, lost: by enum kpe_drop. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KPE_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} kpe_drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} kpe_tgids SEC(".maps");

/*
 * Entry values for return probes, by task and definition: a stack, as
 * calls nest. A call whose return the kernel skipped (kretprobe maxactive)
 * leaves its frame under the newer ones, which stay on top; LRU evicts
 * what tasks that never return leave. User space sizes it, 1 when unused.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct kpe_frame_key);
	__type(value, struct kpe_frames);
} kpe_frames SEC(".maps");

/* Never written: a task's first frames start as this. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpe_frames);
} kpe_frames_zero SEC(".maps");

/*
 * A step's state, found again from scalars: before 5.12 a global
 * function takes no pointers but its context. It is all in map memory,
 * which the verifier knows nothing of in a global function: no constant
 * of the caller's can be wired into it as dead code.
 */
static __always_inline bool step_state(__u32 slot, __u32 id, struct kpe_def_cfg **cfg,
				       struct scratch **s)
{
	*cfg = bpf_map_lookup_elem(&kpe_defs, &id);
	*s = bpf_map_lookup_elem(&kpe_scratch, &slot);
	return *cfg && *s;
}

static __always_inline long read_mem(void *dst, __u32 size, __u64 addr, bool user)
{
	if (user || KSNOOP_IS_USER_ADDR(addr))
		return bpf_probe_read_user(dst, size, (void *)addr);
	return bpf_probe_read_kernel(dst, size, (void *)addr);
}

static __always_inline long read_str(void *dst, __u32 size, __u64 addr, bool user)
{
	if (user || KSNOOP_IS_USER_ADDR(addr))
		return bpf_probe_read_user_str(dst, size, (void *)addr);
	return bpf_probe_read_kernel_str(dst, size, (void *)addr);
}

static __always_inline void set_fault(struct kpe_event *ev, __u32 a)
{
	ev->faults[(a >> 6) & 1] |= 1ULL << (a & 63);
}

/* Truncate to `size` bytes, then apply the bitfield shifts. */
static __always_inline __u64 finish_value(const struct kpe_insn *in, __u64 v)
{
	if (in->size < 8)
		v &= (1ULL << ((in->size & 7) * 8)) - 1;
	if (in->shr)
		v = (v << (in->shl & 63)) >> (in->shr & 63);
	return v;
}

/* An event probe's field, as the kernel's get_event_field reads it. */
static __always_inline void load_field(struct scratch *s, const struct kpe_insn *in)
{
	__u64 at = s->rec + in->imm;
	__u32 size = in->size, shift;

	if (in->flags & KPE_F_ADDR) {
		s->acc = at;
		return;
	}
	s->tmp = 0;
	if (in->flags & (KPE_F_DATA_LOC | KPE_F_REL_LOC))
		size = 4;
	if (size > 8)
		size = 8;
	if (bpf_probe_read_kernel(&s->tmp, size, (void *)at)) {
		s->faulted = 1;
		return;
	}
	if (in->flags & KPE_F_DATA_LOC) {
		s->acc = s->rec + (s->tmp & 0xffff);
	} else if (in->flags & KPE_F_REL_LOC) {
		s->acc = at + 4 + (s->tmp & 0xffff);
	} else if ((in->flags & KPE_F_SIGNED) && size < 8) {
		shift = 64 - 8 * size;
		s->acc = (__u64)((__s64)(s->tmp << (shift & 63)) >> (shift & 63));
	} else {
		s->acc = s->tmp;
	}
}

static __always_inline void load_step(struct scratch *s, const struct kpe_insn *in)
{
	if (s->faulted)
		return; /* the rest of this argument is skipped */
	switch (in->op) {
	case KPE_OP_REG:
		s->acc = s->regs[in->imm & (KPE_NR_REGS - 1)];
		break;
	case KPE_OP_IMM:
		s->acc = in->imm;
		break;
	case KPE_OP_DEREF:
	case KPE_OP_UDEREF:
		if (read_mem(&s->acc, 8, s->acc + in->imm, in->op == KPE_OP_UDEREF))
			s->faulted = 1;
		break;
	case KPE_OP_EARG:
		if (s->no_entry)
			s->faulted = 1;
		else
			s->acc = s->eargs[in->imm & (KPE_MAX_EARGS - 1)];
		break;
	case KPE_OP_FIELD:
		load_field(s, in);
		break;
	case KPE_OP_TASK:
		s->acc = (__u64)bpf_get_current_task() + in->imm;
		break;
	case KPE_OP_ADD:
		s->acc += in->imm;
		break;
	case KPE_OP_THIS_CPU:
		if (bpf_probe_read_kernel(&s->tmp, 8,
					  (void *)(in->imm + 8 * bpf_get_smp_processor_id())))
			s->faulted = 1;
		else
			s->acc += s->tmp;
		break;
	}
}

static __always_inline void store_mem(struct scratch *s, const struct kpe_insn *in, __u32 a)
{
	__u32 size = in->size;

	s->tmp = 0;
	if (size > 8)
		size = 8;
	if (!s->faulted && read_mem(&s->tmp, size, s->acc + in->imm, in->flags & KPE_F_USER))
		s->faulted = 1;
	s->ev.vals[a] = finish_value(in, s->tmp);
}

/* Strings and arrays go to ev.data; vals[a] says where. */
static __always_inline void store_data(const struct kpe_def_cfg *cfg, struct scratch *s,
				       const struct kpe_insn *in, __u32 a)
{
	struct kpe_event *ev = &s->ev;
	__u32 off = ev->data_len, size;
	bool user = in->flags & KPE_F_USER;
	long n = 0;
	void *dst;

	/* No room left: shown as (fault), as the kernel shows a lost string. */
	if (off >= KPE_DATA_MAX) {
		ev->flags |= KPE_EV_TRUNCATED;
		ev->vals[a] = 0;
		s->faulted = 1;
		return;
	}
	barrier_var(off);
	off &= KPE_DATA_MAX - 1;
	dst = &ev->data[off];
	if (s->faulted) {
		n = -1;
	} else if (in->op == KPE_OP_ST_STR) {
		n = read_str(dst, KPE_STR_MAX, s->acc + in->imm, user);
	} else if (in->op == KPE_OP_ST_COMM) {
		bpf_get_current_comm(dst, KSNOOP_COMM_LEN);
		n = KSNOOP_COMM_LEN;
	} else if (in->op == KPE_OP_ST_IMMSTR) {
		n = bpf_probe_read_kernel_str(dst, KPE_STR_MAX,
					      &cfg->strtab[in->imm & (KPE_STRTAB_MAX - 1)]);
	} else {
		size = (__u32)in->size * in->count;
		if (size > KPE_STR_MAX)
			size = KPE_STR_MAX;
		n = read_mem(dst, size, s->acc + in->imm, user) ? -1 : size;
	}
	if (n < 0) {
		s->faulted = 1;
		n = 0;
	}
	ev->vals[a] = (__u64)n << 32 | off;
	ev->data_len = off + (((__u32)n + 7) & ~7U);
}

/* Instruction i of definition id's fetch program; 1 past its end. */
__noinline int kpe_fetch_step(__u32 slot, __u32 id, __u32 i)
{
	struct kpe_def_cfg *cfg;
	struct scratch *s;
	struct kpe_insn *in;
	__u32 a;

	if (!step_state(slot, id, &cfg, &s) || i >= cfg->nr_insns || i >= KPE_MAX_INSNS)
		return 1;
	barrier_var(i);
	i &= KPE_MAX_INSNS - 1;
	in = &cfg->insns[i];
	if (in->op < KPE_OP_ST_VAL) {
		load_step(s, in);
		return 0;
	}
	a = in->arg;
	barrier_var(a);
	a &= KPE_MAX_ARGS - 1;
	if (in->op == KPE_OP_ST_VAL)
		s->ev.vals[a] = s->faulted ? 0 : finish_value(in, s->acc);
	else if (in->op == KPE_OP_ST_MEM)
		store_mem(s, in, a);
	else
		store_data(cfg, s, in, a);
	if (s->faulted)
		set_fault(&s->ev, a);
	s->faulted = 0;
	return 0;
}

/* ---- filter ---------------------------------------------------------- */

static __always_inline bool int_holds(const struct kpe_pred *p, __u64 x)
{
	return intcmp(p->op, x, p->rhs, (p->width & 15) * 8, p->is_signed);
}

static __always_inline void glob_init(struct scratch *s, const struct kpe_pred *p)
{
	struct kpe_event *ev = &s->ev;
	struct glob *g = &s->glob;
	__u64 v;
	__u32 off, len;

	__builtin_memset(g->txt, 0, GLOB_TXT);
	if (p->field == KPE_FIELD_COMM) {
		bpf_probe_read_kernel(g->txt, sizeof(ev->comm), ev->comm);
	} else {
		v = ev->vals[p->field & (KPE_MAX_ARGS - 1)];
		off = KPE_VAL_OFF(v);
		len = KPE_VAL_LEN(v);
		if (len > GLOB_TXT)
			len = GLOB_TXT;
		if (off < KPE_DATA_MAX)
			bpf_probe_read_kernel(g->txt, len & (GLOB_TXT * 2 - 1), &ev->data[off]);
	}
	bpf_probe_read_kernel(g->pat, GLOB_PAT, p->str);
	glob_start(g, p->op != KPE_CMP_GLOB);
}

static __always_inline void cmp_done(struct filter_state *fs, bool val)
{
	fs->val |= (__u32)val << (fs->k & 31);
	fs->k++;
	fs->started = 0;
}

static __always_inline __u64 int_field(struct kpe_event *ev, __u8 field)
{
	if (field == KPE_FIELD_PID)
		return ev->pid;
	if (field == KPE_FIELD_CPU)
		return ev->cpu;
	return ev->vals[field & (KPE_MAX_ARGS - 1)];
}

/* Comparisons as a state machine: a string glob takes one step per call. */
__noinline int kpe_cmp_step(__u32 slot, __u32 id)
{
	struct kpe_def_cfg *cfg;
	struct filter_state *fs;
	struct scratch *s;
	struct kpe_pred *p;
	__u32 k;

	if (!step_state(slot, id, &cfg, &s))
		return 1;
	fs = &s->fs;
	k = fs->k;
	if (k >= cfg->nr_preds || k >= KPE_MAX_PREDS)
		return 1;
	barrier_var(k);
	p = &cfg->preds[k & (KPE_MAX_PREDS - 1)];
	if (!p->is_str) {
		cmp_done(fs, int_holds(p, int_field(&s->ev, p->field)));
	} else if (!fs->started) {
		glob_init(s, p);
		fs->started = 1;
	} else if (glob_step(&s->glob)) {
		cmp_done(fs, s->glob.result ^ (p->op == KPE_CMP_NE));
	}
	return 0;
}

/*
 * The verifier walks every iteration of a loop, in each program: loops of
 * STEP_CHUNK calls, nested, keep that short. 1 when the steps are done.
 */
#define STEP_CHUNK 64

__noinline int kpe_cmp_steps(__u32 slot, __u32 id)
{
	__u32 i;

	for (i = 0; i < STEP_CHUNK; i++) {
		if (kpe_cmp_step(slot, id))
			return 1;
	}
	return 0;
}

__noinline int kpe_cmp_chunks(__u32 slot, __u32 id)
{
	__u32 i;

	for (i = 0; i < STEP_CHUNK; i++) {
		if (kpe_cmp_steps(slot, id))
			return 1;
	}
	return 0;
}

/* Filter op i, on the comparisons' results; 1 past the last. */
__noinline int kpe_op_step(__u32 slot, __u32 id, __u32 i)
{
	struct kpe_def_cfg *cfg;
	struct filter_state *fs;
	struct scratch *s;
	__u64 a, b;
	__u8 op;

	if (!step_state(slot, id, &cfg, &s))
		return 1;
	fs = &s->fs;
	if (i >= cfg->nr_filter_ops || i >= KPE_MAX_FILTER_OPS)
		return 1;
	barrier_var(i);
	op = cfg->filter_ops[i & (KPE_MAX_FILTER_OPS - 1)];
	if (op == KPE_FOP_NOT) {
		if (fs->sp < 1)
			goto bad;
		fs->stack ^= 1ULL << ((fs->sp - 1) & 63);
		return 0;
	}
	if (op == KPE_FOP_AND || op == KPE_FOP_OR) {
		if (fs->sp < 2)
			goto bad;
		fs->sp--;
		a = fs->stack >> (fs->sp & 63) & 1;
		b = fs->stack >> ((fs->sp - 1) & 63) & 1;
		a = op == KPE_FOP_AND ? a & b : a | b;
	} else {
		if (fs->sp >= 64)
			goto bad;
		a = fs->val >> (op & 31) & 1;
		fs->sp++;
	}
	fs->stack &= ~(1ULL << ((fs->sp - 1) & 63));
	fs->stack |= a << ((fs->sp - 1) & 63);
	return 0;
bad:
	fs->bad = 1;
	return 1;
}

#define CMP_STEPS_MAX (KPE_MAX_PREDS * (GLOB_PAT * GLOB_TXT + GLOB_PAT + GLOB_TXT + 2))

static __always_inline bool filter_pass(__u32 slot, __u32 id, const struct kpe_def_cfg *cfg,
					struct scratch *s)
{
	struct filter_state *fs = &s->fs;
	__u32 i;

	if (!cfg->nr_filter_ops)
		return true;
	__builtin_memset(fs, 0, sizeof(*fs));
	for (i = 0; i < (CMP_STEPS_MAX + STEP_CHUNK * STEP_CHUNK - 1) / (STEP_CHUNK * STEP_CHUNK);
	     i++) {
		if (kpe_cmp_chunks(slot, id))
			break;
	}
	for (i = 0; i < KPE_MAX_FILTER_OPS; i++) {
		if (kpe_op_step(slot, id, i))
			break;
	}
	return !fs->bad && fs->sp == 1 && (fs->stack & 1);
}

/* ---- entry values at return ------------------------------------------ */

/* A return probe's entry half: push this call's entry arguments and return address. */
static __always_inline void keep_entry(struct pt_regs *ctx, struct scratch *s,
				       const struct kpe_def_cfg *cfg, __u32 id)
{
	struct kpe_frame_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .def_id = id };
	const struct kpe_earg *e;
	struct kpe_frames *f, *zero;
	__u32 z = 0, d, k;
	__u64 v;

	f = bpf_map_lookup_elem(&kpe_frames, &key);
	if (!f) {
		zero = bpf_map_lookup_elem(&kpe_frames_zero, &z);
		if (!zero)
			return;
		bpf_map_update_elem(&kpe_frames, &key, zero, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&kpe_frames, &key);
		if (!f)
			return;
	}
	d = ++f->depth & (KPE_EARG_DEPTH - 1);
	f->ra[d] = kprobe_entry_ra(ctx);
	for (k = 0; k < KPE_MAX_EARGS && k < cfg->nr_eargs; k++) {
		e = &cfg->eargs[k];
		v = s->regs[e->reg & (KPE_NR_REGS - 1)];
		if (e->deref && bpf_probe_read_kernel(&s->tmp, 8, (void *)(v + e->off)))
			s->tmp = 0;
		f->vals[d][k] = e->deref ? s->tmp : v;
	}
}

/* A return probe: pop the entry arguments of the call returning. */
static __always_inline void take_entry(struct scratch *s, __u32 id)
{
	struct kpe_frame_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .def_id = id };
	struct kpe_frames *f = bpf_map_lookup_elem(&kpe_frames, &key);
	__u32 d, k;

	s->no_entry = 1;
	if (!f || !f->depth)
		return;
	d = f->depth & (KPE_EARG_DEPTH - 1);
	for (k = 0; k < KPE_MAX_EARGS; k++)
		s->eargs[k] = f->vals[d][k];
	s->ra = f->ra[d];
	s->no_entry = 0;
	if (--f->depth == 0)
		bpf_map_delete_elem(&kpe_frames, &key);
}

/* ---- the probe ------------------------------------------------------- */

static __always_inline void init_event(struct scratch *s, __u64 ip, __u32 id,
				       const struct kpe_def_cfg *cfg)
{
	struct kpe_event *ev = &s->ev;
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	ev->def_id = id;
	ev->cpu = bpf_get_smp_processor_id();
	ev->tgid = pid_tgid >> 32;
	ev->pid = (__u32)pid_tgid;
	ev->ts = bpf_ktime_get_ns();
	ev->ip = ip;
	ev->nr_args = cfg->nr_args;
	ev->flags = 0;
	ev->data_len = 0;
	ev->faults[0] = ev->faults[1] = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	s->faulted = 0;
}

static __always_inline void count_drop(__u32 why)
{
	__u64 *drops = bpf_map_lookup_elem(&kpe_drops, &why);

	/* Atomic: a program that interrupts this one on the CPU counts too. */
	if (drops)
		__sync_fetch_and_add(drops, 1);
}

/*
 * --kstack: the kernel stack after the data; returns its bytes. entry_ra:
 * a p probe's return address (see struct kpe_kstack), else 0.
 */
static __always_inline __u32 append_kstack(void *ctx, struct kpe_event *ev, __u64 entry_ra)
{
	__u32 off = ev->data_len;
	struct kpe_kstack *ks;
	long n;

	if (off > KPE_DATA_MAX + KPE_STR_MAX)
		return 0; /* cannot happen: store_data keeps it below */
	ks = (void *)&ev->data[off];
	/* Unwound from the probed registers: no BPF frame is above the function. */
	n = bpf_get_stack(ctx, ks->ips, kstack_bytes & (KPE_KSTACK_MAX * 8 + 7), 0);
	if (n <= 0) {
		count_drop(KPE_DROP_STACK);
		return 0;
	}
	ks->len = n;
	ks->pad = 0;
	ks->entry_ra = entry_ra;
	ev->flags |= KPE_EV_KSTACK;
	return sizeof(*ks) + n;
}

static __always_inline void submit(struct kpe_event *ev, __u32 tail)
{
	__u64 size = KPE_EVENT_HDR_SIZE + ev->data_len + tail;

	if (size > sizeof(*ev))
		size = sizeof(*ev);
	if (bpf_ringbuf_output(&kpe_events, ev, size, 0))
		count_drop(KPE_DROP_RINGBUF);
}

/* Whether this task is one -p asked for, or there was no -p. */
static __always_inline bool tgid_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return !filter_tgid || bpf_map_lookup_elem(&kpe_tgids, &tgid);
}

/*
 * A scratch slot of the CPU (lib/claim.h), its key in *slot; NULL, the
 * event counted lost, when all are held.
 */
static __always_inline struct scratch *scratch_get(__u32 **claim, __u32 *slot)
{
	struct scratch *s = slot_claim(&kpe_nest, &kpe_scratch, KPE_SCRATCH_NEST, claim, slot);

	if (!s)
		count_drop(KPE_DROP_NEST);
	return s;
}

static __always_inline void scratch_put(__u32 *claim)
{
	slot_release(claim);
}

/*
 * Definition id and a scratch slot, its key in *slot, for a task -p
 * wants; false to return. On true the caller owes scratch_put(*claim) on
 * every way out.
 */
static __always_inline bool def_for_task(__u32 id, struct kpe_def_cfg **cfg, struct scratch **s,
					 __u32 **claim, __u32 *slot)
{
	if (!tgid_wanted())
		return false;
	*cfg = bpf_map_lookup_elem(&kpe_defs, &id);
	if (!*cfg)
		return false;
	*s = scratch_get(claim, slot);
	return *s;
}

/* Fetch instructions from to from + STEP_CHUNK - 1; 1 past the program's end. */
__noinline int kpe_fetch_steps(__u32 slot, __u32 id, __u32 from)
{
	__u32 i;

	for (i = 0; i < STEP_CHUNK; i++) {
		if (kpe_fetch_step(slot, id, from + i))
			return 1;
	}
	return 0;
}

/* Fetch, filter and send definition id's event; s->regs or s->rec are set. */
static __always_inline void run_def(void *ctx, struct scratch *s, __u32 slot,
				    struct kpe_def_cfg *cfg, __u32 id, __u64 ip, __u64 entry_ra)
{
	__u32 i;

	init_event(s, ip, id, cfg);
	s->no_entry = 0;
	if (cfg->nr_eargs || (cfg->flags & KPE_DEF_ENTRY_RA))
		take_entry(s, id);
	if ((cfg->flags & KPE_DEF_ENTRY_RA) && !s->no_entry)
		s->ev.ip = s->ra;
	for (i = 0; i < KPE_MAX_INSNS / STEP_CHUNK; i++) {
		if (kpe_fetch_steps(slot, id, i * STEP_CHUNK))
			break;
	}
	if (filter_pass(slot, id, cfg, s))
		submit(&s->ev, kstack_bytes ? append_kstack(ctx, &s->ev, entry_ra) : 0);
}

/* p, r and f: n is the copy of the program, kprobe_def[n] what it runs. */
static __always_inline int run_kprobe(struct pt_regs *ctx, __u32 n)
{
	__u32 def = kprobe_def[n & (KPE_MAX_KPROBES - 1)], id = def & ~KPE_PROG_ENTRY, *claim, slot;
	struct kpe_def_cfg *cfg;
	struct scratch *s;
	bool ret;
	__u64 ip;

	if (!def_for_task(id, &cfg, &s, &claim, &slot))
		return 0;
	/* %REG reads any register by index: copy them all once. */
	bpf_probe_read_kernel(s->regs, sizeof(struct pt_regs), ctx);
	if (def & KPE_PROG_ENTRY) {
		keep_entry(ctx, s, cfg, id);
	} else {
		/* A kretprobe runs with ip already set to the return address. */
		ret = cfg->flags & KPE_DEF_RETURN;
		ip = PT_REGS_IP(ctx) - (ret ? 0 : KPROBE_IP_ADJ);
		run_def(ctx, s, slot, cfg, id, ip, ret || !kstack_bytes ? 0 : kprobe_entry_ra(ctx));
	}
	scratch_put(claim);
	return 0;
}

/* e: the attached event's record is the context; its fields are read from it. */
static __always_inline int run_eprobe(void *ctx, __u32 n)
{
	__u32 id = eprobe_def[n & (KPE_MAX_EPROBES - 1)], *claim, slot;
	struct kpe_def_cfg *cfg;
	struct scratch *s;

	if (!def_for_task(id, &cfg, &s, &claim, &slot))
		return 0;
	s->rec = (__u64)ctx;
	run_def(ctx, s, slot, cfg, id, 0, 0);
	scratch_put(claim);
	return 0;
}

/* t: the tracepoint's arguments take the registers' place, $arg1 in regs[0]. */
static __always_inline int run_tprobe(__u64 *ctx, __u32 n)
{
	__u32 id = tprobe_def[n & (KPE_MAX_TPROBES - 1)], nr, *claim, slot;
	struct kpe_def_cfg *cfg;
	struct scratch *s;

	if (!def_for_task(id, &cfg, &s, &claim, &slot))
		return 0;
	nr = cfg->nr_tp_args;
	if (nr > KPE_MAX_TP_ARGS)
		nr = KPE_MAX_TP_ARGS;
	if (nr)
		bpf_probe_read_kernel(s->regs, nr * 8, ctx);
	run_def(ctx, s, slot, cfg, id, 0, 0);
	scratch_put(claim);
	return 0;
}

#define KPROBE(n)                              \
	SEC("kprobe")                          \
	int kpe_kprobe##n(struct pt_regs *ctx) \
	{                                      \
		return run_kprobe(ctx, n);     \
	}

#define EPROBE(n)                          \
	SEC("tracepoint")                  \
	int kpe_eprobe##n(void *ctx)       \
	{                                  \
		return run_eprobe(ctx, n); \
	}

#define TPROBE(n)                          \
	SEC("raw_tp")                      \
	int kpe_tprobe##n(__u64 *ctx)      \
	{                                  \
		return run_tprobe(ctx, n); \
	}

KPROBE(0)
KPROBE(1)
KPROBE(2)
KPROBE(3)
KPROBE(4)
KPROBE(5)
KPROBE(6)
KPROBE(7)
KPROBE(8)
KPROBE(9)
KPROBE(10)
KPROBE(11)
KPROBE(12)
KPROBE(13)
KPROBE(14)
KPROBE(15)
KPROBE(16)
KPROBE(17)
KPROBE(18)
KPROBE(19)
KPROBE(20)
KPROBE(21)
KPROBE(22)
KPROBE(23)
KPROBE(24)
KPROBE(25)
KPROBE(26)
KPROBE(27)
KPROBE(28)
KPROBE(29)
KPROBE(30)
KPROBE(31)
KPROBE(32)
KPROBE(33)
KPROBE(34)
KPROBE(35)
KPROBE(36)
KPROBE(37)
KPROBE(38)
KPROBE(39)
KPROBE(40)
KPROBE(41)
KPROBE(42)
KPROBE(43)
KPROBE(44)
KPROBE(45)
KPROBE(46)
KPROBE(47)
KPROBE(48)
KPROBE(49)
KPROBE(50)
KPROBE(51)
KPROBE(52)
KPROBE(53)
KPROBE(54)
KPROBE(55)
KPROBE(56)
KPROBE(57)
KPROBE(58)
KPROBE(59)
KPROBE(60)
KPROBE(61)
KPROBE(62)
KPROBE(63)
KPROBE(64)
KPROBE(65)
KPROBE(66)
KPROBE(67)
KPROBE(68)
KPROBE(69)
KPROBE(70)
KPROBE(71)
KPROBE(72)
KPROBE(73)
KPROBE(74)
KPROBE(75)
KPROBE(76)
KPROBE(77)
KPROBE(78)
KPROBE(79)
KPROBE(80)
KPROBE(81)
KPROBE(82)
KPROBE(83)
KPROBE(84)
KPROBE(85)
KPROBE(86)
KPROBE(87)
KPROBE(88)
KPROBE(89)
KPROBE(90)
KPROBE(91)
KPROBE(92)
KPROBE(93)
KPROBE(94)
KPROBE(95)
KPROBE(96)
KPROBE(97)
KPROBE(98)
KPROBE(99)
KPROBE(100)
KPROBE(101)
KPROBE(102)
KPROBE(103)
KPROBE(104)
KPROBE(105)
KPROBE(106)
KPROBE(107)
KPROBE(108)
KPROBE(109)
KPROBE(110)
KPROBE(111)
KPROBE(112)
KPROBE(113)
KPROBE(114)
KPROBE(115)
KPROBE(116)
KPROBE(117)
KPROBE(118)
KPROBE(119)
KPROBE(120)
KPROBE(121)
KPROBE(122)
KPROBE(123)
KPROBE(124)
KPROBE(125)
KPROBE(126)
KPROBE(127)
_Static_assert(KPE_MAX_KPROBES == 128, "one kpe_kprobeN for each");

EPROBE(0)
EPROBE(1)
EPROBE(2)
EPROBE(3)
EPROBE(4)
EPROBE(5)
EPROBE(6)
EPROBE(7)
EPROBE(8)
EPROBE(9)
EPROBE(10)
EPROBE(11)
EPROBE(12)
EPROBE(13)
EPROBE(14)
EPROBE(15)
EPROBE(16)
EPROBE(17)
EPROBE(18)
EPROBE(19)
EPROBE(20)
EPROBE(21)
EPROBE(22)
EPROBE(23)
EPROBE(24)
EPROBE(25)
EPROBE(26)
EPROBE(27)
EPROBE(28)
EPROBE(29)
EPROBE(30)
EPROBE(31)
EPROBE(32)
EPROBE(33)
EPROBE(34)
EPROBE(35)
EPROBE(36)
EPROBE(37)
EPROBE(38)
EPROBE(39)
EPROBE(40)
EPROBE(41)
EPROBE(42)
EPROBE(43)
EPROBE(44)
EPROBE(45)
EPROBE(46)
EPROBE(47)
EPROBE(48)
EPROBE(49)
EPROBE(50)
EPROBE(51)
EPROBE(52)
EPROBE(53)
EPROBE(54)
EPROBE(55)
EPROBE(56)
EPROBE(57)
EPROBE(58)
EPROBE(59)
EPROBE(60)
EPROBE(61)
EPROBE(62)
EPROBE(63)
_Static_assert(KPE_MAX_EPROBES == 64, "one kpe_eprobeN for each");

TPROBE(0)
TPROBE(1)
TPROBE(2)
TPROBE(3)
TPROBE(4)
TPROBE(5)
TPROBE(6)
TPROBE(7)
_Static_assert(KPE_MAX_TPROBES == 8, "one kpe_tprobeN for each");
