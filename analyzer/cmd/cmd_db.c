/* SPDX-License-Identifier: MIT */
/* cmd_db.c - `frameanalyze db`: captures into an SQLite database (export/db.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "db.h"
#include "db_schema.h"
#include "report_model.h"

/* The help around the list of tables and views (db_help fills it in). */
static const char help_head[] =
    "usage: frameanalyze db IN.frc... -o OUT.db [--tick-ms N] [--tracker NAME] [--meter NAME]\n"
    "                       [--from T] [--to T|+D]\n"
    "\n"
    "Replay captures into an SQLite database, one capture_id per capture: the raw records,\n"
    "every tracker delta and FPS meter reading, and the submissions as the report counts\n"
    "them (each PID's main surface and its series of intervals), what SurfaceFlinger\n"
    "presented (display capture: each row linked to the call it shows), with views that\n"
    "give the report's numbers. A capture already in the database (same SHA-256) is\n"
    "replaced.\n"
    "OUT.db is created if missing (only once a capture is stored in it); an existing file\n"
    "is only written when it has our schema (version " DB_SCHEMA_VERSION_SQL
    "), and never when it is one of the\n"
    "captures. Several db runs may fill the same OUT.db at once.\n"
    "Schema: analyzer/SCHEMA.md.\n";

static const char help_tail[] =
    "\n"
    "options:\n"
    "  -o, --output OUT.db  the database (required)\n"
    "  --tick-ms N          read the meter every N ms when a capture has no tick records\n"
    "                       (10..3600000 ms, as framerec --tick-ms)\n"
    "                       (default 1000)\n"
    "  --tracker NAME       the frame tracker variant whose deltas are stored (kala,\n"
    "                       surface, process, main-surface, content; default: the one\n"
    "                       each recording ran, else kala); captures.tracker says which\n"
    "  --pid PID            the truth is that process's content (default: the\n"
    "                       target's, REPORT.md \"Ground truth\")\n"
    "  --surface 0xADDR     the truth is that surface's calls alone (with --pid: of it)\n"
    "  --from T, --to T     store only the records, deltas and readings from T to T\n"
    "                       (seconds after each capture's first record; --to +D: D\n"
    "                       after --from); the tracker still replays from the start\n"
    "  --meter NAME         the FPS meter variant whose readings are stored\n"
    "                       (auriya-10fe7c6, auriya-ccafd78, frc-window; default: the\n"
    "                       one each recording ran, else auriya-10fe7c6)\n"
    "\n"
    "exit: 0 all captures stored (truncated ones too, with a warning), 1 a capture was\n"
    "corrupt or unreadable (it is skipped, the others are stored) or the database was\n"
    "refused, 2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze db run1.frc run2.frc -o runs.db\n"
    "  sqlite3 runs.db 'SELECT capture_id, p99_ms FROM submission_percentiles WHERE main_pid'\n"
    "  sqlite3 runs.db 'SELECT kind, count(*) FROM submission_janks WHERE main_pid GROUP BY kind'\n"
    "  sqlite3 runs.db 'SELECT * FROM frame_time_percentiles'\n";

/* The per-second view stops where the report's per-second counts stop. */
_Static_assert(DB_MAX_SECONDS == REPORT_MAX_SECONDS, "db and report keep as many seconds");

/*
 * The help, with one line per table and view from the schema's own lists: it cannot name
 * an object the schema lacks, nor miss one. Built once; NULL if it does not fit.
 */
static const char *db_help(void)
{
	static char buf[8192];
	size_t n, len = 0;
	const struct db_object *o = db_schema_objects(&n);

	if (buf[0])
		return buf;
	len += (size_t)snprintf(buf, sizeof(buf), "%s", help_head);
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s  %-26s %s\n",
					i == 0 || o[i].view != o[i - 1].view
					    ? (o[i].view ? "\nviews:\n" : "\ntables:\n")
					    : "",
					o[i].name, o[i].what);
	if (len < sizeof(buf))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s", help_tail);
	if (len >= sizeof(buf)) {
		buf[0] = '\0';
		return NULL;
	}
	return buf;
}

/* Store each capture; a failed one is skipped and makes the exit code 1. */
static int store_all(struct db_store *s, const struct cli_args *a)
{
	struct db_added added;
	int rc = EXIT_OK;

	for (int i = 0; i < a->n_pos; i++) {
		const char *path = a->pos[i];

		int err = db_store_add(s, path, &a->ropt, &added);

		if (err) {
			/* a window past a capture's end is the caller's mistake: usage (2) wins */
			if (cli_replay_error("db", err, db_store_error(s)) == EXIT_USAGE)
				rc = EXIT_USAGE;
			else if (rc != EXIT_USAGE)
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
	const struct cli_spec spec = {
	    .cmd = "db",
	    .help = db_help(),
	    .takes = CLI_OUTPUT | CLI_TICK | CLI_TRACKER | CLI_WINDOW | CLI_METER | CLI_TRUTH,
	    .min_pos = 1,
	    .max_pos = -1,
	    .pos_usage = "expected at least one capture (IN.frc)",
	};
	struct db_store *s = NULL;
	struct cli_args a;
	const char *in;
	int rc;

	if (!spec.help) {
		cli_error("db", "the help text does not fit its buffer");
		return EXIT_INPUT;
	}
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
