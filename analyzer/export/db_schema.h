/* SPDX-License-Identifier: MIT */
/*
 * db_schema.h - the SQLite schema of `frameanalyze db` (documented in analyzer/SCHEMA.md;
 * change both together and bump DB_SCHEMA_VERSION). The janks view applies perfdog.h's
 * rule with perfdog.h's thresholds.
 */
#ifndef FRAMEANALYZE_DB_SCHEMA_H
#define FRAMEANALYZE_DB_SCHEMA_H

#include "perfdog.h"

/* PRAGMA application_id: 'FRCA' = 0x46524341, in decimal for the PRAGMA below */
#define DB_APPLICATION_ID 1179796289
#define DB_SCHEMA_VERSION 2

/*
 * The SQL text of those constants and of perfdog.h's thresholds: the schema takes the
 * macros' own values, not copies.
 */
#define DB_SQL_STR_(x) #x
#define DB_SQL_STR(x) DB_SQL_STR_(x)
#define DB_APPLICATION_ID_SQL DB_SQL_STR(DB_APPLICATION_ID)
#define DB_SCHEMA_VERSION_SQL DB_SQL_STR(DB_SCHEMA_VERSION)
#define DB_JANK_NS_SQL DB_SQL_STR(PERFDOG_JANK_NS_LITERAL)
#define DB_BIGJANK_NS_SQL DB_SQL_STR(PERFDOG_BIGJANK_NS_LITERAL)

/*
 * Connection settings, applied on every open. Why each:
 * - synchronous=NORMAL: with the default rollback journal a committed capture survives an
 *   application crash; only an OS crash/power loss in the commit window can lose the last
 *   capture (never corrupt older ones' pages). FULL costs an extra fsync per commit only.
 * - cache_size=-16384: the page cache is at most 16 MiB whatever the capture length.
 * - temp_store=FILE: sorts in the views spill to disk instead of growing RAM.
 * The journal stays the default DELETE mode: pages appended during one capture's
 * transaction are not journaled by SQLite, so appending costs little, and a crash leaves
 * the database as it was before the capture.
 */
#define DB_PRAGMAS                                                                                 \
	"PRAGMA synchronous=NORMAL;"                                                               \
	"PRAGMA cache_size=-16384;"                                                                \
	"PRAGMA temp_store=FILE;"

/* Run inside db.c's BEGIN IMMEDIATE transaction (no BEGIN/COMMIT of its own). */
#define DB_SCHEMA_SQL                                                                              \
	"PRAGMA application_id=" DB_APPLICATION_ID_SQL ";"                                         \
	"PRAGMA user_version=" DB_SCHEMA_VERSION_SQL ";"                                           \
	"CREATE TABLE captures(capture_id INTEGER PRIMARY KEY, path TEXT NOT NULL,"                \
	" sha256 TEXT NOT NULL UNIQUE, status TEXT NOT NULL, format_version TEXT NOT NULL,"        \
	" first_ktime_ns INTEGER, last_ktime_ns INTEGER, frames INTEGER NOT NULL,"                 \
	" reservation_failures INTEGER NOT NULL, valid_end INTEGER, records INTEGER,"              \
	" unknown_records INTEGER, chunks INTEGER, deltas INTEGER, readings INTEGER,"              \
	" has_sysfs INTEGER, synthesized_ticks INTEGER, tick_ms INTEGER, tracker TEXT,"            \
	" out_of_order INTEGER, trackers_evicted INTEGER, buffers_evicted INTEGER,"                \
	" ticks_skipped INTEGER);"                                                                 \
	"CREATE TABLE capture_meta(capture_id INTEGER NOT NULL, key TEXT NOT NULL,"                \
	" value TEXT NOT NULL);"                                                                   \
	"CREATE TABLE frames(capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"                   \
	" ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,"                  \
	" buffer INTEGER NOT NULL, surface INTEGER NOT NULL);"                                     \
	"CREATE TABLE tracker_deltas(capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"           \
	" ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, buffer INTEGER NOT NULL,"               \
	" delta_ns INTEGER NOT NULL, pid_life INTEGER NOT NULL);"                                  \
	"CREATE TABLE fps_readings(capture_id INTEGER NOT NULL, tick_ns INTEGER NOT NULL,"         \
	" fps REAL, source TEXT, fps_micro INTEGER, synthesized INTEGER NOT NULL);"                \
	"CREATE TABLE live_readings(capture_id INTEGER NOT NULL, tick_ns INTEGER NOT NULL,"        \
	" fps REAL, source TEXT, fps_micro INTEGER);"                                              \
	"CREATE TABLE sysfs_samples(capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"       \
	" raw TEXT, value REAL, errno INTEGER);"                                                   \
	"CREATE TABLE drops(capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"               \
	" reservation_failures INTEGER NOT NULL);"                                                 \
	"CREATE TABLE events(capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"              \
	" kind TEXT NOT NULL, pid INTEGER NOT NULL, detail TEXT);"                                 \
	"CREATE VIEW frame_time_percentiles AS"                                                    \
	" WITH r AS (SELECT capture_id, delta_ns,"                                                 \
	"  ROW_NUMBER() OVER (PARTITION BY capture_id ORDER BY delta_ns) AS rn,"                   \
	"  COUNT(*) OVER (PARTITION BY capture_id) AS n FROM tracker_deltas)"                      \
	" SELECT capture_id, n AS deltas, n * 1e9 / SUM(delta_ns) AS mean_fps,"                    \
	"  MIN(CASE WHEN rn >= (n * 50 + 99) / 100 THEN delta_ns END) / 1e6 AS p50_ms,"            \
	"  MIN(CASE WHEN rn >= (n * 90 + 99) / 100 THEN delta_ns END) / 1e6 AS p90_ms,"            \
	"  MIN(CASE WHEN rn >= (n * 95 + 99) / 100 THEN delta_ns END) / 1e6 AS p95_ms,"            \
	"  MIN(CASE WHEN rn >= (n * 99 + 99) / 100 THEN delta_ns END) / 1e6 AS p99_ms,"            \
	"  MAX(delta_ns) / 1e6 AS max_ms FROM r GROUP BY capture_id;"                              \
	"CREATE VIEW fps_over_time AS"                                                             \
	" SELECT f.capture_id, f.tick_ns, (f.tick_ns - c.first_ktime_ns) / 1e9 AS t_s,"            \
	"  f.fps, f.source, l.fps AS live_fps, l.source AS live_source"                            \
	" FROM fps_readings f JOIN captures c USING (capture_id)"                                  \
	" LEFT JOIN live_readings l ON l.capture_id = f.capture_id AND l.tick_ns = f.tick_ns"      \
	"  AND f.synthesized = 0;"                                                                 \
	"CREATE VIEW janks AS"                                                                     \
	" WITH w AS (SELECT capture_id, seq, ktime_ns, pid, delta_ns,"                             \
	"  LAG(delta_ns, 1) OVER p AS d1, LAG(delta_ns, 2) OVER p AS d2,"                          \
	"  LAG(delta_ns, 3) OVER p AS d3 FROM tracker_deltas"                                      \
	"  WINDOW p AS (PARTITION BY capture_id, pid, pid_life ORDER BY seq))"                     \
	" SELECT capture_id, seq, ktime_ns, pid, delta_ns, delta_ns / 1e6 AS delta_ms,"            \
	"  (d1 + d2 + d3) / 3e6 AS prev3_mean_ms,"                                                 \
	"  CASE WHEN delta_ns > " DB_BIGJANK_NS_SQL " THEN 'BigJank' ELSE 'Jank' END AS kind"      \
	" FROM w WHERE d3 IS NOT NULL AND delta_ns > " DB_JANK_NS_SQL                              \
	"  AND 3 * delta_ns > 2 * (d1 + d2 + d3);"                                                 \
	"CREATE VIEW submissions AS"                                                               \
	" SELECT capture_id, seq, ktime_ns, pid, tid, surface, buffer,"                            \
	"  ktime_ns - LAG(ktime_ns) OVER s AS interval_ns FROM frames"                             \
	"  WINDOW s AS (PARTITION BY capture_id, pid, surface ORDER BY seq);"                      \
	"CREATE VIEW surfaces AS"                                                                  \
	" SELECT capture_id, pid, surface, COUNT(*) AS calls,"                                     \
	"  COUNT(DISTINCT buffer) AS buffers, MIN(ktime_ns) AS first_ktime_ns,"                    \
	"  MAX(ktime_ns) AS last_ktime_ns,"                                                        \
	"  CASE WHEN MAX(ktime_ns) > MIN(ktime_ns)"                                                \
	"   THEN (COUNT(*) - 1) * 1e9 / (MAX(ktime_ns) - MIN(ktime_ns)) END AS calls_per_s"        \
	" FROM frames GROUP BY capture_id, pid, surface;"

#endif
