/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - the one pipeline framerec (live) and frameanalyze (replay) both run.
 *
 * Records go in, in file order; the pipeline drives one tracker per PID and one FPS meter,
 * and reports every tracker delta and every meter reading through callbacks. Because both
 * programs feed the same records through this same code, replaying a capture reproduces
 * the recorder's live readings exactly.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "fps_meter.h"
#include "tracker.h"
#include "tracker_kind.h"
#include "meter_kind.h"

struct pipeline_config {
	/*
	 * The tracker implementation's name (tracker_kind.h); NULL = TRACKER_KIND_DEFAULT
	 * ("kala"). pipeline_new fails with -ENOENT for an unknown name (list the names with
	 * tracker_kind_names()). The string must outlive pipeline_new only.
	 */
	const char *tracker_name;
	/*
	 * The meter implementation's name (meter_kind.h); NULL = METER_KIND_DEFAULT
	 * ("auriya-10fe7c6"). Unknown: -ENOENT (as a tracker; meter_kind_find tells which).
	 */
	const char *meter_name;
	struct tracker_config tracker;
	struct fps_meter_config meter;
	/*
	 * has_sysfs: the capture's metadata names a sysfs node or it holds a sysfs record.
	 * synthesize_ticks: the capture holds no tick record; read the meter every tick_ms
	 * from t0 + tick_ms up to the last record, in time order with the records.
	 */
	bool has_sysfs;
	bool synthesize_ticks;
	uint32_t tick_ms; /* default 1000 */
	/*
	 * Trackers alive at once (1024); a new PID beyond that forgets the least recently
	 * seen PID's tracker (counted in trackers_evicted). Bounds memory on hostile input.
	 */
	uint32_t max_pids;
	/*
	 * Synthesized ticks in all (10000000: 115 days at 1 s; 0: no limit). A record or
	 * pipeline_finish that would go beyond it fails with -EOVERFLOW before any of its
	 * ticks is read: a forged ktime jump must not mean billions of readings.
	 */
	uint64_t max_synth_ticks;
	/*
	 * The target PIDs as the metadata key `target.pid` gives them ("4242" or "4242,4343";
	 * target.h): framerec passes the value it writes, a replay the capture's. NULL: the
	 * capture does not say (its attach records still may). A bad value: pipeline_new
	 * fails with -EINVAL. The string must outlive pipeline_new only.
	 */
	const char *target;
};

/* One delta the tracker returned. */
struct pipeline_delta {
	uint32_t pid;
	uint64_t seq; /* 0-based index of the frame record that produced it, among frames */
	uint64_t ktime_ns;
	uint64_t buffer;
	uint64_t surface;
	uint64_t delta_ns;
};

/* One meter reading. */
struct pipeline_reading {
	uint64_t tick_ns;
	struct fps_reading reading;
	/* The tick record read here (with the live result, if recorded); NULL when synthesized. */
	const struct frc_record *tick;
};

struct pipeline_callbacks {
	void (*on_delta)(void *ctx, const struct pipeline_delta *d);
	void (*on_reading)(void *ctx, const struct pipeline_reading *r);
};

struct pipeline_stats {
	uint64_t records;
	uint64_t frames;
	uint64_t deltas;
	uint64_t readings;
	uint64_t trackers;	      /* trackers alive now */
	uint64_t drops;		      /* last cumulative reservation failures seen */
	struct fps_meter_stats meter; /* zero until the meter exists */
	uint64_t trackers_evicted;    /* trackers forgotten because of max_pids */
	uint64_t buffers_evicted;     /* buffers forgotten because of max_buffers, all trackers */
	uint64_t ticks_synthesized;   /* readings at synthesized ticks (tick == NULL) */
	uint64_t ticks_skipped;	      /* synthesized ticks skipped: past 3600 in one gap */
	uint64_t unknown;	      /* records of an unknown type (ignored) */
	uint64_t deltas_unmetered; /* deltas of PIDs other than the target, not fed to the meter */
};

struct pipeline;

void pipeline_config_default(struct pipeline_config *cfg);

/*
 * cb may have NULL members; ctx is passed to them. Returns 0, -EINVAL (bad config, or
 * cfg->target not a list of PIDs), -ENOENT (unknown cfg->tracker_name or cfg->meter_name), -ENOMEM.
 */
FRC_MUST_USE int pipeline_new(struct pipeline **out, const struct pipeline_config *cfg,
			      const struct pipeline_callbacks *cb, void *ctx);
void pipeline_free(struct pipeline *p);

/*
 * Feed the next record. Returns 0, -ENOMEM, or -EOVERFLOW (max_synth_ticks reached; the
 * record was not fed). Callbacks run before it returns.
 */
FRC_MUST_USE int pipeline_feed(struct pipeline *p, const struct frc_record *r);

/* End of input: emits the synthesized ticks still due. Returns 0 or -EOVERFLOW. */
FRC_MUST_USE int pipeline_finish(struct pipeline *p);

void pipeline_stats(const struct pipeline *p, struct pipeline_stats *st);

#endif /* PIPELINE_H */
