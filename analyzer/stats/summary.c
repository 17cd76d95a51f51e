/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the report accumulator (see summary.h, analyzer/REPORT.md).
 *
 * All times are integers (ns) until printing; milliseconds are printed by integer
 * arithmetic (truncated to the microsecond) so that output is identical on every machine.
 * FPS values are printed with %.3f from a double computed the same way everywhere
 * (-ffp-contract=off is global).
 */
#include "summary.h"

#include "perfdog.h"
#include "pidmap.h"
#include "tracker_kind.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BUCKETS (1u << 20) /* 1 us each: [0, 1.048576 s) */
#define BUCKET_NS 1000u
/*
 * The buckets' counts summed per block of 1024: a percentile or the 1 % low skips the
 * empty ms instead of walking a million buckets (and faulting in 12 MB of zero pages)
 * for each number. Same results: only empty buckets and whole blocks before the rank
 * are skipped.
 */
#define BLOCK_SHIFT 10
#define HIST_BLOCKS (HIST_BUCKETS >> BLOCK_SHIFT)
#define MAX_DIFFS_KEPT 1000
/*
 * Deltas outside the histogram (>= 1.048576 s) are kept one by one up to OVER_KEPT_MAX;
 * past that (only a hostile or days-long capture gets there) they all move into a
 * log-linear histogram of LOG_BUCKETS buckets (1/1024 relative width), so memory stays
 * bounded whatever the capture declares (REPORT.md "Memory").
 */
#define OVER_KEPT_MAX 65536
#define LOG_SUB 1024u /* buckets per power of two */
#define LOG_BUCKETS (LOG_SUB + 54 * LOG_SUB)

struct source_stats {
	uint64_t count;
	uint64_t sum_micro; /* sum of micro-FPS: the mean is exact */
	uint64_t min_micro, max_micro;
};

struct summary {
	/* capture */
	char *path, *model, *machine, *fingerprint, *kernel, *target, *symbol;
	struct frc_reader_stats stats;
	unsigned major, minor;
	bool has_sysfs, synthesize_ticks;
	uint32_t tick_ms;
	double fps_max;
	struct pipeline_stats ps;
	/* frame times */
	uint32_t *hcount;
	uint64_t *hsum;
	uint64_t *bcount; /* hcount summed per block */
	uint64_t *over;
	size_t n_over, cap_over;
	uint64_t *lcount; /* the log histogram, once over is folded into it (else NULL) */
	double *lsum;
	uint64_t n, sum_ns, max_ns;
	/* janks: per PID, v[0] = deltas seen (saturating at 3), v[1..3] = the last three */
	struct pidmap win;
	uint64_t janks, big_janks, jank_ns;
	/* readings */
	uint64_t ticks, none;
	struct source_stats src[3];
	/* sysfs samples */
	uint64_t sysfs_count, sysfs_invalid, sysfs_errors;
	uint64_t drops, batch_anomalies; /* cumulative, as the last drops record says */
	/* with a window: their values at its start (the last drops record before it) */
	uint64_t drops_base, batch_base;
	bool windowed;
	uint64_t span_start, span_end;
	/* fidelity: only a replay of the tracker the recording ran can reproduce its readings */
	bool fidelity_applies;
	char recorded_tracker[32];
	uint64_t live, reproduced, mismatches;
	struct fidelity_diff *diffs;
	size_t n_diffs;
};

int summary_new(struct summary **out)
{
	struct summary *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	/* calloc: the pages of an untouched bucket range are never faulted in. */
	s->hcount = calloc(HIST_BUCKETS, sizeof(*s->hcount));
	s->hsum = calloc(HIST_BUCKETS, sizeof(*s->hsum));
	s->bcount = calloc(HIST_BLOCKS, sizeof(*s->bcount));
	s->diffs = calloc(MAX_DIFFS_KEPT, sizeof(*s->diffs));
	if (!s->hcount || !s->hsum || !s->bcount || !s->diffs) {
		summary_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void summary_free(struct summary *s)
{
	if (!s)
		return;
	free(s->diffs);
	pidmap_free(&s->win);
	free(s->over);
	free(s->lsum);
	free(s->lcount);
	free(s->bcount);
	free(s->hsum);
	free(s->hcount);
	free(s->symbol);
	free(s->target);
	free(s->kernel);
	free(s->fingerprint);
	free(s->machine);
	free(s->model);
	free(s->path);
	free(s);
}

static char *dup_meta(const frc_reader *r, const char *key)
{
	const char *v = frc_reader_meta_get(r, key);
	return v ? strdup(v) : NULL;
}

static int sum_begin(void *ctx, const struct replay_info *info)
{
	struct summary *s = ctx;
	const frc_reader *r = info->reader;

	s->path = strdup(info->path);
	s->model = dup_meta(r, "android.model");
	s->machine = dup_meta(r, "machine");
	s->fingerprint = dup_meta(r, "android.fingerprint");
	s->kernel = dup_meta(r, "kernel");
	s->target = dup_meta(r, "target");
	s->symbol = dup_meta(r, "symbol");
	if (!s->path)
		return -ENOMEM;
	s->stats = info->stats;
	s->windowed = info->windowed;
	s->span_start = info->span_start;
	s->span_end = info->span_end;
	/* a window's accounting counts its own records (sum_record) */
	if (s->windowed) {
		s->stats.records = 0;
		memset(s->stats.by_type, 0, sizeof(s->stats.by_type));
	}
	s->major = info->major;
	s->minor = info->minor;
	s->has_sysfs = info->has_sysfs;
	s->synthesize_ticks = info->synthesize_ticks;
	s->tick_ms = info->tick_ms;
	s->fps_max = info->config.meter.fps_max;
	/* a capture without the key was recorded before variants existed: with the default */
	snprintf(s->recorded_tracker, sizeof(s->recorded_tracker), "%s",
		 info->recorded_tracker[0] ? info->recorded_tracker : TRACKER_KIND_DEFAULT);
	s->fidelity_applies = !strcmp(info->tracker, s->recorded_tracker);
	return 0;
}

/* attach/exit start a new process lifetime: its jank window starts empty again. */
static void window_forget(struct summary *s, uint32_t pid)
{
	pidmap_del(&s->win, pid);
}

static int sum_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct summary *s = ctx;
	double v;

	if (s->windowed) {
		s->stats.records++;
		if (rec->type < sizeof(s->stats.by_type) / sizeof(s->stats.by_type[0]))
			s->stats.by_type[rec->type]++;
	}
	switch (rec->type) {
	case FRC_SYSFS:
		s->sysfs_count++;
		s->sysfs_errors += rec->u.sysfs.err != 0;
		if (!fps_meter_sysfs_value(rec->u.sysfs.err, rec->u.sysfs.raw, rec->u.sysfs.len,
					   s->fps_max, &v))
			s->sysfs_invalid++;
		break;
	case FRC_DROPS:
		s->drops = rec->u.drops.cumulative;
		s->batch_anomalies = rec->u.drops.batch_anomalies;
		break;
	case FRC_ATTACH:
		window_forget(s, rec->u.attach.pid);
		break;
	case FRC_EXIT:
		window_forget(s, rec->u.exit.pid);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * a + b, held at UINT64_MAX instead of wrapping: a hostile capture (a ktime jump of 2^63)
 * must not turn the sum of frame times into a small number (mean FPS of 10^9).
 */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Log-linear bucket of d: exact below 1024 ns, else 1024 buckets per power of two. */
static size_t log_bucket(uint64_t d)
{
	unsigned e;

	if (d < LOG_SUB)
		return (size_t)d;
	e = 63 - (unsigned)__builtin_clzll(d); /* 10..63 */
	return LOG_SUB + (size_t)(e - 10) * LOG_SUB + (size_t)((d >> (e - 10)) - LOG_SUB);
}

/*
 * What a percentile falling in log bucket i reports: the mean of its deltas, within the
 * bucket's width (1/1024 of the value) of the exact one, and exact when they are equal.
 */
static uint64_t log_bucket_value(const struct summary *s, size_t i)
{
	return (uint64_t)(s->lsum[i] / (double)s->lcount[i]);
}

static void log_add(struct summary *s, uint64_t d)
{
	size_t i = log_bucket(d);

	s->lcount[i]++;
	s->lsum[i] += (double)d;
}

static int add_over(struct summary *s, uint64_t d)
{
	if (!s->lcount && s->n_over == OVER_KEPT_MAX) {
		s->lcount = calloc(LOG_BUCKETS, sizeof(*s->lcount));
		s->lsum = calloc(LOG_BUCKETS, sizeof(*s->lsum));
		if (!s->lcount || !s->lsum)
			return -ENOMEM;
		for (size_t i = 0; i < s->n_over; i++)
			log_add(s, s->over[i]);
		free(s->over);
		s->over = NULL;
		s->n_over = s->cap_over = 0;
	}
	if (s->lcount) {
		log_add(s, d);
		return 0;
	}
	if (s->n_over == s->cap_over) {
		size_t ncap = s->cap_over ? s->cap_over * 2 : 64;
		uint64_t *no = realloc(s->over, ncap * sizeof(*no));
		if (!no)
			return -ENOMEM;
		s->over = no, s->cap_over = ncap;
	}
	s->over[s->n_over++] = d;
	return 0;
}

/* inline: once per frame time in sum_delta and summary_frame_time, kept out of a call */
static inline int add_frame_time(struct summary *s, uint64_t d)
{
	uint64_t b = d / BUCKET_NS;

	if (b < HIST_BUCKETS && s->hcount[b] < UINT32_MAX) {
		s->hcount[b]++;
		s->hsum[b] += d;
		s->bcount[b >> BLOCK_SHIFT]++;
	} else if (add_over(s, d)) {
		return -ENOMEM;
	}
	s->n++;
	s->sum_ns = sat_add(s->sum_ns, d);
	if (d > s->max_ns)
		s->max_ns = d;
	return 0;
}

/* PerfDog's rule (perfdog.h) on the same PID's deltas; v[0..3] is its window. */
static int check_jank(struct summary *s, uint32_t pid, uint64_t d)
{
	struct pidmap_entry *w = pidmap_get(&s->win, pid, true);
	enum perfdog_kind k;

	if (!w)
		return -ENOMEM;
	k = perfdog_push(w->v, d);
	if (k != PERFDOG_NONE) {
		s->janks++;
		s->jank_ns = sat_add(s->jank_ns, d);
		if (k == PERFDOG_BIGJANK)
			s->big_janks++;
	}
	return 0;
}

/*
 * Before the window: what the window's numbers start from, nothing counted (replay.h):
 * the cumulative drops at its start, the PIDs' lives and their PerfDog windows.
 */
static int sum_warm_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct summary *s = ctx;

	(void)frame_seq;
	if (rec->type == FRC_DROPS) {
		s->drops = s->drops_base = rec->u.drops.cumulative;
		s->batch_anomalies = s->batch_base = rec->u.drops.batch_anomalies;
	} else if (rec->type == FRC_ATTACH) {
		window_forget(s, rec->u.attach.pid);
	} else if (rec->type == FRC_EXIT) {
		window_forget(s, rec->u.exit.pid);
	}
	return 0;
}

/* A delta before the window: into its PID's PerfDog window only (a jank needs three). */
static int sum_warm_delta(void *ctx, const struct pipeline_delta *d)
{
	struct summary *s = ctx;
	struct pidmap_entry *w = pidmap_get(&s->win, d->pid, true);

	if (!w)
		return -ENOMEM;
	(void)perfdog_push(w->v, d->delta_ns);
	return 0;
}

int summary_frame_time(struct summary *s, uint64_t delta_ns)
{
	return add_frame_time(s, delta_ns);
}

static int sum_delta(void *ctx, const struct pipeline_delta *d)
{
	struct summary *s = ctx;
	int rc = add_frame_time(s, d->delta_ns);

	return rc ? rc : check_jank(s, d->pid, d->delta_ns);
}

static int sum_reading(void *ctx, const struct pipeline_reading *r)
{
	struct summary *s = ctx;
	uint8_t src = r->reading.valid ? (uint8_t)r->reading.source : FRC_SOURCE_NONE;
	uint64_t micro = r->reading.valid ? fps_to_micro(r->reading.fps) : 0;

	s->ticks++;
	if (src == FRC_SOURCE_NONE || src > FRC_SOURCE_EBPF) {
		s->none++;
	} else {
		struct source_stats *st = &s->src[src];
		if (st->count == 0 || micro < st->min_micro)
			st->min_micro = micro;
		if (micro > st->max_micro)
			st->max_micro = micro;
		st->count++;
		st->sum_micro += micro;
	}
	if (r->tick && r->tick->u.tick.has_result && s->fidelity_applies) {
		const struct frc_tick *t = &r->tick->u.tick;
		uint64_t live_micro = t->source == FRC_SOURCE_NONE ? 0 : t->fps_micro;
		s->live++;
		if (t->source == src && live_micro == micro) {
			s->reproduced++;
		} else {
			if (s->n_diffs < MAX_DIFFS_KEPT)
				s->diffs[s->n_diffs++] = (struct fidelity_diff){
				    r->tick_ns, t->source, src, live_micro, micro};
			s->mismatches++;
		}
	}
	return 0;
}

static int sum_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct summary *s = ctx;

	s->ps = *ps;
	return 0;
}

struct replay_sink summary_sink(struct summary *s)
{
	return (struct replay_sink){
	    .ctx = s,
	    .begin = sum_begin,
	    .record = sum_record,
	    .delta = sum_delta,
	    .reading = sum_reading,
	    .end = sum_end,
	    .warm_record = sum_warm_record,
	    .warm_delta = sum_warm_delta,
	};
}

/* ------------------------------------------------------------ derived numbers */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The rank-th smallest delta (1-based), from the histogram truncated to its microsecond
 * bucket, or exact when it is one of the long deltas kept one by one.
 */
static uint64_t value_at_rank(const struct summary *s, uint64_t rank)
{
	uint64_t seen = 0;

	for (uint32_t blk = 0; blk < HIST_BLOCKS; blk++) {
		if (seen + s->bcount[blk] < rank) {
			seen += s->bcount[blk];
			continue;
		}
		for (uint32_t b = blk << BLOCK_SHIFT;; b++) {
			seen += s->hcount[b];
			if (seen >= rank)
				return (uint64_t)b * BUCKET_NS;
		}
	}
	for (size_t i = 0; s->lcount && i < LOG_BUCKETS; i++) {
		seen += s->lcount[i];
		if (seen >= rank)
			return log_bucket_value(s, i);
	}
	return s->over[rank - seen - 1]; /* over is sorted by then */
}

/* Nearest-rank percentile: the ceil(p/100 * n)-th smallest delta. */
static uint64_t percentile(const struct summary *s, unsigned p)
{
	uint64_t rank = (s->n * p + 99) / 100;

	return value_at_rank(s, rank ? rank : 1);
}

/*
 * Mean of the slowest ceil(n/100) deltas. Whole buckets contribute their exact sum; from
 * the one bucket that is only partly among the slowest, each delta counts as that bucket's
 * mean (within 1 us of the exact value).
 */
static double slowest_mean_ns(const struct summary *s)
{
	uint64_t k = (s->n + 99) / 100, left = k;
	double sum = 0;

	for (size_t i = s->n_over; i-- > 0 && left > 0; left--)
		sum += (double)s->over[i];
	for (size_t i = s->lcount ? LOG_BUCKETS : 0; i-- > 0 && left > 0;) {
		uint64_t c = s->lcount[i];

		if (c <= left) {
			sum += s->lsum[i];
			left -= c;
		} else {
			sum += s->lsum[i] / (double)c * (double)left;
			left = 0;
		}
	}
	for (uint32_t b = HIST_BUCKETS; b-- > 0 && left > 0;) {
		if (!s->bcount[b >> BLOCK_SHIFT]) {
			/* An empty block: go to its first bucket; the loop goes on below it. */
			b &= ~((1u << BLOCK_SHIFT) - 1);
			continue;
		}
		uint64_t c = s->hcount[b];
		if (!c)
			continue;
		if (c <= left) {
			sum += (double)s->hsum[b];
			left -= c;
		} else {
			sum += (double)s->hsum[b] / (double)c * (double)left;
			left = 0;
		}
	}
	return sum / (double)k;
}

/* Reservation failures in the window (all of them without one); a counter reset: 0. */
static uint64_t drops_in(const struct summary *s)
{
	return s->drops > s->drops_base ? s->drops - s->drops_base : 0;
}

struct numbers {
	uint64_t p50, p90, p95, p99;
	double mean_fps, low1_fps;
	double loss_pct, stutter_pct;
};

static void compute(struct summary *s, struct numbers *n)
{
	uint64_t frames = s->stats.by_type[FRC_FRAME];

	memset(n, 0, sizeof(*n));
	if (s->n_over)
		qsort(s->over, s->n_over, sizeof(*s->over), cmp_u64);
	if (s->n) {
		n->p50 = percentile(s, 50);
		n->p90 = percentile(s, 90);
		n->p95 = percentile(s, 95);
		n->p99 = percentile(s, 99);
		n->mean_fps = (double)s->n * 1e9 / (double)s->sum_ns;
		n->low1_fps = 1e9 / slowest_mean_ns(s);
		n->stutter_pct = (double)s->jank_ns * 100.0 / (double)s->sum_ns;
	}
	/* in double: frames + drops overflows u64 for a (hostile) count near 2^64 */
	if (frames || drops_in(s))
		n->loss_pct = (double)drops_in(s) * 100.0 / ((double)frames + (double)drops_in(s));
}

void summary_frame_numbers(struct summary *s, struct summary_frame_numbers *out)
{
	struct numbers n;

	compute(s, &n);
	*out = (struct summary_frame_numbers){
	    .deltas = s->n,
	    .sum_ns = s->sum_ns,
	    .p50_ns = n.p50,
	    .p90_ns = n.p90,
	    .p95_ns = n.p95,
	    .p99_ns = n.p99,
	    .max_ns = s->max_ns,
	    .mean_fps = n.mean_fps,
	    .low1_fps = n.low1_fps,
	    .stutter_pct = n.stutter_pct,
	    .janks = s->janks,
	    .big_janks = s->big_janks,
	};
}

/* ------------------------------------------------------------ the view */

void summary_view(struct summary *s, struct summary_view *v)
{
	struct numbers n;

	compute(s, &n);
	summary_frame_numbers(s, &v->fn);
	v->path = s->path;
	v->model = s->model;
	v->machine = s->machine;
	v->fingerprint = s->fingerprint;
	v->kernel = s->kernel;
	v->target = s->target;
	v->symbol = s->symbol;
	v->stats = s->stats;
	v->major = s->major;
	v->minor = s->minor;
	v->has_sysfs = s->has_sysfs;
	v->synthesize_ticks = s->synthesize_ticks;
	v->tick_ms = s->tick_ms;
	v->drops = drops_in(s);
	v->loss_pct = n.loss_pct;
	v->jank_ns = s->jank_ns;
	v->ticks = s->ticks;
	v->none = s->none;
	for (int i = 0; i < 3; i++)
		v->src[i] = (struct summary_source){s->src[i].count, s->src[i].sum_micro,
						    s->src[i].min_micro, s->src[i].max_micro};
	v->lagged = s->ps.meter.lagged;
	v->lagged_deltas = s->ps.meter.lagged_deltas;
	v->sysfs_count = s->sysfs_count;
	v->sysfs_invalid = s->sysfs_invalid;
	v->sysfs_errors = s->sysfs_errors;
	v->batch_anomalies =
	    s->batch_anomalies > s->batch_base ? s->batch_anomalies - s->batch_base : 0;
	v->windowed = s->windowed;
	v->span_start = s->span_start;
	v->span_end = s->span_end;
	v->fidelity_applies = s->fidelity_applies;
	v->recorded_tracker = s->recorded_tracker;
	v->live = s->live;
	v->reproduced = s->reproduced;
	v->mismatches = s->mismatches;
	v->diffs = s->diffs;
	v->n_diffs = s->n_diffs;
}

/* ------------------------------------------------------------ formatting */

void summary_fmt_ms(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000;
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
}

void summary_fmt_micro(char *buf, size_t len, uint64_t micro)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, micro / 1000000, micro % 1000000);
}

void summary_fmt_fps3(char *buf, size_t len, uint64_t count, uint64_t sum_micro)
{
	/* mean of micro-FPS in FPS with 3 decimals, rounded half up, integer arithmetic */
	uint64_t milli = count ? (sum_micro + count * 500) / (count * 1000) : 0;
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, milli / 1000, milli % 1000);
}
