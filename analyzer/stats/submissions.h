/* SPDX-License-Identifier: MIT */
/*
 * submissions.h - what the app submitted: the capture's own ground truth (no tracker).
 *
 * The truth (analyzer/REPORT.md "Ground truth") is the content series of the target
 * process: fed every record in file order, heuristics/target.h follows the PID framerec
 * was pointed at (metadata `target.pid`, attach, exit and frame records) and one
 * heuristics/content.h instance per PID (thread records to their PID's) chooses the
 * surface the player watches; a frame of the target goes through content_frame_delta and
 * the intervals it gives are the truth. A target switch starts a new series. Fallbacks:
 *   - no thread, buffer or connect record in the capture (captures that predate them):
 *     the rule of before, the **main PID** (most frame records; ties the smallest) and
 *     its **main surface** (most calls; ties the smallest value; surface 0 everywhere in
 *     captures without surfaces), so those captures keep their numbers;
 *   - no target information (no `target.pid`, no attach record): the main PID's content.
 * Overrides (replay_options.truth): --pid PID, that PID's content (or main surface);
 * --surface 0xADDR, that surface's calls alone.
 *
 * Two steps: counting (subm_count_sink in a replay plan's scan pass, or subm_count: that
 * pass alone, one read) learns the main surfaces and which rule applies; then
 * subm_series_next, fed every record in file order (a replay sink's record callback),
 * yields the truth series as pipeline deltas, so any sink that takes deltas (the report's
 * summary: percentiles, janks) computes the submissions' statistics. Both steps fit in one
 * replay plan (replay.h): the count in its scan pass, the series in its lanes.
 * Memory: one entry per (PID, surface) pair, at most SUBM_MAX_PAIRS; CONTENT_PROCS
 * content instances (heuristics/content_procs.h, CONTENT_SURFACES surfaces each); SUBM_MAX_CHANGES
 * changes of the content kept (the rest counted).
 */
#ifndef FRAMEANALYZE_SUBMISSIONS_H
#define FRAMEANALYZE_SUBMISSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define SUBM_MAX_PAIRS (1u << 20)
#define SUBM_MAX_CHANGES 4096 /* changes of the content kept for the views */

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

/* The calls of pid's surface over the capture (0: none). */
uint64_t subm_pair_calls(const struct submissions *t, uint32_t pid, uint64_t surface);
/* PIDs with frames, in increasing PID order; i < subm_pid_count(). */
size_t subm_pid_count(const struct submissions *t);
const struct subm_pid *subm_pid_at(const struct submissions *t, size_t i);
/* The main PID (most frame records; ties the smallest; --pid's when given), or NULL
 * without frames. */
const struct subm_pid *subm_main_pid(const struct submissions *t);

/* Which rule chose the surface of the truth. */
enum subm_rule {
	SUBM_RULE_COUNT,   /* no thread, buffer or connect record: the main surface by count */
	SUBM_RULE_CONTENT, /* the content rule (content.h) */
	SUBM_RULE_SURFACE, /* --surface */
};

/* Which rule chose the truth's PID. */
enum subm_pid_rule {
	SUBM_PID_BUSIEST, /* the main PID: most frame records */
	SUBM_PID_TARGET,  /* the target process (target.h) */
	SUBM_PID_OPTION,  /* --pid */
};

/* Why a surface was the truth: the content rule's reasons (enum content_reason, same
 * values), then the fallback's and the override's. */
enum subm_why {
	SUBM_WHY_NONE = 0, /* no content (the target has not drawn yet, or exited) */
	SUBM_WHY_COUNT = 16,
	SUBM_WHY_OPTION,
};

/* One change of the truth: from ktime_ns on (to the next change), pid's surface. */
struct subm_change {
	uint64_t ktime_ns;
	uint32_t pid; /* 0: no target */
	uint64_t surface;
	unsigned why;	 /* enum subm_why / enum content_reason: the last reason while it held */
	uint64_t frames; /* truth intervals while it held */
};

/* What the truth was over the capture, once the series has run (subm_truth). */
struct subm_truth {
	enum subm_rule rule;
	enum subm_pid_rule pid_rule;
	/* the principal content: the (PID, surface) with the most truth intervals */
	bool has;
	uint32_t pid;
	uint64_t surface;
	unsigned why;
	uint64_t frames;
	const struct subm_change *changes; /* the first SUBM_MAX_CHANGES, in file order */
	size_t n_changes;
	uint64_t changes_total;
	bool oom; /* a content instance could not be made: the series is incomplete */
};

/* "thread name", "call count", "--surface", ... as the views print a why. */
const char *subm_why_name(unsigned why);

/*
 * The truth as the last series made it (the count's main surface before any series).
 * Valid until the next subm_series_begin.
 */
const struct subm_truth *subm_truth(struct submissions *t);

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
 * A replay's begin (every consumer's begin may call it; idempotent before the first
 * record): subm_series_reset, and the target from info's metadata `target.pid`. 0, or
 * -EINVAL (the key is not a list of PIDs) / -ENOMEM with the message in err.
 */
FRC_MUST_USE int subm_series_begin(struct submissions *t, const struct replay_info *info, char *err,
				   size_t errlen);
/*
 * The PID whose series is the truth after the last record fed (the target's, the main
 * PID, --pid's), 0 when none: a consumer keeps the deltas of subm_series_next with this
 * pid (the other PIDs' main surfaces are series too under SUBM_RULE_COUNT).
 */
uint32_t subm_truth_pid(const struct submissions *t);

/*
 * A replay sink that turns the truth into deltas for another sink (e.g. a struct summary:
 * `target = summary_sink(s)` gives the submissions' percentiles, 1 % low, janks, stutter).
 * begin starts the series (subm_series_begin); every record goes to target.record
 * (attach/exit reset its windows), then each interval to target.delta: with truth_only,
 * the truth's alone (subm_truth_pid); otherwise every series (each PID's main surface
 * under SUBM_RULE_COUNT). Add it as one more sink of the replay that runs the report.
 */
struct subm_feed {
	struct submissions *subm;
	struct replay_sink target;
	bool truth_only;
	char err[FRC_MSG_MAX];
};
struct replay_sink subm_feed_sink(struct subm_feed *f);

#endif
