/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - `frameanalyze report`: the submissions section, the verdict against the
 * submissions, and the HTML page (self-contained, deterministic, escaped). Every case runs
 * the real binary; expectations come from the scenarios' construction, never from the code
 * under test. One executable, each case its own CTest test (analyzer.report_<case>).
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Run "frameanalyze ARGS" (a shell word list); stdout in out_text, stderr in err_text; the exit
 * code. */
static int fa(const char *args)
{
	char cmd[2048];
	int st;

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

#define ck_out_has(s) ck_assert_msg(strstr(out_text, s), "stdout lacks [%s]:\n%s", s, out_text)
#define ck_err_has(s) ck_assert_msg(strstr(err_text, s), "stderr lacks [%s]:\n%s", s, err_text)

static void spit_text(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_report.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * One PID, two surfaces: 0xa at 60 Hz (period 16666667 ns, 150 calls, buffers cycling
 * over 3) and an overlay 0xb at 10 Hz (25 calls, 2 buffers). The main surface is 0xa (most
 * calls). Its 149 intervals of 16.666667 ms: 60.000 calls/s. Full 1 s windows from the first
 * record (1.000000000 s) up to the last (call 149 at 3.483333383 s): [1 s, 2 s) and [2 s,
 * 3 s). Calls 1..59 end intervals in the first (call 60 is at 2.000000020 s), calls 60..119
 * in the second (call 120 at 3.000000040 s is in the partial third): 59 and 60, median 59.5.
 * The overlay: 24 intervals over 2.4 s = 10.000 calls/s.
 */
static const char *two_surfaces(void)
{
	const char *txt = path("two.txt"), *frc = path("two.frc");
	FILE *f = fopen(txt, "w");
	char cmd[1200];

	ck_assert_ptr_nonnull(f);
	fprintf(f, "meta target <b>&\"x\n");
	for (int i = 0, j = 0; i < 150 || j < 25;) {
		unsigned long long ti = 1000000000ull + i * 16666667ull;
		unsigned long long tj = 1005000000ull + j * 100000000ull;

		if (i < 150 && (j >= 25 || ti <= tj)) {
			fprintf(f, "frame %llu 7 8 0x%x 0xa\n", ti, 0x100 + (i % 3) * 0x10);
			i++;
		} else {
			fprintf(f, "frame %llu 7 9 0x%x 0xb\n", tj, 0x900 + (j % 2));
			j++;
		}
	}
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "import '%s' -o '%s'", txt, frc);
	ck_assert_int_eq(fa(cmd), 0);
	return frc;
}

START_TEST(submissions_two_surfaces)
{
	char args[600];
	const char *frc = two_surfaces();

	snprintf(args, sizeof(args), "report '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	/* the report opens with the content the truth follows, then the submissions */
	ck_assert_msg(!strncmp(out_text, "content (", 9), "%s", out_text);
	ck_assert_ptr_nonnull(strstr(out_text, "\nsubmissions ("));
	ck_out_has("  pid 7 surface 0xa        150 calls, 3 buffers, 60.000 calls/s  <- main "
		   "surface of the main pid\n");
	ck_out_has("  pid 7 surface 0xb        25 calls, 2 buffers, 10.000 calls/s\n");
	ck_out_has("  main surface             pid 7 surface 0xa (150 of its 175 calls)\n");
	ck_out_has("  mean FPS                 60.000 (149 intervals / their sum)\n");
	ck_out_has("  intervals p50/p90/p95/p99 16.666 / 16.666 / 16.666 / 16.666 ms\n");
	ck_out_has(
	    "  window FPS               59.500 (intervals in 2 full 1 s windows / windows)\n");
	ck_out_has("  per window               min 59, max 60, median 59.500\n");
	ck_out_has("  janks / big janks        0 / 0 (PerfDog)\n");
	ck_out_has("heuristics vs submissions\n  tracker kala             ");
	ck_out_has(" vs 60.000 FPS submitted\n");
	snprintf(args, sizeof(args), "report --json '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("{\n  \"frameanalyze_report\": 1,\n  \"content\": {\n");
	ck_out_has("\n  \"submissions\": {\n    \"pids\": 1,\n");
	ck_out_has("{\"pid\": 7, \"surface\": \"0xa\", \"main\": true, \"calls\": 150, "
		   "\"buffers\": 3, \"buffers_more\": false, \"calls_per_s\": 60.000}");
	ck_out_has("    \"main_surface\": \"0xa\",\n");
	ck_out_has("    \"mean_fps\": 60.000,\n");
	ck_out_has("    \"full_windows\": 2,\n    \"window_fps\": 59.500,\n");
	ck_out_has("    \"per_second_min\": 59.000,\n    \"per_second_max\": 60.000,\n");
	ck_out_has("    \"stability_percent\": 100.000\n");
	ck_out_has("  \"tracker\": {\n    \"name\": \"kala\",\n");
	ck_out_has("    \"submitted_fps\": 60.000,\n");
}
END_TEST

/* A 60 Hz, 3-buffer game (the demo's stand-in): kala keys on the buffer and sees each one
 * every 3 frames (50 ms), so it reports a third of what was submitted. */
START_TEST(verdict_triple_buffered)
{
	char args[600];
	double sub = 0, trk = 0, err = 0;
	const char *p;

	snprintf(args, sizeof(args), "report --json '%s/steady_60hz_triple.frc'", FIXTURES_BIN_DIR);
	ck_assert_int_eq(fa(args), 0);
	p = strstr(out_text, "\"tracker\": {");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "\"mean_fps\""), "\"mean_fps\": %lf", &trk), 1);
	ck_assert_int_eq(sscanf(strstr(p, "\"submitted_fps\""), "\"submitted_fps\": %lf", &sub), 1);
	ck_assert_int_eq(sscanf(strstr(p, "\"mean_fps_error_percent\""),
				"\"mean_fps_error_percent\": %lf", &err),
			 1);
	ck_assert_msg(sub > 59.9 && sub < 60.1, "submitted %f", sub);
	ck_assert_msg(trk > 19.9 && trk < 20.1, "kala %f", trk);
	ck_assert_msg(err > -67.0 && err < -66.3, "error %f", err);
	snprintf(args, sizeof(args), "report '%s/steady_60hz_triple.frc'", FIXTURES_BIN_DIR);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has(
	    "  tracker kala             mean 20.016 FPS, -66.640 % vs 60.001 FPS submitted\n");
}
END_TEST

/* The number after "KEY": " in text at or after from (NAN when absent or null). */
static double json_after(const char *from, const char *key)
{
	char pat[96];
	const char *k;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	k = from ? strstr(from, pat) : NULL;
	if (!k || !strncmp(k + strlen(pat), "null", 4))
		return NAN;
	return strtod(k + strlen(pat), NULL);
}

/*
 * One name, one number (issue 18 point 2). score/two_equal_surfaces: records from 1.000 s to
 * 6.000 s (its last tick): 5 full windows [1 s, 2 s) .. [5 s, 6 s) for report and score alike
 * (report counted 4 from the first interval's end). The main surface's 300 calls at 1.004 s
 * + i * 16.666667 ms (the last at 5.987 s) close 299 intervals, all in those windows: window
 * FPS 299 / 5 = 59.800, while the mean FPS (intervals / their sum) is 1e9 / 16666667 =
 * 60.000. kala keys on the buffer of two interleaved surfaces: its deltas overlap in time
 * (mean FPS 20.000 from 50 ms deltas, yet 39.600 deltas per window); report and score must
 * print the same two numbers under the same two names.
 */
START_TEST(one_window_definition)
{
	char args[600];
	const char *frc = FIXTURES_BIN_DIR "/score/two_equal_surfaces.frc", *trk;
	double rep_win, rep_mean;

	snprintf(args, sizeof(args), "report --json '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("    \"full_windows\": 5,\n    \"window_fps\": 59.800,\n");
	ck_out_has("    \"mean_fps\": 60.000,\n");
	trk = strstr(out_text, "\"tracker\": {");
	ck_assert_ptr_nonnull(trk);
	ck_assert_double_eq_tol(json_after(trk, "mean_fps"), 20.0, 0.0005);
	ck_assert_double_eq_tol(json_after(trk, "submitted_window_fps"), 59.8, 0.0005);
	rep_win = json_after(trk, "window_fps");
	rep_mean = json_after(trk, "mean_fps_error_percent");
	ck_assert_double_eq_tol(rep_win, 39.6, 0.0005);
	ck_assert_double_eq_tol(rep_mean, -66.667, 0.0005);
	snprintf(args, sizeof(args), "score --json --tracker kala '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has(
	    "\"full_windows\": 5, \"truth_mean_fps\": 60.000, \"truth_window_fps\": 59.800,");
	trk = strstr(out_text, "{\"name\": \"kala\",");
	ck_assert_ptr_nonnull(trk);
	ck_assert_double_eq_tol(json_after(trk, "window_fps"), rep_win, 0.0005);
	ck_assert_double_eq_tol(json_after(trk, "mean_fps_error_percent"), rep_mean, 0.0005);
	ck_assert_double_eq_tol(json_after(trk, "mean_fps"), 20.0, 0.0005);
	/* the text says which is which, with 3 decimals everywhere */
	snprintf(args, sizeof(args), "report '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  tracker kala             mean 20.000 FPS, -66.667 % vs 60.000 FPS submitted\n"
		   "  window FPS               39.600 FPS, -33.779 % vs 59.800 FPS submitted\n");
}
END_TEST

/* Same capture, same page, byte for byte; nothing fetched; every chart; text escaped. */
START_TEST(html_deterministic_selfcontained)
{
	static const char *const charts[] = {"chart-frametime", "chart-fps", "chart-histogram",
					     "chart-cdf"};
	const char *frc = two_surfaces();
	char args[600], *a, *b, *p;
	size_t la, lb;

	snprintf(args, sizeof(args), "report --html -o '%s' '%s'", path("a.html"), frc);
	ck_assert_int_eq(fa(args), 0);
	ck_assert_str_eq(out_text, "");
	snprintf(args, sizeof(args), "report --html '%s' -o '%s'", frc, path("b.html"));
	ck_assert_int_eq(fa(args), 0);
	a = slurp(path("a.html"), &la);
	b = slurp(path("b.html"), &lb);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_msg(la == lb && !memcmp(a, b, la), "two runs differ");
	ck_assert(!strncmp(a, "<!DOCTYPE html>\n", 16));
	ck_assert_ptr_null(strstr(a, "<script"));
	ck_assert_ptr_null(strstr(a, "<link"));
	ck_assert_ptr_null(strstr(a, "url("));
	for (p = strstr(a, "http"); p; p = strstr(p + 1, "http"))
		ck_assert_msg(!strncmp(p, "http://www.w3.org/2000/svg\"", 27), "a URL: %.40s", p);
	for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++) {
		char id[64];
		snprintf(id, sizeof(id), "<svg id=\"%s\"", charts[i]);
		ck_assert_msg(strstr(a, id), "no %s", charts[i]);
	}
	/* the metadata `<b>&"x` is text, not markup */
	ck_assert_ptr_null(strstr(a, "<b>"));
	ck_assert_ptr_nonnull(strstr(a, "&lt;b&gt;&amp;&quot;x"));
	ck_assert_ptr_nonnull(strstr(a, "data-json=\"submissions.mean_fps\">60.000<"));
	/* the overlay surface 0xb has its own series in the frame-time chart */
	ck_assert_ptr_nonnull(strstr(a, "<g class=\"s-o0\">"));
	ck_assert_ptr_nonnull(strstr(a, ">surface 0xb</text>"));
	/* GameBench's per-second band: 2 full seconds of 16.666667 ms intervals -> 60.000 */
	ck_assert_ptr_nonnull(strstr(a, "submissions: 1/longest..1/shortest interval at "));
	ck_assert_ptr_nonnull(strstr(a, "s: 60.000..60.000 FPS</title>"));
	/* the heuristic lab's score table: every variant */
	ck_assert_ptr_nonnull(strstr(a, "<table id=\"scores\">"));
	ck_assert_ptr_nonnull(strstr(a, "<tr><th>kala</th>"));
	ck_assert_ptr_nonnull(strstr(a, "<tr><th>main-surface</th>"));
	free(a);
	free(b);
}
END_TEST

/* An output that cannot be written: exit 1, a message naming it, no file left behind. */
START_TEST(html_unwritable_output)
{
	char args[600];
	const char *frc = two_surfaces();
	struct stat st;

	snprintf(args, sizeof(args), "report --html -o '%s' '%s'", path("no/such/x.html"), frc);
	ck_assert_int_eq(fa(args), 1);
	ck_assert_int_eq(rmdir(path("no")), -1); /* nothing was created on the way */
	/* a device is written in place, never replaced by a renamed file */
	snprintf(args, sizeof(args), "report --html -o /dev/full '%s'", frc);
	ck_assert_int_eq(fa(args), 1);
	ck_assert_int_eq(stat("/dev/full", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	snprintf(args, sizeof(args), "report --json -o /dev/stdout '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"frameanalyze_report\": 1");
}
END_TEST

/*
 * The bytes of the Trace the trace at path holds once its bundles are opened: by
 * perfetto_inflate.py (Python's zlib and its own wire reader, not the exporter's code),
 * which also refuses a packet of the file that is not a bundle, or a damaged stream.
 */
static size_t inflated_size(const char *path)
{
	char cmd[1024], buf[65536];
	size_t total = 0, n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "python3 '%s/perfetto_inflate.py' < '%s'", TESTS_SRC_DIR, path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		total += n;
	ck_assert_int_eq(pclose(p), 0);
	return total;
}

/* perfetto: -o is required, bad input is exit 1 with no file left, a good one is written. */
START_TEST(perfetto_usage_and_errors)
{
	char args[600];
	const char *frc = two_surfaces();
	struct stat st;

	snprintf(args, sizeof(args), "perfetto '%s'", frc);
	ck_assert_int_eq(fa(args), 2);
	snprintf(args, sizeof(args), "perfetto '%s' -o '%s' --tracker nope", frc,
		 path("t.pftrace"));
	ck_assert_int_eq(fa(args), 2);
	snprintf(args, sizeof(args), "perfetto '%s' -o '%s'", path("two.txt"), path("t.pftrace"));
	ck_assert_int_eq(fa(args), 1);
	ck_assert_int_ne(access(path("t.pftrace"), F_OK), 0);
	ck_assert_int_ne(access(path("t.pftrace.tmp"), F_OK), 0);
	snprintf(args, sizeof(args), "perfetto '%s' -o '%s'", frc, path("t.pftrace"));
	ck_assert_int_eq(fa(args), 0);
	ck_assert_int_eq(stat(path("t.pftrace"), &st), 0);
	/* 175 calls: at least a packet key, length and event per call, in bundles */
	ck_assert_uint_gt(inflated_size(path("t.pftrace")), 175 * 20);
	ck_assert_int_lt(st.st_size, 175 * 20);
	ck_assert_int_eq(fa("help perfetto"), 0);
	ck_out_has("ui.perfetto.dev");
}
END_TEST

/*
 * compare: a capture against itself changes nothing; the jank_bursts fixture (janks by
 * construction) against the steady one trips a janks gate; malformed gates are usage errors.
 */
START_TEST(compare_gates)
{
	char args[900], steady[400], janky[400];

	snprintf(steady, sizeof(steady), "'%s/steady_60hz_triple.frc'", FIXTURES_BIN_DIR);
	snprintf(janky, sizeof(janky), "'%s/jank_bursts.frc'", FIXTURES_BIN_DIR);
	snprintf(args, sizeof(args),
		 "compare %s %s --fail-if 'submitted_fps.delta<0' --fail-if "
		 "'p99_ms.pct>0'",
		 steady, steady);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  submitted mean FPS (main surface)");
	/* change % with 3 decimals, as every number */
	ck_out_has("+0.000     +0.000\n");
	ck_out_has("  submitted_fps.delta<0");
	/* 60 Hz by construction: the AFTER value passes a >= 59.9 gate */
	snprintf(args, sizeof(args), "compare %s %s --fail-if 'submitted_fps.after>=59.9'", steady,
		 steady);
	ck_assert_int_eq(fa(args), 1);
	ck_out_has("TRIPPED\n");
	snprintf(args, sizeof(args), "compare --json %s %s --fail-if janks_per_min.after\\>0",
		 steady, janky);
	ck_assert_int_eq(fa(args), 1);
	ck_out_has("\"frameanalyze_compare\": 1,\n");
	ck_out_has("\"janks_per_min\": {\"before\": 0.000, ");
	ck_out_has("{\"gate\": \"janks_per_min.after>0\", \"value\": ");
	ck_out_has("\"tripped\": true, \"state\": \"tripped\", \"why\": null}");
	snprintf(args, sizeof(args), "compare --html %s %s", steady, janky);
	ck_assert_int_eq(fa(args), 0);
	ck_assert(!strncmp(out_text, "<!DOCTYPE html>", 15));
	ck_assert_ptr_null(strstr(out_text, "<script"));
	/* its charts: both captures' per-second FPS and frame-time CDF, each a drawn line */
	ck_out_has("<svg id=\"chart-compare-fps\"");
	ck_out_has("<svg id=\"chart-compare-cdf\"");
	ck_out_has("<g class=\"s-after\"><path class=\"line\" d=\"M");
	ck_out_has("<g class=\"s-sub\"><path class=\"line\" d=\"M");
	/* two lines per chart: the per-second FPS and the CDF, before and after */
	{
		int lines = 0;
		for (const char *p = out_text; (p = strstr(p, "<path class=\"line\"")); p++)
			lines++;
		ck_assert_int_eq(lines, 4);
	}
	/* A gate may have spaces around its operator (as users type it in quotes). */
	snprintf(args, sizeof(args), "compare %s %s --fail-if 'submitted_fps.after >= 59.9'",
		 steady, steady);
	ck_assert_int_eq(fa(args), 1);
	/* Malformed gates: usage errors saying what is wrong. */
	static const struct {
		const char *gate, *why;
	} bad[] = {
	    {"'p99_ms.median>1'", "unknown field '.median' (known: .after, .delta, .pct)"},
	    {"'p99_ms>abc'", "expected a number after the operator"},
	    {"'p99_ms=3'", "expected an operator (> >= < <=) after the metric"},
	    {"'nope>1'", "unknown metric 'nope' (known: submitted_fps, low_1pct_fps, p50_ms, "},
	    {"'p99_ms>'", "expected a number after the operator"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "compare %s %s --fail-if %s", steady, steady,
			 bad[i].gate);
		ck_assert_msg(fa(args) == 2, "gate %s accepted", bad[i].gate);
		ck_err_has(bad[i].why);
	}
	snprintf(args, sizeof(args), "compare %s", steady);
	ck_assert_int_eq(fa(args), 2);
}
END_TEST

/*
 * A gate on a metric that does not exist fails with a message (a broken recording with no
 * frames cannot pass a CI gate); a truncated capture is warned about and fails under
 * --strict; captures replayed with different trackers are warned about.
 */
START_TEST(compare_no_data_fails)
{
	char steady[400], none[512], cut[512], ms[512], args[2400];
	size_t n;
	char *bytes;
	FILE *f;

	snprintf(steady, sizeof(steady), "%s/steady_60hz_triple.frc", FIXTURES_BIN_DIR);
	snprintf(none, sizeof(none), "%s", path("none.frc"));
	spit_text(path("none.txt"), "meta target nothing\ntick 1000000000\ntick 2000000000\n");
	snprintf(args, sizeof(args), "import '%s' -o '%s'", path("none.txt"), none);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args),
		 "compare '%s' '%s' --fail-if 'submitted_fps.pct<-5' --fail-if 'p99_ms.delta>2'",
		 steady, none);
	ck_assert_int_eq(fa(args), 1);
	ck_out_has(
	    "  submitted_fps.pct<-5                       null  NO DATA: no frames in AFTER\n");
	ck_err_has("gate 'submitted_fps.pct<-5' failed: no frames in AFTER (");
	ck_err_has("gate 'p99_ms.delta>2' failed: no frames in AFTER (");
	/* the other way round, BEFORE has nothing */
	snprintf(args, sizeof(args), "compare '%s' '%s' --fail-if 'max_ms.delta>2'", none, steady);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("gate 'max_ms.delta>2' failed: no frames in BEFORE (");
	/* a truncated AFTER: the first half of the steady capture */
	bytes = slurp(steady, &n);
	ck_assert_ptr_nonnull(bytes);
	snprintf(cut, sizeof(cut), "%s", path("cut.frc"));
	f = fopen(cut, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, n / 2, f), n / 2);
	ck_assert_int_eq(fclose(f), 0);
	free(bytes);
	snprintf(args, sizeof(args), "compare '%s' '%s'", steady, cut);
	ck_assert_int_eq(fa(args), 0);
	ck_err_has("cut.frc: offset ");
	ck_err_has(": truncated; compared up to the damage\n");
	snprintf(args, sizeof(args), "compare --strict '%s' '%s'", steady, cut);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("(--strict: failing)");
	/* recorded with another tracker */
	snprintf(ms, sizeof(ms), "%s", path("ms.frc"));
	bytes = slurp(FIXTURES_SRC_DIR "/steady_60hz_triple.txt", NULL);
	ck_assert_ptr_nonnull(bytes);
	f = fopen(path("ms.txt"), "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "meta tracker main-surface\n%s", bytes);
	ck_assert_int_eq(fclose(f), 0);
	free(bytes);
	snprintf(args, sizeof(args), "import '%s' -o '%s'", path("ms.txt"), ms);
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "compare '%s' '%s'", steady, ms);
	ck_assert_int_eq(fa(args), 0);
	ck_err_has("warning: the captures were replayed with different trackers (kala -> "
		   "main-surface");
	snprintf(args, sizeof(args), "compare --tracker kala '%s' '%s'", steady, ms);
	ck_assert_int_eq(fa(args), 0);
	ck_assert_ptr_null(strstr(err_text, "different trackers"));
}
END_TEST

/*
 * Fidelity (live readings == a replay) applies only to the tracker the recording ran:
 * standin_60hz_jank.frc was recorded with kala and holds its live readings. Replayed with
 * main-surface it says n/a and exits 0 (it said ** MISMATCH ** and exited 1). --tick-ms
 * on a capture with tick records has no effect, and says so.
 */
START_TEST(fidelity_only_recorded_tracker)
{
	const char *cap = FIXTURES_SRC_DIR "/real/standin_60hz_jank.frc";
	char args[1200];

	snprintf(args, sizeof(args), "report --tracker main-surface '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  live readings            n/a (capture recorded with kala; replayed with "
		   "main-surface)\n");
	ck_assert_ptr_null(strstr(out_text, "MISMATCH"));
	snprintf(args, sizeof(args), "report --json --tracker main-surface '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"applies\": false,\n    \"recorded_tracker\": \"kala\",\n    "
		   "\"live_readings\": 0,\n    \"reproduced\": 0,\n    \"mismatches\": 0,");
	snprintf(args, sizeof(args), "report --html --tracker main-surface '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("data-json=\"fidelity.recorded_tracker\">kala</span>");
	ck_assert_ptr_null(strstr(out_text, "(must be 0)"));
	/* the recorded tracker: fidelity applies, every live reading reproduced */
	snprintf(args, sizeof(args), "report --json '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"applies\": true,\n    \"recorded_tracker\": \"kala\",\n");
	ck_out_has("\"mismatches\": 0,");
	ck_assert_ptr_null(strstr(out_text, "\"live_readings\": 0,"));
	snprintf(args, sizeof(args), "report --tick-ms 250 '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_err_has("warning: --tick-ms 250 has no effect: ");
	ck_err_has("has tick records");
}
END_TEST

/*
 * The page counts janks one way: the Jank card, the Jank marker row (BigJanks included)
 * and the BigJank row agree with the JSON report (standin_60hz_jank: 5 hitches of about
 * 160 ms, each a Jank and a BigJank); the tracker's janks have rows of their own; the
 * charts scale with the page (no fixed width); the clip note appears only when a frame
 * time is above 250 ms (pauses: 4 s gaps) and says 250.
 */
START_TEST(html_janks_one_meaning)
{
	const char *cap = FIXTURES_SRC_DIR "/real/standin_60hz_jank.frc";
	char args[1200];

	snprintf(args, sizeof(args), "report --html '%s'", cap);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("data-json=\"submissions.janks\">5</span>");
	ck_out_has("data-json=\"submissions.big_janks\">5</span>");
	ck_out_has(">Jank (5)</text>");
	ck_out_has(">BigJank (5)</text>");
	ck_out_has(">tracker Jank (");
	ck_out_has(">tracker BigJank (");
	/* the chart's own size is its viewBox only: CSS fits it to the page */
	ck_out_has("aria-label=\"frame time over time\" viewBox=\"0 0 1134 376\" "
		   "preserveAspectRatio=\"xMinYMin meet\" xmlns=");
	ck_out_has("svg.chart{display:block;width:100%;height:auto}");
	ck_assert_ptr_null(strstr(out_text, "drawn at the top edge"));
	snprintf(args, sizeof(args), "report --html '%s/pauses.frc'", FIXTURES_BIN_DIR);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("; values above 250 ms are drawn at the top edge.");
}
END_TEST

/* The recorder's count of malformed batch calls (FORMAT.md 4.6) is in the accounting. */
START_TEST(report_batch_anomalies)
{
	char args[1200];

	spit_text(path("an.txt"), "frame 1000000000 7 7 0x1\nframe 1016666667 7 7 0x2\n"
				  "drops 1020000000 4 3\n");
	snprintf(args, sizeof(args), "import '%s' -o '%s'", path("an.txt"), path("an.frc"));
	ck_assert_int_eq(fa(args), 0);
	snprintf(args, sizeof(args), "report '%s'", path("an.frc"));
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  reservation failures     4 (66.667 % loss)\n");
	ck_out_has("  malformed batch calls    3 (buffers unknown: neither frames nor failures)\n");
	snprintf(args, sizeof(args), "report --json '%s'", path("an.frc"));
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"batch_anomalies\": 3,");
}
END_TEST

/* Bytes of a file, to compare an input before and after a refused run. */
static char *bytes_of(const char *p, size_t *len)
{
	char *b = slurp(p, len);

	ck_assert_msg(b, "%s: %s", p, strerror(errno));
	return b;
}

/* -o naming the input (itself, a symbolic link to it, a hard link to it) is refused by
 * every command that writes a file, --force or not, and the input stays byte-identical. */
START_TEST(output_is_input_refused)
{
	static const char *const cmds[] = {
	    "report", "report --html --force", "perfetto", "perfetto --force", "compare", "db",
	};
	/* copies: path()'s buffers are reused by every fa() */
	char frc[512], sym[512], hard[512], txt[512], *before, *after, args[1600];
	const char *outs[3] = {frc, sym, hard};
	size_t n0, n1;

	snprintf(frc, sizeof(frc), "%s", two_surfaces());
	snprintf(sym, sizeof(sym), "%s", path("sym.frc"));
	snprintf(hard, sizeof(hard), "%s", path("hard.frc"));
	snprintf(txt, sizeof(txt), "%s", path("two.txt"));
	before = bytes_of(frc, &n0);

	ck_assert_int_eq(symlink(frc, sym), 0);
	ck_assert_int_eq(link(frc, hard), 0);
	for (size_t o = 0; o < 3; o++)
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			/* compare takes two captures: the same one twice */
			snprintf(args, sizeof(args), "%s '%s' %s%s%s -o '%s'", cmds[i], frc,
				 strcmp(cmds[i], "compare") ? "" : "'",
				 strcmp(cmds[i], "compare") ? "" : frc,
				 strcmp(cmds[i], "compare") ? "" : "'", outs[o]);
			ck_assert_msg(fa(args) == 1, "%s: exit not 1", args);
			ck_err_has("is the input");
			after = bytes_of(frc, &n1);
			ck_assert_msg(n0 == n1 && !memcmp(before, after, n0),
				      "%s changed the input (%zu -> %zu bytes)", args, n0, n1);
			free(after);
		}
	/* import: the text file is the input */
	snprintf(args, sizeof(args), "import '%s' -o '%s' --force", txt, txt);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("is the input");
	free(before);
}
END_TEST

/* An existing output is refused without --force and replaced whole with it. */
START_TEST(output_exists_needs_force)
{
	char frc[512], out[512], args[1200], *text;

	snprintf(frc, sizeof(frc), "%s", two_surfaces());
	snprintf(out, sizeof(out), "%s", path("r.txt"));
	spit_text(out, "keep me\n");
	snprintf(args, sizeof(args), "report '%s' -o '%s'", frc, out);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("r.txt: exists; not replacing it without --force");
	text = bytes_of(out, NULL);
	ck_assert_str_eq(text, "keep me\n");
	free(text);
	snprintf(args, sizeof(args), "report '%s' -o '%s' --force", frc, out);
	ck_assert_int_eq(fa(args), 0);
	text = bytes_of(out, NULL);
	ck_assert_msg(!strncmp(text, "content (", 9), "%s", text);
	free(text);
	/* --force alone is a usage error, as is --json with --html */
	snprintf(args, sizeof(args), "report '%s' --force", frc);
	ck_assert_int_eq(fa(args), 2);
	ck_err_has("--force without -o FILE");
	snprintf(args, sizeof(args), "report '%s' --json --html", frc);
	ck_assert_int_eq(fa(args), 2);
	ck_err_has("--json and --html: choose one");
}
END_TEST

/* A symbolic link planted where the old fixed temporary name was (OUT.tmp) and one at OUT
 * itself are never followed: the victims stay as they were. */
START_TEST(output_planted_link_not_followed)
{
	char frc[512], victim[512], out[512], args[1200], name[600], *text;

	snprintf(frc, sizeof(frc), "%s", two_surfaces());
	snprintf(victim, sizeof(victim), "%s", path("victim"));
	snprintf(out, sizeof(out), "%s", path("out.html"));
	spit_text(victim, "precious\n");
	snprintf(name, sizeof(name), "%s.tmp", out);
	ck_assert_int_eq(symlink(victim, name), 0);
	snprintf(args, sizeof(args), "report --html -o '%s' '%s'", out, frc);
	ck_assert_int_eq(fa(args), 0);
	text = bytes_of(victim, NULL);
	ck_assert_str_eq(text, "precious\n");
	free(text);
	text = bytes_of(out, NULL);
	ck_assert_ptr_nonnull(strstr(text, "</html>"));
	free(text);
	/* OUT itself a link to the victim: --force replaces the link, not the victim */
	ck_assert_int_eq(unlink(out), 0);
	ck_assert_int_eq(symlink(victim, out), 0);
	snprintf(args, sizeof(args), "report --html --force -o '%s' '%s'", out, frc);
	ck_assert_int_eq(fa(args), 0);
	text = bytes_of(victim, NULL);
	ck_assert_str_eq(text, "precious\n");
	free(text);
	{
		struct stat st;

		ck_assert_int_eq(lstat(out, &st), 0);
		ck_assert(S_ISREG(st.st_mode));
	}
}
END_TEST

/* Two runs writing the same -o at once leave one whole page and no temporary file. */
START_TEST(output_concurrent_one_whole)
{
	char frc[512], out[512], ref_path[512], cmd[2400], *ref, *got;
	size_t nref, ngot;
	int st;

	snprintf(frc, sizeof(frc), "%s", two_surfaces());
	snprintf(out, sizeof(out), "%s", path("same.html"));
	snprintf(ref_path, sizeof(ref_path), "%s", path("ref.html"));
	snprintf(cmd, sizeof(cmd), "report --html -o '%s' '%s'", ref_path, frc);
	ck_assert_int_eq(fa(cmd), 0);
	ref = bytes_of(ref_path, &nref);
	for (int round = 0; round < 5; round++) {
		unlink(out);
		snprintf(cmd, sizeof(cmd),
			 "cd '%s' && { '%s' report --html --force -o same.html two.frc 2>e1 & "
			 "'%s' report --html --force -o same.html two.frc 2>e2 & wait; }",
			 dir, FRAMEANALYZE_BIN, FRAMEANALYZE_BIN);
		st = system(cmd);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		got = bytes_of(out, &ngot);
		ck_assert_msg(ngot == nref && !memcmp(got, ref, nref),
			      "round %d: not one whole page", round);
		free(got);
		snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q 'same.html.tmp'", dir);
		ck_assert_msg(system(cmd) != 0, "a temporary file was left behind");
	}
	free(ref);
}
END_TEST

/*
 * The number after "KEY": in out_text, from the first occurrence of anchor on (NULL: the
 * start); the case fails when it is not there.
 */
static double json_num_after(const char *anchor, const char *key)
{
	char k[128];
	const char *p = anchor ? strstr(out_text, anchor) : out_text;

	ck_assert_msg(p, "stdout lacks [%s]", anchor);
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(p, k);
	ck_assert_msg(p, "stdout lacks [%s] after [%s]", k, anchor ? anchor : "");
	return strtod(p + strlen(k), NULL);
}

/*
 * compare --meter A --meter B CAPTURE on fixtures/score/meter_sysfs_120_game_60 (its
 * generator's comment: a node reading "120" sampled every 250 ms, a 60 Hz game on one
 * surface, 6 s, the first frame at 1.000069710 s; tick records every 250 ms from 1.25 s to
 * 7.0 s: 24 ticks). heuristics/README.md: auriya-10fe7c6 polls the node at most every 2 s
 * from its creation at the first record, so it reads the eBPF ring at the 8 ticks 1.25 ..
 * 3.0 s and the node (120, sysfs) at the 16 ticks 3.25 .. 7.0 s; auriya-ccafd78 reads the
 * ring (frames flow throughout) at all 24. Fed by main-surface the ring holds the game's
 * 60 Hz: the two differ at exactly the 16 sysfs ticks, by source, and by 120 - ~60 FPS.
 * Time with another source: from 3.25 s to the last tick at 7.0 s (the capture's end) =
 * 15 x 250 ms = 3.750 s. Graded (ticks at least 1 s after the first record: 2.25 .. 7.0 s,
 * 20 ticks) against a truth of ~60 FPS: A is ~60 FPS off at its 16 sysfs ticks and ~0 at
 * 4, MAE ~ 16 * 60 / 20 = 48; B ~0.
 */
START_TEST(compare_two_meters)
{
	char frc[512], args[1400];
	double v;

	snprintf(frc, sizeof(frc), "%s/score/meter_sysfs_120_game_60.frc", FIXTURES_BIN_DIR);
	snprintf(args, sizeof(args),
		 "compare --meter auriya-10fe7c6 --meter auriya-ccafd78 --tracker main-surface "
		 "'%s'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  A: tracker main-surface, meter auriya-10fe7c6\n");
	ck_out_has("  B: tracker main-surface, meter auriya-ccafd78\n");
	ck_out_has("  ticks                                  24                   24\n");
	ck_out_has("  sysfs/ebpf/none                    16/8/0               0/24/0\n");
	ck_out_has("per-tick diff: 16 of 24 ticks differ, 16 with another source, for 3.750 s\n");
	ck_out_has(" 120.000 sysfs        59.");
	ck_out_has("  truth: 20 ticks graded, 0 rate changes, 0 freezes, 0 idle ticks\n");
	snprintf(args, sizeof(args),
		 "compare --json --meter auriya-10fe7c6 --meter auriya-ccafd78 --tracker "
		 "main-surface '%s'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("\"mode\": \"variants\"");
	ck_out_has("\"diff\": {\"ticks\": 24, \"ticks_differ\": 16, \"source_differ_ticks\": 16, "
		   "\"source_differ_ms\": 3750.000, ");
	ck_out_has("\"before_fps\": 120.000, \"before_source\": \"sysfs\", ");
	v = json_num_after("\"diff\"", "max_diff_fps");
	ck_assert_msg(v > 59 && v < 61, "max_diff_fps %f, not 120 - ~60", v);
	v = json_num_after("\"meter_mae\": {", "before");
	ck_assert_msg(v > 47 && v < 49, "A's MAE %f, not ~48", v);
	v = json_num_after("\"meter_mae\": {", "after");
	ck_assert_msg(v >= 0 && v < 1, "B's MAE %f, not ~0", v);
	/* the gates: B's error is ~48 FPS lower; 16 ticks differ */
	snprintf(args, sizeof(args),
		 "compare --meter auriya-10fe7c6 --meter auriya-ccafd78 --tracker main-surface "
		 "'%s' --fail-if 'meter_mae.delta>1' --fail-if 'ticks_differ>16' --fail-if "
		 "'source_differ_ms<3750'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  ticks_differ>16                              16.000  ok\n");
	snprintf(args, sizeof(args),
		 "compare --meter auriya-10fe7c6 --meter auriya-ccafd78 --tracker main-surface "
		 "'%s' --fail-if 'meter_mae.delta<-40' --fail-if 'source_differ_ticks >= 16' "
		 "--fail-if 'settle_mean_ms.after<5'",
		 frc);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("gate tripped: meter_mae.delta<-40\n");
	ck_err_has("gate tripped: source_differ_ticks >= 16\n");
	/* a constant 60 FPS truth has no rate change: nothing settled, the gate fails */
	ck_err_has("gate 'settle_mean_ms.after<5' failed: no rate change settled for B (meter "
		   "auriya-ccafd78)");
}
END_TEST

/*
 * The same fixture: two trackers, one meter (auriya-10fe7c6): the 16 sysfs ticks read the
 * node whatever the tracker, the 8 eBPF ticks differ (kala's third of the 3-buffer rate
 * against main-surface's 60), by value only: 8 differ, 0 by source, 0 s. A window of 2 s
 * from 2 s after the first record (3.00007 .. 5.00007 s) holds the ticks 3.25 .. 5.0 s: 8,
 * all sysfs for A and eBPF for B with two meters, 7 x 250 ms + 0.07 ms = 1.750 s.
 * The same meter twice: nothing differs.
 */
START_TEST(compare_two_trackers_window)
{
	char frc[512], args[1400];

	snprintf(frc, sizeof(frc), "%s/score/meter_sysfs_120_game_60.frc", FIXTURES_BIN_DIR);
	snprintf(args, sizeof(args), "compare --tracker kala --tracker main-surface '%s'", frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  A: tracker kala, meter auriya-10fe7c6\n");
	ck_out_has("  B: tracker main-surface, meter auriya-10fe7c6\n");
	ck_out_has("per-tick diff: 8 of 24 ticks differ, 0 with another source, for 0.000 s\n");
	snprintf(args, sizeof(args),
		 "compare --meter auriya-10fe7c6 --meter auriya-ccafd78 --from 2 --to +2 '%s'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("  window: 2.000..4.000 s after the first record\n");
	ck_out_has("per-tick diff: 8 of 8 ticks differ, 8 with another source, for 1.750 s\n");
	snprintf(args, sizeof(args),
		 "compare --meter frc-window --meter frc-window '%s' --fail-if 'ticks_differ>0'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_out_has("per-tick diff: 0 of 24 ticks differ, 0 with another source, for 0.000 s\n");
}
END_TEST

/* Every key of the two-variant JSON is documented in REPORT.md ("Compare"). */
START_TEST(compare_two_meters_json_documented)
{
	char frc[512], args[1400], key[64];
	char *doc = slurp(FIXTURES_SRC_DIR "/../analyzer/REPORT.md", NULL);
	const char *sec, *p;
	int keys = 0;

	ck_assert_ptr_nonnull(doc);
	sec = strstr(doc, "### Two variants on one capture");
	ck_assert_ptr_nonnull(sec);
	snprintf(frc, sizeof(frc), "%s/score/meter_sysfs_120_game_60.frc", FIXTURES_BIN_DIR);
	snprintf(args, sizeof(args),
		 "compare --json --meter auriya-10fe7c6 --meter auriya-ccafd78 '%s' --fail-if "
		 "'meter_mae>1'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	for (p = out_text; (p = strchr(p, '"'));) {
		const char *q = strchr(p + 1, '"');
		char bt[80];

		ck_assert_ptr_nonnull(q);
		if (q[1] == ':' && (size_t)(q - p - 1) < sizeof(key)) {
			snprintf(key, sizeof(key), "%.*s", (int)(q - p - 1), p + 1);
			snprintf(bt, sizeof(bt), "`%s`", key);
			/* a metric name stands for METRIC; the rest must be named in the section */
			ck_assert_msg(strstr(sec, bt) || !strcmp(key, "frameanalyze_compare"),
				      "JSON key '%s' not in REPORT.md's two-variant section", key);
			keys++;
		}
		p = q + 1;
	}
	ck_assert_int_gt(keys, 60);
	free(doc);
}
END_TEST

/*
 * Usage errors of the one-capture form: two meters (or trackers) with two captures, one
 * capture without two variants, a third --meter, a field on a pair number, a metric of the
 * two-capture form; a truncated capture is warned about (--strict: exit 1); -o never
 * writes over the capture.
 */
START_TEST(compare_two_meters_usage)
{
	static const struct {
		const char *args, *err;
	} bad[] = {
	    {"--meter auriya-10fe7c6 --meter auriya-ccafd78 F F",
	     "--meter given twice with two captures: two meters compare two variants of ONE "
	     "capture (compare --meter A --meter B CAPTURE)"},
	    {"--tracker kala --tracker surface F F", "--tracker given twice with two captures"},
	    {"F", "one capture: give two --meter (or two --tracker) to compare two variants"},
	    {"--meter frc-window F", "one capture: give two --meter"},
	    {"--meter frc-window --meter frc-window --meter auriya-ccafd78 F",
	     "--meter given three times"},
	    {"--meter frc-window --meter auriya-ccafd78 F --fail-if 'ticks_differ.delta>0'",
	     "'ticks_differ' is one number for the two variants: no .after, .delta, .pct"},
	    {"--meter frc-window --meter auriya-ccafd78 F --fail-if 'submitted_fps>0'",
	     "unknown metric 'submitted_fps' (known: meter_fps, meter_none, meter_mae, "},
	    {"--meter frc-window --meter nope F", "--meter: unknown meter 'nope'"},
	};
	char frc[512], args[2400], cut[512];
	char *bytes;
	size_t n;
	FILE *f;

	snprintf(frc, sizeof(frc), "%s/score/meter_sysfs_120_game_60.frc", FIXTURES_BIN_DIR);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char a[600], *at;

		snprintf(a, sizeof(a), "%s", bad[i].args);
		snprintf(args, sizeof(args), "compare");
		for (char *tok = strtok_r(a, " ", &at); tok; tok = strtok_r(NULL, " ", &at))
			snprintf(args + strlen(args), sizeof(args) - strlen(args), " %s",
				 strcmp(tok, "F") ? tok : frc);
		ck_assert_msg(fa(args) == 2, "accepted: %s", args);
		ck_err_has(bad[i].err);
		ck_assert_str_eq(out_text, "");
	}
	/* -o the capture itself: refused, the capture untouched */
	bytes = slurp(frc, &n);
	ck_assert_ptr_nonnull(bytes);
	snprintf(args, sizeof(args),
		 "compare --meter frc-window --meter auriya-ccafd78 '%s' -o '%s' --force", frc,
		 frc);
	ck_assert_int_ne(fa(args), 0);
	{
		size_t n2;
		char *again = slurp(frc, &n2);

		ck_assert(again && n2 == n && !memcmp(again, bytes, n));
		free(again);
	}
	/* a truncated capture: the first half */
	snprintf(cut, sizeof(cut), "%s", path("cut.frc"));
	f = fopen(cut, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, n / 2, f), n / 2);
	ck_assert_int_eq(fclose(f), 0);
	free(bytes);
	snprintf(args, sizeof(args), "compare --meter frc-window --meter auriya-ccafd78 '%s'", cut);
	ck_assert_int_eq(fa(args), 0);
	ck_err_has(": truncated; compared up to the damage\n");
	snprintf(args, sizeof(args),
		 "compare --strict --meter frc-window --meter auriya-ccafd78 '%s'", cut);
	ck_assert_int_eq(fa(args), 1);
	ck_err_has("(--strict: failing)");
	/* the page: self-contained, the gate's text escaped */
	snprintf(args, sizeof(args),
		 "compare --html --meter auriya-10fe7c6 --meter auriya-ccafd78 '%s' --fail-if "
		 "'ticks_differ>100'",
		 frc);
	ck_assert_int_eq(fa(args), 0);
	ck_assert(!strncmp(out_text, "<!DOCTYPE html>", 15));
	ck_assert_ptr_null(strstr(out_text, "<script"));
	ck_out_has("<p id=\"diff\">16 of 24 ticks differ, 16 with another source, for 3.750 s</p>");
	ck_out_has("<td>ticks_differ&gt;100</td>");
}
END_TEST

/*
 * The README's "Which tracker and meter?" quotes lines of compare's output on the meter
 * fixture: each must be a line of what the command prints today (the command is the one
 * the README shows).
 */
START_TEST(compare_two_meters_readme_lines)
{
	char *doc = slurp(FIXTURES_SRC_DIR "/../README.md", NULL);
	char args[1400], line[400];
	const char *blk, *end, *p;
	int lines = 0;

	ck_assert_ptr_nonnull(doc);
	blk = strstr(doc, "$ frameanalyze compare --meter auriya-10fe7c6 --meter auriya-ccafd78 "
			  "--tracker main-surface \\\n");
	ck_assert_ptr_nonnull(blk);
	end = strstr(blk, "```");
	ck_assert_ptr_nonnull(end);
	snprintf(args, sizeof(args),
		 "compare --meter auriya-10fe7c6 --meter auriya-ccafd78 --tracker main-surface "
		 "'%s/score/meter_sysfs_120_game_60.frc' --fail-if 'meter_mae.delta>1'",
		 FIXTURES_BIN_DIR);
	ck_assert_int_eq(fa(args), 0);
	p = strchr(strchr(blk, '\n') + 1, '\n') + 1; /* past the command's two lines */
	for (const char *nl; p < end && (nl = strchr(p, '\n')); p = nl + 1) {
		snprintf(line, sizeof(line), "\n%.*s\n", (int)(nl - p), p);
		ck_assert_msg(strstr(out_text, line), "README line not printed: [%s]", line);
		lines++;
	}
	ck_assert_int_ge(lines, 5);
	free(doc);
}
END_TEST

int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
	    FRC_CASE("submissions_two_surfaces", submissions_two_surfaces),
	    FRC_CASE("verdict_triple_buffered", verdict_triple_buffered),
	    FRC_CASE("one_window_definition", one_window_definition),
	    FRC_CASE("html_deterministic_selfcontained", html_deterministic_selfcontained),
	    FRC_CASE("html_unwritable_output", html_unwritable_output),
	    FRC_CASE("perfetto_usage_and_errors", perfetto_usage_and_errors),
	    FRC_CASE("compare_gates", compare_gates),
	    FRC_CASE("compare_no_data_fails", compare_no_data_fails),
	    FRC_CASE("compare_two_meters", compare_two_meters),
	    FRC_CASE("compare_two_trackers_window", compare_two_trackers_window),
	    FRC_CASE("compare_two_meters_json_documented", compare_two_meters_json_documented),
	    FRC_CASE("compare_two_meters_usage", compare_two_meters_usage),
	    FRC_CASE("compare_two_meters_readme_lines", compare_two_meters_readme_lines),
	    FRC_CASE("fidelity_only_recorded_tracker", fidelity_only_recorded_tracker),
	    FRC_CASE("html_janks_one_meaning", html_janks_one_meaning),
	    FRC_CASE("report_batch_anomalies", report_batch_anomalies),
	    FRC_CASE("output_is_input_refused", output_is_input_refused),
	    FRC_CASE("output_exists_needs_force", output_exists_needs_force),
	    FRC_CASE("output_planted_link_not_followed", output_planted_link_not_followed),
	    FRC_CASE("output_concurrent_one_whole", output_concurrent_one_whole),
	};
	Suite *s = suite_create("report");
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
		fprintf(stderr, "test_report: no case '%s'\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
