/* SPDX-License-Identifier: MIT */
/*
 * report_chart.h - what the HTML report's charts draw, accumulated during the report's
 * replay in memory that does not grow with the capture: every series is reduced to
 * REPORT_CHART_PX horizontal pixels over the capture's time span, each keeping the count,
 * min, max and sum of the values that fall in it (min/max per pixel: a 1-hour capture draws
 * as fast as a 5-second one, and no spike disappears).
 */
#ifndef FRAMEANALYZE_REPORT_CHART_H
#define FRAMEANALYZE_REPORT_CHART_H

#include <stdbool.h>
#include <stdint.h>

#include "pidmap.h"

#define REPORT_CHART_PX 960
#define REPORT_CHART_SURFACES 4 /* other surfaces of the main PID drawn (the first ones) */
#define REPORT_HIST_BINS 100	/* 1 ms each: [0, 100) ms, then one bin for 100 ms and more */

struct chart_bin {
	uint64_t n;
	double min, max, sum;
};

struct chart_series {
	struct chart_bin bin[REPORT_CHART_PX];
	uint64_t points; /* values added */
};

/*
 * Per-second values of a series of intervals (by the second they end in): their count
 * (GameBench's per-second FPS), or with by_sum count / their sum (the FPS a tracker's deltas
 * imply: a per-buffer tracker emits more deltas per second than its 1 / delta).
 */
struct chart_persec {
	bool started, by_sum;
	uint64_t origin, k, count, sum_ns;
	/* GameBench's per-second band: 1 / the longest and 1 / the shortest interval */
	uint64_t min_ns, max_ns;
	struct chart_series *band; /* where the band goes (NULL: none) */
};

enum chart_mark {
	/* Jank counts every jank, BigJank the big ones among them: as the report and cards do */
	MARK_JANK,     /* PerfDog Jank of the submissions (BigJanks included) */
	MARK_BIGJANK,  /* PerfDog BigJank of the submissions */
	MARK_TJANK,    /* Jank of the tracker's deltas (BigJanks included) */
	MARK_TBIGJANK, /* BigJank of the tracker's deltas */
	MARK_DROPS,    /* reservation failures went up */
	MARK_ATTACH,   /* attach record */
	MARK_EXIT,     /* exit record */
	MARK_KINDS
};

enum chart_fps_source {
	FPS_SUB,   /* submissions per second */
	FPS_TRK,   /* tracker: deltas / their sum, per second */
	FPS_SYSFS, /* meter readings from sysfs */
	FPS_EBPF,  /* meter readings from eBPF */
	FPS_RAW,   /* sysfs samples (valid ones) */
	FPS_KINDS
};

/* Another surface of the main PID (an overlay): its intervals, charted apart. */
struct chart_surface {
	uint64_t surface, last_ns;
	bool seen;
	struct chart_series ft;
};

struct report_charts {
	uint64_t t0, span;		    /* ns: the capture's first ktime, last - first (>= 1) */
	struct chart_series ft_sub, ft_trk; /* frame time, ms */
	struct chart_series fps[FPS_KINDS];
	struct chart_series band_sub, band_trk; /* per-second min/max FPS (GameBench) */
	struct chart_persec sec_sub, sec_trk;
	uint64_t marks[MARK_KINDS][REPORT_CHART_PX];
	uint64_t mark_total[MARK_KINDS];
	uint64_t hist_sub[REPORT_HIST_BINS + 1], hist_trk[REPORT_HIST_BINS + 1];
	uint64_t w_sub[4];   /* PerfDog window of the submissions */
	struct pidmap w_trk; /* PerfDog windows of the tracker, per PID */
	uint64_t last_drops;
	double fps_max; /* the meter's sysfs bound, to tell valid samples */
	/* set after chart_init: the main surface of the main PID (submissions.h) */
	bool has_main;
	uint32_t main_pid;
	uint64_t main_surface;
	struct chart_surface other[REPORT_CHART_SURFACES];
	unsigned n_other;
	uint64_t other_more; /* calls on further surfaces of the main PID, not drawn */
};

void chart_init(struct report_charts *c, uint64_t first_ns, uint64_t last_ns, double fps_max);
void chart_free(struct report_charts *c);
/* The pixel of time t (clamped to the chart). */
unsigned chart_px(const struct report_charts *c, uint64_t t);
void chart_add(const struct report_charts *c, struct chart_series *s, uint64_t t, double v);

/* Feeds. Each returns 0 or -ENOMEM. */
void chart_submission(struct report_charts *c, uint64_t t, uint64_t delta_ns);
int chart_tracker(struct report_charts *c, uint32_t pid, uint64_t t, uint64_t delta_ns);
int chart_record(struct report_charts *c, const void *rec /* struct frc_record */);
void chart_reading(struct report_charts *c, uint64_t t, unsigned source, double fps);
/*
 * Before a window (replay.h): the state the charts carry into it, nothing drawn: PerfDog's
 * windows of the submissions and of each PID's tracker deltas, the PIDs' lives, the drops
 * counter the markers compare with.
 */
void chart_warm_submission(struct report_charts *c, uint64_t delta_ns);
int chart_warm_tracker(struct report_charts *c, uint32_t pid, uint64_t delta_ns);
void chart_warm_record(struct report_charts *c, const void *rec /* struct frc_record */);
/*
 * The seconds of p start at origin (the analysed span's: the report's windows, windows.h).
 * Call after chart_init.
 */
void chart_persec_origin(struct chart_persec *p, uint64_t origin);
/* A frame time ending at t: its second; a second is drawn once a later one begins. */
void chart_persec_add(struct report_charts *c, struct chart_persec *p, struct chart_series *s,
		      uint64_t t, uint64_t delta_ns);

/* ------------------------------------------------------------ display capture (issue 20) */

struct display; /* display.h */

/*
 * Submit->present latency of the content layer over time: its linked rows (display.h's
 * latency, display_row_latency) by the full 1 s window their actual present is in, per
 * point of `per` windows (1 while there are at most REPORT_CHART_PX windows, then as few as
 * keep the points at most REPORT_CHART_PX): the count, p50 and p99 (nearest rank, as the
 * report's) of each point.
 */
struct chart_latency {
	size_t n;     /* points: ceil(full windows / per) */
	uint64_t per; /* full windows per point */
	uint64_t count[REPORT_CHART_PX];
	uint64_t p50_ns[REPORT_CHART_PX], p99_ns[REPORT_CHART_PX];
};

/* The chart of d (n = 0: no content layer or no full window). 0 or -ENOMEM. */
int chart_latency(const struct display *d, struct chart_latency *out);

/*
 * The content layer's dropped calls (REPORT.md "Presented": between two anchored rows of
 * one segment, shown by no row) per column of c's time axis, at each call's ktime.
 */
struct chart_dropped {
	uint64_t px[REPORT_CHART_PX];
	uint64_t total;
};

void chart_dropped(const struct report_charts *c, const struct display *d,
		   struct chart_dropped *out);

#endif
