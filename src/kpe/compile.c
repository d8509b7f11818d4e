// SPDX-License-Identifier: GPL-2.0
/*
 * kpe_def -> kpe_probe. Every fetch argument becomes a source (a register
 * or an immediate), a chain of memory loads, and a store: the last load of
 * the chain is the sized (or string, or array) read, the ones before it
 * load pointers. BTF arguments resolve through plan.c into the same shape.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/archinfo.h"
#include "lib/bpfutil.h"
#include "lib/ktp.h"
#include "kpe/compile.h"
#include "trace/plan.h"
#include "trace/spec.h"
#include "lib/util.h"

/* The kernel's messages, from kernel/trace/trace_probe.h. */
#define E_BAD_PROBE_ADDR "Invalid probed address or symbol"
#define E_NON_UNIQ_SYMBOL "The symbol is not unique"
#define E_BAD_MEM_ADDR "Invalid memory address"
#define E_NO_BTFARG "This variable is not found at this probe point"
#define E_NO_BTF_ENTRY "No BTF entry for this probe point"
#define E_NOSUP_BTFARG "BTF is not available or not supported"
#define E_NO_RETVAL "This function returns 'void' type"
#define E_NO_PTR_STRCT "This is not a pointer to union/structure."
#define E_NOSUP_DAT_ARG "Non pointer structure/union argument is not supported."
#define E_NO_BTF_FIELD "This field is not found."
#define E_BAD_TYPE4STR "This type does not fit for string."
#define E_BAD_STRING "String accepts only memory argument"
#define E_USED_ARG_NAME "This argument name is already used"
#define E_ARGS_2LONG "$arg* failed because the argument list is too long"
#define E_TOO_MANY_OPS "Dereference is too much nested"
#define E_BAD_VAR "Invalid $-variable specified"
#define E_NO_EVENT_FIELD "This event field is not found."
#define E_BAD_ATTACH_EVENT "Attached event does not exist"
#define E_BAD_BTF_TID "Failed to get BTF type info."
#define E_BAD_HYPHEN "Failed to parse single hyphen. Forgot '>'?"
#define E_TYPECAST_NOT_ALIGNED "Typecast field option is not byte-aligned"
#define E_TYPECAST_BAD_ARROW "Typecast field option does not support -> operator"

#define MAX_LOADS (KPE_MAX_DEREFS + KSNOOP_MAX_STEPS + 2)

/* Where one argument's value comes from, before it is stored. */
struct chain {
	__u8 src_op;		  /* KPE_OP_REG, KPE_OP_IMM, ... */
	__u8 src_size, src_flags; /* KPE_OP_FIELD's */
	bool direct;		  /* $comm and \"STR": stored as they are, no load */
	bool is_field;		  /* e: a field's value, which a string type reads through */
	__s64 src;
	struct {
		long long off;
		bool user;
		/* not a load: this_cpu_ptr's add (off: where the per-CPU offsets are), or off's */
		__u8 add_op;
	} load[MAX_LOADS];
	int nr_loads;
	/* of them, what $stackN and stack-passed $argN read: a value, not memory */
	int nr_src_loads;
	const struct btf *btf; /* the value's BTF type, when known */
	__u32 type_id;
	__u8 bit_off, bit_size;
	/* where the kernel's parser stands after a typecast: its type errors point there */
	int at;
};

/* An argument to compile: as parsed, or one parameter of $arg*. */
struct argview {
	const struct kpe_arg *arg;
	int param; /* $arg*: the parameter's index, else -1 */
};

struct compiler {
	const struct kpe_ctx *ctx;
	const struct kpe_def *def;
	struct kpe_probe *out;
	struct kpe_error *err;
	const struct arch *arch;
	struct kbtf_func func; /* BTF of the probed function, if found */
	bool has_func;
	int param_skip;		  /* t: the stub's __data, before the tracepoint's arguments */
	struct ktp_field *fields; /* e: the attached event's */
	int nr_fields;
	bool btf_checked;
	__u32 strtab_len;
};

static int fail(struct compiler *c, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct compiler *c, int pos, const char *fmt, ...)
{
	va_list ap;

	c->err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- types ----------------------------------------------------------------- */

int kpe_type_from_btf(const struct btf *btf, __u32 id, struct kpe_type *t)
{
	const struct btf_type *bt = btf__type_by_id(btf, btf_skip_mods(btf, id));

	memset(t, 0, sizeof(*t));
	if (!bt)
		return -ENOENT;
	if (btf_is_enum(bt) || btf_is_enum64(bt)) {
		t->kind = KPE_T_S;
		t->size = bt->size == 8 ? 8 : 4;
	} else if (btf_is_ptr(bt)) {
		t->kind = KPE_T_X;
		t->size = 8;
	} else if (btf_is_int(bt) &&
		   (bt->size == 1 || bt->size == 2 || bt->size == 4 || bt->size == 8)) {
		t->kind = (btf_int_encoding(bt) & BTF_INT_SIGNED) ? KPE_T_S : KPE_T_U;
		t->size = bt->size;
	} else {
		return -ENOTSUP;
	}
	return 0;
}

void kpe_type_str(const struct kpe_type *t, char *buf, size_t size)
{
	static const char *const names[] = {
		[KPE_T_NONE] = "x64",	     [KPE_T_CHAR] = "char",	[KPE_T_STRING] = "string",
		[KPE_T_USTRING] = "ustring", [KPE_T_SYMBOL] = "symbol", [KPE_T_SYMSTR] = "symstr",
		[KPE_T_DENTRY] = "%pd",	     [KPE_T_FILE] = "%pD",
	};
	int n;

	if (t->kind == KPE_T_U || t->kind == KPE_T_S || t->kind == KPE_T_X)
		n = snprintf(buf, size, "%c%d", "usx"[t->kind - KPE_T_U], t -> size * 8);
	else if (t->kind == KPE_T_BITFIELD)
		n = snprintf(buf, size, "b%d@%d/%d", t->bf_width, t->bf_off, t->size * 8);
	else
		n = snprintf(buf, size, "%s", names[t->kind]);
	if (t->count && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, "[%d]", t->count);
}

/* ---- emitting the fetch program ------------------------------------------- */

static int emit(struct compiler *c, int pos, struct kpe_insn in)
{
	struct kpe_def_cfg *cfg = c->out->cfg;

	if (cfg->nr_insns >= KPE_MAX_INSNS)
		return fail(c, pos, "more than %d fetch operations in one definition",
			    KPE_MAX_INSNS);
	cfg->insns[cfg->nr_insns++] = in;
	return 0;
}

/* The source, then every load but the last as a pointer load. */
static int emit_loads(struct compiler *c, int pos, const struct chain *ch, int keep_last)
{
	struct kpe_insn in = {
		.op = ch->src_op, .size = ch->src_size, .flags = ch->src_flags, .imm = ch->src
	};
	int i, err = emit(c, pos, in);

	for (i = 0; i < ch->nr_loads - keep_last && !err; i++) {
		in = (struct kpe_insn){
			.op = ch->load[i].add_op
				      ?: ch->load[i].user ? KPE_OP_UDEREF
							  : KPE_OP_DEREF,
			.imm = ch->load[i].off,
		};
		err = emit(c, pos, in);
	}
	return err;
}

static int add_strtab(struct compiler *c, int pos, const char *s, __s64 *off)
{
	size_t n = strlen(s) + 1;

	if (c->strtab_len + n > KPE_STRTAB_MAX)
		return fail(c, pos, "immediate strings of one definition exceed %d bytes",
			    KPE_STRTAB_MAX);
	memcpy(c->out->cfg->strtab + c->strtab_len, s, n);
	*off = c->strtab_len;
	c->strtab_len += n;
	return 0;
}

static int emit_store(struct compiler *c, const struct kpe_arg *a, int slot, const struct chain *ch,
		      const struct kpe_type *t)
{
	bool str = t->kind == KPE_T_STRING || t->kind == KPE_T_USTRING;
	struct kpe_insn st = { .arg = slot, .size = t->size, .count = t->count };
	int n = ch->nr_loads, tpos = a->type_pos >= 0 ? a->type_pos : a->body_pos;

	if (ch->direct && a->fetch.base == KPE_B_COMM)
		return emit(c, a->pos, (struct kpe_insn){ .op = KPE_OP_ST_COMM, .arg = slot });
	if (ch->direct) {
		st.op = KPE_OP_ST_IMMSTR;
		return add_strtab(c, a->pos, a->fetch.name, &st.imm) ?: emit(c, a->pos, st);
	}
	if (t->kind == KPE_T_BITFIELD) {
		st.shl = 64 - (t->bf_width + t->bf_off);
		st.shr = 64 - t->bf_width;
	}
	/* As the kernel's: strings and arrays need a dereference, or @ADDR. */
	if (n && n == ch->nr_src_loads && (str || t->count))
		return fail(c, tpos, E_BAD_STRING);
	/* a value: no load, or a per-CPU address last */
	if (n == 0 || ch->load[n - 1].add_op) {
		/* A string at an immediate address is allowed, as in the kernel. */
		if (str && (n || ch->src_op != KPE_OP_IMM))
			return fail(c, tpos, E_BAD_STRING);
		if (t->count)
			return fail(c, tpos, E_BAD_STRING);
		st.op = str ? KPE_OP_ST_STR : KPE_OP_ST_VAL;
		st.flags = t->kind == KPE_T_USTRING ? KPE_F_USER : 0;
		return emit_loads(c, a->pos, ch, 0) ?: emit(c, a->pos, st);
	}
	st.op = str ? KPE_OP_ST_STR : t->count ? KPE_OP_ST_ARRAY : KPE_OP_ST_MEM;
	st.imm = ch->load[n - 1].off;
	st.flags = (ch->load[n - 1].user || t->kind == KPE_T_USTRING) ? KPE_F_USER : 0;
	return emit_loads(c, a->pos, ch, 1) ?: emit(c, a->pos, st);
}

/* ---- sources -------------------------------------------------------------- */

static int add_load(struct compiler *c, int pos, struct chain *ch, long long off, bool user)
{
	if (ch->nr_loads >= MAX_LOADS)
		return fail(c, pos, E_TOO_MANY_OPS);
	ch->load[ch->nr_loads].off = off;
	ch->load[ch->nr_loads].user = user;
	ch->load[ch->nr_loads].add_op = 0;
	ch->nr_loads++;
	return 0;
}

/* Whether kallsyms gives addresses; else err: what needs them. */
static int need_addresses(struct compiler *c, int pos, const char *err, const char *what)
{
	if (c->ctx->syms && !ksyms__restricted(c->ctx->syms))
		return 0;
	return fail(c, pos, "%s: %s needs kallsyms addresses (run as root, kernel.kptr_restrict=0)",
		    err, what);
}

static int add_op(struct compiler *c, int pos, struct chain *ch, __u8 op, long long imm)
{
	int err = add_load(c, pos, ch, imm, false);

	if (!err)
		ch->load[ch->nr_loads - 1].add_op = op;
	return err;
}

/*
 * this_cpu_ptr(): the value plus this CPU's entry of __per_cpu_offset[].
 * As the kernel's, a memory read last in the inner argument (@SYM's) is
 * not done: its address is the per-CPU variable's.
 */
static int add_this_cpu(struct compiler *c, int pos, struct chain *ch)
{
	int n = ch->nr_loads, err = need_addresses(c, pos, E_BAD_MEM_ADDR, "this_cpu_ptr()");
	uint64_t addr;

	if (err)
		return err;
	if (ksyms__addr_of(c->ctx->syms, "__per_cpu_offset", &addr))
		return fail(c, pos, E_BAD_MEM_ADDR ": __per_cpu_offset is not in kallsyms");
	if (n > ch->nr_src_loads && !ch->load[n - 1].add_op) {
		long long off = ch->load[--ch->nr_loads].off;

		if (off)
			err = add_op(c, pos, ch, KPE_OP_ADD, off);
	}
	return err ?: add_op(c, pos, ch, KPE_OP_THIS_CPU, addr);
}

/*
 * A return probe's $argN (Linux 6.10): the value its entry half kept, in a
 * slot of eargs[] shared by every argument that reads it. What follows
 * (members, dereferences) is read at return, as the kernel reads it.
 */
static int entry_arg_source(struct compiler *c, int pos, struct kpe_earg e, struct chain *ch)
{
	struct kpe_def_cfg *cfg = c->out->cfg;
	__u32 k;

	for (k = 0; k < cfg->nr_eargs; k++) {
		if (!memcmp(&cfg->eargs[k], &e, sizeof(e)))
			break;
	}
	if (k == cfg->nr_eargs) {
		if (k >= KPE_MAX_EARGS)
			return fail(c, pos, "a return probe reads at most %d entry arguments",
				    KPE_MAX_EARGS);
		cfg->eargs[cfg->nr_eargs++] = e;
	}
	ch->src_op = KPE_OP_EARG;
	ch->src = k;
	return 0;
}

/* $argN (1-based) as regs_get_kernel_argument reads it; at return, as kept at entry. */
static int arg_source(struct compiler *c, int pos, int n, struct chain *ch)
{
	const struct arch *a = c->arch;
	struct kpe_earg e = { .reg = a->sp, .deref = 1, .off = 8 * (n - a->stack_arg_base) };

	/* t: the raw tracepoint's arguments, in regs[] from 0 */
	if (c->def->kind == 't') {
		ch->src_op = KPE_OP_REG;
		ch->src = n - 1;
		return 0;
	}
	if (n > a->nr_reg_args && a->stack_arg_base < 0) {
		ch->src_op = KPE_OP_IMM; /* no such argument: 0 */
		ch->src = 0;
		return 0;
	}
	if (n <= a->nr_reg_args)
		e = (struct kpe_earg){ .reg = a->arg_slots[n - 1] };
	if (c->def->is_return)
		return entry_arg_source(c, pos, e, ch);
	ch->src_op = KPE_OP_REG;
	ch->src = e.reg;
	if (!e.deref)
		return 0;
	ch->nr_src_loads = 1;
	return add_load(c, pos, ch, e.off, false);
}

static int nr_params(struct compiler *c, const struct btf_param **params)
{
	bool variadic;
	int n;

	if (!c->has_func)
		return 0;
	n = kbtf_func_params(c->func.btf, c->func.id, params, &variadic);
	if (n < c->param_skip)
		return 0;
	*params += c->param_skip;
	return n - c->param_skip;
}

/* BTF arguments need the function's BTF; say which part is missing. */
static int need_btf(struct compiler *c, int pos)
{
	if (c->has_func)
		return 0;
	return fail(c, pos, c->ctx->kb ? E_NO_BTF_ENTRY : E_NOSUP_BTFARG);
}

static void set_btf_type(struct compiler *c, struct chain *ch, __u32 type_id)
{
	ch->btf = c->func.btf;
	ch->type_id = type_id;
}

/* "skb->sk->__sk_common.skc_daddr" -> spec_path; pos[i] of each member. */
static int split_btf_path(const char *text, struct spec_path *sp, int *pos)
{
	const char *s = text;
	size_t n;

	memset(sp, 0, sizeof(*sp));
	n = strcspn(s, ".-");
	sp->base = strndup(s, n);
	sp->text = strdup(text);
	if (!sp->base || !sp->text)
		return -ENOMEM;
	for (s += n; *s; s += n) {
		if (sp->nr_steps >= SPEC_MAX_STEPS)
			return -E2BIG;
		sp->steps[sp->nr_steps].kind = *s == '.' ? STEP_DOT : STEP_ARROW;
		s += *s == '.' ? 1 : 2;
		n = strcspn(s, ".-");
		pos[sp->nr_steps] = s - text;
		sp->steps[sp->nr_steps].member = strndup(s, n);
		if (!sp->steps[sp->nr_steps++].member)
			return -ENOMEM;
	}
	return 0;
}

static bool is_composite(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, id));

	return t && (btf_is_struct(t) || btf_is_union(t));
}

static bool is_composite_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, id));

	return t && btf_is_ptr(t) && is_composite(btf, t->type);
}

/* Why the path failed: resolve ever longer prefixes to find the step. */
static int explain_path(struct compiler *c, const struct kpe_arg *a, struct spec_path *sp,
			const int *pos)
{
	int full = sp->nr_steps, k;
	struct plan_path pp;

	for (k = 0; k < full; k++) {
		sp->nr_steps = k + 1;
		if (plan_resolve_path(&c->func, c->def->symbol, sp, &pp))
			break;
	}
	sp->nr_steps = k;
	if (k == full || plan_resolve_path(&c->func, c->def->symbol, sp, &pp)) {
		sp->nr_steps = full;
		return fail(c, a->fetch.pos, E_NO_BTF_FIELD);
	}
	sp->nr_steps = full;
	if (pp.v.nr_steps >= KSNOOP_MAX_STEPS)
		return fail(c, a->fetch.pos + pos[k], E_TOO_MANY_OPS);
	if (sp->steps[k].kind == STEP_ARROW && !is_composite_ptr(pp.btf, pp.type_id))
		return fail(c, a->fetch.pos + pos[k], E_NO_PTR_STRCT);
	if (sp->steps[k].kind == STEP_DOT && (!pp.in_memory || !is_composite(pp.btf, pp.type_id)))
		return fail(c, a->fetch.pos + pos[k], E_BAD_BTF_TID);
	return fail(c, a->fetch.pos + pos[k], E_NO_BTF_FIELD);
}

static bool has_param(struct compiler *c, const char *name)
{
	const struct btf_param *params;
	int i, n = nr_params(c, &params);

	for (i = 0; i < n; i++) {
		if (!strcmp(btf__name_by_offset(c->func.btf, params[i].name_off), name))
			return true;
	}
	return false;
}

/*
 * name[->member...]: through plan.c, as ksnoop trace resolves paths. Errors
 * point into it where it starts, inside a typecast too.
 */
static int btf_source(struct compiler *c, const struct kpe_arg *a, const char *text,
		      struct chain *ch)
{
	int pos[SPEC_MAX_STEPS] = {}, i, err;
	struct spec_path sp;
	struct plan_path pp;

	err = need_btf(c, a->fetch.pos);
	if (err)
		return err;
	err = split_btf_path(text, &sp, pos);
	if (err == -E2BIG)
		err = fail(c, a->fetch.pos, E_TOO_MANY_OPS);
	else if (!err && !a->fetch.retval && !has_param(c, sp.base))
		err = fail(c, a->fetch.pos, E_NO_BTFARG);
	/* "return->m" stands for "$retval->m", one byte longer */
	for (i = 0; a->fetch.retval && i < SPEC_MAX_STEPS; i++)
		pos[i]++;
	/* a parameter is a value: the kernel takes no '.' after it */
	if (!err && sp.nr_steps && sp.steps[0].kind == STEP_DOT)
		err = fail(c, a->fetch.pos + pos[0], E_NOSUP_DAT_ARG);
	if (err)
		goto out;
	util_mute(true);
	err = plan_resolve_path(&c->func, c->def->symbol, &sp, &pp);
	if (err)
		err = explain_path(c, a, &sp, pos);
	util_mute(false);
	if (err)
		goto out;
	if (a->fetch.retval) {
		ch->src_op = KPE_OP_REG;
		ch->src = c->arch->ret;
	} else {
		err = arg_source(c, a->fetch.pos, pp.v.arg + 1 - c->param_skip, ch);
	}
	for (i = 0; i < pp.v.nr_steps && !err; i++)
		err = add_load(c, a->fetch.pos, ch, pp.v.offs[i], false);
	if (!err && pp.in_memory)
		err = add_load(c, a->fetch.pos, ch, pp.off, false);
	set_btf_type(c, ch, pp.type_id);
	ch->bit_off = pp.bit_off;
	ch->bit_size = pp.bit_size;
out:
	spec_path_free(&sp);
	return err;
}

static int sym_source(struct compiler *c, const struct kpe_fetch *f, struct chain *ch)
{
	char what[576]; /* @ and a kallsyms name */
	uint64_t addr;

	snprintf(what, sizeof(what), "@%s", f->name);
	if (need_addresses(c, f->pos, E_BAD_MEM_ADDR, what))
		return -EINVAL;
	/* The kernel resolves @SYM as it registers the probe: its error names the probe point. */
	if (ksyms__addr_of(c->ctx->syms, f->name, &addr))
		return fail(c, c->def->sym_pos, E_BAD_PROBE_ADDR ": @%s is not in kallsyms",
			    f->name);
	ch->src_op = KPE_OP_IMM;
	ch->src = addr;
	return add_load(c, f->pos, ch, f->num, false);
}

static int retval_source(struct compiler *c, const struct kpe_fetch *f, struct chain *ch)
{
	const struct btf_type *fn, *proto;

	ch->src_op = KPE_OP_REG;
	ch->src = c->arch->ret;
	if (!c->has_func || !c->ctx->btf_probe_args)
		return 0;
	fn = btf__type_by_id(c->func.btf, c->func.id);
	proto = btf__type_by_id(c->func.btf, fn->type);
	if (!proto->type)
		return fail(c, f->pos, E_NO_RETVAL);
	set_btf_type(c, ch, proto->type);
	return 0;
}

static long long struct_path_off(const struct btf *btf, const char *sname, const char *path);

static const struct ktp_field *find_field(const struct compiler *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_fields; i++) {
		if (!c->fields[i].common && !strcmp(c->fields[i].name, name))
			return &c->fields[i];
	}
	return NULL;
}

/*
 * e: $FIELD as the kernel's event probes read it (get_event_field): an
 * integer by its size and sign, a string field as its string's address
 * (a char * as the pointer), anything else as the field's own address.
 */
static int field_source(struct compiler *c, const struct kpe_arg *a, const char *name,
			struct chain *ch)
{
	const struct ktp_field *f = find_field(c, name);
	bool chars;

	if (!f)
		return a->fetch.bare ? fail(c, a->fetch.pos, E_NO_EVENT_FIELD)
				     : fail(c, a->fetch.pos, E_BAD_VAR);
	chars = strstr(f->type, "char") != NULL;
	ch->src_op = KPE_OP_FIELD;
	ch->src = f->offset;
	ch->src_size = f->size;
	if (!strncmp(f->type, "__data_loc", 10) && chars)
		ch->src_flags = KPE_F_DATA_LOC;
	else if (!strncmp(f->type, "__rel_loc", 9) && chars)
		ch->src_flags = KPE_F_REL_LOC;
	else if ((strchr(f->type, '[') && chars) ||
		 (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		ch->src_flags = KPE_F_ADDR;
	else if (f->is_signed)
		ch->src_flags = KPE_F_SIGNED;
	ch->is_field = true;
	return 0;
}

/*
 * e: $comm is the event's field of that name where it has one; else the
 * task's comm, a string by :string, and otherwise the address of the
 * task's comm, as the kernel's event probes give it.
 */
static int comm_address(struct compiler *c, const struct kpe_arg *a, struct chain *ch);

static int event_comm(struct compiler *c, const struct kpe_arg *a, struct chain *ch)
{
	if (find_field(c, a->body + 1))
		return field_source(c, a, a->body + 1, ch);
	if (a->type.kind == KPE_T_STRING || a->type.kind == KPE_T_USTRING) {
		ch->direct = true;
		return 0;
	}
	return comm_address(c, a, ch);
}

/* The address of the task's comm, which is what the kernel dereferences for $comm. */
static int comm_address(struct compiler *c, const struct kpe_arg *a, struct chain *ch)
{
	const struct btf *btf = c->ctx->kb ? kbtf__vmlinux(c->ctx->kb) : NULL;
	long long off;

	off = btf ? struct_path_off(btf, "task_struct", "comm") : -1;
	if (off < 0)
		return fail(c, a->body_pos,
			    "$comm's address needs the kernel's BTF of struct task_struct");
	ch->src_op = KPE_OP_TASK;
	ch->src = off;
	return 0;
}

static int base_source(struct compiler *c, const struct argview *v, struct chain *ch)
{
	const struct kpe_fetch *f = &v->arg->fetch;
	const struct btf_param *params;

	switch (f->base) {
	case KPE_B_REG:
		ch->src_op = KPE_OP_REG;
		ch->src = f->num;
		return 0;
	case KPE_B_STACKP:
	case KPE_B_STACK:
		ch->src_op = KPE_OP_REG;
		ch->src = c->arch->sp;
		if (f->base != KPE_B_STACK)
			return 0;
		ch->nr_src_loads = 1;
		return add_load(c, f->pos, ch, 8 * f->num, false);
	case KPE_B_ARG:
		/* a tracepoint has its arguments and no others */
		if (c->def->kind == 't' && f->num > nr_params(c, &params))
			return fail(c, v->arg->pos, E_NO_BTFARG);
		/*
		 * The kernel types an unnamed $argN from BTF, as it names it
		 * after its parameter; a named one stays x64 (6.12 and 7.3).
		 */
		if (c->ctx->btf_probe_args && !v->arg->name && f->num <= nr_params(c, &params))
			set_btf_type(c, ch, params[f->num - 1].type);
		return arg_source(c, f->pos, f->num, ch);
	case KPE_B_RETVAL:
		return retval_source(c, f, ch);
	case KPE_B_IMM:
		ch->src_op = KPE_OP_IMM;
		ch->src = f->num;
		return 0;
	case KPE_B_ADDR:
		ch->src_op = KPE_OP_IMM;
		ch->src = f->num;
		return add_load(c, f->pos, ch, 0, false);
	case KPE_B_SYM:
		return sym_source(c, f, ch);
	case KPE_B_BTF:
		return btf_source(c, v->arg, f->name, ch);
	case KPE_B_ARGS_ALL:
		nr_params(c, &params);
		return btf_source(c, v->arg,
				  btf__name_by_offset(c->func.btf, params[v->param].name_off), ch);
	case KPE_B_CURRENT:
		ch->src_op = KPE_OP_TASK;
		ch->src = 0;
		return 0;
	case KPE_B_COMM:
		if (c->def->kind == 'e')
			return event_comm(c, v->arg, ch);
		ch->direct = true;
		return 0;
	case KPE_B_IMMSTR:
		ch->direct = true;
		return 0;
	case KPE_B_FIELD:
		return field_source(c, v->arg, f->name, ch);
	}
	return -EINVAL;
}

/* STRUCT of a typecast, in the kernel's BTF or a module's (id 0: none). */
static __u32 find_struct(struct compiler *c, const char *name, const struct btf **btf)
{
	struct kbtf *kb = c->ctx->kb;
	int i, id = -ENOENT;

	*btf = kb ? kbtf__vmlinux(kb) : NULL;
	if (*btf)
		id = btf__find_by_name_kind(*btf, name, BTF_KIND_STRUCT);
	for (i = 0; kb && id <= 0 && i < kbtf__nr_modules(kb); i++) {
		*btf = kbtf__module(kb, i, NULL);
		id = btf__find_by_name_kind(*btf, name, BTF_KIND_STRUCT);
	}
	return id > 0 ? id : 0;
}

/* Where a walk through members stands. */
struct walk {
	const struct btf *btf;
	__u32 id;      /* the type reached */
	__u64 bits;    /* offset of the group walked, in bits */
	__u8 bit_size; /* of the last member, if a bitfield */
	int i;	       /* in the text */
	int at;	       /* position of the last name */
};

/*
 * Names joined by '.' from text[w->i] in the struct or union w->id, as the
 * kernel's get_bitoffset_of_field finds them; errors point at a name.
 * Returns 1 when "->" ends the group (skipped), 0 at the end of the text.
 */
static int walk_group(struct compiler *c, struct walk *w, const char *text, int pos)
{
	const struct btf_type *t;
	char name[128];
	__u64 bits;
	int n;

	w->bits = 0;
	for (;;) {
		n = strcspn(text + w->i, ".-");
		w->at = pos + w->i;
		t = btf__type_by_id(w->btf, btf_skip_mods(w->btf, w->id));
		if (!t || !(btf_is_struct(t) || btf_is_union(t)))
			return fail(c, w->at, E_BAD_BTF_TID);
		if (n == 0 || n >= (int)sizeof(name))
			return fail(c, w->at, E_NO_BTF_FIELD);
		memcpy(name, text + w->i, n);
		name[n] = '\0';
		if (!plan_member_bits(w->btf, btf_skip_mods(w->btf, w->id), name, &bits,
				      &w->bit_size, &w->id))
			return fail(c, w->at, E_NO_BTF_FIELD);
		w->bits += bits;
		w->i += n;
		if (!text[w->i])
			return 0;
		if (text[w->i] == '.') {
			w->i++;
			continue;
		}
		if (text[w->i + 1] != '>')
			return fail(c, pos + w->i, E_BAD_HYPHEN);
		w->i += 2;
		return 1;
	}
}

/*
 * (STRUCT[,FIELD])...->MEMBERS: the value points at STRUCT's FIELD (at
 * STRUCT without FIELD). A load per group of MEMBERS; each "->" goes through
 * a pointer to a struct or union.
 */
static int cast_source(struct compiler *c, const struct kpe_arg *a, const struct kpe_step *st,
		       struct chain *ch)
{
	struct walk w = { .id = find_struct(c, st->cast, &w.btf) };
	long long skip = 0;
	const struct btf_type *t;
	__u32 sid = w.id;
	bool first = true;
	int more, err;

	if (ch->direct && a->fetch.base == KPE_B_IMMSTR)
		return fail(c, st->pos,
			    "ksnoop has no kernel address of an immediate string to cast");
	if (ch->direct) {
		ch->direct = false;
		err = comm_address(c, a, ch);
		if (err)
			return err;
	}
	if (!sid)
		return fail(c, st->pos + 1, E_NO_PTR_STRCT);
	if (st->cast_field) {
		more = walk_group(c, &w, st->cast_field, st->field_pos);
		if (more < 0)
			return more;
		if (w.bits % 8)
			return fail(c, w.at, E_TYPECAST_NOT_ALIGNED);
		if (more)
			return fail(c, st->field_pos + w.i - 2, E_TYPECAST_BAD_ARROW);
		skip = w.bits / 8;
		w = (struct walk){ .btf = w.btf, .id = sid };
	}
	do {
		if (w.i) {
			t = btf__type_by_id(w.btf, btf_skip_mods(w.btf, w.id));
			if (!t || !btf_is_ptr(t) || !is_composite(w.btf, t->type))
				return fail(c, st->members_pos + w.i, E_NO_PTR_STRCT);
			w.id = t->type;
		}
		more = walk_group(c, &w, st->members, st->members_pos);
		if (more < 0)
			return more;
		err = add_load(c, st->pos, ch, w.bits / 8 - (first ? skip : 0), false);
		if (err)
			return err;
		first = false;
	} while (more);
	ch->btf = w.btf;
	ch->type_id = w.id;
	ch->bit_off = w.bit_size ? w.bits % 8 : 0;
	ch->bit_size = w.bit_size;
	ch->at = w.at;
	ch->is_field = false;
	return 0;
}

static int build_chain(struct compiler *c, const struct argview *v, struct chain *ch)
{
	const struct kpe_fetch *f = &v->arg->fetch;
	int i, err;

	memset(ch, 0, sizeof(*ch));
	ch->at = v->arg->body_pos;
	err = base_source(c, v, ch);
	for (i = 0; i < f->nr_steps && !err; i++) {
		const struct kpe_step *st = &f->steps[i];

		if (st->kind == KPE_S_CAST) {
			err = cast_source(c, v->arg, st, ch);
			continue;
		}
		if (st->kind == KPE_S_THIS_CPU)
			err = add_this_cpu(c, st->pos, ch);
		else
			err = add_load(c, st->pos, ch, st->off, st->user);
		/* Either leaves BTF behind: the result is an untyped address or memory. */
		ch->btf = NULL;
		ch->is_field = false;
	}
	return err;
}

/* ---- types of arguments ---------------------------------------------------- */

static bool btf_is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

/* char * is read through the pointer; char[] in place; nothing else. */
static int btf_string(struct compiler *c, const struct kpe_arg *a, struct chain *ch, bool user)
{
	const struct btf_type *t = btf__type_by_id(ch->btf, btf_skip_mods(ch->btf, ch->type_id));

	if (t && btf_is_ptr(t) && btf_is_char(ch->btf, t->type))
		return add_load(c, a->body_pos, ch, 0, user);
	if (t && btf_is_array(t) && btf_is_char(ch->btf, btf_array(t)->type) && ch->nr_loads)
		return 0;
	return fail(c, ch->at, E_BAD_TYPE4STR); /* the argument, or a typecast's last member */
}

static int bitfield_type(struct compiler *c, const struct kpe_arg *a, const struct chain *ch,
			 struct kpe_type *t)
{
	int bits = ch->bit_off + ch->bit_size, size = 1;

	while (size * 8 < bits)
		size *= 2;
	if (size > 8)
		return fail(c, a->body_pos, "bitfield wider than 64 bits with its offset");
	memset(t, 0, sizeof(*t));
	t->kind = KPE_T_BITFIELD;
	t->size = size;
	t->bf_width = ch->bit_size;
	t->bf_off = ch->bit_off;
	return 0;
}

/*
 * The offset of member path "a.b" in struct sname of the kernel's BTF, or
 * -1; through anonymous unions, as 6.15's dentry holds d_name.
 */
static long long struct_path_off(const struct btf *btf, const char *sname, const char *path)
{
	char step[64];
	long long off = 0;
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT), m_off;
	__u32 type_id = id > 0 ? id : 0;
	size_t n;

	while (id > 0 && *path) {
		n = strcspn(path, ".");
		if (n >= sizeof(step))
			return -1;
		memcpy(step, path, n);
		step[n] = '\0';
		if (!plan_member(btf, btf_skip_mods(btf, type_id), step, &m_off, &type_id))
			return -1;
		off += m_off;
		path += n + !!path[n];
	}
	return id > 0 ? off : -1;
}

/*
 * %pd and %pD, as the kernel expands them (6.10): the name a dentry's
 * d_name points to, through the file's f_path.dentry for %pD; read as a
 * string. The offsets are the running kernel's, from its BTF.
 */
static int dentry_name(struct compiler *c, const struct kpe_arg *a, struct chain *ch,
		       struct kpe_type *t)
{
	const struct btf *btf = c->ctx->kb ? kbtf__vmlinux(c->ctx->kb) : NULL;
	long long name = btf ? struct_path_off(btf, "dentry", "d_name.name") : -1;
	long long dentry = btf ? struct_path_off(btf, "file", "f_path.dentry") : -1;
	int tpos = a->type_pos >= 0 ? a->type_pos : a->body_pos;
	int err = 0;

	if (name < 0 || (t->kind == KPE_T_FILE && dentry < 0))
		return fail(c, tpos, "%s needs the kernel's BTF of struct %s",
			    t->kind == KPE_T_FILE ? "%pD" : "%pd",
			    t->kind == KPE_T_FILE && name >= 0 ? "file" : "dentry");
	if (t->kind == KPE_T_FILE)
		err = add_load(c, a->body_pos, ch, dentry, false);
	err = err ?: add_load(c, a->body_pos, ch, name, false) ?:
		     add_load(c, a->body_pos, ch, 0, false);
	ch->btf = NULL;
	memset(t, 0, sizeof(*t));
	t->kind = KPE_T_STRING;
	return err;
}

static int resolve_type(struct compiler *c, const struct kpe_arg *a, struct chain *ch,
			struct kpe_type *t)
{
	const struct btf_type *bt;

	*t = a->type;
	if (t->kind == KPE_T_DENTRY || t->kind == KPE_T_FILE)
		return dentry_name(c, a, ch, t);
	if (ch->direct) {
		t->kind = KPE_T_STRING;
		return 0;
	}
	/* An event probe's field holds the string's address: read it there. */
	if ((t->kind == KPE_T_STRING || t->kind == KPE_T_USTRING) && ch->is_field)
		return add_load(c, a->body_pos, ch, 0, t->kind == KPE_T_USTRING);
	if (t->kind == KPE_T_STRING || t->kind == KPE_T_USTRING)
		return ch->btf ? btf_string(c, a, ch, t->kind == KPE_T_USTRING) : 0;
	if (t->kind != KPE_T_NONE)
		return 0;
	if (ch->btf && ch->bit_size)
		return bitfield_type(c, a, ch, t);
	if (ch->btf && !kpe_type_from_btf(ch->btf, ch->type_id, t))
		return 0;
	/* a struct passed by value is refused; one in memory shows its first 8 bytes */
	bt = ch->btf ? btf__type_by_id(ch->btf, btf_skip_mods(ch->btf, ch->type_id)) : NULL;
	if (bt && (btf_is_struct(bt) || btf_is_union(bt)) && ch->nr_loads == ch->nr_src_loads)
		return fail(c, a->body_pos, E_NOSUP_DAT_ARG);
	t->kind = KPE_T_X;
	t->size = 8;
	return 0;
}

/* ---- names ------------------------------------------------------------------ */

static const char *const reserved_names[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", "__probe_ip",   "__probe_ret_ip",       "__probe_func",
};

/* The kernel's choice: NAME=, a BTF variable, $argN's parameter, argN. */
static char *arg_name(struct compiler *c, const struct argview *v, int idx)
{
	const struct kpe_arg *a = v->arg;
	const struct btf_param *params;
	char buf[16];
	int n = nr_params(c, &params);

	if (a->name)
		return strdup(a->name);
	if (v->param >= 0)
		return strdup(btf__name_by_offset(c->func.btf, params[v->param].name_off));
	if ((a->fetch.base == KPE_B_BTF || a->fetch.bare) &&
	    kpe_good_name(a->body, strlen(a->body)))
		return strdup(a->body);
	if (c->ctx->btf_probe_args && a->fetch.base == KPE_B_ARG && !a->fetch.nr_steps &&
	    a->fetch.num <= n &&
	    btf__name_by_offset(c->func.btf, params[a->fetch.num - 1].name_off)[0])
		return strdup(btf__name_by_offset(c->func.btf, params[a->fetch.num - 1].name_off));
	snprintf(buf, sizeof(buf), "arg%d", idx + 1);
	return strdup(buf);
}

static int check_name(struct compiler *c, const char *name, int nr, int pos)
{
	size_t i;
	int j;

	for (i = 0; i < ARRAY_SIZE(reserved_names); i++) {
		if (!strcmp(name, reserved_names[i]))
			return fail(c, pos, E_USED_ARG_NAME);
	}
	for (j = 0; j < nr; j++) {
		if (!strcmp(name, c->out->fields[j].name))
			return fail(c, pos, E_USED_ARG_NAME);
	}
	return 0;
}

/* ---- the whole definition ---------------------------------------------------- */

static int compile_arg(struct compiler *c, const struct argview *v, int idx)
{
	struct kpe_field *fd = &c->out->fields[idx];
	const struct kpe_arg *a = v->arg;
	struct chain ch;
	int err;

	fd->name = arg_name(c, v, idx);
	if (!fd->name)
		return -ENOMEM;
	err = check_name(c, fd->name, idx, a->pos) ?: build_chain(c, v, &ch)
		?: resolve_type(c, a, &ch, &fd->type) ?: emit_store(c, a, idx, &ch, &fd->type);
	if (err)
		return err;
	fd->is_data = fd->type.kind == KPE_T_STRING || fd->type.kind == KPE_T_USTRING ||
		      fd->type.count;
	c->out->nr_fields = idx + 1;
	return 0;
}

/* Arguments to compile, with $arg* replaced by every parameter. */
static int expand_args(struct compiler *c, struct argview **out)
{
	const struct kpe_def *def = c->def;
	const struct btf_param *params;
	struct argview *v;
	int i, j, n = 0, np = 0;

	for (i = 0; i < def->nr_args; i++) {
		if (def->args[i].fetch.base != KPE_B_ARGS_ALL)
			continue;
		if (need_btf(c, def->args[i].pos))
			return -EINVAL;
		np = nr_params(c, &params);
		if (def->nr_args - 1 + np > KPE_MAX_ARGS)
			return fail(c, def->args[i].pos, E_ARGS_2LONG);
	}
	v = calloc(def->nr_args + np + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < def->nr_args; i++) {
		if (def->args[i].fetch.base != KPE_B_ARGS_ALL) {
			v[n].arg = &def->args[i];
			v[n++].param = -1;
			continue;
		}
		for (j = 0; j < np; j++) {
			/* A variadic prototype ends in a nameless void parameter. */
			if (!params[j].type && !params[j].name_off)
				continue;
			v[n].arg = &def->args[i];
			v[n++].param = j;
		}
	}
	*out = v;
	return n;
}

/* t: the tracepoint's stub names and types its arguments after __data. */
static int set_tracepoint(struct compiler *c)
{
	const struct kpe_def *def = c->def;
	struct kpe_probe *p = c->out;
	int n;

	if (!c->ctx->kb)
		return fail(c, def->sym_pos, "a tracepoint probe needs the kernel's BTF");
	n = ktp_find_stub(c->ctx->kb, def->symbol, &c->func);
	if (n < 0)
		return fail(c, def->sym_pos, "the BTF that has tracepoint %s is damaged",
			    def->symbol);
	/*
	 * Kernels whose BTF has the tracepoint's typedef but none of its
	 * stubs (Debian's 5.10) keep its arguments' names nowhere; their
	 * tracefs has no tracepoint probes either.
	 */
	if (n == 0 && ktp_typedef_proto(kbtf__vmlinux(c->ctx->kb), def->symbol))
		return fail(c, def->sym_pos,
			    "this kernel's BTF has no stub of tracepoint %s (__bpf_trace_%s) "
			    "to name and type its arguments by: tracepoint probes need it",
			    def->symbol, def->symbol);
	if (n == 0)
		return fail(c, def->sym_pos,
			    "no tracepoint %s in this kernel (tracefs would wait for a module "
			    "to add it; ksnoop attaches now)",
			    def->symbol);
	c->has_func = true;
	c->param_skip = 1;
	p->attach = strdup(def->symbol);
	if (asprintf(&p->func, "__probestub_%s", def->symbol) < 0)
		p->func = NULL;
	return p->attach && p->func ? 0 : -ENOMEM;
}

/* e: the attached event's fields, from its tracefs format. */
static int set_attached_event(struct compiler *c)
{
	const struct kpe_def *def = c->def;
	const char *tracefs = c->ctx->tracefs;
	struct kpe_probe *p = c->out;
	int n;

	if (!tracefs)
		return fail(c, def->sym_pos, "an event probe needs tracefs, which is not mounted");
	c->fields = calloc(KTP_MAX_FIELDS, sizeof(*c->fields));
	if (!c->fields)
		return -ENOMEM;
	n = ktp_read_format(tracefs, def->system, def->symbol, c->fields, KTP_MAX_FIELDS);
	if (n == -ENOENT || n == -ENOTDIR)
		return fail(c, def->sym_pos, E_BAD_ATTACH_EVENT);
	if (n < 0)
		return fail(c, def->sym_pos, "cannot read the format of %s/%s: %s", def->system,
			    def->symbol, strerror(-n));
	c->nr_fields = n;
	p->system = strdup(def->system);
	p->attach = strdup(def->symbol);
	if (asprintf(&p->func, "%s.%s", def->system, def->symbol) < 0)
		p->func = NULL;
	p->loc = p->func ? strdup(p->func) : NULL;
	return p->system && p->attach && p->loc ? 0 : -ENOMEM;
}

/*
 * SYM+offs within the entry window is an entry, as the kernel sees it,
 * only where the function starts with the landing instruction (ENDBR64).
 */
static int check_entry_window(struct compiler *c, uint64_t start)
{
	const struct kpe_def *def = c->def;
	unsigned char insn[sizeof(c->arch->entry_insns[0])];
	int n = c->arch->entry_window;
	size_t i;

	if (!def->entry_err || !n)
		return 0;
	if (!c->ctx->read_text || c->ctx->read_text(start, insn, sizeof(insn)))
		return fail(c, def->entry_err_pos,
			    "%s: at %s+%lld only if it starts with %s, which ksnoop could not read "
			    "(/proc/kcore)",
			    def->entry_err, def->symbol, def->offset, "ENDBR64");
	for (i = 0; i < ARRAY_SIZE(c->arch->entry_insns); i++) {
		if (!memcmp(insn, c->arch->entry_insns[i], sizeof(insn)))
			return 0;
	}
	return fail(c, def->entry_err_pos, "%s", def->entry_err);
}

static int set_point(struct compiler *c)
{
	const struct kpe_def *def = c->def;
	const struct ksyms *syms = c->ctx->syms;
	struct kpe_probe *p = c->out;
	const char *name;
	uint64_t start;
	int n;

	p->offset = def->offset;
	if (def->kind == 't')
		return set_tracepoint(c);
	if (def->kind == 'e')
		return set_attached_event(c);
	if (def->symbol) {
		if (syms) {
			n = ksyms__count_text(syms, def->symbol, def->module, &start);
			if (n == 0)
				return fail(c, def->sym_pos, E_BAD_PROBE_ADDR);
			if (n > 1)
				return fail(c, def->sym_pos, E_NON_UNIQ_SYMBOL);
			if (check_entry_window(c, ksyms__restricted(syms) ? 0 : start))
				return -EINVAL;
		} else if (def->entry_err) {
			return fail(c, def->entry_err_pos, "%s", def->entry_err);
		}
		p->func = strdup(def->symbol);
		if (asprintf(&p->attach, "%s%s%s", def->module ? def->module : "",
			     def->module ? ":" : "", def->symbol) < 0)
			p->attach = NULL;
		return p->func && p->attach ? 0 : -ENOMEM;
	}
	/* MEMADDR: attached as the symbol that covers it, plus an offset. */
	if (need_addresses(c, def->sym_pos, E_BAD_PROBE_ADDR, "an address"))
		return -EINVAL;
	name = ksyms__find_text(syms, def->addr, &start);
	if (!name)
		return fail(c, def->sym_pos,
			    E_BAD_PROBE_ADDR ": 0x%llx is not in kernel or module text",
			    (unsigned long long)def->addr);
	p->offset = def->addr - start;
	p->func = strdup(name);
	p->attach = strdup(name);
	return p->func && p->attach ? 0 : -ENOMEM;
}

static void find_btf_func(struct compiler *c)
{
	struct kbtf_func funcs[KBTF_MAX_MATCHES];
	char name[512];
	int n;

	if (!c->ctx->kb || !c->def->symbol || c->def->kind == 't' || c->def->kind == 'e')
		return;
	snprintf(name, sizeof(name), "%s%s%s", c->def->module ? c->def->module : "",
		 c->def->module ? ":" : "", c->def->symbol);
	util_mute(true);
	n = kbtf__find_funcs(c->ctx->kb, name, funcs, KBTF_MAX_MATCHES);
	util_mute(false);
	if (n > 0) {
		c->func = funcs[0];
		c->has_func = true;
	}
}

int kpe_compile(const struct kpe_ctx *ctx, const struct kpe_def *def, struct kpe_probe *out,
		struct kpe_error *err)
{
	struct compiler c = { .ctx = ctx, .def = def, .out = out, .err = err };
	struct argview *views = NULL;
	int i, n, ret;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	c.arch = arch_native();
	out->cfg = calloc(1, sizeof(*out->cfg));
	out->text = strdup(def->text);
	out->group = strdup(def->group);
	out->event = strdup(def->event);
	if (!out->cfg || !out->text || !out->group || !out->event)
		return -ENOMEM;
	out->kind = def->kind;
	out->is_return = def->is_return;
	out->maxactive = def->maxactive;
	ret = set_point(&c);
	if (!ret)
		find_btf_func(&c);
	n = ret ?: expand_args(&c, &views);
	if (n < 0) {
		free(c.fields);
		return n;
	}
	/* one spare: a name made before its argument failed to compile */
	out->fields = calloc(n + 1, sizeof(*out->fields));
	if (!out->fields) {
		free(views);
		free(c.fields);
		return -ENOMEM;
	}
	for (i = 0, ret = 0; i < n && !ret; i++)
		ret = compile_arg(&c, &views[i], i);
	free(views);
	free(c.fields);
	if (def->kind == 't')
		out->cfg->nr_tp_args = nr_params(&c, &(const struct btf_param *){ NULL });
	out->cfg->nr_args = out->nr_fields;
	out->cfg->flags = def->is_return ? KPE_DEF_RETURN : 0;
	return ret;
}

void kpe_probe_free(struct kpe_probe *p)
{
	int i;

	for (i = 0; p->fields && i <= p->nr_fields; i++)
		free(p->fields[i].name);
	free(p->fields);
	free(p->cfg);
	free(p->text);
	free(p->group);
	free(p->event);
	free(p->attach);
	free(p->system);
	free(p->loc);
	free(p->func);
	memset(p, 0, sizeof(*p));
}

int kpe_probe_field(const struct kpe_probe *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_fields; i++) {
		if (!strcmp(p->fields[i].name, name))
			return i;
	}
	return -1;
}
