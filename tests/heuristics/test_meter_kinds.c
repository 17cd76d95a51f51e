/* SPDX-License-Identifier: MIT */
/*
 * test_meter_kinds.c - the meter variants (meter_kind.h): the table, auriya-ccafd78's order
 * against 10fe7c6's, and frc-window's rules. Every expectation is a number worked out by
 * hand in the comment next to it; none is computed by the code under test.
 */
#include <errno.h>
#include <string.h>

#include "meter_kind.h"
#include "pipeline.h"
#include "test_heuristics.h"

#define MS 1000000ull
#define SEC 1000000000ull

static void *new_kind(const char *name, uint64_t t0, bool has_sysfs)
{
	const struct meter_kind *k = meter_kind_find(name);
	struct fps_meter_config cfg;
	void *m = NULL;

	ck_assert_ptr_nonnull(k);
	fps_meter_config_default(&cfg);
	ck_assert_int_eq(k->create(&m, &cfg, t0, has_sysfs), 0);
	return m;
}

static void text(const char *name, void *m, const char *t)
{
	meter_kind_find(name)->sysfs(m, 0, (const uint8_t *)t, strlen(t));
}

/* Reads at now; asserts the source and fps_to_micro of the reading. */
static void expect(const char *name, void *m, uint64_t now, enum frc_source src, uint64_t micro)
{
	struct fps_reading r = meter_kind_find(name)->read(m, now);

	ck_assert_msg(r.source == src, "%s now=%llu: source %d, expected %d", name,
		      (unsigned long long)now, r.source, src);
	ck_assert_int_eq(r.valid, src != FRC_SOURCE_NONE);
	if (src != FRC_SOURCE_NONE)
		ck_assert_msg(fps_to_micro(r.fps) == micro, "%s now=%llu: %.6f, expected %llu",
			      name, (unsigned long long)now, r.fps, (unsigned long long)micro);
}

static void deltas(const char *name, void *m, int n, uint64_t d)
{
	for (int i = 0; i < n; i++)
		meter_kind_find(name)->delta(m, d);
}

START_TEST(test_table)
{
	char names[128];

	ck_assert_str_eq(METER_KIND_DEFAULT, "auriya-10fe7c6");
	ck_assert_uint_eq(meter_kind_count(), 3);
	ck_assert_str_eq(meter_kind_at(0)->name, "auriya-10fe7c6");
	ck_assert_str_eq(meter_kind_at(1)->name, "auriya-ccafd78");
	ck_assert_str_eq(meter_kind_at(2)->name, "frc-window");
	ck_assert_ptr_null(meter_kind_at(3));
	ck_assert_ptr_null(meter_kind_find("auriya"));
	ck_assert_ptr_null(meter_kind_find(NULL));
	/* 14 + 2 + 14 + 2 + 10 characters */
	ck_assert_uint_eq(meter_kind_names(names, sizeof(names)), 42);
	ck_assert_str_eq(names, "auriya-10fe7c6, auriya-ccafd78, frc-window");
	ck_assert_uint_eq(meter_kind_names(names, 7), 42);
	ck_assert_str_eq(names, "auriya");
}
END_TEST

/*
 * A valid sysfs node and flowing deltas: 10fe7c6 reads sysfs (and leaves the channel
 * undrained), ccafd78 reads the ring: 30 deltas of 20 ms = 50 FPS. Node "120".
 */
START_TEST(test_ccafd78_ebpf_first)
{
	void *a = new_kind("auriya-10fe7c6", 0, true), *b = new_kind("auriya-ccafd78", 0, true);

	text("auriya-10fe7c6", a, "120");
	text("auriya-ccafd78", b, "120");
	deltas("auriya-10fe7c6", a, 30, 20 * MS);
	deltas("auriya-ccafd78", b, 30, 20 * MS);
	expect("auriya-10fe7c6", a, 2 * SEC, FRC_SOURCE_SYSFS, 120000000);
	expect("auriya-ccafd78", b, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	/* no delta since: the ring's last kept drain was at 2 s; 3 s later (5 s) it is stale,
	 * and sysfs (last polled at 0, creation) is due: 120 */
	expect("auriya-ccafd78", b, 4999999999ull, FRC_SOURCE_EBPF, 50000000);
	expect("auriya-ccafd78", b, 5 * SEC, FRC_SOURCE_SYSFS, 120000000);
	/* within 2 s of that poll: the cache, even with a node now invalid */
	text("auriya-ccafd78", b, "0");
	expect("auriya-ccafd78", b, 6 * SEC, FRC_SOURCE_SYSFS, 120000000);
	/* at 7 s the poll finds "0": none, the cache stays (as 10fe7c6's) */
	expect("auriya-ccafd78", b, 7 * SEC, FRC_SOURCE_NONE, 0);
	meter_kind_find("auriya-10fe7c6")->destroy(a);
	meter_kind_find("auriya-ccafd78")->destroy(b);
}
END_TEST

/* 500 FPS (2 ms deltas): 10fe7c6 accepts (0, 500], ccafd78 only (0, 500). No sysfs. */
START_TEST(test_ccafd78_strict_max)
{
	void *a = new_kind("auriya-10fe7c6", 0, false), *b = new_kind("auriya-ccafd78", 0, false);

	deltas("auriya-10fe7c6", a, 30, 2 * MS);
	deltas("auriya-ccafd78", b, 30, 2 * MS);
	expect("auriya-10fe7c6", a, SEC, FRC_SOURCE_EBPF, 500000000);
	expect("auriya-ccafd78", b, SEC, FRC_SOURCE_NONE, 0);
	meter_kind_find("auriya-10fe7c6")->destroy(a);
	meter_kind_find("auriya-ccafd78")->destroy(b);
}
END_TEST

/* Both Auriya orders keep the last rate for 3 s after the frames stop (seed: a 3 s freeze
 * shows 60 FPS throughout): 30 deltas of 20 ms drained at 1 s; none at 4 s. */
START_TEST(test_auriya_freeze_3s)
{
	const char *names[2] = {"auriya-10fe7c6", "auriya-ccafd78"};

	for (int i = 0; i < 2; i++) {
		void *m = new_kind(names[i], 0, false);

		deltas(names[i], m, 30, 20 * MS);
		expect(names[i], m, SEC, FRC_SOURCE_EBPF, 50000000);
		expect(names[i], m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
		expect(names[i], m, 3999999999ull, FRC_SOURCE_EBPF, 50000000);
		expect(names[i], m, 4 * SEC, FRC_SOURCE_NONE, 0);
		meter_kind_find(names[i])->destroy(m);
	}
}
END_TEST

static void wframe(void *m, uint64_t t, uint32_t pid, uint64_t surface)
{
	struct frc_frame f = {.pid = pid, .tid = pid, .buffer = 0x1000, .surface = surface};

	ck_assert_int_eq(meter_kind_find("frc-window")->frame(m, t, &f, NULL), 0);
}

/* Calls of one surface every 20 ms at t = 0, 20 ms, ..., last (inclusive). */
static void wrun(void *m, uint64_t from, uint64_t last, uint32_t pid, uint64_t surface)
{
	for (uint64_t t = from; t <= last; t += 20 * MS)
		wframe(m, t, pid, surface);
}

/*
 * frc-window: 50 FPS content (20 ms) from 0 to 2 s. At 2 s: intervals ending in (1 s, 2 s]
 * = ends 1.02..2.00 = 50 -> 50 FPS. At 0.5 s (the first second: the window is the 0.5 s
 * since the first interval began at 0): ends 0.02..0.5 = 25 / 0.5 s = 50 FPS.
 */
START_TEST(test_window_rate)
{
	void *m = new_kind("frc-window", 0, false);

	expect("frc-window", m, 10 * MS, FRC_SOURCE_NONE, 0); /* no content yet */
	wrun(m, 0, 500 * MS, 7, 0xb400007000001000ull);
	expect("frc-window", m, 500 * MS, FRC_SOURCE_EBPF, 50000000);
	wrun(m, 520 * MS, 2 * SEC, 7, 0xb400007000001000ull);
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	/* the tracker's deltas do not move it (kala's 60 ms deltas on triple buffering) */
	deltas("frc-window", m, 100, 60 * MS);
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	meter_kind_find("frc-window")->destroy(m);
}
END_TEST

/*
 * The freeze bound: last frame at 2 s. At 2.249999999 s the window still counts ends in
 * (1.249999999, 2] = 1.26..2.00 = 38 -> 38 FPS; at 2.25 s (250 ms after): 0 FPS, valid, and
 * 0 for as long as nothing comes; the next frame (3 s, a 1 s interval) and more: at 3.1 s
 * the window (2.1, 3.1] holds 3.00..3.10 = 6 ends: 6 FPS, the count (5 frame times: fewer
 * than 4 before the last 8, so no rate change is seen; the count ramps back as the
 * per-second truth does).
 */
START_TEST(test_window_freeze)
{
	void *m = new_kind("frc-window", 0, false);

	wrun(m, 0, 2 * SEC, 7, 0x10);
	expect("frc-window", m, 2249999999ull, FRC_SOURCE_EBPF, 38000000);
	expect("frc-window", m, 2250 * MS, FRC_SOURCE_EBPF, 0);
	expect("frc-window", m, 2500 * MS, FRC_SOURCE_EBPF, 0);
	expect("frc-window", m, 2999 * MS, FRC_SOURCE_EBPF, 0);
	wrun(m, 3 * SEC, 3100 * MS, 7, 0x10);
	expect("frc-window", m, 3100 * MS, FRC_SOURCE_EBPF, 6000000);
	meter_kind_find("frc-window")->destroy(m);
}
END_TEST

/*
 * A rate change: 50 FPS (20 ms) from 0 to 2 s, then 25 FPS (40 ms) from 2.04 to 4 s.
 * At 2.2 s the 1 s window counts 45 (1.22..2.00, then 2.04..2.20); the last 8 frame times
 * (20, 20, 20, then five of 40: interquartile mean (20 + 3 * 40) / 4 = 35 ms, 28.571 FPS)
 * against the 36 before them (20 ms: 50 FPS) are off by more than 10 %: the reading is the
 * ends of the last 0.3 s, 1.92..2.20 = 10 ends, 9 / 0.28 s = 32.142857 FPS. At 2.4 s:
 * 2.12..2.40, 7 / 0.28 s = 25. At 3.0 s no change (the 8 against the 16 before: 40 ms) but
 * the 1 s since the last one is not over: 2.72..3.00 = 25. At 3.5 s it is (2.4 + 1 s): the
 * count, 2.52..3.48 = 25 ends -> 25.
 */
START_TEST(test_window_step)
{
	void *m = new_kind("frc-window", 0, false);

	wrun(m, 0, 2 * SEC, 7, 0x10);
	for (uint64_t t = 2040 * MS; t <= 4 * SEC; t += 40 * MS) {
		if (t == 2240 * MS)
			expect("frc-window", m, 2200 * MS, FRC_SOURCE_EBPF, 32142857);
		if (t == 2440 * MS)
			expect("frc-window", m, 2400 * MS, FRC_SOURCE_EBPF, 25000000);
		if (t == 3040 * MS)
			expect("frc-window", m, 3 * SEC, FRC_SOURCE_EBPF, 25000000);
		if (t == 3520 * MS)
			expect("frc-window", m, 3500 * MS, FRC_SOURCE_EBPF, 25000000);
		wframe(m, t, 7, 0x10);
	}
	meter_kind_find("frc-window")->destroy(m);
}
END_TEST

/*
 * No rate change: a 200 ms hitch in 50 FPS (20 ms to 1.00 s, then 1.20 .. 2.00 s) and a
 * 20/40 ms stutter. At 1.5 s the count of the last second is 41 (0.52..1.00: 25; 1.20..1.50:
 * 16), and the last 8 frame times (20 ms) read what the 32 before them read (the hitch is
 * their longest quarter): 41, what the display showed in that second, not the 50 the game
 * runs at again. The stutter (calls at 60k and 60k + 20 ms) from 0 to 2 s: at 2 s the count
 * is 34 (1.02..2.00: 17 of each); 8 alternating frame times read 30 ms as their
 * interquartile mean, as the frames before them: 34.
 */
START_TEST(test_window_no_change)
{
	void *m = new_kind("frc-window", 0, false);

	wrun(m, 0, SEC, 7, 0x10);
	wrun(m, 1200 * MS, 1500 * MS, 7, 0x10);
	expect("frc-window", m, 1500 * MS, FRC_SOURCE_EBPF, 41000000);
	meter_kind_find("frc-window")->destroy(m);
	m = new_kind("frc-window", 0, false);
	for (uint64_t t = 0; t <= 2 * SEC; t += 60 * MS) {
		wframe(m, t, 7, 0x10);
		if (t + 20 * MS <= 2 * SEC)
			wframe(m, t + 20 * MS, 7, 0x10);
	}
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 34000000);
	meter_kind_find("frc-window")->destroy(m);
}
END_TEST

/*
 * The content surface only: a 10 fps overlay (pid 7, surface 0x20, at 10 ms past each
 * 100 ms) beside the 50 FPS main surface adds nothing (at 2 s: 50, not 60). Then pid 7
 * stops and pid 9 calls at 100 FPS (10 ms) from 2.01 s: pid 7's main surface is stale 1 s
 * after its last call and pid 9 keeps pace, so pid 9 leads from its call at 3.01 s (the
 * first more than 1 s after 2 s). At 4 s: pid 9's ends in (3, 4] = 3.01..4.00 = 100 FPS.
 */
START_TEST(test_window_content_surface)
{
	void *m = new_kind("frc-window", 0, false);

	for (uint64_t t = 0; t <= 2 * SEC; t += 20 * MS) {
		wframe(m, t, 7, 0x10);
		if (t % (100 * MS) == 0)
			wframe(m, t + 10 * MS, 7, 0x20);
	}
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	for (uint64_t t = 2 * SEC + 10 * MS; t <= 4 * SEC; t += 10 * MS)
		wframe(m, t, 9, 0x10);
	expect("frc-window", m, 4 * SEC, FRC_SOURCE_EBPF, 100000000);
	meter_kind_find("frc-window")->destroy(m);
}
END_TEST

/*
 * sysfs is the panel's refresh: "30" caps 50 FPS content at 30 (source sysfs); "120" does
 * not (50, ebpf); a read error or garbage is no cap (50); a valid node with no content is
 * no reading (the panel refreshing says nothing about the game).
 */
START_TEST(test_window_sysfs_cap)
{
	void *m = new_kind("frc-window", 0, true);
	const struct meter_kind *k = meter_kind_find("frc-window");

	text("frc-window", m, "60");
	expect("frc-window", m, SEC, FRC_SOURCE_NONE, 0);
	wrun(m, 0, 2 * SEC, 7, 0x10);
	text("frc-window", m, "30");
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_SYSFS, 30000000);
	text("frc-window", m, "120");
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	k->sysfs(m, EIO, NULL, 0);
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	text("frc-window", m, "abc");
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	k->destroy(m);
}
END_TEST

/*
 * The display's vsync period (display capture) is its refresh: 40 ms (25 Hz) caps 50 FPS
 * content at 25 (source ebpf: the frame count, capped); 10 ms (100 Hz) does not (50); with
 * a node too, the lower cap holds (sysfs "30" and 25 Hz: 25, ebpf; sysfs "20": 20, sysfs).
 * The Auriya meters do not look at it (their op is NULL).
 */
START_TEST(test_window_vsync_cap)
{
	void *m = new_kind("frc-window", 0, true);
	const struct meter_kind *k = meter_kind_find("frc-window");

	wrun(m, 0, 2 * SEC, 7, 0x10);
	k->vsync(m, 40 * MS);
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 25000000);
	k->vsync(m, 10 * MS);
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	k->vsync(m, 40 * MS);
	text("frc-window", m, "30");
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_EBPF, 25000000);
	text("frc-window", m, "20");
	expect("frc-window", m, 2 * SEC, FRC_SOURCE_SYSFS, 20000000);
	k->destroy(m);
	ck_assert_ptr_null(meter_kind_find("auriya-10fe7c6")->vsync);
	ck_assert_ptr_null(meter_kind_find("auriya-ccafd78")->vsync);
}
END_TEST

/*
 * The pipeline runs the named meter: kala on triple buffering returns 60 ms deltas for 20
 * ms calls (16.7 FPS for the Auriya meters), frc-window reads the surface: 50 FPS at the
 * 2 s tick. An unknown meter is -ENOENT.
 */
static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	*(uint64_t *)ctx = r->reading.valid ? fps_to_micro(r->reading.fps) : 1;
}

START_TEST(test_pipeline_meter_name)
{
	const char *names[2] = {"auriya-10fe7c6", "frc-window"};
	const uint64_t want[2] = {16666667, 50000000}; /* 1e9 / 60 ms = 16.666667 */

	for (int i = 0; i < 2; i++) {
		struct pipeline_config cfg;
		struct pipeline_callbacks cb = {.on_reading = on_reading};
		struct pipeline *p;
		uint64_t got = 0;
		int k = 0;

		pipeline_config_default(&cfg);
		cfg.meter_name = names[i];
		ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &got), 0);
		for (uint64_t t = 0; t <= 2 * SEC; t += 20 * MS, k++) {
			struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};

			r.u.frame =
			    (struct frc_frame){.pid = 7,
					       .tid = 7,
					       .surface = 0x10,
					       .buffer = 0x1000 + (uint64_t)(k % 3) * 0x100};
			ck_assert_int_eq(pipeline_feed(p, &r), 0);
		}
		{
			struct frc_record tick = {.type = FRC_TICK, .ktime_ns = 2 * SEC};

			ck_assert_int_eq(pipeline_feed(p, &tick), 0);
		}
		ck_assert_uint_eq(got, want[i]);
		pipeline_free(p);
	}
	{
		struct pipeline_config cfg;
		struct pipeline *p = (struct pipeline *)1;

		pipeline_config_default(&cfg);
		cfg.meter_name = "auriya";
		ck_assert_int_eq(pipeline_new(&p, &cfg, NULL, NULL), -ENOENT);
		ck_assert_ptr_null(p);
	}
}
END_TEST

void add_meter_kind_cases(Suite *s)
{
	ADD_CASE(s, "meter_kinds_table", test_table);
	ADD_CASE(s, "meter_ccafd78_ebpf_first", test_ccafd78_ebpf_first);
	ADD_CASE(s, "meter_ccafd78_strict_max", test_ccafd78_strict_max);
	ADD_CASE(s, "meter_auriya_freeze_3s", test_auriya_freeze_3s);
	ADD_CASE(s, "meter_window_rate", test_window_rate);
	ADD_CASE(s, "meter_window_freeze", test_window_freeze);
	ADD_CASE(s, "meter_window_step", test_window_step);
	ADD_CASE(s, "meter_window_no_change", test_window_no_change);
	ADD_CASE(s, "meter_window_content_surface", test_window_content_surface);
	ADD_CASE(s, "meter_window_sysfs_cap", test_window_sysfs_cap);
	ADD_CASE(s, "meter_window_vsync_cap", test_window_vsync_cap);
	ADD_CASE(s, "pipeline_meter_name", test_pipeline_meter_name);
}
