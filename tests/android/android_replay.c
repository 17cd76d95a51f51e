/* SPDX-License-Identifier: MIT */
/*
 * android_replay.c - the cross-architecture determinism check of the Android build.
 *
 *   android-replay write OUT.frc    write a fixed, generated recording as framerec would
 *   android-replay import IN.txt OUT.frc   the text form to a capture (frameanalyze import)
 *   android-replay replay IN.frc    read a capture back through the pipeline, print it
 *
 * The same program is built natively (x86-64) and for arm64 (run under qemu-aarch64);
 * tests/android/cross_check.sh compares what both write and print, byte for byte.
 *
 * `write` generates records from integers only (a fixed xorshift seed, no clock, no
 * system data) and, like framerec, feeds each one to the live pipeline: the result of
 * every tick is read from the arm64 pipeline and stored in the tick record. So the capture
 * bytes depend on the writer, the zstd encoder AND the pipeline's floating point on the
 * architecture that ran it.
 *
 * `replay` prints every tracker delta and meter reading (the FPS as a hex float, so no
 * bit can hide in rounding), compares each reading with the tick record's live result
 * (replay fidelity) and ends with one summary line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frc.h"
#include "frc_text.h"
#include "pipeline.h"

#define NS_PER_MS 1000000ull

/* The generated recording: two game processes, a display node, ticks every second. */
#define T0_NS (1000ull * 1000 * NS_PER_MS) /* boot + 1000 s */
#define PID_A 4242u
#define PID_B 4343u
#define FRAMES_A 600u /* ~60 fps for 10 s */
#define FRAMES_B 150u /* ~30 fps for 5 s, starting at 3 s, then exits */
#define SYSFS_PERIOD_NS (250 * NS_PER_MS)
#define TICK_PERIOD_NS (1000 * NS_PER_MS)
#define DROPS_PERIOD_NS (1000 * NS_PER_MS)
#define END_NS (T0_NS + 10500 * NS_PER_MS)

static const char SYMBOL[] = "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi";

static const struct frc_meta META[] = {
    {"recorder", "android-replay (tests/android)"},
    {"machine", "generated"},
    {"target", "com.example.game"},
    {"symbol", SYMBOL},
    {"sysfs.node", "/sys/class/drm/sde-crtc-0/measured_fps"},
    {"clock", "CLOCK_MONOTONIC"},
    {"tick.ms", "1000"},
};

/* xorshift64: a fixed sequence on every machine. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One source of records; the generator merges them in time order. */
enum stream { S_FRAME_A, S_FRAME_B, S_SYSFS, S_DROPS, S_TICK, S_EXIT_B, S_COUNT };

struct gen {
	uint64_t rng;
	uint64_t next[S_COUNT]; /* next event time of each stream; UINT64_MAX: done */
	uint32_t frames_a, frames_b, sysfs_n, drops_n;
	uint64_t drops;
};

/* A frame interval around period_ms with +-2 ms jitter and a 40 ms hitch every 97 frames. */
static uint64_t frame_gap(struct gen *g, uint64_t period_ms, uint32_t n)
{
	uint64_t gap = period_ms * NS_PER_MS + rng_next(&g->rng) % (4 * NS_PER_MS);

	gap -= 2 * NS_PER_MS;
	if (n % 97 == 96)
		gap += 40 * NS_PER_MS;
	return gap;
}

/* The display node's content over time: valid values, a stretch of errors, garbage. */
static void sysfs_sample(uint32_t n, struct frc_sysfs *s)
{
	static const char *const texts[] = {"60\n", "59.94\n", "60.0\n", "fps: x\n", "90\n"};
	const char *t;

	memset(s, 0, sizeof(*s));
	if (n >= 16 && n < 20) {
		s->err = EACCES; /* SELinux denied the read for a second */
		return;
	}
	t = texts[(n / 6) % 5];
	s->len = (uint16_t)strlen(t);
	memcpy(s->raw, t, s->len);
}

static void gen_init(struct gen *g)
{
	memset(g, 0, sizeof(*g));
	g->rng = 0x9e3779b97f4a7c15ull;
	g->next[S_FRAME_A] = T0_NS + 5 * NS_PER_MS;
	g->next[S_FRAME_B] = T0_NS + 3000 * NS_PER_MS;
	g->next[S_SYSFS] = T0_NS;
	g->next[S_DROPS] = T0_NS + DROPS_PERIOD_NS;
	g->next[S_TICK] = T0_NS + TICK_PERIOD_NS;
	g->next[S_EXIT_B] = UINT64_MAX; /* set when B's last frame is out */
}

/* The next record in time order (ties: stream order). Returns 0 at the end. */
static int gen_next(struct gen *g, struct frc_record *r)
{
	int s, best = -1;

	for (s = 0; s < S_COUNT; s++)
		if (g->next[s] != UINT64_MAX && (best < 0 || g->next[s] < g->next[best]))
			best = s;
	if (best < 0 || g->next[best] > END_NS)
		return 0;
	memset(r, 0, sizeof(*r));
	r->ktime_ns = g->next[best];
	switch (best) {
	case S_FRAME_A:
		r->type = FRC_FRAME;
		r->u.frame =
		    (struct frc_frame){.pid = PID_A,
				       .tid = PID_A + 7,
				       .buffer = 0x7f3a000000ull + (g->frames_a % 3) * 0x5000};
		g->frames_a++;
		g->next[best] = g->frames_a == FRAMES_A
				    ? UINT64_MAX
				    : r->ktime_ns + frame_gap(g, 16, g->frames_a);
		break;
	case S_FRAME_B:
		r->type = FRC_FRAME;
		r->u.frame =
		    (struct frc_frame){.pid = PID_B,
				       .tid = PID_B + 3,
				       .buffer = 0x7f4b000000ull + (g->frames_b % 2) * 0x3000};
		g->frames_b++;
		if (g->frames_b == FRAMES_B) {
			g->next[best] = UINT64_MAX;
			g->next[S_EXIT_B] = r->ktime_ns + 20 * NS_PER_MS;
		} else {
			g->next[best] = r->ktime_ns + frame_gap(g, 33, g->frames_b);
		}
		break;
	case S_SYSFS:
		r->type = FRC_SYSFS;
		sysfs_sample(g->sysfs_n++, &r->u.sysfs);
		g->next[best] += SYSFS_PERIOD_NS;
		break;
	case S_DROPS:
		r->type = FRC_DROPS;
		g->drops += g->drops_n++ % 3; /* cumulative, grows now and then */
		r->u.drops.cumulative = g->drops;
		g->next[best] += DROPS_PERIOD_NS;
		break;
	case S_TICK:
		r->type = FRC_TICK; /* has_result is filled in by the writer from the live meter */
		g->next[best] += TICK_PERIOD_NS;
		break;
	case S_EXIT_B:
		r->type = FRC_EXIT;
		r->u.exit.pid = PID_B;
		g->next[best] = UINT64_MAX;
		break;
	}
	return 1;
}

/* ------------------------------------------------------------------ write */

struct live {
	struct fps_reading last;
	int have;
};

static void live_on_reading(void *ctx, const struct pipeline_reading *rd)
{
	struct live *l = ctx;

	l->last = rd->reading;
	l->have = 1;
}

static struct frc_record attach_record(uint32_t pid, uint64_t t)
{
	struct frc_record r;

	memset(&r, 0, sizeof(r));
	r.type = FRC_ATTACH;
	r.ktime_ns = t;
	r.u.attach.pid = pid;
	r.u.attach.len = (uint16_t)strlen(SYMBOL);
	memcpy(r.u.attach.symbol, SYMBOL, r.u.attach.len + 1);
	return r;
}

/* Feed r to the live pipeline; a tick record gets the meter's result, as framerec does. */
static int live_step(struct pipeline *p, struct live *l, struct frc_record *r)
{
	l->have = 0;
	if (pipeline_feed(p, r))
		return -1;
	if (r->type == FRC_TICK && l->have) {
		r->u.tick.has_result = true;
		r->u.tick.source = l->last.valid ? (uint8_t)l->last.source : FRC_SOURCE_NONE;
		r->u.tick.fps_micro = l->last.valid ? fps_to_micro(l->last.fps) : 0;
	}
	return 0;
}

static int cmd_write(const char *path)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_reading = live_on_reading};
	struct pipeline *p = NULL;
	struct frc_writer *w = NULL;
	struct frc_writer_stats st;
	struct frc_record r;
	struct live l = {0};
	struct gen g;
	int fd, err, ret = 1;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "android-replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	pipeline_config_default(&cfg);
	cfg.has_sysfs = true; /* META names a sysfs node */
	if (pipeline_new(&p, &cfg, &cb, &l)) {
		fprintf(stderr, "android-replay: pipeline_new failed\n");
		goto cleanup;
	}
	err = frc_writer_open_fd(&w, fd, path, META, sizeof(META) / sizeof(META[0]), NULL);
	if (err) {
		fprintf(stderr, "android-replay: %s\n",
			w ? frc_writer_error(w) : frc_strerror(err));
		goto cleanup;
	}
	gen_init(&g);
	/* A is attached at the start; B when it starts (as with --package ... --wait). */
	r = attach_record(PID_A, T0_NS);
	if (live_step(p, &l, &r) || frc_writer_append(w, &r))
		goto fail;
	while (gen_next(&g, &r)) {
		if (r.type == FRC_FRAME && r.u.frame.pid == PID_B && g.frames_b == 1) {
			struct frc_record a = attach_record(PID_B, r.ktime_ns);

			if (live_step(p, &l, &a) || frc_writer_append(w, &a))
				goto fail;
		}
		if (live_step(p, &l, &r) || frc_writer_append(w, &r))
			goto fail;
	}
	if (pipeline_finish(p) || frc_writer_finish(w))
		goto fail;
	frc_writer_stats(w, &st);
	printf("wrote records=%" PRIu64 " frames=%" PRIu64 " chunks=%" PRIu64 " bytes=%" PRIu64
	       "\n",
	       st.records, st.frames, st.chunks, st.bytes);
	ret = 0;
	goto cleanup;
fail:
	fprintf(stderr, "android-replay: write %s: %s\n", path,
		w && *frc_writer_error(w) ? frc_writer_error(w) : "pipeline failed");
cleanup:
	frc_writer_free(w);
	pipeline_free(p);
	if (close(fd) && ret == 0) {
		fprintf(stderr, "android-replay: close %s: %s\n", path, strerror(errno));
		ret = 1;
	}
	return ret;
}

/* ------------------------------------------------------------------ replay */

struct replay {
	uint64_t mismatches; /* readings that differ from the tick record's live result */
	uint64_t compared;
};

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	printf("delta pid=%" PRIu32 " seq=%" PRIu64 " t=%" PRIu64 " buffer=0x%" PRIx64
	       " delta=%" PRIu64 "\n",
	       d->pid, d->seq, d->ktime_ns, d->buffer, d->delta_ns);
}

static void on_reading(void *ctx, const struct pipeline_reading *rd)
{
	struct replay *rp = ctx;
	const struct fps_reading *v = &rd->reading;
	uint64_t micro = v->valid ? fps_to_micro(v->fps) : 0;
	unsigned source = v->valid ? (unsigned)v->source : FRC_SOURCE_NONE;

	printf("reading t=%" PRIu64 " source=%u fps=%a micro=%" PRIu64, rd->tick_ns, source,
	       v->valid ? v->fps : 0.0, micro);
	if (rd->tick && rd->tick->u.tick.has_result) {
		const struct frc_tick *t = &rd->tick->u.tick;
		int same =
		    t->source == source && (source == FRC_SOURCE_NONE || t->fps_micro == micro);

		rp->compared++;
		rp->mismatches += !same;
		printf(" live=%u/%" PRIu64 " %s", t->source, t->fps_micro,
		       same ? "same" : "DIFFERS");
	}
	printf("\n");
}

/* Read the whole capture once: has it a sysfs node / record, and tick records? */
static int scan(const char *path, bool *has_sysfs, bool *has_ticks)
{
	struct frc_reader *r = NULL;
	struct frc_reader_stats st;
	struct frc_record rec;
	int err;

	err = frc_reader_open(&r, path);
	if (err) {
		fprintf(stderr, "android-replay: %s\n",
			r ? frc_reader_error(r) : frc_strerror(err));
		frc_reader_close(r);
		return 1;
	}
	while ((err = frc_reader_next(r, &rec)) > 0)
		;
	frc_reader_stats(r, &st);
	*has_sysfs = frc_reader_meta_get(r, "sysfs.node") || st.by_type[FRC_SYSFS] > 0;
	*has_ticks = st.by_type[FRC_TICK] > 0;
	frc_reader_close(r);
	return err < 0;
}

static int cmd_replay(const char *path)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct pipeline *p = NULL;
	struct frc_reader *r = NULL;
	struct frc_reader_stats rst;
	struct pipeline_stats pst;
	struct replay rp = {0};
	struct frc_record rec;
	bool has_sysfs, has_ticks;
	int err, ret = 1;

	if (scan(path, &has_sysfs, &has_ticks))
		return 1;
	pipeline_config_default(&cfg);
	cfg.has_sysfs = has_sysfs;
	cfg.synthesize_ticks = !has_ticks;
	if (pipeline_new(&p, &cfg, &cb, &rp)) {
		fprintf(stderr, "android-replay: pipeline_new failed\n");
		return 1;
	}
	err = frc_reader_open(&r, path);
	if (err) {
		fprintf(stderr, "android-replay: %s\n",
			r ? frc_reader_error(r) : frc_strerror(err));
		goto cleanup;
	}
	while ((err = frc_reader_next(r, &rec)) > 0) {
		err = pipeline_feed(p, &rec);
		if (err) {
			fprintf(stderr, "android-replay: %s: pipeline: %s\n", path, strerror(-err));
			goto cleanup;
		}
	}
	if (err < 0) {
		fprintf(stderr, "android-replay: %s\n", frc_reader_error(r));
		goto cleanup;
	}
	err = pipeline_finish(p);
	if (err) {
		fprintf(stderr, "android-replay: %s: pipeline: %s\n", path, strerror(-err));
		goto cleanup;
	}
	frc_reader_stats(r, &rst);
	pipeline_stats(p, &pst);
	printf("summary status=%s records=%" PRIu64 " frames=%" PRIu64 " ticks=%" PRIu64
	       " deltas=%" PRIu64 " readings=%" PRIu64 " drops=%" PRIu64 " compared=%" PRIu64
	       " mismatches=%" PRIu64 "\n",
	       frc_status_name(rst.status), rst.records, pst.frames, rst.by_type[FRC_TICK],
	       pst.deltas, pst.readings, pst.drops, rp.compared, rp.mismatches);
	ret = rst.status == FRC_STATUS_COMPLETE && rp.mismatches == 0 ? 0 : 1;
cleanup:
	frc_reader_close(r);
	pipeline_free(p);
	return ret;
}

/* What `frameanalyze import` does, so the arm64 build can turn fixtures into captures. */
static int cmd_import(const char *in, const char *out)
{
	char err[512];

	if (frc_text_import(in, out, NULL, err, sizeof(err))) {
		fprintf(stderr, "android-replay: %s\n", err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "import") == 0)
		return cmd_import(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return cmd_write(argv[2]);
	if (argc == 3 && strcmp(argv[1], "replay") == 0)
		return cmd_replay(argv[2]);
	fprintf(stderr, "usage: android-replay write OUT.frc | import IN.txt OUT.frc | "
			"replay IN.frc\n");
	return 2;
}
