/* SPDX-License-Identifier: MIT */
/* score_cmd.c - `frameanalyze score`: options, the table and the JSON (REPORT.md "Score"). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "score.h"
#include "meter_kind.h"
#include "tracker_kind.h"

#define MAX_TRACKERS 16
#define MAX_METERS 8
/* per tracker: the replay's own meter (the tracker rows), then each --meter (the meters) */
#define MAX_LANES (MAX_TRACKERS * (1 + MAX_METERS))

static const char score_help[] =
    "usage: frameanalyze score CAPTURE... [--tracker all|NAME,...] [--meter all|NAME,...]\n"
    "                          [--json] [--tick-ms N [--synth-ticks]] [--from T] [--to T|+D]\n"
    "\n"
    "How right is each frame tracker? A capture holds every queueBuffer call, so what the\n"
    "app submitted needs no heuristic: the truth is the intervals between consecutive\n"
    "calls of the main surface (the one with the most calls) of the capture's main PID\n"
    "(the one with the most frames). A capture with SurfaceFlinger's presents linked to\n"
    "that surface has a better truth: what was displayed, the present-to-present frame\n"
    "times of its content layer (the truth line says which). Each tracker variant\n"
    "replays the capture and is scored on that PID against the truth:\n"
    "  FPS      mean FPS (frame times / their sum) and window FPS (frame times per\n"
    "           full 1 s window), each with its error (%); the mean absolute error per\n"
    "           window (FPS and %), the worst window\n"
    "  p50..99  frame-time percentile errors, estimate - truth (ms)\n"
    "  janks    PerfDog janks of the estimate vs the truth's, matched when their\n"
    "           intervals overlap in time: precision and recall\n"
    "  meter    the FPS meter fed by the variant, at every tick, vs the truth's frame\n"
    "           times in the second before the tick: mean absolute error; and settle:\n"
    "           after the truth's rate (its frame times of the last 0.5 s, the middle\n"
    "           half's mean) moved by > 5 % to a new rate, the time until the meter is\n"
    "           within 5 % of it\n"
    "  meters   each FPS meter variant fed by each tracker, against the same truth FPS at\n"
    "           each tick: MAE, settle time, the time to show a freeze (a truth interval\n"
    "           >= 0.5 s: the first tick reading below half the reading before it; late\n"
    "           when not at the first tick >= 250 ms after the last frame, unseen when no\n"
    "           tick is that late) and the readings above 0 at ticks with no submission\n"
    "           in the second before\n"
    "Per capture, then all captures pooled. Scoring is not pass/fail: exit 0.\n"
    "\n"
    "options:\n"
    "  --tracker LIST  all (default) or names separated by commas\n"
    "  --meter LIST    the meters graded: all (default) or names separated by commas\n"
    "  --json          JSON for machines (schema: analyzer/REPORT.md)\n"
    "  --tick-ms N     meter period when a capture has no tick records (default 1000)\n"
    "                  (10..3600000 ms, as framerec --tick-ms)\n"
    "  --synth-ticks   read the meters every --tick-ms on every capture, its recorded\n"
    "                  ticks ignored: the meters graded at one period (a meter lab's\n"
    "                  question; the live readings are then not what is graded)\n"
    "  --pid PID       the truth is that process's content (default: the target's,\n"
    "                  REPORT.md \"Ground truth\")\n"
    "  --surface 0xADDR   the truth is that surface's calls alone (with --pid: of it)\n"
    "  --from T, --to T   score only the records from T to T of each capture (seconds\n"
    "                  after its first record: 1.5, 2s, 1500ms; --to +D: D after\n"
    "                  --from); every variant still replays from the start\n"
    "\n"
    "exit: 0 scored, 1 a capture is corrupt or unreadable, 2 usage (also an unknown\n"
    "tracker name: the message lists the names).\n"
    "\n"
    "examples:\n"
    "  frameanalyze score build/fixtures/*.frc\n"
    "  frameanalyze score capture.frc --tracker kala,main-surface\n"
    "  frameanalyze score --json capture.frc | jq '.aggregate.trackers[].window_fps_mae_percent'\n";

/*
 * Parse "all" or "a,b,c" into names (pointing into the tracker table). Strict: an empty
 * name, a name given twice or "all" inside a list is a usage error, not a guess.
 */
static int parse_trackers(char *arg, const char **names, size_t *n)
{
	char list[256];

	*n = 0;
	if (!strcmp(arg, "all")) {
		for (size_t i = 0; i < tracker_kind_count(); i++)
			names[(*n)++] = tracker_kind_at(i)->name;
		return 0;
	}
	for (char *rest = arg, *tok; (tok = strsep(&rest, ",")) != NULL;) {
		const struct tracker_kind *k = tracker_kind_find(tok);

		if (!strcmp(tok, "all"))
			return cli_usage_error("score",
					       "--tracker: 'all' stands alone, not in a list");
		if (!k) {
			tracker_kind_names(list, sizeof(list));
			return cli_usage_error(
			    "score", "--tracker: unknown tracker '%s' (known: all, %s)", tok, list);
		}
		for (size_t i = 0; i < *n; i++)
			if (names[i] == k->name)
				return cli_usage_error("score", "--tracker: '%s' given twice", tok);
		if (*n == MAX_TRACKERS)
			return cli_usage_error("score", "more than %d trackers in --tracker",
					       MAX_TRACKERS);
		names[(*n)++] = k->name;
	}
	return 0;
}

/* Parse --meter "all" or "a,b": strict as parse_trackers. */
static int parse_meters(char *arg, const char **names, size_t *n)
{
	char list[256];

	*n = 0;
	if (!strcmp(arg, "all")) {
		for (size_t i = 0; i < meter_kind_count() && i < MAX_METERS; i++)
			names[(*n)++] = meter_kind_at(i)->name;
		return 0;
	}
	for (char *rest = arg, *tok; (tok = strsep(&rest, ",")) != NULL;) {
		const struct meter_kind *k = meter_kind_find(tok);

		if (!strcmp(tok, "all"))
			return cli_usage_error("score",
					       "--meter: 'all' stands alone, not in a list");
		if (!k) {
			meter_kind_names(list, sizeof(list));
			return cli_usage_error(
			    "score", "--meter: unknown meter '%s' (known: all, %s)", tok, list);
		}
		for (size_t i = 0; i < *n; i++)
			if (names[i] == k->name)
				return cli_usage_error("score", "--meter: '%s' given twice", tok);
		if (*n == MAX_METERS)
			return cli_usage_error("score", "more than %d meters in --meter",
					       MAX_METERS);
		names[(*n)++] = k->name;
	}
	return 0;
}

/* Numbers derived from the sums of a result, shared by the text and the JSON. */
struct derived {
	bool fps, mean, prec, rec, meter, settle;
	double truth_fps, est_fps, bias_pct, mae, mae_pct; /* window FPS (windows.h) */
	double truth_mean, est_mean, mean_pct;		   /* mean FPS (frame times) */
	double precision, recall;
	double meter_mae, meter_pct;
	double settle_mean_ms, settle_max_ms;
};

/* The mean FPS of n frame times summing to sum_ns (REPORT.md "Metric names"). */
static double mean_fps(uint64_t n, uint64_t sum_ns)
{
	return sum_ns ? (double)n * 1e9 / (double)sum_ns : 0;
}

static void derive(const struct score_result *r, struct derived *d)
{
	memset(d, 0, sizeof(*d));
	d->fps = r->windows > 0 && r->truth_frames > 0;
	if (d->fps) {
		double w = (double)r->windows, t = (double)r->truth_frames;

		d->truth_fps = t / w;
		d->est_fps = (double)r->est_frames / w;
		d->bias_pct = ((double)r->est_frames - t) * 100.0 / t;
		d->mae = (double)r->abs_err_frames / w;
		d->mae_pct = (double)r->abs_err_frames * 100.0 / t;
	}
	d->truth_mean = mean_fps(r->truth_deltas, r->truth_sum_ns);
	d->est_mean = mean_fps(r->est_deltas, r->est_sum_ns);
	d->mean = r->truth_deltas > 0 && r->est_deltas > 0;
	if (d->mean)
		d->mean_pct = (d->est_mean - d->truth_mean) * 100.0 / d->truth_mean;
	d->prec = r->est_janks > 0;
	d->precision = d->prec ? (double)r->est_matched / (double)r->est_janks : 0;
	d->rec = r->truth_janks > 0;
	d->recall = d->rec ? (double)r->truth_matched / (double)r->truth_janks : 0;
	d->meter = r->ticks > 0 && r->meter_truth_sum > 0;
	if (d->meter) {
		d->meter_mae = r->meter_abs_err / (double)r->ticks;
		d->meter_pct = r->meter_abs_err * 100.0 / r->meter_truth_sum;
	}
	d->settle = r->settled > 0;
	if (d->settle) {
		d->settle_mean_ms = (double)r->settle_sum_ns / (double)r->settled / 1e6;
		d->settle_max_ms = (double)r->settle_max_ns / 1e6;
	}
}

/* "%.3f" (every number has 3 decimals: REPORT.md "Metric names"), or "-" when undefined. */
static const char *num(char *buf, size_t len, bool ok, double v)
{
	if (!ok)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/*
 * The text table is two tables of at most 100 columns (REPORT.md "Score"), each row
 * starting with the tracker: FPS (mean and window, their errors, the worst window), then
 * frame times, janks and the meter.
 */
#define FPS_ROW "  %-13s %8s %8s %10s %8s %8s %8s %9s\n"
#define REST_ROW "  %-13s %23s %11s %8s %8s %s\n"

static void text_header(FILE *out, bool fps)
{
	if (fps)
		fprintf(out, FPS_ROW, "tracker", "mean FPS", "err%", "window FPS", "err%", "MAE",
			"MAE%", "worst");
	else
		fprintf(out, REST_ROW, "tracker", "p50/p95/p99 err ms", "jank P/R", "meter", "mtr%",
			"settle ms (changes, unsettled)");
}

static void text_fps_row(FILE *out, const struct score_result *r)
{
	char a[32], b[32], c[32], e[32], f[32], g[32], w[48];
	struct derived d;

	derive(r, &d);
	if (d.fps)
		snprintf(w, sizeof(w), "%+" PRId64 "@%.0fs", r->worst_signed, r->worst_at_s);
	else
		snprintf(w, sizeof(w), "-");
	fprintf(out, FPS_ROW, r->tracker, num(a, sizeof(a), r->est_deltas > 0, d.est_mean),
		num(b, sizeof(b), d.mean, d.mean_pct), num(c, sizeof(c), d.fps, d.est_fps),
		num(e, sizeof(e), d.fps, d.bias_pct), num(f, sizeof(f), d.fps, d.mae),
		num(g, sizeof(g), d.fps, d.mae_pct), w);
}

static void text_rest_row(FILE *out, const struct score_result *r, bool aggregate)
{
	char a[32], b[32], c[32], f[32], g[32], p[128], j[80], st[96];
	struct derived d;

	derive(r, &d);
	if (r->captures == 0)
		snprintf(p, sizeof(p), "-");
	else if (aggregate) /* mean of the captures' absolute errors */
		snprintf(p, sizeof(p), "|%.3f/%.3f/%.3f|", r->p_abs_err_ms[0] / (double)r->captures,
			 r->p_abs_err_ms[1] / (double)r->captures,
			 r->p_abs_err_ms[2] / (double)r->captures);
	else
		snprintf(p, sizeof(p), "%+.3f/%+.3f/%+.3f",
			 ((double)r->est_p[0] - (double)r->truth_p[0]) / 1e6,
			 ((double)r->est_p[1] - (double)r->truth_p[1]) / 1e6,
			 ((double)r->est_p[2] - (double)r->truth_p[2]) / 1e6);
	snprintf(j, sizeof(j), "%s/%s", num(a, sizeof(a), d.prec, d.precision),
		 num(b, sizeof(b), d.rec, d.recall));
	snprintf(st, sizeof(st), "%s (%" PRIu64 ", %" PRIu64 ")",
		 num(c, sizeof(c), d.settle, d.settle_mean_ms), r->changes, r->unsettled);
	fprintf(out, REST_ROW, r->tracker, p, j, num(f, sizeof(f), d.meter, d.meter_mae),
		num(g, sizeof(g), d.meter, d.meter_pct), st);
}

/* Both tables of the n results. */
static void text_tables(FILE *out, const struct score_result *r, size_t n, bool aggregate)
{
	text_header(out, true);
	for (size_t i = 0; i < n; i++)
		text_fps_row(out, &r[i]);
	text_header(out, false);
	for (size_t i = 0; i < n; i++)
		text_rest_row(out, &r[i], aggregate);
}

/* "S.mmm" of ns (truncated to the ms): a window's offsets. */
static const char *secs3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000000u, ns / 1000000u % 1000u);
	return buf;
}

/* The display truth's lines: which layer (its name on a line of its own: the app's text). */
static void text_display_truth(FILE *out, const struct score_capture *cap)
{
	fprintf(out,
		"  truth: display, content layer %" PRIu32 " (%" PRIu64
		" presents; REPORT.md \"Score\")\n",
		cap->content_id, cap->content_presents);
	fprintf(out, "  layer %" PRIu32 ": ", cap->content_id);
	/* no name: its FRC_LAYER record was before --from (the report's "(no name)" too) */
	cli_put_text(out, cap->content_layer[0] ? cap->content_layer : "(no name)");
	fputc('\n', out);
}

static void text_capture(FILE *out, const struct score_capture *cap, const struct score_result *r,
			 size_t n)
{
	char t[32], m[32];
	struct derived d;

	derive(&r[0], &d);
	fprintf(out, "capture ");
	cli_put_text(out, cap->path);
	if (cap->truncated)
		fprintf(out, cap->stats.status == FRC_STATUS_RECOVERED
				 ? " (recovered: every intact chunk scored)\n"
				 : " (truncated: scored up to the damage)\n");
	else
		fputc('\n', out);
	if (n && r[0].windowed)
		fprintf(out,
			"  window: %s .. %s s after the first record (replayed from the start)\n",
			secs3(t, sizeof(t), r[0].from_ns), secs3(m, sizeof(m), r[0].to_ns));
	if (!cap->has_frames) {
		fprintf(out, "  no frame records: nothing to score\n\n");
		return;
	}
	if (cap->display_truth)
		text_display_truth(out, cap);
	fprintf(out,
		"  %s: pid %" PRIu32 " (%" PRIu64 " of %" PRIu64 " frames), main surface %#" PRIx64
		" (%" PRIu64 " calls, %" PRIu64 " surface%s)\n",
		cap->display_truth ? "calls" : "truth", cap->pid, cap->pid_calls, cap->frames,
		cap->main_surface, cap->main_calls, cap->surfaces, cap->surfaces == 1 ? "" : "s");
	if (cap->has_presents && !cap->display_truth)
		fprintf(out, "  presents: none linked to the main surface: the truth is the "
			     "submissions\n");
	fprintf(out, "  %s: mean %s FPS, window %s FPS (%" PRIu64 " full windows)\n",
		cap->display_truth ? "presented" : "submitted",
		num(m, sizeof(m), r[0].truth_deltas > 0, d.truth_mean),
		num(t, sizeof(t), d.fps, d.truth_fps), r[0].windows);
	if (cap->display_truth)
		fprintf(out, "  submitted: window %s FPS (not the truth here)\n",
			num(t, sizeof(t), cap->subm_windows > 0,
			    cap->subm_windows ? (double)cap->subm_frames / (double)cap->subm_windows
					      : 0));
	text_tables(out, r, n, false);
}

static void json_num(FILE *out, const char *key, bool ok, double v, bool comma)
{
	if (ok)
		fprintf(out, "\"%s\": %.3f%s", key, v, comma ? ", " : "");
	else
		fprintf(out, "\"%s\": null%s", key, comma ? ", " : "");
}

static void json_worst(FILE *out, const struct score_result *r, const struct derived *d,
		       bool aggregate)
{
	if (d->fps && aggregate) {
		fprintf(out, "\"worst_window\": {\"path\": \"");
		cli_put_json_chars(out, r->worst_path ? r->worst_path : "");
		fprintf(out, "\", \"start_s\": %.0f, \"error_fps\": %" PRId64 "}, ", r->worst_at_s,
			r->worst_signed);
	} else if (d->fps) {
		fprintf(out, "\"worst_window\": {\"start_s\": %.0f, \"error_fps\": %" PRId64 "}, ",
			r->worst_at_s, r->worst_signed);
	} else
		fprintf(out, "\"worst_window\": null, ");
}

static void json_tracker(FILE *out, const struct score_result *r, bool aggregate, bool last)
{
	struct derived d;
	static const char *pk[2][3] = {
	    {"p50_error_ms", "p95_error_ms", "p99_error_ms"},
	    {"p50_abs_error_ms", "p95_abs_error_ms", "p99_abs_error_ms"}};

	derive(r, &d);
	fprintf(out, "      {\"name\": \"%s\", \"full_windows\": %" PRIu64 ", ", r->tracker,
		r->windows);
	json_num(out, "mean_fps", r->est_deltas > 0, d.est_mean, true);
	json_num(out, "mean_fps_error_percent", d.mean, d.mean_pct, true);
	json_num(out, "window_fps", d.fps, d.est_fps, true);
	json_num(out, "window_fps_error_percent", d.fps, d.bias_pct, true);
	json_num(out, "window_fps_mae", d.fps, d.mae, true);
	json_num(out, "window_fps_mae_percent", d.fps, d.mae_pct, true);
	json_worst(out, r, &d, aggregate);
	for (int i = 0; i < 3; i++)
		json_num(out, pk[aggregate][i], r->captures > 0,
			 aggregate ? r->p_abs_err_ms[i] / (double)r->captures
				   : ((double)r->est_p[i] - (double)r->truth_p[i]) / 1e6,
			 true);
	fprintf(out, "\"truth_janks\": %" PRIu64 ", \"janks\": %" PRIu64 ", ", r->truth_janks,
		r->est_janks);
	json_num(out, "jank_precision", d.prec, d.precision, true);
	json_num(out, "jank_recall", d.rec, d.recall, true);
	fprintf(out, "\"jank_list_truncated\": %s, ", r->janks_truncated ? "true" : "false");
	fprintf(out, "\"meter_ticks\": %" PRIu64 ", \"meter_none\": %" PRIu64 ", ", r->ticks,
		r->ticks_none);
	json_num(out, "meter_mae", d.meter, d.meter_mae, true);
	json_num(out, "meter_mae_percent", d.meter, d.meter_pct, true);
	fprintf(out,
		"\"rate_changes\": %" PRIu64 ", \"settled\": %" PRIu64 ", \"unsettled\": %" PRIu64
		", ",
		r->changes, r->settled, r->unsettled);
	json_num(out, "settle_mean_ms", d.settle, d.settle_mean_ms, true);
	json_num(out, "settle_max_ms", d.settle, d.settle_max_ms, false);
	fprintf(out, "}%s\n", last ? "" : ",");
}

/* "window": the scored window's offsets in s, or null: the whole capture. */
static void json_window(FILE *out, const struct score_result *r)
{
	char a[32], b[32];

	if (!r || !r->windowed)
		fprintf(out, "\"window\": null, ");
	else
		fprintf(out, "\"window\": {\"from_s\": %s, \"to_s\": %s}, ",
			secs3(a, sizeof(a), r->from_ns), secs3(b, sizeof(b), r->to_ns));
}

/* ------------------------------------------------------------ meters (issue 21) */

/*
 * The variants scored: trackers and meters, and the lanes they make: for tracker t, lane
 * t * (1 + n_m) replays the replay's own meter (the tracker rows, as before meters were
 * graded), lane t * (1 + n_m) + 1 + m the meter m.
 */
struct score_set {
	const char *trackers[MAX_TRACKERS], *meters[MAX_METERS];
	size_t n_t, n_m, n;
	const char *lane_t[MAX_LANES], *lane_m[MAX_LANES];
};

static void set_lanes(struct score_set *ss)
{
	ss->n = 0;
	for (size_t t = 0; t < ss->n_t; t++)
		for (size_t m = 0; m <= ss->n_m; m++) {
			ss->lane_t[ss->n] = ss->trackers[t];
			ss->lane_m[ss->n++] = m ? ss->meters[m - 1] : NULL;
		}
}

static const struct score_result *meter_row(const struct score_set *ss,
					    const struct score_result *r, size_t m, size_t t)
{
	return &r[t * (1 + ss->n_m) + 1 + m];
}

/* The tracker rows of r, in tracker order (the tables as before meters were graded). */
static void gather(const struct score_set *ss, const struct score_result *r,
		   struct score_result *rows)
{
	for (size_t t = 0; t < ss->n_t; t++)
		rows[t] = r[t * (1 + ss->n_m)];
}

/* A meter's freezes shown, in ms (the other numbers: derive). */
struct meter_derived {
	bool show;
	double show_mean_ms, show_max_ms;
};

static void derive_meter(const struct score_result *r, struct meter_derived *d)
{
	d->show = r->freezes_shown > 0;
	d->show_mean_ms =
	    d->show ? (double)r->freeze_show_sum_ns / (double)r->freezes_shown / 1e6 : 0;
	d->show_max_ms = d->show ? (double)r->freeze_show_max_ns / 1e6 : 0;
}

/* A meter row of table 1 (error, settle) or 2 (freezes, idle readings). */
static void meter_text_row(FILE *out, const struct score_result *r, int table)
{
	char a[32], b[32], c[32], e[32], col[80];
	struct derived d;
	struct meter_derived md;

	derive(r, &d);
	derive_meter(r, &md);
	fprintf(out, "  %-15s %-13s ", r->meter ? r->meter : "-", r->tracker);
	if (table == 1) {
		snprintf(col, sizeof(col), "%s/%s (%" PRIu64 ", %" PRIu64 ")",
			 num(a, sizeof(a), d.settle, d.settle_mean_ms),
			 num(c, sizeof(c), d.settle, d.settle_max_ms), r->changes, r->unsettled);
		fprintf(out, "%8s %7s %s\n", num(b, sizeof(b), d.meter, d.meter_mae),
			num(e, sizeof(e), d.meter, d.meter_pct), col);
		return;
	}
	snprintf(col, sizeof(col), "%s/%s (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
		 num(b, sizeof(b), md.show, md.show_mean_ms),
		 num(c, sizeof(c), md.show, md.show_max_ms), r->freezes, r->freezes_missed,
		 r->freezes_late, r->freezes_unseen);
	fprintf(out, "%-40s %" PRIu64 "/%" PRIu64 "\n", col, r->idle_shown, r->idle_ticks);
}

/* The meters in two tables, as the trackers' (score's text stays within 100 columns). */
static void meter_text(FILE *out, const struct score_set *ss, const struct score_result *r)
{
	if (!ss->n_m)
		return;
	for (int table = 1; table <= 2; table++) {
		if (table == 1)
			fprintf(out, "  %-15s %-13s %8s %7s %s\n", "meter", "tracker", "MAE",
				"MAE%", "settle ms mean/max (changes, unsettled)");
		else
			fprintf(out, "  %-15s %-13s %-40s %s\n", "meter", "tracker",
				"freeze ms mean/max (n, miss, late, unseen)", "idle shown/ticks");
		for (size_t m = 0; m < ss->n_m; m++)
			for (size_t t = 0; t < ss->n_t; t++)
				meter_text_row(out, meter_row(ss, r, m, t), table);
	}
}

static void meter_json_row(FILE *out, const struct score_result *r, bool last)
{
	struct derived d;
	struct meter_derived md;

	derive(r, &d);
	derive_meter(r, &md);
	fprintf(out,
		"      {\"meter\": \"%s\", \"tracker\": \"%s\", \"meter_ticks\": %" PRIu64
		", \"meter_none\": %" PRIu64 ", ",
		r->meter ? r->meter : "", r->tracker, r->ticks, r->ticks_none);
	json_num(out, "meter_mae", d.meter, d.meter_mae, true);
	json_num(out, "meter_mae_percent", d.meter, d.meter_pct, true);
	fprintf(out, "\"rate_changes\": %" PRIu64 ", \"unsettled\": %" PRIu64 ", ", r->changes,
		r->unsettled);
	json_num(out, "settle_mean_ms", d.settle, d.settle_mean_ms, true);
	json_num(out, "settle_max_ms", d.settle, d.settle_max_ms, true);
	fprintf(
	    out,
	    "\"freezes\": %" PRIu64 ", \"freezes_shown\": %" PRIu64 ", \"freezes_missed\": %" PRIu64
	    ", \"freezes_late\": %" PRIu64 ", \"freezes_unseen\": %" PRIu64 ", ",
	    r->freezes, r->freezes_shown, r->freezes_missed, r->freezes_late, r->freezes_unseen);
	json_num(out, "freeze_show_mean_ms", md.show, md.show_mean_ms, true);
	json_num(out, "freeze_show_max_ms", md.show, md.show_max_ms, true);
	fprintf(out, "\"idle_ticks\": %" PRIu64 ", \"idle_shown\": %" PRIu64 "}%s\n", r->idle_ticks,
		r->idle_shown, last ? "" : ",");
}

/* The "meters" array (after a "trackers" array: its comma first). */
static void meter_json(FILE *out, const struct score_set *ss, const struct score_result *r,
		       const char *indent)
{
	fprintf(out, ",\n%s\"meters\": [\n", indent);
	for (size_t m = 0; m < ss->n_m; m++)
		for (size_t t = 0; t < ss->n_t; t++)
			meter_json_row(out, meter_row(ss, r, m, t),
				       m + 1 == ss->n_m && t + 1 == ss->n_t);
	fprintf(out, "%s]", indent);
}

/* "truth" and its content layer (null: the submissions), the submissions' window FPS. */
static void json_truth(FILE *out, const struct score_capture *cap)
{
	fprintf(out, "\"truth\": \"%s\", ", cap->display_truth ? "display" : "submissions");
	if (cap->display_truth) {
		fprintf(out, "\"content_layer\": {\"id\": %" PRIu32 ", \"name\": \"",
			cap->content_id);
		cli_put_json_chars(out, cap->content_layer);
		fprintf(out, "\", \"presents\": %" PRIu64 "}, ", cap->content_presents);
	} else
		fprintf(out, "\"content_layer\": null, ");
	json_num(out, "submitted_window_fps", cap->subm_windows > 0 && cap->subm_frames > 0,
		 cap->subm_windows ? (double)cap->subm_frames / (double)cap->subm_windows : 0,
		 true);
}

static void json_capture(FILE *out, const struct score_capture *cap, const struct score_result *r,
			 size_t n, bool last, const struct score_set *ss,
			 const struct score_result *all)
{
	struct derived d;

	derive(&r[0], &d);
	fprintf(out, "    {\"path\": \"");
	cli_put_json_chars(out, cap->path);
	fprintf(out, "\", \"status\": \"%s\", ",
		!cap->truncated				    ? "complete"
		: cap->stats.status == FRC_STATUS_RECOVERED ? "recovered"
							    : "truncated");
	json_truth(out, cap);
	json_window(out, n ? &r[0] : NULL);
	if (cap->has_frames)
		fprintf(out,
			"\"pid\": %" PRIu32 ", \"pid_frames\": %" PRIu64 ", \"frames\": %" PRIu64
			", \"surfaces\": %" PRIu64 ", \"main_surface\": \"%#" PRIx64
			"\", \"main_surface_frames\": %" PRIu64 ", ",
			cap->pid, cap->pid_calls, cap->frames, cap->surfaces, cap->main_surface,
			cap->main_calls);
	else
		fprintf(out, "\"pid\": null, \"frames\": 0, ");
	fprintf(out, "\"full_windows\": %" PRIu64 ", ", n ? r[0].windows : 0);
	json_num(out, "truth_mean_fps", n && r[0].truth_deltas, d.truth_mean, true);
	json_num(out, "truth_window_fps", n && d.fps, d.truth_fps, true);
	for (int i = 0; i < 3; i++) {
		static const char *k[3] = {"truth_p50_ms", "truth_p95_ms", "truth_p99_ms"};

		json_num(out, k[i], n && r[0].truth_deltas, n ? (double)r[0].truth_p[i] / 1e6 : 0,
			 true);
	}
	fprintf(out, "\"truth_janks\": %" PRIu64 ",\n     \"trackers\": [\n",
		n ? r[0].truth_janks : 0);
	for (size_t i = 0; i < n; i++)
		json_tracker(out, &r[i], false, i + 1 == n);
	fprintf(out, "     ]");
	meter_json(out, ss, all, "     ");
	fprintf(out, "}%s\n", last ? "" : ",");
}

/* Score every capture into out (its section of the text or the JSON), pooling into agg. */
static int score_captures(FILE *out, char **paths, size_t n_paths,
			  const struct replay_options *ropt, const struct score_set *ss, bool json,
			  struct score_result *agg, size_t *n_display)
{
	static struct score_result res[MAX_LANES], rows[MAX_TRACKERS];
	struct score_capture cap;
	char err[FRC_MSG_MAX];

	*n_display = 0;
	for (size_t c = 0; c < n_paths; c++) {
		struct replay_source src = {.path = paths[c]};

		int rc = score_capture_meters(&src, ropt, ss->lane_t, ss->lane_m, ss->n, &cap, res,
					      err, sizeof(err));

		if (rc)
			return cli_replay_error("score", rc, err);
		if (cap.truncated)
			(void)cli_warn_damage("score", paths[c], &cap.stats, "scored", false);
		*n_display += cap.display_truth;
		for (size_t i = 0; i < ss->n; i++)
			score_add(&agg[i], &res[i]);
		gather(ss, res, rows);
		if (json) {
			json_capture(out, &cap, rows, ss->n_t, c + 1 == n_paths, ss, res);
		} else {
			text_capture(out, &cap, rows, ss->n_t);
			meter_text(out, ss, res);
			fputc('\n', out);
		}
	}
	return EXIT_OK;
}

/*
 * The text's first line: the truth rule. Only a set with a display truth says more (the
 * line of a set without presents stays as it was).
 */
static void text_head(FILE *out, size_t n_paths, size_t n_display)
{
	fprintf(out, "score: %zu capture%s; truth: ", n_paths, n_paths == 1 ? "" : "s");
	if (n_display)
		fprintf(out, "what was displayed (the content layer) where a capture has presents, "
			     "else\n  the main surface of the capture's main PID (REPORT.md "
			     "\"Score\")\n\n");
	else
		fprintf(out,
			"the main surface of each capture's main PID (REPORT.md \"Score\")\n\n");
}

/* The pooled part: each capture's own truth, pooled, and how many of each. */
static void score_pooled(FILE *out, size_t n_paths, const struct score_set *ss, bool json,
			 const struct score_result *agg, size_t n_display)
{
	static struct score_result rows[MAX_TRACKERS];
	size_t n = ss->n_t;

	gather(ss, agg, rows);
	if (json) {
		fprintf(out,
			"  ],\n  \"aggregate\": {\"captures\": %zu, \"truth_display\": %zu, "
			"\"truth_submissions\": %zu, \"trackers\": [\n",
			n_paths, n_display, n_paths - n_display);
		for (size_t i = 0; i < n; i++)
			json_tracker(out, &rows[i], true, i + 1 == n);
		fprintf(out, "  ]");
		meter_json(out, ss, agg, "  ");
		fprintf(out, "}\n}\n");
		return;
	}
	if (n_display)
		fprintf(
		    out,
		    "all %zu captures pooled, each against its truth: %zu display, %zu "
		    "submissions\n  (p50/p95/p99: mean absolute error; worst's capture: JSON)\n",
		    n_paths, n_display, n_paths - n_display);
	else
		fprintf(out,
			"all %zu captures pooled (p50/p95/p99: mean absolute error; worst's "
			"capture: JSON)\n",
			n_paths);
	text_tables(out, rows, n, true);
	meter_text(out, ss, agg);
}

/*
 * Score every capture into out, text or one JSON document. The captures' sections go to
 * memory first: the text's first line says which truths the set used.
 */
static int score_all(FILE *out, char **paths, size_t n_paths, const struct replay_options *ropt,
		     const struct score_set *ss, bool json)
{
	static struct score_result agg[MAX_LANES];
	char *body = NULL;
	size_t len = 0, n_display = 0;
	FILE *b = open_memstream(&body, &len);
	int rc;

	if (!b) {
		cli_error("score", "out of memory");
		return EXIT_INPUT;
	}
	memset(agg, 0, sizeof(agg));
	rc = score_captures(b, paths, n_paths, ropt, ss, json, agg, &n_display);
	if (fclose(b) != 0 && rc == EXIT_OK) {
		cli_error("score", "out of memory");
		rc = EXIT_INPUT;
	}
	if (rc == EXIT_OK) {
		if (json)
			fprintf(out, "{\n  \"frameanalyze_score\": 1,\n  \"captures\": [\n");
		else
			text_head(out, n_paths, n_display);
		fwrite(body, 1, len, out);
		score_pooled(out, n_paths, ss, json, agg, n_display);
	}
	free(body);
	return rc;
}

/*
 * Score into memory and print only when every capture was scored: a capture that cannot
 * be read half-way through the list leaves no half table and no broken JSON on stdout.
 */
static int score_to_stdout(char **paths, size_t n_paths, const struct replay_options *ropt,
			   const struct score_set *ss, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc;

	if (!out) {
		cli_error("score", "out of memory");
		return EXIT_INPUT;
	}
	rc = score_all(out, paths, n_paths, ropt, ss, json);
	if (fclose(out) != 0 && rc == EXIT_OK) {
		cli_error("score", "out of memory");
		rc = EXIT_INPUT;
	}
	if (rc == EXIT_OK && (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)) {
		cli_error("score", "writing stdout: %s", strerror(errno));
		rc = EXIT_INPUT;
	}
	free(text);
	return rc;
}

/* --tracker and --meter all|NAME,...: the variants to score (not the one-variant options). */
/* score's own options: the two lists, --synth-ticks */
struct score_opts {
	const char *list[2];
	bool synth_ticks;
};

static int on_option(void *ctx, int opt, const char *arg)
{
	struct score_opts *so = ctx;

	if (opt == 'S') {
		so->synth_ticks = true;
		return 0;
	}
	if (opt != 'T' && opt != 'M')
		return EXIT_USAGE;
	so->list[opt == 'M'] = arg;
	return 0;
}

/* The variants the two lists name (NULL: all); 0 or the usage error. */
static int parse_set(const char *const *list, struct score_set *ss)
{
	char *copy[2] = {NULL, NULL};
	int rc = 0;

	for (int i = 0; i < 2; i++)
		if (!(copy[i] = strdup(list[i] ? list[i] : "all"))) {
			cli_error("score", "out of memory");
			rc = EXIT_INPUT;
		}
	if (!rc)
		rc = parse_trackers(copy[0], ss->trackers, &ss->n_t);
	if (!rc)
		rc = parse_meters(copy[1], ss->meters, &ss->n_m);
	free(copy[0]);
	free(copy[1]);
	set_lanes(ss);
	return rc;
}

int cmd_score(int argc, char **argv)
{
	static const struct option extra[] = {{"tracker", required_argument, NULL, 'T'},
					      {"meter", required_argument, NULL, 'M'},
					      {"synth-ticks", no_argument, NULL, 'S'},
					      {0}};
	struct score_opts so = {{NULL, NULL}, false};
	const struct cli_spec spec = {
	    .cmd = "score",
	    .help = score_help,
	    .takes = CLI_TICK | CLI_JSON | CLI_WINDOW | CLI_TRUTH,
	    .extra = extra,
	    .on_extra = on_option,
	    .ctx = &so,
	    .min_pos = 1,
	    .max_pos = -1,
	    .pos_usage = "expected at least one capture (CAPTURE...)",
	};
	static struct score_set ss;
	struct cli_args a;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	a.ropt.synth_ticks = so.synth_ticks;
	rc = parse_set(so.list, &ss);
	if (!rc)
		rc = score_to_stdout(a.pos, (size_t)a.n_pos, &a.ropt, &ss,
				     a.format == CLI_FORMAT_JSON);
	return rc;
}
