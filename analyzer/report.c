/* SPDX-License-Identifier: MIT */
/* report.c - `frameanalyze report`: replay a capture and print the report (REPORT.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "replay.h"
#include "summary.h"

static const char report_help[] =
    "usage: frameanalyze report IN.frc [--json] [--tick-ms N] [--tracker NAME] [--strict]\n"
    "\n"
    "Replay a capture through the frame tracker and FPS meter and print: the capture\n"
    "(device, kernel, target, symbol, duration, status), accounting (frames, reservation\n"
    "failures, loss), frame times (mean FPS, p50/p90/p95/p99/max, 1% low), PerfDog janks\n"
    "and stutter, the FPS meter's readings by source, sysfs samples, and replay fidelity\n"
    "(every live reading the recorder wrote must be reproduced exactly).\n"
    "\n"
    "options:\n"
    "  --json        JSON for machines (schema: analyzer/REPORT.md)\n"
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
    "  frameanalyze report --tick-ms 500 imported.frc\n"
    "  frameanalyze report --tracker main-surface capture.frc\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},	{"tick-ms", required_argument, NULL, 't'},
	    {"strict", no_argument, NULL, 's'}, {"tracker", required_argument, NULL, 'k'},
	    {"help", no_argument, NULL, 'h'},	{0}};
	struct replay_options ropt = {0};
	struct summary *s = NULL;
	struct replay_sink sink;
	bool json = false, strict = false;
	char err[FRC_MSG_MAX];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
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
	if (summary_new(&s)) {
		cli_error("report", "out of memory");
		return EXIT_INPUT;
	}
	sink = summary_sink(s);
	rc = replay_run(argv[optind], &ropt, &sink, 1, err, sizeof(err));
	if (rc) {
		cli_error("report", "%s", err);
		rc = EXIT_INPUT;
		goto cleanup;
	}
	if (json)
		summary_print_json(s, stdout, true);
	else
		summary_print_text(s, stdout);
	if (fflush(stdout) != 0) {
		cli_error("report", "writing stdout: %s", strerror(errno));
		rc = EXIT_INPUT;
		goto cleanup;
	}
	rc = EXIT_OK;
	if (summary_truncated(s)) {
		cli_error("report",
			  "warning: %s: offset %" PRIu64 ": truncated; analyzed up to the damage%s",
			  argv[optind], summary_valid_end(s), strict ? " (--strict: failing)" : "");
		if (strict)
			rc = EXIT_INPUT;
	}
	if (summary_mismatches(s)) {
		cli_error("report", "%s: %" PRIu64 " live reading(s) not reproduced by the replay",
			  argv[optind], summary_mismatches(s));
		rc = EXIT_INPUT;
	}
cleanup:
	summary_free(s);
	return rc;
}
