// SPDX-License-Identifier: GPL-2.0
/*
 * straight.c: which plans get their programs written out, and what those
 * programs do. The programs run here in a small interpreter of the
 * instructions straight.c emits, against stand-ins for the helpers, and
 * the record they leave is checked field by field against the layout
 * user space reads (lite.c's, trace.bpf.c's). The VM suite runs the same
 * programs in the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "lib/arch.h"
#include "trace/straight.h"

#define HDR KSNOOP_LITE_HDR_SIZE
#define VREC ((int)sizeof(struct ksnoop_vrec))
#define RING_FD 7
#define DROPS_FD 8
#define BSS_FD 9
#define COUNTS_FD 10
#define KEYED_FD 11

/* A lite plan whose entry reads these sizes (0: a register value) and whose return is a scalar. */
static void make_cfg(struct ksnoop_func_cfg *cfg, const int *sizes, int n)
{
	fixture_cfg(cfg, sizes, n);
	cfg->flags = KSNOOP_CFG_LITE;
	cfg->nr_args = n;
}

/* The machine the programs run on: what the helpers return and record. */
struct machine {
	__u8 stack[512];
	__u8 ring[4096] __attribute__((aligned(8)));
	__u64 args[8], ret;
	__u64 regs[32]; /* a kprobe's struct pt_regs */
	bool ring_full, read_fails;
	__u64 drops, last_wake;
	__u64 epoch; /* at .bss offset 72, after last_wake's 64 */
	__u64 now;
	__u64 counts[16]; /* the keyless counts' per-CPU array, this CPU's */
	bool no_count_slot;
	/* the keyed counts' per-CPU hash: its keys (the key size's bytes) and counts */
	__u8 keys[4][KSNOOP_AGG_KEY_HDR + KSNOOP_AGG_FAST_DATA] __attribute__((aligned(8)));
	__u64 keyed[4];
	int nr_keys, key_size;
	bool keys_full;
	__u64 submitted_flags;
	int reserved, submitted, reads_user, reads_kernel, lookups;
	__u32 reserve_size;
};

static struct machine *M;
static enum straight_ctx CTX_KIND;

/* Argument i as fentry (the helpers) and a kprobe (its registers) see it. */
static void set_arg(int i, __u64 v)
{
	M->args[i] = v;
	M->regs[KSNOOP_PT_REGS_ARG_OFF(i) / 8] = v;
}

static void set_ret(__u64 v)
{
	M->ret = v;
	M->regs[KSNOOP_PT_REGS_RET_OFF / 8] = v;
}

static __u64 helper(int id, __u64 *r)
{
	switch (id) {
	case BPF_FUNC_ringbuf_reserve:
		assert_int_equal(r[1], 0xf00d0000 + RING_FD);
		M->reserved++;
		M->reserve_size = r[2];
		return M->ring_full ? 0 : (__u64)(M->ring + 8);
	case BPF_FUNC_ringbuf_submit:
		assert_int_equal(r[1], (__u64)(M->ring + 8));
		M->submitted++;
		M->submitted_flags = r[2];
		return 0;
	case BPF_FUNC_map_lookup_elem:
		if (r[1] == 0xf00d0000 + KEYED_FD) {
			for (int k = 0; k < M->nr_keys; k++)
				if (!memcmp(M->keys[k], (void *)r[2], M->key_size))
					return (__u64)&M->keyed[k];
			return 0;
		}
		if (r[1] == 0xf00d0000 + COUNTS_FD) {
			assert_true(*(__u32 *)r[2] < ARRAY_SIZE(M->counts));
			return M->no_count_slot ? 0 : (__u64)&M->counts[*(__u32 *)r[2]];
		}
		assert_int_equal(r[1], 0xf00d0000 + DROPS_FD);
		assert_int_equal(*(__u32 *)r[2],
				 M->nr_keys ? KSNOOP_DROP_KEYS : KSNOOP_DROP_RINGBUF);
		M->lookups++;
		return (__u64)&M->drops;
	case BPF_FUNC_map_update_elem:
		assert_int_equal(r[1], 0xf00d0000 + KEYED_FD);
		assert_int_equal(r[4], BPF_NOEXIST);
		assert_int_equal(*(__u64 *)r[3], 0);
		if (M->keys_full || M->nr_keys == ARRAY_SIZE(M->keys))
			return -E2BIG;
		memcpy(M->keys[M->nr_keys], (void *)r[2], M->key_size);
		M->keyed[M->nr_keys++] = 0;
		return 0;
	case BPF_FUNC_ktime_get_ns:
		return M->now;
	case BPF_FUNC_get_current_pid_tgid:
		return (__u64)4242 << 32 | 4343;
	case BPF_FUNC_get_smp_processor_id:
		return 3;
	case BPF_FUNC_get_current_comm:
		assert_int_equal(r[2], KSNOOP_COMM_LEN);
		strcpy((char *)r[1], "workload");
		return 0;
	case BPF_FUNC_get_func_arg:
		assert_int_equal(CTX_KIND, STRAIGHT_TRAMPOLINE);
		assert_true(r[2] < 8);
		*(__u64 *)r[3] = M->args[r[2]];
		return 0;
	case BPF_FUNC_get_func_ret:
		assert_int_equal(CTX_KIND, STRAIGHT_TRAMPOLINE);
		*(__u64 *)r[2] = M->ret;
		return 0;
	case BPF_FUNC_probe_read_kernel:
	case BPF_FUNC_probe_read_user:
		*(id == BPF_FUNC_probe_read_user ? &M->reads_user : &M->reads_kernel) += 1;
		if (M->read_fails || !r[3]) {
			memset((void *)r[1], 0, r[2]);
			return -EFAULT;
		}
		memcpy((void *)r[1], (void *)r[3], r[2]);
		return 0;
	}
	fail_msg("unexpected helper %d", id);
	return 0;
}

/* Runs insns[0..n) until exit; jumps must stay inside. */
static __u64 run(const struct bpf_insn *insns, int n)
{
	__u64 r[11] = { 0 }, steps = 0;
	int pc = 0;

	r[1] = (__u64)M->regs;
	r[10] = (__u64)(M->stack + sizeof(M->stack));
	while (pc >= 0 && pc < n && steps++ < 10000) {
		const struct bpf_insn *in = &insns[pc++];
		__u64 src = BPF_SRC(in->code) == BPF_X ? r[in->src_reg] : (__u64)(__s64)in->imm;
		__u64 *dst = &r[in->dst_reg];
		__u8 size = BPF_SIZE(in->code);
		int bytes = size == BPF_B ? 1 : size == BPF_H ? 2 : size == BPF_W ? 4 : 8;
		bool taken;

		switch (BPF_CLASS(in->code)) {
		case BPF_ALU64:
			switch (BPF_OP(in->code)) {
			case BPF_MOV:
				*dst = src;
				break;
			case BPF_ADD:
				*dst += src;
				break;
			case BPF_SUB:
				*dst -= src;
				break;
			case BPF_AND:
				*dst &= src;
				break;
			case BPF_RSH:
				*dst >>= src;
				break;
			case BPF_LSH:
				*dst <<= src;
				break;
			default:
				fail_msg("alu op %#x at %d", in->code, pc - 1);
			}
			break;
		case BPF_LD:
			assert_int_equal(in->code, BPF_LD | BPF_DW | BPF_IMM);
			assert_true(pc < n);
			if (in->src_reg == BPF_PSEUDO_MAP_FD)
				*dst = 0xf00d0000 + in->imm;
			else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
				*dst = (__u64)&M->last_wake + insns[pc].imm - 64;
			else
				*dst = (__u32)in->imm | (__u64)(__u32)insns[pc].imm << 32;
			assert_true(in->src_reg != BPF_PSEUDO_MAP_VALUE || in->imm == BSS_FD);
			pc++;
			break;
		case BPF_LDX:
			*dst = 0;
			memcpy(dst, (void *)(r[in->src_reg] + in->off), bytes);
			break;
		case BPF_STX:
			memcpy((void *)(*dst + in->off), &r[in->src_reg], bytes);
			break;
		case BPF_ST:
			memcpy((void *)(*dst + in->off), &(__u64){ (__u64)(__s64)in->imm }, bytes);
			break;
		case BPF_JMP:
			switch (BPF_OP(in->code)) {
			case BPF_EXIT:
				return r[0];
			case BPF_CALL:
				r[0] = helper(in->imm, r);
				continue;
			case BPF_JA:
				taken = true;
				break;
			case BPF_JEQ:
				taken = *dst == src;
				break;
			case BPF_JNE:
				taken = *dst != src;
				break;
			case BPF_JLT:
				taken = *dst < src;
				break;
			case BPF_JGE:
				taken = *dst >= src;
				break;
			case BPF_JSLT:
				taken = (__s64)*dst < (__s64)src;
				break;
			default:
				fail_msg("jump op %#x at %d", in->code, pc - 1);
				taken = false;
			}
			if (taken)
				pc += in->off;
			break;
		default:
			fail_msg("instruction class %#x at %d", in->code, pc - 1);
		}
	}
	fail_msg("ran off the program at %d", pc);
	return 0;
}

static struct straight_env ENV = {
	.ring_fd = RING_FD,
	.drops_fd = DROPS_FD,
	.bss_fd = BSS_FD,
	.wake_off = 64,
	.wake_bytes = 1 << 12,
	.wake_ns = 10000000,
	.counts_fd = COUNTS_FD,
	.epoch_off = 72,
};

static int setup(void **state)
{
	M = calloc(1, sizeof(*M));
	*state = M;
	CTX_KIND = STRAIGHT_TRAMPOLINE;
	return M ? 0 : -1;
}

static int setup_kprobe(void **state)
{
	int err = setup(state);

	CTX_KIND = STRAIGHT_KPROBE;
	return err;
}

static int teardown(void **state)
{
	free(*state);
	M = NULL;
	return 0;
}

/* Emits and runs cfg's side; returns the record's header. */
static struct ksnoop_event *run_side(const struct ksnoop_func_cfg *cfg, int side,
				     const struct straight_env *env)
{
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];
	int n = straight_emit(cfg, side, CTX_KIND, 5, env, insns, STRAIGHT_MAX_INSNS);

	assert_true(n > 0);
	assert_int_equal(run(insns, n), 0);
	return (struct ksnoop_event *)(M->ring + 8);
}

static struct ksnoop_vrec *vrec_at(struct ksnoop_event *ev, int off)
{
	return (struct ksnoop_vrec *)((__u8 *)ev + HDR + off);
}

/* The default trace of __do_sys_getppid: a pt_regs dumped at entry, the return. */
static void test_default_trace(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg;
	__u8 regs[168];
	struct ksnoop_event *ev;
	struct ksnoop_vrec *vr;
	int i;

	for (i = 0; i < 168; i++)
		regs[i] = i;
	make_cfg(&cfg, (int[]){ 168 }, 1);
	assert_true(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, CTX_KIND));
	assert_true(straight_side_ok(&cfg, KSNOOP_SIDE_RETURN, CTX_KIND));
	set_arg(0, (__u64)regs);
	M->now = 1000;
	ev = run_side(&cfg, KSNOOP_SIDE_ENTRY, &ENV);
	assert_int_equal(M->reserve_size, HDR + VREC + 168);
	assert_int_equal(ev->kind, KSNOOP_EV_LITE | KSNOOP_EV_ENTRY);
	assert_int_equal(ev->nr_vrecs, 1);
	assert_int_equal(ev->depth, 0);
	assert_int_equal(ev->func_id, 5);
	assert_int_equal(ev->ts, 1000);
	assert_int_equal(ev->cpu, 3);
	assert_int_equal(ev->tgid, 4242);
	assert_int_equal(ev->pid, 4343);
	assert_int_equal(ev->data_len, VREC + 168);
	assert_int_equal(ev->comm[0], 0);
	vr = vrec_at(ev, 0);
	assert_int_equal(vr->raw, (__u64)regs);
	assert_int_equal(vr->len, 168);
	assert_int_equal(vr->idx, 0);
	assert_int_equal(vr->flags, 0);
	assert_int_equal(vr->pad, 0);
	assert_memory_equal(vr + 1, regs, 168);
	/* A host address is a user one on x86-64 and arm64 alike */
	assert_int_equal(M->reads_user + M->reads_kernel, 1);
	assert_int_equal(M->submitted, 1);

	set_ret((__u64)-2);
	ev = run_side(&cfg, KSNOOP_SIDE_RETURN, &ENV);
	assert_int_equal(M->reserve_size, HDR + VREC);
	assert_int_equal(ev->kind, KSNOOP_EV_LITE | KSNOOP_EV_RETURN);
	assert_int_equal(ev->data_len, VREC);
	vr = vrec_at(ev, 0);
	assert_int_equal(vr->raw, (__u64)-2);
	assert_int_equal(vr->len, 0);
	assert_int_equal(vr->idx, 1);
	assert_int_equal(M->reads_user + M->reads_kernel, 1);
}

/* Records follow each other as lite.c lays them out: scalars, reads, a truncated one. */
static void test_layout(void **state UNUSED)
{
	static __u8 big[4000], small[12] = "hello, world";
	struct ksnoop_func_cfg cfg;
	struct ksnoop_event *ev;
	struct ksnoop_vrec *vr;

	make_cfg(&cfg, (int[]){ 0, 12, 4000 }, 3);
	cfg.values[1].final_off = 4; /* a member 4 bytes in */
	set_arg(0, 77);
	set_arg(1, (__u64)small - 4);
	set_arg(2, (__u64)big);
	ev = run_side(&cfg, KSNOOP_SIDE_ENTRY, &ENV);
	assert_int_equal(ev->nr_vrecs, 3);
	assert_int_equal(ev->data_len, VREC + VREC + 16 + VREC + KSNOOP_VALUE_MAX);
	assert_int_equal(M->reserve_size, HDR + ev->data_len);
	vr = vrec_at(ev, 0);
	assert_int_equal(vr->raw, 77);
	assert_int_equal(vr->len, 0);
	vr = vrec_at(ev, VREC);
	assert_int_equal(vr->raw, (__u64)small);
	assert_int_equal(vr->len, 12);
	assert_int_equal(vr->idx, 1);
	assert_memory_equal(vr + 1, small, 12);
	vr = vrec_at(ev, VREC + VREC + 16);
	assert_int_equal(vr->len, KSNOOP_VALUE_MAX);
	assert_int_equal(vr->flags, KSNOOP_VR_TRUNCATED);
	assert_int_equal(vr->idx, 2);
}

/* A read that fails: NULL or unreadable, its bytes zeroed, the layout kept. */
static void test_failed_reads(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg;
	struct ksnoop_event *ev;
	__u8 zero[24] = { 0 };

	make_cfg(&cfg, (int[]){ 24, 24 }, 2);
	memset(M->ring, 0xaa, sizeof(M->ring));
	set_arg(0, 0);
	set_arg(1, 0x1234);
	M->read_fails = true;
	ev = run_side(&cfg, KSNOOP_SIDE_ENTRY, &ENV);
	assert_int_equal(vrec_at(ev, 0)->flags, KSNOOP_VR_NULL);
	assert_int_equal(vrec_at(ev, 0)->raw, 0);
	assert_memory_equal(vrec_at(ev, 0) + 1, zero, 24);
	assert_int_equal(vrec_at(ev, VREC + 24)->flags, KSNOOP_VR_FAULT);
	assert_int_equal(vrec_at(ev, VREC + 24)->raw, 0x1234);
	assert_int_equal(ev->data_len, 2 * (VREC + 24));
}

/* A full ring: no submit, one drop counted, as trace.bpf.c counts it. */
static void test_ring_full(void **state UNUSED)
{
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];
	struct ksnoop_func_cfg cfg;
	int n;

	make_cfg(&cfg, (int[]){ 8 }, 1);
	M->ring_full = true;
	n = straight_emit(&cfg, KSNOOP_SIDE_ENTRY, CTX_KIND, 0, &ENV, insns, STRAIGHT_MAX_INSNS);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->drops, 2);
	assert_int_equal(M->submitted, 0);
}

/*
 * The wakeup: forced once the last forced one is wake_ns old, else when
 * the record (with its 8-byte ring header) covers a multiple of
 * wake_bytes; wake_bytes 0 leaves it to the kernel's default.
 */
static void test_wakeup(void **state UNUSED)
{
	struct straight_env env = ENV;
	struct ksnoop_func_cfg cfg;
	__u64 at = (__u64)(M->ring + 8), total = (HDR + VREC + 8 + 7) & ~7ULL, boundary;

	make_cfg(&cfg, (int[]){ 0 }, 1);
	M->now = 50000000;
	run_side(&cfg, KSNOOP_SIDE_ENTRY, &env);
	assert_int_equal(M->submitted_flags, BPF_RB_FORCE_WAKEUP);
	assert_int_equal(M->last_wake, 50000000);
	M->now += 1000;
	run_side(&cfg, KSNOOP_SIDE_ENTRY, &env);
	assert_int_equal(M->last_wake, 50000000);
	/* The first multiple of wake_bytes at or past the record's header */
	boundary = ((at - 8) + env.wake_bytes - 1) & ~(env.wake_bytes - 1);
	assert_int_equal(M->submitted_flags,
			 boundary - (at - 8) < total ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	/* A mark as small as the record: always covered */
	env.wake_bytes = 8;
	run_side(&cfg, KSNOOP_SIDE_ENTRY, &env);
	assert_int_equal(M->submitted_flags, BPF_RB_FORCE_WAKEUP);
	env.wake_bytes = 0;
	run_side(&cfg, KSNOOP_SIDE_ENTRY, &env);
	assert_int_equal(M->submitted_flags, 0);
}

static void test_comm(void **state UNUSED)
{
	struct straight_env env = ENV;
	struct ksnoop_func_cfg cfg;

	env.want_comm = true;
	make_cfg(&cfg, (int[]){ 0 }, 1);
	assert_string_equal(run_side(&cfg, KSNOOP_SIDE_ENTRY, &env)->comm, "workload");
}

/* What keeps a plan on trace.bpf.c's programs. */
static void test_eligible(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg;

	make_cfg(&cfg, (int[]){ 16, 0 }, 2);
	assert_true(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	cfg.values[0].nr_steps = 1; /* skb->dev->name: pointers to follow */
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	assert_true(straight_side_ok(&cfg, KSNOOP_SIDE_RETURN, STRAIGHT_TRAMPOLINE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.values[0].flags |= KSNOOP_V_STRING;
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.values[0].base = KSNOOP_BASE_COMM;
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.values[0].arg = 1; /* past the prototype */
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	/* Past the argument registers a kprobe finds them on the stack: fentry does not */
	make_cfg(&cfg, (int[]){ 0 }, 1);
	cfg.nr_args = KSNOOP_REG_ARGS + 1;
	cfg.values[0].arg = KSNOOP_REG_ARGS;
	assert_true(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_KPROBE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.nr_preds = 1;
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.flags = 0; /* not lite: the scratch path's plan */
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_RETURN, STRAIGHT_TRAMPOLINE));
	make_cfg(&cfg, (int[]){ 16 }, 1);
	cfg.flags |= KSNOOP_CFG_FRAME;
	assert_false(straight_side_ok(&cfg, KSNOOP_SIDE_RETURN, STRAIGHT_TRAMPOLINE));
}

/*
 * funccount's program: one more in the function's slot per call, or with
 * -i in its slot of the epoch .bss names (func_id * 2 + epoch); a slot
 * missing counts nothing and faults nothing.
 */
static void test_count(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg = { .emit = KSNOOP_EMIT_ENTRY };
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];
	struct straight_env env = ENV;
	int n;

	cfg.agg.fast = 1;
	n = straight_emit_count(&cfg, STRAIGHT_KPROBE, 5, &env, insns, STRAIGHT_MAX_INSNS);
	assert_true(n > 0);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->counts[5], 2);
	env.epochs = true;
	M->epoch = 3;
	n = straight_emit_count(&cfg, STRAIGHT_KPROBE, 5, &env, insns, STRAIGHT_MAX_INSNS);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->counts[11], 1);
	M->epoch = 4;
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->counts[10], 1);
	assert_int_equal(M->counts[5], 2);
	M->no_count_slot = true;
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(straight_emit_count(&cfg, STRAIGHT_KPROBE, 5, &env, insns, 4), -E2BIG);
}

/* A count keyed by an int argument (4 bytes, at data offset 8) and a long one. */
static void keyed_cfg(struct ksnoop_func_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->emit = KSNOOP_EMIT_ENTRY;
	cfg->agg.fast = 1;
	cfg->nr_args = 3;
	cfg->agg.nr_keys = 2;
	cfg->values[0] = (struct ksnoop_value){ .base = KSNOOP_BASE_ARG, .arg = 1 };
	cfg->values[1] = (struct ksnoop_value){ .base = KSNOOP_BASE_ARG, .arg = 2 };
	cfg->agg.key_value[0] = 0;
	cfg->agg.key_off[0] = 8;
	cfg->agg.key_len[0] = 4;
	cfg->agg.key_value[1] = 1;
	cfg->agg.key_off[1] = 16;
	cfg->agg.key_len[1] = 8;
}

/*
 * count by values: the key agg_fast builds (the function, the epoch, an
 * int's low 4 bytes, a long whole), one count per key, a new key added at
 * zero; a table that is full counts a drop of keys.
 */
static void test_count_keyed(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg;
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];
	struct straight_env env = ENV;
	struct ksnoop_agg_key *k;
	int n;

	keyed_cfg(&cfg);
	env.keyed_fd = KEYED_FD;
	env.key_size = KSNOOP_AGG_KEY_HDR + 24;
	env.epochs = true;
	M->key_size = env.key_size;
	M->epoch = 1;
	n = straight_emit_count(&cfg, CTX_KIND, 5, &env, insns, STRAIGHT_MAX_INSNS);
	assert_true(n > 0);
	set_arg(1, 0xffffffff00000007ULL);
	set_arg(2, 0x1122334455667788ULL);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(run(insns, n), 0);
	set_arg(1, 8);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->nr_keys, 2);
	assert_int_equal(M->keyed[0], 2);
	assert_int_equal(M->keyed[1], 1);
	k = (struct ksnoop_agg_key *)M->keys[0];
	assert_int_equal(k->func_id, 5);
	assert_int_equal(k->epoch, 1);
	assert_int_equal(k->tgid, 0);
	assert_int_equal(*(__u64 *)&k->data[8], 7);
	assert_int_equal(*(__u64 *)&k->data[16], 0x1122334455667788ULL);
	assert_int_equal(*(__u64 *)&k->data[0], 0);
	M->keys_full = true;
	set_arg(1, 9);
	assert_int_equal(run(insns, n), 0);
	assert_int_equal(M->nr_keys, 2);
	assert_int_equal(M->drops, 1);
}

/* What a straight-line count takes: at entry, nothing to decide per call, keys in registers. */
static void test_count_eligible(void **state UNUSED)
{
	struct ksnoop_func_cfg cfg = { .emit = KSNOOP_EMIT_ENTRY };

	cfg.agg.fast = 1;
	assert_true(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	cfg.nr_preds = 1;
	assert_false(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	cfg.nr_preds = 0;
	cfg.nr_fast_preds = 1;
	assert_false(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	cfg.nr_fast_preds = 0;
	cfg.emit = KSNOOP_EMIT_RETURN; /* keyed by the return value */
	assert_false(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	cfg.emit = KSNOOP_EMIT_ENTRY;
	cfg.flags = KSNOOP_CFG_SPAN;
	assert_false(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	cfg.flags = 0;
	cfg.agg.fast = 0; /* a value read from memory */
	assert_false(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
	keyed_cfg(&cfg);
	assert_true(straight_count_ok(&cfg, STRAIGHT_KPROBE));
	cfg.agg.key_len[1] = 16; /* a string's slot */
	assert_false(straight_count_ok(&cfg, STRAIGHT_KPROBE));
	keyed_cfg(&cfg);
	cfg.values[1].base = KSNOOP_BASE_RET;
	assert_false(straight_count_ok(&cfg, STRAIGHT_KPROBE));
	keyed_cfg(&cfg);
	cfg.nr_args = KSNOOP_REG_ARGS + 1;
	cfg.values[1].arg = KSNOOP_REG_ARGS; /* on a kprobe's stack */
	assert_false(straight_count_ok(&cfg, STRAIGHT_KPROBE));
	assert_true(straight_count_ok(&cfg, STRAIGHT_TRAMPOLINE));
}

/* The largest side there is: 8 values, each read at an offset, with comm. */
static void test_largest(void **state UNUSED)
{
	static __u64 data[8];
	struct straight_env env = ENV;
	struct ksnoop_func_cfg cfg;
	struct ksnoop_event *ev;
	int i;

	env.want_comm = true;
	make_cfg(&cfg, (int[]){ 8, 8, 8, 8, 8, 8, 8, 8 }, KSNOOP_LITE_VALUES);
	for (i = 0; i < KSNOOP_LITE_VALUES; i++) {
		data[i] = 100 + i;
		cfg.values[i].final_off = 8 * i;
		set_arg(i, (__u64)data);
	}
	ev = run_side(&cfg, KSNOOP_SIDE_ENTRY, &env);
	assert_int_equal(ev->nr_vrecs, KSNOOP_LITE_VALUES);
	for (i = 0; i < KSNOOP_LITE_VALUES; i++) {
		struct ksnoop_vrec *vr = vrec_at(ev, i * (VREC + 8));

		assert_int_equal(vr->raw, (__u64)&data[i]);
		assert_int_equal(*(__u64 *)(vr + 1), 100 + i);
	}
}

/*
 * Golden programs: each fixture's instructions, one a line, as
 * tests/unit/golden/straight/NAME.txt holds them. Any change to the emitted
 * code fails here until the files are written anew, on purpose:
 * KSNOOP_UPDATE_GOLDEN=1 build/tests/test_straight (from the repo's root).
 */
#define GOLDEN_DIR "tests/unit/golden/straight/"

static void render(struct strbuf *sb, const struct bpf_insn *insns, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sb_printf(sb, "%3d: code %02x dst r%d src r%d off %d imm %d\n", i, insns[i].code,
			  insns[i].dst_reg, insns[i].src_reg, insns[i].off, insns[i].imm);
}

static void compare_golden(const char *name, const struct bpf_insn *insns, int n)
{
	char path[256], want[65536];
	struct strbuf sb;
	size_t len = 0;
	FILE *f;

	assert_true(n > 0);
	sb_init(&sb);
	render(&sb, insns, n);
	snprintf(path, sizeof(path), GOLDEN_DIR "%s.txt", name);
	if (getenv("KSNOOP_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(sb_str(&sb), f);
		fclose(f);
	}
	f = fopen(path, "r");
	if (!f)
		print_error("%s: %s (KSNOOP_UPDATE_GOLDEN=1 writes it)\n", path, strerror(errno));
	assert_non_null(f);
	len = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[len] = 0;
	if (strcmp(want, sb_str(&sb)))
		print_error("%s differs from what straight.c emits now:\n%s", path, sb_str(&sb));
	assert_string_equal(want, sb_str(&sb));
	sb_free(&sb);
}

static void check_golden(const char *name, const struct ksnoop_func_cfg *cfg, int side,
			 enum straight_ctx ctx, const struct straight_env *env)
{
	struct bpf_insn insns[STRAIGHT_MAX_INSNS];

	compare_golden(name, insns,
		       straight_emit(cfg, side, ctx, 5, env, insns, STRAIGHT_MAX_INSNS));
}

static void test_golden(void **state UNUSED)
{
	static const struct {
		const char *name;
		enum straight_ctx ctx;
	} ctxs[] = { { "fentry", STRAIGHT_TRAMPOLINE }, { "kprobe", STRAIGHT_KPROBE } };
	struct straight_env comm = ENV;
	struct ksnoop_func_cfg cfg;
	char name[64];
	size_t c;
	int i;

	comm.want_comm = true;
	for (c = 0; c < ARRAY_SIZE(ctxs); c++) {
		/* the default trace of __do_sys_getppid: a pt_regs read, the return */
		make_cfg(&cfg, (int[]){ 168 }, 1);
		snprintf(name, sizeof(name), "%s-default-entry", ctxs[c].name);
		check_golden(name, &cfg, KSNOOP_SIDE_ENTRY, ctxs[c].ctx, &ENV);
		snprintf(name, sizeof(name), "%s-default-return", ctxs[c].name);
		check_golden(name, &cfg, KSNOOP_SIDE_RETURN, ctxs[c].ctx, &ENV);
		/* the largest side: 8 reads at offsets, with comm */
		make_cfg(&cfg, (int[]){ 8, 8, 8, 8, 8, 8, 8, 8 }, KSNOOP_LITE_VALUES);
		for (i = 0; i < KSNOOP_LITE_VALUES; i++)
			cfg.values[i].final_off = 8 * i;
		snprintf(name, sizeof(name), "%s-largest-comm", ctxs[c].name);
		check_golden(name, &cfg, KSNOOP_SIDE_ENTRY, ctxs[c].ctx, &comm);
	}
	{
		struct bpf_insn insns[STRAIGHT_MAX_INSNS];
		struct straight_env epochs = ENV;

		struct ksnoop_func_cfg kc;

		keyed_cfg(&kc);
		kc.agg.nr_keys = 0;
		compare_golden("count", insns,
			       straight_emit_count(&kc, STRAIGHT_KPROBE, 5, &ENV, insns,
						   STRAIGHT_MAX_INSNS));
		epochs.epochs = true;
		compare_golden("count-epochs", insns,
			       straight_emit_count(&kc, STRAIGHT_KPROBE, 5, &epochs, insns,
						   STRAIGHT_MAX_INSNS));
		keyed_cfg(&kc);
		epochs.keyed_fd = KEYED_FD;
		epochs.key_size = KSNOOP_AGG_KEY_HDR + 24;
		compare_golden("count-keyed-kprobe", insns,
			       straight_emit_count(&kc, STRAIGHT_KPROBE, 5, &epochs, insns,
						   STRAIGHT_MAX_INSNS));
		compare_golden("count-keyed-fentry", insns,
			       straight_emit_count(&kc, STRAIGHT_TRAMPOLINE, 5, &epochs, insns,
						   STRAIGHT_MAX_INSNS));
	}
}

static void test_no_room(void **state UNUSED)
{
	struct bpf_insn insns[20];
	struct ksnoop_func_cfg cfg;

	make_cfg(&cfg, (int[]){ 8, 8, 8 }, 3);
	assert_int_equal(straight_emit(&cfg, KSNOOP_SIDE_ENTRY, STRAIGHT_TRAMPOLINE, 0, &ENV, insns,
				       20),
			 -E2BIG);
}

int main(void)
{
#define BOTH(t)                                              \
	cmocka_unit_test_setup_teardown(t, setup, teardown), \
		cmocka_unit_test_setup_teardown(t, setup_kprobe, teardown)
	const struct CMUnitTest tests[] = {
		BOTH(test_default_trace),
		BOTH(test_layout),
		BOTH(test_failed_reads),
		BOTH(test_ring_full),
		BOTH(test_wakeup),
		BOTH(test_comm),
		BOTH(test_largest),
		cmocka_unit_test_setup_teardown(test_count, setup, teardown),
		BOTH(test_count_keyed),
		cmocka_unit_test(test_count_eligible),
		cmocka_unit_test(test_eligible),
		cmocka_unit_test(test_no_room),
		cmocka_unit_test(test_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
