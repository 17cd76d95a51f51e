/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - `frameanalyze compare BEFORE.frc AFTER.frc`: two captures' key metrics
 * side by side and `--fail-if GATE`, so a CI job can guard frame pacing between two builds
 * (report/compare.h does the work; analyzer/REPORT.md "Compare").
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"

static const char compare_help[] =
    "usage: frameanalyze compare BEFORE.frc AFTER.frc [--json | --html] [-o FILE [--force]]\n"
    "                            [--fail-if GATE]... [--tracker NAME] [--tick-ms N] [--strict]\n"
    "\n"
    "Put two captures' key metrics side by side (before, after, change, change %):\n"
    "  submitted_fps    calls/s of the main surface (what the app submitted)\n"
    "  low_1pct_fps     1 % low of the submissions (GameBench)\n"
    "  p50_ms, p90_ms, p95_ms, p99_ms, max_ms   submission interval percentiles, max\n"
    "  janks_per_min, big_janks_per_min   PerfDog (big) janks of the submissions per\n"
    "                   minute of intervals\n"
    "  stutter_percent  PerfDog stutter of the submissions\n"
    "  median_fps, stability_percent   GameBench: median per-second FPS, share of seconds\n"
    "                   within +-10 % of it\n"
    "  tracker_fps      the tracker's mean FPS\n"
    "  meter_fps        the FPS meter's mean reading, all sources\n"
    "  loss_percent     reservation failures / (frames + failures)\n"
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
    "  --tracker NAME  the tracker variant replayed for both captures\n"
    "  --tick-ms N     read the meter every N ms when a capture has no tick records\n"
    "                  (10..3600000 ms, as framerec --tick-ms)\n"
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
    "  frameanalyze compare --html before.frc after.frc -o compare.html\n";

/* --fail-if GATE: one more gate; 0 or the usage error. */
static int on_option(void *ctx, int opt, const char *arg)
{
	struct comparison *c = ctx;
	char why[512];

	if (opt != 'f')
		return EXIT_USAGE;
	if (c->n_gates == COMPARE_MAX_GATES)
		return cli_usage_error("compare", "more than %d --fail-if gates",
				       COMPARE_MAX_GATES);
	if (compare_parse_gate(arg, &c->gates[c->n_gates++], why, sizeof(why)))
		return cli_usage_error("compare",
				       "--fail-if '%s': %s; a gate is "
				       "METRIC[.after|.delta|.pct]OP NUMBER",
				       arg, why);
	return 0;
}

/* The comparison in its format to -o FILE or stdout; an exit code. */
static int write_comparison(const struct comparison *c, const struct cli_args *a)
{
	struct cli_output o = {.f = stdout};
	int rc;

	if (a->output && (rc = cli_output_open("compare", a->output, a->force, a->pos, 2, &o)))
		return rc;
	if (a->format == CLI_FORMAT_JSON)
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

/* Each gate that failed, on stderr. */
static void say_failed_gates(const struct comparison *c)
{
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];

		if (g->state == GATE_TRIPPED)
			cli_error("compare", "gate tripped: %s", g->text);
		else if (g->state == GATE_NO_DATA)
			cli_error("compare", "gate '%s' failed: %s (%s)", g->text, g->why,
				  strstr(g->why, "BEFORE") ? c->before_path : c->after_path);
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

int cmd_compare(int argc, char **argv)
{
	static const struct option extra[] = {{"fail-if", required_argument, NULL, 'f'}, {0}};
	struct comparison c = {0};
	const struct cli_spec spec = {
	    .cmd = "compare",
	    .help = compare_help,
	    .takes =
		CLI_OUTPUT | CLI_FORCE | CLI_TICK | CLI_TRACKER | CLI_STRICT | CLI_JSON | CLI_HTML,
	    .extra = extra,
	    .on_extra = on_option,
	    .ctx = &c,
	    .min_pos = 2,
	    .max_pos = 2,
	    .pos_usage = "expected BEFORE.frc and AFTER.frc",
	};
	struct report_model *b = NULL, *a = NULL;
	struct cli_args args;
	char err[FRC_MSG_MAX];
	size_t failed;
	int rc;

	if (!cli_parse(&spec, argc, argv, &args, &rc))
		return rc;
	c.before_path = args.pos[0];
	c.after_path = args.pos[1];
	if (build(c.before_path, &args, &b, err, sizeof(err)) ||
	    build(c.after_path, &args, &a, err, sizeof(err))) {
		cli_error("compare", "%s", err);
		rc = EXIT_INPUT;
		goto cleanup;
	}
	c.before = b, c.after = a;
	failed = compare_run(&c);
	rc = warn_inputs(&c, args.strict);
	if (write_comparison(&c, &args) != EXIT_OK)
		rc = EXIT_INPUT;
	else if (failed) {
		say_failed_gates(&c);
		rc = EXIT_INPUT;
	}
cleanup:
	report_model_free(a);
	report_model_free(b);
	return rc;
}
