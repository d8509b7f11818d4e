// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "lib/bpfutil.h"
#include "lib/errnames.h"
#include "lib/util.h"

const char *bpfutil_errno_name(int err, char *buf, size_t size)
{
	const char *name = errno_name(err);

	if (name)
		return name;
	snprintf(buf, size, "errno %u", err < 0 ? 0u - (unsigned int)err : (unsigned int)err);
	return buf;
}

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe/"
#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe/"

bool bpfutil_have_kprobe_pmu(void)
{
	return !access(KPROBE_PMU "type", R_OK);
}

bool bpfutil_have_uprobe_pmu(void)
{
	return !access(UPROBE_PMU "type", R_OK);
}

const char *bpfutil_tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (!access(path, F_OK))
			return dirs[i];
	}
	return NULL;
}

bool bpfutil_have_kprobes(void)
{
	const char *tracefs = bpfutil_tracefs();
	char path[64];

	/* The kprobe PMU (Linux 4.17+) or the legacy tracefs interface. */
	if (bpfutil_have_kprobe_pmu())
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs ? tracefs : "/");
	return tracefs && !access(path, W_OK);
}

/* The number in a small sysfs file, after prefix ("6", "config:0"), at most max; else -1. */
static int read_sysfs_int(const char *path, const char *prefix, long max)
{
	size_t n = strlen(prefix);
	long long v = -1;
	char buf[64];
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || strncmp(buf, prefix, n) ||
	    parse_long(strtok(buf + n, "\n"), 0, max, &v))
		v = -1;
	fclose(f);
	return v;
}

/* A probe on PMU (its sysfs folder): name and offset as config1 and config2. */
static int probe_open(const char *pmu, const char *name, unsigned long long offset, bool retprobe)
{
	struct perf_event_attr attr;
	char path[128];
	int type, bit = 0, fd;

	snprintf(path, sizeof(path), "%stype", pmu);
	type = read_sysfs_int(path, "", INT32_MAX);
	snprintf(path, sizeof(path), "%sformat/retprobe", pmu);
	if (retprobe)
		bit = read_sysfs_int(path, "config:", 63);

	if (type < 0 || bit < 0)
		return -EOPNOTSUPP;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ULL << bit : 0;
	attr.config1 = (uintptr_t)name; /* kprobe_func, uprobe_path */
	attr.config2 = offset;		/* probe_offset */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int bpfutil_kprobe_open(const char *func, unsigned long long offset, bool retprobe)
{
	return probe_open(KPROBE_PMU, func, offset, retprobe);
}

int bpfutil_uprobe_open(const char *path, unsigned long long offset, bool retprobe)
{
	return probe_open(UPROBE_PMU, path, offset, retprobe);
}

int bpfutil_perf_attach(int prog_fd, int perf_fd)
{
	int fd = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, NULL);

	if (fd >= 0 || fd != -EINVAL)
		return fd;
	/* Before Linux 5.15 a perf event takes its program by ioctl. */
	return ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ? -errno : 0;
}

static bool is_kprobe_kind(const char *kind)
{
	return !strncmp(kind, "kprobe", 6) || !strncmp(kind, "kretprobe", 9);
}

static const char *op_verb(enum bpfutil_op op)
{
	switch (op) {
	case BPFUTIL_OPEN:
		return "opening";
	case BPFUTIL_LOAD:
		return "loading";
	default:
		return "attaching";
	}
}

static void explain_perm(struct strbuf *sb, const char *kind, enum bpfutil_op op, int err)
{
	if (geteuid() != 0) {
		sb_printf(sb, "%s %s programs needs root (or CAP_BPF and CAP_PERFMON)", op_verb(op),
			  kind);
		return;
	}
	/* As root, EACCES at load time is the verifier saying no. */
	if (err == EACCES && op == BPFUTIL_LOAD) {
		sb_printf(sb,
			  "the kernel's verifier rejected the %s program; run with -d for its log",
			  kind);
		return;
	}
	sb_printf(sb, "%s %s programs is not permitted on this kernel", op_verb(op), kind);
}

static void explain_missing(struct strbuf *sb, const char *kind, enum bpfutil_op op)
{
	if (is_kprobe_kind(kind) && !bpfutil_have_kprobes()) {
		sb_printf(sb, "kprobes are not available on this kernel: no kprobe PMU and "
			      "no kprobe_events, it needs CONFIG_KPROBES=y");
		return;
	}
	if (op == BPFUTIL_ATTACH)
		sb_printf(sb,
			  "the kernel has no such function to attach %s programs to, "
			  "or it is not traceable",
			  kind);
	else
		sb_printf(sb, "%s %s programs failed: a kernel object they need is missing",
			  op_verb(op), kind);
}

const char *bpfutil_perm_hint(int err)
{
	if (err != -EPERM)
		return "";
	return geteuid() ? " (run as root, or with CAP_BPF and CAP_PERFMON)"
			 : " (the kernel does not allow BPF here: lockdown, or a security module)";
}

void bpfutil_explain(struct strbuf *sb, const char *kind, enum bpfutil_op op, int err)
{
	const char *short_of = err_resource(err);
	char buf[32];

	/* ksnoop's own limits, not the kernel's or the function's fault */
	if (short_of) {
		sb_printf(sb, "%s %s programs: %s", op_verb(op), kind, short_of);
		return;
	}
	err = abs(err);
	switch (err) {
	case EPERM:
	case EACCES:
		explain_perm(sb, kind, op, err);
		break;
	case ENOENT:
		explain_missing(sb, kind, op);
		break;
	case ESRCH:
		sb_printf(sb, "the target function of the %s program is not in kernel BTF", kind);
		break;
	case EINVAL:
		/* Before 5.18 the kernel does not know the attach type. */
		if (!strcmp(kind, "kprobe.multi") && op == BPFUTIL_ATTACH) {
			sb_printf(sb, "kprobe.multi links are not supported by this kernel, "
				      "they need Linux 5.18+ with CONFIG_FPROBE=y");
			break;
		}
		sb_printf(sb,
			  "the kernel rejected %s the %s program as invalid; "
			  "it may be too old for this program type or function",
			  op_verb(op), kind);
		break;
	case EOPNOTSUPP:
	case ENOTSUPP:
		if (!strcmp(kind, "kprobe.multi"))
			sb_printf(sb, "kprobe.multi links are not supported by this kernel, "
				      "they need Linux 5.18+ with CONFIG_FPROBE=y");
		else
			sb_printf(sb, "%s programs are not supported by this kernel", kind);
		break;
	case EBUSY:
		sb_printf(sb, "the function is busy: another tracer holds it exclusively");
		break;
	case E2BIG:
		sb_printf(sb, "%s %s programs failed: too many functions or arguments", op_verb(op),
			  kind);
		break;
	default:
		sb_printf(sb, "%s %s programs failed: %s", op_verb(op), kind, strerror(err));
		break;
	}
	sb_printf(sb, " (%s)", bpfutil_errno_name(err, buf, sizeof(buf)));
}

/*
 * Updating a map-in-map from user space waits for an RCU grace period
 * before it returns (maybe_wait_bpf_programs() in kernel/bpf/syscall.c,
 * since Linux 4.20), so that no program still uses the inner map it
 * replaced. Programs other than sleepable ones run under rcu_read_lock:
 * the update's return means they all finished. Unlike membarrier's
 * MEMBARRIER_CMD_GLOBAL, it works on nohz_full kernels too.
 */
int bpfutil_wait_programs(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner, outer = -1, err, zero = 0;

	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ksnoop_sync_in", 4, 4, 1, NULL);
	if (inner < 0)
		return -errno;
	opts.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "ksnoop_sync", 4, 4, 1, &opts);
	/* libbpf 1.x returns a negative errno itself */
	err = outer < 0 ? -errno : bpf_map_update_elem(outer, &zero, &inner, BPF_ANY);
	if (outer >= 0)
		close(outer);
	close(inner);
	return err;
}

__u64 bpfutil_prog_missed(int prog_fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (prog_fd <= 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * The parts of struct bpf_link_info that carry a probe's missed count
 * (Linux 6.7), laid out as the kernel's ABI has them: this system's uapi
 * header may predate them.
 */
struct link_missed_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	union {
		struct {
			__u64 addrs;
			__u32 count;
			__u32 flags;
			__u64 missed;
			__u64 cookies;
		} kprobe_multi;
		struct {
			__u32 type;
			__u32 pad;
			__u64 func_name;
			__u32 name_len;
			__u32 offset;
			__u64 addr;
			__u64 missed;
			__u64 cookie;
		} perf_event;
	};
};

enum {
	LINK_KPROBE_MULTI = 8,	 /* BPF_LINK_TYPE_KPROBE_MULTI */
	LINK_PERF_EVENT = 7,	 /* BPF_LINK_TYPE_PERF_EVENT */
	PERF_EVENT_KPROBE = 3,	 /* BPF_PERF_EVENT_KPROBE */
	PERF_EVENT_KRETPROBE = 4 /* BPF_PERF_EVENT_KRETPROBE */
};

__u64 bpfutil_link_missed(int link_fd)
{
	struct link_missed_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (link_fd <= 0 || bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return 0;
	if (info.type == LINK_KPROBE_MULTI)
		return info.kprobe_multi.missed;
	if (info.type == LINK_PERF_EVENT && (info.perf_event.type == PERF_EVENT_KPROBE ||
					     info.perf_event.type == PERF_EVENT_KRETPROBE))
		return info.perf_event.missed;
	return 0;
}

__u64 bpfutil_object_missed(const struct bpf_object *obj)
{
	struct bpf_program *p;
	__u64 n = 0;

	if (!obj)
		return 0;
	bpf_object__for_each_program(p, obj)
		n += bpfutil_prog_missed(bpf_program__fd(p));
	return n;
}

__u64 bpfutil_blink_missed(const struct bpf_link *link)
{
	return link ? bpfutil_link_missed(bpf_link__fd(link)) : 0;
}
