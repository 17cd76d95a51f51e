/* SPDX-License-Identifier: MIT */
/*
 * perfetto.h - a capture as a native Perfetto trace (perfetto.c; REPORT.md "Perfetto
 * trace"). `frameanalyze perfetto` writes it to a file; the fuzzer writes it anywhere.
 */
#ifndef FRAMEANALYZE_PERFETTO_H
#define FRAMEANALYZE_PERFETTO_H
#include <stddef.h>
#include <stdio.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "replay.h"

/* Replay path into out as a trace. 0, or a negative code with a one-line message in err. */
FRC_MUST_USE int perfetto_export(const char *path, const struct replay_options *ropt, FILE *out,
				 char *err, size_t errlen);
#endif
