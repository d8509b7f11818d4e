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

/*
 * One backend in isolation: a fresh object with only its program loaded,
 * since a kernel that refuses one program type would fail the whole load.
 * Returns true when the program saw the calls; `out` gets the result line.
 */
static bool calibrate(enum calib_kind kind, struct strbuf *out)
{
	const char *name = calib_names[kind];
	struct bpf_link *link = NULL;
	struct calib_bpf *skel;
	struct bpf_program *p;
	bool ok = false;
	__u64 hits;
	int i, err;

	skel = calib_bpf__open();
	if (!skel) {
		sb_printf(out, "no (");
		bpfutil_explain(out, name, BPFUTIL_OPEN, errno);
		sb_printf(out, ")");
		return false;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == calib_prog(skel, kind));
	skel->rodata->target_tgid = getpid();

	err = calib_bpf__load(skel);
	if (err) {
		sb_printf(out, "no (");
		bpfutil_explain(out, name, BPFUTIL_LOAD, err);
		sb_printf(out, ")");
		goto out;
	}
	link = calib_attach(skel, kind);
	if (!link) {
		sb_printf(out, "no (");
		bpfutil_explain(out, name, BPFUTIL_ATTACH, errno);
		sb_printf(out, ")");
		goto out;
	}
	for (i = 0; i < CALIB_CALLS; i++)
		syscall(SYS_getppid);
	hits = calib_hits(skel, kind);
	ok = hits > 0;
	sb_printf(out, "%s (%llu/%d calls seen%s)", ok ? "yes" : "no", (unsigned long long)hits,
		  CALIB_CALLS, ok ? "" : "; attached, but the program never ran");
out:
	bpf_link__destroy(link);
	calib_bpf__destroy(skel);
	return ok;
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

/* The kernel's BTF, for report_kfeat, or NULL. */
static struct btf *report_btf(void)
{
	struct btf *btf;
	int err;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		err = errno;
		printf("BTF: no (/sys/kernel/btf/vmlinux: %s; the kernel needs "
		       "CONFIG_DEBUG_INFO_BTF=y)\n",
		       strerror(err));
		return NULL;
	}
	printf("BTF: yes (vmlinux, %d module BTFs)\n", count_module_btf());
	return btf;
}

/* The BPF features past Linux 5.10's that ksnoop uses, and what it does without each. */
static void report_kfeat(const struct btf *btf)
{
	kfeat_set have = kfeat_probe(btf);
	int f;

	if (!btf)
		return;
	for (f = 0; f < KFEAT_NR; f++) {
		if (kfeat_has(have, f))
			printf("%s: yes\n", kfeat_name(f));
		else
			printf("%s: no (Linux %s; instead: %s)\n", kfeat_name(f), kfeat_since(f),
			       kfeat_fallback(f));
	}
}

/*
 * BPF ring buffer maps: Linux 5.8 ("bpf: Implement BPF ring buffer ...").
 * Made by hand rather than with libbpf_probe_bpf_map_type, which answers
 * "no" for EPERM too: an old kernel says EINVAL. Returns 0 or -errno.
 */
static int report_ringbuf(void)
{
	char buf[32];
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, sysconf(_SC_PAGESIZE), NULL);
	if (fd >= 0) {
		close(fd);
		printf("ring buffer: yes\n");
		return 0;
	}
	err = -errno;
	if (err == -EINVAL)
		printf("ring buffer: no (the kernel predates BPF ring buffers, Linux 5.8)\n");
	else if ((err == -EPERM || err == -EACCES) && geteuid())
		printf("ring buffer: no (creating one needs root (or CAP_BPF and CAP_PERFMON) (%s))\n",
		       bpfutil_errno_name(err, buf, sizeof(buf)));
	else
		printf("ring buffer: no (creating one failed: %s (%s))\n", strerror(-err),
		       bpfutil_errno_name(err, buf, sizeof(buf)));
	return err;
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
	struct btf *btf = NULL;
	struct strbuf line;
	struct utsname u;
	bool any = false;
	int kind, ringbuf_err;

	(void)env;
	(void)argv;
	if (argc > 0) {
		p_err("'feature' takes no arguments");
		return -EINVAL;
	}

	if (!uname(&u))
		printf("kernel: %s %s\n", u.release, u.machine);
	btf = report_btf();
	ringbuf_err = report_ringbuf();

	sb_init(&line);
	for (kind = 0; kind < NR_CALIB; kind++) {
		bool ok;

		sb_reset(&line);
		ok = calibrate(kind, &line);
		printf("%s: %s\n", calib_names[kind], sb_str(&line));
		/* kprobe.multi only batches kprobes; alone it is no backend. */
		if (ok && kind != CALIB_KPROBE_MULTI)
			any = true;
	}
	sb_free(&line);
	report_kfeat(btf);
	btf__free(btf);
	fflush(stdout);
	if (!any)
		report_no_backend(ringbuf_err);
	return any ? 0 : -ENOTSUP;
}
