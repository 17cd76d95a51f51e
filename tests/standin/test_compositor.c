/* SPDX-License-Identifier: MIT */
/*
 * test_compositor.c - the stand-in SurfaceFlinger (compositor.h) against AOSP's rules and
 * text shapes. What it prints is read back with display/sf_dumpsys.h, whose own tests hold
 * it to hand-written AOSP text; the small --list and --latency outputs are also compared
 * byte for byte with text written here by hand.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "compositor.h"
#include "frc_case_run.h"
#include "runout.h"
#include "sf_dumpsys.h"
#include "sf_server.h"

#define P60 16666667
#define P120 8333333

static struct compositor comp;
static char text[32768];
static struct sf_latency lat;

static void latency(const char *name)
{
	uint32_t bad = 0;
	size_t n = comp_print_latency(&comp, name, text, sizeof(text));
	ck_assert_uint_lt(n, sizeof(text));
	ck_assert_int_eq(sf_latency_parse(text, n, &lat, &bad), 0);
}

START_TEST(comp_shapes)
{
	comp_init(&comp, 13, P60, NULL);
	ck_assert_int_eq(comp_add_layer(&comp, COMP_WINDOW, "com.pkg/com.pkg.Act", COMP_FIFO), 0);
	ck_assert_int_eq(comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", COMP_FIFO),
			 1);
	comp_print_list(&comp, text, sizeof(text));
	ck_assert_str_eq(text, "com.pkg/com.pkg.Act#100\n"
			       "Background for SurfaceView[com.pkg/com.pkg.Act]#103\n"
			       "SurfaceView[com.pkg/com.pkg.Act]#101\n"
			       "SurfaceView[com.pkg/com.pkg.Act](BLAST)#102\n");

	comp_init(&comp, 15, P120, NULL);
	comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", COMP_FIFO);
	comp_print_list(&comp, text, sizeof(text));
	ck_assert_str_eq(text, "RequestedLayerState{SurfaceView[com.pkg/com.pkg.Act]#100}\n"
			       "RequestedLayerState{SurfaceView[com.pkg/com.pkg.Act](BLAST)#101 "
			       "parentId=100}\n"
			       "RequestedLayerState{Background for SurfaceView[com.pkg/com.pkg.Act]"
			       "#102 parentId=100 z=-2147483648}\n");

	comp_init(&comp, 11, P60, NULL);
	comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", COMP_FIFO);
	comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", COMP_FIFO);
	comp_print_list(&comp, text, sizeof(text));
	ck_assert_str_eq(text, "SurfaceView - com.pkg/com.pkg.Act#0\n"
			       "SurfaceView - com.pkg/com.pkg.Act#1\n");

	/* --latency: period, 127 rows oldest first, a blank line; the newest row pending. */
	comp_queue(&comp, 0, 0xa0, 1000000, COMP_TS_AUTO);
	comp_vsync(&comp, P60);
	comp_queue(&comp, 0, 0xa1, P60 + 1000000, COMP_TS_AUTO);
	comp_vsync(&comp, 2 * P60);
	size_t n =
	    comp_print_latency(&comp, "SurfaceView - com.pkg/com.pkg.Act#0", text, sizeof(text));
	char want[8192];
	size_t w = (size_t)snprintf(want, sizeof(want), "16666667\n");
	for (int i = 0; i < 125; i++)
		w += (size_t)snprintf(want + w, sizeof(want) - w, "0\t0\t0\n");
	w += (size_t)snprintf(want + w, sizeof(want) - w,
			      "1005000\t33333334\t1005000\n"
			      "17671667\t9223372036854775807\t17671667\n\n");
	ck_assert_uint_eq(n, w);
	ck_assert_str_eq(text, want);

	/* No such layer: the period line alone. */
	comp_print_latency(&comp, "nope#3", text, sizeof(text));
	ck_assert_str_eq(text, "16666667\n");

	/* 16's FrameTimeline shape: settled rows only. */
	comp.frame_timeline = true;
	comp_print_latency(&comp, "SurfaceView - com.pkg/com.pkg.Act#0", text, sizeof(text));
	ck_assert_str_eq(text, "16666667\n1005000\t33333334\t1005000\n");
}
END_TEST

/* The game: one buffer every interval ns from t0, run against vsyncs for dur ns. */
struct game {
	int layer;
	int64_t interval, next, burst;
	uint64_t queued, blocked;
};

static void run(struct game *g, int ng, int64_t dur, int64_t period)
{
	int64_t vsync = period;
	for (int64_t t = 0; t < dur; t += 100000) { /* 0.1 ms steps */
		if (t >= vsync) {
			comp_vsync(&comp, vsync);
			vsync += comp.period_ns;
		}
		for (int i = 0; i < ng; i++) {
			if (t < g[i].next)
				continue;
			for (int64_t b = 0; b < (g[i].burst ? g[i].burst : 1); b++) {
				if (comp_queue(&comp, g[i].layer, 0x1000 + g[i].queued, t,
					       COMP_TS_AUTO)) {
					g[i].blocked++; /* the producer would wait */
					break;
				}
				g[i].queued++;
			}
			g[i].next += g[i].interval;
		}
	}
}

START_TEST(comp_fifo_every_buffer_once)
{
	comp_init(&comp, 13, P60, NULL);
	struct game g = {
	    comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO), P60, 3000000, 0, 0, 0};
	run(&g, 1, 2000000000, P60); /* 2 s of a 60 fps game on 60 Hz */
	struct comp_layer *l = &comp.layers[g.layer];
	ck_assert_uint_eq(l->dropped, 0);
	ck_assert_uint_eq(l->presented + l->n_bq + l->n_txn, g.queued);
	latency(l->name);
	ck_assert_uint_eq(lat.n_rows, 119); /* 120 latched, the ring shows 127 */
	/* one present per vsync, each a period apart */
	for (uint32_t i = 1; i + 1 < lat.n_rows; i++)
		ck_assert_int_eq(lat.rows[i].actual - lat.rows[i - 1].actual, P60);

	/* A 4-buffer burst every 4 vsyncs: presented one per vsync, none dropped. */
	comp_init(&comp, 13, P60, NULL);
	struct game b = {comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO),
			 4 * P60,
			 1000000,
			 4,
			 0,
			 0};
	run(&b, 1, 2000000000, P60);
	ck_assert_uint_eq(comp.layers[b.layer].dropped, 0);
	ck_assert_uint_eq(b.queued, 120);
	latency(comp.layers[b.layer].name);
	for (uint32_t i = 1; i + 1 < lat.n_rows; i++)
		ck_assert_int_eq(lat.rows[i].actual - lat.rows[i - 1].actual, P60);
}
END_TEST

START_TEST(comp_mailbox_replaces)
{
	/* 231 calls/s on a 120 Hz panel: about 120 presented per second, the rest replaced. */
	comp_init(&comp, 14, P120, NULL);
	struct game g = {comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_MAILBOX),
			 1000000000 / 231,
			 0,
			 0,
			 0,
			 0};
	run(&g, 1, 1000000000, P120);
	struct comp_layer *l = &comp.layers[g.layer];
	ck_assert_uint_eq(g.blocked, 0);
	ck_assert_uint_eq(l->presented + l->dropped + l->n_bq + l->n_txn, g.queued);
	ck_assert_uint_ge(l->presented, 118);
	ck_assert_uint_le(l->presented, 120);
	ck_assert_uint_ge(l->dropped, 100);
}
END_TEST

START_TEST(comp_explicit_overdue)
{
	FILE *truth = tmpfile();
	comp_init(&comp, 13, P60, truth);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	/* Held while desiredPresentTime >= the expected present (the next vsync): desired at
	 * 3 periods is latched at the vsync of 3 periods (expected 4), not before. */
	comp_queue(&comp, s, 0xb0, 0, 3 * P60);
	comp_vsync(&comp, P60);
	comp_vsync(&comp, 2 * P60);
	ck_assert_uint_eq(comp.layers[s].presented, 0);
	comp_vsync(&comp, 3 * P60);
	ck_assert_uint_eq(comp.layers[s].presented, 1);
	/* Two past due in one composition: the newest latched, the earlier dropped. */
	comp_queue(&comp, s, 0xb1, 3 * P60 + 1, 3 * P60 + 100);
	comp_queue(&comp, s, 0xb2, 3 * P60 + 2, 3 * P60 + 200);
	comp_vsync(&comp, 4 * P60);
	ck_assert_uint_eq(comp.layers[s].presented, 2);
	ck_assert_uint_eq(comp.layers[s].dropped, 1);
	rewind(truth);
	char line[512];
	int drops = 0;
	while (fgets(line, sizeof(line), truth))
		if (!strncmp(line, "drop 0xb1 ", 10) && strstr(line, " overdue "))
			drops++;
	ck_assert_int_eq(drops, 1);
	fclose(truth);
}
END_TEST

START_TEST(comp_invisible_flush_remove)
{
	comp_init(&comp, 13, P60, NULL);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	comp_set_visible(&comp, s, false, 0);
	comp_queue(&comp, s, 0xc0, 0, COMP_TS_AUTO);
	comp_vsync(&comp, P60);
	ck_assert_uint_eq(comp.layers[s].presented, 0);
	ck_assert_uint_eq(comp.layers[s].dropped, 1);
	latency(comp.layers[s].name);
	ck_assert_uint_eq(lat.n_rows, 0); /* nothing composed, no row */

	/* Five queued at once: BBQ sends 3 to SF, 2 wait in the BufferQueue; a resize
	 * flushes those 2 unpresented, the 3 in SF are presented a vsync apart. */
	comp_set_visible(&comp, s, true, P60);
	for (uint64_t i = 0; i < 5; i++)
		ck_assert_int_eq(comp_queue(&comp, s, 0xc1 + i, P60 + 1 + (int64_t)i, COMP_TS_AUTO),
				 0);
	ck_assert_uint_eq(comp.layers[s].n_txn, 3);
	ck_assert_uint_eq(comp.layers[s].n_bq, 2);
	comp_flush(&comp, s, P60 + 10);
	ck_assert_uint_eq(comp.layers[s].dropped, 3);
	for (int64_t v = 2; v <= 5; v++)
		comp_vsync(&comp, v * P60);
	ck_assert_uint_eq(comp.layers[s].presented, 3);
	ck_assert_uint_eq(comp.layers[s].dropped, 3);

	/* The container's FrameTracker is all zeros; a removed layer is no longer listed. */
	latency(comp.layers[s].container);
	ck_assert_uint_eq(lat.n_rows, 0);
	ck_assert_uint_eq(lat.n_unused, 127);
	comp_remove_layer(&comp, s);
	ck_assert_uint_eq(comp_print_list(&comp, text, sizeof(text)), 0);
}
END_TEST

START_TEST(comp_refresh_switch)
{
	/* 120 -> 60 Hz mid-run: the period line follows, presents space out. */
	comp_init(&comp, 16, P120, NULL);
	int s = comp_add_layer(&comp, COMP_SURFACEVIEW, "com.pkg/a", COMP_FIFO);
	int64_t t = 0;
	for (int i = 0; i < 10; i++) {
		comp_queue(&comp, s, 0xd0 + (uint64_t)i, t + 1, COMP_TS_AUTO);
		if (i == 5)
			comp_set_period(&comp, P60);
		t += comp.period_ns;
		comp_vsync(&comp, t);
	}
	latency(comp.layers[s].name);
	ck_assert_int_eq(lat.period_ns, P60);
	ck_assert_uint_eq(lat.n_rows, 10);
	ck_assert_int_eq(lat.rows[3].actual - lat.rows[2].actual, P120);
	ck_assert_int_eq(lat.rows[8].actual - lat.rows[7].actual, P60);
}
END_TEST

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* standin-dumpsys as framerec runs a device's dumpsys: argv exactly, env for the socket. */
static int dumpsys(const char *sock, const char *a2, const char *a3, struct runout *ro)
{
	char *argv[] = {"dumpsys", "SurfaceFlinger", (char *)a2, (char *)a3, NULL};
	setenv("STANDIN_SF_SOCKET", sock, 1);
	return runout(STANDIN_DUMPSYS, argv, 5000, text, sizeof(text), ro);
}

START_TEST(sf_server_dumpsys)
{
	char sock[64];
	struct sf_server *s;
	struct runout ro;
	struct sf_layer_name names[8];
	size_t n = 0;

	snprintf(sock, sizeof(sock), "/tmp/test_sf.%d.sock", (int)getpid());
	ck_assert_int_eq(sf_server_start(&s, sock, NULL, 13, P60), 0);
	int l = sf_server_add_layer(s, COMP_SURFACEVIEW, "com.pkg/com.pkg.Act", COMP_FIFO);
	ck_assert_int_ge(l, 0);
	/* 0.5 s of a 60 fps game in real time */
	for (int i = 0; i < 30; i++) {
		sf_server_queue(s, l, 0xe000 + (uint64_t)i, mono_ns(), COMP_TS_AUTO);
		struct timespec d = {0, P60};
		nanosleep(&d, NULL);
	}
	ck_assert_int_eq(dumpsys(sock, "--list", NULL, &ro), 0);
	ck_assert_int_eq(ro.exit_code, 0);
	for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		if (n < 8 && sf_list_line(p, (size_t)(nl - p), &names[n]))
			n++;
	size_t picked[4];
	ck_assert_uint_eq(sf_pick_layers(names, n, "com.pkg", picked, 4), 1);
	ck_assert_str_eq(names[picked[0]].name, "SurfaceView[com.pkg/com.pkg.Act](BLAST)#101");

	ck_assert_int_eq(dumpsys(sock, "--latency", names[picked[0]].name, &ro), 0);
	uint32_t bad;
	ck_assert_int_eq(sf_latency_parse(text, ro.len, &lat, &bad), 0);
	ck_assert_int_eq(lat.period_ns, P60);
	ck_assert_uint_ge(lat.n_rows, 28); /* the last one or two may still be queued */
	ck_assert_uint_le(lat.n_rows, 30);
	sf_server_stop(s);

	/* Nobody listening: the real dumpsys's message, nothing on stdout, status 0. */
	ck_assert_int_eq(dumpsys(sock, "--list", NULL, &ro), 0);
	ck_assert_uint_eq(ro.len, 0);
	ck_assert_int_eq(ro.exit_code, 0);
	unlink(sock);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("comp_shapes", comp_shapes, 30),
	    FRC_CASE("comp_fifo_every_buffer_once", comp_fifo_every_buffer_once, 30),
	    FRC_CASE("comp_mailbox_replaces", comp_mailbox_replaces, 30),
	    FRC_CASE("comp_explicit_overdue", comp_explicit_overdue, 30),
	    FRC_CASE("comp_invisible_flush_remove", comp_invisible_flush_remove, 30),
	    FRC_CASE("comp_refresh_switch", comp_refresh_switch, 30),
	    FRC_CASE("sf_server_dumpsys", sf_server_dumpsys, 30),
	};

	return frc_case_run("compositor", cases, FRC_NCASES(cases), argc, argv);
}
