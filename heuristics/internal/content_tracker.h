/* SPDX-License-Identifier: MIT */
/*
 * content_tracker.h - the `content` tracker (ours, issue 19): the intervals of each
 * process's content surface, by the content rule (content.h). Reached through
 * tracker_kind.h ("content"); rules in heuristics/README.md.
 */
#ifndef CONTENT_TRACKER_H
#define CONTENT_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "tracker.h"

/* 0, -EINVAL (max_buffers 0), -ENOMEM. */
FRC_MUST_USE int content_tracker_new(void **out, const struct tracker_config *cfg);
void content_tracker_free(void *t);
bool content_tracker_record(void *t, uint64_t ktime_ns, const struct frc_frame *f,
			    uint64_t *delta_ns);
/* A thread record (rule 1's name), a buffer record (rule 2's area), a connect record (a
 * surface's lifetime) of the process. Other types: nothing. */
void content_tracker_learn(void *t, const struct frc_record *r);
void content_tracker_stats(const void *t, struct tracker_stats *st);

#endif /* CONTENT_TRACKER_H */
