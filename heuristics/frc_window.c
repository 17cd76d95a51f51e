/* SPDX-License-Identifier: MIT */
/*
 * frc_window.c - `frc-window`, our FPS meter (meter_kinds.h, heuristics/README.md).
 *
 * What the display shows is the target process's content surface: the rate is the number
 * of intervals of the content series (content.h, the one the analyzer's truth is) ending in
 * the last FRC_WINDOW_NS, whatever the tracker returns; no content frame for
 * FRC_WINDOW_FREEZE_NS is a freeze (a reading of 0 FPS, not the last rate), and so is a
 * display that display capture's polls say presented nothing that long; the display's
 * refresh caps the reading (the panel cannot show more) and never replaces it: 1e9 /
 * SurfaceFlinger's vsync period when display capture recorded it, else a valid sysfs
 * node's value. The interval ends are kept in a fixed ring. With explicit timestamps the
 * display shows fewer frames than the calls when two reach one commit (only the later is
 * presented): once display capture gave the vsync period, such a frame is not counted
 * (replaced_in).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "content.h"
#include "main_surface.h"
#include "meter_kinds.h"
#include "content_procs.h"
#include "target.h"

/*
 * A content frame's own time (content_frame_time), its interval and its explicit timestamp
 * (0: auto): two entries are successive frames of one series when the later's time minus
 * its interval is the earlier's time.
 */
struct frc_shown {
	uint64_t at, delta;
	int64_t stamp;
};

struct frc_window {
	double fps_max;
	/*
	 * Which rule picks the content (heuristics/README.md): the content rule once the
	 * capture has said what its surfaces are (a thread, buffer or connect record), one
	 * instance per process while it says which one is the target (target.h), else one
	 * over the (PID, surface) pairs of every process; before any such record, the
	 * main-surface rule over those pairs.
	 */
	bool identity; /* a thread, buffer or connect record was seen */
	/* the instance per process; procs.cur: the target's (made at its first record) */
	struct content_procs procs;
	struct content *all;	      /* identity, no target: every process's surfaces */
	struct main_surface *counted; /* no identity: the main-surface rule over the pairs */
	uint32_t cur_pid;	      /* the target the meter follows now (0: none) */
	uint64_t period;	      /* +1 at every target change and attach/exit of the target */
	/* The content's interval ends in the window, nondecreasing, oldest at head ... */
	uint64_t ring[FRC_WINDOW_RING];
	/* ... and of each, what decides whether the display showed its frame (replaced_in) */
	struct frc_shown shown[FRC_WINDOW_RING];
	uint32_t head, len;
	bool any;	     /* a content interval was seen */
	uint64_t origin;     /* the start of the first one: the window is shorter before */
	uint64_t last_end;   /* the latest content interval's end (the newest frame) */
	uint64_t last_delta; /* its frame time */
	uint64_t fast_until; /* a rate change was seen: the fast reading until then */
	bool panel_valid;    /* the node's current sample is a valid value ... */
	double panel;	     /* ... the panel's refresh */
	double display;	     /* 1e9 / the display's vsync period (display capture); 0: none */
	uint64_t vsync_ns;   /* that period (0: none) */
	bool grid;	     /* a vsync of that period is known ... */
	int64_t grid_at;     /* ... this one (a present row's actual present time) */
	bool shown_any;	     /* a present row was seen: ... */
	int64_t shown_last;  /* ... the newest actual present time of any row */
	uint64_t polled;     /* the newest poll record's ktime (0: none) */
	struct fps_meter_stats st;
};

int frc_window_new(struct frc_window **out, const struct fps_meter_config *cfg, uint64_t t0,
		   bool has_sysfs)
{
	struct tracker_config tc;
	struct frc_window *w;
	int err;

	(void)t0;	 /* the window starts with the content's first interval, not the meter */
	(void)has_sysfs; /* the cap follows the node's samples; without a node there are none */
	*out = NULL;
	if (!(cfg->fps_max > 0) || !isfinite(cfg->fps_max))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	tracker_config_default(&tc);
	err = content_new(&w->all, CONTENT_SURFACES);
	if (!err)
		err = main_surface_new(&w->counted, &tc);
	if (err) {
		content_free(w->all);
		free(w);
		return err;
	}
	w->fps_max = cfg->fps_max;
	w->period = 1;
	*out = w;
	return 0;
}

void frc_window_free(struct frc_window *w)
{
	if (!w)
		return;
	content_procs_clear(&w->procs);
	content_free(w->all);
	main_surface_free(w->counted);
	free(w);
}

/* The key of (pid, surface) in the one instance over every process (no target known). */
static uint64_t all_key(uint32_t pid, uint64_t surface)
{
	/* an odd multiplier: distinct PIDs with surface 0 stay distinct */
	return surface ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ull);
}

/*
 * The target's own content series: the capture says what its surfaces are (else the
 * truth is the count rule, which ignores the target: REPORT.md "Ground truth") and which
 * process is the target.
 */
static bool target_mode(const struct frc_window *w, const struct target *t)
{
	return w->identity && t && target_known(t);
}

/* The target changed (the pipeline's target, after this record): a new series. */
static int follow(struct frc_window *w, const struct target *t)
{
	uint32_t pid = target_pid(t);

	if (pid == w->cur_pid)
		return 0;
	w->cur_pid = pid;
	w->period++;
	w->procs.cur = pid ? content_procs_get(&w->procs, pid) : NULL;
	return pid && !w->procs.cur ? -ENOMEM : 0;
}

/* attach / exit: a new process life breaks the series; an exited one's surfaces are gone. */
static int learn_life(struct frc_window *w, const struct frc_record *r, const struct target *t)
{
	uint32_t pid = r->type == FRC_ATTACH ? r->u.attach.pid : r->u.exit.pid;
	struct content_proc *pr;

	if (pid == w->cur_pid)
		w->period++;
	if (r->type == FRC_EXIT && (pr = content_procs_find(&w->procs, pid)))
		content_procs_drop(&w->procs, pr);
	return target_mode(w, t) ? follow(w, t) : 0;
}

int frc_window_learn(struct frc_window *w, const struct frc_record *r, const struct target *t)
{
	uint32_t pid;
	uint64_t surface = 0;
	struct content_proc *pr;

	switch (r->type) {
	case FRC_ATTACH:
	case FRC_EXIT:
		return learn_life(w, r, t);
	case FRC_THREAD:
		pid = r->u.thread.pid;
		break;
	case FRC_BUFFER:
		pid = r->u.buffer.pid;
		surface = r->u.buffer.surface;
		break;
	case FRC_CONNECT:
		pid = r->u.connect.pid;
		surface = r->u.connect.surface;
		break;
	default:
		return 0;
	}
	w->identity = true;
	/*
	 * Both: a capture that says nothing of its target now may do so later (an attach
	 * record), and the process's instance then knows what was said before. The target's
	 * instance is followed from the first record that can say so, as the truth's from the
	 * capture's start: other processes' records never evict it.
	 */
	if (!target_mode(w, t))
		content_learn(w->all, r, all_key(pid, surface));
	else if (follow(w, t))
		return -ENOMEM;
	if (!(pr = content_procs_get(&w->procs, pid)))
		return -ENOMEM;
	content_learn(pr->c, r, surface);
	return 0;
}

/*
 * A content interval ending at ktime_ns (the record's time, as the truth counts it), of
 * delta at the frame's own time at (content_frame_time), queued with stamp.
 */
static void count_interval(struct frc_window *w, uint64_t ktime_ns, uint64_t delta, uint64_t at,
			   int64_t stamp)
{
	w->st.deltas_kept++;
	if (!w->any) {
		w->any = true;
		/* saturating: a stamped frame's interval may be longer than its ktime */
		w->origin = ktime_ns > delta ? ktime_ns - delta : 0;
		w->last_end = ktime_ns;
	}
	/* A frame back in time counts at the newest time seen: the ring stays ordered. */
	if (ktime_ns > w->last_end)
		w->last_end = ktime_ns;
	if (w->len == FRC_WINDOW_RING) { /* more than the ring per window: the oldest goes */
		w->head = (w->head + 1) % FRC_WINDOW_RING;
		w->len--;
	}
	w->shown[(w->head + w->len) % FRC_WINDOW_RING] =
	    (struct frc_shown){.at = at, .delta = delta, .stamp = stamp};
	w->ring[(w->head + w->len++) % FRC_WINDOW_RING] = w->last_end;
	w->last_delta = delta;
}

/*
 * The target's content series, as the truth takes it (analyzer/stats/submissions.c): the
 * frames of the target at this record only, content_frame_delta at each frame's own time
 * (content_frame_time), an interval only on the content surface and within one period
 * (no interval across a change of the target or a new life of its process).
 */
static int target_frame(struct frc_window *w, uint64_t at, const struct frc_frame *f,
			const struct target *t, uint64_t *delta)
{
	bool has;
	int err = follow(w, t);

	if (err || f->pid != w->cur_pid)
		return err ? err : 1;
	if (!w->procs.cur && !(w->procs.cur = content_procs_get(&w->procs, f->pid)))
		return -ENOMEM;
	has = content_frame_delta(w->procs.cur->c, at, f->surface, f->tid, delta);
	if (content_surface(w->procs.cur->c, NULL) != f->surface)
		return 1;
	has = has && w->procs.cur->period == w->period;
	w->procs.cur->period = w->period;
	return has ? 0 : 1;
}

int frc_window_frame(struct frc_window *w, uint64_t ktime_ns, const struct frc_frame *f,
		     const struct target *t)
{
	uint64_t delta = 0, key = all_key(f->pid, f->surface), at = content_frame_time(ktime_ns, f);
	int rc;

	if (target_mode(w, t)) {
		rc = target_frame(w, at, f, t, &delta);
		if (rc < 0)
			return rc;
		if (rc == 0)
			count_interval(w, ktime_ns, delta, at, content_frame_stamp(f));
		return 0;
	}
	/*
	 * No target information: the content rule over every process's surfaces. A capture
	 * that names nothing of its surfaces (they predate thread, buffer and connect records):
	 * the main-surface rule, most calls, nearer the count rule the truth then is (README
	 * "Meter variants" has what the content rule's rate alone would read instead).
	 */
	if (!w->identity)
		at = ktime_ns; /* the main-surface rule's intervals are of the calls' times */
	if (w->identity ? content_frame_delta(w->all, at, key, f->tid, &delta)
			: main_surface_record(w->counted, ktime_ns, key, &delta))
		count_interval(w, ktime_ns, delta, at, content_frame_stamp(f));
	return 0;
}

void frc_window_delta(struct frc_window *w, uint64_t delta_ns)
{
	(void)delta_ns;
	w->st.deltas_pushed++;
}

void frc_window_set_sysfs(struct frc_window *w, int err, const uint8_t *raw, size_t len)
{
	w->panel_valid = fps_meter_sysfs_value(err, raw, len, w->fps_max, &w->panel);
	w->st.sysfs_polls++;
	w->st.sysfs_invalid += !w->panel_valid;
}

void frc_window_set_vsync(struct frc_window *w, uint64_t period_ns)
{
	w->display = period_ns ? 1e9 / (double)period_ns : 0;
	/* a new refresh rate: the vsyncs of the old one say nothing of the new grid */
	if (period_ns != w->vsync_ns)
		w->grid = false;
	w->vsync_ns = period_ns;
}

void frc_window_set_present(struct frc_window *w, int64_t actual_ns)
{
	/* a present fence signals at a vsync (display-truth.md 1.2); -1 and pending say nothing */
	if (actual_ns <= 0 || actual_ns == INT64_MAX)
		return;
	if (!w->shown_any || actual_ns > w->shown_last)
		w->shown_last = actual_ns;
	w->shown_any = true;
	if (!w->vsync_ns)
		return;
	w->grid = true;
	w->grid_at = actual_ns;
}

void frc_window_set_poll(struct frc_window *w, uint64_t ktime_ns)
{
	if (ktime_ns > w->polled)
		w->polled = ktime_ns;
}

/*
 * The display shows the same frame though the app may submit (a layer not visible, a
 * screen off): display capture's newest present is FRC_WINDOW_FREEZE_NS or more before
 * now, and a poll at least FRC_DISPLAY_QUIET_NS after it found nothing newer (a poll takes
 * every row whose fence signalled by then: FORMAT.md 4.8 `poll`; a presenting layer's
 * newest row is a vsync or two old at a poll, its fence pending). Only with poll records
 * (display capture before them says nothing of a poll that found no row).
 */
static bool display_frozen(const struct frc_window *w, uint64_t now)
{
	uint64_t last = (uint64_t)w->shown_last;

	return w->shown_any && w->polled <= now && w->polled > last &&
	       w->polled - last >= FRC_DISPLAY_QUIET_NS && now - last >= FRC_WINDOW_FREEZE_NS;
}

static struct fps_reading reading(bool valid, double fps, enum frc_source source)
{
	struct fps_reading r = {.valid = valid, .fps = valid ? fps : 0, .source = FRC_SOURCE_NONE};

	if (valid)
		r.source = source;
	return r;
}

/*
 * How many of the ring's first n ends are at or before t: the index of the first after it.
 * The ring is ordered: a binary search, 10 steps at most.
 */
static uint32_t first_after(const struct frc_window *w, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (w->ring[(w->head + mid) % FRC_WINDOW_RING] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The ends at or before now. A frame recorded before the tick that reads the meter can be
 * later than the tick's time (two CPUs' events; a capture's order): it is not in (now -
 * 1 s, now] yet, as the truth's per-tick FPS does not count it.
 */
static uint32_t ends_until(const struct frc_window *w, uint64_t now)
{
	return first_after(w, w->len, now);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The rate of frame times dt[0..n) (sorted here) by their interquartile mean: 1e9 / the
 * mean of the middle half. Not a median: a 16/33 ms stutter reads its mean rate (40), where
 * the median of alternating frame times is one of the two; not the mean: a hitch or two
 * (the longest quarter) are no rate change. 0: fewer than 4.
 */
static double iqm_rate(uint64_t *dt, uint32_t n)
{
	uint64_t sum = 0;

	if (n < 4)
		return 0;
	qsort(dt, n, sizeof(*dt), cmp_u64);
	for (uint32_t i = n / 4; i < n - n / 4; i++)
		sum += dt[i];
	return sum ? (double)(n - 2 * (n / 4)) * 1e9 / (double)sum : 0;
}

/*
 * Did the rate change in the window? The last FRC_RECENT_FRAMES frame times (of the n ends
 * at or before now) against those before them in the window, each by its interquartile
 * mean. A hitch in the window is no change: the frames after it run at the rate the frames
 * before it ran. Fewer than 4 before them (the content's first second, the first frames
 * after a freeze longer than the window) is none: the count then ramps back over the second
 * as the per-second truth does (heuristics.mwindow_freeze_no_restart).
 */
static bool rate_changed(const struct frc_window *w, uint32_t n)
{
	uint64_t dt[FRC_WINDOW_RING];
	uint32_t m = n > 0 ? n - 1 : 0, recent = m < FRC_RECENT_FRAMES ? m : FRC_RECENT_FRAMES;
	double now_rate, base;

	if (m - recent < 4)
		return false;
	for (uint32_t i = 0; i < m; i++)
		dt[i] = w->ring[(w->head + i + 1) % FRC_WINDOW_RING] -
			w->ring[(w->head + i) % FRC_WINDOW_RING];
	now_rate = iqm_rate(dt + m - recent, recent);
	base = iqm_rate(dt, m - recent);
	return now_rate > 0 &&
	       (now_rate > base * (1 + FRC_CHANGE_BAND) || now_rate < base * (1 - FRC_CHANGE_BAND));
}

/*
 * After a rate change, the rate of the frames ending in the last FRC_FAST_NS: one frame
 * time fewer than ends over the time from the oldest to the newest (no count of a window's
 * edge; nothing before the oldest end, so a freeze's long frame is not in it); with one
 * end, 1e9 / the newest frame time.
 */
static double fast_rate(const struct frc_window *w, uint32_t n, uint64_t now)
{
	uint32_t i = now > FRC_FAST_NS ? first_after(w, n, now - FRC_FAST_NS) : 0;
	uint64_t oldest = w->ring[(w->head + i) % FRC_WINDOW_RING];
	uint64_t newest = w->ring[(w->head + n - 1) % FRC_WINDOW_RING];

	if (n - i >= 2 && newest > oldest)
		return (double)(n - i - 1) * 1e9 / (double)(newest - oldest);
	return w->last_delta ? 1e9 / (double)w->last_delta : 0;
}

/* floor(a / b) and ceil(a / b) for b > 0, a of either sign (C division truncates). */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0 && a > 0);
}

/* x - y of two CLOCK_MONOTONIC times, modulo 2^64 (a hostile capture's are any u64). */
static int64_t since(uint64_t x, uint64_t y)
{
	return (int64_t)(x - y);
}

/*
 * Whether SurfaceFlinger holds a buffer queued at q (the call's ktime: the buffer reaches
 * the queue after it) with explicit timestamp stamp (0: auto) past the first commit after q,
 * android-15 SurfaceFlinger.cpp transactionReadyTimelineCheck: it is applied at a commit
 * whose expected present is after stamp, and the commit for the vsync t expects the present
 * at t + one period (INFERENCE: SF's work within one period, as the stand-in compositor's),
 * so at a vsync t > stamp - period. A stamp more than 1 s ahead is ignored (due at once; SF's
 * bound is 1 s past the expected present, ours content_frame_time's, 1 s past the call).
 */
static bool held_by_stamp(uint64_t q, int64_t stamp, uint64_t period)
{
	uint64_t s = (uint64_t)stamp;

	return stamp > 0 && s >= q + period && s - q <= CONTENT_TIMESTAMP_MAX_AHEAD_NS;
}

/*
 * The earliest time e a vsync applying that buffer can be at: *held, strictly after
 * stamp - period; else at or after q.
 */
static uint64_t earliest_commit(uint64_t q, int64_t stamp, uint64_t period, bool *held)
{
	*held = held_by_stamp(q, stamp, period);
	return *held ? (uint64_t)stamp - period : q;
}

/* The same, as the index k of the vsync grid_at + k * period it is applied at. */
static int64_t commit_index(const struct frc_window *w, uint64_t e, bool held)
{
	int64_t p = (int64_t)w->vsync_ns, at = since(e, (uint64_t)w->grid_at);

	return held ? floor_div(at, p) + 1 : ceil_div(at, p);
}

/*
 * How many of the window's n frames (oldest first) the display did not show. SurfaceFlinger
 * holds the second of two auto-timestamped buffers to the next commit (backpressure), but
 * applies every explicit-timestamp buffer that is due, and of two applied at one commit
 * presents the later: the earlier is dropped (Layer::setBuffer -> releasePreviousBuffer,
 * display-truth.md 5, android 12-16). So a frame followed by an explicit-timestamp frame
 * of its series (the later's time minus its interval is the earlier's time) applied at the
 * same commit was not shown. With the vsync grid (a period and a present row: grid) the
 * commits are computed; with the period alone, a commit falls between two frames' earliest
 * commit times gap / period of the grid's phases: that fraction of the earlier is counted.
 * No period (no display capture): every frame counts.
 */
static double replaced_in(const struct frc_window *w, uint32_t n)
{
	double gone = 0;
	int64_t k = 0;
	uint64_t e = 0;

	if (w->vsync_ns < FRC_GRID_MIN_PERIOD_NS)
		return 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t at = (w->head + j) % FRC_WINDOW_RING;
		const struct frc_shown *b = &w->shown[at];
		uint64_t q = w->ring[at];
		bool linked =
		    j > 0 &&
		    b->at - b->delta == w->shown[(at + FRC_WINDOW_RING - 1) % FRC_WINDOW_RING].at;
		bool held;
		uint64_t eb = earliest_commit(q, b->stamp, w->vsync_ns, &held);
		int64_t kb = w->grid ? commit_index(w, eb, held) : 0;

		/* a later frame is never applied before an earlier: the commits only advance */
		if (linked && kb < k)
			kb = k;
		if (linked && eb < e)
			eb = e;
		if (linked && b->stamp) {
			if (w->grid)
				gone += kb == k;
			else if (eb - e < w->vsync_ns)
				gone += 1 - (double)(eb - e) / (double)w->vsync_ns;
		}
		k = kb;
		e = eb;
	}
	return gone;
}

/*
 * The reading before the display's cap: the count of the last second (what the display
 * showed in it, the per-second FPS) while the recent frames agree with it; after a rate
 * change, the count is up to a second late, and the last FRC_FAST_NS's rate is shown until
 * the 1 s window holds only frames from after it.
 */
static double content_rate(struct frc_window *w, uint32_t n, uint64_t span, uint64_t now)
{
	if (rate_changed(w, n))
		w->fast_until = now + FRC_FAST_HOLD_NS;
	if (now < w->fast_until)
		return fast_rate(w, n, now);
	/*
	 * n <= 1024 and span < 2^53 ns are exact doubles: one correctly rounded division (the
	 * frames the display did not show are 0 but with explicit timestamps).
	 */
	return ((double)n - replaced_in(w, n)) * 1e9 / (double)span;
}

struct fps_reading frc_window_read(struct frc_window *w, uint64_t now)
{
	uint64_t span = FRC_WINDOW_NS;
	uint32_t n;
	double v;

	w->st.reads++;
	if (!w->any)
		return reading(false, 0, FRC_SOURCE_NONE);
	while (w->len && now >= FRC_WINDOW_NS && w->ring[w->head] <= now - FRC_WINDOW_NS) {
		w->head = (w->head + 1) % FRC_WINDOW_RING;
		w->len--;
	}
	/* The screen shows the same frame: 0 FPS now, not the rate before it froze. */
	if ((now > w->last_end && now - w->last_end >= FRC_WINDOW_FREEZE_NS) ||
	    display_frozen(w, now))
		return reading(true, 0.0, FRC_SOURCE_EBPF);
	/* The content's first second: the window is the time since its first interval began. */
	if (now > w->origin && now - w->origin < span)
		span = now - w->origin;
	if (now <= w->origin || w->len == 0)
		return reading(false, 0, FRC_SOURCE_NONE);
	n = ends_until(w, now);
	if (n == 0)
		return reading(false, 0, FRC_SOURCE_NONE);
	v = content_rate(w, n, span, now);
	/*
	 * The display cannot show more than its refresh: the lower of SurfaceFlinger's vsync
	 * rate (display capture; a MAILBOX game queues more than that) and the node's value.
	 */
	if (w->panel_valid && v > w->panel && (w->display <= 0 || w->panel <= w->display))
		return reading(true, w->panel, FRC_SOURCE_SYSFS);
	if (w->display > 0 && v > w->display)
		return reading(true, w->display, FRC_SOURCE_EBPF);
	return reading(v > 0 && v <= w->fps_max, v, FRC_SOURCE_EBPF);
}

void frc_window_stats(const struct frc_window *w, struct fps_meter_stats *st)
{
	*st = w->st;
}
