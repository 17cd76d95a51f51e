/* SPDX-License-Identifier: MIT */
/* display.c - the presented numbers of a capture (see display.h, REPORT.md "Presented"). */
#include "display.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "windows.h"

int display_new(struct display **out, struct submissions *subm)
{
	struct display *d = calloc(1, sizeof(*d));

	*out = d;
	if (!d)
		return -ENOMEM;
	d->subm = subm;
	d->content = -1;
	return 0;
}

void display_free(struct display *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_layers; i++) {
		summary_free(d->layer[i].s);
		free(d->layer[i].win);
		free(d->layer[i].row);
		free(d->layer[i].call_of);
		free(d->layer[i].anchored);
	}
	free(d->call_ktime);
	free(d->call_stamp);
	free(d->call_seq);
	free(d->call_surface);
	free(d->call_pid);
	free(d);
}

/* Grow *p (elements of size sz, *cap of them) to hold one more; false when it cannot. */
static bool grow(void **p, size_t *cap, size_t n, size_t sz, size_t max)
{
	if (n < *cap)
		return true;
	if (n >= max)
		return false;
	size_t ncap = *cap ? *cap * 2 : 1024;
	void *np = realloc(*p, (ncap > max ? max : ncap) * sz);
	if (!np)
		return false;
	*p = np;
	*cap = ncap > max ? max : ncap;
	return true;
}

static int dp_begin(void *ctx, const struct replay_info *info)
{
	struct display *d = ctx;
	int rc;

	d->info = info;
	/* pass 1 counted the present records: without any, no call is kept (memory stays the
	 * report's, bounded whatever the capture's length) */
	d->keep = subm_main_pid(d->subm) != NULL && info->stats.by_type[FRC_PRESENT] > 0;
	/* the series chooses the linked surface; idempotent when another consumer runs it */
	if (d->keep && (rc = subm_series_begin(d->subm, info, d->err, sizeof(d->err))))
		return rc;
	d->span_start = info->span_start;
	d->span_end = info->span_end;
	d->n_full =
	    info->span_end > info->span_start ? (info->span_end - info->span_start) / WIN_NS : 0;
	d->n_win = d->n_full > DISPLAY_MAX_WINDOWS ? DISPLAY_MAX_WINDOWS : (size_t)d->n_full;
	return 0;
}

/* The layer with id, made on its first record (NULL: past the table, or out of memory). */
static struct display_layer *layer_of(struct display *d, uint32_t id, uint64_t ktime, int *rc)
{
	struct display_layer *l;
	struct replay_sink s;

	*rc = 0;
	for (size_t i = 0; i < d->n_layers; i++)
		if (d->layer[i].id == id)
			return &d->layer[i];
	if (d->n_layers == DISPLAY_MAX_LAYERS) {
		d->layers_more++;
		return NULL;
	}
	l = &d->layer[d->n_layers];
	memset(l, 0, sizeof(*l));
	l->id = id;
	l->first_ktime = ktime;
	*rc = summary_new(&l->s);
	if (!*rc && d->n_win && !(l->win = calloc(d->n_win, sizeof(*l->win))))
		*rc = -ENOMEM;
	if (*rc) {
		summary_free(l->s);
		return NULL;
	}
	d->n_layers++;
	s = summary_sink(l->s);
	*rc = s.begin(s.ctx, d->info);
	return *rc ? NULL : l;
}

/*
 * Every call, with its surface: which surface the link uses is known only at the end (the
 * truth's principal content, once the series has seen every record).
 */
static void keep_call(struct display *d, const struct frc_record *rec, uint64_t seq)
{
	size_t c1 = d->cap_call, c2 = d->cap_call, c3 = d->cap_call, c4 = d->cap_call;
	const struct frc_frame *f = &rec->u.frame;
	bool ok;

	if (!d->keep || d->cut)
		return;
	ok = grow((void **)&d->call_ktime, &c1, d->n_call, sizeof(uint64_t), DISPLAY_MAX_CALLS) &&
	     grow((void **)&d->call_seq, &c2, d->n_call, sizeof(uint64_t), DISPLAY_MAX_CALLS) &&
	     grow((void **)&d->call_surface, &c3, d->n_call, sizeof(uint64_t), DISPLAY_MAX_CALLS) &&
	     grow((void **)&d->call_stamp, &c4, d->n_call, sizeof(int64_t), DISPLAY_MAX_CALLS) &&
	     grow((void **)&d->call_pid, &d->cap_call, d->n_call, sizeof(uint32_t),
		  DISPLAY_MAX_CALLS);
	if (!ok) {
		d->cut = true;
		return;
	}
	d->call_ktime[d->n_call] = rec->ktime_ns;
	d->call_seq[d->n_call] = seq;
	d->call_surface[d->n_call] = f->surface;
	d->call_stamp[d->n_call] = content_frame_stamp(f);
	d->call_pid[d->n_call++] = f->pid;
}

/* A present time SurfaceFlinger measured: not -1 (invalid), 0 (unused), INT64_MAX (pending). */
static bool valid_time(int64_t t)
{
	return t > 0 && t < INT64_MAX;
}

/* A display frame time d ending at t, in row r: its window and its repeated vsyncs. */
static void count_interval(struct display *dp, struct display_layer *l, struct display_row *r,
			   uint64_t t, uint64_t d)
{
	uint64_t period = dp->vsync_period;

	r->interval_ns = d;
	if (t >= dp->span_start) {
		uint64_t w = (t - dp->span_start) / WIN_NS;
		if (w < dp->n_full) {
			l->win_frames++;
			r->window = (uint32_t)(w < UINT32_MAX ? w : UINT32_MAX - 1);
		}
		if (w < dp->n_win)
			l->win[w]++;
	}
	if (!period)
		return;
	/* k vsync periods, rounded to the nearest: k - 1 vsyncs showed the previous buffer */
	uint64_t k = d / period + (d % period >= period - period / 2);
	l->repeat_intervals++;
	if (k >= 2)
		l->repeats += k - 1;
}

/* Keep the row for the link (and the db); past the limit a scratch row, and no link. */
static struct display_row *keep_row(struct display *dp, struct display_layer *l,
				    const struct frc_record *rec, struct display_row *scratch)
{
	const struct frc_present *p = &rec->u.present;
	struct display_row *r = scratch;

	if (grow((void **)&l->row, &l->cap_row, l->n_row, sizeof(*l->row), DISPLAY_MAX_ROWS))
		r = &l->row[l->n_row++];
	else
		dp->cut = true;
	*r =
	    (struct display_row){.p = {p->desired, p->actual, p->ready},
				 .ktime = rec->ktime_ns,
				 .period_ns = dp->vsync_period,
				 .segment = (uint32_t)(l->gaps < UINT32_MAX ? l->gaps : UINT32_MAX),
				 .window = UINT32_MAX};
	return r;
}

static int present_row(struct display *dp, const struct frc_record *rec)
{
	const struct frc_present *p = &rec->u.present;
	struct display_row scratch, *r;
	int rc;
	struct display_layer *l = layer_of(dp, p->layer, rec->ktime_ns, &rc);

	dp->has = true;
	if (!l) {
		dp->rows_more += !rc;
		return rc;
	}
	l->rows++;
	r = keep_row(dp, l, rec, &scratch);
	if (!valid_time(p->actual))
		return 0;
	l->presents++;
	if (l->last_actual && p->actual < l->last_actual) {
		l->backwards++;
		return 0;
	}
	if (l->last_actual && p->actual > l->last_actual) {
		uint64_t t = (uint64_t)p->actual, d = t - (uint64_t)l->last_actual;
		struct pipeline_delta pd = {.pid = l->id, .ktime_ns = t, .delta_ns = d};
		struct replay_sink s = summary_sink(l->s);

		count_interval(dp, l, r, t, d);
		rc = s.delta(s.ctx, &pd);
	}
	l->last_actual = p->actual;
	return rc;
}

/* Rows lost: no frame time across the gap, PerfDog's window starts again after it. */
static int present_gap(struct display *dp, const struct frc_record *rec)
{
	const struct frc_present_gap *g = &rec->u.gap;
	struct frc_record reset = {.type = FRC_EXIT, .ktime_ns = rec->ktime_ns};
	struct replay_sink s;
	int rc;
	struct display_layer *l = layer_of(dp, g->layer, rec->ktime_ns, &rc);

	if (!l)
		return rc;
	l->gaps++;
	if (valid_time(g->before) && valid_time(g->after) && g->after > g->before)
		l->gap_unknown_ns += (uint64_t)(g->after - g->before);
	else
		l->gaps_unbounded++;
	l->last_actual = 0;
	reset.u.exit.pid = l->id;
	s = summary_sink(l->s);
	return s.record(s.ctx, &reset, 0);
}

static int dp_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct display *d = ctx;
	struct display_layer *l;
	struct pipeline_delta unused;
	int rc = 0;

	if (d->keep)
		(void)subm_series_next(d->subm, rec, frame_seq, &unused);
	switch (rec->type) {
	case FRC_FRAME:
		keep_call(d, rec, frame_seq);
		break;
	case FRC_LAYER:
		l = layer_of(d, rec->u.layer.id, rec->ktime_ns, &rc);
		if (l && rec->u.layer.gone) {
			l->gone = true;
			l->gone_ktime = rec->ktime_ns;
		} else if (l) {
			snprintf(l->name, sizeof(l->name), "%s", rec->u.layer.name);
		}
		break;
	case FRC_PRESENT:
		rc = present_row(d, rec);
		break;
	case FRC_VSYNC:
		d->vsync_changes += (d->vsync_records || d->vsync_warm) &&
				    rec->u.vsync.period_ns != d->vsync_period;
		d->vsync_records++;
		d->vsync_period = rec->u.vsync.period_ns;
		break;
	case FRC_PRESENT_GAP:
		rc = present_gap(d, rec);
		break;
	default:
		break;
	}
	return rc;
}

/* A present row before the window: it only starts the window's first display frame time. */
static int warm_present(struct display *dp, const struct frc_present *p, uint64_t ktime)
{
	int rc;
	struct display_layer *l = layer_of(dp, p->layer, ktime, &rc);
	struct replay_sink s;

	if (!l || !valid_time(p->actual) || (l->last_actual && p->actual < l->last_actual))
		return rc;
	if (l->last_actual && p->actual > l->last_actual) {
		/* PerfDog's previous three, as the submissions carry theirs into the window */
		struct pipeline_delta pd = {.pid = l->id,
					    .ktime_ns = (uint64_t)p->actual,
					    .delta_ns = (uint64_t)(p->actual - l->last_actual)};
		s = summary_sink(l->s);
		rc = s.warm_delta(s.ctx, &pd);
	}
	l->last_actual = p->actual;
	return rc;
}

/*
 * With a window (replay.h), the records before it: the layers' names, the vsync period in
 * force, and each layer's last present, so that a present before the window's first one
 * starts its first display frame time (as the call before the window starts the
 * submissions' first interval). Nothing is counted; a gap before it starts afresh.
 */
static int dp_warm_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct display *d = ctx;
	struct display_layer *l;
	struct frc_record reset = {.type = FRC_EXIT, .ktime_ns = rec->ktime_ns};
	struct replay_sink s;
	struct pipeline_delta unused;
	int rc = 0;

	/* the series steps before the window too (its state at the window's start) */
	if (d->keep)
		(void)subm_series_next(d->subm, rec, frame_seq, &unused);
	switch (rec->type) {
	case FRC_LAYER:
		return dp_record(ctx, rec, frame_seq);
	case FRC_VSYNC:
		d->vsync_period = rec->u.vsync.period_ns;
		d->vsync_warm = true;
		return 0;
	case FRC_PRESENT:
		return warm_present(d, &rec->u.present, rec->ktime_ns);
	case FRC_PRESENT_GAP:
		l = layer_of(d, rec->u.gap.layer, rec->ktime_ns, &rc);
		if (!l)
			return rc;
		l->last_actual = 0;
		reset.u.exit.pid = l->id;
		s = summary_sink(l->s);
		return s.warm_record(s.ctx, &reset, 0);
	default:
		return 0;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Per-window min, max and median (of an even count: the mean of the middle two). */
static int finish_windows(struct display *d, struct display_layer *l)
{
	uint32_t *s;

	if (!d->n_win)
		return 0;
	s = malloc(d->n_win * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, l->win, d->n_win * sizeof(*s));
	qsort(s, d->n_win, sizeof(*s), cmp_u32);
	l->win_min = s[0];
	l->win_max = s[d->n_win - 1];
	l->win_median =
	    d->n_win % 2 ? s[d->n_win / 2] : ((double)s[d->n_win / 2 - 1] + s[d->n_win / 2]) / 2;
	free(s);
	return 0;
}

static int link_layer(struct display *d, struct display_layer *l)
{
	size_t n = l->n_row ? l->n_row : 1;
	struct pl_present *rows = malloc(n * sizeof(*rows));
	uint32_t *seg = malloc(n * sizeof(*seg));
	int rc = 0;

	l->call_of = malloc(n * sizeof(*l->call_of));
	l->anchored = malloc(n);
	if (!rows || !seg || !l->call_of || !l->anchored) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->n_row; i++) {
		rows[i] = l->row[i].p;
		seg[i] = l->row[i].segment; /* anchors pair only within one (no gap between) */
	}
	/* no stamped call (auto timestamps): no exact link to look for */
	present_link(d->call_ktime, d->calls_stamped ? d->call_stamp : NULL, d->n_call, rows,
		     l->n_row, seg, PL_TOLERANCE_NS, l->call_of, l->anchored, &l->link);
out:
	free(rows);
	free(seg);
	return rc;
}

/* Nearest rank, as the summary's: the ceil(p/100 * n)-th smallest of the sorted v[0..n). */
static uint64_t rank_of(const uint64_t *v, size_t n, unsigned p)
{
	size_t r = (n * p + 99) / 100;

	return v[(r ? r : 1) - 1];
}

/* Submit to present of the content layer: actual present - the linked call's ktime. */
static int latency(struct display *d, const struct display_layer *l)
{
	uint64_t *v = malloc((l->n_row ? l->n_row : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_row; i++) {
		int rc = display_row_latency(d, l, i, &v[n]);

		d->latency_negative += rc < 0;
		n += rc > 0;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	d->latency_n = n;
	if (n) {
		d->latency_p50_ns = rank_of(v, n, 50);
		d->latency_p99_ns = rank_of(v, n, 99);
		d->latency_max_ns = v[n - 1];
	}
	free(v);
	return 0;
}

/* The content layer: the most linked rows (ties: the first layer seen); none linked: -1. */
static void choose_content(struct display *d)
{
	uint64_t best = 0;

	d->content = -1;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct pl_stats *st = &d->layer[i].link;
		if (st->tight + st->by_order > best) {
			best = st->tight + st->by_order;
			d->content = (int)i;
		}
	}
}

/*
 * The surface the truth follows (as the report's: its principal content under the content
 * rule and --surface, else the main PID's main surface), and its calls alone kept, in
 * order: present_link needs them ascending, so a call back in time (a clock step) is left
 * out and counted.
 */
static void link_surface(struct display *d)
{
	const struct subm_truth *tr = subm_truth(d->subm);
	const struct subm_pid *mp = subm_main_pid(d->subm);
	size_t n = 0;

	d->by_content = tr->rule != SUBM_RULE_COUNT && tr->has;
	d->has_main = d->keep && (d->by_content || mp);
	d->main_pid = d->by_content ? tr->pid : mp ? mp->pid : 0;
	d->main_surface = d->by_content ? tr->surface : mp ? mp->main_surface : 0;
	d->by_content = d->by_content && tr->rule == SUBM_RULE_CONTENT;
	for (size_t i = 0; d->has_main && i < d->n_call; i++) {
		if (d->call_pid[i] != d->main_pid || d->call_surface[i] != d->main_surface)
			continue;
		if (n && d->call_ktime[i] < d->call_ktime[n - 1]) {
			d->calls_backwards++;
			continue;
		}
		d->call_ktime[n] = d->call_ktime[i];
		d->call_stamp[n] = d->call_stamp[i];
		d->calls_stamped += d->call_stamp[i] != 0;
		d->call_seq[n++] = d->call_seq[i];
	}
	d->n_call = n;
}

static int dp_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct display *d = ctx;
	int rc = 0;

	link_surface(d);

	for (size_t i = 0; !rc && i < d->n_layers; i++) {
		struct display_layer *l = &d->layer[i];
		struct replay_sink s = summary_sink(l->s);

		rc = s.end(s.ctx, info, ps);
		summary_view(l->s, &l->v);
		if (!rc)
			rc = finish_windows(d, l);
		if (!rc && !d->cut)
			rc = link_layer(d, l);
	}
	if (!rc && !d->cut)
		choose_content(d);
	if (!rc && d->content >= 0)
		rc = latency(d, &d->layer[d->content]);
	d->info = NULL;
	return rc;
}

static const char *dp_error(void *ctx)
{
	struct display *d = ctx;

	return d->err[0] ? d->err : "display: out of memory";
}

struct replay_sink display_sink(struct display *d)
{
	return (struct replay_sink){.ctx = d,
				    .begin = dp_begin,
				    .record = dp_record,
				    .end = dp_end,
				    .error = dp_error,
				    .warm_record = dp_warm_record};
}

int display_row_latency(const struct display *d, const struct display_layer *l, size_t i,
			uint64_t *ns)
{
	const struct pl_present *p = &l->row[i].p;

	if (l->call_of[i] == PL_NONE || !valid_time(p->actual))
		return 0;
	if ((uint64_t)p->actual < d->call_ktime[l->call_of[i]])
		return -1;
	*ns = (uint64_t)p->actual - d->call_ktime[l->call_of[i]];
	return 1;
}

bool display_row_tight(const struct display *d, const struct display_layer *l, size_t i)
{
	/* present_link's own tests: a by-order link is neither within the tolerance nor exact */
	int64_t desired = l->row[i].p.desired;

	return (int64_t)((uint64_t)desired - d->call_ktime[l->call_of[i]]) <= PL_TOLERANCE_NS ||
	       (desired > 0 && d->call_stamp[l->call_of[i]] == desired);
}

const struct display_layer *display_content(const struct display *d)
{
	return d->content >= 0 ? &d->layer[d->content] : NULL;
}

double display_fps(const struct display *d, const struct display_layer *l)
{
	uint64_t span = d->span_end > d->span_start ? d->span_end - d->span_start : 0;

	return span ? (double)l->presents * 1e9 / (double)span : 0;
}

double display_window_fps(const struct display *d, const struct display_layer *l)
{
	return d->n_full ? (double)l->win_frames / (double)d->n_full : 0;
}
