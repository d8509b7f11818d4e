// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kpe/output.h"
#include "lib/json_writer.h"

/* The --kstack record: whole frames within the bound, ending the record. */
static int kstack_validate(const struct kpe_event *ev, size_t size)
{
	size_t rest = size - KPE_EVENT_HDR_SIZE - ev->data_len;
	const struct kpe_kstack *ks = (const void *)(ev->data + ev->data_len);

	if (!(ev->flags & KPE_EV_KSTACK))
		return 0;
	if (ev->data_len % 8 || rest < sizeof(*ks) || ks->len % 8 || ks->len > KPE_KSTACK_MAX * 8 ||
	    rest - sizeof(*ks) != ks->len)
		return -EINVAL;
	return 0;
}

int kpe_event_validate(const struct kpe_event *ev, size_t size, const struct kpe_probe *probes,
		       int nr)
{
	if (size < KPE_EVENT_HDR_SIZE || ev->def_id >= (__u32)nr ||
	    ev->data_len > size - KPE_EVENT_HDR_SIZE || ev->nr_args != probes[ev->def_id].nr_fields)
		return -EINVAL;
	return kstack_validate(ev, size);
}

/* %pS: "sym+0xoff/0xsize [mod]", or the bare address without a symbol. */
static void format_sym(struct strbuf *sb, const struct ksyms *syms, __u64 addr, bool offset)
{
	const char *name, *mod = NULL;
	uint64_t start, size;

	name = syms ? ksyms__find(syms, addr, &start, &size, &mod) : NULL;
	if (!name) {
		sb_printf(sb, "0x%llx", (unsigned long long)addr);
		return;
	}
	sb_printf(sb, "%s", name);
	if (offset)
		sb_printf(sb, "+0x%llx/0x%llx", (unsigned long long)(addr - start),
			  (unsigned long long)size);
	if (mod)
		sb_printf(sb, " [%s]", mod);
}

static void format_scalar(struct strbuf *sb, const struct kpe_type *t, const struct ksyms *syms,
			  __u64 v)
{
	unsigned char c;

	switch (t->kind) {
	case KPE_T_S:
		if (t->size == 8)
			sb_printf(sb, "%lld", (long long)v);
		else if (t->size == 4)
			sb_printf(sb, "%d", (__s32)v);
		else if (t->size == 2)
			sb_printf(sb, "%d", (__s16)v);
		else
			sb_printf(sb, "%d", (__s8)v);
		break;
	case KPE_T_X:
		if (t->size == 8)
			sb_printf(sb, "0x%llx", (unsigned long long)v);
		else
			sb_printf(sb, "0x%x", (unsigned int)v);
		break;
	case KPE_T_CHAR:
		/* the raw byte, as the kernel prints it */
		c = v;
		sb_printf(sb, "'%c'", c);
		break;
	case KPE_T_SYMBOL:
		format_sym(sb, syms, v, true);
		break;
	case KPE_T_SYMSTR:
		/* named here, not in BPF: a string as the kernel prints one */
		sb_printf(sb, "\"");
		format_sym(sb, syms, v, true);
		sb_printf(sb, "\"");
		break;
	default: /* u8..u64 and bitfields, shown as their unsigned container */
		sb_printf(sb, "%llu", (unsigned long long)v);
		break;
	}
}

static __u64 load_elem(const __u8 *p, int size)
{
	__u64 v = 0;

	memcpy(&v, p, size); /* little endian, as x86-64 and arm64 */
	return v;
}

static void format_data(struct strbuf *sb, const struct kpe_field *fd, const struct kpe_event *ev,
			const struct ksyms *syms, __u64 raw)
{
	__u32 off = KPE_VAL_OFF(raw), len = KPE_VAL_LEN(raw), i;
	const __u8 *p = ev->data + off;

	if (off > ev->data_len || len > ev->data_len - off) {
		sb_printf(sb, "(fault)");
		return;
	}
	if (!fd->type.count) {
		sb_printf(sb, "\"%.*s\"", (int)strnlen((const char *)p, len), p);
		return;
	}
	sb_putc(sb, '{');
	for (i = 0; i + fd->type.size <= len; i += fd->type.size) {
		if (i)
			sb_putc(sb, ',');
		format_scalar(sb, &fd->type, syms, load_elem(p + i, fd->type.size));
	}
	sb_putc(sb, '}');
}

void kpe_format_value(struct strbuf *sb, const struct kpe_field *fd, const struct ksyms *syms,
		      const struct kpe_event *ev, int i)
{
	bool fault = ev->faults[i / 64] >> (i % 64) & 1;

	if (fd->is_data && fault)
		sb_printf(sb, "(fault)");
	else if (fd->is_data)
		format_data(sb, fd, ev, syms, ev->vals[i]);
	else
		format_scalar(sb, &fd->type, syms, ev->vals[i]);
}

/* Where the event fired: the probed address, or what a t or e probe names. */
static void format_loc(struct strbuf *sb, const struct kpe_probe *p, const struct ksyms *syms,
		       const struct kpe_event *ev)
{
	if (p->loc)
		sb_printf(sb, "%s", p->loc);
	else
		format_sym(sb, syms, ev->ip, true);
}

void kpe_format_event(struct strbuf *sb, const struct kpe_probe *p, const struct ksyms *syms,
		      const struct kpe_event *ev)
{
	int i;

	sb_printf(sb, "%16.16s-%-7u [%03u] %5llu.%06llu: %s: (", ev->comm, ev->pid, ev->cpu,
		  (unsigned long long)(ev->ts / 1000000000ULL),
		  (unsigned long long)(ev->ts % 1000000000ULL / 1000), p->event);
	format_loc(sb, p, syms, ev);
	if (p->is_return)
		sb_printf(sb, " <- %s", p->func);
	sb_putc(sb, ')');
	for (i = 0; i < p->nr_fields && i < ev->nr_args; i++) {
		sb_printf(sb, " %s=", p->fields[i].name);
		kpe_format_value(sb, &p->fields[i], syms, ev, i);
	}
}

/* Whether addr is in the kretprobe trampoline of kernels before 5.15 (its name since). */
static bool trampoline(const struct ksyms *syms, uint64_t addr)
{
	uint64_t start;
	const char *name = syms ? ksyms__find_text(syms, addr, &start) : NULL;

	return name && !strcmp(name, "kretprobe_trampoline");
}

void kpe_stack_frames(const struct kpe_probe *p, struct ksyms *syms, const struct kpe_event *ev,
		      int depth, void (*fn)(void *ctx, const char *frame, int i), void *ctx)
{
	const struct kpe_kstack *ks = (const void *)(ev->data + ev->data_len);
	uint64_t ips[KPE_KSTACK_MAX + 1];
	int n;

	/*
	 * At entry the first frame is the probed function's and the next its
	 * caller's. A return probe's first is already the caller's, and the
	 * function may be further out again (recursion): nothing is cut there.
	 */
	if (!(ev->flags & KPE_EV_KSTACK))
		return;
	memcpy(ips, ks->ips, ks->len);
	n = ks->len / 8;
	if (p->kind == 't' || p->kind == 'e') {
		/* a tracepoint's stack starts in BPF's own frames: from the caller's */
		ksyms__stack_frames(syms, ips, n, NULL, depth, fn, ctx);
		return;
	}
	if (!p->is_return && !p->offset)
		n = ksyms__restore_caller(syms, ips, n, p->func, ks->entry_ra);
	/*
	 * Before 5.13 a kretprobe's registers hold the trampoline's address
	 * for the caller (arm64's no pc at all): the entry kept the caller's.
	 */
	if ((p->cfg->flags & KPE_DEF_ENTRY_RA) && n && (!ips[0] || trampoline(syms, ips[0])))
		ips[0] = ev->ip;
	ksyms__stack_frames(syms, ips, n, p->is_return ? NULL : p->func, depth, fn, ctx);
}

static void text_frame(void *ctx, const char *frame, int i)
{
	(void)i;
	sb_printf(ctx, "\n => %s", frame);
}

void kpe_format_kstack(struct strbuf *sb, const struct kpe_probe *p, struct ksyms *syms,
		       const struct kpe_event *ev, int depth)
{
	kpe_stack_frames(p, syms, ev, depth, text_frame, sb);
}

static bool numeric(const struct kpe_field *fd)
{
	return !fd->is_data && fd->type.kind != KPE_T_X && fd->type.kind != KPE_T_CHAR &&
	       fd->type.kind != KPE_T_SYMBOL && fd->type.kind != KPE_T_SYMSTR;
}

/*
 * Numbers for the decimal types, a string's own text without the quotes
 * the kernel adds, and what the kernel prints for the rest.
 */
static void json_field(struct jw *w, const struct kpe_field *fd, const struct ksyms *syms,
		       const struct kpe_event *ev, int i, struct strbuf *tmp)
{
	sb_reset(tmp);
	kpe_format_value(tmp, fd, syms, ev, i);
	if (numeric(fd))
		jw_raw(w, "%s", sb_str(tmp));
	else if ((fd->is_data || fd->type.kind == KPE_T_SYMSTR) && !fd->type.count &&
		 tmp->len >= 2 && tmp->buf[0] == '"')
		jw_strn(w, tmp->buf + 1, tmp->len - 2);
	else
		jw_str(w, sb_str(tmp));
}

static void json_frame(void *ctx, const char *frame, int i)
{
	(void)i;
	jw_str(ctx, frame);
}

void kpe_json_event(struct strbuf *sb, struct strbuf *tmp, const struct kpe_probe *p,
		    struct ksyms *syms, const struct kpe_event *ev, int depth)
{
	struct jw w;
	int i;

	sb_reset(tmp);
	jw_init(&w, sb);
	jw_object(&w);
	jw_kuint(&w, "ts", ev->ts);
	jw_kuint(&w, "cpu", ev->cpu);
	jw_kuint(&w, "pid", ev->tgid);
	jw_kuint(&w, "tid", ev->pid);
	jw_kstrn(&w, "comm", ev->comm, sizeof(ev->comm));
	jw_key(&w, "event");
	jw_raw(&w, "\"%s/%s\"", p->group, p->event);
	format_loc(tmp, p, syms, ev);
	jw_kstr(&w, p->kind == 'e' ? "attached_to" : "ip", sb_str(tmp));
	if (p->is_return)
		jw_kstr(&w, "return_from", p->func);
	jw_key(&w, "args");
	jw_object(&w);
	for (i = 0; i < p->nr_fields && i < ev->nr_args; i++) {
		jw_key(&w, p->fields[i].name);
		json_field(&w, &p->fields[i], syms, ev, i, tmp);
	}
	jw_end(&w);
	if (depth > 0) {
		jw_key(&w, "kstack");
		jw_array(&w);
		kpe_stack_frames(p, syms, ev, depth, json_frame, &w);
		jw_end(&w);
	}
	jw_end(&w);
}
