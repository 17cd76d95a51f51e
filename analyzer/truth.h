/* SPDX-License-Identifier: MIT */
/*
 * truth.h - the capture's own ground truth: what the app submitted.
 *
 * A capture holds every queueBuffer call, so the submissions need no heuristic: for each
 * PID, its **main surface** is the surface with the most calls (ties: the smallest surface
 * value; a capture without surfaces has surface 0 everywhere: the PID is one surface), and
 * the truth series is the intervals between consecutive calls of that surface. The
 * **main PID** of a capture is the PID with the most frame records (ties: the smallest).
 * analyzer/REPORT.md ("Ground truth") states the rules.
 *
 * Two steps: a counting replay (truth_count, one streaming replay) learns the main
 * surfaces; then truth_series_next, fed every record in file order (a replay sink's record
 * callback), yields the truth series as pipeline deltas, so any sink that takes deltas
 * (the report's summary: percentiles, janks) computes the submissions' statistics.
 * Memory: one entry per (PID, surface) pair, at most TRUTH_MAX_PAIRS.
 */
#ifndef FRAMEANALYZE_TRUTH_H
#define FRAMEANALYZE_TRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "replay.h"

#define TRUTH_MAX_PAIRS (1u << 20)

struct truth;

/* What the counting replay learned about one PID. */
struct truth_pid {
	uint32_t pid;
	uint64_t calls;	       /* frame records of the PID */
	uint64_t surfaces;     /* distinct surfaces */
	uint64_t main_surface; /* most calls; ties the smallest value */
	uint64_t main_calls;   /* calls of the main surface */
};

/*
 * Run the counting replay of src (a file or records in memory; opt: tick_ms; the tracker
 * does not matter). Returns 0 and a truth, or a negative code with a one-line message in
 * err (as replay_run; -E2BIG: more than TRUTH_MAX_PAIRS (PID, surface) pairs).
 */
FRC_MUST_USE int truth_count(const struct replay_source *src, const struct replay_options *opt,
			     struct truth **out, char *err, size_t errlen);
void truth_free(struct truth *t);

/* PIDs with frames, in increasing PID order; i < truth_pid_count(). */
size_t truth_pid_count(const struct truth *t);
const struct truth_pid *truth_pid_at(const struct truth *t, size_t i);
/* The main PID (most frame records; ties the smallest), or NULL without frames. */
const struct truth_pid *truth_main_pid(const struct truth *t);

/*
 * Feed every record in file order (from the start, once per replay; truth_series_reset
 * first for another replay). True and *d for a call of its PID's main surface that closes
 * an interval: d->delta_ns = ktime - the previous call's (saturating; a zero interval is
 * not one, as in the trackers), d->seq = frame_seq. attach/exit of a PID start a new
 * series for it (no interval across a process restart, as the trackers' fresh state).
 */
bool truth_series_next(struct truth *t, const struct frc_record *rec, uint64_t frame_seq,
		       struct pipeline_delta *d);
void truth_series_reset(struct truth *t);

/*
 * A replay sink that turns the truth into deltas for another sink (e.g. a struct summary:
 * `target = summary_sink(s)` gives the submissions' percentiles, 1 % low, janks, stutter).
 * begin resets the series; every record goes to target.record (attach/exit reset its
 * windows), then each truth interval to target.delta. pid_filter: only that PID's series
 * (with only_pid set); otherwise every PID's main surface. Add it as one more sink of the
 * replay that runs the report.
 */
struct truth_feed {
	struct truth *truth;
	struct replay_sink target;
	bool only_pid;
	uint32_t pid_filter;
};
struct replay_sink truth_feed_sink(struct truth_feed *f);

#endif
