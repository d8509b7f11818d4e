/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring records: the event header, the wakeup rule, submission and the
 * kernel stack record.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_RECORD_H
#define KSNOOP_TRACE_RECORD_H

/* The header a lite event has: its first KSNOOP_LITE_HDR_SIZE bytes. */
static __always_inline void init_head(struct ksnoop_event *ev, __u16 kind, __u32 fid, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	ev->kind = kind;
	ev->nr_vrecs = 0;
	ev->depth = 0;
	ev->func_id = fid;
	ev->ts = now;
	ev->cpu = bpf_get_smp_processor_id();
	ev->tgid = id >> 32;
	ev->pid = (__u32)id;
	ev->data_len = 0;
	if (want_comm)
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	else
		ev->comm[0] = 0;
}

static __always_inline void init_event(struct ksnoop_event *ev, __u16 kind, __u32 fid, __u64 now)
{
	init_head(ev, kind, fid, now);
	ev->duration_ns = 0;
	ev->chain_id = 0;
}

/*
 * Wake the reader when the queue grows past wakeup_bytes, or when it has
 * not been woken for KSNOOP_WAKE_INTERVAL_NS. The default wakes it whenever it
 * has caught up, which for a reader about as fast as the traced code
 * means a wakeup (an IPI and a context switch) per event; forcing one on
 * every event past the mark would be as bad. The reader drains everything
 * once awake (its epoll is level-triggered), so a stream costs at most
 * one wakeup per interval and a mark, and a trickle's events, the first
 * one included, show within the interval instead of the reader's poll.
 * CPUs race on last_wake_ns: the loser's wakeup is one more, harmless.
 */
__u64 last_wake_ns;

static __always_inline bool wake_due(__u64 now)
{
	if ((__s64)(now - last_wake_ns) < KSNOOP_WAKE_INTERVAL_NS)
		return false;
	last_wake_ns = now;
	return true;
}

static __always_inline __u64 wakeup_flag(__u64 len, __u64 now)
{
	__u64 queued;

	if (!wakeup_bytes)
		return 0;
	if (wake_due(now))
		return BPF_RB_FORCE_WAKEUP;
	queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	return queued < wakeup_bytes && queued + len >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
								     : BPF_RB_NO_WAKEUP;
}

/*
 * The same for a record reserved in place, from where it lies instead of
 * a helper call that asks the fill. The ring's data pages are mapped twice
 * in a row and its size is a multiple of wakeup_bytes (both powers of
 * two), so each wakeup_bytes of records produced covers exactly one
 * address that is a multiple of wakeup_bytes, and the record covering it
 * forces a wakeup: a reader asleep since it drained the ring is woken
 * within wakeup_bytes, as by the fill; one still draining takes a wakeup
 * it does not need once per wakeup_bytes.
 */
static __always_inline __u64 place_wakeup(struct ksnoop_event *ev, __u32 size, __u64 now)
{
	__u64 start, total = (size + BPF_RINGBUF_HDR_SZ + 7) & ~7ULL;

	if (!wakeup_bytes)
		return 0;
	if (wake_due(now))
		return BPF_RB_FORCE_WAKEUP;
	/*
	 * The verifier lets a pointer's value out only through memory, and
	 * only to programs loaded with CAP_PERFMON, as tracing programs are:
	 * the timestamp's slot, written after this.
	 */
	*(volatile __u64 *)&ev->ts = (__u64)ev;
	start = *(volatile __u64 *)&ev->ts - BPF_RINGBUF_HDR_SZ;
	return ((0 - start) & (wakeup_bytes - 1)) < total ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void submit(struct ksnoop_event *ev)
{
	__u64 len = KSNOOP_EVENT_HDR_SIZE + ev->data_len;

	if (len > sizeof(*ev))
		len = sizeof(*ev);
	if (bpf_ringbuf_output(&events, ev, len, wakeup_flag(len, ev->ts)))
		count_drop(KSNOOP_DROP_RINGBUF);
}

/*
 * --kstack: the kernel stack as the event's last record, with the return
 * address a kprobe's function was entered with (0 elsewhere).
 */
static __always_inline void append_kstack(void *ctx, struct ksnoop_event *ev, __u64 ra,
					  bool trampoline)
{
	__u32 off = ev->data_len;
	struct ksnoop_vrec *vr;
	long n;

	if (off >= KSNOOP_DATA_MAX)
		return;
	/* Re-bound: clang may test one copy of off and index with another. */
	barrier_var(off);
	off &= KSNOOP_DATA_MAX - 1;
	vr = (void *)&ev->data[off];
	n = bpf_get_stack(ctx, vr + 1, kstack_bytes & (KSNOOP_KSTACK_MAX * 8 + 7), 0);
	if (n <= 0) {
		count_drop(KSNOOP_DROP_STACK);
		return;
	}
	vr->raw = ra;
	vr->len = n;
	vr->idx = KSNOOP_VREC_KSTACK;
	vr->flags = trampoline ? KSNOOP_VR_TRAMPOLINE : 0;
	ev->data_len = off + sizeof(*vr) + ((n + 7) & ~7);
	ev->nr_vrecs++;
}

/* Where a ustack record may begin: past the values and the kstack. */
#define USTACK_OFF_MAX (KSNOOP_DATA_MAX + 16 + KSNOOP_KSTACK_MAX * 8)

/*
 * --ustack: the user stack as the record after the kernel's. A kernel
 * thread has none, and a task may have no user frame to give: nothing is
 * recorded then, and nothing is lost. At a user function's entry (ra, a
 * user address) its caller is in no frame yet: raw keeps it, as a kstack's
 * does.
 */
struct umaps_ctx {
	struct ksnoop_umap *maps; /* in the event, after its ustack */
	const __u64 *ips;
	__u32 nr_ips, nr;
};

/* The components of file's path, leaf first, up to its file system's root. */
static __always_inline void umap_path(struct ksnoop_umap *m, struct file *file)
{
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry), *parent;
	__u32 off = 0, k;
	long n;

	for (k = 0; k < KSNOOP_UMAP_DEPTH; k++) {
		parent = BPF_CORE_READ(d, d_parent);
		if (!parent || parent == d)
			return;
		if (off >= KSNOOP_UMAP_PATH - 1)
			break;
		n = bpf_probe_read_kernel_str(&m->path[off & (KSNOOP_UMAP_PATH - 1)],
					      KSNOOP_UMAP_PATH - (off & (KSNOOP_UMAP_PATH - 1)),
					      BPF_CORE_READ(d, d_name.name));
		if (n <= 1 || off + n >= KSNOOP_UMAP_PATH)
			break;
		off += n;
		m->depth = k + 1;
		d = parent;
	}
	m->flags |= KSNOOP_UMAP_TRUNCATED;
}

/* bpf_find_vma's callback: the mapping holding a frame, when a file is mapped there. */
static long umap_take(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
	struct umaps_ctx *c = arg;
	struct ksnoop_umap *m = &c->maps[c->nr & (KSNOOP_UMAPS_MAX - 1)];
	struct file *file = BPF_CORE_READ(vma, vm_file);

	if (!file)
		return 0;
	m->start = BPF_CORE_READ(vma, vm_start);
	m->end = BPF_CORE_READ(vma, vm_end);
	m->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	m->ino = BPF_CORE_READ(file, f_inode, i_ino);
	m->dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	m->depth = 0;
	m->flags = 0;
	umap_path(m, file);
	c->nr++;
	return 0;
}

/* bpf_loop's step: frame i's mapping, unless an earlier frame's holds it. */
static int umap_frame(__u32 i, void *arg)
{
	struct umaps_ctx *c = arg;
	__u64 ip = c->ips[i & (KSNOOP_USTACK_MAX - 1)];
	__u32 k;

	for (k = 0; k < KSNOOP_UMAPS_MAX; k++) {
		if (k >= c->nr)
			break;
		if (ip >= c->maps[k].start && ip < c->maps[k].end)
			return 0;
	}
	if (c->nr >= KSNOOP_UMAPS_MAX)
		return 1;
	bpf_find_vma(bpf_get_current_task_btf(), ip, umap_take, c, 0);
	return 0;
}

/*
 * After the ustack record: its frames' mappings, read in the kernel at
 * the event (KSNOOP_VREC_UMAPS), for a process gone before user space can
 * read its maps. MODERN programs only: bpf_find_vma came with bpf_loop.
 */
static __always_inline void append_umaps(struct ksnoop_event *ev, const __u64 *ips, __u32 nr_ips)
{
	__u32 off = ev->data_len;
	struct ksnoop_vrec *vr;
	struct umaps_ctx c;

	if (off > USTACK_OFF_MAX + 16 + 1024)
		return;
	barrier_var(off);
	if (off > USTACK_OFF_MAX + 16 + 1024)
		return;
	vr = (void *)&ev->data[off];
	c.maps = (void *)(vr + 1);
	c.ips = ips;
	c.nr_ips = nr_ips;
	c.nr = 0;
	bpf_loop(nr_ips, umap_frame, &c, 0);
	if (!c.nr)
		return;
	vr->raw = 0;
	vr->len = (c.nr & (KSNOOP_UMAPS_MAX * 2 - 1)) * sizeof(struct ksnoop_umap);
	vr->idx = KSNOOP_VREC_UMAPS;
	vr->flags = 0;
	ev->data_len = off + sizeof(*vr) + vr->len;
	ev->nr_vrecs++;
}

static __always_inline void append_ustack(void *ctx, struct ksnoop_event *ev, __u64 ra,
					  enum prog_build b)
{
	__u32 off = ev->data_len;
	struct ksnoop_vrec *vr;
	long n;

	if (off > USTACK_OFF_MAX)
		return;
	/* Re-bound: clang may test one copy of off and index with another. */
	barrier_var(off);
	if (off > USTACK_OFF_MAX)
		return;
	vr = (void *)&ev->data[off];
	n = bpf_get_stack(ctx, vr + 1, ustack_bytes & 1023, BPF_F_USER_STACK);
	if (n <= 0)
		return;
	vr->raw = ra && KSNOOP_IS_USER_ADDR(ra) && ev->kind == KSNOOP_EV_ENTRY ? ra : 0;
	vr->len = n;
	vr->idx = KSNOOP_VREC_USTACK;
	vr->flags = 0;
	ev->data_len = off + sizeof(*vr) + ((n + 7) & ~7);
	ev->nr_vrecs++;
	if (b == MODERN && ustack_maps)
		append_umaps(ev, (const __u64 *)(vr + 1), n / 8);
}

#define PF_KTHREAD_FLAG 0x00200000

/* The current task's saved user registers, or NULL for a kernel thread. */
static __always_inline const void *current_user_regs(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	if (BPF_CORE_READ(task, flags) & PF_KTHREAD_FLAG)
		return NULL;
	if (task_pt_regs)
		return (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	return (const void *)((long)BPF_CORE_READ(task, stack) + KSNOOP_THREAD_SIZE -
			      bpf_core_type_size(struct pt_regs));
}

/*
 * The user stack from sp up, ustack_dump_bytes of it where it is mapped
 * that far, else up to a page boundary: a read that crosses the top of
 * the stack fails as a whole. How many bytes were copied.
 */
static __always_inline __u32 copy_user_stack(void *dst, __u64 sp)
{
	__u32 head = 4096 - (sp & 4095), n;
	int k;

	if (!bpf_probe_read_user(dst, ustack_dump_bytes & (KSNOOP_USTACK_DUMP_MAX * 2 - 1),
				 (void *)sp))
		return ustack_dump_bytes;
#pragma unroll
	for (k = KSNOOP_USTACK_DUMP_MAX / 4096; k >= 0; k--) {
		n = head + k * 4096;
		if (n >= ustack_dump_bytes)
			continue;
		if (!bpf_probe_read_user(dst, n & (KSNOOP_USTACK_DUMP_MAX - 1), (void *)sp))
			return n;
	}
	return 0;
}

/*
 * --call-graph dwarf: the user registers and a copy of the stack, for
 * user space to unwind with CFI where frame pointers are gone. Nothing is
 * recorded for a kernel thread or a stack that cannot be read.
 */
static __always_inline void append_ustack_dump(struct ksnoop_event *ev)
{
	__u32 off = ev->data_len, n;
	const void *regs = current_user_regs();
	struct ksnoop_vrec *vr;
	__u8 *d;
	__u64 sp;

	if (!regs || off > USTACK_OFF_MAX)
		return;
	barrier_var(off);
	if (off > USTACK_OFF_MAX)
		return;
	vr = (void *)&ev->data[off];
	d = (__u8 *)(vr + 1);
	if (bpf_probe_read_kernel(d, KSNOOP_UREGS_SIZE, regs))
		return;
	sp = *(__u64 *)(d + KSNOOP_UREGS_SP_OFF);
	n = copy_user_stack(d + KSNOOP_UREGS_SIZE, sp);
	if (!n)
		return;
	vr->raw = sp;
	vr->len = KSNOOP_UREGS_SIZE + n;
	vr->idx = KSNOOP_VREC_USTACK_DUMP;
	vr->flags = 0;
	ev->data_len = off + sizeof(*vr) + ((vr->len + 7) & ~7);
	ev->nr_vrecs++;
}

/* --kstack, --ustack: the event's stacks, its last records. */
static __always_inline void append_stacks(void *ctx, struct ksnoop_event *ev, __u64 ra,
					  bool trampoline, enum prog_build b)
{
	if (kstack_bytes)
		append_kstack(ctx, ev, ra, trampoline);
	if (ustack_dump_bytes)
		append_ustack_dump(ev);
	else if (ustack_bytes)
		append_ustack(ctx, ev, ra, b);
}

#endif /* KSNOOP_TRACE_RECORD_H */
