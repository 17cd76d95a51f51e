/* SPDX-License-Identifier: MIT */
/*
 * fps_meter.h - Auriya's FpsMeter: sysfs first, eBPF frame deltas as the fallback.
 *
 * Fed the tracker's deltas (fps_meter_push_delta) and the sysfs node's current content
 * (fps_meter_set_sysfs), read at chosen moments (fps_meter_read). No I/O, no clock:
 * time is the caller's argument. heuristics/README.md states the exact rules.
 */
#ifndef FPS_METER_H
#define FPS_METER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

struct fps_meter_config {
	uint64_t sysfs_poll_ns;	   /* sysfs read at most this often (2 s) */
	uint64_t ebpf_timeout_ns;  /* no frame pushed for this long: none (3 s) */
	uint64_t max_delta_ns;	   /* deltas at or above this are dropped (500 ms) */
	uint32_t window;	   /* frame-time ring size (30) */
	uint32_t channel_capacity; /* broadcast channel capacity between drains (4096) */
	double fps_max;		   /* valid readings are in (0, fps_max] (500) */
};

struct fps_reading {
	bool valid; /* false: the meter returned none */
	double fps;
	enum frc_source source; /* FRC_SOURCE_NONE when !valid */
};

struct fps_meter_stats {
	uint64_t reads;
	uint64_t sysfs_polls;	/* reads that parsed the node (not the 2 s cache) */
	uint64_t sysfs_invalid; /* polls whose content was a read error or not a valid value */
	uint64_t deltas_pushed; /* deltas fed */
	uint64_t deltas_kept;	/* deltas that entered the ring (< max_delta_ns) */
	uint64_t lagged;	/* drains that found more than channel_capacity deltas */
	uint64_t lagged_deltas; /* deltas lost to those lags */
};

struct fps_meter;

void fps_meter_config_default(struct fps_meter_config *cfg);

/* t0: creation time (ns). has_sysfs: a sysfs node was detected. */
FRC_MUST_USE int fps_meter_new(struct fps_meter **out, const struct fps_meter_config *cfg,
			       uint64_t t0, bool has_sysfs);
void fps_meter_free(struct fps_meter *m);

/* A delta the tracker returned (goes into the "broadcast channel" until the next drain). */
void fps_meter_push_delta(struct fps_meter *m, uint64_t delta_ns);

/*
 * The node's current content (sample-and-hold): err == 0 and raw[0..len) as read, or err
 * = the errno of a failed read. Until the first call the node reads as an error.
 */
void fps_meter_set_sysfs(struct fps_meter *m, int err, const uint8_t *raw, size_t len);

/* Read the meter at time now (ns). */
struct fps_reading fps_meter_read(struct fps_meter *m, uint64_t now);

void fps_meter_stats(const struct fps_meter *m, struct fps_meter_stats *st);

/*
 * Parse a sysfs FPS text as the meter does: trim ASCII whitespace, then a plain decimal
 * number (sign, digits, fraction, exponent) consuming the whole text. Returns true and
 * sets *value for a valid number (range is NOT checked here); false otherwise.
 */
bool fps_parse_sysfs(const uint8_t *raw, size_t len, double *value);

/*
 * The meter's rule for one sysfs sample, the one db and report use too: a reading when it
 * was read without error (err == 0), parses (fps_parse_sysfs) and lies in (0, fps_max].
 * Returns true and sets *value for such a sample.
 */
bool fps_meter_sysfs_value(int err, const uint8_t *raw, size_t len, double fps_max, double *value);

/* llround(fps * 1e6): the exact integer form of a reading kept in tick records. */
uint64_t fps_to_micro(double fps);

#endif /* FPS_METER_H */
