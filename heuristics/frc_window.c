/* SPDX-License-Identifier: MIT */
/*
 * frc_window.c - `frc-window`, our FPS meter (meter_kinds.h, heuristics/README.md).
 *
 * What the display shows is the content surface's frames: the rate is the number of that
 * surface's intervals ending in the last FRC_WINDOW_NS, whatever the tracker returns; no
 * content frame for FRC_WINDOW_FREEZE_NS is a freeze (a reading of 0 FPS, not the last
 * rate); the display's refresh caps the reading (the panel cannot show more) and never
 * replaces it: 1e9 / SurfaceFlinger's vsync period when display capture recorded it, else
 * a valid sysfs node's value. O(1) per frame (the main-surface rule), the
 * interval ends in a fixed ring.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "main_surface.h"
#include "meter_kinds.h"

struct frc_window {
	double fps_max;
	struct main_surface *content; /* the main-surface rule over (PID, surface) keys */
	/* The content's interval ends in the window, nondecreasing, oldest at head. */
	uint64_t ring[FRC_WINDOW_RING];
	uint32_t head, len;
	bool any;	   /* a content interval was seen */
	uint64_t origin;   /* the start of the first one: the window is shorter before */
	uint64_t last_end; /* the latest content interval's end (the newest frame) */
	bool panel_valid;  /* the node's current sample is a valid value ... */
	double panel;	   /* ... the panel's refresh */
	double display;	   /* 1e9 / the display's vsync period (display capture); 0: none */
	struct fps_meter_stats st;
};

int frc_window_new(struct frc_window **out, const struct fps_meter_config *cfg, uint64_t t0,
		   bool has_sysfs)
{
	struct tracker_config tc;
	struct frc_window *w;

	(void)t0;	 /* the window starts with the content's first interval, not the meter */
	(void)has_sysfs; /* the cap follows the node's samples; without a node there are none */
	*out = NULL;
	if (!(cfg->fps_max > 0) || !isfinite(cfg->fps_max))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	tracker_config_default(&tc);
	if (main_surface_new(&w->content, &tc)) {
		free(w);
		return -ENOMEM;
	}
	w->fps_max = cfg->fps_max;
	*out = w;
	return 0;
}

void frc_window_free(struct frc_window *w)
{
	if (!w)
		return;
	main_surface_free(w->content);
	free(w);
}

/*
 * The one place that says which calls are the content: the main-surface rule (most calls,
 * a tie keeps the leader, stale handover: main_surface.h) over the (PID, surface) pairs of
 * every PID, so the content is the main surface of the busiest process. The key mixes the
 * PID into the surface pointer (an odd multiplier: distinct PIDs with surface 0 stay
 * distinct; two pairs sharing a key would need a 64-bit coincidence). The surface-identity
 * work can replace the rule here and nowhere else.
 */
static bool content_interval(struct frc_window *w, uint64_t ktime_ns, const struct frc_frame *f,
			     uint64_t *delta_ns)
{
	uint64_t key = f->surface ^ ((uint64_t)f->pid * 0x9e3779b97f4a7c15ull);

	return main_surface_record(w->content, ktime_ns, key, delta_ns);
}

void frc_window_frame(struct frc_window *w, uint64_t ktime_ns, const struct frc_frame *f)
{
	uint64_t delta;

	if (!content_interval(w, ktime_ns, f, &delta))
		return;
	w->st.deltas_kept++;
	if (!w->any) {
		w->any = true;
		w->origin = ktime_ns - delta; /* delta <= ktime_ns: it is a saturating difference */
		w->last_end = ktime_ns;
	}
	/* A frame back in time counts at the newest time seen: the ring stays ordered. */
	if (ktime_ns > w->last_end)
		w->last_end = ktime_ns;
	if (w->len == FRC_WINDOW_RING) { /* more than the ring per window: the oldest goes */
		w->head = (w->head + 1) % FRC_WINDOW_RING;
		w->len--;
	}
	w->ring[(w->head + w->len++) % FRC_WINDOW_RING] = w->last_end;
}

void frc_window_delta(struct frc_window *w, uint64_t delta_ns)
{
	(void)delta_ns;
	w->st.deltas_pushed++;
}

void frc_window_set_sysfs(struct frc_window *w, int err, const uint8_t *raw, size_t len)
{
	w->panel_valid = fps_meter_sysfs_value(err, raw, len, w->fps_max, &w->panel);
	w->st.sysfs_polls++;
	w->st.sysfs_invalid += !w->panel_valid;
}

void frc_window_set_vsync(struct frc_window *w, uint64_t period_ns)
{
	w->display = period_ns ? 1e9 / (double)period_ns : 0;
}

static struct fps_reading reading(bool valid, double fps, enum frc_source source)
{
	struct fps_reading r = {.valid = valid, .fps = valid ? fps : 0, .source = FRC_SOURCE_NONE};

	if (valid)
		r.source = source;
	return r;
}

struct fps_reading frc_window_read(struct frc_window *w, uint64_t now)
{
	uint64_t span = FRC_WINDOW_NS;
	double v;

	w->st.reads++;
	if (!w->any)
		return reading(false, 0, FRC_SOURCE_NONE);
	while (w->len && now >= FRC_WINDOW_NS && w->ring[w->head] <= now - FRC_WINDOW_NS) {
		w->head = (w->head + 1) % FRC_WINDOW_RING;
		w->len--;
	}
	/* The screen shows the same frame: 0 FPS now, not the rate before it froze. */
	if (now > w->last_end && now - w->last_end >= FRC_WINDOW_FREEZE_NS)
		return reading(true, 0.0, FRC_SOURCE_EBPF);
	/* The content's first second: the window is the time since its first interval began. */
	if (now > w->origin && now - w->origin < span)
		span = now - w->origin;
	if (now <= w->origin || w->len == 0)
		return reading(false, 0, FRC_SOURCE_NONE);
	/* len <= 1024 and span < 2^53 ns are exact doubles: one correctly rounded division. */
	v = (double)w->len * 1e9 / (double)span;
	/*
	 * The display cannot show more than its refresh: the lower of SurfaceFlinger's vsync
	 * rate (display capture; a MAILBOX game queues more than that) and the node's value.
	 */
	if (w->panel_valid && v > w->panel && (w->display <= 0 || w->panel <= w->display))
		return reading(true, w->panel, FRC_SOURCE_SYSFS);
	if (w->display > 0 && v > w->display)
		return reading(true, w->display, FRC_SOURCE_EBPF);
	return reading(v > 0 && v <= w->fps_max, v, FRC_SOURCE_EBPF);
}

void frc_window_stats(const struct frc_window *w, struct fps_meter_stats *st)
{
	*st = w->st;
}
