/* SPDX-License-Identifier: MIT */
/*
 * score_meter.h - the score's grading of a meter (issue 21): freezes shown and readings
 * shown while nothing was submitted, per lane, beside score.c's error and settle time.
 * analyzer/REPORT.md ("Score", meters) defines every number. Internal to the score.
 */
#ifndef FRAMEANALYZE_SCORE_METER_H
#define FRAMEANALYZE_SCORE_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "fps_meter.h"
#include "score.h"

/* A truth interval at least this long is a freeze (the Auriya meters' own 500 ms). */
#define SCORE_FREEZE_NS 500000000ull
/*
 * The bound a freeze is graded on (issue 21's goal): shown at the first tick at least this
 * long after the last frame, else late; with no tick that late in the freeze, unseen.
 */
#define SCORE_FREEZE_DUE_NS 250000000ull

/* The time from one truth frame (start) to the next (end): a freeze when long enough. */
struct score_gap {
	bool valid;
	uint64_t start, end; /* end: only once the next frame came */
	bool has_prev;
	double prev;	  /* the meter's reading at the last tick before start */
	bool shown;	  /* a tick in the gap read below prev / 2 ... */
	uint64_t show_ns; /* ... this long after start (the first such tick) */
	bool due;	  /* a tick at least SCORE_FREEZE_DUE_NS after start was graded */
	bool late;	  /* the first such tick did not show it */
};

/*
 * A lane's freeze state. The replay shows a record to the sinks before the synthesized
 * ticks due before it, so the truth frame that ends a gap arrives before the gap's last
 * ticks: the ended gap stays open (`closing`) until the next truth frame or the end.
 */
struct score_meter {
	struct score_gap cur, closing;
	bool have_last;
	double last; /* the reading at the latest tick */
};

/* A truth frame of the main PID ending at ktime (nondecreasing: the score's ring order). */
void score_meter_truth(struct score_meter *g, struct score_result *r, uint64_t ktime);
/* A tick graded (at least 1 s after t0): the reading and the truth FPS at the tick. */
void score_meter_tick(struct score_meter *g, struct score_result *r, uint64_t now,
		      const struct fps_reading *rd, double truth);
/* The capture's end (its largest ktime): the gaps still open. */
void score_meter_finish(struct score_meter *g, struct score_result *r, uint64_t end);

#endif
