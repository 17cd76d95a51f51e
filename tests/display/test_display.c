/* SPDX-License-Identifier: MIT */
/*
 * test_display.c - SurfaceFlinger's dumpsys text (display/sf_dumpsys.h) against the shapes
 * AOSP prints, Android 11 to 16, and the poll merge against a model of FrameTracker's ring.
 *
 * The model (ft_*) is written here from FrameTracker.cpp's behaviour (128 records, the 127
 * newest printed oldest first; "0 0 0" for unused slots; INT64_MAX for
 * a fence not yet signalled), not from the code under test.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frc_case_run.h"
#include "sf_dumpsys.h"

static bool list_line(const char *s, struct sf_layer_name *l)
{
	return sf_list_line(s, strlen(s), l);
}

START_TEST(list_shapes)
{
	struct sf_layer_name l;

	/* 11-14: the debug name alone, spaces included (11's SurfaceView). */
	ck_assert(list_line("SurfaceView - com.pkg/com.pkg.Act#0", &l));
	ck_assert_str_eq(l.name, "SurfaceView - com.pkg/com.pkg.Act#0");
	ck_assert(l.has_seq);
	ck_assert_uint_eq(l.seq, 0);
	ck_assert_uint_eq(l.base_len, strlen("SurfaceView - com.pkg/com.pkg.Act"));

	/* 15/16 with every optional field, and with none; 15.0.0_r1 had no closing brace. */
	ck_assert(list_line("RequestedLayerState{SurfaceView[com.pkg/com.pkg.Act](BLAST)#1234 "
			    "parentId=1230 relativeParentId=7 mirrorId={3,4,} !handle z=-2 "
			    "layerStack=1}",
			    &l));
	ck_assert_str_eq(l.name, "SurfaceView[com.pkg/com.pkg.Act](BLAST)#1234");
	ck_assert_uint_eq(l.seq, 1234);
	ck_assert(list_line("RequestedLayerState{Background for SurfaceView[com.pkg/com.pkg.Act]#"
			    "1236 parentId=1230 z=-1}",
			    &l));
	ck_assert_str_eq(l.name, "Background for SurfaceView[com.pkg/com.pkg.Act]#1236");
	ck_assert(list_line("RequestedLayerState{Display 0 name=\"Built-in Screen\"#2}", &l));
	ck_assert_str_eq(l.name, "Display 0 name=\"Built-in Screen\"#2");
	ck_assert(list_line("RequestedLayerState{com.pkg/com.pkg.Act#88 parentId=80", &l));
	ck_assert_str_eq(l.name, "com.pkg/com.pkg.Act#88");
	ck_assert_uint_eq(l.seq, 88);

	/* No "#N" suffix: taken whole; "#" without digits is part of the name. */
	ck_assert(list_line("ScreenDecorOverlay", &l));
	ck_assert(!l.has_seq);
	ck_assert_uint_eq(l.base_len, l.len);
	ck_assert(list_line("odd#name#", &l));
	ck_assert(!l.has_seq);

	/* CRLF (adb shell on some hosts) loses its CR; blank and over-long lines are no layer. */
	ck_assert(list_line("Wallpaper BBQ wrapper#5\r", &l));
	ck_assert_str_eq(l.name, "Wallpaper BBQ wrapper#5");
	ck_assert(!list_line("", &l));
	char longline[SF_NAME_MAX + 8];
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	ck_assert(!list_line(longline, &l));
}
END_TEST

/* A whole --list, split into names as the recorder will. */
static size_t parse_list(const char *text, struct sf_layer_name *all, size_t cap)
{
	size_t n = 0;
	const char *p = text;
	while (*p && n < cap) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (sf_list_line(p, len, &all[n]))
			n++;
		p = nl ? nl + 1 : p + len;
	}
	return n;
}

static void expect_picked(const char *list, const char *package, const char *const *want,
			  size_t nwant)
{
	static struct sf_layer_name all[32];
	size_t picked[8];
	size_t n = parse_list(list, all, 32);
	size_t k = sf_pick_layers(all, n, package, picked, 8);
	ck_assert_uint_eq(k, nwant);
	for (size_t i = 0; i < nwant; i++)
		ck_assert_str_eq(all[picked[i]].name, want[i]);
}

/* Android 13, Z order: a SurfaceView container before its (BLAST) child (§1.5). */
static const char list_13[] = "Display 0 name=\"Built-in Screen\"#1\n"
			      "WindowedMagnification:0:31#2\n"
			      "Task=12#101\n"
			      "ActivityRecord{5e1f3 u0 com.pkg/.Act t12}#102\n"
			      "com.pkg/com.pkg.Act#110\n"
			      "SurfaceView[com.pkg/com.pkg.Act]#111\n"
			      "SurfaceView[com.pkg/com.pkg.Act](BLAST)#112\n"
			      "Background for SurfaceView[com.pkg/com.pkg.Act]#113\n"
			      "com.pkg2/com.pkg2.Other#120\n"
			      "Splash Screen com.pkg#99\n"
			      "StatusBar#40\n";

START_TEST(layer_roles_and_pick)
{
	struct sf_layer_name l;
	const char *pkg = "com.pkg";

	ck_assert(list_line("SurfaceView[com.pkg/com.pkg.Act]#111", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_CONTAINER);
	ck_assert(list_line("SurfaceView[com.pkg/com.pkg.Act](BLAST)#112", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_SURFACEVIEW);
	ck_assert(list_line("Background for SurfaceView[com.pkg/com.pkg.Act]#113", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_OTHER);
	ck_assert(list_line("com.pkg/com.pkg.Act#110", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_WINDOW);
	ck_assert(list_line("com.pkg2/com.pkg2.Other#120", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_UNRELATED);
	ck_assert(list_line("xcom.pkg/a#1", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_UNRELATED);
	ck_assert(list_line("SurfaceView - com.pkg/com.pkg.Act#0", &l));
	ck_assert_int_eq(sf_layer_role(&l, pkg), SF_LAYER_SURFACEVIEW);

	static const char *const want13[] = {"com.pkg/com.pkg.Act#110",
					     "SurfaceView[com.pkg/com.pkg.Act](BLAST)#112"};
	expect_picked(list_13, pkg, want13, 2);

	/* Android 11 with WM BLAST: the window's (BLAST) child latches, not its parent. */
	static const char list_11[] = "com.pkg/com.pkg.Act#0\n"
				      "com.pkg/com.pkg.Act(BLAST)#0\n"
				      "SurfaceView - com.pkg/com.pkg.Act#0\n"
				      "Background for -SurfaceView - com.pkg/com.pkg.Act#0\n";
	static const char *const want11[] = {"com.pkg/com.pkg.Act(BLAST)#0",
					     "SurfaceView - com.pkg/com.pkg.Act#0"};
	expect_picked(list_11, pkg, want11, 2);

	/* Android 15: the same layers in RequestedLayerState form. */
	static const char list_15[] =
	    "RequestedLayerState{com.pkg/com.pkg.Act#210 parentId=205}\n"
	    "RequestedLayerState{SurfaceView[com.pkg/com.pkg.Act]#211 parentId=210}\n"
	    "RequestedLayerState{SurfaceView[com.pkg/com.pkg.Act](BLAST)#212 parentId=211}\n"
	    "RequestedLayerState{Background for SurfaceView[com.pkg/com.pkg.Act]#213 "
	    "parentId=211 z=-2147483648}\n";
	static const char *const want15[] = {"com.pkg/com.pkg.Act#210",
					     "SurfaceView[com.pkg/com.pkg.Act](BLAST)#212"};
	expect_picked(list_15, pkg, want15, 2);

	/* 14 QPR2+ with the new frontend: --list prints nothing, so nothing is picked. */
	expect_picked("", pkg, NULL, 0);
}
END_TEST

/* The model of FrameTracker: a 128-record ring, dumpStats printing records 1..127. */
#define FT_RECORDS 128
struct ft_model {
	struct sf_row rec[FT_RECORDS];
	unsigned offset;
};

/*
 * A buffer latched and composed: onPostComposition fills the current record, then
 * advanceFrame() moves on; the record at offset (the oldest, next to be reused) is the
 * one dumpStats leaves out.
 */
static void ft_latch(struct ft_model *ft, struct sf_row row)
{
	ft->rec[ft->offset] = row;
	ft->offset = (ft->offset + 1) % FT_RECORDS;
}

static size_t ft_dump(const struct ft_model *ft, int64_t period, char *buf, size_t cap)
{
	size_t n = (size_t)snprintf(buf, cap, "%" PRId64 "\n", period);
	for (unsigned i = 1; i < FT_RECORDS; i++) {
		const struct sf_row *r = &ft->rec[(ft->offset + i) % FT_RECORDS];
		n += (size_t)snprintf(buf + n, cap - n, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
				      r->desired, r->actual, r->ready);
	}
	n += (size_t)snprintf(buf + n, cap - n, "\n");
	return n;
}

START_TEST(latency_shapes)
{
	static struct sf_latency lat;
	uint32_t bad = 0;
	static char buf[16384];

	/* FrameTracker: 2 presented, 1 invalid fence, 2 pending, 122 unused. */
	struct ft_model ft = {0};
	ft_latch(&ft, (struct sf_row){1000, 9000, 1500});
	ft_latch(&ft, (struct sf_row){17000, 25000, 17500});
	ft_latch(&ft, (struct sf_row){33000, -1, -1});
	ft_latch(&ft, (struct sf_row){49000, INT64_MAX, 49500});
	ft_latch(&ft, (struct sf_row){65000, INT64_MAX, INT64_MAX});
	size_t len = ft_dump(&ft, 16666666, buf, sizeof(buf));
	ck_assert_int_eq(sf_latency_parse(buf, len, &lat, &bad), 0);
	ck_assert_int_eq(lat.period_ns, 16666666);
	ck_assert_uint_eq(lat.n_rows, 5);
	ck_assert_uint_eq(lat.n_unused, 122);
	ck_assert_int_eq(lat.rows[0].desired, 1000);
	ck_assert_int_eq(lat.rows[2].actual, SF_TIME_INVALID);
	ck_assert_int_eq(lat.rows[3].actual, SF_TIME_PENDING);

	/* 16's FrameTimeline shape: fewer rows, none zero or pending, std::format "{}\t". */
	static const char a16[] = "8333333\n"
				  "100\t8433433\t200\n"
				  "8433433\t16766766\t8433533\n"
				  "16766766\t25100099\t16766866\n";
	ck_assert_int_eq(sf_latency_parse(a16, strlen(a16), &lat, &bad), 0);
	ck_assert_int_eq(lat.period_ns, 8333333);
	ck_assert_uint_eq(lat.n_rows, 3);
	ck_assert_uint_eq(lat.n_unused, 0);
	ck_assert_int_eq(lat.rows[2].ready, 16766866);

	/* 14 and later without rows for the name (no such layer, or 14 QPR2's frontend). */
	ck_assert_int_eq(sf_latency_parse("8333333\n", 8, &lat, &bad), 0);
	ck_assert_uint_eq(lat.n_rows, 0);

	/* Not this shape: named by line. */
	static const char *const bad_texts[] = {
	    "",
	    "Can't find service: SurfaceFlinger\n",
	    "16666666\n1\t2\n",
	    "16666666\n1\t2\t3\t4\n",
	    "16666666\n1\t99999999999999999999\t3\n",
	    "-5\n",
	};
	static const uint32_t bad_lines[] = {1, 1, 2, 2, 2, 1};
	for (size_t i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		bad = 0;
		ck_assert_int_eq(sf_latency_parse(bad_texts[i], strlen(bad_texts[i]), &lat, &bad),
				 FRC_EINVAL);
		ck_assert_uint_eq(bad, bad_lines[i]);
	}

	/* More rows than AOSP ever prints is refused, at the first one too many. */
	len = (size_t)snprintf(buf, sizeof(buf), "1\n");
	for (int i = 0; i <= SF_LATENCY_MAX_ROWS; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d\t%d\t%d\n", i + 1, i + 2,
					i + 3);
	ck_assert_int_eq(sf_latency_parse(buf, len, &lat, &bad), FRC_EINVAL);
	ck_assert_uint_eq(bad, SF_LATENCY_MAX_ROWS + 2);
}
END_TEST

/*
 * A layer presenting one buffer every 8.333 ms (120 Hz) for n frames, its present fence
 * signalling `lag` frames later (so the newest rows are pending when polled), polled
 * every poll_every frames. Returns the number of rows the merge took; each taken row is
 * checked against the truth (frame k: desired = k * period) in order, none twice.
 */
struct run {
	uint32_t taken, gaps, pending_seen;
	uint32_t first_missing; /* the first frame not taken, or n */
};

static struct run merge_run(uint32_t n, uint32_t lag, uint32_t poll_every)
{
	static struct ft_model ft;
	static struct sf_latency lat;
	static char buf[16384];
	const int64_t period = 8333333;
	struct sf_present_merge m;
	struct run r = {0};
	uint32_t next = 0; /* the frame the merge must take next */

	memset(&ft, 0, sizeof(ft));
	sf_present_merge_init(&m);
	r.first_missing = n;
	for (uint32_t k = 0; k < n + lag + 1; k++) {
		if (k < n)
			ft_latch(&ft, (struct sf_row){(int64_t)k * period, INT64_MAX,
						      (int64_t)k * period + 1000});
		/* frame k - lag's fence signals now (the record is still in the ring) */
		for (unsigned i = 0; k >= lag && k - lag < n && i < FT_RECORDS; i++)
			if (ft.rec[i].desired == (int64_t)(k - lag) * period &&
			    ft.rec[i].ready != 0)
				ft.rec[i].actual = (int64_t)(k - lag) * period + 2 * period;
		if (k % poll_every != 0 && k != n + lag)
			continue;
		uint32_t bad;
		size_t len = ft_dump(&ft, period, buf, sizeof(buf));
		ck_assert_int_eq(sf_latency_parse(buf, len, &lat, &bad), 0);
		struct sf_poll_result p = sf_present_merge_poll(&m, &lat);
		r.gaps += p.gap;
		r.pending_seen += p.pending;
		for (uint32_t i = 0; i < p.count; i++) {
			int64_t want_frame = lat.rows[p.first + i].desired / period;
			if (p.gap && i == 0 && (uint32_t)want_frame != next) {
				if (r.first_missing == n)
					r.first_missing = next;
				next = (uint32_t)want_frame;
			}
			ck_assert_int_eq(lat.rows[p.first + i].desired, (int64_t)next * period);
			ck_assert_int_ne(lat.rows[p.first + i].actual, INT64_MAX);
			next++;
			r.taken++;
		}
	}
	ck_assert_uint_eq(m.rows_taken, r.taken);
	ck_assert_uint_eq(m.gaps, r.gaps);
	return r;
}

START_TEST(merge_every_present_once)
{
	/* Polled every 60 frames (0.5 s at 120 Hz), fences 2 frames late: all taken, in order,
	 * none twice, pending rows completed later, no gap. */
	struct run r = merge_run(1200, 2, 60);
	ck_assert_uint_eq(r.taken, 1200);
	ck_assert_uint_eq(r.gaps, 0);
	ck_assert_uint_gt(r.pending_seen, 0);
	ck_assert_uint_eq(r.first_missing, 1200);

	/* Polled every 126 frames with fences a frame late: the row left pending and the 126
	 * after it are exactly the 127 the ring prints. None lost. */
	r = merge_run(1260, 1, 126);
	ck_assert_uint_eq(r.taken, 1260);
	ck_assert_uint_eq(r.gaps, 0);

	/* One frame slower and the pending row has left the ring by the next poll: one row
	 * lost per poll, and each poll says so: polls at 127, 254 .. 1143 (the last one, at
	 * the end, comes only 128 frames later and still finds its row). */
	r = merge_run(1270, 1, 127);
	ck_assert_uint_eq(r.gaps, 9);
	ck_assert_uint_eq(r.taken, 1270 - 9);
}
END_TEST

START_TEST(merge_counts_gaps)
{
	/* Polled every 300 frames (2.5 s at 120 Hz, slower than the ring's 1.06 s): rows are
	 * lost between polls and every poll after the first says so. */
	struct run r = merge_run(1200, 2, 300);
	ck_assert_uint_eq(r.gaps, 4); /* 300, 600, 900 and the end */
	ck_assert_uint_lt(r.taken, 1200);
	ck_assert_uint_gt(r.taken, 4 * 120);
	ck_assert_uint_eq(r.first_missing, 0);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("list_shapes", list_shapes, 30),
	    FRC_CASE("layer_roles_and_pick", layer_roles_and_pick, 30),
	    FRC_CASE("latency_shapes", latency_shapes, 30),
	    FRC_CASE("merge_every_present_once", merge_every_present_once, 30),
	    FRC_CASE("merge_counts_gaps", merge_counts_gaps, 30),
	};

	return frc_case_run("display", cases, FRC_NCASES(cases), argc, argv);
}
