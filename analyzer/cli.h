/* SPDX-License-Identifier: MIT */
/* cli.h - small helpers the subcommands share (messages, option parsing). */
#ifndef FRAMEANALYZE_CLI_H
#define FRAMEANALYZE_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define PROG "frameanalyze"

/* "frameanalyze CMD: MESSAGE (try 'frameanalyze CMD --help')" on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A --tracker NAME value: a tracker variant (tracker_kind.h). 0 and *out = arg, or the
 * usage error (exit code 2) naming every variant.
 */
FRC_MUST_USE int cli_parse_tracker(const char *cmd, const char *arg, const char **out);

/* "frameanalyze CMD: MESSAGE" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Remove path (a temporary output file) and also (its companion, e.g. an SQLite journal;
 * may be NULL) if SIGINT/SIGTERM/SIGHUP ends the program, so that Ctrl-C leaves no
 * temporary file behind; path NULL disarms. One pair at a time.
 */
void cli_unlink_on_signal(const char *path, const char *also);
/*
 * Note SIGINT/SIGTERM/SIGHUP in the returned flag instead of dying at once (for work that
 * cleans up after itself when the flag is set); cli_end_stop() restores the default and
 * dies of the signal that was noted, if any.
 */
volatile sig_atomic_t *cli_catch_stop(void);
void cli_end_stop(void);

/*
 * An output file (-o FILE) that is never left half written: a regular (or new) FILE is
 * written whole to FILE.tmp and renamed over FILE at the end; anything else that exists (a
 * device, a pipe, a symbolic link such as /dev/stdout) is written in place, never replaced
 * (lstat: a rename would replace the link itself). Ctrl-C leaves no FILE.tmp.
 */
struct cli_output {
	FILE *f;
	const char *path;
	char tmp[4096];
	bool in_place;
};
/* Open it; 0, or the exit code after saying why (cmd: the subcommand). */
FRC_MUST_USE int cli_output_open(const char *cmd, const char *path, struct cli_output *o);
/*
 * Close it: with ok, the file is complete (rename) and EXIT_OK comes back unless writing
 * failed; without, the temporary file is removed, nothing is said, and EXIT_INPUT returned.
 */
FRC_MUST_USE int cli_output_close(const char *cmd, struct cli_output *o, bool ok);

/* Read a whole file (at most max bytes) into a NUL-terminated buffer. 0 or -errno. */
FRC_MUST_USE int cli_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * Untrusted text (metadata, paths, symbols) for output, through frc_escape.h: the body of
 * a JSON string (FRC_ESCAPE_JSON), or one line of text for people (FRC_ESCAPE_TEXT).
 */
void cli_put_json_chars(FILE *out, const char *v);
void cli_put_text(FILE *out, const char *v);

#endif
