/* SPDX-License-Identifier: MIT */
/*
 * diff.h - a unified diff of two texts, line by line (Myers' O(ND) algorithm), so that
 * `frameanalyze check` can show what changed without running an external diff.
 */
#ifndef FRAMEANALYZE_DIFF_H
#define FRAMEANALYZE_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

/*
 * Write a unified diff (3 lines of context, GNU hunk headers) of a (labelled a_label) against
 * b (b_label) to out. Returns 0 when the texts are identical, 1 when they differ (the diff was
 * written), -ENOMEM. Texts need not end in a newline; a missing final newline is shown as
 * "\ No newline at end of file".
 */
FRC_MUST_USE int diff_unified(FILE *out, const char *a_label, const char *a, size_t a_len,
			      const char *b_label, const char *b, size_t b_len);

#endif
