/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The integer comparison of predicates, shared by trace.bpf.c and
 * kpe.bpf.c (and unit-tested on the host): a value of bits bits, sign
 * extended or masked to them, against a constant. The ops' numbers are
 * enum ksnoop_cmp's and enum kpe_cmp's, which abi/ asserts.
 */
#ifndef KSNOOP_INTCMP_H
#define KSNOOP_INTCMP_H

enum intcmp_op {
	INTCMP_EQ,
	INTCMP_NE,
	INTCMP_LT,
	INTCMP_LE,
	INTCMP_GT,
	INTCMP_GE,
	INTCMP_BAND, /* (value & rhs) != 0 */
};

/* bits: the value's width, 1 to 64; 0 or 64 take all 64. */
static __always_inline bool intcmp(__u32 op, __u64 x, __u64 rhs, __u32 bits, bool is_signed)
{
	__u32 shift = bits && bits < 64 ? 64 - bits : 0;

	if (op == INTCMP_BAND)
		return (x & rhs) != 0;
	if (is_signed) {
		__s64 a = (__s64)(x << shift) >> shift, b = (__s64)rhs;

		switch (op) {
		case INTCMP_EQ:
			return a == b;
		case INTCMP_NE:
			return a != b;
		case INTCMP_LT:
			return a < b;
		case INTCMP_LE:
			return a <= b;
		case INTCMP_GT:
			return a > b;
		case INTCMP_GE:
			return a >= b;
		}
		return false;
	}
	x = (x << shift) >> shift;
	switch (op) {
	case INTCMP_EQ:
		return x == rhs;
	case INTCMP_NE:
		return x != rhs;
	case INTCMP_LT:
		return x < rhs;
	case INTCMP_LE:
		return x <= rhs;
	case INTCMP_GT:
		return x > rhs;
	case INTCMP_GE:
		return x >= rhs;
	}
	return false;
}

#endif
