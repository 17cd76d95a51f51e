/* SPDX-License-Identifier: MIT */
/* cmd_perfetto.c - `frameanalyze perfetto`: the capture as a Perfetto trace (export/). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "perfetto.h"

static const char perfetto_help[] =
    "usage: frameanalyze perfetto IN.frc -o OUT.pftrace [--force] [--tick-ms N]\n"
    "                             [--tracker NAME] [--from T] [--to T|+D]\n"
    "\n"
    "Write the capture as a native Perfetto trace (protobuf), to open in\n"
    "https://ui.perfetto.dev (Open trace file) alone or next to a system trace taken on the\n"
    "same device: timestamps are CLOCK_MONOTONIC (Perfetto clock 3), delta-encoded on one\n"
    "packet sequence with interned names, and a clock snapshot relates them to\n"
    "CLOCK_REALTIME (the capture's realtime.offset_ns). The packets are deflated in zlib\n"
    "compressed_packets bundles, which Perfetto reads as it reads its own.\n"
    "\n"
    "tracks: a process track per PID, a thread track per TID (an instant per queueBuffer\n"
    "call, with its buffer and surface), a track per surface with one slice per submission\n"
    "interval; counters: frame time of the main surface, the tracker's deltas, the meter's\n"
    "readings by source, sysfs FPS, cumulative reservation failures; instants: Jank /\n"
    "BigJank of the submissions, janks of the tracker's deltas, attach, exit.\n"
    "\n"
    "options:\n"
    "  -o FILE         the trace (written whole or not at all; never the capture itself)\n"
    "  --force         replace FILE if it exists (without it an existing FILE is refused)\n"
    "  --tick-ms N     read the meter every N ms when the capture has no tick records\n"
    "                  (10..3600000 ms, as framerec --tick-ms)\n"
    "  --tracker NAME  the tracker variant replayed (default: the recording's, else kala)\n"
    "  --pid PID       the truth is that process's content (default: the target's,\n"
    "                  REPORT.md \"Ground truth\")\n"
    "  --surface 0xADDR   the truth is that surface's calls alone (with --pid: of it)\n"
    "  --from T, --to T   only the records from T to T (seconds after the capture's first\n"
    "                  record; --to +D: D after --from); the tracker replays from the start\n"
    "\n"
    "exit: 0 ok (a truncated capture too, with a warning), 1 corrupt or unreadable capture\n"
    "or unwritable output, 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze perfetto capture.frc -o capture.pftrace\n"
    "  frameanalyze perfetto --tracker main-surface capture.frc -o ms.pftrace\n";

/* Warnings about what the trace holds. */
static void warn(const char *in, const struct perfetto_result *res)
{
	(void)cli_warn_damage("perfetto", in, &res->stats, "exported", false);
	if (res->untracked)
		cli_error("perfetto",
			  "warning: %s: %" PRIu64 " calls on surfaces past the first %d have no "
			  "slice track",
			  in, res->untracked, PERFETTO_MAX_SURFACE_TRACKS);
}

int cmd_perfetto(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "perfetto",
	    .help = perfetto_help,
	    .takes = CLI_OUTPUT | CLI_FORCE | CLI_TICK | CLI_TRACKER | CLI_WINDOW | CLI_TRUTH,
	    .min_pos = 1,
	    .max_pos = 1,
	    .pos_usage = "expected exactly one capture (IN.frc)",
	};
	struct perfetto_result res = {0};
	struct cli_output o;
	struct cli_args a;
	char err[FRC_MSG_MAX];
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	if (!a.output)
		return cli_usage_error("perfetto", "-o OUT.pftrace is required (a binary trace)");
	rc = cli_output_open("perfetto", a.output, a.force, a.pos, 1, &o);
	if (rc)
		return rc;
	rc = perfetto_export(a.pos[0], &a.ropt, o.f, &res, err, sizeof(err));
	if (rc) {
		(void)!cli_output_close("perfetto", &o, false);
		return cli_replay_error("perfetto", rc, err);
	}
	warn(a.pos[0], &res);
	return cli_output_close("perfetto", &o, true);
}
