/* SPDX-License-Identifier: MIT */
/* cmd_report.c - `frameanalyze report`: replay a capture and print the report (REPORT.md). */
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

static const char report_help[] =
    "usage: frameanalyze report IN.frc [--json | --html] [-o FILE [--force]]\n"
    "                           [--tick-ms N] [--tracker NAME] [--meter NAME] [--strict]\n"
    "                           [--from T] [--to T|+D]\n"
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
    "  -o FILE       write to FILE (whole or not at all) instead of stdout; never the\n"
    "                capture itself\n"
    "  --force       replace FILE if it exists (without it an existing FILE is refused)\n"
    "  --tick-ms N   read the meter every N ms when the capture has no tick records\n"
    "                (10..3600000 ms, as framerec --tick-ms)\n"
    "                (default 1000)\n"
    "  --tracker NAME  the frame tracker variant to replay (kala, surface, process,\n"
    "                main-surface, content; default: the one the recording ran, else\n"
    "                kala;\n"
    "                `frameanalyze score` says which is right)\n"
    "  --meter NAME  the FPS meter variant to replay (auriya-10fe7c6, auriya-ccafd78,\n"
    "                frc-window; default: the one the recording ran, else auriya-10fe7c6)\n"
    "  --strict      a truncated or recovered capture is an error (exit 1) instead of a\n"
    "                warning\n"
    "  --pid PID       the truth is that process's content (default: the target's,\n"
    "                  REPORT.md \"Ground truth\")\n"
    "  --surface 0xADDR   the truth is that surface's calls alone (with --pid: of it)\n"
    "  --from T, --to T   analyse only the records from T to T (seconds after the\n"
    "                capture's first record: 1.5, 2s, 1500ms; --to +D: D after --from);\n"
    "                the heuristics still replay from the start (REPORT.md \"Window\")\n"
    "\n"
    "exit: 0 ok (also a truncated capture, or a damaged one read past the damage, with a\n"
    "warning saying what was lost), 1 corrupt (nothing intact) or unreadable\n"
    "capture, a live reading not reproduced, or truncated/recovered with --strict;\n"
    "2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze report capture.frc\n"
    "  frameanalyze report --json capture.frc | jq .frame_times.p99_ms\n"
    "  frameanalyze report --html -o capture.html capture.frc\n"
    "  frameanalyze report --tick-ms 500 imported.frc\n"
    "  frameanalyze report --tracker main-surface capture.frc\n"
    "  frameanalyze report --from 10 --to +5s capture.frc\n";

/* Write the report in its format to out. */
static void render(const struct report_model *m, enum cli_format fmt, FILE *out)
{
	if (fmt == CLI_FORMAT_JSON)
		report_render_json(m, REPORT_VIEW_FULL, true, out);
	else if (fmt == CLI_FORMAT_HTML)
		report_render_html(m, out);
	else
		report_render_text(m, out);
}

/* Build the model (with the score table for the page) or say why not; an exit code. */
static int build(const char *in, const struct cli_args *a, struct report_model **m)
{
	char err[FRC_MSG_MAX];
	/* the page shows the heuristic lab's score table: every variant on this capture */
	int rc = a->format == CLI_FORMAT_HTML
		     ? report_model_build_page(in, &a->ropt, m, err, sizeof(err))
		     : report_model_build(in, &a->ropt, NULL, 0, m, err, sizeof(err));

	return rc ? cli_replay_error("report", rc, err) : EXIT_OK;
}

/* The exit code for what the replay found (warnings on stderr). */
static int verdict(const struct report_model *m, const char *path, bool strict)
{
	int rc = cli_warn_damage("report", path, &m->run.stats, "analyzed", strict);

	if (m->run.mismatches) {
		cli_error("report", "%s: %" PRIu64 " live reading(s) not reproduced by the replay",
			  path, m->run.mismatches);
		rc = EXIT_INPUT;
	}
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "report",
	    .help = report_help,
	    .takes = CLI_OUTPUT | CLI_FORCE | CLI_TICK | CLI_TRACKER | CLI_STRICT | CLI_JSON |
		     CLI_HTML | CLI_WINDOW | CLI_METER | CLI_TRUTH,
	    .min_pos = 1,
	    .max_pos = 1,
	    .pos_usage = "expected exactly one capture (IN.frc)",
	};
	struct report_model *m = NULL;
	struct cli_output o = {.f = stdout};
	struct cli_args a;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	/* the output is checked and opened first: a refusal costs no replay */
	if (a.output && (rc = cli_output_open("report", a.output, a.force, a.pos, 1, &o)))
		return rc;
	rc = build(a.pos[0], &a, &m);
	if (rc == EXIT_OK)
		render(m, a.format, o.f);
	if (a.output)
		rc = cli_output_close("report", &o, rc == EXIT_OK);
	else if (rc == EXIT_OK && fflush(stdout) != 0) {
		cli_error("report", "writing stdout: %s", strerror(errno));
		rc = EXIT_INPUT;
	}
	if (rc == EXIT_OK && a.ropt.tick_ms && !m->run.synthesize_ticks)
		cli_error("report",
			  "warning: --tick-ms %" PRIu32 " has no effect: %s has tick records (the "
			  "meter is read at the recording's own ticks)",
			  a.ropt.tick_ms, a.pos[0]);
	if (rc == EXIT_OK)
		rc = verdict(m, a.pos[0], a.strict);
	report_model_free(m);
	return rc;
}
