/* SPDX-License-Identifier: MIT */
/* replay.c - two streaming passes over a capture, every lane in the second; see replay.h. */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The per-record, per-delta and per-reading callbacks of a fanout's sinks, only those
 * present, in sink order: the loops run once per record and lane and once per delta, and
 * need not test and skip the sinks without one. sink: its index, for the error message.
 */
struct cb_record {
	int (*fn)(void *ctx, const struct frc_record *rec, uint64_t frame_seq);
	void *ctx;
	size_t sink;
};
struct cb_delta {
	int (*fn)(void *ctx, const struct pipeline_delta *d);
	void *ctx;
	size_t sink;
};
struct cb_reading {
	int (*fn)(void *ctx, const struct pipeline_reading *r);
	void *ctx;
	size_t sink;
};

struct fanout {
	const struct replay_sink *sinks;
	size_t n;
	int err;	 /* first sink failure */
	size_t err_sink; /* which sink failed */
	struct cb_record *rec, *warm_rec;
	struct cb_delta *delta, *warm_delta;
	struct cb_reading *reading;
	size_t n_rec, n_delta, n_reading, n_warm_rec, n_warm_delta;
	uint64_t lo, hi; /* the window (replay_info): lo <= ktime <= hi reaches the sinks */
};

/* The lists of f's callbacks (struct cb_*), built in storage the caller owns. */
struct cb_storage {
	struct cb_record *rec, *warm_rec;
	struct cb_delta *delta, *warm_delta;
	struct cb_reading *reading;
};

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	struct fanout *f = ctx;
	/* before the window: the warm callbacks; after it: nobody (replay_info.windowed) */
	bool in = d->ktime_ns >= f->lo;
	const struct cb_delta *cb = in ? f->delta : f->warm_delta;
	size_t n = in ? (d->ktime_ns <= f->hi ? f->n_delta : 0) : f->n_warm_delta;

	for (size_t i = 0; i < n && !f->err; i++) {
		if ((f->err = cb[i].fn(cb[i].ctx, d)))
			f->err_sink = cb[i].sink;
	}
}

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	struct fanout *f = ctx;

	if (r->tick_ns < f->lo || r->tick_ns > f->hi)
		return;
	for (size_t i = 0; i < f->n_reading && !f->err; i++) {
		if ((f->err = f->reading[i].fn(f->reading[i].ctx, r)))
			f->err_sink = f->reading[i].sink;
	}
}

/*
 * f's callback lists (struct cb_*), in storage for f->n of each (a NULL list: not that
 * one), and its window [lo, hi] (inclusive: a ktime of 2^64 - 1 is in a whole capture).
 */
static void fanout_lists(struct fanout *f, const struct cb_storage *cs, uint64_t lo, uint64_t hi)
{
	f->rec = cs->rec, f->delta = cs->delta, f->reading = cs->reading;
	f->warm_rec = cs->warm_rec, f->warm_delta = cs->warm_delta;
	f->n_rec = f->n_delta = f->n_reading = f->n_warm_rec = f->n_warm_delta = 0;
	f->lo = lo, f->hi = hi;
	for (size_t i = 0; i < f->n; i++) {
		const struct replay_sink *s = &f->sinks[i];

		if (s->record && cs->rec)
			f->rec[f->n_rec++] = (struct cb_record){s->record, s->ctx, i};
		if (s->delta && cs->delta)
			f->delta[f->n_delta++] = (struct cb_delta){s->delta, s->ctx, i};
		if (s->reading && cs->reading)
			f->reading[f->n_reading++] = (struct cb_reading){s->reading, s->ctx, i};
		if (s->warm_record && cs->warm_rec)
			f->warm_rec[f->n_warm_rec++] =
			    (struct cb_record){s->warm_record, s->ctx, i};
		if (s->warm_delta && cs->warm_delta)
			f->warm_delta[f->n_warm_delta++] =
			    (struct cb_delta){s->warm_delta, s->ctx, i};
	}
}

/* Every sink's begin until one fails (f->err). */
static void fanout_begin(struct fanout *f, const struct replay_info *info)
{
	for (size_t i = 0; i < f->n && !f->err; i++) {
		if (f->sinks[i].begin && (f->err = f->sinks[i].begin(f->sinks[i].ctx, info)))
			f->err_sink = i;
	}
}

/* Every sink's end until one fails (f->err). */
static void fanout_end(struct fanout *f, const struct replay_info *info,
		       const struct pipeline_stats *ps)
{
	for (size_t i = 0; i < f->n && !f->err; i++) {
		if (f->sinks[i].end && (f->err = f->sinks[i].end(f->sinks[i].ctx, info, ps)))
			f->err_sink = i;
	}
}

/*
 * Every sink's record callback until one fails (f->err), or with a window its warm_record
 * for a record before it and none after it; inline: once per record and lane.
 */
static inline void fanout_record(struct fanout *f, const struct frc_record *rec, uint64_t frame_seq)
{
	bool in = rec->ktime_ns >= f->lo;
	const struct cb_record *cb = in ? f->rec : f->warm_rec;
	size_t n = in ? (rec->ktime_ns <= f->hi ? f->n_rec : 0) : f->n_warm_rec;

	for (size_t i = 0; i < n && !f->err; i++) {
		if ((f->err = cb[i].fn(cb[i].ctx, rec, frame_seq)))
			f->err_sink = cb[i].sink;
	}
}

/* A pipeline failure as a one-line message. */
static void pipeline_message(char *err, size_t errlen, const char *path, int rc,
			     const struct pipeline_config *cfg)
{
	if (rc == -EOVERFLOW)
		snprintf(err, errlen,
			 "%s: the capture spans more than %" PRIu64 " synthesized ticks of %" PRIu32
			 " ms (a ktime jump?); try a larger --tick-ms",
			 path, (uint64_t)cfg->max_synth_ticks, cfg->tick_ms);
	else
		snprintf(err, errlen, "%s: pipeline: %s", path, strerror(-rc));
}

static void sink_message(const struct fanout *f, char *err, size_t errlen, const char *path)
{
	const struct replay_sink *s = &f->sinks[f->err_sink];
	const char *m = s->error ? s->error(s->ctx) : NULL;

	if (m && *m)
		snprintf(err, errlen, "%s", m);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-f->err));
}

/*
 * Pass 1: read every record, keep only counts (and give the records to the scan sinks). A
 * corrupt capture (or a read error) fails here, before any lane's sink has seen a record,
 * so no sink writes partial garbage. A scan sink's failure leaves the reading going on:
 * corruption found later is still the answer, as when the counting was a replay of its own.
 */
static int scan(const char *path, struct replay_info *info, struct fanout *sf, char *err,
		size_t errlen)
{
	frc_reader *r = NULL;
	struct frc_record rec;
	uint64_t frame_seq = 0;
	int rc;

	rc = frc_reader_open(&r, path);
	if (rc) {
		snprintf(err, errlen, "%s", r ? frc_reader_error(r) : frc_strerror(rc));
		goto cleanup;
	}
	while ((rc = frc_reader_next(r, &rec)) > 0) {
		if (sf->n_rec && !sf->err)
			fanout_record(sf, &rec, frame_seq);
		frame_seq += rec.type == FRC_FRAME;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", frc_reader_error(r));
		goto cleanup;
	}
	frc_reader_stats(r, &info->stats);
	frc_reader_version(r, &info->major, &info->minor);
	if (info->stats.status == FRC_STATUS_CORRUPT) {
		snprintf(err, errlen, "%s", frc_reader_error(r));
		rc = FRC_ECORRUPT;
		goto cleanup;
	}
	info->has_sysfs =
	    frc_reader_meta_get(r, "sysfs.node") != NULL || info->stats.by_type[FRC_SYSFS] > 0;
	if (frc_reader_meta_get(r, "tracker"))
		snprintf(info->recorded_tracker, sizeof(info->recorded_tracker), "%s",
			 frc_reader_meta_get(r, "tracker"));
	if (frc_reader_meta_get(r, "meter"))
		snprintf(info->recorded_meter, sizeof(info->recorded_meter), "%s",
			 frc_reader_meta_get(r, "meter"));
	info->synthesize_ticks = info->stats.by_type[FRC_TICK] == 0;
cleanup:
	frc_reader_close(r);
	return rc;
}

/* Pass 1 of an in-memory replay: the counts and decisions scan() takes from a file. */
static void scan_records(const struct replay_source *src, struct replay_info *info,
			 struct fanout *sf)
{
	uint64_t frame_seq = 0;

	info->stats.status = FRC_STATUS_COMPLETE;
	info->stats.records = src->n;
	info->stats.first_ktime_ns = src->n ? UINT64_MAX : 0;
	for (size_t i = 0; i < src->n; i++) {
		const struct frc_record *r = &src->recs[i];

		if (r->type < sizeof(info->stats.by_type) / sizeof(info->stats.by_type[0]))
			info->stats.by_type[r->type]++;
		if (r->ktime_ns < info->stats.first_ktime_ns)
			info->stats.first_ktime_ns = r->ktime_ns;
		if (r->ktime_ns > info->stats.last_ktime_ns)
			info->stats.last_ktime_ns = r->ktime_ns;
		if (sf->n_rec && !sf->err)
			fanout_record(sf, r, frame_seq);
		frame_seq += r->type == FRC_FRAME;
	}
	info->has_sysfs = info->stats.by_type[FRC_SYSFS] > 0;
	info->synthesize_ticks = info->stats.by_type[FRC_TICK] == 0;
	info->major = FRC_FORMAT_MAJOR;
	info->minor = FRC_FORMAT_MINOR;
}

/* The pipeline's configuration from what pass 1 learned and the options (replay.h). */
static void setup_config(struct replay_info *info, const struct replay_options *opt)
{
	const char *tracker = opt ? opt->tracker_name : NULL;
	const char *meter = opt ? opt->meter_name : NULL;

	if (!tracker && info->recorded_tracker[0])
		tracker = info->recorded_tracker;
	if (!meter && info->recorded_meter[0])
		meter = info->recorded_meter;
	pipeline_config_default(&info->config);
	if (opt && opt->synth_ticks)
		info->synthesize_ticks = true;
	info->tick_ms = opt && opt->tick_ms ? opt->tick_ms : info->config.tick_ms;
	info->config.tick_ms = info->tick_ms;
	info->config.has_sysfs = info->has_sysfs;
	info->config.synthesize_ticks = info->synthesize_ticks;
	info->config.tracker_name = tracker;
	info->tracker = tracker ? tracker : TRACKER_KIND_DEFAULT;
	info->config.meter_name = meter;
	info->meter = meter ? meter : METER_KIND_DEFAULT;
	info->span_start = info->stats.first_ktime_ns;
	info->span_end = info->stats.last_ktime_ns;
	if (opt)
		info->truth = opt->truth;
}

/* "S.mmm" seconds of ns, for a message. */
static void fmt_s(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000000u, ns / 1000000u % 1000u);
}

/*
 * The window of opt over the capture pass 1 measured (replay.h): span_start..span_end, or
 * REPLAY_EWINDOW with a message naming the option when it does not fit the capture.
 */
static int setup_window(struct replay_info *info, const struct replay_options *opt, char *err,
			size_t errlen)
{
	const struct replay_window *w = opt ? &opt->window : NULL;
	uint64_t first = info->stats.first_ktime_ns, dur = info->stats.last_ktime_ns - first;
	uint64_t from, to;
	char a[32], b[32], d[32];

	if (!w || (!w->from_set && !w->to_set))
		return 0;
	from = w->from_set ? w->from_ns : 0;
	to = !w->to_set ? dur : w->to_relative ? from + w->to_ns : w->to_ns;
	fmt_s(a, sizeof(a), from), fmt_s(b, sizeof(b), to), fmt_s(d, sizeof(d), dur);
	if (w->from_set && from >= dur)
		snprintf(err, errlen,
			 "--from %s s: not before the end of %s (%s s after its start)", a,
			 info->path, d);
	else if (to > dur || (w->to_relative && to < from))
		snprintf(err, errlen, "--to %s s: after the end of %s (%s s after its start)", b,
			 info->path, d);
	else if (to <= from)
		snprintf(err, errlen, "--to %s s: not after --from %s s", b, a);
	else {
		info->windowed = true;
		info->span_start = first + from;
		info->span_end = first + to;
		return 0;
	}
	return REPLAY_EWINDOW;
}

/*
 * The window's sink bounds, lo <= ktime <= hi: [span_start, span_end) with --to, else
 * everything from span_start on (the capture's last record is in).
 */
static void window_bounds(const struct replay_info *info, const struct replay_options *opt,
			  uint64_t *lo, uint64_t *hi)
{
	*lo = info->windowed ? info->span_start : 0;
	*hi = info->windowed && opt->window.to_set ? info->span_end - 1 : UINT64_MAX;
}

/*
 * The lanes of one tracker and meter: one pipeline, and the lanes' sinks one after the
 * other in lane order, behind one fanout (replay.h: such lanes share a pipeline).
 */
struct group {
	struct replay_info info;
	struct fanout f;
	struct pipeline *p;
};

/* One replay: the plan's groups, fed by either source (a file's second pass, records). */
struct replay_run_state {
	struct replay_info info; /* pass 1's; each group's info is a copy with its tracker */
	const struct replay_plan *plan;
	struct group *g;
	size_t n_groups;
	struct fanout lead;	   /* the plan's lead sinks */
	struct replay_sink *sinks; /* storage of the groups' sink lists */
	struct cb_record *cb_rec;  /* storage of the groups' callback lists */
	struct cb_delta *cb_delta;
	struct cb_reading *cb_reading;
	struct cb_record *cb_warm_rec;
	struct cb_delta *cb_warm_delta;
	uint64_t lo, hi;	     /* the sinks' window, inclusive (window_bounds) */
	const struct fanout *failed; /* the fanout whose sink failed first */
	uint64_t frame_seq, records;
	char *err;
	size_t errlen;
};

/* The tracker lane i replays: its own, else the replay's (setup_config). */
static const char *lane_tracker(const struct replay_run_state *st, size_t i)
{
	const char *name = st->plan->lanes[i].tracker_name;

	return name ? name : st->info.tracker;
}

/* The meter lane i replays: its own, else the replay's (setup_config). */
static const char *lane_meter(const struct replay_run_state *st, size_t i)
{
	const char *name = st->plan->lanes[i].meter_name;

	return name ? name : st->info.meter;
}

/* Does lane i replay group g's tracker and meter? */
static bool lane_in_group(const struct replay_run_state *st, size_t i, const struct group *g)
{
	return !strcmp(lane_tracker(st, i), g->info.tracker) &&
	       !strcmp(lane_meter(st, i), g->info.meter);
}

/* The sinks of every lane replaying group g's variants, appended at st->sinks + *used. */
static void group_sinks(struct replay_run_state *st, struct group *g, size_t *used)
{
	size_t first = *used;

	g->f.sinks = st->sinks + first;
	for (size_t i = 0; i < st->plan->n_lanes; i++) {
		const struct replay_lane *l = &st->plan->lanes[i];

		if (!lane_in_group(st, i, g))
			continue;
		if (l->n_sinks)
			memcpy(st->sinks + *used, l->sinks, l->n_sinks * sizeof(*l->sinks));
		*used += l->n_sinks;
		g->f.n += l->n_sinks;
	}
	fanout_lists(&g->f,
		     &(struct cb_storage){st->cb_rec + first, st->cb_warm_rec + first,
					  st->cb_delta + first, st->cb_warm_delta + first,
					  st->cb_reading + first},
		     st->lo, st->hi);
}

/* A group's variants from lane i: its own names, else the replay's (the copy's strings). */
static void group_names(struct replay_run_state *st, struct group *g, size_t i)
{
	const struct replay_lane *l = &st->plan->lanes[i];

	if (l->tracker_name) {
		g->info.config.tracker_name = l->tracker_name;
		g->info.tracker = l->tracker_name;
	} else if (st->info.config.tracker_name == st->info.recorded_tracker) {
		/* the copy's own string: the unknown-tracker message tells them apart */
		g->info.config.tracker_name = g->info.recorded_tracker;
		g->info.tracker = g->info.recorded_tracker;
	}
	if (l->meter_name) {
		g->info.config.meter_name = l->meter_name;
		g->info.meter = l->meter_name;
	} else if (st->info.config.meter_name == st->info.recorded_meter) {
		g->info.config.meter_name = g->info.recorded_meter;
		g->info.meter = g->info.recorded_meter;
	}
}

/* One group per distinct tracker and meter, in the order of the lanes naming them first. */
static int groups_build(struct replay_run_state *st)
{
	size_t n = st->plan->n_lanes, total = 0, used = 0;

	for (size_t i = 0; i < n; i++)
		total += st->plan->lanes[i].n_sinks;
	total += st->plan->n_lead + !total; /* the lead sinks' callbacks go last */
	st->g = calloc(n ? n : 1, sizeof(*st->g));
	st->sinks = calloc(total, sizeof(*st->sinks));
	st->cb_rec = calloc(total, sizeof(*st->cb_rec));
	st->cb_delta = calloc(total, sizeof(*st->cb_delta));
	st->cb_reading = calloc(total, sizeof(*st->cb_reading));
	st->cb_warm_rec = calloc(total, sizeof(*st->cb_warm_rec));
	st->cb_warm_delta = calloc(total, sizeof(*st->cb_warm_delta));
	if (!st->g || !st->sinks || !st->cb_rec || !st->cb_delta || !st->cb_reading ||
	    !st->cb_warm_rec || !st->cb_warm_delta) {
		snprintf(st->err, st->errlen, "%s: out of memory", st->info.path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct group *g;
		size_t k;

		for (k = 0; k < st->n_groups && !lane_in_group(st, i, &st->g[k]); k++)
			;
		if (k < st->n_groups)
			continue;
		g = &st->g[st->n_groups++];
		g->info = st->info;
		group_names(st, g, i);
		group_sinks(st, g, &used);
	}
	st->lead = (struct fanout){.sinks = st->plan->lead, .n = st->plan->n_lead};
	fanout_lists(
	    &st->lead,
	    &(struct cb_storage){.rec = st->cb_rec + used, .warm_rec = st->cb_warm_rec + used},
	    st->lo, st->hi);
	return 0;
}

/* An unknown meter (recorded or asked for), naming every variant. */
static void unknown_meter(struct replay_run_state *st, const struct group *g)
{
	char names[256];

	meter_kind_names(names, sizeof(names));
	if (g->info.config.meter_name == g->info.recorded_meter)
		snprintf(st->err, st->errlen,
			 "%s: recorded with meter '%s', which this frameanalyze does not know "
			 "(known: %s); replay one of those with --meter NAME",
			 g->info.path, g->info.recorded_meter, names);
	else
		snprintf(st->err, st->errlen, "unknown meter '%s' (known: %s)",
			 g->info.config.meter_name, names);
}

/* Group g's pipeline; an unknown tracker or meter names every variant. */
static int group_pipeline(struct replay_run_state *st, struct group *g)
{
	struct pipeline_callbacks cb = {on_delta, on_reading};
	int rc = pipeline_new(&g->p, &g->info.config, &cb, &g->f);

	if (rc == -ENOENT && !meter_kind_find(g->info.meter)) {
		unknown_meter(st, g);
		return rc;
	}
	if (rc == -ENOENT) {
		char names[256];

		tracker_kind_names(names, sizeof(names));
		if (g->info.config.tracker_name == g->info.recorded_tracker)
			snprintf(st->err, st->errlen,
				 "%s: recorded with tracker '%s', which this frameanalyze does not "
				 "know (known: %s); replay one of those with --tracker NAME",
				 g->info.path, g->info.recorded_tracker, names);
		else
			snprintf(st->err, st->errlen, "unknown tracker '%s' (known: %s)",
				 g->info.config.tracker_name, names);
		return rc;
	}
	if (rc == -EINVAL && g->info.config.target)
		snprintf(st->err, st->errlen,
			 "%s: metadata target.pid is not a list of PIDs (PID[,PID...])",
			 g->info.path);
	else if (rc)
		snprintf(st->err, st->errlen, "%s: cannot create the pipeline: %s", g->info.path,
			 strerror(-rc));
	return rc;
}

/* Every group's pipeline, then its sinks' begin (a sink failure is reported at the end). */
static int replay_begin(struct replay_run_state *st, const frc_reader *r)
{
	/* The target PIDs framerec wrote (pipeline.h): the live pipeline had the same. */
	st->info.config.target = r ? frc_reader_meta_get(r, "target.pid") : NULL;
	for (size_t k = 0; k < st->n_groups && !st->failed; k++) {
		struct group *g = &st->g[k];
		int rc;

		g->info.config.target = st->info.config.target;
		rc = group_pipeline(st, g);

		if (rc)
			return rc;
		g->info.reader = r;
		fanout_begin(&g->f, &g->info);
		if (g->f.err)
			st->failed = &g->f;
	}
	st->info.reader = r;
	if (!st->failed)
		fanout_begin(&st->lead, &st->info);
	if (st->lead.err)
		st->failed = &st->lead;
	return 0;
}

/* One record: for each group its sinks' record callbacks, then its pipeline (file order). */
static int replay_feed(struct replay_run_state *st, const struct frc_record *rec)
{
	if (st->lead.n_rec || st->lead.n_warm_rec) {
		fanout_record(&st->lead, rec, st->frame_seq);
		if (st->lead.err) {
			st->failed = &st->lead;
			return 0;
		}
	}
	for (size_t k = 0; k < st->n_groups; k++) {
		struct group *g = &st->g[k];
		int rc;

		fanout_record(&g->f, rec, st->frame_seq);
		if (!g->f.err && (rc = pipeline_feed(g->p, rec)) != 0) {
			pipeline_message(st->err, st->errlen, g->info.path, rc, &g->info.config);
			return rc;
		}
		if (g->f.err) { /* a record or a delta/reading callback failed */
			st->failed = &g->f;
			return 0;
		}
	}
	st->frame_seq += rec->type == FRC_FRAME;
	st->records++;
	return 0;
}

/* The end: each group's ticks still due, then its sinks' end; a sink failure is the result. */
static int replay_end(struct replay_run_state *st)
{
	for (size_t k = 0; k < st->n_groups && !st->failed; k++) {
		struct group *g = &st->g[k];
		struct pipeline_stats ps;
		int rc = pipeline_finish(g->p);

		if (rc) {
			pipeline_message(st->err, st->errlen, g->info.path, rc, &g->info.config);
			return rc;
		}
		pipeline_stats(g->p, &ps);
		fanout_end(&g->f, &g->info, &ps);
		if (g->f.err)
			st->failed = &g->f;
	}
	if (!st->failed) {
		struct pipeline_stats none = {0};

		fanout_end(&st->lead, &st->info, &none);
		if (st->lead.err)
			st->failed = &st->lead;
	}
	if (st->failed) {
		sink_message(st->failed, st->err, st->errlen, st->info.path);
		return st->failed->err < 0 ? st->failed->err : -EIO;
	}
	return 0;
}

/* Pass 2 over the file: every record through the groups' sinks and pipelines. */
static int replay_file(struct replay_run_state *st, const char *path)
{
	struct frc_record rec;
	frc_reader *r = NULL;
	int rc = frc_reader_open(&r, path);

	if (rc) {
		snprintf(st->err, st->errlen, "%s", r ? frc_reader_error(r) : frc_strerror(rc));
		goto cleanup;
	}
	rc = replay_begin(st, r);
	while (!rc && !st->failed && (rc = frc_reader_next(r, &rec)) > 0)
		rc = replay_feed(st, &rec);
	if (rc < 0) {
		/* The reader's codes are FRC_E*; the pipeline's (-errno) left their message. */
		if (frc_is_error_code(rc))
			snprintf(st->err, st->errlen, "%s", frc_reader_error(r));
		goto cleanup;
	}
	if (!st->failed && st->records != st->info.stats.records) {
		/* The file changed between the passes. */
		snprintf(st->err, st->errlen, "%s: the file changed while it was read", path);
		rc = FRC_EIO;
		goto cleanup;
	}
	rc = replay_end(st);
cleanup:
	frc_reader_close(r);
	return rc;
}

/* Pass 2 from records in memory: the same steps without a reader. */
static int replay_records(struct replay_run_state *st, const struct replay_source *src)
{
	int rc = replay_begin(st, NULL);

	for (size_t k = 0; !rc && k < src->n && !st->failed; k++)
		rc = replay_feed(st, &src->recs[k]);
	return rc ? rc : replay_end(st);
}

/* After pass 1: a scan sink's failure, else the scan sinks' end. */
static int scan_end(struct replay_run_state *st, struct fanout *sf)
{
	struct pipeline_stats ps = {0};

	if (!sf->err)
		fanout_end(sf, &st->info, &ps);
	if (!sf->err)
		return 0;
	sink_message(sf, st->err, st->errlen, st->info.path);
	return sf->err < 0 ? sf->err : -EIO;
}

int replay_run_plan(const struct replay_source *src, const struct replay_options *opt,
		    const struct replay_plan *plan, char *err, size_t errlen)
{
	struct replay_run_state st = {
	    .info = {.path = src->path}, .plan = plan, .err = err, .errlen = errlen};
	struct fanout sf = {.sinks = plan->scan, .n = plan->n_scan};
	struct cb_record *scan_cb = calloc(plan->n_scan + 1, sizeof(*scan_cb));
	int rc = 0;

	if (!scan_cb) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		return -ENOMEM;
	}
	/* the scan sinks count the whole capture: the window is known only at its end */
	fanout_lists(&sf, &(struct cb_storage){.rec = scan_cb}, 0, UINT64_MAX);
	if (src->recs)
		scan_records(src, &st.info, &sf);
	else
		rc = scan(src->path, &st.info, &sf, err, errlen);
	if (!rc) {
		setup_config(&st.info, opt);
		rc = setup_window(&st.info, opt, err, errlen);
	}
	if (!rc) {
		window_bounds(&st.info, opt, &st.lo, &st.hi);
		rc = scan_end(&st, &sf);
	}
	free(scan_cb);
	if (rc || !plan->n_lanes)
		return rc;
	rc = groups_build(&st);
	if (!rc)
		rc = src->recs ? replay_records(&st, src) : replay_file(&st, src->path);
	for (size_t k = 0; k < st.n_groups; k++)
		pipeline_free(st.g[k].p);
	free(st.g);
	free(st.sinks);
	free(st.cb_rec);
	free(st.cb_delta);
	free(st.cb_reading);
	free(st.cb_warm_rec);
	free(st.cb_warm_delta);
	return rc;
}

int replay_run_source(const struct replay_source *src, const struct replay_options *opt,
		      const struct replay_sink *sinks, size_t n_sinks, char *err, size_t errlen)
{
	struct replay_lane lane = {NULL, sinks, n_sinks, NULL};
	struct replay_plan plan = {.lanes = &lane, .n_lanes = 1};

	return replay_run_plan(src, opt, &plan, err, errlen);
}

int replay_run(const char *path, const struct replay_options *opt, const struct replay_sink *sinks,
	       size_t n_sinks, char *err, size_t errlen)
{
	struct replay_source src = {.path = path};

	return replay_run_source(&src, opt, sinks, n_sinks, err, errlen);
}
