/* SPDX-License-Identifier: MIT */
/*
 * test_content_tracker.c - the `content` tracker (heuristics/content_tracker.c) in the
 * pipeline, on hand-made call sequences: a HUD over a game with thread names, a video under
 * a view-system overlay, an overlay that closes, a swapchain growing 3 -> 4, surfaces that
 * come and go past the bound; the pipeline's thread-record routing and its meter fed the
 * target PID only. Every expected number is worked out by hand in the comment next to it.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frc_case_run.h"
#include "pipeline.h"

#define MS 1000000ull
#define GAME 0xa000ull
#define HUD 0xb000ull

/* What the callbacks saw: deltas per surface (and whether all of one surface's were
 * equal), deltas per PID, and the last reading. */
struct seen {
	uint64_t n_game, n_hud, n_other;
	uint64_t game_delta, hud_delta; /* the value every one of them had; UINT64_MAX: varied */
	uint64_t n_pid[2];		/* deltas of PID 100, of PID 200 */
	uint64_t fps_micro;		/* the last reading; 0: none valid */
	uint64_t readings;
};

static void note(uint64_t *n, uint64_t *v, uint64_t delta)
{
	*v = *n == 0 || *v == delta ? delta : UINT64_MAX;
	(*n)++;
}

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	struct seen *s = ctx;

	ck_assert_uint_ne(d->delta_ns, 0);
	if (d->surface == GAME)
		note(&s->n_game, &s->game_delta, d->delta_ns);
	else if (d->surface == HUD)
		note(&s->n_hud, &s->hud_delta, d->delta_ns);
	else
		s->n_other++;
	if (d->pid == 100 || d->pid == 200)
		s->n_pid[d->pid == 200]++;
}

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	struct seen *s = ctx;

	s->readings++;
	s->fps_micro = r->reading.valid ? fps_to_micro(r->reading.fps) : 0;
}

static struct pipeline *open_p(struct seen *s, const char *tracker, const char *target,
			       uint32_t max_keys)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p = NULL;

	memset(s, 0, sizeof(*s));
	pipeline_config_default(&cfg);
	cfg.tracker_name = tracker;
	cfg.target = target;
	if (max_keys)
		cfg.tracker.max_buffers = max_keys;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, s), 0);
	return p;
}

static void feed(struct pipeline *p, const struct frc_record *r)
{
	ck_assert_int_eq(pipeline_feed(p, r), 0);
}

static void frame(struct pipeline *p, uint64_t t, uint32_t pid, uint32_t tid, uint64_t surface,
		  uint64_t buffer)
{
	struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};

	r.u.frame =
	    (struct frc_frame){.pid = pid, .tid = tid, .buffer = buffer, .surface = surface};
	feed(p, &r);
}

static void thread(struct pipeline *p, uint64_t t, uint32_t pid, uint32_t tid, const char *name)
{
	struct frc_record r = {.type = FRC_THREAD, .ktime_ns = t};

	r.u.thread.pid = pid;
	r.u.thread.tid = tid;
	r.u.thread.len = (uint8_t)strlen(name);
	memcpy(r.u.thread.name, name, r.u.thread.len + 1);
	feed(p, &r);
}

static void geometry(struct pipeline *p, uint64_t t, uint64_t surface, int32_t w, int32_t h)
{
	struct frc_record r = {.type = FRC_BUFFER, .ktime_ns = t};

	r.u.buffer = (struct frc_buffer){.pid = 100,
					 .surface = surface,
					 .buffer = surface + 1,
					 .width = w,
					 .height = h,
					 .stride = w,
					 .format = 1};
	feed(p, &r);
}

static void connection(struct pipeline *p, uint64_t t, uint64_t surface, bool connected)
{
	struct frc_record r = {.type = FRC_CONNECT, .ktime_ns = t};

	r.u.connect = (struct frc_connect){
	    .pid = 100, .tid = 200, .surface = surface, .api = 1, .connected = connected};
	feed(p, &r);
}

static void tick(struct pipeline *p, uint64_t t)
{
	struct frc_record r = {.type = FRC_TICK, .ktime_ns = t};

	feed(p, &r);
}

/*
 * Two surfaces of PID 100 over [from, to) ms: s1 by tid1 every step1 ms, s2 by tid2 every
 * step2 ms (0: s2 does not call), from `from` on; at a common time s1 calls first.
 */
static void play2(struct pipeline *p, uint64_t from, uint64_t to, uint64_t s1, uint32_t tid1,
		  uint64_t step1, uint64_t s2, uint32_t tid2, uint64_t step2)
{
	uint64_t n1 = from, n2 = step2 ? from : to;

	while (n1 < to || n2 < to) {
		bool one = n1 <= n2;

		frame(p, (one ? n1 : n2) * MS, 100, one ? tid1 : tid2, one ? s1 : s2, 0x7000);
		if (one)
			n1 += step1;
		else
			n2 += step2;
	}
}

/*
 * A 31.25 fps game (32 ms) under a 62.5 fps HUD (16 ms) that the view system draws: the
 * thread records name the game's thread and RenderThread before their first frames, so the
 * game leads from its first call and the HUD never reports. Game calls at 0, 32, ..., 1984
 * (63 calls, 62 deltas of 32 ms); the reading at 2 s is the 30 newest deltas: 1e9 / 32 ms
 * = 31.25 FPS. Without the names the HUD's rate wins at the first re-ranking (1 s).
 */
START_TEST(ctracker_game_under_hud)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	thread(p, 0, 100, 200, "UnityGfxDeviceW");
	thread(p, 0, 100, 201, "RenderThread");
	play2(p, 0, 2000, GAME, 200, 32, HUD, 201, 16);
	tick(p, 2000 * MS);
	ck_assert_uint_eq(s.n_game, 62);
	ck_assert_uint_eq(s.game_delta, 32 * MS);
	ck_assert_uint_eq(s.n_hud, 0);
	ck_assert_uint_eq(s.fps_micro, 31250000);
	pipeline_free(p);

	p = open_p(&s, "content", NULL, 0);
	play2(p, 0, 2000, GAME, 200, 32, HUD, 201, 16);
	tick(p, 2000 * MS);
	ck_assert_uint_gt(s.n_hud, 0);
	ck_assert_uint_eq(s.hud_delta, 16 * MS);
	ck_assert_uint_eq(s.fps_micro, 62500000); /* the HUD's 16 ms */
	pipeline_free(p);
}
END_TEST

/*
 * A 25 fps video (40 ms) from a codec thread under a 125 Hz comment overlay (8 ms) drawn
 * by RenderThread: the video's 0, 40, ..., 2960 (75 calls, 74 deltas of 40 ms) only; the
 * reading at 3 s: 25 FPS.
 */
START_TEST(ctracker_video_under_overlay)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	thread(p, 0, 100, 300, "CodecLooper");
	thread(p, 0, 100, 301, "RenderThread");
	play2(p, 0, 3000, GAME, 300, 40, HUD, 301, 8);
	tick(p, 3000 * MS);
	ck_assert_uint_eq(s.n_game, 74);
	ck_assert_uint_eq(s.game_delta, 40 * MS);
	ck_assert_uint_eq(s.n_hud, 0);
	ck_assert_uint_eq(s.fps_micro, 25000000);
	pipeline_free(p);
}
END_TEST

/*
 * Both drawn by non-UI threads (a codec, a danmaku GL thread): the buffer records decide.
 * A 25 fps 1920x1080 video (40 ms, 0..2960: 74 deltas) under a 125 Hz 1080x300 overlay
 * (8 ms): the video's only; 25 FPS at 3 s. A header without a size (0 x 0, -1 x 5) is no
 * area. Without the buffer records the overlay's rate wins from the first re-ranking.
 */
START_TEST(ctracker_video_by_area)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	thread(p, 0, 100, 300, "CodecLooper");
	thread(p, 0, 100, 301, "DanmakuGL");
	geometry(p, 0, GAME, 1920, 1080);
	geometry(p, 0, HUD, 0, 0);
	geometry(p, 0, HUD, -1, 5);
	geometry(p, 0, HUD, 1080, 300);
	play2(p, 0, 3000, GAME, 300, 40, HUD, 301, 8);
	tick(p, 3000 * MS);
	ck_assert_uint_eq(s.n_game, 74);
	ck_assert_uint_eq(s.game_delta, 40 * MS);
	ck_assert_uint_eq(s.n_hud, 0);
	ck_assert_uint_eq(s.fps_micro, 25000000);
	pipeline_free(p);

	p = open_p(&s, "content", NULL, 0);
	thread(p, 0, 100, 300, "CodecLooper");
	thread(p, 0, 100, 301, "DanmakuGL");
	play2(p, 0, 3000, GAME, 300, 40, HUD, 301, 8);
	tick(p, 3000 * MS);
	ck_assert_uint_gt(s.n_hud, 0);
	ck_assert_uint_eq(s.fps_micro, 125000000); /* the overlay's 8 ms */
	pipeline_free(p);
}
END_TEST

/*
 * Rotation with connect records: the game (GameThread) and the HUD (RenderThread) at 16 ms
 * from 0; the game's Surface disconnects at 1000 ms and a new one connects at its old
 * address at 1100. Game deltas: 16..992 (62); at the disconnect the HUD leads, its series
 * from its call at 1008: deltas 1024..1088 (5); the new game surface's first call (1100)
 * takes over by thread and starts a series: deltas 1116..1996 (56). 118 game deltas, every
 * one 16 ms: nothing spans the 992 -> 1100 gap. Without the connect records the old and
 * the new Surface are one, and the 108 ms gap is a game interval.
 */
static void rotation(struct pipeline *p, bool records)
{
	thread(p, 0, 100, 200, "GameThread");
	thread(p, 0, 100, 201, "RenderThread");
	if (records) {
		connection(p, 0, GAME, true);
		connection(p, 0, HUD, true);
	}
	play2(p, 0, 1000, GAME, 200, 16, HUD, 201, 16);
	if (records)
		connection(p, 1000 * MS, GAME, false);
	play2(p, 1008, 1100, HUD, 201, 16, 0, 0, 0);
	if (records)
		connection(p, 1100 * MS, GAME, true);
	play2(p, 1100, 2000, GAME, 200, 16, HUD, 201, 16);
}

START_TEST(ctracker_recreated_at_old_address)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	rotation(p, true);
	ck_assert_uint_eq(s.n_game, 118);
	ck_assert_uint_eq(s.game_delta, 16 * MS);
	ck_assert_uint_eq(s.n_hud, 5);
	ck_assert_uint_eq(s.hud_delta, 16 * MS);
	pipeline_free(p);

	p = open_p(&s, "content", NULL, 0);
	rotation(p, false);
	ck_assert_uint_eq(s.n_game, 62 + 1 + 56);
	ck_assert_uint_eq(s.game_delta, UINT64_MAX); /* 16 ms, and the gap's 108 ms */
	ck_assert_uint_eq(s.n_hud, 0);
	pipeline_free(p);
}
END_TEST

/*
 * No names: a 62.5 fps chat overlay (HUD, 16 ms, 0..4992) over a 31.25 fps game (GAME,
 * 32 ms, 0..7968). The game leads from t = 0 (the first surface; the HUD's first call ties
 * on rate, the leader stays). The first re-ranking is at the first call from 1000 ms on,
 * the HUD's at 1008: calls in (8, 1008] ms, HUD 63 (16..1008), game 31 (32..992), and
 * 63 x 2 > 31 x 3, so the HUD leads. Game deltas up to then: 32..992, 31. HUD: its series
 * starts at 1008, deltas at 1024..4992: 249. The overlay closes after 4992; it is silent
 * from 4992 + 500 = 5492, so the game's call at 5504 takes over and starts a series: game
 * deltas at 5536..7968, 77. The game's deltas in all: 31 + 77 = 108, each 32 ms.
 */
START_TEST(ctracker_overlay_closes)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	play2(p, 0, 5000, GAME, 1, 32, HUD, 2, 16);
	play2(p, 5024, 8000, GAME, 1, 32, 0, 0, 0);
	ck_assert_uint_eq(s.n_hud, 249);
	ck_assert_uint_eq(s.hud_delta, 16 * MS);
	ck_assert_uint_eq(s.n_game, 108);
	ck_assert_uint_eq(s.game_delta, 32 * MS);
	ck_assert_uint_eq(s.n_other, 0);
	pipeline_free(p);
}
END_TEST

/*
 * One surface, 300 calls at 16 ms over 3 buffers in turn, then 300 over 4 (the swapchain
 * grew): the surface is the key, so every call after the first closes an interval: 599 of
 * 16 ms, none lost at the growth. kala on the same calls: its 4th buffer starts a history
 * of its own (0 deltas) and the 3 old buffers keep their lead, so it reports only the old
 * buffers' 64 ms intervals after the growth; fewer deltas, none of 16 ms.
 */
START_TEST(ctracker_swapchain_grows)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	for (uint64_t i = 0; i < 600; i++)
		frame(p, i * 16 * MS, 100, 1, GAME, 0x7000 + 0x100 * (i < 300 ? i % 3 : i % 4));
	ck_assert_uint_eq(s.n_game, 599);
	ck_assert_uint_eq(s.game_delta, 16 * MS);
	pipeline_free(p);

	p = open_p(&s, "kala", NULL, 0);
	for (uint64_t i = 0; i < 600; i++)
		frame(p, i * 16 * MS, 100, 1, GAME, 0x7000 + 0x100 * (i < 300 ? i % 3 : i % 4));
	ck_assert_uint_lt(s.n_game, 599);
	ck_assert_uint_eq(s.game_delta, UINT64_MAX); /* 48 ms under 3 buffers, 64 ms under 4 */
	pipeline_free(p);
}
END_TEST

/*
 * Frame generation: 2 frames per queueBuffers call, 30 calls/s (33 ms), the frames stamped
 * 8 and 24 ms after the call: the content series runs on the stamps (content_frame_time),
 * 16 ms apart; without stamps the second frame of a call is a zero interval (none). A stamp
 * more than 1 s ahead is garbage to SurfaceFlinger and to the tracker: the ktime counts.
 */
#define SEC_NS 1000000000ull

static void batch_call(struct pipeline *p, uint64_t t, int64_t ts0, int64_t ts1, bool stamped)
{
	for (int e = 0; e < 2; e++) {
		struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};
		r.u.frame = (struct frc_frame){.pid = 100,
					       .tid = 1,
					       .buffer = 0x7000 + 0x100 * (uint64_t)e,
					       .surface = GAME,
					       .has_timestamp = stamped,
					       .timestamp = e ? ts1 : ts0};
		feed(p, &r);
	}
}

START_TEST(ctracker_batch_timestamps)
{
	struct seen s;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	for (uint64_t i = 1; i <= 30; i++)
		batch_call(p, i * 32 * MS, (int64_t)(i * 32 + 8) * (int64_t)MS,
			   (int64_t)(i * 32 + 24) * (int64_t)MS, true);
	ck_assert_uint_eq(s.n_game, 59); /* 60 frames, 59 intervals of 16 ms */
	ck_assert_uint_eq(s.game_delta, 16 * MS);
	pipeline_free(p);

	p = open_p(&s, "content", NULL, 0);
	for (uint64_t i = 1; i <= 30; i++)
		batch_call(p, i * 32 * MS, 0, 0, false);
	ck_assert_uint_eq(s.n_game, 29); /* one interval per call: 32 ms */
	ck_assert_uint_eq(s.game_delta, 32 * MS);
	pipeline_free(p);

	p = open_p(&s, "content", NULL, 0);
	for (uint64_t i = 1; i <= 30; i++) /* 2 s ahead, and in the past: ktime */
		batch_call(p, i * 32 * MS, (int64_t)(i * 32 * MS + 2 * SEC_NS), 1, true);
	ck_assert_uint_eq(s.n_game, 29);
	ck_assert_uint_eq(s.game_delta, 32 * MS);
	pipeline_free(p);
}
END_TEST

/*
 * Keys age out: 40 Surfaces one after another (a surface recreated at a new address each
 * second), each 10 calls 16 ms apart from k s on, then silent. Each new surface's first
 * call finds the leader silent for 1000 - 144 = 856 ms > 0.5 s and takes over: 9 deltas
 * per surface, 360 in all, whatever is forgotten. The tracker remembers CONTENT_SURFACES
 * (32) at most: 8 forgotten; with max_buffers 2, 2 kept and 38 forgotten.
 */
START_TEST(ctracker_keys_age_out)
{
	const uint32_t bound[] = {0, 2}, kept[] = {32, 2};

	for (int b = 0; b < 2; b++) {
		struct seen s;
		struct pipeline *p = open_p(&s, "content", NULL, bound[b]);
		struct pipeline_stats st;

		for (uint64_t k = 0; k < 40; k++)
			for (uint64_t j = 0; j < 10; j++)
				frame(p, (k * 1000 + j * 16) * MS, 100, 1, 0x100000 + 0x1000 * k,
				      0x7000);
		ck_assert_uint_eq(s.n_other, 360);
		pipeline_stats(p, &st);
		ck_assert_uint_eq(st.deltas, 360);
		ck_assert_uint_eq(st.buffers_evicted, 40 - kept[b]);
		pipeline_free(p);
	}
}
END_TEST

/*
 * Two PIDs: 100 calls every 40 ms from 0, 200 every 20 ms from 5 (one buffer and surface
 * each), up to 2 s; a tick at 2000 ms. Deltas: PID 100 49 (40..1960), PID 200 99
 * (25..1985). The default meter reads its 30 newest deltas. Fed every PID, in each 40 ms
 * there are one delta of 40 and two of 20, so any 30 in a row sum to 10 x 80 = 800 ms:
 * 37.5 FPS. Fed PID 100 only: 30 x 40 ms = 1200 ms, 25 FPS; PID 200 only: 50 FPS.
 */
static void two_pids(struct pipeline *p, bool follow_200)
{
	if (follow_200) { /* framerec followed PID 200 (a launch): attach record */
		struct frc_record a = {.type = FRC_ATTACH, .ktime_ns = 0};

		a.u.attach.pid = 200;
		feed(p, &a);
	}
	for (uint64_t t = 0; t < 2000; t += 20) {
		if (t % 40 == 0)
			frame(p, t * MS, 100, 100, GAME, 0x7000);
		frame(p, (t + 5) * MS, 200, 200, HUD, 0x8000);
	}
	tick(p, 2000 * MS);
}

START_TEST(ctracker_meter_fed_target_only)
{
	struct seen s;
	struct pipeline_stats st;
	struct pipeline *p = open_p(&s, "content", "100", 0);

	two_pids(p, false);
	ck_assert_uint_eq(s.fps_micro, 25000000);
	ck_assert_uint_eq(s.n_pid[0], 49);
	ck_assert_uint_eq(s.n_pid[1], 99); /* still reported, not metered */
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.deltas, 148);
	ck_assert_uint_eq(st.deltas_unmetered, 99);
	pipeline_free(p);

	/* PID 200 attached later than the start's 100 and drew: the target from its first
	 * frame (5 ms) on; PID 100's deltas (all after 5 ms) are not metered */
	p = open_p(&s, "content", "100", 0);
	two_pids(p, true);
	ck_assert_uint_eq(s.fps_micro, 50000000);
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.deltas_unmetered, 49);
	pipeline_free(p);

	/* no target info (no key, no attach record): every PID feeds the meter, as before */
	p = open_p(&s, "content", NULL, 0);
	two_pids(p, false);
	ck_assert_uint_eq(s.fps_micro, 37500000);
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.deltas_unmetered, 0);
	pipeline_free(p);
}
END_TEST

/* The other variants ignore the target: kala with target 100 meters both PIDs (37.5 FPS). */
START_TEST(ctracker_other_variants_meter_all)
{
	const char *names[] = {"kala", "surface", "process", "main-surface"};

	for (size_t k = 0; k < 4; k++) {
		struct seen s;
		struct pipeline_stats st;
		struct pipeline *p = open_p(&s, names[k], "100", 0);

		two_pids(p, false);
		ck_assert_msg(s.fps_micro == 37500000, "%s: %llu", names[k],
			      (unsigned long long)s.fps_micro);
		pipeline_stats(p, &st);
		ck_assert_uint_eq(st.deltas, 148);
		ck_assert_uint_eq(st.deltas_unmetered, 0);
		pipeline_free(p);
	}
}
END_TEST

/*
 * Thread, buffer and connect records: to their PID's tracker for a kind that learns
 * (content: a PID seen only in such a record gets a tracker), nothing for the others (no
 * tracker, and the same deltas as without the records: kala on 3 buffers at 16 ms, with a thread
 * record before every frame, still gives its 33 deltas of 48 ms for 100 calls: A's at 3, 6, ...,
 * 99).
 */
START_TEST(ctracker_thread_records_routed)
{
	struct seen s;
	struct pipeline_stats st;
	struct pipeline *p = open_p(&s, "content", NULL, 0);

	thread(p, 0, 300, 301, "GameThread");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.trackers, 1);
	ck_assert_uint_eq(st.unknown, 0);
	pipeline_free(p);

	p = open_p(&s, "kala", NULL, 0);
	thread(p, 0, 300, 301, "GameThread");
	geometry(p, 0, GAME, 1080, 2400);
	connection(p, 0, GAME, true);
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.trackers, 0);
	ck_assert_uint_eq(st.unknown, 0);
	for (uint64_t i = 0; i < 100; i++) {
		thread(p, i * 16 * MS, 100, 1, i % 2 ? "RenderThread" : "GameThread");
		frame(p, i * 16 * MS, 100, 1, GAME, 0x7000 + 0x100 * (i % 3));
	}
	ck_assert_uint_eq(s.n_game, 33);
	ck_assert_uint_eq(s.game_delta, 48 * MS);
	pipeline_free(p);
}
END_TEST

/* A target.pid that is not a list of PIDs is a bad config; the registry lists content. */
START_TEST(ctracker_config)
{
	struct pipeline_config cfg;
	struct pipeline *p = (struct pipeline *)1;
	const struct tracker_kind *k = tracker_kind_find("content");

	pipeline_config_default(&cfg);
	ck_assert_ptr_null(cfg.target);
	cfg.target = "12,x";
	ck_assert_int_eq(pipeline_new(&p, &cfg, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(p);
	cfg.target = "12,34";
	ck_assert_int_eq(pipeline_new(&p, &cfg, NULL, NULL), 0);
	pipeline_free(p);
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(k->learn);
	ck_assert(k->meter_target_only);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_ptr_null(tracker_kind_at(i)->learn);
		ck_assert(!tracker_kind_at(i)->meter_target_only);
	}
	cfg.target = NULL;
	cfg.tracker_name = "content";
	cfg.tracker.max_buffers = 0;
	ck_assert_int_eq(pipeline_new(&p, &cfg, NULL, NULL), -EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("ctracker_game_under_hud", ctracker_game_under_hud, 30),
	    FRC_CASE("ctracker_video_under_overlay", ctracker_video_under_overlay, 30),
	    FRC_CASE("ctracker_video_by_area", ctracker_video_by_area, 30),
	    FRC_CASE("ctracker_recreated_at_old_address", ctracker_recreated_at_old_address, 30),
	    FRC_CASE("ctracker_overlay_closes", ctracker_overlay_closes, 30),
	    FRC_CASE("ctracker_swapchain_grows", ctracker_swapchain_grows, 30),
	    FRC_CASE("ctracker_keys_age_out", ctracker_keys_age_out, 30),
	    FRC_CASE("ctracker_batch_timestamps", ctracker_batch_timestamps, 30),
	    FRC_CASE("ctracker_meter_fed_target_only", ctracker_meter_fed_target_only, 30),
	    FRC_CASE("ctracker_other_variants_meter_all", ctracker_other_variants_meter_all, 30),
	    FRC_CASE("ctracker_thread_records_routed", ctracker_thread_records_routed, 30),
	    FRC_CASE("ctracker_config", ctracker_config, 30),
	};

	return frc_case_run("content_tracker", cases, FRC_NCASES(cases), argc, argv);
}
