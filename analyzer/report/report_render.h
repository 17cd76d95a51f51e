/* SPDX-License-Identifier: MIT */
/*
 * report_render.h - the report's renderers. One list of sections (report_render.c) says
 * what each section holds, once, through an emitter; the text, JSON and HTML renderers are
 * emitters. A section describes each value twice at most: a JSON key with a machine value
 * and a row for people (label, text), so the text and JSON views never disagree on a
 * number. Untrusted text goes through frc_escape.h in every renderer.
 */
#ifndef FRAMEANALYZE_REPORT_RENDER_H
#define FRAMEANALYZE_REPORT_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

enum report_value {
	RV_U64,	 /* digits */
	RV_NUM,	 /* a number already formatted at fixed precision; NULL: null */
	RV_STR,	 /* untrusted text, escaped by the renderer; NULL: null */
	RV_BOOL, /* "true" / "false" */
	RV_RAW,	 /* JSON text made by the section itself (arrays of objects) */
};

struct report_emitter {
	void *ctx;
	/* A section or a nested object: key for JSON, title for people (NULL: no heading). */
	void (*open)(void *ctx, const char *key, const char *title);
	void (*close)(void *ctx);
	/* A machine value (JSON only). */
	void (*value)(void *ctx, const char *key, enum report_value kind, const char *v);
	/* A row for people (text and HTML): label and value; untrusted is escaped. */
	void (*row)(void *ctx, const char *label, const char *text, bool untrusted);
};

enum report_view {
	REPORT_VIEW_FULL,   /* `report`: every section */
	REPORT_VIEW_GOLDEN, /* `golden`: the heuristics' numbers only, no path */
};

/* Emit the sections of view to e (the renderers call it; HTML uses it for its tables). */
void report_emit(const struct report_model *m, enum report_view view, bool with_path,
		 const struct report_emitter *e);

void report_render_text(const struct report_model *m, FILE *out);
/* JSON (schema in analyzer/REPORT.md), one key per line, fixed precision. */
void report_render_json(const struct report_model *m, enum report_view view, bool with_path,
			FILE *out);
/* The self-contained HTML page with inline SVG charts (report_html.c). */
void report_render_html(const struct report_model *m, FILE *out);
/* compare's charts: submitted FPS per second and the frame-time CDF, before and after. */
void report_html_compare_charts(FILE *out, const struct report_model *before,
				const struct report_model *after);

/* Untrusted text as HTML (FRC_ESCAPE_TEXT, then the five HTML specials as entities). */
void report_put_html(FILE *out, const char *v);

/* The one-line plain-words verdicts (e.g. "tracker kala: 19.440 FPS, -66.7 % vs ..."). */
void report_fmt_tracker_verdict(const struct report_model *m, char *buf, size_t len);

#endif
