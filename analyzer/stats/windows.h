/* SPDX-License-Identifier: MIT */
/*
 * windows.h - the full 1 s windows of the analysed span: the one definition the report
 * (its per-window FPS, median, stability) and the score (its per-window FPS error) share.
 * analyzer/REPORT.md ("Metric names") states it:
 *   - window k is [start + k s, start + (k+1) s), start = the span's start (the capture's
 *     first ktime, or --from); it is **full** when start + (k+1) s <= the span's end (the
 *     capture's last ktime, or --to): the last, partial window is left out;
 *   - a frame time belongs to the window its end falls in; windows only move forward, so a
 *     frame time that goes back in time (a clock step) counts in the current window;
 *   - the window FPS of a series = its frame times in the full windows / full windows.
 * Header only: two small functions, inlined where they run once per frame time.
 */
#ifndef FRAMEANALYZE_WINDOWS_H
#define FRAMEANALYZE_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

#define WIN_NS 1000000000ull

struct win_clock {
	uint64_t start;	  /* window k is [start + k s, start + (k+1) s) */
	uint64_t n_full;  /* the full windows: k < n_full */
	uint64_t cur;	  /* the window the latest frame time fell in */
	uint64_t cur_end; /* its end, saturating: no division per frame time */
};

/* The end of window w, saturating at UINT64_MAX (a hostile span must not wrap). */
static inline uint64_t win_end(uint64_t start, uint64_t w)
{
	uint64_t span = w >= UINT64_MAX / WIN_NS ? UINT64_MAX : (w + 1) * WIN_NS;

	return start > UINT64_MAX - span ? UINT64_MAX : start + span;
}

/* The windows of the span [start, end]. */
static inline void win_clock_init(struct win_clock *c, uint64_t start, uint64_t end)
{
	c->start = start;
	c->n_full = end > start ? (end - start) / WIN_NS : 0;
	c->cur = 0;
	c->cur_end = win_end(start, 0);
}

/*
 * The window of a frame time ending at t, when it is past the current one (true, *w): the
 * caller closes window cur, then moves there (win_clock_move). false: it counts in cur.
 */
static inline bool win_clock_past(const struct win_clock *c, uint64_t t, uint64_t *w)
{
	if (t < c->cur_end)
		return false;
	*w = t > c->start ? (t - c->start) / WIN_NS : 0;
	return *w > c->cur;
}

static inline void win_clock_move(struct win_clock *c, uint64_t w)
{
	c->cur = w;
	c->cur_end = win_end(c->start, w);
}

#endif
