/* SPDX-License-Identifier: MIT */
/*
 * sf_dumpsys.h - SurfaceFlinger's own account of what it presented, from the text of
 * `dumpsys SurfaceFlinger --list` and `dumpsys SurfaceFlinger --latency NAME`.
 *
 * Pure text in, values out: no process is run here (recorder/dumpsys.c runs dumpsys), no
 * clock is read, nothing is allocated. The shapes are AOSP's, Android 11 to 16
 * (frameworks/native, services/surfaceflinger: SurfaceFlinger.cpp listLayers and dumpStats,
 * FrameTracker.cpp dumpStats, FrontEnd/RequestedLayerState.cpp getDebugString, Layer.cpp
 * dumpFrameStats); ../shared/reference/display-truth.md §1 cites each tag.
 */
#ifndef SF_DUMPSYS_H
#define SF_DUMPSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */

/* A layer name longer than this is not taken (AOSP's are window titles: ~100 bytes). */
#define SF_NAME_MAX 512

/* A layer as `--latency` wants it named: Layer::getName(), "#SEQ" included. */
struct sf_layer_name {
	char name[SF_NAME_MAX]; /* NUL-terminated; never contains '\n' */
	size_t len;
	size_t base_len; /* the name without its "#SEQ" suffix (== len without one) */
	uint64_t seq;	 /* "#SEQ": a dupe counter on 11/12, the layer sequence id on 13+ */
	bool has_seq;
};

/*
 * One line of `--list` (without its '\n'), either shape:
 *   11-14: the layer's debug name alone, e.g. "SurfaceView - com.pkg/com.pkg.Act#0";
 *   15-16: "RequestedLayerState{NAME#SEQ[ parentId=N][ relativeParentId=N][ mirrorId={..}]
 *           [ !handle][ z=N][ layerStack=N]}" (the closing '}' is missing at 15.0.0_r1).
 * Returns true and fills *out for a layer line; false for a blank or over-long line.
 */
bool sf_list_line(const char *line, size_t len, struct sf_layer_name *out);

enum sf_layer_role {
	SF_LAYER_UNRELATED,   /* not the package's */
	SF_LAYER_OTHER,	      /* the package's, latching nothing the app renders for its content:
				 "Background for SurfaceView[..]", "Splash Screen ..", ActivityRecord */
	SF_LAYER_CONTAINER,   /* "SurfaceView[TITLE]" (12+): the parent of the (BLAST) layer;
				 its FrameTracker stays all zeros, never query it */
	SF_LAYER_SURFACEVIEW, /* a SurfaceView's buffer layer: "SurfaceView[TITLE](BLAST)#N"
				 (12+), "SurfaceView - TITLE#N" (11) */
	SF_LAYER_WINDOW,      /* the app window's layer "PKG/ACTIVITY#N", or its "(BLAST)" child */
};

/*
 * What a layer is to package (e.g. "com.pkg"). The package must appear as a whole token
 * (not "com.pkg2", not "xcom.pkg"). Window titles are "PKG/ACTIVITY" (WindowState).
 */
enum sf_layer_role sf_layer_role(const struct sf_layer_name *l, const char *package);

/*
 * From a whole `--list` (all[0..n)), the layers of package that latch the app's buffers:
 * every SURFACEVIEW and WINDOW layer, except a layer whose "(BLAST)" child is also listed
 * (11's WindowSurfaceController container). Writes their indices, in list order, to
 * picked[0..cap) and returns how many there are (may exceed cap: then only cap written).
 */
size_t sf_pick_layers(const struct sf_layer_name *all, size_t n, const char *package,
		      size_t *picked, size_t cap);

/*
 * `--latency NAME`: line 1 the display's vsync period (ns); then rows of
 * "desiredPresentTime\tactualPresentTime\tframeReadyTime", oldest first (127 from the
 * FrameTracker on 11-16; at most 64, without zero or pending rows, from 16's FrameTimeline
 * shape), then an empty line. A row of "0 0 0" is an unused slot and is not kept.
 */
#define SF_LATENCY_MAX_ROWS 256	  /* twice AOSP's 128 records: more is refused */
#define SF_TIME_PENDING INT64_MAX /* Fence::SIGNAL_TIME_PENDING: not yet signalled */
#define SF_TIME_INVALID (-1)	  /* Fence::SIGNAL_TIME_INVALID: no valid fence */
#define SF_FRAMETRACKER_ROWS 127  /* FrameTracker prints NUM_FRAME_RECORDS - 1 rows */

struct sf_row {
	int64_t desired; /* desiredPresentTime: queue time (+us) with auto timestamps */
	int64_t actual;	 /* actualPresentTime: the present fence, or PENDING / INVALID */
	int64_t ready;	 /* frameReadyTime: the acquire fence (GPU done), or INVALID */
};

struct sf_latency {
	int64_t period_ns; /* the display's refresh period (0 when HWC gave none, on 11) */
	uint32_t n_rows;   /* rows kept (not "0 0 0"), oldest first */
	uint32_t n_unused; /* "0 0 0" rows seen */
	struct sf_row rows[SF_LATENCY_MAX_ROWS];
};

/*
 * Parse `--latency` output text[0..len). Returns 0, or FRC_EINVAL with *bad_line set to
 * the 1-based line that is not a period, a row or a blank (text that is not this shape,
 * e.g. an error message, or more than SF_LATENCY_MAX_ROWS rows). Empty text is FRC_EINVAL
 * at line 1: `dumpsys` printed nothing (14 QPR2+ prints the period line at least).
 */
FRC_MUST_USE int sf_latency_parse(const char *text, size_t len, struct sf_latency *out,
				  uint32_t *bad_line);

/*
 * Successive polls of one layer's `--latency` overlap: rows already taken are shown again
 * (127 rows cover ~1.06 s at 120 Hz), and the newest rows are often pending. The merge
 * takes each settled row exactly once, in order, and stops at the first pending row, which
 * it reads again on the next poll (present fences signal in order). When a poll shares no
 * row with the previous one (the newest row taken, or the first left pending), rows were
 * lost between the two polls: that is a gap, counted and returned, never hidden. So is a
 * full FrameTracker ring (127 rows, none unused) after a poll that found no row.
 */
struct sf_present_merge {
	bool have_anchor;
	bool anchor_taken;    /* the anchor was taken (else: the first row left pending) */
	struct sf_row anchor; /* where the next poll must overlap */
	uint64_t polls;
	uint64_t rows_taken;
	uint64_t gaps;
};

struct sf_poll_result {
	uint32_t first; /* rows[first .. first + count) of the poll are new and settled */
	uint32_t count;
	uint32_t pending; /* rows left for the next poll: the first pending row and after */
	bool gap;	  /* no overlap with the rows taken before: some were lost */
};

void sf_present_merge_init(struct sf_present_merge *m);

/* Take what is new in one poll's rows (see above). */
struct sf_poll_result sf_present_merge_poll(struct sf_present_merge *m,
					    const struct sf_latency *lat);

#endif /* SF_DUMPSYS_H */
