/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist's bucket of a value, log2 or linear, numbered as src/agg/table.h
 * numbers them; included by bpf/agg/agg.h and unit-tested on the host.
 */
#ifndef KSNOOP_BUCKET_H
#define KSNOOP_BUCKET_H

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	return r + (v >> 1);
}

/* 0 below lo, 1..nr from lo in steps of step, nr + 1 at or above hi. */
static __always_inline __u32 linear_bucket(__u64 v, bool is_signed, __s64 lo, __u64 step, __u32 nr)
{
	__u64 off = v - (__u64)lo, d;

	/*
	 * An unsigned value is never below a negative lo: compared as __u64,
	 * lo would be near 2^64 and every value below it.
	 */
	if (is_signed ? (__s64)v < lo : lo >= 0 && v < (__u64)lo)
		return 0;
	/* v - lo past 2^64: only an unsigned v near 2^64 over a negative lo */
	if (!is_signed && lo < 0 && off < v)
		return nr + 1;
	d = off / step;
	return d >= nr ? nr + 1 : d + 1;
}

static __always_inline __u32 hist_bucket(__u64 v, bool is_signed, bool linear, __s64 lo, __u64 step,
					 __u32 nr)
{
	if (linear)
		return linear_bucket(v, is_signed, lo, step, nr);
	if (is_signed && (__s64)v < 0)
		return 0;
	return v ? 2 + log2_u64(v) : 1;
}

#endif
