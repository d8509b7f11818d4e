/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The '*'/'?' matcher of string predicates, shared by trace.bpf.c and
 * kpe.bpf.c. It is a state machine that takes one step per
 * bpf_loop iteration, so the verifier checks one step instead of every
 * path through a match. The includer defines GLOB_PAT and GLOB_TXT, the
 * pattern's and the text's bytes, both powers of two.
 */
#ifndef KSNOOP_GLOB_H
#define KSNOOP_GLOB_H

/* Text longer than GLOB_TXT - 1 keeps a non-NUL tail. */
struct glob {
	char pat[GLOB_PAT];
	char txt[GLOB_TXT];
	__u32 plen, tlen, pi, ti;
	__s32 star, mark; /* the single backtrack point */
	__u32 literal;	  /* '*' and '?' match themselves (== and != in kprobe_events) */
	__s32 result;
};

static __always_inline __u32 bounded_strlen(const char *s, __u32 max)
{
	__u32 i;

	for (i = 0; i < max; i++) {
		if (!s[i])
			return i;
	}
	return max;
}

/* After pat and txt are filled in. */
static __always_inline void glob_start(struct glob *g, bool literal)
{
	g->pat[GLOB_PAT - 1] = 0;
	g->plen = bounded_strlen(g->pat, GLOB_PAT);
	g->tlen = bounded_strlen(g->txt, GLOB_TXT);
	g->pi = g->ti = 0;
	g->star = g->mark = -1;
	g->literal = literal;
	g->result = 0;
}

/* One step; 1 when g->result is final. */
static __always_inline int glob_step(struct glob *g)
{
	__u32 pi = g->pi & (GLOB_PAT - 1), ti = g->ti & (GLOB_TXT - 1);
	bool more_pat = g->pi < g->plen;
	char pc = g->pat[pi];

	if (g->ti < g->tlen) {
		if (more_pat && ((pc == '?' && !g->literal) || pc == g->txt[ti])) {
			g->pi++;
			g->ti++;
		} else if (more_pat && pc == '*' && !g->literal) {
			g->star = g->pi++;
			g->mark = g->ti;
		} else if (g->star >= 0) {
			g->pi = g->star + 1;
			g->ti = ++g->mark;
		} else {
			g->result = 0;
			return 1;
		}
		return 0;
	}
	if (more_pat && pc == '*' && !g->literal) {
		g->pi++;
		return 0;
	}
	g->result = !more_pat;
	return 1;
}

/*
 * The whole match in plain loops, for kernels without bpf_loop (before
 * 5.17), where the verifier would walk every step of glob_step's: a
 * pattern of at most one '*' (user space refuses others there) is a head
 * and a tail, each compared once. After glob_start. What a loop finds
 * goes to g, not a register, so that the verifier's states after it do
 * not differ by where it stopped.
 */
static __always_inline bool glob_chars_match(const struct glob *g, __u32 pi, __u32 ti, __u32 n)
{
	__u32 i;
	char pc;

	for (i = 0; i < GLOB_PAT; i++) {
		if (i >= n)
			return true;
		pc = g->pat[(pi + i) & (GLOB_PAT - 1)];
		if (pc != g->txt[(ti + i) & (GLOB_TXT - 1)] && (pc != '?' || g->literal))
			return false;
	}
	return true;
}

/*
 * Loaded from g at each use: a value kept in a register through a loop
 * leaves it with one range per iteration the loop may stop at, and the
 * verifier carries each into what follows, loop after loop.
 */
#define GLOB_LOAD(x) (*(volatile typeof(x) *)&(x))

static __always_inline bool glob_match_one_star(struct glob *g)
{
	__u32 i;

	g->star = -1;
	for (i = 0; i < GLOB_PAT && !g->literal; i++) {
		if (i >= GLOB_LOAD(g->plen))
			break;
		if (g->pat[i] == '*') {
			g->star = i;
			break;
		}
	}
	if (GLOB_LOAD(g->star) < 0)
		return GLOB_LOAD(g->tlen) == GLOB_LOAD(g->plen) &&
		       glob_chars_match(g, 0, 0, GLOB_LOAD(g->plen));
	/* mark: the tail's length */
	g->mark = GLOB_LOAD(g->plen) - GLOB_LOAD(g->star) - 1;
	if (GLOB_LOAD(g->tlen) < (__u32)GLOB_LOAD(g->star) + GLOB_LOAD(g->mark))
		return false;
	if (!glob_chars_match(g, 0, 0, GLOB_LOAD(g->star)))
		return false;
	return glob_chars_match(g, GLOB_LOAD(g->star) + 1, GLOB_LOAD(g->tlen) - GLOB_LOAD(g->mark),
				GLOB_LOAD(g->mark));
}

#endif
