/* SPDX-License-Identifier: MIT */
/*
 * tracker_kind.h - the frame tracker as an interface with named implementations.
 *
 * A tracker turns one process's queueBuffer calls into frame times. Several rules exist
 * (Kala keys on the buffer, fas-rs on the surface, ...) and the heuristic lab
 * (`frameanalyze score`) compares them, so the pipeline runs whichever one its config
 * names. Every implementation is pure and deterministic (time is the caller's argument, no
 * clock, no globals) and bounded in memory. heuristics/README.md states each one's rules.
 */
#ifndef TRACKER_KIND_H
#define TRACKER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_record.h"
#include "tracker.h"

struct tracker_kind {
	const char *name;    /* what --tracker takes: "kala", "surface", ... */
	const char *summary; /* one line for people */
	const char *source;  /* where the rule comes from */
	/* Returns 0, -EINVAL for a bad config, -ENOMEM. */
	int (*create)(void **out, const struct tracker_config *cfg);
	void (*destroy)(void *t);
	/* One queueBuffer call of the process. True and *delta_ns: this call is a frame time. */
	bool (*record)(void *t, uint64_t ktime_ns, const struct frc_frame *f, uint64_t *delta_ns);
	/* buffers / buffers_evicted count the implementation's keys (buffers, surfaces). */
	void (*stats)(const void *t, struct tracker_stats *st);
	/*
	 * Optional (NULL: the kind looks at frames only). A record of the process that is not a
	 * frame but that its tracker may learn from: a thread's name (FRC_THREAD), a buffer's
	 * geometry (FRC_BUFFER), a Surface's connect or disconnect (FRC_CONNECT). The pipeline
	 * calls it in file order, so it comes before the frames recorded after it.
	 */
	void (*learn)(void *t, const struct frc_record *r);
	/*
	 * true: the pipeline feeds the meter only the target process's frames and deltas
	 * (pipeline.h, "target"); false: every PID's, as the meters were written for.
	 */
	bool meter_target_only;
};

/* The default: Kala's per-buffer tracker (what framerec has always run). */
#define TRACKER_KIND_DEFAULT "kala"

/* The implementation named name, or NULL. */
const struct tracker_kind *tracker_kind_find(const char *name);
/* The i-th implementation (0 is the default), or NULL past the last one. */
const struct tracker_kind *tracker_kind_at(size_t i);
size_t tracker_kind_count(void);
/*
 * Every name, in table order, separated by ", " ("kala, surface, ..."), for the message of
 * an unknown name. Writes at most len bytes (NUL included); returns the full length.
 */
size_t tracker_kind_names(char *buf, size_t len);

#endif /* TRACKER_KIND_H */
