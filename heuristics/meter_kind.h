/* SPDX-License-Identifier: MIT */
/*
 * meter_kind.h - the FPS meter as an interface with named implementations.
 *
 * A meter turns the tracker's deltas, the frames and the sysfs node into a reading at the
 * moments it is read. Auriya's meter changed its order between revisions and ours reads
 * the content surface over a time window, and `frameanalyze score` grades them all, so the
 * pipeline runs whichever one its config names (as tracker_kind.h for trackers). Every
 * implementation is pure and deterministic (time is the caller's argument, no clock, no
 * globals) and bounded in memory. heuristics/README.md states each one's rules.
 */
#ifndef METER_KIND_H
#define METER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_record.h"
#include "fps_meter.h"

struct target;

struct meter_kind {
	const char *name;    /* what --meter takes: "auriya-10fe7c6", ... */
	const char *summary; /* one line for people */
	const char *source;  /* where the rule comes from */
	/* Created at t0 (the first record); has_sysfs: a node was detected. 0, -EINVAL, -ENOMEM. */
	int (*create)(void **out, const struct fps_meter_config *cfg, uint64_t t0, bool has_sysfs);
	void (*destroy)(void *m);
	/*
	 * Every frame record (every PID, whichever tracker runs), before its tracker sees it;
	 * target: the pipeline's (target.h), already fed this record. 0 or -ENOMEM (the
	 * pipeline returns it). NULL: the meter does not look.
	 */
	int (*frame)(void *m, uint64_t ktime_ns, const struct frc_frame *f,
		     const struct target *target);
	/*
	 * The records that say what a process is besides its frames: thread, buffer, connect,
	 * attach, exit (file order; target as at a frame). 0 or -ENOMEM. NULL: not looked at
	 * (the Auriya meters, which read deltas only).
	 */
	int (*learn)(void *m, const struct frc_record *r, const struct target *target);
	/* Every delta a tracker returned (all PIDs, in order). */
	void (*delta)(void *m, uint64_t delta_ns);
	/* The node's current content (sample-and-hold), as fps_meter_set_sysfs. */
	void (*sysfs)(void *m, int err, const uint8_t *raw, size_t len);
	/* The display's vsync period (a vsync record of display capture); NULL: not looked at. */
	void (*vsync)(void *m, uint64_t period_ns);
	/* A present row's actual present time (display capture); NULL: not looked at. */
	void (*present)(void *m, int64_t actual_ns);
	/* A poll record's ktime (display capture polled a layer); NULL: not looked at. */
	void (*poll)(void *m, uint64_t ktime_ns);
	struct fps_reading (*read)(void *m, uint64_t now);
	void (*stats)(const void *m, struct fps_meter_stats *st);
};

/* The default: Auriya@10fe7c6's meter (what framerec has always run). */
#define METER_KIND_DEFAULT "auriya-10fe7c6"

/* The implementation named name, or NULL. */
const struct meter_kind *meter_kind_find(const char *name);
/* The i-th implementation (0 is the default), or NULL past the last one. */
const struct meter_kind *meter_kind_at(size_t i);
size_t meter_kind_count(void);
/*
 * Every name, in table order, separated by ", ", for the message of an unknown name.
 * Writes at most len bytes (NUL included); returns the full length.
 */
size_t meter_kind_names(char *buf, size_t len);

#endif /* METER_KIND_H */
