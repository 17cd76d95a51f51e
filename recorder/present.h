/* SPDX-License-Identifier: MIT */
/*
 * present.h - display capture: what SurfaceFlinger presented for the target's layers,
 * polled from dumpsys on a thread of its own.
 *
 * The thread runs `DUMPSYS SurfaceFlinger --list` to find the package's buffer layers
 * (display/sf_dumpsys.h: SurfaceView (BLAST) children, the window's layer, never the
 * container) and `DUMPSYS SurfaceFlinger --latency NAME` per layer, every poll period, each
 * run bounded (recorder/runout.h); it merges the overlapping polls so that every present
 * row is delivered once, pending rows when they settle, and counts what could not be
 * seen (gaps). The recording thread takes the results as events from a queue whose fd
 * becomes readable, so a slow or hung dumpsys never delays a frame.
 */
#ifndef PRESENT_H
#define PRESENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "sf_dumpsys.h"

#define PRESENT_LAYERS_MAX 32	    /* layers of the package followed at once */
#define PRESENT_DEFAULT_POLL_MS 500 /* at most; less when 127 rows last under 1 s */
#define PRESENT_TIMEOUT_MS 1500	    /* one dumpsys run (Auriya's find_layer used 1500) */
#define PRESENT_RELIST_MS 2000	    /* --list again at least this often */
#define PRESENT_PATIENCE_MS 3000    /* no layer of the package this long: say why */

struct present_config {
	const char *dumpsys; /* e.g. /system/bin/dumpsys */
	const char *package; /* the target's package: layer names carry it */
	uint32_t poll_ms;    /* 0: from the display's period (present_poll_ms) */
};

enum present_ev {
	PEV_LAYER = 1,	/* a layer followed from now on: id, name (present_layer_name) */
	PEV_LAYER_GONE, /* no longer listed (surface destroyed or recreated): id */
	PEV_PERIOD,	/* the display's vsync period changed: a = period ns */
	PEV_ROW,	/* a settled present row of layer id: a desired, b actual, c ready */
	PEV_GAP,	/* rows of layer id were lost between two polls: a, b = the times
			   (actual present) of the rows before and after the gap (0: unknown) */
	PEV_POLL,	/* layer id was polled (ktime: when dumpsys was asked): its rows
			   signalled by then were delivered */
};

struct present_event {
	uint8_t kind;	/* enum present_ev */
	uint32_t layer; /* 1.. (0 for PEV_PERIOD) */
	uint64_t ktime; /* CLOCK_MONOTONIC of the poll that saw it */
	int64_t a, b, c;
};

struct present_stats {
	uint64_t polls;	       /* poll rounds */
	uint64_t runs;	       /* dumpsys runs */
	uint64_t run_ns_total; /* their wall time */
	uint64_t run_ns_max;
	uint64_t failures; /* runs that timed out, failed or printed no such text */
	uint64_t rows, gaps, layers;
	uint64_t lost; /* events that found the queue full while stopping (0 when drained) */
};

struct present;

/*
 * Start the thread. Fails (-errno, with a one-line why in err) only for what makes display
 * capture impossible from the start: no dumpsys at the path. What SurfaceFlinger does not
 * answer later (14 QPR2's empty --list, SELinux) is said once through present_problem.
 */
FRC_MUST_USE int present_start(struct present **out, const struct present_config *cfg, char *err,
			       size_t errlen);

/* Readable (an eventfd) while events wait in the queue. */
int present_fd(const struct present *p);

/* Take up to max queued events; returns how many. */
size_t present_drain(struct present *p, struct present_event *ev, size_t max);

/* The name of layer id (valid for the poller's life), or NULL. */
const char *present_layer_name(struct present *p, uint32_t id);

/* The first problem seen (e.g. "dumpsys SurfaceFlinger --list printed no layer"), once:
 * copies it to buf and returns true the first time after it happened. */
bool present_problem(struct present *p, char *buf, size_t len);

void present_stats(struct present *p, struct present_stats *st);

/* Stop the thread after one last poll round (what settled since the previous one); then
 * present_drain takes the last events, and present_free frees. */
void present_stop(struct present *p);
void present_free(struct present *p);

/* The poll period for a display period: 500 ms, or half of the 127 rows' span if that is
 * shorter (so no row leaves the ring between two polls). */
uint32_t present_poll_ms(int64_t period_ns);

#endif /* PRESENT_H */
