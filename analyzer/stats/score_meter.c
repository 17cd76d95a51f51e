/* SPDX-License-Identifier: MIT */
/*
 * score_meter.c - freezes and idle readings of a meter (see score_meter.h, REPORT.md).
 *
 * O(1) per truth frame and per tick: two gaps, no scan.
 */
#include "score_meter.h"

/* A gap that has ended: a freeze when it lasted SCORE_FREEZE_NS; shown or missed. */
static void gap_done(const struct score_gap *gap, struct score_result *r)
{
	if (!gap->valid || gap->end < gap->start || gap->end - gap->start < SCORE_FREEZE_NS)
		return;
	r->freezes++;
	if (!gap->shown && !gap->due) {
		r->freezes_unseen++;
		return;
	}
	if (!gap->shown) {
		r->freezes_missed++;
		return;
	}
	r->freezes_shown++;
	r->freezes_late += gap->late;
	r->freeze_show_sum_ns += gap->show_ns;
	if (gap->show_ns > r->freeze_show_max_ns)
		r->freeze_show_max_ns = gap->show_ns;
}

void score_meter_truth(struct score_meter *g, struct score_result *r, uint64_t ktime)
{
	if (g->cur.valid && ktime == g->cur.start)
		return; /* the same instant (or a call back in time, kept at the newest) */
	gap_done(&g->closing, r);
	g->closing = g->cur;
	g->closing.end = ktime;
	g->cur = (struct score_gap){
	    .valid = true, .start = ktime, .has_prev = g->have_last, .prev = g->last};
}

/*
 * The meter shows the freeze when it reads below half what it read before the frames
 * stopped: its own earlier reading, not the truth's rate, so a meter that was low all
 * along (kala's third of the rate) is not credited with showing a freeze it never showed.
 */
static void gap_tick(struct score_gap *gap, uint64_t now, double v)
{
	bool first_due = !gap->due && now >= gap->start && now - gap->start >= SCORE_FREEZE_DUE_NS;

	gap->due |= first_due;
	if (!gap->shown && gap->has_prev && gap->prev > 0 && now > gap->start &&
	    v < gap->prev / 2) {
		gap->shown = true;
		gap->show_ns = now - gap->start;
	} else if (first_due && !gap->shown) {
		gap->late = true;
	}
}

void score_meter_tick(struct score_meter *g, struct score_result *r, uint64_t now,
		      const struct fps_reading *rd, double truth)
{
	double v = rd->valid ? rd->fps : 0.0;

	if (g->closing.valid && now >= g->closing.start && now < g->closing.end)
		gap_tick(&g->closing, now, v);
	else if (g->cur.valid && now >= g->cur.start)
		gap_tick(&g->cur, now, v);
	/* a tick before a gap's start is the reading before it */
	if (g->cur.valid && now < g->cur.start)
		g->cur.prev = v, g->cur.has_prev = true;
	if (g->closing.valid && now < g->closing.start)
		g->closing.prev = v, g->closing.has_prev = true;
	g->last = v;
	g->have_last = true;
	if (truth == 0) {
		r->idle_ticks++;
		r->idle_shown += v > 0;
	}
}

void score_meter_finish(struct score_meter *g, struct score_result *r, uint64_t end)
{
	gap_done(&g->closing, r);
	g->closing.valid = false;
	if (g->cur.valid && end > g->cur.start) {
		g->cur.end = end;
		gap_done(&g->cur, r);
	}
	g->cur.valid = false;
}
