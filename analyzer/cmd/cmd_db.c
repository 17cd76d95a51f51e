/* SPDX-License-Identifier: MIT */
/* cmd_db.c - `frameanalyze db`: captures into an SQLite database (export/db.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "db.h"

static const char db_help[] =
    "usage: frameanalyze db IN.frc... -o OUT.db [--tick-ms N] [--tracker NAME]\n"
    "\n"
    "Replay captures into an SQLite database: raw records (frames, sysfs samples, drops,\n"
    "attach/exit events, live readings), every tracker delta and every FPS meter reading,\n"
    "one capture_id per capture, plus views: frame_time_percentiles, fps_over_time and\n"
    "janks (of the tracker's deltas), submissions (each call with its interval on its\n"
    "surface) and surfaces (calls, buffers and calls/s per PID and surface). A capture\n"
    "already in the database (same SHA-256) is replaced. OUT.db is created if missing\n"
    "(only once a capture is stored in it); an existing file is only written when it has\n"
    "our schema, and never when it is one of the captures. Several db runs may fill the\n"
    "same OUT.db at once.\n"
    "Schema: analyzer/SCHEMA.md.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.db  the database (required)\n"
    "  --tick-ms N          read the meter every N ms when a capture has no tick records\n"
    "                       (10..3600000 ms, as framerec --tick-ms)\n"
    "                       (default 1000)\n"
    "  --tracker NAME       the frame tracker variant whose deltas are stored (kala,\n"
    "                       surface, process, main-surface; default: the one each\n"
    "                       recording ran, else kala); captures.tracker says which\n"
    "\n"
    "exit: 0 all captures stored (truncated ones too, with a warning), 1 a capture was\n"
    "corrupt or unreadable (it is skipped, the others are stored) or the database was\n"
    "refused, 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze db run1.frc run2.frc -o runs.db\n"
    "  sqlite3 runs.db 'SELECT * FROM frame_time_percentiles'\n"
    "  sqlite3 runs.db 'SELECT kind, count(*) FROM janks GROUP BY kind'\n";

/* Store each capture; a failed one is skipped and makes the exit code 1. */
static int store_all(struct db_store *s, const struct cli_args *a)
{
	struct db_added added;
	int rc = EXIT_OK;

	for (int i = 0; i < a->n_pos; i++) {
		const char *path = a->pos[i];

		if (db_store_add(s, path, &a->ropt, &added)) {
			cli_error("db", "%s", db_store_error(s));
			rc = EXIT_INPUT;
			continue;
		}
		fprintf(stderr,
			PROG " db: %s -> capture_id %" PRId64 "%s (%" PRIu64 " deltas, %" PRIu64
			     " readings)\n",
			path, added.capture_id, added.replaced ? ", replaced the same capture" : "",
			added.deltas, added.readings);
		/* stored up to the damage (status 'truncated') or past it ('recovered') */
		(void)cli_warn_damage("db", path, &added.stats, "stored", false);
	}
	return rc;
}

int cmd_db(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "db",
	    .help = db_help,
	    .takes = CLI_OUTPUT | CLI_TICK | CLI_TRACKER,
	    .min_pos = 1,
	    .max_pos = -1,
	    .pos_usage = "expected at least one capture (IN.frc)",
	};
	struct db_store *s = NULL;
	struct cli_args a;
	const char *in;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	if (!a.output)
		return cli_usage_error("db", "missing -o OUT.db");
	/* the database is updated in place by design; it is never one of the captures */
	if ((in = cli_input_at(a.output, a.pos, (size_t)a.n_pos))) {
		cli_error("db", "%s: is the input %s; not writing into it", a.output, in);
		return EXIT_INPUT;
	}
	if (db_store_open(&s, a.output)) {
		cli_error("db", "%s", db_store_error(s));
		db_store_close(s);
		return EXIT_INPUT;
	}
	rc = store_all(s, &a);
	db_store_close(s);
	return rc;
}
