/* SPDX-License-Identifier: MIT */
/* report_model.c - run the replays that fill a report model (see report_model.h). */
#include "report_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "report_chart.h"
#include "score.h"
#include "tracker_kind.h"
#include "submissions.h"
#include "windows.h"

#define MODEL_MAX_EXTRA 4

/*
 * The report replay's own sink: the per-surface table, the charts, the seconds, and the
 * truth series of the main PID into the submissions' summary (the sink's own steps, not a
 * chain of sinks: they run for every record).
 */
struct model_sink {
	struct report_model *m;
	struct replay_sink sub; /* the submissions' summary, fed by the truth */
	size_t last;		/* surfaces[last]: the surface of the previous frame */
	/*
	 * Fill the charts (the page's model): the text, JSON, golden and compare views never
	 * draw them, and they cost more per record than the numbers do. The seconds are
	 * counted either way (the views print them).
	 */
	bool charted;
	/* the full windows (windows.h) and the frame times of the current one */
	struct win_clock clk;
	uint64_t cur_sub, cur_trk;
	/* the current name of each thread named by a thread record (FORMAT.md 4.9) */
	struct {
		uint32_t pid, tid;
		uint32_t gen; /* names it had so far: a surface copies a name when it changed */
		char name[FRC_THREAD_NAME_MAX + 1];
	} thr[REPORT_MAX_THREADS];
	size_t n_thr;
	/*
	 * The latest buffer records (FORMAT.md 4.10): framerec writes one just before the
	 * buffer's first frame, so the frame that makes a buffer new to its surface finds it
	 * here; a geometry change of a known buffer updates its surface at once.
	 */
	struct frc_buffer geo[REPORT_GEOMETRY_RECENT];
	size_t n_geo, next_geo;
	char err[FRC_MSG_MAX];
};

static struct report_surface *surface_of(struct model_sink *ms, uint32_t pid, uint64_t surface)
{
	struct report_model *m = ms->m;

	/* frames come in long runs of one surface: the previous one first */
	if (ms->last < m->n_surfaces && m->surfaces[ms->last].pid == pid &&
	    m->surfaces[ms->last].surface == surface)
		return &m->surfaces[ms->last];
	for (size_t i = 0; i < m->n_surfaces; i++)
		if (m->surfaces[i].pid == pid && m->surfaces[i].surface == surface)
			return &m->surfaces[ms->last = i];
	if (m->n_surfaces == REPORT_MAX_SURFACES)
		return NULL;
	m->surfaces[m->n_surfaces] =
	    (struct report_surface){.pid = pid, .surface = surface, .thr = SIZE_MAX};
	ms->last = m->n_surfaces;
	return &m->surfaces[m->n_surfaces++];
}

/* True when buffer is new to s (then counted). */
static bool count_buffer(struct report_surface *s, uint64_t buffer)
{
	for (unsigned i = 0; i < s->buffers; i++)
		if (s->buffer[i] == buffer)
			return false;
	if (s->buffers < REPORT_MAX_BUFFERS)
		s->buffer[s->buffers++] = buffer;
	else
		s->buffers_more = true;
	return true;
}

/* A surface's buffers are w x h: the largest area seen counts (the content rule's). */
static void surface_geometry(struct report_surface *s, int32_t w, int32_t h)
{
	if (w > 0 && h > 0 && (uint64_t)w * (uint64_t)h > (uint64_t)s->width * s->height) {
		s->width = (uint32_t)w;
		s->height = (uint32_t)h;
	}
}

static void note_geometry(struct model_sink *ms, const struct frc_buffer *b)
{
	struct report_model *m = ms->m;

	ms->geo[ms->next_geo] = *b;
	ms->next_geo = (ms->next_geo + 1) % REPORT_GEOMETRY_RECENT;
	if (ms->n_geo < REPORT_GEOMETRY_RECENT)
		ms->n_geo++;
	for (size_t i = 0; i < m->n_surfaces; i++)
		if (m->surfaces[i].pid == b->pid && m->surfaces[i].surface == b->surface)
			surface_geometry(&m->surfaces[i], b->width, b->height);
}

/* The frame that made buffer new to s: its buffer record, if one was recent. */
static void geometry_of_new_buffer(struct model_sink *ms, struct report_surface *s, uint64_t buffer)
{
	for (size_t i = 0; i < ms->n_geo; i++)
		if (ms->geo[i].buffer == buffer && ms->geo[i].pid == s->pid &&
		    ms->geo[i].surface == s->surface)
			surface_geometry(s, ms->geo[i].width, ms->geo[i].height);
}

static size_t thread_at(const struct model_sink *ms, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < ms->n_thr; i++)
		if (ms->thr[i].pid == pid && ms->thr[i].tid == tid)
			return i;
	return SIZE_MAX;
}

/* A thread record (also before the window): the thread's name from now on. */
static void name_thread(struct model_sink *ms, const struct frc_thread *t)
{
	size_t i = thread_at(ms, t->pid, t->tid);

	if (i == SIZE_MAX) {
		if (ms->n_thr == REPORT_MAX_THREADS)
			return;
		i = ms->n_thr++;
		ms->thr[i].pid = t->pid;
		ms->thr[i].tid = t->tid;
		ms->thr[i].gen = 0;
	}
	ms->thr[i].gen++;
	memcpy(ms->thr[i].name, t->name, t->len);
	ms->thr[i].name[t->len] = '\0';
}

/*
 * The name of the thread that draws s, as of this frame of it (tid). Captures without
 * thread records never get here; with them, a frame costs a compare once the thread is
 * found (names change rarely: a changed one is copied).
 */
static void note_drawer(struct model_sink *ms, struct report_surface *s, uint32_t tid)
{
	if (tid != s->tid) {
		s->tids_more = true;
		return;
	}
	if (s->thr == SIZE_MAX && (s->thr = thread_at(ms, s->pid, tid)) == SIZE_MAX)
		return;
	if (ms->thr[s->thr].gen != s->name_gen) {
		s->name_gen = ms->thr[s->thr].gen;
		memcpy(s->drawn_by, ms->thr[s->thr].name, sizeof(s->drawn_by));
	}
}

static void count_frame(struct model_sink *ms, const struct frc_record *rec)
{
	struct report_model *m = ms->m;
	const struct frc_frame *f = &rec->u.frame;
	struct report_surface *s = surface_of(ms, f->pid, f->surface);

	if (!s) {
		m->surfaces_more++;
		return;
	}
	if (!s->calls) {
		s->first_ns = rec->ktime_ns;
		s->tid = f->tid;
	}
	if (ms->n_thr || f->tid != s->tid)
		note_drawer(ms, s, f->tid);
	s->calls++;
	s->last_ns = rec->ktime_ns;
	if (count_buffer(s, f->buffer) && ms->n_geo)
		geometry_of_new_buffer(ms, s, f->buffer);
}

static void mark_mains(struct report_model *m)
{
	const struct subm_pid *mp = subm_main_pid(m->subm);

	m->n_pids = subm_pid_count(m->subm);
	m->has_truth = mp != NULL;
	if (mp) {
		m->main_pid = mp->pid;
		m->main_surface = mp->main_surface;
		m->pid_calls = mp->calls;
		m->main_calls = mp->main_calls;
	}
	for (size_t i = 0; i < m->n_surfaces; i++) {
		struct report_surface *s = &m->surfaces[i];

		for (size_t p = 0; p < m->n_pids; p++) {
			const struct subm_pid *tp = subm_pid_at(m->subm, p);
			if (tp->pid == s->pid && tp->main_surface == s->surface)
				s->main = true;
		}
	}
}

/*
 * After the replay: the truth as the series made it (submissions.h). Under the count rule
 * it is mark_mains' already; otherwise the principal content is the main surface and
 * every surface that was the content at some time is marked.
 */
static void mark_truth(struct report_model *m)
{
	const struct subm_truth *tr = subm_truth(m->subm);

	m->truth = tr;
	if (tr->rule == SUBM_RULE_COUNT || !tr->has)
		return;
	m->main_pid = tr->pid;
	m->main_surface = tr->surface;
	m->pid_calls = m->main_calls = 0;
	for (size_t p = 0; p < m->n_pids; p++)
		if (subm_pid_at(m->subm, p)->pid == tr->pid)
			m->pid_calls = subm_pid_at(m->subm, p)->calls;
	for (size_t i = 0; i < m->n_surfaces; i++) {
		struct report_surface *s = &m->surfaces[i];

		s->main = false;
		/* a surface that led without an interval (the last one left, at the end) was
		 * never what the truth measured */
		for (size_t k = 0; k < tr->n_changes; k++)
			if (tr->changes[k].pid == s->pid && tr->changes[k].surface == s->surface &&
			    tr->changes[k].frames > 0)
				s->main = true;
		if (s->pid == tr->pid && s->surface == tr->surface)
			m->main_calls = s->calls;
	}
}

static int ms_begin(void *ctx, const struct replay_info *info)
{
	struct model_sink *ms = ctx;
	struct report_model *m = ms->m;
	int rc;

	snprintf(m->tracker, sizeof(m->tracker), "%s", info->tracker);
	snprintf(m->meter, sizeof(m->meter), "%s", info->meter);
	m->n_surfaces = 0;
	/* the main surface is known before the first record (the plan's scan counted it): the
	 * charts draw the others apart */
	mark_mains(m);
	m->surfaces_more = 0;
	ms->n_thr = 0;
	win_clock_init(&ms->clk, info->span_start, info->span_end);
	ms->cur_sub = ms->cur_trk = 0;
	m->secs.full = ms->clk.n_full;
	m->secs.cut = ms->clk.n_full > REPORT_MAX_SECONDS;
	m->secs.n = m->secs.cut ? REPORT_MAX_SECONDS : (size_t)ms->clk.n_full;
	m->secs.sub_frames = m->secs.trk_frames = 0;
	chart_init(m->charts, info->span_start, info->span_end, info->config.meter.fps_max);
	/* the chart's per-second FPS is drawn on the same windows */
	chart_persec_origin(&m->charts->sec_sub, info->span_start);
	chart_persec_origin(&m->charts->sec_trk, info->span_start);
	m->charts->sec_trk.by_sum = true;
	m->charts->sec_sub.band = &m->charts->band_sub;
	m->charts->sec_trk.band = &m->charts->band_trk;
	m->charts->has_main = m->has_truth;
	m->charts->main_pid = m->main_pid;
	m->charts->main_surface = m->main_surface;
	rc = subm_series_begin(m->subm, info, ms->err, sizeof(ms->err));
	if (rc)
		return rc;
	return ms->sub.begin(ms->sub.ctx, info);
}

/* Close the current window (a full one: its counts are kept) and move to window w. */
static void window_close(struct model_sink *ms, uint64_t w)
{
	struct report_seconds *s = &ms->m->secs;
	uint64_t k = ms->clk.cur;

	if (k < ms->clk.n_full) {
		if (k < s->n)
			s->count[k] = ms->cur_sub > UINT32_MAX ? UINT32_MAX : (uint32_t)ms->cur_sub;
		s->sub_frames += ms->cur_sub;
		s->trk_frames += ms->cur_trk;
	}
	ms->cur_sub = ms->cur_trk = 0;
	win_clock_move(&ms->clk, w);
}

/* A frame time ending at t: its window (windows.h), both series on one clock as in score. */
static void window_at(struct model_sink *ms, uint64_t t)
{
	uint64_t w;

	if (win_clock_past(&ms->clk, t, &w))
		window_close(ms, w);
}

/* A truth interval of the main surface: to the summary, the windows and the charts. */
static int sub_delta(struct model_sink *ms, const struct pipeline_delta *d)
{
	struct report_charts *c = ms->m->charts;

	window_at(ms, d->ktime_ns);
	ms->cur_sub++;
	if (ms->charted) {
		chart_submission(c, d->ktime_ns, d->delta_ns);
		chart_persec_add(c, &c->sec_sub, &c->fps[FPS_SUB], d->ktime_ns, d->delta_ns);
	}
	return ms->sub.delta(ms->sub.ctx, d);
}

/*
 * A record: the surface table and the charts, then the submissions' summary (its record
 * callback does nothing for a frame) and the truth interval it closes, if any.
 */
static int ms_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct model_sink *ms = ctx;
	struct report_model *m = ms->m;
	struct pipeline_delta d;
	int rc;

	if (rec->type == FRC_FRAME)
		count_frame(ms, rec);
	else if (rec->type == FRC_THREAD)
		name_thread(ms, &rec->u.thread);
	else if (rec->type == FRC_BUFFER)
		note_geometry(ms, &rec->u.buffer);
	rc = ms->charted ? chart_record(m->charts, rec) : 0;
	if (!rc && rec->type != FRC_FRAME)
		rc = ms->sub.record(ms->sub.ctx, rec, frame_seq);
	if (rc || !subm_series_next(m->subm, rec, frame_seq, &d) || !m->has_truth ||
	    d.pid != subm_truth_pid(m->subm))
		return rc;
	return sub_delta(ms, &d);
}

/* A tracker delta (every PID's, as the frame times): its window, and the charts. */
/*
 * A record before the window (replay.h): the truth series steps (its first interval in the
 * window needs the call before), the submissions' PerfDog window and the charts' state
 * follow; nothing is counted.
 */
static int ms_warm_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct model_sink *ms = ctx;
	struct report_model *m = ms->m;
	struct pipeline_delta d;
	int rc = ms->sub.warm_record(ms->sub.ctx, rec, frame_seq);

	if (rec->type == FRC_THREAD)
		name_thread(ms, &rec->u.thread);
	else if (rec->type == FRC_BUFFER)
		note_geometry(ms, &rec->u.buffer);
	if (ms->charted)
		chart_warm_record(m->charts, rec);
	if (rc || !subm_series_next(m->subm, rec, frame_seq, &d) || !m->has_truth ||
	    d.pid != subm_truth_pid(m->subm))
		return rc;
	if (ms->charted)
		chart_warm_submission(m->charts, d.delta_ns);
	return ms->sub.warm_delta(ms->sub.ctx, &d);
}

/* A tracker delta before the window: the charts' PerfDog window of its PID. */
static int ms_warm_delta(void *ctx, const struct pipeline_delta *d)
{
	struct model_sink *ms = ctx;

	return ms->charted ? chart_warm_tracker(ms->m->charts, d->pid, d->delta_ns) : 0;
}

static int ms_delta(void *ctx, const struct pipeline_delta *d)
{
	struct model_sink *ms = ctx;
	struct report_charts *c = ms->m->charts;

	window_at(ms, d->ktime_ns);
	ms->cur_trk++;
	if (!ms->charted)
		return 0;
	chart_persec_add(c, &c->sec_trk, &c->fps[FPS_TRK], d->ktime_ns, d->delta_ns);
	return chart_tracker(c, d->pid, d->ktime_ns, d->delta_ns);
}

static int ms_reading(void *ctx, const struct pipeline_reading *r)
{
	struct model_sink *ms = ctx;

	if (r->reading.valid)
		chart_reading(ms->m->charts, r->tick_ns, (unsigned)r->reading.source,
			      r->reading.fps);
	return 0;
}

static const char *ms_error(void *ctx)
{
	struct model_sink *ms = ctx;

	if (ms->err[0])
		return ms->err;
	return ms->sub.error ? ms->sub.error(ms->sub.ctx) : NULL;
}

static int ms_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct model_sink *ms = ctx;

	window_close(ms, UINT64_MAX);
	if (subm_truth(ms->m->subm)->oom) {
		snprintf(ms->err, sizeof(ms->err), "%s: out of memory (content)", info->path);
		return -ENOMEM;
	}
	return ms->sub.end(ms->sub.ctx, info, ps);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Per-second min/max, GameBench's median FPS and FPS stability (+-10 % of the median). */
static int finish_seconds(struct report_seconds *s)
{
	uint32_t *sorted;
	size_t within = 0;

	if (!s->n)
		return 0;
	sorted = malloc(s->n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, s->count, s->n * sizeof(*sorted));
	qsort(sorted, s->n, sizeof(*sorted), cmp_u32);
	s->min = sorted[0];
	s->max = sorted[s->n - 1];
	/* the median of an even count: the mean of the two middle seconds */
	s->median_fps =
	    s->n % 2 ? sorted[s->n / 2] : ((double)sorted[s->n / 2 - 1] + sorted[s->n / 2]) / 2;
	for (size_t i = 0; i < s->n; i++)
		within += (double)sorted[i] >= s->median_fps * 0.9 &&
			  (double)sorted[i] <= s->median_fps * 1.1;
	s->stability_pct = (double)within * 100.0 / (double)s->n;
	free(sorted);
	return 0;
}

static int model_alloc(struct report_model **out)
{
	struct report_model *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return -ENOMEM;
	m->surfaces = calloc(REPORT_MAX_SURFACES, sizeof(*m->surfaces));
	m->charts = calloc(1, sizeof(*m->charts));
	m->secs.count = calloc(REPORT_MAX_SECONDS, sizeof(*m->secs.count));
	if (!m->surfaces || !m->charts || !m->secs.count || summary_new(&m->s_run) ||
	    summary_new(&m->s_sub) || subm_new(&m->subm) || display_new(&m->disp, m->subm))
		return -ENOMEM;
	return 0;
}

/* The score of every tracker variant, as lanes of the report's replay (the page's table). */
struct model_scores {
	const char **names;
	struct score_lanes *lanes;
	size_t n;
};

static int scores_init(struct report_model *m, struct model_scores *sc)
{
	sc->n = tracker_kind_count();
	sc->names = calloc(sc->n, sizeof(*sc->names));
	m->scores = calloc(sc->n, sizeof(*m->scores));
	if (!sc->names || !m->scores)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n; i++)
		sc->names[i] = tracker_kind_at(i)->name;
	return score_lanes_new(&sc->lanes, m->subm, sc->names, sc->n, m->scores);
}

/*
 * One replay plan: the submissions counted in its scan pass, then one pass feeding the
 * report's lane (the tracker's summary, the model's sink with the submissions' summary,
 * the extra sinks) and, with sc (the page), the charts and one lane per variant for the
 * score table.
 */
static int model_replay(struct report_model *m, const struct replay_source *src,
			const struct replay_options *opt, const struct replay_sink *extra,
			size_t n_extra, const struct model_scores *sc, bool charted, char *err,
			size_t errlen)
{
	struct model_sink ms = {.m = m, .sub = summary_sink(m->s_sub), .charted = charted};
	struct replay_sink count = subm_count_sink(m->subm), sinks[3 + MODEL_MAX_EXTRA];
	struct replay_lane *lanes = calloc(1 + (sc ? sc->n : 0), sizeof(*lanes));
	struct replay_plan plan = {.scan = &count, .n_scan = 1, .lanes = lanes, .n_lanes = 1};
	struct replay_sink lead;
	size_t n_sinks = 3 + (n_extra < MODEL_MAX_EXTRA ? n_extra : MODEL_MAX_EXTRA);
	int rc;

	if (!lanes) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		return -ENOMEM;
	}

	sinks[0] = summary_sink(m->s_run);
	sinks[1] = (struct replay_sink){.ctx = &ms,
					.begin = ms_begin,
					.record = ms_record,
					.delta = ms_delta,
					.reading = ms.charted ? ms_reading : NULL,
					.end = ms_end,
					.error = ms_error,
					.warm_record = ms_warm_record,
					.warm_delta = ms_warm_delta};
	sinks[2] = display_sink(m->disp); /* what was presented (display capture records) */
	for (size_t i = 0; i + 3 < n_sinks; i++)
		sinks[3 + i] = extra[i];
	lanes[0] = (struct replay_lane){NULL, sinks, n_sinks, NULL}; /* the replay's own tracker */
	for (size_t i = 0; sc && i < sc->n; i++)
		lanes[plan.n_lanes++] = score_lanes(sc->lanes)[i];
	if (sc) {
		lead = score_lanes_lead(sc->lanes);
		plan.lead = &lead;
		plan.n_lead = 1;
	}
	rc = replay_run_plan(src, opt, &plan, err, errlen);
	free(lanes);
	return rc;
}

/*
 * With presents linked to the main surface, the table grades against the display as
 * `score` does: score's own replay against the display this replay learned (its content
 * layer is known only at the end), replacing the lanes' scores against the submissions.
 */
static int scores_display(struct report_model *m, const struct replay_source *src,
			  const struct replay_options *opt, const struct model_scores *sc,
			  char *err, size_t errlen)
{
	struct score_capture cap;
	int rc;

	if (!display_content(m->disp))
		return 0;
	rc = score_capture_shown(src, opt, sc->names, NULL, sc->n, m->disp, &cap, m->scores, err,
				 errlen);
	m->scores_display = !rc && cap.display_truth;
	return rc;
}

/* What a model is built for: the numbers, also the charts, or the page (charts, scores). */
enum model_kind { MODEL_NUMBERS, MODEL_CHARTS, MODEL_PAGE };

/* report_model_build, with the charts, and with the score table for the page. */
static int model_build(const char *path, const struct replay_options *opt,
		       const struct replay_sink *extra, size_t n_extra, enum model_kind kind,
		       struct report_model **out, char *err, size_t errlen)
{
	bool page = kind == MODEL_PAGE;
	struct replay_source src = {.path = path};
	struct model_scores sc = {0};
	struct report_model *m;
	int rc = model_alloc(&m);

	*out = NULL;
	if (!rc && page)
		rc = scores_init(m, &sc);
	if (rc) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	rc = model_replay(m, &src, opt, extra, n_extra, page ? &sc : NULL, kind != MODEL_NUMBERS,
			  err, errlen);
	if (rc)
		goto fail;
	mark_mains(m);
	mark_truth(m);
	rc = finish_seconds(&m->secs);
	if (rc) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	if (page) {
		score_lanes_finish(sc.lanes);
		for (size_t i = 0; i < sc.n; i++)
			m->scores[i].worst_path = path;
		m->n_scores = sc.n;
		rc = scores_display(m, &src, opt, &sc, err, errlen);
		if (rc)
			goto fail;
	}
	summary_view(m->s_run, &m->run);
	summary_view(m->s_sub, &m->sub);
	*out = m;
	m = NULL;
fail:
	score_lanes_free(sc.lanes);
	free(sc.names);
	report_model_free(m);
	return rc;
}

int report_model_build(const char *path, const struct replay_options *opt,
		       const struct replay_sink *extra, size_t n_extra, struct report_model **out,
		       char *err, size_t errlen)
{
	return model_build(path, opt, extra, n_extra, MODEL_NUMBERS, out, err, errlen);
}

int report_model_build_charted(const char *path, const struct replay_options *opt,
			       struct report_model **out, char *err, size_t errlen)
{
	return model_build(path, opt, NULL, 0, MODEL_CHARTS, out, err, errlen);
}

int report_model_build_page(const char *path, const struct replay_options *opt,
			    struct report_model **out, char *err, size_t errlen)
{
	return model_build(path, opt, NULL, 0, MODEL_PAGE, out, err, errlen);
}

void report_model_free(struct report_model *m)
{
	if (!m)
		return;
	if (m->charts)
		chart_free(m->charts);
	free(m->charts);
	free(m->scores);
	free(m->secs.count);
	free(m->surfaces);
	summary_free(m->s_sub);
	summary_free(m->s_run);
	display_free(m->disp);
	subm_free(m->subm);
	free(m);
}

double report_surface_rate(const struct report_surface *s)
{
	if (s->calls < 2 || s->last_ns <= s->first_ns)
		return 0;
	return (double)(s->calls - 1) * 1e9 / (double)(s->last_ns - s->first_ns);
}

const char *report_surface_drawn_by(const struct report_surface *s)
{
	return s->drawn_by[0] && !s->tids_more ? s->drawn_by : NULL;
}

double report_error_pct(double est, double truth)
{
	return truth > 0 ? (est - truth) * 100.0 / truth : 0;
}

int report_model_score(struct report_model *m, const char *path, const struct replay_options *opt,
		       char *err, size_t errlen)
{
	size_t n = tracker_kind_count();
	const char **names = calloc(n, sizeof(*names));
	struct replay_source src = {.path = path};
	struct score_capture cap;
	int rc = -ENOMEM;

	m->scores = calloc(n, sizeof(*m->scores));
	if (!names || !m->scores) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = tracker_kind_at(i)->name;
	rc = score_capture(&src, opt, names, n, &cap, m->scores, err, errlen);
	if (!rc)
		m->n_scores = n;
cleanup:
	free(names);
	return rc;
}
