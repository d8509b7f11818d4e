// SPDX-License-Identifier: GPL-2.0
/* kprobe_events definitions -> struct kpe_def; the grammar is in kpe_parse.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/archinfo.h"
#include "kpe/parse.h"
#include "abi/kpe.h"
#include "lib/util.h"

/* The kernel's messages, from kernel/trace/trace_probe.h. */
#define E_BAD_MAXACT_TYPE "Maxactive is only for function exit"
#define E_BAD_MAXACT "Invalid maxactive number"
#define E_MAXACT_TOO_BIG "Maxactive is too big"
#define E_BAD_PROBE_ADDR "Invalid probed address or symbol"
#define E_BAD_RETPROBE "Retprobe address must be an function entry"
#define E_BAD_ADDR_SUFFIX "Invalid probed address suffix"
#define E_NO_GROUP_NAME "Group name is not specified"
#define E_GROUP_TOO_LONG "Group name is too long"
#define E_BAD_GROUP_NAME "Group name must follow the same rules as C identifiers"
#define E_NO_EVENT_NAME "Event name is not specified"
#define E_EVENT_TOO_LONG "Event name is too long"
#define E_BAD_EVENT_NAME "Event name must follow the same rules as C identifiers"
#define E_RETVAL_ON_PROBE "$retval is not available on probe"
#define E_BAD_STACK_NUM "Invalid stack number"
#define E_BAD_ARG_NUM "Invalid argument number"
#define E_BAD_VAR "Invalid $-variable specified"
#define E_BAD_REG_NAME "Invalid register name"
#define E_BAD_MEM_ADDR "Invalid memory address"
#define E_BAD_IMM "Invalid immediate value"
#define E_IMMSTR_NO_CLOSE "String is not closed with '\"'"
#define E_FILE_ON_KPROBE "File offset is not available with kprobe"
#define E_TOO_MANY_OPS "Dereference is too much nested"
#define E_TOO_MANY_NESTED "Too many nested typecasts/dereferences"
#define E_DEREF_NEED_BRACE "Dereference needs a brace"
#define E_BAD_DEREF_OFFS "Invalid dereference offset"
#define E_DEREF_OPEN_BRACE "Dereference brace is not closed"
#define E_COMM_CANT_DEREF "$comm can not be dereferenced"
#define E_BAD_FETCH_ARG "Invalid fetch argument"
#define E_ARRAY_NO_CLOSE "Array is not closed"
#define E_BAD_ARRAY_SUFFIX "Array has wrong suffix"
#define E_BAD_ARRAY_NUM "Invalid array size"
#define E_ARRAY_TOO_BIG "Array number is too big"
#define E_BAD_TYPE "Unknown type is specified"
#define E_BAD_BITFIELD "Invalid bitfield"
#define E_ARG_NAME_TOO_LONG "Argument name is too long"
#define E_NO_ARG_NAME "Argument name is not specified"
#define E_BAD_ARG_NAME "Argument name must follow the same rules as C identifiers"
#define E_ARG_TOO_LONG "Argument expression is too long"
#define E_NO_ARG_BODY "No argument expression"
#define E_TOO_MANY_ARGS "Too many arguments are specified"
#define E_NOSUP_BTFARG "BTF is not available or not supported"
#define E_BAD_VAR_ARGS "$arg* must be an independent parameter without name etc."
#define E_TYPECAST_REQ_FIELD "Typecast requires a field access"
#define E_TYPECAST_SYM_OFFSET "@SYM+/-OFFSET with typecast needs parentheses"
#define E_NOSUP_PERCPU "Per-cpu variable access is only for kernel probes"
#define E_NOFENTRY_ARGS "$arg* can be used only on function entry or exit"
#define E_NO_EVENT_FIELD "This event field is not found."
#define E_BAD_TP_NAME "Invalid character in tracepoint name"
#define E_NO_EVENT_INFO "This requires both group and event name to attach"
#define E_TP_STACK                                                                          \
	"ksnoop reads a tracepoint's arguments, not the stack of the kernel's probe stub: " \
	"$stack is not available in a tracepoint probe"
#define E_DOUBLE_ARGS "$arg* can be used only once in the parameters"
#define E_BAD_HYPHEN "Failed to parse single hyphen. Forgot '>'?"
#define E_NEED_STRING_TYPE "$comm and immediate-string only accepts string type"

/* A piece of the definition: pos is its offset in the whole text. */
struct span {
	const char *s;
	int len;
	int pos;
};

struct parser {
	struct kpe_def *def;
	struct kpe_error *err;
	const struct kpe_limits *lim;
	int nest; /* dereferences open around the one parsed */
	bool failed;
	bool seen_args_all;
};

const struct kpe_limits kpe_limits_6 = { .argstr_max = 63, .nest_max = 13 };
const struct kpe_limits kpe_limits_7 = { .argstr_max = 255,
					 .nest_max = 8,
					 .nest_outside_in = true };

const struct kpe_limits *kpe_limits_running(void)
{
	struct utsname u;
	int major;

	if (uname(&u) || sscanf(u.release, "%d.", &major) != 1)
		return &kpe_limits_7;
	return major >= 7 ? &kpe_limits_7 : &kpe_limits_6;
}

static int fail(struct parser *p, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, int pos, const char *fmt, ...)
{
	va_list ap;

	if (!p->failed) {
		p->failed = true;
		p->err->pos = pos;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static struct span sub(struct span s, int from, int len)
{
	struct span r = { s.s + from, len, s.pos + from };

	return r;
}

static bool span_is(struct span s, const char *word)
{
	return (int)strlen(word) == s.len && !strncmp(s.s, word, s.len);
}

static int find(struct span s, char c)
{
	const char *hit = memchr(s.s, c, s.len);

	return hit ? hit - s.s : -1;
}

static int rfind(struct span s, char c)
{
	int i;

	for (i = s.len - 1; i >= 0; i--) {
		if (s.s[i] == c)
			return i;
	}
	return -1;
}

bool kpe_good_name(const char *s, int len)
{
	int i;

	if (len <= 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (i = 1; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	}
	return true;
}

/* Group names may also hold '-' (is_good_system_name). */
static bool good_system_name(struct span s)
{
	int i;

	if (s.len <= 0 || (!isalpha((unsigned char)s.s[0]) && s.s[0] != '_'))
		return false;
	for (i = 1; i < s.len; i++) {
		if (!isalnum((unsigned char)s.s[i]) && s.s[i] != '_' && s.s[i] != '-')
			return false;
	}
	return true;
}

/*
 * A whole span as a number in base (0 = C prefixes), with an optional sign
 * as kstrtol accepts it. Spans are short: longer ones are not numbers.
 */
static int span_number(struct span s, int base, bool is_signed, long long *out)
{
	char buf[40], *end;
	long long v;

	if (s.len <= 0 || s.len >= (int)sizeof(buf) || isspace((unsigned char)s.s[0]))
		return -EINVAL;
	memcpy(buf, s.s, s.len);
	buf[s.len] = '\0';
	if (!is_signed && (buf[0] == '-' || buf[0] == '+'))
		return -EINVAL;
	errno = 0;
	v = is_signed ? strtoll(buf, &end, base) : (long long)strtoull(buf, &end, base);
	if (errno || *end || end == buf)
		return -EINVAL;
	*out = v;
	return 0;
}

static char *dup_span(struct span s)
{
	return strndup(s.s, s.len);
}

/* ---- p:GRP/EVENT head and the probe point ------------------------------- */

static int parse_event_name(struct parser *p, struct span ev)
{
	struct kpe_def *def = p->def;
	int slash = find(ev, '/');

	if (slash < 0)
		slash = find(ev, '.');
	if (slash >= 0) {
		struct span g = sub(ev, 0, slash);

		if (slash == 0)
			return fail(p, ev.pos, E_NO_GROUP_NAME);
		if (slash + 1 > KPE_MAX_EVENT_NAME)
			return fail(p, ev.pos, E_GROUP_TOO_LONG);
		if (!good_system_name(g))
			return fail(p, ev.pos, E_BAD_GROUP_NAME);
		def->group = dup_span(g);
		ev = sub(ev, slash + 1, ev.len - slash - 1);
	}
	if (ev.len == 0)
		return slash >= 0 ? 0 : fail(p, ev.pos, E_NO_EVENT_NAME);
	if (ev.len > KPE_MAX_EVENT_NAME)
		return fail(p, ev.pos, E_EVENT_TOO_LONG);
	if (!kpe_good_name(ev.s, ev.len))
		return fail(p, ev.pos, E_BAD_EVENT_NAME);
	def->event = dup_span(ev);
	return 0;
}

static int parse_head(struct parser *p, struct span t)
{
	struct kpe_def *def = p->def;
	char kind = t.s[0];
	long long v;
	int i = 1;

	if (kind == '-')
		return fail(p, t.pos,
			    "'-:EVENT' deletes a tracefs event; ksnoop probe has none to delete");
	if (!strchr("prfte", kind))
		return fail(p, t.pos, "unknown probe type '%c': use p, r, f, t or e", kind);
	def->kind = kind == 'r' ? 'p' : kind;
	def->is_return = kind == 'r';
	while (i < t.len && t.s[i] != ':')
		i++;
	/* The kernel's event probes skip whatever comes before the colon. */
	if (i > 1 && kind != 'e') {
		if (kind == 'p')
			return fail(p, t.pos + 1, E_BAD_MAXACT_TYPE);
		/* fprobes and tracepoint probes take none: the number is invalid */
		if (kind == 'f' || kind == 't')
			return fail(p, t.pos + 1, E_BAD_MAXACT);
		if (span_number(sub(t, 1, i - 1), 0, false, &v) || v > 0xffffffffLL)
			return fail(p, t.pos + 1, E_BAD_MAXACT);
		if (v > KPE_MAX_MAXACTIVE)
			return fail(p, t.pos + 1, E_MAXACT_TOO_BIG);
		def->maxactive = v;
	}
	if (i < t.len)
		return parse_event_name(p, sub(t, i + 1, t.len - i - 1));
	return 0;
}

/* t: "TRACEPOINT", a C name: the kernel has no module prefix or suffix here. */
static int parse_tracepoint(struct parser *p, struct span t)
{
	int pct = find(t, '%'), i;

	if (pct >= 0)
		return fail(p, t.pos + pct, E_BAD_ADDR_SUFFIX);
	for (i = 0; i < t.len; i++) {
		if (!isalnum((unsigned char)t.s[i]) && t.s[i] != '_')
			return fail(p, t.pos + i, E_BAD_TP_NAME);
	}
	p->def->symbol = dup_span(t);
	return p->def->symbol ? 0 : -ENOMEM;
}

/* e: "SYSTEM.EVENT" or "SYSTEM/EVENT", the trace event to attach to. */
static int parse_attached_event(struct parser *p, struct span t)
{
	struct kpe_def *def = p->def;
	int sep = strcspn(t.s, "./");
	struct span ev = sub(t, sep + 1, t.len - sep - 1);

	if (sep == 0 || sep >= t.len - 1 || find(ev, '.') >= 0 || find(ev, '/') >= 0)
		return fail(p, t.pos, E_NO_EVENT_INFO);
	if (!kpe_good_name(t.s, sep) || !kpe_good_name(ev.s, ev.len))
		return fail(p, t.pos, E_NO_EVENT_INFO);
	def->system = dup_span(sub(t, 0, sep));
	def->symbol = dup_span(ev);
	return def->system && def->symbol ? 0 : -ENOMEM;
}

/* "MEMADDR", or "[MOD:]SYM[+offs][%return]". */
static int parse_target(struct parser *p, struct span t)
{
	struct kpe_def *def = p->def;
	int pct = find(t, '%'), colon, off;
	struct span sym = t;
	long long v;

	def->sym_pos = t.pos;
	if (def->kind == 't')
		return parse_tracepoint(p, t);
	if (def->kind == 'e')
		return parse_attached_event(p, t);
	/* An address if it reads as one, else a symbol ("9p:v9fs_lookup"). */
	if (!span_number(t, 0, false, &v)) {
		if (def->kind == 'f')
			return fail(p, t.pos, E_BAD_PROBE_ADDR);
		def->addr = v;
		return 0;
	}
	if (pct >= 0) {
		if (!span_is(sub(t, pct, t.len - pct), "%return"))
			return fail(p, t.pos + pct, E_BAD_ADDR_SUFFIX);
		def->is_return = true;
		sym.len = pct;
	}
	colon = find(sym, ':');
	if (colon >= 0) {
		if (colon == 0)
			return fail(p, t.pos, E_BAD_PROBE_ADDR);
		def->module = dup_span(sub(sym, 0, colon));
		sym = sub(sym, colon + 1, sym.len - colon - 1);
	}
	off = strcspn(sym.s, "+-");
	if (off < sym.len) {
		if (span_number(sub(sym, off, sym.len - off), 0, true, &v) || v < 0 ||
		    v > 0xffffffffLL)
			return fail(p, t.pos, E_BAD_PROBE_ADDR);
		def->offset = v;
		sym.len = off;
	}
	if (sym.len == 0)
		return fail(p, t.pos, E_BAD_PROBE_ADDR);
	if (def->is_return && def->offset && def->offset != arch_native()->entry_window)
		return fail(p, t.pos, E_BAD_RETPROBE);
	if (def->is_return && def->offset) {
		def->entry_err = E_BAD_RETPROBE;
		def->entry_err_pos = t.pos;
	}
	if (def->kind == 'f' && def->offset)
		return fail(p, t.pos, E_BAD_PROBE_ADDR);
	def->symbol = dup_span(sym);
	return 0;
}

/*
 * An f definition that fetches $retval is an exit probe, as the kernel
 * makes it: the first "$retval" of a word, not followed by a name's
 * character, decides.
 */
static void fprobe_exit_by_retval(struct kpe_def *def, const struct span *w, int n)
{
	const char *r;
	int i, rest;

	for (i = 0; i < n && def->kind == 'f' && !def->is_return; i++) {
		r = memmem(w[i].s, w[i].len, "$retval", 7);
		if (!r)
			continue;
		rest = w[i].s + w[i].len - (r + 7);
		if (rest == 0 || !(isalnum((unsigned char)r[7]) || r[7] == '_'))
			def->is_return = true;
	}
}

static const char *default_group(char kind)
{
	switch (kind) {
	case 'f':
		return "fprobes";
	case 't':
		return "tracepoints";
	case 'e':
		return "eprobes";
	}
	return "kprobes";
}

/* As the kernel names unnamed probes: p_SYM_OFFS, r_SYM_0, SYM__entry, TP, EVENT. */
static int name_event(struct kpe_def *def)
{
	char buf[KPE_MAX_EVENT_NAME + 1];
	char *s;

	if (!def->group)
		def->group = strdup(default_group(def->kind));
	if (def->event)
		return def->group ? 0 : -ENOMEM;
	/* tracepoint and event probes take the name of what they attach to */
	if (def->kind == 't' || def->kind == 'e')
		snprintf(buf, sizeof(buf), "%s", def->symbol);
	else if (def->kind == 'f')
		snprintf(buf, sizeof(buf), "%s%s%s__%s", def->module ? def->module : "",
			 def->module ? "_" : "", def->symbol, def->is_return ? "exit" : "entry");
	else if (def->symbol)
		snprintf(buf, sizeof(buf), "%c_%s%s%s_%lld", def->is_return ? 'r' : 'p',
			 def->module ? def->module : "", def->module ? "_" : "", def->symbol,
			 def->offset);
	else
		snprintf(buf, sizeof(buf), "%c_0x%llx", def->is_return ? 'r' : 'p', def->addr);
	for (s = buf; *s; s++) {
		if (!isalnum((unsigned char)*s))
			*s = '_';
	}
	def->event = strdup(buf);
	return def->group && def->event ? 0 : -ENOMEM;
}

/* ---- fetch expressions --------------------------------------------------- */

static int parse_fetch(struct parser *p, struct span e, struct kpe_fetch *f);
static int push_cast(struct parser *p, struct kpe_fetch *f, int pos, struct span type,
		     const struct span *field, struct span members);

/*
 * A kprobe at its function's start; or past the landing instruction of
 * an indirect branch (SYM+4 on x86-64), which the compiler checks is
 * there, an error at pos otherwise.
 */
static bool at_entry_or(struct kpe_def *def, int pos, const char *err)
{
	if (def->is_return || !def->symbol)
		return false;
	if (def->offset == 0)
		return true;
	if (def->offset != arch_native()->entry_window)
		return false;
	if (!def->entry_err) {
		def->entry_err = err;
		def->entry_err_pos = pos;
	}
	return true;
}

static int parse_retval_members(struct parser *p, struct span e, struct kpe_fetch *f);

/* An event probe's $-variables are the attached event's fields. */
static int event_field(struct parser *p, struct span v, struct kpe_fetch *f)
{
	(void)p;
	f->base = KPE_B_FIELD;
	f->name = dup_span(v);
	return f->name ? 0 : -ENOMEM;
}

static int parse_var(struct parser *p, struct span e, struct kpe_fetch *f)
{
	const struct kpe_def *def = p->def;
	struct span v = sub(e, 1, e.len - 1);
	long long n;

	if (def->kind == 'e' && !span_is(v, "comm") && !span_is(v, "COMM"))
		return event_field(p, v, f);
	if (span_is(v, "retval")) {
		if (!def->is_return)
			return fail(p, e.pos, E_RETVAL_ON_PROBE);
		f->base = KPE_B_RETVAL;
		return 0;
	}
	if (v.len > 6 && !strncmp(v.s, "retval", 6) && (v.s[6] == '.' || v.s[6] == '-'))
		return parse_retval_members(p, e, f);
	if (span_is(v, "comm") || span_is(v, "COMM")) {
		f->base = KPE_B_COMM;
		return 0;
	}
	if (span_is(v, "current")) {
		f->base = KPE_B_CURRENT;
		return 0;
	}
	/* as (task_struct)$current->MEMBERS, which is how the kernel reads it */
	if (v.len >= 9 && !strncmp(v.s, "current->", 9)) {
		f->base = KPE_B_CURRENT;
		return push_cast(p, f, e.pos, (struct span){ "task_struct", 11, e.pos }, NULL,
				 sub(e, 10, e.len - 10));
	}
	if (def->kind == 't' && v.len >= 5 && !strncmp(v.s, "stack", 5))
		return fail(p, e.pos, "%s", E_TP_STACK);
	if (span_is(v, "stack")) {
		f->base = KPE_B_STACKP;
		return 0;
	}
	if (v.len > 5 && !strncmp(v.s, "stack", 5)) {
		if (!isdigit((unsigned char)v.s[5]) ||
		    span_number(sub(v, 5, v.len - 5), 10, false, &n))
			return fail(p, e.pos, E_BAD_VAR);
		if (n > KPE_PARAM_MAX_STACK)
			return fail(p, e.pos, E_BAD_STACK_NUM);
		f->base = KPE_B_STACK;
		f->num = n;
		return 0;
	}
	if (v.len > 3 && !strncmp(v.s, "arg", 3)) {
		if (span_number(sub(v, 3, v.len - 3), 10, false, &n))
			return fail(p, e.pos, E_BAD_VAR);
		if (n == 0 || n > KPE_PARAM_MAX_STACK)
			return fail(p, e.pos, E_BAD_ARG_NUM);
		/* At return: the entry value, kept by the probe's entry half (6.10). */
		if (!def->is_return && !at_entry_or(p->def, e.pos, E_NOFENTRY_ARGS))
			return fail(p, e.pos, E_NOFENTRY_ARGS);
		f->base = KPE_B_ARG;
		f->num = n;
		return 0;
	}
	return fail(p, e.pos, E_BAD_VAR);
}

static int parse_reg(struct parser *p, struct span e, struct kpe_fetch *f)
{
	const struct arch *native = arch_native(), *other = arch_foreign();
	struct span r = sub(e, 1, e.len - 1);
	int slot;

	/* fprobe, tracepoint and event probes have no full register set. */
	if (p->def->kind != 'p')
		return fail(p, e.pos, E_BAD_VAR);
	slot = arch_reg(native, r.s, r.len);
	if (slot >= 0) {
		f->base = KPE_B_REG;
		f->num = slot;
		f->name = dup_span(r);
		return f->name ? 0 : -ENOMEM;
	}
	if (arch_reg(other, r.s, r.len) >= 0)
		return fail(p, e.pos,
			    E_BAD_REG_NAME ": %%%.*s is an %s register; %s passes arguments in %s",
			    r.len, r.s, other->name, native->name, native->arg_hint);
	return fail(p, e.pos, E_BAD_REG_NAME);
}

static int parse_mem(struct parser *p, struct span e, struct kpe_fetch *f)
{
	struct span s = sub(e, 1, e.len - 1);
	long long v;
	int off;

	if (s.len == 0)
		return fail(p, e.pos, E_BAD_MEM_ADDR);
	if (isdigit((unsigned char)s.s[0])) {
		if (span_number(s, 0, false, &v))
			return fail(p, e.pos, E_BAD_MEM_ADDR);
		f->base = KPE_B_ADDR;
		f->num = v;
		return 0;
	}
	if (s.s[0] == '+')
		return fail(p, e.pos, E_FILE_ON_KPROBE);
	off = strcspn(s.s, "+-");
	if (off < s.len) {
		if (span_number(sub(s, off, s.len - off), 0, true, &v))
			return fail(p, e.pos, E_BAD_MEM_ADDR);
		f->num = v;
		s.len = off;
	}
	if (!s.len)
		return fail(p, e.pos, E_BAD_MEM_ADDR);
	f->base = KPE_B_SYM;
	f->name = dup_span(s);
	return f->name ? 0 : -ENOMEM;
}

/*
 * One more step, taking ops of the kernel's fetch operations and needing
 * room for more while it is parsed. As the kernel runs out of them (the
 * 13th dereference from the inside, the 6th this_cpu_read()), it refuses
 * the step where it starts, unless it is the outermost: that one's last
 * operation becomes the store.
 */
static int push_step(struct parser *p, struct kpe_fetch *f, enum kpe_step_kind kind, int pos,
		     int ops, int room)
{
	if ((f->nr_ops + room > KPE_MAX_OPS && p->nest > 0) || f->nr_steps >= KPE_MAX_STEPS)
		return fail(p, pos, E_TOO_MANY_OPS);
	f->steps[f->nr_steps].kind = kind;
	f->steps[f->nr_steps].pos = pos;
	f->nr_steps++;
	f->nr_ops += ops;
	return 0;
}

static int set_deref(struct kpe_fetch *f, long long off, bool user);

/* One level deeper: 7.x refuses the 9th from the outside, where it starts. */
static int nest_in(struct parser *p, int pos)
{
	if (++p->nest > p->lim->nest_max && p->lim->nest_outside_in)
		return fail(p, pos, E_TOO_MANY_NESTED);
	return 0;
}

/* +|-[u]OFFS(BODY): the inner body is parsed first, its steps come first. */
static int parse_deref(struct parser *p, struct span e, struct kpe_fetch *f)
{
	bool user = e.len > 1 && e.s[1] == 'u';
	int lp = find(e, '('), rp, err, digits = 1 + user;
	char num[40];
	struct span in;
	long long off;
	int n = 0;

	if (lp < 0)
		return fail(p, e.pos, E_DEREF_NEED_BRACE);
	/*
	 * As kstrtol reads it, octal after a 0: the zeros before the last one
	 * take no room (7.x's 255-byte arguments).
	 */
	while (digits < lp - 1 && e.s[digits] == '0' && e.s[digits + 1] == '0')
		digits++;
	/* "+u8" and "-u8" are "+8" and "-8" read from user memory. */
	if (lp - digits > (int)sizeof(num) - 2)
		return fail(p, e.pos, E_BAD_DEREF_OFFS);
	num[n++] = e.s[0];
	memcpy(num + n, e.s + digits, lp - digits);
	n += lp - digits;
	if (span_number((struct span){ num, n, e.pos }, 0, true, &off))
		return fail(p, e.pos, E_BAD_DEREF_OFFS);
	in = sub(e, lp + 1, e.len - lp - 1);
	rp = rfind(in, ')');
	if (rp < 0)
		return fail(p, in.pos + in.len, E_DEREF_OPEN_BRACE);
	if (rp != in.len - 1)
		return fail(p, in.pos + rp + 1, E_BAD_FETCH_ARG);
	in.len = rp;
	if (nest_in(p, e.pos))
		return -EINVAL;
	err = parse_fetch(p, in, f);
	p->nest--;
	if (err)
		return err;
	if (f->base == KPE_B_COMM || f->base == KPE_B_IMMSTR)
		return fail(p, in.pos, E_COMM_CANT_DEREF);
	/*
	 * 6.x: the 13th from the inside is refused, where it starts, only when
	 * one more encloses it (its store takes the outermost's place).
	 */
	if (f->nr_derefs >= KPE_MAX_DEREFS)
		return fail(p, e.pos, E_TOO_MANY_OPS);
	return push_step(p, f, KPE_S_DEREF, e.pos, 1, 1) ?: set_deref(f, off, user);
}

static int set_deref(struct kpe_fetch *f, long long off, bool user)
{
	f->steps[f->nr_steps - 1].off = off;
	f->steps[f->nr_steps - 1].user = user;
	f->nr_derefs++;
	return 0;
}

static int parse_imm(struct parser *p, struct span e, struct kpe_fetch *f)
{
	struct span s = sub(e, 1, e.len - 1);
	long long v;

	if (s.len && s.s[0] == '"') {
		s = sub(s, 1, s.len - 1);
		if (!s.len || s.s[s.len - 1] != '"')
			return fail(p, s.pos + s.len, E_IMMSTR_NO_CLOSE);
		f->base = KPE_B_IMMSTR;
		f->name = dup_span(sub(s, 0, s.len - 1));
		return f->name ? 0 : -ENOMEM;
	}
	/* str_to_immediate: a number, or a signed one. */
	if (!s.len || (!isdigit((unsigned char)s.s[0]) && s.s[0] != '-' && s.s[0] != '+') ||
	    span_number(s, 0, s.s[0] == '-' || s.s[0] == '+', &v))
		return fail(p, e.pos + 1, E_BAD_IMM);
	f->base = KPE_B_IMM;
	f->num = v;
	return 0;
}

/*
 * name { ->member | .member }: names are looked up in BTF by the compiler,
 * whatever they hold, as the kernel does; only a lone '-' is wrong here.
 */
static int check_hyphens(struct parser *p, struct span m)
{
	int i;

	for (i = 0; i < m.len; i++) {
		if (m.s[i] == '-' && (i + 1 == m.len || m.s[i + 1] != '>'))
			return fail(p, m.pos + i, E_BAD_HYPHEN);
	}
	return 0;
}

static int parse_btf(struct parser *p, struct span e, struct kpe_fetch *f)
{
	const struct kpe_def *def = p->def;
	int err;

	/* An event probe takes a field's name without '$' too (7.x). */
	if (def->kind == 'e') {
		if (!kpe_good_name(e.s, e.len))
			return fail(p, e.pos, E_NO_EVENT_FIELD);
		f->base = KPE_B_FIELD;
		f->bare = true;
		f->name = dup_span(e);
		return f->name ? 0 : -ENOMEM;
	}
	if (def->is_return ? !def->symbol : !at_entry_or(p->def, e.pos, E_NOSUP_BTFARG))
		return fail(p, e.pos, E_NOSUP_BTFARG);
	err = check_hyphens(p, e);
	if (err)
		return err;
	f->base = KPE_B_BTF;
	f->name = dup_span(e);
	return f->name ? 0 : -ENOMEM;
}

/*
 * $retval->member (Linux 6.8): the return value's members by BTF, as the
 * path "return->member" the compiler resolves. e is "$retval...".
 */
static int parse_retval_members(struct parser *p, struct span e, struct kpe_fetch *f)
{
	const size_t skip = strlen("$retval");
	int err;

	if (!p->def->is_return)
		return fail(p, e.pos, E_RETVAL_ON_PROBE);
	err = check_hyphens(p, e);
	if (err)
		return err;
	if (asprintf(&f->name, "return%.*s", (int)(e.len - skip), e.s + skip) < 0) {
		f->name = NULL;
		return -ENOMEM;
	}
	f->base = KPE_B_BTF;
	f->retval = true;
	return 0;
}

/* Where the parenthesis opened at s[0] closes, or -1. */
static int matching_paren(struct span s)
{
	int i, depth = 0;

	for (i = 0; i < s.len; i++) {
		if (s.s[i] == '(')
			depth++;
		else if (s.s[i] == ')' && --depth == 0)
			return i;
	}
	return -1;
}

/*
 * A typecast's INNER, as the kernel delimits it before it parses it: a
 * parenthesized BODY, a dereference, or what comes before the first '-'.
 * Sets *inner and the byte where MEMBERS start.
 */
static int cast_inner(struct parser *p, struct span t, struct span *inner, int *members)
{
	int close, open, minus;

	if (t.len && t.s[0] == '(') {
		close = matching_paren(t);
		if (close < 0)
			return fail(p, t.pos, E_DEREF_OPEN_BRACE);
		if (close + 2 >= t.len || t.s[close + 1] != '-' || t.s[close + 2] != '>')
			return fail(p, t.pos + close + 1, E_TYPECAST_REQ_FIELD);
		*inner = sub(t, 1, close - 1);
		*members = close + 3;
		return 0;
	}
	if (t.len && (t.s[0] == '+' || t.s[0] == '-')) {
		open = find(sub(t, 1, t.len - 1), '(');
		if (open < 0)
			return fail(p, t.pos, E_DEREF_NEED_BRACE);
		close = matching_paren(sub(t, open + 1, t.len - open - 1));
		if (close < 0)
			return fail(p, t.pos + t.len, E_DEREF_OPEN_BRACE);
		close += open + 2; /* just after the dereference's ')' */
		if (close + 1 >= t.len || t.s[close] != '-' || t.s[close + 1] != '>')
			return fail(p, t.pos + close, E_TYPECAST_REQ_FIELD);
		*inner = sub(t, 0, close);
		*members = close + 2;
		return 0;
	}
	if (t.len && t.s[0] == '@') {
		int k = 1;

		while (k < t.len && t.s[k] != '+' && t.s[k] != '-')
			k++;
		if (k + 1 < t.len && isdigit((unsigned char)t.s[k + 1]))
			return fail(p, t.pos, E_TYPECAST_SYM_OFFSET);
	}
	minus = find(t, '-');
	if (minus < 0 || minus + 1 >= t.len || t.s[minus + 1] != '>')
		return fail(p, t.pos + t.len, E_TYPECAST_REQ_FIELD);
	*inner = sub(t, 0, minus);
	*members = minus + 2;
	return 0;
}

/* A typecast step: STRUCT, FIELD (or NULL) and MEMBERS, resolved by the compiler. */
static int push_cast(struct parser *p, struct kpe_fetch *f, int pos, struct span type,
		     const struct span *field, struct span members)
{
	struct kpe_step *st;
	int err = check_hyphens(p, members) ?: push_step(p, f, KPE_S_CAST, pos, 1, 1);

	if (err)
		return err;
	st = &f->steps[f->nr_steps - 1];
	st->cast = dup_span(type);
	st->members = dup_span(members);
	st->members_pos = members.pos;
	if (field) {
		st->cast_field = dup_span(*field);
		st->field_pos = field->pos;
	}
	if (!st->cast || !st->members || (field && !st->cast_field))
		return -ENOMEM;
	return 0;
}

/* (STRUCT[,FIELD])INNER->MEMBERS: INNER's steps, then the typecast's. */
static int parse_cast(struct parser *p, struct span e, struct kpe_fetch *f)
{
	int close = find(e, ')'), comma, members = 0, err;
	struct span inner, type, field, m;

	if (nest_in(p, e.pos))
		return -EINVAL;
	if (close < 0)
		return fail(p, e.pos + e.len, E_DEREF_OPEN_BRACE);
	err = cast_inner(p, sub(e, close + 1, e.len - close - 1), &inner, &members);
	if (err)
		return err;
	members += close + 1;
	err = parse_fetch(p, inner, f);
	p->nest--;
	if (err)
		return err;
	m = sub(e, members, e.len - members);
	type = sub(e, 1, close - 1);
	comma = find(type, ',');
	if (comma < 0)
		return push_cast(p, f, e.pos, type, NULL, m);
	field = sub(type, comma + 1, type.len - comma - 1);
	return push_cast(p, f, e.pos, sub(type, 0, comma), &field, m);
}

/*
 * this_cpu_ptr(BODY) and this_cpu_read(BODY), the second a dereference of
 * the first. As the kernel does, what follows the last ')' is not read.
 */
static int parse_this_cpu(struct parser *p, struct span e, int open, struct kpe_fetch *f)
{
	bool read = e.s[open - 1] == 'd';
	int close = rfind(e, ')'), err;

	if (p->def->kind == 'e')
		return fail(p, e.pos, E_NOSUP_PERCPU);
	if (nest_in(p, e.pos))
		return -EINVAL;
	if (close < open)
		return fail(p, e.pos + e.len, E_DEREF_OPEN_BRACE);
	err = parse_fetch(p, sub(e, open + 1, close - open - 1), f);
	p->nest--;
	if (err)
		return err;
	if (f->base == KPE_B_COMM || f->base == KPE_B_IMMSTR)
		return fail(p, e.pos + open + 1, E_COMM_CANT_DEREF);
	err = push_step(p, f, KPE_S_THIS_CPU, e.pos, 1 + read, 1 + 2 * read);
	if (!err && read)
		err = push_step(p, f, KPE_S_DEREF, e.pos, 0, 0) ?: set_deref(f, 0, false);
	return err;
}

static int this_cpu_open(struct span e)
{
	static const char *const prefixes[] = { "this_cpu_ptr(", "this_cpu_read(" };
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		n = strlen(prefixes[i]);
		if ((size_t)e.len >= n && !strncmp(e.s, prefixes[i], n))
			return n - 1;
	}
	return -1;
}

static int parse_fetch(struct parser *p, struct span e, struct kpe_fetch *f)
{
	int open;

	if (e.len == 0)
		return fail(p, e.pos, E_BAD_FETCH_ARG);
	f->pos = e.pos;
	switch (e.s[0]) {
	case '$':
		return parse_var(p, e, f);
	case '%':
		return parse_reg(p, e, f);
	case '@':
		return parse_mem(p, e, f);
	case '+':
	case '-':
		return parse_deref(p, e, f);
	case '\\':
		return parse_imm(p, e, f);
	case '(':
		return parse_cast(p, e, f);
	}
	open = this_cpu_open(e);
	if (open > 0)
		return parse_this_cpu(p, e, open, f);
	if (isalpha((unsigned char)e.s[0]) || e.s[0] == '_')
		return parse_btf(p, e, f);
	return fail(p, e.pos, E_BAD_FETCH_ARG);
}

/* ---- :TYPE --------------------------------------------------------------- */

static int parse_bitfield(struct parser *p, struct span t, struct kpe_type *ty)
{
	int at = find(t, '@'), slash = find(t, '/');
	long long bw, bo, cont;

	/* find_fetch_type: the container decides whether the type exists. */
	if (slash < 0 || span_number(sub(t, slash + 1, t.len - slash - 1), 0, false, &cont) ||
	    (cont != 8 && cont != 16 && cont != 32 && cont != 64))
		return fail(p, t.pos, E_BAD_TYPE);
	if (at < 0 || at > slash || span_number(sub(t, 1, at - 1), 0, false, &bw) ||
	    span_number(sub(t, at + 1, slash - at - 1), 0, false, &bo) || bw == 0 || bw + bo > cont)
		return fail(p, t.pos, E_BAD_BITFIELD);
	ty->kind = KPE_T_BITFIELD;
	ty->size = cont / 8;
	ty->bf_width = bw;
	ty->bf_off = bo;
	return 0;
}

static int parse_type_name(struct parser *p, struct span t, struct kpe_type *ty)
{
	static const struct {
		const char *name;
		enum kpe_type_kind kind;
		int size;
	} named[] = {
		{ "char", KPE_T_CHAR, 1 },	 { "string", KPE_T_STRING, 0 },
		{ "ustring", KPE_T_USTRING, 0 }, { "symbol", KPE_T_SYMBOL, 8 },
		{ "symstr", KPE_T_SYMSTR, 8 },	 { "%pd", KPE_T_DENTRY, 0 },
		{ "%pD", KPE_T_FILE, 0 },
	};
	long long bits;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(named); i++) {
		if (span_is(t, named[i].name)) {
			ty->kind = named[i].kind;
			ty->size = named[i].size;
			return 0;
		}
	}
	if (t.len && t.s[0] == 'b')
		return parse_bitfield(p, t, ty);
	if (t.len < 2 || !strchr("usx", t.s[0]) || !isdigit((unsigned char)t.s[1]) ||
	    span_number(sub(t, 1, t.len - 1), 10, false, &bits) ||
	    (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return fail(p, t.pos, E_BAD_TYPE);
	ty->kind = t.s[0] == 'u' ? KPE_T_U : t.s[0] == 's' ? KPE_T_S : KPE_T_X;
	ty->size = bits / 8;
	return 0;
}

static int parse_type(struct parser *p, struct span t, struct kpe_type *ty)
{
	int lb = find(t, '['), rb;
	long long n;

	if (lb >= 0) {
		struct span a = sub(t, lb + 1, t.len - lb - 1);

		rb = find(a, ']');
		if (rb < 0) /* where the kernel points: past the number */
			return fail(p, a.pos + a.len, E_ARRAY_NO_CLOSE);
		if (rb != a.len - 1)
			return fail(p, a.pos + rb + 1, E_BAD_ARRAY_SUFFIX);
		if (span_number(sub(a, 0, rb), 0, false, &n) || n == 0)
			return fail(p, a.pos, E_BAD_ARRAY_NUM);
		if (n > KPE_MAX_ARRAY)
			return fail(p, a.pos, E_ARRAY_TOO_BIG);
		ty->count = n;
		t.len = lb;
	}
	if (parse_type_name(p, t, ty))
		return -EINVAL;
	if (ty->count &&
	    (ty->kind == KPE_T_STRING || ty->kind == KPE_T_USTRING || ty->kind == KPE_T_DENTRY ||
	     ty->kind == KPE_T_FILE || ty->kind == KPE_T_SYMSTR))
		return fail(p, t.pos, "string arrays are not supported by ksnoop");
	return 0;
}

/* ---- arguments ------------------------------------------------------------ */

static int parse_arg(struct parser *p, struct span a, struct kpe_arg *arg)
{
	int eq = find(a, '='), colon, err;
	struct span body = a;
	bool comm_like;

	arg->pos = a.pos;
	arg->type_pos = -1;
	if (a.len >= 5 && !strncmp(a.s, "$arg*", 5) && p->def->kind == 'e')
		return fail(p, a.pos, E_BAD_VAR); /* an event has fields, not arguments */
	if (a.len >= 5 && !strncmp(a.s, "$arg*", 5)) {
		if (a.len != 5)
			return fail(p, a.pos, E_BAD_VAR_ARGS);
		if (p->seen_args_all)
			return fail(p, a.pos, E_DOUBLE_ARGS);
		if (!at_entry_or(p->def, a.pos, E_NOFENTRY_ARGS))
			return fail(p, a.pos, E_NOFENTRY_ARGS);
		p->seen_args_all = true;
		arg->fetch.base = KPE_B_ARGS_ALL;
		arg->fetch.pos = a.pos;
		arg->body_pos = a.pos;
		arg->body = dup_span(a);
		return arg->body ? 0 : -ENOMEM;
	}
	if (eq >= 0) {
		if (eq > KPE_MAX_ARG_NAME)
			return fail(p, a.pos, E_ARG_NAME_TOO_LONG);
		if (eq == 0)
			return fail(p, a.pos, E_NO_ARG_NAME);
		if (!kpe_good_name(a.s, eq))
			return fail(p, a.pos, E_BAD_ARG_NAME);
		arg->name = dup_span(sub(a, 0, eq));
		body = sub(a, eq + 1, a.len - eq - 1);
	}
	arg->body_pos = body.pos;
	if (body.len > p->lim->argstr_max)
		return fail(p, body.pos, E_ARG_TOO_LONG);
	if (body.len == 0)
		return fail(p, body.pos, E_NO_ARG_BODY);
	colon = find(body, ':');
	if (colon >= 0) {
		struct span t = sub(body, colon + 1, body.len - colon - 1);

		arg->type_pos = t.pos;
		body.len = colon;
		err = parse_type(p, t, &arg->type);
		if (err)
			return err;
	}
	/* $comm and "strings" are strings, whatever else was asked. */
	comm_like = span_is(body, "$comm") || span_is(body, "$COMM") ||
		    (body.len >= 2 && !strncmp(body.s, "\\\"", 2));
	/* An event probe's $comm is a field, or an address: any type goes. */
	if (comm_like && p->def->kind != 'e' &&
	    (arg->type.count || (arg->type.kind != KPE_T_NONE && arg->type.kind != KPE_T_STRING)))
		return fail(p, arg->type_pos >= 0 ? arg->type_pos : body.pos, E_NEED_STRING_TYPE);
	arg->body = dup_span(body);
	if (!arg->body)
		return -ENOMEM;
	return parse_fetch(p, body, &arg->fetch);
}

/* Whitespace-separated words, as the kernel's argv_split makes them. */
static int split_words(const char *text, struct span *w, int max)
{
	int n = 0, i = 0;

	while (text[i]) {
		while (text[i] && isspace((unsigned char)text[i]))
			i++;
		if (!text[i])
			break;
		if (n == max)
			return -E2BIG;
		w[n].s = text + i;
		w[n].pos = i;
		while (text[i] && !isspace((unsigned char)text[i]))
			i++;
		w[n].len = i - w[n].pos;
		n++;
	}
	return n;
}

#define MAX_WORDS (2 + KPE_MAX_ARGS)

static int parse_args(struct parser *p, struct span *w, int n)
{
	struct kpe_def *def = p->def;
	int i, err;

	def->args = calloc(n ? n : 1, sizeof(*def->args));
	if (!def->args)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		def->nr_args++;
		err = parse_arg(p, w[i], &def->args[i]);
		if (err)
			return err;
	}
	return 0;
}

int kpe_parse_def(const char *text, struct kpe_def *def, struct kpe_error *err)
{
	return kpe_parse_def_with(text, &kpe_limits_6, def, err);
}

int kpe_parse_def_with(const char *text, const struct kpe_limits *lim, struct kpe_def *def,
		       struct kpe_error *err)
{
	struct parser p = { .def = def, .err = err, .lim = lim };
	struct span *w;
	int n, ret;

	memset(def, 0, sizeof(*def));
	memset(err, 0, sizeof(*err));
	if (strlen(text) > KPE_DEF_MAX_LEN)
		return fail(&p, KPE_DEF_MAX_LEN, "definition longer than %d characters",
			    KPE_DEF_MAX_LEN);
	def->text = strdup(text);
	/* one word more than allowed, to point at it */
	w = calloc(MAX_WORDS + 1, sizeof(*w));
	if (!def->text || !w) {
		free(w);
		return -ENOMEM;
	}
	n = split_words(def->text, w, MAX_WORDS + 1);
	if (n == -E2BIG || n > MAX_WORDS)
		ret = fail(&p, w[MAX_WORDS].pos, E_TOO_MANY_ARGS);
	else if (n == 0)
		ret = fail(&p, 0, "empty definition");
	else if (n == 1)
		ret = parse_head(&p, w[0]) ?: fail(&p, w[0].pos + w[0].len, E_BAD_PROBE_ADDR);
	else
		ret = parse_head(&p, w[0]) ?: parse_target(&p, w[1]);
	if (n > 1 && !ret) {
		fprobe_exit_by_retval(def, w + 2, n - 2);
		ret = name_event(def) ?: parse_args(&p, w + 2, n - 2);
	}
	free(w);
	return ret;
}

void kpe_def_free(struct kpe_def *def)
{
	int i, j;

	for (i = 0; i < def->nr_args; i++) {
		struct kpe_fetch *f = &def->args[i].fetch;

		free(def->args[i].name);
		free(def->args[i].body);
		free(f->name);
		for (j = 0; j < f->nr_steps; j++) {
			free(f->steps[j].cast);
			free(f->steps[j].cast_field);
			free(f->steps[j].members);
		}
	}
	free(def->args);
	free(def->text);
	free(def->group);
	free(def->event);
	free(def->module);
	free(def->system);
	free(def->symbol);
	memset(def, 0, sizeof(*def));
}

#define CARET_WINDOW 160

void kpe_print_caret(const char *label, const char *text, int pos)
{
	int i, n = strlen(text), start = 0, end = n, lead;

	/* A long definition is shown around pos, not whole. */
	if (n > CARET_WINDOW) {
		start = pos > CARET_WINDOW / 2 ? pos - CARET_WINDOW / 2 : 0;
		end = start + CARET_WINDOW < n ? start + CARET_WINDOW : n;
	}
	fprintf(stderr, "  %s: %s", label, start ? "..." : "");
	for (i = start; i < end; i++)
		fputc(isprint((unsigned char)text[i]) ? text[i] : ' ', stderr);
	lead = (int)strlen(label) + 4 + (start ? 3 : 0) + (pos < end ? pos : end) - start;
	fprintf(stderr, "%s\n%*s^\n", end < n ? "..." : "", lead, "");
}
