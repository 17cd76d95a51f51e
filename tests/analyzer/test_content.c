/* SPDX-License-Identifier: MIT */
/*
 * test_content.c - the ground truth follows the target's content (analyzer/REPORT.md
 * "Ground truth"): hand-made captures (text form, FORMAT.md 11) of the cases the busiest
 * surface gets wrong, each with its expected numbers worked out below from how it is
 * built, never from the code under test. Every case runs the real binary; one executable,
 * each case its own CTest test (analyzer.content_<case>).
 */
#include <check.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frc_case.h"

#define SYM "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi"
#define MAX_STREAMS 4
#define MAX_CALLS 1024

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

/* "frameanalyze ARGS" (shell words; NAME.frc is dir/NAME.frc); stdout, stderr; exit code. */
static int fa(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fa(const char *fmt, ...)
{
	char args[1024], cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >out 2>err", dir, FRAMEANALYZE_BIN, args);
	st = system(cmd);
	ck_assert(WIFEXITED(st));
	free(out_text);
	free(err_text);
	out_text = slurp(path("out"));
	err_text = slurp(path("err"));
	ck_assert_ptr_nonnull(out_text);
	ck_assert_ptr_nonnull(err_text);
	return WEXITSTATUS(st);
}

#define ck_has(text, s) ck_assert_msg(strstr(text, s), "output lacks [%s]:\n%s", s, text)

/* One surface drawn by one thread at a fixed period; hitch: intervals (1-based) that
 * last hitch_ns instead. */
struct stream {
	uint32_t pid, tid;
	const char *thread; /* written after the thread's first frame, as framerec does */
	uint64_t surface, start_ns, period_ns;
	unsigned calls;
	unsigned hitch[2];
	uint64_t hitch_ns;
};

struct event {
	uint64_t t;
	int kind; /* 0 frame, 1 thread record */
	const struct stream *s;
	unsigned k;
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->kind - y->kind;
}

/* The call times of s into ev (and its thread record after the first); the count. */
static size_t stream_events(const struct stream *s, struct event *ev)
{
	uint64_t t = s->start_ns;
	size_t n = 0;

	for (unsigned k = 0; k < s->calls; k++) {
		ev[n++] = (struct event){t, 0, s, k};
		if (k == 0 && s->thread)
			ev[n++] = (struct event){t + 1000, 1, s, 0};
		t += (k + 1 == s->hitch[0] || k + 1 == s->hitch[1]) ? s->hitch_ns : s->period_ns;
	}
	return n;
}

/* NAME.txt: header (meta lines and early attach/exit lines), then the streams merged in
 * time order; imported to NAME.frc. */
static void capture(const char *name, const char *header, const struct stream *st, size_t n_st)
{
	static struct event ev[MAX_STREAMS * (MAX_CALLS + 1)];
	char txt[64];
	size_t n = 0;
	FILE *f;

	snprintf(txt, sizeof(txt), "%s.txt", name);
	f = fopen(path(txt), "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "meta recorder hand\nmeta clock CLOCK_MONOTONIC\n%s", header);
	for (size_t i = 0; i < n_st; i++) {
		ck_assert_uint_le(st[i].calls, MAX_CALLS);
		n += stream_events(&st[i], ev + n);
	}
	qsort(ev, n, sizeof(*ev), cmp_event);
	for (size_t i = 0; i < n; i++) {
		const struct stream *s = ev[i].s;

		if (ev[i].kind)
			fprintf(f, "thread %" PRIu64 " %u %u %s\n", ev[i].t, s->pid, s->tid,
				s->thread);
		else
			fprintf(f, "frame %" PRIu64 " %u %u 0x%" PRIx64 " 0x%" PRIx64 "\n", ev[i].t,
				s->pid, s->tid, s->surface * 0x1000 + ev[i].k % 3, s->surface);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import %s -o %s.frc", txt, name), 0);
}

/* The JSON object of key "name" in out_text (up to its closing brace at depth 1). */
static char *section(const char *name)
{
	static char buf[1 << 16];
	char key[64];
	const char *a, *b;

	snprintf(key, sizeof(key), "\n  \"%s\": {", name);
	a = strstr(out_text, key);
	ck_assert_msg(a, "no %s section:\n%s", name, out_text);
	b = strstr(a, "\n  }");
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_lt((size_t)(b - a), sizeof(buf));
	memcpy(buf, a, (size_t)(b - a));
	buf[b - a] = 0;
	return buf;
}

/* The rows of sql on the database db (columns joined by '|', rows by ';'). */
static void query(const char *db, const char *sql, char *buf, size_t len)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	size_t n = 0;

	ck_assert_int_eq(sqlite3_open_v2(path(db), &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	buf[0] = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < sqlite3_column_count(st); c++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sqlite3_column_text(st, c),
					      c + 1 < sqlite3_column_count(st) ? "|" : ";");
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_content.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * A 30 fps game (UnityGfxDeviceW, surface 0xa: 121 calls from 1 s, 33.333333 ms apart but
 * for intervals 40 and 80, hitches of 150 ms) under a 60 fps HUD drawn by HWUI's
 * RenderThread (surface 0xb: 250 calls, 16.666667 ms apart). The HUD has twice the calls;
 * the truth is the game: 120 intervals, p50 33.333 ms, max 150.000 ms, and both hitches
 * are BigJanks (150 > 2 x 33.3 and > 125 ms): janks 2, big janks 2.
 */
static const struct stream hud[] = {
    {100, 101, "UnityGfxDeviceW", 0xa, 1000000000, 33333333, 121, {40, 80}, 150000000},
    {100, 102, "RenderThread", 0xb, 1004000000, 16666667, 250, {0, 0}, 0},
};
#define HUD_HEADER "meta target.pid 100\nattach 999000000 100 " SYM "\n"

START_TEST(hud_game_is_truth)
{
	const char *sub, *con;

	capture("hud", HUD_HEADER, hud, 2);
	ck_assert_int_eq(fa("report --json hud.frc"), 0);
	con = section("content");
	ck_has(con, "\"rule\": \"content\"");
	ck_has(con, "\"pid_rule\": \"target\"");
	ck_has(con, "\"surface\": \"0xa\"");
	ck_has(con, "\"why\": \"thread name\"");
	ck_has(con, "\"thread\": \"UnityGfxDeviceW\"");
	ck_has(con, "\"changes_total\": 1");
	sub = section("submissions");
	ck_has(sub, "\"intervals\": 120,");
	ck_has(sub, "\"p50_ms\": 33.333,");
	ck_has(sub, "\"max_ms\": 150.000,");
	ck_has(sub, "\"janks\": 2,");
	ck_has(sub, "\"big_janks\": 2,");
	ck_has(sub, "\"main_surface\": \"0xa\"");
	ck_assert_int_eq(fa("report hud.frc"), 0);
	ck_has(out_text, "pid 100 surface 0xa (thread UnityGfxDeviceW), chosen by thread name");
	ck_has(out_text, "pid 100 (the process framerec was pointed at)");
	/* the golden view shows the content too (the rule is not the count's) */
	ck_assert_int_eq(fa("golden hud.frc"), 0);
	ck_has(out_text, "\"why\": \"thread name\"");
	/* score grades against the game too */
	ck_assert_int_eq(fa("score --json --tracker kala hud.frc"), 0);
	ck_has(out_text, "\"main_surface\": \"0xa\"");
}
END_TEST

/* No target.pid, no attach: the busiest PID (the only one), its content still the game. */
START_TEST(no_target_busiest_pid)
{
	capture("hud", "", hud, 2);
	ck_assert_int_eq(fa("report --json hud.frc"), 0);
	ck_has(section("content"), "\"pid_rule\": \"busiest\"");
	ck_has(section("content"), "\"surface\": \"0xa\"");
	ck_has(section("submissions"), "\"intervals\": 120,");
	ck_assert_int_eq(fa("report hud.frc"), 0);
	ck_has(out_text, "the busiest: the capture names no target");
}
END_TEST

/*
 * A 24 fps video (CodecLooper, 0xc: 97 calls 41.666667 ms apart) under a 120 Hz comment
 * overlay (RenderThread, 0xd: 480 calls 8.333333 ms apart): 96 intervals, p50 41.666 ms
 * (truncated to the us), not 118 FPS.
 */
START_TEST(video_under_overlay)
{
	static const struct stream st[] = {
	    {200, 201, "CodecLooper", 0xc, 1000000000, 41666667, 97, {0, 0}, 0},
	    {200, 202, "RenderThread", 0xd, 1002000000, 8333333, 480, {0, 0}, 0},
	};

	capture("video", "meta target.pid 200\nattach 999000000 200 " SYM "\n", st, 2);
	ck_assert_int_eq(fa("report --json video.frc"), 0);
	ck_has(section("content"), "\"surface\": \"0xc\"");
	ck_has(section("submissions"), "\"intervals\": 96,");
	ck_has(section("submissions"), "\"p50_ms\": 41.666,");
}
END_TEST

/*
 * A splash (RenderThread, 0xe: 61 calls at 60 Hz from 1 s) then the game (GameThread, 0xf:
 * 121 calls at 60 Hz from 2.2 s). Two contents: the splash alone (only surface, 60
 * intervals), then the game, a non-UI thread against HWUI's (120 intervals, none across
 * the hand-over): 180 intervals; the principal content is the game.
 */
START_TEST(splash_then_game)
{
	static const struct stream st[] = {
	    {300, 301, "RenderThread", 0xe, 1000000000, 16666667, 61, {0, 0}, 0},
	    {300, 302, "GameThread", 0xf, 2200000000, 16666667, 121, {0, 0}, 0},
	};
	const char *con;

	capture("splash", "meta target.pid 300\nattach 999000000 300 " SYM "\n", st, 2);
	ck_assert_int_eq(fa("report --json splash.frc"), 0);
	con = section("content");
	ck_has(con, "\"changes_total\": 2");
	ck_has(con, "\"surface\": \"0xe\", \"why\": \"only surface\", \"intervals\": 60}");
	ck_has(con, "\"surface\": \"0xf\", \"why\": \"thread name\", \"intervals\": 120}");
	ck_has(con, "\"surface\": \"0xf\",\n");
	ck_has(section("submissions"), "\"intervals\": 180,");
}
END_TEST

/*
 * A launcher (PID 400, the start's target, RenderThread, 0x10: 241 calls at 60 Hz from
 * 1 s) then the game it starts (attach of PID 500 at 1.5 s; UnityGfxDeviceW, 0x11: 100
 * calls at 30 Hz from 1.6 s). The target switches at the game's first frame: the
 * launcher's calls before 1.6 s (k = 0..35, the 36th is at 1.600000012 s) give 35
 * intervals, the game's 99: 134, the principal content the game's. The busiest PID (the
 * launcher, 240 intervals) is not the truth.
 */
START_TEST(launcher_then_game)
{
	static const struct stream st[] = {
	    {400, 401, "RenderThread", 0x10, 1000000000, 16666667, 241, {0, 0}, 0},
	    {500, 501, "UnityGfxDeviceW", 0x11, 1600000000, 33333333, 100, {0, 0}, 0},
	};
	const char *con;

	capture("launch",
		"meta target.pid 400\nattach 999000000 400 " SYM "\nattach 1500000000 500 " SYM
		"\n",
		st, 2);
	ck_assert_int_eq(fa("report --json launch.frc"), 0);
	con = section("content");
	ck_has(con, "\"pid\": 500,");
	ck_has(con, "\"changes_total\": 2");
	ck_has(con, "\"pid\": 400, \"surface\": \"0x10\", \"why\": \"only surface\", "
		    "\"intervals\": 35}");
	ck_has(con, "\"pid\": 500, \"surface\": \"0x11\", \"why\": \"only surface\", "
		    "\"intervals\": 99}");
	ck_has(section("submissions"), "\"intervals\": 134,");
	ck_has(section("submissions"), "\"main_pid\": 500,");
	/*
	 * db: the two contents, from the launcher's first frame (1 s) to the game's (1.6 s),
	 * then to the capture's last record (the launcher's 241st call, 1 s + 240 x 16666667
	 * ns = 5.000000080 s)
	 */
	char rows[512];

	ck_assert_int_eq(fa("db launch.frc -o l.db"), 0);
	query("l.db",
	      "SELECT pid, surface, from_ns, to_ns, reason, intervals FROM "
	      "content_intervals ORDER BY from_ns",
	      rows, sizeof(rows));
	ck_assert_str_eq(rows, "400|16|1000000000|1600000000|only surface|35;"
			       "500|17|1600000000|5000000080|only surface|99;");
}
END_TEST

/*
 * Another app's overlay recorded alongside (target.pid 600,700: the game first): the
 * overlay app (PID 700, 250 calls at 60 Hz) is busier than the game (PID 600, 100 calls
 * at 30 Hz); the truth is the game's 99 intervals.
 */
START_TEST(other_process_overlay)
{
	static const struct stream st[] = {
	    {600, 601, "UnityGfxDeviceW", 0x30, 1000000000, 33333333, 100, {0, 0}, 0},
	    {700, 701, "RenderThread", 0x31, 1003000000, 16666667, 250, {0, 0}, 0},
	};

	capture("other",
		"meta target.pid 600,700\nattach 999000000 600 " SYM "\nattach 999000000 700 " SYM
		"\n",
		st, 2);
	ck_assert_int_eq(fa("report --json other.frc"), 0);
	ck_has(section("content"), "\"pid\": 600,");
	ck_has(section("submissions"), "\"intervals\": 99,");
	ck_has(section("submissions"), "\"main_pid\": 600,");
}
END_TEST

/*
 * A chat overlay (RenderThread, 0x41: 100 calls at 60 Hz) over a 60 fps game (RHIThread,
 * 0x40: 241 calls) closes after 1.65 s: the content never leaves the game (one change),
 * 240 intervals.
 */
START_TEST(chat_overlay_closes)
{
	static const struct stream st[] = {
	    {800, 801, "RHIThread", 0x40, 1000000000, 16666667, 241, {0, 0}, 0},
	    {800, 802, "RenderThread", 0x41, 1005000000, 16666667, 100, {0, 0}, 0},
	};

	capture("chat", "meta target.pid 800\nattach 999000000 800 " SYM "\n", st, 2);
	ck_assert_int_eq(fa("report --json chat.frc"), 0);
	ck_has(section("content"), "\"changes_total\": 1");
	ck_has(section("content"), "\"surface\": \"0x40\"");
	ck_has(section("submissions"), "\"intervals\": 240,");
}
END_TEST

/* A capture without thread records (a fixture): the count rule, and the report says so. */
START_TEST(old_capture_count_rule)
{
	ck_assert_int_eq(fa("report '%s/two_pids.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(out_text, "pid 1800 surface 0x0 chosen by call count (the capture has no thread "
			 "names, geometry or lifetime)");
	ck_assert_int_eq(fa("report --json '%s/two_pids.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(section("content"), "\"rule\": \"call count\"");
	/* the fixture's golden holds no content line (goldens of old captures unchanged) */
	ck_assert_int_eq(fa("golden '%s/two_pids.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(out_text, "# frameanalyze golden");
	ck_assert_ptr_null(strstr(out_text, "call count"));
}
END_TEST

/*
 * --surface 0xb: the HUD's calls alone (249 intervals of 16.666667 ms); --pid 100: the
 * content of that PID (the game, 120).
 */
/*
 * The content line names what the capture knows of the surface: its thread and its
 * buffers' size. The identity scenario's generator wrote the game's buffers as 1080x2400
 * (fixtures/gen/gen_fixtures.c id_hud_game) and the video's as 1920x1080.
 */
START_TEST(content_line_geometry)
{
	ck_assert_int_eq(fa("report '%s/score/id_hud_game_30_60.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(out_text, "  content                  pid 6000 surface 0xb4000078e2a45c10 (thread "
			 "UnityGfxDeviceW, 1080x2400), chosen by thread name\n");
	ck_assert_int_eq(
	    fa("report --json '%s/score/id_video_24_overlay_120.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(out_text,
	       "    \"thread\": \"CodecLooper\",\n    \"width\": 1920,\n    \"height\": 1080,\n");
	/* no buffer records: no size, and JSON says null */
	ck_assert_int_eq(fa("report --json '%s/two_pids.frc'", FIXTURES_BIN_DIR), 0);
	ck_has(out_text, "    \"width\": null,\n    \"height\": null,\n");
}
END_TEST

START_TEST(overrides)
{
	capture("hud", HUD_HEADER, hud, 2);
	ck_assert_int_eq(fa("report --json --surface 0xb hud.frc"), 0);
	ck_has(section("content"), "\"rule\": \"--surface\"");
	ck_has(section("submissions"), "\"intervals\": 249,");
	ck_has(section("submissions"), "\"p50_ms\": 16.666,");
	ck_assert_int_eq(fa("report --json --pid 100 hud.frc"), 0);
	ck_has(section("content"), "\"pid_rule\": \"--pid\"");
	ck_has(section("submissions"), "\"intervals\": 120,");
	ck_assert_int_eq(fa("score --json --tracker kala --surface 0xB hud.frc"), 0);
	ck_has(out_text, "\"main_surface\": \"0xb\"");
}
END_TEST

/* Bad values: usage errors (2); values the capture does not hold: refused inputs (1). */
START_TEST(override_errors)
{
	static const char *const cmds[] = {"report hud.frc", "score hud.frc",
					   "compare hud.frc hud.frc", "db hud.frc -o x.db",
					   "perfetto hud.frc -o x.pftrace"};

	capture("hud", HUD_HEADER, hud, 2);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(fa("%s --pid 0", cmds[i]), 2);
		ck_has(err_text, "--pid '0': not a PID");
		ck_assert_int_eq(fa("%s --pid 12x", cmds[i]), 2);
		ck_assert_int_eq(fa("%s --surface 0xzz", cmds[i]), 2);
		ck_has(err_text, "--surface '0xzz': not a surface");
		ck_assert_int_eq(fa("%s --surface 12", cmds[i]), 2);
		ck_assert_int_eq(fa("%s --pid 999", cmds[i]), 1);
		ck_has(err_text, "hud.frc: --pid 999: no frame of that PID");
		ck_assert_int_eq(fa("%s --surface 0x99", cmds[i]), 1);
		ck_has(err_text, "hud.frc: --surface 0x99: no frame of that surface");
		ck_assert_int_eq(fa("%s --pid 100 --surface 0xb", cmds[i]), 0);
		unlink(path("x.db"));
		unlink(path("x.pftrace"));
	}
	ck_assert_int_eq(access(path("x.db"), F_OK), -1);
}
END_TEST

int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
	    FRC_CASE("hud_game_is_truth", hud_game_is_truth),
	    FRC_CASE("no_target_busiest_pid", no_target_busiest_pid),
	    FRC_CASE("video_under_overlay", video_under_overlay),
	    FRC_CASE("splash_then_game", splash_then_game),
	    FRC_CASE("launcher_then_game", launcher_then_game),
	    FRC_CASE("other_process_overlay", other_process_overlay),
	    FRC_CASE("chat_overlay_closes", chat_overlay_closes),
	    FRC_CASE("old_capture_count_rule", old_capture_count_rule),
	    FRC_CASE("content_line_geometry", content_line_geometry),
	    FRC_CASE("overrides", overrides),
	    FRC_CASE("override_errors", override_errors),
	};
	Suite *s = suite_create("content");
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
		fprintf(stderr, "test_content: no case '%s'\n", argc > 1 ? argv[1] : "");
		return 2;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
