// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bpfutil.h"
#include "lib/ktp.h"
#include "lib/util.h"
#include "ktr/systab.h"
#include "trace/ctype.h"
#include "trace/tpoint.h"

#define TP_PREFIX "tp:"
#define RAWTP_PREFIX "rawtp:"
#define TYPEDEF_PREFIX "btf_trace_"
#define TP_NAME_MAX KTP_NAME_MAX
#define SYS_ENTER_PREFIX "sys_enter_"
#define SYS_EXIT_PREFIX "sys_exit_"
#define FIELD_MAX KTP_FIELD_MAX

bool tpoint_is(const char *func)
{
	return !strncmp(func, TP_PREFIX, strlen(TP_PREFIX)) ||
	       !strncmp(func, RAWTP_PREFIX, strlen(RAWTP_PREFIX));
}

struct tp_name {
	char cat[TP_NAME_MAX]; /* "" for rawtp: */
	char event[TP_NAME_MAX];
};

/* "tp:sched:sched_switch" or "rawtp:sched_switch" into n; errors said. */
static int split_name(const char *func, struct tp_name *n)
{
	const char *rest, *colon;

	memset(n, 0, sizeof(*n));
	if (!strncmp(func, RAWTP_PREFIX, strlen(RAWTP_PREFIX))) {
		rest = func + strlen(RAWTP_PREFIX);
		colon = NULL;
	} else {
		rest = func + strlen(TP_PREFIX);
		colon = strchr(rest, ':');
		if (!colon || colon == rest) {
			p_err("'%s': a tracepoint is tp:CATEGORY:EVENT (tp:sched:sched_switch), "
			      "or rawtp:EVENT",
			      func);
			return -EINVAL;
		}
		if ((size_t)(colon - rest) >= sizeof(n->cat))
			goto too_long;
		memcpy(n->cat, rest, colon - rest);
		rest = colon + 1;
	}
	if (!*rest || strchr(rest, ':')) {
		p_err("'%s': which event? a tracepoint is tp:CATEGORY:EVENT or rawtp:EVENT", func);
		return -EINVAL;
	}
	/* names, not paths: they become tracefs paths */
	if (strchr(n->cat, '/') || strchr(rest, '/') || n->cat[0] == '.' || rest[0] == '.') {
		p_err("'%s': a tracepoint's category and event are names, not paths", func);
		return -EINVAL;
	}
	if (strlen(rest) >= sizeof(n->event))
		goto too_long;
	strcpy(n->event, rest);
	return 0;
too_long:
	p_err("'%s': a tracepoint's category and event are shorter than %d characters", func,
	      TP_NAME_MAX);
	return -ENAMETOOLONG;
}

/* Whether tracefs has events/CAT/EVENT; -1 when there is no tracefs to ask. */
static int event_in_tracefs(const char *tracefs, const char *cat, const char *event)
{
	char path[PATH_MAX];

	if (!tracefs)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs, cat, event);
	return access(path, F_OK) == 0;
}

/* The category tracefs lists event under, into cat; false when none does. */
static bool category_of(const char *tracefs, const char *event, char *cat, size_t size)
{
	struct dirent *d;
	bool found = false;
	DIR *dir;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events", tracefs);
	dir = opendir(path);
	while (dir && !found && (d = readdir(dir))) {
		size_t len = strlen(d->d_name);

		if (d->d_name[0] == '.' || len >= size ||
		    event_in_tracefs(tracefs, d->d_name, event) != 1)
			continue;
		memcpy(cat, d->d_name, len + 1);
		found = true;
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Where the name is wrong, one line that says how; -ENOENT. */
static int report_unknown(const char *func, const struct tp_name *n, bool has_stub)
{
	const char *tracefs = bpfutil_tracefs();
	char cat[TP_NAME_MAX];

	if (has_stub && tracefs && category_of(tracefs, n->event, cat, sizeof(cat)))
		p_err("%s: %s is an event of category '%s': tp:%s:%s", func, n->event, cat, cat,
		      n->event);
	else if (has_stub)
		p_err("%s: the tracepoint %s has no trace event in tracefs: rawtp:%s attaches to it",
		      func, n->event, n->event);
	else if (n->cat[0] && event_in_tracefs(tracefs, n->cat, n->event) == 1)
		p_err("%s: tracefs has this event, but the kernel has no tracepoint of its name "
		      "(a kprobe, uprobe or synthetic event?)",
		      func);
	else
		p_err("%s: no tracepoint '%s' in the kernel's BTF", func, n->event);
	return -ENOENT;
}

/*
 * Where BTF has the tracepoint's typedef but no stub (Debian's 5.10: its
 * pahole left static functions out), a function of the typedef's types,
 * the arguments named arg0..argN as a user function's are without DWARF,
 * in BTF split on vmlinux's: plan->func and plan->own_btf. 0, -ENOENT when
 * there is no typedef either, or -ENOMEM.
 */
static int typedef_func(struct kbtf *kb, const char *event, struct func_plan *plan)
{
	struct btf *vm = kbtf__vmlinux(kb), *btf;
	__u32 ptr = ktp_typedef_proto(vm, event), types[KSNOOP_MAX_ARGS + 1];
	char name[sizeof(TYPEDEF_PREFIX) + TP_NAME_MAX];
	const struct btf_type *proto;
	int i, n, id, err = 0;

	if (!ptr)
		return -ENOENT;
	/* Copied first: adding to a split BTF makes its base's types move. */
	proto = btf__type_by_id(vm, btf__type_by_id(vm, ptr)->type);
	n = min(btf_vlen(proto), (int)ARRAY_SIZE(types));
	for (i = 0; i < n; i++)
		types[i] = btf_params(proto)[i].type;
	btf = btf__new_empty_split(vm);
	id = btf ? btf__add_func_proto(btf, 0) : -ENOMEM;
	for (i = 0; id > 0 && !err && i < n; i++) {
		if (i)
			snprintf(name, sizeof(name), "arg%d", i - 1);
		err = btf__add_func_param(btf, i ? name : "__data", types[i]);
	}
	snprintf(name, sizeof(name), TYPEDEF_PREFIX "%s", event);
	id = id > 0 && !err ? btf__add_func(btf, name, BTF_FUNC_GLOBAL, id) : -ENOMEM;
	if (id < 0) {
		btf__free(btf);
		return -ENOMEM;
	}
	plan->own_btf = btf;
	plan->func = (struct kbtf_func){ .btf = btf, .id = id };
	return 0;
}

/* A system call's argument or return value, as its event's format has it. */
struct sys_field {
	char type[FIELD_MAX], name[FIELD_MAX];
};

/* The event's fields past __syscall_nr, from its tracefs format; how many, or -errno. */
static int format_fields(const char *tracefs, const char *event, struct sys_field *f, int max)
{
	struct ktp_field all[KTP_MAX_FIELDS];
	int n = ktp_read_format(tracefs, "syscalls", event, all, KTP_MAX_FIELDS), i, k = 0;
	bool past_nr = false;

	for (i = 0; i < n && k < max; i++) {
		if (past_nr) {
			snprintf(f[k].type, sizeof(f[k].type), "%s", all[i].type);
			snprintf(f[k].name, sizeof(f[k].name), "%s", all[i].name);
			k++;
		}
		past_nr = past_nr || !strcmp(all[i].name, "__syscall_nr");
	}
	return n < 0 ? n : k;
}

/* Without tracefs, the prototypes ksnoop was built with (ktrace's table). */
static int table_fields(int nr, bool exit, struct sys_field *f, int max)
{
	const struct ktr_sysent *e = ktr_sys_lookup(nr);
	int i, n = e && e->nargs > 0 ? e->nargs : 0;

	if (exit) {
		snprintf(f[0].type, sizeof(f[0].type), "long");
		snprintf(f[0].name, sizeof(f[0].name), "ret");
		return 1;
	}
	for (i = 0; i < n && i < max; i++) {
		snprintf(f[i].type, sizeof(f[i].type), "%s", e->args[i].type);
		snprintf(f[i].name, sizeof(f[i].name), "%s", e->args[i].name);
	}
	return i;
}

/*
 * A field's type in btf: its C words without the qualifiers that may
 * follow a star ("const char *const *"); where BTF lacks the type, a
 * pointer stays a pointer (void *) and anything else a long.
 */
static bool is_qualifier(const char *w, size_t len)
{
	static const char *const quals[] = { "const", "volatile", "__user", "restrict" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(quals); i++) {
		if (strlen(quals[i]) == len && !strncmp(w, quals[i], len))
			return true;
	}
	return false;
}

static int field_type(struct btf *btf, const char *type)
{
	char words[FIELD_MAX];
	const char *p = type;
	struct ctype t;
	size_t len = 0;
	int id;

	while (*p && len + 1 < sizeof(words)) {
		size_t w = strspn(
			p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (w && is_qualifier(p, w)) {
			p += w;
			continue;
		}
		w = w ?: 1;
		if (len + w + 1 >= sizeof(words))
			return -ENAMETOOLONG;
		memcpy(words + len, p, w);
		len += w;
		p += w;
	}
	words[len] = '\0';
	id = ctype_read(btf, words, &t);
	if (id < 0 || (id == 0 && !t.stars)) {
		id = btf__find_by_name_kind(btf, "long int", BTF_KIND_INT);
		return t.stars ? ctype_add_ptrs(btf, 0, 1) : id;
	}
	return ctype_add_ptrs(btf, id, t.stars);
}

/*
 * syscalls' events have no tracepoint of their own: raw_syscalls'
 * sys_enter and sys_exit fire for every call, and the event is one call's
 * number. The plan's prototype is the call's, as its format (else ksnoop's
 * table) declares it, in BTF split on vmlinux's; BPF keeps the call's
 * number and reads its arguments from the registers.
 */
static int syscall_plan(struct kbtf *kb, const struct spec *spec, const char *event,
			struct func_plan *plan)
{
	bool exit = !strncmp(event, SYS_EXIT_PREFIX, strlen(SYS_EXIT_PREFIX));
	const char *call = event + strlen(exit ? SYS_EXIT_PREFIX : SYS_ENTER_PREFIX);
	const char *tracefs = bpfutil_tracefs();
	struct sys_field f[KTR_SYSCALL_ARGS];
	int nr = ktr_sys_by_name(call), n, i, id, err = 0, types[KTR_SYSCALL_ARGS + 1];
	struct btf *btf;

	if (nr < 0) {
		p_err("%s: this machine's system calls have none named '%s'", spec->func, call);
		return -ENOENT;
	}
	n = tracefs ? format_fields(tracefs, event, f, ARRAY_SIZE(f))
		    : table_fields(nr, exit, f, ARRAY_SIZE(f));
	if (n < 0) {
		p_err("%s: tracefs has no such event (%s): this kernel may trace no system "
		      "calls (CONFIG_FTRACE_SYSCALLS)",
		      spec->func, strerror(-n));
		return n;
	}
	btf = btf__new_empty_split(kbtf__vmlinux(kb));
	plan->own_btf = btf;
	/* the types first: a prototype's parameters follow it in BTF */
	types[0] = btf ? ctype_add_ptrs(btf, 0, 1) : -ENOMEM;
	for (i = 0; i < n && types[i] >= 0; i++)
		types[i + 1] = field_type(btf, f[i].type);
	id = types[i] >= 0 ? btf__add_func_proto(btf, 0) : -ENOMEM;
	for (i = 0; id > 0 && !err && i <= n; i++)
		err = btf__add_func_param(btf, i ? f[i - 1].name : "__data", types[i]);
	id = id > 0 && !err ? btf__add_func(btf, event, BTF_FUNC_GLOBAL, id) : -ENOMEM;
	if (id < 0)
		return p_err_nomem(spec->func);
	plan->func = (struct kbtf_func){ .btf = btf, .id = id };
	plan->tp.syscall = exit ? KSNOOP_TP_SYS_EXIT : KSNOOP_TP_SYS_ENTER;
	plan->tp.syscall_nr = nr;
	return 0;
}

/* "tp:syscalls:sys_enter_openat": an event of syscalls' own. */
static bool is_syscall_event(const struct tp_name *n)
{
	return !strcmp(n->cat, "syscalls") &&
	       (!strncmp(n->event, SYS_ENTER_PREFIX, strlen(SYS_ENTER_PREFIX)) ||
		!strncmp(n->event, SYS_EXIT_PREFIX, strlen(SYS_EXIT_PREFIX)));
}

/* The raw tracepoint plan attaches to. */
static int set_attach(const struct spec *spec, const char *raw, struct func_plan *plan)
{
	free(plan->attach_name);
	plan->attach_name = strdup(raw);
	if (!plan->attach_name)
		return p_err_nomem(spec->func);
	plan->target = SPEC_TRACEPOINT;
	return 0;
}

int tpoint_plan(struct kbtf *kb, const struct spec *spec, struct func_plan *plan)
{
	struct kbtf_func stub;
	struct tp_name n;
	int found, err;

	err = split_name(spec->func, &n);
	if (err)
		return err;
	if (is_syscall_event(&n)) {
		err = syscall_plan(kb, spec, n.event, plan);
		if (err)
			return err;
		return set_attach(spec,
				  plan->tp.syscall == KSNOOP_TP_SYS_EXIT ? "sys_exit" : "sys_enter",
				  plan);
	}
	found = ktp_find_stub(kb, n.event, &stub);
	if (found == -EBADMSG)
		return found;
	if (found > 0) {
		plan->func = stub;
	} else if (found == 0) {
		err = typedef_func(kb, n.event, plan);
		if (err == -ENOMEM)
			return p_err_nomem(spec->func);
		found = !err;
	}
	if (found <= 0 || (n.cat[0] && !event_in_tracefs(bpfutil_tracefs(), n.cat, n.event)))
		return report_unknown(spec->func, &n, found > 0);
	return set_attach(spec, n.event, plan);
}

/* Adds "tp:CAT:EVENT" to names (n of them, max at most); -E2BIG past max. */
static int push_name(char **names, int *n, int max, const char *cat, const char *event)
{
	if (*n >= max)
		return -E2BIG;
	if (cat ? asprintf(&names[*n], TP_PREFIX "%s:%s", cat, event) < 0
		: asprintf(&names[*n], RAWTP_PREFIX "%s", event) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Whether e, in events/cat, is an event's folder (not "enable" or "filter"). */
static bool is_event_dir(const char *tracefs, const char *cat, const struct dirent *e)
{
	char path[PATH_MAX];

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, cat, e->d_name);
	return access(path, F_OK) == 0;
}

/* The events of each category tracefs has that the pattern's globs match. */
static int expand_tracefs(const char *tracefs, const struct tp_name *pat, char **names, int max)
{
	char path[PATH_MAX];
	struct dirent *c, *e;
	DIR *cats, *events;
	int n = 0, err = 0;

	snprintf(path, sizeof(path), "%s/events", tracefs);
	cats = opendir(path);
	if (!cats)
		return -errno;
	while (!err && (c = readdir(cats))) {
		if (c->d_name[0] == '.' || fnmatch(pat->cat, c->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tracefs, c->d_name);
		events = opendir(path);
		while (!err && events && (e = readdir(events))) {
			if (e->d_name[0] != '.' && !fnmatch(pat->event, e->d_name, 0) &&
			    is_event_dir(tracefs, c->d_name, e))
				err = push_name(names, &n, max, c->d_name, e->d_name);
		}
		if (events)
			closedir(events);
	}
	closedir(cats);
	return err ?: n;
}

/* rawtp: every tracepoint of vmlinux's BTF (its btf_trace_ typedef) whose event the glob matches. */
static int expand_btf(const struct btf *btf, const char *glob, char **names, int max)
{
	size_t plen = strlen(TYPEDEF_PREFIX);
	__u32 id, nr = btf__type_cnt(btf);
	int n = 0, err = 0;

	for (id = 1; id < nr && !err; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_kind(t) == BTF_KIND_TYPEDEF && name &&
		    !strncmp(name, TYPEDEF_PREFIX, plen) && !fnmatch(glob, name + plen, 0))
			err = push_name(names, &n, max, NULL, name + plen);
	}
	return err ?: n;
}

int tpoint_expand(struct kbtf *kb, const char *pattern, int max, char ***names)
{
	const char *tracefs = bpfutil_tracefs();
	struct tp_name pat;
	int n;

	*names = NULL;
	n = split_name(pattern, &pat);
	if (n)
		return n;
	if (pat.cat[0] && !tracefs) {
		p_err("'%s': categories are tracefs' and it is not mounted "
		      "(mount -t tracefs nodev /sys/kernel/tracing); rawtp:%s needs none",
		      pattern, pat.event);
		return -ENOENT;
	}
	*names = calloc(max, sizeof(**names));
	if (!*names)
		return p_err_nomem(pattern);
	n = pat.cat[0] ? expand_tracefs(tracefs, &pat, *names, max)
		       : expand_btf(kbtf__vmlinux(kb), pat.event, *names, max);
	if (n == -E2BIG)
		p_err("'%s' matches more than %d tracepoints; narrow the pattern", pattern, max);
	else if (n < 0)
		p_err("'%s': cannot list the tracepoints: %s", pattern, strerror(-n));
	if (n < 0) {
		strs_free(*names, max);
		*names = NULL;
	}
	return n;
}
