/* SPDX-License-Identifier: MIT */
/*
 * report_model.h - the report of one capture, computed once: `frameanalyze report` (text,
 * JSON, HTML) and `frameanalyze golden` render this model and nothing else
 * (report_render.h). analyzer/REPORT.md defines every number.
 *
 * Built by one replay plan (replay.h), two reads of the capture: its scan pass counts the
 * submissions (the main surfaces), its second pass feeds the report's lane, whose sinks
 * are: the tracker's summary (the heuristics' numbers), the submissions' summary (the
 * truth series of the main PID's main surface through the same statistics code), the
 * per-surface table, the per-second counts and what was presented (display.h: present
 * rows linked to the main surface's calls); for the HTML page also the charts'
 * accumulators and one lane per tracker variant (the score table). Memory is bounded
 * independent of the capture's length (REPORT.md "Memory").
 */
#ifndef FRAMEANALYZE_REPORT_MODEL_H
#define FRAMEANALYZE_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "replay.h"
#include "summary.h"

#define REPORT_MAX_SURFACES 64	      /* rows of the per-surface table; the rest are counted */
#define REPORT_MAX_BUFFERS 16	      /* distinct buffers told apart per surface ("16+") */
#define REPORT_MAX_SECONDS (1u << 17) /* per-second counts kept (36 hours) */
#define REPORT_GEOMETRY_RECENT 64     /* buffer records kept for their first frame */
#define REPORT_MAX_THREADS 256	      /* thread names followed; later threads stay unnamed */

/* One (PID, surface) pair: what the app submitted there. */
struct report_surface {
	uint32_t pid;
	uint64_t surface;
	uint64_t calls;
	uint64_t first_ns, last_ns;
	uint64_t buffer[REPORT_MAX_BUFFERS];
	unsigned buffers;  /* distinct buffers seen, at most REPORT_MAX_BUFFERS */
	bool buffers_more; /* more than REPORT_MAX_BUFFERS */
	bool main;	   /* the main surface of its PID */
	/*
	 * The thread that queued its frames: tid (its first frame's), and whether another one
	 * did too; drawn_by: that thread's name (FORMAT.md 4.9) at the surface's last frame,
	 * "" when not known (a capture without thread records) or when several threads drew.
	 */
	uint32_t tid;
	bool tids_more;
	size_t thr;	   /* index of the thread's name in the model sink, SIZE_MAX: none */
	uint32_t name_gen; /* which of its names drawn_by holds */
	char drawn_by[FRC_THREAD_NAME_MAX + 1];
	/* its buffers' width x height (FORMAT.md 4.10; the largest area seen), 0: unknown */
	uint32_t width, height;
};

/*
 * The full 1 s windows of the analysed span (stats/windows.h: the score's too) and the
 * submissions of the main surface in each (REPORT.md "Metric names").
 */
struct report_seconds {
	uint32_t *count; /* intervals of the main surface ending in full window k */
	size_t n;	 /* full windows kept: min(full, REPORT_MAX_SECONDS) */
	bool cut;	 /* more than REPORT_MAX_SECONDS: n is the first ones */
	uint64_t full;	 /* full windows */
	/* frame times ending in the full windows: the submissions', the tracker's (all PIDs) */
	uint64_t sub_frames, trk_frames;
	uint64_t min, max;
	double median_fps, stability_pct; /* GameBench: median; share within +-10 % of it */
};

struct report_charts; /* report_chart.h */
struct display;	      /* display.h */
struct score_result;  /* score.h */
struct subm_truth;    /* submissions.h */

struct report_model {
	char tracker[32];	 /* the tracker variant replayed */
	char meter[32];		 /* the meter variant replayed (meter_kind.h) */
	struct summary_view run; /* capture, accounting, tracker numbers, meter, fidelity */
	/* submissions */
	bool has_truth; /* the capture has frames */
	uint32_t main_pid;
	uint64_t main_surface;
	uint64_t pid_calls, main_calls; /* the main PID's calls, its main surface's */
	size_t n_pids;
	struct summary_view sub; /* sub.fn: the main surface's series statistics */
	/* which rule chose the truth, its changes (submissions.h); main_pid/main_surface are
	 * its principal content */
	const struct subm_truth *truth;
	struct report_surface *surfaces;
	size_t n_surfaces;
	uint64_t surfaces_more; /* (PID, surface) pairs past REPORT_MAX_SURFACES */
	struct report_seconds secs;
	struct report_charts *charts;
	/* the heuristic lab's score of every tracker variant (report_model_score), or none */
	struct score_result *scores;
	size_t n_scores;
	bool scores_display; /* their truth: display_content(disp), as score's (else submissions) */
	/* owned */
	struct summary *s_run, *s_sub;
	struct submissions *subm;
	/* what was presented (display.h): d->has when the capture has present records */
	struct display *disp;
};

/*
 * Replay path into a new model (opt: tick_ms and tracker as for replay_run); the n_extra
 * sinks ride along the report replay (golden's delta and reading lines). Without the
 * charts (m->charts keeps its time axis and nothing drawn): every view but the page. 0, or
 * a negative code with a one-line message in err (as replay_run).
 */
FRC_MUST_USE int report_model_build(const char *path, const struct replay_options *opt,
				    const struct replay_sink *extra, size_t n_extra,
				    struct report_model **out, char *err, size_t errlen);
void report_model_free(struct report_model *m);
/*
 * The model report_render_html draws: report_model_build (no extra sink) with the charts
 * and the score table (every tracker variant scored against the submissions, score.h,
 * into m->scores), all in the same replay (two reads of the capture, not two more per
 * variant); with presents linked to the main surface, one more replay scores them against
 * the display instead, as `score` does (m->scores_display).
 */
/* report_model_build (no extra sink) with the charts: compare's page draws two of them. */
FRC_MUST_USE int report_model_build_charted(const char *path, const struct replay_options *opt,
					    struct report_model **out, char *err, size_t errlen);
FRC_MUST_USE int report_model_build_page(const char *path, const struct replay_options *opt,
					 struct report_model **out, char *err, size_t errlen);
/*
 * The score table for a model built without it: a replay of its own (score_capture).
 * 0, or a negative code with the message in err.
 */
FRC_MUST_USE int report_model_score(struct report_model *m, const char *path,
				    const struct replay_options *opt, char *err, size_t errlen);

/* Calls per second of a surface over its span (0 with fewer than two calls). */
double report_surface_rate(const struct report_surface *s);
/* The name of the one thread that drew s (its "drawn by"), or NULL when not known. */
const char *report_surface_drawn_by(const struct report_surface *s);

/* (tracker FPS - submitted FPS) / submitted FPS in %, 0 when nothing was submitted. */
double report_error_pct(double est, double truth);

#endif
