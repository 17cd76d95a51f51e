/* SPDX-License-Identifier: MIT */
/*
 * test_tracker.c - Kala's FrameTracker, one test per step of issue 3.
 * Every expected number is worked out by hand in the comments next to it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "test_heuristics.h"
#include "tracker.h"

static struct tracker *new_tracker(uint32_t history, uint32_t max_buffers)
{
	struct tracker_config cfg;
	struct tracker *t;

	tracker_config_default(&cfg);
	if (history)
		cfg.history = history;
	if (max_buffers)
		cfg.max_buffers = max_buffers;
	ck_assert_int_eq(tracker_new(&t, &cfg), 0);
	return t;
}

/* Feeds one call and asserts that it returns nothing. */
static void expect_none(struct tracker *t, uint64_t ktime, uint64_t buffer)
{
	uint64_t d = 12345;

	ck_assert_msg(!tracker_record(t, ktime, buffer, &d), "t=%llu buffer=%#llx returned %llu",
		      (unsigned long long)ktime, (unsigned long long)buffer, (unsigned long long)d);
}

/* Feeds one call and asserts that it returns `delta`. */
static void expect_delta(struct tracker *t, uint64_t ktime, uint64_t buffer, uint64_t delta)
{
	uint64_t d = 0;

	ck_assert_msg(tracker_record(t, ktime, buffer, &d), "t=%llu buffer=%#llx returned nothing",
		      (unsigned long long)ktime, (unsigned long long)buffer);
	ck_assert_uint_eq(d, delta);
}

START_TEST(test_config)
{
	struct tracker_config cfg;
	struct tracker *t = (struct tracker *)1;

	tracker_config_default(&cfg);
	ck_assert_uint_eq(cfg.history, 144);
	ck_assert_uint_eq(cfg.max_buffers, 1024);
	cfg.history = 0;
	ck_assert_int_eq(tracker_new(&t, &cfg), -EINVAL);
	ck_assert_ptr_null(t);
	cfg.history = 144;
	cfg.max_buffers = 0;
	ck_assert_int_eq(tracker_new(&t, &cfg), -EINVAL);
}
END_TEST

/* Step 1: the first call for a buffer only remembers its time. */
START_TEST(test_first_sighting)
{
	struct tracker *t = new_tracker(0, 0);
	struct tracker_stats st;

	expect_none(t, 1000000, 0xA000);
	/* The second call for 0xA000: 17000000 - 1000000 = 16000000, the only buffer. */
	expect_delta(t, 17000000, 0xA000, 16000000);
	/* 0xB000 is new: nothing, even though another buffer has history. */
	expect_none(t, 18000000, 0xB000);
	tracker_stats(t, &st);
	ck_assert_uint_eq(st.records, 3);
	ck_assert_uint_eq(st.deltas, 1);
	ck_assert_uint_eq(st.buffers, 2);
	ck_assert_uint_eq(st.buffers_evicted, 0);
	tracker_free(t);
}
END_TEST

/* Step 2: an earlier time than last_ns gives delta 0, and last_ns follows it back. */
START_TEST(test_saturating_delta)
{
	struct tracker *t = new_tracker(0, 0);

	expect_none(t, 5000, 0xA000);
	/* 3000 < 5000: delta 0 (not a wrapped 2^64 - 2000), nothing; last_ns = 3000. */
	expect_none(t, 3000, 0xA000);
	/* From 3000, not from 5000: 4000 - 3000 = 1000. */
	expect_delta(t, 4000, 0xA000, 1000);
	tracker_free(t);
}
END_TEST

/* Step 3: a zero delta returns nothing and is not appended to the ring. */
START_TEST(test_zero_delta)
{
	struct tracker *t = new_tracker(0, 0);

	/* 0xB000 (smaller pointer) gets 1 delta of 100. */
	expect_none(t, 100, 0xA000);
	expect_none(t, 200, 0xB000);
	expect_delta(t, 300, 0xB000, 100); /* B: 1 delta, sum 100; A: 0 deltas */
	/* Two zero deltas for A. Were they appended, A would hold 2 deltas with sum 0. */
	expect_none(t, 100, 0xA000);
	expect_none(t, 100, 0xA000);
	/*
	 * B: 400 - 300 = 100, now 2 deltas, sum 200. A has 0 deltas, so B is active and its
	 * delta comes out. (With the zeros appended A would tie at 2 with sum 0 and win.)
	 */
	expect_delta(t, 400, 0xB000, 100);
	tracker_free(t);
}
END_TEST

/*
 * Step 4: the ring keeps the newest 144 deltas and sum_ns is their sum.
 *
 * A = 0xA000 gets 145 deltas 1000, 2000, ..., 145000 (each returned: A is alone until then).
 * Its ring then holds 2000..145000: sum = (145*146/2 - 1) * 1000 = 10584000
 * (all 145 would be 10585000, and 145 deltas would outrank any 144).
 * B = 0xB000 (larger pointer) then gets 143 deltas of 74000 and one of 2001: 144 deltas,
 * sum 143*74000 + 2001 = 10582000 + 2001 = 10584001 > 10584000, so A stays active and B's
 * 144th delta gives nothing (with an unbounded or mis-summed A ring, the outcome would
 * differ: A's sum 10585000 would lose to B).
 * B's 145th delta, 73998, evicts its oldest 74000: sum 10584001 - 74000 + 73998 =
 * 10583999 < 10584000, so B becomes active and 73998 comes out.
 */
START_TEST(test_ring_144)
{
	struct tracker *t = new_tracker(0, 0);
	uint64_t ta = 1000000, tb = 100000000;

	expect_none(t, ta, 0xA000);
	for (uint64_t k = 1; k <= 145; k++) {
		ta += k * 1000;
		expect_delta(t, ta, 0xA000, k * 1000);
	}
	expect_none(t, tb, 0xB000);
	for (int k = 1; k <= 143; k++) {
		tb += 74000;
		expect_none(t, tb, 0xB000); /* B has fewer deltas than A's 144 */
	}
	tb += 2001;
	expect_none(t, tb, 0xB000); /* 144 each; 10584001 > 10584000 */
	tb += 73998;
	expect_delta(t, tb, 0xB000, 73998); /* 10583999 < 10584000 */
	tracker_free(t);
}
END_TEST

/*
 * Steps 5 and 6 under triple buffering: three buffers round-robin at 60 Hz.
 *
 * Call i (i = 0..599) happens at t_i = round(i * 1e9 / 60) ns = (i * 1e9 + 30) / 60:
 * 0, 16666667, 33333333, 50000000, 66666667, ... with buffer A = 0x7f00a000 for i % 3 == 0,
 * B = 0x7f008000 for i % 3 == 1, C = 0x7f00c000 for i % 3 == 2. Pointer order: B < A < C.
 * t_{i+3} - t_i = 3e9 / 60 = 50000000 exactly, so every buffer's own delta is 50000000 ns
 * and the sums only ever tie: the pointer decides among equal counts.
 *  - i = 0, 1, 2: first sightings, nothing.
 *  - i = 3k (A, k >= 1): A now holds k deltas, B and C k - 1: A has the most, comes out.
 *  - i = 3k+1 (B): B holds k, ties with A (same sum); B's pointer is smaller: comes out.
 *  - i = 3k+2 (C): ties with A and B, largest pointer: never comes out.
 * Once the rings are full (A's 144th delta is at i = 432, B's at 433, C's at 434), A's
 * next delta (i = 435) no longer raises its count: A ties with B at 144 deltas, sum
 * 144 * 50000000, and B's smaller pointer wins, so from i = 435 on only B comes out.
 * Deltas out: A at i = 3, 6, ..., 432 (144), B at i = 4, 7, ..., 598 (199): 343.
 */
START_TEST(test_triple_buffering_60hz)
{
	static const uint64_t bufs[3] = {0x7f00a000, 0x7f008000, 0x7f00c000};
	struct tracker *t = new_tracker(0, 0);
	struct tracker_stats st;
	uint64_t out = 0;

	ck_assert_uint_eq((3ull * 1000000000 + 30) / 60, 50000000); /* t_3, a spot check */
	for (uint64_t i = 0; i < 600; i++) {
		uint64_t ktime = (i * 1000000000ull + 30) / 60;
		bool a_out = i % 3 == 0 && i >= 3 && i <= 432;
		bool b_out = i % 3 == 1 && i >= 4;

		if (a_out || b_out) {
			expect_delta(t, ktime, bufs[i % 3], 50000000);
			out++;
		} else {
			expect_none(t, ktime, bufs[i % 3]);
		}
	}
	tracker_stats(t, &st);
	ck_assert_uint_eq(out, 343);
	ck_assert_uint_eq(st.deltas, 343);
	ck_assert_uint_eq(st.buffers, 3);
	tracker_free(t);
}
END_TEST

/*
 * Step 5, first tie-break: equal counts, the smaller sum_ns wins over the smaller pointer.
 * A = 0x2000, B = 0x1000.
 */
START_TEST(test_tie_smallest_sum)
{
	struct tracker *t = new_tracker(0, 0);

	expect_none(t, 0, 0x2000);
	expect_delta(t, 10, 0x2000, 10); /* A: 1 delta, sum 10 */
	expect_none(t, 100, 0x1000);
	expect_delta(t, 109, 0x1000, 9);  /* B: 1, sum 9 < 10: B */
	expect_delta(t, 21, 0x2000, 11);  /* A: 2, sum 21: most deltas */
	expect_delta(t, 120, 0x1000, 11); /* B: 2, sum 20 < 21: B */
	expect_delta(t, 30, 0x2000, 9);	  /* A: 3, sum 30 */
	/* B: 3, sum 31 > 30: A stays active although B's pointer is smaller. */
	expect_none(t, 131, 0x1000);
	tracker_free(t);
}
END_TEST

/*
 * Step 5, second tie-break: equal counts and sums, the smaller pointer wins. With history
 * 2 both rings fill up, so neither can get ahead on count. A = 0x2000, B = 0x1000.
 */
START_TEST(test_tie_smallest_pointer)
{
	struct tracker *t = new_tracker(2, 0);

	expect_none(t, 0, 0x2000);
	expect_delta(t, 10, 0x2000, 10); /* A: 1, sum 10 */
	expect_delta(t, 20, 0x2000, 10); /* A: 2 (full), sum 20 */
	expect_none(t, 100, 0x1000);
	expect_none(t, 110, 0x1000);	  /* B: 1 < 2 */
	expect_delta(t, 120, 0x1000, 10); /* B: 2, sum 20: tie, 0x1000 < 0x2000: B */
	expect_none(t, 30, 0x2000);	  /* A: still 2, sum 10 + 10 = 20: tie, B wins */
	expect_delta(t, 130, 0x1000, 10); /* B */
	expect_none(t, 40, 0x2000);
	tracker_free(t);
}
END_TEST

/*
 * The bound: at most max_buffers (1024) buffers; a new one beyond that forgets the least
 * recently seen (any call counts as a sighting). Buffer k = 0x1000 * (k + 1), first seen at
 * time k (k = 0..1023).
 */
START_TEST(test_max_buffers_lru)
{
	struct tracker *t = new_tracker(0, 0);
	struct tracker_stats st;

	for (uint64_t k = 0; k < 1024; k++)
		expect_none(t, k, 0x1000 * (k + 1));
	tracker_stats(t, &st);
	ck_assert_uint_eq(st.buffers, 1024);
	ck_assert_uint_eq(st.buffers_evicted, 0);
	/* Buffer 0 seen again: 2000 - 0 = 2000, the only buffer with a delta. */
	expect_delta(t, 2000, 0x1000, 2000);
	/* Buffer 1024 is new: forgets buffer 1 (seen at t=1; buffer 0 was just seen). */
	expect_none(t, 2500, 0x1000 * 1025);
	tracker_stats(t, &st);
	ck_assert_uint_eq(st.buffers, 1024);
	ck_assert_uint_eq(st.buffers_evicted, 1);
	/* Buffer 1 is new again: nothing (remembered, it would be a 2999 delta); forgets 2. */
	expect_none(t, 3000, 0x2000);
	/* Buffer 1: 3100 - 3000 = 100; 1 delta, sum 100 < buffer 0's 2000: active. */
	expect_delta(t, 3100, 0x2000, 100);
	/* Buffer 0 was kept: 4000 - 2000 = 2000, now 2 deltas: active. */
	expect_delta(t, 4000, 0x1000, 2000);
	/* Buffer 2 was forgotten: a first sighting again (forgets buffer 3). */
	expect_none(t, 5000, 0x3000);
	tracker_stats(t, &st);
	ck_assert_uint_eq(st.buffers, 1024);
	ck_assert_uint_eq(st.buffers_evicted, 3);
	tracker_free(t);
}
END_TEST

/*
 * A differential check of the heap/LRU bookkeeping (in addition to the literal cases
 * above): a naive model that scans every buffer on every call, written independently
 * here, must agree with the tracker on 200000 pseudo-random calls. Small history (5),
 * small bound (16 of 40 pointers) and tiny deltas (0..3 ns, sometimes backwards) make
 * ties, ring eviction and LRU eviction frequent.
 */
#define REF_HISTORY 5
#define REF_MAX 16

struct ref_buf {
	uint64_t buffer, last_ns, sum, seen;
	uint64_t ring[REF_HISTORY]; /* ring[0] is the oldest */
	uint32_t count;
};

struct ref {
	struct ref_buf b[REF_MAX];
	uint32_t n;
	uint64_t clock; /* sighting counter for LRU */
	uint64_t evicted;
};

static bool ref_record(struct ref *r, uint64_t ktime, uint64_t buffer, uint64_t *out)
{
	struct ref_buf *s = NULL;
	uint32_t best = 0;

	r->clock++;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->b[i].buffer == buffer)
			s = &r->b[i];
	if (!s) {
		if (r->n == REF_MAX) {
			uint32_t lru = 0;

			for (uint32_t i = 1; i < r->n; i++)
				if (r->b[i].seen < r->b[lru].seen)
					lru = i;
			r->b[lru] = r->b[--r->n];
			r->evicted++;
		}
		s = &r->b[r->n++];
		memset(s, 0, sizeof(*s));
		s->buffer = buffer;
		s->last_ns = ktime;
		s->seen = r->clock;
		return false;
	}
	s->seen = r->clock;
	uint64_t delta = ktime > s->last_ns ? ktime - s->last_ns : 0;

	s->last_ns = ktime;
	if (delta == 0)
		return false;
	if (s->count == REF_HISTORY) {
		s->sum -= s->ring[0];
		memmove(s->ring, s->ring + 1, (REF_HISTORY - 1) * sizeof(s->ring[0]));
		s->count--;
	}
	s->ring[s->count++] = delta;
	s->sum += delta;
	for (uint32_t i = 1; i < r->n; i++) {
		const struct ref_buf *a = &r->b[i], *b = &r->b[best];

		if (a->count > b->count ||
		    (a->count == b->count &&
		     (a->sum < b->sum || (a->sum == b->sum && a->buffer < b->buffer))))
			best = i;
	}
	if (&r->b[best] != s)
		return false;
	*out = delta;
	return true;
}

START_TEST(test_matches_reference_scan)
{
	struct tracker *t = new_tracker(REF_HISTORY, REF_MAX);
	static struct ref r;
	struct tracker_stats st;
	uint64_t x = 0x2545F4914F6CDD1Dull, ktime = 1000000, returned = 0;

	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 200000; i++) {
		uint64_t d_t = 0, d_r = 0;
		bool got_t, got_r;

		x ^= x << 13; /* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		ktime = (x >> 20) % 16 == 0 ? ktime - 2 : ktime + (x >> 8) % 4;
		uint64_t buffer = 0x1000 * (1 + (x >> 32) % 40);

		got_t = tracker_record(t, ktime, buffer, &d_t);
		got_r = ref_record(&r, ktime, buffer, &d_r);
		ck_assert_msg(got_t == got_r && d_t == d_r,
			      "call %d: tracker %d/%llu, model %d/%llu", i, got_t,
			      (unsigned long long)d_t, got_r, (unsigned long long)d_r);
		returned += got_t;
	}
	tracker_stats(t, &st);
	ck_assert_uint_eq(st.buffers_evicted, r.evicted);
	/* The run must exercise what it claims to. */
	ck_assert_uint_gt(r.evicted, 1000);
	ck_assert_uint_gt(returned, 1000);
	tracker_free(t);
}
END_TEST

void add_tracker_cases(Suite *s)
{
	ADD_CASE(s, "tracker_config", test_config);
	ADD_CASE(s, "tracker_first_sighting", test_first_sighting);
	ADD_CASE(s, "tracker_saturating_delta", test_saturating_delta);
	ADD_CASE(s, "tracker_zero_delta", test_zero_delta);
	ADD_CASE(s, "tracker_ring_144", test_ring_144);
	ADD_CASE(s, "tracker_triple_buffering_60hz", test_triple_buffering_60hz);
	ADD_CASE(s, "tracker_tie_smallest_sum", test_tie_smallest_sum);
	ADD_CASE(s, "tracker_tie_smallest_pointer", test_tie_smallest_pointer);
	ADD_CASE(s, "tracker_max_buffers_lru", test_max_buffers_lru);
	ADD_CASE(s, "tracker_matches_reference_scan", test_matches_reference_scan);
}
