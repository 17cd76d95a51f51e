/* SPDX-License-Identifier: MIT */
/*
 * replay.h - read a capture, feed it through the heuristics pipeline, fan out to sinks.
 *
 * Data flows one way: file -> records -> pipeline (tracker, meter) -> sinks (SQLite,
 * report accumulator, golden printer). The replay makes two streaming passes over the file:
 *   1. read every record once to learn the status (a corrupt capture is refused before any
 *      sink sees a record), whether the capture holds sysfs records (has_sysfs) and tick
 *      records (otherwise the pipeline synthesizes ticks), its time span; the plan's scan
 *      sinks count what the second pass needs to know from the start (the submissions'
 *      main surfaces);
 *   2. read again and feed each record to the sinks (raw record first) and to the pipeline,
 *      whose deltas and readings go to the sinks through callbacks. One pass feeds every
 *      lane of the plan: a lane is one tracker variant's pipeline and its sinks, so any
 *      number of variants costs one read.
 * Neither pass can be skipped with the format's public API: the footer's totals (which
 * would give the counts and span) are not exposed, and the main surfaces need the counts.
 * Memory is the reader's and the pipelines', bounded independent of capture length.
 */
#ifndef FRAMEANALYZE_REPLAY_H
#define FRAMEANALYZE_REPLAY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc.h"
#include "pipeline.h"

/*
 * A time window (--from/--to; REPORT.md "Window"): offsets in ns after the capture's first
 * (smallest) ktime. to_relative: the window ends to_ns after from_ns (--to +DURATION).
 * Unset: the whole capture.
 */
struct replay_window {
	bool from_set, to_set, to_relative;
	uint64_t from_ns, to_ns;
};

/*
 * --pid PID / --surface 0xADDR (REPORT.md "Ground truth"): the truth is that PID's content,
 * or that surface's calls alone, instead of the content rule's choice. pid 0: not set.
 */
struct replay_truth {
	uint32_t pid;
	bool surface_set;
	uint64_t surface;
};

struct replay_options {
	uint32_t tick_ms; /* synthesized tick period when the capture has no tick; 0 = 1000 */
	const char *tracker_name; /* the tracker variant (tracker_kind.h); NULL = the default */
	struct replay_window window;
	const char *meter_name;	   /* the meter variant (meter_kind.h); NULL = the default */
	struct replay_truth truth; /* the truth's override, or none */
	/*
	 * Synthesize ticks every tick_ms even when the capture has tick records, which are then
	 * ignored (score --synth-ticks: the meters graded at one period on every capture).
	 */
	bool synth_ticks;
};

/*
 * The window does not fit the capture (from at or past its end, to past it, to not after
 * from): a usage error, its message names the option and the capture's span.
 */
#define REPLAY_EWINDOW (-EDOM)

/* What pass 1 learned; valid from the begin callback on. */
struct replay_info {
	const char *path;
	const frc_reader *reader;      /* for metadata (frc_reader_meta*); pass 2's reader */
	struct frc_reader_stats stats; /* pass 1's final stats (status, counts, time span) */
	unsigned major, minor;
	bool has_sysfs;
	bool synthesize_ticks;
	uint32_t tick_ms;
	/*
	 * The tracker variant replayed: --tracker, else the one the recording ran live (its
	 * metadata key `tracker`), else the default; so live == replay holds for every variant.
	 */
	const char *tracker;
	char recorded_tracker[32]; /* the capture's `tracker` metadata, "" when none */
	/*
	 * The meter variant replayed: --meter, else the one the recording ran live (metadata
	 * key `meter`), else the default (auriya-10fe7c6: what every capture without the key
	 * ran live).
	 */
	const char *meter;
	char recorded_meter[32]; /* the capture's `meter` metadata, "" when none */
	/* What the pipeline ran with; config.target is the metadata's target.pid (valid from
	 * begin to end), NULL in memory or without the key. */
	struct pipeline_config config;
	struct replay_truth truth; /* replay_options.truth (also in the scan sinks' end) */
	/*
	 * The analysed span: the capture's first..last ktime (stats), or the window of
	 * replay_options (windowed). Full 1 s windows (stats/windows.h) are counted from
	 * span_start up to span_end. With a window, the pipeline still sees every record from
	 * the capture's start (its state is the live one), but the sinks see only the records
	 * with span_start <= ktime < span_end, and the deltas and readings whose ktime is in
	 * that range (a sink's warm_* callbacks get those before it: replay_sink).
	 */
	bool windowed;
	uint64_t span_start, span_end;
};

/*
 * A sink. Every member may be NULL. Callbacks return 0 or a negative errno-style code that
 * stops the replay; the sink keeps its own message for that (see err below).
 */
struct replay_sink {
	void *ctx;
	int (*begin)(void *ctx, const struct replay_info *info);
	/* Every record in file order, before the pipeline sees it. frame_seq: 0-based among
	 * frames (valid for frame records). */
	int (*record)(void *ctx, const struct frc_record *rec, uint64_t frame_seq);
	int (*delta)(void *ctx, const struct pipeline_delta *d);
	int (*reading)(void *ctx, const struct pipeline_reading *r);
	int (*end)(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps);
	/* The sink's one-line message for its last failure, or NULL. */
	const char *(*error)(void *ctx);
	/*
	 * With a window (replay_info.windowed): the records and the deltas before it, for the
	 * state a sink carries into the window (a series' previous call, PerfDog's last three
	 * deltas, a cumulative counter's value at the window's start), never counted. NULL: the
	 * sink does not see them. Records and deltas after the window reach no sink.
	 */
	int (*warm_record)(void *ctx, const struct frc_record *rec, uint64_t frame_seq);
	int (*warm_delta)(void *ctx, const struct pipeline_delta *d);
};

/*
 * Replay path through the sinks. Returns 0 when the capture was replayed (complete or
 * truncated: see info.stats.status in the callbacks), or a negative code with a one-line
 * message in err: an FRC_E* code when the capture cannot be read, is not a capture or is
 * corrupt (nothing was given to the sinks then), a -errno when the pipeline or a sink
 * failed. frc_strerror() names either.
 */
FRC_MUST_USE int replay_run(const char *path, const struct replay_options *opt,
			    const struct replay_sink *sinks, size_t n_sinks, char *err,
			    size_t errlen);

/*
 * Where a replay's records come from: the capture file at path, or (recs != NULL) n
 * records in memory, in file order — for tests and the fuzzer (records built in code,
 * with no file to write first). An in-memory replay has no reader (info.reader is NULL: a
 * sink that reads metadata must not be given one), status complete, and the same
 * has_sysfs / synthesized-ticks decisions from the records.
 */
struct replay_source {
	const char *path; /* the file, or a name for messages */
	const struct frc_record *recs;
	size_t n;
};

/* replay_run on a file source, the same on records in memory. */
FRC_MUST_USE int replay_run_source(const struct replay_source *src,
				   const struct replay_options *opt,
				   const struct replay_sink *sinks, size_t n_sinks, char *err,
				   size_t errlen);

/* One pipeline (a tracker and a meter variant) and the sinks fed from it. */
struct replay_lane {
	const char *tracker_name; /* NULL: the replay's own (replay_options, recorded, default) */
	const struct replay_sink *sinks;
	size_t n_sinks;
	const char *meter_name; /* NULL: the replay's own, as tracker_name */
};

/*
 * Everything one replay feeds.
 *
 * scan: sinks of pass 1. Only their record callback (every record, in file order, before
 * the file is known not to be corrupt) and then their end (info with the final stats and
 * the replay's own config, ps all zero) are called, before any lane begins: what they
 * learn (the main surfaces) is there for the lanes' begin. A failure is reported only once
 * the file is known not to be corrupt (corruption is named first, as before).
 *
 * lanes: pass 2. Each lane is a replay of its own (its info.tracker and config, its
 * pipeline's deltas and readings to its sinks only), all fed from one read: for each record
 * every lane's sinks see it, then its pipeline. Lanes whose trackers and meters resolve to
 * the same names share one pipeline (its deltas go to both lanes' sinks, each still seeing a record
 * before the deltas it causes), so sinks of different lanes must not depend on each other's
 * call order. The first failure of any sink or pipeline stops the whole replay.
 * No lane: pass 2 is not made.
 *
 * lead: sinks of pass 2 that see each record before every lane does (begin after the
 * lanes' begin, end after theirs, with the replay's own info and ps all zero; never a
 * delta or a reading): for work that several lanes share for each record, done once.
 */
struct replay_plan {
	const struct replay_sink *scan;
	size_t n_scan;
	const struct replay_lane *lanes;
	size_t n_lanes;
	const struct replay_sink *lead;
	size_t n_lead;
};

/* Run plan on src, as replay_run_source (which is the plan of one lane and no scan sink). */
FRC_MUST_USE int replay_run_plan(const struct replay_source *src, const struct replay_options *opt,
				 const struct replay_plan *plan, char *err, size_t errlen);

#endif
