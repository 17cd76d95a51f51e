/* SPDX-License-Identifier: MIT */
/*
 * score.c - the score engine (see score.h, analyzer/REPORT.md "Score").
 *
 * Per variant one lane of a replay plan (replay.h), with a sink that sees both series of the
 * main PID: the truth (from the records, through submissions.h) and the variant's deltas
 * (from the lane's pipeline); every variant's lane and the counting of the truth share the
 * plan's two reads of the capture. Both
 * go through the report's own statistics (a struct summary each) and PerfDog's rule
 * (perfdog.h); windows, janks and the per-tick truth are kept here, bounded: janks at most
 * SCORE_MAX_JANKS per series, the truth's last second at most SCORE_TICK_RING calls.
 */
#include "score.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "perfdog.h"
#include "score_meter.h"
#include "select.h"
#include "summary.h"
#include "submissions.h"
#include "windows.h"

#define SEC_NS 1000000000ull
#define SCORE_MAX_JANKS (1u << 20)
#define SCORE_TICK_RING (1u << 16) /* calls per second the per-tick truth can count */
#define SETTLE_BAND 0.05
#define LATER_SCAN 1024		 /* newest truth ends looked at past a tick */
#define RATE_NOW_NS 500000000ull /* settle's truth: the frames of the last 0.5 s ... */
#define RATE_NOW_MIN 4		 /* ... at least 4 of them ... */
#define RATE_NOW_MAX 1024	 /* ... the newest 1024 at most; */
#define RATE_NOW_HITCH 2.5	 /* longer than 2.5 x their median: a hitch, left out */

struct span {
	uint64_t start, end;
};

/*
 * One series (truth or estimate) of the main PID. Every lane sees the same truth deltas
 * (one series, one pass): the first lane's truth keeps the summary, PerfDog window and
 * janks for all, the others' (owner set) count only their own windows.
 */
struct series {
	struct summary *sum;
	const struct series *owner; /* the series keeping the statistics, NULL: this one */
	uint64_t win[4];	    /* PerfDog window */
	struct span *janks;
	size_t n_janks;
	bool truncated;
	uint64_t cur_count; /* frame times ending in the current 1 s window */
};

/*
 * The truth's recent frame-time ends, in nondecreasing order (a call back in time is kept
 * at the latest time seen, like the windows): one ring for every variant's run, as they all
 * see the same truth. n counts the ends ever pushed; end k is at buf[k % SCORE_TICK_RING]
 * while k >= n - SCORE_TICK_RING. Each run keeps its own oldest end (run.ring_head): the
 * runs' ticks come from their own pipelines, one lane after the other for a record, so a
 * run must not lose an end another run's later tick no longer counts.
 */
struct truth_ring {
	uint64_t *buf;
	uint64_t n;
};

/*
 * What every variant's run shares, kept by the lanes (struct score_lanes): the truth's
 * ring and its PID as of the current record (the lead steps the series before any lane's
 * pipeline sees the record, so a delta it causes asks this rather than the series).
 */
struct run_shared {
	struct truth_ring ring;
	uint32_t truth_pid;
	/*
	 * The newest record other than `drops` so far: what the capture observed. framerec
	 * writes its last `drops` at the stop, after the probes are detached (FORMAT.md 4.6): a
	 * tick past the observation grades the stop (no call is recorded), not the app.
	 */
	uint64_t observed;
	/*
	 * truth_rate_now of the last tick asked (every run asks at the same ticks, with the
	 * ring as the lead left it: one sort per tick, not one per lane). rate_n: the ring's
	 * count when it was computed, 0: none yet.
	 */
	uint64_t rate_tick, rate_n;
	size_t rate_later;
	double rate;
};

struct run {
	struct submissions *subm;
	struct run_shared *sh; /* the lanes' (truth_rate_now caches in it) */
	uint32_t pid;
	uint64_t t0;	      /* the span's start (replay.h) */
	struct win_clock clk; /* the full 1 s windows (windows.h) */
	struct series truth_s, est_s;
	uint64_t ring_head; /* the oldest end of sh->ring this run still counts */
	double prev_truth;  /* truth_rate_now at the previous tick */
	bool have_prev;
	enum { SETTLE_IDLE, SETTLE_MOVING, SETTLE_PENDING } st; /* settle_step */
	double base;	       /* the truth's rate before the movement */
	uint64_t change_ns;    /* the movement's first tick */
	uint64_t settle_ns;    /* its first tick within 5 %, - change_ns; UINT64_MAX: none yet */
	uint64_t end_ns;       /* the capture's largest ktime */
	struct score_meter mg; /* freezes and idle readings (score_meter.h) */
	struct score_result *r;
	char err[128];
};

/* owner: the series keeping this one's statistics (struct series), or NULL */
static int series_init(struct series *s, const struct series *owner)
{
	memset(s, 0, sizeof(*s));
	s->owner = owner;
	if (owner)
		return 0;
	s->janks = malloc(64 * sizeof(*s->janks));
	if (!s->janks || summary_new(&s->sum))
		return -ENOMEM;
	return 0;
}

static void series_free(struct series *s)
{
	summary_free(s->sum);
	free(s->janks);
}

/* The series holding s's statistics. */
static struct series *series_stats(struct series *s)
{
	return s->owner ? (struct series *)s->owner : s;
}

/* Close the current window (if it is a full one) and move to window w. */
static void window_advance(struct run *run, uint64_t w)
{
	struct score_result *r = run->r;

	if (run->clk.cur < run->clk.n_full) {
		uint64_t t = run->truth_s.cur_count, e = run->est_s.cur_count;
		uint64_t d = e > t ? e - t : t - e;

		r->truth_frames += t;
		r->est_frames += e;
		r->abs_err_frames += d;
		if (d > r->worst_err) {
			r->worst_err = d;
			r->worst_at_s = (double)run->clk.cur;
			r->worst_signed = (int64_t)e - (int64_t)t;
		}
	}
	run->truth_s.cur_count = run->est_s.cur_count = 0;
	win_clock_move(&run->clk, w);
}

/* A frame time of a series ending at ktime: window count, summary, jank list. */
static int series_add(struct run *run, struct series *s, const struct pipeline_delta *d)
{
	uint64_t w;
	int rc;

	/* A frame back in time counts in the current window (windows only move forward). */
	if (win_clock_past(&run->clk, d->ktime_ns, &w))
		window_advance(run, w);
	s->cur_count++;
	if (s->owner)
		return 0;
	/* percentiles only: the janks are found below (the summary's window would be waste) */
	rc = summary_frame_time(s->sum, d->delta_ns);
	if (rc || perfdog_push(s->win, d->delta_ns) == PERFDOG_NONE)
		return rc;
	if (s->n_janks == SCORE_MAX_JANKS) {
		s->truncated = true;
		return 0;
	}
	if (s->n_janks >= 64 && !(s->n_janks & (s->n_janks - 1))) {
		struct span *j = realloc(s->janks, 2 * s->n_janks * sizeof(*j));

		if (!j)
			return -ENOMEM;
		s->janks = j;
	}
	s->janks[s->n_janks++] = (struct span){d->ktime_ns - d->delta_ns, d->ktime_ns};
	return 0;
}

/*
 * A truth frame-time end, into the runs' ring (struct truth_ring); returns it as kept. held:
 * the runs still count an end (every run has, at a push: their ticks so far were the same,
 * from their own pipelines, and the lead pushes before any lane sees the record); a call
 * back in time is kept at the newest of those only, as when each run had its own ring.
 */
static uint64_t ring_push(struct truth_ring *tr, bool held, uint64_t ktime)
{
	if (held) {
		uint64_t newest = tr->buf[(tr->n - 1) % SCORE_TICK_RING];

		if (ktime < newest)
			ktime = newest;
	}
	tr->buf[tr->n++ % SCORE_TICK_RING] = ktime;
	return ktime;
}

/* Does run still count an end of the ring (one not forgotten nor past its last second)? */
static bool ring_held(const struct run *run)
{
	return run->sh->ring.n > run->ring_head;
}

/*
 * Truth frame times ending in (now - 1 s, now]. The replay shows a record to the sinks
 * before the synthesized ticks due before it, so the newest ends may be after now: they
 * are not counted (at most LATER_SCAN of them are looked at: a forged capture whose
 * time jumps far ahead must not make every tick scan the whole ring). More than 65536
 * calls in the ring: the oldest are forgotten.
 */
static uint64_t ring_count(struct run *run, uint64_t now, size_t *later_out)
{
	const struct truth_ring *tr = &run->sh->ring;
	size_t later = 0;
	uint64_t len;

	if (tr->n - run->ring_head > SCORE_TICK_RING)
		run->ring_head = tr->n - SCORE_TICK_RING;
	while (run->ring_head < tr->n && tr->buf[run->ring_head % SCORE_TICK_RING] + SEC_NS <= now)
		run->ring_head++;
	len = tr->n - run->ring_head;
	while (later < len && later < LATER_SCAN &&
	       tr->buf[(tr->n - 1 - later) % SCORE_TICK_RING] > now)
		later++;
	*later_out = later;
	return len - later;
}

/*
 * The rate the truth runs at now, settle's truth (REPORT.md "Score", settle): 1e9 / the
 * mean of its frame times ending in (now - RATE_NOW_NS, now] (the newest RATE_NOW_MAX of
 * them) but those longer than RATE_NOW_HITCH x their median, or -1 with fewer than
 * RATE_NOW_MIN: no rate at this tick (a freeze, its first frames after, content slower
 * than 8 FPS). Not the per-tick truth of the MAE: a 1 s count is a second late after a
 * step, and a meter as late would look settled at once. Not the plain mean: a hitch or a
 * freeze's long frame is no rate change (the jank and freeze metrics grade them). Not an
 * interquartile mean (the mean of the middle half): a display's cadence of one and two
 * vsyncs (explicit timestamps' drops, a game between two rates) puts the quartile among
 * the longer frames or not as the window slides: display/explicit_behind's half seconds of
 * 44 to 54 FPS read 48 and 60 by turns (analyzer.score_settle_cadence works a cadence by
 * hand). later: the ring's newest ends past now.
 */
static double rate_now(const struct truth_ring *tr, uint64_t now, size_t later)
{
	uint64_t lowest = tr->n > SCORE_TICK_RING ? tr->n - SCORE_TICK_RING : 0;
	uint64_t dt[RATE_NOW_MAX], k, sum = 0;
	uint32_t n = 0;

	if (tr->n <= later)
		return -1;
	for (k = tr->n - 1 - later; k > lowest && n < RATE_NOW_MAX; k--) {
		uint64_t end = tr->buf[k % SCORE_TICK_RING];

		if (end + RATE_NOW_NS <= now)
			break;
		dt[n++] = end - tr->buf[(k - 1) % SCORE_TICK_RING]; /* the ring is ordered */
	}
	if (n < RATE_NOW_MIN)
		return -1;
	double hitch = RATE_NOW_HITCH * (double)u64_select(dt, n, n / 2); /* the median */
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		if ((double)dt[i] > hitch)
			continue; /* a hitch */
		sum += dt[i];
		kept++;
	}
	return sum ? (double)kept * 1e9 / (double)sum : -1;
}

/* rate_now for run, once per tick and ring state for all the runs (struct run_shared). */
static double truth_rate_now(struct run *run, uint64_t now, size_t later)
{
	struct run_shared *sh = run->sh;

	if (sh->rate_n != sh->ring.n + 1 || sh->rate_tick != now || sh->rate_later != later) {
		sh->rate = rate_now(&sh->ring, now, later);
		sh->rate_n = sh->ring.n + 1, sh->rate_tick = now, sh->rate_later = later;
	}
	return sh->rate;
}

static int run_delta(void *ctx, const struct pipeline_delta *d)
{
	struct run *run = ctx;

	/* the estimate of the truth's PID at this moment (the target's, which may change) */
	return d->pid == run->sh->truth_pid ? series_add(run, &run->est_s, d) : 0;
}

/* A delta before the window (replay.h): the estimate's PerfDog window only. */
static int run_warm_delta(void *ctx, const struct pipeline_delta *d)
{
	struct run *run = ctx;

	if (d->pid == run->sh->truth_pid)
		(void)perfdog_push(run->est_s.win, d->delta_ns);
	return 0;
}

/*
 * Settle (REPORT.md "Score", settle). The truth's rate at a tick is truth_rate_now; it moves
 * when it differs by > 5 % from the last tick's that had one. Consecutive such ticks are one
 * movement, timed from its first tick; it ends at the first tick the rate holds still. A
 * movement that ends within 5 % of the rate before it was a disturbance (a burst of janks),
 * no rate change; one that ends elsewhere is a rate change, which settles at the first tick
 * since its start whose reading is within 5 % of the truth's rate at that tick. A change
 * that has not settled when the next movement starts, or at the end, is unsettled.
 */
static void settle_done(struct run *run, uint64_t settle_ns)
{
	struct score_result *r = run->r;

	r->settled++;
	r->settle_sum_ns += settle_ns;
	if (settle_ns > r->settle_max_ns)
		r->settle_max_ns = settle_ns;
}

/* The movement ended at rate truth: a rate change (counted) or a disturbance (forgotten). */
static void movement_end(struct run *run, double truth)
{
	run->st = SETTLE_IDLE;
	if (truth <= run->base * (1 + SETTLE_BAND) && truth >= run->base * (1 - SETTLE_BAND))
		return;
	run->r->changes++;
	if (run->settle_ns != UINT64_MAX)
		settle_done(run, run->settle_ns);
	else
		run->st = SETTLE_PENDING;
}

static void settle_step(struct run *run, uint64_t now, double truth, double est)
{
	double band = SETTLE_BAND * truth, err = est > truth ? est - truth : truth - est;
	bool moved;

	if (truth < 0) /* no rate at this tick: nothing moves, nothing settles */
		return;
	moved = run->have_prev && (truth > run->prev_truth * (1 + SETTLE_BAND) ||
				   truth < run->prev_truth * (1 - SETTLE_BAND));
	if (moved && run->st != SETTLE_MOVING) {
		run->r->unsettled += run->st == SETTLE_PENDING;
		run->st = SETTLE_MOVING;
		run->base = run->prev_truth;
		run->change_ns = now;
		run->settle_ns = UINT64_MAX;
	}
	if (run->st != SETTLE_IDLE && run->settle_ns == UINT64_MAX && err <= band)
		run->settle_ns = now - run->change_ns;
	if (run->st == SETTLE_MOVING && !moved)
		movement_end(run, truth);
	else if (run->st == SETTLE_PENDING && run->settle_ns != UINT64_MAX) {
		settle_done(run, run->settle_ns);
		run->st = SETTLE_IDLE;
	}
	run->prev_truth = truth;
	run->have_prev = true;
}

/* The end: a movement still going counts as it stands; a pending change never settled. */
static void settle_finish(struct run *run)
{
	if (run->st == SETTLE_MOVING)
		movement_end(run, run->prev_truth);
	run->r->unsettled += run->st == SETTLE_PENDING;
	run->st = SETTLE_IDLE;
}

static int run_reading(void *ctx, const struct pipeline_reading *rd)
{
	struct run *run = ctx;
	struct score_result *r = run->r;
	double truth, est, err;
	size_t later;

	if (rd->tick_ns < run->t0 + SEC_NS || rd->tick_ns > run->sh->observed)
		return 0;
	truth = (double)ring_count(run, rd->tick_ns, &later);
	est = rd->reading.valid ? rd->reading.fps : 0.0;
	err = est > truth ? est - truth : truth - est;
	r->ticks++;
	r->ticks_none += !rd->reading.valid;
	r->meter_abs_err += err;
	r->meter_truth_sum += truth;
	settle_step(run, rd->tick_ns, truth_rate_now(run, rd->tick_ns, later), est);
	score_meter_tick(&run->mg, r, rd->tick_ns, &rd->reading, truth);
	return 0;
}

static int run_begin(void *ctx, const struct replay_info *info)
{
	struct run *run = ctx;
	const struct subm_pid *mp = subm_main_pid(run->subm);

	run->pid = mp ? mp->pid : 0; /* counted in this replay's scan pass */
	run->r->truncated = info->stats.status != FRC_STATUS_COMPLETE;
	run->r->stats = info->stats;
	run->t0 = info->span_start;
	run->r->windowed = info->windowed;
	run->r->from_ns = info->span_start - info->stats.first_ktime_ns;
	run->r->to_ns = info->span_end - info->stats.first_ktime_ns;
	win_clock_init(&run->clk, info->span_start, info->span_end);
	run->end_ns = info->span_end;
	/* the table's string, not the replay's copy of the metadata (gone after the replay) */
	run->r->meter = meter_kind_find(info->meter) ? meter_kind_find(info->meter)->name : NULL;
	return 0;
}

static const char *run_error(void *ctx)
{
	return ((struct run *)ctx)->err;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start != y->start ? (x->start > y->start) - (x->start < y->start)
				    : (x->end > y->end) - (x->end < y->end);
}

/*
 * How many spans of a overlap (share more than an instant with) some span of b. b is
 * sorted by start; every span of b is at most max_len long, so only the spans of b that
 * start in (a.start - max_len, a.end) can overlap a: a binary search and a short scan.
 */
static uint64_t count_matched(const struct span *a, size_t na, const struct span *b, size_t nb)
{
	uint64_t max_len = 0, matched = 0;

	for (size_t i = 0; i < nb; i++)
		if (b[i].end - b[i].start > max_len)
			max_len = b[i].end - b[i].start;
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi = nb; /* first b starting at or after a[i].end */

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (b[mid].start < a[i].end)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* b[lo].start + max_len > a[i].start, without the sum (it could wrap) */
		while (lo-- > 0 && (a[i].start <= max_len || b[lo].start > a[i].start - max_len)) {
			if (b[lo].end > a[i].start) {
				matched++;
				break;
			}
		}
	}
	return matched;
}

static void finish_run(struct run *run)
{
	struct score_result *r = run->r;
	struct summary_frame_numbers t, e;
	struct series *ts = series_stats(&run->truth_s), *es = &run->est_s;

	window_advance(run, UINT64_MAX);
	score_meter_finish(&run->mg, r, run->end_ns);
	r->windows = run->clk.n_full;
	settle_finish(run);
	summary_frame_numbers(ts->sum, &t);
	summary_frame_numbers(es->sum, &e);
	r->truth_p[0] = t.p50_ns, r->truth_p[1] = t.p95_ns, r->truth_p[2] = t.p99_ns;
	r->est_p[0] = e.p50_ns, r->est_p[1] = e.p95_ns, r->est_p[2] = e.p99_ns;
	for (int i = 0; i < 3; i++)
		r->p_abs_err_ms[i] =
		    (r->est_p[i] > r->truth_p[i] ? (double)(r->est_p[i] - r->truth_p[i])
						 : (double)(r->truth_p[i] - r->est_p[i])) /
		    1e6;
	r->truth_deltas = t.deltas;
	r->est_deltas = e.deltas;
	r->truth_sum_ns = t.sum_ns;
	r->est_sum_ns = e.sum_ns;
	r->captures = t.deltas && e.deltas; /* percentile errors exist */
	if (!r->captures)
		memset(r->p_abs_err_ms, 0, sizeof(r->p_abs_err_ms));
	qsort(ts->janks, ts->n_janks, sizeof(*ts->janks), cmp_span);
	qsort(es->janks, es->n_janks, sizeof(*es->janks), cmp_span);
	r->truth_janks = ts->n_janks;
	r->est_janks = es->n_janks;
	r->est_matched = count_matched(es->janks, es->n_janks, ts->janks, ts->n_janks);
	r->truth_matched = count_matched(ts->janks, ts->n_janks, es->janks, es->n_janks);
	r->janks_truncated = ts->truncated || es->truncated;
}

struct score_lanes {
	size_t n;
	struct run *runs;
	struct replay_sink *sinks;
	struct replay_lane *lanes;
	struct submissions *truth;
	struct run_shared sh; /* the runs' truth ring and truth PID */
	uint32_t pid;	      /* the main PID, every run's */
	/* the display truth (score_lanes_set_display): the content layer, its next row */
	const struct display_layer *dl;
	size_t di;
	uint32_t segment;    /* the last row's (its gaps before it) */
	uint64_t span_start; /* frame times ending before it are warm */
	char err[FRC_MSG_MAX];
};

static int lead_begin(void *ctx, const struct replay_info *info)
{
	struct score_lanes *sl = ctx;
	const struct subm_pid *mp = subm_main_pid(sl->truth);

	int rc;

	sl->pid = mp ? mp->pid : 0; /* counted in this replay's scan pass */
	rc = subm_series_begin(sl->truth, info, sl->err, sizeof(sl->err));
	if (rc)
		return rc;
	sl->sh.truth_pid = subm_truth_pid(sl->truth);
	sl->di = 0;
	sl->segment = 0;
	sl->span_start = info->span_start;
	return 0;
}

/* A truth frame time d, to every variant's run: the per-tick ring, freezes, windows. */
static int truth_push(struct score_lanes *sl, const struct pipeline_delta *d)
{
	/* the newest end as the ring keeps it (a call back in time at the newest) */
	uint64_t end = ring_push(&sl->sh.ring, sl->n && ring_held(&sl->runs[0]), d->ktime_ns);

	for (size_t i = 0; i < sl->n; i++) {
		struct run *run = &sl->runs[i];
		int rc;

		score_meter_truth(&run->mg, run->r, end);
		if ((rc = series_add(run, &run->truth_s, d)) != 0)
			return rc;
	}
	return 0;
}

/*
 * The display truth (score_lanes_set_display): the content layer's frame times ending at
 * or before upto, in present order. A row is recorded at its poll, after its present, so
 * the frame time ending at actual is given at the first record at or after actual: the
 * truth then reaches the runs as a call would, before the ticks due before that record.
 * A new segment (an FRC_PRESENT_GAP before the row) starts PerfDog's window again, as
 * display.c's summary does; a frame time ending before the span only feeds that window.
 */
static int display_feed(struct score_lanes *sl, uint64_t upto)
{
	const struct display_layer *l = sl->dl;

	while (sl->di < l->n_row) {
		const struct display_row *row = &l->row[sl->di];
		struct pipeline_delta d = {.pid = sl->pid,
					   .ktime_ns = (uint64_t)row->p.actual,
					   .delta_ns = row->interval_ns};
		int rc;

		if (row->interval_ns && d.ktime_ns > upto)
			break;
		sl->di++;
		if (row->segment != sl->segment && sl->n)
			memset(sl->runs[0].truth_s.win, 0, sizeof(sl->runs[0].truth_s.win));
		sl->segment = row->segment;
		if (!row->interval_ns)
			continue;
		if (d.ktime_ns < sl->span_start) {
			if (sl->n)
				(void)perfdog_push(sl->runs[0].truth_s.win, d.delta_ns);
			continue;
		}
		if ((rc = truth_push(sl, &d)) != 0)
			return rc;
	}
	return 0;
}

/*
 * A record's truth step, for every variant's run at once (the plan's lead sink: before any
 * lane's pipeline sees the record, where each run's own record callback would do it).
 * warm: a record before the window (replay.h): the truth's PerfDog window follows, nothing
 * is counted.
 */
static int lead_step(struct score_lanes *sl, const struct frc_record *rec, uint64_t frame_seq,
		     bool warm)
{
	struct pipeline_delta d;
	uint32_t pid = rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid;

	/* attach/exit: a new process life, fresh windows (as the report and the trackers). */
	if ((rec->type == FRC_ATTACH || rec->type == FRC_EXIT) &&
	    pid == subm_truth_pid(sl->truth)) {
		for (size_t i = 0; i < sl->n; i++) {
			struct run *run = &sl->runs[i];

			/* the display truth's PerfDog window starts again at gaps only */
			if (!sl->dl)
				memset(series_stats(&run->truth_s)->win, 0,
				       sizeof(run->truth_s.win));
			memset(run->est_s.win, 0, sizeof(run->est_s.win));
		}
	}
	if (rec->type != FRC_DROPS && rec->ktime_ns > sl->sh.observed)
		sl->sh.observed = rec->ktime_ns;
	/* the series steps with the display truth too: the estimate follows its PID */
	bool has = subm_series_next(sl->truth, rec, frame_seq, &d);

	sl->sh.truth_pid = subm_truth_pid(sl->truth); /* as of this record, for every run */

	if (sl->dl) /* the display truth: its frame times up to this record (warm or not) */
		return display_feed(sl, rec->ktime_ns);
	if (!has || d.pid != subm_truth_pid(sl->truth))
		return 0;
	if (warm) {
		if (sl->n)
			(void)perfdog_push(sl->runs[0].truth_s.win, d.delta_ns); /* the owner's */
		return 0;
	}
	return truth_push(sl, &d);
}

static int lead_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	return lead_step(ctx, rec, frame_seq, false);
}

static int lead_warm_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	return lead_step(ctx, rec, frame_seq, true);
}

/* The display truth's frame times past the last record (none in a well-formed capture). */
static int lead_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct score_lanes *sl = ctx;

	(void)info, (void)ps;
	return sl->dl ? display_feed(sl, UINT64_MAX) : 0;
}

static const char *lead_error(void *ctx)
{
	return ((struct score_lanes *)ctx)->err;
}

struct replay_sink score_lanes_lead(struct score_lanes *sl)
{
	return (struct replay_sink){.ctx = sl,
				    .begin = lead_begin,
				    .record = lead_record,
				    .end = lead_end,
				    .error = lead_error,
				    .warm_record = lead_warm_record};
}

void score_lanes_set_display(struct score_lanes *sl, const struct display *d)
{
	sl->dl = display_content(d);
}

void score_lanes_free(struct score_lanes *sl)
{
	if (!sl)
		return;
	for (size_t i = 0; sl->runs && i < sl->n; i++) {
		series_free(&sl->runs[i].truth_s);
		series_free(&sl->runs[i].est_s);
	}
	free(sl->sh.ring.buf);
	free(sl->runs);
	free(sl->sinks);
	free(sl->lanes);
	free(sl);
}

/* Variant i's run and its lane: one sink, the variant's tracker and meter (NULL: own). */
static int lane_init(struct score_lanes *sl, size_t i, struct submissions *truth, const char *name,
		     const char *meter, struct score_result *r)
{
	struct run *run = &sl->runs[i];

	memset(r, 0, sizeof(*r));
	r->tracker = name;
	r->meter = meter; /* the replay's own is known at begin (run_begin) */
	*run = (struct run){.subm = truth, .sh = &sl->sh, .r = r};
	/* the first lane's truth keeps the statistics of all (struct series) */
	if (series_init(&run->truth_s, i ? &sl->runs[0].truth_s : NULL) ||
	    series_init(&run->est_s, NULL))
		return -ENOMEM;
	sl->sinks[i] = (struct replay_sink){.ctx = run,
					    .begin = run_begin,
					    .delta = run_delta,
					    .reading = run_reading,
					    .error = run_error,
					    .warm_delta = run_warm_delta};
	sl->lanes[i] = (struct replay_lane){name, &sl->sinks[i], 1, meter};
	return 0;
}

int score_lanes_new(struct score_lanes **out, struct submissions *truth, const char *const *names,
		    size_t n, struct score_result *results)
{
	return score_lanes_new_meters(out, truth, names, NULL, n, results);
}

int score_lanes_new_meters(struct score_lanes **out, struct submissions *truth,
			   const char *const *names, const char *const *meters, size_t n,
			   struct score_result *results)
{
	struct score_lanes *sl = calloc(1, sizeof(*sl));

	*out = sl;
	if (!sl)
		return -ENOMEM;
	sl->truth = truth;
	sl->sh.ring.buf = malloc(SCORE_TICK_RING * sizeof(*sl->sh.ring.buf));
	sl->runs = calloc(n ? n : 1, sizeof(*sl->runs));
	sl->sinks = calloc(n ? n : 1, sizeof(*sl->sinks));
	sl->lanes = calloc(n ? n : 1, sizeof(*sl->lanes));
	if (!sl->sh.ring.buf || !sl->runs || !sl->sinks || !sl->lanes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		sl->n = i + 1; /* what score_lanes_free frees */
		if (lane_init(sl, i, truth, names[i], meters ? meters[i] : NULL, &results[i]))
			return -ENOMEM;
	}
	return 0;
}

const struct replay_lane *score_lanes(const struct score_lanes *sl)
{
	return sl->lanes;
}

void score_lanes_finish(struct score_lanes *sl)
{
	for (size_t i = 0; i < sl->n; i++)
		finish_run(&sl->runs[i]);
}

/* What the truth says about the capture (score_capture's cap). */
static void capture_fill(struct score_capture *cap, struct submissions *truth)
{
	const struct subm_pid *mp = subm_main_pid(truth);
	const struct subm_truth *tr = subm_truth(truth);

	cap->pids = subm_pid_count(truth);
	for (size_t i = 0; i < cap->pids; i++)
		cap->frames += subm_pid_at(truth, i)->calls;
	if (mp) {
		cap->has_frames = true;
		cap->pid = mp->pid;
		cap->pid_calls = mp->calls;
		cap->surfaces = mp->surfaces;
		cap->main_surface = mp->main_surface;
		cap->main_calls = mp->main_calls;
	}
	/* the content rule's principal content, not the count's main surface */
	for (size_t i = 0; tr->rule == SUBM_RULE_CONTENT && tr->has && i < cap->pids; i++) {
		const struct subm_pid *p = subm_pid_at(truth, i);

		if (p->pid != tr->pid)
			continue;
		cap->pid = p->pid;
		cap->pid_calls = p->calls;
		cap->surfaces = p->surfaces;
		cap->main_surface = tr->surface;
		cap->main_calls = subm_pair_calls(truth, tr->pid, tr->surface);
	}
}

int score_capture(const struct replay_source *src, const struct replay_options *opt,
		  const char *const *names, size_t n, struct score_capture *cap,
		  struct score_result *results, char *err, size_t errlen)
{
	return score_capture_meters(src, opt, names, NULL, n, cap, results, err, errlen);
}

/*
 * The scan sink of the first plan: a capture with present records stops after the scan
 * pass (SCORE_PRESENTS), before any pipeline ran; its truth may be the display's, which
 * is known only after a replay (score_capture_meters).
 */
#define SCORE_PRESENTS (-ECANCELED)

static int presents_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	(void)ctx, (void)ps;
	return info->stats.by_type[FRC_PRESENT] ? SCORE_PRESENTS : 0;
}

static const char *presents_error(void *ctx)
{
	(void)ctx;
	return "the capture has presents";
}

/* The scan sink of score_learn_display's plan: without present records, nothing to learn. */
#define SCORE_NO_PRESENTS (-ENODATA)

static int no_presents_end(void *ctx, const struct replay_info *info,
			   const struct pipeline_stats *ps)
{
	(void)ctx, (void)ps;
	return info->stats.by_type[FRC_PRESENT] ? 0 : SCORE_NO_PRESENTS;
}

static const char *no_presents_error(void *ctx)
{
	(void)ctx;
	return "the capture has no presents";
}

/* What a plan of score_plan holds: beside the lanes, what it learns or scores against. */
struct plan_extra {
	bool probe;		     /* stop after the scan when there are presents */
	bool learn_only;	     /* stop after the scan when there are none */
	struct display *disp;	     /* a lead sink too, learning what was presented */
	const struct display *shown; /* its content layer is the truth */
};

/* One replay of src for the n lanes into results: the truth counted into truth (fresh). */
static int score_plan(const struct replay_source *src, const struct replay_options *opt,
		      const char *const *names, const char *const *meters, size_t n,
		      struct score_result *results, struct submissions *truth,
		      const struct plan_extra *x, char *err, size_t errlen)
{
	struct score_lanes *sl = NULL;
	struct replay_sink scan[2] = {subm_count_sink(truth),
				      {.end = presents_end, .error = presents_error}};
	struct replay_sink no_presents = {.end = no_presents_end, .error = no_presents_error};
	struct replay_sink lead[2];
	struct replay_plan plan = {.scan = scan, .n_lanes = n, .lead = lead};
	int rc;

	if (x->learn_only)
		scan[1] = no_presents;
	plan.n_scan = 1 + (x->probe || x->learn_only);
	if (score_lanes_new_meters(&sl, truth, names, meters, n, results)) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		score_lanes_free(sl);
		return -ENOMEM;
	}
	if (x->shown)
		score_lanes_set_display(sl, x->shown);
	lead[0] = score_lanes_lead(sl);
	if (x->disp)
		lead[1] = display_sink(x->disp);
	plan.lanes = score_lanes(sl);
	plan.n_lead = x->disp ? 2 : 1;
	rc = replay_run_plan(src, opt, &plan, err, errlen);
	if (!rc)
		score_lanes_finish(sl);
	score_lanes_free(sl);
	return rc;
}

/* The content layer the truth came from (score_capture's cap). */
static void capture_display(struct score_capture *cap, const struct display *d)
{
	const struct display_layer *l = display_content(d);

	cap->display_truth = true;
	cap->content_id = l->id;
	cap->content_presents = l->presents;
	snprintf(cap->content_layer, sizeof(cap->content_layer), "%s", l->name);
}

/*
 * One lane (name; NULL: the replay's own tracker) learns what src presented into *disp,
 * over the submissions *seen (both new; first: that lane against the submissions).
 * learn_only: a capture without present records stops after the scan (SCORE_NO_PRESENTS).
 */
static int learn_display(const struct replay_source *src, const struct replay_options *opt,
			 const char *name, bool learn_only, struct display **disp,
			 struct submissions **seen, struct score_result *first, char *err,
			 size_t errlen)
{
	struct plan_extra learn = {.learn_only = learn_only};

	if (subm_new(seen) || display_new(disp, *seen)) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		return -ENOMEM;
	}
	learn.disp = *disp;
	return score_plan(src, opt, &name, NULL, 1, first, *seen, &learn, err, errlen);
}

/*
 * Every lane against shown's content layer (shown NULL or without one: the submissions),
 * the truth counted into *truth (new); cap says which truth (has_presents, display_truth).
 */
static int score_shown(const struct replay_source *src, const struct replay_options *opt,
		       const char *const *names, const char *const *meters, size_t n,
		       const struct display *shown, struct score_capture *cap,
		       struct score_result *results, struct submissions **truth, char *err,
		       size_t errlen)
{
	struct plan_extra score = {.shown = shown && display_content(shown) ? shown : NULL};
	int rc;

	if (subm_new(truth)) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		return -ENOMEM;
	}
	rc = score_plan(src, opt, names, meters, n, results, *truth, &score, err, errlen);
	if (rc)
		return rc;
	cap->has_presents = shown && shown->has;
	if (score.shown)
		capture_display(cap, shown);
	return 0;
}

/*
 * A capture with presents: one lane (the first variant) learns what was presented and the
 * submissions' window FPS, then every lane is scored against the display's content layer
 * (none: the submissions). Two replays, as the content layer is known only at the end of
 * the first, and a row is recorded at its poll, after the present it reports: the second
 * gives the runs each display frame time at its present (display_feed).
 */
static int score_presented(const struct replay_source *src, const struct replay_options *opt,
			   const char *const *names, const char *const *meters, size_t n,
			   struct score_capture *cap, struct score_result *results,
			   struct submissions **truth, char *err, size_t errlen)
{
	struct submissions *seen = NULL;
	struct display *disp = NULL;
	struct score_result first;
	int rc = learn_display(src, opt, names[0], false, &disp, &seen, &first, err, errlen);

	if (!rc)
		rc =
		    score_shown(src, opt, names, meters, n, disp, cap, results, truth, err, errlen);
	if (!rc) {
		cap->subm_frames = first.truth_frames;
		cap->subm_windows = first.windows;
	}
	display_free(disp);
	subm_free(seen);
	return rc;
}

/* The rest of cap from the truth counted, and each result's capture. */
static void capture_finish(struct score_capture *cap, struct submissions *truth,
			   struct score_result *results, size_t n, const char *path)
{
	capture_fill(cap, truth);
	cap->truncated = n > 0 && results[0].truncated;
	if (n > 0)
		cap->stats = results[0].stats;
	for (size_t i = 0; i < n; i++)
		results[i].worst_path = path;
}

/*
 * Without presents, the first plan's score is the score (as before the display truth: one
 * replay, the same bytes); with them, score_presented.
 */
int score_capture_meters(const struct replay_source *src, const struct replay_options *opt,
			 const char *const *names, const char *const *meters, size_t n,
			 struct score_capture *cap, struct score_result *results, char *err,
			 size_t errlen)
{
	struct submissions *truth = NULL;
	struct plan_extra probe = {.probe = n > 0};
	int rc = -ENOMEM;

	memset(cap, 0, sizeof(*cap));
	cap->path = src->path;
	if (subm_new(&truth)) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		goto cleanup;
	}
	rc = score_plan(src, opt, names, meters, n, results, truth, &probe, err, errlen);
	if (rc == SCORE_PRESENTS) {
		subm_free(truth);
		truth = NULL;
		rc = score_presented(src, opt, names, meters, n, cap, results, &truth, err, errlen);
	} else if (!rc && n) {
		cap->subm_frames = results[0].truth_frames;
		cap->subm_windows = results[0].windows;
	}
	if (!rc)
		capture_finish(cap, truth, results, n, src->path);
cleanup:
	subm_free(truth);
	return rc;
}

int score_capture_shown(const struct replay_source *src, const struct replay_options *opt,
			const char *const *trackers, const char *const *meters, size_t n,
			const struct display *d, struct score_capture *cap,
			struct score_result *results, char *err, size_t errlen)
{
	struct submissions *truth = NULL;
	int rc;

	memset(cap, 0, sizeof(*cap));
	cap->path = src->path;
	rc = score_shown(src, opt, trackers, meters, n, d, cap, results, &truth, err, errlen);
	if (!rc)
		capture_finish(cap, truth, results, n, src->path);
	subm_free(truth);
	return rc;
}

int score_learn_display(const struct replay_source *src, const struct replay_options *opt,
			struct display **out, struct submissions **subm, char *err, size_t errlen)
{
	struct score_result first;
	int rc = learn_display(src, opt, NULL, true, out, subm, &first, err, errlen);

	/* no presents, or none linked to the main surface: the truth stays the submissions */
	if (rc == SCORE_NO_PRESENTS || (!rc && !display_content(*out)))
		rc = 1;
	if (rc) {
		display_free(*out);
		subm_free(*subm);
		*out = NULL;
		*subm = NULL;
	}
	return rc == 1 ? 0 : rc;
}

/* a + b, held at UINT64_MAX (a ktime jump must not wrap the pooled sums of frame times) */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void score_add(struct score_result *acc, const struct score_result *r)
{
	if (r->worst_err > acc->worst_err || acc->captures == 0) {
		acc->worst_err = r->worst_err;
		acc->worst_at_s = r->worst_at_s;
		acc->worst_signed = r->worst_signed;
		acc->worst_path = r->worst_path;
	}
	acc->tracker = r->tracker;
	acc->meter = r->meter;
	acc->freezes += r->freezes;
	acc->freezes_shown += r->freezes_shown;
	acc->freezes_missed += r->freezes_missed;
	acc->freezes_late += r->freezes_late;
	acc->freezes_unseen += r->freezes_unseen;
	acc->freeze_show_sum_ns += r->freeze_show_sum_ns;
	if (r->freeze_show_max_ns > acc->freeze_show_max_ns)
		acc->freeze_show_max_ns = r->freeze_show_max_ns;
	acc->idle_ticks += r->idle_ticks;
	acc->idle_shown += r->idle_shown;
	acc->windows += r->windows;
	acc->truth_frames += r->truth_frames;
	acc->est_frames += r->est_frames;
	acc->abs_err_frames += r->abs_err_frames;
	for (int i = 0; i < 3; i++)
		acc->p_abs_err_ms[i] += r->p_abs_err_ms[i];
	acc->captures += r->captures;
	acc->truth_deltas += r->truth_deltas;
	acc->est_deltas += r->est_deltas;
	acc->truth_sum_ns = sat_add(acc->truth_sum_ns, r->truth_sum_ns);
	acc->est_sum_ns = sat_add(acc->est_sum_ns, r->est_sum_ns);
	acc->truth_janks += r->truth_janks;
	acc->est_janks += r->est_janks;
	acc->est_matched += r->est_matched;
	acc->truth_matched += r->truth_matched;
	acc->janks_truncated |= r->janks_truncated;
	acc->ticks += r->ticks;
	acc->ticks_none += r->ticks_none;
	acc->meter_abs_err += r->meter_abs_err;
	acc->meter_truth_sum += r->meter_truth_sum;
	acc->changes += r->changes;
	acc->settled += r->settled;
	acc->unsettled += r->unsettled;
	acc->settle_sum_ns += r->settle_sum_ns;
	if (r->settle_max_ns > acc->settle_max_ns)
		acc->settle_max_ns = r->settle_max_ns;
}
