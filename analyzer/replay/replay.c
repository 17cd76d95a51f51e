/* SPDX-License-Identifier: MIT */
/* replay.c - two streaming passes over a capture; see replay.h. */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fanout {
	const struct replay_sink *sinks;
	size_t n;
	int err;	 /* first sink failure */
	size_t err_sink; /* which sink failed */
};

static void on_delta(void *ctx, const struct pipeline_delta *d)
{
	struct fanout *f = ctx;

	for (size_t i = 0; i < f->n && !f->err; i++) {
		if (f->sinks[i].delta && (f->err = f->sinks[i].delta(f->sinks[i].ctx, d)))
			f->err_sink = i;
	}
}

static void on_reading(void *ctx, const struct pipeline_reading *r)
{
	struct fanout *f = ctx;

	for (size_t i = 0; i < f->n && !f->err; i++) {
		if (f->sinks[i].reading && (f->err = f->sinks[i].reading(f->sinks[i].ctx, r)))
			f->err_sink = i;
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
 * Pass 1: read every record, keep only counts. A corrupt capture (or a read error) fails
 * here, before any sink has seen a record, so no sink writes partial garbage.
 */
static int scan(const char *path, struct replay_info *info, char *err, size_t errlen)
{
	frc_reader *r = NULL;
	struct frc_record rec;
	int rc;

	rc = frc_reader_open(&r, path);
	if (rc) {
		snprintf(err, errlen, "%s", r ? frc_reader_error(r) : frc_strerror(rc));
		goto cleanup;
	}
	while ((rc = frc_reader_next(r, &rec)) > 0)
		;
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
	info->synthesize_ticks = info->stats.by_type[FRC_TICK] == 0;
cleanup:
	frc_reader_close(r);
	return rc;
}

/* The pipeline's configuration from what pass 1 learned and the options (replay.h). */
static void setup_config(struct replay_info *info, const struct replay_options *opt)
{
	const char *tracker = opt ? opt->tracker_name : NULL;

	if (!tracker && info->recorded_tracker[0])
		tracker = info->recorded_tracker;
	pipeline_config_default(&info->config);
	info->tick_ms = opt && opt->tick_ms ? opt->tick_ms : info->config.tick_ms;
	info->config.tick_ms = info->tick_ms;
	info->config.has_sysfs = info->has_sysfs;
	info->config.synthesize_ticks = info->synthesize_ticks;
	info->config.tracker_name = tracker;
	info->tracker = tracker ? tracker : TRACKER_KIND_DEFAULT;
}

/*
 * One replay: the pipeline and the fanout around the sinks. Both sources (a file's second
 * pass, records in memory) go through these same steps.
 */
struct replay_run_state {
	struct replay_info info;
	struct fanout f;
	struct pipeline *p;
	uint64_t frame_seq, records;
	char *err;
	size_t errlen;
};

/* The pipeline for info's config; an unknown tracker names every variant. */
static int replay_begin(struct replay_run_state *st)
{
	struct pipeline_callbacks cb = {on_delta, on_reading};
	int rc = pipeline_new(&st->p, &st->info.config, &cb, &st->f);

	if (rc == -ENOENT) {
		char names[256];

		tracker_kind_names(names, sizeof(names));
		if (st->info.config.tracker_name == st->info.recorded_tracker)
			snprintf(st->err, st->errlen,
				 "%s: recorded with tracker '%s', which this frameanalyze does not "
				 "know (known: %s); replay one of those with --tracker NAME",
				 st->info.path, st->info.recorded_tracker, names);
		else
			snprintf(st->err, st->errlen, "unknown tracker '%s' (known: %s)",
				 st->info.config.tracker_name, names);
		return rc;
	}
	if (rc) {
		snprintf(st->err, st->errlen, "%s: cannot create the pipeline: %s", st->info.path,
			 strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < st->f.n && !st->f.err; i++) {
		const struct replay_sink *k = &st->f.sinks[i];

		if (k->begin && (st->f.err = k->begin(k->ctx, &st->info)))
			st->f.err_sink = i;
	}
	return 0;
}

/* One record: every sink's record callback first, then the pipeline (file order). */
static int replay_feed(struct replay_run_state *st, const struct frc_record *rec)
{
	int rc;

	for (size_t i = 0; i < st->f.n && !st->f.err; i++) {
		const struct replay_sink *k = &st->f.sinks[i];

		if (k->record && (st->f.err = k->record(k->ctx, rec, st->frame_seq)))
			st->f.err_sink = i;
	}
	st->frame_seq += rec->type == FRC_FRAME;
	st->records++;
	if (!st->f.err && (rc = pipeline_feed(st->p, rec)) != 0) {
		pipeline_message(st->err, st->errlen, st->info.path, rc, &st->info.config);
		return rc;
	}
	return 0;
}

/* The end: the ticks still due, then every sink's end; a sink failure becomes the result. */
static int replay_end(struct replay_run_state *st)
{
	struct pipeline_stats ps;
	int rc;

	if (!st->f.err && (rc = pipeline_finish(st->p)) != 0) {
		pipeline_message(st->err, st->errlen, st->info.path, rc, &st->info.config);
		return rc;
	}
	pipeline_stats(st->p, &ps);
	for (size_t i = 0; i < st->f.n && !st->f.err; i++) {
		const struct replay_sink *k = &st->f.sinks[i];

		if (k->end && (st->f.err = k->end(k->ctx, &st->info, &ps)))
			st->f.err_sink = i;
	}
	if (st->f.err) {
		sink_message(&st->f, st->err, st->errlen, st->info.path);
		return st->f.err < 0 ? st->f.err : -EIO;
	}
	return 0;
}

/* Pass 2 over the file: every record through the sinks and the pipeline. */
static int replay_file(struct replay_run_state *st, const char *path)
{
	struct frc_record rec;
	frc_reader *r = NULL;
	int rc = frc_reader_open(&r, path);

	if (rc) {
		snprintf(st->err, st->errlen, "%s", r ? frc_reader_error(r) : frc_strerror(rc));
		goto cleanup;
	}
	st->info.reader = r;
	rc = replay_begin(st);
	while (!rc && !st->f.err && (rc = frc_reader_next(r, &rec)) > 0)
		rc = replay_feed(st, &rec);
	if (rc < 0) {
		/* The reader's codes are FRC_E*; the pipeline's (-errno) left their message. */
		if (frc_is_error_code(rc))
			snprintf(st->err, st->errlen, "%s", frc_reader_error(r));
		goto cleanup;
	}
	if (!st->f.err && st->records != st->info.stats.records) {
		/* The file changed between the passes. */
		snprintf(st->err, st->errlen, "%s: the file changed while it was read", path);
		rc = FRC_EIO;
		goto cleanup;
	}
	rc = replay_end(st);
cleanup:
	pipeline_free(st->p);
	st->p = NULL;
	frc_reader_close(r);
	return rc;
}

int replay_run(const char *path, const struct replay_options *opt, const struct replay_sink *sinks,
	       size_t n_sinks, char *err, size_t errlen)
{
	struct replay_run_state st = {
	    .info = {.path = path}, .f = {sinks, n_sinks, 0, 0}, .err = err, .errlen = errlen};
	int rc = scan(path, &st.info, err, errlen);

	if (rc)
		return rc < 0 ? rc : FRC_ECORRUPT;
	setup_config(&st.info, opt);
	return replay_file(&st, path);
}

/* Pass 1 of an in-memory replay: the counts and decisions scan() takes from a file. */
static void scan_records(const struct replay_source *src, struct replay_info *info)
{
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
	}
	info->has_sysfs = info->stats.by_type[FRC_SYSFS] > 0;
	info->synthesize_ticks = info->stats.by_type[FRC_TICK] == 0;
	info->major = FRC_FORMAT_MAJOR;
	info->minor = FRC_FORMAT_MINOR;
}

/* Pass 2 of an in-memory replay: as in replay_run, records to the sinks, then the pipeline. */
int replay_run_source(const struct replay_source *src, const struct replay_options *opt,
		      const struct replay_sink *sinks, size_t n_sinks, char *err, size_t errlen)
{
	struct replay_run_state st = {
	    .info = {.path = src->path}, .f = {sinks, n_sinks, 0, 0}, .err = err, .errlen = errlen};
	int rc;

	if (!src->recs)
		return replay_run(src->path, opt, sinks, n_sinks, err, errlen);
	scan_records(src, &st.info);
	setup_config(&st.info, opt);
	rc = replay_begin(&st);
	for (size_t k = 0; !rc && k < src->n && !st.f.err; k++)
		rc = replay_feed(&st, &src->recs[k]);
	if (!rc)
		rc = replay_end(&st);
	pipeline_free(st.p);
	return rc;
}
