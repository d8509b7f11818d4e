/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lite records: an event written straight into the ring, its values at
 * offsets fixed per side.
 *
 * Part of trace.bpf.c, included there in order after the headers before
 * it; not a header of its own.
 */
#ifndef KSNOOP_TRACE_LITE_H
#define KSNOOP_TRACE_LITE_H

/*
 * KSNOOP_CFG_LITE, per side (enum ksnoop_side): the bytes each event
 * reserves, 0 for no lite events; and for value slot k, the furthest its
 * record starts in the data and the most bytes it reads. The verifier
 * checks every write of lite_event against these, as constants.
 */
const volatile __u32 lite_rec[2];
const volatile __u16 lite_off[2][KSNOOP_LITE_VALUES];
const volatile __u16 lite_len[2][KSNOOP_LITE_VALUES];
const volatile __u8 lite_slots[2]; /* the most values any lite plan has, by side */
/* Every function is lite on both sides: the verifier never walks the rest. */
const volatile bool lite_only;

/*
 * KSNOOP_CFG_LITE: the event is built in its ring record, reserved at the
 * session's lite_rec size, with no scratch and no copy. Slot k's record
 * starts at most lite_off[side][k] into the data and reads at most
 * lite_len[side][k] bytes, which user space made room for (lite.c,
 * lite_layout_plans); side and k are constants here, so these are too.
 */
static __always_inline __u32 lite_slot(struct capture_ctx *c, struct ksnoop_event *ev, __u32 off,
				       __u32 side, __u32 k, bool func_args)
{
	__u32 i = c->cfg->side[side][k] & (KSNOOP_MAX_VALUES - 1), len;
	struct ksnoop_vrec *vr;

	if (off > lite_off[side][k])
		return off;
	vr = (void *)ev + KSNOOP_LITE_HDR_SIZE + off;
	len = capture_value(c, &c->cfg->values[i], vr, lite_len[side][k], false, func_args);
	vr->idx = i;
	ev->nr_vrecs++;
	return off + sizeof(*vr) + ((len + 7) & ~7U);
}

static __always_inline void lite_event(struct capture_ctx *c, __u32 id, __u32 side, bool func_args)
{
	__u32 n = c->cfg->nr_side[side], off = 0;
	struct ksnoop_event *ev;
	__u64 now, wake;

	ev = bpf_ringbuf_reserve(&events, lite_rec[side], 0);
	if (!ev) {
		count_drop(KSNOOP_DROP_RINGBUF);
		return;
	}
	now = bpf_ktime_get_ns();
	wake = place_wakeup(ev, lite_rec[side], now);
	init_head(ev,
		  KSNOOP_EV_LITE | (side == KSNOOP_SIDE_ENTRY ? KSNOOP_EV_ENTRY : KSNOOP_EV_RETURN),
		  id, now);
	/*
	 * Unrolled by hand: clang will not, around follow_steps' loop. The
	 * constant lite_slots leaves the verifier no unused slot to walk.
	 */
#define LITE_SLOT(k)                             \
	if (n <= (k) || lite_slots[side] <= (k)) \
		goto done;                       \
	off = lite_slot(c, ev, off, side, k, func_args)
	LITE_SLOT(0);
	LITE_SLOT(1);
	LITE_SLOT(2);
	LITE_SLOT(3);
	LITE_SLOT(4);
	LITE_SLOT(5);
	LITE_SLOT(6);
	LITE_SLOT(7);
#undef LITE_SLOT
	_Static_assert(KSNOOP_LITE_VALUES == 8, "one LITE_SLOT per lite value");
done:
	ev->data_len = off;
	bpf_ringbuf_submit(ev, wake);
}

#endif /* KSNOOP_TRACE_LITE_H */
