/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - `frameanalyze compare BEFORE.frc AFTER.frc`: two captures' key metrics
 * side by side and `--fail-if GATE`, so a CI job can guard frame pacing between two builds
 * (report/compare.h does the work; analyzer/REPORT.md "Compare"); and `frameanalyze compare
 * --meter A --meter B CAPTURE`: one capture replayed with two meters (or trackers), what a
 * meter change does (report/compare_variants.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "compare_variants.h"

static const char compare_help[] =
    "usage: frameanalyze compare BEFORE.frc AFTER.frc [--json | --html] [-o FILE [--force]]\n"
    "                            [--fail-if GATE]... [--tracker NAME] [--meter NAME]\n"
    "                            [--tick-ms N] [--strict] [--from T] [--to T|+D]\n"
    "       frameanalyze compare --meter A --meter B CAPTURE.frc [--tracker NAME]\n"
    "       frameanalyze compare --tracker A --tracker B CAPTURE.frc [--meter NAME]\n"
    "                            (the same output, gate, window and tick options)\n"
    "\n"
    "Put two captures' key metrics side by side (before, after, change, change %):\n"
    "  submitted_fps    mean FPS of the main surface (intervals / their sum)\n"
    "  low_1pct_fps     1 % low of the submissions (GameBench)\n"
    "  p50_ms, p90_ms, p95_ms, p99_ms, max_ms   submission interval percentiles, max\n"
    "  janks_per_min, big_janks_per_min   PerfDog (big) janks of the submissions per\n"
    "                   minute of intervals\n"
    "  stutter_percent  PerfDog stutter of the submissions\n"
    "  median_fps, stability_percent   GameBench: median per-second FPS, share of seconds\n"
    "                   within +-10 % of it\n"
    "  tracker_fps      the tracker's mean FPS (deltas / their sum)\n"
    "  meter_fps        the FPS meter's mean reading, all sources\n"
    "  loss_percent     reservation failures / (frames + failures)\n"
    "\n"
    "One capture with two --meter (or two --tracker, or both): replay it once with each\n"
    "variant, A (the first) and B (the second; a name given once is both's), and show\n"
    "what the change does: each one's readings (by source, mean, min..max), the ticks\n"
    "whose readings differ (the largest differences, the time with another source) and\n"
    "each one's error against score's truth (the display when the capture has presents,\n"
    "else the submissions), graded as `score` grades meters.\n"
    "Its gates: METRIC[.after|.delta|.pct] (after = B, delta = B - A, pct = of A) for\n"
    "  meter_fps, meter_none, meter_mae, meter_mae_percent, settle_mean_ms,\n"
    "  settle_max_ms, unsettled, freeze_show_mean_ms, freeze_show_max_ms,\n"
    "  freezes_missed, freezes_late, idle_shown; and METRIC alone for the pair's numbers:\n"
    "  ticks_differ, source_differ_ticks, source_differ_ms, max_diff_fps.\n"
    "\n"
    "options:\n"
    "  --json, --html  JSON or a self-contained HTML page instead of text\n"
    "  -o FILE         write to FILE (whole or not at all; never a capture) instead of\n"
    "                  stdout; --force replaces an existing FILE\n"
    "  --fail-if GATE  exit 1 when GATE holds; repeatable. GATE is\n"
    "                  METRIC[.after|.delta|.pct]OP NUMBER with OP one of > >= < <=:\n"
    "                  .after = the AFTER value, .delta = after - before (the default),\n"
    "                  .pct = the change in % of before. A gate on a value that does not\n"
    "                  exist (no frames in AFTER, a BEFORE of 0 for .pct) fails: a\n"
    "                  broken recording cannot pass. Spaces around OP are allowed\n"
    "                  ('p99_ms.delta > 2').\n"
    "  --strict        a truncated capture fails (exit 1) instead of a warning\n"
    "  --tracker NAME  the tracker variant replayed for both captures; twice with one\n"
    "                  capture: the two variants\n"
    "  --meter NAME    the FPS meter variant replayed for both captures (default: each\n"
    "                  capture's recorded one, else auriya-10fe7c6); twice with one\n"
    "                  capture: the two variants (twice with two captures: refused)\n"
    "  --tick-ms N     read the meter every N ms when a capture has no tick records\n"
    "                  (10..3600000 ms, as framerec --tick-ms)\n"
    "  --pid PID       the truth is that process's content (default: the target's,\n"
    "                  REPORT.md \"Ground truth\")\n"
    "  --surface 0xADDR   the truth is that surface's calls alone (with --pid: of it)\n"
    "  --from T, --to T   compare the same window of both captures (seconds after each\n"
    "                  one's first record: 1.5, 2s, 1500ms; --to +D: D after --from)\n"
    "\n"
    "A truncated capture and two captures replayed with different trackers (each its\n"
    "recorded one, without --tracker) are warned about on stderr.\n"
    "\n"
    "exit: 0 every gate passed, 1 a gate tripped or had no data, a capture is corrupt or\n"
    "unreadable, or truncated with --strict; 2 usage (an unknown metric or a malformed gate\n"
    "too).\n"
    "\n"
    "examples:\n"
    "  frameanalyze compare before.frc after.frc\n"
    "  frameanalyze compare before.frc after.frc --fail-if 'submitted_fps.pct<-5' \\\n"
    "      --fail-if 'p99_ms.delta>2' --fail-if 'janks_per_min.after>1'\n"
    "  frameanalyze compare --html before.frc after.frc -o compare.html\n"
    "  frameanalyze compare --meter auriya-10fe7c6 --meter auriya-ccafd78 game.frc \\\n"
    "      --fail-if 'meter_mae.delta>1'\n";

/*
 * compare's own options: the gates (parsed once the mode is known: the two modes gate
 * different metrics), and up to two meters and two trackers (two: the one-capture mode).
 */
struct compare_opts {
	const char *gate[COMPARE_MAX_GATES];
	size_t n_gates;
	const char *meter[2], *tracker[2];
	size_t n_meter, n_tracker;
};

/* --meter NAME or --tracker NAME, at most twice each; 0 or the usage error. */
static int on_variant(const char *opt, const char *arg, const char **names, size_t *n)
{
	const char *v;
	int rc = opt[2] == 'm' ? cli_parse_meter("compare", arg, &v)
			       : cli_parse_tracker("compare", arg, &v);

	if (rc)
		return rc;
	if (*n == 2)
		return cli_usage_error("compare",
				       "%s given three times: two compare two variants of one "
				       "capture, one replays both captures",
				       opt);
	names[(*n)++] = v;
	return 0;
}

/* --fail-if GATE: one more gate; --meter NAME; --tracker NAME. 0 or the usage error. */
static int on_option(void *ctx, int opt, const char *arg)
{
	struct compare_opts *o = ctx;

	if (opt == 'm')
		return on_variant("--meter", arg, o->meter, &o->n_meter);
	if (opt == 't')
		return on_variant("--tracker", arg, o->tracker, &o->n_tracker);
	if (opt != 'f')
		return EXIT_USAGE;
	if (o->n_gates == COMPARE_MAX_GATES)
		return cli_usage_error("compare", "more than %d --fail-if gates",
				       COMPARE_MAX_GATES);
	o->gate[o->n_gates++] = arg;
	return 0;
}

/* The gates for the mode (variants: the one-capture metrics) into gates. 0 or usage. */
static int parse_gates(const struct compare_opts *o, bool variants, struct compare_gate *gates)
{
	char why[768];

	for (size_t i = 0; i < o->n_gates; i++) {
		int rc = variants
			     ? compare_variants_parse_gate(o->gate[i], &gates[i], why, sizeof(why))
			     : compare_parse_gate(o->gate[i], &gates[i], why, sizeof(why));

		if (rc)
			return cli_usage_error("compare",
					       "--fail-if '%s': %s; a gate is "
					       "METRIC[.after|.delta|.pct]OP NUMBER",
					       o->gate[i], why);
	}
	return 0;
}

/* Either comparison (vc: the one-capture one, else c) in its format, to -o FILE or stdout. */
static int write_comparison(const struct comparison *c, const struct variant_comparison *vc,
			    const struct cli_args *a)
{
	struct cli_output o = {.f = stdout};
	int rc;

	if (a->output &&
	    (rc = cli_output_open("compare", a->output, a->force, a->pos, (size_t)a->n_pos, &o)))
		return rc;
	if (vc && a->format == CLI_FORMAT_JSON)
		compare_variants_json(vc, o.f);
	else if (vc && a->format == CLI_FORMAT_HTML)
		compare_variants_html(vc, o.f);
	else if (vc)
		compare_variants_text(vc, o.f);
	else if (a->format == CLI_FORMAT_JSON)
		compare_render_json(c, o.f);
	else if (a->format == CLI_FORMAT_HTML)
		compare_render_html(c, o.f);
	else
		compare_render_text(c, o.f);
	if (a->output)
		return cli_output_close("compare", &o, true);
	if (fflush(stdout) != 0) {
		cli_error("compare", "writing stdout: %s", strerror(errno));
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* A truncated capture: a warning, EXIT_INPUT under --strict. */
/* Warnings about what is compared; EXIT_INPUT when --strict makes a truncation fatal. */
static int warn_inputs(const struct comparison *c, bool strict)
{
	const struct report_model *m[2] = {c->before, c->after};
	const char *path[2] = {c->before_path, c->after_path};
	int rc = EXIT_OK;

	for (int i = 0; i < 2; i++)
		if (cli_warn_damage("compare", path[i], &m[i]->run.stats, "compared", strict))
			rc = EXIT_INPUT;
	if (strcmp(m[0]->tracker, m[1]->tracker))
		cli_error(
		    "compare",
		    "warning: the captures were replayed with different trackers (%s -> %s, "
		    "each its recorded one): tracker_fps and meter_fps compare two heuristics; "
		    "--tracker NAME replays both with one",
		    m[0]->tracker, m[1]->tracker);
	return rc;
}

/* Each gate that failed, on stderr; where: the capture it lacks data in. */
static void say_failed_gates(const struct compare_gate *gates, size_t n, const char *before,
			     const char *after)
{
	for (size_t i = 0; i < n; i++) {
		const struct compare_gate *g = &gates[i];

		if (g->state == GATE_TRIPPED)
			cli_error("compare", "gate tripped: %s", g->text);
		else if (g->state == GATE_NO_DATA)
			cli_error("compare", "gate '%s' failed: %s (%s)", g->text, g->why,
				  strstr(g->why, "BEFORE") ? before : after);
	}
}

/* A capture's model; with the charts only for the page, which draws them. */
static int build(const char *path, const struct cli_args *a, struct report_model **m, char *err,
		 size_t errlen)
{
	if (a->format == CLI_FORMAT_HTML)
		return report_model_build_charted(path, &a->ropt, m, err, errlen);
	return report_model_build(path, &a->ropt, NULL, 0, m, err, errlen);
}

/* compare BEFORE AFTER: both replayed with one tracker and one meter. */
static int compare_captures(const struct compare_opts *o, struct cli_args *args)
{
	struct comparison c = {.n_gates = o->n_gates};
	struct report_model *b = NULL, *a = NULL;
	char err[FRC_MSG_MAX];
	size_t failed;
	int rc;

	if (o->n_meter == 2 || o->n_tracker == 2)
		return cli_usage_error(
		    "compare",
		    "%s given twice with two captures: two %ss compare two variants of "
		    "ONE capture (compare %s A %s B CAPTURE); BEFORE and AFTER are "
		    "replayed with one",
		    o->n_meter == 2 ? "--meter" : "--tracker",
		    o->n_meter == 2 ? "meter" : "tracker",
		    o->n_meter == 2 ? "--meter" : "--tracker",
		    o->n_meter == 2 ? "--meter" : "--tracker");
	if ((rc = parse_gates(o, false, c.gates)))
		return rc;
	args->ropt.meter_name = o->n_meter ? o->meter[0] : NULL;
	args->ropt.tracker_name = o->n_tracker ? o->tracker[0] : NULL;
	c.before_path = args->pos[0];
	c.after_path = args->pos[1];
	if ((rc = build(c.before_path, args, &b, err, sizeof(err))) ||
	    (rc = build(c.after_path, args, &a, err, sizeof(err)))) {
		rc = cli_replay_error("compare", rc, err);
		goto cleanup;
	}
	c.before = b, c.after = a;
	failed = compare_run(&c);
	rc = warn_inputs(&c, args->strict);
	if (write_comparison(&c, NULL, args) != EXIT_OK) {
		rc = EXIT_INPUT;
	} else if (failed) {
		say_failed_gates(c.gates, c.n_gates, c.before_path, c.after_path);
		rc = EXIT_INPUT;
	}
cleanup:
	report_model_free(a);
	report_model_free(b);
	return rc;
}

/*
 * compare --meter A --meter B CAPTURE (or two --tracker, or both): one capture, two
 * variants; a name given once (or not at all) is both variants'.
 */
static int compare_variants(const struct compare_opts *o, struct cli_args *args)
{
	static struct variant_comparison c; /* large (gates, scores): not on the stack */
	const char *t[2] = {o->n_tracker ? o->tracker[0] : NULL,
			    o->n_tracker ? o->tracker[o->n_tracker - 1] : NULL};
	const char *m[2] = {o->n_meter ? o->meter[0] : NULL,
			    o->n_meter ? o->meter[o->n_meter - 1] : NULL};
	char err[FRC_MSG_MAX];
	size_t failed;
	int rc;

	if (o->n_meter < 2 && o->n_tracker < 2)
		return cli_usage_error(
		    "compare", "one capture: give two --meter (or two --tracker) to compare "
			       "two variants of it, or two captures BEFORE.frc AFTER.frc");
	memset(&c, 0, sizeof(c));
	c.n_gates = o->n_gates;
	if ((rc = parse_gates(o, true, c.gates)))
		return rc;
	if ((rc = compare_variants_build(args->pos[0], &args->ropt, t, m, &c, err, sizeof(err))))
		return cli_replay_error("compare", rc, err);
	failed = compare_variants_run(&c);
	rc = cli_warn_damage("compare", c.path, &c.stats, "compared", args->strict);
	if (write_comparison(NULL, &c, args) != EXIT_OK) {
		rc = EXIT_INPUT;
	} else if (failed) {
		say_failed_gates(c.gates, c.n_gates, c.path, c.path);
		rc = EXIT_INPUT;
	}
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option extra[] = {{"fail-if", required_argument, NULL, 'f'},
					      {"meter", required_argument, NULL, 'm'},
					      {"tracker", required_argument, NULL, 't'},
					      {0}};
	struct compare_opts opts = {0};
	const struct cli_spec spec = {
	    .cmd = "compare",
	    .help = compare_help,
	    .takes = CLI_OUTPUT | CLI_FORCE | CLI_TICK | CLI_STRICT | CLI_JSON | CLI_HTML |
		     CLI_WINDOW | CLI_TRUTH,
	    .extra = extra,
	    .on_extra = on_option,
	    .ctx = &opts,
	    .min_pos = 1,
	    .max_pos = 2,
	    .pos_usage = "expected BEFORE.frc and AFTER.frc (or one capture with two --meter)",
	};
	struct cli_args args;
	int rc;

	if (!cli_parse(&spec, argc, argv, &args, &rc))
		return rc;
	return args.n_pos == 2 ? compare_captures(&opts, &args) : compare_variants(&opts, &args);
}
