/* SPDX-License-Identifier: MIT */
/*
 * test_present_link.c - analyzer/stats/present_link.h against the stand-in SurfaceFlinger
 * (tests/standin/compositor.h): the game's calls are known, the compositor's truth file
 * names the buffer each present shows, and the link must find it.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compositor.h"
#include "frc_case_run.h"
#include "present_link.h"

#define P60 16666667
#define P120 8333333
#define MAXN 4096

static struct compositor comp;
static uint64_t calls[MAXN];
static uint64_t call_buf[MAXN];
static size_t ncalls;
static struct pl_present rows[MAXN];
static uint64_t row_truth_queue[MAXN]; /* the queue time of the buffer row i shows */
static size_t nrows;
static uint32_t call_of[MAXN];
static int64_t burst_spacing = 50000; /* ns between a burst's calls */

/* A game queuing `burst` buffers every interval (auto timestamps, or explicit ones ahead
 * by `ahead` and advancing by `step`), against vsyncs, for dur ns. */
static void play(int layer, int64_t interval, int burst, int64_t dur, int64_t explicit_step)
{
	int64_t vsync = comp.period_ns, next = 1000000, ts = 0;
	FILE *truth = tmpfile();
	comp.truth = truth;
	ncalls = 0;
	for (int64_t t = 0; t < dur; t += 50000) {
		if (t >= vsync) {
			comp_vsync(&comp, vsync);
			vsync += comp.period_ns;
		}
		if (t < next)
			continue;
		for (int b = 0; b < burst && ncalls < MAXN; b++) {
			int64_t stamp = COMP_TS_AUTO;
			if (explicit_step) {
				ts = ts ? ts + explicit_step : t + 2 * P60;
				stamp = ts;
			}
			int64_t at = t + b * burst_spacing;
			if (comp_queue(&comp, layer, 0x5000 + ncalls, at, stamp))
				break; /* the producer would wait: try at the next interval */
			call_buf[ncalls] = 0x5000 + ncalls;
			calls[ncalls++] = (uint64_t)at;
		}
		next += interval;
	}
	/* Truth: every "latch BUF QUEUE DESIRED NAME" line, then its "present DESIRED T". */
	rewind(truth);
	char line[512];
	nrows = 0;
	while (fgets(line, sizeof(line), truth) && nrows < MAXN) {
		uint64_t buf;
		int64_t q, d;
		if (sscanf(line, "latch 0x%" SCNx64 " %" SCNd64 " %" SCNd64, &buf, &q, &d) != 3)
			continue;
		rows[nrows] = (struct pl_present){d, 0, d};
		row_truth_queue[nrows++] = (uint64_t)q;
	}
	fclose(truth);
	comp.truth = NULL;
}

/* Every linked row shows the call the compositor latched; returns how many are right. */
static size_t check_links(struct pl_stats *st)
{
	size_t right = 0;
	present_link(calls, NULL, ncalls, rows, nrows, NULL, PL_TOLERANCE_NS, call_of, NULL, st);
	for (size_t i = 0; i < nrows; i++) {
		if (call_of[i] != PL_NONE && calls[call_of[i]] == row_truth_queue[i])
			right++;
		else if (getenv("PL_DEBUG"))
			fprintf(stderr, "row %zu desired %" PRId64 " truth %" PRIu64 " got %u\n", i,
				rows[i].desired, row_truth_queue[i], call_of[i]);
	}
	return right;
}

START_TEST(link_fifo)
{
	struct pl_stats st;
	comp_init(&comp, 13, P60, NULL);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	play(s, P60, 1, 5000000000, 0);
	ck_assert_uint_gt(nrows, 290);
	ck_assert_uint_eq(check_links(&st), nrows);
	ck_assert_uint_eq(st.tight, nrows);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert(st.confidence == 1.0);

	/* 4-buffer bursts 50 us apart: BBQ takes 3 at once, the 4th waits for a release;
	 * each is presented a vsync apart, every one linked to its own call. */
	comp_init(&comp, 13, P60, NULL);
	s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	play(s, 4 * P60, 4, 5000000000, 0);
	ck_assert_uint_eq(check_links(&st), nrows);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_gt(st.by_order, nrows / 5); /* the 4th of each burst waited */

	/* The same bursts with calls 2 us apart, closer than BBQ's stamp after each (5 us):
	 * the newest call within the tolerance is the next buffer's; queueing takes the
	 * oldest, so each row is still its own call and none is dropped. */
	burst_spacing = 2000;
	comp_init(&comp, 13, P60, NULL);
	s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	play(s, 4 * P60, 4, 5000000000, 0);
	burst_spacing = 50000;
	ck_assert_uint_eq(check_links(&st), nrows);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(st.dropped, 0);
}
END_TEST

START_TEST(link_mailbox)
{
	struct pl_stats st;
	comp_init(&comp, 14, P120, NULL);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_MAILBOX);
	play(s, 1000000000 / 231, 1, 3000000000, 0);
	ck_assert_uint_ge(check_links(&st) * 100, nrows * 99);
	ck_assert_int_eq(st.mode, PL_REPLACING);
	ck_assert_uint_eq(st.tight + st.by_order, nrows);
	/* every call is presented, dropped for certain, uncertain or after the last row */
	ck_assert_uint_eq(st.tight + st.by_order + st.before + st.dropped + st.uncertain +
			      st.after_last_row,
			  ncalls);
	/* the not presented: the compositor's replaced ones and those still queued at the end */
	ck_assert_uint_eq(st.dropped + st.uncertain + st.after_last_row,
			  comp.layers[s].dropped + comp.layers[s].n_bq + comp.layers[s].n_txn);
	/* between anchored rows (tight within 250 us here: the model's hand-off is 5 us), each
	 * one the compositor replaced: no more than it did, most of them */
	ck_assert_uint_le(st.dropped, comp.layers[s].dropped);
	ck_assert_uint_gt(st.dropped, 300);
}
END_TEST

START_TEST(link_explicit_low_confidence)
{
	struct pl_stats st;
	comp_init(&comp, 13, P60, NULL);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	/* desired times 2 frames ahead of the calls: nothing within the tolerance */
	play(s, P60, 1, 2000000000, P60);
	ck_assert_uint_gt(nrows, 100);
	check_links(&st);
	ck_assert(st.confidence < 0.05);
}
END_TEST

START_TEST(link_by_hand)
{
	struct pl_stats st;
	const uint64_t c[] = {1000, 2000, 3000, 4000, 5000};
	/* tolerance 500: row 0 shows call 0 exactly at the tolerance; row 1 (3100) has calls 1
	 * (1100 before) and 2 (100 before, within): queueing (5 rows from the first call; the
	 * calls between rows: 1, then 2, then 1: 4, not over 1.01 x 5 + 4), so the oldest
	 * waiting one, call 1, by order (FIFO drops none: call 1 waited 1100 ns, far below
	 * PL_WAIT_MAX_NS); row 2 has the same time again and takes call 2 (within); row 3 is
	 * 1 ns past the tolerance after call 3: a buffer that waited, by order; row 4 has a
	 * desired time before any call left; row 5 runs backwards (explicit), before the
	 * newest call seen: no call left. */
	const struct pl_present r[] = {{1500, 0, 0}, {3100, 0, 0}, {3100, 0, 0},
				       {4501, 0, 0}, {500, 0, 0},  {3999, 0, 0}};
	uint32_t of[6];
	present_link(c, NULL, 5, r, 6, NULL, 500, of, NULL, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(of[0], 0);
	ck_assert_uint_eq(of[1], 1);
	ck_assert_uint_eq(of[2], 2);
	ck_assert_uint_eq(of[3], 3);
	ck_assert_uint_eq(of[4], PL_NONE);
	ck_assert_uint_eq(of[5], PL_NONE);
	ck_assert_uint_eq(st.tight, 2);
	ck_assert_uint_eq(st.by_order, 2);
	ck_assert_uint_eq(st.unlinked, 2);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.before, 0);
	ck_assert_uint_eq(st.after, 1); /* call 4 */
}
END_TEST

/*
 * Queueing skips a waiting call for a newer tight one only when it waited longer than a
 * FIFO buffer can (PL_WAIT_MAX_NS, 250 ms). Calls (ms) 10, 20, 30, then T, T + 10; rows
 * 10.02 (call 0, tight), 30.5 (call 1 waited 10.5 ms, call 2 is 0.5 ms before: FIFO, call
 * 1 by order), T + 10.1. Calls between rows 1, 2, 2: 5, not over 1.01 x 3 + 4: queueing.
 * T = 300: call 2 waited 280.1 ms: dropped (so is call 3), the row shows call 4, tight.
 * T = 200: call 2 waited 180.1 ms, within a FIFO wait: the row shows it, by order.
 */
START_TEST(link_queueing_skips_only_long_waits)
{
	struct pl_stats st;
	uint32_t of[3];
	uint64_t c[] = {10000000, 20000000, 30000000, 300000000, 310000000};
	struct pl_present r[] = {{10020000, 0, 0}, {30500000, 0, 0}, {310100000, 0, 0}};

	present_link(c, NULL, 5, r, 3, NULL, PL_TOLERANCE_NS, of, NULL, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(of[0], 0);
	ck_assert_uint_eq(of[1], 1);
	ck_assert_uint_eq(of[2], 4);
	ck_assert_uint_eq(st.tight, 2);
	ck_assert_uint_eq(st.by_order, 1);
	ck_assert_uint_eq(st.dropped, 2);
	c[3] = 200000000, c[4] = 210000000, r[2].desired = 210100000;
	present_link(c, NULL, 5, r, 3, NULL, PL_TOLERANCE_NS, of, NULL, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(of[2], 2);
	ck_assert_uint_eq(st.tight, 1);
	ck_assert_uint_eq(st.by_order, 2);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.after, 2);
}
END_TEST

/*
 * Explicit timestamps recorded with the calls (FORMAT.md 4.7): a row whose desired time is a
 * call's timestamp is that call's (BLAST's desiredPresentTime is the buffer's timestamp).
 * explicit_behind's shape, by hand: calls at 10, 27, 44, 74, 76, 94, 110 and 112 ms, each
 * stamped 4 ms after it but the last two, both stamped 120; SurfaceFlinger showed 14, 31,
 * 48, 80 (the 74 ms call's 78 was replaced by the 76 ms call's at one commit), 98 and 120
 * (the newer of the two stamped 120). Every link exact: calls 0, 1, 2, 4, 5, 7, all tight
 * and anchored; the calls between anchors no row shows, 3 and 6, dropped for certain;
 * confidence 1. Without the stamps the 4 ms between call and stamp is past the tolerance:
 * every link by order (6 calls and rows in queue order: queueing, the oldest candidate),
 * so the row at 80 takes the 74 ms call and the row at 98 the 76 ms one, nothing certain
 * dropped, confidence 0.
 */
START_TEST(link_exact_timestamps)
{
	const uint64_t c[8] = {10000000, 27000000, 44000000,  74000000,
			       76000000, 94000000, 110000000, 112000000};
	const int64_t stamps[8] = {14000000, 31000000, 48000000,  78000000,
				   80000000, 98000000, 120000000, 120000000};
	const struct pl_present r[6] = {{14000000, 0, 0}, {31000000, 0, 0}, {48000000, 0, 0},
					{80000000, 0, 0}, {98000000, 0, 0}, {120000000, 0, 0}};
	const uint32_t want[6] = {0, 1, 2, 4, 5, 7};
	struct pl_stats st;
	uint32_t of[6];
	uint8_t an[6];

	present_link(c, stamps, 8, r, 6, NULL, PL_TOLERANCE_NS, of, an, &st);
	for (int i = 0; i < 6; i++) {
		ck_assert_msg(of[i] == want[i], "row %d: call %u, want %u", i, of[i], want[i]);
		ck_assert_uint_eq(an[i], 1);
	}
	ck_assert_uint_eq(st.tight, 6);
	ck_assert_uint_eq(st.by_order, 0);
	ck_assert_uint_eq(st.anchored, 6);
	ck_assert_uint_eq(st.dropped, 2);
	ck_assert_uint_eq(st.uncertain, 0);
	ck_assert(st.confidence == 1.0);
	present_link(c, NULL, 8, r, 6, NULL, PL_TOLERANCE_NS, of, an, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	ck_assert_uint_eq(of[3], 3);
	ck_assert_uint_eq(of[4], 4);
	ck_assert_uint_eq(st.tight, 0);
	ck_assert_uint_eq(st.by_order, 6);
	ck_assert_uint_eq(st.dropped, 0);
}
END_TEST

/*
 * An exact link is looked for among the calls of the second before desired
 * (PL_EXACT_AHEAD_NS): a call at 10 ms stamped 1.51 s, its row at 1.51 s, is linked by
 * order (the only candidate), not exact: not tight. Stamped 1.0 s it is exact.
 */
START_TEST(link_exact_within_a_second)
{
	const uint64_t c[1] = {10000000};
	int64_t stamp[1] = {1510000000};
	struct pl_present r[1] = {{1510000000, 0, 0}};
	struct pl_stats st;
	uint32_t of[1];

	present_link(c, stamp, 1, r, 1, NULL, PL_TOLERANCE_NS, of, NULL, &st);
	ck_assert_uint_eq(of[0], 0);
	ck_assert_uint_eq(st.tight, 0);
	ck_assert_uint_eq(st.by_order, 1);
	stamp[0] = r[0].desired = 1000000000;
	present_link(c, stamp, 1, r, 1, NULL, PL_TOLERANCE_NS, of, NULL, &st);
	ck_assert_uint_eq(of[0], 0);
	ck_assert_uint_eq(st.tight, 1);
}
END_TEST

START_TEST(link_next_row_keeps_its_call)
{
	struct pl_stats st;
	/* explicit_behind's shape: calls every ms from 1 to 30 ms, then two 2 ms apart (40, 42
	 * ms) whose requested times (46, 47 ms) are both presented; tolerance 100 us, so every
	 * link is by order. 32 calls for 3 rows (every call before the first row counts, then
	 * 2 and 0): over 1.05 x 3 + PL_MODE_SLACK, replacing, row 0 the newest call (30 ms,
	 * index 29). Row 1 taking the newest (42 ms) would leave row 2 without a call: it
	 * takes 40 ms. */
	uint64_t c[32];
	const struct pl_present r[] = {{30500000, 0, 0}, {46000000, 0, 0}, {47000000, 0, 0}};
	uint32_t of[3];

	for (int k = 0; k < 30; k++)
		c[k] = 1000000ull * (uint64_t)(k + 1);
	c[30] = 40000000, c[31] = 42000000;
	present_link(c, NULL, 32, r, 3, NULL, 100000, of, NULL, &st);
	ck_assert_int_eq(st.mode, PL_REPLACING);
	ck_assert_uint_eq(of[0], 29);
	ck_assert_uint_eq(of[1], 30);
	ck_assert_uint_eq(of[2], 31);
	ck_assert_uint_eq(st.unlinked, 0);
	ck_assert_uint_eq(st.by_order, 3);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.before, 29);
}
END_TEST

/*
 * Where the calls went, by hand (tolerance 2 ms; calls every 10 ms, c_k = 10 (k + 1) ms).
 * FIFO tail: calls c0..c9; rows 10.02 (c0, 20 us: tight, anchored), 20.02 (c1, anchored),
 * 45 (c2 waited 15 ms, c3 5 ms before: by order c2; candidates c2, c3: not anchored), 55
 * (c3 by order; c3, c4: not anchored). Calls between rows 1, 1, 2, 1: queueing. Linked 4,
 * none between them unshown: dropped 0; c4 (50 ms, before the last desired) was still
 * queued: uncertain 1; c5..c9 after every desired: after_last_row 5; after 6.
 */
START_TEST(link_uncertain_tail)
{
	struct pl_stats st;
	uint64_t c[10];
	const struct pl_present r[] = {
	    {10020000, 0, 0}, {20020000, 0, 0}, {45000000, 0, 0}, {55000000, 0, 0}};
	uint32_t of[4];
	uint8_t an[4];

	for (int k = 0; k < 10; k++)
		c[k] = 10000000ull * (uint64_t)(k + 1);
	present_link(c, NULL, 10, r, 4, NULL, PL_TOLERANCE_NS, of, an, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(of[i], i);
	ck_assert(an[0] && an[1] && !an[2] && !an[3]);
	ck_assert_uint_eq(st.anchored, 2);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.uncertain, 1);
	ck_assert_uint_eq(st.after_last_row, 5);
	ck_assert_uint_eq(st.after, 6);
	ck_assert_uint_eq(st.before, 0);
}
END_TEST

/*
 * A flush in miniature (resize_flush's shape): calls c0..c7; the compositor showed c0,
 * flushed c1 and c2, then showed c3..c7 (each waited: by order). Rows 10.02 (c0, tight,
 * anchored), 45, 55, 60.02, 70.02, 80.02 ms. Each later row takes the oldest waiting call
 * (FIFO; none waited 250 ms), c1..c5: every one wrong, and no row after c0 is anchored
 * (3 candidates each: e.g. 45 ms has c1..c3, the later rows leaving it c3 at most). So
 * nothing is dropped for certain: the capture knows 2 calls were not shown (c6, c7 are
 * unshown, before the last desired), not which: uncertain 2, dropped 0, after the last
 * row 0.
 */
START_TEST(link_flush_uncertain)
{
	struct pl_stats st;
	uint64_t c[8];
	const struct pl_present r[] = {{10020000, 0, 0}, {45000000, 0, 0}, {55000000, 0, 0},
				       {60020000, 0, 0}, {70020000, 0, 0}, {80020000, 0, 0}};
	uint32_t of[6];
	uint8_t an[6];

	for (int k = 0; k < 8; k++)
		c[k] = 10000000ull * (uint64_t)(k + 1);
	present_link(c, NULL, 8, r, 6, NULL, PL_TOLERANCE_NS, of, an, &st);
	ck_assert_int_eq(st.mode, PL_QUEUEING);
	for (uint32_t i = 0; i < 6; i++)
		ck_assert_uint_eq(of[i], i);
	ck_assert_uint_eq(st.anchored, 1);
	ck_assert(an[0] && !an[1] && !an[5]);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.uncertain, 2);
	ck_assert_uint_eq(st.after_last_row, 0);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("link_fifo", link_fifo, 30),
	    FRC_CASE("link_mailbox", link_mailbox, 30),
	    FRC_CASE("link_explicit_low_confidence", link_explicit_low_confidence, 30),
	    FRC_CASE("link_by_hand", link_by_hand, 30),
	    FRC_CASE("link_exact_timestamps", link_exact_timestamps, 30),
	    FRC_CASE("link_exact_within_a_second", link_exact_within_a_second, 30),
	    FRC_CASE("link_next_row_keeps_its_call", link_next_row_keeps_its_call, 30),
	    FRC_CASE("link_queueing_skips_only_long_waits", link_queueing_skips_only_long_waits,
		     30),
	    FRC_CASE("link_uncertain_tail", link_uncertain_tail, 30),
	    FRC_CASE("link_flush_uncertain", link_flush_uncertain, 30),
	};

	return frc_case_run("present_link", cases, FRC_NCASES(cases), argc, argv);
}
