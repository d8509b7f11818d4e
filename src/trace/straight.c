// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>

#include "lib/arch.h"
#include "lib/archinfo.h"
#include "trace/straight.h"

/*
 * The registers of a straight-line program: the context, the record, the
 * event's time and the wakeup flag live in callee-saved ones across the
 * helper calls.
 */
enum { R0, R1, R2, R3, R4, R5, CTX, EV, NOW, WAKE, FP };

#define MAX_LABELS 40
#define MAX_JUMPS 40
#define STACK_KEY (-4)	  /* the drops key */
#define STACK_VALUE (-16) /* where bpf_get_func_arg/ret leave a value */

struct emitter {
	struct bpf_insn *insn;
	int n, max, err;
	int label_at[MAX_LABELS], nr_labels;
	struct {
		int insn, label;
	} jump[MAX_JUMPS];
	int nr_jumps;
};

static void put(struct emitter *e, __u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	if (e->n >= e->max) {
		e->err = -E2BIG;
		return;
	}
	e->insn[e->n++] = (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
	};
}

static void mov(struct emitter *e, int dst, int src)
{
	put(e, BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0);
}

static void mov_imm(struct emitter *e, int dst, __s32 imm)
{
	put(e, BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm);
}

static void alu_imm(struct emitter *e, int op, int dst, __s32 imm)
{
	put(e, BPF_ALU64 | op | BPF_K, dst, 0, 0, imm);
}

/* dst = imm64, or with src_reg a map's fd (and value offset). */
static void ld_imm64(struct emitter *e, int dst, int pseudo, __s32 lo, __s32 hi)
{
	put(e, BPF_LD | BPF_DW | BPF_IMM, dst, pseudo, 0, lo);
	put(e, 0, 0, 0, 0, hi);
}

static void load(struct emitter *e, int size, int dst, int src, __s16 off)
{
	put(e, BPF_LDX | BPF_MEM | size, dst, src, off, 0);
}

static void store(struct emitter *e, int size, int dst, __s16 off, int src)
{
	put(e, BPF_STX | BPF_MEM | size, dst, src, off, 0);
}

static void store_imm(struct emitter *e, int size, int dst, __s16 off, __s32 imm)
{
	put(e, BPF_ST | BPF_MEM | size, dst, 0, off, imm);
}

static void call(struct emitter *e, int helper)
{
	put(e, BPF_JMP | BPF_CALL, 0, 0, 0, helper);
}

static int label(struct emitter *e)
{
	if (e->nr_labels >= MAX_LABELS) {
		e->err = -E2BIG;
		return 0;
	}
	e->label_at[e->nr_labels] = -1;
	return e->nr_labels++;
}

static void here(struct emitter *e, int l)
{
	e->label_at[l] = e->n;
}

/* A jump to label l: code is BPF_JA, or a BPF_JMP comparison with imm or src. */
static void jump(struct emitter *e, __u8 code, int reg, int src, __s32 imm, int l)
{
	if (e->nr_jumps >= MAX_JUMPS) {
		e->err = -E2BIG;
		return;
	}
	e->jump[e->nr_jumps].insn = e->n;
	e->jump[e->nr_jumps++].label = l;
	put(e, BPF_JMP | code, reg, src, 0, imm);
}

static int resolve(struct emitter *e)
{
	int i;

	for (i = 0; !e->err && i < e->nr_jumps; i++) {
		int to = e->label_at[e->jump[i].label];

		if (to < 0)
			return -EINVAL;
		e->insn[e->jump[i].insn].off = to - e->jump[i].insn - 1;
	}
	return e->err ? e->err : e->n;
}

/* The bytes value v's record holds after its header. */
static __u32 value_len(const struct ksnoop_value *v)
{
	if (!(v->flags & KSNOOP_V_READ))
		return 0;
	return v->size < KSNOOP_VALUE_MAX ? v->size : KSNOOP_VALUE_MAX;
}

/*
 * A register's value, and at most a plain read where it points. A kprobe
 * finds the arguments past the registers on the stack, which a
 * straight-line program does not read.
 */
static bool value_ok(const struct ksnoop_func_cfg *cfg, const struct ksnoop_value *v,
		     enum straight_ctx ctx)
{
	if (v->nr_steps || (v->flags & KSNOOP_V_STRING))
		return false;
	if (v->base == KSNOOP_BASE_ARG)
		return v->arg < cfg->nr_args &&
		       (ctx == STRAIGHT_TRAMPOLINE || v->arg < KSNOOP_REG_ARGS);
	return v->base == KSNOOP_BASE_RET;
}

bool straight_side_ok(const struct ksnoop_func_cfg *cfg, int side, enum straight_ctx ctx)
{
	__u32 k;

	if (!(cfg->flags & KSNOOP_CFG_LITE) || (cfg->flags & KSNOOP_CFG_FRAME) || cfg->nr_preds ||
	    (cfg->emit & KSNOOP_EMIT_COMBINED) || cfg->nr_side[side] > KSNOOP_LITE_VALUES)
		return false;
	for (k = 0; k < cfg->nr_side[side]; k++) {
		const struct ksnoop_value *v = &cfg->values[cfg->side[side][k] % KSNOOP_MAX_VALUES];

		if (!value_ok(cfg, v, ctx))
			return false;
	}
	return true;
}

/* drops[why] += 1, as bpf/trace/state.h's count_drop(); then to out. */
static void emit_drop_of(struct emitter *e, const struct straight_env *env, int why, int out)
{
	store_imm(e, BPF_W, FP, STACK_KEY, why);
	mov(e, R2, FP);
	alu_imm(e, BPF_ADD, R2, STACK_KEY);
	ld_imm64(e, R1, BPF_PSEUDO_MAP_FD, env->drops_fd, 0);
	call(e, BPF_FUNC_map_lookup_elem);
	jump(e, BPF_JEQ | BPF_K, R0, 0, 0, out);
	load(e, BPF_DW, R1, R0, 0);
	alu_imm(e, BPF_ADD, R1, 1);
	store(e, BPF_DW, R0, 0, R1);
	jump(e, BPF_JA, 0, 0, 0, out);
}

/* On a full ring: drops[KSNOOP_DROP_RINGBUF] += 1. */
static void emit_drop(struct emitter *e, const struct straight_env *env, int out)
{
	emit_drop_of(e, env, KSNOOP_DROP_RINGBUF, out);
}

/*
 * WAKE = the flag for bpf_ringbuf_submit, as bpf/trace/record.h's place_wakeup()
 * decides it: forced when the last forced one is wake_ns old, or when the
 * record covers a multiple of wake_bytes in the ring's address space.
 */
static void emit_wakeup(struct emitter *e, const struct straight_env *env, __u32 rec)
{
	__u32 total = (rec + BPF_RINGBUF_HDR_SZ + 7) & ~7U;
	int place = label(e), done = label(e);

	if (!env->wake_bytes) {
		mov_imm(e, WAKE, 0);
		return;
	}
	ld_imm64(e, R1, BPF_PSEUDO_MAP_VALUE, env->bss_fd, env->wake_off);
	load(e, BPF_DW, R2, R1, 0);
	mov(e, R3, NOW);
	put(e, BPF_ALU64 | BPF_SUB | BPF_X, R3, R2, 0, 0);
	mov_imm(e, R2, (__s32)env->wake_ns);
	jump(e, BPF_JSLT | BPF_X, R3, R2, 0, place);
	store(e, BPF_DW, R1, 0, NOW);
	mov_imm(e, WAKE, BPF_RB_FORCE_WAKEUP);
	jump(e, BPF_JA, 0, 0, 0, done);
	here(e, place);
	/* The record's address as a number: only memory gives it (to CAP_PERFMON). */
	store(e, BPF_DW, EV, KSNOOP_EV_SCRATCH_OFF, EV);
	load(e, BPF_DW, R2, EV, KSNOOP_EV_SCRATCH_OFF);
	mov_imm(e, R3, BPF_RINGBUF_HDR_SZ);
	put(e, BPF_ALU64 | BPF_SUB | BPF_X, R3, R2, 0, 0);
	alu_imm(e, BPF_AND, R3, (__s32)(env->wake_bytes - 1));
	mov_imm(e, WAKE, BPF_RB_NO_WAKEUP);
	jump(e, BPF_JGE | BPF_K, R3, 0, total, done);
	mov_imm(e, WAKE, BPF_RB_FORCE_WAKEUP);
	here(e, done);
}

/* The lite header (KSNOOP_LITE_HDR_SIZE bytes), as bpf/trace/record.h's init_head(). */
static void emit_head(struct emitter *e, const struct straight_env *env, int side, __u32 func_id,
		      __u32 nr, __u32 data_len)
{
	__u32 kind = KSNOOP_EV_LITE |
		     (side == KSNOOP_SIDE_ENTRY ? KSNOOP_EV_ENTRY : KSNOOP_EV_RETURN);

	call(e, BPF_FUNC_get_current_pid_tgid);
	store(e, BPF_W, EV, offsetof(struct ksnoop_event, pid), R0);
	alu_imm(e, BPF_RSH, R0, 32);
	store(e, BPF_W, EV, offsetof(struct ksnoop_event, tgid), R0);
	store(e, BPF_DW, EV, offsetof(struct ksnoop_event, ts), NOW);
	store_imm(e, BPF_W, EV, 0, KSNOOP_EV_HEAD_WORD(kind, nr));
	store_imm(e, BPF_W, EV, offsetof(struct ksnoop_event, func_id), func_id);
	store_imm(e, BPF_W, EV, offsetof(struct ksnoop_event, data_len), data_len);
	call(e, BPF_FUNC_get_smp_processor_id);
	store(e, BPF_W, EV, offsetof(struct ksnoop_event, cpu), R0);
	if (!env->want_comm) {
		store_imm(e, BPF_B, EV, offsetof(struct ksnoop_event, comm), 0);
		return;
	}
	mov(e, R1, EV);
	alu_imm(e, BPF_ADD, R1, offsetof(struct ksnoop_event, comm));
	mov_imm(e, R2, KSNOOP_COMM_LEN);
	call(e, BPF_FUNC_get_current_comm);
}

/*
 * R1 = the argument or return value v names: a kprobe's from its saved
 * registers, a trampoline's through the helpers the verifier inlines (a
 * load from its context would have to pass the verifier's BTF checks of
 * the argument's type).
 */
static void emit_register(struct emitter *e, const struct ksnoop_value *v, enum straight_ctx ctx)
{
	if (ctx == STRAIGHT_KPROBE) {
		load(e, BPF_DW, R1, CTX,
		     v->base == KSNOOP_BASE_RET ? KSNOOP_PT_REGS_RET_OFF
						: KSNOOP_PT_REGS_ARG_OFF(v->arg));
		return;
	}
	mov(e, R1, CTX);
	if (v->base == KSNOOP_BASE_RET) {
		mov(e, R2, FP);
		alu_imm(e, BPF_ADD, R2, STACK_VALUE);
		call(e, BPF_FUNC_get_func_ret);
	} else {
		mov_imm(e, R2, v->arg);
		mov(e, R3, FP);
		alu_imm(e, BPF_ADD, R3, STACK_VALUE);
		call(e, BPF_FUNC_get_func_arg);
	}
	load(e, BPF_DW, R1, FP, STACK_VALUE);
}

/* Jumps to user when R3 is a user address (KSNOOP_IS_USER_ADDR). */
static void emit_user_test(struct emitter *e, int user)
{
	const struct arch *a = arch_native();

	if (a->kernel_addr_bit >= 0) {
		mov(e, R4, R3);
		alu_imm(e, BPF_RSH, R4, a->kernel_addr_bit);
		alu_imm(e, BPF_AND, R4, 1);
		jump(e, BPF_JEQ | BPF_K, R4, 0, 0, user);
		return;
	}
	ld_imm64(e, R4, 0, (__s32)a->user_addr_end, (__s32)(a->user_addr_end >> 32));
	jump(e, BPF_JLT | BPF_X, R3, R4, 0, user);
}

/*
 * Value v's record at offset at of the event: its register, and with
 * KSNOOP_V_READ the len bytes at register + final_off after it. Unlike
 * trace.bpf.c, a read that fails keeps its len, the helper having zeroed
 * the bytes, so every record stays where the layout put it; its flag says
 * NULL or unreadable, which is all the output looks at then.
 */
static void emit_value(struct emitter *e, const struct ksnoop_value *v, enum straight_ctx ctx,
		       __u32 idx, __u32 at)
{
	__u32 len = value_len(v), trunc = v->size > KSNOOP_VALUE_MAX ? KSNOOP_VR_TRUNCATED : 0;
	int user = label(e), read = label(e), next = label(e);
	__s16 flags_at = at + offsetof(struct ksnoop_vrec, flags);

	emit_register(e, v, ctx);
	if ((v->flags & KSNOOP_V_READ) && v->final_off)
		alu_imm(e, BPF_ADD, R1, v->final_off);
	store(e, BPF_DW, EV, at, R1);
	store_imm(e, BPF_W, EV, at + KSNOOP_VREC_LEN_OFF,
		  KSNOOP_VREC_LEN_WORD(len, idx, len ? trunc : 0));
	store_imm(e, BPF_W, EV, at + KSNOOP_VREC_PAD_OFF, 0);
	if (!(v->flags & KSNOOP_V_READ))
		return;
	mov(e, R3, R1);
	mov(e, R1, EV);
	alu_imm(e, BPF_ADD, R1, at + sizeof(struct ksnoop_vrec));
	mov_imm(e, R2, len);
	emit_user_test(e, user);
	call(e, BPF_FUNC_probe_read_kernel);
	jump(e, BPF_JA, 0, 0, 0, read);
	here(e, user);
	call(e, BPF_FUNC_probe_read_user);
	here(e, read);
	jump(e, BPF_JEQ | BPF_K, R0, 0, 0, next);
	store_imm(e, BPF_B, EV, flags_at, KSNOOP_VR_FAULT);
	load(e, BPF_DW, R1, EV, at);
	jump(e, BPF_JNE | BPF_K, R1, 0, 0, next);
	store_imm(e, BPF_B, EV, flags_at, KSNOOP_VR_NULL);
	here(e, next);
}

int straight_emit(const struct ksnoop_func_cfg *cfg, int side, enum straight_ctx ctx, __u32 func_id,
		  const struct straight_env *env, struct bpf_insn *insns, int max)
{
	struct emitter e = { .insn = insns, .max = max };
	__u32 k, nr = cfg->nr_side[side], at[KSNOOP_LITE_VALUES], off = 0, rec;
	int out = label(&e), have = label(&e);

	if (nr > KSNOOP_LITE_VALUES)
		return -EINVAL;
	for (k = 0; k < nr; k++) {
		at[k] = KSNOOP_LITE_HDR_SIZE + off;
		off += KSNOOP_VREC_SIZE(
			value_len(&cfg->values[cfg->side[side][k] % KSNOOP_MAX_VALUES]));
	}
	rec = KSNOOP_LITE_HDR_SIZE + off;
	mov(&e, CTX, R1);
	/* The helpers' output slot, initialised as the verifier wants it. */
	store_imm(&e, BPF_DW, FP, STACK_VALUE, 0);
	ld_imm64(&e, R1, BPF_PSEUDO_MAP_FD, env->ring_fd, 0);
	mov_imm(&e, R2, rec);
	mov_imm(&e, R3, 0);
	call(&e, BPF_FUNC_ringbuf_reserve);
	jump(&e, BPF_JNE | BPF_K, R0, 0, 0, have);
	emit_drop(&e, env, out);
	here(&e, have);
	mov(&e, EV, R0);
	call(&e, BPF_FUNC_ktime_get_ns);
	mov(&e, NOW, R0);
	emit_wakeup(&e, env, rec);
	emit_head(&e, env, side, func_id, nr, off);
	for (k = 0; k < nr; k++) {
		__u32 i = cfg->side[side][k] % KSNOOP_MAX_VALUES;

		emit_value(&e, &cfg->values[i], ctx, i, at[k]);
	}
	mov(&e, R1, EV);
	mov(&e, R2, WAKE);
	call(&e, BPF_FUNC_ringbuf_submit);
	here(&e, out);
	mov_imm(&e, R0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return resolve(&e);
}

bool straight_count_ok(const struct ksnoop_func_cfg *cfg, enum straight_ctx ctx)
{
	__u32 n;

	if (!cfg->agg.fast || cfg->nr_preds || cfg->nr_fast_preds ||
	    (cfg->flags & (KSNOOP_CFG_FRAME | KSNOOP_CFG_SPAN | KSNOOP_CFG_FOLLOW)) ||
	    cfg->emit != KSNOOP_EMIT_ENTRY || cfg->agg.nr_keys > KSNOOP_AGG_MAX_KEYS)
		return false;
	for (n = 0; n < cfg->agg.nr_keys; n++) {
		const struct ksnoop_value *v =
			&cfg->values[cfg->agg.key_value[n] % KSNOOP_MAX_VALUES];

		if (v->base != KSNOOP_BASE_ARG || v->arg >= cfg->nr_args ||
		    (ctx == STRAIGHT_KPROBE && v->arg >= KSNOOP_REG_ARGS) ||
		    cfg->agg.key_len[n] > 8 || cfg->agg.key_off[n] + 8 > KSNOOP_AGG_FAST_DATA)
			return false;
	}
	return true;
}

/* The key's slot, below the helpers' output slot: a fast key's header and data. */
#define STACK_KEY_AT (STACK_VALUE - (int)(KSNOOP_AGG_KEY_HDR + KSNOOP_AGG_FAST_DATA))
#define STACK_ZERO (STACK_KEY_AT - 8)

/* R2 = the epoch -i counts in now, 0 or 1. */
static void emit_epoch(struct emitter *e, const struct straight_env *env)
{
	ld_imm64(e, R1, BPF_PSEUDO_MAP_VALUE, env->bss_fd, env->epoch_off);
	load(e, BPF_W, R2, R1, 0);
	alu_imm(e, BPF_AND, R2, 1);
}

/* The key agg_fast builds, at STACK_KEY_AT: zeroed, the function, the epoch, the values. */
static void emit_key(struct emitter *e, const struct ksnoop_func_cfg *cfg, enum straight_ctx ctx,
		     __u32 func_id, const struct straight_env *env)
{
	__u32 off, n, len;

	for (off = 0; off < env->key_size; off += 8)
		store_imm(e, BPF_DW, FP, STACK_KEY_AT + (int)off, 0);
	store_imm(e, BPF_W, FP, STACK_KEY_AT + (int)offsetof(struct ksnoop_agg_key, func_id),
		  (__s32)func_id);
	if (env->epochs) {
		emit_epoch(e, env);
		store(e, BPF_W, FP, STACK_KEY_AT + (int)offsetof(struct ksnoop_agg_key, epoch), R2);
	}
	for (n = 0; n < cfg->agg.nr_keys; n++) {
		emit_register(e, &cfg->values[cfg->agg.key_value[n] % KSNOOP_MAX_VALUES], ctx);
		len = cfg->agg.key_len[n];
		/* a register holds more than its type: only the type's bytes count */
		if (len < 8) {
			alu_imm(e, BPF_LSH, R1, 64 - 8 * len);
			alu_imm(e, BPF_RSH, R1, 64 - 8 * len);
		}
		store(e, BPF_DW, FP, STACK_KEY_AT + KSNOOP_AGG_KEY_HDR + (int)cfg->agg.key_off[n],
		      R1);
	}
}

/* R0 = the key's count, added at zero when new; to out when it cannot be (a drop counted). */
static void emit_key_slot(struct emitter *e, const struct straight_env *env, int out)
{
	int have = label(e);

	ld_imm64(e, R1, BPF_PSEUDO_MAP_FD, env->keyed_fd, 0);
	mov(e, R2, FP);
	alu_imm(e, BPF_ADD, R2, STACK_KEY_AT);
	call(e, BPF_FUNC_map_lookup_elem);
	jump(e, BPF_JNE | BPF_K, R0, 0, 0, have);
	store_imm(e, BPF_DW, FP, STACK_ZERO, 0);
	ld_imm64(e, R1, BPF_PSEUDO_MAP_FD, env->keyed_fd, 0);
	mov(e, R2, FP);
	alu_imm(e, BPF_ADD, R2, STACK_KEY_AT);
	mov(e, R3, FP);
	alu_imm(e, BPF_ADD, R3, STACK_ZERO);
	mov_imm(e, R4, BPF_NOEXIST);
	call(e, BPF_FUNC_map_update_elem);
	/* another CPU may have added it just now: look again either way */
	ld_imm64(e, R1, BPF_PSEUDO_MAP_FD, env->keyed_fd, 0);
	mov(e, R2, FP);
	alu_imm(e, BPF_ADD, R2, STACK_KEY_AT);
	call(e, BPF_FUNC_map_lookup_elem);
	jump(e, BPF_JNE | BPF_K, R0, 0, 0, have);
	emit_drop_of(e, env, KSNOOP_DROP_KEYS, out);
	here(e, have);
}

int straight_emit_count(const struct ksnoop_func_cfg *cfg, enum straight_ctx ctx, __u32 func_id,
			const struct straight_env *env, struct bpf_insn *insns, int max)
{
	struct emitter e = { .insn = insns, .max = max };
	int out = label(&e);

	if (env->keyed_fd && (env->key_size > KSNOOP_AGG_KEY_HDR + KSNOOP_AGG_FAST_DATA ||
			      !straight_count_ok(cfg, ctx)))
		return -EINVAL;
	mov(&e, CTX, R1);
	if (env->keyed_fd) {
		emit_key(&e, cfg, ctx, func_id, env);
		emit_key_slot(&e, env, out);
	} else {
		if (env->epochs) {
			emit_epoch(&e, env);
			alu_imm(&e, BPF_ADD, R2, (__s32)(func_id * 2));
			store(&e, BPF_W, FP, STACK_KEY, R2);
		} else {
			store_imm(&e, BPF_W, FP, STACK_KEY, (__s32)func_id);
		}
		mov(&e, R2, FP);
		alu_imm(&e, BPF_ADD, R2, STACK_KEY);
		ld_imm64(&e, R1, BPF_PSEUDO_MAP_FD, env->counts_fd, 0);
		call(&e, BPF_FUNC_map_lookup_elem);
		jump(&e, BPF_JEQ | BPF_K, R0, 0, 0, out);
	}
	load(&e, BPF_DW, R1, R0, 0);
	alu_imm(&e, BPF_ADD, R1, 1);
	store(&e, BPF_DW, R0, 0, R1);
	here(&e, out);
	mov_imm(&e, R0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return resolve(&e);
}
