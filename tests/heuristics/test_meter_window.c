/* SPDX-License-Identifier: MIT */
/*
 * test_meter_window.c - frc-window's content (heuristics/frc_window.c) in the pipeline: the
 * target process's content series (target.h, content.h), fed the thread, buffer, connect,
 * attach and exit records, whichever tracker runs; the main-surface rule for captures that
 * name nothing of their surfaces. Every expected number is worked out by hand in the
 * comment next to it; none is computed by the code under test.
 */
#include <check.h>
#include <string.h>

#include "frc_case_run.h"
#include "meter_kind.h"
#include "pipeline.h"

#define MS 1000000ull
#define GAME 0xa000ull
#define HUD 0xb000ull
#define OTHER 0xc000ull

/* The readings at the ticks, in order (fps_to_micro; 1 for none). */
struct reads {
	uint64_t v[16];
	size_t n;
};

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	struct reads *s = ctx;

	ck_assert_uint_lt(s->n, 16);
	s->v[s->n++] = r->reading.valid ? fps_to_micro(r->reading.fps) : 1;
}

static struct pipeline *wpipe(const char *tracker, const char *target, struct reads *s)
{
	struct pipeline_callbacks cb = {.on_reading = on_reading};
	struct pipeline_config cfg;
	struct pipeline *p = NULL;

	memset(s, 0, sizeof(*s));
	pipeline_config_default(&cfg);
	cfg.tracker_name = tracker;
	cfg.meter_name = "frc-window";
	cfg.target = target;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, s), 0);
	return p;
}

static void feed(struct pipeline *p, const struct frc_record *r)
{
	ck_assert_int_eq(pipeline_feed(p, r), 0);
}

/* A frame; ts_ms != 0: the frame's own timestamp (a batch element's). Buffers rotate. */
static void frame_ts(struct pipeline *p, uint64_t t, uint32_t pid, uint32_t tid, uint64_t surface,
		     uint64_t ts)
{
	static uint64_t k;
	struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};

	r.u.frame = (struct frc_frame){.pid = pid,
				       .tid = tid,
				       .surface = surface,
				       .buffer = surface + 0x100 * (1 + k++ % 3),
				       .has_timestamp = ts != 0,
				       .timestamp = (int64_t)ts};
	feed(p, &r);
}

static void frame(struct pipeline *p, uint64_t t, uint32_t pid, uint32_t tid, uint64_t surface)
{
	frame_ts(p, t, pid, tid, surface, 0);
}

static void thread(struct pipeline *p, uint64_t t, uint32_t pid, uint32_t tid, const char *name)
{
	struct frc_record r = {.type = FRC_THREAD, .ktime_ns = t};

	r.u.thread.pid = pid;
	r.u.thread.tid = tid;
	r.u.thread.len = (uint8_t)strlen(name);
	strcpy(r.u.thread.name, name);
	feed(p, &r);
}

static void attach(struct pipeline *p, uint64_t t, uint32_t pid)
{
	struct frc_record r = {.type = FRC_ATTACH, .ktime_ns = t};

	r.u.attach.pid = pid;
	feed(p, &r);
}

static void tick(struct pipeline *p, uint64_t t)
{
	struct frc_record r = {.type = FRC_TICK, .ktime_ns = t};

	feed(p, &r);
}

/* Game (pid 7, tid 71, surface GAME) every 40 ms from 0 to 2 s, HUD (tid 72) every 20 ms
 * from 10 to 1990 ms; thread records first when named; a tick at 2 s. */
static void hud_over_game(struct pipeline *p, bool named)
{
	if (named) {
		thread(p, 0, 7, 71, "UnityGfxDeviceW");
		thread(p, 0, 7, 72, "RenderThread");
	}
	for (uint64_t t = 0; t <= 2000; t += 10) {
		if (t % 40 == 0)
			frame(p, t * MS, 7, 71, GAME);
		else if (t % 20 == 10)
			frame(p, t * MS, 7, 72, HUD);
	}
	tick(p, 2000 * MS);
}

/*
 * A 25 FPS game under a 50 FPS HUD, thread names recorded, target pid 7: the content rule
 * keeps the game (drawn by a non-UI thread) under every tracker: its ends in (1, 2] =
 * 1040..2000 ms = 25 -> 25 FPS. Without thread records (a capture that predates them) the
 * main-surface rule counts calls: the HUD's 2nd call (30 ms) outnumbers the game's 1, so
 * the HUD leads, its ends in (1, 2] = 1010..1990 = 50 -> 50 FPS.
 */
START_TEST(mwindow_hud_over_game)
{
	static const char *const trackers[] = {"kala", "surface", "process", "main-surface",
					       "content"};
	struct reads s;
	struct pipeline *p;

	for (size_t i = 0; i < 5; i++) {
		p = wpipe(trackers[i], "7", &s);
		hud_over_game(p, true);
		ck_assert_uint_eq(s.n, 1);
		ck_assert_msg(s.v[0] == 25000000, "%s: %llu", trackers[i],
			      (unsigned long long)s.v[0]);
		pipeline_free(p);
	}
	p = wpipe("kala", "7", &s);
	hud_over_game(p, false);
	ck_assert_uint_eq(s.v[0], 50000000);
	pipeline_free(p);
}
END_TEST

/*
 * Another app (pid 8) draws a bubble at 50 FPS from a non-UI thread beside the target's 25
 * FPS game. Target 7: 25 FPS at 2 s (ends 1040..2000). With no target information the
 * content rule runs over every process's surfaces: the game leads from its first call, the
 * bubble's first call (10 ms) ties it by rate (1 call each: no 3/2), and at the re-rank a
 * second later (the bubble's call at 1010 ms) the bubble has 50 calls in (10, 1010] (30..1010)
 * to the game's 25 (40..1000): 100 > 75, it leads from 1010 and its series starts there:
 * ends in (1, 2] = 1030..1990 = 49 -> 49 FPS.
 */
START_TEST(mwindow_other_app)
{
	const char *targets[2] = {"7", NULL};
	const uint64_t want[2] = {25000000, 49000000};

	for (size_t i = 0; i < 2; i++) {
		struct reads s;
		struct pipeline *p = wpipe("kala", targets[i], &s);

		thread(p, 0, 7, 71, "GameThread");
		thread(p, 0, 8, 81, "BubbleThread");
		for (uint64_t t = 0; t <= 2000; t += 10) {
			if (t % 40 == 0)
				frame(p, t * MS, 7, 71, GAME);
			else if (t % 20 == 10)
				frame(p, t * MS, 8, 81, OTHER);
		}
		tick(p, 2000 * MS);
		ck_assert_msg(s.v[0] == want[i], "target %s: %llu", targets[i] ? targets[i] : "-",
			      (unsigned long long)s.v[0]);
		pipeline_free(p);
	}
}
END_TEST

/*
 * A launcher (target 7, RenderThread, 50 FPS from 0) starts a game that framerec follows
 * (attach 9 at 1000 ms; UnityMain every 40 ms from 1030 to 2990). The target stays 7 until
 * 9's first frame (1030: a PID that drew beats one that did not, then the one attached
 * last). At 1.5 s: the launcher's ends in (0.5, 1.5] up to the switch, 520..1020 = 26, and
 * the game's series from 1030 (no interval across): 1070..1470 = 11, a count of 37 FPS. The
 * last 8 frame times (the game's 40 ms) read 25 against the 28 before them (25 of 20 ms,
 * one 50 and two 40: interquartile mean 20 ms, 50 FPS): a rate change, so the ends of the
 * last 0.3 s are the reading: 1230..1470 = 7 ends, (7 - 1) / 0.24 s = 25 FPS. At 3 s (the
 * 1 s after the change is over, and none since): the game's 2030..2990 = 25 -> 25 FPS; the
 * launcher's calls go on and count for nothing.
 */
START_TEST(mwindow_launcher_then_game)
{
	struct reads s;
	struct pipeline *p = wpipe("kala", "7", &s);

	thread(p, 0, 7, 70, "RenderThread");
	for (uint64_t t = 0; t <= 3000; t += 10) {
		if (t == 1000) {
			attach(p, t * MS, 9);
			thread(p, t * MS, 9, 90, "UnityMain");
		}
		if (t % 20 == 0)
			frame(p, t * MS, 7, 70, HUD);
		if (t >= 1030 && (t - 1030) % 40 == 0)
			frame(p, t * MS, 9, 90, GAME);
		if (t == 1500 || t == 3000)
			tick(p, t * MS);
	}
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.v[0], 25000000);
	ck_assert_uint_eq(s.v[1], 25000000);
	pipeline_free(p);
}
END_TEST

/*
 * Frame generation: one call every 40 ms (0..2000) queues two frames stamped 10 and 30 ms
 * after it. At their own times (content_frame_time) every frame is an interval of 20 ms;
 * each counts at its call's ktime: ends in (1, 2] = the calls 1040..2000 = 25, twice ->
 * 50 FPS. Unstamped, the second frame of a call is a zero interval (none): 25 FPS.
 */
START_TEST(mwindow_stamped_batch)
{
	const uint64_t want[2] = {50000000, 25000000};

	for (int i = 0; i < 2; i++) {
		struct reads s;
		struct pipeline *p = wpipe("kala", "7", &s);

		thread(p, 0, 7, 71, "GameThread");
		for (uint64_t t = 0; t <= 2000; t += 40) {
			frame_ts(p, t * MS, 7, 71, GAME, i ? 0 : (t + 10) * MS);
			frame_ts(p, t * MS, 7, 71, GAME, i ? 0 : (t + 30) * MS);
		}
		tick(p, 2000 * MS);
		ck_assert_uint_eq(s.v[0], want[i]);
		pipeline_free(p);
	}
}
END_TEST

/*
 * The target's instance is never the one forgotten: pid 7's thread names, then the names
 * of 200 other processes' threads (more than CONTENT_PROCS = 64 instances), then the HUD
 * over the game: still 25 FPS (the game by thread name). Had pid 7's names been forgotten,
 * the rate would hand the content to the HUD at its call at 1010 ms (50 calls to 25): 49.
 */
START_TEST(mwindow_pids_bounded)
{
	struct reads s;
	struct pipeline *p = wpipe("kala", "7", &s);

	thread(p, 0, 7, 71, "UnityGfxDeviceW");
	thread(p, 0, 7, 72, "RenderThread");
	for (uint32_t i = 0; i < 200; i++)
		thread(p, 0, 1000 + i, 1000 + i, "Other");
	hud_over_game(p, false);
	ck_assert_uint_eq(s.v[0], 25000000);
	pipeline_free(p);
}
END_TEST

/*
 * A frame recorded before the tick that reads the meter but later than its time (two
 * CPUs' events) is not in (now - 1 s, now] yet: 20 ms calls 0..2000, one at 2005 before
 * the tick at 2000: ends 1020..2000 = 50 -> 50 FPS, not 51. The Auriya meters read no
 * frame and no other record (NULL ops: their numbers cannot move).
 */
START_TEST(mwindow_frame_after_tick)
{
	struct reads s;
	struct pipeline *p = wpipe("kala", NULL, &s);

	for (uint64_t t = 0; t <= 2000; t += 20)
		frame(p, t * MS, 7, 7, GAME);
	frame(p, 2005 * MS, 7, 7, GAME);
	tick(p, 2000 * MS);
	ck_assert_uint_eq(s.v[0], 50000000);
	pipeline_free(p);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_ptr_null(meter_kind_at(i)->frame);
		ck_assert_ptr_null(meter_kind_at(i)->learn);
	}
	ck_assert_ptr_nonnull(meter_kind_find("frc-window")->learn);
}
END_TEST

/*
 * Target 7 (GameThread) at 50 FPS: frames at 5 + 20k ms up to 985, none until resume_ms,
 * then 5 + 20k again from resume_ms up to end_ms; a tick every 250 ms up to end_ms (no
 * frame falls on a tick: a multiple of 250 minus 5 is never a multiple of 20).
 */
static void stop_and_go(struct reads *s, uint64_t resume_ms, uint64_t end_ms)
{
	struct pipeline *p = wpipe("kala", "7", s);

	thread(p, 0, 7, 71, "GameThread");
	for (uint64_t t = 5; t <= end_ms; t += 5) {
		if (t % 20 == 5 && (t <= 985 || t >= resume_ms))
			frame(p, t * MS, 7, 71, GAME);
		if (t % 250 == 0)
			tick(p, t * MS);
	}
	pipeline_free(p);
}

/*
 * After a freeze the window does not restart: the score's truth at a tick is the content
 * frames of the second before it (analyzer/REPORT.md "Score"), and it ramps back over 1 s
 * too, so a meter that restarted would be off at every tick of that second (README "Where
 * it fails" has what it did to the score set). Frames as stop_and_go; ends 25..985 (49),
 * the first interval begins at 5. 1 s freeze (resume 2005):
 *   250: ends 25..245 = 12 over 245 ms (the first second) -> 48.979592; 500: 24 / 0.495
 *   -> 48.484848; 750: 37 / 0.745 -> 49.664430; 1000: 49 / 0.995 -> 49.246231;
 *   1250 .. 2000: the newest frame (985) >= 250 ms old -> 0;
 *   2250: ends in (1.25, 2.25] = 2005 (the 1020 ms interval) and 2025..2245 -> 13 (a
 *   restarted window: 12 / 0.245 = 48.98); 2500: 1 + 24 -> 25; 2750: 1 + 37 -> 38; 3000:
 *   ends in (2, 3] = 2005..2985 -> 50.
 * 0.5 s stall (resume 1485): 1250 -> 0; 1500: 505..985 (25) and 1485 -> 26 (restarted: no
 * end after 1485 yet, none); 1750: 765..985 (12), 1485, 1505..1745 (13) -> 26; 2000:
 * 1485..1985 -> 26; 2250: 1485..2245 -> 39; 2500: 1505..2485 -> 50.
 */
START_TEST(mwindow_freeze_no_restart)
{
	const uint64_t freeze[12] = {48979592, 48484848, 49664430, 49246231, 0,	       0,
				     0,	       0,	 13000000, 25000000, 38000000, 50000000};
	const uint64_t stall[10] = {48979592, 48484848, 49664430, 49246231, 0,
				    26000000, 26000000, 26000000, 39000000, 50000000};
	struct reads s;

	stop_and_go(&s, 2005, 3000);
	ck_assert_uint_eq(s.n, 12);
	for (size_t i = 0; i < 12; i++)
		ck_assert_msg(s.v[i] == freeze[i], "freeze tick %zu: %llu", i,
			      (unsigned long long)s.v[i]);
	stop_and_go(&s, 1485, 2500);
	ck_assert_uint_eq(s.n, 10);
	for (size_t i = 0; i < 10; i++)
		ck_assert_msg(s.v[i] == stall[i], "stall tick %zu: %llu", i,
			      (unsigned long long)s.v[i]);
}
END_TEST

static void vsync(struct pipeline *p, uint64_t t, uint64_t period_ns)
{
	struct frc_record r = {.type = FRC_VSYNC, .ktime_ns = t};

	r.u.vsync.period_ns = period_ns;
	feed(p, &r);
}

/* A present row of layer 1 taken at t: presented at actual (its desired and ready too). */
static void present(struct pipeline *p, uint64_t t, uint64_t actual)
{
	struct frc_record r = {.type = FRC_PRESENT, .ktime_ns = t};

	r.u.present = (struct frc_present){
	    .layer = 1, .desired = (int64_t)actual, .actual = (int64_t)actual, .ready = 0};
	feed(p, &r);
}

/*
 * Target 7 (GameThread) calls at 40k + 1 and 40k + 1 + gap ms, k = 0..49, each with the
 * explicit timestamp call + ahead ms (ahead 0: auto); first, when period_ms, a vsync record
 * of that period, and at 500 ms, when grid_ms, a present row presented at grid_ms; the
 * reading at a tick at 2000 ms.
 */
static uint64_t explicit_pairs(uint64_t gap, uint64_t ahead, uint64_t period_ms, uint64_t grid_ms)
{
	struct reads s;
	struct pipeline *p = wpipe("kala", "7", &s);

	thread(p, 0, 7, 71, "GameThread");
	if (period_ms)
		vsync(p, 0, period_ms * MS);
	for (uint64_t t = 1; t < 2000; t += 40) {
		if (grid_ms && t == 481)
			present(p, 500 * MS, grid_ms * MS);
		frame_ts(p, t * MS, 7, 71, GAME, ahead ? (t + ahead) * MS : 0);
		frame_ts(p, (t + gap) * MS, 7, 71, GAME, ahead ? (t + gap + ahead) * MS : 0);
	}
	tick(p, 2000 * MS);
	ck_assert_uint_eq(s.n, 1);
	pipeline_free(p);
	return s.v[0];
}

/*
 * SurfaceFlinger applies an explicit-timestamp buffer at the first commit at or after its
 * queue whose expected present (the commit's vsync + one period) is after its timestamp,
 * and of two applied at one commit shows the later (android-15 transactionReadyTimelineCheck,
 * Layer::setBuffer -> releasePreviousBuffer); an auto-timestamped one waits for the next
 * commit (backpressure). Vsyncs every 20 ms; the present row at 490 ms puts them at 10 +
 * 20j ms. The window (1, 2] s holds 50 calls, 25 pairs (40k + 1, 40k + 1 + gap), k = 25..49:
 *   - gap 4, ahead 2: 40k + 1 (timestamp 40k + 3) and 40k + 5 (40k + 7) are both first
 *     applicable at the vsync 40k + 10 (at or after the call, 40k + 10 + 20 > the stamp):
 *     the earlier is replaced, 25 shown -> 25 FPS;
 *   - gap 11, ahead 2: the second, at 40k + 12, is applied at 40k + 30: 50 -> 50 FPS;
 *   - gap 11, ahead 30: the stamps (40k + 31, 40k + 42) hold both to the vsync 40k + 30
 *     (40k + 10 + 20 = 40k + 30 is not after 40k + 31): one commit, 25 FPS. The queue
 *     times alone would have said 50;
 *   - gap 11, ahead 1500: more than 1 s ahead, SurfaceFlinger ignores the stamp (due at
 *     once): by the queue, 50 FPS;
 *   - gap 4, ahead 0 (auto): backpressure holds the second to the next commit, nothing is
 *     dropped: 50 FPS;
 *   - gap 4, ahead 2, no present row (the phase unknown): each pair is one commit unless a
 *     vsync falls in the 4 ms between them, 4/20 = 0.2 of the phases: 25 x 0.8 = 20 of the
 *     50 calls expected replaced -> 30 FPS;
 *   - gap 4, ahead 2, no vsync record: nothing is known of the display, every call counts:
 *     50 FPS.
 */
START_TEST(mwindow_explicit_drops)
{
	static const struct {
		uint64_t gap, ahead, period, grid, want;
	} c[] = {
	    {4, 2, 20, 490, 25000000},	   {11, 2, 20, 490, 50000000}, {11, 30, 20, 490, 25000000},
	    {11, 1500, 20, 490, 50000000}, {4, 0, 20, 490, 50000000},  {4, 2, 20, 0, 30000000},
	    {4, 2, 0, 0, 50000000},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t v = explicit_pairs(c[i].gap, c[i].ahead, c[i].period, c[i].grid);

		ck_assert_msg(v == c[i].want,
			      "case %zu (gap %llu, ahead %llu): %llu uFPS, want %llu", i,
			      (unsigned long long)c[i].gap, (unsigned long long)c[i].ahead,
			      (unsigned long long)v, (unsigned long long)c[i].want);
	}
}
END_TEST

static void poll(struct pipeline *p, uint64_t t)
{
	struct frc_record r = {.type = FRC_POLL, .ktime_ns = t};

	r.u.poll.layer = 1;
	feed(p, &r);
}

/*
 * Target 7 (GameThread) calls every 20 ms from 0 to 3500 ms; the display (20 ms vsyncs)
 * presents the frame of the call at t at t + 30 ms, but none of the calls from 2000 to
 * 2980 ms (the layer invisible); when polls: display capture polls every 100 ms (50 + 100j
 * ms), each poll taking the rows presented by then, then its poll record; a tick every 250
 * ms from 2000 to 3500 ms, after the records of its time.
 */
static void invisible(struct reads *s, bool polls)
{
	struct pipeline *p = wpipe("kala", "7", s);
	uint64_t shown = 0; /* the next call whose present is still to be taken */

	thread(p, 0, 7, 71, "GameThread");
	vsync(p, 0, 20 * MS);
	for (uint64_t t = 0; t <= 3500; t += 10) {
		if (t % 20 == 0)
			frame(p, t * MS, 7, 71, GAME);
		if (polls && t % 100 == 50) {
			for (; shown + 30 <= t; shown += 20)
				if (shown < 2000 || shown >= 3000)
					present(p, t * MS, (shown + 30) * MS);
			poll(p, t * MS);
		}
		if (t >= 2000 && t % 250 == 0)
			tick(p, t * MS);
	}
	pipeline_free(p);
}

/*
 * The display showing nothing new while the app submits (a layer not visible) is a freeze
 * too, once display capture's polls say so: the newest present at least 250 ms before the
 * reading, and a poll 125 ms or more after it that found nothing newer. Worked by hand:
 * the last present is the call at 1980 ms's, at 2010. At 2000 ms the count (calls 1020 ..
 * 2000) is 50; at 2250 the poll at 2250 found nothing after 2010, but 2010 is only 240 ms
 * ago: 50; at 2500, 2750 and 3000 (polls at 2450, 2650, 2950: the newest present still
 * 2010): 0; at 3250 the poll at 3250 took the presents of the calls from 3000 on (3030 ..
 * 3250): the count again, calls 2260 .. 3240 = 50; 3500: 50. Without the poll records
 * (display capture before framerec wrote them) nothing says the display froze: 50 at every
 * tick.
 */
START_TEST(mwindow_display_freeze)
{
	const uint64_t want[7] = {50000000, 50000000, 0, 0, 0, 50000000, 50000000};
	struct reads s;

	invisible(&s, true);
	ck_assert_uint_eq(s.n, 7);
	for (size_t i = 0; i < 7; i++)
		ck_assert_msg(s.v[i] == want[i], "tick %zu: %llu", i, (unsigned long long)s.v[i]);
	invisible(&s, false);
	ck_assert_uint_eq(s.n, 7);
	for (size_t i = 0; i < 7; i++)
		ck_assert_msg(s.v[i] == 50000000, "no polls, tick %zu: %llu", i,
			      (unsigned long long)s.v[i]);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("mwindow_hud_over_game", mwindow_hud_over_game, 30),
	    FRC_CASE("mwindow_other_app", mwindow_other_app, 30),
	    FRC_CASE("mwindow_launcher_then_game", mwindow_launcher_then_game, 30),
	    FRC_CASE("mwindow_stamped_batch", mwindow_stamped_batch, 30),
	    FRC_CASE("mwindow_pids_bounded", mwindow_pids_bounded, 30),
	    FRC_CASE("mwindow_frame_after_tick", mwindow_frame_after_tick, 30),
	    FRC_CASE("mwindow_freeze_no_restart", mwindow_freeze_no_restart, 30),
	    FRC_CASE("mwindow_explicit_drops", mwindow_explicit_drops, 30),
	    FRC_CASE("mwindow_display_freeze", mwindow_display_freeze, 30),
	};

	return frc_case_run("meter_window", cases, FRC_NCASES(cases), argc, argv);
}
