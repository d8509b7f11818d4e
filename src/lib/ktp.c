// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ktp.h"
#include "lib/util.h"

#define STUB_PREFIX "__bpf_trace_"
#define PROBESTUB_PREFIX "__probestub_"
#define TYPEDEF_PREFIX "btf_trace_"

__u32 ktp_typedef_proto(const struct btf *btf, const char *event)
{
	char name[sizeof(TYPEDEF_PREFIX) + KTP_NAME_MAX];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), TYPEDEF_PREFIX "%s", event);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return 0;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? btf__type_by_id(btf, id)->type : 0;
}

/* Whether FUNC id's parameters have the types of the prototype proto_ptr points to. */
static bool same_params(const struct btf *btf, __u32 id, __u32 proto_ptr)
{
	const struct btf_type *a = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	const struct btf_type *b = btf__type_by_id(btf, btf__type_by_id(btf, proto_ptr)->type);
	const struct btf_param *pa, *pb;
	int i;

	if (!a || !btf_is_func_proto(a) || btf_vlen(a) != btf_vlen(b))
		return false;
	pa = btf_params(a);
	pb = btf_params(b);
	for (i = 0; i < btf_vlen(a); i++) {
		if (pa[i].type != pb[i].type)
			return false;
	}
	return true;
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/*
 * Before 6.4 an event of a class (DEFINE_EVENT) has no stub of its own:
 * its class's serves it, under the class's name (sched_wakeup's is
 * sched_wakeup_template's), which the kernel records nowhere a reader can
 * see. The event's typedef has the types: of the stubs with them, the one
 * whose name is most like the event's, in vmlinux's BTF or the module's.
 */
static int class_stub(const struct btf *btf, const char *event, struct kbtf_func *out)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 proto = ktp_typedef_proto(btf, event), nr = btf__type_cnt(btf);
	__u32 id = base ? btf__type_cnt(base) : 1; /* a module's own types only */
	size_t plen = strlen(STUB_PREFIX), best = 0;

	if (!proto)
		return 0;
	for (; id < nr; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);
		size_t score;

		if (!btf_is_func(t) || !name || strncmp(name, STUB_PREFIX, plen) ||
		    !same_params(btf, id, proto))
			continue;
		score = common_prefix(name + plen, event) + 1;
		if (score > best) {
			best = score;
			*out = (struct kbtf_func){ .btf = (struct btf *)btf, .id = id };
		}
	}
	return best ? 1 : 0;
}

int ktp_find_stub(struct kbtf *kb, const char *event, struct kbtf_func *out)
{
	static const char *const prefixes[] = { PROBESTUB_PREFIX, STUB_PREFIX };
	char name[sizeof(PROBESTUB_PREFIX) + KTP_NAME_MAX];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		snprintf(name, sizeof(name), "%s%s", prefixes[i], event);
		n = kbtf__find_funcs(kb, name, out, 1);
		if (n != 0)
			return n; /* found, or a module's damaged BTF (said when read) */
	}
	if (class_stub(kbtf__vmlinux(kb), event, out))
		return 1;
	/* a module's event of a class: its typedef and stubs are in its BTF */
	for (i = 0; (int)i < kbtf__nr_modules(kb); i++) {
		const char *mod = NULL;
		const struct btf *btf = kbtf__module(kb, i, &mod);

		if (btf && class_stub(btf, event, out)) {
			out->module = mod;
			return 1;
		}
	}
	return 0;
}

/* "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;" */
static bool parse_field(const char *line, struct ktp_field *f)
{
	const char *decl = strstr(line, "field:"), *end, *sp, *o, *z, *sg;

	if (!decl)
		return false;
	decl += strlen("field:");
	end = strchr(decl, ';');
	for (sp = end; sp && sp > decl && sp[-1] != ' ';)
		sp--;
	if (!end || !sp || sp == decl || (size_t)(sp - 1 - decl) >= sizeof(f->type) ||
	    (size_t)(end - sp) >= sizeof(f->name))
		return false;
	memset(f, 0, sizeof(*f));
	memcpy(f->type, decl, sp - 1 - decl);
	memcpy(f->name, sp, end - sp);
	/* "char comm[16]": the array bound is the type's, as the kernel's filters see it */
	if ((o = strchr(f->name, '[')) && strlen(f->type) + strlen(o) < sizeof(f->type)) {
		strcat(f->type, o);
		f->name[o - f->name] = '\0';
	}
	o = strstr(end, "offset:");
	z = strstr(end, "size:");
	sg = strstr(end, "signed:");
	if (!o || !z)
		return false;
	f->offset = atoi(o + strlen("offset:"));
	f->size = atoi(z + strlen("size:"));
	f->is_signed = sg && atoi(sg + strlen("signed:"));
	f->common = !strncmp(f->name, "common_", strlen("common_"));
	return f->offset >= 0 && f->size > 0;
}

int ktp_read_format(const char *tracefs, const char *system, const char *event, struct ktp_field *f,
		    int max)
{
	char path[PATH_MAX], line[512];
	int n = 0;
	FILE *fp;

	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system, event) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (n < max && fgets(line, sizeof(line), fp)) {
		if (parse_field(line, &f[n]))
			n++;
	}
	fclose(fp);
	return n;
}
