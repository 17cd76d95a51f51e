/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the command layer's helpers: messages, the one option parser, output files.
 *
 * Only cmd/ includes this file. It is the one place where exit codes (commands.h) are
 * made: everything below cmd/ returns 0, -errno or an FRC_E* code with a message, and the
 * command turns that into an exit code and a line on stderr.
 */
#ifndef FRAMEANALYZE_CLI_H
#define FRAMEANALYZE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "replay.h"

#define PROG "frameanalyze"

/* "frameanalyze CMD: MESSAGE (try 'frameanalyze CMD --help')" on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "frameanalyze CMD: MESSAGE" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The warning for a capture that was not read whole (st from the reader): truncated,
 * "PATH: offset N: truncated; VERB up to the damage", or recovered, "PATH: offset N:
 * recovered: LOSS; VERB every intact chunk" (format/FORMAT.md 7), and what damage was
 * skipped before a truncation. With strict it adds "(--strict: failing)" and returns
 * EXIT_INPUT; else EXIT_OK (also for a complete capture, which gets no warning).
 */
int cli_warn_damage(const char *cmd, const char *path, const struct frc_reader_stats *st,
		    const char *verb, bool strict);

/* ------------------------------------------------------------ the one option parser */

/* The options several subcommands share; a subcommand says which it takes (cli_spec). */
enum cli_takes {
	CLI_OUTPUT = 1u << 0,  /* -o, --output FILE */
	CLI_FORCE = 1u << 1,   /* --force: replace an existing output */
	CLI_TICK = 1u << 2,    /* --tick-ms N */
	CLI_TRACKER = 1u << 3, /* --tracker NAME (one variant) */
	CLI_STRICT = 1u << 4,  /* --strict */
	CLI_JSON = 1u << 5,    /* --json */
	CLI_HTML = 1u << 6,    /* --html (with --json: refused, choose one) */
	CLI_WINDOW = 1u << 7,  /* --from T, --to T: a time window (replay_options.window) */
	CLI_METER = 1u << 8,   /* --meter NAME (one variant) */
	CLI_TRUTH = 1u << 9,   /* --pid PID, --surface 0xADDR: the truth (replay_options.truth) */
};

enum cli_format { CLI_TEXT, CLI_FORMAT_JSON, CLI_FORMAT_HTML };

/*
 * --tick-ms range: framerec's own (recorder/framerec.c, parse_period): 10 ms to an hour. A
 * replay reading the meter more often than a recording can makes no sense.
 */
#define CLI_TICK_MS_MIN 10
#define CLI_TICK_MS_MAX 3600000

/* What the shared options said. */
struct cli_args {
	struct replay_options ropt; /* --tick-ms, --tracker, --meter, --pid, --surface */
	const char *output;	    /* -o, or NULL */
	bool force, strict;
	enum cli_format format;
	char **pos; /* the operands (argv after the options) */
	int n_pos;
};

/*
 * A subcommand's options: the shared ones it takes, plus its own (extra, a getopt_long
 * table ending in {0}; their val must be below 256) handed to on_extra with its optarg,
 * which returns 0 or an exit code (after saying why, e.g. with cli_usage_error).
 */
struct cli_spec {
	const char *cmd;
	const char *help; /* printed whole by -h/--help */
	unsigned takes;	  /* enum cli_takes */
	const struct option *extra;
	int (*on_extra)(void *ctx, int opt, const char *arg);
	void *ctx;
	int min_pos, max_pos;  /* operand count; max_pos < 0: no limit */
	const char *pos_usage; /* the message when the count is wrong */
};

/*
 * Parse argv (argv[0] is the subcommand) by spec into a. true: go on; false: return
 * *exit_code (help was printed: 0; a usage error was said: 2; on_extra's code).
 */
FRC_MUST_USE bool cli_parse(const struct cli_spec *spec, int argc, char **argv, struct cli_args *a,
			    int *exit_code);

/*
 * A replay's failure (rc, its message err) for cmd: a window that does not fit the capture
 * (REPLAY_EWINDOW) is a usage error (2), anything else a refused input (1). Says it.
 */
int cli_replay_error(const char *cmd, int rc, const char *err);

/* A --tracker NAME value: a tracker variant (tracker_kind.h). 0, or the usage error (2). */
FRC_MUST_USE int cli_parse_tracker(const char *cmd, const char *arg, const char **out);

/* A --meter NAME value: a meter variant (meter_kind.h). 0, or the usage error (2). */
FRC_MUST_USE int cli_parse_meter(const char *cmd, const char *arg, const char **out);

/* ------------------------------------------------------------ output files */

/*
 * An output file (-o FILE) that can never destroy data:
 *  - FILE is refused when it is one of the inputs (same device and inode: also through a
 *    symbolic or a hard link), with or without --force;
 *  - an existing FILE is refused unless force (the rule and the word of framerec); force
 *    replaces a regular file or a symbolic link (the link itself), never a directory;
 *  - FILE is written whole to a unique FILE.tmp-XXXXXX in its directory (mkostemp:
 *    O_CREAT|O_EXCL, so a planted symbolic link is never followed), fsynced, and then
 *    published: rename() with force, else link(), which fails rather than replace a FILE
 *    that appeared meanwhile (two concurrent runs: one wins whole, the other says so);
 *  - the temporary is removed on every error path and on SIGINT/SIGTERM/SIGHUP;
 *  - an existing device or FIFO (/dev/null, a pipe), or a path under /dev/ or
 *    /proc/self/fd/ (/dev/stdout names a descriptor, perhaps a file the shell opened), is
 *    written in place.
 */
struct cli_output {
	FILE *f;
	int fd; /* f's descriptor */
	const char *path;
	char tmp[4096];
	bool in_place, force;
};

/*
 * The input among inputs[0..n) that path is (same device and inode, links followed), or
 * NULL: for an output written in place, such as db's database.
 */
const char *cli_input_at(const char *path, char *const *inputs, size_t n);

/* Open it for cmd; inputs: the n files it must not be. 0, or the exit code after saying why. */
FRC_MUST_USE int cli_output_open(const char *cmd, const char *path, bool force, char *const *inputs,
				 size_t n, struct cli_output *o);
/*
 * Close it: with ok, the file is published and EXIT_OK comes back unless that failed
 * (said); without, the temporary file is removed, nothing is said, EXIT_INPUT returned.
 */
FRC_MUST_USE int cli_output_close(const char *cmd, struct cli_output *o, bool ok);

/* ------------------------------------------------------------ the rest */

/* Read a whole file (at most max bytes) into a NUL-terminated buffer. 0 or -errno. */
FRC_MUST_USE int cli_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * Untrusted text (metadata, paths, symbols) for output, through frc_escape.h: the body of
 * a JSON string (FRC_ESCAPE_JSON), or one line of text for people (FRC_ESCAPE_TEXT).
 */
void cli_put_json_chars(FILE *out, const char *v);
void cli_put_text(FILE *out, const char *v);

#endif
