/* SPDX-License-Identifier: MIT */
/*
 * score.h - `frameanalyze score`: each tracker variant against the capture's truth.
 *
 * The truth is the display's when the capture has presents linked to the main surface
 * (its content layer's display frame times, display.h), else the main surface of the
 * capture's main PID (submissions.h). Each variant
 * replays the capture with its tracker (one lane each, all in one replay: replay.h); the
 * score compares, on the main PID only: FPS per
 * 1 s window, frame-time percentiles, PerfDog janks matched in time, and the FPS meter's
 * reading at every tick against the truth's frame times ending in the second before it.
 * analyzer/REPORT.md ("Score") defines every number.
 */
#ifndef FRAMEANALYZE_SCORE_H
#define FRAMEANALYZE_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "replay.h"

/* One variant on one capture (or summed over captures: the sums pool). */
struct score_result {
	const char *tracker;
	bool truncated; /* the capture is damaged: truncated (scored up to the damage) or recovered
			 */
	struct frc_reader_stats stats; /* the replay's reader stats (status, loss), per capture */
	/* the window scored (--from/--to): ns after the capture's first record */
	bool windowed;
	uint64_t from_ns, to_ns;
	/* FPS per full 1 s window: frame times ending in the window */
	uint64_t windows, truth_frames, est_frames;
	uint64_t abs_err_frames; /* sum over windows of |est - truth| */
	uint64_t worst_err;	 /* the largest |est - truth| of one window (FPS) */
	double worst_at_s;	 /* that window's start, s after the first record */
	const char *worst_path;	 /* that window's capture */
	int64_t worst_signed;	 /* est - truth in that window */
	/* frame-time percentiles, ns (truncated to the us as the report prints them) */
	uint64_t truth_p[3], est_p[3]; /* p50, p95, p99 */
	uint64_t truth_deltas, est_deltas;
	uint64_t truth_sum_ns, est_sum_ns; /* their sums (saturating): the mean FPS */
	double p_abs_err_ms[3];		   /* |est - truth| in ms; summed over captures */
	uint64_t captures; /* captures where both series have frame times (p_abs_err_ms) */
	/* janks */
	uint64_t truth_janks, est_janks, est_matched, truth_matched;
	bool janks_truncated;
	/* meter vs truth at each tick (ticks at least 1 s after the first record) */
	uint64_t ticks, ticks_none;
	double meter_abs_err, meter_truth_sum; /* FPS */
	uint64_t changes, settled, unsettled;
	uint64_t settle_sum_ns, settle_max_ns;
	/*
	 * The meter's grading (issue 21; score_meter.c): the meter variant, freezes (truth
	 * intervals >= 0.5 s), those its reading showed (below half its reading before the
	 * last frame) and when, and the ticks with no submission in the second before (truth
	 * 0) at which it showed a reading above 0.
	 */
	const char *meter;
	uint64_t freezes, freezes_shown, freezes_missed;
	uint64_t freezes_late;	 /* shown, but not at the first tick SCORE_FREEZE_DUE_NS on */
	uint64_t freezes_unseen; /* no tick that late in the freeze: no meter could show it */
	uint64_t freeze_show_sum_ns, freeze_show_max_ns;
	uint64_t idle_ticks, idle_shown;
};

struct score_lanes;

/* What the score learned about a capture. */
struct score_capture {
	const char *path;
	bool truncated;		       /* damaged: stats.status says how */
	struct frc_reader_stats stats; /* the replay's: status, what was lost */
	bool has_frames;
	uint32_t pid;	       /* main PID */
	uint64_t pid_calls;    /* its frame records */
	uint64_t surfaces;     /* its distinct surfaces */
	uint64_t main_surface; /* its main surface */
	uint64_t main_calls;   /* that surface's calls */
	uint64_t frames, pids; /* frame records and PIDs in the capture */
	/*
	 * The truth scored (REPORT.md "Score"): the display (display_truth: the content layer's
	 * display frame times, display.h) when the capture has presents linked to the main
	 * surface, else the submissions. has_presents: present records in the span.
	 */
	bool has_presents, display_truth;
	uint32_t content_id;
	uint64_t content_presents;
	char content_layer[256];
	/* the submissions' window FPS (frame times in full windows / windows; 0: none) */
	uint64_t subm_frames, subm_windows;
};

/*
 * Score src (a capture file, or records in memory: replay.h; opt may be NULL) with the n
 * trackers named in names (each a tracker_kind name), results[i] for names[i]. Returns 0
 * or a negative code with a one-line message in err.
 */
FRC_MUST_USE int score_capture(const struct replay_source *src, const struct replay_options *opt,
			       const char *const *names, size_t n, struct score_capture *cap,
			       struct score_result *results, char *err, size_t errlen);

/*
 * The truth is the display's when the capture has presents (score_capture.display_truth):
 * such a capture is replayed three times, once for one lane only (score.c). score_capture with a
 * meter per lane too: lane i replays trackers[i] feeding meters[i] (meter_kind.h names; meters NULL
 * or meters[i] NULL: the replay's own meter, opt's
 * --meter, recorded, else the default). results[i].meter names it.
 */
FRC_MUST_USE int score_capture_meters(const struct replay_source *src,
				      const struct replay_options *opt, const char *const *trackers,
				      const char *const *meters, size_t n,
				      struct score_capture *cap, struct score_result *results,
				      char *err, size_t errlen);

struct submissions; /* submissions.h */
struct display;	    /* display.h */

/*
 * The score as lanes of a replay plan that the caller runs with lanes of its own (the
 * report's page: the report and every variant's score from the same two reads). n lanes,
 * lane i for tracker names[i] (the strings must outlive the replay) against truth, which
 * the same plan counts in its scan pass (subm_count_sink); score_lanes_lead is the plan's
 * lead sink that steps the truth of every lane at once (it must be in the same plan).
 * After a successful replay score_lanes_finish fills results[i]. 0 or -ENOMEM (then still
 * score_lanes_free *out).
 */
FRC_MUST_USE int score_lanes_new(struct score_lanes **out, struct submissions *truth,
				 const char *const *names, size_t n, struct score_result *results);
/* score_lanes_new with a meter per lane (meters as score_capture_meters). */
FRC_MUST_USE int score_lanes_new_meters(struct score_lanes **out, struct submissions *truth,
					const char *const *trackers, const char *const *meters,
					size_t n, struct score_result *results);
/*
 * The truth of every lane is d's content layer (display.h, after a replay of the same
 * capture and options): its display frame times replace the submissions' (no content
 * layer: the submissions stay). d must outlive the replay.
 */
void score_lanes_set_display(struct score_lanes *sl, const struct display *d);
const struct replay_lane *score_lanes(const struct score_lanes *sl);
struct replay_sink score_lanes_lead(struct score_lanes *sl);
void score_lanes_finish(struct score_lanes *sl);
void score_lanes_free(struct score_lanes *sl);

/*
 * score_capture_meters against d, what a replay of the same src and opt learned (the
 * report's own replay, score_learn_display): one replay, every lane against d's content
 * layer (d NULL or without one: the submissions). cap as score_capture_meters', but
 * subm_frames and subm_windows stay 0. 0 or a negative code with the message in err.
 */
FRC_MUST_USE int score_capture_shown(const struct replay_source *src,
				     const struct replay_options *opt, const char *const *trackers,
				     const char *const *meters, size_t n, const struct display *d,
				     struct score_capture *cap, struct score_result *results,
				     char *err, size_t errlen);
/*
 * What src presented, learned as score learns it (a replay with one lane), for callers
 * that score in replays of their own (compare: score_lanes_set_display). 0 with *out
 * NULL when the truth stays the submissions (no present records: the replay stops after
 * its scan pass; or none linked to the main surface); else *out (display_free) over *subm
 * (subm_free after it). A negative code with the message in err.
 */
FRC_MUST_USE int score_learn_display(const struct replay_source *src,
				     const struct replay_options *opt, struct display **out,
				     struct submissions **subm, char *err, size_t errlen);

/* acc += r (the pooled sums of the aggregate). */
void score_add(struct score_result *acc, const struct score_result *r);

#endif
