/* SPDX-License-Identifier: MIT */
/* report_chart.c - the HTML report's per-pixel accumulators (see report_chart.h). */
#include "report_chart.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "fps_meter.h"
#include "frc.h"
#include "perfdog.h"

#define NS_PER_S 1000000000ull

void chart_init(struct report_charts *c, uint64_t first_ns, uint64_t last_ns, double fps_max)
{
	struct pidmap w = c->w_trk;

	memset(c, 0, sizeof(*c));
	c->w_trk = w; /* a second init (a replay's begin) keeps the map: it is emptied below */
	for (uint32_t i = c->w_trk.count; i-- > 0;)
		pidmap_del(&c->w_trk, c->w_trk.slots[i].pid);
	c->t0 = first_ns;
	c->span = last_ns > first_ns ? last_ns - first_ns : 1;
	c->fps_max = fps_max;
}

void chart_free(struct report_charts *c)
{
	pidmap_free(&c->w_trk);
}

unsigned chart_px(const struct report_charts *c, uint64_t t)
{
	unsigned __int128 x;

	if (t <= c->t0)
		return 0;
	/*
	 * 128 bits: (t - t0) * 960 overflows 64 bits for a span past 220 days (hostile). The
	 * same quotient in 64 bits when the product fits: a 128-bit division is a libgcc call
	 * (__udivti3), and this runs twice per frame for the page.
	 */
	if (t - c->t0 <= UINT64_MAX / REPORT_CHART_PX)
		x = (t - c->t0) * REPORT_CHART_PX / c->span;
	else
		x = (unsigned __int128)(t - c->t0) * REPORT_CHART_PX / c->span;
	return x >= REPORT_CHART_PX ? REPORT_CHART_PX - 1 : (unsigned)x;
}

static void bin_add(struct chart_bin *b, double v)
{
	if (!b->n || v < b->min)
		b->min = v;
	if (!b->n || v > b->max)
		b->max = v;
	b->n++;
	b->sum += v;
}

void chart_add(const struct report_charts *c, struct chart_series *s, uint64_t t, double v)
{
	bin_add(&s->bin[chart_px(c, t)], v);
	s->points++;
}

static void hist_add(uint64_t *h, uint64_t delta_ns)
{
	uint64_t ms = delta_ns / 1000000;

	h[ms < REPORT_HIST_BINS ? ms : REPORT_HIST_BINS]++;
}

static void mark(struct report_charts *c, enum chart_mark k, uint64_t t)
{
	c->marks[k][chart_px(c, t)]++;
	c->mark_total[k]++;
}

void chart_submission(struct report_charts *c, uint64_t t, uint64_t delta_ns)
{
	enum perfdog_kind k = perfdog_push(c->w_sub, delta_ns);

	chart_add(c, &c->ft_sub, t, (double)delta_ns / 1e6);
	hist_add(c->hist_sub, delta_ns);
	if (k != PERFDOG_NONE)
		mark(c, MARK_JANK, t);
	if (k == PERFDOG_BIGJANK)
		mark(c, MARK_BIGJANK, t);
}

int chart_tracker(struct report_charts *c, uint32_t pid, uint64_t t, uint64_t delta_ns)
{
	struct pidmap_entry *w = pidmap_get(&c->w_trk, pid, true);

	if (!w)
		return -ENOMEM;
	chart_add(c, &c->ft_trk, t, (double)delta_ns / 1e6);
	hist_add(c->hist_trk, delta_ns);
	enum perfdog_kind k = perfdog_push(w->v, delta_ns);

	if (k != PERFDOG_NONE)
		mark(c, MARK_TJANK, t);
	if (k == PERFDOG_BIGJANK)
		mark(c, MARK_TBIGJANK, t);
	return 0;
}

/* A call of the main PID on a surface that is not its main one: that surface's interval. */
static void other_surface(struct report_charts *c, const struct frc_record *rec)
{
	const struct frc_frame *f = &rec->u.frame;
	struct chart_surface *o = NULL;

	if (!c->has_main || f->pid != c->main_pid || f->surface == c->main_surface)
		return;
	for (unsigned i = 0; i < c->n_other && !o; i++)
		if (c->other[i].surface == f->surface)
			o = &c->other[i];
	if (!o && c->n_other == REPORT_CHART_SURFACES) {
		c->other_more++;
		return;
	}
	if (!o) {
		o = &c->other[c->n_other++];
		o->surface = f->surface;
	}
	if (o->seen && rec->ktime_ns > o->last_ns)
		chart_add(c, &o->ft, rec->ktime_ns, (double)(rec->ktime_ns - o->last_ns) / 1e6);
	o->seen = true;
	o->last_ns = rec->ktime_ns;
}

/* attach/exit of the main PID: its other surfaces' series start again (a new life). */
static void other_forget(struct report_charts *c, uint32_t pid)
{
	if (c->has_main && pid == c->main_pid)
		for (unsigned i = 0; i < c->n_other; i++)
			c->other[i].seen = false;
}

int chart_record(struct report_charts *c, const void *r)
{
	const struct frc_record *rec = r;
	double v;

	switch (rec->type) {
	case FRC_FRAME:
		other_surface(c, rec);
		break;
	case FRC_DROPS:
		if (rec->u.drops.cumulative > c->last_drops)
			mark(c, MARK_DROPS, rec->ktime_ns);
		c->last_drops = rec->u.drops.cumulative;
		break;
	case FRC_ATTACH:
		/* a new process lifetime: the tracker's jank window starts empty again */
		pidmap_del(&c->w_trk, rec->u.attach.pid);
		other_forget(c, rec->u.attach.pid);
		mark(c, MARK_ATTACH, rec->ktime_ns);
		break;
	case FRC_EXIT:
		pidmap_del(&c->w_trk, rec->u.exit.pid);
		other_forget(c, rec->u.exit.pid);
		mark(c, MARK_EXIT, rec->ktime_ns);
		break;
	case FRC_SYSFS:
		if (fps_meter_sysfs_value(rec->u.sysfs.err, rec->u.sysfs.raw, rec->u.sysfs.len,
					  c->fps_max, &v))
			chart_add(c, &c->fps[FPS_RAW], rec->ktime_ns, v);
		break;
	default:
		break;
	}
	return 0;
}

void chart_warm_submission(struct report_charts *c, uint64_t delta_ns)
{
	(void)perfdog_push(c->w_sub, delta_ns);
}

int chart_warm_tracker(struct report_charts *c, uint32_t pid, uint64_t delta_ns)
{
	struct pidmap_entry *w = pidmap_get(&c->w_trk, pid, true);

	if (!w)
		return -ENOMEM;
	(void)perfdog_push(w->v, delta_ns);
	return 0;
}

void chart_warm_record(struct report_charts *c, const void *r)
{
	const struct frc_record *rec = r;

	if (rec->type == FRC_DROPS)
		c->last_drops = rec->u.drops.cumulative;
	else if (rec->type == FRC_ATTACH || rec->type == FRC_EXIT) {
		uint32_t pid = rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid;

		pidmap_del(&c->w_trk, pid);
		other_forget(c, pid);
	}
}

void chart_reading(struct report_charts *c, uint64_t t, unsigned source, double fps)
{
	if (source == FRC_SOURCE_SYSFS)
		chart_add(c, &c->fps[FPS_SYSFS], t, fps);
	else if (source == FRC_SOURCE_EBPF)
		chart_add(c, &c->fps[FPS_EBPF], t, fps);
}

/* Second k of p (count events) goes to the chart at the second's middle. */
static void emit_second(struct report_charts *c, const struct chart_persec *p,
			struct chart_series *s, uint64_t k, uint64_t count)
{
	uint64_t mid = p->origin + k * NS_PER_S + NS_PER_S / 2;
	double v =
	    p->by_sum ? (p->sum_ns ? (double)count * 1e9 / (double)p->sum_ns : 0) : (double)count;

	chart_add(c, s, mid < p->origin ? UINT64_MAX : mid, v);
	if (p->band && count && p->min_ns) {
		chart_add(c, p->band, mid < p->origin ? UINT64_MAX : mid, 1e9 / (double)p->max_ns);
		chart_add(c, p->band, mid < p->origin ? UINT64_MAX : mid, 1e9 / (double)p->min_ns);
	}
}

/*
 * Empty seconds a..b (a pause): 0 FPS. Bounded work whatever the gap: the chart gets one
 * zero per pixel the gap covers.
 */
static void emit_gap(struct report_charts *c, const struct chart_persec *p, struct chart_series *s,
		     uint64_t a, uint64_t b)
{
	uint64_t ta = p->origin + a * NS_PER_S, tb = p->origin + b * NS_PER_S;
	unsigned pa = chart_px(c, ta), pb = chart_px(c, tb < ta ? UINT64_MAX : tb);

	for (unsigned x = pa; x <= pb; x++)
		bin_add(&s->bin[x], 0);
}

void chart_persec_origin(struct chart_persec *p, uint64_t origin)
{
	*p = (struct chart_persec){
	    .started = true, .by_sum = p->by_sum, .band = p->band, .origin = origin};
}

void chart_persec_add(struct report_charts *c, struct chart_persec *p, struct chart_series *s,
		      uint64_t t, uint64_t delta_ns)
{
	uint64_t k = t > p->origin ? (t - p->origin) / NS_PER_S : 0;

	/* seconds only move forward (windows.h): a frame time back in time counts in this one */
	if (k > p->k) {
		emit_second(c, p, s, p->k, p->count);
		if (k > p->k + 1)
			emit_gap(c, p, s, p->k + 1, k - 1);
		p->k = k;
		p->count = 0;
		p->sum_ns = 0;
	}
	if (!p->count || delta_ns < p->min_ns)
		p->min_ns = delta_ns;
	if (!p->count || delta_ns > p->max_ns)
		p->max_ns = delta_ns;
	p->count++;
	p->sum_ns = p->sum_ns + delta_ns < p->sum_ns ? UINT64_MAX : p->sum_ns + delta_ns;
}

/* ------------------------------------------------------------ display capture */

/* A latency in its point, sorted by point then latency. */
struct lat_item {
	uint64_t point, ns;
};

static int cmp_lat(const void *a, const void *b)
{
	const struct lat_item *x = a, *y = b;

	if (x->point != y->point)
		return (x->point > y->point) - (x->point < y->point);
	return (x->ns > y->ns) - (x->ns < y->ns);
}

/* The content layer's latencies in full windows, as (point, ns); *n of them. */
static struct lat_item *lat_items(const struct display *d, const struct display_layer *l,
				  uint64_t per, size_t *n)
{
	struct lat_item *v = malloc((l->n_row ? l->n_row : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < l->n_row; i++) {
		uint64_t ns, actual = (uint64_t)l->row[i].p.actual, w;

		if (display_row_latency(d, l, i, &ns) <= 0 || actual < d->span_start)
			continue;
		w = (actual - d->span_start) / NS_PER_S;
		if (w < d->n_full)
			v[(*n)++] = (struct lat_item){w / per, ns};
	}
	return v;
}

/* Nearest rank, as the report's: the ceil(p/100 * n)-th smallest of v[0..n), n >= 1. */
static uint64_t lat_rank(const struct lat_item *v, size_t n, unsigned p)
{
	size_t r = (n * p + 99) / 100;

	return v[(r ? r : 1) - 1].ns;
}

int chart_latency(const struct display *d, struct chart_latency *out)
{
	const struct display_layer *l = display_content(d);
	struct lat_item *v;
	size_t n, i = 0;

	memset(out, 0, sizeof(*out));
	if (!l || !d->n_full)
		return 0;
	out->per = (d->n_full + REPORT_CHART_PX - 1) / REPORT_CHART_PX;
	out->n = (size_t)((d->n_full + out->per - 1) / out->per);
	if (!(v = lat_items(d, l, out->per, &n)))
		return -ENOMEM;
	qsort(v, n, sizeof(*v), cmp_lat);
	while (i < n) { /* one point: the run of items with its index */
		size_t j = i;

		while (j < n && v[j].point == v[i].point)
			j++;
		out->count[v[i].point] = j - i;
		out->p50_ns[v[i].point] = lat_rank(v + i, j - i, 50);
		out->p99_ns[v[i].point] = lat_rank(v + i, j - i, 99);
		i = j;
	}
	free(v);
	return 0;
}

/*
 * The content layer's dropped calls (present_link.h: between two anchored rows of one
 * segment, the calls no row between them shows). Links never cross, so between two
 * consecutive linked rows the calls in between are the ones no row shows: one walk over
 * the rows, each stretch from one anchored row to the next marked when both are in one
 * segment.
 */
void chart_dropped(const struct report_charts *c, const struct display *d,
		   struct chart_dropped *out)
{
	const struct display_layer *l = display_content(d);
	size_t anchor = SIZE_MAX; /* the previous anchored row */

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; l && i < l->n_row; i++) {
		uint32_t prev = PL_NONE;

		if (l->call_of[i] == PL_NONE || !l->anchored[i])
			continue;
		for (size_t r = anchor;
		     anchor != SIZE_MAX && r <= i && l->row[anchor].segment == l->row[i].segment;
		     r++) {
			uint32_t k = l->call_of[r];

			if (k == PL_NONE)
				continue;
			for (uint32_t j = prev == PL_NONE ? k : prev + 1; j < k; j++) {
				out->px[chart_px(c, d->call_ktime[j])]++;
				out->total++;
			}
			prev = k;
		}
		anchor = i;
	}
}
