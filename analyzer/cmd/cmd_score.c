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
#include "tracker_kind.h"

#define MAX_TRACKERS 16

static const char score_help[] =
    "usage: frameanalyze score CAPTURE... [--tracker all|NAME,...] [--json] [--tick-ms N]\n"
    "                          [--from T] [--to T|+D]\n"
    "\n"
    "How right is each frame tracker? A capture holds every queueBuffer call, so what the\n"
    "app submitted needs no heuristic: the truth is the intervals between consecutive\n"
    "calls of the main surface (the one with the most calls) of the capture's main PID\n"
    "(the one with the most frames). Each tracker variant replays the capture and is\n"
    "scored on that PID against the truth:\n"
    "  FPS      mean FPS (frame times / their sum) and window FPS (frame times per\n"
    "           full 1 s window), each with its error (%); the mean absolute error per\n"
    "           window (FPS and %), the worst window\n"
    "  p50..99  frame-time percentile errors, estimate - truth (ms)\n"
    "  janks    PerfDog janks of the estimate vs the truth's, matched when their\n"
    "           intervals overlap in time: precision and recall\n"
    "  meter    the FPS meter fed by the variant, at every tick, vs the truth's calls in\n"
    "           the second before the tick: mean absolute error, and the time after a\n"
    "           change of the truth's rate (> 5 %) until the meter is within 5 %\n"
    "Per capture, then all captures pooled. Scoring is not pass/fail: exit 0.\n"
    "\n"
    "options:\n"
    "  --tracker LIST  all (default) or names separated by commas\n"
    "  --json          JSON for machines (schema: analyzer/REPORT.md)\n"
    "  --tick-ms N     meter period when a capture has no tick records (default 1000)\n"
    "                  (10..3600000 ms, as framerec --tick-ms)\n"
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

static void text_capture(FILE *out, const struct score_capture *cap, const struct score_result *r,
			 size_t n)
{
	char t[32], m[32];
	struct derived d;

	derive(&r[0], &d);
	fprintf(out, "capture ");
	cli_put_text(out, cap->path);
	fprintf(out, "%s\n", cap->truncated ? " (truncated: scored up to the damage)" : "");
	if (n && r[0].windowed)
		fprintf(out,
			"  window: %s .. %s s after the first record (replayed from the start)\n",
			secs3(t, sizeof(t), r[0].from_ns), secs3(m, sizeof(m), r[0].to_ns));
	if (!cap->has_frames) {
		fprintf(out, "  no frame records: nothing to score\n\n");
		return;
	}
	fprintf(out,
		"  truth: pid %" PRIu32 " (%" PRIu64 " of %" PRIu64
		" frames), main surface %#" PRIx64 " (%" PRIu64 " calls, %" PRIu64 " surface%s)\n",
		cap->pid, cap->pid_calls, cap->frames, cap->main_surface, cap->main_calls,
		cap->surfaces, cap->surfaces == 1 ? "" : "s");
	fprintf(out, "  submitted: mean %s FPS, window %s FPS (%" PRIu64 " full windows)\n",
		num(m, sizeof(m), r[0].truth_deltas > 0, d.truth_mean),
		num(t, sizeof(t), d.fps, d.truth_fps), r[0].windows);
	text_tables(out, r, n, false);
	fputc('\n', out);
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

static void json_capture(FILE *out, const struct score_capture *cap, const struct score_result *r,
			 size_t n, bool last)
{
	struct derived d;

	derive(&r[0], &d);
	fprintf(out, "    {\"path\": \"");
	cli_put_json_chars(out, cap->path);
	fprintf(out, "\", \"status\": \"%s\", ", cap->truncated ? "truncated" : "complete");
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
	fprintf(out, "    ]}%s\n", last ? "" : ",");
}

/* Score every capture into out, text or one JSON document. */
static int score_all(FILE *out, char **paths, size_t n_paths, const struct replay_options *ropt,
		     const char **names, size_t n, bool json)
{
	struct score_result agg[MAX_TRACKERS], res[MAX_TRACKERS];
	struct score_capture cap;
	char err[FRC_MSG_MAX];

	memset(agg, 0, sizeof(agg));
	if (json)
		fprintf(out, "{\n  \"frameanalyze_score\": 1,\n  \"captures\": [\n");
	else
		fprintf(out,
			"score: %zu capture%s; truth: the main surface of each capture's main PID "
			"(REPORT.md \"Score\")\n\n",
			n_paths, n_paths == 1 ? "" : "s");
	for (size_t c = 0; c < n_paths; c++) {
		struct replay_source src = {.path = paths[c]};

		int rc = score_capture(&src, ropt, names, n, &cap, res, err, sizeof(err));

		if (rc)
			return cli_replay_error("score", rc, err);
		if (cap.truncated)
			cli_error("score", "warning: %s: truncated; scored up to the damage",
				  paths[c]);
		for (size_t i = 0; i < n; i++)
			score_add(&agg[i], &res[i]);
		if (json)
			json_capture(out, &cap, res, n, c + 1 == n_paths);
		else
			text_capture(out, &cap, res, n);
	}
	if (json) {
		fprintf(out, "  ],\n  \"aggregate\": {\"captures\": %zu, \"trackers\": [\n",
			n_paths);
		for (size_t i = 0; i < n; i++)
			json_tracker(out, &agg[i], true, i + 1 == n);
		fprintf(out, "  ]}\n}\n");
	} else {
		fprintf(
		    out,
		    "all %zu captures pooled (p50/p95/p99: mean absolute error; worst's capture: "
		    "JSON)\n",
		    n_paths);
		text_tables(out, agg, n, true);
	}
	return EXIT_OK;
}

/*
 * Score into memory and print only when every capture was scored: a capture that cannot
 * be read half-way through the list leaves no half table and no broken JSON on stdout.
 */
static int score_to_stdout(char **paths, size_t n_paths, const struct replay_options *ropt,
			   const char **names, size_t n, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc;

	if (!out) {
		cli_error("score", "out of memory");
		return EXIT_INPUT;
	}
	rc = score_all(out, paths, n_paths, ropt, names, n, json);
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

/* --tracker all|NAME,...: the variants to score (not the shared one-variant option). */
static int on_option(void *ctx, int opt, const char *arg)
{
	const char **list = ctx;

	if (opt != 'T')
		return EXIT_USAGE;
	*list = arg;
	return 0;
}

int cmd_score(int argc, char **argv)
{
	static const struct option extra[] = {{"tracker", required_argument, NULL, 'T'}, {0}};
	const char *list = NULL;
	const struct cli_spec spec = {
	    .cmd = "score",
	    .help = score_help,
	    .takes = CLI_TICK | CLI_JSON | CLI_WINDOW,
	    .extra = extra,
	    .on_extra = on_option,
	    .ctx = &list,
	    .min_pos = 1,
	    .max_pos = -1,
	    .pos_usage = "expected at least one capture (CAPTURE...)",
	};
	const char *names[MAX_TRACKERS];
	char all[] = "all", *copy;
	struct cli_args a;
	size_t n = 0;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	copy = list ? strdup(list) : all;
	if (!copy) {
		cli_error("score", "out of memory");
		return EXIT_INPUT;
	}
	rc = parse_trackers(copy, names, &n);
	if (!rc)
		rc = score_to_stdout(a.pos, (size_t)a.n_pos, &a.ropt, names, n,
				     a.format == CLI_FORMAT_JSON);
	if (copy != all)
		free(copy);
	return rc;
}
