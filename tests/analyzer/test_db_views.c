/* SPDX-License-Identifier: MIT */
/*
 * test_db_views.c - `frameanalyze db`: the submissions in the database (main_surfaces,
 * frames.series_interval_ns, the submission_* views) give the report's "submissions"
 * numbers; the help lists every table and view; an older schema is refused. Every case runs
 * the real binary. Expectations are worked out by hand (the comments show the arithmetic)
 * or, for fixtures, are the report's own JSON (the report computes them in C, the views in
 * SQL: one checks the other). One executable, each case its own CTest test
 * (analyzer.db_<case>).
 */
#include <check.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frc_case.h"

static char dir[256];
static char *out_text, *err_text;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static const char *path(const char *name)
{
	static char p[16][512];
	static int next;
	char *s = p[next++ % 16];

	snprintf(s, 512, "%s/%s", dir, name);
	return s;
}

/* Run "frameanalyze ARGS" (a shell word list); stdout in out_text, stderr in err_text; the
 * exit code. */
__attribute__((format(printf, 1, 2))) static int fa(const char *fmt, ...)
{
	char args[8192], cmd[8192 + 1024];
	va_list ap;
	int st, len;

	va_start(ap, fmt);
	len = vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	ck_assert_int_lt(len, (int)sizeof(args));
	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s/out' 2>'%s/err'", FRAMEANALYZE_BIN, args, dir,
		 dir);
	st = system(cmd);
	ck_assert(WIFEXITED(st));
	free(out_text);
	free(err_text);
	out_text = slurp(path("out"), NULL);
	err_text = slurp(path("err"), NULL);
	ck_assert_ptr_nonnull(out_text);
	ck_assert_ptr_nonnull(err_text);
	return WEXITSTATUS(st);
}

#define ck_err_has(s) ck_assert_msg(strstr(err_text, s), "stderr lacks [%s]:\n%s", s, err_text)

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_db_views.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(out_text);
	free(err_text);
	out_text = err_text = NULL;
}

static sqlite3 *open_ro(const char *p)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* The first column of the first row of the query, as text ("NULL" for NULL; "" no row). */
__attribute__((format(printf, 2, 3))) static const char *q(sqlite3 *db, const char *fmt, ...)
{
	static char buf[8][16384];
	static int next;
	char *out = buf[next++ % 8], sql[2048];
	sqlite3_stmt *st = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	ck_assert_msg(rc == SQLITE_ROW || rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(db));
	if (rc == SQLITE_DONE)
		out[0] = '\0';
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		snprintf(out, sizeof(buf[0]), "NULL");
	else
		snprintf(out, sizeof(buf[0]), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/*
 * The value of KEY in the SECTION object of the report --json in out_text, as printed (its
 * keys are on lines of their own, four spaces in).
 */
static const char *json_in(const char *section, const char *key)
{
	static char buf[4][128];
	static int next;
	char pat[96], *out = buf[next++ % 4];
	const char *sub, *end, *k;
	size_t len;

	snprintf(pat, sizeof(pat), "\n  \"%s\": {", section);
	sub = strstr(out_text, pat);
	ck_assert_msg(sub != NULL, "no %s in:\n%s", section, out_text);
	end = strstr(sub, "\n  }");
	snprintf(pat, sizeof(pat), "\n    \"%s\": ", key);
	k = strstr(sub, pat);
	ck_assert_msg(k != NULL && k < end, "no %s.%s in:\n%s", section, key, out_text);
	k += strlen(pat);
	len = strcspn(k, ",\n");
	ck_assert_uint_lt(len, sizeof(buf[0]));
	memcpy(out, k, len);
	out[len] = '\0';
	return out;
}

static const char *json_sub(const char *key)
{
	return json_in("submissions", key);
}

/* Text without its spaces and newlines (JSON of hex strings, numbers and names: no value has one).
 */
static const char *squeeze(const char *text, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++)
		if (text[i] != ' ' && text[i] != '\n') {
			ck_assert_uint_lt(o + 1, cap);
			out[o++] = text[i];
		}
	out[o] = '\0';
	return out;
}

/* The submissions' "surfaces" array of the report --json in out_text, squeezed. */
static const char *json_surfaces(void)
{
	static char buf[16384];
	const char *k = strstr(out_text, "\n    \"surfaces\": ["), *end;

	ck_assert_msg(k != NULL, "no submissions.surfaces in:\n%s", out_text);
	k = strchr(k, '[');
	end = !strncmp(k, "[]", 2) ? k + 1 : strstr(k, "\n    ]");
	ck_assert_ptr_nonnull(end);
	end = strchr(end, ']');
	return squeeze(k, (size_t)(end + 1 - k), buf, sizeof(buf));
}

/* Import the capture text into DIR/NAME.frc; returns its path. */
static const char *import_text(const char *name, const char *text)
{
	char txt[300];
	const char *frc = path(name);
	FILE *f;

	snprintf(txt, sizeof(txt), "%s.txt", frc);
	f = fopen(txt, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import '%s' -o '%s'", txt, frc), 0);
	return frc;
}

/* ------------------------------------------------------------ the hand scenario */

/*
 * tests/analyzer/hand.txt (its comment has the arithmetic): one PID 500, surface 0, 21 calls
 * after an attach, so the submission series is the 20 intervals 16 150 16 16 16 16 16 16 16
 * 16 100 16 16 16 200 16 16 16 16 16 ms: p50 16, p90 100, p95 150, p99 200, max 200 ms;
 * mean FPS 20 / 0.722 s = 27.701; 1 % low: the slowest ceil(20 / 100) = 1, 200 ms: 5 FPS;
 * Jank at the 100 ms call (seq 11), BigJank at the 200 ms one (seq 15): jank time 300 ms,
 * stutter 300 / 722 = 41.551 %. Full windows (REPORT.md "Metric names", from the first
 * record, the attach at 0.999 s, to the last, the drops record at 1.800 s): 0.801 s, none;
 * so window FPS and the per-window numbers are null.
 */
START_TEST(submissions_hand)
{
	const char *frc = path("hand.frc"), *dbp = path("hand.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("import '%s/hand.txt' -o '%s'", TESTS_SRC_DIR, frc), 0);
	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT pid || ' ' || surface || ' ' || calls || ' ' || pid_calls"
			       " || ' ' || surfaces || ' ' || main_pid FROM main_surfaces"),
			 "500 0 21 21 1 1");
	ck_assert_str_eq(q(db, "SELECT intervals || ' ' || printf('%%.3f %%.3f %%.3f %%.3f %%.3f"
			       " %%.3f %%.3f', mean_fps, p50_ms, p90_ms, p95_ms, p99_ms, max_ms,"
			       " low_1pct_fps) FROM submission_percentiles WHERE main_pid"),
			 "20 27.701 16.000 100.000 150.000 200.000 200.000 5.000");
	ck_assert_str_eq(q(db, "SELECT group_concat(seq || ':' || kind, ' ') FROM"
			       " (SELECT * FROM submission_janks WHERE main_pid ORDER BY seq)"),
			 "11:Jank 15:BigJank");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM submission_fps_per_second"), "0");
	ck_assert_str_eq(q(db, "SELECT janks || ' ' || big_janks || ' ' || printf('%%.3f %%.3f',"
			       " jank_time_ms, stutter_percent) || ' ' || full_windows || ' ' ||"
			       " ifnull(window_fps, 'null') || ' ' || windows_cut || ' ' ||"
			       " ifnull(per_second_min, 'null') FROM submission_summary"),
			 "2 1 300.000 41.551 0 null 0 null");
	/* the report says the same */
	ck_assert_int_eq(fa("report --json '%s'", frc), 0);
	ck_assert_str_eq(json_sub("p99_ms"), "200.000");
	ck_assert_str_eq(json_sub("p99_ms"),
			 q(db, "SELECT printf('%%.3f', p99_ms) FROM submission_percentiles"));
	ck_assert_str_eq(json_sub("janks"), "2");
	ck_assert_str_eq(json_sub("big_janks"), "1");
	ck_assert_str_eq(json_sub("full_windows"), "0");
	ck_assert_str_eq(json_sub("window_fps"), "null");
	sqlite3_close(db);
}
END_TEST

/* ------------------------------------------------------------ thread names */

/*
 * Thread records (FORMAT.md 4.9) in the db, every one, and in the report's surface rows
 * (text, JSON, HTML escaped), and nothing of them without thread records. Surface 0xa000
 * is drawn by thread 4242 (GameThread, renamed Game<b>&x before its last frame), 0xb000 by
 * 4301 (RenderThread), 0xc000 by two threads (no "drawn by": not one thread's surface).
 */
static const char threads_text[] =
    "attach 900000000 4242 _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi\n"
    "thread 1000000000 4242 4242 GameThread\n"
    "frame 1000000000 4242 4242 0x1000 0xa000\n"
    "thread 1000000001 4242 4301 RenderThread\n"
    "frame 1000000001 4242 4301 0x2000 0xb000\n"
    "frame 1016666667 4242 4242 0x1000 0xa000\n"
    "thread 1020000000 4242 4242 Game<b>&x\n"
    "frame 1033333334 4242 4242 0x1000 0xa000\n"
    "frame 1033333335 4242 4301 0x2000 0xb000\n"
    "frame 1050000000 4242 4242 0x3000 0xc000\n"
    "frame 1050000001 4242 4999 0x3000 0xc000\n"
    "exit 1100000000 4242\n";

START_TEST(threads_named)
{
	const char *frc = import_text("threads.frc", threads_text), *dbp = path("threads.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT group_concat(capture_id || ' ' || ktime_ns || ' ' || pid"
			       " || ' ' || tid || ' ' || name, ';') FROM threads"),
			 "1 1000000000 4242 4242 GameThread;1 1000000001 4242 4301 RenderThread;"
			 "1 1020000000 4242 4242 Game<b>&x");
	sqlite3_close(db);

	ck_assert_int_eq(fa("report '%s'", frc), 0);
	ck_assert_msg(
	    strstr(out_text, "3 calls, 1 buffers, 60.000 calls/s, drawn by Game<b>&x  <-"), "%s",
	    out_text);
	ck_assert_msg(
	    strstr(out_text, "2 calls, 1 buffers, 30.000 calls/s, drawn by RenderThread\n"), "%s",
	    out_text);
	ck_assert_msg(
	    strstr(out_text, "surface 0xc000  2 calls, 1 buffers, 1000000000.000 calls/s\n"), "%s",
	    out_text);
	ck_assert_int_eq(fa("report --json '%s'", frc), 0);
	ck_assert_msg(strstr(json_surfaces(), "\"calls_per_s\":60.000,\"drawn_by\":\"Game<b>&x\"}"),
		      "%s", json_surfaces());
	ck_assert_msg(strstr(json_surfaces(), "\"drawn_by\":\"RenderThread\"}"), "%s",
		      json_surfaces());
	ck_assert_msg(strstr(json_surfaces(), "\"calls_per_s\":1000000000.000}]"), "%s",
		      json_surfaces());
	ck_assert_int_eq(fa("report --html '%s'", frc), 0);
	ck_assert_msg(strstr(out_text, "drawn by Game&lt;b&gt;&amp;x"), "HTML lacks the name");
	ck_assert_ptr_null(strstr(out_text, "Game<b>"));
	/* without thread records: no name, no key (goldens: every other capture) */
	ck_assert_int_eq(fa("import '%s/hand.txt' -o '%s'", TESTS_SRC_DIR, path("hand.frc")), 0);
	ck_assert_int_eq(fa("report --json '%s'", path("hand.frc")), 0);
	ck_assert_ptr_null(strstr(out_text, "drawn_by"));
	ck_assert_int_eq(fa("report '%s'", path("hand.frc")), 0);
	ck_assert_ptr_null(strstr(out_text, "drawn by"));
}
END_TEST

/*
 * Buffer and connect records (FORMAT.md 4.10, 4.11) in the db, each as it came: geometry
 * with negative and 64-bit values, a connect and a disconnect (any api kept as it is).
 */
static const char geometry_text[] =
    "attach 900000000 4242 _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi\n"
    "connect 950000000 4242 4301 0xa000 1\n"
    "buffer 1000000000 4242 0xa000 0x1000 1080 2400 1088 1 0x300\n"
    "frame 1000000000 4242 4301 0x1000 0xa000\n"
    "buffer 1016666667 4242 0xa000 0x1000 -1 2147483647 -2147483648 0 0xffffffffffffffff\n"
    "frame 1016666667 4242 4301 0x1000 0xa000\n"
    "disconnect 1100000000 4242 4301 0xa000 -7\n"
    "exit 1200000000 4242\n";

START_TEST(buffers_and_connections)
{
	const char *frc = import_text("geometry.frc", geometry_text), *dbp = path("geometry.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	ck_assert_str_eq(q(db,
			   "SELECT group_concat(capture_id || ' ' || ktime_ns || ' ' || pid"
			   " || ' ' || surface || ' ' || buffer || ' ' || width || ' ' || height"
			   " || ' ' || stride || ' ' || format || ' ' || usage, ';') FROM buffers"),
			 "1 1000000000 4242 40960 4096 1080 2400 1088 1 768;"
			 "1 1016666667 4242 40960 4096 -1 2147483647 -2147483648 0 -1");
	ck_assert_str_eq(q(db, "SELECT group_concat(ktime_ns || ' ' || pid || ' ' || tid || ' ' ||"
			       " surface || ' ' || api || ' ' || connected, ';') FROM connections"),
			 "950000000 4242 4301 40960 1 1;1100000000 4242 4301 40960 -7 0");
	sqlite3_close(db);
}
END_TEST

/* ------------------------------------------------------------ surfaces, lives, seconds */

struct line {
	uint64_t t;
	char text[128];
};

static int cmp_line(const void *a, const void *b)
{
	uint64_t x = ((const struct line *)a)->t, y = ((const struct line *)b)->t;

	return (x > y) - (x < y);
}

#define MS 1000000ull
#define B 10000000000ull /* 10 s: the scenario's time 0 */
#define MAIN7 "0xb400007a00001000"
#define OVER7 "0xb400007a00002000"

/* One line at time t: "KIND t " then the rest (fmt). */
__attribute__((format(printf, 5, 6))) static void add(struct line *l, size_t *n, const char *kind,
						      uint64_t t, const char *fmt, ...)
{
	va_list ap;
	int w;

	ck_assert_uint_lt(*n, 128);
	l[*n].t = t;
	w = snprintf(l[*n].text, sizeof(l[*n].text), "%s %llu ", kind, (unsigned long long)t);
	va_start(ap, fmt);
	vsnprintf(l[*n].text + w, sizeof(l[*n].text) - (size_t)w, fmt, ap);
	va_end(ap);
	(*n)++;
}

#define SYM "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi"

/* The scenario below as capture text, its lines in time order. */
static const char *lives_text(void)
{
	static const uint64_t life1[] = {0,    40,   80,   120,	 220,  320,  420,  520,
					 770,  870,  970,  1070, 1170, 1270, 1370, 1370,
					 1470, 1570, 1670, 1770, 1870, 1970, 2070};
	static char text[8192];
	struct line l[128];
	size_t n = 0, len = 0;

	for (size_t i = 0; i < sizeof(life1) / sizeof(life1[0]); i++)
		add(l, &n, "frame", B + life1[i] * MS + (life1[i] == 770 ? 999 : 0),
		    "7 7 0x%zx " MAIN7 "\n", 0x7100 + i % 3);
	for (unsigned t = 4200; t <= 5600; t += 100)
		add(l, &n, "frame", B + t * MS, "7 7 0x%x " MAIN7 "\n", 0x7200 + t % 3);
	for (unsigned t = 250; t <= 1750; t += 500)
		add(l, &n, "frame", B + t * MS, "7 8 0x7300 " OVER7 "\n");
	for (unsigned t = 100; t <= 300; t += 100) {
		add(l, &n, "frame", B + t * MS, "9 9 0x9900 0x9200\n");
		add(l, &n, "frame", B + (t + 50) * MS, "9 9 0x9800 0x9100\n");
	}
	add(l, &n, "attach", B - 1 * MS, "7 " SYM "\n");
	add(l, &n, "exit", B + 2100 * MS, "7\n");
	add(l, &n, "attach", B + 2150 * MS, "7 " SYM "\n");
	qsort(l, n, sizeof(l[0]), cmp_line);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", l[i].text);
	ck_assert_uint_lt(len, sizeof(text));
	return text;
}

/*
 * PID 7, main surface MAIN7 (a tagged heap pointer, stored negative), times in ms from 10 s:
 * life 1 (attached at -1) calls at 0 40 80 120 220 320 420 520 770.000999 870 970 ... 1370
 * 1370 (again: no interval) 1470 ... 2070; exit at 2100, attached again at 2150; life 2 calls
 * 4200, 4300 ... 5600 (no interval across the restart). An overlay OVER7 on thread 8 at 250
 * 750 1250 1750. PID 9: surfaces 0x9200 (100 200 300) and 0x9100 (150 250 350), a tie of 3
 * calls: 0x9100, the smaller, is its main surface although 0x9200 calls first.
 *
 * Main PID 7 (42 calls, 38 on MAIN7). Its series: life 1 has 40 40 40 100 100 100 100
 * 250.000999 99.999001 and 12 x 100 (21 intervals), life 2 14 x 100: n = 35, sum 3470 ms ->
 * 35 / 3.47 s = 10.086 calls/s. Sorted: 3 x 40, 99.999001, 30 x 100, 250.000999; ranks
 * p50 18, p90 32, p95 34 -> 100 ms; p99 35 = max -> 250.000999, truncated to the us as the
 * report prints it: 250.000 (rounded it would be 250.001).
 * PerfDog: 100 at 220 after 40 40 40 (300 > 240, > 84 ms, not > 125): Jank; 250.000999 at
 * 770 after 100 100 100: BigJank; nothing else (a 2130 ms interval across the restart would
 * be another BigJank and the max).
 * 1 % low: the slowest ceil(35 / 100) = 1 interval, 250.000999 ms: 1e9 / 250000999 = 4.000
 * FPS; jank time 100 + 250.000999 = 350.000 ms (truncated), stutter 350.000999 / 3470 =
 * 10.086 %.
 * Full windows (REPORT.md "Metric names"; the rule changed with the window merge: they are
 * counted from the capture's first record, the attach at -1, no longer from the end of the
 * series' first interval, and recomputed here by hand): the capture spans -1 .. 5600, 5.601
 * s, so 5 full windows [-1, 999) [999, 1999) ... [3999, 4999); [4999, 5999) is partial.
 * [-1, 999) holds the intervals ending at 40 80 120 220 320 420 520 770 870 970 = 10;
 * [999, 1999) 1070 ... 1970 = 10; [1999, 2999) 2070 = 1; [2999, 3999) 0; [3999, 4999) 4300
 * ... 4900 = 7 (4200 starts life 2, 5000 is in the partial window). Window FPS (10 + 10 + 1 +
 * 0 + 7) / 5 = 5.600; min 0, max 10, sorted 0 1 7 10 10: median 7; within +-10 % of 7 only 7:
 * stability 20 %.
 */
START_TEST(submissions_surfaces_lives_seconds)
{
	const char *frc = import_text("lives.frc", lives_text()), *dbp = path("lives.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	ck_assert_str_eq(q(db,
			   "SELECT group_concat(pid || ' ' || printf('0x%%x', surface) || ' '"
			   " || calls || ' ' || pid_calls || ' ' || surfaces || ' ' || main_pid,"
			   " ', ') FROM (SELECT * FROM main_surfaces ORDER BY pid)"),
			 "7 " MAIN7 " 38 42 2 1, 9 0x9100 3 6 2 0");
	ck_assert_str_eq(q(db, "SELECT group_concat(pid || ' ' || printf('0x%%x', surface) || ' '"
			       " || main || ' ' || calls, ', ') FROM (SELECT * FROM surfaces"
			       " ORDER BY pid, main DESC)"),
			 "7 " MAIN7 " 1 38, 7 " OVER7 " 0 4, 9 0x9100 1 3, 9 0x9200 0 3");
	/* every surface's intervals; the first call of each life has none, the repeat is 0 */
	ck_assert_str_eq(q(db,
			   "SELECT group_concat(ifnull(interval_ns / 1000000, '-'), ' ') FROM"
			   " (SELECT * FROM submissions WHERE pid = 7 AND NOT main ORDER BY seq)"),
			 "- 500 500 500");
	ck_assert_str_eq(q(db,
			   "SELECT count(*) FILTER (WHERE interval_ns IS NULL) || ' ' ||"
			   " count(*) FILTER (WHERE interval_ns = 0) || ' ' ||"
			   " count(series_interval_ns) FROM submissions WHERE pid = 7 AND main"),
			 "2 1 35");
	ck_assert_str_eq(q(db, "SELECT intervals || ' ' || printf('%%.3f %%.3f %%.3f %%.3f %%.3f"
			       " %%.3f %%.3f', mean_fps, p50_ms, p90_ms, p95_ms, p99_ms, max_ms,"
			       " low_1pct_fps) FROM submission_percentiles WHERE main_pid"),
			 "35 10.086 100.000 100.000 100.000 250.000 250.000 4.000");
	ck_assert_str_eq(q(db, "SELECT group_concat(ktime_ns || ':' || kind, ' ') FROM"
			       " (SELECT * FROM submission_janks WHERE main_pid ORDER BY seq)"),
			 "10220000000:Jank 10770000999:BigJank");
	ck_assert_str_eq(q(db, "SELECT group_concat(second || ':' || fps || ':' || start_ktime_ns,"
			       " ' ') FROM (SELECT * FROM submission_fps_per_second WHERE main_pid"
			       " ORDER BY second)"),
			 "0:10:9999000000 1:10:10999000000 2:1:11999000000 3:0:12999000000"
			 " 4:7:13999000000");
	ck_assert_str_eq(q(db, "SELECT printf('%%d %%d %%.3f %%.3f %%d %%.3f %%d %%.3f %%.3f %%.3f"
			       " %%.3f', janks, big_janks, jank_time_ms, stutter_percent,"
			       " full_windows, window_fps, windows_cut, per_second_min,"
			       " per_second_max, median_fps, stability_percent)"
			       " FROM submission_summary WHERE main_pid"),
			 "2 1 350.000 10.086 5 5.600 0 0.000 10.000 7.000 20.000");
	/* PID 9's own series: its main surface 0x9100 at 150 250 350 */
	ck_assert_str_eq(q(db, "SELECT intervals || ' ' || p50_ms FROM submission_percentiles"
			       " WHERE pid = 9"),
			 "2 100.0");
	/* and the report says the same */
	ck_assert_int_eq(fa("report --json '%s'", frc), 0);
	ck_assert_str_eq(json_sub("main_surface"), "\"" MAIN7 "\"");
	ck_assert_str_eq(json_sub("p99_ms"), "250.000");
	ck_assert_str_eq(json_sub("janks"), "2");
	ck_assert_str_eq(json_sub("big_janks"), "1");
	ck_assert_str_eq(json_sub("full_windows"), "5");
	ck_assert_str_eq(json_sub("window_fps"), "5.600");
	ck_assert_str_eq(json_sub("per_second_min"), "0.000");
	ck_assert_str_eq(json_sub("median_fps"), "7.000");
	ck_assert_str_eq(json_sub("stability_percent"), "20.000");
	sqlite3_close(db);
}
END_TEST

/* ------------------------------------------------------------ fixtures: db = report */

/* A key of the report's submissions and the SQL giving it (formatted as the JSON is). */
struct key_sql {
	const char *key, *sql;
};

/*
 * Every key of the report's "submissions" object (summary_keys_complete checks that none is
 * missing) and the column of submission_summary (table s) giving it, formatted as the JSON
 * prints it. main_pid / main_surface are the row's pid / surface (its main_pid column is the
 * flag); surfaces is compared squeezed (json_surfaces).
 */
#define F3(col) "ifnull(printf('%.3f', " col "), 'null')"
static const struct key_sql summary_keys[] = {
    {"pids", "s.pids"},
    {"surfaces", "s.surfaces"},
    {"surfaces_not_listed", "s.surfaces_not_listed"},
    {"main_pid", "s.pid"},
    {"main_surface", "printf('\"0x%x\"', s.surface)"},
    {"main_pid_calls", "s.main_pid_calls"},
    {"main_surface_calls", "s.main_surface_calls"},
    {"intervals", "s.intervals"},
    {"mean_fps", F3("s.mean_fps")},
    {"p50_ms", F3("s.p50_ms")},
    {"p90_ms", F3("s.p90_ms")},
    {"p95_ms", F3("s.p95_ms")},
    {"p99_ms", F3("s.p99_ms")},
    {"max_ms", F3("s.max_ms")},
    {"low_1pct_fps", F3("s.low_1pct_fps")},
    {"janks", "s.janks"},
    {"big_janks", "s.big_janks"},
    {"jank_time_ms", F3("s.jank_time_ms")},
    {"stutter_percent", F3("s.stutter_percent")},
    {"full_windows", "s.full_windows"},
    {"window_fps", F3("s.window_fps")},
    {"windows_cut", "CASE WHEN s.windows_cut THEN 'true' ELSE 'false' END"},
    {"per_second_min", F3("s.per_second_min")},
    {"per_second_max", F3("s.per_second_max")},
    {"median_fps", F3("s.median_fps")},
    {"stability_percent", F3("s.stability_percent")},
};
#define N_SUMMARY_KEYS (sizeof(summary_keys) / sizeof(summary_keys[0]))

/*
 * The report --json in out_text (of file) against the main PID's row of submission_summary
 * for capture_id in db (its temporary table s): every key equal.
 */
static void check_summary(sqlite3 *db, size_t capture_id, const char *file, const char *window)
{
	char got_s[16384];

	for (size_t k = 0; k < N_SUMMARY_KEYS; k++) {
		bool array = !strcmp(summary_keys[k].key, "surfaces");
		const char *want = array ? json_surfaces() : json_sub(summary_keys[k].key);
		const char *got = q(db, "SELECT %s FROM s WHERE capture_id = %zu",
				    summary_keys[k].sql, capture_id);

		if (array)
			got = squeeze(got, strlen(got), got_s, sizeof(got_s));
		ck_assert_msg(!strcmp(got, want), "%s%s: %s is %s in the db, %s in the report",
			      file, window, summary_keys[k].key, got, want);
	}
}

/* The tracker's PerfDog janks (the janks view) against the report's "janks" section. */
static void check_tracker_janks(sqlite3 *db, size_t capture_id, const char *file,
				const char *window)
{
	char want[64];

	snprintf(want, sizeof(want), "%s %s", json_in("janks", "janks"),
		 json_in("janks", "big_janks"));
	ck_assert_msg(!strcmp(q(db,
				"SELECT count(*) || ' ' || count(*) FILTER (WHERE kind = 'BigJank')"
				" FROM janks WHERE capture_id = %zu",
				capture_id),
			      want),
		      "%s%s: the janks view is not the report's %s", file, window, want);
}

/* The submission_summary rows of the main PIDs, once, into the temporary table s. */
static void summary_table(sqlite3 *db)
{
	ck_assert_int_eq(sqlite3_exec(db,
				      "CREATE TEMP TABLE s AS SELECT * FROM submission_summary"
				      " WHERE main_pid",
				      NULL, NULL, NULL),
			 SQLITE_OK);
}

/* The fixtures the db = report cases replay, with the stand-in captures. */
static size_t fixture_files(char file[][512], size_t max)
{
	static const char *const fx[] = {
	    "two_pids.frc",
	    "pid_restart.frc",
	    "pauses.frc",
	    "jank_bursts.frc",
	    "non_monotonic.frc",
	    "hz90_realloc.frc",
	    "score/overlay_10fps.frc",
	    "score/overlay_first.frc",
	    "score/two_equal_surfaces.frc",
	    "score/pause_with_overlay.frc",
	    "score/janks_known.frc",
	    "score/batch_3_per_call.frc",
	};
	static const char *const real[] = {"standin_overlay_10fps.frc", "standin_60hz_jank.frc"};
	const size_t nfx = sizeof(fx) / sizeof(fx[0]), n = nfx + sizeof(real) / sizeof(real[0]);

	ck_assert_uint_le(n, max);
	for (size_t i = 0; i < n; i++) {
		if (i < nfx)
			snprintf(file[i], 512, "%s/%s", FIXTURES_BIN_DIR, fx[i]);
		else
			snprintf(file[i], 512, "%s/real/%s", FIXTURES_SRC_DIR, real[i - nfx]);
	}
	return n;
}

/*
 * Each fixture: every submissions number of report --json equals the main PID's row of
 * submission_summary (and main_surfaces) in a database holding all of them. They cover two
 * PIDs, a restart, pauses, janks, an overlay (also the first to call), equal surfaces, the
 * batch path, records out of time order and stand-in captures with real mangled names and
 * tagged pointers.
 */
START_TEST(submissions_match_report)
{
	char files[7168] = "", file[16][512];
	const char *dbp = path("fx.db");
	size_t n = fixture_files(file, 16), len = 0;
	sqlite3 *db;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(files + len, sizeof(files) - len, " '%s'", file[i]);
	ck_assert_int_eq(fa("db %s -o '%s'", files, dbp), 0);
	db = open_ro(dbp);
	summary_table(db);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(fa("report --json '%s'", file[i]), 0);
		check_summary(db, i + 1, file[i], "");
		check_tracker_janks(db, i + 1, file[i], "");
	}
	sqlite3_close(db);
}
END_TEST

/*
 * The list above is the report's whole section: every key of its "submissions" object (on
 * a capture with frames, where the main_* keys are present) has its column.
 */
START_TEST(summary_keys_complete)
{
	const char *sub, *end, *k;
	int keys = 0;

	ck_assert_int_eq(fa("report --json '%s/two_pids.frc'", FIXTURES_BIN_DIR), 0);
	sub = strstr(out_text, "\"submissions\": {");
	ck_assert_ptr_nonnull(sub);
	end = strstr(sub, "\n  }");
	for (k = sub; (k = strstr(k, "\n    \"")) && k < end; k++) {
		size_t w = strcspn(k + 6, "\"");
		bool found = false;

		for (size_t i = 0; i < N_SUMMARY_KEYS && !found; i++)
			found = strlen(summary_keys[i].key) == w &&
				!strncmp(summary_keys[i].key, k + 6, w);
		ck_assert_msg(found, "submission_summary lacks the report's key %.*s", (int)w,
			      k + 6);
		keys++;
	}
	ck_assert_int_eq(keys, (int)N_SUMMARY_KEYS);
}
END_TEST

/* ------------------------------------------------------------ one clock */

/* PID 7's calls every 100 ms from 1000 to 4000 ms on 0xa, and at 2050 on 0xb in between. */
static const char *clock_text(void)
{
	static char text[4096];
	size_t len = 0;

	for (unsigned t = 1000; t <= 1800; t += 100)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"frame %u000000 7 7 0x100 0xa\n", t);
	len += (size_t)snprintf(text + len, sizeof(text) - len, "frame 2050000000 7 7 0x900 0xb\n");
	for (unsigned t = 1900; t <= 4000; t += 100)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"frame %u000000 7 7 0x100 0xa\n", t);
	ck_assert_uint_lt(len, sizeof(text));
	return text;
}

/*
 * The windows' clock is the report's (REPORT.md "Metric names", windows.h): one clock for
 * the submissions and the tracker's deltas, only moving forward. The capture (clock_text)
 * runs 1000 .. 4000 ms: full windows [1000, 2000) [2000, 3000) [3000, 4000). Its call at
 * 2050 on the overlay 0xb is recorded before the main surface's 1900 (out of time order).
 * kala gives the overlay no delta: the main surface's intervals count where they end:
 * 1100 .. 1900 = 9, 2000 .. 2900 = 10, 3000 .. 3900 = 10 (4000 is in the partial window).
 * The process tracker gives a delta at 2050 (250 ms after 1800), which moves the clock to
 * window 1 first, so the interval ending at 1900 counts there: 8, 11, 10; median 10,
 * within +-10 % (9 .. 11) 11 and 10: stability 66.667 %. Window FPS 29 / 3 = 9.667 both.
 */
START_TEST(submissions_windows_one_clock)
{
	static const char *const want[2][2] = {
	    {"", "0:9 1:10 2:10 9.667 100.000"},
	    {" --tracker process", "0:8 1:11 2:10 9.667 66.667"},
	};
	const char *frc = import_text("clock.frc", clock_text());
	char dbp[512];
	sqlite3 *db;

	for (size_t i = 0; i < 2; i++) {
		snprintf(dbp, sizeof(dbp), "%s%zu", path("clock.db"), i);
		ck_assert_int_eq(fa("db%s '%s' -o '%s'", want[i][0], frc, dbp), 0);
		db = open_ro(dbp);
		ck_assert_str_eq(q(db, "SELECT (SELECT group_concat(second || ':' || fps, ' ') FROM"
				       " (SELECT * FROM submission_fps_per_second ORDER BY second))"
				       " || printf(' %%.3f %%.3f', window_fps, stability_percent)"
				       " FROM submission_summary"),
				 want[i][1]);
		summary_table(db);
		ck_assert_int_eq(fa("report --json%s '%s'", want[i][0], frc), 0);
		check_summary(db, 1, frc, want[i][0]);
		sqlite3_close(db);
	}
}
END_TEST

/* ------------------------------------------------------------ db --from/--to */

/*
 * The scenario of submissions_surfaces_lives_seconds (times in ms from 10 s) with --from 0.5
 * --to 4.7: seconds after the first record (the attach at -1), so the window is [499, 4699)
 * and its full windows [499, 1499) [1499, 2499) [2499, 3499) [3499, 4499) (4.2 s: 4).
 * Stored: the calls from 520 on; their intervals are measured from the call before (the
 * one at 520 from 420: 100 ms), and life 1 counts the attach at -1 (pid_life 1 .. 3 as in
 * the whole capture). PID 7's series in it: life 1 ends at 520 770.000999 870 970 ... 2070
 * (15: 13 x 100, 250.000999, 99.999001), life 2 at 4300 4400 4500 4600 (4200 starts it,
 * 4700 is past the window): n = 19, sum 2050 ms, mean FPS 19 / 2.05 = 9.268; ranks p50 10,
 * p90 18 -> 100; p95 19, p99 19 = max -> 250.000; 1 % low 1e9 / 250000999 = 4.000.
 * PerfDog: the 250.000999 at 770 follows 100 (520) and, before the window, 100 (420) and
 * 100 (320): a BigJank only with what the report keeps from before the window
 * (warm_intervals: PID 7's 220 320 420, PID 9's 250 350); the Jank at 220 is before it.
 * Jank time 250.000, stutter 250.000999 / 2050 = 12.195 %.
 * Windows: [499, 1499) 520 770 870 ... 1470 = 9; [1499, 2499) 1570 ... 2070 = 6; [2499,
 * 3499) 0; [3499, 4499) 4300 4400 = 2 (4500 4600 in the partial one). Window FPS 17 / 4 =
 * 4.250; min 0, max 9, sorted 0 2 6 9: median 4, none within +-10 %: stability 0 %.
 */
START_TEST(submissions_window_hand)
{
	const char *frc = import_text("lives.frc", lives_text()), *dbp = path("win.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("db --from 0.5 --to 4.7 '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT span_start_ns || ' ' || span_end_ns || ' ' || windowed ||"
			       " ' ' || full_windows || ' ' || first_ktime_ns FROM captures"),
			 "10499000000 14699000000 1 4 9999000000");
	ck_assert_str_eq(q(db, "SELECT min(ktime_ns) || ' ' || min(pid_life) || ' ' ||"
			       " max(pid_life) FROM frames WHERE pid = 7"),
			 "10520000000 1 3");
	ck_assert_str_eq(q(db, "SELECT group_concat(pid || ':' || pid_life || ':' || seq || ':' ||"
			       " (delta_ns / 1000000), ' ') FROM (SELECT * FROM warm_intervals"
			       " WHERE series = 'submission' ORDER BY pid, seq)"),
			 "7:1:-3:100 7:1:-2:100 7:1:-1:100 9:0:-2:100 9:0:-1:100");
	ck_assert_str_eq(q(db, "SELECT intervals || ' ' || printf('%%.3f %%.3f %%.3f %%.3f %%.3f"
			       " %%.3f %%.3f', mean_fps, p50_ms, p90_ms, p95_ms, p99_ms, max_ms,"
			       " low_1pct_fps) FROM submission_percentiles WHERE main_pid"),
			 "19 9.268 100.000 100.000 250.000 250.000 250.000 4.000");
	ck_assert_str_eq(q(db, "SELECT group_concat(ktime_ns || ':' || kind, ' ') FROM"
			       " (SELECT * FROM submission_janks WHERE main_pid ORDER BY seq)"),
			 "10770000999:BigJank");
	ck_assert_str_eq(q(db, "SELECT group_concat(second || ':' || fps || ':' || start_ktime_ns,"
			       " ' ') FROM (SELECT * FROM submission_fps_per_second WHERE main_pid"
			       " ORDER BY second)"),
			 "0:9:10499000000 1:6:11499000000 2:0:12499000000 3:2:13499000000");
	ck_assert_str_eq(q(db, "SELECT printf('%%d %%d %%.3f %%.3f %%d %%.3f %%d %%.3f %%.3f %%.3f"
			       " %%.3f', janks, big_janks, jank_time_ms, stutter_percent,"
			       " full_windows, window_fps, windows_cut, per_second_min,"
			       " per_second_max, median_fps, stability_percent)"
			       " FROM submission_summary WHERE main_pid"),
			 "1 1 250.000 12.195 4 4.250 0 0.000 9.000 4.000 0.000");
	/* report --from/--to says the same, every key */
	summary_table(db);
	ck_assert_int_eq(fa("report --json --from 0.5 --to 4.7 '%s'", frc), 0);
	ck_assert_str_eq(json_sub("big_janks"), "1");
	check_summary(db, 1, frc, " --from 0.5 --to 4.7");
	sqlite3_close(db);
}
END_TEST

/*
 * Each fixture with a window from 30 % to 80 % of its span (in ms): db --from/--to's
 * submission_summary equals report --from/--to --json, key by key, and so do the janks
 * view's counts (the tracker's PerfDog janks, with the three deltas before the window). A
 * window starts inside a jank burst, a pause, a process restart, records out of time order.
 */
START_TEST(submissions_window_match_report)
{
	char file[16][512], win[96], whole[512], dbp[512];
	size_t n = fixture_files(file, 16);
	sqlite3 *db;

	/* copies: path()'s buffers are reused by every fa() */
	snprintf(whole, sizeof(whole), "%s", path("whole.db"));
	snprintf(dbp, sizeof(dbp), "%s", path("w.db"));
	for (size_t i = 0; i < n; i++) {
		long long ms;

		unlink(dbp);
		unlink(whole);
		ck_assert_int_eq(fa("db '%s' -o '%s'", file[i], whole), 0);
		db = open_ro(whole);
		ms =
		    atoll(q(db, "SELECT (last_ktime_ns - first_ktime_ns) / 1000000 FROM captures"));
		sqlite3_close(db);
		ck_assert_int_gt(ms, 10);
		snprintf(win, sizeof(win), " --from %lldms --to %lldms", ms * 3 / 10, ms * 8 / 10);
		ck_assert_int_eq(fa("db%s '%s' -o '%s'", win, file[i], dbp), 0);
		db = open_ro(dbp);
		ck_assert_str_eq(q(db, "SELECT windowed FROM captures"), "1");
		summary_table(db);
		ck_assert_int_eq(fa("report --json%s '%s'", win, file[i]), 0);
		check_summary(db, 1, file[i], win);
		check_tracker_janks(db, 1, file[i], win);
		sqlite3_close(db);
	}
}
END_TEST

/* ------------------------------------------------------------ help = schema = SCHEMA.md */

/* The names listed under "HEADING:\n" of the help in out_text (two spaces in, up to a blank). */
static void help_names(const char *heading, char *out, size_t len)
{
	char pat[32];
	const char *p;
	size_t o = 0;

	snprintf(pat, sizeof(pat), "\n%s:\n", heading);
	p = strstr(out_text, pat);
	out[0] = '\0';
	if (!p)
		return;
	for (p += strlen(pat); !strncmp(p, "  ", 2); p = strchr(p, '\n') + 1) {
		size_t w = strcspn(p + 2, " \n");
		o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? " " : "", (int)w, p + 2);
	}
}

/* The names of the "### `name" headings of SCHEMA.md's section "## TITLE". */
static void doc_names(const char *doc, const char *title, char *out, size_t len)
{
	const char *p = strstr(doc, title), *end;
	size_t o = 0;

	ck_assert_msg(p != NULL, "SCHEMA.md has no section %s", title);
	end = strstr(p + 1, "\n## ");
	out[0] = '\0';
	while ((p = strstr(p, "\n### `")) && (!end || p < end)) {
		size_t w;

		p += strlen("\n### `");
		w = strcspn(p, "(`");
		o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? " " : "", (int)w, p);
	}
}

/* Every ```sql example of SCHEMA.md runs on the database. */
static void doc_examples_run(sqlite3 *db, const char *doc)
{
	int examples = 0;

	for (const char *p = doc; (p = strstr(p, "```sql\n"));) {
		const char *end = strstr(p += 7, "```");
		char sql[1024];
		sqlite3_stmt *st = NULL;
		int rc;

		ck_assert_ptr_nonnull(end);
		ck_assert_uint_lt((size_t)(end - p), sizeof(sql));
		snprintf(sql, sizeof(sql), "%.*s", (int)(end - p), p);
		ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK,
			      "SCHEMA.md example [%s]: %s", sql, sqlite3_errmsg(db));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		ck_assert_msg(rc == SQLITE_DONE, "SCHEMA.md example [%s]: %s", sql,
			      sqlite3_errmsg(db));
		sqlite3_finalize(st);
		examples++;
	}
	/* one per table and view, and the headline */
	ck_assert_int_ge(examples, 19);
}

/* Whether the space-separated list holds the word w. */
static int has_word(const char *list, const char *w)
{
	size_t len = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return 1;
	return 0;
}

START_TEST(help_lists_schema)
{
	static const char *const wanted[] = {"submission_percentiles", "submission_janks",
					     "submission_fps_per_second", "submission_summary"};
	const char *frc = path("hand.frc"), *dbp = path("help.db");
	char help_t[1024], help_v[1024], doc_t[1024], doc_v[1024];
	char *doc = slurp(ANALYZER_SRC_DIR "/SCHEMA.md", NULL);
	sqlite3 *db;

	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(fa("db --help"), 0);
	help_names("tables", help_t, sizeof(help_t));
	help_names("views", help_v, sizeof(help_v));
	ck_assert_int_eq(fa("import '%s/hand.txt' -o '%s'", TESTS_SRC_DIR, frc), 0);
	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 0);
	db = open_ro(dbp);
	/* creation order (rowid) is the lists' order */
	ck_assert_str_eq(help_t, q(db, "SELECT group_concat(name, ' ') FROM (SELECT name FROM"
				       " sqlite_schema WHERE type = 'table' ORDER BY rowid)"));
	ck_assert_str_eq(help_v, q(db, "SELECT group_concat(name, ' ') FROM (SELECT name FROM"
				       " sqlite_schema WHERE type = 'view' ORDER BY rowid)"));
	doc_names(doc, "\n## Tables", doc_t, sizeof(doc_t));
	doc_names(doc, "\n## Views", doc_v, sizeof(doc_v));
	ck_assert_str_eq(doc_t, help_t);
	ck_assert_str_eq(doc_v, help_v);
	/* what issue 18 asked for is among them */
	ck_assert_msg(has_word(help_t, "main_surfaces"), "tables: %s", help_t);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		ck_assert_msg(has_word(help_v, wanted[i]), "views lack %s: %s", wanted[i], help_v);
	doc_examples_run(db, doc);
	sqlite3_close(db);
	free(doc);
}
END_TEST

/* ------------------------------------------------------------ older databases */

/*
 * A database of schema version 2 (ours, older) is refused, named as such, and left as it
 * was: its captures lack the columns the views read, and a migration could not fill them
 * without the captures.
 */
START_TEST(refuses_older_schema)
{
	const char *frc = path("hand.frc"), *dbp = path("v2.db");
	char *before, *after;
	size_t lb, la;
	sqlite3 *db;

	ck_assert_int_eq(fa("import '%s/hand.txt' -o '%s'", TESTS_SRC_DIR, frc), 0);
	ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	ck_assert_int_eq(
	    sqlite3_exec(db,
			 "PRAGMA application_id=1179796289; PRAGMA user_version=2;"
			 " CREATE TABLE frames(capture_id, seq, ktime_ns, pid, tid,"
			 " buffer, surface); INSERT INTO frames VALUES(1,0,1,2,2,3,0);",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	before = slurp(dbp, &lb);
	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 1);
	ck_err_has("a frameanalyze database of schema version 2, this frameanalyze writes version"
		   " 9; store into a new database");
	ck_assert_str_eq(strchr(err_text, '\n'), "\n");
	after = slurp(dbp, &la);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(before, after, la), 0);
	free(before);
	free(after);
}
END_TEST

/*
 * A capture with more pairs than the counting keeps (2^20 + 1 surfaces of one PID, one call
 * each) is refused, as report refuses it, with a one-line message that names the capture;
 * no database is created.
 */
START_TEST(too_many_pairs_named)
{
	const char *txt = path("pairs.txt"), *frc = path("pairs.frc"), *dbp = path("pairs.db");
	char want[600];
	FILE *f = fopen(txt, "w");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i <= 1u << 20; i++)
		fprintf(f, "frame %u 7 7 0x100 0x%x\n", 1000000 + i, 0x1000 + i);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import '%s' -o '%s'", txt, frc), 0);
	ck_assert_int_eq(fa("db '%s' -o '%s'", frc, dbp), 1);
	snprintf(
	    want, sizeof(want),
	    "frameanalyze db: %s: more than 1048576 (pid, surface) pairs: not a real capture?\n",
	    frc);
	ck_assert_str_eq(err_text, want);
	ck_assert_int_eq(access(dbp, F_OK), -1);
}
END_TEST

int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
	    FRC_CASE("submissions_hand", submissions_hand),
	    FRC_CASE("submissions_surfaces_lives_seconds", submissions_surfaces_lives_seconds),
	    FRC_CASE("submissions_match_report", submissions_match_report),
	    FRC_CASE("summary_keys_complete", summary_keys_complete),
	    FRC_CASE("submissions_windows_one_clock", submissions_windows_one_clock),
	    FRC_CASE("submissions_window_hand", submissions_window_hand),
	    FRC_CASE("submissions_window_match_report", submissions_window_match_report),
	    FRC_CASE("help_lists_schema", help_lists_schema),
	    FRC_CASE("refuses_older_schema", refuses_older_schema),
	    FRC_CASE("too_many_pairs_named", too_many_pairs_named),
	    FRC_CASE("threads_named", threads_named),
	    FRC_CASE("buffers_and_connections", buffers_and_connections),
	};
	Suite *s = suite_create("db_views");
	SRunner *sr;
	int failed, found = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
		found++;
	}
	if (!found) {
		fprintf(stderr, "test_db_views: no case named '%s'\n", argv[1]);
		return 2;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
