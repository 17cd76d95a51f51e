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
#define DB_SCHEMA_VERSION 9

/*
 * The per-second view keeps at most this many full windows per PID, as the report does
 * (REPORT_MAX_SECONDS, report_model.h; cmd_db.c asserts they are equal): a capture whose
 * frames claim years cannot make the view generate billions of rows per PID.
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
 * summary.c's histogram: intervals below this are counted in 1 us buckets (a percentile is
 * its bucket's start, the 1 % low takes a partly counted bucket's mean), longer ones one by
 * one (exact). The views' bucket key: summary.c's HIST_BUCKETS * BUCKET_NS.
 */
#define DB_HIST_NS_SQL "1048576000"

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
	  " ticks_skipped INTEGER, span_start_ns INTEGER, span_end_ns INTEGER,"                    \
	  " windowed INTEGER, full_windows INTEGER")                                               \
	X(capture_meta, "the header metadata pairs",                                               \
	  "capture_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL")                   \
	X(frames, "every queueBuffer call, with its submission interval",                          \
	  "capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"                                     \
	  " ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,"                \
	  " buffer INTEGER NOT NULL, surface INTEGER NOT NULL, pid_life INTEGER NOT NULL,"         \
	  " series_interval_ns INTEGER, series_window INTEGER")                                    \
	X(main_surfaces, "each PID's main surface and the capture's main PID",                     \
	  "capture_id INTEGER NOT NULL, pid INTEGER NOT NULL, surface INTEGER NOT NULL,"           \
	  " calls INTEGER NOT NULL, pid_calls INTEGER NOT NULL, surfaces INTEGER NOT NULL,"        \
	  " main_pid INTEGER NOT NULL, PRIMARY KEY (capture_id, pid)")                             \
	X(tracker_deltas, "every delta of the frame tracker",                                      \
	  "capture_id INTEGER NOT NULL, seq INTEGER NOT NULL,"                                     \
	  " ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL, buffer INTEGER NOT NULL,"             \
	  " delta_ns INTEGER NOT NULL, pid_life INTEGER NOT NULL")                                 \
	X(warm_intervals, "with --from: each series' last three intervals before the window",      \
	  "capture_id INTEGER NOT NULL, series TEXT NOT NULL, seq INTEGER NOT NULL,"               \
	  " pid INTEGER NOT NULL, pid_life INTEGER NOT NULL, delta_ns INTEGER NOT NULL")           \
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
	  " kind TEXT NOT NULL, pid INTEGER NOT NULL, detail TEXT")                                \
	X(layers, "each SurfaceFlinger layer followed; the content layer and its link rule",       \
	  "capture_id INTEGER NOT NULL, layer INTEGER NOT NULL, name TEXT NOT NULL,"               \
	  " first_ktime_ns INTEGER NOT NULL, gone_ktime_ns INTEGER, content INTEGER NOT NULL,"     \
	  " link_rule TEXT, link_pid INTEGER, link_surface INTEGER,"                               \
	  " PRIMARY KEY (capture_id, layer)")                                                      \
	X(presents, "every present row, with the linked frame's seq or NULL",                      \
	  "capture_id INTEGER NOT NULL, layer INTEGER NOT NULL, layer_row INTEGER NOT NULL,"       \
	  " ktime_ns INTEGER NOT NULL, desired_ns INTEGER NOT NULL, actual_ns INTEGER NOT NULL,"   \
	  " ready_ns INTEGER NOT NULL, frame_seq INTEGER, link TEXT, interval_ns INTEGER,"         \
	  " segment INTEGER NOT NULL, vsync_period_ns INTEGER, series_window INTEGER,"             \
	  " anchored INTEGER")                                                                     \
	X(vsync_periods, "the display's vsync period, at the start and at each change",            \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL, period_ns INTEGER NOT NULL")    \
	X(present_gaps, "present rows of a layer lost between two polls",                          \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL, layer INTEGER NOT NULL,"        \
	  " before_ns INTEGER NOT NULL, after_ns INTEGER NOT NULL")                                \
	X(threads, "the name of each thread that queued frames, and its renames",                  \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL,"          \
	  " tid INTEGER NOT NULL, name TEXT NOT NULL")                                             \
	X(buffers, "each buffer's geometry when first queued, and its changes",                    \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL,"          \
	  " surface INTEGER NOT NULL, buffer INTEGER NOT NULL, width INTEGER NOT NULL,"            \
	  " height INTEGER NOT NULL, stride INTEGER NOT NULL, format INTEGER NOT NULL,"            \
	  " usage INTEGER NOT NULL")                                                               \
	X(connections, "Surface::connect and disconnect calls, with their API",                    \
	  "capture_id INTEGER NOT NULL, ktime_ns INTEGER NOT NULL, pid INTEGER NOT NULL,"          \
	  " tid INTEGER NOT NULL, surface INTEGER NOT NULL, api INTEGER NOT NULL,"                 \
	  " connected INTEGER NOT NULL")                                                           \
	X(content_intervals, "what the truth followed: each PID's surface from when to when",      \
	  "capture_id INTEGER NOT NULL, pid INTEGER NOT NULL, surface INTEGER NOT NULL,"           \
	  " from_ns INTEGER NOT NULL, to_ns INTEGER NOT NULL, reason TEXT NOT NULL,"               \
	  " intervals INTEGER NOT NULL")

/*
 * The submissions' series (frames.series_interval_ns, filled by submissions.c: the calls
 * of each PID's main surface; frames.series_window, the full window each counts in, by
 * windows.h) are what the report's "submissions" section computes from; the submission_*
 * views give its numbers. Percentiles are nearest rank on summary.c's histogram: an
 * interval below DB_HIST_NS counts as its 1 us bucket's start (key), a longer one exactly.
 */
#define DB_SERIES_SQL                                                                              \
	"SELECT capture_id, seq, ktime_ns, pid, pid_life, surface,"                                \
	" series_interval_ns AS d, series_window FROM frames WHERE series_interval_ns IS NOT NULL"
#define DB_KEY_SQL "CASE WHEN d < " DB_HIST_NS_SQL " THEN d / 1000 * 1000 ELSE d END"
/*
 * A series for PerfDog's rule: its rows, after (warm = 1, never a result) the intervals
 * before the window the report's PerfDog windows start from (warm_intervals).
 */
#define DB_WARM_SQL(series, cols)                                                                  \
	"SELECT capture_id, seq, NULL AS ktime_ns, pid, pid_life, NULL AS surface,"                \
	" delta_ns AS d, 1 AS warm FROM warm_intervals WHERE series = '" series "'"                \
	" UNION ALL SELECT " cols ", 0 FROM "
#define DB_JANK_SQL(d)                                                                             \
	"warm = 0 AND d3 IS NOT NULL AND " d " > " DB_JANK_NS_SQL " AND 3 * " d                    \
	" > 2 * (d1 + d2 + d3)"
/*
 * submission_percentiles sorts once: its window numbers the intervals by key, and only the
 * rows at the ranks are grouped (a GROUP BY of every interval would sort them again).
 */
#define DB_RANK_SQL(p) "(n * " #p " + 99) / 100"
#define DB_RANKS_SQL DB_RANK_SQL(50) ", " DB_RANK_SQL(90) ", " DB_RANK_SQL(95) ", " DB_RANK_SQL(99)
#define DB_PCT_SQL(p)                                                                              \
	" MIN(CASE WHEN rn = " DB_RANK_SQL(p) " THEN key END) / 1000 / 1e3 AS p" #p "_ms,"
#define DB_PCTS_SQL DB_PCT_SQL(50) DB_PCT_SQL(90) DB_PCT_SQL(95) DB_PCT_SQL(99)
/*
 * The 1 % low as summary.c computes it: the mean of the slowest k = ceil(n / 100)
 * intervals, those above the k-th slowest one's bucket exactly (sum_ns - le_ns), and the
 * `left` of that bucket (b_n of them, b_ns their sum) that are among them as its mean.
 */
#define DB_LOW_K_SQL "((n + 99) / 100)"
#define DB_LOW_RANK_SQL "(n - " DB_LOW_K_SQL " + 1)"
#define DB_LOW_LEFT_SQL "(" DB_LOW_K_SQL " - (n - le_n))"
#define DB_LOW_SQL                                                                                 \
	"1e9 / ((sum_ns - le_ns + CASE WHEN " DB_LOW_LEFT_SQL " = b_n THEN b_ns"                   \
	" ELSE b_ns / b_n * " DB_LOW_LEFT_SQL " END) / " DB_LOW_K_SQL ")"
#define DB_TRUE_SQL(cond) "json(CASE WHEN " cond " THEN 'true' ELSE 'false' END)"
/*
 * The report's "surfaces" array of a capture: (PID, surface) pairs in order of first call
 * (the first 64; the rest's calls are surfaces_not_listed), buffers told apart up to 16,
 * calls/s from the first to the last call in file order (0 without a later one).
 */
#define DB_SURFACE_JSON_SQL                                                                        \
	"json_object('pid', f.pid, 'surface', printf('0x%x', f.surface), 'main', " DB_TRUE_SQL(    \
	    "f.surface = m.surface") ", 'calls', f.calls, 'buffers', MIN(f.buffers, 16),"          \
				     " 'buffers_more', " DB_TRUE_SQL(                              \
					 "f.buffers > 16") ", 'calls_per_s', json(printf('%.3f',"  \
							   " CASE WHEN l.k1 > f.k0 THEN (f.calls " \
							   "- 1) * 1e9 / (l.k1 - f.k0) ELSE 0 "    \
							   "END)))"

/*
 * The presented section (stats/display.h): a valid present time (not -1, 0 or INT64_MAX),
 * a gap whose two ends are known, the main PID's main-surface calls.
 */
#define DB_VALID_ACTUAL_SQL "(actual_ns > 0 AND actual_ns < 9223372036854775807)"
#define DB_VALID_P_ACTUAL_SQL "(p.actual_ns > 0 AND p.actual_ns < 9223372036854775807)"
#define DB_GAP_KNOWN_SQL "before_ns > 0 AND after_ns < 9223372036854775807 AND after_ns > before_ns"
#define DB_LAT_RANK50_SQL "((n * 50 + 99) / 100)"
#define DB_LAT_RANK99_SQL "((n * 99 + 99) / 100)"
/* The calls the rows link to (layers.link_pid, link_surface), numbered from 1 in file order. */
#define DB_LINK_CALLS_SQL                                                                          \
	"SELECT f.capture_id, f.seq, f.ktime_ns, ROW_NUMBER() OVER (PARTITION BY f.capture_id"     \
	" ORDER BY f.seq) AS ci FROM frames f JOIN (SELECT DISTINCT capture_id, link_pid,"         \
	" link_surface FROM layers WHERE link_pid IS NOT NULL) s ON s.capture_id = f.capture_id"   \
	" AND s.link_pid = f.pid AND s.link_surface = f.surface"
/* Per layer: the display frame times' percentiles (the submissions' rule), PerfDog. */
#define DB_DISPLAY_TIMES_SQL                                                                       \
	" iv AS (SELECT capture_id, layer, layer_row, segment, d, " DB_KEY_SQL " AS key"           \
	"  FROM (SELECT capture_id, layer, layer_row, segment, interval_ns AS d FROM presents"     \
	"  WHERE interval_ns IS NOT NULL)),"                                                       \
	" r AS (SELECT capture_id, layer, d, key, ROW_NUMBER() OVER o AS rn,"                      \
	"  COUNT(*) OVER a AS n, TOTAL(d) OVER a AS sum_ns, MAX(d) OVER a AS max_d FROM iv"        \
	"  WINDOW o AS (PARTITION BY capture_id, layer ORDER BY key),"                             \
	"  a AS (o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),"                    \
	" pc AS (SELECT capture_id, layer, n, sum_ns," DB_PCTS_SQL                                 \
	"  MAX(max_d) / 1000 / 1e3 AS max_ms FROM r WHERE rn IN (" DB_RANKS_SQL ")"                \
	"  GROUP BY capture_id, layer),"                                                           \
	" jw AS (SELECT capture_id, layer, d, LAG(d, 1) OVER p AS d1, LAG(d, 2) OVER p AS d2,"     \
	"  LAG(d, 3) OVER p AS d3 FROM iv"                                                         \
	"  WINDOW p AS (PARTITION BY capture_id, layer, segment ORDER BY layer_row)),"             \
	" jk AS (SELECT capture_id, layer, COUNT(*) AS janks,"                                     \
	"  COUNT(*) FILTER (WHERE d > " DB_BIGJANK_NS_SQL ") AS big_janks, SUM(d) AS jank_ns"      \
	"  FROM jw WHERE d3 IS NOT NULL AND d > " DB_JANK_NS_SQL " AND 3 * d > 2 * (d1 + d2 + d3)" \
	"  GROUP BY capture_id, layer),"
/* Per layer: counts, repeats, the link's tallies, the per-window counts and their median. */
#define DB_DISPLAY_COUNTS_SQL                                                                      \
	" pr AS (SELECT capture_id, layer, COUNT(*) AS rows,"                                      \
	"  COUNT(*) FILTER (WHERE " DB_VALID_ACTUAL_SQL ") AS presents,"                           \
	"  COUNT(interval_ns) AS frame_times, COUNT(series_window) AS win_frames,"                 \
	"  COUNT(*) FILTER (WHERE interval_ns IS NOT NULL AND vsync_period_ns > 0) AS rep_n,"      \
	"  ifnull(SUM(MAX(interval_ns / vsync_period_ns + (interval_ns % vsync_period_ns >="       \
	"  vsync_period_ns - vsync_period_ns / 2) - 1, 0)), 0) AS repeats,"                        \
	"  COUNT(frame_seq) AS linked, COUNT(*) FILTER (WHERE link = 'tight') AS tight,"           \
	"  COUNT(*) FILTER (WHERE link = 'by_order') AS by_order,"                                 \
	"  MIN(frame_seq) AS first_seq, MAX(frame_seq) AS last_seq FROM presents"                  \
	"  GROUP BY capture_id, layer),"                                                           \
	" k(capture_id, w, n) AS (SELECT capture_id, 0, MIN(full_windows, " DB_MAX_SECONDS_SQL ")" \
	"  FROM captures WHERE full_windows > 0 UNION ALL"                                         \
	"  SELECT capture_id, w + 1, n FROM k WHERE w + 1 < n),"                                   \
	" cw AS (SELECT capture_id, layer, series_window AS w, COUNT(*) AS n FROM presents"        \
	"  WHERE series_window IS NOT NULL GROUP BY capture_id, layer, series_window),"            \
	" q AS (SELECT k.capture_id, l.layer, ifnull(cw.n, 0) AS fps,"                             \
	"  ROW_NUMBER() OVER (PARTITION BY k.capture_id, l.layer ORDER BY ifnull(cw.n, 0)) AS rn," \
	"  COUNT(*) OVER (PARTITION BY k.capture_id, l.layer) AS n FROM k"                         \
	"  JOIN layers l ON l.capture_id = k.capture_id LEFT JOIN cw"                              \
	"  ON cw.capture_id = k.capture_id AND cw.layer = l.layer AND cw.w = k.w),"                \
	" md AS (SELECT capture_id, layer, MIN(fps) AS lo, MAX(fps) AS hi,"                        \
	"  AVG(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN fps END) AS median FROM q"            \
	"  GROUP BY capture_id, layer),"
/* Per layer: gaps, calls dropped / outside the linked range, submit -> present latency. */
#define DB_DISPLAY_LINK_SQL                                                                        \
	" g AS (SELECT capture_id, layer, COUNT(*) AS gaps,"                                       \
	"  ifnull(SUM(CASE WHEN " DB_GAP_KNOWN_SQL                                                 \
	" THEN after_ns - before_ns END), 0) AS unknown_ns,"                                       \
	"  COUNT(*) FILTER (WHERE NOT (" DB_GAP_KNOWN_SQL ")) AS unbounded FROM present_gaps"      \
	"  GROUP BY capture_id, layer),"                                                           \
	" mc AS (" DB_LINK_CALLS_SQL "),"                                                          \
	" lc AS (SELECT p.capture_id, p.layer, p.layer_row, p.segment, p.anchored, m.ci,"          \
	"  ROW_NUMBER() OVER (PARTITION BY p.capture_id, p.layer ORDER BY p.layer_row) AS lr"      \
	"  FROM presents p JOIN mc m ON m.capture_id = p.capture_id AND m.seq = p.frame_seq),"     \
	" ak AS (SELECT capture_id, layer, segment, ci, lr, LAG(ci) OVER w AS pci,"                \
	"  LAG(lr) OVER w AS plr, LAG(segment) OVER w AS pseg FROM lc WHERE anchored = 1"          \
	"  WINDOW w AS (PARTITION BY capture_id, layer ORDER BY layer_row)),"                      \
	" ac AS (SELECT capture_id, layer, COUNT(*) AS anchored, CAST(TOTAL(CASE WHEN pseg ="      \
	"  segment THEN ci - pci - 1 - (lr - plr - 1) END) AS INTEGER) AS certain FROM ak"         \
	"  GROUP BY capture_id, layer),"                                                           \
	" ls AS (SELECT capture_id, layer, MIN(ci) AS lo, MAX(ci) AS hi, COUNT(*) AS n FROM lc"    \
	"  GROUP BY capture_id, layer),"                                                           \
	" dx AS (SELECT capture_id, layer, MAX(desired_ns) AS latest FROM presents"                \
	"  GROUP BY capture_id, layer),"                                                           \
	" dr AS (SELECT ls.capture_id, ls.layer, ifnull(ac.anchored, 0) AS anchored,"              \
	"  ifnull(ac.certain, 0) AS dropped, ls.hi - ls.lo + 1 - ls.n - ifnull(ac.certain, 0)"     \
	"  + (SELECT COUNT(*) FROM mc WHERE mc.capture_id = ls.capture_id AND mc.ci > ls.hi"       \
	"  AND mc.ktime_ns <= dx.latest) AS uncertain, (SELECT COUNT(*) FROM mc WHERE"             \
	"  mc.capture_id = ls.capture_id AND mc.ktime_ns > dx.latest) AS after_last_row,"          \
	"  ls.lo - 1 AS before_n, (SELECT COUNT(*) FROM mc WHERE mc.capture_id = ls.capture_id"    \
	"  AND mc.ci > ls.hi) AS after_n FROM ls JOIN dx ON dx.capture_id = ls.capture_id"         \
	"  AND dx.layer = ls.layer LEFT JOIN ac ON ac.capture_id = ls.capture_id"                  \
	"  AND ac.layer = ls.layer),"                                                              \
	" lt AS (SELECT p.capture_id, p.layer, p.actual_ns - f.ktime_ns AS v FROM presents p"      \
	"  JOIN frames f ON f.capture_id = p.capture_id AND f.seq = p.frame_seq"                   \
	"  WHERE " DB_VALID_P_ACTUAL_SQL " AND p.actual_ns >= f.ktime_ns),"                        \
	" lr AS (SELECT capture_id, layer, v, ROW_NUMBER() OVER o AS rn, COUNT(*) OVER a AS n"     \
	"  FROM lt WINDOW o AS (PARTITION BY capture_id, layer ORDER BY v),"                       \
	"  a AS (PARTITION BY capture_id, layer)),"                                                \
	" la AS (SELECT capture_id, layer, MAX(n) AS n,"                                           \
	"  MIN(CASE WHEN rn = " DB_LAT_RANK50_SQL " THEN v END) / 1000 / 1e3 AS p50,"              \
	"  MIN(CASE WHEN rn = " DB_LAT_RANK99_SQL " THEN v END) / 1000 / 1e3 AS p99,"              \
	"  MAX(v) / 1000 / 1e3 AS mx FROM lr GROUP BY capture_id, layer)"
#define DB_DISPLAY_JOIN_SQL(t)                                                                     \
	" LEFT JOIN " t " ON " t ".capture_id = l.capture_id AND " t ".layer = l.layer"

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
	  "WITH w AS (SELECT capture_id, seq, ktime_ns, pid, d AS delta_ns, warm,"                 \
	  "  LAG(d, 1) OVER p AS d1, LAG(d, 2) OVER p AS d2, LAG(d, 3) OVER p AS d3"               \
	  "  FROM (" DB_WARM_SQL(                                                                  \
	      "tracker",                                                                           \
	      "capture_id, seq, ktime_ns, pid, pid_life, NULL,"                                    \
	      " delta_ns") "tracker_deltas)"                                                       \
			   "  WINDOW p AS (PARTITION BY capture_id, pid, pid_life ORDER BY seq))"  \
			   " SELECT capture_id, seq, ktime_ns, pid, delta_ns, delta_ns / 1e6 AS "  \
			   "delta_ms,"                                                             \
			   "  (d1 + d2 + d3) / 3e6 AS prev3_mean_ms,"                              \
			   "  CASE WHEN delta_ns > " DB_BIGJANK_NS_SQL                             \
			   " THEN 'BigJank' ELSE 'Jank' END AS kind"                               \
			   " FROM w WHERE " DB_JANK_SQL("delta_ns"))                               \
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
	  "WITH r AS (SELECT capture_id, pid, d, key, ROW_NUMBER() OVER o AS rn,"                  \
	  "  COUNT(*) OVER a AS n, TOTAL(d) OVER a AS sum_ns, MAX(d) OVER a AS max_d,"             \
	  "  COUNT(*) OVER o AS le_n, TOTAL(d) OVER o AS le_ns,"                                   \
	  "  COUNT(*) OVER b AS b_n, TOTAL(d) OVER b AS b_ns"                                      \
	  "  FROM (SELECT capture_id, pid, d, " DB_KEY_SQL " AS key FROM (" DB_SERIES_SQL "))"     \
	  "  WINDOW o AS (PARTITION BY capture_id, pid ORDER BY key),"                             \
	  "  a AS (o ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),"                   \
	  "  b AS (o RANGE BETWEEN CURRENT ROW AND CURRENT ROW)),"                                 \
	  " x AS (SELECT capture_id, pid, n, sum_ns, n * 1e9 / sum_ns AS mean_fps," DB_PCTS_SQL    \
	  "  MAX(max_d) / 1000 / 1e3 AS max_ms,"                                                   \
	  "  MIN(CASE WHEN rn = " DB_LOW_RANK_SQL " THEN " DB_LOW_SQL " END) AS low_1pct_fps"      \
	  "  FROM r WHERE rn IN (" DB_RANKS_SQL ", " DB_LOW_RANK_SQL ") GROUP BY capture_id, pid)" \
	  " SELECT m.capture_id, m.pid, m.surface, m.main_pid, ifnull(x.n, 0) AS intervals,"       \
	  "  x.mean_fps, x.p50_ms, x.p90_ms, x.p95_ms, x.p99_ms, x.max_ms, x.low_1pct_fps,"        \
	  "  ifnull(CAST(x.sum_ns AS INTEGER), 0) AS interval_sum_ns"                              \
	  " FROM main_surfaces m LEFT JOIN x ON x.capture_id = m.capture_id AND x.pid = m.pid")    \
	X(submission_janks, "PerfDog Jank/BigJank of the submissions",                             \
	  "WITH w AS (SELECT capture_id, seq, ktime_ns, pid, surface, d, warm,"                    \
	  "  LAG(d, 1) OVER p AS d1, LAG(d, 2) OVER p AS d2, LAG(d, 3) OVER p AS d3"               \
	  "  FROM (" DB_WARM_SQL("submission",                                                     \
				 "capture_id, seq, ktime_ns, pid, pid_life,"                       \
				 " surface, d") "(" DB_SERIES_SQL "))"                             \
						"  WINDOW p AS (PARTITION BY capture_id, pid, "    \
						"pid_life ORDER BY seq))"                          \
						" SELECT w.capture_id, w.seq, w.ktime_ns, w.pid, " \
						"w.surface, m.main_pid,"                           \
						"  w.d AS interval_ns, w.d / 1e6 AS interval_ms, " \
						"(d1 + d2 + d3) / 3e6 AS prev3_mean_ms,"           \
						"  CASE WHEN w.d > " DB_BIGJANK_NS_SQL             \
						" THEN 'BigJank' ELSE 'Jank' END AS kind"          \
						" FROM w JOIN main_surfaces m ON m.capture_id = "  \
						"w.capture_id AND m.pid = w.pid"                   \
						" WHERE " DB_JANK_SQL("w.d"))                      \
	X(submission_fps_per_second, "the submissions' FPS in each full 1 s window (GameBench)",   \
	  "WITH RECURSIVE k(capture_id, second, n, start) AS ("                                    \
	  "  SELECT capture_id, 0, MIN(full_windows, " DB_MAX_SECONDS_SQL "), span_start_ns"       \
	  "  FROM captures WHERE full_windows > 0 UNION ALL"                                       \
	  "  SELECT capture_id, second + 1, n, start FROM k WHERE second + 1 < n),"                \
	  " c AS (SELECT capture_id, pid, series_window AS second, COUNT(*) AS n FROM frames"      \
	  "  WHERE series_window IS NOT NULL GROUP BY capture_id, pid, series_window)"             \
	  " SELECT k.capture_id, m.pid, m.surface, m.main_pid, k.second,"                          \
	  "  k.start + k.second * 1000000000 AS start_ktime_ns, ifnull(c.n, 0) AS fps"             \
	  " FROM k JOIN main_surfaces m ON m.capture_id = k.capture_id"                            \
	  " LEFT JOIN c ON c.capture_id = k.capture_id AND c.pid = m.pid AND c.second = k.second") \
	X(submission_summary, "the report's submissions section, one row per PID",                 \
	  "WITH j AS (SELECT capture_id, pid, COUNT(*) AS janks,"                                  \
	  "  COUNT(*) FILTER (WHERE kind = 'BigJank') AS big_janks, SUM(interval_ns) AS jank_ns"   \
	  "  FROM submission_janks GROUP BY capture_id, pid),"                                     \
	  " q AS (SELECT capture_id, pid, fps,"                                                    \
	  "  ROW_NUMBER() OVER (PARTITION BY capture_id, pid ORDER BY fps) AS rn,"                 \
	  "  COUNT(*) OVER (PARTITION BY capture_id, pid) AS n FROM submission_fps_per_second),"   \
	  " md AS (SELECT capture_id, pid, n, MIN(fps) AS lo, MAX(fps) AS hi,"                     \
	  "  AVG(CASE WHEN rn IN ((n + 1) / 2, n / 2 + 1) THEN fps END) AS median FROM q"          \
	  "  GROUP BY capture_id, pid),"                                                           \
	  " st AS (SELECT q.capture_id, q.pid, 100.0 * SUM(q.fps >= md.median * 0.9"               \
	  "  AND q.fps <= md.median * 1.1) / md.n AS stability FROM q JOIN md"                     \
	  "  ON md.capture_id = q.capture_id AND md.pid = q.pid GROUP BY q.capture_id, q.pid),"    \
	  " wf AS (SELECT f.capture_id, f.pid, COUNT(*) AS n FROM frames f JOIN captures c"        \
	  "  ON c.capture_id = f.capture_id WHERE f.series_window < c.full_windows"                \
	  "  GROUP BY f.capture_id, f.pid),"                                                       \
	  " sf AS (SELECT capture_id, pid, surface, COUNT(*) AS calls,"                            \
	  "  COUNT(DISTINCT buffer) AS buffers, MIN(seq) AS s0, ktime_ns AS k0 FROM frames"        \
	  "  GROUP BY capture_id, pid, surface),"                                                  \
	  " sl AS (SELECT capture_id, pid, surface, MAX(seq) AS s1, ktime_ns AS k1 FROM frames"    \
	  "  GROUP BY capture_id, pid, surface),"                                                  \
	  " so AS (SELECT f.capture_id, f.calls, " DB_SURFACE_JSON_SQL " AS o,"                    \
	  "  ROW_NUMBER() OVER (PARTITION BY f.capture_id ORDER BY f.s0) AS r FROM sf f"           \
	  "  JOIN sl l USING (capture_id, pid, surface) JOIN main_surfaces m"                      \
	  "  ON m.capture_id = f.capture_id AND m.pid = f.pid),"                                   \
	  " sa AS (SELECT capture_id, r, json_group_array(json(o)) FILTER (WHERE r <= 64) OVER w"  \
	  "  AS surfaces, ifnull(SUM(calls) FILTER (WHERE r > 64) OVER w, 0) AS not_listed"        \
	  "  FROM so WINDOW w AS (PARTITION BY capture_id ORDER BY r"                              \
	  "  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))"                           \
	  " SELECT p.capture_id, p.pid, p.surface, p.main_pid,"                                    \
	  "  (SELECT COUNT(*) FROM main_surfaces x WHERE x.capture_id = p.capture_id) AS pids,"    \
	  "  ifnull(sa.surfaces, '[]') AS surfaces,"                                               \
	  "  ifnull(sa.not_listed, 0) AS surfaces_not_listed, m.pid_calls AS main_pid_calls,"      \
	  "  m.calls AS main_surface_calls, p.intervals, p.mean_fps, p.p50_ms, p.p90_ms,"          \
	  "  p.p95_ms, p.p99_ms, p.max_ms, p.low_1pct_fps, ifnull(j.janks, 0) AS janks,"           \
	  "  ifnull(j.big_janks, 0) AS big_janks, ifnull(j.jank_ns, 0) / 1000 / 1e3 AS "           \
	  "jank_time_ms,"                                                                          \
	  "  CASE WHEN p.intervals > 0 THEN ifnull(j.jank_ns, 0) * 100.0 / p.interval_sum_ns"      \
	  "  ELSE 0.0 END AS stutter_percent, c.full_windows,"                                     \
	  "  CASE WHEN c.full_windows > 0 THEN ifnull(wf.n, 0) * 1.0 / c.full_windows END"         \
	  "  AS window_fps, c.full_windows > " DB_MAX_SECONDS_SQL " AS windows_cut,"               \
	  "  md.lo AS per_second_min, md.hi AS per_second_max, md.median AS median_fps,"           \
	  "  st.stability AS stability_percent, p.interval_sum_ns"                                 \
	  " FROM submission_percentiles p JOIN captures c ON c.capture_id = p.capture_id"          \
	  " JOIN main_surfaces m ON m.capture_id = p.capture_id AND m.pid = p.pid"                 \
	  " LEFT JOIN j ON j.capture_id = p.capture_id AND j.pid = p.pid"                          \
	  " LEFT JOIN md ON md.capture_id = p.capture_id AND md.pid = p.pid"                       \
	  " LEFT JOIN st ON st.capture_id = p.capture_id AND st.pid = p.pid"                       \
	  " LEFT JOIN wf ON wf.capture_id = p.capture_id AND wf.pid = p.pid"                       \
	  " LEFT JOIN sa ON sa.capture_id = p.capture_id AND sa.r = 1")                            \
	X(display_summary, "the report's presented section, one row per layer",                    \
	  "WITH RECURSIVE" DB_DISPLAY_TIMES_SQL DB_DISPLAY_COUNTS_SQL DB_DISPLAY_LINK_SQL          \
	  " SELECT l.capture_id, l.layer, l.name, l.content, l.link_rule,"                         \
	  "  ifnull(pr.rows, 0) AS rows, ifnull(pr.presents, 0) AS presents,"                      \
	  "  CASE WHEN c.span_end_ns > c.span_start_ns THEN ifnull(pr.presents, 0) * 1e9"          \
	  "  / (c.span_end_ns - c.span_start_ns) END AS display_fps,"                              \
	  "  CASE WHEN c.full_windows > 0 THEN ifnull(pr.win_frames, 0) * 1.0 / c.full_windows"    \
	  "  END AS window_fps, md.lo AS per_window_min, md.hi AS per_window_max,"                 \
	  "  md.median AS per_window_median, ifnull(pr.frame_times, 0) AS frame_times,"            \
	  "  pc.p50_ms, pc.p90_ms, pc.p95_ms, pc.p99_ms, pc.max_ms,"                               \
	  "  ifnull(jk.janks, 0) AS janks, ifnull(jk.big_janks, 0) AS big_janks,"                  \
	  "  ifnull(jk.jank_ns, 0) / 1000 / 1e3 AS jank_time_ms,"                                  \
	  "  CASE WHEN pc.sum_ns > 0 THEN ifnull(jk.jank_ns, 0) * 100.0 / pc.sum_ns ELSE 0.0 END"  \
	  "  AS stutter_percent, CASE WHEN pr.rep_n > 0 OR ifnull(pr.frame_times, 0) = 0"          \
	  "  THEN ifnull(pr.repeats, 0) END AS repeats, ifnull(g.gaps, 0) AS gaps,"                \
	  "  ifnull(g.unknown_ns, 0) / 1000 / 1e3 AS gap_unknown_ms,"                              \
	  "  ifnull(g.unbounded, 0) AS gaps_unbounded, ifnull(pr.tight, 0) AS tight,"              \
	  "  ifnull(pr.by_order, 0) AS by_order,"                                                  \
	  "  ifnull(pr.rows, 0) - ifnull(pr.linked, 0) AS unlinked,"                               \
	  "  CASE WHEN pr.rows > 0 THEN pr.tight * 1.0 / pr.rows ELSE 0.0 END AS confidence,"      \
	  "  dr.anchored, dr.dropped, dr.uncertain, dr.after_last_row,"                            \
	  "  dr.before_n AS calls_before, dr.after_n AS calls_after,"                              \
	  "  ifnull(la.n, 0) AS latency_presents, la.p50 AS latency_p50_ms,"                       \
	  "  la.p99 AS latency_p99_ms, la.mx AS latency_max_ms"                                    \
	  " FROM layers l JOIN captures c ON c.capture_id = l.capture_id" DB_DISPLAY_JOIN_SQL(     \
	      "pr") DB_DISPLAY_JOIN_SQL("pc") DB_DISPLAY_JOIN_SQL("jk") DB_DISPLAY_JOIN_SQL("md")  \
	      DB_DISPLAY_JOIN_SQL("g") DB_DISPLAY_JOIN_SQL("dr") DB_DISPLAY_JOIN_SQL("la"))

#define DB_TABLE_SQL(name, what, cols) "CREATE TABLE " #name "(" cols ");"
#define DB_VIEW_SQL(name, what, select) "CREATE VIEW " #name " AS " select ";"

/* Run inside db.c's BEGIN IMMEDIATE transaction (no BEGIN/COMMIT of its own). */
#define DB_SCHEMA_SQL                                                                              \
	"PRAGMA application_id=" DB_APPLICATION_ID_SQL ";"                                         \
	"PRAGMA user_version=" DB_SCHEMA_VERSION_SQL ";" DB_TABLES(DB_TABLE_SQL)                   \
	    DB_VIEWS(DB_VIEW_SQL)

#endif
