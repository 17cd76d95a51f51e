/* SPDX-License-Identifier: MIT */
/*
 * db_schema.h - the SQLite schema of `frameanalyze db` (documented in analyzer/SCHEMA.md;
 * change both together and bump DB_SCHEMA_VERSION). The janks views apply perfdog.h's
 * rule with perfdog.h's thresholds.
 *
 * Every table and view is one entry of DB_TABLES or DB_VIEWS: X(name, what, SQL). The
 * schema is created from those lists and `db --help` lists them (db_schema_objects), so
 * the help cannot name an object the schema lacks or miss one it has.
 */
#ifndef FRAMEANALYZE_DB_SCHEMA_H
#define FRAMEANALYZE_DB_SCHEMA_H

#include "perfdog.h"

/* PRAGMA application_id: 'FRCA' = 0x46524341, in decimal for the PRAGMA below */
#define DB_APPLICATION_ID 1179796289
#define DB_SCHEMA_VERSION 3

/*
 * The per-second view keeps at most this many seconds per series, as the report does
 * (REPORT_MAX_SECONDS, report_model.h; cmd_db.c asserts they are equal): a capture whose
 * frames claim years cannot make the view generate billions of rows.
 */
#define DB_MAX_SECONDS 131072

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
#define DB_MAX_SECONDS_SQL DB_SQL_STR(DB_MAX_SECONDS)

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

/* X(name, what `db --help` says, the columns) for each table, in creation order. */
#define DB_TABLES(X)                                                                               \
	X(captures, "one row per capture: status, counts, replay decisions",                       \
	  "capture_id INTEGER PRIMARY KEY, path TEXT NOT NULL,"                                    \
	  " sha256 TEXT NOT NULL UNIQUE, status TEXT NOT NULL, format_version TEXT NOT NULL,"      \
	  " first_ktime_ns INTEGER, last_ktime_ns INTEGER, frames INTEGER NOT NULL,"               \
	  " reservation_failures INTEGER NOT NULL, valid_end INTEGER, records INTEGER,"            \
	  " unknown_records INTEGER, chunks INTEGER, deltas INTEGER, readings INTEGER,"            \
	  " has_sysfs INTEGER, synthesized_ticks INTEGER, tick_ms INTEGER, tracker TEXT,"          \
	  " out_of_order INTEGER, trackers_evicted INTEGER, buffers_evicted INTEGER,"              \
	  " ticks_skipped INTEGER")                                                                \
	X(capture_meta, "the header metadata pairs",                                               \
	  "capture_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL")                   \
	X(frames, "every queueBuffer call, with its submission interval",                          \
	  "capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"                                     \
	  " ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,"                \
	  " buffer INTEGER NOT NULL, surface INTEGER NOT NULL, pid_life INTEGER NOT NULL,"         \
	  " series_interval_ns INTEGER")                                                           \
	X(main_surfaces, "each PID's main surface and the capture's main PID",                     \
	  "capture_id INTEGER NOT NULL, pid INTEGER NOT NULL, surface INTEGER NOT NULL,"           \
	  " calls INTEGER NOT NULL, pid_calls INTEGER NOT NULL, surfaces INTEGER NOT NULL,"        \
	  " main_pid INTEGER NOT NULL, PRIMARY KEY (capture_id, pid)")                             \
	X(tracker_deltas, "every delta of the frame tracker",                                      \
	  "capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"                                     \
	  " ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, buffer INTEGER NOT NULL,"             \
	  " delta_ns INTEGER NOT NULL, pid_life INTEGER NOT NULL")                                 \
	X(fps_readings, "every FPS meter read of the replay",                                      \
	  "capture_id INTEGER NOT NULL, tick_ns INTEGER NOT NULL,"                                 \
	  " fps REAL, source TEXT, fps_micro INTEGER, synthesized INTEGER NOT NULL")               \
	X(live_readings, "what the recorder's live meter read",                                    \
	  "capture_id INTEGER NOT NULL, tick_ns INTEGER NOT NULL,"                                 \
	  " fps REAL, source TEXT, fps_micro INTEGER")                                             \
	X(sysfs_samples, "every sysfs record, with its parsed value",                              \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"                                \
	  " raw TEXT, value REAL, errno INTEGER")                                                  \
	X(drops, "cumulative ring-buffer reservation failures",                                    \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"                                \
	  " reservation_failures INTEGER NOT NULL")                                                \
	X(events, "attach and exit records",                                                       \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL,"                                \
	  " kind TEXT NOT NULL, pid INTEGER NOT NULL, detail TEXT")

/*
 * The submissions' series (frames.series_interval_ns, filled by submissions.c: the calls
 * of each PID's main surface) are what the report's "submissions" section computes from;
 * the submission_* views give its numbers. Percentiles are nearest rank, truncated to the
 * microsecond as the report prints them (summary.c: 1 us buckets).
 */
#define DB_SERIES_SQL                                                                              \
	"SELECT capture_id, seq, ktime_ns, pid, pid_life, surface,"                                \
	" series_interval_ns AS d FROM frames WHERE series_interval_ns IS NOT NULL"
/*
 * submission_percentiles sorts once: its window numbers the intervals by size, and only the
 * rows at the five ranks are grouped (a GROUP BY of every interval would sort them again).
 */
#define DB_RANK_SQL(p) "(n * " #p " + 99) / 100"
#define DB_RANKS_SQL DB_RANK_SQL(50) ", " DB_RANK_SQL(90) ", " DB_RANK_SQL(95) ", " DB_RANK_SQL(99)
#define DB_PCT_SQL(p)                                                                              \
	" MIN(CASE WHEN rn = " DB_RANK_SQL(p) " THEN d END) / 1000 / 1e3 AS p" #p "_ms,"
#define DB_PCTS_SQL DB_PCT_SQL(50) DB_PCT_SQL(90) DB_PCT_SQL(95) DB_PCT_SQL(99)

/* X(name, what `db --help` says, the SELECT) for each view, in creation order. */
#define DB_VIEWS(X)                                                                                \
	X(frame_time_percentiles, "p50..max of the tracker's deltas, per capture",                 \
	  "WITH r AS (SELECT capture_id, delta_ns,"                                                \
	  "  ROW_NUMBER() OVER (PARTITION BY capture_id ORDER BY delta_ns) AS rn,"                 \
	  "  COUNT(*) OVER (PARTITION BY capture_id) AS n FROM tracker_deltas)"                    \
	  " SELECT capture_id, n AS deltas, n * 1e9 / SUM(delta_ns) AS mean_fps,"                  \
	  "  MIN(CASE WHEN rn >= (n * 50 + 99) / 100 THEN delta_ns END) / 1e6 AS p50_ms,"          \
	  "  MIN(CASE WHEN rn >= (n * 90 + 99) / 100 THEN delta_ns END) / 1e6 AS p90_ms,"          \
	  "  MIN(CASE WHEN rn >= (n * 95 + 99) / 100 THEN delta_ns END) / 1e6 AS p95_ms,"          \
	  "  MIN(CASE WHEN rn >= (n * 99 + 99) / 100 THEN delta_ns END) / 1e6 AS p99_ms,"          \
	  "  MAX(delta_ns) / 1e6 AS max_ms FROM r GROUP BY capture_id")                            \
	X(fps_over_time, "each meter read, with the live one at the same tick",                    \
	  "SELECT f.capture_id, f.tick_ns, (f.tick_ns - c.first_ktime_ns) / 1e9 AS t_s,"           \
	  "  f.fps, f.source, l.fps AS live_fps, l.source AS live_source"                          \
	  " FROM fps_readings f JOIN captures c USING (capture_id)"                                \
	  " LEFT JOIN live_readings l ON l.capture_id = f.capture_id AND l.tick_ns = f.tick_ns"    \
	  "  AND f.synthesized = 0")                                                               \
	X(janks, "PerfDog Jank/BigJank of the tracker's deltas",                                   \
	  "WITH w AS (SELECT capture_id, seq, ktime_ns, pid, delta_ns,"                            \
	  "  LAG(delta_ns, 1) OVER p AS d1, LAG(delta_ns, 2) OVER p AS d2,"                        \
	  "  LAG(delta_ns, 3) OVER p AS d3 FROM tracker_deltas"                                    \
	  "  WINDOW p AS (PARTITION BY capture_id, pid, pid_life ORDER BY seq))"                   \
	  " SELECT capture_id, seq, ktime_ns, pid, delta_ns, delta_ns / 1e6 AS delta_ms,"          \
	  "  (d1 + d2 + d3) / 3e6 AS prev3_mean_ms,"                                               \
	  "  CASE WHEN delta_ns > " DB_BIGJANK_NS_SQL " THEN 'BigJank' ELSE 'Jank' END AS kind"    \
	  " FROM w WHERE d3 IS NOT NULL AND delta_ns > " DB_JANK_NS_SQL                            \
	  "  AND 3 * delta_ns > 2 * (d1 + d2 + d3)")                                               \
	X(submissions, "every call with its interval on its surface; main flags",                  \
	  "SELECT f.capture_id, f.seq, f.ktime_ns, f.pid, f.tid, f.surface, f.buffer,"             \
	  "  f.pid_life, f.ktime_ns - LAG(f.ktime_ns) OVER s AS interval_ns,"                      \
	  "  f.series_interval_ns, f.surface = m.surface AS main, m.main_pid"                      \
	  " FROM frames f JOIN main_surfaces m ON m.capture_id = f.capture_id AND m.pid = f.pid"   \
	  " WINDOW s AS (PARTITION BY f.capture_id, f.pid, f.pid_life, f.surface ORDER BY f.seq)") \
	X(surfaces, "calls, buffers and calls/s per PID and surface; main flag",                   \
	  "SELECT f.capture_id, f.pid, f.surface, COUNT(*) AS calls,"                              \
	  "  COUNT(DISTINCT f.buffer) AS buffers, MIN(f.ktime_ns) AS first_ktime_ns,"              \
	  "  MAX(f.ktime_ns) AS last_ktime_ns,"                                                    \
	  "  CASE WHEN MAX(f.ktime_ns) > MIN(f.ktime_ns) THEN (COUNT(*) - 1) * 1e9"                \
	  "   / (MAX(f.ktime_ns) - MIN(f.ktime_ns)) END AS calls_per_s,"                           \
	  "  f.surface = m.surface AS main, m.main_pid"                                            \
	  " FROM frames f JOIN main_surfaces m ON m.capture_id = f.capture_id AND m.pid = f.pid"   \
	  " GROUP BY f.capture_id, f.pid, f.surface")                                              \
	X(submission_percentiles, "the report's submission numbers, per PID",                      \
	  "WITH r AS (SELECT capture_id, pid, d, ROW_NUMBER() OVER w AS rn, COUNT(*) OVER w AS n," \
	  "  TOTAL(d) OVER w AS sum_ns FROM (" DB_SERIES_SQL ") WINDOW w AS (PARTITION BY"         \
	  "  capture_id, pid ORDER BY d"                                                           \
	  "  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),"                          \
	  " a AS (SELECT capture_id, pid, n, n * 1e9 / sum_ns AS calls_per_s," DB_PCTS_SQL         \
	  "  MAX(d) / 1000 / 1e3 AS max_ms FROM r WHERE rn IN (" DB_RANKS_SQL ", n)"               \
	  "  GROUP BY capture_id, pid)"                                                            \
	  " SELECT m.capture_id, m.pid, m.surface, m.main_pid, ifnull(a.n, 0) AS intervals,"       \
	  "  a.calls_per_s, a.p50_ms, a.p90_ms, a.p95_ms, a.p99_ms, a.max_ms"                      \
	  " FROM main_surfaces m LEFT JOIN a ON a.capture_id = m.capture_id AND a.pid = m.pid")    \
	X(submission_janks, "PerfDog Jank/BigJank of the submissions",                             \
	  "WITH w AS (SELECT capture_id, seq, ktime_ns, pid, surface, d,"                          \
	  "  LAG(d, 1) OVER p AS d1, LAG(d, 2) OVER p AS d2, LAG(d, 3) OVER p AS d3"               \
	  "  FROM (" DB_SERIES_SQL ")"                                                             \
	  "  WINDOW p AS (PARTITION BY capture_id, pid, pid_life ORDER BY seq))"                   \
	  " SELECT w.capture_id, w.seq, w.ktime_ns, w.pid, w.surface, m.main_pid,"                 \
	  "  w.d AS interval_ns, w.d / 1e6 AS interval_ms, (d1 + d2 + d3) / 3e6 AS prev3_mean_ms," \
	  "  CASE WHEN w.d > " DB_BIGJANK_NS_SQL " THEN 'BigJank' ELSE 'Jank' END AS kind"         \
	  " FROM w JOIN main_surfaces m ON m.capture_id = w.capture_id AND m.pid = w.pid"          \
	  " WHERE d3 IS NOT NULL AND w.d > " DB_JANK_NS_SQL " AND 3 * w.d > 2 * (d1 + d2 + d3)")   \
	X(submission_fps_per_second, "the submissions' per-second FPS (GameBench)",                \
	  "WITH RECURSIVE s AS (" DB_SERIES_SQL "),"                                               \
	  " o AS (SELECT capture_id, pid, ktime_ns AS origin, MIN(seq) FROM s"                     \
	  "  GROUP BY capture_id, pid),"                                                           \
	  " ks AS (SELECT s.capture_id, s.pid, o.origin, CASE WHEN s.ktime_ns > o.origin"          \
	  "  THEN (s.ktime_ns - o.origin) / 1000000000 ELSE 0 END AS k"                            \
	  "  FROM s JOIN o ON o.capture_id = s.capture_id AND o.pid = s.pid),"                     \
	  " c AS (SELECT capture_id, pid, origin, k, COUNT(*) AS n FROM ks"                        \
	  "  GROUP BY capture_id, pid, k),"                                                        \
	  " b AS (SELECT capture_id, pid, origin, MIN(MAX(k), " DB_MAX_SECONDS_SQL ") AS nsec"     \
	  "  FROM c GROUP BY capture_id, pid),"                                                    \
	  " sec(capture_id, pid, origin, second, nsec) AS ("                                       \
	  "  SELECT capture_id, pid, origin, 0, nsec FROM b WHERE nsec > 0 UNION ALL"              \
	  "  SELECT capture_id, pid, origin, second + 1, nsec FROM sec WHERE second + 1 < nsec)"   \
	  " SELECT sec.capture_id, sec.pid, m.surface, m.main_pid, sec.second,"                    \
	  "  sec.origin + sec.second * 1000000000 AS start_ktime_ns, ifnull(c.n, 0) AS fps"        \
	  " FROM sec JOIN main_surfaces m ON m.capture_id = sec.capture_id AND m.pid = sec.pid"    \
	  " LEFT JOIN c ON c.capture_id = sec.capture_id AND c.pid = sec.pid"                      \
	  "  AND c.k = sec.second")                                                                \
	X(submission_summary, "the report's submissions section, one row per PID",                 \
	  "WITH j AS (SELECT capture_id, pid, COUNT(*) AS janks,"                                  \
	  "  COUNT(*) FILTER (WHERE kind = 'BigJank') AS big_janks FROM submission_janks"          \
	  "  GROUP BY capture_id, pid),"                                                           \
	  " q AS (SELECT capture_id, pid, fps,"                                                    \
	  "  ROW_NUMBER() OVER (PARTITION BY capture_id, pid ORDER BY fps) AS rn,"                 \
	  "  COUNT(*) OVER (PARTITION BY capture_id, pid) AS n FROM submission_fps_per_second),"   \
	  " md AS (SELECT capture_id, pid, n, MIN(fps) AS lo, MAX(fps) AS hi,"                     \
	  "  AVG(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN fps END) AS median FROM q"          \
	  "  GROUP BY capture_id, pid),"                                                           \
	  " st AS (SELECT q.capture_id, q.pid, 100.0 * SUM(q.fps >= md.median * 0.9"               \
	  "  AND q.fps <= md.median * 1.1) / md.n AS stability FROM q JOIN md"                     \
	  "  ON md.capture_id = q.capture_id AND md.pid = q.pid GROUP BY q.capture_id, q.pid)"     \
	  " SELECT p.*, ifnull(j.janks, 0) AS janks, ifnull(j.big_janks, 0) AS big_janks,"         \
	  "  ifnull(md.n, 0) AS full_seconds, md.lo AS per_second_min, md.hi AS per_second_max,"   \
	  "  md.median AS median_fps, st.stability AS stability_percent"                           \
	  " FROM submission_percentiles p"                                                         \
	  " LEFT JOIN j ON j.capture_id = p.capture_id AND j.pid = p.pid"                          \
	  " LEFT JOIN md ON md.capture_id = p.capture_id AND md.pid = p.pid"                       \
	  " LEFT JOIN st ON st.capture_id = p.capture_id AND st.pid = p.pid")

#define DB_TABLE_SQL(name, what, cols) "CREATE TABLE " #name "(" cols ");"
#define DB_VIEW_SQL(name, what, select) "CREATE VIEW " #name " AS " select ";"

/* Run inside db.c's BEGIN IMMEDIATE transaction (no BEGIN/COMMIT of its own). */
#define DB_SCHEMA_SQL                                                                              \
	"PRAGMA application_id=" DB_APPLICATION_ID_SQL ";"                                         \
	"PRAGMA user_version=" DB_SCHEMA_VERSION_SQL ";" DB_TABLES(DB_TABLE_SQL)                   \
	    DB_VIEWS(DB_VIEW_SQL)

#endif
