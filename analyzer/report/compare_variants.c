/* SPDX-License-Identifier: MIT */
/*
 * compare_variants.c - one capture, two heuristics variants (see compare_variants.h).
 *
 * One replay plan: its scan pass counts the submissions (the score's truth), its second
 * pass feeds four lanes: the score's two (score_lanes_new_meters: the error against the
 * submissions, freezes, idle readings, by score.c and score_meter.c) and two of ours (the
 * report's summary of the readings and the per-tick diff). A lane of ours names the same
 * tracker and meter as the score lane of its variant, so the replay runs one pipeline per
 * variant and feeds both (replay.h): the readings diffed are the ones graded. Before it,
 * score's learning replay (score_learn_display) says whether the truth of the score's
 * lanes is the display instead, as `score` would grade them.
 */
#include "compare_variants.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "fps_meter.h"
#include "frc_escape.h"
#include "report_render.h"
#include "score.h"
#include "submissions.h"

/*
 * why_none: what the variant lacks when the value does not exist; label_display: the label
 * when the truth is the display (NULL: label).
 */
static const struct {
	const char *key, *label, *unit, *why_none, *label_display;
} metrics[VM_COUNT] = {
    [VM_METER_FPS] = {"meter_fps", "mean reading, all sources", "FPS", "no meter readings", NULL},
    [VM_METER_NONE] = {"meter_none", "readings of none", "ticks", "no ticks", NULL},
    [VM_MAE] = {"meter_mae", "MAE vs submissions", "FPS", "no graded tick", "MAE vs display"},
    [VM_MAE_PCT] = {"meter_mae_percent", "MAE % vs submissions", "%", "no graded tick",
		    "MAE % vs display"},
    [VM_SETTLE_MEAN] = {"settle_mean_ms", "settle time, mean", "ms", "no rate change settled",
			NULL},
    [VM_SETTLE_MAX] = {"settle_max_ms", "settle time, max", "ms", "no rate change settled", NULL},
    [VM_UNSETTLED] = {"unsettled", "rate changes never settled", "changes", "no graded tick", NULL},
    [VM_FREEZE_SHOW_MEAN] = {"freeze_show_mean_ms", "freeze shown after, mean", "ms",
			     "no freeze shown", NULL},
    [VM_FREEZE_SHOW_MAX] = {"freeze_show_max_ms", "freeze shown after, max", "ms",
			    "no freeze shown", NULL},
    [VM_FREEZES_MISSED] = {"freezes_missed", "freezes not shown", "freezes", "no graded tick",
			   NULL},
    [VM_FREEZES_LATE] = {"freezes_late", "freezes shown late (>= 250 ms tick)", "freezes",
			 "no graded tick", NULL},
    [VM_IDLE_SHOWN] = {"idle_shown", "idle ticks showing above 0", "ticks", "no graded tick", NULL},
    [VM_TICKS_DIFFER] = {"ticks_differ", "ticks whose readings differ", "ticks", "no ticks", NULL},
    [VM_SOURCE_DIFFER] = {"source_differ_ticks", "ticks with another source", "ticks", "no ticks",
			  NULL},
    [VM_SOURCE_DIFFER_MS] = {"source_differ_ms", "time with another source", "ms", "no ticks",
			     NULL},
    [VM_MAX_DIFF] = {"max_diff_fps", "largest |B - A|", "FPS", "no ticks", NULL},
};

/* Metric m's label against c's truth. */
static const char *label_of(const struct variant_comparison *c, int m)
{
	return c->display_truth && metrics[m].label_display ? metrics[m].label_display
							    : metrics[m].label;
}

/* ------------------------------------------------------------ the per-tick diff */

/* A reading waiting for the other variant's reading of the same tick. */
struct pending {
	uint64_t tick_ns, micro;
	uint8_t source;
};

/*
 * The diff of the two lanes' readings. Each variant's pipeline emits its readings for the
 * ticks a record makes due when it is fed that record, A's then B's (or both from one
 * pipeline when the variants are the same), so the k-th reading of A pairs with the k-th
 * of B; the queue holds the readings of the variant ahead: at most those of one record.
 */
struct diff_state {
	struct variant_comparison *c;
	uint64_t first_ns, span_end;
	struct pending *q;
	size_t head, len, cap;
	int q_side;
	bool have_last, last_differ; /* the previous tick, and whether its sources differed */
	uint64_t last_ns;
	char err[160];
};

struct diff_side {
	struct diff_state *st;
	int side;
};

/* |b - a| of a tick's readings, micro-FPS. */
static uint64_t tick_gap(const struct variant_tick *t)
{
	return t->micro[1] > t->micro[0] ? t->micro[1] - t->micro[0] : t->micro[0] - t->micro[1];
}

/* Keep t among the VARIANT_TOP largest |B - A|; on a tie the earlier tick stays first. */
static void top_insert(struct variant_diff *d, const struct variant_tick *t)
{
	uint64_t g = tick_gap(t);
	size_t i = 0;

	while (i < d->n_top && tick_gap(&d->top[i]) >= g)
		i++;
	if (i == VARIANT_TOP)
		return;
	if (d->n_top < VARIANT_TOP)
		d->n_top++;
	memmove(&d->top[i + 1], &d->top[i], (d->n_top - 1 - i) * sizeof(d->top[0]));
	d->top[i] = *t;
}

/*
 * A tick's two readings. A source shows until the next tick (an overlay holds its last
 * reading), so the time the sources differed is the span from each tick whose sources
 * differ to the next tick (the last one: to the span's end, diff_finish).
 */
static int diff_pair(struct diff_state *st, const struct pending *a, const struct pending *b)
{
	struct variant_diff *d = &st->c->diff;
	struct variant_tick t = {.t_ns = a->tick_ns - st->first_ns,
				 .micro = {a->micro, b->micro},
				 .source = {a->source, b->source}};
	bool src = a->source != b->source;

	if (a->tick_ns != b->tick_ns) {
		/* both lanes see the replay's one tick schedule: this cannot happen */
		snprintf(st->err, sizeof(st->err), "%s: the two variants' ticks do not pair",
			 st->c->path);
		return -EPROTO;
	}
	if (st->have_last && st->last_differ)
		d->source_differ_ns += a->tick_ns - st->last_ns;
	st->have_last = true;
	st->last_ns = a->tick_ns;
	st->last_differ = src;
	d->ticks++;
	d->source_differ += src;
	if (src || a->micro != b->micro) {
		d->differ++;
		top_insert(d, &t);
	}
	return 0;
}

static void diff_finish(struct diff_state *st)
{
	if (st->have_last && st->last_differ && st->span_end > st->last_ns)
		st->c->diff.source_differ_ns += st->span_end - st->last_ns;
}

/* Queue a reading of the variant ahead. 0 or -ENOMEM. */
static int diff_push(struct diff_state *st, int side, const struct pending *p)
{
	if (!st->len)
		st->head = 0, st->q_side = side;
	if (st->head + st->len == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		struct pending *q;

		if (st->head) { /* room at the front: slide down */
			memmove(st->q, st->q + st->head, st->len * sizeof(*st->q));
			st->head = 0;
		} else if (!(q = realloc(st->q, cap * sizeof(*q)))) {
			snprintf(st->err, sizeof(st->err), "%s: out of memory", st->c->path);
			return -ENOMEM;
		} else {
			st->q = q, st->cap = cap;
		}
	}
	st->q[st->head + st->len++] = *p;
	return 0;
}

static int diff_reading(void *ctx, const struct pipeline_reading *r)
{
	struct diff_side *ds = ctx;
	struct diff_state *st = ds->st;
	struct pending p = {r->tick_ns, 0, FRC_SOURCE_NONE}, other;

	if (r->reading.valid) {
		p.micro = fps_to_micro(r->reading.fps);
		p.source = (uint8_t)r->reading.source;
	}
	if (!st->len || st->q_side == ds->side)
		return diff_push(st, ds->side, &p);
	other = st->q[st->head++];
	st->len--;
	return ds->side ? diff_pair(st, &other, &p) : diff_pair(st, &p, &other);
}

/* The names a variant was replayed with (the table's strings outlive the replay's copy). */
static int diff_begin(void *ctx, const struct replay_info *info)
{
	struct diff_side *ds = ctx;
	struct variant_comparison *c = ds->st->c;
	struct variant_side *v = &c->v[ds->side];

	snprintf(v->tracker, sizeof(v->tracker), "%s", info->tracker);
	snprintf(v->meter, sizeof(v->meter), "%s", info->meter);
	ds->st->first_ns = info->stats.first_ktime_ns;
	ds->st->span_end = info->span_end;
	c->truncated = info->stats.status != FRC_STATUS_COMPLETE;
	c->valid_end = info->stats.valid_end;
	c->stats = info->stats;
	c->windowed = info->windowed;
	c->from_ns = info->span_start - info->stats.first_ktime_ns;
	c->to_ns = info->span_end - info->stats.first_ktime_ns;
	return 0;
}

static const char *diff_error(void *ctx)
{
	return ((struct diff_side *)ctx)->st->err;
}

/* ------------------------------------------------------------ the replay */

/* What one build owns. */
struct build {
	struct submissions *truth;
	struct score_lanes *sl;
	struct summary *sum[2];
	struct score_result res[2];
	struct diff_state st;
	struct diff_side side[2];
	struct replay_sink sinks[2][2]; /* per variant: the summary, the diff */
	struct replay_lane lanes[4];
	struct replay_sink count, lead;
	struct display *shown; /* score_learn_display's, or NULL: the submissions */
	struct submissions *shown_subm;
};

static void build_free(struct build *b)
{
	score_lanes_free(b->sl);
	subm_free(b->truth);
	summary_free(b->sum[0]);
	summary_free(b->sum[1]);
	free(b->st.q);
	display_free(b->shown);
	subm_free(b->shown_subm);
}

/*
 * The score lanes' truth, as `score` chooses it: what the capture presented, learned by
 * score's own replay (the content layer is known only at its end), when it has presents
 * linked to the main surface; else the submissions (no presents: that replay stops after
 * its scan pass). 0 or a negative code with the message in err.
 */
static int build_truth(struct build *b, const struct replay_source *src,
		       const struct replay_options *opt, struct variant_comparison *c, char *err,
		       size_t errlen)
{
	const struct display_layer *l;
	int rc = score_learn_display(src, opt, &b->shown, &b->shown_subm, err, errlen);

	c->display_truth = false;
	if (rc || !b->shown)
		return rc;
	l = display_content(b->shown);
	score_lanes_set_display(b->sl, b->shown);
	c->display_truth = true;
	c->content_id = l->id;
	c->content_presents = l->presents;
	snprintf(c->content_layer, sizeof(c->content_layer), "%s", l->name);
	return 0;
}

/* The plan's lanes: the score's two, then ours with the same names. 0 or -ENOMEM. */
static int build_lanes(struct build *b, const char *const trackers[2], const char *const meters[2])
{
	if (subm_new(&b->truth) || summary_new(&b->sum[0]) || summary_new(&b->sum[1]) ||
	    score_lanes_new_meters(&b->sl, b->truth, trackers, meters, 2, b->res))
		return -ENOMEM;
	b->count = subm_count_sink(b->truth);
	b->lead = score_lanes_lead(b->sl);
	memcpy(b->lanes, score_lanes(b->sl), 2 * sizeof(b->lanes[0]));
	for (int i = 0; i < 2; i++) {
		b->side[i] = (struct diff_side){&b->st, i};
		b->sinks[i][0] = summary_sink(b->sum[i]);
		b->sinks[i][1] = (struct replay_sink){.ctx = &b->side[i],
						      .begin = diff_begin,
						      .reading = diff_reading,
						      .error = diff_error};
		b->lanes[2 + i] = (struct replay_lane){trackers[i], b->sinks[i], 2, meters[i]};
	}
	return 0;
}

/* A variant's readings, as the report counts them (summary.h). */
static void side_fill(struct variant_side *v, struct summary *s, const struct score_result *r)
{
	struct summary_view view;

	summary_view(s, &view);
	v->ticks = view.ticks;
	v->none = view.none;
	memcpy(v->src, view.src, sizeof(v->src));
	v->score = *r;
	v->score.tracker = NULL; /* the lane's name, NULL for the replay's own: v->tracker */
}

int compare_variants_build(const char *path, const struct replay_options *opt,
			   const char *const trackers[2], const char *const meters[2],
			   struct variant_comparison *c, char *err, size_t errlen)
{
	struct build *b = calloc(1, sizeof(*b));
	struct replay_source src = {.path = path};
	struct replay_plan plan;
	int rc = -ENOMEM;

	c->path = path;
	memset(&c->diff, 0, sizeof(c->diff));
	if (!b || build_lanes(b, trackers, meters)) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto done;
	}
	b->st.c = c;
	if ((rc = build_truth(b, &src, opt, c, err, errlen)) != 0)
		goto done;
	plan = (struct replay_plan){.scan = &b->count,
				    .n_scan = 1,
				    .lanes = b->lanes,
				    .n_lanes = 4,
				    .lead = &b->lead,
				    .n_lead = 1};
	rc = replay_run_plan(&src, opt, &plan, err, errlen);
	if (rc)
		goto done;
	if (b->st.len) { /* as diff_pair: one tick schedule, as many readings each */
		snprintf(err, errlen, "%s: the two variants' ticks do not pair", path);
		rc = -EPROTO;
		goto done;
	}
	diff_finish(&b->st);
	score_lanes_finish(b->sl);
	for (int i = 0; i < 2; i++)
		side_fill(&c->v[i], b->sum[i], &b->res[i]);
done:
	if (b)
		build_free(b);
	free(b);
	return rc;
}

/* ------------------------------------------------------------ metrics and gates */

static struct compare_value val(bool has, double v)
{
	return (struct compare_value){has, has ? v : 0};
}

/* A count that exists once the variant has graded ticks. */
static struct compare_value graded(const struct score_result *r, uint64_t n)
{
	return val(r->ticks > 0, (double)n);
}

/*
 * A variant's values. The error, settle and freeze numbers are score's (REPORT.md "Score",
 * `meters`), from the sums its lanes made: the same formulas as `frameanalyze score`.
 */
static void side_values(const struct variant_side *v, struct compare_value *out)
{
	const struct score_result *r = &v->score;
	uint64_t n = v->src[FRC_SOURCE_SYSFS].count + v->src[FRC_SOURCE_EBPF].count;
	uint64_t sum = v->src[FRC_SOURCE_SYSFS].sum_micro + v->src[FRC_SOURCE_EBPF].sum_micro;
	bool err = r->ticks > 0 && r->meter_truth_sum > 0, shown = r->freezes_shown > 0;

	out[VM_METER_FPS] = val(n > 0, (double)sum / 1e6 / (double)n);
	out[VM_METER_NONE] = val(v->ticks > 0, (double)v->none);
	out[VM_MAE] = val(err, r->meter_abs_err / (double)r->ticks);
	out[VM_MAE_PCT] = val(err, r->meter_abs_err * 100.0 / r->meter_truth_sum);
	out[VM_SETTLE_MEAN] =
	    val(r->settled > 0, (double)r->settle_sum_ns / (double)r->settled / 1e6);
	out[VM_SETTLE_MAX] = val(r->settled > 0, (double)r->settle_max_ns / 1e6);
	out[VM_UNSETTLED] = graded(r, r->unsettled);
	out[VM_FREEZE_SHOW_MEAN] =
	    val(shown, (double)r->freeze_show_sum_ns / (double)r->freezes_shown / 1e6);
	out[VM_FREEZE_SHOW_MAX] = val(shown, (double)r->freeze_show_max_ns / 1e6);
	out[VM_FREEZES_MISSED] = graded(r, r->freezes_missed);
	out[VM_FREEZES_LATE] = graded(r, r->freezes_late);
	out[VM_IDLE_SHOWN] = graded(r, r->idle_shown);
}

static void pair_values(const struct variant_diff *d, struct compare_value *out)
{
	bool has = d->ticks > 0;

	out[VM_TICKS_DIFFER] = val(has, (double)d->differ);
	out[VM_SOURCE_DIFFER] = val(has, (double)d->source_differ);
	out[VM_SOURCE_DIFFER_MS] = val(has, (double)d->source_differ_ns / 1e6);
	out[VM_MAX_DIFF] = val(has, d->n_top ? (double)tick_gap(&d->top[0]) / 1e6 : 0);
}

int compare_variants_parse_gate(const char *s, struct compare_gate *g, char *why, size_t len)
{
	const char *keys[VM_COUNT];
	int rc;

	for (int m = 0; m < VM_COUNT; m++)
		keys[m] = metrics[m].key;
	if ((rc = compare_parse_gate_keys(s, keys, VM_COUNT, g, why, len)))
		return rc;
	if (g->m >= VM_FIRST_PAIR && g->field_given) {
		snprintf(why, len,
			 "'%s' is one number for the two variants: no .after, .delta, .pct",
			 keys[g->m]);
		return -EINVAL;
	}
	return 0;
}

/* A gate's value: B's, B - A or % of A for a variant metric; the pair's number. */
static struct compare_value gate_value(const struct variant_comparison *c,
				       const struct compare_gate *g)
{
	if (g->m >= VM_FIRST_PAIR)
		return c->val[1][g->m];
	return compare_field_value(g->field, c->val[0][g->m], c->val[1][g->m]);
}

/* A gate on a value that does not exist fails (as compare's): say which variant lacks it. */
static enum gate_state gate_eval(const struct variant_comparison *c, struct compare_gate *g)
{
	struct compare_value v = gate_value(c, g);
	const char *why = metrics[g->m].why_none;

	if (v.has)
		return compare_gate_trips(g, v.v) ? GATE_TRIPPED : GATE_OK;
	if (g->m >= VM_FIRST_PAIR)
		snprintf(g->why, sizeof(g->why), "%s", why);
	else if (!c->val[1][g->m].has)
		snprintf(g->why, sizeof(g->why), "%s for B (meter %s)", why, c->v[1].meter);
	else if (g->field != CF_AFTER && !c->val[0][g->m].has)
		snprintf(g->why, sizeof(g->why), "%s for A (meter %s)", why, c->v[0].meter);
	else
		snprintf(g->why, sizeof(g->why), "A is 0: no change in %%");
	return GATE_NO_DATA;
}

size_t compare_variants_run(struct variant_comparison *c)
{
	size_t failed = 0;

	side_values(&c->v[0], c->val[0]);
	side_values(&c->v[1], c->val[1]);
	pair_values(&c->diff, c->val[1]);
	for (size_t i = 0; i < c->n_gates; i++) {
		c->gates[i].state = gate_eval(c, &c->gates[i]);
		failed += c->gates[i].state != GATE_OK;
	}
	return failed;
}

/* ------------------------------------------------------------ output */

static const char *const state_name[3] = {"ok", "TRIPPED", "NO DATA"};

/* micro-FPS with 3 decimals (every number has 3: REPORT.md "Metric names") */
static void fps3(char *buf, size_t len, uint64_t micro)
{
	snprintf(buf, len, "%.3f", (double)micro / 1e6);
}

/* The smallest and largest valid reading (sysfs and eBPF); false: none. */
static bool side_range(const struct variant_side *v, uint64_t *lo, uint64_t *hi)
{
	bool any = false;

	for (int s = FRC_SOURCE_SYSFS; s <= FRC_SOURCE_EBPF; s++) {
		if (!v->src[s].count)
			continue;
		if (!any || v->src[s].min_micro < *lo)
			*lo = v->src[s].min_micro;
		if (!any || v->src[s].max_micro > *hi)
			*hi = v->src[s].max_micro;
		any = true;
	}
	return any;
}

static void put_text(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_TEXT);
}

static void put_json(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_JSON);
}

/* The header: the capture, the two variants, the window. */
static void text_head(const struct variant_comparison *c, FILE *out)
{
	fputs("compare: ", out);
	put_text(out, c->path);
	fputs(": one capture, two variants (A -> B)\n", out);
	for (int i = 0; i < 2; i++)
		fprintf(out, "  %c: tracker %s, meter %s\n", 'A' + i, c->v[i].tracker,
			c->v[i].meter);
	if (c->windowed)
		fprintf(out, "  window: %.3f..%.3f s after the first record\n",
			(double)(c->from_ns / 1000000u) / 1e3, (double)(c->to_ns / 1000000u) / 1e3);
}

/* Each variant's readings: by source, mean, min..max. */
static void text_readings(const struct variant_comparison *c, FILE *out)
{
	char col[2][80], a[32], b[32];

	fprintf(out, "readings%35s %20s\n", "A", "B");
	fprintf(out, "  %-24s %16" PRIu64 " %20" PRIu64 "\n", "ticks", c->v[0].ticks,
		c->v[1].ticks);
	for (int i = 0; i < 2; i++)
		snprintf(col[i], sizeof(col[i]), "%" PRIu64 "/%" PRIu64 "/%" PRIu64,
			 c->v[i].src[FRC_SOURCE_SYSFS].count, c->v[i].src[FRC_SOURCE_EBPF].count,
			 c->v[i].none);
	fprintf(out, "  %-24s %16s %20s\n", "sysfs/ebpf/none", col[0], col[1]);
	compare_fmt(a, sizeof(a), c->val[0][VM_METER_FPS], false);
	compare_fmt(b, sizeof(b), c->val[1][VM_METER_FPS], false);
	fprintf(out, "  %-24s %16s %20s\n", "mean FPS (all sources)", a, b);
	for (int i = 0; i < 2; i++) {
		uint64_t lo = 0, hi = 0;

		if (!side_range(&c->v[i], &lo, &hi)) {
			snprintf(col[i], sizeof(col[i]), "null");
			continue;
		}
		fps3(a, sizeof(a), lo);
		fps3(b, sizeof(b), hi);
		snprintf(col[i], sizeof(col[i]), "%s..%s", a, b);
	}
	fprintf(out, "  %-24s %16s %20s\n", "min..max FPS", col[0], col[1]);
}

/* One tick's reading of a variant: "120.000 sysfs". */
static void tick_reading(char *buf, size_t len, const struct variant_tick *t, int i)
{
	char v[32];

	fps3(v, sizeof(v), t->micro[i]);
	snprintf(buf, len, "%s %s", v, frc_source_name(t->source[i], "none"));
}

/* The signed B - A of a tick, FPS with 3 decimals. */
static double tick_delta(const struct variant_tick *t)
{
	return ((double)t->micro[1] - (double)t->micro[0]) / 1e6;
}

static void text_diff(const struct variant_comparison *c, FILE *out)
{
	const struct variant_diff *d = &c->diff;
	char a[48], b[48];

	fprintf(out,
		"per-tick diff: %" PRIu64 " of %" PRIu64 " ticks differ, %" PRIu64
		" with another source, for %.3f s\n",
		d->differ, d->ticks, d->source_differ,
		(double)(d->source_differ_ns / 1000000u) / 1e3);
	if (!d->n_top)
		return;
	fprintf(out, "  %-12s %-20s %-20s %10s\n", "largest at s", "A", "B", "B - A");
	for (size_t i = 0; i < d->n_top; i++) {
		const struct variant_tick *t = &d->top[i];

		tick_reading(a, sizeof(a), t, 0);
		tick_reading(b, sizeof(b), t, 1);
		fprintf(out, "  %12.3f %-20s %-20s %+10.3f\n", (double)(t->t_ns / 1000000u) / 1e3,
			a, b, tick_delta(t));
	}
}

/* The truth's counts, the same for both (graded ticks, rate changes, freezes, idle ticks). */
static void text_truth(const struct variant_comparison *c, FILE *out)
{
	const struct score_result *r = &c->v[0].score;

	if (c->display_truth) {
		/* score's own lines (cmd_score.c): the layer's name is the app's text */
		fprintf(
		    out,
		    "against the display (REPORT.md \"Score\", meters)\n  truth: display, content "
		    "layer %" PRIu32 " (%" PRIu64
		    " presents; REPORT.md \"Score\")\n  layer %" PRIu32 ": ",
		    c->content_id, c->content_presents, c->content_id);
		put_text(out, c->content_layer);
		fputc('\n', out);
	} else {
		fputs("against the submissions (REPORT.md \"Score\", meters)\n", out);
	}
	fprintf(out,
		"  truth: %" PRIu64 " ticks graded, %" PRIu64 " rate changes, %" PRIu64
		" freezes, %" PRIu64 " idle ticks\n",
		r->ticks, r->changes, r->freezes, r->idle_ticks);
}

static void text_metrics(const struct variant_comparison *c, FILE *out)
{
	char a[32], b[32], d[32], p[32], label[64];

	fprintf(out, "  %-38s %12s %12s %12s %10s\n", "metric", "A", "B", "change", "change %");
	for (int m = 0; m < VM_FIRST_PAIR; m++) {
		struct compare_value va = c->val[0][m], vb = c->val[1][m];

		compare_fmt(a, sizeof(a), va, false);
		compare_fmt(b, sizeof(b), vb, false);
		compare_fmt(d, sizeof(d), compare_field_value(CF_DELTA, va, vb), true);
		compare_fmt(p, sizeof(p), compare_field_value(CF_PCT, va, vb), true);
		snprintf(label, sizeof(label), "%s (%s)", label_of(c, m), metrics[m].unit);
		fprintf(out, "  %-38s %12s %12s %12s %10s\n", label, a, b, d, p);
	}
}

static void text_gates(const struct variant_comparison *c, FILE *out)
{
	char v[32];

	if (!c->n_gates)
		return;
	fputs("gates\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];

		compare_fmt(v, sizeof(v), gate_value(c, g), false);
		fprintf(out, "  %-38s %12s  %s%s%s\n", g->text, v, state_name[g->state],
			g->state == GATE_NO_DATA ? ": " : "",
			g->state == GATE_NO_DATA ? g->why : "");
	}
}

void compare_variants_text(const struct variant_comparison *c, FILE *out)
{
	text_head(c, out);
	text_readings(c, out);
	text_diff(c, out);
	text_truth(c, out);
	text_metrics(c, out);
	text_gates(c, out);
}

/* ------------------------------------------------------------ JSON */

static void json_val(FILE *out, const char *key, struct compare_value v, bool comma)
{
	char buf[32];

	compare_fmt(buf, sizeof(buf), v, false);
	fprintf(out, "\"%s\": %s%s", key, buf, comma ? ", " : "");
}

/* "before" / "after": a variant's names, readings and grading (score's meter keys). */
static void json_side(const struct variant_comparison *c, int i, FILE *out)
{
	const struct variant_side *v = &c->v[i];
	const struct score_result *r = &v->score;
	const struct compare_value *x = c->val[i];
	uint64_t lo = 0, hi = 0;
	bool any = side_range(v, &lo, &hi);

	fprintf(out,
		"  \"%s\": {\"tracker\": \"%s\", \"meter\": \"%s\",\n    \"readings\": {\"ticks\": "
		"%" PRIu64 ", \"sysfs\": %" PRIu64 ", \"ebpf\": %" PRIu64 ", \"none\": %" PRIu64
		", ",
		i ? "after" : "before", v->tracker, v->meter, v->ticks,
		v->src[FRC_SOURCE_SYSFS].count, v->src[FRC_SOURCE_EBPF].count, v->none);
	json_val(out, "mean_fps", x[VM_METER_FPS], true);
	json_val(out, "min_fps", val(any, (double)lo / 1e6), true);
	json_val(out, "max_fps", val(any, (double)hi / 1e6), false);
	fprintf(out,
		"},\n    \"grading\": {\"meter_ticks\": %" PRIu64 ", \"meter_none\": %" PRIu64 ", ",
		r->ticks, r->ticks_none);
	json_val(out, "meter_mae", x[VM_MAE], true);
	json_val(out, "meter_mae_percent", x[VM_MAE_PCT], true);
	fprintf(out, "\"rate_changes\": %" PRIu64 ", \"unsettled\": %" PRIu64 ", ", r->changes,
		r->unsettled);
	json_val(out, "settle_mean_ms", x[VM_SETTLE_MEAN], true);
	json_val(out, "settle_max_ms", x[VM_SETTLE_MAX], true);
	fprintf(
	    out,
	    "\"freezes\": %" PRIu64 ", \"freezes_shown\": %" PRIu64 ", \"freezes_missed\": %" PRIu64
	    ", \"freezes_late\": %" PRIu64 ", \"freezes_unseen\": %" PRIu64 ", ",
	    r->freezes, r->freezes_shown, r->freezes_missed, r->freezes_late, r->freezes_unseen);
	json_val(out, "freeze_show_mean_ms", x[VM_FREEZE_SHOW_MEAN], true);
	json_val(out, "freeze_show_max_ms", x[VM_FREEZE_SHOW_MAX], true);
	fprintf(out, "\"idle_ticks\": %" PRIu64 ", \"idle_shown\": %" PRIu64 "}},\n", r->idle_ticks,
		r->idle_shown);
}

static void json_diff(const struct variant_comparison *c, FILE *out)
{
	const struct variant_diff *d = &c->diff;
	const struct compare_value *x = c->val[1];

	fprintf(out,
		"  \"diff\": {\"ticks\": %" PRIu64 ", \"ticks_differ\": %" PRIu64
		", \"source_differ_ticks\": %" PRIu64 ", ",
		d->ticks, d->differ, d->source_differ);
	json_val(out, "source_differ_ms", x[VM_SOURCE_DIFFER_MS], true);
	json_val(out, "max_diff_fps", x[VM_MAX_DIFF], true);
	fputs("\"largest\": [", out);
	for (size_t i = 0; i < d->n_top; i++) {
		const struct variant_tick *t = &d->top[i];

		fprintf(out,
			"%s\n    {\"t_s\": %.3f, \"before_fps\": %.3f, \"before_source\": \"%s\", "
			"\"after_fps\": %.3f, \"after_source\": \"%s\", \"diff_fps\": %.3f}",
			i ? "," : "", (double)(t->t_ns / 1000000u) / 1e3, (double)t->micro[0] / 1e6,
			frc_source_name(t->source[0], "none"), (double)t->micro[1] / 1e6,
			frc_source_name(t->source[1], "none"), tick_delta(t));
	}
	fprintf(out, "%s]},\n", d->n_top ? "\n  " : "");
}

static void json_metrics(const struct variant_comparison *c, FILE *out)
{
	fputs("  \"metrics\": {", out);
	for (int m = 0; m < VM_FIRST_PAIR; m++) {
		struct compare_value a = c->val[0][m], b = c->val[1][m];

		fprintf(out, "%s\n    \"%s\": {", m ? "," : "", metrics[m].key);
		json_val(out, "before", a, true);
		json_val(out, "after", b, true);
		json_val(out, "delta", compare_field_value(CF_DELTA, a, b), true);
		json_val(out, "pct", compare_field_value(CF_PCT, a, b), false);
		fputc('}', out);
	}
	fputs("\n  },\n", out);
}

static void json_gates(const struct variant_comparison *c, FILE *out)
{
	fputs("  \"gates\": [", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];

		fputs(i ? ",\n    {\"gate\": \"" : "\n    {\"gate\": \"", out);
		put_json(out, g->text);
		fputs("\", ", out);
		json_val(out, "value", gate_value(c, g), true);
		fprintf(out, "\"tripped\": %s, \"state\": \"%s\", \"why\": ",
			g->state == GATE_TRIPPED ? "true" : "false",
			g->state == GATE_OK	   ? "ok"
			: g->state == GATE_TRIPPED ? "tripped"
						   : "no_data");
		if (g->state == GATE_NO_DATA) {
			fputc('"', out);
			put_json(out, g->why);
			fputs("\"}", out);
		} else {
			fputs("null}", out);
		}
	}
	fprintf(out, "%s]\n", c->n_gates ? "\n  " : "");
}

/* Which truth graded the variants: score's keys ("truth", "content_layer"). */
static void json_truth(const struct variant_comparison *c, FILE *out)
{
	if (!c->display_truth) {
		fputs("  \"truth\": \"submissions\", \"content_layer\": null,\n", out);
		return;
	}
	fprintf(out,
		"  \"truth\": \"display\", \"content_layer\": {\"id\": %" PRIu32 ", \"name\": \"",
		c->content_id);
	put_json(out, c->content_layer);
	fprintf(out, "\", \"presents\": %" PRIu64 "},\n", c->content_presents);
}

void compare_variants_json(const struct variant_comparison *c, FILE *out)
{
	fputs("{\n  \"frameanalyze_compare\": 1,\n  \"mode\": \"variants\",\n  \"capture\": \"",
	      out);
	put_json(out, c->path);
	fprintf(out, "\",\n  \"status\": \"%s\",\n", c->truncated ? "truncated" : "complete");
	if (c->windowed)
		fprintf(out, "  \"window\": {\"from_s\": %.3f, \"to_s\": %.3f},\n",
			(double)(c->from_ns / 1000000u) / 1e3, (double)(c->to_ns / 1000000u) / 1e3);
	else
		fputs("  \"window\": null,\n", out);
	json_truth(c, out);
	json_side(c, 0, out);
	json_side(c, 1, out);
	json_diff(c, out);
	json_metrics(c, out);
	json_gates(c, out);
	fputs("}\n", out);
}

/* ------------------------------------------------------------ HTML */

static void html_readings(const struct variant_comparison *c, FILE *out)
{
	char a[32], b[32];

	fputs("<h2>Readings</h2>\n<table id=\"readings\"><tr><th></th><th>A</th><th>B</th></tr>\n",
	      out);
	fprintf(out, "<tr><td>ticks</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
		c->v[0].ticks, c->v[1].ticks);
	for (int s = FRC_SOURCE_NONE; s <= FRC_SOURCE_EBPF; s++)
		fprintf(out, "<tr><td>%s</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
			frc_source_name((unsigned)s, "none"),
			s ? c->v[0].src[s].count : c->v[0].none,
			s ? c->v[1].src[s].count : c->v[1].none);
	compare_fmt(a, sizeof(a), c->val[0][VM_METER_FPS], false);
	compare_fmt(b, sizeof(b), c->val[1][VM_METER_FPS], false);
	fprintf(out, "<tr><td>mean FPS (all sources)</td><td>%s</td><td>%s</td></tr>\n</table>\n",
		a, b);
}

static void html_diff(const struct variant_comparison *c, FILE *out)
{
	const struct variant_diff *d = &c->diff;
	char a[48], b[48];

	fprintf(out,
		"<h2>Per-tick diff</h2>\n<p id=\"diff\">%" PRIu64 " of %" PRIu64
		" ticks differ, %" PRIu64 " with another source, for %.3f s</p>\n",
		d->differ, d->ticks, d->source_differ,
		(double)(d->source_differ_ns / 1000000u) / 1e3);
	if (!d->n_top)
		return;
	fputs("<table id=\"largest\"><tr><th>at s</th><th>A</th><th>B</th><th>B &minus; A</th>"
	      "</tr>\n",
	      out);
	for (size_t i = 0; i < d->n_top; i++) {
		const struct variant_tick *t = &d->top[i];

		tick_reading(a, sizeof(a), t, 0);
		tick_reading(b, sizeof(b), t, 1);
		fprintf(out, "<tr><td>%.3f</td><td>%s</td><td>%s</td><td>%+.3f</td></tr>\n",
			(double)(t->t_ns / 1000000u) / 1e3, a, b, tick_delta(t));
	}
	fputs("</table>\n", out);
}

static void html_metrics(const struct variant_comparison *c, FILE *out)
{
	char a[32], b[32], d[32], p[32];

	if (c->display_truth) {
		fprintf(
		    out,
		    "<h2>Against the display</h2>\n<p id=\"truth\">truth: display, content layer "
		    "%" PRIu32 " (%" PRIu64 " presents; REPORT.md \"Score\"): ",
		    c->content_id, c->content_presents);
		report_put_html(out, c->content_layer);
		fputs("</p>\n", out);
	} else {
		fputs("<h2>Against the submissions</h2>\n", out);
	}
	fputs("<table id=\"compare\"><tr><th>metric</th>"
	      "<th>A</th><th>B</th><th>change</th><th>change %</th></tr>\n",
	      out);
	for (int m = 0; m < VM_FIRST_PAIR; m++) {
		struct compare_value va = c->val[0][m], vb = c->val[1][m];

		compare_fmt(a, sizeof(a), va, false);
		compare_fmt(b, sizeof(b), vb, false);
		compare_fmt(d, sizeof(d), compare_field_value(CF_DELTA, va, vb), true);
		compare_fmt(p, sizeof(p), compare_field_value(CF_PCT, va, vb), true);
		fprintf(out,
			"<tr><td>%s (%s)</td><td data-json=\"metrics.%s.before\">%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td></tr>\n",
			label_of(c, m), metrics[m].unit, metrics[m].key, a, b, d, p);
	}
	fputs("</table>\n", out);
}

static void html_gates(const struct variant_comparison *c, FILE *out)
{
	char v[32];

	if (!c->n_gates)
		return;
	fputs("<h2>Gates</h2>\n<table>\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];

		compare_fmt(v, sizeof(v), gate_value(c, g), false);
		fputs("<tr><td>", out);
		report_put_html(out, g->text);
		fprintf(out, "</td><td>%s</td><td class=\"%s\">", v,
			g->state == GATE_OK ? "ok" : "bad");
		report_put_html(out, g->state == GATE_NO_DATA ? g->why : state_name[g->state]);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

void compare_variants_html(const struct variant_comparison *c, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
	      "frameanalyze compare</title>\n<style>body{font:14px/1.4 system-ui,sans-serif;"
	      "margin:24px}table{border-collapse:collapse}th,td{padding:2px 10px;border-bottom:"
	      "1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}"
	      ".bad{color:#b00;font-weight:600}.ok{color:#070}</style></head><body>\n"
	      "<h1>Compare: two variants</h1>\n<p>capture: ",
	      out);
	report_put_html(out, c->path);
	for (int i = 0; i < 2; i++)
		fprintf(out, "<br>%c: tracker %s, meter %s", 'A' + i, c->v[i].tracker,
			c->v[i].meter);
	fputs("</p>\n", out);
	html_readings(c, out);
	html_diff(c, out);
	html_metrics(c, out);
	html_gates(c, out);
	fputs("</body></html>\n", out);
}
