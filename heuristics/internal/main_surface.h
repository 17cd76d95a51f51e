/* SPDX-License-Identifier: MIT */
/*
 * main_surface.h - the `main-surface` tracker: the intervals of the process's main surface.
 *
 * Ours (issue 12). A frame is one queueBuffer call of a surface, whatever buffer it
 * carries, so the frame time is the interval between two consecutive calls of the same
 * surface; and the surface the user watches is the one the app submits most to. Rules in
 * heuristics/README.md; reached through tracker_kind.h ("main-surface").
 */
#ifndef MAIN_SURFACE_H
#define MAIN_SURFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "tracker.h"

/* A leader silent for more than this hands over to the surface that calls (1 s) ... */
#define MAIN_SURFACE_STALE_NS 1000000000ull
/* ... if that surface's mean interval since is under PACE times the leader's. */
#define MAIN_SURFACE_PACE 3u

struct main_surface;

/* cfg->max_buffers bounds the surfaces remembered; cfg->history is not used. */
FRC_MUST_USE int main_surface_new(struct main_surface **out, const struct tracker_config *cfg);
void main_surface_free(struct main_surface *t);
bool main_surface_record(struct main_surface *t, uint64_t ktime_ns, uint64_t surface,
			 uint64_t *delta_ns);
void main_surface_stats(const struct main_surface *t, struct tracker_stats *st);

#endif /* MAIN_SURFACE_H */
