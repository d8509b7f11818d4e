// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace recorder, after BSD's ktrace(9) emitters: ktrsyscall, ktrsysret,
 * ktrnamei, ktrgenio and ktrpsig, plus exec arguments and environment.
 *
 * Only tracepoints and BTF-typed raw tracepoints (tp_btf) are used: they
 * exist on every kernel ksnoop targets, including hosts without kprobes
 * or fentry. Records go to one ring buffer in the layout of the trace file
 * (abi/ktrace.h); user space only rewrites the timestamp. A record names
 * its thread alone: a KTR_THREAD record says who the thread is first.
 *
 * Paths (NAMI) and I/O data (GIO) are read at sys_exit, after the kernel
 * copied them from or to user memory: a string the kernel just read is
 * resident, so the non-faulting BPF user read no longer misses paged-out
 * strings the way a read at sys_enter does. The one path read from kernel
 * memory is the exec path, bprm->filename, the kernel's own copy.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "abi/ktrace.h"
#include "lib/regs.h"

/* Sized by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Traced processes, keyed by tgid; shared with later ktrace invocations. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct ktr_target);
} targets SEC(".maps");

/* Per syscall number: which arguments are paths, which I/O to capture. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KTR_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct ktr_sysinfo);
} sysinfo SEC(".maps");

/* What this task was last announced as, in a KTR_THREAD record. */
struct thread_id {
	__u32 tid;
	__u32 pid;
	char comm[KTR_COMM_LEN];
};

/*
 * Without task storage (before 5.11) user space makes this an LRU hash of
 * thread ids: an entry pushed out only costs its thread one more KTR_THREAD
 * record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_id);
} announced SEC(".maps");

const volatile bool task_storage = true;

struct drop_state {
	__u64 pending; /* lost since the last KTR_DROP record on this CPU */
	__u64 total;   /* lost since load */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct drop_state);
} drops SEC(".maps");

/*
 * Variable-length records are built here, then copied to the ring: the
 * payload is a path, or a fixed part (GIO, ARGS) followed by data.
 */
struct scratch {
	struct ktr_hdr hdr;
	char payload[sizeof(struct ktr_genio) + KTR_EXEC_MAX];
};

#define GIO_FIXED(s) ((struct ktr_genio *)(s)->payload)
#define GIO_DATA(s) ((s)->payload + sizeof(struct ktr_genio))
#define EXEC_FIXED(s) ((struct ktr_exec *)(s)->payload)
#define EXEC_DATA(s) ((s)->payload + sizeof(struct ktr_exec))

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

/*
 * Wake the reader only once this much is queued: a wakeup per record
 * would cost more than the record itself. The reader also polls on a
 * short timer, so a quiet trace still reaches the file promptly.
 */
const volatile __u64 wakeup_bytes = 256 << 10;

#define SIGKILL_NR 9
#define SI_KERNEL_CODE 0x80

static __always_inline void fill_hdr(struct ktr_hdr *h, __u8 type, __u32 len)
{
	h->type = type;
	h->flags = 0;
	h->len = len;
	h->tid = (__u32)bpf_get_current_pid_tgid();
	h->ts_ns = bpf_ktime_get_boot_ns();
}

static __always_inline long wake_flag(void)
{
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void note_drop(void)
{
	__u32 zero = 0;
	struct drop_state *ds = bpf_map_lookup_elem(&drops, &zero);

	if (ds) {
		ds->pending++;
		ds->total++;
	}
}

/* Mark the place of earlier losses before the next record, as KTR_DROP. */
static __always_inline void flush_drops(void)
{
	struct {
		struct ktr_hdr hdr;
		struct ktr_drop drop;
	} * rec;
	__u32 zero = 0;
	struct drop_state *ds = bpf_map_lookup_elem(&drops, &zero);

	if (!ds || !ds->pending)
		return;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec)
		return;
	fill_hdr(&rec->hdr, KTR_DROP, sizeof(rec->drop));
	rec->drop.count = ds->pending;
	ds->pending = 0;
	bpf_ringbuf_submit(rec, wake_flag());
}

static __always_inline bool same_thread(const struct thread_id *a, const struct thread_id *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/*
 * Say who the current thread is, in a KTR_THREAD record, unless the last
 * one still holds: its tid, process and command name. False when that
 * record was lost: the record it was for is dropped too, so that no
 * record in the file names a thread the file has not introduced.
 */
/* A new entry, which no thread making syscalls matches. */
static const struct thread_id nobody;

static __always_inline struct thread_id *announced_get(int tid)
{
	if (task_storage)
		return bpf_task_storage_get(&announced, bpf_get_current_task_btf(), 0,
					    BPF_LOCAL_STORAGE_GET_F_CREATE);
	bpf_map_update_elem(&announced, &tid, (void *)&nobody, BPF_NOEXIST);
	return bpf_map_lookup_elem(&announced, &tid);
}

static __always_inline bool announce_thread(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct thread_id now = { .tid = (__u32)pid_tgid, .pid = pid_tgid >> 32 };
	struct thread_id *seen;
	struct {
		struct ktr_hdr hdr;
		struct ktr_thread thr;
	} * rec;

	bpf_get_current_comm(now.comm, sizeof(now.comm));
	seen = announced_get(now.tid);
	if (seen && same_thread(seen, &now))
		return true;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec)
		return false;
	fill_hdr(&rec->hdr, KTR_THREAD, sizeof(rec->thr));
	rec->thr.pid = now.pid;
	rec->thr.pad = 0;
	__builtin_memcpy(rec->thr.comm, now.comm, sizeof(now.comm));
	bpf_ringbuf_submit(rec, wake_flag());
	if (seen)
		*seen = now;
	return true;
}

/* Before any record: its thread introduced, earlier losses marked. */
static __always_inline bool begin_record(void)
{
	if (!announce_thread()) {
		note_drop();
		return false;
	}
	flush_drops();
	return true;
}

/* Copy a built record of hdr + len payload bytes into the ring. */
static __always_inline void output(struct scratch *s, __u32 len)
{
	if (len > sizeof(*s) - sizeof(s->hdr) || !begin_record())
		return;
	if (bpf_ringbuf_output(&events, s, sizeof(s->hdr) + len, wake_flag()))
		note_drop();
}

static __always_inline struct scratch *get_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch_map, &zero);
}

static __always_inline struct ktr_target *lookup_target(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&targets, &tgid);
}

static __always_inline struct ktr_sysinfo *lookup_sysinfo(long nr)
{
	__u32 key = nr;

	if (nr < 0 || nr >= KTR_MAX_SYSCALLS)
		return NULL;
	return bpf_map_lookup_elem(&sysinfo, &key);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ktr_sys_enter, struct pt_regs *regs, long id)
{
	struct {
		struct ktr_hdr hdr;
		struct ktr_syscall call;
	} rec;
	struct ktr_target *t = lookup_target();
	struct ktr_sysinfo *si;
	__u32 nargs;

	if (!t)
		return 0;
	si = lookup_sysinfo(id);
	if (t->flags & KTR_T_AWAIT_EXEC) {
		/* ktrace cmd: everything before the command's exec is ktrace's. */
		if (!si || !si->is_exec)
			return 0;
		t->flags &= ~KTR_T_AWAIT_EXEC; /* only its one thread runs yet */
	}
	if (!(t->facs & KTRFAC_SYSCALL) || !begin_record())
		return 0;
	/* The prototype's arguments only: a read(2) record is 24 bytes less. */
	nargs = si && si->nargs < KTR_SYSCALL_ARGS ? si->nargs : KTR_SYSCALL_ARGS;
	fill_hdr(&rec.hdr, KTR_SYSCALL, KTR_SYSCALL_LEN(nargs));
	rec.call.code = id;
	rec.call.nargs = nargs;
	rec.call.args[0] = syscall_arg(regs, 0);
	rec.call.args[1] = syscall_arg(regs, 1);
	rec.call.args[2] = syscall_arg(regs, 2);
	rec.call.args[3] = syscall_arg(regs, 3);
	rec.call.args[4] = syscall_arg(regs, 4);
	rec.call.args[5] = syscall_arg(regs, 5);
	if (bpf_ringbuf_output(&events, &rec, sizeof(rec.hdr) + KTR_SYSCALL_LEN(nargs),
			       wake_flag()))
		note_drop();
	return 0;
}

static __always_inline void emit_user_path(struct scratch *s, __u64 uptr)
{
	long n;

	if (!uptr)
		return;
	n = bpf_probe_read_user_str(s->payload, KTR_PATH_MAX, (const void *)uptr);
	/* "" with AT_EMPTY_PATH names the fd itself: nothing is looked up. */
	if (n <= 1 || n > KTR_PATH_MAX)
		return;
	fill_hdr(&s->hdr, KTR_NAMEI, n - 1);
	output(s, n - 1);
}

static __always_inline void emit_paths(struct pt_regs *regs, __u8 mask)
{
	struct scratch *s = get_scratch();
	int i;

	if (!s)
		return;
#pragma unroll
	for (i = 0; i < KTR_SYSCALL_ARGS; i++) {
		if (mask & (1 << i))
			emit_user_path(s, syscall_arg(regs, i));
	}
}

/* Append up to want bytes from user memory at off; returns bytes added. */
static __always_inline __u32 gio_copy(struct scratch *s, __u32 off, const void *src, __u64 want)
{
	__u64 n;

	if (off >= KTR_GIO_MAX)
		return 0;
	n = want < KTR_GIO_MAX - off ? want : KTR_GIO_MAX - off;
	/*
	 * The compiler knows these bounds and would drop the checks below;
	 * the verifier needs to see them: off < 4096 and n <= 4096 keep the
	 * copy inside data[].
	 */
	barrier_var(off);
	barrier_var(n);
	off &= KTR_GIO_MAX - 1;
	if (n > KTR_GIO_MAX)
		return 0;
	if (bpf_probe_read_user(GIO_DATA(s) + off, n, src))
		return 0;
	return n;
}

/* Gather the first `left` bytes of an iovec array. */
static __always_inline __u32 gio_iov(struct scratch *s, const struct iovec *uiov, __u64 cnt,
				     __u64 left)
{
	struct iovec iov;
	__u32 off = 0, got;
	__u64 take;
	__u32 i;

	for (i = 0; i < KTR_GIO_MAX_IOV; i++) {
		if (i >= cnt || !left || off >= KTR_GIO_MAX)
			break;
		if (bpf_probe_read_user(&iov, sizeof(iov), &uiov[i]))
			break;
		take = iov.iov_len < left ? iov.iov_len : left;
		got = gio_copy(s, off, iov.iov_base, take);
		if (got < take && off + got < KTR_GIO_MAX)
			break; /* unreadable: keep what was read */
		off += got;
		left -= take;
	}
	return off;
}

static __always_inline __u32 gio_data(struct scratch *s, struct pt_regs *regs, __u8 kind,
				      __u64 count)
{
	struct user_msghdr msg;
	void *p = (void *)syscall_arg(regs, 1);

	switch (kind) {
	case KTR_GIO_BUF:
		return gio_copy(s, 0, p, count);
	case KTR_GIO_IOV:
		return gio_iov(s, p, syscall_arg(regs, 2), count);
	case KTR_GIO_MSG:
		if (bpf_probe_read_user(&msg, sizeof(msg), p))
			return 0;
		return gio_iov(s, msg.msg_iov, msg.msg_iovlen, count);
	}
	return 0;
}

static __always_inline void emit_gio(struct pt_regs *regs, struct ktr_sysinfo *si, long nr,
				     long ret)
{
	struct scratch *s = get_scratch();
	__u32 n;

	if (!s)
		return;
	n = gio_data(s, regs, si->gio, ret);
	if (n > KTR_GIO_MAX)
		return;
	fill_hdr(&s->hdr, KTR_GENIO, sizeof(struct ktr_genio) + n);
	if (n < ret)
		s->hdr.flags |= KTR_F_TRUNC;
	GIO_FIXED(s)->fd = syscall_arg(regs, 0);
	GIO_FIXED(s)->rw = si->gio_rw;
	GIO_FIXED(s)->code = nr;
	GIO_FIXED(s)->pad = 0;
	GIO_FIXED(s)->count = ret;
	output(s, sizeof(struct ktr_genio) + n);
}

static __always_inline void emit_sysret(long nr, long ret)
{
	struct {
		struct ktr_hdr hdr;
		struct ktr_sysret ret;
	} * rec;

	if (!begin_record())
		return;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec) {
		note_drop();
		return;
	}
	fill_hdr(&rec->hdr, KTR_SYSRET, sizeof(rec->ret));
	rec->ret.code = nr;
	/* Linux returns -errno; BSD's SYSRET carries error and value apart. */
	rec->ret.error = (ret < 0 && ret >= -4095) ? -ret : 0;
	rec->ret.retval = ret;
	bpf_ringbuf_submit(rec, wake_flag());
}

static __always_inline int sys_exit(struct pt_regs *regs, long ret, bool with_io)
{
	struct ktr_target *t = lookup_target();
	struct ktr_sysinfo *si;
	long nr;

	if (!t || (t->flags & KTR_T_AWAIT_EXEC))
		return 0;
	nr = SYSCALL_NR(regs);
	/*
	 * -1: rt_sigreturn restored the registers, or a tracer skipped the
	 * call; the value in ax is no syscall's return value.
	 */
	if (nr < 0)
		return 0;
	si = with_io && (t->facs & (KTRFAC_NAMEI | KTRFAC_GENIO)) ? lookup_sysinfo(nr) : NULL;
	if (si) {
		/* A successful exec replaced the user memory the pointer was in. */
		if ((t->facs & KTRFAC_NAMEI) && si->path_args && !(si->is_exec && ret == 0))
			emit_paths(regs, si->path_args);
		if ((t->facs & KTRFAC_GENIO) && si->gio && ret > 0)
			emit_gio(regs, si, nr, ret);
	}
	if (t->facs & KTRFAC_SYSCALL)
		emit_sysret(nr, ret);
	return 0;
}

/*
 * Two versions of the sys_exit program; the recorder loads one. Without
 * n or i in any -t, the paths and I/O code is neither verified (most of
 * the load time) nor run.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(ktr_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, false);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ktr_sys_exit_io, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, true);
}

static __always_inline void emit_exec_area(__u16 type, unsigned long start, unsigned long end)
{
	struct scratch *s = get_scratch();
	__u64 total = end - start;
	__u32 n;

	if (!s || end <= start)
		return;
	n = total < KTR_EXEC_MAX ? total : KTR_EXEC_MAX;
	barrier_var(n);
	if (n > KTR_EXEC_MAX)
		return;
	if (bpf_probe_read_user(EXEC_DATA(s), n, (const void *)start))
		return;
	fill_hdr(&s->hdr, type, sizeof(struct ktr_exec) + n);
	if (n < total)
		s->hdr.flags |= KTR_F_TRUNC;
	EXEC_FIXED(s)->total = total;
	EXEC_FIXED(s)->pad = 0;
	output(s, sizeof(struct ktr_exec) + n);
}

static __always_inline void emit_exec_path(struct linux_binprm *bprm)
{
	struct scratch *s = get_scratch();
	const char *name;
	long n;

	if (!s)
		return;
	name = BPF_CORE_READ(bprm, filename);
	n = bpf_probe_read_kernel_str(s->payload, KTR_PATH_MAX, name);
	if (n <= 0 || n > KTR_PATH_MAX)
		return;
	fill_hdr(&s->hdr, KTR_NAMEI, n - 1);
	output(s, n - 1);
}

/* After a successful exec: the path as the kernel holds it, then argv/envp. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(ktr_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct ktr_target *t = lookup_target();
	struct mm_struct *mm;

	if (!t || (t->flags & KTR_T_AWAIT_EXEC))
		return 0;
	if (t->facs & KTRFAC_NAMEI)
		emit_exec_path(bprm);
	mm = BPF_CORE_READ(p, mm);
	if (t->facs & KTRFAC_EXECARGS)
		emit_exec_area(KTR_EXECARGS, BPF_CORE_READ(mm, arg_start),
			       BPF_CORE_READ(mm, arg_end));
	if (t->facs & KTRFAC_EXECENV)
		emit_exec_area(KTR_EXECENV, BPF_CORE_READ(mm, env_start),
			       BPF_CORE_READ(mm, env_end));
	return 0;
}

/*
 * The siginfo part, as the tracepoint's own TP_STORE_SIGINFO reads it:
 * SEND_SIG_NOINFO (0) and SEND_SIG_PRIV (1) are not pointers.
 */
static __always_inline void fill_psig(struct ktr_psig *p, int sig, struct kernel_siginfo *info,
				      struct task_struct *task)
{
	int exit_code;

	p->signo = sig;
	p->sender_pid = 0;
	p->sender_uid = 0;
	p->err = 0;
	if ((unsigned long)info <= 1) {
		p->code = info ? SI_KERNEL_CODE : 0 /* SI_USER */;
		p->flags = KTR_PSIG_NOINFO;
		/*
		 * A fatal signal became a group exit: the task is told SIGKILL,
		 * and the signal that caused it is the group's exit code (an
		 * exit(2) status would be shifted left by 8).
		 */
		exit_code = BPF_CORE_READ(task, signal, group_exit_code);
		if (sig == SIGKILL_NR && exit_code > 0 && exit_code <= 64)
			p->signo = exit_code;
		return;
	}
	p->flags = 0;
	p->code = BPF_CORE_READ(info, si_code);
	p->err = BPF_CORE_READ(info, si_errno);
	p->sender_pid = BPF_CORE_READ(info, _sifields._kill._pid);
	p->sender_uid = BPF_CORE_READ(info, _sifields._kill._uid);
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(ktr_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct {
		struct ktr_hdr hdr;
		struct ktr_psig psig;
	} * rec;
	struct ktr_target *t = lookup_target();
	struct task_struct *task;

	if (!t || (t->flags & KTR_T_AWAIT_EXEC) || !(t->facs & KTRFAC_PSIG))
		return 0;
	if (!begin_record())
		return 0;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec) {
		note_drop();
		return 0;
	}
	/* Not bpf_get_current_task_btf: 5.11. Its fields are read with CO-RE. */
	task = (struct task_struct *)bpf_get_current_task();
	fill_hdr(&rec->hdr, KTR_PSIG, sizeof(rec->psig));
	fill_psig(&rec->psig, sig, info, task);
	rec->psig.action = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
	rec->psig.sa_flags = BPF_CORE_READ(ka, sa.sa_flags);
	rec->psig.mask = BPF_CORE_READ(task, blocked.sig[0]);
	bpf_ringbuf_submit(rec, wake_flag());
	return 0;
}

/* -i: a new process of a traced one is traced the same way. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(ktr_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct ktr_target *t, nt;

	if (ptgid == ctgid) /* a new thread of a traced process */
		return 0;
	t = bpf_map_lookup_elem(&targets, &ptgid);
	if (!t || !(t->flags & KTR_T_INHERIT) || (t->flags & KTR_T_AWAIT_EXEC))
		return 0;
	nt = *t;
	bpf_map_update_elem(&targets, &ctgid, &nt, BPF_ANY);
	return 0;
}

/*
 * Forget a process when its last thread exits. signal->live reaches zero
 * before this tracepoint on every kernel; 6.16 added a group_dead argument
 * but older kernels lack it.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ktr_exit, struct task_struct *p)
{
	__u32 tgid;

	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	tgid = BPF_CORE_READ(p, tgid);
	bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
