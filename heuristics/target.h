/* SPDX-License-Identifier: MIT */
/*
 * target.h - which process the player watches: the one framerec was pointed at.
 *
 * A capture can hold the frames of several processes: every --pid given, a launcher and
 * the game it starts, the new process of a restart (--package --wait re-attaches), another
 * app's overlay recorded alongside. The busiest of them is not necessarily the game (a
 * launcher animates at 60 Hz while a 30 fps game loads), so the target is taken from what
 * framerec was told, not from the counts:
 *   - the target PIDs are those of the metadata key `target.pid` (the targets attached at
 *     the start, in the order given) and of every later `attach` record of a PID not among
 *     them (a process framerec followed: a launch or a restart);
 *   - the target at a moment is, among the target PIDs alive (attached, no `exit` since)
 *     that have queued a frame, the one attached last (a followed process is newer than
 *     the start's; among the start's, the first listed); when none has queued yet, the
 *     one attached last, likewise.
 * So a launcher then game switches at the game's first frame, a restart follows the new
 * PID, and a second --pid or another app's process is never the target while the first is
 * alive and drawing. A capture with neither the key nor an attach record has no target
 * (target_known false): the caller falls back to its own rule and says so.
 *
 * Pure: records are the caller's, in file order; no clock, no I/O. Bounded: TARGET_MAX
 * PIDs are remembered (the oldest exited one is forgotten first, then the oldest).
 */
#ifndef TARGET_H
#define TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define TARGET_MAX 64

struct target;

/*
 * meta_pids: the value of the metadata key `target.pid` ("4242" or "4242,4343"), or NULL.
 * A value that is not a list of decimal PIDs (1..2^32-1) separated by ',' gives -EINVAL
 * (the caller says which capture); more than TARGET_MAX keeps the first TARGET_MAX.
 * Returns 0, -EINVAL or -ENOMEM.
 */
FRC_MUST_USE int target_new(struct target **out, const char *meta_pids);
void target_free(struct target *t);

/* Every record in file order (only attach, exit and frame records matter). True when the
 * target changed at this record. */
bool target_record(struct target *t, const struct frc_record *r);

/* The target now (0: none yet). */
uint32_t target_pid(const struct target *t);
/* True when the capture says what the target is (the key, or an attach record). */
bool target_known(const struct target *t);

#endif /* TARGET_H */
