/* SPDX-License-Identifier: MIT */
/*
 * present_link.h - which queueBuffer call each present row of SurfaceFlinger shows.
 *
 * A layer's `--latency` rows (display/sf_dumpsys.h) say when SurfaceFlinger presented a
 * buffer, not which one. With auto timestamps (every EGL/Vulkan game that sets no
 * presentation time) desiredPresentTime is stamped when BLASTBufferQueue acquires the
 * buffer: Transaction::setBuffer's systemTime() (12+, BLASTBufferQueue.cpp;
 * CLOCK_MONOTONIC, the uprobe's clock). That is microseconds after the call while BBQ has
 * room in SurfaceFlinger (fewer than 3 of its buffers there), later when the buffer had
 * to wait in the BufferQueue (a burst, or a game outpacing the display): then it is
 * stamped when SurfaceFlinger released one, at a latch. Rows and calls are both in queue
 * order (BufferQueue is FIFO; async mode replaces, never reorders), so links never cross.
 * The rule, per row, among the calls after the last linked one and at or before its
 * desired time:
 *   - "tight": a call at most `tolerance` before it (2 ms by default: INFERENCE from AOSP's
 *     code, display-truth.md §1.3 and §5, leaving room for a descheduled app thread): the
 *     oldest of them when the capture queues (PL_QUEUEING below: a burst's calls may be
 *     closer together than the stamp's delay after each), else the newest (rows were lost,
 *     or buffers replaced; queueing, only past PL_WAIT_MAX_NS of waiting);
 *   - "by order", otherwise: the buffer waited. When the capture queues more buffers than
 *     the layer presents (at most PL_INTERVAL_CALLS counted between two rows; by 5 % and
 *     PL_MODE_SLACK; PL_REPLACING: swap interval 0 / MAILBOX, where a
 * waiting buffer is replaced by the next), the newest of them that was PL_INSERT_NS or more before
 * the stamp (one closer had not reached the queue yet); else (PL_QUEUEING: FIFO, nothing is
 * dropped) the oldest. In both, no call later than the one that leaves each later row (with a
 * call at or before its desired time) a call of its own: rows show distinct calls in order.
 * With explicit timestamps (Swappy, VkPresentTimeGOOGLE) desired is the app's requested
 * time, unrelated to the call. When the capture recorded the calls' timestamps (stamps,
 * FORMAT.md 4.7: framerec since it probes Surface::setBuffersTimestamp), a row whose
 * desired time is a candidate call's timestamp is that call's buffer: BLASTBufferQueue sets
 * desiredPresentTime to the buffer's timestamp when it is not auto (12+:
 * `t->setDesiredPresentTime(bufferItem.mTimestamp)`; 11: the BufferItem's timestamp,
 * display-truth.md 1.3). Such a link is **exact**, counted as tight and anchored; of
 * candidates with one timestamp, the newest (SurfaceFlinger shows the later of two applied
 * at one commit). Without stamps few rows of such a layer link tight, and the confidence
 * says so.
 *
 * Pure: arrays in, indices and counts out; no allocation.
 */
#ifndef PRESENT_LINK_H
#define PRESENT_LINK_H

#include <stddef.h>
#include <stdint.h>

#define PL_NONE UINT32_MAX
#define PL_TOLERANCE_NS 2000000 /* 2 ms */
/*
 * A call reaches the BufferQueue some time after the probe's entry stamp (queueBuffer's
 * own work first): a buffer that waited was replaced only by calls at least this long
 * before its stamp. INFERENCE; the stand-in's hand-off takes up to 75 us (measured on a
 * MAILBOX recording, present_link's test), a device's queueBuffer tens of us.
 */
#define PL_INSERT_NS 200000 /* 200 us */
/*
 * The calls between two rows that count towards the mode (present_link.c's link_mode): 2,
 * the most a FIFO layer can show in one row interval is 1 (and a burst's queue as many
 * rows as calls), a replacing one makes 2 or more in most.
 */
#define PL_INTERVAL_CALLS 2
/*
 * The calls a FIFO layer may make beyond its rows without being replacing: the buffers its
 * queue takes in before back-pressure (the stand-in compositor's 8 BufferQueue slots and
 * BBQ's 3), each time it fills (at the start, after a flush), and those still in flight at
 * the end. INFERENCE; with 5 % of the rows (present_link.c's link_mode).
 */
#define PL_MODE_SLACK 16
/*
 * A tight link anchors (pl_stats) only when its call is at most this long before desired:
 * BBQ stamps a buffer it can take at once the queueBuffer hand-off after the call (up to
 * 75 us on the stand-in, tens of us on a device); a call 0.25..2 ms before is still linked
 * tight, but may be a coincidence (explicit timestamps: desired is the app's requested
 * time; explicit_behind's first recording had one 0.59 ms before a later call than its
 * own). INFERENCE.
 */
#define PL_ANCHOR_NS 250000 /* 250 us */
/*
 * The longest a buffer waits in a FIFO queue before it is acquired: 250 ms, INFERENCE (the
 * stand-in compositor's 8 BufferQueue slots and BBQ's 3 at 60 Hz are 183 ms; its
 * back-pressured 120 fps game on 60 Hz, refresh_120_to_60, waits 150 ms). A queueing row
 * skips an older waiting call for a newer tight one only past it: the older ones were
 * dropped (a layer invisible for longer) or shown in rows never read (a present gap).
 */
#define PL_WAIT_MAX_NS 250000000
/*
 * An exact link (a call's explicit timestamp) is looked for among the candidates queued at
 * most this long before desired: 1 s, the most content_frame_time honours a stamp ahead of
 * its call. It bounds the look to a second of calls per row (a hostile capture's rows far
 * ahead of every call would otherwise scan them all, row after row).
 */
#define PL_EXACT_AHEAD_NS 1000000000

struct pl_present {
	int64_t desired, actual, ready; /* one row, as sf_row */
};

enum pl_mode { PL_QUEUEING, PL_REPLACING };

struct pl_stats {
	enum pl_mode mode;
	uint32_t tight;	   /* rows linked within the tolerance, or exact (a call's timestamp) */
	uint32_t by_order; /* rows linked to a buffer that waited */
	uint32_t unlinked; /* rows with no call at or before them */
	/*
	 * Where the calls went: linked (tight + by_order) + before + dropped + uncertain +
	 * after_last_row = every call. A row is **anchored** when its link is certain: exact,
	 * tight within PL_ANCHOR_NS, or a single candidate (the rows since the previous anchor each
	 * took a call of their own, and the later rows leave it only one). Between two anchored
	 * rows of one segment (no present gap between), the calls no row between them shows
	 * were never presented, whichever calls those rows show: **dropped**. The other calls
	 * not shown are **uncertain** (after a flush, an unanchored stretch, a gap, or still
	 * queued at the end), except those queued after every row's desired time
	 * (after_last_row).
	 */
	uint32_t anchored;
	uint32_t dropped;
	uint32_t uncertain;
	uint32_t after_last_row;
	uint32_t before, after; /* calls before the first / after the last linked one */
	double confidence;	/* tight / rows (0 without rows) */
};

/*
 * calls[0..nc): the surface's queueBuffer ktimes, ascending; stamps[0..nc) (NULL: none
 * recorded): each call's explicit timestamp, 0 for auto; rows[0..nr): its layer's rows, in
 * order; segment[i] (NULL: all 0): row i's present gaps before it (anchors pair only within
 * one). Writes call_of[i] = the index of the call row i shows, or PL_NONE, and when
 * anchored is not NULL, anchored[i] = 1 for an anchored row (else 0).
 */
void present_link(const uint64_t *calls, const int64_t *stamps, size_t nc,
		  const struct pl_present *rows, size_t nr, const uint32_t *segment,
		  int64_t tolerance_ns, uint32_t *call_of, uint8_t *anchored, struct pl_stats *st);

#endif /* PRESENT_LINK_H */
