/* SPDX-License-Identifier: MIT */
/*
 * content.h - which of a process's surfaces the player watches: the content rule.
 *
 * A game draws its frames into a SurfaceView (or its window) from its own render thread;
 * the view system draws the app window (HUD, menus, chat) from HWUI's RenderThread; a
 * video player has its video surface and an overlay. Call counts do not tell them apart
 * (a 60 fps HUD over a 30 fps game calls twice as often), so the rule ranks the surfaces
 * of the target process, at each of the moments below, by
 *   1. drawn by a non-UI thread (a thread not named RenderThread / hwuiTask*: HWUI's,
 *      frameworks/base libs/hwui), when the thread names are known;
 *   2. the largest buffer area (width x height), when the buffer geometry is known;
 *   3. the most calls in the last second (CONTENT_RATE_WINDOW_NS);
 * among the surfaces that are alive: connected (not disconnected since their last
 * connect) and called within CONTENT_SILENT_NS. The ranking is made again at a surface's
 * first call (after its connect, or ever), at the leader's disconnect, when the leader
 * falls silent (noticed at the next call of another surface, or at content_at), and once
 * a second (the rates change); a challenger beats the leader by rate only with
 * 3/2 of its calls (CONTENT_RATE_MARGIN_*), so two surfaces of one tier never flap.
 *
 * Without thread names and geometry (captures that predate them) the rule is the rate
 * alone: the busiest live surface, kept until it disconnects or falls silent.
 *
 * One instance per process. Pure: time is the caller's argument; no I/O, no clock. The
 * analyzer's truth and the `content` tracker use this one implementation.
 */
#ifndef CONTENT_H
#define CONTENT_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define CONTENT_SILENT_NS 500000000ull	     /* 0.5 s: a leader this silent gives way */
#define CONTENT_RATE_WINDOW_NS 1000000000ull /* the rate of rule 3: calls in 1 s ... */
#define CONTENT_RATE_MAX 256		     /* ... counted up to 256 */
#define CONTENT_RATE_MARGIN_NUM 3	     /* a challenger needs 3/2 of the leader's rate */
#define CONTENT_RATE_MARGIN_DEN 2
/*
 * Surfaces remembered per process (content_new's max_surfaces) by the `content` tracker, and
 * by the truth, which must remember as many for the two series to be the same: a process
 * has a handful (window, SurfaceView, codec, overlays); a recreated Surface at a new address
 * takes a new slot and the least recently called one is forgotten. Small, because a first
 * call ranks every live surface (evaluate is O(surfaces x rates)).
 */
#define CONTENT_SURFACES 32

enum content_reason {
	CONTENT_NONE = 0, /* no surface yet */
	CONTENT_ONLY,	  /* the only live surface */
	CONTENT_THREAD,	  /* drawn by a non-UI thread, the others by UI threads */
	CONTENT_AREA,	  /* the largest buffers */
	CONTENT_RATE,	  /* the most calls in the last second */
	CONTENT_KEPT,	  /* tied with a challenger: the leader stays */
};

/* "thread name", "buffer area", ... as REPORT.md and the report print them. */
const char *content_reason_name(enum content_reason r);

struct content;

/* max_surfaces: surfaces remembered at once (least recently called forgotten first). */
FRC_MUST_USE int content_new(struct content **out, uint32_t max_surfaces);
void content_free(struct content *c);

/*
 * A call of surface by thread tid at time t. Returns true when the content surface
 * changed at this call (content_surface tells which and why).
 */
bool content_frame(struct content *c, uint64_t t, uint64_t surface, uint32_t tid);

/*
 * content_frame, and the frame time it closes: true and *delta_ns = t - the previous call
 * of the content surface when this call is of the content surface and so was that one,
 * with no change of the content in between (a change starts a new series: no interval
 * spans two surfaces or a hand-over). A zero or backward interval is none, as in the
 * trackers. The `content` tracker's deltas and the analyzer's truth series are these.
 */
bool content_frame_delta(struct content *c, uint64_t t, uint64_t surface, uint32_t tid,
			 uint64_t *delta_ns);

/*
 * When the player sees frame f queued at ktime: its own timestamp (the app's explicit one,
 * FORMAT.md 4.7) when it lies in (ktime, ktime + 1 s], else
 * ktime. SurfaceFlinger holds a buffer until its desired present time and takes one more
 * than 1 s ahead for garbage, presenting it at once, as one in the past
 * (BufferQueueConsumer::acquireBuffer, MAX_REASONABLE_NSEC, android-11 .. 16). Two frames
 * queued by one call for two vsyncs (frame generation) are so two frame times, not one and a
 * zero interval. The content series (tracker and truth) runs on this time.
 */
#define CONTENT_TIMESTAMP_MAX_AHEAD_NS 1000000000ull
uint64_t content_frame_time(uint64_t ktime, const struct frc_frame *f);
/*
 * The explicit timestamp f was queued with, 0 when it has none (a capture before them) or
 * it is auto (NATIVE_WINDOW_TIMESTAMP_AUTO, INT64_MIN; any value <= 0 is no time): the one
 * rule content_frame_time, frc-window and the analyzer's present link share.
 */
int64_t content_frame_stamp(const struct frc_frame *f);

/* What is known of a thread (its name, e.g. from /proc/PID/task/TID/comm). */
void content_thread_name(struct content *c, uint32_t tid, const char *name);
/* True for the names of UI threads: HWUI's RenderThread and hwuiTask workers. */
bool content_is_ui_thread(const char *name);

/* A surface's buffers are w x h (the largest seen counts). */
void content_geometry(struct content *c, uint64_t surface, uint32_t w, uint32_t h);

/* Surface::connect / disconnect. A connect makes the surface new (a new Surface may take
 * an old one's address); a disconnect of the leader re-ranks at once. */
void content_connect(struct content *c, uint64_t t, uint64_t surface);
bool content_disconnect(struct content *c, uint64_t t, uint64_t surface);

/*
 * What a record of the process says (FRC_THREAD, FRC_BUFFER, FRC_CONNECT; others are
 * ignored), the one dispatch every user of the rule shares: a thread's name, a buffer's
 * geometry (a size of 0 or below is none: rule 2 needs an area), a connect or disconnect.
 * surface: the key the record's surface has in c (its own value, or the caller's key).
 */
void content_learn(struct content *c, const struct frc_record *r, uint64_t surface);

/* Re-rank at time t if the leader fell silent; true when it changed. */
bool content_at(struct content *c, uint64_t t);

/* The content surface now (0: none) and why it was chosen. */
uint64_t content_surface(const struct content *c, enum content_reason *why);

/* Surfaces remembered now, and forgotten so far because max_surfaces were (a tracker's stats). */
uint32_t content_surfaces(const struct content *c);
uint64_t content_evicted(const struct content *c);

#endif /* CONTENT_H */
