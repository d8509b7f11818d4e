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

#endif
