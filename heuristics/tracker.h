/* SPDX-License-Identifier: MIT */
/*
 * tracker.h - Kala's FrameTracker: frame times from queueBuffer calls, one tracker per PID.
 *
 * Android keeps several buffers in flight, so consecutive queueBuffer calls interleave
 * buffers. The tracker keeps a history of deltas per buffer pointer and reports only the
 * deltas of the "active" buffer. heuristics/README.md states the exact rules.
 * No I/O, no clock: time is the caller's argument.
 */
#ifndef TRACKER_H
#define TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

struct tracker_config {
	uint32_t history; /* deltas kept per buffer (Kala: 144) */
	uint32_t
	    max_buffers; /* buffers remembered per PID before the LRU one is forgotten (1024) */
};

struct tracker_stats {
	uint64_t records;	  /* calls to tracker_record */
	uint64_t deltas;	  /* deltas returned */
	uint64_t buffers;	  /* buffers currently remembered */
	uint64_t buffers_evicted; /* buffers forgotten because of max_buffers */
};

struct tracker;

void tracker_config_default(struct tracker_config *cfg);

/* Returns 0, or -EINVAL for a bad config, -ENOMEM. */
FRC_MUST_USE int tracker_new(struct tracker **out, const struct tracker_config *cfg);
void tracker_free(struct tracker *t);

/*
 * Feed one queueBuffer call. Returns true and sets *delta_ns when this call yields a
 * frame time (the buffer is the active one), false otherwise.
 */
bool tracker_record(struct tracker *t, uint64_t ktime_ns, uint64_t buffer, uint64_t *delta_ns);

void tracker_stats(const struct tracker *t, struct tracker_stats *st);

#endif /* TRACKER_H */
