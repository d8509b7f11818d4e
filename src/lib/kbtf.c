// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "lib/btfcheck.h"
#include "lib/kbtf.h"

#define SYS_BTF_DIR "/sys/kernel/btf"

struct kbtf_module {
	char *name;
	struct btf *btf; /* NULL: damaged, reported when loaded */
};

struct kbtf {
	struct btf *vmlinux;
	bool offline; /* --btf: no module BTF */
	struct kbtf_module *mods;
	int nr_mods;
	bool mods_loaded;
	/* vmlinux FUNC ids hashed by name, built when worth it (see find_in_vmlinux) */
	__u32 *by_name; /* [bucket]: first id + 1, or 0 */
	__u32 *next;	/* [id]: next id + 1 of the same bucket, in BTF order */
	__u32 nr_buckets;
	unsigned int nr_scans; /* lookups answered by a scan, before the index */
};

/*
 * A scan compares names only, where the index hashes every one of them:
 * 2.5 times the work, as measured on 126,000 vmlinux types. A command line
 * names a function or two; a pattern looks up each match.
 */
#define KBTF_SCANS_BEFORE_INDEX 2

/* Every BTF is checked once, when it is opened: see btfcheck.h. */
static int check_btf(const struct btf *btf, const char *what)
{
	char why[256], clip[CLIP_BUF];
	int err = btf_check(btf, why, sizeof(why));

	if (err)
		p_err("%s: %s", str_clip(what, clip), why);
	return err;
}

struct kbtf *kbtf__new(const char *btf_path, int *err)
{
	struct kbtf *kb = calloc(1, sizeof(*kb));
	const char *path = btf_path ? btf_path : SYS_BTF_DIR "/vmlinux";

	if (!kb) {
		*err = -ENOMEM;
		return NULL;
	}
	kb->offline = btf_path != NULL;
	kb->vmlinux = btf__parse(path, NULL);
	if (kb->vmlinux)
		p_dbg("%s: %u types parsed", path, btf__type_cnt(kb->vmlinux));
	*err = kb->vmlinux ? 0 : -errno;
	/*
	 * The running kernel's own BTF is trusted as the kernel is: it was
	 * built with it and checks every BPF program against it. Checking it
	 * again took a tenth of a start under emulation.
	 */
	if (!*err && kb->offline) {
		*err = check_btf(kb->vmlinux, path);
		if (!*err)
			p_dbg("%s: checked", path);
	}
	if (*err) {
		btf__free(kb->vmlinux);
		free(kb);
		return NULL;
	}
	return kb;
}

unsigned int kbtf__funcs_found(const struct btf *btf, bool (*has)(void *ctx, const char *name),
			       void *ctx, unsigned int *total)
{
	unsigned int id, n = btf__type_cnt(btf), found = 0;
	const struct btf_type *t;

	*total = 0;
	for (id = 1; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!t || !btf_is_func(t))
			continue;
		(*total)++;
		if (has(ctx, btf__name_by_offset(btf, t->name_off)))
			found++;
	}
	return found;
}

struct kbtf *kbtf__new_from_btf(struct btf *vmlinux)
{
	struct kbtf *kb;

	if (check_btf(vmlinux, "vmlinux BTF"))
		return NULL;
	kb = calloc(1, sizeof(*kb));
	if (!kb)
		return NULL;
	kb->vmlinux = vmlinux;
	kb->offline = true;
	return kb;
}

static int add_module(struct kbtf *kb, const char *name, struct btf *btf)
{
	struct kbtf_module *m;
	char *dup = strdup(name);

	m = dup ? realloc(kb->mods, (kb->nr_mods + 1) * sizeof(*m)) : NULL;
	if (!m) {
		free(dup);
		btf__free(btf);
		return -ENOMEM;
	}
	kb->mods = m;
	m[kb->nr_mods].name = dup;
	m[kb->nr_mods].btf = btf;
	kb->nr_mods++;
	return 0;
}

int kbtf__add_module(struct kbtf *kb, const char *name, struct btf *btf)
{
	int err = check_btf(btf, name);

	if (err) {
		btf__free(btf);
		/* Kept, so that looking in it fails rather than finds nothing. */
		add_module(kb, name, NULL);
		return err;
	}
	return add_module(kb, name, btf);
}

void kbtf__free(struct kbtf *kb)
{
	int i;

	if (!kb)
		return;
	for (i = 0; i < kb->nr_mods; i++) {
		btf__free(kb->mods[i].btf);
		free(kb->mods[i].name);
	}
	free(kb->mods);
	free(kb->by_name);
	free(kb->next);
	btf__free(kb->vmlinux);
	free(kb);
}

struct btf *kbtf__vmlinux(const struct kbtf *kb)
{
	return kb->vmlinux;
}

static void load_module(struct kbtf *kb, const char *name)
{
	char path[512];
	struct btf *btf;

	if (snprintf(path, sizeof(path), SYS_BTF_DIR "/%s", name) >= (int)sizeof(path))
		return;
	btf = btf__parse_split(path, kb->vmlinux);
	if (!btf) {
		p_dbg("module BTF %s: %s", name, strerror(errno));
		return;
	}
	if (check_btf(btf, path)) {
		btf__free(btf);
		btf = NULL;
	}
	add_module(kb, name, btf);
}

static bool module_loaded(const struct kbtf *kb, const char *name)
{
	int i;

	for (i = 0; i < kb->nr_mods; i++) {
		if (!strcmp(kb->mods[i].name, name))
			return true;
	}
	return false;
}

/*
 * Load one module's BTF, or all of them when only is NULL. "mod:func" loads
 * one module and a later bare name loads the rest: never load one twice,
 * or its functions would show up as duplicates.
 */
static void load_modules(struct kbtf *kb, const char *only)
{
	struct dirent *de;
	DIR *dir;

	if (kb->offline || kb->mods_loaded)
		return;
	dir = opendir(SYS_BTF_DIR);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		if ((only && strcmp(only, de->d_name)) || module_loaded(kb, de->d_name))
			continue;
		load_module(kb, de->d_name);
	}
	closedir(dir);
	if (!only)
		kb->mods_loaded = true;
}

int kbtf__nr_modules(struct kbtf *kb)
{
	load_modules(kb, NULL);
	return kb->nr_mods;
}

const struct btf *kbtf__module(const struct kbtf *kb, int i, const char **name)
{
	if (i < 0 || i >= kb->nr_mods)
		return NULL;
	if (name)
		*name = kb->mods[i].name;
	return kb->mods[i].btf;
}

size_t kbtf_base_name_len(const char *name)
{
	/* GCC clones: foo.isra.0, foo.constprop.0, foo.part.0, foo.cold */
	const char *dot = strchr(name, '.');

	return dot && dot != name ? (size_t)(dot - name) : strlen(name);
}

static int scan_btf(const struct btf *btf, __u32 first, const char *name, size_t len,
		    const char *module, struct kbtf_func *out, int n, int max)
{
	__u32 i, cnt = btf__type_cnt(btf);

	for (i = first; i < cnt && n < max; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *tn;

		if (!btf_is_func(t))
			continue;
		tn = btf__name_by_offset(btf, t->name_off);
		if (strncmp(tn, name, len) || tn[len])
			continue;
		out[n].btf = (struct btf *)btf;
		out[n].id = i;
		out[n].module = module;
		n++;
	}
	return n;
}

static const char *func_name(const struct btf *btf, __u32 id)
{
	return btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off);
}

static __u32 hash_key(const char *name, size_t len)
{
	__u32 h = 2166136261u; /* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

/*
 * A linear scan of vmlinux BTF costs ~7 ms, which adds up for "info" on
 * hundreds of functions; a hash of the FUNC names makes every lookup a
 * short chain walk. (Sorting the names instead costs ~50 ms here and
 * seconds under emulation, on every start.) Chains keep BTF order.
 */
static int build_index(struct kbtf *kb)
{
	__u32 i, b, cnt = btf__type_cnt(kb->vmlinux), *tail;

	kb->nr_buckets = 1;
	while (kb->nr_buckets < cnt / 2)
		kb->nr_buckets <<= 1;
	kb->by_name = calloc(kb->nr_buckets, sizeof(*kb->by_name));
	kb->next = calloc(cnt, sizeof(*kb->next));
	tail = calloc(kb->nr_buckets, sizeof(*tail));
	if (!kb->by_name || !kb->next || !tail) {
		free(kb->by_name);
		free(kb->next);
		free(tail);
		kb->by_name = kb->next = NULL;
		return -ENOMEM;
	}
	for (i = 1; i < cnt; i++) {
		const struct btf_type *t = btf__type_by_id(kb->vmlinux, i);
		const char *tn;

		if (!btf_is_func(t))
			continue;
		tn = btf__name_by_offset(kb->vmlinux, t->name_off);
		b = hash_key(tn, strlen(tn)) & (kb->nr_buckets - 1);
		if (tail[b])
			kb->next[tail[b] - 1] = i + 1;
		else
			kb->by_name[b] = i + 1;
		tail[b] = i + 1;
	}
	free(tail);
	return 0;
}

static int find_in_vmlinux(struct kbtf *kb, const char *name, size_t len, struct kbtf_func *out,
			   int max)
{
	__u32 id;
	int n = 0;

	if (!kb->by_name && (kb->nr_scans < KBTF_SCANS_BEFORE_INDEX || build_index(kb))) {
		kb->nr_scans++;
		return scan_btf(kb->vmlinux, 1, name, len, NULL, out, 0, max);
	}
	id = kb->by_name[hash_key(name, len) & (kb->nr_buckets - 1)];
	for (; id && n < max; id = kb->next[id - 1]) {
		const char *tn = func_name(kb->vmlinux, id - 1);

		if (strncmp(tn, name, len) || tn[len])
			continue;
		out[n].btf = kb->vmlinux;
		out[n].id = id - 1;
		out[n].module = NULL;
		n++;
	}
	return n;
}

static int find_in_modules(struct kbtf *kb, const char *mod, const char *name, size_t len,
			   struct kbtf_func *out, int max)
{
	__u32 first = btf__type_cnt(kb->vmlinux);
	int i, n = 0;

	load_modules(kb, mod);
	for (i = 0; i < kb->nr_mods && n < max; i++) {
		if (mod && strcmp(mod, kb->mods[i].name))
			continue;
		if (!kb->mods[i].btf)
			return -EBADMSG;
		n = scan_btf(kb->mods[i].btf, first, name, len, kb->mods[i].name, out, n, max);
	}
	return n;
}

int kbtf__find_funcs(struct kbtf *kb, const char *name, struct kbtf_func *out, int max)
{
	const char *colon = strchr(name, ':');
	char mod[64];
	size_t len;
	int n;

	if (colon) {
		if ((size_t)(colon - name) >= sizeof(mod) || colon == name)
			return -EINVAL;
		memcpy(mod, name, colon - name);
		mod[colon - name] = '\0';
		name = colon + 1;
		len = kbtf_base_name_len(name);
		if (!len)
			return -EINVAL;
		if (!strcmp(mod, "vmlinux"))
			return find_in_vmlinux(kb, name, len, out, max);
		return find_in_modules(kb, mod, name, len, out, max);
	}
	len = kbtf_base_name_len(name);
	if (!len)
		return -EINVAL;
	n = find_in_vmlinux(kb, name, len, out, max);
	if (n == 0)
		n = find_in_modules(kb, NULL, name, len, out, max);
	return n;
}

const char *kbtf__suggest(struct kbtf *kb, const char *name)
{
	const struct btf *btf = kb->vmlinux;
	__u32 i, cnt = btf__type_cnt(btf);
	const char *best = NULL;
	int best_d = suggest_max_distance(name) + 1;

	for (i = 1; i < cnt; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *tn;
		int d;

		if (!btf_is_func(t))
			continue;
		tn = btf__name_by_offset(btf, t->name_off);
		d = edit_distance(name, tn, best_d - 1);
		if (d < best_d) {
			best_d = d;
			best = tn;
		}
	}
	return best;
}

/*
 * A btf_dump walks every type when it is created (~1 ms on vmlinux), so a
 * prototype uses one for all its parts: it prints to *ctx, which is
 * pointed at each buffer in turn.
 */
static void __attribute__((format(printf, 2, 0)))
sb_dump_printf(void *ctx, const char *fmt, va_list args)
{
	sb_vprintf(*(struct strbuf **)ctx, fmt, args);
}

static int emit_decl(struct btf_dump *d, __u32 type_id, const char *name, struct strbuf *out)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name ? name : "");
	int err;

	err = btf_dump__emit_type_decl(d, type_id, &opts);
	return err ? err : (out->oom ? -ENOMEM : 0);
}

int kbtf_format_decl(const struct btf *btf, __u32 type_id, const char *name, struct strbuf *out)
{
	struct strbuf *cur = out;
	struct btf_dump *d;
	int err;

	d = btf_dump__new(btf, sb_dump_printf, &cur, NULL);
	if (!d)
		return -errno;
	err = emit_decl(d, type_id, name, out);
	btf_dump__free(d);
	return err;
}

int kbtf_func_params(const struct btf *btf, __u32 func_id, const struct btf_param **params,
		     bool *variadic)
{
	const struct btf_type *fn = btf__type_by_id(btf, func_id);
	const struct btf_type *proto;
	int vlen;

	if (!fn || !btf_is_func(fn))
		return -EINVAL;
	proto = btf__type_by_id(btf, fn->type);
	if (!proto || !btf_is_func_proto(proto))
		return -EINVAL;
	vlen = btf_vlen(proto);
	*params = btf_params(proto);
	/* A variadic prototype ends in a nameless parameter of type void. */
	*variadic = vlen > 0 && (*params)[vlen - 1].type == 0;
	return *variadic ? vlen - 1 : vlen;
}

/* btf_dump spells anonymous struct types over several lines; keep one. */
static void flatten(struct strbuf *sb, size_t from)
{
	char *r, *w;

	if (!sb->buf || sb->oom)
		return;
	for (r = w = sb->buf + from; *r; r++) {
		if (*r == '\n') {
			*w++ = ' ';
			while (r[1] == '\t')
				r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	sb->len = w - sb->buf;
}

int kbtf_format_proto(const struct btf *btf, __u32 func_id, const char *name, struct strbuf *out)
{
	return kbtf_format_proto_from(btf, func_id, name, 0, out);
}

int kbtf_format_proto_from(const struct btf *btf, __u32 func_id, const char *name, int first,
			   struct strbuf *out)
{
	size_t start = out->len;
	const struct btf_type *fn = btf__type_by_id(btf, func_id);
	const struct btf_param *params;
	struct strbuf decl, *cur = &decl;
	struct btf_dump *d;
	bool variadic;
	int i, n, err = 0;

	n = kbtf_func_params(btf, func_id, &params, &variadic);
	if (n < 0)
		return n;
	if (!name)
		name = btf__name_by_offset(btf, fn->name_off);
	d = btf_dump__new(btf, sb_dump_printf, &cur, NULL);
	if (!d)
		return -errno;
	/*
	 * The whole "name(params)" goes in as the declarator, so return types
	 * such as function pointers come out as valid C.
	 */
	sb_init(&decl);
	sb_printf(&decl, "%s(", name);
	for (i = first; i < n; i++) {
		const char *pn = btf__name_by_offset(btf, params[i].name_off);

		if (i > first)
			sb_printf(&decl, ", ");
		err = emit_decl(d, params[i].type, pn, &decl);
		if (err)
			goto out;
	}
	if (variadic)
		sb_printf(&decl, n > first ? ", ..." : "...");
	else if (n <= first)
		sb_printf(&decl, "void");
	sb_putc(&decl, ')');
	err = decl.oom ? -ENOMEM : 0;
	if (!err) {
		const struct btf_type *proto = btf__type_by_id(btf, fn->type);

		cur = out;
		err = emit_decl(d, proto->type, sb_str(&decl), out);
		flatten(out, start);
	}
out:
	btf_dump__free(d);
	sb_free(&decl);
	return err;
}

void kbtf__report_unknown(struct kbtf *kb, const char *name)
{
	const char *guess = strchr(name, ':') ? NULL : kbtf__suggest(kb, name);
	char clip[CLIP_BUF];

	if (guess)
		p_err("function '%s' not found in kernel BTF; did you mean '%s'?",
		      str_clip(name, clip), guess);
	else
		p_err("function '%s' not found in kernel BTF", str_clip(name, clip));
}

__u32 btf_skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int n;

	/* Checked BTF has no loops (btfcheck.h); stay bounded even so. */
	for (n = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); n++) {
		if (n == KBTF_MAX_TYPE_DEPTH)
			return 0;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

/* Why libbpf could not read a --btf file, in words. */
static const char *btf_file_error(int err, char *buf, size_t size)
{
	switch (err) {
	case -ENOENT:
		return "it is an ELF file without a .BTF section";
	case -EIO:
	case -EPROTO:
	case -LIBBPF_ERRNO__FORMAT:
		return "it is neither raw BTF nor an ELF file with a .BTF section";
	case -EINVAL:
		return "its BTF is corrupt";
	default:
		libbpf_strerror(err, buf, size);
		return buf;
	}
}

struct kbtf *kbtf__open(const char *btf_path)
{
	char clip[CLIP_BUF], why[128];
	struct kbtf *kb;
	struct stat st;
	int err = 0;

	if (btf_path) {
		/* A FIFO would block in open(); libbpf needs a seekable file. */
		if (stat(btf_path, &st)) {
			p_err("cannot read BTF from '%s': %s", str_clip(btf_path, clip),
			      strerror(errno));
			return NULL;
		}
		if (!S_ISREG(st.st_mode)) {
			p_err("cannot read BTF from '%s': not a regular file",
			      str_clip(btf_path, clip));
			return NULL;
		}
	}
	kb = kbtf__new(btf_path, &err);
	if (kb || err == -EBADMSG) /* damaged BTF: already reported */
		return kb;
	if (err_resource(err))
		p_err("cannot read BTF from '%s': %s",
		      btf_path ? str_clip(btf_path, clip) : "/sys/kernel/btf/vmlinux",
		      err_resource(err));
	else if (btf_path)
		p_err("cannot read BTF from '%s': %s", str_clip(btf_path, clip),
		      btf_file_error(err, why, sizeof(why)));
	else
		p_err("kernel BTF is not available at /sys/kernel/btf/vmlinux (%s); "
		      "a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed, or use --btf FILE",
		      strerror(-err));
	return NULL;
}

__u32 btf_ptr_to(const struct btf *btf, __u32 id)
{
	__u32 i, n = btf__type_cnt(btf);

	for (i = 1; id && i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_ptr(t) && t->type == id)
			return i;
	}
	return 0;
}
