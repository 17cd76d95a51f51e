/* SPDX-License-Identifier: MIT */
/*
 * runout.h - run a helper program (getprop, dumpsys) and take its output, bounded in time
 * and size: a hung or flooding helper costs framerec a deadline, never the recording.
 */
#ifndef RUNOUT_H
#define RUNOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */

struct runout {
	size_t len;	  /* bytes of standard output in buf[0..len); buf[len] is NUL */
	int exit_code;	  /* the program's exit status, or 128 + signal; -1 when not reaped */
	uint64_t wall_ns; /* from spawn to reaped */
};

/*
 * Run path with argv (argv[0] first, NULL-terminated; no shell, so an argument with
 * spaces stays one), stdin and stderr on /dev/null, stdout into buf[0..cap - 1). Returns 0
 * when it ended within timeout_ms with at most cap - 1 bytes (whatever its exit status:
 * see out->exit_code); -ETIMEDOUT (killed at the deadline), -EFBIG (more output than
 * that: killed), or the -errno of spawning it (e.g. -ENOENT). out is filled in every case.
 */
FRC_MUST_USE int runout(const char *path, char *const argv[], uint32_t timeout_ms, char *buf,
			size_t cap, struct runout *out);

#endif /* RUNOUT_H */
