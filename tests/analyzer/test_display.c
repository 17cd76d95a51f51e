/* SPDX-License-Identifier: MIT */
/*
 * test_display.c - what SurfaceFlinger presented, in `frameanalyze report` (the
 * "presented" section, REPORT.md "Presented") and `frameanalyze db` (its tables). Every
 * case runs the real binary; each expected number is worked out by hand in the comment
 * above it from the scenario's construction (fixtures/display/present_mailbox.txt's
 * header, or the small text written here), never taken from the program's output.
 * One executable, each case its own CTest test (analyzer.display_<case>).
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frc_case.h"

static char dir[256];
static char *out_text, *err_text;

static char *slurp(const char *p)
{
	FILE *f = fopen(p, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4097 > cap) {
			cap = (n + 4097) * 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static const char *path(const char *name)
{
	static char p[8][512];
	static int next;
	char *s = p[next++ % 8];

	snprintf(s, 512, "%s/%s", dir, name);
	return s;
}

/* Run "CMD" through the shell; stdout in out_text, stderr in err_text; the exit code. */
static int run(const char *cmd)
{
	char full[2600];
	int st;

	snprintf(full, sizeof(full), "%s >'%s/out' 2>'%s/err'", cmd, dir, dir);
	st = system(full);
	ck_assert(WIFEXITED(st));
	free(out_text);
	free(err_text);
	out_text = slurp(path("out"));
	err_text = slurp(path("err"));
	ck_assert_ptr_nonnull(out_text);
	ck_assert_ptr_nonnull(err_text);
	return WEXITSTATUS(st);
}

static int fa(const char *args)
{
	char cmd[1800];

	snprintf(cmd, sizeof(cmd), "'%s' %s", FRAMEANALYZE_BIN, args);
	return run(cmd);
}

#define ck_out_has(s) ck_assert_msg(strstr(out_text, s), "stdout lacks [%s]:\n%s", s, out_text)

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_display.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

#define MAILBOX FIXTURES_BIN_DIR "/display/present_mailbox.frc"

/*
 * present_mailbox (its header has the construction; P = 8333333, L(k) = 1008000000 + kP,
 * actual = L(k) + P = L(k+1)):
 * - rows: A 120 (k = 0..119) + B 60 (k = 120..238 even) + C 60 (k = 260..378 even) = 240,
 *   every actual valid: presents 240.
 * - span: the first record (vsync, layers) at 1000000000 .. the last, C's k = 378 row at
 *   L(379) + 100 us = 1008000000 + 379 * 8333333 + 100000 = 4166433207: 3.166433207 s;
 *   display FPS = 240 / 3.166433207 = 75.795 (75.7950...); 3 full windows.
 * - frame times: A's 119 (P each), A->B (k = 119 -> 120: P), B's 59 (2P), none across the
 *   gap, C's 59 (2P): 238 = 120 x P + 118 x 2P. Nearest rank: p50 = 119th = P -> 8.333;
 *   p90 = 215th, p95 = 227th, p99 = 236th, max: 2P -> 16.666 (truncated to the us).
 * - windows [1 s + w s, ...), a frame time in the window of its end L(j), j = k + 1:
 *   L(j) < 2 s <=> jP < 992 ms <=> j <= 119: A's ends j = 2..119: 118; window 1: A's j =
 *   120 and B's 60 (j = 121..239, L(239) = 1.999666587 s): 61; window 2: C's ends j = 263,
 *   265 .. and L(j) < 3 s <=> j <= 359: (359 - 263) / 2 + 1 = 49. Window FPS =
 *   (118 + 61 + 49) / 3 = 76.000; min 49, max 118, median 61.
 * - repeats: a 2P frame time is 2 vsyncs: 1 repeat; 118 of them; P: none. 118.
 * - the gap: after - before = L(261) - L(239) = 22P = 183333326 ns: 183.333 ms, bounded.
 * - no frame time > 84 ms: 0 janks, stutter 0.000.
 * - link: 361 calls (231 + 60 + 10 + 60), each row's desired 20 us after its call (tight,
 *   2 ms): 240 tight. More calls than rows (361 > 1.01 x 240): "replacing". The first linked
 *   call is A's k = 0 late call, index 1 (the 6 ms one of k = 0 comes first): before 1; the
 *   last linked is the last call: after 0. Every row is anchored (its call 20 us before it,
 *   within PL_ANCHOR_NS): 240. Dropped, between two anchored rows of one segment: A's 110
 *   replaced early calls of k = 1..119 (119 - 9 of them); the gap's 10 calls lie between
 *   B's last row (segment 0) and C's first (segment 1): uncertain 10 (they may have been
 *   shown in the rows lost); after the last row 0 (the last call is linked). 1 + 240 +
 *   110 + 10 + 0 = 361. Confidence 1.
 * - submit -> present: A and B: L(k) + P - (L(k) - 0.5 ms) = 8833333 (180 rows); C: P +
 *   3 ms = 11333333 (60). p50 = 120th = 8.833, p99 = 238th = 11.333.
 */
START_TEST(mailbox_json)
{
	ck_assert_int_eq(fa("report --json '" MAILBOX "'"), 0);
	/* the report opens with what was presented */
	ck_out_has("{\n  \"frameanalyze_report\": 1,\n  \"presented\": {\n    \"layers\": 2,\n");
	ck_out_has("    \"vsync_period_ns\": 8333333,\n    \"vsync_changes\": 0,\n");
	ck_out_has("    \"content_layer\": 1,\n");
	ck_out_has("      \"rows\": 240,\n      \"presents\": 240,\n"
		   "      \"display_fps\": 75.795,\n      \"window_fps\": 76.000,\n"
		   "      \"per_window_min\": 49.000,\n      \"per_window_max\": 118.000,\n"
		   "      \"per_window_median\": 61.000,\n      \"frame_times\": 238,\n"
		   "      \"p50_ms\": 8.333,\n      \"p90_ms\": 16.666,\n"
		   "      \"p95_ms\": 16.666,\n      \"p99_ms\": 16.666,\n"
		   "      \"max_ms\": 16.666,\n      \"janks\": 0,\n      \"big_janks\": 0,\n");
	ck_out_has("      \"stutter_percent\": 0.000,\n      \"repeats\": 118,\n");
	ck_out_has("      \"gaps\": 1,\n      \"gap_unknown_ms\": 183.333,\n"
		   "      \"gaps_unbounded\": 0,\n");
	ck_out_has("        \"rule\": \"replacing\",\n        \"tolerance_ms\": 2.000,\n"
		   "        \"tight\": 240,\n        \"by_order\": 0,\n        \"unlinked\": 0,\n"
		   "        \"anchored\": 240,\n        \"dropped\": 110,\n"
		   "        \"uncertain\": 10,\n        \"after_last_row\": 0,\n"
		   "        \"calls_before\": 1,\n"
		   "        \"calls_after\": 0,\n        \"confidence\": 1.000,\n"
		   "        \"latency_presents\": 240,\n        \"latency_p50_ms\": 8.833,\n"
		   "        \"latency_p99_ms\": 11.333,\n");
	/* layer 2 (the window) is followed, shows nothing */
	ck_out_has("      \"name\": \"com.example.game/com.example.game.MainActivity#40\",\n"
		   "      \"gone\": false,\n      \"rows\": 0,\n      \"presents\": 0,\n");
}
END_TEST

/*
 * The text view, and the verdict against the display: submitted window FPS = intervals of
 * the main surface in the full windows / 3. Window 0 holds all of A's 231 calls (the last,
 * k = 119's late one, at 1008000000 + 119P - 0.5 ms = 1999166627 < 2 s): 230 intervals;
 * window 1 B's 60 calls (2007499960 .. 2990833254); window 2 the gap's 10 (from 3007499920)
 * and C's calls at 1005000000 + kP below 4 s, k <= 358: 50. (230 + 60 + 60) / 3 = 116.667
 * against 76: (350 - 228) / 228 = +53.509 %.
 */
START_TEST(mailbox_text)
{
	ck_assert_int_eq(fa("report '" MAILBOX "'"), 0);
	ck_assert_msg(!strncmp(out_text, "presented (", 11), "%s", out_text);
	ck_out_has("  content layer            1 (its presents link to pid 2100 surface "
		   "0xb4000078e2a45c10, the main surface)\n");
	ck_out_has("  layer 1 (content)        "
		   "SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#42\n");
	ck_out_has("  display FPS              75.795 (presents / 3.166 s span)\n");
	ck_out_has("  per window               min 49, max 118, median 61.000\n");
	ck_out_has("  repeats                  118 vsyncs showed the previous buffer again\n");
	ck_out_has("  gaps                     1 (183.333 ms unknown, 0 of unknown length)\n");
	ck_out_has("  dropped                  110 calls never presented (between anchored rows: "
		   "240 of 240 rows)\n");
	ck_out_has("  uncertain                10 calls not shown, not known dropped; 0 queued "
		   "after the last row (1 before the first linked, 0 after the last)\n");
	ck_out_has("  submit->present          p50 8.833 / p99 11.333 ms (240 linked presents)\n");
	ck_out_has("heuristics vs display (the content layer)\n");
	ck_out_has("  submitted                116.667 FPS, +53.509 % vs 76.000 FPS presented "
		   "(window FPS)\n");
	/* then what was submitted, as before */
	ck_out_has("submissions (the app's queueBuffer calls, no heuristic)\n");
	ck_assert(strstr(out_text, "presented (") < strstr(out_text, "submissions ("));
}
END_TEST

/* A capture without present records: no presented section, the report starts as before. */
START_TEST(no_presents_no_section)
{
	ck_assert_int_eq(fa("report --json '" FIXTURES_BIN_DIR "/hz120_double.frc'"), 0);
	ck_out_has("{\n  \"frameanalyze_report\": 1,\n  \"content\": {\n");
	ck_out_has("\n  \"submissions\": {\n");
	ck_assert_ptr_null(strstr(out_text, "presented"));
	ck_assert_ptr_null(strstr(out_text, "display_verdict"));
	ck_assert_int_eq(fa("report '" FIXTURES_BIN_DIR "/hz120_double.frc'"), 0);
	ck_assert_msg(!strncmp(out_text, "content (", 9), "%s", out_text);
}
END_TEST

/*
 * Calls of pid 5 surface 0x1 at 1000, 1010 and 1020 ms; no vsync record. Layer 1 rows
 * (desired / actual, ms): r0 995 / 1005 (before every call: unlinked), r1 1000.1 / 1016.6
 * (tight: call 0), r2 1015 / -1 (call 1 is 5 ms before: by order; an invalid fence), r3
 * 1020.5 / 1050 (tight: call 2). Mode: rows at or after the first call 3, calls up to the
 * last desired 3: not more than 1 % more: "queueing", so r2 links the oldest waiting call,
 * 1. tight 2, by order 1, unlinked 1, dropped 0, before 0, after 0, confidence 2 / 4 =
 * 0.500. Anchored: r1 (tight, its call 100 us before it: within PL_ANCHOR_NS), r2 (a
 * single candidate: after r1's call 0 the next is call 1, and r3 needs call 2), r3 (after
 * r2's call 1 only call 2; 0.5 ms is tight but past PL_ANCHOR_NS): 3; nothing uncertain,
 * no call after r3's desired. Presents (valid actual): 3; frame times 11.6 and 33.4 ms (over r2);
 * no vsync period: repeats null. Latency of linked valid rows: r1 16.6, r3 30: p50 (rank 1) 16.600,
 * p99 (rank 2) 30.000. Span 1000 .. 1060 ms (the poll): 60 ms, 3 / 0.06 = 50.000 FPS, no
 * full window. Layer 2 (never announced): one row desired 900 ms, unlinked, and a gap with
 * both times unknown: 1 unbounded gap, 0 ms known. Content: layer 1 (3 linked vs 0).
 */
START_TEST(link_rules_small)
{
	const char *txt = path("s.txt"), *frc = path("s.frc");
	FILE *f = fopen(txt, "w");
	char args[1200];

	ck_assert_ptr_nonnull(f);
	fputs("layer 1000000000 1 new game#7\n"
	      "frame 1000000000 5 6 0x10 0x1\n"
	      "frame 1010000000 5 6 0x20 0x1\n"
	      "frame 1020000000 5 6 0x10 0x1\n"
	      "present 1060000000 1 995000000 1005000000 995000000\n"
	      "present 1060000000 1 1000100000 1016600000 1000100000\n"
	      "present 1060000000 1 1015000000 -1 1015000000\n"
	      "present 1060000000 1 1020500000 1050000000 1020500000\n"
	      "present 1060000000 2 900000000 950000000 900000000\n"
	      "present_gap 1060000000 2 0 0\n",
	      f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "report --json '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("    \"vsync_period_ns\": null,\n");
	ck_out_has("    \"content_layer\": 1,\n");
	ck_out_has("      \"rows\": 4,\n      \"presents\": 3,\n      \"display_fps\": 50.000,\n"
		   "      \"window_fps\": null,\n");
	ck_out_has("      \"frame_times\": 2,\n      \"p50_ms\": 11.600,\n");
	ck_out_has("      \"max_ms\": 33.400,\n");
	ck_out_has("      \"repeats\": null,\n");
	ck_out_has("        \"rule\": \"queueing\",\n        \"tolerance_ms\": 2.000,\n"
		   "        \"tight\": 2,\n        \"by_order\": 1,\n        \"unlinked\": 1,\n"
		   "        \"anchored\": 3,\n        \"dropped\": 0,\n"
		   "        \"uncertain\": 0,\n        \"after_last_row\": 0,\n"
		   "        \"calls_before\": 0,\n"
		   "        \"calls_after\": 0,\n        \"confidence\": 0.500,\n"
		   "        \"latency_presents\": 2,\n        \"latency_p50_ms\": 16.600,\n"
		   "        \"latency_p99_ms\": 30.000,\n");
	ck_out_has("    \"layer_2\": {\n      \"id\": 2,\n      \"name\": \"\",\n");
	ck_out_has("      \"gaps\": 1,\n      \"gap_unknown_ms\": 0.000,\n"
		   "      \"gaps_unbounded\": 1\n");
	snprintf(args, sizeof(args), "report '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  layer 2                  (no name)\n");
	ck_out_has("  repeats                  unknown (no vsync period)\n");
	ck_out_has("  link                     queueing (FIFO), tolerance 2 ms: 2 tight, 1 by "
		   "order; confidence 0.500\n");
}
END_TEST

/* ------------------------------------------------------------ db */

/* The first row of sql on the database at p, its columns joined by '|' (NULL: "-"). */
static char *q(const char *p, const char *sql)
{
	static char buf[4096];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t o = 0;

	ck_assert_int_eq(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *v = sqlite3_column_text(st, i);
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? "|" : "",
					      v ? (const char *)v : "-");
		}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

/*
 * The db's display_summary gives the report's presented numbers (mailbox_json's comment
 * has each one worked out): layer 1 is the content layer, replacing; layer 2 has nothing.
 */
START_TEST(db_summary)
{
	const char *dbp = path("m.db");
	char args[800];

	snprintf(args, sizeof(args), "db '%s' -o '%s'", MAILBOX, dbp);
	ck_assert_int_eq(fa(args), 0);
	ck_assert_str_eq(q(dbp, "SELECT layer, content, link_rule, rows, presents,"
				" printf('%.3f', display_fps), printf('%.3f', window_fps),"
				" per_window_min, per_window_max, per_window_median, frame_times,"
				" p50_ms, p90_ms, p95_ms, p99_ms, max_ms FROM display_summary"
				" WHERE capture_id = 1 AND layer = 1"),
			 "1|1|replacing|240|240|75.795|76.000|49|118|61.0|238|8.333|16.666|16.666|"
			 "16.666|16.666");
	ck_assert_str_eq(
	    q(dbp, "SELECT janks, big_janks, jank_time_ms, stutter_percent, repeats,"
		   " gaps, gap_unknown_ms, gaps_unbounded, tight, by_order, unlinked,"
		   " confidence, anchored, dropped, uncertain, after_last_row,"
		   " calls_before, calls_after, latency_presents,"
		   " latency_p50_ms, latency_p99_ms, latency_max_ms FROM display_summary"
		   " WHERE capture_id = 1 AND layer = 1"),
	    "0|0|0.0|0.0|118|1|183.333|0|240|0|0|1.0|240|110|10|0|1|0|240|8.833|11.333|"
	    "11.333");
	ck_assert_str_eq(q(dbp, "SELECT layer, content, link_rule, rows, presents, frame_times,"
				" p50_ms, dropped FROM display_summary WHERE layer = 2"),
			 "2|0|-|0|0|0|-|-");
	/* the tables: 361 calls, 240 rows all linked, one vsync period, one gap */
	ck_assert_str_eq(q(dbp, "SELECT COUNT(*), COUNT(frame_seq), COUNT(interval_ns),"
				" COUNT(DISTINCT segment) FROM presents"),
			 "240|240|238|2");
	ck_assert_str_eq(q(dbp, "SELECT period_ns FROM vsync_periods"), "8333333");
	/* before = L(239) = 1008000000 + 239P, after = L(261) */
	ck_assert_str_eq(q(dbp, "SELECT layer, before_ns, after_ns FROM present_gaps"),
			 "1|2999666587|3182999913");
	/* A's k = 0 row shows the second call (seq 1), 20 us before its desired */
	ck_assert_str_eq(q(dbp, "SELECT p.frame_seq, p.link, p.desired_ns - f.ktime_ns FROM"
				" presents p JOIN frames f ON f.seq = p.frame_seq"
				" WHERE p.layer_row = 0"),
			 "1|tight|20000");
}
END_TEST

/*
 * link_rules_small's scenario in the db: r0 unlinked, r1 -> call 0 (seq 0) tight, r2 ->
 * call 1 by order, r3 -> call 2 tight; r2's fence is invalid: no frame time at r2, r3's
 * spans it (1050 - 1016.6 = 33.4 ms); no vsync record: repeats NULL.
 */
START_TEST(db_small)
{
	const char *txt = path("s.txt"), *frc = path("s.frc"), *dbp = path("s.db");
	FILE *f = fopen(txt, "w");
	char args[1200];

	ck_assert_ptr_nonnull(f);
	fputs("layer 1000000000 1 new game#7\n"
	      "frame 1000000000 5 6 0x10 0x1\n"
	      "frame 1010000000 5 6 0x20 0x1\n"
	      "frame 1020000000 5 6 0x10 0x1\n"
	      "present 1060000000 1 995000000 1005000000 995000000\n"
	      "present 1060000000 1 1000100000 1016600000 1000100000\n"
	      "present 1060000000 1 1015000000 -1 1015000000\n"
	      "present 1060000000 1 1020500000 1050000000 1020500000\n",
	      f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "db '%s' -o '%s'", frc, dbp);
	ck_assert_int_eq(fa(args), 0);
	ck_assert_str_eq(q(dbp, "SELECT group_concat(ifnull(frame_seq, '-') || ':' ||"
				" ifnull(link, '-') || ':' || ifnull(interval_ns, '-'), ' ') FROM"
				" (SELECT * FROM presents ORDER BY layer_row)"),
			 "-:-:- 0:tight:11600000 1:by_order:- 2:tight:33400000");
	ck_assert_str_eq(q(dbp, "SELECT link_rule, rows, presents, printf('%.3f', display_fps),"
				" ifnull(window_fps, '-'), ifnull(repeats, 'null'), tight,"
				" by_order, unlinked, confidence, dropped, latency_p50_ms,"
				" latency_p99_ms FROM display_summary"),
			 "queueing|4|3|50.000|-|null|2|1|1|0.5|0|16.6|30.0");
}
END_TEST

/* A capture without display records: the tables and the view are empty. */
START_TEST(db_no_presents)
{
	const char *dbp = path("h.db");
	char args[800];

	snprintf(args, sizeof(args), "db '%s/hz120_double.frc' -o '%s'", FIXTURES_BIN_DIR, dbp);
	ck_assert_int_eq(fa(args), 0);
	ck_assert_str_eq(q(dbp, "SELECT (SELECT COUNT(*) FROM layers), (SELECT COUNT(*) FROM"
				" presents), (SELECT COUNT(*) FROM vsync_periods), (SELECT COUNT(*)"
				" FROM present_gaps), (SELECT COUNT(*) FROM display_summary)"),
			 "0|0|0|0|0");
}
END_TEST

/* ------------------------------------------------------------ score (display truth) */

/* The number after "KEY": on the first line of stdout holding pat; NAN for null. */
static double jnum(const char *pat, const char *key)
{
	char k[96];
	const char *line = strstr(out_text, pat), *eol, *v;

	ck_assert_msg(line != NULL, "no [%s] in:\n%s", pat, out_text);
	eol = strchr(line, '\n');
	snprintf(k, sizeof(k), "\"%s\": ", key);
	v = strstr(line, k);
	ck_assert_msg(v != NULL && (!eol || v < eol), "no %s on the line of [%s]", key, pat);
	v += strlen(k);
	return strncmp(v, "null", 4) ? strtod(v, NULL) : NAN;
}

#define ck_near(got, want, tol)                                                                    \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		ck_assert_msg(fabs(g_ - w_) <= (tol), "%s = %.6f, want %.6f", #got, g_, w_);       \
	} while (0)

#define KALA "{\"name\": \"kala\","
#define MAIN "{\"name\": \"main-surface\","
#define FRCW_MAIN "{\"meter\": \"frc-window\", \"tracker\": \"main-surface\","

/* present_mailbox without its present rows (layers and vsync kept: the same span, 1 s..). */
static const char *mailbox_no_presents(void)
{
	const char *txt = path("nop.txt"), *frc = path("nop.frc");
	char cmd[1800];

	snprintf(cmd, sizeof(cmd),
		 "'%s' export '" MAILBOX "' | grep -v -E '^present(_gap)? ' >'%s'",
		 FRAMEANALYZE_BIN, txt);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(cmd), 0);
	return frc;
}

/*
 * score on present_mailbox (the numbers of mailbox_json and mailbox_text above): the truth
 * is the display's. Truth frame times: 238 (120 x P + 118 x 2P), their sum = (L(240) -
 * L(1)) + (L(379) - L(261)) = 1983333254 + 983333294 = 2966666548 ns: mean FPS 238e9 / that
 * = 80.225; per window 118, 61, 49: window FPS 76.000; p50 P = 8.333, p95 = p99 = 2P =
 * 16.666 ms; no frame time > 84 ms: no janks.
 * main-surface follows every call: its estimate is the submissions, 230, 60, 60 per
 * window (mailbox_text): window FPS 116.667, (350 - 228) / 228 = +53.509 %; MAE
 * (|230 - 118| + |60 - 61| + |60 - 49|) / 3 = 124 / 3 = 41.333, the worst +112 in window 0;
 * mean FPS 360 intervals / (4154999874 - 1002000000) ns = 114.177, +42.321 % against
 * 80.225; p50 error 5.500 (the submissions' p50: the report) - 8.333 = -2.833 ms.
 * Meters, at the synthesized ticks 2, 3 and 4 s: the display truth FPS at each = frame
 * times ending in the second before = 118, 61, 49 (sum 228), the submissions' 230, 60, 60
 * (350); MAE% = MAE x 3 / sum x 100, so MAE x 300 / MAE% gives back each truth's sum.
 */
START_TEST(score_mailbox_display)
{
	ck_assert_int_eq(
	    fa("score --json --tracker kala,main-surface --meter frc-window '" MAILBOX "'"), 0);
	ck_out_has("\"truth\": \"display\", \"content_layer\": {\"id\": 1, \"name\": "
		   "\"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#42\", "
		   "\"presents\": 240}, \"submitted_window_fps\": 116.667, ");
	ck_out_has("\"full_windows\": 3, \"truth_mean_fps\": 80.225, \"truth_window_fps\": 76.000, "
		   "\"truth_p50_ms\": 8.333, \"truth_p95_ms\": 16.666, \"truth_p99_ms\": 16.666, "
		   "\"truth_janks\": 0,");
	ck_out_has("\"aggregate\": {\"captures\": 1, \"truth_display\": 1, "
		   "\"truth_submissions\": 0,");
	ck_near(jnum(MAIN, "window_fps"), 116.667, 0.0005);
	ck_near(jnum(MAIN, "window_fps_error_percent"), 53.509, 0.0005);
	ck_near(jnum(MAIN, "window_fps_mae"), 41.333, 0.0005);
	ck_out_has(MAIN " \"full_windows\": 3, \"mean_fps\": 114.177, "
			"\"mean_fps_error_percent\": 42.321, ");
	ck_out_has("\"worst_window\": {\"start_s\": 0, \"error_fps\": 112}, "
		   "\"p50_error_ms\": -2.833, ");
	ck_near(jnum(FRCW_MAIN, "meter_ticks"), 3, 0);
	ck_near(jnum(FRCW_MAIN, "meter_mae") * 300 / jnum(FRCW_MAIN, "meter_mae_percent"), 228,
		0.5);
}
END_TEST

/*
 * The same calls without the present rows: the truth is the submissions (230, 60, 60),
 * and every estimate is the same as against the display: only the errors move. kala's
 * window FPS w (3w frame times) is -67.714 % against 350 here and (3w - 228) / 228 against
 * the display; its p50 error moves by the truths' p50s, 8.333 - 5.500 = 2.833 ms.
 * frc-window fed by main-surface reads the submissions to within e (its MAE here); against
 * the display its error sum is then within 3e of 124 (the triangle inequality).
 */
START_TEST(score_mailbox_submissions)
{
	const char *nop = mailbox_no_presents();
	char args[1200];
	double w, p50, e;

	ck_assert_int_eq(
	    fa("score --json --tracker kala,main-surface --meter frc-window '" MAILBOX "'"), 0);
	w = jnum(KALA, "window_fps");
	p50 = jnum(KALA, "p50_error_ms");
	ck_near(jnum(KALA, "window_fps_error_percent"), (3 * w - 228) / 228 * 100, 0.02);
	snprintf(args, sizeof(args),
		 "score --json --tracker kala,main-surface --meter frc-window '%s'", nop);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"truth\": \"submissions\", \"content_layer\": null, "
		   "\"submitted_window_fps\": 116.667, ");
	ck_out_has("\"truth_window_fps\": 116.667, \"truth_p50_ms\": 5.500, ");
	ck_out_has("\"truth_display\": 0, \"truth_submissions\": 1,");
	ck_near(jnum(KALA, "window_fps"), w, 0);
	ck_near(jnum(KALA, "window_fps_error_percent"), (3 * w - 350) / 350 * 100, 0.02);
	ck_near(jnum(KALA, "p50_error_ms") - p50, 2.833, 0.0015);
	ck_near(jnum(MAIN, "window_fps_error_percent"), 0, 0);
	ck_near(jnum(MAIN, "window_fps_mae"), 0, 0);
	ck_near(jnum(FRCW_MAIN, "meter_mae") * 300 / jnum(FRCW_MAIN, "meter_mae_percent"), 350,
		0.5);
	e = jnum(FRCW_MAIN, "meter_mae");
	ck_assert_int_eq(
	    fa("score --json --tracker kala,main-surface --meter frc-window '" MAILBOX "'"), 0);
	ck_assert_msg(fabs(jnum(FRCW_MAIN, "meter_mae") * 3 - 124) <= 3 * e + 0.003,
		      "frc-window MAE %.3f vs display, %.3f vs submissions",
		      jnum(FRCW_MAIN, "meter_mae"), e);
}
END_TEST

/*
 * The text says which truth per capture, and the pooled line how many of each; the first
 * line states both rules.
 */
START_TEST(score_text_says_truth)
{
	char args[1200];

	snprintf(args, sizeof(args), "score --tracker kala --meter frc-window '" MAILBOX "' '%s'",
		 mailbox_no_presents());
	ck_assert_int_eq(fa(args), 0);
	ck_assert_msg(
	    !strncmp(out_text,
		     "score: 2 captures; truth: what was displayed (the content layer) "
		     "where a capture has presents, else\n  the main surface of the "
		     "capture's main PID (REPORT.md \"Score\")\n\n",
		     strlen("score: 2 captures; truth: what was displayed (the content "
			    "layer) where a capture has presents, else\n  the main "
			    "surface of the capture's main PID (REPORT.md \"Score\")\n\n")),
	    "%s", out_text);
	ck_out_has(
	    "  truth: display, content layer 1 (240 presents; REPORT.md \"Score\")\n"
	    "  layer 1: SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#42\n"
	    "  calls: pid 2100 (361 of 361 frames), main surface 0xb4000078e2a45c10 (361 "
	    "calls, 1 surface)\n"
	    "  presented: mean 80.225 FPS, window 76.000 FPS (3 full windows)\n"
	    "  submitted: window 116.667 FPS (not the truth here)\n");
	ck_out_has("nop.frc\n  truth: pid 2100 (361 of 361 frames), main surface "
		   "0xb4000078e2a45c10 (361 calls, 1 surface)\n"
		   "  submitted: mean 114.177 FPS, window 116.667 FPS (3 full windows)\n");
	ck_out_has("all 2 captures pooled, each against its truth: 1 display, 1 submissions\n");
	/* a set without presents keeps its first line */
	snprintf(args, sizeof(args), "score --tracker kala '%s'", path("nop.frc"));
	ck_assert_int_eq(fa(args), 0);
	ck_assert_msg(!strncmp(out_text,
			       "score: 1 capture; truth: the main surface of each capture's main "
			       "PID (REPORT.md \"Score\")\n\n",
			       80),
		      "%s", out_text);
	ck_out_has("\nall 1 captures pooled (p50/p95/p99: mean absolute error; worst's capture: "
		   "JSON)\n");
}
END_TEST

/*
 * --from 1 --to 3: the span 2 .. 4 s, 2 full windows. The rows recorded in it (display.c's,
 * as the report's): A's k = 119 (polled at 2.0081 s), B's 60, C's k = 260 .. 358 (polled
 * before 4 s): 111 presents. Frame times: k = 119's starts at k = 118's actual, the row
 * before the window (the present before the window's first, as the call before the window
 * starts the submissions' first interval), so window 0 holds 61 (k = 119's P, k = 120's
 * from 119, then 59 of 2P), window 1 C's 49 (mailbox_json): (61 + 49) / 2 = 55.000. The
 * layer's name comes from its layer record at 1 s, before the window. main-surface's
 * windows (the submissions, warmed by the calls before 2 s): 60 and 60, so the MAE is
 * (|60 - 61| + |60 - 49|) / 2 = 6.
 */
START_TEST(score_window_display)
{
	ck_assert_int_eq(fa("score --json --tracker main-surface --from 1 --to 3 '" MAILBOX "'"),
			 0);
	ck_out_has("\"truth\": \"display\", \"content_layer\": {\"id\": 1, \"name\": "
		   "\"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#42\", "
		   "\"presents\": 111}, \"submitted_window_fps\": 60.000, ");
	ck_out_has("\"full_windows\": 2, \"truth_mean_fps\": ");
	ck_out_has("\"truth_window_fps\": 55.000, ");
	ck_near(jnum(MAIN, "window_fps_mae"), (1 + 11) / 2.0, 0.0005);
}
END_TEST

/*
 * The report's presented section in the same window (score_window_display's numbers): 111
 * presents, 1 gap, so 110 display frame times (the first from k = 118's actual, before the
 * window); per window 61 and 49; the vsync period (8333333, its record at 1 s) and both
 * layers' names are known from the records before the window.
 */
START_TEST(report_window_first_frame_time)
{
	ck_assert_int_eq(fa("report --json --from 1 --to 3 '" MAILBOX "'"), 0);
	ck_out_has("\"vsync_period_ns\": 8333333,");
	ck_out_has("\"name\": \"SurfaceView[com.example.game/com.example.game.MainActivity]"
		   "(BLAST)#42\",");
	ck_out_has("\"name\": \"com.example.game/com.example.game.MainActivity#40\",");
	ck_out_has("\"window_fps\": 55.000,\n      \"per_window_min\": 49.000,\n"
		   "      \"per_window_max\": 61.000,");
	ck_out_has("\"frame_times\": 110,");
}
END_TEST

/*
 * Presents that link to no call (every row's desired time, 1.01 and 1.026 s, is before the
 * first call at 2 s): no content layer, the truth stays the submissions, and the text says
 * why (the 61 calls of pid 5's one surface, 0x1, every 16.666667 ms from 2 s).
 */
START_TEST(score_presents_unlinked)
{
	const char *txt = path("u.txt"), *frc = path("u.frc");
	FILE *f = fopen(txt, "w");
	char args[1200];

	ck_assert_ptr_nonnull(f);
	fputs("vsync 1000000000 16666667\nlayer 1000000000 1 new Other#1\n"
	      "present 1050000000 1 1010000000 1016666667 1010000000\n"
	      "present 1050000000 1 1026666667 1033333334 1026666667\n",
	      f);
	for (int i = 0; i <= 60; i++)
		fprintf(f, "frame %lld 5 6 0x%x 0x1\n", 2000000000LL + i * 16666667LL,
			0x10 + 0x10 * (i % 3));
	ck_assert_int_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "score --tracker kala '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  truth: pid 5 (61 of 61 frames), main surface 0x1 (61 calls, 1 surface)\n"
		   "  presents: none linked to the main surface: the truth is the submissions\n");
	snprintf(args, sizeof(args), "score --json --tracker kala '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"truth\": \"submissions\", \"content_layer\": null, ");
}
END_TEST

/* The points of the first "<g class=CLS><path class=line d=..." in text: its M/L count. */
static int line_points(const char *text, const char *cls)
{
	char want[64];
	const char *p;
	int n = 0;

	snprintf(want, sizeof(want), "<g class=\"%s\"><path class=\"line\" d=\"", cls);
	p = strstr(text, want);
	if (!p)
		return -1;
	for (p += strlen(want); *p && *p != '"'; p++)
		n += *p == 'M' || *p == 'L';
	return n;
}

/*
 * The HTML page of a capture with presents draws presented next to submitted per full
 * window (issue 20 item 4): the content layer's 118/61/49 frame times and the main
 * surface's 230/60/60 intervals (mailbox_text's windows), one point per window, on a scale
 * above the larger (230). A page without presents has no such chart.
 */
START_TEST(html_presented_chart)
{
	char args[1024];
	const char *chart;

	snprintf(args, sizeof(args), "report --html '%s'", MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	chart = strstr(out_text, "id=\"chart-presented\"");
	ck_assert_msg(chart, "no presented chart");
	ck_assert_int_eq(line_points(chart, "s-pres"), 3);
	ck_assert_int_eq(line_points(chart, "s-sub"), 3);
	ck_assert(strstr(chart, "presented (content layer)"));
	snprintf(args, sizeof(args), "report --html '%s/steady_60hz_triple.frc'", FIXTURES_BIN_DIR);
	ck_assert_int_eq(fa(args), 0);
	ck_assert(!strstr(out_text, "chart-presented"));
}
END_TEST

/*
 * The cells of the page's score-table row of tracker name (html_score_display): v[i] the
 * i-th number, NAN for "-" (nothing to measure).
 */
static void score_row(const char *page, const char *name, double v[9])
{
	char want[96];
	const char *p, *eor;

	snprintf(want, sizeof(want), "<tr><th>%s</th>", name);
	p = strstr(strstr(page, "id=\"scores\""), want);
	ck_assert_msg(p, "no score row %s", name);
	eor = strstr(p, "</tr>");
	p += strlen(want);
	for (int i = 0; i < 9; i++) {
		p = strstr(p, "<td>");
		ck_assert_msg(p && p < eor, "row %s: cell %d missing", name, i);
		p += 4;
		v[i] = *p == '-' && p[1] == '<' ? NAN : strtod(p, NULL);
	}
}

/* got equals score's printed number (both %.3f of the same double) or both are null. */
#define ck_same(got, want)                                                                         \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		ck_assert_msg((isnan(g_) && isnan(w_)) || g_ == w_, "%s = %.3f, score's %.3f",     \
			      #got, g_, w_);                                                       \
	} while (0)

/*
 * The page's score table grades against the display when the capture has presents, as
 * `score` does (score_mailbox_display's hand numbers): main-surface's row is mean FPS
 * +42.321 %, window FPS +53.509 %, MAE 124 / 228 = 54.386 %, p50 5.500 - 8.333 = -2.833
 * ms, p95 and p99 2P on both sides (+0.000), no janks on either side (-, -). Every row
 * equals what `score` prints for the same capture (its default meter is the page's). The
 * note names the truth in score's words; without the present rows: the submissions.
 */
START_TEST(html_score_display)
{
	static const char *const trackers[] = {"kala", "surface", "process", "main-surface"};
	static const char *const keys[9] = {"mean_fps_error_percent", "window_fps_error_percent",
					    "window_fps_mae_percent", "p50_error_ms",
					    "p95_error_ms",	      "p99_error_ms",
					    "jank_precision",	      "jank_recall",
					    "meter_mae_percent"};
	char args[1024], pat[64];
	double v[9];
	char *page;

	snprintf(args, sizeof(args), "report --html '%s'", MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("<p class=\"note\" id=\"score-truth\">truth: display, content layer 1 (240 "
		   "presents; analyzer/REPORT.md \"Score\"): SurfaceView[com.example.game/"
		   "com.example.game.MainActivity](BLAST)#42; ");
	ck_out_has("<tr><th>main-surface</th><td>42.321 %</td><td>53.509 %</td><td>54.386 %"
		   "</td><td>-2.833</td><td>+0.000</td><td>+0.000</td><td>-</td><td>-</td>");
	page = strdup(out_text);
	ck_assert_ptr_nonnull(page);
	ck_assert_int_eq(fa("score --json '" MAILBOX "'"), 0);
	for (size_t t = 0; t < sizeof(trackers) / sizeof(trackers[0]); t++) {
		score_row(page, trackers[t], v);
		snprintf(pat, sizeof(pat), "{\"name\": \"%s\",", trackers[t]);
		for (int i = 0; i < 9; i++)
			ck_same(v[i], jnum(pat, keys[i]));
	}
	free(page);
	snprintf(args, sizeof(args), "report --html '%s'", mailbox_no_presents());
	ck_assert_int_eq(fa(args), 0);
	ck_assert(!strstr(out_text, "score-truth"));
	ck_out_has("Errors against the submissions of the main surface");
	ck_out_has("<tr><th>main-surface</th><td>0.000 %</td><td>0.000 %</td><td>0.000 %</td>");
}
END_TEST

/* jnum on the part of stdout from the first [from] on (compare's "after" side). */
static double jnum_from(const char *from, const char *pat, const char *key)
{
	char *all = out_text, *at = strstr(out_text, from);
	double v;

	ck_assert_msg(at, "no [%s] in:\n%s", from, out_text);
	out_text = at;
	v = jnum(pat, key);
	out_text = all;
	return v;
}

#define GRADING "\"grading\": {"

/*
 * compare's two variants are graded against the display when the capture has presents,
 * as score grades them: main-surface with frc-window (A) and auriya-10fe7c6 (B) on
 * present_mailbox have score's MAE and MAE % for those pairs, and MAE x 300 / MAE % gives
 * back the display truth's sum at the 3 ticks, 118 + 61 + 49 = 228 (score_mailbox_display;
 * the submissions' would be 350). The text, JSON and HTML name the truth in score's
 * words; without the present rows the truth is the submissions (350) and says so.
 */
START_TEST(compare_variants_display)
{
	static const char opts[] = "--tracker main-surface --meter frc-window "
				   "--meter auriya-10fe7c6";
	char args[1200], nop[512];
	double mae[2], pct[2];

	ck_assert_int_eq(fa("score --json --tracker main-surface '" MAILBOX "'"), 0);
	mae[0] = jnum(FRCW_MAIN, "meter_mae");
	pct[0] = jnum(FRCW_MAIN, "meter_mae_percent");
	mae[1] =
	    jnum("{\"meter\": \"auriya-10fe7c6\", \"tracker\": \"main-surface\",", "meter_mae");
	pct[1] = jnum("{\"meter\": \"auriya-10fe7c6\", \"tracker\": \"main-surface\",",
		      "meter_mae_percent");
	snprintf(args, sizeof(args), "compare %s --json '%s'", opts, MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  \"truth\": \"display\", \"content_layer\": {\"id\": 1, \"name\": "
		   "\"SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#42\", "
		   "\"presents\": 240},\n  \"before\": ");
	ck_same(jnum(GRADING, "meter_mae"), mae[0]);
	ck_same(jnum(GRADING, "meter_mae_percent"), pct[0]);
	ck_same(jnum_from("\"after\"", GRADING, "meter_mae"), mae[1]);
	ck_same(jnum_from("\"after\"", GRADING, "meter_mae_percent"), pct[1]);
	for (int i = 0; i < 2; i++)
		ck_near(mae[i] * 300 / pct[i], 228, 0.5);
	snprintf(args, sizeof(args), "compare %s '%s'", opts, MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("against the display (REPORT.md \"Score\", meters)\n  truth: display, content "
		   "layer 1 (240 presents; REPORT.md \"Score\")\n  layer 1: SurfaceView[");
	ck_out_has("  MAE vs display (FPS)  ");
	snprintf(args, sizeof(args), "compare %s --html '%s'", opts, MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("<h2>Against the display</h2>\n<p id=\"truth\">truth: display, content layer 1 "
		   "(240 presents; REPORT.md \"Score\"): SurfaceView[");
	snprintf(nop, sizeof(nop), "%s", mailbox_no_presents());
	snprintf(args, sizeof(args), "compare %s --json '%s'", opts, nop);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  \"truth\": \"submissions\", \"content_layer\": null,\n");
	ck_near(jnum(GRADING, "meter_mae") * 300 / jnum(GRADING, "meter_mae_percent"), 350, 0.5);
	snprintf(args, sizeof(args), "compare %s '%s'", opts, nop);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("against the submissions (REPORT.md \"Score\", meters)\n  truth: 3 ticks");
	ck_out_has("  MAE vs submissions (FPS)  ");
}
END_TEST

/* The sum of the dropped markers' counts whose time is in [lo, hi) s (chart-dropped). */
static unsigned long dropped_in(const char *chart, double lo, double hi)
{
	static const char key[] = "<title>dropped at ";
	unsigned long sum = 0;
	const char *end = strstr(chart, "</svg>");

	for (const char *p = strstr(chart, key); p && p < end; p = strstr(p + 1, key)) {
		char *rest;
		double t = strtod(p + strlen(key), &rest);

		ck_assert_msg(!strncmp(rest, " s: ", 4), "marker title [%.40s]", p);
		if (t >= lo && t < hi)
			sum += strtoul(rest + 4, NULL, 10);
	}
	return sum;
}

/*
 * The latency and dropped charts of present_mailbox (mailbox_json's construction; t0 =
 * 1 s, window w = [1 + w, 2 + w) s of the actual present L(k + 1)):
 * - latency per full window, over all linked rows: window 0: L(k + 1) < 2 s <=> k + 1 <=
 *   119: A's k = 0..118, 119 rows of P + 0.5 ms = 8.833 ms; window 1: k + 1 <= 239: A's
 *   k = 119 and B's 60 (8.833): 61; window 2: k + 1 <= 359: C's k = 260..358 even, 50
 *   rows of P + 3 ms = 11.333. Each window's p50 = p99 = that value; 3 points per line.
 * - dropped: 110 (mailbox_json): A's 110 replaced early calls at 2 ms + kP after t0
 *   (k = 1..119, not k % 13 = 12: 10.3 .. 993.7 ms); the gap's 10 calls at L(k) - 0.5
 *   ms, k = 240..258 even (2.007 .. 2.158 s), are uncertain (across the gap): no marker;
 *   none elsewhere.
 * A page without presents has neither chart.
 */
START_TEST(html_latency_dropped)
{
	char args[1024];
	const char *chart, *half;

	snprintf(args, sizeof(args), "report --html '%s'", MAILBOX);
	ck_assert_int_eq(fa(args), 0);
	chart = strstr(out_text, "id=\"chart-latency\"");
	ck_assert_msg(chart, "no latency chart");
	ck_assert_int_eq(line_points(chart, "s-lat50"), 3);
	ck_assert_int_eq(line_points(chart, "s-lat99"), 3);
	ck_out_has("<title>window 0: p50 8.833 ms, p99 8.833 ms (119 presents)</title>");
	ck_out_has("<title>window 1: p50 8.833 ms, p99 8.833 ms (61 presents)</title>");
	ck_out_has("<title>window 2: p50 11.333 ms, p99 11.333 ms (50 presents)</title>");
	ck_assert(!strstr(out_text, "<title>window 3:"));
	/* the axis names whole windows: 0, 1, 2 (no tick between two points) */
	ck_assert(strstr(chart, "text-anchor=\"middle\">2</text>\n<text class=\"axis\""));
	half = strstr(chart, ">0.5</text>");
	ck_assert(!half || half > strstr(chart, "</svg>"));
	chart = strstr(out_text, "id=\"chart-dropped\"");
	ck_assert_msg(chart, "no dropped chart");
	ck_assert(strstr(chart, ">dropped (110)</text>"));
	ck_assert_uint_eq(dropped_in(chart, 0, 1.0), 110);
	ck_assert_uint_eq(dropped_in(chart, 2.0, 2.2), 0);
	ck_assert_uint_eq(dropped_in(chart, 0, 1e9), 110);
	snprintf(args, sizeof(args), "report --html '%s'", mailbox_no_presents());
	ck_assert_int_eq(fa(args), 0);
	ck_assert(!strstr(out_text, "chart-latency"));
	ck_assert(!strstr(out_text, "chart-dropped"));
}
END_TEST

/*
 * A long capture keeps the latency chart bounded: 2101 seconds, call s at 1.1 + s s,
 * presented (desired 20 us after it, the poll 100 us after the present) 5 + (s % 3) ms
 * later. The span 1 s .. the last poll (2101.107 s) has 2100 full windows, more than 960
 * points: per = ceil(2100 / 960) = 3 windows a point, 700 points. Point p holds windows
 * 3p .. 3p + 2, latencies 5, 6, 7 ms: p50 the 2nd (6), p99 the 3rd (7), 3 presents; call
 * 2100's present is in no full window. Nothing is dropped.
 */
START_TEST(html_latency_bounded)
{
	const char *txt = path("long.txt"), *frc = path("long.frc");
	FILE *f = fopen(txt, "w");
	char args[1200];
	const char *chart;

	ck_assert_ptr_nonnull(f);
	fputs("meta recorder hand\nmeta clock CLOCK_MONOTONIC\nmeta target com.example.game\n"
	      "meta target.pid 2100\nvsync 1000000000 16666666\n"
	      "layer 1000000000 1 new SurfaceView[com.example.game/g](BLAST)#7\n",
	      f);
	for (unsigned long long s = 0; s <= 2100; s++) {
		unsigned long long call = 1100000000ull + s * 1000000000ull;
		unsigned long long actual = call + 5000000ull + (s % 3) * 1000000ull;

		fprintf(f, "frame %llu 2100 2117 0xb400000000001000 0xb4000000000a0000\n", call);
		fprintf(f, "present %llu 1 %llu %llu %llu\n", actual + 100000, call + 20000, actual,
			call + 20000);
	}
	ck_assert_int_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "report --html '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	chart = strstr(out_text, "id=\"chart-latency\"");
	ck_assert_msg(chart, "no latency chart");
	ck_assert_int_eq(line_points(chart, "s-lat50"), 700);
	ck_assert_int_eq(line_points(chart, "s-lat99"), 700);
	ck_out_has("<title>window 0: p50 6.000 ms, p99 7.000 ms (3 presents)</title>");
	ck_out_has("<title>window 2097: p50 6.000 ms, p99 7.000 ms (3 presents)</title>");
	ck_assert(!strstr(out_text, "<title>window 2100:"));
	ck_assert(strstr(chart, "first record), a point per 3 windows</text>"));
	ck_out_has(">dropped (0)</text>");
}
END_TEST

/* ------------------------------------------------------------ the content surface */

/*
 * A game under a HUD of the same app (pid 7000, the target): the game's thread
 * UnityGfxDeviceW on surface 0xa1 at 30 fps, t_g(i) = 1000 ms + 33333333 i, i = 0..29; the
 * view system's RenderThread on 0xb2 at 60 fps, t_h(j) = 1005 ms + 16666667 j, j = 0..44
 * (0.75 s: the HUD calls more, 45 > 30). Layer 1 (the HUD's window, seen first: a tie
 * would go to it) shows each HUD call, desired = t_h(j) + 20 us, actual = desired + 15 ms;
 * layer 2 (the game's BLAST layer) each game call, desired = t_g(i) + 20 us, actual =
 * desired + 20 ms; every row read by one poll at 2.1 s. with_names: the thread and connect
 * records (the content rule), else none (the count rule).
 */
static const char *hud_game(const char *name, bool with_names)
{
	const char *txt = path("hud.txt"), *frc = path(name);
	FILE *f = fopen(txt, "w");
	char args[1200];

	ck_assert_ptr_nonnull(f);
	fputs("meta target.pid 7000\n"
	      "vsync 1000000000 16666667\n"
	      "layer 1000000000 1 new com.example.hud/com.example.hud.MainActivity#10\n"
	      "layer 1000000000 2 new "
	      "SurfaceView[com.example.hud/com.example.hud.MainActivity](BLAST)#12\n",
	      f);
	if (with_names)
		fputs("connect 1000000000 7000 7010 0xa1 1\n"
		      "thread 1000000000 7000 7010 UnityGfxDeviceW\n"
		      "connect 1000000000 7000 7002 0xb2 1\n"
		      "thread 1000000000 7000 7002 RenderThread\n",
		      f);
	/* the calls of both surfaces in ktime order (they never coincide: 5 ms apart at least) */
	for (unsigned i = 0, j = 0; i < 30 || j < 45;) {
		uint64_t tg = 1000000000ull + 33333333ull * i, th = 1005000000ull + 16666667ull * j;

		if (i < 30 && (j == 45 || tg < th))
			fprintf(f, "frame %llu 7000 7010 0x%x 0xa1\n", (unsigned long long)tg,
				0x100 + (i++ % 3) * 0x10);
		else
			fprintf(f, "frame %llu 7000 7002 0x%x 0xb2\n", (unsigned long long)th,
				0x200 + (j++ % 3) * 0x10);
	}
	for (unsigned j = 0; j < 45; j++) {
		unsigned long long d = 1005000000ull + 16666667ull * j + 20000;
		fprintf(f, "present 2100000000 1 %llu %llu %llu\n", d, d + 15000000, d);
	}
	for (unsigned i = 0; i < 30; i++) {
		unsigned long long d = 1000000000ull + 33333333ull * i + 20000;
		fprintf(f, "present 2100000000 2 %llu %llu %llu\n", d, d + 20000000, d);
	}
	ck_assert_int_eq(fclose(f), 0);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(args), 0);
	return frc;
}

/*
 * With thread names the truth is the game (UnityGfxDeviceW over RenderThread, content.h),
 * and so is the display's: its 30 calls link to layer 2's 30 rows, each 20 us before its
 * desired (tight), 30 calls made for 30 rows: queueing; dropped 0; latency = 20 ms + 20 us
 * = 20.020 ms for each. Layer 1's rows against the game's calls link by order at most the
 * 23 game calls up to its last desired (t_g(22) = 1733.3 ms <= 1738.35 ms): fewer, so layer
 * 2 is the content layer. The count rule would link the HUD (45 calls): hud_count below.
 */
START_TEST(content_link_game_not_hud)
{
	const char *frc = hud_game("hud.frc", true);
	char args[800];

	snprintf(args, sizeof(args), "report --json '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("    \"content_layer\": 2,\n");
	ck_out_has("        \"rule\": \"queueing\",\n        \"tolerance_ms\": 2.000,\n"
		   "        \"tight\": 30,\n        \"by_order\": 0,\n        \"unlinked\": 0,\n"
		   "        \"anchored\": 30,\n        \"dropped\": 0,\n"
		   "        \"uncertain\": 0,\n        \"after_last_row\": 0,\n");
	ck_out_has("        \"latency_presents\": 30,\n        \"latency_p50_ms\": 20.020,\n"
		   "        \"latency_p99_ms\": 20.020,\n");
	snprintf(args, sizeof(args), "report '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  content layer            2 (its presents link to pid 7000 surface 0xa1, the "
		   "content the truth follows)\n");
	ck_out_has("  layer 2 (content)        "
		   "SurfaceView[com.example.hud/com.example.hud.MainActivity](BLAST)#12\n");
	/* the db: both layers link to the game's calls (0xa1 = 161); the view as the report */
	snprintf(args, sizeof(args), "db '%s' -o '%s'", frc, path("hud.db"));
	ck_assert_int_eq(fa(args), 0);
	ck_assert_str_eq(q(path("hud.db"), "SELECT group_concat(layer || ':' || content || ':' ||"
					   " link_pid || ':' || link_surface, ' ') FROM layers"),
			 "1:0:7000:161 2:1:7000:161");
	ck_assert_str_eq(q(path("hud.db"), "SELECT layer, tight, anchored, dropped, uncertain,"
					   " after_last_row FROM display_summary WHERE content"),
			 "2|30|30|0|0|0");
}
END_TEST

/*
 * The same capture without thread and connect records: the count rule, whose main surface
 * is the one with the most calls, the HUD's 0xb2 (45 > 30), as before. Its 45 calls link to
 * layer 1's 45 rows, tight; latency 15.020 ms. Layer 2's rows against the HUD's calls: row 0
 * (1000.02 ms) has no call before it, the others link by order (29 < 45): layer 1 it is.
 */
START_TEST(content_link_count_rule_keeps_main)
{
	const char *frc = hud_game("hudc.frc", false);
	char args[800];

	snprintf(args, sizeof(args), "report --json '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("    \"content_layer\": 1,\n");
	ck_out_has("        \"tight\": 45,\n        \"by_order\": 0,\n        \"unlinked\": 0,\n");
	ck_out_has("        \"latency_presents\": 45,\n        \"latency_p50_ms\": 15.020,\n");
	snprintf(args, sizeof(args), "report '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  content layer            1 (its presents link to pid 7000 surface 0xb2, the "
		   "main surface)\n");
}
END_TEST

int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
	    FRC_CASE("mailbox_json", mailbox_json),
	    FRC_CASE("mailbox_text", mailbox_text),
	    FRC_CASE("no_presents_no_section", no_presents_no_section),
	    FRC_CASE("link_rules_small", link_rules_small),
	    FRC_CASE("db_summary", db_summary),
	    FRC_CASE("db_small", db_small),
	    FRC_CASE("db_no_presents", db_no_presents),
	    FRC_CASE("score_mailbox_display", score_mailbox_display),
	    FRC_CASE("score_mailbox_submissions", score_mailbox_submissions),
	    FRC_CASE("score_text_says_truth", score_text_says_truth),
	    FRC_CASE("score_presents_unlinked", score_presents_unlinked),
	    FRC_CASE("score_window_display", score_window_display),
	    FRC_CASE("report_window_first_frame_time", report_window_first_frame_time),
	    FRC_CASE("html_presented_chart", html_presented_chart),
	    FRC_CASE("html_score_display", html_score_display),
	    FRC_CASE("compare_variants_display", compare_variants_display),
	    FRC_CASE("html_latency_dropped", html_latency_dropped),
	    FRC_CASE("html_latency_bounded", html_latency_bounded),
	    FRC_CASE("content_link_game_not_hud", content_link_game_not_hud),
	    FRC_CASE("content_link_count_rule_keeps_main", content_link_count_rule_keeps_main),
	};
	Suite *s = suite_create("display");
	SRunner *sr;
	int failed, found = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc;

		if (argc > 1 && strcmp(argv[1], cases[i].name))
			continue;
		tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
		found++;
	}
	if (!found) {
		fprintf(stderr, "test_display: no case '%s'\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
