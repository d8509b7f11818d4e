// SPDX-License-Identifier: GPL-2.0
/*
 * kdump's output: one "  PID COMM     TYPE  ..." line per record, as BSD's
 * kdump(1) prints it, with data and exec strings on indented lines.
 */
#include <ctype.h>
#include <string.h>

#include "ktr/print.h"
#include "ktr/systab.h"

#define KTRFAC_DEFAULT \
	(KTRFAC_SYSCALL | KTRFAC_NAMEI | KTRFAC_GENIO | KTRFAC_PSIG | KTRFAC_EXECARGS)
#define DATA_INDENT "       "
#define WRAP_COLUMN 78

int ktr_parse_trstr(const char *s, unsigned int *facs, char *bad)
{
	unsigned int f = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'c':
			f |= KTRFAC_SYSCALL;
			break;
		case 'n':
			f |= KTRFAC_NAMEI;
			break;
		case 'i':
			f |= KTRFAC_GENIO;
			break;
		case 's':
			f |= KTRFAC_PSIG;
			break;
		case 'x':
			f |= KTRFAC_EXECARGS;
			break;
		case 'X':
			f |= KTRFAC_EXECENV;
			break;
		case '+':
			f |= KTRFAC_DEFAULT;
			break;
		default:
			*bad = *s;
			return -1;
		}
	}
	*facs = f;
	return 0;
}

unsigned int ktr_facs_to_types(unsigned int facs)
{
	unsigned int t = 1u << KTR_DROP;

	if (facs & KTRFAC_SYSCALL)
		t |= 1u << KTR_SYSCALL | 1u << KTR_SYSRET;
	if (facs & KTRFAC_NAMEI)
		t |= 1u << KTR_NAMEI;
	if (facs & KTRFAC_GENIO)
		t |= 1u << KTR_GENIO;
	if (facs & KTRFAC_PSIG)
		t |= 1u << KTR_PSIG;
	if (facs & KTRFAC_EXECARGS)
		t |= 1u << KTR_EXECARGS;
	if (facs & KTRFAC_EXECENV)
		t |= 1u << KTR_EXECENV;
	return t;
}

void kdump_opts_default(struct kdump_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->maxdata = -1;
	o->pid = -1;
	o->types = ~0u;
}

void kdump_ctx_init(struct kdump_ctx *c, const struct kdump_opts *o, FILE *out)
{
	memset(c, 0, sizeof(*c));
	c->opts = *o;
	c->fmt.raw = o->raw;
	c->fmt.decimal = o->decimal;
	c->fmt.names = true;
	c->out = out;
	sb_init(&c->line);
}

void kdump_ctx_free(struct kdump_ctx *c)
{
	sb_free(&c->line);
}

static const char *type_name(unsigned int type)
{
	switch (type) {
	case KTR_SYSCALL:
		return "CALL";
	case KTR_SYSRET:
		return "RET ";
	case KTR_NAMEI:
		return "NAMI";
	case KTR_GENIO:
		return "GIO ";
	case KTR_PSIG:
		return "PSIG";
	case KTR_EXECARGS:
		return "ARGS";
	case KTR_EXECENV:
		return "ENV ";
	case KTR_DROP:
		return "DROP";
	}
	return "????";
}

/* comm is not NUL-terminated in a file and may hold anything. */
static void put_comm(struct strbuf *sb, const char *comm)
{
	size_t i, n = strnlen(comm, KTR_COMM_LEN);

	for (i = 0; i < n; i++)
		sb_putc(sb, isprint((unsigned char)comm[i]) ? comm[i] : '?');
	for (; i < 8; i++)
		sb_putc(sb, ' ');
	sb_putc(sb, ' ');
}

static void put_time(struct kdump_ctx *c, uint64_t ts)
{
	uint64_t t = ts;

	if (c->opts.rel_ts)
		t = c->have_prev && ts >= c->prev_ts ? ts - c->prev_ts : 0;
	c->prev_ts = ts;
	c->have_prev = true;
	sb_printf(&c->line, "%llu.%06llu ", (unsigned long long)(t / 1000000000),
		  (unsigned long long)(t % 1000000000 / 1000));
}

static void put_prefix(struct kdump_ctx *c, const struct ktr_rec *h)
{
	if (c->opts.tid)
		sb_printf(&c->line, "%6u/%-7u ", h->pid, h->tid);
	else
		sb_printf(&c->line, "%6u ", h->pid);
	put_comm(&c->line, h->comm);
	if (c->opts.abs_ts || c->opts.rel_ts)
		put_time(c, h->ts_ns);
	sb_printf(&c->line, "%s  ", type_name(h->type));
}

/* One byte the way vis(3) VIS_CSTYLE shows it inside double quotes. */
static int put_vis(struct strbuf *sb, unsigned char ch)
{
	static const char esc_from[] = "\n\t\r\a\b\f\v\"\\";
	static const char esc_to[] = "ntrabfv\"\\";
	const char *p = ch ? strchr(esc_from, ch) : NULL;

	if (p) {
		sb_printf(sb, "\\%c", esc_to[p - esc_from]);
		return 2;
	}
	if (isprint(ch)) {
		sb_putc(sb, ch);
		return 1;
	}
	sb_printf(sb, "\\%03o", ch);
	return 4;
}

/* A quoted string on lines of their own, broken after each newline. */
static void put_quoted_lines(struct strbuf *sb, const unsigned char *p, size_t n)
{
	size_t i, col = sizeof(DATA_INDENT);

	sb_printf(sb, DATA_INDENT "\"");
	for (i = 0; i < n; i++) {
		if (col >= WRAP_COLUMN) {
			sb_printf(sb, "\\\n" DATA_INDENT " ");
			col = sizeof(DATA_INDENT);
		}
		col += put_vis(sb, p[i]);
		if (p[i] == '\n' && i + 1 < n) {
			sb_printf(sb, "\n" DATA_INDENT " ");
			col = sizeof(DATA_INDENT);
		}
	}
	sb_printf(sb, "\"\n");
}

static void put_hex_lines(struct strbuf *sb, const unsigned char *p, size_t n, bool ascii)
{
	size_t off, i;

	for (off = 0; off < n; off += 16) {
		sb_printf(sb, DATA_INDENT "%04zx ", off);
		for (i = off; i < off + 16; i++) {
			if (i < n)
				sb_printf(sb, " %02x", p[i]);
			else if (ascii)
				sb_printf(sb, "   ");
		}
		if (ascii) {
			sb_printf(sb, "  |");
			for (i = off; i < off + 16 && i < n; i++)
				sb_putc(sb, isprint(p[i]) ? p[i] : '.');
			sb_putc(sb, '|');
		}
		sb_putc(sb, '\n');
	}
}

static void print_genio(struct kdump_ctx *c, const struct ktr_rec *h, const struct ktr_genio *g)
{
	const unsigned char *data = (const unsigned char *)(g + 1);
	size_t n = h->len - sizeof(*g);

	sb_printf(&c->line, "fd %d %s %llu bytes\n", g->fd, g->rw == KTR_READ ? "read" : "wrote",
		  (unsigned long long)g->count);
	if (c->opts.maxdata >= 0 && n > (unsigned long long)c->opts.maxdata)
		n = c->opts.maxdata;
	if (!n)
		return;
	if (c->opts.hex)
		put_hex_lines(&c->line, data, n, c->opts.hex == 2);
	else
		put_quoted_lines(&c->line, data, n);
	if (n < g->count)
		sb_printf(&c->line, DATA_INDENT "[%zu of %llu bytes shown]\n", n,
			  (unsigned long long)g->count);
}

/* BSD's ARGS/ENV layout: one "\t[i] = \"...\"" line per string. */
static void print_exec(struct kdump_ctx *c, const struct ktr_rec *h, const struct ktr_exec *e)
{
	const char *p = (const char *)(e + 1);
	size_t len = h->len - sizeof(*e), l, i;
	int idx = 0;

	sb_putc(&c->line, '\n');
	while (len > 0) {
		l = strnlen(p, len);
		sb_printf(&c->line, "\t[%d] = \"", idx++);
		for (i = 0; i < l; i++)
			put_vis(&c->line, p[i]);
		sb_printf(&c->line, "\"\n");
		if (l == len) {
			if (!(h->flags & KTR_F_TRUNC))
				sb_printf(&c->line, "\tunterminated argument\n");
			break;
		}
		len -= l + 1;
		p += l + 1;
	}
	if (h->flags & KTR_F_TRUNC)
		sb_printf(&c->line, "\t[%zu of %u bytes captured]\n", (size_t)(h->len - sizeof(*e)),
			  e->total);
}

static void print_nami(struct kdump_ctx *c, const struct ktr_rec *h, const unsigned char *p)
{
	uint32_t i;

	sb_putc(&c->line, '"');
	for (i = 0; i < h->len; i++)
		put_vis(&c->line, p[i]);
	sb_printf(&c->line, "\"\n");
}

static void print_body(struct kdump_ctx *c, const struct ktr_rec *h, const void *payload)
{
	switch (h->type) {
	case KTR_SYSCALL:
		ktr_format_call(&c->line, payload, &c->fmt);
		sb_putc(&c->line, '\n');
		break;
	case KTR_SYSRET:
		ktr_format_ret(&c->line, payload, &c->fmt);
		sb_putc(&c->line, '\n');
		break;
	case KTR_NAMEI:
		print_nami(c, h, payload);
		break;
	case KTR_GENIO:
		print_genio(c, h, payload);
		break;
	case KTR_PSIG:
		ktr_format_psig(&c->line, payload, &c->fmt);
		sb_putc(&c->line, '\n');
		break;
	case KTR_EXECARGS:
	case KTR_EXECENV:
		print_exec(c, h, payload);
		break;
	case KTR_DROP: {
		unsigned long long n = ((const struct ktr_drop *)payload)->count;

		sb_printf(&c->line, "%llu record%s dropped\n", n, n == 1 ? "" : "s");
		break;
	}
	}
}

static bool wanted(const struct kdump_ctx *c, const struct ktr_rec *h)
{
	if (c->opts.pid >= 0 && h->pid != c->opts.pid && h->tid != c->opts.pid)
		return false;
	return h->type < 32 && (c->opts.types & (1u << h->type));
}

void kdump_print(struct kdump_ctx *c, const struct ktr_rec *h, const void *payload)
{
	if (!wanted(c, h))
		return;
	if (c->emit) {
		c->emit(c->emit_arg, h, payload);
		return;
	}
	sb_reset(&c->line);
	put_prefix(c, h);
	print_body(c, h, payload);
	fputs(sb_str(&c->line), c->out);
}

int kdump_begin(struct kdump_ctx *c, struct ktr_reader *r)
{
	if (ktr_reader__open(r))
		return -1;
	/* Names and flag values are this machine's: raw numbers otherwise. */
	if (ktr_reader__header(r)->machine != ktr_systab_machine) {
		c->fmt.names = false;
		c->fmt.raw = true;
		return 1;
	}
	return 0;
}

int kdump_run(struct kdump_ctx *c, struct ktr_reader *r)
{
	const struct ktr_rec *h;
	const void *payload;
	int ret;

	while ((ret = ktr_reader__next(r, &h, &payload)) > 0) {
		kdump_print(c, h, payload);
		if (c->opts.follow)
			fflush(c->out);
	}
	return ret < 0 ? -1 : 0;
}
