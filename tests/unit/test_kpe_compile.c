// SPDX-License-Identifier: GPL-2.0
/*
 * kpe_compile.c, kpe_filter.c and kpe_output.c: definitions into fetch
 * programs against the BTF fixture of testutil.h and a made-up kallsyms,
 * filters into predicates, and records into the kernel's trace lines.
 *   int ip_send_skb(struct net *net, struct sk_buff *skb);
 *   struct sk_buff { unsigned int len; struct net *net; }  (len at 0)
 *   struct net { int ifindex; }
 */
#include <errno.h>

#include "testutil.h"
#include "kpe/compile.h"
#include "kpe/filter.h"
#include "kpe/output.h"
#include "kpe/parse.h"
#include "lib/archinfo.h"

/* x86-64 pt_regs slots */
#define DI 14
#define SI 13
#define SP 19
#define AX 10

#define SKB_ADDR 0xffffffff81a00000ULL
#define JIFFIES 0xffffffff82000000ULL
#define PCPU_OFFSETS (JIFFIES + 0x200)

struct ctx {
	struct fixture_ids id;
	struct kbtf *kb;
	struct ksyms *syms;
	struct kpe_ctx kctx;
	struct kpe_probe p;
	bool have_probe;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	struct btf *btf;

	if (!c)
		return -1;
	btf = fixture_new(&c->id);
	c->kb = btf ? kbtf__new_from_btf(btf) : NULL;
	c->syms = ksyms__new();
	if (!c->kb || !c->syms)
		return -1;
	/* ip_send_skb is 0x90 long: the next symbol starts there */
	if (ksyms__add(c->syms, SKB_ADDR, 'T', "ip_send_skb", NULL) ||
	    ksyms__add(c->syms, SKB_ADDR + 0x90, 't', "udp_send_skb", NULL) ||
	    ksyms__add(c->syms, SKB_ADDR + 0x400, 't', "dup_static", NULL) ||
	    ksyms__add(c->syms, SKB_ADDR + 0x500, 't', "dup_static", NULL) ||
	    ksyms__add(c->syms, SKB_ADDR + 0x600, 't', "six", NULL) ||
	    ksyms__add(c->syms, SKB_ADDR + 0x700, 't', "mod_func", "fakemod") ||
	    ksyms__add(c->syms, JIFFIES, 'D', "jiffies", NULL) ||
	    ksyms__add(c->syms, JIFFIES + 0x100, 'D', "after_jiffies", NULL) ||
	    ksyms__add(c->syms, PCPU_OFFSETS, 'D', "__per_cpu_offset", NULL))
		return -1;
	ksyms__finish(c->syms);
	c->kctx.kb = c->kb;
	c->kctx.syms = c->syms;
	c->kctx.btf_probe_args = true;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	if (c->have_probe)
		kpe_probe_free(&c->p);
	ksyms__free(c->syms);
	kbtf__free(c->kb);
	free(c);
	return 0;
}

/* Compile text into c->p, which must succeed. */
static struct kpe_probe *compile(struct ctx *c, const char *text)
{
	struct kpe_error e;
	struct kpe_def d;
	int err;

	if (c->have_probe)
		kpe_probe_free(&c->p);
	c->have_probe = false;
	err = kpe_parse_def(text, &d, &e);
	if (!err) {
		err = kpe_compile(&c->kctx, &d, &c->p, &e);
		c->have_probe = true;
	}
	kpe_def_free(&d);
	if (err)
		print_error("'%s': %s at %d\n", text, e.msg, e.pos);
	assert_int_equal(err, 0);
	return &c->p;
}

static void compile_err(struct ctx *c, const char *text, int pos, const char *msg)
{
	struct kpe_error e;
	struct kpe_probe p;
	struct kpe_def d;
	int err;

	err = kpe_parse_def(text, &d, &e);
	if (err)
		print_error("'%s' does not parse: %s\n", text, e.msg);
	assert_int_equal(err, 0);
	err = kpe_compile(&c->kctx, &d, &p, &e);
	kpe_probe_free(&p);
	kpe_def_free(&d);
	if (!err)
		print_error("'%s' was accepted\n", text);
	assert_int_equal(err, -EINVAL);
	if (strncmp(e.msg, msg, strlen(msg)) || e.pos != pos)
		print_error("'%s': '%s' at %d, expected '%s' at %d\n", text, e.msg, e.pos, msg,
			    pos);
	assert_true(!strncmp(e.msg, msg, strlen(msg)));
	assert_int_equal(e.pos, pos);
}

static void expect_insn(const struct kpe_probe *p, int i, int op, int arg, int size, long long imm)
{
	const struct kpe_insn *in = &p->cfg->insns[i];

	if (in->op != op || in->arg != arg || in->size != size || in->imm != imm)
		print_error("insn %d: op %d arg %d size %d imm %lld, expected %d %d %d %lld\n", i,
			    in->op, in->arg, in->size, (long long)in->imm, op, arg, size, imm);
	assert_int_equal(in->op, op);
	assert_int_equal(in->arg, arg);
	assert_int_equal(in->size, size);
	assert_int_equal(in->imm, imm);
}

static void test_registers_and_derefs(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:kpet/a1 ip_send_skb net=%di len=+0x70(%si):u32 x=+8(-0x18(%si)):s16 "
		       "u=+u4(%di):u8");
	assert_string_equal(p->group, "kpet");
	assert_string_equal(p->event, "a1");
	assert_string_equal(p->attach, "ip_send_skb");
	assert_int_equal(p->offset, 0);
	assert_false(p->is_return);
	assert_int_equal(p->nr_fields, 4);
	assert_int_equal(p->cfg->nr_args, 4);
	assert_int_equal(p->cfg->nr_insns, 9);
	expect_insn(p, 0, KPE_OP_REG, 0, 0, DI);
	expect_insn(p, 1, KPE_OP_ST_VAL, 0, 8, 0);
	expect_insn(p, 2, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 3, KPE_OP_ST_MEM, 1, 4, 0x70);
	expect_insn(p, 4, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 5, KPE_OP_DEREF, 0, 0, -0x18);
	expect_insn(p, 6, KPE_OP_ST_MEM, 2, 2, 8);
	expect_insn(p, 8, KPE_OP_ST_MEM, 3, 1, 4);
	assert_int_equal(p->cfg->insns[8].flags, KPE_F_USER);
	/* no :TYPE is x64 */
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	assert_int_equal(p->fields[0].type.size, 8);
	assert_int_equal(p->fields[2].type.kind, KPE_T_S);
}

static void test_vars(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:e six st=$stack s2=$stack2 a1=$arg1 a7=$arg7 c=$comm s=\\\"hi\" i=\\-3 "
		       "j=@jiffies+8:u32 m=@0x1000");
	expect_insn(p, 0, KPE_OP_REG, 0, 0, SP);
	expect_insn(p, 2, KPE_OP_REG, 0, 0, SP);
	expect_insn(p, 3, KPE_OP_ST_MEM, 1, 8, 16);
	expect_insn(p, 4, KPE_OP_REG, 0, 0, DI);
	/* the 7th argument is past the return address: $stack1 */
	expect_insn(p, 6, KPE_OP_REG, 0, 0, SP);
	expect_insn(p, 7, KPE_OP_ST_MEM, 3, 8, 8);
	expect_insn(p, 8, KPE_OP_ST_COMM, 4, 0, 0);
	assert_int_equal(p->fields[4].type.kind, KPE_T_STRING);
	assert_true(p->fields[4].is_data);
	expect_insn(p, 9, KPE_OP_ST_IMMSTR, 5, 0, 0);
	assert_string_equal(p->cfg->strtab, "hi");
	expect_insn(p, 10, KPE_OP_IMM, 0, 0, -3);
	expect_insn(p, 12, KPE_OP_IMM, 0, 0, (long long)JIFFIES);
	expect_insn(p, 13, KPE_OP_ST_MEM, 7, 4, 8);
	expect_insn(p, 14, KPE_OP_IMM, 0, 0, 0x1000);
	expect_insn(p, 15, KPE_OP_ST_MEM, 8, 8, 0);

	p = compile(c, "r:e ip_send_skb r=$retval raw=$retval:x64");
	assert_true(p->is_return);
	assert_int_equal(p->cfg->flags, KPE_DEF_RETURN);
	expect_insn(p, 0, KPE_OP_REG, 0, 0, AX);
	/* typed from BTF (int) since Linux 6.6, as the kernel does */
	assert_int_equal(p->fields[0].type.kind, KPE_T_S);
	assert_int_equal(p->fields[0].type.size, 4);
	assert_int_equal(p->fields[1].type.kind, KPE_T_X);
}

/* $argN and BTF parameters at return: kept by an entry half, read at return. */
static void test_entry_values_at_return(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "r:e ip_send_skb s=$arg2 len=skb->len n=net r=$retval a7=$arg7");
	assert_int_equal(p->cfg->nr_eargs, 3);
	/* $arg2 and skb share a slot: the entry value of %si */
	assert_int_equal(p->cfg->eargs[0].reg, SI);
	assert_int_equal(p->cfg->eargs[0].deref, 0);
	assert_int_equal(p->cfg->eargs[1].reg, DI);
	/* the seventh argument is on the stack, above the return address */
	assert_int_equal(p->cfg->eargs[2].reg, SP);
	assert_int_equal(p->cfg->eargs[2].deref, 1);
	assert_int_equal(p->cfg->eargs[2].off, 8);
	expect_insn(p, 0, KPE_OP_EARG, 0, 0, 0);
	expect_insn(p, 1, KPE_OP_ST_VAL, 0, 8, 0);
	/* the member is read at return, from the kept pointer */
	expect_insn(p, 2, KPE_OP_EARG, 0, 0, 0);
	expect_insn(p, 3, KPE_OP_ST_MEM, 1, 4, 0);
	assert_int_equal(p->fields[1].type.kind, KPE_T_U);
	expect_insn(p, 4, KPE_OP_EARG, 0, 0, 1);
	expect_insn(p, 6, KPE_OP_REG, 0, 0, AX);
	expect_insn(p, 8, KPE_OP_EARG, 0, 0, 2);
	/* a named $argN is x64, as the kernel has it, at entry and return */
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	assert_int_equal(p->fields[0].type.size, 8);
	/* an unnamed one is named after its parameter, and typed from BTF */
	p = compile(c, "r:e ip_send_skb $arg1 n=$arg1");
	assert_string_equal(p->fields[0].name, "net");
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	p = compile(c, "p:e ip_send_skb $arg2");
	assert_string_equal(p->fields[0].name, "skb");
	p = compile(c, "f:e ip_send_skb%return skb->len");
	assert_int_equal(p->cfg->nr_eargs, 1);
	/* an entry probe keeps nothing */
	p = compile(c, "p:e ip_send_skb skb->len");
	assert_int_equal(p->cfg->nr_eargs, 0);
	compile_err(c, "r:e ip_send_skb $arg1 $arg2 $arg3 $arg4 $arg5 $arg6 $arg7 $arg8 $arg9", 64,
		    "a return probe reads at most 8 entry arguments");
}

static void test_strings_and_types(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:e ip_send_skb s=+0(%si):string u=+0(%si):ustring b=+0x70(%si):b4@2/32 "
		       "a=+0(%si):u16[3] y=%di:symbol k=\\0x1000:string");
	expect_insn(p, 1, KPE_OP_ST_STR, 0, 0, 0);
	expect_insn(p, 3, KPE_OP_ST_STR, 1, 0, 0);
	assert_int_equal(p->cfg->insns[3].flags, KPE_F_USER);
	expect_insn(p, 5, KPE_OP_ST_MEM, 2, 4, 0x70);
	assert_int_equal(p->cfg->insns[5].shl, 64 - 6);
	assert_int_equal(p->cfg->insns[5].shr, 64 - 4);
	expect_insn(p, 7, KPE_OP_ST_ARRAY, 3, 2, 0);
	assert_int_equal(p->cfg->insns[7].count, 3);
	assert_true(p->fields[3].is_data);
	expect_insn(p, 9, KPE_OP_ST_VAL, 4, 8, 0);
	/* a string at an immediate address, as the kernel allows */
	expect_insn(p, 10, KPE_OP_IMM, 0, 0, 0x1000);
	expect_insn(p, 11, KPE_OP_ST_STR, 5, 0, 0);
}

/* BTF arguments resolve through plan.c into the same shapes. */
static void test_btf_args(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:e ip_send_skb s=skb skb->len skb->net->ifindex $arg2 n=$arg1:u8 net");
	assert_string_equal(p->fields[0].name, "s");
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	expect_insn(p, 0, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 1, KPE_OP_ST_VAL, 0, 8, 0);
	/* not a C name: argN, with the BTF member's type */
	assert_string_equal(p->fields[1].name, "arg2");
	assert_int_equal(p->fields[1].type.kind, KPE_T_U);
	assert_int_equal(p->fields[1].type.size, 4);
	expect_insn(p, 3, KPE_OP_ST_MEM, 1, 4, 0);
	assert_string_equal(p->fields[2].name, "arg3");
	expect_insn(p, 4, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 5, KPE_OP_DEREF, 0, 0, 8);
	expect_insn(p, 6, KPE_OP_ST_MEM, 2, 4, 0);
	assert_int_equal(p->fields[2].type.kind, KPE_T_S);
	/* $argN takes its parameter's name and type (Linux 6.6+) */
	assert_string_equal(p->fields[3].name, "skb");
	assert_int_equal(p->fields[3].type.kind, KPE_T_X);
	assert_int_equal(p->fields[4].type.kind, KPE_T_U);
	assert_int_equal(p->fields[4].type.size, 1);
	/* a bare parameter name names itself */
	assert_string_equal(p->fields[5].name, "net");
}

/* Linux 7.3's typecasts, $current and per-CPU variables, as loads and adds. */
static void test_casts(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:e ip_send_skb a=(sk_buff)net->len b=(sk_buff,net)net->len "
		       "(net)((sk_buff)skb->net)->ifindex");
	expect_insn(p, 0, KPE_OP_REG, 0, 0, DI);
	expect_insn(p, 1, KPE_OP_ST_MEM, 0, 4, 0);
	assert_int_equal(p->fields[0].type.kind, KPE_T_U);
	/* container_of: net points at sk_buff's member net, 8 bytes in */
	expect_insn(p, 3, KPE_OP_ST_MEM, 1, 4, -8);
	/* not a C name: argN; the inner typecast's member is read as a pointer */
	assert_string_equal(p->fields[2].name, "arg3");
	expect_insn(p, 4, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 5, KPE_OP_DEREF, 0, 0, 8);
	expect_insn(p, 6, KPE_OP_ST_MEM, 2, 4, 0);
	assert_int_equal(p->fields[2].type.kind, KPE_T_S);

	p = compile(c,
		    "p:e ip_send_skb t=$current a=this_cpu_ptr(@jiffies) "
		    "b=this_cpu_read(@jiffies):u32 s=this_cpu_ptr(skb) o=this_cpu_ptr(@jiffies+8)");
	expect_insn(p, 0, KPE_OP_TASK, 0, 0, 0);
	expect_insn(p, 1, KPE_OP_ST_VAL, 0, 8, 0);
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	/* @SYM's read is left out: its address is the per-CPU variable's */
	expect_insn(p, 2, KPE_OP_IMM, 0, 0, JIFFIES);
	expect_insn(p, 3, KPE_OP_THIS_CPU, 0, 0, PCPU_OFFSETS);
	expect_insn(p, 4, KPE_OP_ST_VAL, 1, 8, 0);
	expect_insn(p, 5, KPE_OP_IMM, 0, 0, JIFFIES);
	expect_insn(p, 6, KPE_OP_THIS_CPU, 0, 0, PCPU_OFFSETS);
	expect_insn(p, 7, KPE_OP_ST_MEM, 2, 4, 0);
	expect_insn(p, 8, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 9, KPE_OP_THIS_CPU, 0, 0, PCPU_OFFSETS);
	expect_insn(p, 10, KPE_OP_ST_VAL, 3, 8, 0);
	expect_insn(p, 11, KPE_OP_IMM, 0, 0, JIFFIES);
	expect_insn(p, 12, KPE_OP_ADD, 0, 0, 8);
	expect_insn(p, 13, KPE_OP_THIS_CPU, 0, 0, PCPU_OFFSETS);

	compile_err(c, "p:e ip_send_skb x=(nosuch)skb->len", 19,
		    "This is not a pointer to union/structure.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff)skb->foo", 32, "This field is not found.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff)skb->len->x", 37,
		    "This is not a pointer to union/structure.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff)skb->len.x", 36, "Failed to get BTF type info.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff,)skb->len", 27, "This field is not found.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff,net-)skb->len", 30,
		    "Failed to parse single hyphen. Forgot '>'?");
	compile_err(c, "p:e ip_send_skb x=(sk_buff,net-x)skb->len", 30,
		    "Failed to parse single hyphen. Forgot '>'?");
	compile_err(c, "p:e ip_send_skb x=(sk_buff,net->ifindex)skb->len", 30,
		    "Typecast field option does not support -> operator");
	compile_err(c, "p:e ip_send_skb x=(sk_buff)skb->len:string", 32,
		    "This type does not fit for string.");
	compile_err(c, "p:e ip_send_skb x=(sk_buff)nosuch->len", 27,
		    "This variable is not found at this probe point");
	compile_err(c, "p:e ip_send_skb x=this_cpu_ptr(@jiffies):string", 41,
		    "String accepts only memory argument");
	/* the fixture has no struct task_struct */
	compile_err(c, "p:e ip_send_skb x=$current->pid", 19,
		    "This is not a pointer to union/structure.");
	c->kctx.syms = NULL;
	compile_err(c, "p:e ip_send_skb x=this_cpu_ptr(skb)", 18,
		    "Invalid memory address: this_cpu_ptr() needs kallsyms");
	c->kctx.syms = c->syms;
}

static void test_args_all(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p:e ip_send_skb $arg* len=skb->len");
	assert_int_equal(p->nr_fields, 3);
	assert_string_equal(p->fields[0].name, "net");
	assert_string_equal(p->fields[1].name, "skb");
	assert_string_equal(p->fields[2].name, "len");
	expect_insn(p, 0, KPE_OP_REG, 0, 0, DI);
	expect_insn(p, 2, KPE_OP_REG, 0, 0, SI);
}

/* Before Linux 6.6 the kernel names and types $argN and $retval plainly. */
static void test_plain_probe_args(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	c->kctx.btf_probe_args = false;
	p = compile(c, "p:e ip_send_skb %si $arg2");
	assert_string_equal(p->fields[0].name, "arg1");
	assert_string_equal(p->fields[1].name, "arg2");
	assert_int_equal(p->fields[1].type.kind, KPE_T_X);
	p = compile(c, "r:e ip_send_skb $retval");
	assert_int_equal(p->fields[0].type.kind, KPE_T_X);
	c->kctx.btf_probe_args = true;
}

static void test_points(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	p = compile(c, "p 0xffffffff81a00010 x=%di");
	assert_string_equal(p->attach, "ip_send_skb");
	assert_int_equal(p->offset, 0x10);
	assert_string_equal(p->event, "p_0xffffffff81a00010");
	p = compile(c, "p:e fakemod:mod_func");
	assert_string_equal(p->attach, "fakemod:mod_func");
	assert_string_equal(p->func, "mod_func");
	p = compile(c, "r5:e ip_send_skb");
	assert_int_equal(p->maxactive, 5);
	p = compile(c, "f:e ip_send_skb%return $retval");
	assert_true(p->is_return);
}

/* Kernel text as the fixture has it: ip_send_skb starts with ENDBR64. */
static int fake_text(uint64_t addr, void *buf, size_t len)
{
	static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	memset(buf, 0x90, len);
	if (addr == SKB_ADDR)
		memcpy(buf, endbr, len < sizeof(endbr) ? len : sizeof(endbr));
	return addr ? 0 : -EIO;
}

/* x86-64: SYM+4 is the entry where SYM starts with ENDBR64, as in the kernel. */
static void test_entry_window(void **state)
{
	struct ctx *c = *state;
	struct kpe_probe *p;

	if (!arch_native()->entry_window)
		skip();
	c->kctx.read_text = fake_text;
	p = compile(c, "p:e ip_send_skb+4 s=skb $arg1");
	assert_int_equal(p->offset, 4);
	assert_string_equal(p->fields[0].name, "s");
	p = compile(c, "r:e ip_send_skb+4 $retval");
	assert_true(p->is_return);
	compile_err(c, "p:e udp_send_skb+4 x=$arg1", 21,
		    "$arg* can be used only on function entry or exit");
	compile_err(c, "r:e udp_send_skb+4", 4, "Retprobe address must be an function entry");
	c->kctx.read_text = NULL;
	compile_err(c, "p:e ip_send_skb+4 s=skb", 20,
		    "BTF is not available or not supported: at ip_send_skb+4 only if it starts "
		    "with ENDBR64, which ksnoop could not read");
	/* what an entry alone has not: no read */
	compile(c, "p:e udp_send_skb+4 x=%di");
}

static void test_errors(void **state)
{
	struct ctx *c = *state;

	compile_err(c, "p:kprobes/b18 nonexist_func", 14, "Invalid probed address or symbol");
	compile_err(c, "p:e dup_static", 4, "The symbol is not unique");
	compile_err(c, "p:e othermod:mod_func", 4, "Invalid probed address or symbol");
	compile_err(c, "p 0x1000", 2, "Invalid probed address or symbol");
	/* an address must lie in text: not data, not past the last symbol */
	compile_err(
		c, "p 0xffffffff82000010", 2,
		"Invalid probed address or symbol: 0xffffffff82000010 is not in kernel or module text");
	compile_err(c, "p:e 0xffffffffffffffff", 4, "Invalid probed address or symbol");
	compile_err(c, "r 0xffffffff82000100", 2, "Invalid probed address or symbol");
	compile_err(c, "p:kprobes/b11 ip_send_skb x=%di x=%si", 32,
		    "This argument name is already used");
	compile_err(c, "p:e ip_send_skb common_pid=%di", 16, "This argument name is already used");
	compile_err(c, "p:e ip_send_skb skb skb", 20, "This argument name is already used");
	compile_err(c, "p:e ip_send_skb x=%si:string", 22, "String accepts only memory argument");
	compile_err(c, "p:e ip_send_skb x=%si:u8[2]", 22, "String accepts only memory argument");
	/* $stackN reads the stack, a value to the kernel: no string, no array */
	compile_err(c, "p:e ip_send_skb x=$stack0:string", 26,
		    "String accepts only memory argument");
	compile_err(c, "p:e ip_send_skb x=$stack1:x8[8]", 26,
		    "String accepts only memory argument");
	/* refused as the kernel's registration refuses it: at the probe point */
	compile_err(c, "p:e ip_send_skb x=@nosuchsym", 4,
		    "Invalid probed address or symbol: @nosuchsym is not in kallsyms");
	/* BTF */
	compile_err(c, "p:kprobes/b3 ip_send_skb x=foo", 27,
		    "This variable is not found at this probe point");
	compile_err(c, "p:kprobes/b2 ip_send_skb x=skb->foo", 32, "This field is not found.");
	compile_err(c, "p:e ip_send_skb x=skb->len->x", 28,
		    "This is not a pointer to union/structure.");
	compile_err(c, "p:e ip_send_skb x=skb->len:string", 18,
		    "This type does not fit for string.");
	/* a '.' on a pointer member; on a parameter */
	compile_err(c, "p:e ip_send_skb x=skb->net.ifindex", 27, "Failed to get BTF type info.");
	compile_err(c, "p:e ip_send_skb x=skb.len", 22,
		    "Non pointer structure/union argument is not supported.");
	/* empty or odd names are looked up, and not found */
	compile_err(c, "r:e ip_send_skb x=$retval->", 27,
		    "This is not a pointer to union/structure.");
	compile_err(c, "p:e ip_send_skb x=skb->", 23, "This field is not found.");
	compile_err(c, "p:e ip_send_skb x=skb->l@n", 23, "This field is not found.");
	compile_err(c, "p:e ip_send_skb x=s@b", 18,
		    "This variable is not found at this probe point");
	compile_err(c, "p:e six x=nosuch", 10, "This variable is not found at this probe point");
	compile_err(c, "p:e udp_send_skb x=skb", 19, "No BTF entry for this probe point");
	compile_err(c, "p:e udp_send_skb $arg*", 17, "No BTF entry for this probe point");
	c->kctx.kb = NULL;
	compile_err(c, "p:e ip_send_skb x=skb", 18, "BTF is not available or not supported");
	c->kctx.kb = c->kb;
	/* kallsyms without addresses cannot place @SYM */
	c->kctx.syms = NULL;
	compile_err(c, "p:e ip_send_skb x=@jiffies", 18, "Invalid memory address: @jiffies needs");
	c->kctx.syms = c->syms;
}

static void filter_ok(struct ctx *c, const char *def, const char *filter)
{
	struct kpe_error e;
	struct kpe_probe *p = compile(c, def);
	int err = kpe_filter_compile(p, filter, &e);

	if (err)
		print_error("filter '%s': %s at %d\n", filter, e.msg, e.pos);
	assert_int_equal(err, 0);
}

static void filter_err(struct ctx *c, const char *def, const char *filter, int pos, const char *msg)
{
	struct kpe_error e;
	struct kpe_probe *p = compile(c, def);
	int err = kpe_filter_compile(p, filter, &e);

	if (!err)
		print_error("filter '%s' was accepted\n", filter);
	assert_int_equal(err, -EINVAL);
	if (strcmp(e.msg, msg) || e.pos != pos)
		print_error("filter '%s': '%s' at %d, expected '%s' at %d\n", filter, e.msg, e.pos,
			    msg, pos);
	assert_string_equal(e.msg, msg);
	assert_int_equal(e.pos, pos);
	/* a failed filter leaves the probe unfiltered */
	assert_int_equal(p->cfg->nr_preds, 0);
	assert_int_equal(p->cfg->nr_filter_ops, 0);
}

#define DEF "p:e ip_send_skb fd=%di len=+0x70(%si):u32 s=+0(%si):s32 name=+0(%si):string"

static void test_filters(void **state)
{
	struct ctx *c = *state;
	struct kpe_def_cfg *cfg;

	/* the seed's filter */
	filter_ok(c, DEF, "fd==0x9");
	cfg = c->p.cfg;
	assert_int_equal(cfg->nr_preds, 1);
	assert_int_equal(cfg->preds[0].field, 0);
	assert_int_equal(cfg->preds[0].op, KPE_CMP_EQ);
	assert_int_equal(cfg->preds[0].rhs, 9);
	assert_int_equal(cfg->preds[0].width, 8);

	/* postfix: && binds tighter than ||, ! applies to its operand */
	filter_ok(c, DEF, "len > 100 && !(s < -1) || name ~ \"ab*\" && comm == 'x y'");
	cfg = c->p.cfg;
	assert_int_equal(cfg->nr_preds, 4);
	assert_int_equal(cfg->nr_filter_ops, 8);
	assert_memory_equal(
		cfg->filter_ops,
		((__u8[]){ 0, 1, KPE_FOP_NOT, KPE_FOP_AND, 2, 3, KPE_FOP_AND, KPE_FOP_OR }), 8);
	assert_int_equal(cfg->preds[1].is_signed, 1);
	assert_int_equal(cfg->preds[1].width, 4);
	assert_int_equal((long long)cfg->preds[1].rhs, -1);
	assert_int_equal(cfg->preds[2].op, KPE_CMP_GLOB);
	assert_true(cfg->preds[2].is_str);
	assert_string_equal(cfg->preds[2].str, "ab*");
	assert_int_equal(cfg->preds[3].field, KPE_FIELD_COMM);
	assert_string_equal(cfg->preds[3].str, "x y");

	filter_ok(c, DEF, "common_pid == 42 && CPU != 0 && len & 0x3");
	cfg = c->p.cfg;
	assert_int_equal(cfg->preds[0].field, KPE_FIELD_PID);
	assert_int_equal(cfg->preds[1].field, KPE_FIELD_CPU);
	assert_int_equal(cfg->preds[2].op, KPE_CMP_BAND);

	/* two filters on one probe must both hold */
	filter_ok(c, DEF, "len > 1");
	assert_int_equal(kpe_filter_compile(&c->p, "len < 9", &(struct kpe_error){}), 0);
	assert_int_equal(c->p.cfg->nr_filter_ops, 3);
	assert_int_equal(c->p.cfg->filter_ops[2], KPE_FOP_AND);
}

static void test_filter_errors(void **state)
{
	struct ctx *c = *state;

	filter_err(
		c, "p:e ip_send_skb s=%di:symstr", "s == \"x\"", 0,
		"ksnoop names a symstr in user space, after the filter: it has no text to compare");
	filter_err(c, DEF, "size > 3", 0, "Field not found");
	filter_err(c, DEF, "len >> 3", 5, "Illegal integer value");
	filter_err(c, DEF, "len > -3", 6, "Illegal integer value");
	filter_err(c, DEF, "len > 0x9z", 6, "Illegal integer value");
	filter_err(c, DEF, "len ~ 3", 6, "Illegal operation for field type");
	filter_err(c, DEF, "len == \"3\"", 7, "Illegal integer value");
	filter_err(c, DEF, "name < \"a\"", 7, "Illegal operation for field type");
	filter_err(c, DEF, "name == \"abc", 8, "Missing matching quote");
	filter_err(c, DEF, "len = 3", 4, "Invalid operator");
	filter_err(c, DEF, "(len > 3", 0, "Too many '('");
	filter_err(c, DEF, "len > 3)", 7, "Too few '('");
	filter_err(c, DEF, "len > 3 &&", 10, "Meaningless filter expression");
	filter_err(c, DEF, "len > 3 junk", 8, "Meaningless filter expression");
	filter_err(
		c, DEF,
		"name == \"0123456789012345678901234567890123456789012345678901234567890123456789\"",
		8, "Operand too long");
}

/* kpe_json_event's scratch, kept across calls as cmd_probe keeps it. */
static struct strbuf tmp;

/* A record as BPF writes it, and the line the kernel would print. */
static void test_output(void **state)
{
	struct ctx *c = *state;
	struct kpe_event *ev = calloc(1, sizeof(*ev));
	struct kpe_probe *p;
	struct strbuf sb;

	p = compile(c, "p:kprobes/a1 ip_send_skb net=%di len=+0x70(%si):u32 s=%si:s8 "
		       "comm=$comm y=%di:symbol a=+0(%si):u16[2] bad=+0(%si):string c=%di:char "
		       "ss=%di:symstr");
	assert_non_null(ev);
	ev->def_id = 0;
	ev->cpu = 1;
	ev->pid = 150;
	ev->ts = 10493821123ULL;
	ev->ip = SKB_ADDR;
	ev->nr_args = p->nr_fields;
	strcpy(ev->comm, "workload");
	ev->vals[0] = 0xffffffff84099cc0ULL;
	ev->vals[1] = 178;
	ev->vals[2] = 0xfe;
	strcpy((char *)ev->data, "workload");
	ev->vals[3] = (16ULL << 32) | 0;
	ev->vals[4] = JIFFIES + 0x10;
	memcpy(ev->data + 16, (__u16[]){ 178, 7 }, 4);
	ev->vals[5] = (4ULL << 32) | 16;
	ev->faults[0] = 1 << 6;
	ev->vals[7] = 'L';
	ev->vals[8] = JIFFIES + 0x10;
	ev->data_len = 24;
	assert_int_equal(kpe_event_validate(ev, KPE_EVENT_HDR_SIZE + ev->data_len, p, 1), 0);
	sb_init(&sb);
	kpe_format_event(&sb, p, c->syms, ev);
	assert_string_equal(
		sb_str(&sb),
		"        workload-150     [001]    10.493821: a1: (ip_send_skb+0x0/0x90) "
		"net=0xffffffff84099cc0 len=178 s=-2 comm=\"workload\" "
		"y=jiffies+0x10/0x100 a={178,7} bad=(fault) c='L' ss=\"jiffies+0x10/0x100\"");
	/* -j: the same values, numbers where the type is decimal */
	ev->tgid = 149;
	sb_reset(&sb);
	kpe_json_event(&sb, &tmp, p, c->syms, ev, 0);
	assert_string_equal(
		sb_str(&sb),
		"{\"ts\":10493821123,\"cpu\":1,\"pid\":149,\"tid\":150,\"comm\":\"workload\","
		"\"event\":\"kprobes/a1\",\"ip\":\"ip_send_skb+0x0/0x90\",\"args\":{"
		"\"net\":\"0xffffffff84099cc0\",\"len\":178,\"s\":-2,\"comm\":\"workload\","
		"\"y\":\"jiffies+0x10/0x100\",\"a\":\"{178,7}\",\"bad\":\"(fault)\","
		"\"c\":\"'L'\",\"ss\":\"jiffies+0x10/0x100\"}}");

	/* a return probe shows where the function returned to */
	p = compile(c, "r:kprobes/r1 ip_send_skb ret=$retval");
	ev->ip = SKB_ADDR + 0x90 + 0x15e;
	ev->nr_args = 1;
	ev->vals[0] = (__u32)-5;
	ev->data_len = 0;
	sb_reset(&sb);
	kpe_format_event(&sb, p, c->syms, ev);
	assert_string_equal(sb_str(&sb), "        workload-150     [001]    10.493821: r1: "
					 "(udp_send_skb+0x15e/0x370 <- ip_send_skb) ret=-5");
	sb_reset(&sb);
	kpe_json_event(&sb, &tmp, p, c->syms, ev, 0);
	assert_non_null(strstr(sb_str(&sb),
			       "\"ip\":\"udp_send_skb+0x15e/0x370\","
			       "\"return_from\":\"ip_send_skb\",\"args\":{\"ret\":-5}}"));

	/* module symbols carry their module, as %pS shows them */
	p = compile(c, "p:kprobes/m1 fakemod:mod_func");
	ev->ip = SKB_ADDR + 0x704;
	ev->nr_args = 0;
	sb_reset(&sb);
	kpe_format_event(&sb, p, c->syms, ev);
	assert_non_null(strstr(sb_str(&sb), ": m1: (mod_func+0x4/0x"));
	assert_non_null(strstr(sb_str(&sb), " [fakemod])"));

	/* records that do not fit their probe are refused */
	p = compile(c, "r:kprobes/r1 ip_send_skb ret=$retval");
	ev->nr_args = 1;
	assert_int_equal(kpe_event_validate(ev, 10, p, 1), -EINVAL);
	ev->def_id = 1;
	assert_int_equal(kpe_event_validate(ev, KPE_EVENT_HDR_SIZE, p, 1), -EINVAL);
	ev->def_id = 0;
	ev->data_len = 100;
	assert_int_equal(kpe_event_validate(ev, KPE_EVENT_HDR_SIZE + 8, p, 1), -EINVAL);
	sb_free(&sb);
	free(ev);
}

/* --kstack: n frames after the event's data, as BPF appends them; the record's size. */
static size_t put_kstack(struct kpe_event *ev, const __u64 *ips, __u32 len)
{
	struct kpe_kstack ks = { .len = len };
	__u8 *rec = ev->data + ev->data_len; /* aligned only when data_len is */

	memcpy(rec, &ks, sizeof(ks));
	memcpy(rec + sizeof(ks), ips, len);
	ev->flags |= KPE_EV_KSTACK;
	return KPE_EVENT_HDR_SIZE + ev->data_len + sizeof(ks) + len;
}

static struct kpe_event *stack_event(const struct kpe_probe *p)
{
	struct kpe_event *ev = calloc(1, sizeof(*ev));

	assert_non_null(ev);
	ev->nr_args = p->nr_fields;
	ev->ip = SKB_ADDR + 1;
	strcpy(ev->comm, "workload");
	return ev;
}

static const char *format_kstack(struct ctx *c, struct strbuf *sb, const struct kpe_probe *p,
				 const struct kpe_event *ev, int depth)
{
	sb_reset(sb);
	kpe_format_kstack(sb, p, c->syms, ev, depth);
	return sb_str(sb);
}

/* Frames under the line, innermost first: the function's own, then its callers. */
static void test_kstack(void **state)
{
	struct ctx *c = *state;
	const __u64 ips[] = { SKB_ADDR + 0x600, SKB_ADDR + 1, SKB_ADDR + 0x90 + 0x20,
			      SKB_ADDR + 0x704, 0x1234 };
	struct kpe_probe *p = compile(c, "p:kprobes/a ip_send_skb len=+0x70(%si):u32");
	struct kpe_event *ev = stack_event(p);
	struct strbuf sb;
	size_t size;

	sb_init(&sb);
	/* no record, no frames */
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX), "");
	ev->vals[0] = 178;
	ev->data_len = 8;
	size = put_kstack(ev, ips + 1, sizeof(ips) - 8);
	assert_int_equal(kpe_event_validate(ev, size, p, 1), 0);
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX),
			    "\n => ip_send_skb+0x1\n => udp_send_skb+0x20"
			    "\n => mod_func+0x4 [fakemod]\n => 0x1234");
	/* --kstack-depth 2: the caller is the second frame, never lost */
	assert_string_equal(format_kstack(c, &sb, p, ev, 2),
			    "\n => ip_send_skb+0x1\n => udp_send_skb+0x20");
	/* the same frames as JSON */
	sb_reset(&sb);
	kpe_json_event(&sb, &tmp, p, c->syms, ev, 2);
	assert_non_null(strstr(sb_str(&sb),
			       "\"args\":{\"len\":178},"
			       "\"kstack\":[\"ip_send_skb+0x1\",\"udp_send_skb+0x20\"]}"));
	/* a frame above the probed function is not the kernel's stack: cut */
	ev->data_len = 8;
	size = put_kstack(ev, ips, sizeof(ips));
	assert_int_equal(kpe_event_validate(ev, size, p, 1), 0);
	assert_string_equal(format_kstack(c, &sb, p, ev, 1), "\n => ip_send_skb+0x1");
	free(ev);

	/* a return probe's stack starts at the caller; recursion cuts nothing */
	p = compile(c, "r:kprobes/r ip_send_skb ret=$retval");
	ev = stack_event(p);
	size = put_kstack(ev, ips + 2, 16);
	ev->ip = ips[2];
	((struct kpe_kstack *)ev->data)->ips[1] = SKB_ADDR + 0x10;
	/* nor is a caller put back there (BPF sends no entry return address) */
	((struct kpe_kstack *)ev->data)->entry_ra = SKB_ADDR + 0x604;
	assert_int_equal(kpe_event_validate(ev, size, p, 1), 0);
	assert_string_equal(format_kstack(c, &sb, p, ev, 9),
			    "\n => udp_send_skb+0x20\n => ip_send_skb+0x10");
	sb_free(&sb);
	free(ev);
}

/*
 * At a function's first instruction a frame-pointer unwinder skips the
 * caller: the return address the function was entered with puts it back.
 */
static void test_kstack_entry_caller(void **state)
{
	struct ctx *c = *state;
	const __u64 caller = SKB_ADDR + 0x90 + 0x20, fp_ips[] = { SKB_ADDR + 1, SKB_ADDR + 0x604 },
		    orc_ips[] = { SKB_ADDR + 1, caller, SKB_ADDR + 0x604 };
	const char *want = "\n => ip_send_skb+0x1\n => udp_send_skb+0x20\n => six+0x4";
	struct kpe_probe *p = compile(c, "p:kprobes/a ip_send_skb");
	struct kpe_event *ev = stack_event(p);
	struct kpe_kstack *ks = (void *)ev->data;
	struct strbuf sb;

	sb_init(&sb);
	assert_int_equal(kpe_event_validate(ev, put_kstack(ev, fp_ips, sizeof(fp_ips)), p, 1), 0);
	ks->entry_ra = caller;
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX), want);
	/* --kstack-depth 2 keeps the caller, not the caller's caller */
	assert_string_equal(format_kstack(c, &sb, p, ev, 2),
			    "\n => ip_send_skb+0x1\n => udp_send_skb+0x20");
	/* an unwinder that found it (ORC) gets no second copy */
	put_kstack(ev, orc_ips, sizeof(orc_ips));
	ks->entry_ra = caller;
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX), want);
	/* it goes after the probed function's frame, wherever that is */
	put_kstack(ev, (const __u64[]){ SKB_ADDR + 0x600, SKB_ADDR + 1, SKB_ADDR + 0x604 }, 24);
	ks->entry_ra = caller;
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX), want);
	/* an entry return address that is no kernel text is not a frame */
	put_kstack(ev, fp_ips, sizeof(fp_ips));
	ks->entry_ra = 0x1234;
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX),
			    "\n => ip_send_skb+0x1\n => six+0x4");
	/* past the first instruction the stack's top is no return address */
	p = compile(c, "p:kprobes/b ip_send_skb+4");
	ks->entry_ra = caller;
	assert_string_equal(format_kstack(c, &sb, p, ev, KPE_KSTACK_MAX),
			    "\n => ip_send_skb+0x1\n => six+0x4");
	sb_free(&sb);
	free(ev);
}

/* A stack record that is not whole frames, too long, or not last is refused. */
static void test_kstack_malformed(void **state)
{
	struct ctx *c = *state;
	const __u64 ips[KPE_KSTACK_MAX + 1] = { SKB_ADDR + 1, SKB_ADDR + 0x90 };
	struct kpe_probe *p = compile(c, "p:kprobes/a ip_send_skb");
	struct kpe_event *ev = stack_event(p), *short_rec;
	size_t size;

	size = put_kstack(ev, ips, 16);
	assert_int_equal(kpe_event_validate(ev, size, p, 1), 0);
	/* something after it: not the last record */
	assert_int_equal(kpe_event_validate(ev, size + 8, p, 1), -EINVAL);
	/* cut short by the ring record */
	assert_int_equal(kpe_event_validate(ev, size - 8, p, 1), -EINVAL);
	/* no room for its header, which is not read (ASan sees the record's end) */
	short_rec = malloc(KPE_EVENT_HDR_SIZE);
	assert_non_null(short_rec);
	memcpy(short_rec, ev, KPE_EVENT_HDR_SIZE);
	assert_int_equal(kpe_event_validate(short_rec, KPE_EVENT_HDR_SIZE, p, 1), -EINVAL);
	free(short_rec);
	/* part of a frame */
	size = put_kstack(ev, ips, 12);
	assert_int_equal(kpe_event_validate(ev, size, p, 1), -EINVAL);
	/* more frames than the bound */
	size = put_kstack(ev, ips, sizeof(ips));
	assert_int_equal(kpe_event_validate(ev, size, p, 1), -EINVAL);
	size = put_kstack(ev, ips, sizeof(ips) - 8);
	assert_int_equal(kpe_event_validate(ev, size, p, 1), 0);
	/* after data that does not end on a frame boundary */
	ev->data_len = 4;
	size = put_kstack(ev, ips, 16);
	assert_int_equal(kpe_event_validate(ev, size, p, 1), -EINVAL);
	free(ev);
}

/*
 * %pS names a vmlinux address only inside what kallsyms covers: all of
 * [_stext, _end) with data symbols listed (CONFIG_KALLSYMS_ALL), else the
 * text; the kernel prints a data address bare then (arm64 Debian 6.1).
 */
static void test_sym_bounds(void **state)
{
	const uint64_t t = 0xffff800008000000ULL;
	struct ksyms *s;
	uint64_t start, size;
	const char *name;
	int all;

	(void)state;
	for (all = 0; all < 2; all++) {
		s = ksyms__new();
		assert_non_null(s);
		assert_int_equal(ksyms__add(s, t, 'T', "_stext", NULL), 0);
		assert_int_equal(ksyms__add(s, t + 0x10, 't', "func", NULL), 0);
		/* arm64 lists _etext as data */
		assert_int_equal(ksyms__add(s, t + 0x100, 'D', "_etext", NULL), 0);
		assert_int_equal(ksyms__add(s, t + 0x200, 'T', "_sinittext", NULL), 0);
		assert_int_equal(ksyms__add(s, t + 0x210, 't', "init_func", NULL), 0);
		assert_int_equal(ksyms__add(s, t + 0x300, 'T', "_einittext", NULL), 0);
		if (all)
			assert_int_equal(ksyms__add(s, t + 0x400, 'D', "init_net", NULL), 0);
		assert_int_equal(ksyms__add(s, t + 0x1000000, 't', "mod_fn", "m"), 0);
		assert_int_equal(ksyms__add(s, t + 0x1000100, 'd', "mod_data", "m"), 0);
		assert_int_equal(ksyms__add(s, t + 0x1000200, 't', "mod_last", "m"), 0);
		ksyms__finish(s);

		name = ksyms__find(s, t + 0x14, &start, &size, NULL);
		assert_non_null(name);
		assert_string_equal(name, "func");
		assert_int_equal(size, 0xf0);
		name = ksyms__find(s, t + 0x218, &start, &size, NULL);
		assert_non_null(name);
		assert_string_equal(name, "init_func");
		/* between the text and the init text, and past it */
		name = ksyms__find(s, t + 0x180, &start, &size, NULL);
		assert_true(all ? name && !strcmp(name, "_etext") : !name);
		name = ksyms__find(s, t + 0x400, &start, &size, NULL);
		assert_true(all ? name && !strcmp(name, "init_net") : !name);
		/* a probe address: only [_stext, _etext) and module text */
		name = ksyms__find_text(s, t + 0x14, &start);
		assert_true(name && !strcmp(name, "func") && start == t + 0x10);
		assert_null(ksyms__find_text(s, t + 0x100, &start));
		assert_null(ksyms__find_text(s, t + 0x180, &start));
		assert_null(ksyms__find_text(s, t + 0x218, &start));
		assert_null(ksyms__find_text(s, t + 0x400, &start));
		assert_null(ksyms__find_text(s, t + 0x1000, &start));
		name = ksyms__find_text(s, t + 0x1000010, &start);
		assert_true(name && !strcmp(name, "mod_fn"));
		assert_null(ksyms__find_text(s, t + 0x1000110, &start));
		/* the last symbol: nothing bounds it */
		assert_null(ksyms__find_text(s, t + 0x1000210, &start));
		assert_null(ksyms__find_text(s, ~0ULL, &start));
		ksyms__free(s);
	}
}

/*
 * %pd and %pD (6.10): the dentry's d_name.name, through the file's
 * f_path.dentry for %pD, at the offsets of the BTF given, read as a string.
 */
static void test_dentry_names(void **state)
{
	struct ctx *c = *state;
	struct fixture_ids id;
	struct btf *btf = fixture_new(&id);
	struct kpe_ctx kctx = c->kctx;
	struct kbtf *kb, *was = c->kctx.kb;
	struct kpe_probe *p;
	int qstr, cqstr, anon, dentry, dentry_ptr, path, file;

	assert_non_null(btf);
	qstr = btf__add_struct(btf, "qstr", 16);
	assert_int_equal(btf__add_field(btf, "hash_len", id.ulong_t, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "name", id.const_char_ptr, 64, 0), 0);
	/* 6.15's dentry: d_name in an anonymous union, const */
	cqstr = btf__add_const(btf, qstr);
	anon = btf__add_union(btf, NULL, 16);
	assert_int_equal(btf__add_field(btf, "d_name", cqstr, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "__d_name", qstr, 0, 0), 0);
	dentry = btf__add_struct(btf, "dentry", 48);
	assert_int_equal(btf__add_field(btf, "d_flags", id.uint_t, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, NULL, anon, 256, 0), 0);
	dentry_ptr = btf__add_ptr(btf, dentry);
	path = btf__add_struct(btf, "path", 16);
	assert_int_equal(btf__add_field(btf, "mnt", id.void_ptr, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "dentry", dentry_ptr, 64, 0), 0);
	file = btf__add_struct(btf, "file", 32);
	assert_int_equal(btf__add_field(btf, "f_mode", id.uint_t, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "f_path", path, 128, 0), 0);
	assert_true(file > 0);
	kb = fixture_kbtf(btf);
	assert_non_null(kb);
	kctx.kb = kb;
	c->kctx = kctx;

	p = compile(c, "p:e ip_send_skb d=$arg1:%pd f=+8($arg2):%pD");
	/* d: the name pointer at +40, the string at it */
	expect_insn(p, 0, KPE_OP_REG, 0, 0, DI);
	expect_insn(p, 1, KPE_OP_DEREF, 0, 0, 40);
	expect_insn(p, 2, KPE_OP_ST_STR, 0, 0, 0);
	assert_int_equal(p->fields[0].type.kind, KPE_T_STRING);
	/* f: the file pointer at +8, its dentry at +24, the name at +40 */
	expect_insn(p, 3, KPE_OP_REG, 0, 0, SI);
	expect_insn(p, 4, KPE_OP_DEREF, 0, 0, 8);
	expect_insn(p, 5, KPE_OP_DEREF, 0, 0, 24);
	expect_insn(p, 6, KPE_OP_DEREF, 0, 0, 40);
	expect_insn(p, 7, KPE_OP_ST_STR, 1, 0, 0);
	assert_true(p->fields[1].is_data);
	/* Arrays of them are refused at parse time, as string arrays are. */
	kpe_probe_free(&c->p);
	c->have_probe = false;
	c->kctx.kb = was;
	kbtf__free(kb);
	/* Without struct dentry in the BTF, %pd says what it needs. */
	compile_err(c, "p:e ip_send_skb d=$arg1:%pd", 24,
		    "%pd needs the kernel's BTF of struct dentry");
	compile_err(c, "p:e ip_send_skb d=$arg1:%pD", 24,
		    "%pD needs the kernel's BTF of struct dentry");
}

static void test_type_names(void **state)
{
	struct kpe_type t = { .kind = KPE_T_BITFIELD, .size = 1, .bf_width = 3, .bf_off = 5 };
	char buf[32];

	(void)state;
	kpe_type_str(&t, buf, sizeof(buf));
	assert_string_equal(buf, "b3@5/8");
	t = (struct kpe_type){ .kind = KPE_T_U, .size = 4, .count = 4 };
	kpe_type_str(&t, buf, sizeof(buf));
	assert_string_equal(buf, "u32[4]");
	t = (struct kpe_type){ .kind = KPE_T_USTRING };
	kpe_type_str(&t, buf, sizeof(buf));
	assert_string_equal(buf, "ustring");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers_and_derefs),
		cmocka_unit_test(test_vars),
		cmocka_unit_test(test_entry_values_at_return),
		cmocka_unit_test(test_strings_and_types),
		cmocka_unit_test(test_btf_args),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_entry_window),
		cmocka_unit_test(test_args_all),
		cmocka_unit_test(test_plain_probe_args),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_filter_errors),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_kstack),
		cmocka_unit_test(test_kstack_entry_caller),
		cmocka_unit_test(test_kstack_malformed),
		cmocka_unit_test(test_sym_bounds),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_dentry_names),
	};

	return cmocka_run_group_tests_name("kpe_compile", tests, setup, teardown);
}
