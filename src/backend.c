// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "bpfutil.h"
#include "util.h"
#include "ksnoop.skel.h"

/*
 * The owner object holds the maps, the kprobe programs (one program
 * serves every kprobe-traced function; the attach cookie names the
 * function) and the task-exit cleanup. fentry needs one program per
 * target, so each fentry-traced function gets its own small instance.
 */
struct func_state {
	struct ksnoop_bpf *fentry; /* per-function instance, fentry only */
	struct bpf_link *entry, *ret;
	enum backend_kind kind;
	bool attached;
};

struct tracer {
	const struct env *env;
	struct func_plan *plans;
	int nr;
	struct func_state *fs;
	struct ksnoop_bpf *owner;
	int kprobe_load_err;	/* why the owner has no kprobe programs */
	bool has_multi;		/* kprobe.multi programs loaded */
	struct bpf_link *multi_entry, *multi_ret;
	struct bpf_link *exit_link;
	int nr_cpus;
};

#define RINGBUF_MIN (64UL << 20)
#define RINGBUF_MAX (1UL << 30)

const char *backend_name(enum backend_kind k)
{
	static const char *const names[BK_NR] = { "fentry", "kprobe", "kprobe.multi" };

	return k < BK_NR ? names[k] : "?";
}

unsigned long ringbuf_size(int pages_per_cpu, int nr_cpus)
{
	unsigned long want = (unsigned long)pages_per_cpu * nr_cpus * getpagesize();
	unsigned long size = getpagesize();

	/*
	 * The default must absorb a 100,000-call burst, so it never goes
	 * below RINGBUF_MIN; -P raises it. The kernel wants a power of two.
	 */
	if (pages_per_cpu == KSNOOP_DEFAULT_PAGES && want < RINGBUF_MIN)
		want = RINGBUF_MIN;
	while (size < want && size < RINGBUF_MAX)
		size <<= 1;
	return size;
}

static void set_rodata(const struct tracer *t, struct ksnoop_bpf *skel, int func)
{
	skel->rodata->func_id = func;
	skel->rodata->filter_tgid = t->env->nr_pids > 0;
	skel->rodata->filter_cpu = t->env->cpu;
	skel->rodata->filter_cgroup = t->env->cgroup != NULL;
	skel->rodata->chain_mode = t->env->stack_mode;
	skel->rodata->min_duration_ns = t->env->min_duration_ns;
}

static void autoload_only(struct ksnoop_bpf *skel, struct bpf_program *keep1,
			  struct bpf_program *keep2)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == keep1 || p == keep2);
}

static bool needs_exit_cleanup(const struct tracer *t)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (t->plans[i].cfg.emit & KSNOOP_EMIT_COMBINED)
			return true;
	}
	return false;
}

static bool wants_multi(const struct tracer *t)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (t->plans[i].from_glob)
			return t->env->backend != BACKEND_FENTRY;
	}
	return false;
}

enum owner_progs { OWN_KPROBE = 1, OWN_MULTI = 2 };

static struct ksnoop_bpf *open_owner(struct tracer *t, int progs, int *err)
{
	struct ksnoop_bpf *skel = ksnoop_bpf__open();
	struct bpf_program *p;

	if (!skel) {
		*err = -errno;
		return NULL;
	}
	set_rodata(t, skel, 0);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(skel->progs.ksnoop_kprobe, progs & OWN_KPROBE);
	bpf_program__set_autoload(skel->progs.ksnoop_kretprobe, progs & OWN_KPROBE);
	bpf_program__set_autoload(skel->progs.ksnoop_kmulti, progs & OWN_MULTI);
	bpf_program__set_autoload(skel->progs.ksnoop_kretmulti, progs & OWN_MULTI);
	bpf_program__set_autoload(skel->progs.ksnoop_task_exit, needs_exit_cleanup(t));
	*err = bpf_map__set_max_entries(skel->maps.events, ringbuf_size(t->env->pages, t->nr_cpus));
	if (!*err)
		*err = ksnoop_bpf__load(skel);
	if (*err) {
		ksnoop_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Prefer an owner with kprobe (and multi) programs; fall back to maps only. */
static int load_owner(struct tracer *t)
{
	static const int tries[] = { OWN_KPROBE | OWN_MULTI, OWN_KPROBE, 0 };
	size_t i = wants_multi(t) ? 0 : 1;
	int err = 0;

	for (; i < ARRAY_SIZE(tries) && !t->owner; i++) {
		t->owner = open_owner(t, tries[i], &err);
		if (t->owner) {
			t->has_multi = tries[i] & OWN_MULTI;
			if (!(tries[i] & OWN_KPROBE))
				t->kprobe_load_err = err ? err : -EINVAL;
		} else if (tries[i] & OWN_KPROBE) {
			t->kprobe_load_err = err;
		}
		p_dbg("owner object (progs %#x): %s", tries[i], t->owner ? "loaded" : strerror(-err));
	}
	if (!t->owner)
		p_err("cannot load ksnoop's BPF object: %s", strerror(-err));
	return t->owner ? 0 : err;
}

/* Later instances reuse the owner's maps by file descriptor. */
static int share_maps(struct ksnoop_bpf *skel, struct ksnoop_bpf *owner)
{
	struct bpf_map *m;
	int err;

	bpf_object__for_each_map(m, skel->obj) {
		struct bpf_map *om;

		if (bpf_map__is_internal(m))
			continue;
		om = bpf_object__find_map_by_name(owner->obj, bpf_map__name(m));
		if (!om)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, bpf_map__fd(om));
		if (err)
			return err;
	}
	return 0;
}

static int attach_fentry(struct tracer *t, int func, enum bpfutil_op *op)
{
	const char *target = t->plans[func].attach_name;
	struct func_state *fs = &t->fs[func];
	struct ksnoop_bpf *skel = ksnoop_bpf__open();
	int err;

	*op = BPFUTIL_OPEN;
	if (!skel)
		return -errno;
	set_rodata(t, skel, func);
	*op = BPFUTIL_LOAD;
	autoload_only(skel, skel->progs.ksnoop_fentry, skel->progs.ksnoop_fexit);
	err = bpf_program__set_attach_target(skel->progs.ksnoop_fentry, 0, target) ?:
	      bpf_program__set_attach_target(skel->progs.ksnoop_fexit, 0, target) ?:
	      share_maps(skel, t->owner) ?: ksnoop_bpf__load(skel);
	if (err) {
		ksnoop_bpf__destroy(skel);
		return err;
	}
	fs->fentry = skel;
	*op = BPFUTIL_ATTACH;
	fs->entry = bpf_program__attach(skel->progs.ksnoop_fentry);
	if (fs->entry)
		fs->ret = bpf_program__attach(skel->progs.ksnoop_fexit);
	return fs->ret ? 0 : -errno;
}

static int attach_kprobe(struct tracer *t, int func, enum bpfutil_op *op)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = func);
	const char *name = t->plans[func].attach_name;
	struct func_state *fs = &t->fs[func];

	*op = BPFUTIL_LOAD;
	if (t->kprobe_load_err)
		return t->kprobe_load_err;
	*op = BPFUTIL_ATTACH;
	fs->entry = bpf_program__attach_kprobe_opts(t->owner->progs.ksnoop_kprobe, name, &opts);
	if (!fs->entry)
		return -errno;
	opts.retprobe = true;
	fs->ret = bpf_program__attach_kprobe_opts(t->owner->progs.ksnoop_kretprobe, name, &opts);
	return fs->ret ? 0 : -errno;
}

static void detach_func(struct func_state *fs)
{
	bpf_link__destroy(fs->ret);
	bpf_link__destroy(fs->entry);
	fs->ret = fs->entry = NULL;
	ksnoop_bpf__destroy(fs->fentry);
	fs->fentry = NULL;
}

static bool can_fentry(const struct func_plan *p)
{
	/* A clone's symbol has no BTF function of its own to attach to. */
	return !strchr(p->attach_name, '.');
}

static int try_kind(struct tracer *t, int func, enum backend_kind kind, struct strbuf *why)
{
	enum bpfutil_op op = BPFUTIL_LOAD;
	int err;

	if (kind == BK_FENTRY && !can_fentry(&t->plans[func])) {
		sb_printf(why, "a compiler clone has no BTF function to attach to");
		return -ENOENT;
	}
	err = kind == BK_FENTRY ? attach_fentry(t, func, &op) : attach_kprobe(t, func, &op);
	if (!err)
		return 0;
	detach_func(&t->fs[func]);
	bpfutil_explain(why, backend_name(kind), op, err);
	p_dbg("%s: %s failed: %s", t->plans[func].name, backend_name(kind), sb_str(why));
	return err;
}

static int attach_func(struct tracer *t, int func)
{
	enum backend_choice want = t->env->backend;
	struct strbuf why[2];
	int k, err = -EINVAL;

	sb_init(&why[0]);
	sb_init(&why[1]);
	for (k = BK_FENTRY; k <= BK_KPROBE; k++) {
		if ((want == BACKEND_FENTRY && k != BK_FENTRY) ||
		    (want == BACKEND_KPROBE && k != BK_KPROBE))
			continue;
		err = try_kind(t, func, k, &why[k]);
		if (!err) {
			t->fs[func].kind = k;
			t->fs[func].attached = true;
			p_dbg("%s: attached with %s", t->plans[func].name, backend_name(k));
			break;
		}
	}
	if (err && want == BACKEND_AUTO)
		p_err("cannot trace %s: fentry: %s; kprobe: %s", t->plans[func].name,
		      sb_str(&why[0]), sb_str(&why[1]));
	else if (err)
		p_err("cannot trace %s with %s: %s", t->plans[func].name,
		      want == BACKEND_FENTRY ? "fentry" : "kprobe",
		      sb_str(&why[want == BACKEND_FENTRY ? 0 : 1]));
	sb_free(&why[0]);
	sb_free(&why[1]);
	return err;
}

/* Glob-expanded functions: one kprobe.multi link each way, if we can. */
static int attach_multi(struct tracer *t)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	const char **syms = calloc(t->nr, sizeof(*syms));
	__u64 *cookies = calloc(t->nr, sizeof(*cookies));
	int i, n = 0, err = 0;

	if (!syms || !cookies) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->nr; i++) {
		if (!t->plans[i].from_glob)
			continue;
		syms[n] = t->plans[i].attach_name;
		cookies[n++] = i;
	}
	opts.syms = syms;
	opts.cookies = cookies;
	opts.cnt = n;
	t->multi_entry = bpf_program__attach_kprobe_multi_opts(t->owner->progs.ksnoop_kmulti,
								NULL, &opts);
	opts.retprobe = true;
	if (t->multi_entry)
		t->multi_ret = bpf_program__attach_kprobe_multi_opts(
			t->owner->progs.ksnoop_kretmulti, NULL, &opts);
	if (!t->multi_ret) {
		err = -errno;
		bpf_link__destroy(t->multi_entry);
		t->multi_entry = NULL;
		p_dbg("kprobe.multi for %d functions failed: %s", n, strerror(-err));
		goto out;
	}
	for (i = 0; i < t->nr; i++) {
		if (t->plans[i].from_glob) {
			t->fs[i].kind = BK_KPROBE_MULTI;
			t->fs[i].attached = true;
		}
	}
	p_dbg("kprobe.multi: attached %d functions with one link each way", n);
out:
	free(syms);
	free(cookies);
	return err;
}

static int fill_maps(struct tracer *t)
{
	int cfg_fd = bpf_map__fd(t->owner->maps.func_cfg);
	int tgid_fd = bpf_map__fd(t->owner->maps.tgids);
	__u8 one = 1;
	__u32 i;

	for (i = 0; i < (__u32)t->nr; i++) {
		if (bpf_map_update_elem(cfg_fd, &i, &t->plans[i].cfg, BPF_ANY))
			return -errno;
	}
	for (i = 0; i < (__u32)t->env->nr_pids; i++) {
		__u32 tgid = t->env->pids[i];

		if (bpf_map_update_elem(tgid_fd, &tgid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int set_cgroup(struct tracer *t)
{
	__u32 zero = 0;
	int fd, err;

	if (!t->env->cgroup)
		return 0;
	fd = open(t->env->cgroup, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		p_err("cannot open cgroup '%s': %s", t->env->cgroup, strerror(errno));
		return -errno;
	}
	err = bpf_map_update_elem(bpf_map__fd(t->owner->maps.cgroup), &zero, &fd, BPF_ANY);
	if (err)
		p_err("'%s' is not a cgroup v2 directory: %s", t->env->cgroup, strerror(errno));
	close(fd);
	return err ? -EINVAL : 0;
}

static int attach_all(struct tracer *t)
{
	int i, err;

	if (t->has_multi && wants_multi(t) && attach_multi(t) == 0)
		p_dbg("glob functions attached through kprobe.multi");
	for (i = 0; i < t->nr; i++) {
		if (t->fs[i].attached)
			continue;
		err = attach_func(t, i);
		if (err)
			return err;
	}
	if (needs_exit_cleanup(t)) {
		t->exit_link = bpf_program__attach(t->owner->progs.ksnoop_task_exit);
		if (!t->exit_link) {
			p_err("cannot attach the task-exit cleanup program: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

struct tracer *tracer__open(const struct env *env, struct func_plan *plans, int nr)
{
	struct tracer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->env = env;
	t->plans = plans;
	t->nr = nr;
	t->nr_cpus = libbpf_num_possible_cpus();
	t->fs = calloc(nr, sizeof(*t->fs));
	if (!t->fs || t->nr_cpus <= 0)
		goto fail;
	/* Configuration is in place before the first program can run. */
	if (load_owner(t) || fill_maps(t) || set_cgroup(t) || attach_all(t))
		goto fail;
	return t;
fail:
	tracer__free(t);
	return NULL;
}

void tracer__free(struct tracer *t)
{
	int i;

	if (!t)
		return;
	bpf_link__destroy(t->exit_link);
	bpf_link__destroy(t->multi_ret);
	bpf_link__destroy(t->multi_entry);
	for (i = 0; t->fs && i < t->nr; i++)
		detach_func(&t->fs[i]);
	ksnoop_bpf__destroy(t->owner);
	free(t->fs);
	free(t);
}

int tracer__events_fd(const struct tracer *t)
{
	return bpf_map__fd(t->owner->maps.events);
}

int tracer__read_drops(const struct tracer *t, __u64 drops[KSNOOP_DROP_NR])
{
	int fd = bpf_map__fd(t->owner->maps.drops);
	__u64 *vals = calloc(t->nr_cpus, sizeof(*vals));
	__u32 r;
	int c;

	if (!vals)
		return -ENOMEM;
	for (r = 0; r < KSNOOP_DROP_NR; r++) {
		drops[r] = 0;
		if (bpf_map_lookup_elem(fd, &r, vals))
			continue;
		for (c = 0; c < t->nr_cpus; c++)
			drops[r] += vals[c];
	}
	free(vals);
	return 0;
}

enum backend_kind tracer__backend(const struct tracer *t, int func)
{
	return t->fs[func].kind;
}
