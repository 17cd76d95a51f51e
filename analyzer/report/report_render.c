/* SPDX-License-Identifier: MIT */
/*
 * report_render.c - the report's sections, once, and its text and JSON renderers (see
 * report_render.h; the HTML renderer is report_html.c). analyzer/REPORT.md defines every
 * number and names the tool whose definition it follows.
 *
 * All times are integers (ns) until printing; milliseconds are printed by integer
 * arithmetic (truncated to the microsecond) so that output is identical on every machine.
 * FPS values are printed with %.3f from a double computed the same way everywhere
 * (-ffp-contract=off is global).
 */
#include "report_render.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "frc_escape.h"
#include "submissions.h"

/* ------------------------------------------------------------ emit helpers */

struct em {
	const struct report_emitter *e;
	const struct report_model *m;
	bool with_path;
	bool golden; /* the golden view */
};

static void open_(const struct em *x, const char *key, const char *title)
{
	x->e->open(x->e->ctx, key, title);
}

static void close_(const struct em *x)
{
	x->e->close(x->e->ctx);
}

static void val(const struct em *x, const char *key, enum report_value k, const char *v)
{
	x->e->value(x->e->ctx, key, k, v);
}

static void row(const struct em *x, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void row(const struct em *x, const char *label, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	x->e->row(x->e->ctx, label, buf, false);
}

/* A row of untrusted text (metadata): every renderer escapes it. */
static void row_untrusted(const struct em *x, const char *label, const char *v)
{
	x->e->row(x->e->ctx, label, v, true);
}

static void val_u64(const struct em *x, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	val(x, key, RV_U64, buf);
}

/* %.3f, or null when has is false. */
static void val_f3(const struct em *x, const char *key, bool has, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	val(x, key, RV_NUM, has ? buf : NULL);
}

static void val_ms(const struct em *x, const char *key, bool has, uint64_t ns)
{
	char buf[32];

	summary_fmt_ms(buf, sizeof(buf), ns);
	val(x, key, RV_NUM, has ? buf : NULL);
}

static void val_bool(const struct em *x, const char *key, bool v)
{
	val(x, key, RV_BOOL, v ? "true" : "false");
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static const char *ms(char *buf, size_t len, uint64_t ns)
{
	summary_fmt_ms(buf, len, ns);
	return buf;
}

/* ------------------------------------------------------------ submissions */

static void surfaces_json(const struct report_model *m, char **json)
{
	size_t len = 0;
	FILE *f = open_memstream(json, &len);

	if (!f) {
		*json = NULL;
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < m->n_surfaces; i++) {
		const struct report_surface *s = &m->surfaces[i];
		fprintf(f,
			"%s\n      {\"pid\": %" PRIu32 ", \"surface\": \"0x%" PRIx64
			"\", \"main\": %s, \"calls\": %" PRIu64 ", \"buffers\": %u, "
			"\"buffers_more\": %s, \"calls_per_s\": %.3f",
			i ? "," : "", s->pid, s->surface, s->main ? "true" : "false", s->calls,
			s->buffers, s->buffers_more ? "true" : "false", report_surface_rate(s));
		/* only when known: reports of captures without thread names stay as they were */
		if (report_surface_drawn_by(s)) {
			fputs(", \"drawn_by\": \"", f);
			frc_escape_write(f, s->drawn_by, strlen(s->drawn_by), FRC_ESCAPE_JSON);
			fputc('"', f);
		}
		fputc('}', f);
	}
	fputs(m->n_surfaces ? "\n    ]" : "]", f);
	fclose(f);
}

/* The arrow after a surface's row: what the truth made of it (REPORT.md "Ground truth"). */
static const char *surface_mark(const struct report_model *m, const struct report_surface *s)
{
	bool content = m->truth && m->truth->rule != SUBM_RULE_COUNT;

	if (!s->main)
		return "";
	if (content)
		return s->pid == m->main_pid && s->surface == m->main_surface
			   ? "  <- the content"
			   : "  <- the content for a time";
	return s->pid == m->main_pid ? "  <- main surface of the main pid"
				     : "  <- main surface of its pid";
}

static void surfaces_rows(const struct em *x)
{
	const struct report_model *m = x->m;
	char label[64], text[512];

	for (size_t i = 0; i < m->n_surfaces; i++) {
		const struct report_surface *s = &m->surfaces[i];
		const char *drawn_by = report_surface_drawn_by(s);

		snprintf(label, sizeof(label), "pid %" PRIu32 " surface 0x%" PRIx64, s->pid,
			 s->surface);
		snprintf(text, sizeof(text), "%" PRIu64 " calls, %u%s buffers, %.3f calls/s%s%s%s",
			 s->calls, s->buffers, s->buffers_more ? "+" : "", report_surface_rate(s),
			 drawn_by ? ", drawn by " : "", drawn_by ? drawn_by : "",
			 surface_mark(m, s));
		/* A thread name is the app's text (any byte): every renderer escapes it. */
		if (drawn_by)
			row_untrusted(x, label, text);
		else
			row(x, label, "%s", text);
	}
	if (m->surfaces_more)
		row(x, "more surfaces", "%" PRIu64 " calls on (pid, surface) pairs not listed",
		    m->surfaces_more);
}

/* The main surface's series: the report's statistics code on the truth's intervals. */
static void series_numbers(const struct em *x, const struct summary_view *v, bool rows)
{
	const struct summary_frame_numbers *fn = &v->fn;
	bool has = fn->deltas > 0;
	char a[32], b[32], c[32], d[32];

	val_u64(x, "intervals", fn->deltas);
	val_f3(x, "mean_fps", has, fn->mean_fps);
	val_ms(x, "p50_ms", has, fn->p50_ns);
	val_ms(x, "p90_ms", has, fn->p90_ns);
	val_ms(x, "p95_ms", has, fn->p95_ns);
	val_ms(x, "p99_ms", has, fn->p99_ns);
	val_ms(x, "max_ms", has, fn->max_ns);
	val_f3(x, "low_1pct_fps", has, fn->low1_fps);
	val_u64(x, "janks", fn->janks);
	val_u64(x, "big_janks", fn->big_janks);
	val_ms(x, "jank_time_ms", true, v->jank_ns);
	val_f3(x, "stutter_percent", true, fn->stutter_pct);
	if (!rows || !has)
		return;
	row(x, "mean FPS", "%.3f (%" PRIu64 " intervals / their sum)", fn->mean_fps, fn->deltas);
	row(x, "intervals p50/p90/p95/p99", "%s / %s / %s / %s ms", ms(a, 32, fn->p50_ns),
	    ms(b, 32, fn->p90_ns), ms(c, 32, fn->p95_ns), ms(d, 32, fn->p99_ns));
	row(x, "max interval", "%s ms", ms(a, 32, fn->max_ns));
	row(x, "1% low", "%.3f FPS", fn->low1_fps);
	row(x, "janks / big janks", "%" PRIu64 " / %" PRIu64 " (PerfDog)", fn->janks,
	    fn->big_janks);
	row(x, "stutter", "%.3f %%", fn->stutter_pct);
}

/* The window FPS (windows.h) of frames frame times in the model's full windows. */
static double window_fps(const struct report_model *m, uint64_t frames)
{
	return m->secs.full ? (double)frames / (double)m->secs.full : 0;
}

static void seconds_numbers(const struct em *x)
{
	const struct report_seconds *s = &x->m->secs;
	bool has = s->n > 0;

	val_u64(x, "full_windows", s->full);
	val_f3(x, "window_fps", has, window_fps(x->m, s->sub_frames));
	val_bool(x, "windows_cut", s->cut);
	val_f3(x, "per_second_min", has, (double)s->min);
	val_f3(x, "per_second_max", has, (double)s->max);
	val_f3(x, "median_fps", has, s->median_fps);
	val_f3(x, "stability_percent", has, s->stability_pct);
	if (!has)
		return;
	row(x, "window FPS", "%.3f (intervals in %" PRIu64 " full 1 s windows / windows)",
	    window_fps(x->m, s->sub_frames), s->full);
	row(x, "per window", "min %" PRIu64 ", max %" PRIu64 ", median %.3f%s", s->min, s->max,
	    s->median_fps, s->cut ? " (windows cut)" : "");
	row(x, "FPS stability", "%.3f %% of windows within +-10 %% of the median",
	    s->stability_pct);
}

/* ------------------------------------------------------------ the content (ground truth) */

#define CONTENT_CHANGES_SHOWN 20 /* changes listed; the rest are counted */

static const char *pid_rule_name(enum subm_pid_rule r)
{
	return r == SUBM_PID_TARGET ? "target" : r == SUBM_PID_OPTION ? "--pid" : "busiest";
}

static const char *rule_name(enum subm_rule r)
{
	return r == SUBM_RULE_CONTENT	? "content"
	       : r == SUBM_RULE_SURFACE ? "--surface"
					: "call count";
}

/* The name of the thread that drew pid's surface (the surface table's), or NULL. */
static const struct report_surface *content_surface_row(const struct report_model *m, uint32_t pid,
							uint64_t surface)
{
	for (size_t i = 0; i < m->n_surfaces; i++)
		if (m->surfaces[i].pid == pid && m->surfaces[i].surface == surface)
			return &m->surfaces[i];
	return NULL;
}

/* "S.mmm s" after the capture's first record. */
static void fmt_at(const struct report_model *m, uint64_t ktime, char *buf, size_t len)
{
	uint64_t first = m->run.stats.first_ktime_ns, d = ktime > first ? ktime - first : 0;

	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " s", d / 1000000000u, d / 1000000u % 1000u);
}

/* The content line: which rule chose which surface, and what is known of it. */
static void content_line(const struct em *x, const struct subm_truth *tr)
{
	const struct report_surface *s = content_surface_row(x->m, tr->pid, tr->surface);
	const char *thr = s ? report_surface_drawn_by(s) : NULL;
	char text[512], known[64] = "";

	/* "(thread NAME, WxH)": what the capture says of it, each part when known */
	if (thr && s->width)
		snprintf(known, sizeof(known), " (thread %s, %" PRIu32 "x%" PRIu32 ")", thr,
			 s->width, s->height);
	else if (thr)
		snprintf(known, sizeof(known), " (thread %s)", thr);
	else if (s && s->width)
		snprintf(known, sizeof(known), " (%" PRIu32 "x%" PRIu32 ")", s->width, s->height);
	if (tr->rule == SUBM_RULE_COUNT)
		snprintf(text, sizeof(text),
			 "pid %" PRIu32 " surface 0x%" PRIx64 " chosen by call count (the capture "
			 "has no thread names, geometry or lifetime)",
			 tr->pid, tr->surface);
	else
		snprintf(text, sizeof(text),
			 "pid %" PRIu32 " surface 0x%" PRIx64 "%s, chosen by %s", tr->pid,
			 tr->surface, known, subm_why_name(tr->why));
	/* a thread name is the app's text */
	row_untrusted(x, "content", text);
	row(x, "target", "pid %" PRIu32 " (%s)", tr->pid,
	    tr->pid_rule == SUBM_PID_TARGET   ? "the process framerec was pointed at"
	    : tr->pid_rule == SUBM_PID_OPTION ? "--pid"
	    : tr->rule == SUBM_RULE_CONTENT   ? "the busiest: the capture names no target"
					      : "the busiest, as the count rule chooses");
}

/* The changes of the content as rows (the first CONTENT_CHANGES_SHOWN). */
static void content_rows(const struct em *x, const struct subm_truth *tr)
{
	char at[32];

	row(x, "content changes", "%" PRIu64 "%s", tr->changes_total,
	    tr->changes_total > CONTENT_CHANGES_SHOWN ? " (the first 20 listed)" : "");
	for (size_t i = 0; i < tr->n_changes && i < CONTENT_CHANGES_SHOWN; i++) {
		const struct subm_change *c = &tr->changes[i];

		fmt_at(x->m, c->ktime_ns, at, sizeof(at));
		if (c->surface || tr->rule != SUBM_RULE_CONTENT)
			row(x, at,
			    "pid %" PRIu32 " surface 0x%" PRIx64 " (%s), %" PRIu64 " intervals",
			    c->pid, c->surface, subm_why_name(c->why), c->frames);
		else
			row(x, at, "pid %" PRIu32 ": no content", c->pid);
	}
}

/* The changes as a JSON array (the first CONTENT_CHANGES_SHOWN). */
static void changes_json(const struct report_model *m, const struct subm_truth *tr, char **json)
{
	uint64_t first = m->run.stats.first_ktime_ns;
	size_t len = 0;
	FILE *f = open_memstream(json, &len);

	if (!f) {
		*json = NULL;
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < tr->n_changes && i < CONTENT_CHANGES_SHOWN; i++) {
		const struct subm_change *c = &tr->changes[i];

		fprintf(f,
			"%s{\"at_ns\": %" PRIu64 ", \"pid\": %" PRIu32 ", \"surface\": \"0x%" PRIx64
			"\", \"why\": \"%s\", \"intervals\": %" PRIu64 "}",
			i ? ", " : "", c->ktime_ns > first ? c->ktime_ns - first : 0, c->pid,
			c->surface, subm_why_name(c->why), c->frames);
	}
	fputc(']', f);
	fclose(f);
}

/*
 * Which rule chose the truth (REPORT.md "Ground truth"), before the numbers it gives. The
 * golden shows it only when the rule is not the count's: goldens of captures without
 * thread names stay as they were.
 */
static void sec_content(const struct em *x)
{
	const struct subm_truth *tr = x->m->truth;
	const struct report_surface *s;
	const char *thr;
	char surface[24], w[16] = "null", h[16] = "null", *json = NULL;

	if (!tr || !tr->has || (x->golden && tr->rule == SUBM_RULE_COUNT))
		return;
	s = content_surface_row(x->m, tr->pid, tr->surface);
	thr = s ? report_surface_drawn_by(s) : NULL;
	if (s && s->width) {
		snprintf(w, sizeof(w), "%" PRIu32, s->width);
		snprintf(h, sizeof(h), "%" PRIu32, s->height);
	}
	snprintf(surface, sizeof(surface), "0x%" PRIx64, tr->surface);
	open_(x, "content", "content (the surface the truth follows)");
	val(x, "rule", RV_STR, rule_name(tr->rule));
	val(x, "pid_rule", RV_STR, pid_rule_name(tr->pid_rule));
	val_u64(x, "pid", tr->pid);
	val(x, "surface", RV_STR, surface);
	val(x, "why", RV_STR, subm_why_name(tr->why));
	val(x, "thread", RV_STR, thr);
	val(x, "width", RV_RAW, w);
	val(x, "height", RV_RAW, h);
	val_u64(x, "changes_total", tr->changes_total);
	changes_json(x->m, tr, &json);
	val(x, "changes", RV_RAW, json ? json : "[]");
	free(json);
	content_line(x, tr);
	if (tr->rule != SUBM_RULE_COUNT)
		content_rows(x, tr);
	close_(x);
}

static void sec_submissions(const struct em *x)
{
	const struct report_model *m = x->m;
	char main_surface[24], *json = NULL;

	snprintf(main_surface, sizeof(main_surface), "0x%" PRIx64, m->main_surface);
	open_(x, "submissions", "submissions (the app's queueBuffer calls, no heuristic)");
	val_u64(x, "pids", m->n_pids);
	surfaces_json(m, &json);
	val(x, "surfaces", RV_RAW, json ? json : "[]");
	free(json);
	val_u64(x, "surfaces_not_listed", m->surfaces_more);
	surfaces_rows(x);
	if (!m->has_truth) {
		val(x, "main_pid", RV_NUM, NULL);
		val(x, "main_surface", RV_STR, NULL);
		row(x, "main surface", "none (no frames)");
		series_numbers(x, &m->sub, false);
		seconds_numbers(x);
		close_(x);
		return;
	}
	val_u64(x, "main_pid", m->main_pid);
	val(x, "main_surface", RV_STR, main_surface);
	val_u64(x, "main_pid_calls", m->pid_calls);
	val_u64(x, "main_surface_calls", m->main_calls);
	row(x, "main surface", "pid %" PRIu32 " surface %s (%" PRIu64 " of its %" PRIu64 " calls)",
	    m->main_pid, main_surface, m->main_calls, m->pid_calls);
	series_numbers(x, &m->sub, true);
	seconds_numbers(x);
	close_(x);
}

/* ------------------------------------------------------------ heuristics vs truth */

void report_fmt_tracker_verdict(const struct report_model *m, char *buf, size_t len)
{
	double est = m->run.fn.mean_fps, truth = m->sub.fn.mean_fps;

	if (!m->run.fn.deltas || !m->sub.fn.deltas)
		snprintf(buf, len, "tracker %s: %s", m->tracker,
			 m->run.fn.deltas ? "nothing submitted to compare with" : "no deltas");
	else
		snprintf(buf, len, "tracker %s: mean %.3f FPS, %+.3f %% vs %.3f FPS submitted",
			 m->tracker, est, report_error_pct(est, truth), truth);
}

/* The tracker's window FPS against the submissions' (windows.h): the FPS `score` shows. */
static void window_verdict(const struct em *x)
{
	const struct report_model *m = x->m;
	const struct report_seconds *s = &m->secs;
	double est = window_fps(m, s->trk_frames), truth = window_fps(m, s->sub_frames);
	bool has = s->full > 0 && s->sub_frames > 0;

	val_f3(x, "window_fps", s->full > 0, est);
	val_f3(x, "submitted_window_fps", s->full > 0, truth);
	val_f3(x, "window_fps_error_percent", has, report_error_pct(est, truth));
	if (has)
		row(x, "window FPS", "%.3f FPS, %+.3f %% vs %.3f FPS submitted", est,
		    report_error_pct(est, truth), truth);
}

static void meter_verdict(const struct em *x, unsigned src)
{
	const struct summary_source *st = &x->m->run.src[src];
	double truth = x->m->sub.fn.mean_fps, mean;
	char key[48], label[48], a[32];

	snprintf(key, sizeof(key), "meter_%s_error_percent", frc_source_name(src, "none"));
	if (!st->count || !x->m->sub.fn.deltas) {
		val(x, key, RV_NUM, NULL);
		return;
	}
	summary_fmt_fps3(a, sizeof(a), st->count, st->sum_micro);
	mean = strtod(a, NULL);
	val_f3(x, key, true, report_error_pct(mean, truth));
	snprintf(label, sizeof(label), "meter (%s)", frc_source_name(src, "none"));
	row(x, label, "mean %s FPS, %+.3f %% vs %.3f FPS submitted", a,
	    report_error_pct(mean, truth), truth);
}

static void sec_verdict(const struct em *x)
{
	const struct report_model *m = x->m;
	bool has = m->run.fn.deltas && m->sub.fn.deltas;
	char label[64], verdict[160], a[32], b[32];

	snprintf(label, sizeof(label), "tracker %s", m->tracker);
	open_(x, "tracker", "heuristics vs submissions");
	val(x, "name", RV_STR, m->tracker);
	val_f3(x, "mean_fps", m->run.fn.deltas > 0, m->run.fn.mean_fps);
	val_f3(x, "submitted_fps", m->sub.fn.deltas > 0, m->sub.fn.mean_fps);
	val_f3(x, "mean_fps_error_percent", has,
	       report_error_pct(m->run.fn.mean_fps, m->sub.fn.mean_fps));
	report_fmt_tracker_verdict(m, verdict, sizeof(verdict));
	row(x, label, "%s", verdict + strlen(label) + 2);
	window_verdict(x);
	if (has)
		row(x, "p50 frame time", "%s ms by the tracker, %s ms submitted",
		    ms(a, 32, m->run.fn.p50_ns), ms(b, 32, m->sub.fn.p50_ns));
	row(x, "janks / big janks",
	    "%" PRIu64 " / %" PRIu64 " by the tracker, %" PRIu64 " / %" PRIu64 " submitted",
	    m->run.fn.janks, m->run.fn.big_janks, m->sub.fn.janks, m->sub.fn.big_janks);
	for (unsigned src = FRC_SOURCE_SYSFS; src <= FRC_SOURCE_EBPF; src++)
		meter_verdict(x, src);
	close_(x);
}

/* ------------------------------------------------------------ presented */

/* A layer's display frame times: the summary's numbers, the windows, repeats and gaps. */
static void layer_values(const struct em *x, const struct display_layer *l)
{
	const struct display *d = x->m->disp;
	const struct summary_frame_numbers *fn = &l->v.fn;
	bool has = fn->deltas > 0, win = d->n_win > 0;

	val_u64(x, "id", l->id);
	val(x, "name", RV_STR, l->name);
	val_bool(x, "gone", l->gone);
	val_u64(x, "rows", l->rows);
	val_u64(x, "presents", l->presents);
	val_f3(x, "display_fps", d->span_end > d->span_start, display_fps(d, l));
	val_f3(x, "window_fps", d->n_full > 0, display_window_fps(d, l));
	val_f3(x, "per_window_min", win, (double)l->win_min);
	val_f3(x, "per_window_max", win, (double)l->win_max);
	val_f3(x, "per_window_median", win, l->win_median);
	val_u64(x, "frame_times", fn->deltas);
	val_ms(x, "p50_ms", has, fn->p50_ns);
	val_ms(x, "p90_ms", has, fn->p90_ns);
	val_ms(x, "p95_ms", has, fn->p95_ns);
	val_ms(x, "p99_ms", has, fn->p99_ns);
	val_ms(x, "max_ms", has, fn->max_ns);
	val_u64(x, "janks", fn->janks);
	val_u64(x, "big_janks", fn->big_janks);
	val_ms(x, "jank_time_ms", true, l->v.jank_ns);
	val_f3(x, "stutter_percent", true, fn->stutter_pct);
	if (l->repeat_intervals || !fn->deltas)
		val_u64(x, "repeats", l->repeats);
	else
		val(x, "repeats", RV_NUM, NULL);
	val_u64(x, "backwards", l->backwards);
	val_u64(x, "gaps", l->gaps);
	val_ms(x, "gap_unknown_ms", true, l->gap_unknown_ns);
	val_u64(x, "gaps_unbounded", l->gaps_unbounded);
}

static void layer_rows(const struct em *x, const struct display_layer *l)
{
	const struct display *d = x->m->disp;
	const struct summary_frame_numbers *fn = &l->v.fn;
	char a[32], b[32], c[32], e[32];

	row(x, "presents", "%" PRIu64 " of %" PRIu64 " rows (the rest: no valid present time)",
	    l->presents, l->rows);
	row(x, "display FPS", "%.3f (presents / %s s span)", display_fps(d, l),
	    ms(a, 32, (d->span_end - d->span_start) / 1000));
	if (d->n_win)
		row(x, "window FPS", "%.3f (frame times in %" PRIu64 " full 1 s windows / windows)",
		    display_window_fps(d, l), d->n_full);
	if (d->n_win)
		row(x, "per window", "min %" PRIu64 ", max %" PRIu64 ", median %.3f", l->win_min,
		    l->win_max, l->win_median);
	if (fn->deltas) {
		row(x, "frame times p50/90/95/99", "%s / %s / %s / %s ms (present to present)",
		    ms(a, 32, fn->p50_ns), ms(b, 32, fn->p90_ns), ms(c, 32, fn->p95_ns),
		    ms(e, 32, fn->p99_ns));
		row(x, "max frame time", "%s ms", ms(a, 32, fn->max_ns));
	}
	row(x, "janks / big janks", "%" PRIu64 " / %" PRIu64 " (PerfDog, display frame times)",
	    fn->janks, fn->big_janks);
	row(x, "stutter", "%.3f %%", fn->stutter_pct);
	if (l->repeat_intervals || !fn->deltas)
		row(x, "repeats", "%" PRIu64 " vsyncs showed the previous buffer again",
		    l->repeats);
	else
		row(x, "repeats", "unknown (no vsync period)");
	if (l->gaps)
		row(x, "gaps", "%" PRIu64 " (%s ms unknown, %" PRIu64 " of unknown length)",
		    l->gaps, ms(a, 32, l->gap_unknown_ns), l->gaps_unbounded);
	if (l->backwards)
		row(x, "back in time", "%" PRIu64 " presents before the previous one",
		    l->backwards);
}

/* The content layer's link to the main surface (present_link.h) and its latency. */
static void link_values(const struct em *x, const struct display_layer *l)
{
	const struct display *d = x->m->disp;
	const struct pl_stats *st = &l->link;

	open_(x, "link", NULL);
	val(x, "rule", RV_STR, st->mode == PL_REPLACING ? "replacing" : "queueing");
	val_ms(x, "tolerance_ms", true, PL_TOLERANCE_NS);
	val_u64(x, "tight", st->tight);
	val_u64(x, "by_order", st->by_order);
	val_u64(x, "unlinked", st->unlinked);
	val_u64(x, "anchored", st->anchored);
	val_u64(x, "dropped", st->dropped);
	val_u64(x, "uncertain", st->uncertain);
	val_u64(x, "after_last_row", st->after_last_row);
	val_u64(x, "calls_before", st->before);
	val_u64(x, "calls_after", st->after);
	val_f3(x, "confidence", true, st->confidence);
	val_u64(x, "latency_presents", d->latency_n);
	val_ms(x, "latency_p50_ms", d->latency_n > 0, d->latency_p50_ns);
	val_ms(x, "latency_p99_ms", d->latency_n > 0, d->latency_p99_ns);
	val_ms(x, "latency_max_ms", d->latency_n > 0, d->latency_max_ns);
	close_(x);
}

static void link_rows(const struct em *x, const struct display_layer *l)
{
	const struct display *d = x->m->disp;
	const struct pl_stats *st = &l->link;
	char a[32], b[32];

	/* dropped is certain (between anchored rows), the rest is said as not known */
	row(x, "dropped",
	    "%" PRIu32 " calls never presented (between anchored rows: %" PRIu32 " of %" PRIu32
	    " rows)",
	    st->dropped, st->anchored, st->tight + st->by_order + st->unlinked);
	row(x, "uncertain",
	    "%" PRIu32 " calls not shown, not known dropped; %" PRIu32
	    " queued after the last row (%" PRIu32 " before the first linked, %" PRIu32
	    " after the last)",
	    st->uncertain, st->after_last_row, st->before, st->after);
	row(x, "never linked", "%" PRIu32 " presents", st->unlinked);
	if (d->latency_n)
		row(x, "submit->present", "p50 %s / p99 %s ms (%" PRIu64 " linked presents)",
		    ms(a, 32, d->latency_p50_ns), ms(b, 32, d->latency_p99_ns), d->latency_n);
	row(x, "link",
	    "%s, tolerance 2 ms: %" PRIu32 " tight, %" PRIu32 " by order; confidence %.3f",
	    st->mode == PL_REPLACING ? "replacing (more calls than presents)" : "queueing (FIFO)",
	    st->tight, st->by_order, st->confidence);
}

static void display_head(const struct em *x)
{
	const struct display *d = x->m->disp;
	const struct display_layer *c = display_content(d);
	char main_surface[24];

	snprintf(main_surface, sizeof(main_surface), "0x%" PRIx64, d->main_surface);
	val_u64(x, "layers", d->n_layers);
	val_u64(x, "layers_not_listed", d->layers_more);
	if (d->vsync_records || d->vsync_warm)
		val_u64(x, "vsync_period_ns", d->vsync_period);
	else
		val(x, "vsync_period_ns", RV_NUM, NULL);
	val_u64(x, "vsync_changes", d->vsync_changes);
	val_bool(x, "link_cut", d->cut);
	if (c)
		val_u64(x, "content_layer", c->id);
	else
		val(x, "content_layer", RV_NUM, NULL);
	if (d->vsync_records || d->vsync_warm)
		row(x, "vsync period", "%" PRIu64 " ns (%" PRIu64 " changes)", d->vsync_period,
		    d->vsync_changes);
	else
		row(x, "vsync period", "unknown (no vsync record)");
	/* the content rule's principal content, or (captures without identity records) the
	 * main surface by count: display.h */
	if (c)
		row(x, "content layer",
		    "%" PRIu32 " (its presents link to pid %" PRIu32 " surface %s, %s)", c->id,
		    d->main_pid, main_surface,
		    d->by_content ? "the content the truth follows" : "the main surface");
	else
		row(x, "content layer", "none (no present links to %s)%s",
		    d->by_content ? "the content the truth follows" : "the main surface",
		    d->cut ? ": capture past the link's limits" : "");
	if (d->layers_more)
		row(x, "more layers", "%" PRIu64 " not listed (%" PRIu64 " rows)", d->layers_more,
		    d->rows_more);
}

static void sec_display(const struct em *x)
{
	const struct display *d = x->m->disp;
	char key[32], label[48];

	if (!d->has)
		return; /* no display capture: the report is what it was */
	open_(x, "presented", "presented (what SurfaceFlinger showed: dumpsys --latency rows)");
	display_head(x);
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct display_layer *l = &d->layer[i];
		bool content = l == display_content(d);

		snprintf(key, sizeof(key), "layer_%" PRIu32, l->id);
		snprintf(label, sizeof(label), "layer %" PRIu32 "%s", l->id,
			 content ? " (content)" : "");
		open_(x, key, NULL);
		layer_values(x, l);
		if (content)
			link_values(x, l);
		close_(x);
		x->e->row(x->e->ctx, label, l->name[0] ? l->name : "(no name)", true);
		layer_rows(x, l);
		if (content)
			link_rows(x, l);
	}
	close_(x);
}

/* One heuristic's FPS against the content layer's display FPS. */
static void display_error(const struct em *x, const char *key, const char *label, bool has,
			  double est, double truth, const char *what)
{
	val_f3(x, key, has, report_error_pct(est, truth));
	if (has)
		row(x, label, "%.3f FPS, %+.3f %% vs %.3f FPS presented (%s)", est,
		    report_error_pct(est, truth), truth, what);
}

static void sec_display_verdict(const struct em *x)
{
	const struct report_model *m = x->m;
	const struct display *d = m->disp;
	const struct display_layer *c = display_content(d);
	double shown = c ? display_window_fps(d, c) : 0;
	bool has = c && d->n_full > 0 && shown > 0;
	char label[64];

	if (!d->has)
		return;
	open_(x, "display_verdict", "heuristics vs display (the content layer)");
	val_f3(x, "display_window_fps", c && d->n_full > 0, shown);
	snprintf(label, sizeof(label), "tracker %s", m->tracker);
	display_error(x, "tracker_window_fps_error_percent", label, has,
		      window_fps(m, m->secs.trk_frames), shown, "window FPS");
	display_error(x, "submitted_window_fps_error_percent", "submitted", has,
		      window_fps(m, m->secs.sub_frames), shown, "window FPS");
	for (unsigned src = FRC_SOURCE_SYSFS; src <= FRC_SOURCE_EBPF; src++) {
		const struct summary_source *st = &m->run.src[src];
		char key[48], a[32];

		snprintf(key, sizeof(key), "meter_%s_error_percent", frc_source_name(src, "none"));
		snprintf(label, sizeof(label), "meter (%s)", frc_source_name(src, "none"));
		summary_fmt_fps3(a, sizeof(a), st->count, st->sum_micro);
		display_error(x, key, label, has && st->count, strtod(a, NULL), shown,
			      "mean reading vs window FPS");
	}
	if (!has)
		row(x, "display", "no content layer or no full window to compare with");
	close_(x);
}

/* ------------------------------------------------------------ capture */

/*
 * complete; truncated at byte N (analyzed up to the damage); recovered at byte N: LOSS
 * (analyzed every intact chunk). A truncation after skipped damage says both.
 */
static void status_row(const struct em *x, const struct frc_reader_stats *st)
{
	char loss[512];

	frc_reader_loss_text(st, loss, sizeof(loss));
	if (st->status == FRC_STATUS_COMPLETE)
		row(x, "status", "complete");
	else if (st->status == FRC_STATUS_RECOVERED)
		row(x, "status", "recovered at byte %" PRIu64 ": %s (analyzed every intact chunk)",
		    st->damage_offset, loss);
	else if (st->lost.regions || st->lost.index_lost)
		row(x, "status",
		    "%s at byte %" PRIu64 " (analyzed up to the damage; damage skipped at byte "
		    "%" PRIu64 ": %s)",
		    frc_status_name(st->status), st->valid_end, st->damage_offset, loss);
	else
		row(x, "status", "%s at byte %" PRIu64 " (analyzed up to the damage)",
		    frc_status_name(st->status), st->valid_end);
}

static void capture_rows(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char dur[32], dev[1024];

	/* ns / 1000 is "ms with 3 decimals" of the value in ms: seconds with 3 decimals */
	summary_fmt_ms(dur, sizeof(dur), (s->stats.last_ktime_ns - s->stats.first_ktime_ns) / 1000);
	/* without the path (HTML, deterministic wherever the capture sits): its name only */
	if (x->with_path || !strrchr(s->path, '/'))
		row_untrusted(x, "file", s->path);
	else
		row_untrusted(x, "file", strrchr(s->path, '/') + 1);
	status_row(x, &s->stats);
	row(x, "format", "%u.%u", s->major, s->minor);
	if (s->model && s->machine)
		snprintf(dev, sizeof(dev), "%s (%s)", s->model, s->machine);
	else
		snprintf(dev, sizeof(dev), "%s", or_dash(s->model ? s->model : s->machine));
	row_untrusted(x, "device", dev);
	if (s->fingerprint)
		row_untrusted(x, "fingerprint", s->fingerprint);
	row_untrusted(x, "kernel", or_dash(s->kernel));
	row_untrusted(x, "target", or_dash(s->target));
	row_untrusted(x, "symbol", or_dash(s->symbol));
	row(x, "duration", "%s s (ktime %" PRIu64 " .. %" PRIu64 " ns)", dur,
	    s->stats.first_ktime_ns, s->stats.last_ktime_ns);
}

static void status_values(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char loss[512];

	val(x, "status", RV_STR, frc_status_name(s->stats.status));
	if (s->stats.status == FRC_STATUS_COMPLETE)
		val(x, "valid_end", RV_NUM, NULL);
	else
		val_u64(x, "valid_end", s->stats.valid_end);
	/* only when damage was skipped: a capture read whole keeps its keys (and goldens) */
	if (s->stats.lost.regions || s->stats.lost.index_lost) {
		frc_reader_loss_text(&s->stats, loss, sizeof(loss));
		val(x, "lost", RV_STR, loss);
	}
}

/* "S.mmm" of ns (truncated to the ms): a window's offsets. */
static const char *secs3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000000u, ns / 1000000u % 1000u);
	return buf;
}

/* The window the report shows (--from/--to; REPORT.md "Window"), or null: all of it. */
static void window_numbers(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	uint64_t first = s->stats.first_ktime_ns;
	char a[32], b[32];

	if (!s->windowed) {
		val(x, "window", RV_NUM, NULL);
		return;
	}
	open_(x, "window", NULL);
	val(x, "from_s", RV_NUM, secs3(a, sizeof(a), s->span_start - first));
	val(x, "to_s", RV_NUM, secs3(b, sizeof(b), s->span_end - first));
	val_u64(x, "start_ktime_ns", s->span_start);
	val_u64(x, "end_ktime_ns", s->span_end);
	close_(x);
	row(x, "window",
	    "%s .. %s s after the first record (ktime %" PRIu64 " .. %" PRIu64
	    " ns): only its records are analysed, the heuristics replayed from the start",
	    a, b, s->span_start, s->span_end);
}

static void sec_capture(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char ver[16];

	snprintf(ver, sizeof(ver), "%u.%u", s->major, s->minor);
	open_(x, "capture", "capture");
	if (x->with_path)
		val(x, "path", RV_STR, s->path);
	status_values(x);
	val(x, "format_version", RV_STR, ver);
	val(x, "model", RV_STR, s->model);
	val(x, "machine", RV_STR, s->machine);
	val(x, "fingerprint", RV_STR, s->fingerprint);
	val(x, "kernel", RV_STR, s->kernel);
	val(x, "target", RV_STR, s->target);
	val(x, "symbol", RV_STR, s->symbol);
	val_u64(x, "first_ktime_ns", s->stats.first_ktime_ns);
	val_u64(x, "last_ktime_ns", s->stats.last_ktime_ns);
	val_ms(x, "duration_ms", true, s->stats.last_ktime_ns - s->stats.first_ktime_ns);
	capture_rows(x);
	window_numbers(x);
	close_(x);
}

/* The golden's only capture fact: whether the replay saw the whole capture. */
static void sec_status(const struct em *x)
{
	open_(x, "capture", NULL);
	status_values(x);
	close_(x);
}

static void sec_replay(const struct em *x)
{
	const struct summary_view *s = &x->m->run;

	open_(x, "replay", NULL);
	val(x, "tracker", RV_STR, x->m->tracker);
	/* the meter only when not the default: the default's reports stay what they were */
	if (strcmp(x->m->meter, METER_KIND_DEFAULT))
		val(x, "meter", RV_STR, x->m->meter);
	val_bool(x, "has_sysfs", s->has_sysfs);
	val_bool(x, "synthesized_ticks", s->synthesize_ticks);
	val_u64(x, "tick_ms", s->tick_ms);
	row(x, "replay", "tracker %s%s%s, sysfs %s, ticks %s", x->m->tracker,
	    strcmp(x->m->meter, METER_KIND_DEFAULT) ? ", meter " : "",
	    strcmp(x->m->meter, METER_KIND_DEFAULT) ? x->m->meter : "",
	    s->has_sysfs ? "detected" : "absent (eBPF fallback only)",
	    s->synthesize_ticks ? "synthesized" : "from the capture");
	close_(x);
}

/* ------------------------------------------------------------ the heuristics' numbers */

static void sec_accounting(const struct em *x)
{
	const struct summary_view *s = &x->m->run;

	open_(x, "accounting", "accounting");
	val_u64(x, "frames", s->stats.by_type[FRC_FRAME]);
	val_u64(x, "reservation_failures", s->drops);
	val_f3(x, "loss_percent", true, s->loss_pct);
	val_u64(x, "batch_anomalies", s->batch_anomalies);
	val_u64(x, "unknown_records", s->stats.unknown);
	open_(x, "records", NULL);
	for (int t = 1; t <= FRC_TYPE_MAX; t++)
		if (frc_type_listed((unsigned)t, s->stats.by_type[t]))
			val_u64(x, frc_type_name((unsigned)t), s->stats.by_type[t]);
	close_(x);
	row(x, "frames", "%" PRIu64, s->stats.by_type[FRC_FRAME]);
	row(x, "reservation failures", "%" PRIu64 " (%.3f %% loss)", s->drops, s->loss_pct);
	if (s->batch_anomalies)
		row(x, "malformed batch calls",
		    "%" PRIu64 " (buffers unknown: neither frames nor "
		    "failures)",
		    s->batch_anomalies);
	row(x, "unknown records skipped", "%" PRIu64, s->stats.unknown);
	close_(x);
}

static void sec_frame_times(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	const struct summary_frame_numbers *fn = &s->fn;
	bool has = fn->deltas > 0;
	char title[80], a[32];

	snprintf(title, sizeof(title), "frame times (tracker %s deltas)", x->m->tracker);
	open_(x, "frame_times", title);
	val_u64(x, "deltas", fn->deltas);
	val_u64(x, "sum_ns", fn->sum_ns);
	val_f3(x, "mean_fps", has, fn->mean_fps);
	val_ms(x, "p50_ms", has, fn->p50_ns);
	val_ms(x, "p90_ms", has, fn->p90_ns);
	val_ms(x, "p95_ms", has, fn->p95_ns);
	val_ms(x, "p99_ms", has, fn->p99_ns);
	val_ms(x, "max_ms", has, fn->max_ns);
	val_f3(x, "low_1pct_fps", has, fn->low1_fps);
	row(x, "deltas", "%" PRIu64, fn->deltas);
	if (has) {
		row(x, "mean", "%.3f FPS", fn->mean_fps);
		row(x, "p50", "%s ms", ms(a, 32, fn->p50_ns));
		row(x, "p90", "%s ms", ms(a, 32, fn->p90_ns));
		row(x, "p95", "%s ms", ms(a, 32, fn->p95_ns));
		row(x, "p99", "%s ms", ms(a, 32, fn->p99_ns));
		row(x, "max", "%s ms", ms(a, 32, fn->max_ns));
		row(x, "1% low", "%.3f FPS", fn->low1_fps);
	}
	close_(x);
}

static void sec_janks(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char a[32];

	open_(x, "janks", "janks (PerfDog, on the tracker's deltas)");
	val_u64(x, "janks", s->fn.janks);
	val_u64(x, "big_janks", s->fn.big_janks);
	val_ms(x, "jank_time_ms", true, s->jank_ns);
	val_f3(x, "stutter_percent", true, s->fn.stutter_pct);
	row(x, "janks", "%" PRIu64, s->fn.janks);
	row(x, "big janks", "%" PRIu64, s->fn.big_janks);
	row(x, "jank time", "%s ms", ms(a, 32, s->jank_ns));
	row(x, "stutter", "%.3f %%", s->fn.stutter_pct);
	close_(x);
}

static void source_readings(const struct em *x, unsigned src)
{
	const struct summary_source *st = &x->m->run.src[src];
	const char *name = frc_source_name(src, "none");
	bool has = st->count > 0;
	char a[32], b[32], c[32];

	summary_fmt_fps3(a, sizeof(a), st->count, st->sum_micro);
	summary_fmt_fps3(b, sizeof(b), 1, st->min_micro);
	summary_fmt_fps3(c, sizeof(c), 1, st->max_micro);
	open_(x, name, NULL);
	val_u64(x, "count", st->count);
	val(x, "mean_fps", RV_NUM, has ? a : NULL);
	val(x, "min_fps", RV_NUM, has ? b : NULL);
	val(x, "max_fps", RV_NUM, has ? c : NULL);
	if (has)
		row(x, name, "%" PRIu64 " readings, mean %s, min %s, max %s FPS", st->count, a, b,
		    c);
	else
		row(x, name, "0 readings");
	close_(x);
}

static void sec_readings(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char title[112];

	if (strcmp(x->m->meter, METER_KIND_DEFAULT))
		snprintf(title, sizeof(title), "FPS meter readings (meter %s, fed by tracker %s)",
			 x->m->meter, x->m->tracker);
	else
		snprintf(title, sizeof(title), "FPS meter readings (fed by tracker %s)",
			 x->m->tracker);
	open_(x, "readings", title);
	val_u64(x, "ticks", s->ticks);
	val_u64(x, "none", s->none);
	val_u64(x, "lagged", s->lagged);
	val_u64(x, "lagged_deltas", s->lagged_deltas);
	row(x, "ticks", "%" PRIu64 " (%" PRIu64 " with none)", s->ticks, s->none);
	for (unsigned src = FRC_SOURCE_SYSFS; src <= FRC_SOURCE_EBPF; src++)
		source_readings(x, src);
	if (s->lagged)
		row(x, "channel lagged", "%" PRIu64 " (%" PRIu64 " deltas lost)", s->lagged,
		    s->lagged_deltas);
	close_(x);
}

static void sec_sysfs(const struct em *x)
{
	const struct summary_view *s = &x->m->run;

	open_(x, "sysfs_samples", "sysfs samples");
	val_u64(x, "count", s->sysfs_count);
	val_u64(x, "invalid", s->sysfs_invalid);
	val_u64(x, "read_errors", s->sysfs_errors);
	row(x, "samples", "%" PRIu64 " (%" PRIu64 " invalid, %" PRIu64 " read errors)",
	    s->sysfs_count, s->sysfs_invalid, s->sysfs_errors);
	close_(x);
}

static void fidelity_json(const struct summary_view *s, char **json)
{
	size_t len = 0;
	FILE *f = open_memstream(json, &len);
	char a[32];

	if (!f) {
		*json = NULL;
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < s->n_diffs; i++) {
		const struct fidelity_diff *d = &s->diffs[i];
		fprintf(f, "%s\n      {\"tick_ns\": %" PRIu64 ", ", i ? "," : "", d->tick_ns);
		summary_fmt_micro(a, sizeof(a), d->live_micro);
		fprintf(f, "\"live_fps\": %s, \"live_source\": \"%s\", ",
			d->live_source ? a : "null", frc_source_name(d->live_source, "none"));
		summary_fmt_micro(a, sizeof(a), d->replay_micro);
		fprintf(f, "\"replay_fps\": %s, \"replay_source\": \"%s\"}",
			d->replay_source ? a : "null", frc_source_name(d->replay_source, "none"));
	}
	fputs(s->n_diffs ? "\n    ]" : "]", f);
	fclose(f);
}

static void fidelity_rows(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char a[32], b[32];

	if (!s->fidelity_applies) {
		row(x, "live readings", "n/a (capture recorded with %s; replayed with %s)",
		    s->recorded_tracker, x->m->tracker);
		return;
	}
	if (!s->live) {
		row(x, "live readings", "no live readings in the capture");
		return;
	}
	row(x, "live readings", "%" PRIu64 " of %" PRIu64 " reproduced%s", s->reproduced, s->live,
	    s->mismatches ? "  ** MISMATCH **" : "");
	for (size_t i = 0; i < s->n_diffs; i++) {
		const struct fidelity_diff *f = &s->diffs[i];
		summary_fmt_micro(a, sizeof(a), f->live_micro);
		summary_fmt_micro(b, sizeof(b), f->replay_micro);
		row(x, NULL, "tick %" PRIu64 ": live %s %s, replay %s %s", f->tick_ns,
		    f->live_source ? a : "-", frc_source_name(f->live_source, "none"),
		    f->replay_source ? b : "-", frc_source_name(f->replay_source, "none"));
	}
	if (s->mismatches > s->n_diffs)
		row(x, NULL, "... %" PRIu64 " more", s->mismatches - s->n_diffs);
}

static void sec_fidelity(const struct em *x)
{
	const struct summary_view *s = &x->m->run;
	char *json = NULL;

	open_(x, "fidelity", "replay fidelity");
	val_bool(x, "applies", s->fidelity_applies);
	val(x, "recorded_tracker", RV_STR, s->recorded_tracker);
	val_u64(x, "live_readings", s->live);
	val_u64(x, "reproduced", s->reproduced);
	val_u64(x, "mismatches", s->mismatches);
	fidelity_json(s, &json);
	val(x, "diffs", RV_RAW, json ? json : "[]");
	free(json);
	fidelity_rows(x);
	close_(x);
}

/* ------------------------------------------------------------ the list */

/*
 * Every section, in order, and the views that show it. The golden keeps the numbers a
 * change must show in review: what was submitted (the headline), what the tracker and
 * meter computed, and whether the replay saw the whole capture; a new section for people
 * (the capture's description, the verdict's prose) changes no golden file.
 */
static const struct {
	void (*emit)(const struct em *x);
	bool full, golden;
} sections[] = {
    {sec_display, true, true},
    {sec_content, true, true},
    {sec_submissions, true, true},
    {sec_verdict, true, false},
    {sec_display_verdict, true, false},
    {sec_capture, true, false},
    {sec_status, false, true},
    {sec_replay, true, false},
    {sec_accounting, true, true},
    {sec_frame_times, true, true},
    {sec_janks, true, true},
    {sec_readings, true, true},
    {sec_sysfs, true, true},
    {sec_fidelity, true, true},
};

void report_emit(const struct report_model *m, enum report_view view, bool with_path,
		 const struct report_emitter *e)
{
	struct em x = {
	    .e = e, .m = m, .with_path = with_path, .golden = view == REPORT_VIEW_GOLDEN};

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (view == REPORT_VIEW_GOLDEN ? sections[i].golden : sections[i].full)
			sections[i].emit(&x);
}

/* ------------------------------------------------------------ text */

static void text_open(void *ctx, const char *key, const char *title)
{
	(void)key;
	if (title)
		fprintf(ctx, "%s\n", title);
}

static void text_close(void *ctx)
{
	(void)ctx;
}

static void text_value(void *ctx, const char *key, enum report_value kind, const char *v)
{
	(void)ctx, (void)key, (void)kind, (void)v;
}

static void text_row(void *ctx, const char *label, const char *text, bool untrusted)
{
	FILE *out = ctx;

	if (label)
		fprintf(out, "  %-24s ", label);
	else
		fputs("  ", out);
	/* metadata comes from the file: control bytes are shown escaped, never sent raw */
	if (untrusted)
		frc_escape_write(out, text, strlen(text), FRC_ESCAPE_TEXT);
	else
		fputs(text, out);
	fputc('\n', out);
}

void report_render_text(const struct report_model *m, FILE *out)
{
	struct report_emitter e = {out, text_open, text_close, text_value, text_row};

	report_emit(m, REPORT_VIEW_FULL, true, &e);
}

/* ------------------------------------------------------------ JSON */

#define JSON_DEPTH 8

struct json_out {
	FILE *out;
	int depth;
	bool first[JSON_DEPTH]; /* no member written yet at that depth */
};

/* Before a member: the comma of the previous one, the newline, the indent. */
static void json_member(struct json_out *j, const char *key)
{
	fputs(j->first[j->depth] ? "\n" : ",\n", j->out);
	j->first[j->depth] = false;
	fprintf(j->out, "%*s\"%s\": ", 2 * (j->depth + 1), "", key);
}

static void json_open(void *ctx, const char *key, const char *title)
{
	struct json_out *j = ctx;

	(void)title;
	json_member(j, key);
	fputc('{', j->out);
	if (j->depth + 1 < JSON_DEPTH)
		j->first[++j->depth] = true;
}

static void json_close(void *ctx)
{
	struct json_out *j = ctx;

	j->depth--;
	fprintf(j->out, "\n%*s}", 2 * (j->depth + 1), "");
}

static void json_value(void *ctx, const char *key, enum report_value kind, const char *v)
{
	struct json_out *j = ctx;

	json_member(j, key);
	if (!v) {
		fputs("null", j->out);
	} else if (kind == RV_STR) {
		fputc('"', j->out);
		frc_escape_write(j->out, v, strlen(v), FRC_ESCAPE_JSON);
		fputc('"', j->out);
	} else {
		fputs(v, j->out);
	}
}

static void json_row(void *ctx, const char *label, const char *text, bool untrusted)
{
	(void)ctx, (void)label, (void)text, (void)untrusted;
}

void report_render_json(const struct report_model *m, enum report_view view, bool with_path,
			FILE *out)
{
	struct json_out j = {.out = out, .first = {true}};
	struct report_emitter e = {&j, json_open, json_close, json_value, json_row};

	fputc('{', out);
	json_member(&j, view == REPORT_VIEW_GOLDEN ? "frameanalyze_golden_numbers"
						   : "frameanalyze_report");
	fputc('1', out);
	report_emit(m, view, with_path, &e);
	fputs("\n}\n", out);
}

/* ------------------------------------------------------------ HTML text */

void report_put_html(FILE *out, const char *v)
{
	char stack[512], *buf = stack;
	size_t n = strlen(v), need = frc_escape(v, n, FRC_ESCAPE_TEXT, NULL, 0) + 1;

	if (need > sizeof(stack) && !(buf = malloc(need))) {
		fputs("(out of memory)", out);
		return;
	}
	frc_escape(v, n, FRC_ESCAPE_TEXT, buf, need);
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*p, out);
		}
	}
	if (buf != stack)
		free(buf);
}
