/* SPDX-License-Identifier: MIT */
/*
 * db.h - the SQLite store (db.c; schema analyzer/SCHEMA.md): captures replayed into a
 * database, one transaction per capture. Errors are -errno with a one-line message
 * (db_store_error) naming the database or the capture and the step.
 */
#ifndef FRAMEANALYZE_DB_H
#define FRAMEANALYZE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

struct db_store;

/* What storing one capture did. */
struct db_added {
	int64_t capture_id;
	bool replaced;		       /* the same capture (SHA-256) was there and was replaced */
	bool truncated;		       /* not read whole (status 'truncated' or 'recovered') */
	struct frc_reader_stats stats; /* what the reader said: status, what was lost */
	uint64_t deltas, readings;
};

/*
 * Open the database at path; a missing one is created when the first capture is stored
 * (so a run that stores nothing creates no file). 0, or -errno with db_store_error()
 * saying why (not ours, locked, unreadable); *out must be closed either way.
 */
FRC_MUST_USE int db_store_open(struct db_store **out, const char *path);
/* Replay the capture at path into the database. 0, or -errno (db_store_error). */
FRC_MUST_USE int db_store_add(struct db_store *s, const char *path,
			      const struct replay_options *ropt, struct db_added *added);
/* A table or view of the schema, as `db --help` lists it. */
struct db_object {
	const char *name, *what;
	bool view;
};
/*
 * Every table, then every view, in creation order: the lists the schema is created from
 * (db_schema.h), *n of them.
 */
const struct db_object *db_schema_objects(size_t *n);

/* The last failure's one-line message. */
const char *db_store_error(const struct db_store *s);
void db_store_close(struct db_store *s);

#endif
