/* SPDX-License-Identifier: MIT */
/* report.c - `frameanalyze report`: replay a capture and print the report (REPORT.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "replay.h"
#include "report_model.h"
#include "report_render.h"

enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_HTML };

static const char report_help[] =
    "usage: frameanalyze report IN.frc [--json | --html] [-o FILE] [--tick-ms N]\n"
    "                           [--tracker NAME] [--strict]\n"
    "\n"
    "Replay a capture and print first what the app submitted, with no heuristic: its\n"
    "queueBuffer calls per PID and surface, and for the main surface calls/s, interval\n"
    "percentiles, 1% low, PerfDog janks and stutter; then the tracker's and the meter's\n"
    "results with their error against the submissions; then the capture\n"
    "(device, kernel, target, symbol, duration, status), accounting (frames, reservation\n"
    "failures, loss), frame times (mean FPS, p50/p90/p95/p99/max, 1% low), PerfDog janks\n"
    "and stutter, the FPS meter's readings by source, sysfs samples, and replay fidelity\n"
    "(every live reading the recorder wrote must be reproduced exactly).\n"
    "\n"
    "options:\n"
    "  --json        JSON for machines (schema: analyzer/REPORT.md)\n"
    "  --html        one self-contained HTML page with SVG charts (no network, no script)\n"
    "  -o FILE       write to FILE (whole or not at all) instead of stdout\n"
    "  --tick-ms N   read the meter every N ms when the capture has no tick records\n"
    "                (default 1000)\n"
    "  --tracker NAME  the frame tracker variant to replay (kala, surface, process,\n"
    "                main-surface; default: the one the recording ran, else kala;\n"
    "                `frameanalyze score` says which is right)\n"
    "  --strict      a truncated capture is an error (exit 1) instead of a warning\n"
    "\n"
    "exit: 0 ok (also a truncated capture, with a warning), 1 corrupt or unreadable\n"
    "capture, a live reading not reproduced, or truncated with --strict; 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze report capture.frc\n"
    "  frameanalyze report --json capture.frc | jq .frame_times.p99_ms\n"
    "  frameanalyze report --html -o capture.html capture.frc\n"
    "  frameanalyze report --tick-ms 500 imported.frc\n"
    "  frameanalyze report --tracker main-surface capture.frc\n";

/* Write the report in its format to out. */
static void render(const struct report_model *m, enum report_format fmt, FILE *out)
{
	if (fmt == FORMAT_JSON)
		report_render_json(m, REPORT_VIEW_FULL, true, out);
	else if (fmt == FORMAT_HTML)
		report_render_html(m, out);
	else
		report_render_text(m, out);
}

/* The report to -o FILE (cli_output: never half written) or stdout. */
static int write_report(const struct report_model *m, enum report_format fmt, const char *path)
{
	struct cli_output o;
	int rc;

	if (!path) {
		render(m, fmt, stdout);
		if (fflush(stdout) != 0) {
			cli_error("report", "writing stdout: %s", strerror(errno));
			return EXIT_INPUT;
		}
		return EXIT_OK;
	}
	rc = cli_output_open("report", path, &o);
	if (rc)
		return rc;
	render(m, fmt, o.f);
	return cli_output_close("report", &o, true);
}

/* The exit code for what the replay found (warnings on stderr). */
static int verdict(const struct report_model *m, const char *path, bool strict)
{
	int rc = EXIT_OK;

	if (m->run.stats.status != FRC_STATUS_COMPLETE) {
		cli_error("report",
			  "warning: %s: offset %" PRIu64 ": truncated; analyzed up to the damage%s",
			  path, m->run.stats.valid_end, strict ? " (--strict: failing)" : "");
		if (strict)
			rc = EXIT_INPUT;
	}
	if (m->run.mismatches) {
		cli_error("report", "%s: %" PRIu64 " live reading(s) not reproduced by the replay",
			  path, m->run.mismatches);
		rc = EXIT_INPUT;
	}
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},	{"tick-ms", required_argument, NULL, 't'},
	    {"strict", no_argument, NULL, 's'}, {"tracker", required_argument, NULL, 'k'},
	    {"html", no_argument, NULL, 'H'},	{"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},	{0}};
	struct replay_options ropt = {0};
	struct report_model *m = NULL;
	enum report_format fmt = FORMAT_TEXT;
	const char *out_path = NULL;
	bool strict = false;
	char err[FRC_MSG_MAX];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			fmt = FORMAT_JSON;
			break;
		case 'H':
			fmt = FORMAT_HTML;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 's':
			strict = true;
			break;
		case 'k':
			if (cli_parse_tracker("report", optarg, &ropt.tracker_name))
				return EXIT_USAGE;
			break;
		case 't':
			if (replay_parse_tick_ms(optarg, &ropt.tick_ms))
				return cli_usage_error(
				    "report", "--tick-ms: '%s' is not in [1, 3600000]", optarg);
			break;
		case 'h':
			fputs(report_help, stdout);
			return EXIT_OK;
		default:
			return cli_usage_error("report", "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("report", "expected exactly one capture (IN.frc)");
	rc = report_model_build(argv[optind], &ropt, NULL, 0, &m, err, sizeof(err));
	if (rc) {
		cli_error("report", "%s", err);
		return EXIT_INPUT;
	}
	/* the page shows the heuristic lab's score table: every variant on this capture */
	if (fmt == FORMAT_HTML && report_model_score(m, argv[optind], &ropt, err, sizeof(err))) {
		cli_error("report", "%s", err);
		report_model_free(m);
		return EXIT_INPUT;
	}
	rc = write_report(m, fmt, out_path);
	if (rc == EXIT_OK)
		rc = verdict(m, argv[optind], strict);
	report_model_free(m);
	return rc;
}
