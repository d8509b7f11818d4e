// SPDX-License-Identifier: GPL-2.0
/*
 * kpe_parse.c: the tracefs kprobe_events language. Error messages and
 * offsets are the ones Linux 6.1/6.12 write to tracefs error_log for the
 * same definitions (checked in the VMs), except where noted.
 */
#include <errno.h>

#include "testutil.h"
#include "kpe/parse.h"
#include "lib/archinfo.h"

static void parse_ok(const char *text, struct kpe_def *d)
{
	struct kpe_error e;
	int err = kpe_parse_def(text, d, &e);

	if (err)
		print_error("'%s': %s at %d\n", text, e.msg, e.pos);
	assert_int_equal(err, 0);
}

/* text must be rejected with this message (a prefix of it) at this offset. */
static void parse_err(const char *text, int pos, const char *msg)
{
	struct kpe_error e;
	struct kpe_def d;
	int err = kpe_parse_def(text, &d, &e);

	if (!err)
		print_error("'%s' was accepted\n", text);
	assert_int_equal(err, -EINVAL);
	if (strncmp(e.msg, msg, strlen(msg)))
		print_error("'%s': message '%s', expected '%s'\n", text, e.msg, msg);
	assert_true(!strncmp(e.msg, msg, strlen(msg)));
	if (e.pos != pos)
		print_error("'%s': offset %d, expected %d\n", text, e.pos, pos);
	assert_int_equal(e.pos, pos);
	kpe_def_free(&d);
}

/* Linux 7.x's limits: arguments of 255 bytes, 8 dereferences from the outside. */
static void test_limits_7(void **state)
{
	const char *deep9 = "p vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(@0)))))))))";
	const char *long65 =
		"p vfs_read +1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))";
	struct kpe_error e;
	struct kpe_def d;
	char text[300];

	(void)state;
	assert_int_equal(kpe_parse_def_with(long65, &kpe_limits_7, &d, &e), 0);
	kpe_def_free(&d);
	parse_err(long65, 11, "Argument expression is too long");
	/* 255 bytes pass, 256 do not */
	snprintf(text, sizeof(text), "p vfs_read +%0*d(@1234)", 255 - 8, 1);
	assert_int_equal(kpe_parse_def_with(text, &kpe_limits_7, &d, &e), 0);
	kpe_def_free(&d);
	snprintf(text, sizeof(text), "p vfs_read +%0*d(@1234)", 256 - 8, 1);
	assert_int_equal(kpe_parse_def_with(text, &kpe_limits_7, &d, &e), -EINVAL);
	assert_string_equal(e.msg, "Argument expression is too long");
	kpe_def_free(&d);
	/* zeros before an offset take no room; a 0 first is octal, as kstrtol has it */
	snprintf(text, sizeof(text), "p vfs_read +%0*d(@1234)", 100, 8);
	assert_int_equal(kpe_parse_def_with(text, &kpe_limits_7, &d, &e), -EINVAL);
	assert_string_equal(e.msg, "Invalid dereference offset");
	kpe_def_free(&d);
	/* the 9th dereference from the outside is refused, where it starts */
	assert_int_equal(kpe_parse_def_with(deep9 + 0, &kpe_limits_7, &d, &e), -EINVAL);
	assert_string_equal(e.msg, "Too many nested typecasts/dereferences");
	assert_int_equal(e.pos, 11 + 8 * 3);
	kpe_def_free(&d);
	assert_int_equal(kpe_parse_def_with(deep9 + 0, &kpe_limits_6, &d, &e), 0);
	kpe_def_free(&d);
	assert_int_equal(kpe_parse_def_with("p vfs_read +0(+0(+0(+0(+0(+0(+0(+0(@0))))))))",
					    &kpe_limits_7, &d, &e),
			 0);
	kpe_def_free(&d);
}

static void test_heads(void **state)
{
	struct kpe_def d;

	(void)state;
	parse_ok("p:myprobe follow_page_mask", &d);
	assert_int_equal(d.kind, 'p');
	assert_false(d.is_return);
	assert_string_equal(d.group, "kprobes");
	assert_string_equal(d.event, "myprobe");
	assert_string_equal(d.symbol, "follow_page_mask");
	assert_int_equal(d.nr_args, 0);
	kpe_def_free(&d);

	parse_ok("r10:grp/ev vfs_read", &d);
	assert_true(d.is_return);
	assert_int_equal(d.maxactive, 10);
	assert_string_equal(d.group, "grp");
	kpe_def_free(&d);

	/* GRP.EVENT, and '-' in a group name (is_good_system_name) */
	parse_ok("p:my-grp.ev vfs_read", &d);
	assert_string_equal(d.group, "my-grp");
	assert_string_equal(d.event, "ev");
	kpe_def_free(&d);

	/* SYM%return makes a return probe of a p: definition */
	parse_ok("p:ev vfs_read%return", &d);
	assert_true(d.is_return);
	assert_string_equal(d.symbol, "vfs_read");
	kpe_def_free(&d);

	parse_ok("p:ev mymod:myfunc+0x10", &d);
	assert_string_equal(d.module, "mymod");
	assert_string_equal(d.symbol, "myfunc");
	assert_int_equal(d.offset, 16);
	kpe_def_free(&d);

	/* a module whose name starts with a digit is no address */
	parse_ok("p:ev 9p:v9fs_vfs_lookup", &d);
	assert_string_equal(d.module, "9p");
	assert_string_equal(d.symbol, "v9fs_vfs_lookup");
	kpe_def_free(&d);

	parse_ok("p 0xffffffff81000000", &d);
	assert_null(d.symbol);
	assert_true(d.addr == 0xffffffff81000000ULL);
	assert_string_equal(d.event, "p_0xffffffff81000000");
	kpe_def_free(&d);
}

/* Unnamed probes get the kernel's names; fprobes their own group. */
static void test_generated_names(void **state)
{
	struct kpe_def d;

	(void)state;
	parse_ok("p ip_send_skb", &d);
	assert_string_equal(d.group, "kprobes");
	assert_string_equal(d.event, "p_ip_send_skb_0");
	kpe_def_free(&d);
	parse_ok("r ip_send_skb", &d);
	assert_string_equal(d.event, "r_ip_send_skb_0");
	kpe_def_free(&d);
	parse_ok("p:kprobes/ ip_send_skb+4", &d);
	assert_string_equal(d.event, "p_ip_send_skb_4");
	kpe_def_free(&d);
	parse_ok("p mod:fn", &d);
	assert_string_equal(d.event, "p_mod_fn_0");
	kpe_def_free(&d);
	parse_ok("f ip_send_skb%return", &d);
	assert_string_equal(d.group, "fprobes");
	assert_string_equal(d.event, "ip_send_skb__exit");
	kpe_def_free(&d);
	parse_ok("f:c4 ip_send_skb", &d);
	assert_string_equal(d.group, "fprobes");
	assert_string_equal(d.event, "c4");
	kpe_def_free(&d);
	/* an f that fetches $retval is an exit probe, named as one */
	parse_ok("f ip_send_skb len=skb->len r=+0($retval):u8", &d);
	assert_true(d.is_return);
	assert_string_equal(d.event, "ip_send_skb__exit");
	kpe_def_free(&d);
	parse_ok("f ip_send_skb $retval", &d);
	assert_true(d.is_return);
	kpe_def_free(&d);
	parse_ok("p ip_send_skb x=%di", &d);
	assert_false(d.is_return);
	kpe_def_free(&d);
}

/* $retval->member: a BTF path on the return value, "return->..." for the compiler */
static void test_retval_members(void **state)
{
	struct kpe_def d;

	(void)state;
	parse_ok("f:e getname_flags%return path=$retval->name:string n=$retval.refcnt", &d);
	assert_int_equal(d.nr_args, 2);
	assert_int_equal(d.args[0].fetch.base, KPE_B_BTF);
	assert_true(d.args[0].fetch.retval);
	assert_string_equal(d.args[0].fetch.name, "return->name");
	assert_string_equal(d.args[1].fetch.name, "return.refcnt");
	kpe_def_free(&d);
}

static void test_fetchargs(void **state)
{
	struct kpe_def d;
	const struct kpe_arg *a;

	(void)state;
	parse_ok(
		"p:e f a=%di +0x70(%si):u32 $stack $stack3 $arg2 $comm \\1234 \\\"hi\" "
		"@jiffies+8 @0x1000:x16 -8(+u16(%ax)):s8 c=$COMM:string skb->sk->__sk_common.skc_daddr",
		&d);
	assert_int_equal(d.nr_args, 13);
	a = d.args;
	assert_string_equal(a[0].name, "a");
	assert_int_equal(a[0].fetch.base, KPE_B_REG);
	assert_int_equal(a[0].fetch.num, 14); /* di in pt_regs */
	assert_int_equal(a[0].type.kind, KPE_T_NONE);
	assert_null(a[1].name); /* named by the compiler */
	assert_int_equal(a[1].fetch.nr_derefs, 1);
	assert_int_equal(a[1].fetch.steps[0].off, 0x70);
	assert_int_equal(a[1].type.kind, KPE_T_U);
	assert_int_equal(a[1].type.size, 4);
	assert_int_equal(a[2].fetch.base, KPE_B_STACKP);
	assert_int_equal(a[3].fetch.base, KPE_B_STACK);
	assert_int_equal(a[3].fetch.num, 3);
	assert_int_equal(a[4].fetch.base, KPE_B_ARG);
	assert_int_equal(a[4].fetch.num, 2);
	assert_int_equal(a[5].fetch.base, KPE_B_COMM);
	assert_int_equal(a[6].fetch.base, KPE_B_IMM);
	assert_int_equal(a[6].fetch.num, 1234);
	assert_int_equal(a[7].fetch.base, KPE_B_IMMSTR);
	assert_string_equal(a[7].fetch.name, "hi");
	assert_int_equal(a[8].fetch.base, KPE_B_SYM);
	assert_string_equal(a[8].fetch.name, "jiffies");
	assert_int_equal(a[8].fetch.num, 8);
	assert_int_equal(a[9].fetch.base, KPE_B_ADDR);
	assert_int_equal(a[9].fetch.num, 0x1000);
	assert_int_equal(a[9].type.kind, KPE_T_X);
	assert_int_equal(a[9].type.size, 2);
	/* innermost first: +u16 (user), then -8 */
	assert_int_equal(a[10].fetch.nr_derefs, 2);
	assert_int_equal(a[10].fetch.steps[0].off, 16);
	assert_true(a[10].fetch.steps[0].user);
	assert_int_equal(a[10].fetch.steps[1].off, -8);
	assert_false(a[10].fetch.steps[1].user);
	assert_int_equal(a[10].type.kind, KPE_T_S);
	assert_int_equal(a[11].type.kind, KPE_T_STRING);
	assert_int_equal(a[12].fetch.base, KPE_B_BTF);
	assert_string_equal(a[12].fetch.name, "skb->sk->__sk_common.skc_daddr");
	assert_int_equal(a[12].body_pos,
			 (int)strlen("p:e f a=%di +0x70(%si):u32 $stack $stack3 $arg2 "
				     "$comm \\1234 \\\"hi\" @jiffies+8 @0x1000:x16 "
				     "-8(+u16(%ax)):s8 c=$COMM:string "));
	kpe_def_free(&d);

	parse_ok("r:e f ret=$retval:s32", &d);
	assert_int_equal(d.args[0].fetch.base, KPE_B_RETVAL);
	kpe_def_free(&d);
	parse_ok("p:e f $arg* x=%di", &d);
	assert_int_equal(d.args[0].fetch.base, KPE_B_ARGS_ALL);
	kpe_def_free(&d);
}

static void test_types(void **state)
{
	struct kpe_def d;
	const struct kpe_arg *a;

	(void)state;
	parse_ok("p:e f a=%di:u8 b=%di:s16 c=%di:x32 d=%di:u64 e=+0(%di):string "
		 "f=+0(%di):ustring g=%di:symbol h=%di:char i=%di:b4@2/32 j=+0(%di):u32[4]",
		 &d);
	a = d.args;
	assert_int_equal(a[0].type.kind, KPE_T_U);
	assert_int_equal(a[0].type.size, 1);
	assert_int_equal(a[1].type.kind, KPE_T_S);
	assert_int_equal(a[1].type.size, 2);
	assert_int_equal(a[2].type.kind, KPE_T_X);
	assert_int_equal(a[3].type.size, 8);
	assert_int_equal(a[4].type.kind, KPE_T_STRING);
	assert_int_equal(a[5].type.kind, KPE_T_USTRING);
	assert_int_equal(a[6].type.kind, KPE_T_SYMBOL);
	assert_int_equal(a[7].type.kind, KPE_T_CHAR);
	assert_int_equal(a[8].type.kind, KPE_T_BITFIELD);
	assert_int_equal(a[8].type.size, 4);
	assert_int_equal(a[8].type.bf_width, 4);
	assert_int_equal(a[8].type.bf_off, 2);
	assert_int_equal(a[9].type.count, 4);
	assert_int_equal(a[9].type.size, 4);
	kpe_def_free(&d);
}

/* Offsets and messages as tracefs error_log reports them. */
static void test_kernel_errors(void **state)
{
	(void)state;
	parse_err("p:kprobes/a4 ip_send_skb skb=%x0", 29, "Invalid register name");
	parse_err("p:kprobes/a5 ip_send_skb +0(%si", 31, "Dereference brace is not closed");
	parse_err("p:kprobes/a6 ip_send_skb x=%si:foo", 31, "Unknown type is specified");
	parse_err("p:kprobes/a8 ip_send_skb x=$retval", 27, "$retval is not available on probe");
	parse_err("p:kprobes/b12 ip_send_skb 1x=%di", 26,
		  "Argument name must follow the same rules as C identifiers");
	parse_err("p:kprobes/b13 ip_send_skb x=%di:u64[200]", 36, "Array number is too big");
	parse_err("p:kprobes/b14 ip_send_skb x=+a(%di)", 28, "Invalid dereference offset");
	parse_err("p:kprobes/b15 ip_send_skb x=$comm:u32", 34,
		  "$comm and immediate-string only accepts string type");
	parse_err("p:kprobes/b16 ip_send_skb x=\\abc", 29, "Invalid immediate value");
	parse_err("p:kprobes/b17 ip_send_skb x=\\\"abc", 33, "String is not closed with '\"'");
	parse_err("p:kprobes/b19 ip_send_skb x=%di:b3@62/64", 32, "Invalid bitfield");
	parse_err("p:kprobes/b20 ip_send_skb x=%di:b70@0/64", 32, "Invalid bitfield");
	parse_err("p:kprobes/1b22 ip_send_skb", 10,
		  "Event name must follow the same rules as C identifiers");
	parse_err("p:/b25 ip_send_skb", 2, "Group name is not specified");
	parse_err("p5:kprobes/b27 ip_send_skb", 1, "Maxactive is only for function exit");
	parse_err("r99999:kprobes/b28 ip_send_skb", 1, "Maxactive is too big");
	parse_err("r:kprobes/b30 ip_send_skb+5", 14, "Retprobe address must be an function entry");
	parse_err("p:kprobes/b32 ip_send_skb x=$stack-1", 28, "Invalid $-variable specified");
	parse_err("p:kprobes/b33 ip_send_skb x=$foo", 28, "Invalid $-variable specified");
	parse_err("p:kprobes/b35 ip_send_skb x=+0($comm)", 31, "$comm can not be dereferenced");
	parse_err("p:kprobes/b36 ip_send_skb "
		  "x=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))))",
		  28, "Argument expression is too long");
	parse_err("p:kprobes/b37 ip_send_skb x=0(%di)", 28, "Invalid fetch argument");
	parse_err("p:kprobes/b38 ip_send_skb x=", 28, "No argument expression");
	parse_err("p:kprobes/b39 ip_send_skb =%di", 26, "Argument name is not specified");
	parse_err("p:kprobes/b40 ip_send_skb x=+0(%di):b0@1/8", 36, "Invalid bitfield");
	parse_err("p:kprobes/b42 ip_send_skb x=%di:b4@2/8s", 32, "Unknown type is specified");
	parse_err("p:kprobes/b43 ip_send_skb x=+0u(%di)", 28, "Invalid dereference offset");
	parse_err("p:kprobes/b47 ip_send_skb x=$arg*", 28, "Invalid $-variable specified");
	parse_err("p:kprobes/b6 ip_send_skb+8 x=skb", 29, "BTF is not available or not supported");
	parse_err("p:kprobes/b8 ip_send_skb x=skb-len", 30,
		  "Failed to parse single hyphen. Forgot '>'?");
	parse_err("p:kprobes/x ip_send_skb%retur", 23, "Invalid probed address suffix");
	parse_err("p:kprobes/x ip_send_skb+zz", 12, "Invalid probed address or symbol");
}

/* Where ksnoop goes its own way, or the kernel has no position to give. */
static void test_ksnoop_errors(void **state)
{
	char longname[80];

	(void)state;
	/* arm64's names on x86-64 (and the reverse) say what to use instead */
	parse_err("p:myprobe follow_page_mask vma=%x0", 31,
		  "Invalid register name: %x0 is an arm64 register; x86-64 passes arguments in "
		  "%di, %si, %dx, %cx, %r8, %r9");
	parse_err("p:e f x=%lr", 8, "Invalid register name: %lr is an arm64 register");
	parse_err("p:e f x=%rax", 8, "Invalid register name");
	/* fprobes have no full register set */
	parse_err("f:e f x=%di", 8, "Invalid $-variable specified");
	/* $argN only where the entry registers are the arguments */
	parse_err("p:e f+5 x=$arg1", 10, "$arg* can be used only on function entry or exit");
	/* at return, entry values (Linux 6.10); BTF names need a function */
	parse_err("r:e 0xffffffff81000000 x=skb->len", 25, "BTF is not available or not supported");
	parse_err("p:e f x=$arg0", 8, "Invalid argument number");
	parse_err("p:e f x=$stack9999", 8, "Invalid stack number");
	parse_err("p:e f $arg*:u32", 6, "$arg* must be an independent parameter without name etc.");
	parse_err("p:e f $arg* $arg*", 12, "$arg* can be used only once in the parameters");
	parse_err("p:e f x=@+8", 8, "File offset is not available with kprobe");
	parse_err("p:e f x=@", 8, "Invalid memory address");
	parse_err("p:e f x=+0(%di)junk", 15, "Invalid fetch argument");
	parse_err("p:e f x=+0(%di):string[2]", 16, "string arrays are not supported");
	parse_err("p:e f x=%di:symstr[2]", 12, "string arrays are not supported");
	parse_err("p:e f x=+0(%di):u8[2", 20,
		  "Array is not closed"); /* past the number, as the kernel */
	parse_err("f100 vfs_read", 1, "Invalid maxactive number");
	/* $retval's members (6.8): only at a return, and names after each -> */
	parse_err("p:e f x=$retval->len", 8, "$retval is not available on probe");
	parse_err("r:e f x=$retval-x", 15, "Failed to parse single hyphen. Forgot '>'?");
	parse_err("p:e f x=+0(%di):u8[2]x", 21, "Array has wrong suffix");
	parse_err("p:e f x=+0(%di):u8[0]", 19, "Invalid array size");
	parse_err("-:e", 0, "'-:EVENT' deletes a tracefs event");
	parse_err("q:e f", 0, "unknown probe type 'q'");
	parse_err("t:e sched_switch $stack0", 17, "ksnoop reads a tracepoint's arguments");
	parse_err("p:e", 3, "Invalid probed address or symbol");
	parse_err("", 0, "empty definition");
	parse_err("p: f", 2, "Event name is not specified");
	memset(longname, 'a', sizeof(longname));
	longname[0] = 'p';
	longname[1] = ':';
	strcpy(longname + 70, " f");
	parse_err(longname, 2, "Event name is too long");
	parse_err("p:e f abcdefghijklmnopqrstuvwxyzabcdefgh=%di", 6, "Argument name is too long");
}

static void test_limits(void **state)
{
	struct kpe_def d;
	char *t = malloc(KPE_DEF_MAX_LEN + 16);
	int i, n;

	(void)state;
	/* 128 arguments are fine, 129 are not */
	n = sprintf(t, "p:e f");
	for (i = 0; i < 128; i++)
		n += sprintf(t + n, " a%d=%%di", i);
	parse_ok(t, &d);
	assert_int_equal(d.nr_args, 128);
	kpe_def_free(&d);
	strcpy(t + n, " b=%di");
	parse_err(t, n + 1, "Too many arguments are specified");
	memset(t, 'x', KPE_DEF_MAX_LEN + 1);
	t[KPE_DEF_MAX_LEN + 1] = '\0';
	parse_err(t, KPE_DEF_MAX_LEN, "definition longer than");
	/* 6.x: thirteen derefs nest; of fourteen, the 13th from the inside is refused */
	strcpy(t, "p:e f x=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))");
	parse_ok(t, &d);
	assert_int_equal(d.args[0].fetch.nr_derefs, 13);
	kpe_def_free(&d);
	parse_err("p vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))", 14,
		  "Dereference is too much nested");
	parse_err("p vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0)))))))))))))))", 17,
		  "Dereference is too much nested");
	free(t);
}

/* kpe_def_free leaves a zeroed def: freeing again, or after a failed parse, is safe. */
/* Parse text under limits lim, which must succeed, into d. */
static void parse_with(const char *text, const struct kpe_limits *lim, struct kpe_def *d)
{
	struct kpe_error e;
	int err = kpe_parse_def_with(text, lim, d, &e);

	if (err)
		print_error("'%s': %s at %d\n", text, e.msg, e.pos);
	assert_int_equal(err, 0);
}

/* Linux 7.3's typecasts, $current and per-CPU reads, as the kernel delimits them. */
static void test_casts(void **state)
{
	const struct kpe_step *st;
	struct kpe_error e;
	struct kpe_def d;

	(void)state;
	parse_with("p:e f x=(file,f_path.dentry)file->f_pos.a->b", &kpe_limits_7, &d);
	assert_int_equal(d.args[0].fetch.base, KPE_B_BTF);
	assert_string_equal(d.args[0].fetch.name, "file");
	assert_int_equal(d.args[0].fetch.nr_steps, 1);
	st = &d.args[0].fetch.steps[0];
	assert_int_equal(st->kind, KPE_S_CAST);
	assert_int_equal(st->pos, 8);
	assert_string_equal(st->cast, "file");
	assert_string_equal(st->cast_field, "f_path.dentry");
	assert_int_equal(st->field_pos, 14);
	assert_string_equal(st->members, "f_pos.a->b");
	assert_int_equal(st->members_pos, 34);
	kpe_def_free(&d);
	/* INNER: in parentheses, a dereference, or up to the first '-' */
	parse_with("p:e f x=(a)((b)+8(%di)->m)->n y=(c)$current->d z=$current->pid", &kpe_limits_7,
		   &d);
	assert_int_equal(d.args[0].fetch.base, KPE_B_REG);
	assert_int_equal(d.args[0].fetch.nr_steps, 3);
	assert_int_equal(d.args[0].fetch.steps[0].kind, KPE_S_DEREF);
	assert_int_equal(d.args[0].fetch.steps[0].off, 8);
	assert_string_equal(d.args[0].fetch.steps[1].cast, "b");
	assert_string_equal(d.args[0].fetch.steps[2].cast, "a");
	assert_string_equal(d.args[0].fetch.steps[2].members, "n");
	assert_int_equal(d.args[1].fetch.base, KPE_B_CURRENT);
	assert_string_equal(d.args[1].fetch.steps[0].cast, "c");
	/* $current->MEMBERS is (task_struct)$current->MEMBERS */
	assert_string_equal(d.args[2].fetch.steps[0].cast, "task_struct");
	assert_string_equal(d.args[2].fetch.steps[0].members, "pid");
	assert_int_equal(d.args[2].fetch.steps[0].members_pos, 59);
	kpe_def_free(&d);
	/* what follows this_cpu_*()'s last ')' is not read, as in the kernel */
	parse_with("p:e f x=this_cpu_read(@v)->junk y=this_cpu_ptr(%di)", &kpe_limits_7, &d);
	assert_int_equal(d.args[0].fetch.base, KPE_B_SYM);
	assert_int_equal(d.args[0].fetch.nr_steps, 2);
	assert_int_equal(d.args[0].fetch.steps[0].kind, KPE_S_THIS_CPU);
	assert_int_equal(d.args[0].fetch.steps[1].kind, KPE_S_DEREF);
	assert_int_equal(d.args[1].fetch.nr_steps, 1);
	kpe_def_free(&d);

	parse_err("p:e f x=(file)file", 18, "Typecast requires a field access");
	parse_err("p:e f x=(file)+0(%di)", 21, "Typecast requires a field access");
	parse_err("p:e f x=(file)(file)x", 20, "Typecast requires a field access");
	parse_err("p:e f x=(file)+0%di->m", 14, "Dereference needs a brace");
	parse_err("p:e f x=(file)+0(%di->m", 23, "Dereference brace is not closed");
	parse_err("p:e f x=(file)(%di->m", 14, "Dereference brace is not closed");
	parse_err("p:e f x=(file", 13, "Dereference brace is not closed");
	parse_err("p:e f x=(file)@jiffies+8->m", 14,
		  "@SYM+/-OFFSET with typecast needs parentheses");
	parse_err("p:e f x=(file)%di->a-b", 20, "Failed to parse single hyphen");
	parse_err("p:e f x=(file)$comm9->m", 14, "Invalid $-variable specified");
	parse_err("p:e f x=$current.pid", 8, "Invalid $-variable specified");
	parse_err("p:e f x=this_cpu_read(", 22, "Dereference brace is not closed");
	parse_err("p:e f x=this_cpu_read()", 22, "Invalid fetch argument");
	parse_err("p:e f x=this_cpu_ptr($comm)", 21, "$comm can not be dereferenced");
	parse_err("e:e sys.ev x=this_cpu_read($f)", 13,
		  "Per-cpu variable access is only for kernel probes");
	/* 7.x: a typecast is one more nesting; the 9th from the outside is refused */
	assert_int_equal(kpe_parse_def_with("p f x=(s)(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))->m",
					    &kpe_limits_7, &d, &e),
			 -EINVAL);
	assert_string_equal(e.msg, "Too many nested typecasts/dereferences");
	assert_int_equal(e.pos, 31);
	kpe_def_free(&d);
	/* a this_cpu_read() takes two of the kernel's operations, and room for three */
	parse_with("p f x=this_cpu_read(this_cpu_read(this_cpu_read(this_cpu_read(this_cpu_read("
		   "this_cpu_read(@v))))))",
		   &kpe_limits_7, &d);
	kpe_def_free(&d);
	assert_int_equal(
		kpe_parse_def_with("p f x=this_cpu_read(this_cpu_read(this_cpu_read(this_cpu_read("
				   "this_cpu_read(this_cpu_read(this_cpu_read(@v)))))))",
				   &kpe_limits_7, &d, &e),
		-EINVAL);
	assert_string_equal(e.msg, "Dereference is too much nested");
	assert_int_equal(e.pos, 20);
	kpe_def_free(&d);
}

/* x86-64: SYM+4 may be the entry (after ENDBR64); the compiler decides. */
static void test_entry_window(void **state)
{
	struct kpe_def d;

	(void)state;
	if (!arch_native()->entry_window)
		skip();
	parse_with("p:e f+4 x=$arg1 y=n", &kpe_limits_6, &d);
	assert_non_null(d.entry_err);
	assert_string_equal(d.entry_err, "$arg* can be used only on function entry or exit");
	assert_int_equal(d.entry_err_pos, 10);
	kpe_def_free(&d);
	parse_with("r:e f+4 $retval", &kpe_limits_6, &d);
	assert_string_equal(d.entry_err, "Retprobe address must be an function entry");
	assert_int_equal(d.entry_err_pos, 4);
	kpe_def_free(&d);
	parse_with("p:e f+4 x=%di", &kpe_limits_6, &d);
	assert_null(d.entry_err);
	kpe_def_free(&d);
	parse_err("r:e f+5", 4, "Retprobe address must be an function entry");
}

static void test_free_is_idempotent(void **state)
{
	struct kpe_def d, zero;
	struct kpe_error e;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	parse_ok("p:e f a=%di", &d);
	assert_non_null(d.symbol);
	assert_int_equal(d.nr_args, 1);
	kpe_def_free(&d);
	assert_memory_equal(&d, &zero, sizeof(d));
	kpe_def_free(&d);
	assert_memory_equal(&d, &zero, sizeof(d));
	/* failing at the second argument, after the first was kept */
	assert_int_equal(kpe_parse_def("p:e f a=%di b=+0(", &d, &e), -EINVAL);
	kpe_def_free(&d);
	assert_memory_equal(&d, &zero, sizeof(d));
}

/* t: a tracepoint and its arguments, named and grouped as the kernel's (7.3). */
static void test_tracepoint_probes(void **state)
{
	struct kpe_def d;

	(void)state;
	parse_ok("t sched_switch prev->pid $arg2 $comm", &d);
	assert_int_equal(d.kind, 't');
	assert_false(d.is_return);
	assert_string_equal(d.group, "tracepoints");
	assert_string_equal(d.event, "sched_switch");
	assert_string_equal(d.symbol, "sched_switch");
	assert_int_equal(d.args[0].fetch.base, KPE_B_BTF);
	assert_int_equal(d.args[1].fetch.base, KPE_B_ARG);
	assert_int_equal(d.args[1].fetch.num, 2);
	assert_int_equal(d.args[2].fetch.base, KPE_B_COMM);
	kpe_def_free(&d);
	parse_ok("t:grp/ sched_wakeup $arg*", &d);
	assert_string_equal(d.group, "grp");
	assert_string_equal(d.event, "sched_wakeup");
	kpe_def_free(&d);
	/* the kernel's columns, from error_log */
	parse_err("t5:a/x sched_switch", 1, "Invalid maxactive number");
	parse_err("t:a/rr sched_switch%return", 19, "Invalid probed address suffix");
	parse_err("t:a/off sched_switch+4", 20, "Invalid character in tracepoint name");
	parse_err("t:a/mod loop:block_rq_issue", 12, "Invalid character in tracepoint name");
	parse_err("t:a/r1 sched_switch %ax", 20, "Invalid $-variable specified");
	parse_err("t:a/rt sched_switch $retval", 20, "$retval is not available on probe");
	parse_err("t:a/a0 sched_switch $arg0", 20, "Invalid argument number");
}

/* e: SYSTEM.EVENT and its fields, with or without '$' (7.x). */
static void test_event_probes(void **state)
{
	struct kpe_def d;

	(void)state;
	parse_ok("e syscalls/sys_enter_openat $filename fn=+0($filename):ustring", &d);
	assert_int_equal(d.kind, 'e');
	assert_string_equal(d.group, "eprobes");
	assert_string_equal(d.event, "sys_enter_openat");
	assert_string_equal(d.system, "syscalls");
	assert_string_equal(d.symbol, "sys_enter_openat");
	assert_int_equal(d.args[0].fetch.base, KPE_B_FIELD);
	assert_string_equal(d.args[0].fetch.name, "filename");
	assert_int_equal(d.args[1].fetch.nr_derefs, 1);
	kpe_def_free(&d);
	/* what comes before the colon is ignored, as the kernel ignores it */
	parse_ok("e5:grp/ev sched.sched_switch prev_pid $comm x=$comm:u32 $retval", &d);
	assert_string_equal(d.event, "ev");
	assert_true(d.args[0].fetch.bare);
	assert_int_equal(d.args[1].fetch.base, KPE_B_COMM);
	assert_int_equal(d.args[2].type.kind, KPE_T_U);
	assert_int_equal(d.args[3].fetch.base, KPE_B_FIELD); /* no such field: the compiler says */
	kpe_def_free(&d);
	parse_err("e:a/b sched_switch", 6, "This requires both group and event name to attach");
	parse_err("e:a/b sched.", 6, "This requires both group and event name to attach");
	parse_err("e:a/b .sched_switch", 6, "This requires both group and event name to attach");
	parse_err("e:a/b sched.sched_switch.x", 6, "This requires both group and event name");
	parse_err("e:a/b sched.sched_switch %ax", 25, "Invalid $-variable specified");
	parse_err("e:a/b sched.sched_switch $arg*", 25, "Invalid $-variable specified");
	parse_err("e:a/b sched.sched_switch prev_pid->foo", 25, "This event field is not found.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heads),
		cmocka_unit_test(test_generated_names),
		cmocka_unit_test(test_fetchargs),
		cmocka_unit_test(test_retval_members),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_kernel_errors),
		cmocka_unit_test(test_ksnoop_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_limits_7),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_entry_window),
		cmocka_unit_test(test_free_is_idempotent),
		cmocka_unit_test(test_tracepoint_probes),
		cmocka_unit_test(test_event_probes),
	};

	return cmocka_run_group_tests_name("kpe_parse", tests, NULL, NULL);
}
