/* SPDX-License-Identifier: MIT */
/*
 * test_present.c - display capture (recorder/present.c) against the stand-in
 * SurfaceFlinger (tests/standin/sf_server.h) through standin-dumpsys, in real time: the
 * rows delivered must equal the compositor's truth file row for row (none lost, none
 * twice, pending rows completed), also when polls are slower than the ring (gaps
 * counted); a hung dumpsys costs its timeout and is said once; no dumpsys is refused.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frc_case_run.h"
#include "present.h"
#include "sf_server.h"

#define P60 16666667
#define P120 8333333
#define MAXROWS 8192

static char sock[64], truth[64];
static struct present_event ev[MAXROWS * 2];
static size_t nev;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec d = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
	nanosleep(&d, NULL);
}

static void drain(struct present *p)
{
	nev += present_drain(p, ev + nev, sizeof(ev) / sizeof(ev[0]) - nev);
}

/*
 * A game at fps on a panel of period ns for dur_ms, recorded with a poll of poll_ms.
 * Returns the poller's stats; ev[0..nev) holds its events.
 */
static struct present_stats record(int64_t period, int fps, int dur_ms, uint32_t poll_ms,
				   enum comp_mode mode)
{
	struct sf_server *s;
	struct present *p;
	struct present_stats st;
	char err[256];

	snprintf(sock, sizeof(sock), "/tmp/test_present.%d.sock", (int)getpid());
	snprintf(truth, sizeof(truth), "/tmp/test_present.%d.truth", (int)getpid());
	ck_assert_int_eq(sf_server_start(&s, sock, truth, 13, period), 0);
	setenv("STANDIN_SF_SOCKET", sock, 1);
	struct present_config cfg = {STANDIN_DUMPSYS, "com.pkg", poll_ms};
	ck_assert_int_eq(present_start(&p, &cfg, err, sizeof(err)), 0);
	int l = sf_server_add_layer(s, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", mode);
	nev = 0;
	int64_t t0 = mono_ns(), frame = 1000000000 / fps;
	for (int64_t k = 0; (mono_ns() - t0) < (int64_t)dur_ms * 1000000; k++) {
		sf_server_queue(s, l, 0xf000 + (uint64_t)k, mono_ns(), COMP_TS_AUTO);
		drain(p);
		int64_t next = t0 + (k + 1) * frame - mono_ns();
		if (next > 0)
			sleep_ns(next);
	}
	sleep_ns(4 * period); /* the last buffers latched, their fences signalled */
	present_stop(p);      /* its last poll round still finds SurfaceFlinger */
	sf_server_stop(s);
	drain(p);
	present_stats(p, &st);
	present_free(p);
	unlink(sock);
	return st;
}

/* The truth's "present DESIRED ACTUAL NAME" lines, in order. */
static size_t read_truth(int64_t (*rows)[2], size_t max)
{
	FILE *f = fopen(truth, "re");
	char line[512];
	size_t n = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && n < max)
		if (sscanf(line, "present %" SCNd64 " %" SCNd64, &rows[n][0], &rows[n][1]) == 2)
			n++;
	fclose(f);
	unlink(truth);
	return n;
}

static int64_t want[MAXROWS][2];

START_TEST(present_row_for_row)
{
	/* 2 s of 60 fps on 60 Hz, polled every 200 ms (the ring lasts 2.1 s) */
	struct present_stats st = record(P60, 60, 2000, 200, COMP_FIFO);
	size_t n = read_truth(want, MAXROWS), k = 0, layers = 0;
	ck_assert_uint_gt(n, 100);
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].kind == PEV_LAYER) {
			layers++;
			ck_assert_uint_eq(ev[i].layer, 1);
		}
		ck_assert_int_ne(ev[i].kind, PEV_GAP);
		if (ev[i].kind != PEV_ROW)
			continue;
		ck_assert_uint_lt(k, n);
		ck_assert_int_eq(ev[i].a, want[k][0]);
		ck_assert_int_eq(ev[i].b, want[k][1]);
		k++;
	}
	ck_assert_uint_eq(layers, 1);
	ck_assert_uint_eq(k, n); /* every present, once, in order */
	ck_assert_uint_eq(st.gaps, 0);
	ck_assert_uint_eq(st.lost, 0);
	ck_assert_uint_eq(st.failures, 0);
	fprintf(stderr,
		"present_row_for_row: %zu rows, %" PRIu64 " dumpsys runs, %.2f ms mean,"
		" %.2f ms max\n",
		n, st.runs, st.run_ns_total / 1e6 / (double)st.runs, st.run_ns_max / 1e6);
}
END_TEST

START_TEST(present_gaps_counted)
{
	/* 120 fps on 120 Hz (the ring lasts 1.06 s) polled every 1.5 s: rows are lost, and
	 * every poll after the first that finds rows says so. */
	struct present_stats st = record(P120, 120, 3200, 1500, COMP_FIFO);
	size_t n = read_truth(want, MAXROWS), rows = 0, gaps = 0;
	for (size_t i = 0; i < nev; i++) {
		rows += ev[i].kind == PEV_ROW;
		gaps += ev[i].kind == PEV_GAP;
	}
	ck_assert_uint_ge(gaps, 1);
	ck_assert_uint_eq(gaps, st.gaps);
	ck_assert_uint_lt(rows, n);
	ck_assert_uint_eq(rows, st.rows);
}
END_TEST

START_TEST(present_hung_dumpsys)
{
	char path[64], err[256], why[256];
	struct present *p;
	struct present_stats st;
	snprintf(path, sizeof(path), "/tmp/test_present.%d.sh", (int)getpid());
	FILE *f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nexec sleep 30\n");
	fclose(f);
	chmod(path, 0755);
	struct present_config cfg = {path, "com.pkg", 100};
	ck_assert_int_eq(present_start(&p, &cfg, err, sizeof(err)), 0);
	sleep_ns(2000000000); /* one --list run: killed at its 1.5 s timeout */
	present_stop(p);
	present_stats(p, &st);
	ck_assert(present_problem(p, why, sizeof(why)));
	ck_assert_str_eq(why, "dumpsys SurfaceFlinger --list timed out");
	ck_assert(!present_problem(p, why, sizeof(why))); /* said once */
	ck_assert_uint_ge(st.failures, 1);
	ck_assert_uint_ge(st.run_ns_max, PRESENT_TIMEOUT_MS * 1000000ull);
	ck_assert_uint_lt(st.run_ns_max, (PRESENT_TIMEOUT_MS + 1000) * 1000000ull);
	present_free(p);
	unlink(path);

	cfg.dumpsys = "/nonexistent/dumpsys";
	ck_assert_int_lt(present_start(&p, &cfg, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "/nonexistent/dumpsys: No such file or directory");
}
END_TEST

START_TEST(present_poll_period)
{
	ck_assert_uint_eq(present_poll_ms(0), 500);
	ck_assert_uint_eq(present_poll_ms(P60), 500);	  /* 127 rows = 2.1 s */
	ck_assert_uint_eq(present_poll_ms(P120), 500);	  /* 1.06 s: half is 529 */
	ck_assert_uint_eq(present_poll_ms(6944444), 440); /* 144 Hz: 0.88 s */
	ck_assert_uint_eq(present_poll_ms(4166666), 264); /* 240 Hz */
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("present_row_for_row", present_row_for_row, 30),
	    FRC_CASE("present_gaps_counted", present_gaps_counted, 30),
	    FRC_CASE("present_hung_dumpsys", present_hung_dumpsys, 30),
	    FRC_CASE("present_poll_period", present_poll_period, 10),
	};

	return frc_case_run("present", cases, FRC_NCASES(cases), argc, argv);
}
