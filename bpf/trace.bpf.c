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

#include "abi/trace.h"
#include "lib/arch.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 func_id;	   /* fentry instances without fentry_cookie */
const volatile bool fentry_cookie; /* fentry/fexit take func_id from the attach cookie */
const volatile bool filter_tgid;
const volatile __s32 filter_cpu = -1;
const volatile bool filter_cgroup;
const volatile bool chain_mode;
const volatile __u64 min_duration_ns;
const volatile __u32 kstack_bytes; /* --kstack: 8 a frame, 0 without */
const volatile __u64 wakeup_bytes; /* see wakeup_flag(); 0 wakes per event */
const volatile bool want_comm;	   /* the event header carries comm (JSON shows it) */
const volatile __u32 agg_mode;	   /* enum ksnoop_agg_mode: count/hist, not events */
const volatile __u32 agg_by;	   /* enum ksnoop_agg_by */
/*
 * No --by and no plan with a key: every aggregate is in the arrays, by
 * function, and no key is built. A constant, so that the verifier never
 * walks a path that pairs the arrays with a hash key or the reverse.
 */
const volatile bool agg_keyless;
const volatile bool hist_linear;  /* else log2 buckets */
const volatile __s64 hist_lo;	  /* linear: the first bucket's low bound */
const volatile __u64 hist_step;	  /* linear: a bucket's width, > 0 */
const volatile __u32 hist_nr;	  /* linear: buckets from lo up to hi */
const volatile __u64 latency_div; /* --latency: ns per unit */
/* --errors: only failing calls, and with --errno only these errnos. */
const volatile bool errors_only;
const volatile bool errno_filter;
const volatile __u64 errno_mask[KSNOOP_ERRNO_WORDS];
/*
 * KSNOOP_CFG_LITE, per side (enum ksnoop_side): the bytes each event
 * reserves, 0 for no lite events; and for value slot k, the furthest its
 * record starts in the data and the most bytes it reads. The verifier
 * checks every write of lite_event against these, as constants.
 */
const volatile __u32 lite_rec[2];
const volatile __u16 lite_off[2][KSNOOP_LITE_VALUES];
const volatile __u16 lite_len[2][KSNOOP_LITE_VALUES];
const volatile __u8 lite_slots[2]; /* the most values any lite plan has, by side */
/* Every function is lite on both sides: the verifier never walks the rest. */
const volatile bool lite_only;
/*
 * The most fast comparisons and pointer steps any function of the session
 * has. Their loops run to counts read from func_cfg, which the verifier
 * cannot know: it walked every iteration, for 4,000 instructions of a
 * kprobe that captures one argument. With these constants it walks only
 * the iterations some function may take.
 */
const volatile __u8 max_fast_preds = KSNOOP_MAX_FAST_PREDS;
const volatile __u8 max_steps = KSNOOP_MAX_STEPS;
/*
 * cfg_const: these programs serve one function, func_id, whose plan is
 * the_cfg. A call then needs neither the attach cookie nor a map lookup,
 * and as the verifier reads a frozen .rodata as constants, it walks only
 * the branches that plan takes and drops the code no plan of the session
 * reaches.
 */
const volatile bool cfg_const;
const volatile struct ksnoop_func_cfg the_cfg;
/*
 * What the kernel offers, as user space found it (lib/kfeat.c). Without
 * task storage (5.11) `tasks` is a hash keyed by thread id, its entries
 * removed when their threads exit. Without kprobe attach cookies (5.15)
 * each kprobe function has an instance of its own, named by func_id.
 */
const volatile bool task_storage = true;
const volatile bool kprobe_cookie = true;

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

#define GLOB_PAT KSNOOP_PRED_STR_MAX
#define GLOB_TXT KSNOOP_PRED_STR_MAX
#include "lib/glob.h"
#include "lib/intcmp.h"

_Static_assert(KSNOOP_CMP_EQ == INTCMP_EQ && KSNOOP_CMP_NE == INTCMP_NE &&
		       KSNOOP_CMP_LT == INTCMP_LT && KSNOOP_CMP_LE == INTCMP_LE &&
		       KSNOOP_CMP_GT == INTCMP_GT && KSNOOP_CMP_GE == INTCMP_GE,
	       "trace's comparisons are intcmp's");

/*
 * Predicate evaluation state, carried across bpf_loop steps. It lives in
 * the scratch map, not in the loop context on the stack: before 6.7 the
 * verifier checks a callback once, as called with the caller's stack,
 * so it took these fields for the constants they start as and dropped
 * the branches a later step needs (on 6.1 a string comparison never got
 * past its first step: never decided, it let every event through, after
 * 67,000 steps).
 */
struct pred_state {
	__u32 k;	  /* comparison being evaluated */
	__u32 started;	  /* glob state initialised for k */
	__u32 known;	  /* bit k: result of comparison k is known */
	__u32 val;	  /* bit k: its result */
	__u32 sk, sv, sp; /* three-valued stack: known and value bits, depth */
	__u32 pad;
};

struct scratch {
	__u64 scalars[KSNOOP_MAX_VALUES]; /* integer predicate operands */
	__u16 str_off[KSNOOP_MAX_VALUES]; /* string operands: where in ev.data */
	__u16 str_len[KSNOOP_MAX_VALUES];
	struct pred_state ps;
	struct glob glob;
	struct ksnoop_agg_key key;
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

/* count: per CPU, so the hot path is a lookup and an add; summed at read time. */
/* Keys and sizes without BTF types: user space shortens the key. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1); /* --max-keys, set by user space */
	__uint(key_size, sizeof(struct ksnoop_agg_key));
	__uint(value_size, sizeof(__u64));
} agg_counts SEC(".maps");

/* hist: a kilobyte per key and CPU, allocated only for keys seen. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct ksnoop_agg_key));
	__uint(value_size, sizeof(struct ksnoop_hist));
} agg_hists SEC(".maps");

/*
 * A function counted with no key beyond itself (funccount, a plain hist)
 * has its slot in these, by func_id: no hashing per call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* the functions, set by user space */
	__type(key, __u32);
	__type(value, __u64);
} func_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_hist);
} func_hists SEC(".maps");

/* The zeroed histogram a new key starts from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_hist);
} hist_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KSNOOP_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

struct frame {
	__u32 func_id;
	__u32 flags;
	__u64 entry_ts;
	__u64 chain_id;
};

enum frame_flags {
	FRAME_SKIP = 1 << 0,	    /* filtered at entry: no return event */
	FRAME_ERR_BELOW = 1 << 1,   /* --errors: a call inside this one failed */
	FRAME_STASH_SMALL = 1 << 2, /* its entry values are in stash_small */
};

/* Freed by the kernel when the task exits. */
struct task_state {
	__u32 depth;
	__u32 pad;
	struct frame frames[KSNOOP_MAX_DEPTH];
};

/* A hash of KSNOOP_MAX_TASKS where task_storage is false (see backend.c). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tasks SEC(".maps");

/* A new thread's state in the hash (too big for the stack). */
static const struct task_state zero_task;

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

/*
 * The stash copies a whole value per call: most entries need the scratch
 * up to the event's first STASH_SMALL_DATA bytes of values (1.7 KB, not
 * 19), and go here.
 */
#define STASH_SMALL_DATA 1024
#define STASH_SMALL_SIZE (__builtin_offsetof(struct scratch, ev.data) + STASH_SMALL_DATA)

struct stash_small_val {
	__u8 bytes[STASH_SMALL_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct stash_key);
	__type(value, struct stash_small_val);
} stash_small SEC(".maps");

static __always_inline void count_drop(__u32 reason)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &reason);

	if (n)
		*n += 1;
}

/* The current thread's frames; created on the first call it makes. */
static __always_inline struct task_state *task_state_get(bool create)
{
	struct task_state *ts;
	int tid;

	if (task_storage)
		return bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = (__u32)bpf_get_current_pid_tgid();
	ts = bpf_map_lookup_elem(&tasks, &tid);
	if (ts || !create)
		return ts;
	if (bpf_map_update_elem(&tasks, &tid, (void *)&zero_task, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tasks, &tid)) {
		count_drop(KSNOOP_DROP_TASKS);
		return NULL;
	}
	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline bool pass_filters(void)
{
	__u32 tgid;

	if (filter_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)filter_cpu)
		return false;
	if (filter_tgid) {
		tgid = bpf_get_current_pid_tgid() >> 32;
		if (!bpf_map_lookup_elem(&tgids, &tgid))
			return false;
	}
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
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
	if (KSNOOP_IS_USER_ADDR(addr))
		return bpf_probe_read_user(dst, size, (void *)addr);
	return bpf_probe_read_kernel(dst, size, (void *)addr);
}

static __always_inline long read_any_str(void *dst, __u32 size, __u64 addr)
{
	if (KSNOOP_IS_USER_ADDR(addr))
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
	__u64 lr; /* arm64: the return address at entry */
};

#if defined(__TARGET_ARCH_arm64)
/*
 * AAPCS64: x0..x7 carry the first 8 arguments and x0 the return value; the
 * 9th and on sit at [sp], [sp+8], ... when the callee starts, one 8-byte
 * slot each. A kprobe at function+0 runs before the prologue, so the saved
 * sp is still the caller's. (ip_make_skb's 9th and 10th, cork and flags,
 * are checked in tests/arm64/cases/arm64.case.)
 */
#define STACK_ARG_OFF(n) (((n)-KSNOOP_REG_ARGS) * 8)

/*
 * The register frame as the ptrace ABI fixes it (uapi user_pt_regs), read
 * at plain offsets: a CO-RE relocation here would make libbpf parse the
 * kernel's BTF on every start only to find offsets that cannot move.
 */
struct abi_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

_Static_assert(__builtin_offsetof(struct abi_regs, regs[1]) == KSNOOP_PT_REGS_ARG_OFF(1) &&
		       __builtin_offsetof(struct abi_regs, regs[7]) == KSNOOP_PT_REGS_ARG_OFF(7) &&
		       KSNOOP_PT_REGS_RET_OFF == 0,
	       "the register offsets user space writes programs with");

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	const struct abi_regs *u = (void *)ctx;

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
	r->lr = u->regs[30];
}

/* At a function's first instruction its caller is in lr. */
static __always_inline __u64 entry_ra(struct regs *r)
{
	return r->lr;
}
#else
/* x86-64: past the return address, the seventh argument and on. */
#define STACK_ARG_OFF(n) (8 + ((n)-KSNOOP_REG_ARGS) * 8)

/*
 * The register frame in the order the entry code pushes it, which the
 * ptrace ABI fixes (uapi asm/ptrace.h), read at plain offsets: a CO-RE
 * relocation here would make libbpf parse the kernel's BTF on every start
 * only to find offsets that cannot move.
 */
struct abi_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

_Static_assert(__builtin_offsetof(struct abi_regs, di) == KSNOOP_PT_REGS_ARG_OFF(0) &&
		       __builtin_offsetof(struct abi_regs, si) == KSNOOP_PT_REGS_ARG_OFF(1) &&
		       __builtin_offsetof(struct abi_regs, dx) == KSNOOP_PT_REGS_ARG_OFF(2) &&
		       __builtin_offsetof(struct abi_regs, cx) == KSNOOP_PT_REGS_ARG_OFF(3) &&
		       __builtin_offsetof(struct abi_regs, r8) == KSNOOP_PT_REGS_ARG_OFF(4) &&
		       __builtin_offsetof(struct abi_regs, r9) == KSNOOP_PT_REGS_ARG_OFF(5) &&
		       __builtin_offsetof(struct abi_regs, ax) == KSNOOP_PT_REGS_RET_OFF,
	       "the register offsets user space writes programs with");

static __always_inline void save_regs(struct pt_regs *ctx, struct regs *r)
{
	const struct abi_regs *u = (void *)ctx;

	r->arg[0] = u->di;
	r->arg[1] = u->si;
	r->arg[2] = u->dx;
	r->arg[3] = u->cx;
	r->arg[4] = u->r8;
	r->arg[5] = u->r9;
	r->sp = u->sp;
	r->rc = u->ax;
}

/* At a function's first instruction its caller is on top of the stack. */
static __always_inline __u64 entry_ra(struct regs *r)
{
	__u64 ra = 0;

	bpf_probe_read_kernel(&ra, sizeof(ra), (void *)r->sp);
	return ra;
}
#endif

/*
 * Before bpf_get_func_arg and bpf_get_func_ret (5.17), a trampoline's
 * register arguments and return value, copied like a kprobe's. Copied by
 * the helper, not loaded: the verifier types a pointer loaded from the
 * context by the function's BTF and refuses the arithmetic plans do on
 * it (5.10: "pointer arithmetic with <<= operator prohibited"). nargs is a
 * constant of the instance's plan (cfg_const), so the sizes are too.
 */
static __always_inline void save_tramp_regs(void *ctx, struct regs *r, __u32 nargs, bool ret)
{
	__u32 n = nargs < KSNOOP_REG_ARGS ? nargs : KSNOOP_REG_ARGS;

	if (n)
		bpf_probe_read_kernel(r->arg, n * 8, ctx);
	if (ret && nargs <= KSNOOP_MAX_ARGS)
		bpf_probe_read_kernel(&r->rc, 8, (char *)ctx + nargs * 8);
}

enum prog_kind { PK_FENTRY, PK_FEXIT, PK_KPROBE, PK_KRETPROBE };

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
	if (n < KSNOOP_REG_ARGS)
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

/* The header a lite event has: its first KSNOOP_LITE_HDR_SIZE bytes. */
static __always_inline void init_head(struct ksnoop_event *ev, __u16 kind, __u32 fid, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	ev->kind = kind;
	ev->nr_vrecs = 0;
	ev->depth = 0;
	ev->func_id = fid;
	ev->ts = now;
	ev->cpu = bpf_get_smp_processor_id();
	ev->tgid = id >> 32;
	ev->pid = (__u32)id;
	ev->data_len = 0;
	if (want_comm)
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	else
		ev->comm[0] = 0;
}

static __always_inline void init_event(struct ksnoop_event *ev, __u16 kind, __u32 fid, __u64 now)
{
	init_head(ev, kind, fid, now);
	ev->duration_ns = 0;
	ev->chain_id = 0;
}

/*
 * Wake the reader when the queue grows past wakeup_bytes, or when it has
 * not been woken for KSNOOP_WAKE_INTERVAL_NS. The default wakes it whenever it
 * has caught up, which for a reader about as fast as the traced code
 * means a wakeup (an IPI and a context switch) per event; forcing one on
 * every event past the mark would be as bad. The reader drains everything
 * once awake (its epoll is level-triggered), so a stream costs at most
 * one wakeup per interval and a mark, and a trickle's events, the first
 * one included, show within the interval instead of the reader's poll.
 * CPUs race on last_wake_ns: the loser's wakeup is one more, harmless.
 */
__u64 last_wake_ns;

static __always_inline bool wake_due(__u64 now)
{
	if ((__s64)(now - last_wake_ns) < KSNOOP_WAKE_INTERVAL_NS)
		return false;
	last_wake_ns = now;
	return true;
}

static __always_inline __u64 wakeup_flag(__u64 len, __u64 now)
{
	__u64 queued;

	if (!wakeup_bytes)
		return 0;
	if (wake_due(now))
		return BPF_RB_FORCE_WAKEUP;
	queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	return queued < wakeup_bytes && queued + len >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
								     : BPF_RB_NO_WAKEUP;
}

/*
 * The same for a record reserved in place, from where it lies instead of
 * a helper call that asks the fill. The ring's data pages are mapped twice
 * in a row and its size is a multiple of wakeup_bytes (both powers of
 * two), so each wakeup_bytes of records produced covers exactly one
 * address that is a multiple of wakeup_bytes, and the record covering it
 * forces a wakeup: a reader asleep since it drained the ring is woken
 * within wakeup_bytes, as by the fill; one still draining takes a wakeup
 * it does not need once per wakeup_bytes.
 */
static __always_inline __u64 place_wakeup(struct ksnoop_event *ev, __u32 size, __u64 now)
{
	__u64 start, total = (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ULL;

	if (!wakeup_bytes)
		return 0;
	if (wake_due(now))
		return BPF_RB_FORCE_WAKEUP;
	/*
	 * The verifier lets a pointer's value out only through memory, and
	 * only to programs loaded with CAP_PERFMON, as tracing programs are:
	 * the timestamp's slot, written after this.
	 */
	*(volatile __u64 *)&ev->ts = (__u64)ev;
	start = *(volatile __u64 *)&ev->ts - BPF_RINGBUF_HDR_SZ;
	return ((0 - start) & (wakeup_bytes - 1)) < total ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void submit(struct ksnoop_event *ev)
{
	__u64 len = KSNOOP_EVENT_HDR_SIZE + ev->data_len;

	if (len > sizeof(*ev))
		len = sizeof(*ev);
	if (bpf_ringbuf_output(&events, ev, len, wakeup_flag(len, ev->ts)))
		count_drop(KSNOOP_DROP_RINGBUF);
}

/*
 * KSNOOP_CFG_LITE: the event is built in its ring record, reserved at the
 * session's lite_rec size, with no scratch and no copy. Slot k's record
 * starts at most lite_off[side][k] into the data and reads at most
 * lite_len[side][k] bytes, which user space made room for (lite.c,
 * lite_layout_plans); side and k are constants here, so these are too.
 */
static __always_inline __u32 lite_slot(struct capture_ctx *c, struct ksnoop_event *ev, __u32 off,
				       __u32 side, __u32 k, bool func_args)
{
	__u32 i = c->cfg->side[side][k] & (KSNOOP_MAX_VALUES - 1), len;
	struct ksnoop_vrec *vr;

	if (off > lite_off[side][k])
		return off;
	vr = (void *)ev + KSNOOP_LITE_HDR_SIZE + off;
	len = capture_value(c, &c->cfg->values[i], vr, lite_len[side][k], false, func_args);
	vr->idx = i;
	ev->nr_vrecs++;
	return off + sizeof(*vr) + ((len + 7) & ~7U);
}

static __always_inline void lite_event(struct capture_ctx *c, __u32 id, __u32 side, bool func_args)
{
	__u32 n = c->cfg->nr_side[side], off = 0;
	struct ksnoop_event *ev;
	__u64 now, wake;

	ev = bpf_ringbuf_reserve(&events, lite_rec[side], 0);
	if (!ev) {
		count_drop(KSNOOP_DROP_RINGBUF);
		return;
	}
	now = bpf_ktime_get_ns();
	wake = place_wakeup(ev, lite_rec[side], now);
	init_head(ev,
		  KSNOOP_EV_LITE | (side == KSNOOP_SIDE_ENTRY ? KSNOOP_EV_ENTRY : KSNOOP_EV_RETURN),
		  id, now);
	/*
	 * Unrolled by hand: clang will not, around follow_steps' loop. The
	 * constant lite_slots leaves the verifier no unused slot to walk.
	 */
#define LITE_SLOT(k)                             \
	if (n <= (k) || lite_slots[side] <= (k)) \
		goto done;                       \
	off = lite_slot(c, ev, off, side, k, func_args)
	LITE_SLOT(0);
	LITE_SLOT(1);
	LITE_SLOT(2);
	LITE_SLOT(3);
	LITE_SLOT(4);
	LITE_SLOT(5);
	LITE_SLOT(6);
	LITE_SLOT(7);
#undef LITE_SLOT
	_Static_assert(KSNOOP_LITE_VALUES == 8, "one LITE_SLOT per lite value");
done:
	ev->data_len = off;
	bpf_ringbuf_submit(ev, wake);
}

/*
 * A new key starts at zero on every CPU, from zero or else hist_zero:
 * looked up only for a new key, as it costs a call. Two CPUs may race to
 * add a key.
 */
static __always_inline void *agg_slot(void *map, struct ksnoop_agg_key *k, __u32 fid, void *zero)
{
	__u32 z0 = 0;
	void *v;

	if (agg_keyless)
		return bpf_map_lookup_elem(map, &fid);
	v = bpf_map_lookup_elem(map, k);

	if (v)
		return v;
	if (!zero)
		zero = bpf_map_lookup_elem(&hist_zero, &z0);
	if (!zero)
		return NULL;
	if (bpf_map_update_elem(map, k, zero, BPF_NOEXIST) && !bpf_map_lookup_elem(map, k)) {
		count_drop(KSNOOP_DROP_KEYS);
		return NULL;
	}
	return bpf_map_lookup_elem(map, k);
}

static __always_inline void pack_key_value(struct scratch *s, const struct ksnoop_agg_cfg *a,
					   __u32 n)
{
	__u32 vi = a->key_value[n & (KSNOOP_AGG_MAX_KEYS - 1)] & (KSNOOP_MAX_VALUES - 1);
	__u32 off = a->key_off[n & (KSNOOP_AGG_MAX_KEYS - 1)] & 0x78;
	__u32 len = a->key_len[n & (KSNOOP_AGG_MAX_KEYS - 1)];
	__u32 src = s->str_off[vi], have = s->str_len[vi];

	/* A register holds more than its type: only the type's bytes count. */
	if (len <= 8) {
		*(__u64 *)&s->key.data[off] = len < 8 ? s->scalars[vi] & ((1ULL << (len * 8)) - 1)
						      : s->scalars[vi];
		return;
	}
	/* A string: its bytes up to the slot, the rest stays zero. */
	if (have > len)
		have = len;
	if (have > KSNOOP_AGG_STR_MAX)
		have = KSNOOP_AGG_STR_MAX;
	if (src < KSNOOP_DATA_MAX + 64 && have)
		bpf_probe_read_kernel(&s->key.data[off], have, &s->ev.data[src]);
}

/* The --by fields; k is zeroed. */
static __always_inline void key_header(void *ctx, struct ksnoop_agg_key *k, __u32 fid)
{
	__u64 id;

	k->func_id = fid;
	if (agg_by & (KSNOOP_BY_PID | KSNOOP_BY_TID)) {
		id = bpf_get_current_pid_tgid();
		if (agg_by & KSNOOP_BY_PID)
			k->tgid = id >> 32;
		if (agg_by & KSNOOP_BY_TID)
			k->pid = (__u32)id;
	}
	if (agg_by & KSNOOP_BY_CPU)
		k->cpu = bpf_get_smp_processor_id();
	if (agg_by & KSNOOP_BY_COMM)
		bpf_get_current_comm(k->comm, sizeof(k->comm));
	if (agg_by & KSNOOP_BY_KSTACK) {
		k->stack_id = bpf_get_stackid(ctx, &stacks, 0);
		if (k->stack_id < 0)
			count_drop(KSNOOP_DROP_STACK);
	}
}

static __always_inline void build_key(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg)
{
	struct ksnoop_agg_key *k = &s->key;
	__u32 n;

	__builtin_memset(k, 0, sizeof(*k));
	key_header(ctx, k, s->ev.func_id);
	for (n = 0; n < KSNOOP_AGG_MAX_KEYS; n++) {
		if (n >= cfg->agg.nr_keys)
			break;
		pack_key_value(s, &cfg->agg, n);
	}
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	return r + (v >> 1);
}

/* The numbering is src/agg/table.h's. */
static __always_inline __u32 bucket_of(__u64 v, bool is_signed)
{
	__u64 d;

	if (!hist_linear) {
		if (is_signed && (__s64)v < 0)
			return 0;
		return v ? 2 + log2_u64(v) : 1;
	}
	if (is_signed ? (__s64)v < hist_lo : v < (__u64)hist_lo)
		return 0;
	d = (v - (__u64)hist_lo) / hist_step;
	return d >= hist_nr ? hist_nr + 1 : d + 1;
}

static __always_inline __u64 sign_extend(__u64 v, __u32 width, bool is_signed)
{
	__u32 shift = width >= 8 ? 0 : 64 - width * 8;

	if (!shift)
		return v;
	return is_signed ? (__u64)((__s64)(v << shift) >> shift) : (v << shift) >> shift;
}

static __always_inline bool less(__u64 a, __u64 b, bool is_signed)
{
	return is_signed ? (__s64)a < (__s64)b : a < b;
}

/* k is not read when agg_keyless. */
static __always_inline void hist_add(struct ksnoop_agg_key *k, __u32 fid,
				     const struct ksnoop_agg_cfg *a, __u64 raw, __u64 duration_ns)
{
	bool is_signed = a->hist_signed;
	struct ksnoop_hist *h;
	__u64 v;

	if (a->hist_value == KSNOOP_AGG_LATENCY) {
		v = duration_ns / (latency_div ?: 1);
		is_signed = false;
	} else {
		v = sign_extend(raw, a->hist_width, is_signed);
	}
	h = agg_slot(agg_keyless ? (void *)&func_hists : (void *)&agg_hists, k, fid, NULL);
	if (!h)
		return;
	if (!h->count || less(v, h->min, is_signed))
		h->min = v;
	if (!h->count || less(h->max, v, is_signed))
		h->max = v;
	h->count++;
	h->sum += v;
	h->buckets[bucket_of(v, is_signed) & (KSNOOP_HIST_BUCKETS - 1)]++;
}

static __always_inline void count_add(struct ksnoop_agg_key *k, __u32 fid)
{
	__u64 zero = 0, *n = agg_slot(agg_keyless ? (void *)&func_counts : (void *)&agg_counts, k,
				      fid, &zero);

	if (n)
		*n += 1;
}

static __always_inline void aggregate(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg)
{
	__u32 vi = cfg->agg.hist_value & (KSNOOP_MAX_VALUES - 1);

	if (!agg_keyless)
		build_key(ctx, s, cfg);
	if (agg_mode == KSNOOP_AGG_HIST)
		hist_add(&s->key, s->ev.func_id, &cfg->agg, s->scalars[vi], s->ev.duration_ns);
	else
		count_add(&s->key, s->ev.func_id);
}

/* An event into the ring, or a sample into the aggregates. */
/*
 * --kstack: the kernel stack as the event's last record, with the return
 * address a kprobe's function was entered with (0 elsewhere).
 */
static __always_inline void append_kstack(void *ctx, struct ksnoop_event *ev, __u64 ra,
					  bool trampoline)
{
	__u32 off = ev->data_len;
	struct ksnoop_vrec *vr;
	long n;

	if (off >= KSNOOP_DATA_MAX)
		return;
	/* Re-bound: clang may test one copy of off and index with another. */
	barrier_var(off);
	off &= KSNOOP_DATA_MAX - 1;
	vr = (void *)&ev->data[off];
	n = bpf_get_stack(ctx, vr + 1, kstack_bytes & (KSNOOP_KSTACK_MAX * 8 + 7), 0);
	if (n <= 0) {
		count_drop(KSNOOP_DROP_STACK);
		return;
	}
	vr->raw = ra;
	vr->len = n;
	vr->idx = KSNOOP_VREC_KSTACK;
	vr->flags = trampoline ? KSNOOP_VR_TRAMPOLINE : 0;
	ev->data_len = off + sizeof(*vr) + ((n + 7) & ~7);
	ev->nr_vrecs++;
}

static __always_inline void deliver(void *ctx, struct scratch *s, struct ksnoop_func_cfg *cfg,
				    __u64 ra, bool trampoline)
{
	if (agg_mode == KSNOOP_AGG_NONE && kstack_bytes)
		append_kstack(ctx, &s->ev, ra, trampoline);
	if (agg_mode == KSNOOP_AGG_NONE)
		submit(&s->ev);
	else
		aggregate(ctx, s, cfg);
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

static __always_inline struct frame *push_frame(struct task_state *ts, __u32 fid, __u64 now)
{
	struct frame *f;

	if (ts->depth >= KSNOOP_MAX_DEPTH) {
		count_drop(KSNOOP_DROP_DEPTH);
		return NULL;
	}
	f = &ts->frames[ts->depth & (KSNOOP_MAX_DEPTH - 1)];
	f->func_id = fid;
	f->flags = 0;
	f->entry_ts = now;
	f->chain_id = 0;
	ts->depth++;
	return f;
}

static __always_inline struct stash_key stash_key_of(__u32 depth)
{
	return (struct stash_key){ .tid = (__u32)bpf_get_current_pid_tgid(), .depth = depth };
}

static __always_inline void stash_entry(struct scratch *s, __u32 depth, struct frame *f)
{
	struct stash_key key = stash_key_of(depth);
	long err;

	if (s->ev.data_len <= STASH_SMALL_DATA) {
		f->flags |= FRAME_STASH_SMALL;
		err = bpf_map_update_elem(&stash_small, &key, s, BPF_ANY);
	} else {
		err = bpf_map_update_elem(&stash, &key, s, BPF_ANY);
	}
	if (err) {
		count_drop(KSNOOP_DROP_STASH);
		f->flags |= FRAME_SKIP;
	}
}

/* The stash of a call whose return sends nothing. */
static __always_inline void drop_stash(__u32 depth, const struct frame *f)
{
	struct stash_key key = stash_key_of(depth);

	if (f->flags & FRAME_STASH_SMALL)
		bpf_map_delete_elem(&stash_small, &key);
	else
		bpf_map_delete_elem(&stash, &key);
}

static __always_inline bool is_trampoline(enum prog_kind kind)
{
	return kind == PK_FENTRY || kind == PK_FEXIT;
}

static __always_inline void init_capture(struct capture_ctx *c, void *ctx, struct regs *regs,
					 enum prog_kind kind, struct ksnoop_func_cfg *cfg,
					 bool at_entry)
{
	c->ctx = ctx;
	c->regs = regs;
	c->kind = kind;
	c->at_entry = at_entry;
	c->side = at_entry ? KSNOOP_SIDE_ENTRY : KSNOOP_SIDE_RETURN;
	c->cfg = cfg;
}

/* -s: a frame outside a complete-so-far chain is skipped, events and all. */
static __always_inline bool chain_skip(struct task_state *ts, struct ksnoop_func_cfg *cfg,
				       struct frame *f, __u64 now)
{
	if (!chain_mode)
		return false;
	if (cfg->chain_pos == 0) {
		f->chain_id = now;
		return false;
	}
	return !chain_allows(ts, cfg->chain_pos, &f->chain_id);
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

/* The key of agg_fast: a header and the data it may fill. */
struct fast_key {
	__u8 hdr[KSNOOP_AGG_KEY_HDR];
	__u64 data[KSNOOP_AGG_FAST_DATA / 8];
};

static __always_inline __u64 reg_value(struct capture_ctx *c, const struct ksnoop_value *v,
				       bool func_args)
{
	return v->base == KSNOOP_BASE_RET ? get_ret(c, func_args) : get_arg(c, v->arg, func_args);
}

/*
 * count and hist whose values all sit in registers (cfg->agg.fast): the
 * key is built on the stack, without the scratch event, its captures and
 * its predicates (all of them fast ones, checked already).
 */
static __always_inline void agg_fast(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
				     __u32 fid, bool func_args, __u64 duration_ns)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };
	const struct ksnoop_agg_cfg *a = &cfg->agg;
	struct fast_key fk;
	__u32 n, len;
	__u64 v;

	/* funccount and funclatency: no key to zero and fill, per call. */
	if (!agg_keyless) {
		__builtin_memset(&fk, 0, sizeof(fk));
		key_header(ctx, (struct ksnoop_agg_key *)&fk, fid);
	}
	for (n = 0; !agg_keyless && n < KSNOOP_AGG_MAX_KEYS; n++) {
		if (n >= a->nr_keys)
			break;
		v = reg_value(&c, &cfg->values[a->key_value[n] & (KSNOOP_MAX_VALUES - 1)],
			      func_args);
		len = a->key_len[n];
		if (len < 8)
			v &= (1ULL << (len * 8)) - 1;
		fk.data[(a->key_off[n] >> 3) & (KSNOOP_AGG_FAST_DATA / 8 - 1)] = v;
	}
	if (agg_mode == KSNOOP_AGG_COUNT) {
		count_add((struct ksnoop_agg_key *)&fk, fid);
		return;
	}
	v = 0;
	if (a->hist_value != KSNOOP_AGG_LATENCY)
		v = reg_value(&c, &cfg->values[a->hist_value & (KSNOOP_MAX_VALUES - 1)], func_args);
	hist_add((struct ksnoop_agg_key *)&fk, fid, a, v, duration_ns);
}

/*
 * fexit repeats the fast comparisons itself; a kretprobe cannot see the
 * arguments again and learns the entry's verdict from the frame.
 */
static __always_inline bool uses_frame(struct ksnoop_func_cfg *cfg, bool trampoline)
{
	return (cfg->flags & KSNOOP_CFG_FRAME) ||
	       (!trampoline && cfg->nr_fast_preds && (cfg->emit & KSNOOP_EMIT_RETURN));
}

/* Whether this side of cfg goes the lite way; lite_rec is 0 where none may. */
static __always_inline bool lite_side(struct ksnoop_func_cfg *cfg, __u32 side, bool trampoline)
{
	return lite_rec[side] && (cfg->flags & KSNOOP_CFG_LITE) && !uses_frame(cfg, trampoline);
}

/*
 * lite_only: one side of a call, all of it. Taken first and apart, so the
 * verifier sees lite_only decide a branch and walks nothing else.
 */
static __always_inline int lite_call(void *ctx, struct regs *regs, enum prog_kind kind, __u32 id,
				     __u32 side, enum prog_build b)
{
	bool trampoline = is_trampoline(kind), entry = side == KSNOOP_SIDE_ENTRY;
	bool func_args = trampoline && b == MODERN;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;

	if (!pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg || !(cfg->emit & (entry ? KSNOOP_EMIT_ENTRY : KSNOOP_EMIT_RETURN)))
		return 0;
	/* No kretprobe here has fast comparisons (lite.c): they need a frame. */
	if ((entry || trampoline) && !fast_preds_pass(ctx, regs, cfg, func_args))
		return 0;
	init_capture(&c, ctx, regs, kind, cfg, entry);
	lite_event(&c, id, side, func_args);
	return 0;
}

static __always_inline int on_entry(void *ctx, struct regs *regs, enum prog_kind kind,
				    enum prog_build b)
{
	bool trampoline = is_trampoline(kind), pass, func_args = trampoline && b == MODERN;
	__u32 id = get_func_id(ctx, trampoline);
	struct frame unpaired = {}, *f = &unpaired;
	struct task_state *ts = NULL;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;
	__u64 now;

	if (lite_only)
		return lite_call(ctx, regs, kind, id, KSNOOP_SIDE_ENTRY, b);
	if (!pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg)
		return 0;
	pass = fast_preds_pass(ctx, regs, cfg, func_args);
	if (!pass && (trampoline || !uses_frame(cfg, trampoline)))
		return 0;
	if (lite_side(cfg, KSNOOP_SIDE_ENTRY, trampoline)) {
		if (cfg->emit & KSNOOP_EMIT_ENTRY) {
			init_capture(&c, ctx, regs, kind, cfg, true);
			lite_event(&c, id, KSNOOP_SIDE_ENTRY, func_args);
		}
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (uses_frame(cfg, trampoline)) {
		ts = task_state_get(true);
		if (!ts)
			return 0;
		f = push_frame(ts, id, now);
		if (!f)
			return 0;
		if (!pass || chain_skip(ts, cfg, f, now)) {
			f->flags |= FRAME_SKIP;
			return 0;
		}
	}
	if (!(cfg->emit & (KSNOOP_EMIT_ENTRY | KSNOOP_EMIT_COMBINED)))
		return 0;
	if (agg_mode != KSNOOP_AGG_NONE && cfg->agg.fast) {
		agg_fast(ctx, regs, cfg, id, func_args, 0);
		return 0;
	}
	c.s = scratch_get();
	if (!c.s) {
		f->flags |= FRAME_SKIP;
		return 0;
	}
	init_capture(&c, ctx, regs, kind, cfg, true);
	init_event(&c.s->ev, KSNOOP_EV_ENTRY, id, now);
	c.s->ev.chain_id = f->chain_id;
	c.s->ev.depth = ts ? ts->depth - 1 : 0;
	capture(&c, func_args, b);
	if (!preds_pass(cfg, c.s, true, b))
		f->flags |= FRAME_SKIP;
	else if (cfg->emit & KSNOOP_EMIT_COMBINED)
		stash_entry(c.s, ts ? ts->depth - 1 : 0, f);
	else
		deliver(ctx, c.s, cfg, kstack_bytes && !trampoline ? entry_ra(regs) : 0,
			trampoline);
	scratch_put();
	return 0;
}

/*
 * The innermost frame of fid, and the frames above it go too: their
 * returns were missed (a kretprobe out of instances, maxactive), and
 * left there they would fill the stack for the task's life. A return
 * without a frame (a missed entry) pops nothing.
 */
static __always_inline bool pop_frame(struct task_state *ts, __u32 fid, struct frame *out)
{
	__u32 i, d = ts->depth;
	struct frame *f;

	if (d > KSNOOP_MAX_DEPTH)
		return false;
	for (i = 0; i < KSNOOP_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		f = &ts->frames[(d - 1 - i) & (KSNOOP_MAX_DEPTH - 1)];
		if (f->func_id != fid)
			continue;
		*out = *f;
		ts->depth = d - 1 - i;
		return true;
	}
	return false;
}

static __always_inline bool unstash(struct scratch *s, __u32 depth, const struct frame *f)
{
	struct stash_key key = stash_key_of(depth);
	void *saved;

	if (f->flags & FRAME_STASH_SMALL) {
		saved = bpf_map_lookup_elem(&stash_small, &key);
		if (!saved)
			return false;
		bpf_probe_read_kernel(s, STASH_SMALL_SIZE, saved);
		bpf_map_delete_elem(&stash_small, &key);
		return true;
	}
	saved = bpf_map_lookup_elem(&stash, &key);
	if (!saved)
		return false;
	bpf_probe_read_kernel(s, sizeof(*s), saved);
	bpf_map_delete_elem(&stash, &key);
	return true;
}

/* -s: tell user space the chain's first call returned, so it can decide. */
static __always_inline void chain_end(struct scratch *s, __u32 id, struct frame *f, __u64 now)
{
	init_event(&s->ev, KSNOOP_EV_CHAIN_END, id, now);
	s->ev.chain_id = f->chain_id;
	submit(&s->ev);
}

static __always_inline bool start_return_event(struct scratch *s, struct ksnoop_func_cfg *cfg,
					       __u32 id, __u32 depth, const struct frame *f,
					       __u64 now)
{
	if (!(cfg->emit & KSNOOP_EMIT_COMBINED)) {
		init_event(&s->ev, KSNOOP_EV_RETURN, id, now);
		return true;
	}
	if (!unstash(s, depth, f))
		return false;
	s->ev.kind = KSNOOP_EV_COMBINED;
	s->ev.ts = now;
	s->ev.cpu = bpf_get_smp_processor_id();
	return true;
}

/* --errors: whether the return value is a failure that --errno keeps. */
static __always_inline bool ret_fails(__u8 kind, __u64 v)
{
	__s64 e = kind == KSNOOP_ERR_INT32 ? (__s64)(__s32)v : (__s64)v;

	if (kind == KSNOOP_ERR_NONE)
		return true;
	if (kind == KSNOOP_ERR_PTR && !v)
		return !errno_filter; /* NULL has no errno */
	if (e < -KSNOOP_ERRNO_MAX || e > -1)
		return false;
	e = -e;
	return !errno_filter || ((errno_mask[(e >> 6) & (KSNOOP_ERRNO_WORDS - 1)] >> (e & 63)) & 1);
}

static __always_inline bool call_failed(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					bool func_args)
{
	struct capture_ctx c = { .ctx = ctx, .regs = regs };

	return ret_fails(cfg->err_kind, get_ret(&c, func_args));
}

static __always_inline void send_chain_end(__u32 id, struct frame *f)
{
	struct scratch *s = scratch_get();

	if (!s)
		return;
	chain_end(s, id, f, bpf_ktime_get_ns());
	scratch_put();
}

/*
 * --errors: user space holds the failures inside an outermost call until
 * that call fails too; when it does not, a chain end says to forget them.
 */
static __always_inline void forget_failures_below(__u32 id, struct frame *f, __u32 depth)
{
	if (errors_only && !depth && (f->flags & FRAME_ERR_BELOW))
		send_chain_end(id, f);
}

/*
 * --errors: false for a call that succeeded, which sends nothing but the
 * chain end that -s or the failures below it need.
 */
static __always_inline bool keep_failure(void *ctx, struct regs *regs, struct ksnoop_func_cfg *cfg,
					 bool func_args, struct task_state *ts, __u32 id,
					 struct frame *f, __u32 depth)
{
	if (!errors_only)
		return true;
	if (call_failed(ctx, regs, cfg, func_args)) {
		if (ts && depth)
			ts->frames[0].flags |= FRAME_ERR_BELOW;
		return true;
	}
	if (cfg->emit & KSNOOP_EMIT_COMBINED)
		drop_stash(depth, f);
	if (chain_mode && cfg->chain_pos == 0)
		send_chain_end(id, f);
	else
		forget_failures_below(id, f, depth);
	return false;
}

static __always_inline int on_return(void *ctx, struct regs *regs, enum prog_kind kind,
				     enum prog_build b)
{
	bool trampoline = is_trampoline(kind), emits, ends_chain,
	     func_args = trampoline && b == MODERN;
	__u32 id = get_func_id(ctx, trampoline), depth = 0;
	struct task_state *ts = NULL;
	struct ksnoop_func_cfg *cfg;
	struct capture_ctx c;
	struct frame f = {};
	__u64 now;

	if (lite_only)
		return lite_call(ctx, regs, kind, id, KSNOOP_SIDE_RETURN, b);
	if (!pass_filters())
		return 0;
	cfg = get_cfg(id);
	if (!cfg || (trampoline && !fast_preds_pass(ctx, regs, cfg, func_args)))
		return 0;
	if (lite_side(cfg, KSNOOP_SIDE_RETURN, trampoline)) {
		if (cfg->emit & KSNOOP_EMIT_RETURN) {
			init_capture(&c, ctx, regs, kind, cfg, false);
			lite_event(&c, id, KSNOOP_SIDE_RETURN, func_args);
		}
		return 0;
	}
	if (uses_frame(cfg, trampoline)) {
		ts = task_state_get(false);
		if (!ts || !pop_frame(ts, id, &f))
			return 0;
		depth = ts->depth;
		if (f.flags & FRAME_SKIP) {
			forget_failures_below(id, &f, depth);
			return 0;
		}
	}
	if (!keep_failure(ctx, regs, cfg, func_args, ts, id, &f, depth))
		return 0;
	emits = cfg->emit & (KSNOOP_EMIT_RETURN | KSNOOP_EMIT_COMBINED);
	ends_chain = chain_mode && cfg->chain_pos == 0;
	if (!emits && !ends_chain)
		return 0;
	if (agg_mode != KSNOOP_AGG_NONE && cfg->agg.fast) {
		agg_fast(ctx, regs, cfg, id, func_args,
			 f.entry_ts ? bpf_ktime_get_ns() - f.entry_ts : 0);
		return 0;
	}
	c.s = scratch_get();
	if (!c.s)
		return 0;
	now = bpf_ktime_get_ns();
	if (!emits) {
		chain_end(c.s, id, &f, now);
		goto out;
	}
	if (!start_return_event(c.s, cfg, id, depth, &f, now))
		goto out;
	c.s->ev.duration_ns = f.entry_ts ? now - f.entry_ts : 0;
	c.s->ev.chain_id = f.chain_id;
	c.s->ev.depth = depth;
	init_capture(&c, ctx, regs, kind, cfg, false);
	capture(&c, func_args, b);
	if (c.s->ev.duration_ns >= min_duration_ns && preds_pass(cfg, c.s, false, b))
		deliver(ctx, c.s, cfg, 0, trampoline);
	else if (ends_chain)
		chain_end(c.s, id, &f, now);
out:
	scratch_put();
	return 0;
}

/* Sections of ksnoop's own: see register_fentry_sections() in backend.c. */
SEC("ksnoop.fentry")
int BPF_PROG(ksnoop_fentry)
{
	return on_entry(ctx, NULL, PK_FENTRY, MODERN);
}

SEC("ksnoop.fexit")
int BPF_PROG(ksnoop_fexit)
{
	return on_return(ctx, NULL, PK_FEXIT, MODERN);
}

SEC("kprobe")
int ksnoop_kprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, MODERN);
}

SEC("kretprobe")
int ksnoop_kretprobe(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, MODERN);
}

SEC("kprobe.multi")
int ksnoop_kmulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, MODERN);
}

SEC("kretprobe.multi")
int ksnoop_kretmulti(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, MODERN);
}

/* The COMPAT builds (see enum prog_build), one function each. */
SEC("ksnoop.fentry")
int ksnoop_fentry_compat(void *ctx)
{
	struct regs r = {};

	save_tramp_regs(ctx, &r, the_cfg.nr_args, false);
	return on_entry(ctx, &r, PK_FENTRY, COMPAT);
}

SEC("ksnoop.fexit")
int ksnoop_fexit_compat(void *ctx)
{
	struct regs r = {};

	save_tramp_regs(ctx, &r, the_cfg.nr_args, true);
	return on_return(ctx, &r, PK_FEXIT, COMPAT);
}

SEC("kprobe")
int ksnoop_kprobe_compat(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_entry(ctx, &r, PK_KPROBE, COMPAT);
}

SEC("kretprobe")
int ksnoop_kretprobe_compat(struct pt_regs *ctx)
{
	struct regs r;

	save_regs(ctx, &r);
	return on_return(ctx, &r, PK_KRETPROBE, COMPAT);
}

/*
 * A task that dies inside a traced call leaves its stash behind. The raw
 * tracepoint, not tp_btf, which would need the kernel's BTF in libbpf for
 * its attach id; do_exit() fires it for current.
 */
SEC("raw_tp/sched_process_exit")
int ksnoop_task_exit(void *ctx)
{
	struct stash_key key = { .tid = (__u32)bpf_get_current_pid_tgid() };
	int tid = key.tid;
	__u32 d;

	if (!task_storage)
		bpf_map_delete_elem(&tasks, &tid);
	for (d = 0; d < KSNOOP_MAX_DEPTH; d++) {
		key.depth = d;
		bpf_map_delete_elem(&stash, &key);
		bpf_map_delete_elem(&stash_small, &key);
	}
	return 0;
}
