// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "util.h"
#include "ksnoop.skel.h"

struct instance {
	struct ksnoop_bpf *skel;
	struct bpf_link *entry, *ret;
	enum backend_kind kind;
};

struct tracer {
	const struct env *env;
	struct func_plan *plans;
	int nr;
	struct instance *insts;
	struct ksnoop_bpf *owner; /* the instance whose maps everyone shares */
	struct bpf_link *exit_link;
	int nr_cpus;
};

#define RINGBUF_MIN (32UL << 20)
#define RINGBUF_MAX (1UL << 30)

const char *backend_name(enum backend_kind k)
{
	return k == BK_FENTRY ? "fentry" : "kprobe";
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

/* Only the owner creates maps; later instances reuse its file descriptors. */
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

static void set_rodata(struct tracer *t, struct ksnoop_bpf *skel, int func)
{
	skel->rodata->func_id = func;
	skel->rodata->filter_tgid = t->env->nr_pids > 0;
	skel->rodata->filter_cpu = t->env->cpu;
	skel->rodata->chain_mode = t->env->stack_mode;
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

static int load_instance(struct tracer *t, int func, enum backend_kind kind,
			 struct ksnoop_bpf **out)
{
	struct ksnoop_bpf *skel = ksnoop_bpf__open();
	bool fentry = kind == BK_FENTRY;
	int err;

	if (!skel)
		return -errno;
	set_rodata(t, skel, func);
	bpf_program__set_autoload(skel->progs.ksnoop_fentry, fentry);
	bpf_program__set_autoload(skel->progs.ksnoop_fexit, fentry);
	bpf_program__set_autoload(skel->progs.ksnoop_kprobe, !fentry);
	bpf_program__set_autoload(skel->progs.ksnoop_kretprobe, !fentry);
	bpf_program__set_autoload(skel->progs.ksnoop_task_exit,
				  !t->owner && needs_exit_cleanup(t));
	if (fentry) {
		const char *target = t->plans[func].attach_name;

		err = bpf_program__set_attach_target(skel->progs.ksnoop_fentry, 0, target) ?:
		      bpf_program__set_attach_target(skel->progs.ksnoop_fexit, 0, target);
		if (err)
			goto fail;
	}
	if (t->owner)
		err = share_maps(skel, t->owner);
	else
		err = bpf_map__set_max_entries(skel->maps.events,
					       ringbuf_size(t->env->pages, t->nr_cpus));
	if (!err)
		err = ksnoop_bpf__load(skel);
	if (err)
		goto fail;
	*out = skel;
	return 0;
fail:
	ksnoop_bpf__destroy(skel);
	return err < 0 ? err : -EINVAL;
}

static int attach_instance(struct tracer *t, struct instance *in, int func)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ropts, .retprobe = true);
	const char *name = t->plans[func].attach_name;
	struct ksnoop_bpf *s = in->skel;

	if (in->kind == BK_FENTRY) {
		in->entry = bpf_program__attach(s->progs.ksnoop_fentry);
		if (!in->entry)
			return -errno;
		in->ret = bpf_program__attach(s->progs.ksnoop_fexit);
	} else {
		in->entry = bpf_program__attach_kprobe_opts(s->progs.ksnoop_kprobe, name, NULL);
		if (!in->entry)
			return -errno;
		in->ret = bpf_program__attach_kprobe_opts(s->progs.ksnoop_kretprobe, name, &ropts);
	}
	return in->ret ? 0 : -errno;
}

static void instance_destroy(struct instance *in)
{
	bpf_link__destroy(in->ret);
	bpf_link__destroy(in->entry);
	ksnoop_bpf__destroy(in->skel);
	memset(in, 0, sizeof(*in));
}

static const char *explain(enum backend_kind kind, int err)
{
	switch (-err) {
	case EACCES:
		return "the BPF verifier rejected the program (-d shows its log)";
	case EPERM:
		return kind == BK_FENTRY ? "loading fentry programs is not permitted on this kernel"
					 : "not permitted (need CAP_BPF and CAP_PERFMON, or root)";
	case ENOENT:
		return kind == BK_FENTRY ? "no BTF function of that name to attach to"
					 : "the kernel has no kprobe support or no such symbol";
	case E2BIG:
		return "too many arguments for a BPF trampoline";
	case EOPNOTSUPP:
		return "not supported by this kernel";
	case EBUSY:
		return "already attached by another tracer";
	case EINVAL:
		return "rejected by the kernel (invalid target)";
	}
	return strerror(-err);
}

static bool can_fentry(const struct func_plan *p)
{
	/* A clone's symbol has no BTF function of its own to attach to. */
	return !strchr(p->attach_name, '.');
}

static int try_backend(struct tracer *t, int func, enum backend_kind kind)
{
	struct instance *in = &t->insts[func];
	int err;

	in->kind = kind;
	err = load_instance(t, func, kind, &in->skel);
	if (!err) {
		if (!t->owner)
			t->owner = in->skel;
		err = attach_instance(t, in, func);
	}
	if (err && in->skel != t->owner)
		instance_destroy(in);
	else if (err) {
		/* Keep the owner's maps; drop only its links. */
		bpf_link__destroy(in->ret);
		bpf_link__destroy(in->entry);
		in->ret = in->entry = NULL;
	}
	return err;
}

static int attach_func(struct tracer *t, int func)
{
	enum backend_choice want = t->env->backend;
	const char *why[BK_NR] = { "not tried", "not tried" };
	int k, err = -EINVAL;

	for (k = 0; k < BK_NR; k++) {
		if ((want == BACKEND_FENTRY && k != BK_FENTRY) ||
		    (want == BACKEND_KPROBE && k != BK_KPROBE))
			continue;
		if (k == BK_FENTRY && !can_fentry(&t->plans[func])) {
			why[k] = "a compiler clone has no BTF function to attach to";
			continue;
		}
		err = try_backend(t, func, k);
		if (!err) {
			p_dbg("%s: attached with %s", t->plans[func].name, backend_name(k));
			return 0;
		}
		why[k] = explain(k, err);
		p_dbg("%s: %s failed: %s", t->plans[func].name, backend_name(k), strerror(-err));
	}
	if (want == BACKEND_AUTO)
		p_err("cannot trace %s: fentry: %s; kprobe: %s", t->plans[func].name, why[BK_FENTRY],
		      why[BK_KPROBE]);
	else
		p_err("cannot trace %s with %s: %s", t->plans[func].name,
		      want == BACKEND_FENTRY ? "fentry" : "kprobe",
		      why[want == BACKEND_FENTRY ? BK_FENTRY : BK_KPROBE]);
	return err;
}

static int fill_maps(struct tracer *t)
{
	int cfg_fd = bpf_map__fd(t->owner->maps.func_cfg);
	int tgid_fd = bpf_map__fd(t->owner->maps.tgids);
	__u8 one = 1;
	__u32 i;
	int err;

	for (i = 0; i < (__u32)t->nr; i++) {
		err = bpf_map_update_elem(cfg_fd, &i, &t->plans[i].cfg, BPF_ANY);
		if (err)
			return -errno;
	}
	for (i = 0; i < (__u32)t->env->nr_pids; i++) {
		__u32 tgid = t->env->pids[i];

		if (bpf_map_update_elem(tgid_fd, &tgid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

struct tracer *tracer__open(const struct env *env, struct func_plan *plans, int nr)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int i, err = 0;

	if (!t)
		return NULL;
	t->env = env;
	t->plans = plans;
	t->nr = nr;
	t->nr_cpus = libbpf_num_possible_cpus();
	t->insts = calloc(nr, sizeof(*t->insts));
	if (!t->insts || t->nr_cpus <= 0)
		goto fail;
	/*
	 * Configuration goes in before any program is attached, so the very
	 * first event already sees it: attach the owner first, then fill
	 * its maps, then everything else.
	 */
	for (i = 0; i < nr && !err; i++) {
		err = attach_func(t, i);
		if (!err && i == 0)
			err = fill_maps(t);
	}
	if (err)
		goto fail;
	if (t->owner->progs.ksnoop_task_exit && needs_exit_cleanup(t)) {
		t->exit_link = bpf_program__attach(t->owner->progs.ksnoop_task_exit);
		if (!t->exit_link) {
			p_err("cannot attach the task-exit cleanup program: %s", strerror(errno));
			goto fail;
		}
	}
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
	/* Links first, everywhere, so no program runs while maps go away. */
	for (i = 0; t->insts && i < t->nr; i++) {
		bpf_link__destroy(t->insts[i].ret);
		bpf_link__destroy(t->insts[i].entry);
		t->insts[i].ret = t->insts[i].entry = NULL;
	}
	for (i = 0; t->insts && i < t->nr; i++) {
		if (t->insts[i].skel != t->owner)
			ksnoop_bpf__destroy(t->insts[i].skel);
	}
	ksnoop_bpf__destroy(t->owner);
	free(t->insts);
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
	return t->insts[func].kind;
}
