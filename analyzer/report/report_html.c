/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - `frameanalyze report --html`: one self-contained page (no network, no
 * script, no external font or stylesheet) with inline SVG charts written here.
 *
 * Deterministic: the page depends on the capture and the options only (no date, no path
 * beyond the capture's name), numbers are printed at fixed precision, so it can be
 * golden-tested. Long captures cost the same as short ones: every series is already reduced
 * to REPORT_CHART_PX columns holding min/max/mean (report_chart.h), and each column is one
 * SVG element with a <title> that the browser shows on hover.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "report_chart.h"
#include "report_render.h"
#include "score.h"

/* left margin: the y axis and the marker labels ("tracker BigJank (1234567)", 11 px font) */
#define PLOT_X 150
#define PLOT_W REPORT_CHART_PX
#define PLOT_H 220
#define PLOT_TOP 34 /* the legend above the plot */
#define SVG_W (PLOT_X + PLOT_W + 24)

/* ------------------------------------------------------------ scales and axes */

struct scale {
	double lo, hi; /* value range of the plot's height */
};

/* The smallest 1, 2 or 5 x 10^k step giving at most n ticks over range (no libm). */
static double nice_step(double range, int n)
{
	static const double base[3] = {1, 2, 5};
	double mag = 1e-3;

	if (!(range > 0))
		return 1;
	for (int k = 0; k < 16; k++, mag *= 10)
		for (int b = 0; b < 3; b++)
			if (range / (base[b] * mag) <= n)
				return base[b] * mag;
	return mag;
}

static double y_of(const struct scale *s, double v)
{
	double f = s->hi > s->lo ? (v - s->lo) / (s->hi - s->lo) : 0;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return PLOT_TOP + PLOT_H * (1 - f);
}

static void svg_open(FILE *out, const char *id, const char *label, int extra_h)
{
	fprintf(out,
		"<svg id=\"%s\" class=\"chart\" role=\"img\" aria-label=\"%s\" "
		"viewBox=\"0 0 %d %d\" preserveAspectRatio=\"xMinYMin meet\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		id, label, SVG_W, PLOT_TOP + PLOT_H + 44 + extra_h);
	fprintf(out, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		PLOT_X, PLOT_TOP, PLOT_W, PLOT_H);
}

/* Horizontal grid lines and labels of the y axis, and its title (with the unit). */
static void y_axis(FILE *out, const struct scale *s, const char *title)
{
	double step = nice_step(s->hi - s->lo, 6);

	for (double v = s->lo; v <= s->hi + step / 1e6; v += step) {
		double y = y_of(s, v);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>",
			PLOT_X, PLOT_X + PLOT_W, y, y);
		fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			PLOT_X - 4, y + 4);
		fprintf(out, "%g</text>\n", v);
	}
	fprintf(out,
		"<text class=\"axis\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>\n",
		PLOT_TOP + PLOT_H / 2, title);
}

/* The time axis: seconds since the capture's first record. */
static void t_axis(FILE *out, const struct report_charts *c, int y0)
{
	double span_s = (double)c->span / 1e9, step = nice_step(span_s, 10);

	for (double t = 0; t <= span_s + step / 1e6; t += step) {
		double x = PLOT_X + t / span_s * PLOT_W;
		if (x > PLOT_X + PLOT_W + 0.5)
			break;
		fprintf(
		    out,
		    "<line class=\"tickmark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
		    x, x, y0, y0 + 4, x, y0 + 16, t);
	}
	fprintf(out,
		"<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the "
		"capture's first record (s)</text>\n",
		PLOT_X + PLOT_W / 2, y0 + 34);
}

struct legend_item {
	const char *cls, *label;
};

static void legend(FILE *out, const struct legend_item *it, size_t n)
{
	int x = PLOT_X;

	for (size_t i = 0; i < n; i++) {
		fprintf(out,
			"<rect class=\"%s swatch\" x=\"%d\" y=\"8\" width=\"14\" height=\"10\"/>"
			"<text class=\"legend\" x=\"%d\" y=\"17\">%s</text>\n",
			it[i].cls, x, x + 18, it[i].label);
		x += 18 + 7 * (int)strlen(it[i].label) + 22;
	}
}

/* ------------------------------------------------------------ series */

static double bin_mean(const struct chart_bin *b)
{
	return b->sum / (double)b->n;
}

/* One column per pixel: a min..max bar with its hover text, then the mean as a line. */
static void series(FILE *out, const struct report_charts *c, const struct chart_series *s,
		   const struct scale *sc, const char *cls, const char *what, const char *unit)
{
	bool pen = false;

	/* the mean line joins the columns that have values, across empty ones */
	fprintf(out, "<g class=\"%s\">\n", cls);
	for (unsigned x = 0; x < REPORT_CHART_PX; x++) {
		const struct chart_bin *b = &s->bin[x];
		double y1, y2;

		if (!b->n)
			continue;
		/* at least 3x3 px around the value, so that a lone point is seen and hovered */
		y1 = y_of(sc, b->max) - 1.5, y2 = y_of(sc, b->min) + 1.5;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%.1f\"><title>%s at "
			"%.3f s: min %.3f, max %.3f, mean %.3f %s (%" PRIu64 ")</title></rect>\n",
			PLOT_X + x - 1.5, y1, y2 - y1, what,
			(double)x * (double)c->span / 1e9 / REPORT_CHART_PX, b->min, b->max,
			bin_mean(b), unit, b->n);
	}
	fputs("<path class=\"line\" d=\"", out);
	for (unsigned x = 0; x < REPORT_CHART_PX; x++) {
		const struct chart_bin *b = &s->bin[x];
		if (!b->n)
			continue;
		fprintf(out, "%c%u %.1f", pen ? 'L' : 'M', PLOT_X + x, y_of(sc, bin_mean(b)));
		pen = true;
	}
	fputs("\"/>\n</g>\n", out);
}

/* A per-second min..max band (GameBench), drawn faint behind its series: bars only. */
static void band(FILE *out, const struct report_charts *c, const struct chart_series *s,
		 const struct scale *sc, const char *cls, const char *what)
{
	/* a second's band spans the second's columns (at least 3 px, as a point) */
	double w = (double)REPORT_CHART_PX * 1e9 / (double)c->span;

	w = w < 3 ? 3 : w;
	fprintf(out, "<g class=\"%s band\">\n", cls);
	for (unsigned x = 0; x < REPORT_CHART_PX; x++) {
		const struct chart_bin *b = &s->bin[x];
		double y1, y2;

		if (!b->n)
			continue;
		y1 = y_of(sc, b->max), y2 = y_of(sc, b->min);
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s at "
			"%.3f s: %.3f..%.3f FPS</title></rect>\n",
			PLOT_X + x - w / 2, y1, w, y2 - y1 < 1 ? 1 : y2 - y1, what,
			(double)x * (double)c->span / 1e9 / REPORT_CHART_PX, b->min, b->max);
	}
	fputs("</g>\n", out);
}

static double series_max(const struct chart_series *s, double cur)
{
	for (unsigned x = 0; x < REPORT_CHART_PX; x++)
		if (s->bin[x].n && s->bin[x].max > cur)
			cur = s->bin[x].max;
	return cur;
}

/* ------------------------------------------------------------ the charts */

static const char *const mark_cls[MARK_KINDS] = {"m-jank",  "m-bigjank", "m-tjank", "m-tbigjank",
						 "m-drops", "m-attach",	 "m-exit"};
static const char *const mark_name[MARK_KINDS] = {
    "Jank", "BigJank", "tracker Jank", "tracker BigJank", "drops", "attach", "exit"};

/* A strip of markers under a plot: one row per kind, one tick per column with events. */
static void markers(FILE *out, const struct report_charts *c, int y0)
{
	for (int k = 0; k < MARK_KINDS; k++) {
		int y = y0 + 10 * k;
		fprintf(out,
			"<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s (%" PRIu64
			")</text>\n<g class=\"%s\">",
			PLOT_X - 4, y + 8, mark_name[k], c->mark_total[k], mark_cls[k]);
		for (unsigned x = 0; x < REPORT_CHART_PX; x++)
			if (c->marks[k][x])
				fprintf(
				    out,
				    "<rect x=\"%u\" y=\"%d\" width=\"2\" height=\"8\"><title>%s "
				    "at %.3f s: %" PRIu64 "</title></rect>",
				    PLOT_X + x, y, mark_name[k],
				    (double)x * (double)c->span / 1e9 / REPORT_CHART_PX,
				    c->marks[k][x]);
		fputs("</g>\n", out);
	}
}

#define MARK_H (10 * MARK_KINDS + 8)
#define SVG_CLOSE "</svg>\n"

/* Frame times above this are drawn at the plot's top edge (REPORT.md "HTML report"). */
#define FT_CLIP_MS 250

static const char *const other_cls[REPORT_CHART_SURFACES] = {"s-o0", "s-o1", "s-o2", "s-o3"};

static void chart_frame_times(FILE *out, const struct report_model *m)
{
	const struct report_charts *c = m->charts;
	char label[96], names[REPORT_CHART_SURFACES][48];
	struct legend_item it[2 + REPORT_CHART_SURFACES] = {{"s-sub", "submissions (main surface)"},
							    {"s-trk", label}};
	struct scale sc = {0, 0};
	double top = series_max(&c->ft_trk, series_max(&c->ft_sub, 0));
	bool clipped;
	char clip_note[96] = "";
	size_t n = 2;

	snprintf(label, sizeof(label), "tracker %s deltas", m->tracker);
	for (unsigned i = 0; i < c->n_other; i++) {
		snprintf(names[i], sizeof(names[i]), "surface 0x%" PRIx64, c->other[i].surface);
		it[n++] = (struct legend_item){other_cls[i], names[i]};
		top = series_max(&c->other[i].ft, top);
	}
	/* a pause of minutes would flatten every frame: above 250 ms, values sit on the edge */
	clipped = top > FT_CLIP_MS;
	sc.hi = clipped ? FT_CLIP_MS : top > 0 ? top * 1.1 : 50;
	sc.hi = nice_step(sc.hi, 5) * (double)(int)(sc.hi / nice_step(sc.hi, 5) + 0.999);
	fputs("<figure><figcaption>Frame time over time, per surface of the main process"
	      "</figcaption>\n",
	      out);
	svg_open(out, "chart-frametime", "frame time over time", MARK_H);
	legend(out, it, n);
	y_axis(out, &sc, "frame time (ms)");
	for (unsigned i = 0; i < c->n_other; i++)
		series(out, c, &c->other[i].ft, &sc, other_cls[i], names[i], "ms");
	/* the tracker under the submissions: the headline series stays visible on top */
	series(out, c, &c->ft_trk, &sc, "s-trk", "tracker delta", "ms");
	series(out, c, &c->ft_sub, &sc, "s-sub", "submission interval", "ms");
	markers(out, c, PLOT_TOP + PLOT_H + 6);
	t_axis(out, c, PLOT_TOP + PLOT_H + MARK_H);
	fputs(SVG_CLOSE, out);
	if (clipped)
		snprintf(clip_note, sizeof(clip_note),
			 "; values above %d ms are drawn at the top edge", FT_CLIP_MS);
	fprintf(out,
		"<p class=\"note\">Each of the %d columns shows the min..max (bar) and mean (line) "
		"of the %" PRIu64 " submission intervals of the main surface, the %" PRIu64
		" tracker deltas (drawn beneath) and the intervals of the main process's other "
		"surfaces (the first %d%s) that fall in it%s. Markers: PerfDog Jank (BigJanks "
		"included) and BigJank of the submissions and of the tracker's deltas, reservation "
		"failures (drops), process attach and exit. Hover a column for its values.</p>"
		"</figure>\n",
		REPORT_CHART_PX, c->ft_sub.points, c->ft_trk.points, REPORT_CHART_SURFACES,
		c->other_more ? "; more are not drawn" : "", clip_note);
}

static const char *const fps_cls[FPS_KINDS] = {"s-sub", "s-trk", "s-msys", "s-mebpf", "s-raw"};
static const char *const fps_name[FPS_KINDS] = {"submissions per second",
						"tracker (1 / mean delta)", "meter reading (sysfs)",
						"meter reading (eBPF)", "sysfs sample"};

static void chart_fps(FILE *out, const struct report_model *m)
{
	const struct report_charts *c = m->charts;
	struct legend_item it[FPS_KINDS];
	struct scale sc = {0, 0};
	double top = 0;

	for (int k = 0; k < FPS_KINDS; k++) {
		it[k] = (struct legend_item){fps_cls[k], fps_name[k]};
		top = series_max(&c->fps[k], top);
	}
	top = series_max(&c->band_trk, series_max(&c->band_sub, top));
	sc.hi = top > 0 ? top * 1.1 : 60;
	sc.hi = nice_step(sc.hi, 6) * (double)(int)(sc.hi / nice_step(sc.hi, 6) + 0.999);
	fputs("<figure><figcaption>FPS per second, by source</figcaption>\n", out);
	svg_open(out, "chart-fps", "FPS per second by source", 0);
	legend(out, it, FPS_KINDS);
	y_axis(out, &sc, "FPS");
	band(out, c, &c->band_sub, &sc, "s-sub", "submissions: 1/longest..1/shortest interval");
	band(out, c, &c->band_trk, &sc, "s-trk", "tracker: 1/longest..1/shortest delta");
	for (int k = 0; k < FPS_KINDS; k++)
		series(out, c, &c->fps[k], &sc, fps_cls[k], fps_name[k], "FPS");
	t_axis(out, c, PLOT_TOP + PLOT_H);
	fputs(SVG_CLOSE, out);
	fputs("<p class=\"note\">Submissions: calls in each full second (GameBench's per-second "
	      "FPS), with its faint band from 1 / the longest to 1 / the shortest interval of "
	      "that second (GameBench's per-second min/max); tracker: its deltas in each second "
	      "/ their sum, with the same band of its deltas; meter: each reading at its "
	      "tick; sysfs: each valid sample. A "
	      "column holding several seconds shows their min..max band and mean line.</p>"
	      "</figure>\n",
	      out);
}

static uint64_t hist_total(const uint64_t *h)
{
	uint64_t n = 0;

	for (int i = 0; i <= REPORT_HIST_BINS; i++)
		n += h[i];
	return n;
}

static void hist_bars(FILE *out, const uint64_t *h, const struct scale *sc, const char *cls,
		      int half, const char *what)
{
	double w = (double)PLOT_W / (REPORT_HIST_BINS + 1), tot = (double)hist_total(h);

	fprintf(out, "<g class=\"%s\">\n", cls);
	for (int i = 0; i <= REPORT_HIST_BINS && tot > 0; i++) {
		double pct = (double)h[i] * 100.0 / tot, y = y_of(sc, pct);
		if (!h[i])
			continue;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s %d%s "
			"ms: %" PRIu64 " (%.3f %%)</title></rect>\n",
			PLOT_X + i * w + half * w / 2, y, w / 2, PLOT_TOP + PLOT_H - y, what, i,
			i < REPORT_HIST_BINS ? "..+1" : " or more", h[i], pct);
	}
	fputs("</g>\n", out);
}

static void cdf_line(FILE *out, const uint64_t *h, const struct scale *sc, const char *cls)
{
	double w = (double)PLOT_W / (REPORT_HIST_BINS + 1), tot = (double)hist_total(h);
	uint64_t acc = 0;

	if (!(tot > 0))
		return;
	fprintf(out, "<g class=\"%s\"><path class=\"line\" d=\"M%d %.1f", cls, PLOT_X, y_of(sc, 0));
	for (int i = 0; i <= REPORT_HIST_BINS; i++) {
		acc += h[i];
		fprintf(out, " L%.1f %.1f", PLOT_X + (i + 1) * w,
			y_of(sc, (double)acc * 100 / tot));
	}
	fputs("\"/></g>\n", out);
}

static void x_ms_axis(FILE *out)
{
	double w = (double)PLOT_W / (REPORT_HIST_BINS + 1);

	for (int i = 0; i <= REPORT_HIST_BINS; i += 10)
		fprintf(
		    out,
		    "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
		    PLOT_X + i * w, PLOT_TOP + PLOT_H + 16, i);
	fprintf(out,
		"<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">frame time (ms, "
		"1 ms bins; the last: 100 ms or more)</text>\n",
		PLOT_X + PLOT_W / 2, PLOT_TOP + PLOT_H + 34);
}

static void chart_distribution(FILE *out, const struct report_model *m)
{
	const struct report_charts *c = m->charts;
	char label[96];
	struct legend_item it[2] = {{"s-sub", "submissions (main surface)"}, {"s-trk", label}};
	struct scale sc = {0, 0}, cdf = {0, 100};
	double top = 0, ts = (double)hist_total(c->hist_sub), tt = (double)hist_total(c->hist_trk);

	snprintf(label, sizeof(label), "tracker %s deltas", m->tracker);
	for (int i = 0; i <= REPORT_HIST_BINS; i++) {
		if (ts > 0 && c->hist_sub[i] * 100.0 / ts > top)
			top = c->hist_sub[i] * 100.0 / ts;
		if (tt > 0 && c->hist_trk[i] * 100.0 / tt > top)
			top = c->hist_trk[i] * 100.0 / tt;
	}
	sc.hi = top > 0 ? nice_step(top, 5) * (double)(int)(top / nice_step(top, 5) + 0.999) : 100;
	fputs("<figure><figcaption>Frame-time distribution</figcaption>\n", out);
	svg_open(out, "chart-histogram", "frame time histogram", 0);
	legend(out, it, 2);
	y_axis(out, &sc, "share of intervals (%)");
	hist_bars(out, c->hist_sub, &sc, "s-sub", 0, "submissions");
	hist_bars(out, c->hist_trk, &sc, "s-trk", 1, label);
	x_ms_axis(out);
	fputs(SVG_CLOSE, out);
	svg_open(out, "chart-cdf", "frame time cumulative distribution", 0);
	legend(out, it, 2);
	y_axis(out, &cdf, "intervals at or below (%)");
	cdf_line(out, c->hist_sub, &cdf, "s-sub");
	cdf_line(out, c->hist_trk, &cdf, "s-trk");
	x_ms_axis(out);
	fputs(SVG_CLOSE "</figure>\n", out);
}

/* ------------------------------------------------------------ cards */

struct card {
	const char *title, *json_key, *unit, *source;
	bool has;
	char value[200]; /* room for a 31-byte name with every byte escaped as &#NN; */
};

static void card_f3(struct card *c, const char *title, const char *key, bool has, double v,
		    const char *unit, const char *source)
{
	*c = (struct card){title, key, unit, source, has, ""};
	snprintf(c->value, sizeof(c->value), "%.3f", v);
}

static void card_u64(struct card *c, const char *title, const char *key, uint64_t v,
		     const char *unit, const char *source)
{
	*c = (struct card){title, key, unit, source, true, ""};
	snprintf(c->value, sizeof(c->value), "%" PRIu64, v);
}

static void card_str(struct card *c, const char *title, const char *key, const char *v,
		     const char *unit, const char *source)
{
	FILE *f;

	*c = (struct card){title, key, unit, source, true, ""};
	/* untrusted (the capture's metadata): escaped; a tracker name is at most 31 bytes */
	f = fmemopen(c->value, sizeof(c->value), "w");
	if (f) {
		report_put_html(f, v);
		fclose(f);
	}
}

/* The value sits in an element of its own with data-json naming the JSON report's key. */
static void card_put(FILE *out, const struct card *c)
{
	fprintf(out,
		"<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\"><span "
		"data-json=\"%s\">%s</span> <small>%s</small></div><div class=\"d\">%s</div>"
		"</div>\n",
		c->title, c->json_key, c->has ? c->value : "null", c->has ? c->unit : "",
		c->source);
}

static void cards(FILE *out, const struct report_model *m)
{
	const struct summary_frame_numbers *s = &m->sub.fn, *t = &m->run.fn;
	bool has = s->deltas > 0, sec = m->secs.n > 0;
	struct card c[11];
	char trk[64];
	int n = 0;

	snprintf(trk, sizeof(trk), "Tracker %s", m->tracker);
	card_f3(&c[n++], "Mean FPS", "submissions.mean_fps", has, s->mean_fps, "FPS",
		"intervals of the main surface / their sum (PerfDog / Android Avg FPS)");
	card_f3(&c[n++], "Median FPS", "submissions.median_fps", sec, m->secs.median_fps, "FPS",
		"median of the per-second FPS (GameBench)");
	card_f3(&c[n++], "1 % low", "submissions.low_1pct_fps", has, s->low1_fps, "FPS",
		"mean FPS of the slowest 1 % of intervals (GameBench Low 1 %)");
	card_u64(&c[n++], "Jank", "submissions.janks", s->janks, "",
		 "> 2x the mean of the last 3 and > 84 ms (PerfDog)");
	card_u64(&c[n++], "BigJank", "submissions.big_janks", s->big_janks, "",
		 "a Jank > 125 ms (PerfDog)");
	card_f3(&c[n++], "Stutter", "submissions.stutter_percent", true, s->stutter_pct, "%",
		"share of the time in Jank frames (PerfDog)");
	card_f3(&c[n++], "FPS stability", "submissions.stability_percent", sec,
		m->secs.stability_pct, "%", "seconds within +-10 % of the median FPS (GameBench)");
	card_f3(&c[n++], trk, "tracker.mean_fps", t->deltas > 0, t->mean_fps, "FPS",
		"mean FPS of the tracker's deltas (deltas / their sum): the heuristic's estimate");
	card_f3(&c[n++], "Tracker mean FPS error", "tracker.mean_fps_error_percent",
		t->deltas && has, report_error_pct(t->mean_fps, s->mean_fps), "%",
		"(tracker mean FPS - submitted) / submitted");
	if (m->run.fidelity_applies)
		card_u64(&c[n++], "Replay fidelity", "fidelity.mismatches", m->run.mismatches,
			 "mismatches", "live readings the replay did not reproduce (must be 0)");
	else
		card_str(&c[n++], "Replay fidelity", "fidelity.recorded_tracker",
			 m->run.recorded_tracker, "recorded: n/a",
			 "fidelity compares live readings with a replay of the recorded tracker");
	card_f3(&c[n++], "Loss", "accounting.loss_percent", true, m->run.loss_pct, "%",
		"reservation failures / (frames + failures)");
	fputs("<div class=\"cards\">\n", out);
	for (int i = 0; i < n; i++)
		card_put(out, &c[i]);
	fputs("</div>\n", out);
}

/* ------------------------------------------------------------ tables (the sections) */

struct html_out {
	FILE *out;
	int depth;
};

static void html_open(void *ctx, const char *key, const char *title)
{
	struct html_out *h = ctx;

	(void)key;
	if (h->depth++ == 0) {
		fputs("<section>", h->out);
		if (title) {
			fputs("<h2>", h->out);
			report_put_html(h->out, title);
			fputs("</h2>", h->out);
		}
		fputs("<table>\n", h->out);
	}
}

static void html_close(void *ctx)
{
	struct html_out *h = ctx;

	if (--h->depth == 0)
		fputs("</table></section>\n", h->out);
}

static void html_value(void *ctx, const char *key, enum report_value kind, const char *v)
{
	(void)ctx, (void)key, (void)kind, (void)v;
}

static void html_row(void *ctx, const char *label, const char *text, bool untrusted)
{
	struct html_out *h = ctx;

	(void)untrusted; /* every row is escaped: HTML specials in any text */
	fputs("<tr><th>", h->out);
	report_put_html(h->out, label ? label : "");
	fputs("</th><td>", h->out);
	report_put_html(h->out, text);
	fputs("</td></tr>\n", h->out);
}

/* ------------------------------------------------------------ the score table */

static void score_cell(FILE *out, bool has, const char *fmt_kind, double v)
{
	if (!has)
		fputs("<td>-</td>", out);
	else if (!strcmp(fmt_kind, "pct"))
		fprintf(out, "<td>%.3f %%</td>", v);
	else if (!strcmp(fmt_kind, "ms"))
		fprintf(out, "<td>%+.3f</td>", v);
	else
		fprintf(out, "<td>%.3f</td>", v);
}

/* The mean FPS error, the window FPS error and MAE %: `score`'s formulas (REPORT.md). */
static void score_fps_cells(FILE *out, const struct score_result *r, bool fps, bool mean)
{
	double est = mean ? (double)r->est_deltas * 1e9 / (double)r->est_sum_ns : 0;
	double truth = mean ? (double)r->truth_deltas * 1e9 / (double)r->truth_sum_ns : 0;
	double t = (double)r->truth_frames;

	score_cell(out, mean && r->est_sum_ns && r->truth_sum_ns, "pct",
		   report_error_pct(est, truth));
	score_cell(out, fps, "pct", fps ? ((double)r->est_frames - t) * 100.0 / t : 0);
	score_cell(out, fps, "pct", fps ? (double)r->abs_err_frames * 100.0 / t : 0);
}

/*
 * Which truth the table graded against, in `score`'s words: the display's content layer
 * when the capture has presents linked to the main surface, else the submissions.
 */
static void score_truth_note(FILE *out, const struct report_model *m)
{
	const struct display_layer *l = m->scores_display ? display_content(m->disp) : NULL;

	if (!l) {
		fputs("<p class=\"note\">Errors against the submissions of the main surface "
		      "(analyzer/REPORT.md \"Score\"); - where there is nothing to measure (no "
		      "janks, no ticks).</p></section>\n",
		      out);
		return;
	}
	fprintf(out,
		"<p class=\"note\" id=\"score-truth\">truth: display, content layer %" PRIu32
		" (%" PRIu64 " presents; analyzer/REPORT.md \"Score\"): ",
		l->id, l->presents);
	report_put_html(out, l->name);
	fputs("; - where there is nothing to measure (no janks, no ticks).</p></section>\n", out);
}

/* Every tracker variant against score's truth (score.h; the same sums as `score`). */
static void score_table(FILE *out, const struct report_model *m)
{
	if (!m->n_scores)
		return;
	fputs("<section><h2>Which tracker? (frameanalyze score on this capture)</h2>\n"
	      "<table id=\"scores\"><tr><th>tracker</th><th>mean FPS error</th>"
	      "<th>window FPS error</th><th>window FPS MAE</th>"
	      "<th>p50 error ms</th><th>p95 error ms</th><th>p99 error ms</th>"
	      "<th>jank precision</th><th>jank recall</th><th>meter error</th></tr>\n",
	      out);
	for (size_t i = 0; i < m->n_scores; i++) {
		const struct score_result *r = &m->scores[i];
		bool fps = r->windows && r->truth_frames, p = r->truth_deltas && r->est_deltas;

		fputs("<tr><th>", out);
		report_put_html(out, r->tracker);
		fputs("</th>", out);
		score_fps_cells(out, r, fps, p);
		for (int k = 0; k < 3; k++)
			score_cell(out, p, "ms",
				   ((double)r->est_p[k] - (double)r->truth_p[k]) / 1e6);
		score_cell(out, r->est_janks > 0, "n",
			   r->est_janks ? (double)r->est_matched / r->est_janks : 0);
		score_cell(out, r->truth_janks > 0, "n",
			   r->truth_janks ? (double)r->truth_matched / r->truth_janks : 0);
		score_cell(out, r->ticks && r->meter_truth_sum > 0, "pct",
			   r->meter_truth_sum > 0 ? r->meter_abs_err * 100.0 / r->meter_truth_sum
						  : 0);
		fputs("</tr>\n", out);
	}
	fputs("</table>", out);
	score_truth_note(out, m);
}

/* ------------------------------------------------------------ the page */

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:24px;"
    "max-width:1100px}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}\n"
    ".verdict{font-size:16px;font-weight:600;margin:6px 0 14px}\n"
    ".cards{display:flex;flex-wrap:wrap;gap:8px}\n"
    ".card{border:1px solid #ccc;border-radius:6px;padding:8px 10px;width:190px}\n"
    ".card .k{font-size:12px;color:#555}.card .v{font-size:20px;font-weight:600}\n"
    ".card .d{font-size:11px;color:#666}\n"
    "figure{margin:18px 0}figcaption{font-weight:600;margin-bottom:4px}\n"
    ".note{font-size:12px;color:#555;margin:2px 0}\n"
    "table{border-collapse:collapse;font-size:13px}th{text-align:left;font-weight:normal;"
    "color:#555;padding:1px 12px 1px 0;vertical-align:top}td{font-family:monospace}\n"
    "svg.chart{display:block;width:100%;height:auto}\n"
    "svg .plot{fill:#fafafa;stroke:#999}svg .grid{stroke:#e4e4e4}svg .tickmark{stroke:#999}\n"
    "svg text{font:11px sans-serif;fill:#333}svg .axis{font-size:12px}\n"
    "svg .line{fill:none;stroke-width:1}\n"
    ".s-sub rect,.s-sub.swatch{fill:#1f77b4;fill-opacity:.55}.s-sub .line{stroke:#1f77b4}\n"
    ".s-trk rect,.s-trk.swatch{fill:#d62728;fill-opacity:.55}.s-trk .line{stroke:#d62728}\n"
    ".s-msys rect,.s-msys.swatch{fill:#9467bd;fill-opacity:.5}.s-msys .line{stroke:#9467bd}\n"
    ".s-mebpf rect,.s-mebpf.swatch{fill:#ff7f0e;fill-opacity:.5}"
    ".s-mebpf .line{stroke:#ff7f0e}\n"
    ".s-raw rect,.s-raw.swatch{fill:#2ca02c;fill-opacity:.5}.s-raw .line{stroke:#2ca02c}\n"
    ".band rect{fill-opacity:.15}\n"
    ".s-after rect,.s-after.swatch{fill:#ff7f0e;fill-opacity:.55}.s-after .line{stroke:#ff7f0e}\n"

    ".s-o0 rect,.s-o0.swatch{fill:#17becf;fill-opacity:.55}.s-o0 .line{stroke:#17becf}\n"
    ".s-o1 rect,.s-o1.swatch{fill:#bcbd22;fill-opacity:.55}.s-o1 .line{stroke:#bcbd22}\n"
    ".s-o2 rect,.s-o2.swatch{fill:#e377c2;fill-opacity:.55}.s-o2 .line{stroke:#e377c2}\n"
    ".s-o3 rect,.s-o3.swatch{fill:#7f7f7f;fill-opacity:.55}.s-o3 .line{stroke:#7f7f7f}\n"
    ".m-jank rect{fill:#ff7f0e}.m-bigjank rect{fill:#d62728}.m-tjank rect{fill:#c49c94}"
    ".m-tbigjank rect{fill:#8c564b}\n"
    ".m-drops rect{fill:#9467bd}.m-attach rect{fill:#2ca02c}.m-exit rect{fill:#7f7f7f}\n"
    "@media print{body{margin:0}.card{break-inside:avoid}figure{break-inside:avoid}}\n";

/* ------------------------------------------------------------ compare's charts */

/* Per-window counts v[0..n) as a polyline over n_max windows. */
static void counts_line(FILE *out, const uint32_t *v, size_t n, size_t n_max,
			const struct scale *sc, const char *cls)
{
	double w = n_max > 1 ? (double)PLOT_W / (double)(n_max - 1) : 0;

	if (!n)
		return;
	fprintf(out, "<g class=\"%s\"><path class=\"line\" d=\"", cls);
	for (size_t k = 0; k < n; k++)
		fprintf(out, "%s%.1f %.1f", k ? " L" : "M", PLOT_X + (double)k * w, y_of(sc, v[k]));
	fputs("\"/></g>\n", out);
}

/* The submissions' per-second counts of m as a polyline over n_max seconds. */
static void seconds_line(FILE *out, const struct report_model *m, size_t n_max,
			 const struct scale *sc, const char *cls)
{
	counts_line(out, m->secs.count, m->secs.n, n_max, sc, cls);
}

/*
 * Points 0..n-1 of per full windows each under a per-window chart, labelled by their first
 * window: whole windows only (no tick between two points), and the label says per.
 */
static void points_axis(FILE *out, size_t n, uint64_t per, const char *label)
{
	double step = nice_step((double)n, 10), w = n > 1 ? PLOT_W / (n - 1.0) : 0;

	step = step < 1 ? 1 : step;
	for (double k = 0; k < (double)n; k += step)
		fprintf(
		    out,
		    "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
		    PLOT_X + k * w, PLOT_TOP + PLOT_H + 16, k * (double)per);
	fprintf(out, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s",
		PLOT_X + PLOT_W / 2, PLOT_TOP + PLOT_H + 34, label);
	if (per > 1)
		fprintf(out, ", a point per %" PRIu64 " windows", per);
	fputs("</text>\n", out);
}

/* Seconds 0..n_max-1 under a per-second chart, with its label. */
static void seconds_axis(FILE *out, size_t n_max, const char *label)
{
	points_axis(out, n_max, 1, label);
}

/* A y scale from 0 to a nice value above top (60 without data). */
static struct scale count_scale(double top)
{
	struct scale sc = {0, top > 0 ? top * 1.1 : 60};

	sc.hi = nice_step(sc.hi, 6) * (double)(int)(sc.hi / nice_step(sc.hi, 6) + 0.999);
	return sc;
}

static void compare_fps_chart(FILE *out, const struct report_model *b, const struct report_model *a)
{
	static const struct legend_item it[2] = {{"s-sub", "before"}, {"s-after", "after"}};
	size_t n_max = b->secs.n > a->secs.n ? b->secs.n : a->secs.n;
	struct scale sc =
	    count_scale((double)(b->secs.max > a->secs.max ? b->secs.max : a->secs.max));
	fputs("<figure><figcaption>Submitted FPS per second, before and after</figcaption>\n", out);
	svg_open(out, "chart-compare-fps", "submitted FPS per second before and after", 0);
	legend(out, it, 2);
	y_axis(out, &sc, "calls per second");
	seconds_line(out, b, n_max, &sc, "s-sub");
	seconds_line(out, a, n_max, &sc, "s-after");
	seconds_axis(out, n_max,
		     "full second of the submissions (from each capture's first interval)");
	fputs(SVG_CLOSE "</figure>\n", out);
}

static void compare_cdf_chart(FILE *out, const struct report_model *b, const struct report_model *a)
{
	static const struct legend_item it[2] = {{"s-sub", "before"}, {"s-after", "after"}};
	struct scale cdf = {0, 100};

	fputs("<figure><figcaption>Frame-time distribution of the submissions, before and "
	      "after</figcaption>\n",
	      out);
	svg_open(out, "chart-compare-cdf", "frame time distribution before and after", 0);
	legend(out, it, 2);
	y_axis(out, &cdf, "intervals at or below (%)");
	cdf_line(out, b->charts->hist_sub, &cdf, "s-sub");
	cdf_line(out, a->charts->hist_sub, &cdf, "s-after");
	x_ms_axis(out);
	fputs(SVG_CLOSE "</figure>\n", out);
}

/*
 * What was presented next to what was submitted, per full window (issue 20): the content
 * layer's display frame times and the main surface's intervals in each; a MAILBOX game
 * shows the presented line at the panel's rate, the submitted one above it.
 */
static void chart_presented(FILE *out, const struct report_model *m)
{
	static const struct legend_item it[2] = {{"s-pres", "presented (content layer)"},
						 {"s-sub", "submitted (main surface)"}};
	const struct display_layer *l = m->disp ? display_content(m->disp) : NULL;
	size_t n_pres = l && l->win ? m->disp->n_win : 0;
	size_t n_max = n_pres > m->secs.n ? n_pres : m->secs.n;
	double top = (double)(l && l->win_max > m->secs.max ? l->win_max : m->secs.max);
	struct scale sc = count_scale(top);

	if (!n_pres)
		return;
	/* its colour here, not in the page's style: pages without presents stay as they were */
	fputs("<style>.s-pres rect,.s-pres.swatch{fill:#2ca02c;fill-opacity:.55}"
	      ".s-pres .line{stroke:#2ca02c}</style>\n",
	      out);
	fputs("<figure><figcaption>Presented and submitted FPS per second (frame times in each "
	      "full 1 s window)</figcaption>\n",
	      out);
	svg_open(out, "chart-presented", "presented and submitted FPS per second", 0);
	legend(out, it, 2);
	y_axis(out, &sc, "frames per second");
	counts_line(out, l->win, n_pres, n_max, &sc, "s-pres");
	seconds_line(out, m, n_max, &sc, "s-sub");
	seconds_axis(out, n_max, "full 1 s window (from the capture's first record)");
	fputs(SVG_CLOSE "</figure>\n", out);
}

/* One percentile of the latency chart: its line, and each point with its values on hover. */
static void latency_line(FILE *out, const struct chart_latency *lt, const struct scale *sc,
			 const char *cls, bool p99)
{
	double w = lt->n > 1 ? (double)PLOT_W / (double)(lt->n - 1) : 0;
	bool pen = false;

	fprintf(out, "<g class=\"%s\"><path class=\"line\" d=\"", cls);
	for (size_t k = 0; k < lt->n; k++) {
		const uint64_t *v = p99 ? lt->p99_ns : lt->p50_ns;

		if (!lt->count[k])
			continue; /* no linked present in those windows: the line skips them */
		fprintf(out, "%s%.1f %.1f", pen ? " L" : "M", PLOT_X + (double)k * w,
			y_of(sc, (double)(v[k] / 1000u) / 1e3));
		pen = true;
	}
	fputs("\"/>\n", out);
	for (size_t k = 0; k < lt->n; k++)
		if (lt->count[k])
			fprintf(
			    out,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"3\"><title>window "
			    "%" PRIu64 ": p50 %.3f ms, p99 %.3f ms (%" PRIu64
			    " presents)</title></rect>\n",
			    PLOT_X + (double)k * w - 1.5,
			    y_of(sc, (double)((p99 ? lt->p99_ns : lt->p50_ns)[k] / 1000u) / 1e3) -
				1.5,
			    (uint64_t)k * lt->per, (double)(lt->p50_ns[k] / 1000u) / 1e3,
			    (double)(lt->p99_ns[k] / 1000u) / 1e3, lt->count[k]);
	fputs("</g>\n", out);
}

/*
 * Submit->present latency over time (issue 20 item 4): per full window (or point of
 * several, report_chart.h) the p50 and p99 of the content layer's linked presents, times
 * truncated to the us as the report prints them.
 */
static void chart_latency_over_time(FILE *out, const struct report_model *m)
{
	static const struct legend_item it[2] = {{"s-lat50", "p50"}, {"s-lat99", "p99"}};
	struct chart_latency *lt = calloc(1, sizeof(*lt));
	double top = 0;

	if (!lt || chart_latency(m->disp, lt) || !lt->n) {
		free(lt);
		return;
	}
	for (size_t k = 0; k < lt->n; k++)
		if ((double)lt->p99_ns[k] / 1e6 > top)
			top = (double)lt->p99_ns[k] / 1e6;
	fputs("<style>.s-lat50 rect,.s-lat50.swatch{fill:#1f77b4}.s-lat50 .line{stroke:#1f77b4}"
	      ".s-lat99 rect,.s-lat99.swatch{fill:#d62728}.s-lat99 .line{stroke:#d62728}"
	      ".m-dropped rect{fill:#9467bd}</style>\n",
	      out);
	fputs("<figure><figcaption>Submit to present latency over time (linked presents of the "
	      "content layer, per full 1 s window)</figcaption>\n",
	      out);
	svg_open(out, "chart-latency", "submit to present latency per second", 0);
	legend(out, it, 2);
	{
		struct scale sc = count_scale(top);

		y_axis(out, &sc, "latency (ms)");
		latency_line(out, lt, &sc, "s-lat50", false);
		latency_line(out, lt, &sc, "s-lat99", true);
	}
	points_axis(out, lt->n, lt->per, "full 1 s window (from the capture's first record)");
	fputs(SVG_CLOSE "</figure>\n", out);
	free(lt);
}

/* Calls never presented (the content layer's dropped calls) on the capture's time axis. */
static void chart_dropped_markers(FILE *out, const struct report_model *m)
{
	struct chart_dropped *dr = calloc(1, sizeof(*dr));
	const struct report_charts *c = m->charts;

	if (!dr || !display_content(m->disp)) {
		free(dr);
		return;
	}
	chart_dropped(c, m->disp, dr);
	fputs("<figure><figcaption>Dropped: calls of the linked surface never presented (for "
	      "certain: between two anchored rows)</figcaption>\n",
	      out);
	fprintf(out,
		"<svg id=\"chart-dropped\" class=\"chart\" role=\"img\" aria-label=\"dropped calls "
		"over time\" viewBox=\"0 0 %d 70\" preserveAspectRatio=\"xMinYMin meet\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<rect class=\"plot\" x=\"%d\" y=\"4\" width=\"%d\" height=\"12\"/>\n"
		"<text class=\"tick\" x=\"%d\" y=\"14\" text-anchor=\"end\">dropped (%" PRIu64
		")</text>\n<g class=\"m-dropped\">",
		SVG_W, PLOT_X, PLOT_W, PLOT_X - 4, dr->total);
	for (unsigned x = 0; x < REPORT_CHART_PX; x++)
		if (dr->px[x])
			fprintf(out,
				"<rect x=\"%u\" y=\"6\" width=\"2\" height=\"8\"><title>dropped at "
				"%.3f s: %" PRIu64 "</title></rect>",
				PLOT_X + x, (double)x * (double)c->span / 1e9 / REPORT_CHART_PX,
				dr->px[x]);
	fputs("</g>\n", out);
	t_axis(out, c, 16);
	fputs(SVG_CLOSE "</figure>\n", out);
	free(dr);
}

void report_html_compare_charts(FILE *out, const struct report_model *before,
				const struct report_model *after)
{
	fprintf(out, "<style>%s</style>\n", css);
	compare_fps_chart(out, before, after);
	compare_cdf_chart(out, before, after);
}

void report_render_html(const struct report_model *m, FILE *out)
{
	struct html_out h = {out, 0};
	struct report_emitter e = {&h, html_open, html_close, html_value, html_row};
	char verdict[200];
	const char *base = strrchr(m->run.path, '/');

	base = base ? base + 1 : m->run.path;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>"
	      "frameanalyze report: ",
	      out);
	report_put_html(out, base);
	fprintf(out, "</title>\n<style>\n%s</style></head><body>\n<h1>Frame pacing: ", css);
	report_put_html(out, base);
	fputs("</h1>\n<p class=\"verdict\" id=\"verdict\">", out);
	if (m->sub.fn.deltas)
		fprintf(out,
			"Submitted: %.3f FPS (main surface 0x%" PRIx64 " of pid %" PRIu32 "). ",
			m->sub.fn.mean_fps, m->main_surface, m->main_pid);
	report_fmt_tracker_verdict(m, verdict, sizeof(verdict));
	report_put_html(out, verdict);
	fputs(".</p>\n", out);
	cards(out, m);
	chart_presented(out, m);
	chart_latency_over_time(out, m);
	chart_dropped_markers(out, m);
	chart_frame_times(out, m);
	chart_fps(out, m);
	chart_distribution(out, m);
	score_table(out, m);
	report_emit(m, REPORT_VIEW_FULL, false, &e);
	/* no version, date or path: the page changes only when the capture or the code does */
	fputs("<p class=\"note\">frameanalyze report --html; analyzer/REPORT.md defines every "
	      "number.</p>\n</body></html>\n",
	      out);
}
