/* SPDX-License-Identifier: MIT */
/*
 * test_variants.c - the tracker implementations of tracker_kind.h, side by side.
 * Every expected number is worked out by hand in the comments next to it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "pipeline.h"
#include "test_heuristics.h"
#include "tracker_kind.h"

#define T60 16666667ull /* one 60 Hz period, rounded to the ns */
#define T0 1000000000ull

struct kt {
	const struct tracker_kind *k;
	void *t;
};

static struct kt open_kind(const char *name, uint32_t max_keys)
{
	struct tracker_config cfg;
	struct kt kt = {tracker_kind_find(name), NULL};

	ck_assert_msg(kt.k != NULL, "no tracker named %s", name);
	tracker_config_default(&cfg);
	if (max_keys)
		cfg.max_buffers = max_keys;
	ck_assert_int_eq(kt.k->create(&kt.t, &cfg), 0);
	return kt;
}

/* One call; returns the delta or 0 for "nothing". */
static uint64_t feed(struct kt *kt, uint64_t ktime, uint64_t surface, uint64_t buffer)
{
	struct frc_frame f = {.pid = 1, .tid = 1, .buffer = buffer, .surface = surface};
	uint64_t d = 0;

	if (!kt->k->record(kt->t, ktime, &f, &d))
		return 0;
	ck_assert_uint_ne(d, 0);
	return d;
}

START_TEST(test_registry)
{
	char names[64], small[8];

	ck_assert_uint_eq(tracker_kind_count(), 5);
	ck_assert_str_eq(tracker_kind_at(0)->name, "kala");
	ck_assert_str_eq(tracker_kind_at(0)->name, TRACKER_KIND_DEFAULT);
	ck_assert_ptr_null(tracker_kind_at(5));
	ck_assert_ptr_eq(tracker_kind_find("surface"), tracker_kind_at(1));
	ck_assert_ptr_eq(tracker_kind_find("process"), tracker_kind_at(2));
	ck_assert_ptr_eq(tracker_kind_find("main-surface"), tracker_kind_at(3));
	ck_assert_ptr_eq(tracker_kind_find("content"), tracker_kind_at(4));
	ck_assert_ptr_null(tracker_kind_find("Kala"));
	ck_assert_ptr_null(tracker_kind_find(""));
	ck_assert_ptr_null(tracker_kind_find(NULL));
	/* "kala, surface, process, main-surface, content": 4 + 2 + 7 + 2 + 7 + 2 + 12 + 2 + 7
	 * = 45 */
	ck_assert_uint_eq(tracker_kind_names(names, sizeof(names)), 45);
	ck_assert_str_eq(names, "kala, surface, process, main-surface, content");
	ck_assert_uint_eq(tracker_kind_names(small, sizeof(small)), 45);
	ck_assert_str_eq(small, "kala, s");
	for (size_t i = 0; i < tracker_kind_count(); i++) {
		ck_assert_ptr_nonnull(tracker_kind_at(i)->summary);
		ck_assert_ptr_nonnull(tracker_kind_at(i)->source);
	}
}
END_TEST

/*
 * Triple buffering at 60 Hz: buffers A < B < C in round-robin on one surface, 30 calls at
 * T0 + i * T60. kala: each buffer sees 3 * T60 = 50000001 ns; B and C tie with A on
 * (count, sum) and lose on the pointer, so only A's 9 repeats (calls 3, 6, ..., 27) report.
 * surface, process, main-surface: one key, 29 deltas of T60.
 */
START_TEST(test_triple_buffering_60hz)
{
	const char *names[] = {"kala", "surface", "process", "main-surface"};

	for (size_t k = 0; k < 4; k++) {
		struct kt kt = open_kind(names[k], 0);
		uint64_t n = 0, want = k == 0 ? 3 * T60 : T60;

		for (uint64_t i = 0; i < 30; i++) {
			uint64_t d = feed(&kt, T0 + i * T60, 0x5000, 0xA000 + 0x1000 * (i % 3));

			if (d) {
				ck_assert_msg(d == want, "%s: %llu", names[k],
					      (unsigned long long)d);
				n++;
			}
		}
		ck_assert_uint_eq(n, k == 0 ? 9 : 29);
		kt.k->destroy(kt.t);
	}
}
END_TEST

/*
 * One PID, main surface M = 0x2000 at 60 Hz (calls at T0 + i * T60, i = 0..119) and a
 * 10 fps overlay O = 0x1000 at T0 + 5 ms + j * 100 ms (j = 0..19), 3 buffers each.
 * process: every consecutive pair of the 140 merged calls: 139 deltas, among them the
 * 5 ms from M's first call to O's, and (T60 * 6 + ...) mixes: at least one < T60.
 * surface: M gets a delta every T60, O every 100 ms, so M always has more deltas and is
 * active: M's 119 deltas of T60, none of O's.
 * main-surface: M leads from its first call; O's first call ties (1 call each) and a tie
 * keeps the leader; then M always has more calls: M's 119 deltas of T60.
 */
START_TEST(test_overlay_10fps)
{
	const char *names[] = {"surface", "process", "main-surface"};

	for (size_t k = 0; k < 3; k++) {
		struct kt kt = open_kind(names[k], 0);
		uint64_t i = 0, j = 0, n = 0, n_t60 = 0, n_short = 0;

		while (i < 120 || j < 20) {
			uint64_t tm = T0 + i * T60, to = T0 + 5000000 + j * 100000000ull, d;

			if (j >= 20 || (i < 120 && tm < to))
				d = feed(&kt, tm, 0x2000, 0xA000 + 0x1000 * (i++ % 3));
			else
				d = feed(&kt, to, 0x1000, 0xF000 + 0x1000 * (j++ % 3));
			n += d != 0;
			n_t60 += d == T60;
			n_short += d && d < T60;
		}
		if (k == 1) {
			ck_assert_uint_eq(n, 139);
			ck_assert_uint_ge(n_short, 1);
		} else {
			ck_assert_uint_eq(n, 119);
			ck_assert_uint_eq(n_t60, 119);
		}
		kt.k->destroy(kt.t);
	}
}
END_TEST

/*
 * Two surfaces at the same 60 Hz, A = 0x1000 calls 1 ms into each period, B = 0x2000
 * 2 ms + (k % 3) ms in (jitter). main-surface: after A's k-th call A has k calls and B
 * k - 1; after B's, both k and a tie keeps the leader A: every A call from the second on
 * reports its interval T60, no B call reports: 59 deltas in 60 periods.
 */
START_TEST(test_equal_rate_surfaces)
{
	struct kt kt = open_kind("main-surface", 0);
	uint64_t n = 0;

	for (uint64_t k = 0; k < 60; k++) {
		uint64_t d = feed(&kt, T0 + k * T60 + 1000000, 0x1000, 0xA000);

		if (k > 0)
			ck_assert_uint_eq(d, T60);
		n += d != 0;
		ck_assert_uint_eq(
		    feed(&kt, T0 + k * T60 + 2000000 + (k % 3) * 1000000, 0x2000, 0xB000), 0);
	}
	ck_assert_uint_eq(n, 59);
	kt.k->destroy(kt.t);
}
END_TEST

/*
 * The same two surfaces with the larger value first: B = 0x2000 at k * T60, A = 0x1000
 * at k * T60 + 4 ms (score fixture two_equal_surfaces). B's first call makes it the
 * leader; after A's k-th call both have k calls, and a tie keeps the leader B, which gets
 * ahead again at its next call: B's calls from the second on report T60, A's nothing: 59
 * deltas in 60 periods. (With a tie won by the smaller value, every call of either
 * surface took the lead and reported: 118 deltas, twice the rate.)
 */
START_TEST(test_equal_rate_larger_first)
{
	struct kt kt = open_kind("main-surface", 0);
	uint64_t n = 0;

	for (uint64_t k = 0; k < 60; k++) {
		uint64_t d = feed(&kt, T0 + k * T60, 0x2000, 0xB000);

		if (k > 0)
			ck_assert_uint_eq(d, T60);
		n += d != 0;
		ck_assert_uint_eq(feed(&kt, T0 + k * T60 + 4000000, 0x1000, 0xA000), 0);
	}
	ck_assert_uint_eq(n, 59);
	kt.k->destroy(kt.t);
}
END_TEST

/*
 * Surface change: A = 0x1000 at 60 Hz for i = 0..119, then A stops and B = 0x2000 calls at
 * i = 120.. (same period). B has fewer calls than A's 120 until i = 239, but A is stale
 * once a call comes more than 1 s after A's last (i = 119): (i - 119) * T60 > 1e9 first
 * for i = 179 (60 * T60 = 1000000020). So B reports from i = 179 on: i = 179..200 = 22
 * deltas of T60, and nothing for i = 120..178.
 */
START_TEST(test_surface_change_stale)
{
	struct kt kt = open_kind("main-surface", 0);
	uint64_t n = 0;

	for (uint64_t i = 0; i <= 200; i++) {
		uint64_t d = feed(&kt, T0 + i * T60, i < 120 ? 0x1000 : 0x2000, 0xA000);

		if (i == 0 || (i >= 120 && i < 179))
			ck_assert_msg(d == 0, "i=%llu: %llu", (unsigned long long)i,
				      (unsigned long long)d);
		else
			ck_assert_uint_eq(d, T60);
		n += d != 0;
	}
	ck_assert_uint_eq(n, 119 + 22);
	kt.k->destroy(kt.t);
}
END_TEST

/*
 * The main surface pauses while an overlay calls on: M = 0x1000 at T0 + i * T60 for
 * i = 0..59, then 3 s later for i = 60..119 (at T0 + 3 s + i * T60: the gap 59 -> 60 is
 * 3 s + T60); O = 0x2000 at T0 + 5 ms + j * 100 ms, j = 0..39. O never has more calls
 * (<= 40 against M's 60). M is stale for O's calls after T0 + 59 T60 + 1 s = T0 + 1983 ms
 * (j >= 20), but O's run since M's last call starts at j = 10 (T0 + 1005 ms) and its mean
 * interval is 100 ms, not under 3 * T60 = 50 ms: O never leads and reports nothing. M
 * reports i = 1..119: 118 deltas of T60 and one of 3 s + T60. (Handing over on staleness
 * alone, O led from j = 20 and reported 20 deltas of 100 ms until M's count won back.)
 */
START_TEST(test_pause_with_overlay)
{
	struct kt kt = open_kind("main-surface", 0);
	uint64_t i = 0, j = 0, n = 0;

	while (i < 120 || j < 40) {
		uint64_t tm = T0 + i * T60 + (i >= 60 ? 3000000000ull : 0);
		uint64_t to = T0 + 5000000 + j * 100000000ull, d;

		if (j >= 40 || (i < 120 && tm < to)) {
			d = feed(&kt, tm, 0x1000, 0xA000 + 0x1000 * (i % 3));
			if (i == 60)
				ck_assert_uint_eq(d, 3000000000ull + T60);
			else if (i > 0)
				ck_assert_uint_eq(d, T60);
			i++;
		} else {
			d = feed(&kt, to, 0x2000, 0xF000 + 0x1000 * (j++ % 2));
			ck_assert_msg(d == 0, "overlay call %llu reported %llu",
				      (unsigned long long)j - 1, (unsigned long long)d);
		}
		n += d != 0;
	}
	ck_assert_uint_eq(n, 119);
	kt.k->destroy(kt.t);
}
END_TEST

/*
 * The same surface change for `surface` (Kala's rule on surfaces), with the new surface B =
 * 0x1000 below A = 0x2000: A keeps 119 deltas summing 119 T; B after its call i has
 * i - 120 deltas. B is active only once it has more deltas, or as many (i = 239) with an
 * equal sum (119 T) and the smaller value: nothing for i = 120..238 (119 calls, ~2 s at
 * 60 Hz), then B's T from i = 239 on (2 deltas up to i = 240). main-surface reported from
 * i = 179 (test_surface_change_stale).
 */
START_TEST(test_surface_change_lag)
{
	struct kt kt = open_kind("surface", 0);
	uint64_t n = 0;

	for (uint64_t i = 0; i <= 240; i++) {
		uint64_t d = feed(&kt, T0 + i * T60, i < 120 ? 0x2000 : 0x1000, 0xA000);

		if (i == 0 || (i >= 120 && i < 239))
			ck_assert_msg(d == 0, "i=%llu: %llu", (unsigned long long)i,
				      (unsigned long long)d);
		else
			ck_assert_uint_eq(d, T60);
		n += d != 0;
	}
	ck_assert_uint_eq(n, 119 + 2);
	kt.k->destroy(kt.t);
}
END_TEST

/*
 * A pause is a frame time: 10 calls at 60 Hz, 5 s of silence, 10 more: main-surface and
 * process report 9 + 1 + 9 deltas, the one after the pause 5 s + T60 (the meter drops it:
 * >= 500 ms). Buffer reallocation (new buffer pointers after the pause) changes nothing
 * for them; kala sees every new buffer as a first sighting.
 */
START_TEST(test_pause_and_realloc)
{
	const char *names[] = {"process", "main-surface"};

	for (size_t k = 0; k < 2; k++) {
		struct kt kt = open_kind(names[k], 0);
		uint64_t n = 0, t = T0;

		for (uint64_t i = 0; i < 20; i++) {
			uint64_t d;

			t += i == 10 ? 5000000000ull + T60 : T60;
			d = feed(&kt, t, 0x5000, (i < 10 ? 0xA000 : 0xB0000) + 0x1000 * (i % 3));
			if (i == 10)
				ck_assert_uint_eq(d, 5000000000ull + T60);
			else if (i > 0)
				ck_assert_uint_eq(d, T60);
			n += d != 0;
		}
		ck_assert_uint_eq(n, 19);
		kt.k->destroy(kt.t);
	}
}
END_TEST

/*
 * Surface 0 (a capture without surfaces) is one surface: surface and main-surface report
 * what process reports, call for call, also with time going backwards (saturating: the
 * backward call gives nothing and the next delta is measured from it).
 */
START_TEST(test_surface_zero_is_process)
{
	static const uint64_t times[] = {100, 200, 350, 300, 420, 420, 500, 10000};
	static const uint64_t want[] = {0, 100, 150, 0, 120, 0, 80, 9500};
	const char *names[] = {"surface", "process", "main-surface"};

	for (size_t k = 0; k < 3; k++) {
		struct kt kt = open_kind(names[k], 0);

		for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
			ck_assert_uint_eq(feed(&kt, times[i], 0, 0xA000 + 0x1000 * (i % 3)),
					  want[i]);
		kt.k->destroy(kt.t);
	}
}
END_TEST

/*
 * main-surface remembers at most max_buffers surfaces (LRU). Bound 2: A, B, then C
 * forgets A (the least recently seen); A again is a first sighting (nothing), while B,
 * still remembered, reports. A had led (first seen); after A is forgotten, C leads; B's
 * second call (2 calls > C's 1) takes the lead and reports 300 - 200 = 100.
 */
START_TEST(test_main_surface_lru)
{
	struct kt kt = open_kind("main-surface", 2);
	struct tracker_stats st;

	ck_assert_uint_eq(feed(&kt, 100, 0xA, 1), 0);
	ck_assert_uint_eq(feed(&kt, 200, 0xB, 1), 0);
	ck_assert_uint_eq(feed(&kt, 250, 0xC, 1), 0);
	ck_assert_uint_eq(feed(&kt, 300, 0xB, 1), 100);
	ck_assert_uint_eq(feed(&kt, 400, 0xA, 1), 0); /* forgets C */
	kt.k->stats(kt.t, &st);
	ck_assert_uint_eq(st.records, 5);
	ck_assert_uint_eq(st.deltas, 1);
	ck_assert_uint_eq(st.buffers, 2);
	ck_assert_uint_eq(st.buffers_evicted, 2);
	kt.k->destroy(kt.t);
}
END_TEST

static void count_delta(void *ctx, const struct pipeline_delta *d)
{
	uint64_t *c = ctx;

	c[0]++;
	c[1] = d->delta_ns;
	c[2] = d->surface;
}

/*
 * The pipeline runs the tracker its config names: the triple-buffered 60 Hz stream of
 * test_triple_buffering_60hz gives 9 deltas of 50 ms with the default (kala), 29 of T60
 * with "process"; an unknown name is -ENOENT.
 */
START_TEST(test_pipeline_tracker_name)
{
	const char *names[] = {NULL, "kala", "process"};
	struct pipeline_config cfg;
	struct pipeline *p = (struct pipeline *)1;

	for (size_t k = 0; k < 3; k++) {
		struct pipeline_callbacks cb = {.on_delta = count_delta};
		uint64_t c[3] = {0, 0, 0};
		struct frc_record r;

		pipeline_config_default(&cfg);
		ck_assert_ptr_null(cfg.tracker_name);
		cfg.tracker_name = names[k];
		ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, c), 0);
		for (uint64_t i = 0; i < 30; i++) {
			memset(&r, 0, sizeof(r));
			r.type = FRC_FRAME;
			r.ktime_ns = T0 + i * T60;
			r.u.frame.pid = 7;
			r.u.frame.buffer = 0xA000 + 0x1000 * (i % 3);
			r.u.frame.surface = 0x5000;
			ck_assert_int_eq(pipeline_feed(p, &r), 0);
		}
		ck_assert_uint_eq(c[0], k == 2 ? 29 : 9);
		ck_assert_uint_eq(c[1], k == 2 ? T60 : 3 * T60);
		ck_assert_uint_eq(c[2], 0x5000);
		pipeline_free(p);
	}
	cfg.tracker_name = "nope";
	ck_assert_int_eq(pipeline_new(&p, &cfg, NULL, NULL), -ENOENT);
	ck_assert_ptr_null(p);
}
END_TEST

void add_variant_cases(Suite *s)
{
	ADD_CASE(s, "variants_registry", test_registry);
	ADD_CASE(s, "variants_triple_buffering_60hz", test_triple_buffering_60hz);
	ADD_CASE(s, "variants_overlay_10fps", test_overlay_10fps);
	ADD_CASE(s, "variants_equal_rate_surfaces", test_equal_rate_surfaces);
	ADD_CASE(s, "variants_equal_rate_larger_first", test_equal_rate_larger_first);
	ADD_CASE(s, "variants_pause_with_overlay", test_pause_with_overlay);
	ADD_CASE(s, "variants_surface_change_stale", test_surface_change_stale);
	ADD_CASE(s, "variants_surface_change_lag", test_surface_change_lag);
	ADD_CASE(s, "variants_pause_and_realloc", test_pause_and_realloc);
	ADD_CASE(s, "variants_surface_zero_is_process", test_surface_zero_is_process);
	ADD_CASE(s, "variants_main_surface_lru", test_main_surface_lru);
	ADD_CASE(s, "variants_pipeline_tracker_name", test_pipeline_tracker_name);
}
