// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/bpfutil.h"
#include "lib/chrome.h"
#include "lib/decode.h"
#include "lib/errnames.h"
#include "lib/btfjson.h"
#include "trace/chain.h"
#include "trace/output.h"
#include "trace/umaps.h"
#include "lib/archinfo.h"
#include "lib/ustack.h"
#include "lib/uunwind.h"
#include "lib/util.h"

/* Columns of ksnoop(8)'s layout. */
#define NAME_INDENT 34			 /* "%34s %s = " */
#define DUMP_INDENT 36			 /* btf_dump indent level, in spaces */
#define CLOSE_INDENT 31			 /* "%31s);" */
#define CHROME_MAX_THREADS 65536	 /* threads named in a timeline */
#define COMM_WIDTH (KSNOOP_COMM_LEN - 1) /* --show-comm's column */

struct output {
	struct output_opts opts;
	const struct func_plan *plans;
	int nr;
	FILE *out;
	struct ksyms *ks;
	struct btf_dump **dumps; /* per plan; plans of one BTF share one */
	char ***type_names;	 /* [plan][value], for JSON */
	struct strbuf buf;	 /* one value's dump, before filtering */
	struct strbuf line;	 /* one JSON event */
	struct jw jw;		 /* writing it */
	struct chrome *chrome;	 /* --format=chrome */
	unsigned int *named;	 /* threads whose name the timeline has */
	size_t nr_named, cap_named;
	__s64 wall_offset_ns;	   /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct ustack_syms *usyms; /* --ustack: processes' maps and objects' symbols */
	struct uunwind *unwind;	   /* --call-graph dwarf: their CFI */
	struct mounts *mounts;	   /* --ustack: the kernel's paths of mapped files, here */
	/* An --errors chain's events: their one user stack goes under the origin. */
	bool ustack_under_origin;
	int tgid; /* the event being printed: --symbolize names user functions in it */
};

/* Whether fmt's only conversions are %s, which need no formatter. */
static bool only_strings(const char *fmt)
{
	for (; (fmt = strchr(fmt, '%')); fmt += 2)
		if (fmt[1] != 's')
			return false;
	return true;
}

/*
 * btf_dump prints names, casts and braces a few bytes per call; most of
 * those formats hold no conversion but %s, and vsnprintf would dominate.
 */
static void __attribute__((format(printf, 2, 0)))
dump_printf(void *ctx, const char *fmt, va_list args)
{
	struct output *o = ctx;
	const char *pct, *str;

	if (!only_strings(fmt)) {
		sb_vprintf(&o->buf, fmt, args);
		return;
	}
	for (; (pct = strchr(fmt, '%')); fmt = pct + 2) {
		sb_write(&o->buf, fmt, pct - fmt);
		str = va_arg(args, const char *);
		sb_write(&o->buf, str, strlen(str));
	}
	sb_write(&o->buf, fmt, strlen(fmt));
}

static void put_indent(struct output *o)
{
	static const char spaces[DUMP_INDENT] = { [0 ... DUMP_INDENT - 1] = ' ' };

	fwrite(spaces, 1, DUMP_INDENT, o->out);
}

static char *value_type_name(const struct plan_value *pv)
{
	struct strbuf sb;

	sb_init(&sb);
	if (pv->show == SHOW_STRING && !pv->type_id)
		sb_printf(&sb, "char[%d]", KSNOOP_COMM_LEN);
	else
		kbtf_format_decl(pv->btf, pv->type_id, NULL, &sb);
	if (pv->show == SHOW_PTR_DUMP)
		sb_printf(&sb, " *");
	return sb_take(&sb);
}

static int init_type_names(struct output *o)
{
	int i, j;

	o->type_names = calloc(o->nr, sizeof(*o->type_names));
	if (!o->type_names)
		return -ENOMEM;
	for (i = 0; i < o->nr; i++) {
		o->type_names[i] = calloc(KSNOOP_MAX_VALUES, sizeof(char *));
		if (!o->type_names[i])
			return -ENOMEM;
		for (j = 0; j < (int)o->plans[i].cfg.nr_values; j++)
			o->type_names[i][j] = value_type_name(&o->plans[i].values[j]);
	}
	return 0;
}

/* The dump of an earlier plan with the same BTF, or NULL. */
static struct btf_dump *dump_of_btf(const struct output *o, int n, const struct btf *btf)
{
	int i;

	for (i = 0; i < n; i++) {
		if (o->plans[i].func.btf == btf)
			return o->dumps[i];
	}
	return NULL;
}

/*
 * A btf_dump keeps state for every type of its BTF, about a megabyte for
 * vmlinux: one per plan made 500 functions cost 600 MB.
 */
static int new_dumps(struct output *o)
{
	const struct btf *btf;
	int i;

	for (i = 0; i < o->nr; i++) {
		btf = o->plans[i].func.btf;
		o->dumps[i] = dump_of_btf(o, i, btf);
		if (!o->dumps[i])
			o->dumps[i] = btf_dump__new(btf, dump_printf, o, NULL);
		if (!o->dumps[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * A user function's values with --symbolize or in JSON: a function pointer
 * is named in its process, whose maps are read as its first event arrives.
 */
static bool names_user_functions(const struct output *o)
{
	int i;

	for (i = 0; (o->opts.symbolize || o->opts.json) && i < o->nr; i++) {
		if (o->plans[i].target == SPEC_USER)
			return true;
	}
	return false;
}

struct output *output__new(const struct output_opts *opts, const struct func_plan *plans, int nr,
			   FILE *out, struct ksyms *ks)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->opts = *opts;
	o->plans = plans;
	o->nr = nr;
	o->out = out;
	o->ks = ks;
	o->wall_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	o->dumps = calloc(nr, sizeof(*o->dumps));
	if (!o->dumps || (o->opts.json && init_type_names(o)) || new_dumps(o))
		goto err;
	if (opts->chrome && !(o->chrome = chrome__new(out)))
		goto err;
	if ((opts->ustack_depth || names_user_functions(o)) && !(o->usyms = ustack_syms__new()))
		goto err;
	if (opts->ustack_dwarf && !(o->unwind = uunwind__new()))
		goto err;
	if (opts->ustack_depth && !(o->mounts = mounts__new()))
		goto err;
	/* a trace's frames show their source line, as perf script's srcline */
	ustack_syms__want_lines(o->usyms, true);
	ustack_syms__prime(o->usyms, opts->pids, opts->nr_pids);
	return o;
err:
	output__free(o);
	return NULL;
}

void output__free(struct output *o)
{
	int i, j;

	if (!o)
		return;
	output__finish(o);
	ustack_syms__free(o->usyms);
	uunwind__free(o->unwind);
	mounts__free(o->mounts);
	for (i = 0; o->dumps && i < o->nr; i++) {
		if (o->dumps[i] && dump_of_btf(o, i, o->plans[i].func.btf) != o->dumps[i])
			btf_dump__free(o->dumps[i]);
	}
	for (i = 0; o->type_names && i < o->nr; i++) {
		for (j = 0; o->type_names[i] && j < KSNOOP_MAX_VALUES; j++)
			free(o->type_names[i][j]);
		free(o->type_names[i]);
	}
	free(o->type_names);
	free(o->dumps);
	free(o->named);
	sb_free(&o->buf);
	sb_free(&o->line);
	free(o);
}

int output__finish(struct output *o)
{
	int err = o->chrome ? chrome__finish(o->chrome) : 0;

	o->chrome = NULL;
	return err;
}

void output__header(struct output *o)
{
	if (o->opts.json || o->chrome)
		return;
	fprintf(o->out, "%16s %4s %8s ", "TIME", "CPU", "PID");
	if (o->opts.show_comm)
		fprintf(o->out, "%-*s ", COMM_WIDTH, "COMM");
	fprintf(o->out, "FUNCTION/ARGS\n");
}

/* A span's start: an entry event of its own, whole, with no span inside. */
static int span_start_validate(const struct ksnoop_vrec *vr, int nr_funcs)
{
	const struct ksnoop_event *start = (const void *)(vr + 1);

	if (vr->len < KSNOOP_EVENT_HDR_SIZE || start->kind != KSNOOP_EV_ENTRY)
		return -EINVAL;
	return event_validate(start, vr->len, nr_funcs);
}

static bool is_ustack(const struct ksnoop_vrec *vr)
{
	return vr->idx == KSNOOP_VREC_USTACK || vr->idx == KSNOOP_VREC_USTACK_DUMP;
}

static bool is_stack(const struct ksnoop_vrec *vr)
{
	return vr->idx == KSNOOP_VREC_KSTACK || vr->idx == KSNOOP_VREC_UMAPS || is_ustack(vr);
}

/*
 * A kstack, then a ustack (and its mappings) or its dump, as an event's
 * last records (before a span's start); prev is the record before.
 */
static bool stack_invalid(const struct ksnoop_vrec *vr, __u32 i, __u32 last, int stacks, int prev)
{
	/* one user stack, after the kernel's */
	if (is_ustack(vr) && (prev == KSNOOP_VREC_USTACK || prev == KSNOOP_VREC_USTACK_DUMP ||
			      prev == KSNOOP_VREC_UMAPS))
		return true;
	if (vr->idx == KSNOOP_VREC_USTACK_DUMP)
		return i + 1 != last || vr->len < KSNOOP_UREGS_SIZE ||
		       vr->len > KSNOOP_UREGS_SIZE + KSNOOP_USTACK_DUMP_MAX;
	if (vr->idx == KSNOOP_VREC_UMAPS)
		return i + 1 != last || prev != KSNOOP_VREC_USTACK || !vr->len ||
		       vr->len % sizeof(struct ksnoop_umap) ||
		       vr->len > KSNOOP_UMAPS_MAX * sizeof(struct ksnoop_umap);
	if (vr->len % 8)
		return true;
	if (vr->idx == KSNOOP_VREC_USTACK)
		return i + 2 < last || vr->len > KSNOOP_USTACK_MAX * 8;
	return stacks || i + 3 < last || vr->len > KSNOOP_KSTACK_MAX * 8;
}

int event_validate(const struct ksnoop_event *ev, size_t size, int nr_funcs)
{
	const __u8 *p, *end;
	int stacks = 0, prev = -1;
	__u32 i;

	if (size < KSNOOP_EVENT_HDR_SIZE || ev->func_id >= (__u32)nr_funcs ||
	    ev->data_len > size - KSNOOP_EVENT_HDR_SIZE)
		return -EINVAL;
	p = ev->data;
	end = ev->data + ev->data_len;
	for (i = 0; i < ev->nr_vrecs; i++) {
		const struct ksnoop_vrec *vr = (const void *)p;
		/* the records after which only a span's start may come */
		__u32 last = ev->nr_vrecs - (ev->kind == KSNOOP_EV_SPAN);

		if ((size_t)(end - p) < sizeof(*vr) || (size_t)(end - p) - sizeof(*vr) < vr->len)
			return -EINVAL;
		if (vr->idx == KSNOOP_VREC_SPAN_FROM) {
			if (i + 1 != ev->nr_vrecs || ev->kind != KSNOOP_EV_SPAN ||
			    span_start_validate(vr, nr_funcs))
				return -EINVAL;
		} else if (is_stack(vr)) {
			/* stacks are the last records, the kernel's first, whole frames only */
			if (stack_invalid(vr, i, last, stacks, prev))
				return -EINVAL;
			stacks++;
		} else if (vr->idx >= KSNOOP_MAX_VALUES || stacks) {
			return -EINVAL;
		}
		prev = vr->idx;
		p += KSNOOP_VREC_SIZE(vr->len);
		if (p > end)
			return -EINVAL;
	}
	return 0;
}

int event_widen(const void *lite, size_t size, struct ksnoop_event *out, size_t *out_size)
{
	size_t data = size - KSNOOP_LITE_HDR_SIZE;

	if (size < KSNOOP_LITE_HDR_SIZE || data > sizeof(out->data))
		return -EINVAL;
	memcpy(out, lite, KSNOOP_LITE_HDR_SIZE);
	out->kind &= ~KSNOOP_EV_LITE;
	out->duration_ns = 0;
	out->chain_id = 0;
	memcpy(out->data, (const __u8 *)lite + KSNOOP_LITE_HDR_SIZE, data);
	*out_size = KSNOOP_EVENT_HDR_SIZE + data;
	return 0;
}

static void print_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	fput_c_escaped(out, s, len);
	fputc('"', out);
}

static __u64 extract_bits(const __u8 *data, __u32 len, __u8 bit_off, __u8 bit_size)
{
	__u64 v = 0;

	memcpy(&v, data, len < 8 ? len : 8);
	v >>= bit_off;
	return bit_size < 64 ? v & ((1ULL << bit_size) - 1) : v;
}

static int line_indent(const char *s)
{
	int n = 0;

	while (s[n] == ' ')
		n++;
	return n;
}

/*
 * The function starting at addr: a kernel one, or at a user address one
 * of the event's process, as it maps its objects now; NULL for none.
 */
static const char *function_at(void *ctx, unsigned long long addr)
{
	struct output *o = ctx;
	struct ustack_frame f;
	uint64_t start = 0;
	const char *sym;

	if (!arch_is_user_addr(arch_native(), addr)) {
		sym = o->ks ? ksyms__addr_name(o->ks, addr, &start) : NULL;
		return sym && start == addr ? sym : NULL;
	}
	if (!o->usyms && !(o->usyms = ustack_syms__new()))
		return NULL;
	ustack_syms__resolve(o->usyms, o->tgid, addr, &f);
	return f.func && !f.off ? f.func : NULL;
}

/*
 * --symbolize: btf_dump prints a function pointer as "(ret (*)(args))0xaddr";
 * append " <symbol>" when the address starts a function.
 */
static void write_line(struct output *o, const char *line, size_t len)
{
	const char *p = line, *hex = NULL, *sym;
	unsigned long long addr;
	char *end;

	if (o->opts.symbolize && memmem(line, len, "(*)(", 4)) {
		while ((p = memmem(p, len - (p - line), "))0x", 4)))
			hex = p += 2;
	}
	if (!hex) {
		fwrite(line, 1, len, o->out);
		return;
	}
	addr = strtoull(hex, &end, 16);
	sym = function_at(o, addr);
	fwrite(line, 1, end - line, o->out);
	if (sym)
		fprintf(o->out, " <%s>", sym);
	fwrite(end, 1, len - (end - line), o->out);
}

/*
 * btf_dump indents with one printf callback per level per line, so the
 * dump runs with no base indent and each line gets its DUMP_INDENT here.
 */

/* --max-depth: lines nested deeper than the bound collapse into "...". */
/*
 * A btf_dump text, line by line under the value's indent. With a depth
 * limit (0: none), each run of deeper lines becomes one marker.
 */
static void write_dump(struct output *o, const char *text, int limit)
{
	bool eliding = false;
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl)
			nl = text + strlen(text) - 1;
		if (limit && line_indent(text) > limit) {
			if (!eliding)
				fprintf(o->out, "%*s... /* deeper than --max-depth %d */\n",
					DUMP_INDENT + limit + 1, "", limit);
			eliding = true;
			continue;
		}
		eliding = false;
		put_indent(o);
		write_line(o, text, nl - text + 1);
	}
}

/*
 * After a dump of only len of full bytes: on a line of its own, or at the
 * end of the one line of a --compact dump. btf_dump stops with -E2BIG at
 * the first base value past the end, but skips members it reads as zero
 * there, so a short dump can also end in a complete-looking "}".
 */
static void print_cut(struct output *o, size_t len, __u32 full)
{
	const struct strbuf *b = &o->buf;

	if (o->opts.compact && b->len) {
		fputc(' ', o->out);
	} else {
		if (b->len && b->buf[b->len - 1] != '\n')
			fputc('\n', o->out);
		put_indent(o);
	}
	fprintf(o->out, "... /* %zu bytes of %u */", len, full);
}

void dump_drop_open_tail(struct strbuf *b)
{
	size_t end = b->len, start, i;
	char last;

	for (;;) {
		start = end && b->buf[end - 1] == '\n' ? end - 1 : end;
		while (start && b->buf[start - 1] != '\n')
			start--;
		last = '\0';
		for (i = start; i < end; i++)
			if (b->buf[i] != ' ' && b->buf[i] != '\n')
				last = b->buf[i];
		/* the value's own opening stays, to say what was cut */
		if (!start || start == end || (last && last != '{' && last != '['))
			break;
		end = start;
	}
	b->len = end;
	if (b->buf)
		b->buf[end] = '\0';
}

static void print_dump(struct output *o, struct btf_dump *d, const struct plan_value *pv,
		       const void *data, size_t len)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, opts, .indent_str = " ", .compact = o->opts.compact);
	int ret;

	sb_reset(&o->buf);
	ret = btf_dump__dump_type_data(d, pv->type_id, data, len, &opts);
	if (ret == -E2BIG && !o->opts.compact)
		dump_drop_open_tail(&o->buf);
	write_dump(o, sb_str(&o->buf),
		   o->opts.max_depth > 0 && !o->opts.compact ? o->opts.max_depth : 0);
	if (ret == -E2BIG || len < pv->full_size)
		print_cut(o, len, pv->full_size);
}

static void print_fault(struct output *o, const struct plan_value *pv, const char *why)
{
	struct strbuf sb;

	sb_init(&sb);
	kbtf_format_decl(pv->btf, pv->type_id, NULL, &sb);
	fprintf(o->out, "%*s /* Cannot show '%s' as '%s%s'; %s */", DUMP_INDENT, "", pv->name,
		sb_str(&sb), pv->show == SHOW_PTR_DUMP ? " *" : "", why);
	sb_free(&sb);
}

/* --errors: the errno of a failing return; 0 for none (or NULL). */
static int failure_errno(__u8 kind, const struct ksnoop_vrec *vr)
{
	__s64 v = kind == KSNOOP_ERR_INT32 ? (__s64)(__s32)vr->raw : (__s64)vr->raw;

	if (kind == KSNOOP_ERR_NONE || vr->flags & KSNOOP_VR_NULL)
		return 0;
	return v < 0 && v >= -ERRNO_MAX ? (int)-v : 0;
}

/* How --errors shows a return value: ERR_NONE for any other value. */
static __u8 failure_kind(const struct output *o, const struct func_plan *plan,
			 const struct plan_value *pv)
{
	return o->opts.errors && plan_value_is_ret(pv) ? plan->cfg.err_kind : KSNOOP_ERR_NONE;
}

/* A return as the origin and graph show it: "-2 (ENOENT)", "ERR_PTR(-2) (ENOENT)", "NULL", "0xffff888004f1c000", "3". */
static void ret_text(__u8 kind, const struct ksnoop_vrec *vr, struct strbuf *sb)
{
	int e = failure_errno(kind, vr);
	char buf[24];

	if (e)
		sb_printf(sb, kind == KSNOOP_ERR_PTR ? "ERR_PTR(%d) (%s)" : "%d (%s)", -e,
			  bpfutil_errno_name(e, buf, sizeof(buf)));
	else if (kind == KSNOOP_ERR_PTR && (!vr->raw || vr->flags & KSNOOP_VR_NULL))
		sb_printf(sb, "NULL");
	else if (kind == KSNOOP_ERR_PTR)
		sb_printf(sb, "0x%llx", (unsigned long long)vr->raw);
	else if (kind == KSNOOP_ERR_INT32)
		sb_printf(sb, "%d", (int)vr->raw);
	else if (kind == KSNOOP_ERR_INT64)
		sb_printf(sb, "%lld", (long long)vr->raw);
	else
		sb_printf(sb, "%llu", (unsigned long long)vr->raw);
}

/* --errors: an ERR_PTR or NULL return, which no dump could show. */
static bool is_failed_ptr(__u8 kind, const struct ksnoop_vrec *vr)
{
	return kind == KSNOOP_ERR_PTR && (failure_errno(kind, vr) || vr->flags & KSNOOP_VR_NULL);
}

static void print_failed_ptr(struct output *o, __u8 kind, const struct ksnoop_vrec *vr)
{
	struct strbuf sb;

	sb_init(&sb);
	ret_text(kind, vr, &sb);
	fprintf(o->out, "\n%*s%s", DUMP_INDENT, "", sb_str(&sb));
	sb_free(&sb);
}

static void print_errno(struct output *o, __u8 kind, const struct ksnoop_vrec *vr)
{
	int e = kind == KSNOOP_ERR_PTR ? 0 : failure_errno(kind, vr);
	char buf[24];

	if (e)
		fprintf(o->out, " (%s)", bpfutil_errno_name(e, buf, sizeof(buf)));
}

/* " (127.0.0.1)" after a value's dump, as an errno follows a failing return. */
static void print_decoded(struct output *o, const struct plan_value *pv, const void *data,
			  size_t len)
{
	sb_reset(&o->buf);
	if (pv->decode && decode_text(pv->decode, pv->btf, data, len, &o->buf))
		fprintf(o->out, " (%s)", sb_str(&o->buf));
}

static void print_value(struct output *o, struct btf_dump *d, const struct plan_value *pv,
			const struct ksnoop_vrec *vr, __u8 fail_kind)
{
	const void *data = vr + 1;

	fprintf(o->out, "%*s %s = ", NAME_INDENT, "", pv->name);
	if (is_failed_ptr(fail_kind, vr)) {
		print_failed_ptr(o, fail_kind, vr);
		return;
	}
	if (pv->via_pointer)
		fprintf(o->out, "*(0x%llx)", (unsigned long long)vr->raw);
	fputc('\n', o->out);
	if (vr->flags & KSNOOP_VR_NULL) {
		print_fault(o, pv, "NULL pointer");
	} else if (vr->flags & KSNOOP_VR_FAULT) {
		print_fault(o, pv, "invalid/userspace ptr?");
	} else if (pv->show == SHOW_STRING) {
		put_indent(o);
		print_string(o->out, data, vr->len);
	} else if (pv->show == SHOW_SCALAR) {
		print_dump(o, d, pv, &vr->raw, pv->full_size);
		print_errno(o, fail_kind, vr);
		print_decoded(o, pv, &vr->raw, pv->full_size);
	} else if (pv->bit_size) {
		__u64 v = extract_bits(data, vr->len, pv->bit_off, pv->bit_size);

		print_dump(o, d, pv, &v, sizeof(v));
	} else {
		print_dump(o, d, pv, data, vr->len);
		print_decoded(o, pv, data, vr->len);
	}
}

static void print_time(struct output *o, __u64 ts)
{
	char buf[32];
	__s64 wall = (__s64)ts + o->wall_offset_ns;
	time_t secs = wall / 1000000000LL;
	struct tm tm;

	if (!o->opts.wallclock) {
		fprintf(o->out, "%16llu", (unsigned long long)ts);
		return;
	}
	localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(o->out, "%9s.%06lld", buf, (long long)(wall % 1000000000LL) / 1000);
}

/* "TIME CPU PID [COMM] " before a call; ts is the call's time. */
static void print_lead(struct output *o, const struct ksnoop_event *ev, __u64 ts)
{
	print_time(o, ts);
	fprintf(o->out, " %4u %8u ", ev->cpu, ev->pid);
	if (o->opts.show_comm) {
		size_t len = strnlen(ev->comm, sizeof(ev->comm));
		int pad = COMM_WIDTH - (int)c_escaped_len(ev->comm, len);

		fput_c_escaped(o->out, ev->comm, len);
		fprintf(o->out, "%*s ", pad > 0 ? pad : 0, "");
	}
}

/* Over the records of a validated event: its shown values, then its stack. */
struct vrec_iter {
	const struct func_plan *plan;
	const struct ksnoop_event *ev;
	__u32 i;
	const __u8 *p;
	const struct ksnoop_vrec *kstack; /* once the walk has reached it */
	const struct ksnoop_vrec *ustack; /* the same */
	const struct ksnoop_vrec *umaps;  /* the same */
};

/* A validated span's start event, its last record; NULL for other events. */
static const struct ksnoop_event *span_start(const struct ksnoop_event *ev)
{
	const __u8 *p = ev->data;
	__u32 i;

	if (ev->kind != KSNOOP_EV_SPAN)
		return NULL;
	for (i = 0; i + 1 < ev->nr_vrecs; i++)
		p += KSNOOP_VREC_SIZE(((const struct ksnoop_vrec *)p)->len);
	return (const void *)(p + sizeof(struct ksnoop_vrec));
}

static struct vrec_iter vrec_iter(const struct func_plan *plan, const struct ksnoop_event *ev)
{
	return (struct vrec_iter){ .plan = plan, .ev = ev, .p = ev->data };
}

/* The next shown value, or NULL at the end. */
static const struct ksnoop_vrec *next_shown(struct vrec_iter *it)
{
	while (it->i < it->ev->nr_vrecs) {
		const struct ksnoop_vrec *vr = (const void *)it->p;
		const struct plan_value *pv = &it->plan->values[vr->idx & (KSNOOP_MAX_VALUES - 1)];

		it->p += KSNOOP_VREC_SIZE(vr->len);
		it->i++;
		if (vr->idx == KSNOOP_VREC_SPAN_FROM)
			continue;
		if (vr->idx == KSNOOP_VREC_KSTACK)
			it->kstack = vr;
		else if (is_ustack(vr))
			it->ustack = vr;
		else if (vr->idx == KSNOOP_VREC_UMAPS)
			it->umaps = vr;
		else if (!pv->hidden && pv->name)
			return vr;
	}
	return NULL;
}

/* The --kstack record, after the values were walked. */
static const struct ksnoop_vrec *iter_kstack(struct vrec_iter *it)
{
	while (next_shown(it))
		;
	return it->kstack;
}

/*
 * Each kernel frame of the event's stack, from the traced function's own
 * (at entry the caller is the next one, so it is never lost) outwards.
 */
static void for_each_frame(struct output *o, struct vrec_iter *it,
			   void (*fn)(void *o, const char *frame, int n))
{
	const struct ksnoop_event *ev = it->ev;
	const struct ksnoop_vrec *vr = iter_kstack(it);
	const char *func = o->plans[ev->func_id].attach_name;
	uint64_t ips[KSNOOP_KSTACK_MAX + 1];
	int n;

	if (!vr)
		return;
	memcpy(ips, vr + 1, vr->len);
	if (vr->flags & KSNOOP_VR_TRAMPOLINE)
		n = ksyms__restore_func(o->ks, ips, vr->len / 8, func);
	else
		n = ksyms__restore_caller(o->ks, ips, vr->len / 8, func, vr->raw);
	ksyms__stack_frames(o->ks, ips, n, func, o->opts.kstack_depth, fn, o);
}

/*
 * The frames of a --ustack record, with the caller a user function was
 * entered from put back second: the frame pointers name only its caller's
 * caller. How many, at most KSNOOP_USTACK_MAX + 1.
 */
static __u32 ustack_restore_caller(const struct ksnoop_vrec *vr, __u64 *ips)
{
	const __u64 *taken = (const __u64 *)(vr + 1);
	__u32 n = vr->len / 8, out = 0, i;

	for (i = 0; i < n; i++) {
		ips[out++] = taken[i];
		if (i == 0 && vr->raw && (n < 2 || taken[1] != vr->raw))
			ips[out++] = vr->raw;
	}
	return out;
}

/* The frames of a --call-graph dwarf record, unwound in pid with CFI. */
static __u32 ustack_unwind(struct output *o, const struct ksnoop_vrec *vr, int pid, __u64 *ips)
{
	struct uunwind_sample s = {
		.regs = vr + 1,
		.sp = vr->raw,
		.stack = (const char *)(vr + 1) + KSNOOP_UREGS_SIZE,
		.stack_len = vr->len - KSNOOP_UREGS_SIZE,
	};
	unsigned long long frames[KSNOOP_USTACK_MAX + 1];
	int i, n;

	if (!o->unwind && !(o->unwind = uunwind__new()))
		return 0;
	n = uunwind__frames(o->unwind, pid, &s, frames, ARRAY_SIZE(frames));
	for (i = 0; i < n; i++)
		ips[i] = frames[i];
	return n;
}

/*
 * Each user frame of the event's --ustack, innermost first, named in the
 * process as it is mapped now, else as the event's mappings say.
 */
static void for_each_uframe(struct output *o, struct vrec_iter *it,
			    void (*fn)(void *o, const char *frame, int n))
{
	__u64 ips[KSNOOP_USTACK_MAX + 1];
	const struct ksnoop_vrec *vr;
	struct ustack_frame f;
	struct strbuf sb;
	__u32 i, n;

	iter_kstack(it);
	vr = it->ustack;
	if (!vr || !o->usyms)
		return;
	if (it->umaps)
		umaps_learn(o->usyms, o->mounts, it->ev->tgid, (const void *)(it->umaps + 1),
			    it->umaps->len / sizeof(struct ksnoop_umap));
	if (vr->idx == KSNOOP_VREC_USTACK_DUMP)
		n = ustack_unwind(o, vr, it->ev->tgid, ips);
	else
		n = ustack_restore_caller(vr, ips);
	sb_init(&sb);
	for (i = 0; i < n && i < (__u32)o->opts.ustack_depth; i++) {
		ustack_syms__resolve_frame(o->usyms, it->ev->tgid, ips[i], i > 0, &f);
		sb_reset(&sb);
		ustack_frame_format(&f, true, &sb);
		fn(o, sb_str(&sb), i);
	}
	sb_free(&sb);
}

/* The kernel's frames, then the user's: as perf prints a call chain. */
static void for_each_kernel_user_frame(struct output *o, struct vrec_iter *it,
				       void (*fn)(void *o, const char *frame, int n))
{
	for_each_frame(o, it, fn);
	for_each_uframe(o, it, fn);
}

static void text_frame(void *ctx, const char *frame, int n)
{
	struct output *o = ctx;

	(void)n;
	fprintf(o->out, "%*s%s\n", NAME_INDENT, "", frame);
}

/* An event's stacks under it, as text. */
static void text_frames(struct output *o, struct vrec_iter *it)
{
	if (o->ustack_under_origin)
		for_each_frame(o, it, text_frame);
	else
		for_each_kernel_user_frame(o, it, text_frame);
}

static void json_frame(void *ctx, const char *frame, int n)
{
	struct output *o = ctx;

	(void)n;
	jw_strn(&o->jw, frame, 1024);
}

/* One call; a span's end says how long since its start, printed just above it. */
static void text_call(struct output *o, const struct ksnoop_event *ev, bool last)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	struct vrec_iter it = vrec_iter(plan, ev);
	const struct ksnoop_vrec *vr;
	int shown = 0;

	o->tgid = ev->tgid;
	print_lead(o, ev, ev->ts);
	fprintf(o->out, "%s(\n", plan->name);
	while ((vr = next_shown(&it))) {
		const struct plan_value *pv = &plan->values[vr->idx];

		if (shown++)
			fputs(",\n", o->out);
		print_value(o, o->dumps[ev->func_id], pv, vr, failure_kind(o, plan, pv));
	}
	if (ev->kind == KSNOOP_EV_SPAN)
		fprintf(o->out, "%s%*s span = %llu ns", shown ? ",\n" : "", NAME_INDENT, "",
			(unsigned long long)ev->duration_ns);
	else if (o->opts.min_duration_ns && ev->kind != KSNOOP_EV_ENTRY)
		fprintf(o->out, "%s%*s duration = %llu ns", shown ? ",\n" : "", NAME_INDENT, "",
			(unsigned long long)ev->duration_ns);
	fprintf(o->out, "\n%*s);\n", CLOSE_INDENT, "");
	text_frames(o, &it);
	if (last)
		fputc('\n', o->out);
}

static void node_call(struct output *o, const struct ksnoop_event *ev, struct strbuf *sb);
static const struct ksnoop_vrec *return_vrec(const struct func_plan *plan,
					     const struct ksnoop_event *ev);

/* "    TIME  CPU  PID ip_output(net=0x..., skb=0x...)", its stack below. */
static void one_line_call(struct output *o, const struct ksnoop_event *ev)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	struct vrec_iter it = vrec_iter(plan, ev);
	const struct ksnoop_vrec *vr;
	struct strbuf sb = {};

	node_call(o, ev, &sb);
	vr = return_vrec(plan, ev);
	if (vr) {
		sb_printf(&sb, " = ");
		ret_text(plan->cfg.err_kind, vr, &sb);
	}
	print_lead(o, ev, ev->ts);
	fprintf(o->out, "%s\n", sb.buf ?: "");
	sb_free(&sb);
	while (next_shown(&it))
		;
	text_frames(o, &it);
}

static void text_event(struct output *o, const struct ksnoop_event *ev)
{
	const struct ksnoop_event *start = span_start(ev);

	if (o->opts.one_line) {
		one_line_call(o, ev);
		return;
	}

	if (start)
		text_call(o, start, false);
	text_call(o, ev, true);
}

static const char *event_kind_name(__u16 kind)
{
	switch (kind) {
	case KSNOOP_EV_ENTRY:
		return "entry";
	case KSNOOP_EV_RETURN:
		return "return";
	case KSNOOP_EV_COMBINED:
		return "combined";
	case KSNOOP_EV_SPAN:
		return "span";
	}
	return "unknown";
}

/* --errors: the errno, and an ERR_PTR as the error a dump would have met. */
static bool json_failure(struct jw *w, __u8 kind, const struct ksnoop_vrec *vr)
{
	int e = failure_errno(kind, vr);
	char buf[24];

	if (!e)
		return false;
	if (kind == KSNOOP_ERR_PTR) {
		jw_key(w, "error");
		jw_raw(w, "\"ERR_PTR(%d)\"", -e);
	}
	jw_kstr(w, "errno", bpfutil_errno_name(e, buf, sizeof(buf)));
	return kind == KSNOOP_ERR_PTR;
}

/* A captured value as JSON. */
static void json_value_of(struct output *o, const struct plan_value *pv,
			  const struct ksnoop_vrec *vr, struct jw *w)
{
	struct btfjson_opts jo = { .max_depth = o->opts.max_depth > 0 ? o->opts.max_depth : 64,
				   .function_at = function_at,
				   .ctx = o };
	const void *data = vr + 1;

	if (pv->show == SHOW_STRING) {
		jw_strn(w, data, vr->len);
	} else if (pv->show == SHOW_SCALAR) {
		btfjson_value(w, pv->btf, pv->type_id, &vr->raw, pv->full_size, &jo);
	} else if (pv->bit_size) {
		__u64 v = extract_bits(data, vr->len, pv->bit_off, pv->bit_size);

		btfjson_value(w, pv->btf, pv->type_id, &v, sizeof(v), &jo);
	} else {
		btfjson_value(w, pv->btf, pv->type_id, data, vr->len, &jo);
	}
}

/* The decoded form beside the raw value: "port":8080, "ipv4":"127.0.0.1". */
static void json_decoded(struct output *o, const struct plan_value *pv,
			 const struct ksnoop_vrec *vr)
{
	const void *data = pv->show == SHOW_SCALAR ? (const void *)&vr->raw
						   : (const void *)(vr + 1);
	size_t len = pv->show == SHOW_SCALAR ? pv->full_size : vr->len;

	sb_reset(&o->buf);
	if (!pv->decode || !decode_text(pv->decode, pv->btf, data, len, &o->buf))
		return;
	if (decode_is_number(pv->decode)) {
		jw_key(&o->jw, decode_json_key(pv->decode));
		jw_raw(&o->jw, "%s", sb_str(&o->buf));
	} else {
		jw_kstr(&o->jw, decode_json_key(pv->decode), sb_str(&o->buf));
	}
}

static const char *unreadable(const struct ksnoop_vrec *vr)
{
	return vr->flags & KSNOOP_VR_NULL ? "NULL pointer" : "unreadable memory";
}

static void json_value_members(struct output *o, const struct plan_value *pv,
			       const struct ksnoop_vrec *vr, __u8 fail_kind)
{
	struct jw *w = &o->jw;

	if (json_failure(w, fail_kind, vr))
		return;
	if (vr->flags & (KSNOOP_VR_NULL | KSNOOP_VR_FAULT)) {
		jw_kstr(w, "error", unreadable(vr));
		return;
	}
	jw_key(w, "value");
	json_value_of(o, pv, vr, w);
	json_decoded(o, pv, vr);
	if (vr->flags & KSNOOP_VR_TRUNCATED ||
	    (pv->show != SHOW_SCALAR && pv->show != SHOW_STRING && vr->len < pv->full_size))
		jw_kbool(w, "truncated", true);
}

static void json_one_value(struct output *o, const struct plan_value *pv, const char *type,
			   const struct ksnoop_vrec *vr, __u8 fail_kind)
{
	struct jw *w = &o->jw;

	jw_object(w);
	jw_kstrn(w, "name", pv->name, 1024);
	jw_kstrn(w, "type", type ? type : "", 1024);
	if (pv->via_pointer) {
		jw_key(w, "addr");
		jw_raw(w, "\"0x%llx\"", (unsigned long long)vr->raw);
	}
	json_value_members(o, pv, vr, fail_kind);
	jw_end(w);
}

/* origin: the deepest call of an --errors origin chain. */
/* An event's members; a span's start is an object of the same members, "from". */
static void json_members(struct output *o, const struct ksnoop_event *ev, bool origin)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	struct vrec_iter it = vrec_iter(plan, ev);
	const struct ksnoop_event *start = span_start(ev);
	struct jw *w = &o->jw;
	const struct ksnoop_vrec *vr;

	o->tgid = ev->tgid;
	jw_kuint(w, "ts", ev->ts);
	if (o->opts.wallclock)
		jw_kint(w, "wall_ns", (long long)ev->ts + (long long)o->wall_offset_ns);
	jw_kuint(w, "cpu", ev->cpu);
	jw_kuint(w, "pid", ev->tgid);
	jw_kuint(w, "tid", ev->pid);
	jw_kstrn(w, "comm", ev->comm, sizeof(ev->comm));
	jw_kstrn(w, "function", plan->name, 1024);
	jw_kstr(w, "event", event_kind_name(ev->kind));
	if (ev->kind != KSNOOP_EV_ENTRY)
		jw_kuint(w, "duration_ns", ev->duration_ns);
	if (o->opts.errors || o->opts.graph)
		jw_kuint(w, "depth", ev->depth);
	if (origin)
		jw_kbool(w, "origin", true);
	jw_key(w, "values");
	jw_array(w);
	while ((vr = next_shown(&it))) {
		const struct plan_value *pv = &plan->values[vr->idx];

		json_one_value(o, pv, o->type_names[ev->func_id][vr->idx], vr,
			       failure_kind(o, plan, pv));
	}
	jw_end(w);
	if (o->opts.kstack_depth) {
		jw_key(w, "kstack");
		jw_array(w);
		for_each_frame(o, &it, json_frame);
		jw_end(w);
	}
	if (o->opts.ustack_depth) {
		jw_key(w, "ustack");
		jw_array(w);
		for_each_uframe(o, &it, json_frame);
		jw_end(w);
	}
	if (start) {
		jw_key(w, "from");
		jw_object(w);
		json_members(o, start, false);
		jw_end(w);
	}
}

static void json_event(struct output *o, const struct ksnoop_event *ev, bool origin)
{
	struct jw *w = &o->jw;

	sb_reset(&o->line);
	jw_init(w, &o->line);
	jw_object(w);
	json_members(o, ev, origin);
	jw_end(w);
	sb_putc(&o->line, '\n');
	fputs(sb_str(&o->line), o->out);
}

/* The timeline names each thread once, after its comm. */
static void chrome_thread(struct output *o, const struct ksnoop_event *ev)
{
	size_t i;

	for (i = 0; i < o->nr_named; i++) {
		if (o->named[i] == ev->pid)
			return;
	}
	if (o->nr_named >= CHROME_MAX_THREADS ||
	    !grow_array(&o->named, &o->cap_named, o->nr_named, sizeof(*o->named), 64))
		return;
	o->named[o->nr_named++] = ev->pid;
	chrome__thread_name(o->chrome, ev->tgid, ev->pid, ev->comm);
}

/*
 * A call as a complete event, its values as args: {"filename":"/x","return":-2};
 * a span as one on its start's thread, "FROM -> TO", with its end's values.
 */
static void chrome_event(struct output *o, const struct ksnoop_event *ev)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	const struct ksnoop_event *start = span_start(ev), *on = start ?: ev;
	struct vrec_iter it = vrec_iter(plan, ev);
	struct jw *w = &o->jw;
	const struct ksnoop_vrec *vr;
	char buf[24], name[256];
	int e;

	if (ev->kind == KSNOOP_EV_ENTRY)
		return; /* a call shows once it returned */
	o->tgid = ev->tgid;
	snprintf(name, sizeof(name), "%s%s%s", start ? o->plans[start->func_id].name : "",
		 start ? " -> " : "", plan->name);
	chrome_thread(o, on);
	sb_reset(&o->line);
	jw_init(w, &o->line);
	jw_object(w);
	while ((vr = next_shown(&it))) {
		const struct plan_value *pv = &plan->values[vr->idx];

		jw_key(w, pv->name);
		e = plan_value_is_ret(pv) ? failure_errno(plan->cfg.err_kind, vr) : 0;
		if (e && plan->cfg.err_kind == KSNOOP_ERR_PTR)
			jw_raw(w, "\"ERR_PTR(%d)\"", -e);
		else if (vr->flags & (KSNOOP_VR_NULL | KSNOOP_VR_FAULT))
			jw_str(w, unreadable(vr));
		else
			json_value_of(o, pv, vr, w);
		if (e)
			jw_kstr(w, "errno", bpfutil_errno_name(e, buf, sizeof(buf)));
	}
	jw_end(w);
	chrome__complete(o->chrome, &(struct chrome_event){ .name = name,
							    .cat = "ksnoop",
							    .ts_ns = ev->ts - ev->duration_ns,
							    .dur_ns = ev->duration_ns,
							    .pid = on->tgid,
							    .tid = on->pid,
							    .args_json = sb_str(&o->line) });
}

void output__arrived(struct output *o, const struct ksnoop_event *ev)
{
	ustack_syms__note(o->usyms, ev->tgid);
	uunwind__note(o->unwind, ev->tgid);
}

int output__event(struct output *o, const struct ksnoop_event *ev, size_t size)
{
	if (event_validate(ev, size, o->nr))
		return -EINVAL;
	if (ev->kind == KSNOOP_EV_CHAIN_END)
		return 0;
	if (o->chrome)
		chrome_event(o, ev);
	else if (o->opts.json)
		json_event(o, ev, false);
	else
		text_event(o, ev);
	return 0;
}

/* The return value record of a validated event, or NULL. */
static const struct ksnoop_vrec *return_vrec(const struct func_plan *plan,
					     const struct ksnoop_event *ev)
{
	struct vrec_iter it = vrec_iter(plan, ev);
	const struct ksnoop_vrec *vr;

	while ((vr = next_shown(&it))) {
		if (plan_value_is_ret(&plan->values[vr->idx]))
			return vr;
	}
	return NULL;
}

/* "path_openat() = ERR_PTR(-2) (ENOENT)" */
static void origin_line(struct output *o, const char *label, const struct ksnoop_event *ev)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	const struct ksnoop_vrec *vr = return_vrec(plan, ev);
	struct strbuf sb;

	sb_init(&sb);
	if (vr)
		ret_text(plan->cfg.err_kind, vr, &sb);
	fprintf(o->out, "%*s%s %s() = %s\n", NAME_INDENT, "", label, plan->name, sb_str(&sb));
	sb_free(&sb);
}

static void origin_uframe(void *ctx, const char *frame, int n)
{
	struct output *o = ctx;

	fprintf(o->out, "%*s%s %s\n", NAME_INDENT, "",
		n ? "             " : "  user stack:", frame);
}

/* Where user space made the call that failed: the outermost's user stack. */
static void origin_ustack(struct output *o, const struct ksnoop_event *top)
{
	struct vrec_iter it = vrec_iter(&o->plans[top->func_id], top);

	for_each_uframe(o, &it, origin_uframe);
}

void output__origin(struct output *o, const struct ksnoop_event *const *evs, const size_t *sizes,
		    int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (event_validate(evs[i], sizes[i], o->nr))
			return;
	}
	o->ustack_under_origin = n > 1;
	for (i = 0; i < n; i++) {
		if (o->chrome)
			chrome_event(o, evs[i]);
		else if (o->opts.json)
			json_event(o, evs[i], n > 1 && i == n - 1);
		else
			text_event(o, evs[i]);
	}
	o->ustack_under_origin = false;
	if (o->chrome || o->opts.json || n < 2)
		return;
	origin_line(o, "error origin:", evs[n - 1]);
	for (i = n - 2; i >= 0; i--)
		origin_line(o, "   called by:", evs[i]);
	origin_ustack(o, evs[0]);
	fputc('\n', o->out);
}

/* graph: a whole tree is shown when ENTRY's call passes --errors and --duration. */
static bool tree_kept(const struct output *o, const struct ksnoop_event *top)
{
	const struct func_plan *plan = &o->plans[top->func_id];
	const struct ksnoop_vrec *vr = return_vrec(plan, top);
	int e;

	if (top->duration_ns < o->opts.min_duration_ns)
		return false;
	if (!o->opts.errors)
		return true;
	e = vr ? failure_errno(plan->cfg.err_kind, vr) : 0;
	if (!e)
		return vr && plan->cfg.err_kind == KSNOOP_ERR_PTR && !o->opts.errno_filter &&
		       (!vr->raw || vr->flags & KSNOOP_VR_NULL);
	return !o->opts.errno_filter || (o->opts.errno_mask[e / 64] >> (e % 64) & 1);
}

static int by_entry(const void *a, const void *b)
{
	const struct ksnoop_event *x = *(const struct ksnoop_event *const *)a;
	const struct ksnoop_event *y = *(const struct ksnoop_event *const *)b;

	if (chain_entry_ts(x) != chain_entry_ts(y))
		return chain_entry_ts(x) < chain_entry_ts(y) ? -1 : 1;
	return x->depth - y->depth;
}

/* A pointer shown as itself: 0x..., not JSON's string of it. */
static bool is_address(const struct plan_value *pv)
{
	const struct btf_type *t;

	if (pv->show != SHOW_SCALAR)
		return false;
	t = btf__type_by_id(pv->btf, btf_skip_mods(pv->btf, pv->type_id));
	return t && btf_is_ptr(t);
}

/* "path_openat(flags=65)": the node's shown values but the return, inline. */
static void node_call(struct output *o, const struct ksnoop_event *ev, struct strbuf *sb)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	struct vrec_iter it = vrec_iter(plan, ev);
	const struct ksnoop_vrec *vr;
	int n = 0;

	o->tgid = ev->tgid;
	sb_printf(sb, "%s(", plan->name);
	while ((vr = next_shown(&it))) {
		const struct plan_value *pv = &plan->values[vr->idx];

		if (plan_value_is_ret(pv))
			continue;
		sb_printf(sb, "%s%s=", n++ ? ", " : "", pv->name);
		if (vr->flags & (KSNOOP_VR_NULL | KSNOOP_VR_FAULT)) {
			sb_printf(sb, "<%s>", unreadable(vr));
		} else if (is_address(pv)) {
			sb_printf(sb, "0x%llx", (unsigned long long)vr->raw);
		} else {
			/* a value of its own: the writer starts afresh */
			jw_init(&o->jw, sb);
			json_value_of(o, pv, vr, &o->jw);
		}
	}
	sb_putc(sb, ')');
}

/* " = -2 (ENOENT)   3.4 us", nothing for a void function's return. */
static void node_result(struct output *o, const struct ksnoop_event *ev, struct strbuf *sb)
{
	const struct func_plan *plan = &o->plans[ev->func_id];
	const struct ksnoop_vrec *vr = return_vrec(plan, ev);

	if (vr) {
		sb_printf(sb, " = ");
		ret_text(plan->cfg.err_kind, vr, sb);
	}
	sb_printf(sb, "   %.1f us", ev->duration_ns / 1000.0);
}

#define TREE_INDENT 31 /* under FUNCTION/ARGS, after TIME CPU PID */

static int tree_indent(const struct output *o)
{
	return TREE_INDENT + (o->opts.show_comm ? COMM_WIDTH + 1 : 0);
}

struct tree_printer {
	struct output *o;
	const struct ksnoop_event *top;
	const struct ksnoop_event *open[KSNOOP_MAX_DEPTH + 1];
	int nr_open;
	bool elided; /* a "deeper than --max-depth" marker is out */
	struct strbuf sb;
};

static int level_of(const struct tree_printer *t, const struct ksnoop_event *ev)
{
	return ev->depth > t->top->depth ? ev->depth - t->top->depth : 0;
}

static void tree_line(struct tree_printer *t, int level)
{
	if (level == 0) {
		print_lead(t->o, t->top, t->top->ts - t->top->duration_ns);
	} else {
		fprintf(t->o->out, "%*s", tree_indent(t->o) + 2 * level, "");
	}
	fprintf(t->o->out, "%s\n", sb_str(&t->sb));
	sb_reset(&t->sb);
}

static void tree_close(struct tree_printer *t)
{
	const struct ksnoop_event *ev = t->open[--t->nr_open];

	sb_printf(&t->sb, "}");
	node_result(t->o, ev, &t->sb);
	if (level_of(t, ev) == 0) {
		fprintf(t->o->out, "%*s%s\n", tree_indent(t->o), "", sb_str(&t->sb));
		sb_reset(&t->sb);
		return;
	}
	tree_line(t, level_of(t, ev));
}

static void tree_node(struct tree_printer *t, const struct ksnoop_event *ev,
		      const struct ksnoop_event *next)
{
	int level = level_of(t, ev), max = t->o->opts.max_depth;
	bool parent = next && chain_within(next, ev) && t->nr_open <= KSNOOP_MAX_DEPTH;

	while (t->nr_open && !chain_within(ev, t->open[t->nr_open - 1]))
		tree_close(t);
	if (max && level > max) {
		if (!t->elided)
			fprintf(t->o->out, "%*s... /* deeper than --max-depth %d */\n",
				tree_indent(t->o) + 2 * level, "", max);
		t->elided = true;
		return;
	}
	t->elided = false;
	node_call(t->o, ev, &t->sb);
	if (parent) {
		sb_printf(&t->sb, " {");
		t->open[t->nr_open++] = ev;
	} else {
		node_result(t->o, ev, &t->sb);
	}
	tree_line(t, level);
}

static void text_tree(struct output *o, const struct ksnoop_event **evs, int n, int cut)
{
	struct tree_printer t = { .o = o, .top = evs[0] };
	int i;

	sb_init(&t.sb);
	for (i = 0; i < n; i++)
		tree_node(&t, evs[i], i + 1 < n ? evs[i + 1] : NULL);
	if (cut)
		fprintf(o->out, "%*s... %d more call%s not shown (--max-nodes %d)\n",
			tree_indent(o) + 2, "", cut, cut > 1 ? "s" : "", o->opts.max_nodes);
	while (t.nr_open)
		tree_close(&t);
	fputc('\n', o->out);
	sb_free(&t.sb);
}

void output__tree(struct output *o, const struct ksnoop_event *const *evs, const size_t *sizes,
		  int n, int cut)
{
	const struct ksnoop_event **sorted;
	int i;

	for (i = 0; i < n; i++) {
		if (event_validate(evs[i], sizes[i], o->nr))
			return;
	}
	if (!n || !tree_kept(o, evs[0]))
		return;
	sorted = calloc(n, sizeof(*sorted));
	if (!sorted)
		return;
	memcpy(sorted, evs, n * sizeof(*sorted));
	/* ENTRY began first: it stays first */
	qsort(sorted + 1, n - 1, sizeof(*sorted), by_entry);
	if (o->chrome) {
		for (i = 0; i < n; i++)
			chrome_event(o, sorted[i]);
	} else if (o->opts.json) {
		for (i = 0; i < n; i++)
			json_event(o, sorted[i], false);
	} else {
		text_tree(o, sorted, n, cut);
	}
	free(sorted);
}
