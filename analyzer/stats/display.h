/* SPDX-License-Identifier: MIT */
/*
 * display.h - what SurfaceFlinger presented (display capture records, FORMAT.md 4.8), next
 * to what the app submitted: the report's "presented" section. analyzer/REPORT.md
 * ("Presented") defines every number.
 *
 * A replay sink. Per layer (FRC_LAYER ids, in order of first appearance) it turns the
 * present rows with a valid actual present time into display frame times (present to
 * present; none across an FRC_PRESENT_GAP) and feeds them to a struct summary (the same
 * percentiles, PerfDog janks and stutter as the submissions), counts them in the full 1 s
 * windows (windows.h) and counts repeated vsyncs. It keeps every row and every call to link
 * them at the end (present_link.h) to the calls of the **linked surface**: the one the
 * truth follows (submissions.h), known only once the series has run — under the content
 * rule its principal content (subm_truth: a 30 fps game, not the 60 fps HUD above it),
 * under the count rule (and when the content rule found none) the main PID's main
 * surface, as before. The sink steps the series itself (idempotent: the replay's other
 * consumers may too). The **content layer** is the layer with the most linked rows.
 * Memory: one row (56 bytes) per present and one call (36 bytes) per call of any surface,
 * up to DISPLAY_MAX_ROWS / DISPLAY_MAX_CALLS (then the link is left out, `cut`).
 */
#ifndef FRAMEANALYZE_DISPLAY_H
#define FRAMEANALYZE_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h"
#include "present_link.h"
#include "submissions.h"
#include "summary.h"

#define DISPLAY_MAX_LAYERS 16	    /* layers with numbers; the rest are counted */
#define DISPLAY_MAX_ROWS (1u << 22) /* rows kept for the link (~9.7 h at 120 Hz) */
#define DISPLAY_MAX_CALLS (1u << 23)
#define DISPLAY_MAX_WINDOWS (1u << 17) /* per-window counts kept, as the report's */

/* One present row as kept: the row, the state it was read in, the frame time it ends. */
struct display_row {
	struct pl_present p;
	uint64_t ktime;	      /* the record's (the poll) */
	uint64_t period_ns;   /* the vsync period in force; 0: no FRC_VSYNC before it */
	uint64_t interval_ns; /* the display frame time ending here; 0: none */
	uint32_t segment;     /* present_gap records of its layer before it */
	uint32_t window;      /* the full window that frame time counts in; UINT32_MAX: none */
};

struct display_layer {
	uint32_t id;
	char name[256];
	bool gone;
	uint64_t first_ktime, gone_ktime; /* its first record's ktime; the gone record's, or 0 */
	uint64_t rows;			  /* present records of the layer */
	uint64_t presents; /* rows with a valid actual present time (0 < actual < INT64_MAX) */
	uint64_t repeats;  /* vsyncs a present was repeated on (REPORT.md) */
	uint64_t repeat_intervals; /* frame times with a vsync period to measure against */
	uint64_t gaps, gap_unknown_ns, gaps_unbounded; /* FRC_PRESENT_GAP records */
	uint64_t backwards;  /* actual present times before the previous one: no interval */
	uint64_t win_frames; /* frame times ending in the full windows */
	uint32_t *win;	     /* frame times per full window, n_win of them */
	uint64_t win_min, win_max;
	double win_median;
	struct summary *s; /* the display frame times */
	struct summary_view v;
	int64_t last_actual; /* the previous valid actual, 0 after a gap */
	struct display_row *row;
	size_t n_row, cap_row;
	/* the link of the main surface's calls to these rows (done for every layer) */
	uint32_t *call_of;
	uint8_t *anchored; /* per row: 1 when its link is certain (present_link.h) */
	struct pl_stats link;
};

struct display {
	struct submissions *subm;
	bool has;  /* the capture had present records in the span */
	bool keep; /* calls are kept: the capture has present records and frames */
	/* the linked surface (after display_finish; has_main false: none) */
	uint32_t main_pid;
	uint64_t main_surface;
	bool has_main;
	bool by_content; /* the content rule's principal content (else the count's main) */
	struct display_layer layer[DISPLAY_MAX_LAYERS];
	size_t n_layers;
	uint64_t layers_more, rows_more; /* layers past the table, their rows */
	uint64_t vsync_period, vsync_records, vsync_changes;
	bool vsync_warm; /* a vsync record before the window gave the period in force */
	/* every call in file order (ktime, frame_seq, pid, surface); after display_finish the
	 * linked surface's alone, ascending */
	uint64_t *call_ktime, *call_seq, *call_surface;
	int64_t *call_stamp;  /* the call's explicit timestamp, 0: auto (present_link's stamps) */
	size_t calls_stamped; /* the linked surface's calls with one (after display_finish) */
	uint32_t *call_pid;
	size_t n_call, cap_call;
	uint64_t calls_backwards; /* linked-surface calls before the previous one: not linked */
	bool cut;		  /* rows or calls past the limits: no link */
	uint64_t span_start, span_end, n_full;
	size_t n_win;
	/* after display_finish */
	int content; /* index into layer[], -1: none linked */
	uint64_t latency_n, latency_p50_ns, latency_p99_ns, latency_max_ns;
	uint64_t latency_negative;	/* linked rows presented before the call: left out */
	const struct replay_info *info; /* during the replay: each new layer's summary begins */
	char err[FRC_MSG_MAX];
};

/* A display over the truth subm (its count filled by the plan's scan pass). 0 or -ENOMEM. */
FRC_MUST_USE int display_new(struct display **out, struct submissions *subm);
void display_free(struct display *d);
/* The sink for the report's lane (record, begin, end: display_finish runs in end). */
struct replay_sink display_sink(struct display *d);

/* Whether row i of l was linked tight (present_link.h's test), given it was linked. */
bool display_row_tight(const struct display *d, const struct display_layer *l, size_t i);
/*
 * Row i of l's submit->present latency (REPORT.md "Presented"): 1 with *ns = its actual
 * present - the linked call's ktime; 0 not linked or no valid actual; -1 presented before
 * the call (left out). After display_finish (the end of the replay).
 */
int display_row_latency(const struct display *d, const struct display_layer *l, size_t i,
			uint64_t *ns);
/* The content layer, or NULL. */
const struct display_layer *display_content(const struct display *d);
/* presents / the span's seconds (0 without a span). */
double display_fps(const struct display *d, const struct display_layer *l);
/* The layer's frame times in the full windows / full windows (0 without one). */
double display_window_fps(const struct display *d, const struct display_layer *l);

#endif
