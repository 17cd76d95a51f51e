/* SPDX-License-Identifier: MIT */
/*
 * compare.c - `frameanalyze compare BEFORE.frc AFTER.frc`: the key metrics of two captures
 * side by side (the report model of each, report_model.h), absolute and relative change,
 * as text, JSON or HTML; `--fail-if GATE` exits 1 when a regression passes a threshold, so
 * a CI job can guard frame pacing between two builds. analyzer/REPORT.md "compare".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report_model.h"
#include "report_render.h"

enum metric {
	M_SUB_FPS,
	M_LOW1,
	M_P50,
	M_P99,
	M_JANKS_MIN,
	M_STUTTER,
	M_TRACKER_FPS,
	M_METER_FPS,
	M_LOSS,
	M_COUNT
};

static const struct {
	const char *key, *label, *unit;
} metrics[M_COUNT] = {
    {"submitted_fps", "submitted FPS (main surface)", "FPS"},
    {"low_1pct_fps", "1 % low (submissions)", "FPS"},
    {"p50_ms", "p50 frame time (submissions)", "ms"},
    {"p99_ms", "p99 frame time (submissions)", "ms"},
    {"janks_per_min", "PerfDog janks per minute", "/min"},
    {"stutter_percent", "stutter (PerfDog)", "%"},
    {"tracker_fps", "tracker mean FPS", "FPS"},
    {"meter_fps", "meter mean reading (all sources)", "FPS"},
    {"loss_percent", "reservation-failure loss", "%"},
};

struct value {
	bool has;
	double v;
};

enum gate_field { G_AFTER, G_DELTA, G_PCT };
static const char *const field_name[3] = {"after", "delta", "pct"};

#define MAX_GATES 32

struct gate {
	const char *text;
	enum metric m;
	enum gate_field field;
	bool greater, or_equal;
	double threshold;
};

/* ------------------------------------------------------------ metrics */

static void metrics_of(const struct report_model *r, struct value *out)
{
	const struct summary_frame_numbers *s = &r->sub.fn;
	bool has = s->deltas > 0;
	uint64_t n = r->run.src[1].count + r->run.src[2].count;
	double minutes = (double)s->sum_ns / 60e9;

	out[M_SUB_FPS] = (struct value){has, s->mean_fps};
	out[M_LOW1] = (struct value){has, s->low1_fps};
	out[M_P50] = (struct value){has, (double)(s->p50_ns / 1000) / 1e3};
	out[M_P99] = (struct value){has, (double)(s->p99_ns / 1000) / 1e3};
	out[M_JANKS_MIN] = (struct value){has && minutes > 0, minutes > 0 ? s->janks / minutes : 0};
	out[M_STUTTER] = (struct value){true, s->stutter_pct};
	out[M_TRACKER_FPS] = (struct value){r->run.fn.deltas > 0, r->run.fn.mean_fps};
	out[M_METER_FPS] = (struct value){
	    n > 0, n ? (double)(r->run.src[1].sum_micro + r->run.src[2].sum_micro) / 1e6 / n : 0};
	out[M_LOSS] = (struct value){true, r->run.loss_pct};
}

static struct value delta_of(struct value b, struct value a)
{
	return (struct value){a.has && b.has, a.v - b.v};
}

static struct value pct_of(struct value b, struct value a)
{
	return (struct value){a.has && b.has && b.v != 0, b.v != 0 ? (a.v - b.v) * 100 / b.v : 0};
}

static struct value field_of(enum gate_field f, struct value b, struct value a)
{
	return f == G_AFTER ? a : f == G_DELTA ? delta_of(b, a) : pct_of(b, a);
}

/* ------------------------------------------------------------ gates */

/* The metric names, "a, b, c", for a message. */
static void metric_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int m = 0; m < M_COUNT && used < len; m++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s", m ? ", " : "", metrics[m].key);
}

/*
 * "METRIC[.after|.delta|.pct]OP NUMBER", OP one of > >= < <= (spaces around OP allowed);
 * a bare METRIC is its delta (after - before). Returns 0, or -EINVAL with why in why[len].
 */
static int parse_gate(const char *s, struct gate *g, char *why, size_t len)
{
	size_t klen = strcspn(s, ".<>= ");
	const char *p = s + klen, *num;
	char *end, names[256];

	*g = (struct gate){.text = s, .m = M_COUNT, .field = G_DELTA};
	for (int m = 0; m < M_COUNT; m++)
		if (strlen(metrics[m].key) == klen && !strncmp(s, metrics[m].key, klen))
			g->m = (enum metric)m;
	if (g->m == M_COUNT) {
		metric_names(names, sizeof(names));
		snprintf(why, len, "unknown metric '%.*s' (known: %s)", (int)klen, s, names);
		return -EINVAL;
	}
	if (*p == '.') {
		size_t flen = strcspn(++p, "<>= ");
		int f;
		for (f = 0; f < 3; f++)
			if (strlen(field_name[f]) == flen && !strncmp(p, field_name[f], flen))
				break;
		if (f == 3) {
			snprintf(why, len, "unknown field '.%.*s' (known: .after, .delta, .pct)",
				 (int)flen, p);
			return -EINVAL;
		}
		g->field = (enum gate_field)f;
		p += flen;
	}
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

static bool gate_trips(const struct gate *g, struct value v)
{
	if (!v.has)
		return false; /* nothing to compare: a gate trips on a measured value only */
	if (g->greater)
		return g->or_equal ? v.v >= g->threshold : v.v > g->threshold;
	return g->or_equal ? v.v <= g->threshold : v.v < g->threshold;
}

/* ------------------------------------------------------------ output */

struct comparison {
	const char *before_path, *after_path;
	const struct report_model *before, *after;
	struct value b[M_COUNT], a[M_COUNT];
	struct gate gates[MAX_GATES];
	bool tripped[MAX_GATES];
	size_t n_gates;
};

enum num_style { PLAIN3, SIGNED3, SIGNED1 };

static void num(char *buf, size_t len, struct value v, enum num_style st)
{
	if (!v.has)
		snprintf(buf, len, "null");
	else if (st == PLAIN3)
		snprintf(buf, len, "%.3f", v.v);
	else if (st == SIGNED3)
		snprintf(buf, len, "%+.3f", v.v);
	else
		snprintf(buf, len, "%+.1f", v.v);
}

static void text_out(const struct comparison *c, FILE *out)
{
	char b[32], a[32], d[32], p[32];

	fputs("compare: ", out);
	cli_put_text(out, c->before_path);
	fputs(" -> ", out);
	cli_put_text(out, c->after_path);
	fprintf(out, " (tracker %s -> %s)\n", c->before->tracker, c->after->tracker);
	fprintf(out, "  %-34s %12s %12s %12s %10s\n", "metric", "before", "after", "change",
		"change %");
	for (int m = 0; m < M_COUNT; m++) {
		num(b, sizeof(b), c->b[m], PLAIN3);
		num(a, sizeof(a), c->a[m], PLAIN3);
		num(d, sizeof(d), delta_of(c->b[m], c->a[m]), SIGNED3);
		num(p, sizeof(p), pct_of(c->b[m], c->a[m]), SIGNED1);
		fprintf(out, "  %-34s %12s %12s %12s %10s\n", metrics[m].label, b, a, d, p);
	}
	if (!c->n_gates)
		return;
	fputs("gates\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct gate *g = &c->gates[i];
		num(b, sizeof(b), field_of(g->field, c->b[g->m], c->a[g->m]), PLAIN3);
		fprintf(out, "  %-34s %12s  %s\n", g->text, b, c->tripped[i] ? "TRIPPED" : "ok");
	}
}

static void json_val(FILE *out, const char *key, struct value v, bool comma)
{
	char buf[32];

	num(buf, sizeof(buf), v, PLAIN3);
	fprintf(out, "\"%s\": %s%s", key, buf, comma ? ", " : "");
}

static void json_out(const struct comparison *c, FILE *out)
{
	fputs("{\n  \"frameanalyze_compare\": 1,\n  \"before\": \"", out);
	cli_put_json_chars(out, c->before_path);
	fputs("\",\n  \"after\": \"", out);
	cli_put_json_chars(out, c->after_path);
	fprintf(out, "\",\n  \"tracker_before\": \"%s\",\n  \"tracker_after\": \"%s\",\n",
		c->before->tracker, c->after->tracker);
	fputs("  \"metrics\": {", out);
	for (int m = 0; m < M_COUNT; m++) {
		fprintf(out, "%s\n    \"%s\": {", m ? "," : "", metrics[m].key);
		json_val(out, "before", c->b[m], true);
		json_val(out, "after", c->a[m], true);
		json_val(out, "delta", delta_of(c->b[m], c->a[m]), true);
		json_val(out, "pct", pct_of(c->b[m], c->a[m]), false);
		fputc('}', out);
	}
	fputs("\n  },\n  \"gates\": [", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct gate *g = &c->gates[i];
		fputs(i ? ",\n    {\"gate\": \"" : "\n    {\"gate\": \"", out);
		cli_put_json_chars(out, g->text);
		fputs("\", ", out);
		json_val(out, "value", field_of(g->field, c->b[g->m], c->a[g->m]), true);
		fprintf(out, "\"tripped\": %s}", c->tripped[i] ? "true" : "false");
	}
	fprintf(out, "%s]\n}\n", c->n_gates ? "\n  " : "");
}

static void html_out(const struct comparison *c, FILE *out)
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
	for (int m = 0; m < M_COUNT; m++) {
		num(b, sizeof(b), c->b[m], PLAIN3);
		num(a, sizeof(a), c->a[m], PLAIN3);
		num(d, sizeof(d), delta_of(c->b[m], c->a[m]), SIGNED3);
		num(p, sizeof(p), pct_of(c->b[m], c->a[m]), SIGNED1);
		fprintf(out,
			"<tr><td>%s (%s)</td><td data-json=\"metrics.%s.before\">%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td></tr>\n",
			metrics[m].label, metrics[m].unit, metrics[m].key, b, a, d, p);
	}
	fputs("</table>\n", out);
	if (c->n_gates)
		fputs("<h2>Gates</h2>\n<table>\n", out);
	for (size_t i = 0; i < c->n_gates; i++) {
		const struct gate *g = &c->gates[i];
		num(b, sizeof(b), field_of(g->field, c->b[g->m], c->a[g->m]), PLAIN3);
		fputs("<tr><td>", out);
		report_put_html(out, g->text);
		fprintf(out, "</td><td>%s</td><td class=\"%s\">%s</td></tr>\n", b,
			c->tripped[i] ? "bad" : "ok", c->tripped[i] ? "TRIPPED" : "ok");
	}
	fputs(c->n_gates ? "</table>\n</body></html>\n" : "</body></html>\n", out);
}

/* ------------------------------------------------------------ the command */

static const char compare_help[] =
    "usage: frameanalyze compare BEFORE.frc AFTER.frc [--json | --html] [-o FILE [--force]]\n"
    "                            [--fail-if GATE]... [--tracker NAME] [--tick-ms N]\n"
    "\n"
    "Put two captures' key metrics side by side (before, after, change, change %):\n"
    "  submitted_fps    calls/s of the main surface (what the app submitted)\n"
    "  low_1pct_fps     1 % low of the submissions (GameBench)\n"
    "  p50_ms, p99_ms   submission interval percentiles\n"
    "  janks_per_min    PerfDog janks of the submissions per minute of intervals\n"
    "  stutter_percent  PerfDog stutter of the submissions\n"
    "  tracker_fps      the tracker's mean FPS\n"
    "  meter_fps        the FPS meter's mean reading, all sources\n"
    "  loss_percent     reservation failures / (frames + failures)\n"
    "\n"
    "options:\n"
    "  --json, --html  JSON or a self-contained HTML page instead of text\n"
    "  -o FILE         write to FILE (whole or not at all; never a capture) instead of\n"
    "                  stdout; --force replaces an existing FILE\n"
    "  --fail-if GATE  exit 1 when GATE holds; repeatable. GATE is\n"
    "                  METRIC[.after|.delta|.pct]OP NUMBER with OP one of > >= < <=:\n"
    "                  .after = the AFTER value, .delta = after - before (the default),\n"
    "                  .pct = the change in % of before. A gate on a value that does not\n"
    "                  exist (no frames) does not trip. Spaces around OP are allowed\n"
    "                  ('p99_ms.delta > 2').\n"
    "  --tracker NAME  the tracker variant replayed for both captures\n"
    "  --tick-ms N     read the meter every N ms when a capture has no tick records\n"
    "\n"
    "exit: 0 no gate tripped, 1 a gate tripped or a capture is corrupt or unreadable,\n"
    "2 usage (an unknown metric or a malformed gate too).\n"
    "\n"
    "examples:\n"
    "  frameanalyze compare before.frc after.frc\n"
    "  frameanalyze compare before.frc after.frc --fail-if 'submitted_fps.pct<-5' \\\n"
    "      --fail-if 'p99_ms.delta>2' --fail-if 'janks_per_min.after>1'\n"
    "  frameanalyze compare --html before.frc after.frc -o compare.html\n";

/* The comparison in its format to -o FILE or stdout; an exit code. */
static int write_comparison(const struct comparison *c, const struct cli_args *a)
{
	struct cli_output o = {.f = stdout};
	int rc;

	if (a->output && (rc = cli_output_open("compare", a->output, a->force, a->pos, 2, &o)))
		return rc;
	if (a->format == CLI_FORMAT_JSON)
		json_out(c, o.f);
	else if (a->format == CLI_FORMAT_HTML)
		html_out(c, o.f);
	else
		text_out(c, o.f);
	if (a->output)
		return cli_output_close("compare", &o, true);
	if (fflush(stdout) != 0) {
		cli_error("compare", "writing stdout: %s", strerror(errno));
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* --fail-if GATE: one more gate; 0 or the usage error. */
static int on_option(void *ctx, int opt, const char *arg)
{
	struct comparison *c = ctx;
	char why[512];

	if (opt != 'f')
		return EXIT_USAGE;
	if (c->n_gates == MAX_GATES)
		return cli_usage_error("compare", "more than %d --fail-if gates", MAX_GATES);
	if (parse_gate(arg, &c->gates[c->n_gates++], why, sizeof(why)))
		return cli_usage_error("compare",
				       "--fail-if '%s': %s; a gate is "
				       "METRIC[.after|.delta|.pct]OP NUMBER",
				       arg, why);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option extra[] = {{"fail-if", required_argument, NULL, 'f'}, {0}};
	struct comparison c = {0};
	const struct cli_spec spec = {
	    .cmd = "compare",
	    .help = compare_help,
	    .takes = CLI_OUTPUT | CLI_FORCE | CLI_TICK | CLI_TRACKER | CLI_JSON | CLI_HTML,
	    .extra = extra,
	    .on_extra = on_option,
	    .ctx = &c,
	    .min_pos = 2,
	    .max_pos = 2,
	    .pos_usage = "expected BEFORE.frc and AFTER.frc",
	};
	struct report_model *b = NULL, *a = NULL;
	struct cli_args args;
	char err[FRC_MSG_MAX];
	int rc;

	if (!cli_parse(&spec, argc, argv, &args, &rc))
		return rc;
	c.before_path = args.pos[0];
	c.after_path = args.pos[1];
	if (report_model_build(c.before_path, &args.ropt, NULL, 0, &b, err, sizeof(err)) ||
	    report_model_build(c.after_path, &args.ropt, NULL, 0, &a, err, sizeof(err))) {
		cli_error("compare", "%s", err);
		rc = EXIT_INPUT;
		goto cleanup;
	}
	c.before = b, c.after = a;
	metrics_of(b, c.b);
	metrics_of(a, c.a);
	rc = EXIT_OK;
	for (size_t i = 0; i < c.n_gates; i++) {
		const struct gate *g = &c.gates[i];
		c.tripped[i] = gate_trips(g, field_of(g->field, c.b[g->m], c.a[g->m]));
		if (c.tripped[i])
			rc = EXIT_INPUT;
	}
	if (write_comparison(&c, &args) != EXIT_OK) {
		rc = EXIT_INPUT;
	} else if (rc) {
		for (size_t i = 0; i < c.n_gates; i++)
			if (c.tripped[i])
				cli_error("compare", "gate tripped: %s", c.gates[i].text);
	}
cleanup:
	report_model_free(a);
	report_model_free(b);
	return rc;
}
