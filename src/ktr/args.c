// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall argument decoding for kdump. The kind of each argument comes
 * from the kernel's own prototype (type and name, see ktr_systab.h), with
 * a short table of per-syscall flag words on top; everything else prints
 * the BSD way, in hex.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktr/args.h"
#include "ktr/systab.h"
#include "lib/errnames.h"

enum arg_kind {
	AK_HEX,	    /* plain number: hex, or decimal with -d */
	AK_PTR,	    /* user pointer */
	AK_DEC,	    /* a pid and the like */
	AK_FD,	    /* file descriptor */
	AK_DIRFD,   /* fd or AT_FDCWD */
	AK_OFLAGS,  /* O_* */
	AK_MODE,    /* permission bits, octal */
	AK_PROT,    /* PROT_* */
	AK_MMAP,    /* MAP_* */
	AK_SIGNAL,  /* signal number */
	AK_ATFLAGS, /* AT_* */
	AK_SIGHOW,  /* SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK */
	AK_OMIT,    /* not shown: open's mode without O_CREAT */
};

struct flag_name {
	unsigned long long mask; /* every bit of mask set: the name applies */
	const char *name;
};

/* Multi-bit names come before the bits they contain. */
static const struct flag_name oflag_names[] = {
	{ O_CREAT, "O_CREAT" },	      { O_EXCL, "O_EXCL" },	  { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" },	      { O_APPEND, "O_APPEND" },	  { O_NONBLOCK, "O_NONBLOCK" },
	{ O_SYNC, "O_SYNC" },	      { O_DSYNC, "O_DSYNC" },	  { O_ASYNC, "O_ASYNC" },
	{ O_DIRECT, "O_DIRECT" },     { O_TMPFILE, "O_TMPFILE" }, { O_DIRECTORY, "O_DIRECTORY" },
	{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" },
	{ O_PATH, "O_PATH" },
};

static const struct flag_name prot_names[] = {
	{ PROT_READ, "PROT_READ" },
	{ PROT_WRITE, "PROT_WRITE" },
	{ PROT_EXEC, "PROT_EXEC" },
#ifdef PROT_SEM
	{ PROT_SEM, "PROT_SEM" },
#endif
	{ PROT_GROWSDOWN, "PROT_GROWSDOWN" },
	{ PROT_GROWSUP, "PROT_GROWSUP" },
};

static const struct flag_name mmap_names[] = {
	{ MAP_FIXED, "MAP_FIXED" },
	{ MAP_ANONYMOUS, "MAP_ANONYMOUS" },
#ifdef MAP_32BIT
	{ MAP_32BIT, "MAP_32BIT" },
#endif
	{ MAP_GROWSDOWN, "MAP_GROWSDOWN" },
	{ MAP_DENYWRITE, "MAP_DENYWRITE" },
	{ MAP_EXECUTABLE, "MAP_EXECUTABLE" },
	{ MAP_LOCKED, "MAP_LOCKED" },
	{ MAP_NORESERVE, "MAP_NORESERVE" },
	{ MAP_POPULATE, "MAP_POPULATE" },
	{ MAP_NONBLOCK, "MAP_NONBLOCK" },
	{ MAP_STACK, "MAP_STACK" },
	{ MAP_HUGETLB, "MAP_HUGETLB" },
#ifdef MAP_SYNC
	{ MAP_SYNC, "MAP_SYNC" },
#endif
#ifdef MAP_FIXED_NOREPLACE
	{ MAP_FIXED_NOREPLACE, "MAP_FIXED_NOREPLACE" },
#endif
};

static const struct flag_name atflag_names[] = {
	{ AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW" },
	{ AT_REMOVEDIR, "AT_REMOVEDIR" },
	{ AT_SYMLINK_FOLLOW, "AT_SYMLINK_FOLLOW" },
	{ AT_NO_AUTOMOUNT, "AT_NO_AUTOMOUNT" },
	{ AT_EMPTY_PATH, "AT_EMPTY_PATH" },
};

/* Append "|NAME" for every name whose bits are all set; returns the rest. */
static unsigned long long put_flag_names(struct strbuf *sb, unsigned long long v,
					 const struct flag_name *t, size_t n, bool *first)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if ((v & t[i].mask) != t[i].mask)
			continue;
		sb_printf(sb, "%s%s", *first ? "" : "|", t[i].name);
		*first = false;
		v &= ~t[i].mask;
	}
	return v;
}

static void put_rest(struct strbuf *sb, unsigned long long rest, bool first)
{
	if (rest)
		sb_printf(sb, "%s%#llx", first ? "" : "|", rest);
	sb_putc(sb, '>');
}

void ktr_format_oflags(struct strbuf *sb, unsigned long long v)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	bool first = false;

	sb_printf(sb, "%#llx<%s", v, acc[v & O_ACCMODE]);
	put_rest(sb,
		 put_flag_names(sb, v & ~(unsigned long long)O_ACCMODE, oflag_names,
				ARRAY_SIZE(oflag_names), &first),
		 first);
}

void ktr_format_prot(struct strbuf *sb, unsigned long long v)
{
	bool first = true;

	if (!v) {
		sb_printf(sb, "0<PROT_NONE>");
		return;
	}
	sb_printf(sb, "%#llx<", v);
	put_rest(sb, put_flag_names(sb, v, prot_names, ARRAY_SIZE(prot_names), &first), first);
}

void ktr_format_mmap_flags(struct strbuf *sb, unsigned long long v)
{
	static const char *const type[] = { NULL, "MAP_SHARED", "MAP_PRIVATE",
					    "MAP_SHARED_VALIDATE" };
	unsigned long long t = v & MAP_TYPE;
	bool first = true;

	sb_printf(sb, "%#llx<", v);
	if (t < ARRAY_SIZE(type) && type[t]) {
		sb_printf(sb, "%s", type[t]);
		first = false;
		v &= ~(unsigned long long)MAP_TYPE;
	}
	put_rest(sb, put_flag_names(sb, v, mmap_names, ARRAY_SIZE(mmap_names), &first), first);
}

static void format_atflags(struct strbuf *sb, unsigned long long v)
{
	bool first = true;

	if (!v) {
		sb_putc(sb, '0');
		return;
	}
	sb_printf(sb, "%#llx<", v);
	put_rest(sb, put_flag_names(sb, v, atflag_names, ARRAY_SIZE(atflag_names), &first), first);
}

const char *ktr_syscall_name(unsigned int nr, bool names, char *buf, size_t len)
{
	const struct ktr_sysent *e = names ? ktr_sys_lookup(nr) : NULL;

	if (e)
		return e->name;
	snprintf(buf, len, "[%u]", nr);
	return buf;
}

struct arg_rule {
	const char *syscall;
	const char *arg;
	enum arg_kind kind;
};

/* Flag words the prototype alone does not identify. */
static const struct arg_rule arg_rules[] = {
	{ "open", "flags", AK_OFLAGS },
	{ "openat", "flags", AK_OFLAGS },
	{ "mmap", "prot", AK_PROT },
	{ "mmap", "flags", AK_MMAP },
	{ "mprotect", "prot", AK_PROT },
	{ "pkey_mprotect", "prot", AK_PROT },
	{ "kill", "sig", AK_SIGNAL },
	{ "tkill", "sig", AK_SIGNAL },
	{ "tgkill", "sig", AK_SIGNAL },
	{ "rt_sigaction", "sig", AK_SIGNAL },
	{ "rt_sigqueueinfo", "sig", AK_SIGNAL },
	{ "rt_tgsigqueueinfo", "sig", AK_SIGNAL },
	{ "pidfd_send_signal", "sig", AK_SIGNAL },
	{ "unlinkat", "flag", AK_ATFLAGS },
	{ "newfstatat", "flag", AK_ATFLAGS },
	{ "fchownat", "flag", AK_ATFLAGS },
	{ "linkat", "flags", AK_ATFLAGS },
	{ "utimensat", "flags", AK_ATFLAGS },
	{ "execveat", "flags", AK_ATFLAGS },
	{ "statx", "flags", AK_ATFLAGS },
	{ "name_to_handle_at", "flag", AK_ATFLAGS },
	{ "fchmodat2", "flags", AK_ATFLAGS },
	{ "rt_sigprocmask", "how", AK_SIGHOW },
};

static bool name_is(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(name, list[i]))
			return true;
	}
	return false;
}

static enum arg_kind kind_from_proto(const struct ktr_sysarg *a)
{
	static const char *const fds[] = { "fd",    "oldfd",  "newfd", "epfd",	"in_fd", "out_fd",
					   "fd_in", "fd_out", "pidfd", "mqdes", "ufd" };
	static const char *const dirfds[] = { "dfd",   "olddfd",   "newdfd",
					      "dirfd", "from_dfd", "to_dfd" };
	static const char *const decs[] = { "pid_t" };

	if (strchr(a->type, '*'))
		return AK_PTR;
	if (name_is(a->name, dirfds, ARRAY_SIZE(dirfds)))
		return AK_DIRFD;
	if (name_is(a->name, fds, ARRAY_SIZE(fds)))
		return AK_FD;
	if (!strcmp(a->name, "mode") && !strcmp(a->type, "umode_t"))
		return AK_MODE;
	if (name_is(a->type, decs, ARRAY_SIZE(decs)))
		return AK_DEC;
	return AK_HEX;
}

static enum arg_kind arg_kind(const struct ktr_sysent *e, int i, const struct ktr_syscall *c)
{
	size_t r;

	for (r = 0; r < ARRAY_SIZE(arg_rules); r++) {
		if (!strcmp(e->name, arg_rules[r].syscall) &&
		    !strcmp(e->args[i].name, arg_rules[r].arg))
			return arg_rules[r].kind;
	}
	/* BSD's kdump shows open's mode only when the call can create. */
	if (!strcmp(e->args[i].name, "mode") && i > 0 &&
	    (!strcmp(e->name, "open") || !strcmp(e->name, "openat")) &&
	    !(c->args[i - 1] & (O_CREAT | __O_TMPFILE)))
		return AK_OMIT;
	return kind_from_proto(&e->args[i]);
}

/* Types narrower than a register: the upper bits are not part of the value. */
static bool type_is_32bit(const char *t, bool *is_signed)
{
	static const char *const s32[] = { "int",   "pid_t",   "clockid_t", "key_serial_t",
					   "mqd_t", "timer_t", "__s32",	    "s32" };
	static const char *const u32[] = { "unsigned int",
					   "unsigned",
					   "umode_t",
					   "uid_t",
					   "gid_t",
					   "qid_t",
					   "rwf_t",
					   "u32",
					   "__u32",
					   "old_uid_t",
					   "old_gid_t",
					   "__kernel_old_uid_t",
					   "__kernel_old_gid_t" };

	if (!strncmp(t, "const ", 6))
		t += 6;
	*is_signed = name_is(t, s32, ARRAY_SIZE(s32));
	if (*is_signed)
		return true;
	if (name_is(t, u32, ARRAY_SIZE(u32)))
		return true;
	*is_signed = !strcmp(t, "long") || !strcmp(t, "off_t") || !strcmp(t, "loff_t");
	return false;
}

static void format_plain(struct strbuf *sb, const char *type, unsigned long long v, bool decimal)
{
	bool is_signed;

	if (type_is_32bit(type, &is_signed))
		v = is_signed ? (unsigned long long)(long long)(int)v : (unsigned int)v;
	if (is_signed && (long long)v < 0)
		sb_printf(sb, "%lld", (long long)v);
	else if (decimal)
		sb_printf(sb, "%llu", v);
	else
		sb_printf(sb, "%#llx", v);
}

static void format_signal(struct strbuf *sb, long long sig)
{
	char buf[16];
	const char *name = (sig > 0 && sig <= 64) ? ktr_signal_name(sig, buf, sizeof(buf)) : NULL;

	if (name)
		sb_printf(sb, "%s", name);
	else
		sb_printf(sb, "%lld", sig);
}

static void format_sighow(struct strbuf *sb, unsigned long long v)
{
	static const char *const how[] = { "SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK" };

	if ((unsigned int)v < ARRAY_SIZE(how))
		sb_printf(sb, "%s", how[(unsigned int)v]);
	else
		sb_printf(sb, "%#llx", v);
}

static void format_arg(struct strbuf *sb, enum arg_kind k, const struct ktr_sysarg *a,
		       unsigned long long v, const struct ktr_fmt_opts *o)
{
	switch (k) {
	case AK_PTR:
		sb_printf(sb, "%#llx", v);
		break;
	case AK_DEC:
	case AK_FD:
		sb_printf(sb, "%d", (int)v);
		break;
	case AK_DIRFD:
		if ((int)v == AT_FDCWD)
			sb_printf(sb, "AT_FDCWD");
		else
			sb_printf(sb, "%d", (int)v);
		break;
	case AK_OFLAGS:
		ktr_format_oflags(sb, (unsigned int)v);
		break;
	case AK_MODE:
		sb_printf(sb, "%#o", (unsigned int)v & 0xffff);
		break;
	case AK_PROT:
		ktr_format_prot(sb, v);
		break;
	case AK_MMAP:
		ktr_format_mmap_flags(sb, v);
		break;
	case AK_SIGNAL:
		format_signal(sb, (int)v);
		break;
	case AK_ATFLAGS:
		format_atflags(sb, (unsigned int)v);
		break;
	case AK_SIGHOW:
		format_sighow(sb, v);
		break;
	case AK_HEX:
	case AK_OMIT:
		format_plain(sb, a->type, v, o->decimal);
		break;
	}
}

static void format_raw_args(struct strbuf *sb, const struct ktr_syscall *c, int n, bool decimal)
{
	int i;

	for (i = 0; i < n; i++)
		sb_printf(sb, decimal ? "%s%llu" : "%s%#llx", i ? "," : "",
			  (unsigned long long)c->args[i]);
}

void ktr_format_call(struct strbuf *sb, const struct ktr_syscall *c, const struct ktr_fmt_opts *o)
{
	const struct ktr_sysent *e = o->names ? ktr_sys_lookup(c->code) : NULL;
	bool first = true;
	char buf[24];
	int i;

	sb_printf(sb, "%s(", ktr_syscall_name(c->code, o->names, buf, sizeof(buf)));
	if (!e || e->nargs < 0) {
		format_raw_args(sb, c, c->nargs, o->decimal); /* at most 6: checked */
	} else if (o->raw) {
		format_raw_args(sb, c, e->nargs, o->decimal);
	} else {
		for (i = 0; i < e->nargs && i < KTR_SYSCALL_ARGS; i++) {
			enum arg_kind k = arg_kind(e, i, c);

			if (k == AK_OMIT)
				continue;
			if (!first)
				sb_putc(sb, ',');
			first = false;
			format_arg(sb, k, &e->args[i], c->args[i], o);
		}
	}
	sb_putc(sb, ')');
}

/* Kernel-internal restart codes that reach sys_exit before a signal. */
static bool is_restart(int err)
{
	return err >= 512 && err <= 516; /* ERESTARTSYS .. ERESTART_RESTARTBLOCK */
}

void ktr_format_ret(struct strbuf *sb, const struct ktr_sysret *r, const struct ktr_fmt_opts *o)
{
	const char *ename;
	char buf[24];

	sb_printf(sb, "%s ", ktr_syscall_name(r->code, o->names, buf, sizeof(buf)));
	if (r->error) {
		if (!o->raw && is_restart(r->error)) {
			sb_printf(sb, "RESTART");
			return;
		}
		sb_printf(sb, "-1 errno %d", r->error);
		ename = o->raw ? NULL : errno_name(r->error);
		if (ename)
			sb_printf(sb, " %s", ename);
		return;
	}
	sb_printf(sb, "%lld", (long long)r->retval);
	if (!o->decimal && (r->retval < 0 || r->retval > 9))
		sb_printf(sb, "/%#llx", (unsigned long long)r->retval);
}

struct code_name {
	int signo; /* 0: any signal */
	int code;
	const char *name;
};

static const struct code_name si_codes[] = {
	{ 0, SI_USER, "SI_USER" },
	{ 0, SI_KERNEL, "SI_KERNEL" },
	{ 0, SI_QUEUE, "SI_QUEUE" },
	{ 0, SI_TIMER, "SI_TIMER" },
	{ 0, SI_MESGQ, "SI_MESGQ" },
	{ 0, SI_ASYNCIO, "SI_ASYNCIO" },
	{ 0, SI_SIGIO, "SI_SIGIO" },
	{ 0, SI_TKILL, "SI_TKILL" },
	{ SIGCHLD, CLD_EXITED, "CLD_EXITED" },
	{ SIGCHLD, CLD_KILLED, "CLD_KILLED" },
	{ SIGCHLD, CLD_DUMPED, "CLD_DUMPED" },
	{ SIGCHLD, CLD_TRAPPED, "CLD_TRAPPED" },
	{ SIGCHLD, CLD_STOPPED, "CLD_STOPPED" },
	{ SIGCHLD, CLD_CONTINUED, "CLD_CONTINUED" },
	{ SIGSEGV, SEGV_MAPERR, "SEGV_MAPERR" },
	{ SIGSEGV, SEGV_ACCERR, "SEGV_ACCERR" },
	{ SIGBUS, BUS_ADRALN, "BUS_ADRALN" },
	{ SIGBUS, BUS_ADRERR, "BUS_ADRERR" },
	{ SIGBUS, BUS_OBJERR, "BUS_OBJERR" },
	{ SIGTRAP, TRAP_BRKPT, "TRAP_BRKPT" },
	{ SIGTRAP, TRAP_TRACE, "TRAP_TRACE" },
};

static const char *si_code_name(int signo, int code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(si_codes); i++) {
		/* Positive codes mean something per signal; others are generic. */
		if (si_codes[i].code == code &&
		    (si_codes[i].signo == signo ||
		     (!si_codes[i].signo && (code <= 0 || code == SI_KERNEL))))
			return si_codes[i].name;
	}
	return NULL;
}

static bool code_has_sender(int signo, int code)
{
	return code == SI_USER || code == SI_TKILL || code == SI_QUEUE || signo == SIGCHLD;
}

void ktr_format_psig(struct strbuf *sb, const struct ktr_psig *p, const struct ktr_fmt_opts *o)
{
	const char *cname = o->raw ? NULL : si_code_name(p->signo, p->code);

	if (o->raw)
		sb_printf(sb, "%d", p->signo);
	else
		format_signal(sb, p->signo);
	if (p->action == (unsigned long long)(unsigned long)SIG_DFL)
		sb_printf(sb, " SIG_DFL");
	else if (p->action == (unsigned long long)(unsigned long)SIG_IGN)
		sb_printf(sb, " SIG_IGN");
	else
		sb_printf(sb, " caught handler=%#llx mask=%#llx", (unsigned long long)p->action,
			  (unsigned long long)p->mask);
	if (cname)
		sb_printf(sb, " code=%s", cname);
	else
		sb_printf(sb, " code=%d", p->code);
	if (!(p->flags & KTR_PSIG_NOINFO) && code_has_sender(p->signo, p->code))
		sb_printf(sb, " pid=%d uid=%u", p->sender_pid, p->sender_uid);
	if (p->err)
		sb_printf(sb, " errno=%d", p->err);
}
