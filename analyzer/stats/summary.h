/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the report accumulator: a replay sink that turns the records, the tracker's
 * deltas and the meter's readings into the numbers of `frameanalyze report` (and of the
 * report section of `frameanalyze golden`). analyzer/REPORT.md defines every number.
 *
 * Memory is bounded independent of capture length: frame times go into a histogram with
 * 1 us buckets below 2^20 us (~1.05 s) holding a count and the exact sum of each bucket;
 * only deltas of 1.05 s or more are kept one by one (each covers more than a second of
 * capture, so there are at most as many as the capture lasts in seconds).
 */
#ifndef FRAMEANALYZE_SUMMARY_H
#define FRAMEANALYZE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "replay.h"

struct summary;

/* A live reading the replay did not reproduce. */
struct fidelity_diff {
	uint64_t tick_ns;
	uint8_t live_source, replay_source; /* enum frc_source */
	uint64_t live_micro, replay_micro;  /* micro-FPS; 0 when the source is none */
};

FRC_MUST_USE int summary_new(struct summary **out);
void summary_free(struct summary *s);
/* The sink view of s (callbacks begin/record/delta/reading/end). */
struct replay_sink summary_sink(struct summary *s);

/*
 * The frame-time numbers of the report (REPORT.md "frame times" and "janks"), for other
 * commands (score, and the submissions of the capture's truth series). A summary fed only
 * deltas (its sink's delta callback; record for attach/exit) computes them for any series.
 * Undefined values (no delta) are 0.
 */
struct summary_frame_numbers {
	uint64_t deltas, sum_ns;
	uint64_t p50_ns, p90_ns, p95_ns, p99_ns, max_ns; /* truncated to the us, as printed */
	double mean_fps, low1_fps, stutter_pct;
	uint64_t janks, big_janks;
};
void summary_frame_numbers(struct summary *s, struct summary_frame_numbers *out);
/*
 * One frame time for the frame-time numbers alone (deltas, sum, max, percentiles, 1 % low),
 * without the per-PID PerfDog window the delta callback also keeps: for a caller that
 * finds janks itself (score.c, per frame time of every variant). 0 or -ENOMEM.
 */
FRC_MUST_USE int summary_frame_time(struct summary *s, uint64_t delta_ns);

/* One source's meter readings: micro-FPS. */
struct summary_source {
	uint64_t count, sum_micro, min_micro, max_micro;
};

/*
 * Everything the report shows of one replay, as plain numbers (the report model,
 * report_model.h, holds it; the renderers format it). Pointers stay valid while the summary
 * lives.
 */
struct summary_view {
	const char *path, *model, *machine, *fingerprint, *kernel, *target, *symbol;
	struct frc_reader_stats stats;
	unsigned major, minor;
	bool has_sysfs, synthesize_ticks;
	uint32_t tick_ms;
	struct summary_frame_numbers fn;
	uint64_t drops, jank_ns;
	uint64_t batch_anomalies; /* malformed Surface::queueBuffers calls (FORMAT.md 4.6) */
	double loss_pct;
	uint64_t ticks, none;
	struct summary_source src[3]; /* by enum frc_source */
	uint64_t lagged, lagged_deltas;
	uint64_t sysfs_count, sysfs_invalid, sysfs_errors;
	/*
	 * Fidelity compares the live readings with a replay of the tracker the recording ran
	 * (recorded_tracker); replayed with another (--tracker), it does not apply: live,
	 * reproduced and mismatches stay 0.
	 */
	bool fidelity_applies;
	const char *recorded_tracker;
	uint64_t live, reproduced, mismatches;
	const struct fidelity_diff *diffs;
	size_t n_diffs;
	/*
	 * The analysed span (replay_info): with a window, stats.records and stats.by_type count
	 * the window's records and drops / batch_anomalies its increase; the rest of stats
	 * (status, first/last ktime, unknown records) is the whole capture's.
	 */
	bool windowed;
	uint64_t span_start, span_end;
};
/* After the replay (sorts the long deltas, hence not const). */
void summary_view(struct summary *s, struct summary_view *v);

/* Format ns as milliseconds with 3 decimals, truncated to the microsecond ("16.666"). */
void summary_fmt_ms(char *buf, size_t len, uint64_t ns);
/* Format micro-FPS as "%llu.%06llu". */
void summary_fmt_micro(char *buf, size_t len, uint64_t micro);
/* The mean of count micro-FPS values summing to sum_micro, as FPS with 3 decimals. */
void summary_fmt_fps3(char *buf, size_t len, uint64_t count, uint64_t sum_micro);

#endif
