/* SPDX-License-Identifier: MIT */
/*
 * test_content.c - the content rule (heuristics/content.h) on the cases call counts get
 * wrong: a 30 fps game under a 60 fps HUD, a 24 fps video under a 120 Hz overlay, a surface
 * recreated at its old address, a splash before the game, a chat overlay that closes;
 * and without names or geometry, the rate rule with its hand-over on silence. Every
 * expectation is written out by hand from the scenario.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "content.h"
#include "frc_case_run.h"

#define MS 1000000ull
#define GAME 0xa000ull
#define HUD 0xb000ull

static struct content *c;

/* Calls of two surfaces at their own rates over [from, to) ms; returns the time of the
 * first change of the content surface (0: none) after from. */
static uint64_t play2(uint64_t from, uint64_t to, uint64_t s1, uint32_t tid1, uint64_t step1,
		      uint64_t s2, uint32_t tid2, uint64_t step2)
{
	uint64_t first_change = 0;
	uint64_t n1 = from * MS, n2 = from * MS;
	while (n1 < to * MS || n2 < to * MS) {
		bool one = step2 == 0 || (step1 && n1 <= n2);
		uint64_t t = one ? n1 : n2;
		if (t >= to * MS)
			break;
		bool ch = content_frame(c, t, one ? s1 : s2, one ? tid1 : tid2);
		if (ch && !first_change)
			first_change = t;
		if (one)
			n1 += step1 * MS / 1000;
		else
			n2 += step2 * MS / 1000;
	}
	return first_change;
}

/* steps are in microseconds */
#define F30 33333
#define F60 16667
#define F24 41667
#define F120 8333

START_TEST(content_game_under_hud)
{
	enum content_reason why;
	ck_assert_int_eq(content_new(&c, 16), 0);
	content_thread_name(c, 200, "UnityGfxDeviceW");
	content_thread_name(c, 201, "RenderThread");
	play2(0, 2000, GAME, 200, F30, HUD, 201, F60);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	ck_assert_int_eq(why, CONTENT_THREAD);
	ck_assert_str_eq(content_reason_name(why), "thread name");
	content_free(c);

	/* The same capture without thread names: the busier HUD, by rate (today's truth),
	 * from the first re-ranking (1 s in). */
	ck_assert_int_eq(content_new(&c, 16), 0);
	play2(0, 2000, GAME, 200, F30, HUD, 201, F60);
	ck_assert_uint_eq(content_surface(c, &why), HUD);
	ck_assert_int_eq(why, CONTENT_RATE);
	content_free(c);
}
END_TEST

START_TEST(content_video_under_overlay)
{
	enum content_reason why;
	ck_assert_int_eq(content_new(&c, 16), 0);
	/* both drawn by non-UI threads (a codec, a danmaku GL thread): the area decides */
	content_thread_name(c, 300, "CodecLooper");
	content_thread_name(c, 301, "DanmakuGL");
	content_geometry(c, GAME, 1920, 1080);
	content_geometry(c, HUD, 1080, 300);
	play2(0, 3000, GAME, 300, F24, HUD, 301, F120);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	ck_assert_int_eq(why, CONTENT_AREA);
	content_free(c);
}
END_TEST

START_TEST(content_recreated_at_old_address)
{
	enum content_reason why;
	ck_assert_int_eq(content_new(&c, 16), 0);
	content_thread_name(c, 200, "GameThread");
	content_thread_name(c, 201, "RenderThread");
	content_connect(c, 0, GAME);
	content_connect(c, 0, HUD);
	play2(0, 1000, GAME, 200, F60, HUD, 201, F60);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	/* rotation: the game's surface goes; the HUD is all that is left */
	ck_assert(content_disconnect(c, 1000 * MS, GAME));
	ck_assert_uint_eq(content_surface(c, &why), HUD);
	ck_assert_int_eq(why, CONTENT_ONLY);
	/* a new Surface at the same address connects and draws: it is the content again */
	content_connect(c, 1100 * MS, GAME);
	uint64_t ch = play2(1100, 2000, GAME, 200, F60, HUD, 201, F60);
	ck_assert_uint_eq(ch, 1100 * MS);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	ck_assert_int_eq(why, CONTENT_THREAD);
	content_free(c);
}
END_TEST

START_TEST(content_splash_then_game)
{
	enum content_reason why;
	ck_assert_int_eq(content_new(&c, 16), 0);
	content_thread_name(c, 201, "RenderThread");
	content_thread_name(c, 200, "UnityMain");
	/* the splash alone for 800 ms */
	play2(0, 800, HUD, 201, F60, 0, 0, 0);
	ck_assert_uint_eq(content_surface(c, &why), HUD);
	ck_assert_int_eq(why, CONTENT_ONLY);
	/* the game's first frame at 800 ms takes over at once, though the splash is busier */
	uint64_t ch = play2(800, 1500, GAME, 200, F30, HUD, 201, F60);
	ck_assert_uint_eq(ch, 800 * MS);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	content_free(c);
}
END_TEST

START_TEST(content_overlay_closes)
{
	enum content_reason why;
	/* no names, no geometry: a 60 fps chat overlay over a 30 fps game leads by rate ... */
	ck_assert_int_eq(content_new(&c, 16), 0);
	play2(0, 5000, GAME, 200, F30, HUD, 201, F60);
	ck_assert_uint_eq(content_surface(c, &why), HUD);
	/* ... until it closes: its last call was 299 x 16.667 ms = 4983.433 ms; the game
	 * leads from its first call once that is 0.5 s old */
	uint64_t ch = play2(5000, 8000, GAME, 200, F30, 0, 0, 0);
	uint64_t silent_from = 299ull * F60 * 1000 + CONTENT_SILENT_NS;
	ck_assert_uint_gt(ch, silent_from);
	ck_assert_uint_le(ch, silent_from + F30 * 1000);
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	ck_assert_int_eq(why, CONTENT_ONLY);
	/* with nobody calling, content_at says so too: nothing is live after 8.5 s */
	ck_assert(content_at(c, 8600 * MS));
	ck_assert_uint_eq(content_surface(c, &why), 0);
	ck_assert_int_eq(why, CONTENT_NONE);
	content_free(c);
}
END_TEST

START_TEST(content_ties_do_not_flap)
{
	enum content_reason why;
	int changes = 0;
	ck_assert_int_eq(content_new(&c, 16), 0);
	for (uint64_t k = 0; k < 600; k++) {
		changes += content_frame(c, k * 16667000, GAME, 1);
		changes += content_frame(c, k * 16667000 + 5000000, HUD, 2);
	}
	ck_assert_int_eq(changes, 1); /* the first surface, then kept */
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	content_free(c);
}
END_TEST

START_TEST(content_bounded)
{
	enum content_reason why;
	ck_assert_int_eq(content_new(&c, 4), 0);
	content_thread_name(c, 9, "GameThread");
	for (uint64_t k = 0; k < 1000; k++) {
		content_frame(c, k * MS, GAME, 9);
		content_frame(c, k * MS + 1, 0x100000 + k, 1); /* a new surface each time */
	}
	ck_assert_uint_eq(content_surface(c, &why), GAME);
	content_free(c);
	ck_assert_int_eq(content_new(&c, 0), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert(content_is_ui_thread("hwuiTask1"));
	ck_assert(!content_is_ui_thread("RenderThreadX"));
}
END_TEST

/* The series: only the content's intervals, none across a hand-over. */
START_TEST(content_delta_series)
{
	uint64_t d = 0;
	ck_assert_int_eq(content_new(&c, 16), 0);
	content_thread_name(c, 200, "GameThread");
	content_thread_name(c, 201, "RenderThread");
	ck_assert(!content_frame_delta(c, 0, HUD, 201, &d)); /* the only surface: it leads */
	ck_assert(content_frame_delta(c, 16 * MS, HUD, 201, &d));
	ck_assert_uint_eq(d, 16 * MS);
	/* the game's first call takes over (thread): no interval at the change ... */
	ck_assert(!content_frame_delta(c, 20 * MS, GAME, 200, &d));
	/* ... the HUD's calls are no longer the content's ... */
	ck_assert(!content_frame_delta(c, 32 * MS, HUD, 201, &d));
	/* ... and the game's next call closes the game's first interval */
	d = 0;
	ck_assert(content_frame_delta(c, 53 * MS, GAME, 200, &d));
	ck_assert_uint_eq(d, 33 * MS);
	ck_assert(!content_frame_delta(c, 53 * MS, GAME, 200, &d)); /* a zero interval is none */
	ck_assert(!content_frame_delta(c, 50 * MS, GAME, 200, &d)); /* nor a backward one */
	ck_assert(content_frame_delta(c, 83 * MS, GAME, 200, &d));
	ck_assert_uint_eq(d, 33 * MS);
	/* the game disconnects: the HUD leads again, its series starts at its next call */
	ck_assert(content_disconnect(c, 90 * MS, GAME));
	ck_assert(!content_frame_delta(c, 96 * MS, HUD, 201, &d));
	ck_assert(content_frame_delta(c, 112 * MS, HUD, 201, &d));
	ck_assert_uint_eq(d, 16 * MS);
	/* a connect of the leader (a new Surface at its address) ends the series too */
	content_connect(c, 120 * MS, HUD);
	ck_assert(!content_frame_delta(c, 128 * MS, HUD, 201, &d));
	ck_assert(content_frame_delta(c, 144 * MS, HUD, 201, &d));
	ck_assert_uint_eq(d, 16 * MS);
	content_free(c);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("content_game_under_hud", content_game_under_hud, 30),
	    FRC_CASE("content_video_under_overlay", content_video_under_overlay, 30),
	    FRC_CASE("content_recreated_at_old_address", content_recreated_at_old_address, 30),
	    FRC_CASE("content_splash_then_game", content_splash_then_game, 30),
	    FRC_CASE("content_overlay_closes", content_overlay_closes, 30),
	    FRC_CASE("content_ties_do_not_flap", content_ties_do_not_flap, 30),
	    FRC_CASE("content_bounded", content_bounded, 30),
	    FRC_CASE("content_delta_series", content_delta_series, 30),
	};

	return frc_case_run("content", cases, FRC_NCASES(cases), argc, argv);
}
