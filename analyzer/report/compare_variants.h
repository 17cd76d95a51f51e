/* SPDX-License-Identifier: MIT */
/*
 * compare_variants.h - one capture replayed with two heuristics variants (two meters, or
 * two trackers, or both: `frameanalyze compare --meter A --meter B CAPTURE`), what a
 * reviewer of a meter change wants to see (issue 21): each variant's readings, the ticks
 * where the two readings differ, and each one's error against the capture's submissions,
 * graded by the score's own lanes (score.h, score_meter.h). analyzer/REPORT.md ("Compare",
 * two variants) defines every number. cmd/cmd_compare.c is the command.
 *
 * Both variants ride one replay plan: two reads of the capture whatever the variants.
 */
#ifndef FRAMEANALYZE_COMPARE_VARIANTS_H
#define FRAMEANALYZE_COMPARE_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "score.h"
#include "summary.h"

/* The gate metrics: one value per variant (before = A, after = B) ... */
enum variant_metric {
	VM_METER_FPS,
	VM_METER_NONE,
	VM_MAE,
	VM_MAE_PCT,
	VM_SETTLE_MEAN,
	VM_SETTLE_MAX,
	VM_UNSETTLED,
	VM_FREEZE_SHOW_MEAN,
	VM_FREEZE_SHOW_MAX,
	VM_FREEZES_MISSED,
	VM_FREEZES_LATE,
	VM_IDLE_SHOWN,
	/* ... and one value for the pair (the per-tick diff): no .after/.delta/.pct */
	VM_TICKS_DIFFER,
	VM_SOURCE_DIFFER,
	VM_SOURCE_DIFFER_MS,
	VM_MAX_DIFF,
	VM_COUNT
};
#define VM_FIRST_PAIR VM_TICKS_DIFFER

/* The largest differences kept (by |B - A|, the earlier first on a tie). */
#define VARIANT_TOP 5

/* One tick's two readings: micro-FPS (0 for none) and source (enum frc_source). */
struct variant_tick {
	uint64_t t_ns; /* after the capture's first record */
	uint64_t micro[2];
	uint8_t source[2];
};

/* The per-tick diff of the two variants' readings (the ticks of the analysed span). */
struct variant_diff {
	uint64_t ticks;		   /* ticks with a reading of each */
	uint64_t differ;	   /* of them: another value (micro-FPS) or source */
	uint64_t source_differ;	   /* of them: another source */
	uint64_t source_differ_ns; /* time the two showed different sources (see REPORT.md) */
	struct variant_tick top[VARIANT_TOP];
	size_t n_top;
};

/* One variant: its names, its readings (the report's summary of them), its grading. */
struct variant_side {
	char tracker[32], meter[32]; /* as replayed (resolved: --tracker, recorded, default) */
	uint64_t ticks, none;
	struct summary_source src[3]; /* by enum frc_source */
	struct score_result score;
};

struct variant_comparison {
	const char *path;
	bool truncated;
	uint64_t valid_end;	       /* truncated: where the damage is */
	struct frc_reader_stats stats; /* the reader's: status, what damage skipped cost */
	bool windowed;
	uint64_t from_ns, to_ns; /* the analysed span, after the capture's first record */
	struct variant_side v[2];
	/*
	 * The truth graded against, score's (REPORT.md "Score"): the display's content layer
	 * when the capture has presents linked to the main surface, else the submissions.
	 */
	bool display_truth;
	uint32_t content_id;
	uint64_t content_presents;
	char content_layer[256];
	struct variant_diff diff;
	struct compare_value val[2][VM_COUNT]; /* VM_FIRST_PAIR on: val[1] (val[0] unused) */
	struct compare_gate gates[COMPARE_MAX_GATES];
	size_t n_gates;
};

/*
 * Replay path once with variant A (trackers[0], meters[0]) and B (trackers[1], meters[1])
 * into c (c->path, gates and n_gates kept); a NULL name: the replay's own (opt's, the
 * recorded one, the default). 0, or a negative code with a one-line message in err (as
 * replay_run; REPLAY_EWINDOW for a window that does not fit).
 */
FRC_MUST_USE int compare_variants_build(const char *path, const struct replay_options *opt,
					const char *const trackers[2], const char *const meters[2],
					struct variant_comparison *c, char *err, size_t errlen);

/* Parse a gate on the variant metrics (compare_parse_gate's grammar). 0 or -EINVAL, why. */
FRC_MUST_USE int compare_variants_parse_gate(const char *s, struct compare_gate *g, char *why,
					     size_t len);

/* Fill c's metrics (after the build) and evaluate its gates. Returns the gates failed. */
size_t compare_variants_run(struct variant_comparison *c);

void compare_variants_text(const struct variant_comparison *c, FILE *out);
void compare_variants_json(const struct variant_comparison *c, FILE *out);
void compare_variants_html(const struct variant_comparison *c, FILE *out);

#endif
