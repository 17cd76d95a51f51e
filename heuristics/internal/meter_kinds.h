/* SPDX-License-Identifier: MIT */
/*
 * meter_kinds.h - the meter implementations behind meter_kind.h, for the library's own
 * sources: Auriya's meter in ccafd78's order (fps_meter.c) and ours, `frc-window`
 * (frc_window.c). Rules and sources: heuristics/README.md ("Meter variants").
 */
#ifndef METER_KINDS_H
#define METER_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "fps_meter.h"

/*
 * pavelc4/auriya@ccafd78: the same sources as fps_meter_new's (10fe7c6), read eBPF first:
 * the ring is drained at every read and used while its last drain that kept a delta is
 * less than ebpf_timeout_ns old, accepting 0 < fps < fps_max; else sysfs (2 s cache).
 */
FRC_MUST_USE int fps_meter_new_ebpf_first(struct fps_meter **out,
					  const struct fps_meter_config *cfg, uint64_t t0,
					  bool has_sysfs);

/* frc-window (ours): the content rate over a time window, a prompt freeze, sysfs as a cap. */
#define FRC_WINDOW_NS 1000000000ull	  /* the window: intervals ending in the last 1 s */
#define FRC_WINDOW_FREEZE_NS 250000000ull /* no content frame for 250 ms: a freeze, 0 FPS */
#define FRC_WINDOW_RING 1024u		  /* interval ends kept (> fps_max per window) */
/* A rate change: the last FRC_RECENT_FRAMES frames' rate off the window's before them ... */
#define FRC_RECENT_FRAMES 8u
#define FRC_CHANGE_BAND 0.10	       /* ... by more than 10 % */
#define FRC_FAST_NS 300000000ull       /* then the frames of the last 0.3 s are the reading ... */
#define FRC_FAST_HOLD_NS FRC_WINDOW_NS /* ... until the 1 s window holds none from before */
/* A vsync period shorter than 1 ms (over 1000 Hz) is no display's: no drops are predicted. */
#define FRC_GRID_MIN_PERIOD_NS 1000000ull
/*
 * The display froze (frc_window.c display_frozen) only when a poll this long after its
 * newest present found nothing newer: 7.5 periods at 60 Hz, where a presenting layer's
 * newest row at a poll is one or two periods old; half the freeze bound, so that polls
 * every 100 ms show a freeze at the first 250 ms tick after it.
 */
#define FRC_DISPLAY_QUIET_NS 125000000ull

struct frc_window;
struct target;

FRC_MUST_USE int frc_window_new(struct frc_window **out, const struct fps_meter_config *cfg,
				uint64_t t0, bool has_sysfs);
void frc_window_free(struct frc_window *w);
/*
 * Every frame record (all PIDs, file order); t: the pipeline's target after this record, or
 * NULL (none known). The target's content surface's intervals are the rate. 0 or -ENOMEM.
 */
FRC_MUST_USE int frc_window_frame(struct frc_window *w, uint64_t ktime_ns,
				  const struct frc_frame *f, const struct target *t);
/* A thread, buffer, connect, attach or exit record (others: nothing); t as at a frame. */
FRC_MUST_USE int frc_window_learn(struct frc_window *w, const struct frc_record *r,
				  const struct target *t);
/* A tracker delta: counted only (the rate does not depend on the tracker). */
void frc_window_delta(struct frc_window *w, uint64_t delta_ns);
void frc_window_set_sysfs(struct frc_window *w, int err, const uint8_t *raw, size_t len);
/* The display's vsync period: its refresh caps the reading, as a sysfs node's does. */
void frc_window_set_vsync(struct frc_window *w, uint64_t period_ns);
/*
 * A present row's actual present time (display capture): a vsync, which with the period
 * places the grid of commits that explicit-timestamp frames are dropped at (frc_window.c).
 */
void frc_window_set_present(struct frc_window *w, int64_t actual_ns);
/* A poll record (display capture polled a layer at ktime_ns): a display freeze is told. */
void frc_window_set_poll(struct frc_window *w, uint64_t ktime_ns);
struct fps_reading frc_window_read(struct frc_window *w, uint64_t now);
void frc_window_stats(const struct frc_window *w, struct fps_meter_stats *st);

#endif
