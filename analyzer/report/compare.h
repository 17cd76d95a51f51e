/* SPDX-License-Identifier: MIT */
/*
 * compare.h - two captures' key metrics side by side and the CI gates on them
 * (analyzer/REPORT.md "Compare"): the model (from two report models) and its text, JSON
 * and HTML renderers. `frameanalyze compare` (cmd/cmd_compare.c) is the command.
 */
#ifndef FRAMEANALYZE_COMPARE_H
#define FRAMEANALYZE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report_model.h"

enum compare_metric {
	CM_SUB_FPS,
	CM_LOW1,
	CM_P50,
	CM_P90,
	CM_P95,
	CM_P99,
	CM_MAX,
	CM_JANKS_MIN,
	CM_BIG_JANKS_MIN,
	CM_STUTTER,
	CM_MEDIAN_FPS,
	CM_STABILITY,
	CM_TRACKER_FPS,
	CM_METER_FPS,
	CM_LOSS,
	CM_COUNT
};

/* A metric's value; has false: the capture has nothing to compute it from (why says what). */
struct compare_value {
	bool has;
	double v;
};

enum compare_field { CF_AFTER, CF_DELTA, CF_PCT };

/* What a gate found: its value passed, tripped it, or does not exist (a failure too). */
enum gate_state { GATE_OK, GATE_TRIPPED, GATE_NO_DATA };

struct compare_gate {
	const char *text;
	int m; /* the metric: its index in the mode's table (enum compare_metric, ...) */
	enum compare_field field;
	bool field_given; /* the gate named its field (a bare METRIC means .delta) */
	bool greater, or_equal;
	double threshold;
	enum gate_state state;
	char why[96]; /* GATE_NO_DATA: "no frames in AFTER", ... */
};

#define COMPARE_MAX_GATES 32

struct comparison {
	const char *before_path, *after_path;
	const struct report_model *before, *after;
	struct compare_value b[CM_COUNT], a[CM_COUNT];
	struct compare_gate gates[COMPARE_MAX_GATES];
	size_t n_gates;
};

/*
 * Parse "METRIC[.after|.delta|.pct]OP NUMBER" into g. 0, or -EINVAL with why[len] saying
 * what is wrong (the unknown metric and the known ones, the field, the operator, the number).
 */
FRC_MUST_USE int compare_parse_gate(const char *s, struct compare_gate *g, char *why, size_t len);

/*
 * The same parse against another mode's n metric names (keys[i] is metric i; the message
 * lists them): compare_variants.h's gates.
 */
FRC_MUST_USE int compare_parse_gate_keys(const char *s, const char *const *keys, int n,
					 struct compare_gate *g, char *why, size_t len);

/* The value a gate of this field tests: after, after - before, or the change in % of before. */
struct compare_value compare_field_value(enum compare_field f, struct compare_value before,
					 struct compare_value after);
/* Does v trip g (v.has: the caller says why not)? */
bool compare_gate_trips(const struct compare_gate *g, double v);

/* A value with 3 decimals ("%.3f", signed: "%+.3f"), or "null" when it does not exist. */
void compare_fmt(char *buf, size_t len, struct compare_value v, bool sign);

/* Fill c's metrics from its two models and evaluate its gates. Returns the gates failed. */
size_t compare_run(struct comparison *c);

void compare_render_text(const struct comparison *c, FILE *out);
void compare_render_json(const struct comparison *c, FILE *out);
void compare_render_html(const struct comparison *c, FILE *out);

#endif
