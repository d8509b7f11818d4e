/* SPDX-License-Identifier: GPL-2.0 */
/* Shared libbpf plumbing: message routing and attach-error explanations. */
#ifndef KSNOOP_BPFUTIL_H
#define KSNOOP_BPFUTIL_H

#include <linux/types.h>

#include "lib/util.h"

/*
 * The kernel-internal ENOTSUPP, which BPF paths (trampolines among them)
 * let out to user space; no libc names it.
 */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* "EPERM" for EPERM (sign ignored), "errno 4242" for unknown values. */
const char *bpfutil_errno_name(int err, char *buf, size_t size);

enum bpfutil_op {
	BPFUTIL_OPEN,	/* parsing the BPF object */
	BPFUTIL_LOAD,	/* verifying and loading programs */
	BPFUTIL_ATTACH, /* creating the link */
};

/*
 * Append one phrase saying why `kind` programs ("fentry", "kprobe",
 * "kprobe.multi", ...) failed at `op` with `err` (sign ignored), ending in
 * the errno name, e.g. "loading fentry programs is not permitted on this
 * kernel (EPERM)".
 */
void bpfutil_explain(struct strbuf *sb, const char *kind, enum bpfutil_op op, int err);
/*
 * After a failed load or map creation's strerror: for -EPERM, what to do
 * about it (root, or the capabilities; as root, the kernel's own refusal),
 * else "".
 */
const char *bpfutil_perm_hint(int err);

/* Whether kprobes exist at all: a kprobe PMU or tracefs kprobe_events. */
bool bpfutil_have_kprobes(void);

/* Where tracefs is mounted ("/sys/kernel/tracing", or under debugfs), or NULL. */
const char *bpfutil_tracefs(void);

/* Whether perf has a kprobe PMU, which bpfutil_kprobe_open() needs. */
bool bpfutil_have_kprobe_pmu(void);

/*
 * A perf event on the kprobe PMU at func's entry (+ offset), or its
 * return: the fd to attach a program to (BPF_PERF_EVENT), or a negative
 * errno; -EOPNOTSUPP without the PMU.
 */
int bpfutil_kprobe_open(const char *func, unsigned long long offset, bool retprobe);

/* Whether perf has a uprobe PMU, which bpfutil_uprobe_open() needs. */
bool bpfutil_have_uprobe_pmu(void);

/* The same on the uprobe PMU: the file at path, at file offset offset, in every process. */
int bpfutil_uprobe_open(const char *path, unsigned long long offset, bool retprobe);

/*
 * Attaches a program to a perf event: the BPF link's fd, or 0 where the
 * kernel has no perf links (before 5.15) and the event holds the program
 * until closed; a negative errno on failure.
 */
int bpfutil_perf_attach(int prog_fd, int perf_fd);

/*
 * Returns once every BPF program running at the call has returned: after
 * it, none still works with a value read before (an RCU grace period, as
 * the kernel's selftests trigger it). 0 or a negative errno.
 */
int bpfutil_wait_programs(void);

/*
 * Calls the kernel made without running a program: it was already
 * running on that CPU (the program's recursion_misses, from 5.12 on), 0
 * where the kernel does not count them.
 */
__u64 bpfutil_prog_missed(int prog_fd);

/*
 * Calls a kprobe.multi or kprobe link's probe let pass without running its
 * handler at all (another probe on the CPU, no room for a return probe):
 * the link's missed count, from 6.7 on; 0 for other links and kernels.
 */
__u64 bpfutil_link_missed(int link_fd);

struct bpf_object;
struct bpf_link;
/* bpfutil_prog_missed over an object's loaded programs (0 for NULL). */
__u64 bpfutil_object_missed(const struct bpf_object *obj);
/* bpfutil_link_missed of a libbpf link (0 for NULL). */
__u64 bpfutil_blink_missed(const struct bpf_link *link);

#endif
