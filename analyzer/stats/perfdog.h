/* SPDX-License-Identifier: MIT */
/*
 * perfdog.h - PerfDog's Jank/BigJank rule, the one the report (summary.c) and the score
 * (score.c) both apply. analyzer/REPORT.md states it.
 */
#ifndef FRAMEANALYZE_PERFDOG_H
#define FRAMEANALYZE_PERFDOG_H

#include <stdint.h>

/* The thresholds as bare integer literals: db_schema.h puts the same ones into SQL. */
#define PERFDOG_JANK_NS_LITERAL 84000000     /* two frames of a 24 FPS film */
#define PERFDOG_BIGJANK_NS_LITERAL 125000000 /* three frames of a 24 FPS film */
#define PERFDOG_JANK_MIN_NS ((uint64_t)PERFDOG_JANK_NS_LITERAL)
#define PERFDOG_BIGJANK_MIN_NS ((uint64_t)PERFDOG_BIGJANK_NS_LITERAL)

enum perfdog_kind { PERFDOG_NONE = 0, PERFDOG_JANK = 1, PERFDOG_BIGJANK = 2 };

/*
 * Classify frame time d against w = {deltas seen (saturating at 3), the last three, oldest
 * first} of the same series, then push d into w (a new series: w all zero). A Jank is
 * d > 2 * mean(last three) AND d > 84 ms; a BigJank also d > 125 ms. 3 * d > 2 * (a + b + c)
 * is "d > 2 * mean" without rounding, in 128 bits: near 2^64 (a ktime jump) it would wrap.
 * The first three deltas of a series are never janks.
 */
static inline enum perfdog_kind perfdog_push(uint64_t w[4], uint64_t d)
{
	enum perfdog_kind k = PERFDOG_NONE;
	uint64_t *prev = &w[1];

	if (w[0] == 3 && d > PERFDOG_JANK_MIN_NS &&
	    3 * (unsigned __int128)d > 2 * ((unsigned __int128)prev[0] + prev[1] + prev[2]))
		k = d > PERFDOG_BIGJANK_MIN_NS ? PERFDOG_BIGJANK : PERFDOG_JANK;
	if (w[0] < 3) {
		prev[w[0]++] = d;
	} else {
		prev[0] = prev[1];
		prev[1] = prev[2];
		prev[2] = d;
	}
	return k;
}

#endif
