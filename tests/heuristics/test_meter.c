/* SPDX-License-Identifier: MIT */
/*
 * test_meter.c - Auriya's FpsMeter, one test per rule of issue 3.
 * Every expected number is worked out by hand in the comments next to it.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fps_meter.h"
#include "test_heuristics.h"

#define MS 1000000ull
#define SEC 1000000000ull

static struct fps_meter *new_meter(uint64_t t0, bool has_sysfs)
{
	struct fps_meter_config cfg;
	struct fps_meter *m;

	fps_meter_config_default(&cfg);
	ck_assert_int_eq(fps_meter_new(&m, &cfg, t0, has_sysfs), 0);
	return m;
}

static void set_text(struct fps_meter *m, const char *text)
{
	fps_meter_set_sysfs(m, 0, (const uint8_t *)text, strlen(text));
}

static void push_n(struct fps_meter *m, int n, uint64_t delta)
{
	for (int i = 0; i < n; i++)
		fps_meter_push_delta(m, delta);
}

/* Reads at now and asserts the reading: source and fps_to_micro(fps). */
static void expect_reading(struct fps_meter *m, uint64_t now, enum frc_source source,
			   uint64_t fps_micro)
{
	struct fps_reading r = fps_meter_read(m, now);

	ck_assert_msg(r.source == source, "now=%llu: source %d, expected %d",
		      (unsigned long long)now, r.source, source);
	ck_assert_int_eq(r.valid, source != FRC_SOURCE_NONE);
	if (source != FRC_SOURCE_NONE)
		ck_assert_msg(fps_to_micro(r.fps) == fps_micro, "now=%llu: %.9f fps, expected %llu",
			      (unsigned long long)now, r.fps, (unsigned long long)fps_micro);
}

static void expect_none(struct fps_meter *m, uint64_t now)
{
	expect_reading(m, now, FRC_SOURCE_NONE, 0);
}

START_TEST(test_config)
{
	struct fps_meter_config cfg;
	struct fps_meter *m = (struct fps_meter *)1;

	fps_meter_config_default(&cfg);
	ck_assert_uint_eq(cfg.sysfs_poll_ns, 2000000000ull);
	ck_assert_uint_eq(cfg.ebpf_timeout_ns, 3000000000ull);
	ck_assert_uint_eq(cfg.max_delta_ns, 500000000ull);
	ck_assert_uint_eq(cfg.window, 30);
	ck_assert_uint_eq(cfg.channel_capacity, 4096);
	ck_assert(cfg.fps_max == 500.0);
	cfg.window = 0;
	ck_assert_int_eq(fps_meter_new(&m, &cfg, 0, false), -EINVAL);
	ck_assert_ptr_null(m);
	cfg.window = 30;
	cfg.fps_max = NAN;
	ck_assert_int_eq(fps_meter_new(&m, &cfg, 0, false), -EINVAL);
}
END_TEST

/* fps_to_micro = llround(fps * 1e6). */
START_TEST(test_fps_to_micro)
{
	ck_assert_uint_eq(fps_to_micro(60.0), 60000000);
	ck_assert_uint_eq(fps_to_micro(500.0), 500000000);
	ck_assert_uint_eq(fps_to_micro(47.61904761904762), 47619048); /* 47619047.619... */
	ck_assert_uint_eq(fps_to_micro(2.000000004), 2000000);	      /* 2000000.004 */
	ck_assert_uint_eq(fps_to_micro(0.25), 250000);
	ck_assert_uint_eq(fps_to_micro(0.0000015), 2); /* product rounds to 1.5; half away from 0 */
	ck_assert_uint_eq(fps_to_micro(0.0), 0);
	ck_assert_uint_eq(fps_to_micro(-1.0), 0);
	ck_assert_uint_eq(fps_to_micro(NAN), 0);
}
END_TEST

/*
 * The 2 s cache. t0 = 10 s, so last_poll = 10 s: for the first 2 s the cached value (none)
 * is the sysfs result even though the node holds "60\n"; with no eBPF frames: none.
 */
START_TEST(test_sysfs_cache_2s)
{
	struct fps_meter *m = new_meter(10 * SEC, true);
	struct fps_meter_stats st;

	set_text(m, "60\n");
	expect_none(m, 10 * SEC);
	expect_none(m, 12 * SEC - 1);
	/* 12 s - 10 s = 2 s, not < 2 s: poll, 60. */
	expect_reading(m, 12 * SEC, FRC_SOURCE_SYSFS, 60000000);
	set_text(m, "90");
	/* Polled at 12 s: until 14 s the cached 60, although the node says 90. */
	expect_reading(m, 14 * SEC - 1, FRC_SOURCE_SYSFS, 60000000);
	expect_reading(m, 14 * SEC, FRC_SOURCE_SYSFS, 90000000);
	/* Polled at 14 s, node now garbage: the 16 s poll gives none, the cache keeps 90 ... */
	set_text(m, "abc");
	expect_none(m, 16 * SEC);
	/* ... and a read within 2 s of that failed poll returns the cached 90 (by the rule). */
	expect_reading(m, 17 * SEC, FRC_SOURCE_SYSFS, 90000000);
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.reads, 7);
	ck_assert_uint_eq(st.sysfs_polls, 3);	/* 12 s, 14 s, 16 s */
	ck_assert_uint_eq(st.sysfs_invalid, 1); /* 16 s */
	fps_meter_free(m);
}
END_TEST

/* Until the first sample the node reads as a read error; an errno sample is one too. */
START_TEST(test_sysfs_read_error)
{
	struct fps_meter *m = new_meter(0, true);
	struct fps_meter_stats st;

	expect_none(m, 2 * SEC); /* polled, no sample yet */
	set_text(m, "60");
	expect_reading(m, 4 * SEC, FRC_SOURCE_SYSFS, 60000000);
	fps_meter_set_sysfs(m, EIO, NULL, 0);
	expect_none(m, 7 * SEC); /* polled: EIO; none is the sysfs result; no eBPF frames */
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.sysfs_polls, 3);
	ck_assert_uint_eq(st.sysfs_invalid, 2);
	fps_meter_free(m);
}
END_TEST

static bool parse(const char *text, double *v)
{
	return fps_parse_sysfs((const uint8_t *)text, strlen(text), v);
}

/* The parser alone: the grammar, no range check. */
START_TEST(test_parse_sysfs)
{
	static const char *const invalid[] = {
	    "",	   "   ",    "\n",  ".",   "+",	    "-",	"e5",	"1e",	    "1e+",
	    "abc", "nan",    "NaN", "inf", "-inf",  "infinity", "0x3c", "0X3C",	    "60x",
	    "6 0", "60 fps", "--1", "+-1", "1.2.3", "1e5.0",	"1,5",	"\xd9\xa6",
	};
	double v;

	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		ck_assert_msg(!parse(invalid[i], &v), "'%s' parsed", invalid[i]);
	/* An embedded NUL is not whitespace: "60\0" is not a number. */
	ck_assert(!fps_parse_sysfs((const uint8_t *)"60\0", 3, &v));
	ck_assert(!fps_parse_sysfs(NULL, 0, &v));

	ck_assert(parse("60", &v) && v == 60.0);
	ck_assert(parse("60\n", &v) && v == 60.0);
	ck_assert(parse(" \t60.0\r\n", &v) && v == 60.0);
	ck_assert(parse("+60", &v) && v == 60.0);
	ck_assert(parse("59.94", &v) && v == 59.94);
	ck_assert(parse("5.", &v) && v == 5.0);
	ck_assert(parse(".5", &v) && v == 0.5);
	ck_assert(parse("6e1", &v) && v == 60.0);
	ck_assert(parse("6000E-2", &v) && v == 60.0);
	ck_assert(parse("0.06e+3", &v) && v == 60.0);
	ck_assert(parse("0060", &v) && v == 60.0);
	/* Valid numbers that the range (0, 500] rejects later. */
	ck_assert(parse("0", &v) && v == 0.0);
	ck_assert(parse("-1", &v) && v == -1.0);
	ck_assert(parse("500.0001", &v) && v == 500.0001);
	ck_assert(parse("1e999999999999", &v) && isinf(v));
	ck_assert(parse("1e-999999999999", &v) && v == 0.0);
}
END_TEST

/* Each text of the issue as the node's content, read at the first poll (2 s after t0). */
START_TEST(test_sysfs_texts)
{
	static const char *const rejected[] = {"",    "0",   "-1",  "500.0001",
					       "abc", "nan", "inf", "0x3c"};

	for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
		struct fps_meter *m = new_meter(0, true);
		struct fps_meter_stats st;

		set_text(m, rejected[i]);
		expect_none(m, 2 * SEC);
		fps_meter_stats(m, &st);
		ck_assert_msg(st.sysfs_invalid == 1, "'%s' accepted", rejected[i]);
		fps_meter_free(m);
	}

	struct fps_meter *m = new_meter(0, true);

	set_text(m, "60\n");
	expect_reading(m, 2 * SEC, FRC_SOURCE_SYSFS, 60000000);
	set_text(m, "500"); /* the upper bound is included */
	expect_reading(m, 4 * SEC, FRC_SOURCE_SYSFS, 500000000);
	set_text(m, "0.000001"); /* tiny but > 0 */
	expect_reading(m, 6 * SEC, FRC_SOURCE_SYSFS, 1);
	fps_meter_free(m);
}
END_TEST

/*
 * The 500 ms filter: a delta < 500000000 ns enters the ring; 500000000 does not.
 * Ring {10 ms, 30 ms}: 2 * 1e9 / 40000000 = 50 fps.
 */
START_TEST(test_ebpf_filter_500ms)
{
	struct fps_meter *m = new_meter(0, false);
	struct fps_meter_stats st;

	fps_meter_push_delta(m, 10 * MS);
	fps_meter_push_delta(m, 500 * MS);
	fps_meter_push_delta(m, 30 * MS);
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 50000000);
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.deltas_pushed, 3);
	ck_assert_uint_eq(st.deltas_kept, 2);
	fps_meter_free(m);

	/* 499999999 is kept: 1e9 / 499999999 = 2.000000004 fps -> 2000000 micro-FPS. */
	m = new_meter(0, false);
	fps_meter_push_delta(m, 500 * MS - 1);
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 2000000);
	fps_meter_free(m);
}
END_TEST

/* The ring keeps the newest 30 kept deltas. */
START_TEST(test_ebpf_ring_30)
{
	struct fps_meter *m = new_meter(0, false);

	push_n(m, 5, 10 * MS);
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 100000000); /* 5 x 10 ms: 100 fps */
	push_n(m, 30, 20 * MS);
	/* The five 10 ms are gone: 30 x 20 ms = 600 ms: 30e9 / 600e6 = 50 fps. */
	expect_reading(m, 2 * SEC, FRC_SOURCE_EBPF, 50000000);
	fps_meter_push_delta(m, 50 * MS);
	/* 29 x 20 ms + 50 ms = 630 ms: 30e9 / 630e6 = 47.619047619... -> 47619048. */
	expect_reading(m, 3 * SEC, FRC_SOURCE_EBPF, 47619048);
	fps_meter_free(m);
}
END_TEST

/* The (0, 500] range of a computed FPS. */
START_TEST(test_ebpf_range)
{
	struct fps_meter *m = new_meter(0, false);

	fps_meter_push_delta(m, 2 * MS);
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 500000000); /* 1e9 / 2e6 = 500: kept */
	fps_meter_free(m);
	m = new_meter(0, false);
	fps_meter_push_delta(m, 1 * MS);
	expect_none(m, 1 * SEC); /* 1e9 / 1e6 = 1000 > 500 */
	fps_meter_free(m);
}
END_TEST

/* No kept delta for 3 s: none. Deltas of 500 ms and more do not count as frames. */
START_TEST(test_ebpf_timeout_3s)
{
	struct fps_meter *m = new_meter(0, false);

	expect_none(m, 1 * SEC); /* ring empty */
	fps_meter_push_delta(m, 20 * MS);
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 50000000);	   /* last_ebpf_frame = 1 s */
	expect_reading(m, 4 * SEC - 1, FRC_SOURCE_EBPF, 50000000); /* 2.999999999 s */
	expect_none(m, 4 * SEC);				   /* 3 s */
	fps_meter_push_delta(m, 600 * MS);
	expect_none(m, 4500 * MS); /* filtered out: last_ebpf_frame stays 1 s */
	fps_meter_push_delta(m, 20 * MS);
	expect_reading(m, 5 * SEC, FRC_SOURCE_EBPF, 50000000); /* ring {20, 20} ms */
	fps_meter_free(m);
}
END_TEST

/*
 * The channel holds 4096 deltas between drains. One 10 ms delta followed by 4096 deltas
 * of 600 ms: the drain finds 4097, one lagged event losing the oldest (the 10 ms); the
 * 4096 left are all filtered, so the ring stays empty: none (without the lag: 100 fps).
 */
START_TEST(test_channel_lag_4096)
{
	struct fps_meter *m = new_meter(0, false);
	struct fps_meter_stats st;

	fps_meter_push_delta(m, 10 * MS);
	push_n(m, 4096, 600 * MS);
	expect_none(m, 1 * SEC);
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.lagged, 1);
	ck_assert_uint_eq(st.lagged_deltas, 1);
	ck_assert_uint_eq(st.deltas_kept, 0);

	/* Exactly 4096 since the last drain: no lag; the first one (10 ms) is drained. */
	fps_meter_push_delta(m, 10 * MS);
	push_n(m, 4095, 600 * MS);
	expect_reading(m, 2 * SEC, FRC_SOURCE_EBPF, 100000000);
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.lagged, 1);
	ck_assert_uint_eq(st.deltas_kept, 1);

	/* 5000 deltas: 904 x 10 ms then 4096 x 20 ms: lag of 904; 4096 kept, ring 30 x 20. */
	push_n(m, 904, 10 * MS);
	push_n(m, 4096, 20 * MS);
	expect_reading(m, 3 * SEC, FRC_SOURCE_EBPF, 50000000);
	fps_meter_stats(m, &st);
	ck_assert_uint_eq(st.lagged, 2);
	ck_assert_uint_eq(st.lagged_deltas, 905);
	ck_assert_uint_eq(st.deltas_kept, 4097);
	ck_assert_uint_eq(st.deltas_pushed, 1 + 4096 + 4096 + 5000);
	fps_meter_free(m);
}
END_TEST

/*
 * sysfs -> eBPF fallback -> sysfs. The eBPF channel is drained only when sysfs gave none,
 * so deltas pushed during sysfs readings wait in the channel.
 */
START_TEST(test_sysfs_ebpf_fallback)
{
	struct fps_meter *m = new_meter(0, true);

	push_n(m, 3, 20 * MS);
	/* First 2 s: cached none -> eBPF: 3 x 20 ms = 50 fps. */
	expect_reading(m, 1 * SEC, FRC_SOURCE_EBPF, 50000000);
	set_text(m, "60");
	push_n(m, 3, 10 * MS);
	expect_reading(m, 2 * SEC, FRC_SOURCE_SYSFS, 60000000); /* poll */
	expect_reading(m, 3 * SEC, FRC_SOURCE_SYSFS, 60000000); /* cache */
	fps_meter_set_sysfs(m, EIO, NULL, 0);
	/*
	 * 4 s: poll, EIO: none -> eBPF drains the three 10 ms: ring 3 x 20 + 3 x 10 = 90 ms,
	 * 6e9 / 90e6 = 66.666666666... -> 66666667.
	 */
	expect_reading(m, 4 * SEC, FRC_SOURCE_EBPF, 66666667);
	set_text(m, "90");
	/* 5 s: within 2 s of the 4 s poll: the cache, still 60 (the failed poll kept it). */
	expect_reading(m, 5 * SEC, FRC_SOURCE_SYSFS, 60000000);
	expect_reading(m, 6 * SEC, FRC_SOURCE_SYSFS, 90000000); /* poll: back on sysfs, 90 */
	fps_meter_free(m);
}
END_TEST

void add_meter_cases(Suite *s)
{
	ADD_CASE(s, "meter_config", test_config);
	ADD_CASE(s, "meter_fps_to_micro", test_fps_to_micro);
	ADD_CASE(s, "meter_sysfs_cache_2s", test_sysfs_cache_2s);
	ADD_CASE(s, "meter_sysfs_read_error", test_sysfs_read_error);
	ADD_CASE(s, "meter_parse_sysfs", test_parse_sysfs);
	ADD_CASE(s, "meter_sysfs_texts", test_sysfs_texts);
	ADD_CASE(s, "meter_ebpf_filter_500ms", test_ebpf_filter_500ms);
	ADD_CASE(s, "meter_ebpf_ring_30", test_ebpf_ring_30);
	ADD_CASE(s, "meter_ebpf_range", test_ebpf_range);
	ADD_CASE(s, "meter_ebpf_timeout_3s", test_ebpf_timeout_3s);
	ADD_CASE(s, "meter_channel_lag_4096", test_channel_lag_4096);
	ADD_CASE(s, "meter_sysfs_ebpf_fallback", test_sysfs_ebpf_fallback);
}
