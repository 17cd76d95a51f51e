/* SPDX-License-Identifier: MIT */
/*
 * golden.c - `frameanalyze golden` and `frameanalyze check`.
 *
 * The golden text is everything the heuristics produced for a capture, in a canonical form:
 * one line per tracker delta, one per meter reading (with the live result when recorded),
 * then the heuristics' numbers of the report (report_render.h, REPORT_VIEW_GOLDEN) as JSON at
 * fixed precision: what the tracker and meter computed, not the report's presentation. Nothing in
 * it depends on the path, the machine or the time of day, so a golden file changes only when the
 * capture or the heuristics change.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "diff.h"
#include "replay.h"
#include "report_model.h"
#include "report_render.h"
#include "summary.h"
#include "tracker_kind.h"

#define GOLDEN_MAX (256u << 20) /* an expected file larger than this is refused */

/* The first line of every golden text: check refuses an EXPECTED without it. */
#define GOLDEN_HEADER "# frameanalyze golden 1\n"

static int g_begin(void *ctx, const struct replay_info *info)
{
	FILE *out = ctx;

	fputs(GOLDEN_HEADER, out);
	fprintf(out, "# delta SEQ KTIME_NS PID BUFFER DELTA_NS\n");
	fprintf(out, "# reading TICK_NS FPS SOURCE [live FPS SOURCE]   (synthesized ticks: "
		     "reading* ...)\n");
	/*
	 * The tracker and the meter only when not the default: the goldens of kala and
	 * auriya-10fe7c6 stay what they always were.
	 */
	fprintf(out, "replay has_sysfs=%s synthesize_ticks=%s tick_ms=%" PRIu32 "%s%s%s%s\n",
		info->has_sysfs ? "yes" : "no", info->synthesize_ticks ? "yes" : "no",
		info->tick_ms, strcmp(info->tracker, TRACKER_KIND_DEFAULT) ? " tracker=" : "",
		strcmp(info->tracker, TRACKER_KIND_DEFAULT) ? info->tracker : "",
		strcmp(info->meter, METER_KIND_DEFAULT) ? " meter=" : "",
		strcmp(info->meter, METER_KIND_DEFAULT) ? info->meter : "");
	return 0;
}

static int g_delta(void *ctx, const struct pipeline_delta *d)
{
	fprintf(ctx, "delta %" PRIu64 " %" PRIu64 " %" PRIu32 " 0x%" PRIx64 " %" PRIu64 "\n",
		d->seq, d->ktime_ns, d->pid, d->buffer, d->delta_ns);
	return 0;
}

static void fps_text(char *buf, size_t len, bool valid, uint64_t micro)
{
	if (valid)
		summary_fmt_micro(buf, len, micro);
	else
		snprintf(buf, len, "-");
}

static int g_reading(void *ctx, const struct pipeline_reading *r)
{
	FILE *out = ctx;
	char fps[32], live[32];
	bool valid = r->reading.valid;

	fps_text(fps, sizeof(fps), valid, valid ? fps_to_micro(r->reading.fps) : 0);
	fprintf(out, "reading%s %" PRIu64 " %s %s", r->tick ? "" : "*", r->tick_ns, fps,
		valid ? frc_source_name(r->reading.source, "none") : "-");
	if (r->tick && r->tick->u.tick.has_result) {
		const struct frc_tick *t = &r->tick->u.tick;
		fps_text(live, sizeof(live), t->source != FRC_SOURCE_NONE, t->fps_micro);
		fprintf(out, " live %s %s", live,
			t->source != FRC_SOURCE_NONE ? frc_source_name(t->source, "none") : "-");
	}
	fputc('\n', out);
	return 0;
}

/* Replay path and print its golden text to out. Returns an exit code. */
static int write_golden(const char *cmd, const char *path, const struct replay_options *ropt,
			FILE *out)
{
	struct report_model *m = NULL;
	struct replay_sink lines = {
	    .ctx = out, .begin = g_begin, .delta = g_delta, .reading = g_reading};
	char err[FRC_MSG_MAX];

	if (report_model_build(path, ropt, &lines, 1, &m, err, sizeof(err))) {
		cli_error(cmd, "%s", err);
		return EXIT_INPUT;
	}
	/* the heuristics' numbers only: report sections for people change no golden */
	fprintf(out, "report\n");
	report_render_json(m, REPORT_VIEW_GOLDEN, false, out);
	/* as report does: the golden text says "truncated" or "recovered", stderr says where */
	(void)cli_warn_damage(cmd, path, &m->run.stats, "replayed", false);
	report_model_free(m);
	return EXIT_OK;
}

static const char golden_help[] =
    "usage: frameanalyze golden IN.frc [--tracker NAME] [--meter NAME]\n"
    "\n"
    "Replay a capture and print the canonical golden text: every tracker delta, every FPS\n"
    "meter reading (with the live result when the capture holds it) and the report numbers\n"
    "at fixed precision. Nothing in it depends on the path, machine or time of day.\n"
    "\n"
    "options:\n"
    "  --tracker NAME  the frame tracker variant (default: the recording's, else kala);\n"
    "                  a variant other than kala is named in the golden's replay line\n"
    "  --meter NAME    the FPS meter variant (auriya-10fe7c6, auriya-ccafd78, frc-window;\n"
    "                  default: the recording's, else auriya-10fe7c6); named likewise\n"
    "\n"
    "exit: 0 ok (a truncated capture too, with a warning), 1 corrupt or not a capture,\n"
    "2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze golden capture.frc > capture.golden\n"
    "  frameanalyze golden build/fixtures/steady_60hz_triple.frc | less\n"
    "  scripts/update-goldens.sh      # rewrite every checked-in golden, then review git diff\n";

static const char check_help[] =
    "usage: frameanalyze check IN.frc EXPECTED.golden [--tracker NAME] [--meter NAME]\n"
    "\n"
    "Replay a capture and compare its golden text with EXPECTED. Exit 0 when identical;\n"
    "otherwise print a unified diff (expected -> actual) and exit 1.\n"
    "\n"
    "options:\n"
    "  --tracker NAME  replay with this tracker variant (as golden --tracker)\n"
    "  --meter NAME    replay with this meter variant (as golden --meter)\n"
    "\n"
    "exit: 0 identical (one line: ok), 1 different, EXPECTED unreadable or not a golden\n"
    "file, or the capture corrupt or not a capture, 2 usage. scripts/update-goldens.sh\n"
    "rewrites the fixtures' expected files instead (see README).\n"
    "\n"
    "examples:\n"
    "  frameanalyze check capture.frc capture.golden\n"
    "  frameanalyze check build/fixtures/steady_60hz_triple.frc \\\n"
    "      fixtures/steady_60hz_triple.golden\n";

/* golden's and check's options: the tracker, and their operands. */
static bool parse_options(int argc, char **argv, const char *help, int n_pos, const char *pos_usage,
			  struct cli_args *a, int *exit_code)
{
	const struct cli_spec spec = {
	    .cmd = argv[0],
	    .help = help,
	    .takes = CLI_TRACKER | CLI_METER,
	    .min_pos = n_pos,
	    .max_pos = n_pos,
	    .pos_usage = pos_usage,
	};

	return cli_parse(&spec, argc, argv, a, exit_code);
}

int cmd_golden(int argc, char **argv)
{
	struct cli_args a;
	int rc;

	if (!parse_options(argc, argv, golden_help, 1, "expected exactly one capture (IN.frc)", &a,
			   &rc))
		return rc;
	rc = write_golden("golden", a.pos[0], &a.ropt, stdout);
	if (fflush(stdout) != 0) {
		cli_error("golden", "writing stdout: %s", strerror(errno));
		return EXIT_INPUT;
	}
	return rc;
}

/* Does text start with the golden header line (LF or CRLF: check explains CRLF)? */
static bool is_golden(const char *text)
{
	size_t n = strlen(GOLDEN_HEADER) - 1;

	return !strncmp(text, GOLDEN_HEADER, n) &&
	       (text[n] == '\n' || (text[n] == '\r' && text[n + 1] == '\n'));
}

int cmd_check(int argc, char **argv)
{
	char *actual = NULL, *expected = NULL, label[FRC_MSG_MAX];
	size_t actual_len = 0, expected_len = 0;
	const char *in, *exp;
	FILE *mem;
	struct cli_args a;
	int rc;

	if (!parse_options(argc, argv, check_help, 2, "expected IN.frc and EXPECTED.golden", &a,
			   &rc))
		return rc;
	in = a.pos[0];
	exp = a.pos[1];
	rc = cli_read_file(exp, GOLDEN_MAX, &expected, &expected_len);
	if (rc) {
		cli_error("check", "%s: %s", exp, strerror(-rc));
		return EXIT_INPUT;
	}

	mem = open_memstream(&actual, &actual_len);
	if (!mem) {
		cli_error("check", "out of memory");
		free(expected);
		return EXIT_INPUT;
	}
	rc = write_golden("check", in, &a.ropt, mem);
	fclose(mem);
	if (rc == EXIT_OK && !is_golden(expected)) {
		/* a capture or any other file as EXPECTED: say so instead of diffing binary */
		cli_error("check", "%s: not a golden file (it does not start with '%.*s')", exp,
			  (int)strlen(GOLDEN_HEADER) - 1, GOLDEN_HEADER);
		rc = EXIT_INPUT;
	} else if (rc == EXIT_OK) {
		snprintf(label, sizeof(label), "frameanalyze golden %s", in);
		rc = diff_unified(stdout, exp, expected, expected_len, label, actual, actual_len);
		if (rc < 0) {
			cli_error("check", "out of memory");
			rc = EXIT_INPUT;
		} else if (rc == 1) {
			/*
			 * A golden file checked out with CRLF (git autocrlf) differs on every
			 * line, invisibly: say why.
			 */
			if (memchr(expected, '\r', expected_len))
				fprintf(
				    stderr,
				    "frameanalyze check: %s differs from %s (diff above; %s has "
				    "CRLF line ends, golden text uses LF)\n",
				    in, exp, exp);
			else
				fprintf(stderr,
					"frameanalyze check: %s differs from %s (diff above)\n", in,
					exp);
			rc = EXIT_INPUT;
		} else {
			printf("ok: %s matches %s\n", in, exp);
		}
	}
	free(actual);
	free(expected);
	return rc;
}
