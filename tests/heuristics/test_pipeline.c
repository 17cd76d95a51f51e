/* SPDX-License-Identifier: MIT */
/*
 * test_pipeline.c - the pipeline: trackers per PID, attach/exit, ticks (recorded and
 * synthesized), callbacks, frame seq numbers. Expected event logs are written out by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline.h"
#include "test_heuristics.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* The callbacks append one line per event to a log that the test compares literally. */
struct log {
	char text[4096];
	size_t len;
	const struct frc_record *last_tick;
};

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	struct log *l = ctx;

	l->len += (size_t)snprintf(l->text + l->len, sizeof(l->text) - l->len,
				   "D pid=%u seq=%llu t=%llu buf=%#llx delta=%llu\n", d->pid,
				   (unsigned long long)d->seq, (unsigned long long)d->ktime_ns,
				   (unsigned long long)d->buffer, (unsigned long long)d->delta_ns);
	ck_assert_uint_lt(l->len, sizeof(l->text));
}

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	struct log *l = ctx;
	static const char *const names[] = {"none", "sysfs", "ebpf"};

	l->last_tick = r->tick;
	ck_assert_int_eq(r->reading.valid, r->reading.source != FRC_SOURCE_NONE);
	l->len += (size_t)snprintf(
	    l->text + l->len, sizeof(l->text) - l->len, "R t=%llu %s %llu%s\n",
	    (unsigned long long)r->tick_ns, names[r->reading.source],
	    r->reading.valid ? (unsigned long long)fps_to_micro(r->reading.fps) : 0ull,
	    r->tick ? " rec" : "");
	ck_assert_uint_lt(l->len, sizeof(l->text));
}

static struct pipeline *new_pipeline(struct log *l, bool has_sysfs, bool synth)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p;

	memset(l, 0, sizeof(*l));
	pipeline_config_default(&cfg);
	cfg.has_sysfs = has_sysfs;
	cfg.synthesize_ticks = synth;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, l), 0);
	return p;
}

static void feed(struct pipeline *p, const struct frc_record *r)
{
	ck_assert_int_eq(pipeline_feed(p, r), 0);
}

static void frame(struct pipeline *p, uint64_t t, uint32_t pid, uint64_t buffer)
{
	struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};

	r.u.frame.pid = pid;
	r.u.frame.tid = pid;
	r.u.frame.buffer = buffer;
	feed(p, &r);
}

static void sysfs_text(struct pipeline *p, uint64_t t, const char *text)
{
	struct frc_record r = {.type = FRC_SYSFS, .ktime_ns = t};

	r.u.sysfs.len = (uint16_t)strlen(text);
	memcpy(r.u.sysfs.raw, text, r.u.sysfs.len);
	feed(p, &r);
}

static void sysfs_errno(struct pipeline *p, uint64_t t, int err)
{
	struct frc_record r = {.type = FRC_SYSFS, .ktime_ns = t};

	r.u.sysfs.err = err;
	feed(p, &r);
}

static void pid_event(struct pipeline *p, uint8_t type, uint64_t t, uint32_t pid)
{
	struct frc_record r = {.type = type, .ktime_ns = t};

	if (type == FRC_ATTACH)
		r.u.attach.pid = pid;
	else
		r.u.exit.pid = pid;
	feed(p, &r);
}

static void drops(struct pipeline *p, uint64_t t, uint64_t cumulative)
{
	struct frc_record r = {.type = FRC_DROPS, .ktime_ns = t};

	r.u.drops.cumulative = cumulative;
	feed(p, &r);
}

static void expect_log(const struct log *l, const char *expected)
{
	ck_assert_str_eq(l->text, expected);
}

/* Each PID has its own tracker: the same pointer in two PIDs is two buffers. */
START_TEST(test_tracker_per_pid)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, false, false);
	struct pipeline_stats st;

	frame(p, 1000 * MS, 100, 0xA000); /* seq 0: pid 100 first sighting */
	frame(p, 1005 * MS, 200, 0xA000); /* seq 1: pid 200 first sighting (not a 5 ms delta) */
	frame(p, 1010 * MS, 100, 0xA000); /* seq 2: 1010 - 1000 = 10 ms */
	frame(p, 1025 * MS, 200, 0xA000); /* seq 3: 1025 - 1005 = 20 ms */
	expect_log(&l, "D pid=100 seq=2 t=1010000000 buf=0xa000 delta=10000000\n"
		       "D pid=200 seq=3 t=1025000000 buf=0xa000 delta=20000000\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.records, 4);
	ck_assert_uint_eq(st.frames, 4);
	ck_assert_uint_eq(st.deltas, 2);
	ck_assert_uint_eq(st.trackers, 2);
	ck_assert_uint_eq(st.readings, 0);
	ck_assert_uint_eq(st.meter.deltas_pushed, 2);
	pipeline_free(p);
}
END_TEST

/* attach replaces a PID's tracker with a fresh one; exit forgets it. */
START_TEST(test_attach_exit)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, false, false);
	struct pipeline_stats st;

	frame(p, 0, 100, 0xA000);		/* seq 0 */
	frame(p, 10 * MS, 100, 0xA000);		/* seq 1: 10 ms */
	pid_event(p, FRC_ATTACH, 15 * MS, 100); /* fresh tracker */
	frame(p, 20 * MS, 100, 0xA000);		/* seq 2: first sighting again */
	frame(p, 30 * MS, 100, 0xA000);		/* seq 3: 10 ms */
	pid_event(p, FRC_EXIT, 35 * MS, 100);	/* forgotten */
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.trackers, 0);
	frame(p, 40 * MS, 100, 0xA000);		/* seq 4: a new tracker, first sighting */
	frame(p, 45 * MS, 100, 0xA000);		/* seq 5: 5 ms */
	pid_event(p, FRC_ATTACH, 50 * MS, 300); /* a tracker before any frame */
	pid_event(p, FRC_EXIT, 55 * MS, 999);	/* an unknown PID: nothing */
	expect_log(&l, "D pid=100 seq=1 t=10000000 buf=0xa000 delta=10000000\n"
		       "D pid=100 seq=3 t=30000000 buf=0xa000 delta=10000000\n"
		       "D pid=100 seq=5 t=45000000 buf=0xa000 delta=5000000\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.trackers, 2);
	ck_assert_uint_eq(st.frames, 6);
	ck_assert_uint_eq(st.records, 10);
	pipeline_free(p);
}
END_TEST

/* seq counts frame records of all PIDs, not records, not deltas. */
START_TEST(test_seq_numbering)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, false, false);

	pid_event(p, FRC_ATTACH, 0, 1);
	frame(p, 1 * MS, 1, 0x10); /* seq 0 */
	sysfs_text(p, 2 * MS, "60");
	frame(p, 3 * MS, 2, 0x10); /* seq 1 */
	drops(p, 4 * MS, 0);
	frame(p, 5 * MS, 1, 0x10); /* seq 2: 4 ms */
	frame(p, 6 * MS, 1, 0x20); /* seq 3: first sighting */
	frame(p, 8 * MS, 2, 0x10); /* seq 4: 5 ms */
	expect_log(&l, "D pid=1 seq=2 t=5000000 buf=0x10 delta=4000000\n"
		       "D pid=2 seq=4 t=8000000 buf=0x10 delta=5000000\n");
	pipeline_free(p);
}
END_TEST

/*
 * A tick record reads the meter at its ktime and hands the record to on_reading; drops
 * records set the counter. The meter is created at the first record (a sysfs one here,
 * t0 = 10 s) and has_sysfs comes from the config.
 */
START_TEST(test_tick_records)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, true, false);
	struct frc_record tick = {.type = FRC_TICK};
	struct pipeline_stats st;

	sysfs_text(p, 10 * SEC, "60\n"); /* t0 = 10 s */
	/* One buffer every 20 ms from 10.02 s to 11.00 s: 49 deltas of 20 ms. */
	for (uint64_t t = 10020 * MS; t <= 11000 * MS; t += 20 * MS)
		frame(p, t, 7, 0xB0);
	l.len = 0;
	l.text[0] = '\0';
	/* 11 s: within 2 s of t0: cached none -> eBPF: 30 x 20 ms = 50 fps. */
	tick.ktime_ns = 11 * SEC;
	feed(p, &tick);
	ck_assert_ptr_eq(l.last_tick, &tick);
	tick.ktime_ns = 12 * SEC - 1; /* still the first 2 s: eBPF */
	feed(p, &tick);
	tick.ktime_ns = 12 * SEC; /* poll: sysfs 60 */
	feed(p, &tick);
	sysfs_errno(p, 13 * SEC, EIO);
	drops(p, 13 * SEC, 7);
	tick.ktime_ns = 14 * SEC; /* poll: EIO -> eBPF: last frame drained at 11 s: 3 s: none */
	feed(p, &tick);
	drops(p, 15 * SEC, 9);
	expect_log(&l, "R t=11000000000 ebpf 50000000 rec\n"
		       "R t=11999999999 ebpf 50000000 rec\n"
		       "R t=12000000000 sysfs 60000000 rec\n"
		       "R t=14000000000 none 0 rec\n");
	ck_assert_int_eq(pipeline_finish(p), 0); /* no synthesized ticks */
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.readings, 4);
	ck_assert_uint_eq(st.ticks_synthesized, 0);
	ck_assert_uint_eq(st.drops, 9);
	ck_assert_uint_eq(st.meter.sysfs_polls, 2);
	ck_assert_uint_eq(st.meter.sysfs_invalid, 1);
	pipeline_free(p);
}
END_TEST

/* has_sysfs with no sysfs record yet: the node reads as a read error at the first poll. */
START_TEST(test_sysfs_before_first_sample)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, true, false);
	struct frc_record tick = {.type = FRC_TICK, .ktime_ns = 12 * SEC};
	struct pipeline_stats st;

	frame(p, 10 * SEC, 1, 0x10); /* t0 = 10 s */
	feed(p, &tick);
	expect_log(&l, "R t=12000000000 none 0 rec\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.meter.sysfs_polls, 1);
	ck_assert_uint_eq(st.meter.sysfs_invalid, 1);
	pipeline_free(p);
}
END_TEST

/*
 * Synthesized ticks at t0 + k s (k >= 1), in time order with the records: before a record
 * at k_r every tick T < k_r is read; a non-monotonic record emits none; finish emits the
 * ticks T <= the largest ktime. One PID, one buffer; t0 = 5 s; ticks 6, 7, 8, 9 s.
 *   seq 0  5.00 s  first sighting
 *   seq 1  5.98 s  980 ms delta (filtered by the meter)
 *   seq 2  6.00 s  20 ms: T = 6 s is not < 6.00 s, so the 6 s tick comes after it
 *   seq 3  6.50 s  tick 6 s first: drains 980 (filtered), 20 -> 50 fps; then 500 ms delta
 *   seq 4  8.20 s  ticks 7 s, 8 s (ring {20 ms}, last frame 6 s: 50 fps), then 1700 ms
 *   seq 5  7.50 s  non-monotonic: 0 delta, no tick
 *   seq 6  9.00 s  9 s - 7.5 s = 1500 ms; 9 s is not < 9 s: no tick
 *   finish         tick 9 s: 9 - 6 = 3 s without a kept delta: none
 */
START_TEST(test_synthesized_ticks)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, false, true);
	struct pipeline_stats st;

	frame(p, 5000 * MS, 1, 0x10);
	frame(p, 5980 * MS, 1, 0x10);
	frame(p, 6000 * MS, 1, 0x10);
	frame(p, 6500 * MS, 1, 0x10);
	frame(p, 8200 * MS, 1, 0x10);
	frame(p, 7500 * MS, 1, 0x10);
	frame(p, 9000 * MS, 1, 0x10);
	ck_assert_int_eq(pipeline_finish(p), 0);
	ck_assert_int_eq(pipeline_finish(p), 0); /* idempotent */
	expect_log(&l, "D pid=1 seq=1 t=5980000000 buf=0x10 delta=980000000\n"
		       "D pid=1 seq=2 t=6000000000 buf=0x10 delta=20000000\n"
		       "R t=6000000000 ebpf 50000000\n"
		       "D pid=1 seq=3 t=6500000000 buf=0x10 delta=500000000\n"
		       "R t=7000000000 ebpf 50000000\n"
		       "R t=8000000000 ebpf 50000000\n"
		       "D pid=1 seq=4 t=8200000000 buf=0x10 delta=1700000000\n"
		       "D pid=1 seq=6 t=9000000000 buf=0x10 delta=1500000000\n"
		       "R t=9000000000 none 0\n");
	ck_assert_ptr_null(l.last_tick);
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.readings, 4);
	ck_assert_uint_eq(st.ticks_synthesized, 4);
	pipeline_free(p);
}
END_TEST

/* A custom tick_ms, and a first record of another type than frame fixing t0. */
START_TEST(test_synthesized_tick_ms)
{
	struct log l;
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p;

	memset(&l, 0, sizeof(l));
	pipeline_config_default(&cfg);
	ck_assert_uint_eq(cfg.tick_ms, 1000);
	ck_assert(!cfg.has_sysfs);
	ck_assert(!cfg.synthesize_ticks);
	cfg.synthesize_ticks = true;
	cfg.tick_ms = 0;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &l), -EINVAL);
	cfg.tick_ms = 250;
	cfg.meter.window = 0; /* a bad meter config is refused up front too */
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &l), -EINVAL);
	cfg.meter.window = 30;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &l), 0);
	drops(p, 100 * MS, 0);			 /* t0 = 0.1 s: ticks 0.35, 0.6, 0.85 s */
	drops(p, 850 * MS, 0);			 /* ticks < 0.85: 0.35, 0.6 */
	ck_assert_int_eq(pipeline_finish(p), 0); /* <= 0.85: 0.85 */
	expect_log(&l, "R t=350000000 none 0\n"
		       "R t=600000000 none 0\n"
		       "R t=850000000 none 0\n");
	pipeline_free(p);
}
END_TEST

/*
 * max_synth_ticks: a record whose due ticks would exceed it fails with -EOVERFLOW and emits
 * none of them (max 3: the 1 s and 2 s ticks fit; 3, 4, 5 s for a record at 5.5 s do not).
 */
START_TEST(test_synth_tick_limit)
{
	struct log l;
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p;
	struct pipeline_stats st;
	struct frc_record r = {.type = FRC_DROPS, .ktime_ns = 5500 * MS};

	memset(&l, 0, sizeof(l));
	pipeline_config_default(&cfg);
	ck_assert_uint_eq(cfg.max_synth_ticks, 10000000);
	cfg.synthesize_ticks = true;
	cfg.max_synth_ticks = 3;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &l), 0);
	drops(p, 0, 0);
	drops(p, 2500 * MS, 0);
	ck_assert_int_eq(pipeline_feed(p, &r), -EOVERFLOW);
	ck_assert_int_eq(pipeline_finish(p), 0); /* largest ktime fed: 2.5 s; next tick 3 s */
	expect_log(&l, "R t=1000000000 none 0\n"
		       "R t=2000000000 none 0\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.ticks_synthesized, 2);
	ck_assert_uint_eq(st.records, 2);
	pipeline_free(p);
}
END_TEST

/*
 * Times near 2^64: t0 = 2^64 - 1 - 1.5 s, so the only tick is t0 + 1 s = 2^64 - 1 - 0.5 s =
 * 18446744073209551615; the next would be past 2^64 - 1 and does not exist (no wrap to a
 * tick near 0). Frames: 18446744073709551615 - 18446744072209551615 = 1.5 s delta.
 */
START_TEST(test_ktime_near_2_64)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, false, true);
	struct pipeline_stats st;

	frame(p, UINT64_MAX - 1500 * MS, 1, 0x10);
	frame(p, UINT64_MAX, 1, 0x10);
	ck_assert_int_eq(pipeline_finish(p), 0);
	frame(p, UINT64_MAX, 1, 0x10); /* zero delta, no tick */
	ck_assert_int_eq(pipeline_finish(p), 0);
	expect_log(&l, "R t=18446744073209551615 none 0\n"
		       "D pid=1 seq=1 t=18446744073709551615 buf=0x10 delta=1500000000\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.ticks_synthesized, 1);
	pipeline_free(p);
}
END_TEST

/*
 * Odd records the reader would never produce still do no harm: an unknown type is
 * counted and ignored; a sysfs len beyond the 255-byte buffer is clamped to it.
 */
START_TEST(test_odd_records)
{
	struct log l;
	struct pipeline *p = new_pipeline(&l, true, false);
	struct frc_record r = {.type = 99, .ktime_ns = 0};
	struct frc_record tick = {.type = FRC_TICK, .ktime_ns = 2 * SEC};
	struct pipeline_stats st;

	feed(p, &r); /* t0 = 0 */
	r.type = FRC_SYSFS;
	r.ktime_ns = 1 * SEC;
	memset(r.u.sysfs.raw, ' ', sizeof(r.u.sysfs.raw));
	memcpy(r.u.sysfs.raw, "60", 2);
	r.u.sysfs.len = 60000; /* read as 255 bytes: "60" and 253 spaces */
	feed(p, &r);
	feed(p, &tick);
	expect_log(&l, "R t=2000000000 sysfs 60000000 rec\n");
	/* display capture's records are known types, whether or not a heuristic reads them */
	static const uint8_t display[] = {FRC_LAYER, FRC_PRESENT, FRC_VSYNC, FRC_PRESENT_GAP,
					  FRC_POLL};
	for (size_t i = 0; i < sizeof(display); i++) {
		struct frc_record d = {.type = display[i], .ktime_ns = 3 * SEC};

		feed(p, &d);
	}
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.unknown, 1);
	ck_assert_uint_eq(st.records, 8);
	pipeline_free(p);
}
END_TEST

/* More PIDs than max_pids: the least recently seen PID's tracker is forgotten. */
START_TEST(test_max_pids)
{
	struct log l;
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p;
	struct pipeline_stats st;

	memset(&l, 0, sizeof(l));
	pipeline_config_default(&cfg);
	ck_assert_uint_eq(cfg.max_pids, 1024);
	cfg.max_pids = 2;
	ck_assert_int_eq(pipeline_new(&p, &cfg, &cb, &l), 0);
	frame(p, 0, 1, 0x10);
	frame(p, 1 * MS, 2, 0x10);
	frame(p, 2 * MS, 1, 0x10); /* pid 1: 2 ms; pid 2 is now the least recent */
	frame(p, 3 * MS, 3, 0x10); /* forgets pid 2 */
	frame(p, 4 * MS, 2, 0x10); /* pid 2 again: a first sighting (forgets pid 1) */
	frame(p, 5 * MS, 2, 0x10); /* 1 ms */
	expect_log(&l, "D pid=1 seq=2 t=2000000 buf=0x10 delta=2000000\n"
		       "D pid=2 seq=5 t=5000000 buf=0x10 delta=1000000\n");
	pipeline_stats(p, &st);
	ck_assert_uint_eq(st.trackers, 2);
	ck_assert_uint_eq(st.trackers_evicted, 2);
	pipeline_free(p);
}
END_TEST

void add_pipeline_cases(Suite *s)
{
	ADD_CASE(s, "pipeline_tracker_per_pid", test_tracker_per_pid);
	ADD_CASE(s, "pipeline_attach_exit", test_attach_exit);
	ADD_CASE(s, "pipeline_seq_numbering", test_seq_numbering);
	ADD_CASE(s, "pipeline_tick_records", test_tick_records);
	ADD_CASE(s, "pipeline_sysfs_before_first_sample", test_sysfs_before_first_sample);
	ADD_CASE(s, "pipeline_synthesized_ticks", test_synthesized_ticks);
	ADD_CASE(s, "pipeline_synthesized_tick_ms", test_synthesized_tick_ms);
	ADD_CASE(s, "pipeline_synth_tick_limit", test_synth_tick_limit);
	ADD_CASE(s, "pipeline_max_pids", test_max_pids);
	ADD_CASE(s, "pipeline_ktime_near_2_64", test_ktime_near_2_64);
	ADD_CASE(s, "pipeline_odd_records", test_odd_records);
}
