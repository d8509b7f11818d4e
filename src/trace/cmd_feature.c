// SPDX-License-Identifier: GPL-2.0
/*
 * ksnoop feature: which tracing backends work on this kernel, proven by
 * loading and attaching the calibration programs of probe.bpf.c and
 * counting the calls they see, not by reading kernel versions or configs.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/bpfutil.h"
#include "env.h"
#include "lib/arch.h"
#include "lib/json_writer.h"
#include "lib/kfeat.h"
#include "calib.skel.h"
#include "lib/util.h"

#define CALIB_FUNC KSNOOP_CALIB_FUNC
#define CALIB_CALLS 100

enum calib_kind { CALIB_FENTRY, CALIB_KPROBE, CALIB_KPROBE_MULTI, NR_CALIB };

static const char *const calib_names[NR_CALIB] = {
	[CALIB_FENTRY] = "fentry",
	[CALIB_KPROBE] = "kprobe",
	[CALIB_KPROBE_MULTI] = "kprobe.multi",
};

static struct bpf_program *calib_prog(struct calib_bpf *skel, enum calib_kind kind)
{
	switch (kind) {
	case CALIB_FENTRY:
		return skel->progs.probe_fentry;
	case CALIB_KPROBE:
		return skel->progs.probe_kprobe;
	default:
		return skel->progs.probe_kprobe_multi;
	}
}

static __u64 calib_hits(const struct calib_bpf *skel, enum calib_kind kind)
{
	switch (kind) {
	case CALIB_FENTRY:
		return skel->bss->fentry_hits;
	case CALIB_KPROBE:
		return skel->bss->kprobe_hits;
	default:
		return skel->bss->kprobe_multi_hits;
	}
}

static struct bpf_link *calib_attach(struct calib_bpf *skel, enum calib_kind kind)
{
	struct bpf_program *prog = calib_prog(skel, kind);

	switch (kind) {
	case CALIB_FENTRY:
		return bpf_program__attach_trace(prog);
	case CALIB_KPROBE:
		return bpf_program__attach_kprobe(prog, false, CALIB_FUNC);
	default:
		return bpf_program__attach_kprobe_multi_opts(prog, CALIB_FUNC, NULL);
	}
}

/* What ksnoop feature found, printed as text or JSON once it is all known. */
struct report {
	struct utsname u;
	bool have_uname;
	int btf_errno; /* 0: vmlinux BTF read */
	int nr_module_btf;
	kfeat_set kfeat;
	int ringbuf_err;
	struct strbuf ringbuf_why;
	struct calib_result {
		bool ok;
		bool ran; /* loaded and attached: hits counts the calls seen */
		__u64 hits;
		struct strbuf why; /* when it failed before running */
	} calib[NR_CALIB];
};

/*
 * One backend in isolation: a fresh object with only its program loaded,
 * since a kernel that refuses one program type would fail the whole load.
 */
static void calibrate(enum calib_kind kind, struct calib_result *r)
{
	const char *name = calib_names[kind];
	struct bpf_link *link = NULL;
	struct calib_bpf *skel;
	struct bpf_program *p;
	int i, err;

	skel = calib_bpf__open();
	if (!skel) {
		bpfutil_explain(&r->why, name, BPFUTIL_OPEN, errno);
		return;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == calib_prog(skel, kind));
	skel->rodata->target_tgid = getpid();

	err = calib_bpf__load(skel);
	if (err) {
		bpfutil_explain(&r->why, name, BPFUTIL_LOAD, err);
		goto out;
	}
	link = calib_attach(skel, kind);
	if (!link) {
		bpfutil_explain(&r->why, name, BPFUTIL_ATTACH, errno);
		goto out;
	}
	for (i = 0; i < CALIB_CALLS; i++)
		syscall(SYS_getppid);
	r->ran = true;
	r->hits = calib_hits(skel, kind);
	r->ok = r->hits > 0;
out:
	bpf_link__destroy(link);
	calib_bpf__destroy(skel);
}

static int count_module_btf(void)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/sys/kernel/btf");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.' && strcmp(de->d_name, "vmlinux"))
			n++;
	}
	closedir(d);
	return n;
}

/* The kernel's BTF, and the BPF features past 5.10's it names. */
static void probe_btf(struct report *r)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		r->btf_errno = errno;
		return;
	}
	r->nr_module_btf = count_module_btf();
	r->kfeat = kfeat_probe(btf);
	btf__free(btf);
}

/*
 * BPF ring buffer maps: Linux 5.8 ("bpf: Implement BPF ring buffer ...").
 * Made by hand rather than with libbpf_probe_bpf_map_type, which answers
 * "no" for EPERM too: an old kernel says EINVAL.
 */
static void probe_ringbuf(struct report *r)
{
	char buf[32];
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, sysconf(_SC_PAGESIZE), NULL);
	if (fd >= 0) {
		close(fd);
		return;
	}
	err = -errno;
	r->ringbuf_err = err;
	if (err == -EINVAL)
		sb_printf(&r->ringbuf_why, "the kernel predates BPF ring buffers, Linux 5.8");
	else if ((err == -EPERM || err == -EACCES) && geteuid())
		sb_printf(&r->ringbuf_why,
			  "creating one needs root (or CAP_BPF and CAP_PERFMON) (%s)",
			  bpfutil_errno_name(err, buf, sizeof(buf)));
	else
		sb_printf(&r->ringbuf_why, "creating one failed: %s (%s)", strerror(-err),
			  bpfutil_errno_name(err, buf, sizeof(buf)));
}

static void report_init(struct report *r)
{
	int k;

	memset(r, 0, sizeof(*r));
	sb_init(&r->ringbuf_why);
	for (k = 0; k < NR_CALIB; k++)
		sb_init(&r->calib[k].why);
}

static void report_free(struct report *r)
{
	int k;

	sb_free(&r->ringbuf_why);
	for (k = 0; k < NR_CALIB; k++)
		sb_free(&r->calib[k].why);
}

static void print_calib_text(enum calib_kind kind, const struct calib_result *c)
{
	printf("%s: ", calib_names[kind]);
	if (!c->ran)
		printf("no (%s)\n", sb_str(&c->why));
	else
		printf("%s (%llu/%d calls seen%s)\n", c->ok ? "yes" : "no",
		       (unsigned long long)c->hits, CALIB_CALLS,
		       c->ok ? "" : "; attached, but the program never ran");
}

static void print_text(const struct report *r)
{
	int k, f;

	if (r->have_uname)
		printf("kernel: %s %s\n", r->u.release, r->u.machine);
	if (r->btf_errno)
		printf("BTF: no (/sys/kernel/btf/vmlinux: %s; the kernel needs "
		       "CONFIG_DEBUG_INFO_BTF=y)\n",
		       strerror(r->btf_errno));
	else
		printf("BTF: yes (vmlinux, %d module BTFs)\n", r->nr_module_btf);
	if (r->ringbuf_err)
		printf("ring buffer: no (%s)\n", sb_str(&r->ringbuf_why));
	else
		printf("ring buffer: yes\n");
	for (k = 0; k < NR_CALIB; k++)
		print_calib_text(k, &r->calib[k]);
	for (f = 0; f < KFEAT_NR && !r->btf_errno; f++) {
		if (kfeat_has(r->kfeat, f))
			printf("%s: yes\n", kfeat_name(f));
		else
			printf("%s: no (Linux %s; instead: %s)\n", kfeat_name(f), kfeat_since(f),
			       kfeat_fallback(f));
	}
}

static void json_calib(struct jw *w, enum calib_kind kind, const struct calib_result *c)
{
	jw_object(w);
	jw_kstr(w, "name", calib_names[kind]);
	jw_kbool(w, "works", c->ok);
	if (c->ran) {
		jw_kuint(w, "calls_seen", c->hits);
		jw_kint(w, "calls", CALIB_CALLS);
	}
	if (!c->ok)
		jw_kstr(w, "reason",
			c->ran ? "attached, but the program never ran" : sb_str(&c->why));
	jw_end(w);
}

static void json_kfeats(struct jw *w, const struct report *r)
{
	int f;

	jw_key(w, "features");
	jw_array(w);
	for (f = 0; f < KFEAT_NR && !r->btf_errno; f++) {
		jw_object(w);
		jw_kstr(w, "name", kfeat_name(f));
		jw_kbool(w, "available", kfeat_has(r->kfeat, f));
		if (!kfeat_has(r->kfeat, f)) {
			jw_kstr(w, "since", kfeat_since(f));
			jw_kstr(w, "instead", kfeat_fallback(f));
		}
		jw_end(w);
	}
	jw_end(w);
}

static void print_json(const struct report *r)
{
	struct strbuf sb;
	struct jw w;
	int k;

	sb_init(&sb);
	jw_init(&w, &sb);
	jw_object(&w);
	jw_kstr(&w, "kernel", r->have_uname ? r->u.release : NULL);
	jw_kstr(&w, "machine", r->have_uname ? r->u.machine : NULL);
	jw_key(&w, "btf");
	jw_object(&w);
	jw_kbool(&w, "available", !r->btf_errno);
	if (r->btf_errno)
		jw_kstr(&w, "reason", strerror(r->btf_errno));
	else
		jw_kint(&w, "module_btfs", r->nr_module_btf);
	jw_end(&w);
	jw_key(&w, "ring_buffer");
	jw_object(&w);
	jw_kbool(&w, "available", !r->ringbuf_err);
	if (r->ringbuf_err)
		jw_kstr(&w, "reason", sb_str(&r->ringbuf_why));
	jw_end(&w);
	jw_key(&w, "backends");
	jw_array(&w);
	for (k = 0; k < NR_CALIB; k++)
		json_calib(&w, k, &r->calib[k]);
	jw_end(&w);
	json_kfeats(&w, r);
	jw_end(&w);
	printf("%s\n", sb_str(&sb));
	sb_free(&sb);
}

/* Why nothing works: the permission, when that is what stopped it. */
static void report_no_backend(int ringbuf_err)
{
	if (ringbuf_err != -EPERM && ringbuf_err != -EACCES)
		p_err("no function tracing backend works on this kernel (neither fentry nor kprobe)");
	else
		p_err("creating a BPF ring buffer: %s%s", strerror(-ringbuf_err),
		      bpfutil_perm_hint(-EPERM));
}

int cmd_feature(struct env *env, int argc, char **argv)
{
	struct report r;
	bool any = false;
	int kind;

	(void)env;
	(void)argv;
	if (argc > 0) {
		p_err("'feature' takes no arguments");
		return -EINVAL;
	}
	report_init(&r);
	r.have_uname = !uname(&r.u);
	probe_btf(&r);
	probe_ringbuf(&r);
	for (kind = 0; kind < NR_CALIB; kind++) {
		calibrate(kind, &r.calib[kind]);
		/* kprobe.multi only batches kprobes; alone it is no backend. */
		if (r.calib[kind].ok && kind != CALIB_KPROBE_MULTI)
			any = true;
	}
	if (util_json())
		print_json(&r);
	else
		print_text(&r);
	fflush(stdout);
	if (!any)
		report_no_backend(r.ringbuf_err);
	report_free(&r);
	return any ? 0 : -ENOTSUP;
}
