/* SPDX-License-Identifier: MIT */
/*
 * main.c - frameanalyze: replay .frc captures through the heuristics pipeline, offline.
 * Dispatches `frameanalyze SUBCOMMAND ...` to the cmd_* functions of commands.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frc.h"
#include "cli.h"
#include "commands.h"
#include "frc_version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"import", cmd_import, "text form -> capture        import IN.txt -o OUT.frc [--force]"},
    {"export", cmd_export, "capture -> text form        export IN.frc"},
    {"info", cmd_info, "what a capture holds        info IN.frc [--json]"},
    {"report", cmd_report,
     "replay -> report            report IN.frc [--json|--html] [-o FILE [--force]]\n"
     "                                       [--tick-ms N] [--tracker NAME] [--strict]"},
    {"db", cmd_db,
     "replay -> SQLite            db IN.frc... -o OUT.db [--tick-ms N] [--tracker NAME]"},
    {"golden", cmd_golden, "replay -> golden text       golden IN.frc [--tracker NAME]"},
    {"check", cmd_check,
     "replay vs golden file       check IN.frc EXPECTED.golden [--tracker NAME]"},
    {"score", cmd_score,
     "trackers vs the truth       score IN.frc... [--tracker all|NAME,...] [--json]"},
    {"perfetto", cmd_perfetto,
     "capture -> Perfetto trace   perfetto IN.frc -o OUT.pftrace [--force]"},
    {"compare", cmd_compare,
     "before vs after, CI gates   compare BEFORE.frc AFTER.frc [--json|--html]\n"
     "                                       [-o FILE [--force]] [--fail-if GATE]..."},
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: frameanalyze SUBCOMMAND [ARGS...]\n"
		"       frameanalyze SUBCOMMAND --help   (or: frameanalyze help SUBCOMMAND)\n"
		"       frameanalyze --help | --version\n"
		"\n"
		"Replay .frc captures recorded by framerec through the same frame tracker and FPS\n"
		"meter framerec runs live, and look at the result.\n"
		"\n"
		"subcommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"examples:\n"
		"  frameanalyze info capture.frc                 # status, counts, metadata\n"
		"  frameanalyze report capture.frc               # frame times, janks, FPS\n"
		"  frameanalyze report --json capture.frc > r.json\n"
		"  frameanalyze db a.frc b.frc -o captures.db    # then: sqlite3 captures.db\n"
		"      'SELECT * FROM frame_time_percentiles'\n"
		"  frameanalyze export capture.frc > capture.txt # edit, then:\n"
		"  frameanalyze import capture.txt -o edited.frc\n"
		"  frameanalyze check capture.frc capture.golden # regression check\n"
		"  frameanalyze score capture.frc                # which tracker is right?\n"
		"  frameanalyze report --html -o r.html c.frc    # the report with charts\n"
		"  frameanalyze perfetto c.frc -o c.pftrace      # open in ui.perfetto.dev\n"
		"  frameanalyze compare a.frc b.frc --fail-if 'p99_ms.delta>2'  # CI gate\n"
		"\n"
		"exit codes: 0 ok, 1 damaged or invalid input (or a failed check), 2 usage error.\n"
		"Times are CLOCK_MONOTONIC nanoseconds as recorded. See analyzer/README.md.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* "help CMD" is "CMD --help", as in git */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *help_argv[] = {argv[2], "--help", NULL};

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, help_argv);
		fprintf(stderr, PROG ": unknown subcommand '%s' (try '" PROG " --help')\n",
			argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf(PROG " " FRC_VERSION " (capture format %d.%d)\n", FRC_FORMAT_MAJOR,
		       FRC_FORMAT_MINOR);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, PROG ": unknown subcommand '%s' (try '" PROG " --help')\n", argv[1]);
	return EXIT_USAGE;
}
