/* SPDX-License-Identifier: MIT */
/*
 * cmd_text.c - `frameanalyze import` and `frameanalyze export`: the text form of a capture
 * (format/frc_text.h does the work; this is the command line around it).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frc_text.h"
#include "cli.h"
#include "commands.h"
#include "signals.h"

static const char import_help[] =
    "usage: frameanalyze import IN.txt -o OUT.frc [--force]\n"
    "\n"
    "Compile the text form of a capture (one record per line, see format/FORMAT.md) into\n"
    "a .frc capture. Importing the same text twice gives byte-identical files. On a syntax\n"
    "error the message names the line and column and no output file is written.\n"
    "\n"
    "text form ('#' comment lines and blank lines are ignored):\n"
    "  meta KEY VALUE...                 (header metadata, before the first record)\n"
    "  frame KTIME_NS PID TID 0xBUFFER [0xSURFACE]   (surface: argument 0, default 0)\n"
    "  sysfs KTIME_NS \"RAW\"   |   sysfs KTIME_NS !ERRNO\n"
    "  drops KTIME_NS CUMULATIVE [BATCH_ANOMALIES [BAD_BUFFERS]]\n"
    "  attach KTIME_NS PID SYMBOL\n"
    "  exit KTIME_NS PID\n"
    "  tick KTIME_NS [FPS SOURCE]        (FPS up to 6 decimals, SOURCE sysfs|ebpf; - - = none)\n"
    "  buffer KTIME_NS PID 0xSURFACE 0xBUFFER WIDTH HEIGHT STRIDE FORMAT 0xUSAGE\n"
    "  connect KTIME_NS PID TID 0xSURFACE API   |   disconnect KTIME_NS PID TID 0xSURFACE API\n"
    "  (and the display and thread records: format/FORMAT.md 11)\n"
    "RAW, VALUE and SYMBOL take the escapes \\n \\t \\\\ \\\" \\xHH.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.frc  the capture to write (whole or not at all; never IN itself)\n"
    "  --force               replace OUT.frc if it exists (refused without it)\n"
    "\n"
    "exit: 0 written, 1 a syntax error (IN:LINE:COL: what) or an unreadable/unwritable\n"
    "file, 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze import fixtures/steady_60hz_triple.txt -o steady.frc\n"
    "  frameanalyze export a.frc | sed 's/^tick \\([0-9]*\\).*/tick \\1/' > b.txt && \\\n"
    "    frameanalyze import b.txt -o b.frc      # strip the live readings\n"
    "  frameanalyze export a.frc | grep -v '^sysfs' | \\\n"
    "    frameanalyze import /dev/stdin -o nosysfs.frc   # from a pipe\n";

static const char export_help[] =
    "usage: frameanalyze export IN.frc\n"
    "\n"
    "Print a capture as canonical text on stdout: meta lines first, then every record in\n"
    "file order. export(import(T)) == T for a text T in canonical form.\n"
    "\n"
    "exit: 0 ok (a truncated capture: every valid record, and a warning), 1 corrupt or\n"
    "not a capture (records before the damage are printed), 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze export capture.frc > capture.txt\n"
    "  frameanalyze export capture.frc | grep -c '^frame'\n";

int cmd_import(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "import",
	    .help = import_help,
	    .takes = CLI_OUTPUT | CLI_FORCE,
	    .min_pos = 1,
	    .max_pos = 1,
	    .pos_usage = "expected exactly one text file (IN.txt)",
	};
	struct cli_output o;
	struct cli_args a;
	struct stat st;
	char err[FRC_MSG_MAX];
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	if (!a.output)
		return cli_usage_error("import", "missing -o OUT.frc");
	/* a capture goes into a file: a device or FIFO would block or swallow it */
	if (stat(a.output, &st) == 0 && !S_ISREG(st.st_mode)) {
		cli_error("import", "%s: not a regular file; refusing to replace it", a.output);
		return EXIT_INPUT;
	}
	rc = cli_output_open("import", a.output, a.force, a.pos, 1, &o);
	if (rc)
		return rc;
	/*
	 * Ctrl-C or SIGTERM stops the import between two lines, and the import removes its
	 * temporary file next to OUT (dying at once would leave it behind); then we die of
	 * the signal as usual.
	 */
	rc = frc_text_import_fd(a.pos[0], o.fd, a.output, NULL, sig_catch_stop(), err, sizeof(err));
	if (rc)
		cli_error("import", "%s", err[0] ? err : frc_strerror(rc));
	rc = cli_output_close("import", &o, rc == 0);
	sig_end_stop();
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "export",
	    .help = export_help,
	    .min_pos = 1,
	    .max_pos = 1,
	    .pos_usage = "expected exactly one capture (IN.frc)",
	};
	struct cli_args a;
	frc_reader *r = NULL;
	char **argv_in;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	argv_in = a.pos;
	rc = frc_reader_open(&r, argv_in[0]);
	if (rc) {
		if (r)
			cli_error("export", "%s", frc_reader_error(r));
		else
			cli_error("export", "%s: %s", argv_in[0], frc_strerror(rc));
		frc_reader_close(r);
		return EXIT_INPUT;
	}
	rc = frc_text_export(r, stdout);
	if (fflush(stdout) != 0 && rc == 0)
		rc = FRC_EIO;
	switch (rc) {
	case 0:
		break;
	case FRC_ETRUNCATED:
		cli_error("export", "warning: %s", frc_reader_error(r));
		rc = 0;
		break;
	case FRC_EIO:
		cli_error("export", "writing stdout: %s", strerror(errno));
		break;
	default:
		cli_error("export", "%s", frc_reader_error(r));
		break;
	}
	/* records of a newer minor version have no text form: say that export dropped them */
	if (rc == 0) {
		struct frc_reader_stats st;

		frc_reader_stats(r, &st);
		if (st.unknown)
			cli_error("export",
				  "warning: %s: %" PRIu64 " record(s) of unknown types skipped (the"
				  " text form cannot hold them; import will not restore them)",
				  argv_in[0], st.unknown);
	}
	frc_reader_close(r);
	return rc ? EXIT_INPUT : EXIT_OK;
}
