// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/archinfo.h"
#include "lib/udwarf.h"
#include "lib/usym.h"
#include "lib/util.h"
#include "trace/ctype.h"
#include "trace/ufunc.h"

#define MODULE_NAME_MAX 64 /* MODULE_NAME_LEN, with room */

/* Whether a library goes by the name (its first len bytes): "c", "ssl", "libssl.so.3". */
static bool library_exists(const char *name, size_t len)
{
	char target[MODULE_NAME_MAX], path[PATH_MAX];
	int err;

	if (len >= sizeof(target))
		return true; /* no module's: the resolver says what is wrong with it */
	memcpy(target, name, len);
	target[len] = '\0';
	util_mute(true);
	err = usym_resolve(target, 0, path, sizeof(path));
	util_mute(false);
	return !err;
}

bool ufunc_module_loaded(const char *func)
{
	const char *colon = strchr(func, ':');
	char path[sizeof("/sys/module/") + MODULE_NAME_MAX];
	size_t len, i;

	len = colon ? (size_t)(colon - func) : 0;
	if (!len || len >= MODULE_NAME_MAX)
		return false;
	/* every module loaded is there, and built-in ones with parameters */
	memcpy(path, "/sys/module/", 12);
	for (i = 0; i < len; i++)
		path[12 + i] = func[i] == '-' ? '_' : func[i];
	path[12 + len] = '\0';
	return access(path, F_OK) == 0;
}

bool ufunc_is_user(const char *func)
{
	const char *colon = strrchr(func, ':');

	if (strchr(func, '/'))
		return true;
	/* neither a module nor a library: the kernel's BTF is searched, and its error names both */
	return colon && colon > func && !ufunc_module_loaded(func) &&
	       library_exists(func, colon - func);
}

/* decl's type ("const char *") in btf, adding the pointers it takes; -errno. */
static int decl_type(struct btf *btf, const char *fname, const char *decl, const char *name)
{
	/* as written: "char *name", "size_t size" */
	const char *sep = decl[0] && decl[strlen(decl) - 1] == '*' ? "" : " ";
	struct ctype t;
	int id;

	id = ctype_read(btf, decl, &t);
	if (id == -EINVAL)
		p_err("%s: '%s%s%s': not a type ksnoop reads; write it as 'type *name'", fname,
		      decl, sep, name);
	else if (id == -EOPNOTSUPP)
		p_err("%s: '%s%s%s': floating point values are not supported", fname, decl, sep,
		      name);
	else if (id == 0 && !t.stars)
		p_err("%s: '%s%s%s': a value cannot be void ('void *' is a pointer)", fname, decl,
		      sep, name);
	else if (id < 0)
		p_err("%s: '%s%s%s': the kernel's BTF has no type '%s' (types come from it: int, "
		      "char *, size_t, void *, struct sockaddr *...)",
		      fname, decl, sep, name, t.name[0] ? t.name : decl);
	if (id == -EINVAL || id == -EOPNOTSUPP || (id == 0 && !t.stars))
		return -EINVAL;
	if (id < 0)
		return -ENOENT;
	return ctype_add_ptrs(btf, id, t.stars);
}

struct proto {
	const char *names[KSNOOP_MAX_ARGS];
	int types[KSNOOP_MAX_ARGS];
	int nr;
	int ret;
};

/* The declarations of spec, in order; "return" declares the return type. */
static int declared(struct btf *btf, const struct spec *spec, const char *fname, struct proto *p)
{
	int i, id;

	for (i = 0; i < spec->nr_items; i++) {
		const struct spec_item *it = &spec->items[i];

		if (!it->decl)
			continue;
		id = decl_type(btf, fname, it->decl, it->path.base);
		if (id < 0)
			return id;
		if (spec_path_is_return(&it->path)) {
			p->ret = id;
			continue;
		}
		if (p->nr >= KSNOOP_MAX_ARGS) {
			p_err("%s: more than %d parameters declared", fname, KSNOOP_MAX_ARGS);
			return -E2BIG;
		}
		p->names[p->nr] = it->path.base;
		p->types[p->nr++] = id;
	}
	return 0;
}

/*
 * What a spec does not declare: arg0.. up to the registers' arguments, as
 * long; without an argument list, none. Returns long's id, or -errno.
 */
static int undeclared(struct btf *btf, const struct spec *spec, struct proto *p)
{
	static const char *const arg_names[] = { "arg0", "arg1", "arg2", "arg3",
						 "arg4", "arg5", "arg6", "arg7" };
	int id = btf__find_by_name_kind(btf, "long int", BTF_KIND_INT);
	int i;

	if (id < 0)
		return id;
	if (p->ret < 0)
		p->ret = id;
	for (i = p->nr; spec->has_list && i < arch_native()->nr_reg_args && i < 8; i++) {
		p->names[p->nr] = arg_names[i];
		p->types[p->nr++] = id;
	}
	return 0;
}

/* Whether spec declares a parameter or the return type: then declarations make the prototype. */
static bool declares(const struct spec *spec)
{
	int i;

	for (i = 0; i < spec->nr_items; i++) {
		if (spec->items[i].decl)
			return true;
	}
	return false;
}

/* The prototype from spec's declarations, arg0.. for the rest: its id, or -errno. */
static int spec_proto(struct btf *btf, const struct spec *spec)
{
	struct proto p = { .ret = -1 };
	int err, id, i;

	err = declared(btf, spec, spec->func, &p) ?: undeclared(btf, spec, &p);
	if (err)
		return err;
	id = btf__add_func_proto(btf, p.ret);
	for (i = 0; i < p.nr && id >= 0; i++)
		err = btf__add_func_param(btf, p.names[i], p.types[i]);
	if (id < 0 || err)
		return p_err_nomem(spec->func);
	return id;
}

/*
 * Without declarations, the function's DWARF (its file's or its debug
 * file's) names and types its parameters when there is one; else arg0..
 */
static int build_proto(struct kbtf *kb, const struct spec *spec, const char *path,
		       const struct usym *us, const char *sym, struct func_plan *plan)
{
	struct btf *btf = btf__new_empty_split(kbtf__vmlinux(kb));
	__u32 proto;
	int id;

	if (!btf)
		return p_err_nomem(spec->func);
	plan->own_btf = btf;
	id = declares(spec) ? -ENOENT
			    : udwarf_add_proto(btf, path, us->addr, spec->func, &proto) ?: (int)proto;
	if (id == -ENOENT)
		id = spec_proto(btf, spec);
	if (id < 0)
		return id;
	id = btf__add_func(btf, sym, BTF_FUNC_GLOBAL, id);
	if (id < 0)
		return p_err_nomem(spec->func);
	plan->func = (struct kbtf_func){ .btf = btf, .id = id };
	return 0;
}

/* "c:malloc" -> "c" and "malloc"; a path's last ':' ends it. */
static int split_target(const char *func, char *target, size_t size, const char **sym)
{
	const char *colon = strrchr(func, ':');

	if (!colon || !colon[1]) {
		p_err("'%s': which function? a user function is TARGET:FUNC, "
		      "such as c:malloc or /usr/bin/bash:readline",
		      func);
		return -EINVAL;
	}
	if ((size_t)(colon - func) >= size) {
		p_err("'%s': the target is longer than %zu characters", func, size - 1);
		return -ENAMETOOLONG;
	}
	memcpy(target, func, colon - func);
	target[colon - func] = '\0';
	*sym = colon + 1;
	return 0;
}

int ufunc_plan(struct kbtf *kb, const struct spec *spec, int pid, struct func_plan *plan)
{
	char target[PATH_MAX], lib[PATH_MAX], path[PATH_MAX];
	struct usym us;
	const char *sym;
	int n;

	n = split_target(spec->func, target, sizeof(target), &sym)
		    ?: usym_resolve(target, pid, lib, sizeof(lib));
	if (n)
		return n;
	n = usym_find_linked(lib, sym, &us, 1, path, sizeof(path));
	if (n < 0)
		return n;
	if (strcmp(lib, path))
		p_warn("%s: %s has no %s of its own: traced in %s, which it links against, "
		       "where programs that use it find it",
		       spec->func, lib, sym, path);
	if (us.ifunc) {
		p_err("%s: %s's %s is an IFUNC resolver, run once when the program loads: "
		      "trace the implementation it chose instead",
		      spec->func, path, sym);
		return -EINVAL;
	}
	plan->user.path = strdup(path);
	if (!plan->user.path)
		return p_err_nomem(spec->func);
	plan->user.offset = us.offset;
	return build_proto(kb, spec, path, &us, sym, plan);
}

int ufunc_expand(const char *pattern, int pid, int max, char ***names)
{
	char target[PATH_MAX], path[PATH_MAX];
	struct usym *syms;
	const char *sym;
	int n, i, err;

	*names = NULL;
	err = split_target(pattern, target, sizeof(target), &sym)
		      ?: usym_resolve(target, pid, path, sizeof(path));
	if (err)
		return err;
	syms = calloc(max, sizeof(*syms));
	*names = calloc(max, sizeof(**names));
	if (!syms || !*names) {
		free(syms);
		return p_err_nomem(pattern);
	}
	n = usym_find(path, sym, syms, max);
	if (n > max) {
		p_err("'%s' matches %d functions, more than %d; narrow the pattern", pattern, n,
		      max);
		n = -E2BIG;
	}
	for (i = 0; i < n; i++) {
		if (asprintf(&(*names)[i], "%s:%s", target, syms[i].name) < 0) {
			n = p_err_nomem(pattern);
			break;
		}
	}
	free(syms);
	if (n < 0)
		strs_free(*names, max);
	return n;
}
