// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

/* Columns of ksnoop(8)'s layout. */
#define NAME_INDENT 34	/* "%34s %s = " */
#define DUMP_INDENT 36	/* btf_dump indent level, in spaces */
#define CLOSE_INDENT 31 /* "%31s);" */

struct output {
	const struct env *env;
	const struct func_plan *plans;
	int nr;
	FILE *out;
	struct btf_dump **dumps; /* one per plan (plans may use module BTF) */
};

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

struct output *output__new(const struct env *env, const struct func_plan *plans, int nr,
			   FILE *out)
{
	struct output *o = calloc(1, sizeof(*o));
	int i;

	if (!o)
		return NULL;
	o->env = env;
	o->plans = plans;
	o->nr = nr;
	o->out = out;
	o->dumps = calloc(nr, sizeof(*o->dumps));
	if (!o->dumps)
		goto err;
	for (i = 0; i < nr; i++) {
		o->dumps[i] = btf_dump__new(plans[i].func.btf, dump_printf, out, NULL);
		if (!o->dumps[i])
			goto err;
	}
	return o;
err:
	output__free(o);
	return NULL;
}

void output__free(struct output *o)
{
	int i;

	if (!o)
		return;
	for (i = 0; o->dumps && i < o->nr; i++)
		btf_dump__free(o->dumps[i]);
	free(o->dumps);
	free(o);
}

void output__header(struct output *o)
{
	fprintf(o->out, "%16s %4s %8s %s\n", "TIME", "CPU", "PID", "FUNCTION/ARGS");
	fflush(o->out);
}

int event_validate(const struct ksnoop_event *ev, size_t size, int nr_funcs)
{
	const __u8 *p, *end;
	__u32 i;

	if (size < KSNOOP_EVENT_HDR_SIZE || ev->func_id >= (__u32)nr_funcs ||
	    ev->data_len > size - KSNOOP_EVENT_HDR_SIZE)
		return -EINVAL;
	p = ev->data;
	end = ev->data + ev->data_len;
	for (i = 0; i < ev->nr_vrecs; i++) {
		const struct ksnoop_vrec *vr = (const void *)p;

		if ((size_t)(end - p) < sizeof(*vr) ||
		    (size_t)(end - p) - sizeof(*vr) < vr->len || vr->idx >= KSNOOP_MAX_VALUES)
			return -EINVAL;
		p += sizeof(*vr) + ((vr->len + 7) & ~7U);
		if (p > end)
			return -EINVAL;
	}
	return 0;
}

static void print_string(FILE *out, const char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static __u64 extract_bits(const __u8 *data, __u32 len, __u8 bit_off, __u8 bit_size)
{
	__u64 v = 0;

	memcpy(&v, data, len < 8 ? len : 8);
	v >>= bit_off;
	return bit_size < 64 ? v & ((1ULL << bit_size) - 1) : v;
}

static void print_dump(struct output *o, struct btf_dump *d, const struct plan_value *pv,
		       const void *data, size_t len)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, opts, .indent_str = " ",
		    .indent_level = DUMP_INDENT);
	int ret;

	ret = btf_dump__dump_type_data(d, pv->type_id, data, len, &opts);
	if (ret == -E2BIG)
		fprintf(o->out, "%*s... /* %zu bytes of %u */", DUMP_INDENT, "", len,
			pv->full_size);
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

static void print_value(struct output *o, struct btf_dump *d, const struct plan_value *pv,
			const struct ksnoop_vrec *vr)
{
	const void *data = vr + 1;

	fprintf(o->out, "%*s %s = ", NAME_INDENT, "", pv->name);
	if (pv->via_pointer)
		fprintf(o->out, "*(0x%llx)", (unsigned long long)vr->raw);
	fputc('\n', o->out);
	if (vr->flags & KSNOOP_VR_NULL) {
		print_fault(o, pv, "NULL pointer");
	} else if (vr->flags & KSNOOP_VR_FAULT) {
		print_fault(o, pv, "invalid/userspace ptr?");
	} else if (pv->show == SHOW_STRING) {
		fprintf(o->out, "%*s", DUMP_INDENT, "");
		print_string(o->out, data, vr->len);
	} else if (pv->show == SHOW_SCALAR) {
		print_dump(o, d, pv, &vr->raw, pv->full_size);
	} else if (pv->bit_size) {
		__u64 v = extract_bits(data, vr->len, pv->bit_off, pv->bit_size);

		print_dump(o, d, pv, &v, pv->full_size <= 8 ? 8 : pv->full_size);
	} else {
		print_dump(o, d, pv, data, vr->len);
	}
}

int output__event(struct output *o, const struct ksnoop_event *ev, size_t size)
{
	const struct func_plan *plan;
	const __u8 *p;
	int shown = 0;
	__u32 i;

	if (event_validate(ev, size, o->nr))
		return -EINVAL;
	plan = &o->plans[ev->func_id];
	fprintf(o->out, "%16llu %4u %8u %s(\n", (unsigned long long)ev->ts, ev->cpu, ev->pid,
		plan->name);
	p = ev->data;
	for (i = 0; i < ev->nr_vrecs; i++) {
		const struct ksnoop_vrec *vr = (const void *)p;
		const struct plan_value *pv = &plan->values[vr->idx];

		p += sizeof(*vr) + ((vr->len + 7) & ~7U);
		if (pv->hidden || !pv->name)
			continue;
		if (shown++)
			fputs(",\n", o->out);
		print_value(o, o->dumps[ev->func_id], pv, vr);
	}
	fprintf(o->out, "\n%*s);\n\n", CLOSE_INDENT, "");
	return 0;
}
