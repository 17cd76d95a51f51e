/* SPDX-License-Identifier: MIT */
/*
 * bench_heuristics - throughput of the heuristics pipeline (a benchmark, not a test).
 *
 * Frame records are generated on the fly into one struct frc_record, the way the recorder
 * fills one record per ring-buffer event and the reader hands out one record at a time:
 * 60 Hz timestamps, buffers in round-robin (or pseudo-random) order, one PID, and a tick
 * record after every 60 frames (one per second). Each scenario runs several times and the
 * median is printed with min..max (timed by the thread's CPU-time clock), next to the
 * baseline measured in the same run: the same generator feeding an empty consumer. The
 * tracker variants (tracker_kind.h) run in the pipeline on one surface and on two. The
 * issue's target: >= 20 M frame records/s on one core with 3 buffers and a tick every
 * second, for every variant.
 *
 * Usage: bench_heuristics [FRAMES_PER_RUN [RUNS]]   (defaults 5000000 and 7)
 * Example: build/bin/bench_heuristics 20000000 9
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline.h"

enum consumer {
	EMPTY,	  /* baseline: the generator alone */
	TRACKER,  /* tracker_record only */
	PIPELINE, /* pipeline_feed with tick records */
	SYNTH,	  /* pipeline_feed, no tick records: synthesized ticks */
};

struct scenario {
	const char *name;
	enum consumer consumer;
	uint32_t buffers;
	bool random_order;
	const char *tracker; /* pipeline's tracker_name; NULL: the default (kala) */
	uint32_t surfaces;   /* frames spread over this many surfaces round-robin (0: 1) */
	const char *meter;   /* pipeline's meter_name; NULL: the default (auriya-10fe7c6) */
};

static const struct scenario scenarios[] = {
    {"baseline: generator + empty consumer, 3 buffers", EMPTY, 3, false, NULL, 0, NULL},
    {"tracker_record only, 3 buffers", TRACKER, 3, false, NULL, 0, NULL},
    {"pipeline, 3 buffers, tick record every 1 s", PIPELINE, 3, false, NULL, 0, NULL},
    {"pipeline, 3 buffers, synthesized ticks", SYNTH, 3, false, NULL, 0, NULL},
    {"baseline: generator + empty consumer, 1024 random", EMPTY, 1024, true, NULL, 0, NULL},
    {"pipeline, 1024 buffers round-robin, ticks", PIPELINE, 1024, false, NULL, 0, NULL},
    {"pipeline, 1024 buffers random order, ticks", PIPELINE, 1024, true, NULL, 0, NULL},
    {"pipeline, 2048 buffers round-robin (all evict)", PIPELINE, 2048, false, NULL, 0, NULL},
    /* The tracker variants (tracker_kind.h), each in the pipeline with 3 buffers and ticks,
     * on one surface and on two (a main surface and an overlay at the same rate). */
    {"variant kala, 3 buffers, 1 surface, ticks", PIPELINE, 3, false, "kala", 1, NULL},
    {"variant surface, 3 buffers, 1 surface, ticks", PIPELINE, 3, false, "surface", 1, NULL},
    {"variant process, 3 buffers, 1 surface, ticks", PIPELINE, 3, false, "process", 1, NULL},
    {"variant main-surface, 3 buffers, 1 surface, ticks", PIPELINE, 3, false, "main-surface", 1,
     NULL},
    {"variant surface, 3 buffers, 2 surfaces, ticks", PIPELINE, 3, false, "surface", 2, NULL},
    {"variant main-surface, 3 buffers, 2 surfaces, ticks", PIPELINE, 3, false, "main-surface", 2,
     NULL},
    /* content (issue 19): the content rule per call, next to kala's rows above */
    {"variant content, 3 buffers, 1 surface, ticks", PIPELINE, 3, false, "content", 1, NULL},
    {"variant content, 3 buffers, 2 surfaces, ticks", PIPELINE, 3, false, "content", 2, NULL},
    /* The meter variants (meter_kind.h, issue 21), kala feeding them, 2 surfaces, ticks. */
    {"meter auriya-10fe7c6, kala, 2 surfaces, ticks", PIPELINE, 3, false, "kala", 2,
     "auriya-10fe7c6"},
    {"meter auriya-ccafd78, kala, 2 surfaces, ticks", PIPELINE, 3, false, "kala", 2,
     "auriya-ccafd78"},
    {"meter frc-window, kala, 2 surfaces, ticks", PIPELINE, 3, false, "kala", 2, "frc-window"},
};

struct counts {
	uint64_t deltas;
	uint64_t readings;
	uint64_t sink;
};

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	((struct counts *)ctx)->deltas++;
}

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	((struct counts *)ctx)->readings++;
}

/* The baseline's consumer: reads the record so the generator's work cannot be elided. */
__attribute__((noinline)) static void empty_consumer(struct counts *c, const struct frc_record *r)
{
	c->sink += r->ktime_ns ^ r->u.frame.buffer;
}

/*
 * The CPU time of this thread, not the wall clock: on a shared machine (the team's has 2
 * cores for 5 engineers) time spent descheduled would otherwise count as the code's.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_heuristics: %s failed (%d)\n", what, err);
	exit(1);
}

/* One run; returns the seconds it took. */
static double run_once(const struct scenario *sc, uint64_t frames, struct counts *c)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_delta = on_delta, .on_reading = on_reading};
	struct tracker_config tcfg;
	struct pipeline *p = NULL;
	struct tracker *t = NULL;
	struct frc_record rec, tick;
	uint64_t ktime = 1000000000ull, rem = 0, x = 0x9E3779B97F4A7C15ull, d;
	uint32_t next = 0;
	double start;
	int err;

	memset(&rec, 0, sizeof(rec));
	memset(&tick, 0, sizeof(tick));
	rec.type = FRC_FRAME;
	rec.u.frame.pid = 4242;
	rec.u.frame.tid = 4242;
	tick.type = FRC_TICK;
	pipeline_config_default(&cfg);
	cfg.synthesize_ticks = sc->consumer == SYNTH;
	cfg.tracker_name = sc->tracker;
	cfg.meter_name = sc->meter;
	tracker_config_default(&tcfg);
	if (sc->consumer == TRACKER && (err = tracker_new(&t, &tcfg)))
		die("tracker_new", err);
	if ((sc->consumer == PIPELINE || sc->consumer == SYNTH) &&
	    (err = pipeline_new(&p, &cfg, &cb, c)))
		die("pipeline_new", err);

	start = now_s();
	for (uint64_t i = 0; i < frames; i++) {
		uint32_t b;

		/* t_i = floor(i * 1e9 / 60): steps of 16666666 ns plus 40/60 ns carried. */
		ktime += 16666666;
		rem += 40;
		if (rem >= 60) {
			rem -= 60;
			ktime++;
		}
		if (sc->random_order) {
			x ^= x << 13; /* xorshift64 */
			x ^= x >> 7;
			x ^= x << 17;
			b = (uint32_t)((x >> 32) % sc->buffers);
		} else {
			b = next;
			next = next + 1 == sc->buffers ? 0 : next + 1;
		}
		rec.ktime_ns = ktime;
		rec.u.frame.buffer = 0x7a00000000ull + 0x40000ull * b;
		rec.u.frame.surface =
		    0x7b00000000ull + 0x1000ull * (sc->surfaces > 1 ? i % sc->surfaces : 0);
		switch (sc->consumer) {
		case EMPTY:
			empty_consumer(c, &rec);
			break;
		case TRACKER:
			if (tracker_record(t, rec.ktime_ns, rec.u.frame.buffer, &d))
				c->deltas++;
			break;
		case PIPELINE:
			if ((err = pipeline_feed(p, &rec)))
				die("pipeline_feed", err);
			if (i % 60 == 59) {
				tick.ktime_ns = ktime;
				if ((err = pipeline_feed(p, &tick)))
					die("pipeline_feed", err);
			}
			break;
		case SYNTH:
			if ((err = pipeline_feed(p, &rec)))
				die("pipeline_feed", err);
			break;
		}
	}
	if (p && (err = pipeline_finish(p)))
		die("pipeline_finish", err);
	double secs = now_s() - start;

	pipeline_free(p);
	tracker_free(t);
	return secs;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	uint64_t frames = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	double base_ns[2] = {0, 0}; /* baseline ns/record: 3 buffers, 1024 random */

	if (argc > 3 || frames == 0 || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: bench_heuristics [FRAMES_PER_RUN [RUNS]]\n"
				"example: bench_heuristics 20000000 9\n");
		return 2;
	}
	printf("bench_heuristics: %llu frame records per run, %d runs per scenario, one core\n",
	       (unsigned long long)frames, runs);
	printf("%-52s %10s %16s %8s %8s\n", "scenario", "median", "min..max", "ns/rec", "-base");
	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		double rate[99];
		struct counts c = {0};

		for (int r = 0; r < runs; r++) {
			memset(&c, 0, sizeof(c));
			rate[r] = (double)frames / run_once(sc, frames, &c) / 1e6;
		}
		qsort(rate, (size_t)runs, sizeof(rate[0]), cmp_double);
		double median = rate[runs / 2], ns = 1e3 / median;
		double *base = &base_ns[sc->random_order ? 1 : 0];

		if (sc->consumer == EMPTY)
			*base = ns;
		printf("%-52s %7.1f M/s %7.1f..%-7.1f %8.2f %8.2f\n", sc->name, median, rate[0],
		       rate[runs - 1], ns, ns - *base);
		if (sc->consumer != EMPTY)
			printf("%-52s deltas %llu, readings %llu\n", "",
			       (unsigned long long)c.deltas, (unsigned long long)c.readings);
	}
	printf("(M/s = million frame records per second; tick records are extra. -base = ns/rec\n"
	       " minus the baseline of the same buffer pattern measured above in this run.)\n");
	return 0;
}
