/* SPDX-License-Identifier: MIT */
/* compare.c - two captures side by side and the CI gates on them; see compare.h. */
#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frc_escape.h"
#include "report_render.h"

/* why_none: what a capture lacks when the value does not exist. */
static const struct {
	const char *key, *label, *unit, *why_none;
} metrics[CM_COUNT] = {
    [CM_SUB_FPS] = {"submitted_fps", "submitted mean FPS (main surface)", "FPS", "no frames"},
    [CM_LOW1] = {"low_1pct_fps", "1 % low (submissions)", "FPS", "no frames"},
    [CM_P50] = {"p50_ms", "p50 frame time (submissions)", "ms", "no frames"},
    [CM_P90] = {"p90_ms", "p90 frame time (submissions)", "ms", "no frames"},
    [CM_P95] = {"p95_ms", "p95 frame time (submissions)", "ms", "no frames"},
    [CM_P99] = {"p99_ms", "p99 frame time (submissions)", "ms", "no frames"},
    [CM_MAX] = {"max_ms", "max frame time (submissions)", "ms", "no frames"},
    [CM_JANKS_MIN] = {"janks_per_min", "PerfDog janks per minute", "/min", "no frames"},
    [CM_BIG_JANKS_MIN] = {"big_janks_per_min", "PerfDog big janks per minute", "/min", "no frames"},
    [CM_STUTTER] = {"stutter_percent", "stutter (PerfDog)", "%", "no frames"},
    [CM_MEDIAN_FPS] = {"median_fps", "median per-second FPS (GameBench)", "FPS",
		       "no full second of frames"},
    [CM_STABILITY] = {"stability_percent", "FPS stability (GameBench)", "%",
		      "no full second of frames"},
    [CM_TRACKER_FPS] = {"tracker_fps", "tracker mean FPS", "FPS", "no tracker deltas"},
    [CM_METER_FPS] = {"meter_fps", "meter mean reading (all sources)", "FPS", "no meter readings"},
    [CM_LOSS] = {"loss_percent", "reservation-failure loss", "%", "no frames"},
};

static const char *const field_name[3] = {"after", "delta", "pct"};

/* ------------------------------------------------------------ metrics */

static struct compare_value val(bool has, double v)
{
	return (struct compare_value){has, has ? v : 0};
}

/* A percentile in ms, truncated to the microsecond as the report prints it. */
static double ms_us(uint64_t ns)
{
	return (double)(ns / 1000) / 1e3;
}

static void metrics_of(const struct report_model *r, struct compare_value *out)
{
	const struct summary_frame_numbers *s = &r->sub.fn;
	bool has = s->deltas > 0, secs = r->secs.n > 0;
	uint64_t n = r->run.src[1].count + r->run.src[2].count;
	double minutes = (double)s->sum_ns / 60e9;

	out[CM_SUB_FPS] = val(has, s->mean_fps);
	out[CM_LOW1] = val(has, s->low1_fps);
	out[CM_P50] = val(has, ms_us(s->p50_ns));
	out[CM_P90] = val(has, ms_us(s->p90_ns));
	out[CM_P95] = val(has, ms_us(s->p95_ns));
	out[CM_P99] = val(has, ms_us(s->p99_ns));
	out[CM_MAX] = val(has, ms_us(s->max_ns));
	out[CM_JANKS_MIN] = val(has && minutes > 0, s->janks / minutes);
	out[CM_BIG_JANKS_MIN] = val(has && minutes > 0, s->big_janks / minutes);
	out[CM_STUTTER] = val(has, s->stutter_pct);
	out[CM_MEDIAN_FPS] = val(secs, r->secs.median_fps);
	out[CM_STABILITY] = val(secs, r->secs.stability_pct);
	out[CM_TRACKER_FPS] = val(r->run.fn.deltas > 0, r->run.fn.mean_fps);
	out[CM_METER_FPS] =
	    val(n > 0, (double)(r->run.src[1].sum_micro + r->run.src[2].sum_micro) / 1e6 / n);
	out[CM_LOSS] = val(r->run.stats.by_type[FRC_FRAME] + r->run.drops > 0, r->run.loss_pct);
}

static struct compare_value delta_of(struct compare_value b, struct compare_value a)
{
	return val(a.has && b.has, a.v - b.v);
}

static struct compare_value pct_of(struct compare_value b, struct compare_value a)
{
	return val(a.has && b.has && b.v != 0, (a.v - b.v) * 100 / b.v);
}

static struct compare_value field_of(enum compare_field f, struct compare_value b,
				     struct compare_value a)
{
	return f == CF_AFTER ? a : f == CF_DELTA ? delta_of(b, a) : pct_of(b, a);
}

/* ------------------------------------------------------------ gates */

/* The n metric names, "a, b, c", for a message. */
static void metric_names(const char *const *keys, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int m = 0; m < n && used < len; m++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", m ? ", " : "", keys[m]);
}

/* ".after", ".delta" or ".pct" at p (after the dot) into g; false: unknown (why says). */
static bool parse_field(const char **p, struct compare_gate *g, char *why, size_t len)
{
	size_t flen = strcspn(*p, "<>= ");
	int f;

	for (f = 0; f < 3; f++)
		if (strlen(field_name[f]) == flen && !strncmp(*p, field_name[f], flen))
			break;
	if (f == 3) {
		snprintf(why, len, "unknown field '.%.*s' (known: .after, .delta, .pct)", (int)flen,
			 *p);
		return false;
	}
	g->field = (enum compare_field)f;
	g->field_given = true;
	*p += flen;
	return true;
}

/*
 * "METRIC[.after|.delta|.pct]OP NUMBER", OP one of > >= < <= (spaces around OP allowed);
 * a bare METRIC is its delta (after - before). Returns 0, or -EINVAL with why in why[len].
 */
int compare_parse_gate_keys(const char *s, const char *const *keys, int n, struct compare_gate *g,
			    char *why, size_t len)
{
	size_t klen = strcspn(s, ".<>= ");
	const char *p = s + klen, *num;
	char *end, names[512];

	*g = (struct compare_gate){.text = s, .m = -1, .field = CF_DELTA};
	for (int m = 0; m < n; m++)
		if (strlen(keys[m]) == klen && !strncmp(s, keys[m], klen))
			g->m = m;
	if (g->m < 0) {
		metric_names(keys, n, names, sizeof(names));
		snprintf(why, len, "unknown metric '%.*s' (known: %s)", (int)klen, s, names);
		return -EINVAL;
	}
	if (*p == '.' && (++p, !parse_field(&p, g, why, len)))
		return -EINVAL;
	p += strspn(p, " ");
	if (*p != '<' && *p != '>') {
		snprintf(why, len, "expected an operator (> >= < <=) after the metric");
		return -EINVAL;
	}
	g->greater = *p++ == '>';
	g->or_equal = *p == '=';
	num = p + g->or_equal;
	errno = 0;
	g->threshold = strtod(num, &end);
	end += strspn(end, " ");
	if (end == num || *end || errno || !isfinite(g->threshold)) {
		snprintf(why, len, "expected a number after the operator");
		return -EINVAL;
	}
	return 0;
}

int compare_parse_gate(const char *s, struct compare_gate *g, char *why, size_t len)
{
	const char *keys[CM_COUNT];

	for (int m = 0; m < CM_COUNT; m++)
		keys[m] = metrics[m].key;
	return compare_parse_gate_keys(s, keys, CM_COUNT, g, why, len);
}

struct compare_value compare_field_value(enum compare_field f, struct compare_value before,
					 struct compare_value after)
{
	return field_of(f, before, after);
}

bool compare_gate_trips(const struct compare_gate *g, double v)
{
	if (g->greater)
		return g->or_equal ? v >= g->threshold : v > g->threshold;
	return g->or_equal ? v <= g->threshold : v < g->threshold;
}

/*
 * Why the gate's value does not exist: the capture lacking data (AFTER first: a broken
 * new build is the usual reason), or a before of 0 for a change in %.
 */
static void no_data_why(const struct comparison *c, struct compare_gate *g)
{
	const char *why = metrics[g->m].why_none;

	if (!c->a[g->m].has)
		snprintf(g->why, sizeof(g->why), "%s in AFTER", why);
	else if (g->field != CF_AFTER && !c->b[g->m].has)
		snprintf(g->why, sizeof(g->why), "%s in BEFORE", why);
	else
		snprintf(g->why, sizeof(g->why), "BEFORE is 0: no change in %%");
}

/*
 * A gate on a value that does not exist fails: a recording with no frames (a wrong
 * symbol, a crashed game) must not pass a CI gate by having nothing to measure.
 */
static enum gate_state gate_eval(const struct comparison *c, struct compare_gate *g)
{
	struct compare_value v = field_of(g->field, c->b[g->m], c->a[g->m]);

	if (!v.has) {
		no_data_why(c, g);
		return GATE_NO_DATA;
	}
	return compare_gate_trips(g, v.v) ? GATE_TRIPPED : GATE_OK;
}

size_t compare_run(struct comparison *c)
{
	size_t failed = 0;

	metrics_of(c->before, c->b);
	metrics_of(c->after, c->a);
	for (size_t i = 0; i < c->n_gates; i++) {
		c->gates[i].state = gate_eval(c, &c->gates[i]);
		failed += c->gates[i].state != GATE_OK;
	}
	return failed;
}

/* ------------------------------------------------------------ output */

static const char *const state_name[3] = {"ok", "TRIPPED", "NO DATA"};

/* every number with 3 decimals (REPORT.md "Metric names"); a change signed */
enum num_style { PLAIN3, SIGNED3 };

static void num(char *buf, size_t len, struct compare_value v, enum num_style st)
{
	compare_fmt(buf, len, v, st == SIGNED3);
}

void compare_fmt(char *buf, size_t len, struct compare_value v, bool sign)
{
	if (!v.has)
		snprintf(buf, len, "null");
	else
		snprintf(buf, len, sign ? "%+.3f" : "%.3f", v.v);
}

static void put_text(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_TEXT);
}

static void put_json(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_JSON);
}

/* A model's window (--from/--to) as "S.mmm..S.mmm" s after its first record; false: none. */
static bool window_of(const struct report_model *m, char *buf, size_t len)
{
	uint64_t a = m->run.span_start - m->run.stats.first_ktime_ns;
	uint64_t b = m->run.span_end - m->run.stats.first_ktime_ns;

	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "..%" PRIu64 ".%03" PRIu64, a / 1000000000u,
		 a / 1000000u % 1000u, b / 1000000000u, b / 1000000u % 1000u);
	return m->run.windowed;
}

void compare_render_text(const struct comparison *c, FILE *out)
{
	char b[64], a[64], d[32], p[32];

	fputs("compare: ", out);
	put_text(out, c->before_path);
	fputs(" -> ", out);
	put_text(out, c->after_path);
	fprintf(out, " (tracker %s -> %s)\n", c->before->tracker, c->after->tracker);
	if (window_of(c->before, b, sizeof(b)) && window_of(c->after, a, sizeof(a)))
		fprintf(out, "  window: %s s -> %s s after each first record\n", b, a);
	fprintf(out, "  %-34s %12s %12s %12s %10s\n", "metric", "before", "after", "change",
		"change %");
	for (int m = 0; m < CM_COUNT; m++) {
		num(b, sizeof(b), c->b[m], PLAIN3);
		num(a, sizeof(a), c->a[m], PLAIN3);
		num(d, sizeof(d), delta_of(c->b[m], c->a[m]), SIGNED3);
		num(p, sizeof(p), pct_of(c->b[m], c->a[m]), SIGNED3);
		fprintf(out, "  %-34s %12s %12s %12s %10s\n", metrics[m].label, b, a, d, p);
	}
	if (!c->n_gates)
		return;
	fputs("gates\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];
		num(b, sizeof(b), field_of(g->field, c->b[g->m], c->a[g->m]), PLAIN3);
		fprintf(out, "  %-34s %12s  %s%s%s\n", g->text, b, state_name[g->state],
			g->state == GATE_NO_DATA ? ": " : "",
			g->state == GATE_NO_DATA ? g->why : "");
	}
}

static void json_val(FILE *out, const char *key, struct compare_value v, bool comma)
{
	char buf[32];

	num(buf, sizeof(buf), v, PLAIN3);
	fprintf(out, "\"%s\": %s%s", key, buf, comma ? ", " : "");
}

/* "window_before" / "window_after": {"from_s", "to_s"}, or null without a window. */
static void json_windows(const struct comparison *c, FILE *out)
{
	const struct report_model *m[2] = {c->before, c->after};
	static const char *const key[2] = {"window_before", "window_after"};

	for (int i = 0; i < 2; i++) {
		char w[64], *dots;

		if (!window_of(m[i], w, sizeof(w))) {
			fprintf(out, "  \"%s\": null,\n", key[i]);
			continue;
		}
		dots = strstr(w, "..");
		*dots = '\0';
		fprintf(out, "  \"%s\": {\"from_s\": %s, \"to_s\": %s},\n", key[i], w, dots + 2);
	}
}

void compare_render_json(const struct comparison *c, FILE *out)
{
	fputs("{\n  \"frameanalyze_compare\": 1,\n  \"before\": \"", out);
	put_json(out, c->before_path);
	fputs("\",\n  \"after\": \"", out);
	put_json(out, c->after_path);
	fprintf(out, "\",\n  \"tracker_before\": \"%s\",\n  \"tracker_after\": \"%s\",\n",
		c->before->tracker, c->after->tracker);
	json_windows(c, out);
	fputs("  \"metrics\": {", out);
	for (int m = 0; m < CM_COUNT; m++) {
		fprintf(out, "%s\n    \"%s\": {", m ? "," : "", metrics[m].key);
		json_val(out, "before", c->b[m], true);
		json_val(out, "after", c->a[m], true);
		json_val(out, "delta", delta_of(c->b[m], c->a[m]), true);
		json_val(out, "pct", pct_of(c->b[m], c->a[m]), false);
		fputc('}', out);
	}
	fputs("\n  },\n  \"gates\": [", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];
		fputs(i ? ",\n    {\"gate\": \"" : "\n    {\"gate\": \"", out);
		put_json(out, g->text);
		fputs("\", ", out);
		json_val(out, "value", field_of(g->field, c->b[g->m], c->a[g->m]), true);
		fprintf(out, "\"tripped\": %s, \"state\": \"%s\", \"why\": ",
			g->state == GATE_TRIPPED ? "true" : "false",
			g->state == GATE_OK	   ? "ok"
			: g->state == GATE_TRIPPED ? "tripped"
						   : "no_data");
		if (g->state == GATE_NO_DATA)
			fprintf(out, "\"%s\"}", g->why);
		else
			fputs("null}", out);
	}
	fprintf(out, "%s]\n}\n", c->n_gates ? "\n  " : "");
}

void compare_render_html(const struct comparison *c, FILE *out)
{
	char b[32], a[32], d[32], p[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
	      "frameanalyze compare</title>\n<style>body{font:14px/1.4 system-ui,sans-serif;"
	      "margin:24px}table{border-collapse:collapse}th,td{padding:2px 10px;border-bottom:"
	      "1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}"
	      ".bad{color:#b00;font-weight:600}.ok{color:#070}</style></head><body>\n"
	      "<h1>Compare</h1>\n<p>before: ",
	      out);
	report_put_html(out, c->before_path);
	fputs("<br>after: ", out);
	report_put_html(out, c->after_path);
	fputs("</p>\n<table id=\"compare\"><tr><th>metric</th><th>before</th><th>after</th>"
	      "<th>change</th><th>change %</th></tr>\n",
	      out);
	for (int m = 0; m < CM_COUNT; m++) {
		num(b, sizeof(b), c->b[m], PLAIN3);
		num(a, sizeof(a), c->a[m], PLAIN3);
		num(d, sizeof(d), delta_of(c->b[m], c->a[m]), SIGNED3);
		num(p, sizeof(p), pct_of(c->b[m], c->a[m]), SIGNED3);
		fprintf(out,
			"<tr><td>%s (%s)</td><td data-json=\"metrics.%s.before\">%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td></tr>\n",
			metrics[m].label, metrics[m].unit, metrics[m].key, b, a, d, p);
	}
	fputs("</table>\n", out);
	report_html_compare_charts(out, c->before, c->after);
	if (c->n_gates)
		fputs("<h2>Gates</h2>\n<table>\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct compare_gate *g = &c->gates[i];
		num(b, sizeof(b), field_of(g->field, c->b[g->m], c->a[g->m]), PLAIN3);
		fputs("<tr><td>", out);
		report_put_html(out, g->text);
		fprintf(out, "</td><td>%s</td><td class=\"%s\">%s</td></tr>\n", b,
			g->state == GATE_OK ? "ok" : "bad",
			g->state == GATE_NO_DATA ? g->why : state_name[g->state]);
	}
	fputs(c->n_gates ? "</table>\n</body></html>\n" : "</body></html>\n", out);
}
