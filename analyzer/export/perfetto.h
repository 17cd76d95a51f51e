/* SPDX-License-Identifier: MIT */
/*
 * perfetto.h - a capture as a native Perfetto trace (perfetto.c; REPORT.md "Perfetto
 * trace"). `frameanalyze perfetto` writes it to a file; the fuzzer writes it anywhere.
 */
#ifndef FRAMEANALYZE_PERFETTO_H
#define FRAMEANALYZE_PERFETTO_H
#include <stddef.h>
#include <stdio.h>

#include "replay.h"

/* What an export found that its caller may want to warn about. */
struct perfetto_result {
	struct frc_reader_stats stats; /* status complete or truncated, valid_end */
	uint64_t untracked;	       /* calls on surfaces past PERFETTO_MAX_SURFACE_TRACKS */
};

#define PERFETTO_MAX_SURFACE_TRACKS 256

/*
 * Replay path into out as a trace. 0 and *res, or a negative code with a one-line message
 * in err.
 */
FRC_MUST_USE int perfetto_export(const char *path, const struct replay_options *ropt, FILE *out,
				 struct perfetto_result *res, char *err, size_t errlen);
#endif
