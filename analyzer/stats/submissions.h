/* SPDX-License-Identifier: MIT */
/*
 * submissions.h - what the app submitted: the capture's own ground truth (no heuristic).
 *
 * A capture holds every queueBuffer call, so the submissions need no heuristic: for each
 * PID, its **main surface** is the surface with the most calls (ties: the smallest surface
 * value; a capture without surfaces has surface 0 everywhere: the PID is one surface), and
 * the truth series is the intervals between consecutive calls of that surface. The
 * **main PID** of a capture is the PID with the most frame records (ties: the smallest).
 * analyzer/REPORT.md ("Ground truth") states the rules.
 *
 * Two steps: counting (subm_count_sink in a replay plan's scan pass, or subm_count: that
 * pass alone, one read) learns the main surfaces; then subm_series_next, fed every record
 * in file order (a replay sink's record callback), yields the truth series as pipeline
 * deltas, so any sink that takes deltas (the report's summary: percentiles, janks)
 * computes the submissions' statistics. Both steps fit in one replay plan (replay.h): the
 * count in its scan pass, the series in its lanes.
 * Memory: one entry per (PID, surface) pair, at most SUBM_MAX_PAIRS.
 */
#ifndef FRAMEANALYZE_SUBMISSIONS_H
#define FRAMEANALYZE_SUBMISSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define SUBM_MAX_PAIRS (1u << 20)

struct submissions;

/* What the counting replay learned about one PID. */
struct subm_pid {
	uint32_t pid;
	uint64_t calls;	       /* frame records of the PID */
	uint64_t surfaces;     /* distinct surfaces */
	uint64_t main_surface; /* most calls; ties the smallest value */
	uint64_t main_calls;   /* calls of the main surface */
};

/*
 * Count src (a file or records in memory; opt may be NULL: neither the tick nor the tracker
 * matters) with a plan of subm_count_sink alone. Returns 0 and a truth, or a negative code
 * with a one-line message in err (as replay_run; -E2BIG: more than SUBM_MAX_PAIRS (PID,
 * surface) pairs).
 */
FRC_MUST_USE int subm_count(const struct replay_source *src, const struct replay_options *opt,
			    struct submissions **out, char *err, size_t errlen);
/* An empty truth, for subm_count_sink. 0 or -ENOMEM. */
FRC_MUST_USE int subm_new(struct submissions **out);
/*
 * The counting as a scan sink of a replay plan (replay.h), for one replay of t: its record
 * callback counts the frames of pass 1, its end chooses the main surfaces, so the truth is
 * complete when the plan's lanes begin.
 */
struct replay_sink subm_count_sink(struct submissions *t);
void subm_free(struct submissions *t);

/* PIDs with frames, in increasing PID order; i < subm_pid_count(). */
size_t subm_pid_count(const struct submissions *t);
const struct subm_pid *subm_pid_at(const struct submissions *t, size_t i);
/* The main PID (most frame records; ties the smallest), or NULL without frames. */
const struct subm_pid *subm_main_pid(const struct submissions *t);

/*
 * Feed every record in file order (from the start, once per replay; subm_series_reset
 * first for another replay). True and *d for a call of its PID's main surface that closes
 * an interval: d->delta_ns = ktime - the previous call's (saturating; a zero interval is
 * not one, as in the trackers), d->seq = frame_seq. attach/exit of a PID start a new
 * series for it (no interval across a process restart, as the trackers' fresh state).
 * Several consumers of one replay share t: the same frame (frame_seq) asked again gives
 * the same answer without moving the series, so each lane may ask about every record.
 */
bool subm_series_next(struct submissions *t, const struct frc_record *rec, uint64_t frame_seq,
		      struct pipeline_delta *d);
void subm_series_reset(struct submissions *t);

/*
 * A replay sink that turns the truth into deltas for another sink (e.g. a struct summary:
 * `target = summary_sink(s)` gives the submissions' percentiles, 1 % low, janks, stutter).
 * begin resets the series; every record goes to target.record (attach/exit reset its
 * windows), then each truth interval to target.delta. pid_filter: only that PID's series
 * (with only_pid set); otherwise every PID's main surface. Add it as one more sink of the
 * replay that runs the report.
 */
struct subm_feed {
	struct submissions *subm;
	struct replay_sink target;
	bool only_pid;
	uint32_t pid_filter;
};
struct replay_sink subm_feed_sink(struct subm_feed *f);

#endif
