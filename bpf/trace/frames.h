/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames: a call's entry pushed per thread and popped at its return, its
 * entry values stashed for a combined event.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_FRAMES_H
#define KSNOOP_TRACE_FRAMES_H

static __always_inline struct frame *push_frame(struct task_state *ts, __u32 fid, __u64 now)
{
	struct frame *f;

	if (ts->depth >= KSNOOP_MAX_DEPTH) {
		count_drop(KSNOOP_DROP_DEPTH);
		return NULL;
	}
	f = &ts->frames[ts->depth & (KSNOOP_MAX_DEPTH - 1)];
	f->func_id = fid;
	f->flags = 0;
	f->entry_ts = now;
	f->chain_id = 0;
	ts->depth++;
	return f;
}

static __always_inline struct stash_key stash_key_of(__u32 depth)
{
	return (struct stash_key){ .tid = (__u32)bpf_get_current_pid_tgid(), .depth = depth };
}

static __always_inline void stash_entry(struct scratch *s, __u32 depth, struct frame *f)
{
	struct stash_key key = stash_key_of(depth);
	long err;

	if (s->ev.data_len <= STASH_SMALL_DATA) {
		f->flags |= FRAME_STASH_SMALL;
		err = bpf_map_update_elem(&stash_small, &key, s, BPF_ANY);
	} else {
		err = bpf_map_update_elem(&stash, &key, s, BPF_ANY);
	}
	if (err) {
		count_drop(KSNOOP_DROP_STASH);
		f->flags |= FRAME_SKIP;
	}
}

/* The stash of a call whose return sends nothing. */
static __always_inline void drop_stash(__u32 depth, const struct frame *f)
{
	struct stash_key key = stash_key_of(depth);

	if (f->flags & FRAME_STASH_SMALL)
		bpf_map_delete_elem(&stash_small, &key);
	else
		bpf_map_delete_elem(&stash, &key);
}

/*
 * The innermost frame of fid, and the frames above it go too: their
 * returns were missed (a kretprobe out of instances, maxactive), and
 * left there they would fill the stack for the task's life. A return
 * without a frame (a missed entry) pops nothing.
 */
static __always_inline bool pop_frame(struct task_state *ts, __u32 fid, struct frame *out)
{
	__u32 i, d = ts->depth;
	struct frame *f;

	if (d > KSNOOP_MAX_DEPTH)
		return false;
	for (i = 0; i < KSNOOP_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		f = &ts->frames[(d - 1 - i) & (KSNOOP_MAX_DEPTH - 1)];
		if (f->func_id != fid)
			continue;
		*out = *f;
		ts->depth = d - 1 - i;
		return true;
	}
	return false;
}

static __always_inline bool unstash(struct scratch *s, __u32 depth, const struct frame *f)
{
	struct stash_key key = stash_key_of(depth);
	void *saved;

	if (f->flags & FRAME_STASH_SMALL) {
		saved = bpf_map_lookup_elem(&stash_small, &key);
		if (!saved)
			return false;
		bpf_probe_read_kernel(s, STASH_SMALL_SIZE, saved);
		bpf_map_delete_elem(&stash_small, &key);
		return true;
	}
	saved = bpf_map_lookup_elem(&stash, &key);
	if (!saved)
		return false;
	bpf_probe_read_kernel(s, sizeof(*s), saved);
	bpf_map_delete_elem(&stash, &key);
	return true;
}

#endif /* KSNOOP_TRACE_FRAMES_H */
