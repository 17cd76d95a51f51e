/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for everything a replay drives: the input is read as records
 * (fuzz_records.h), written as a valid capture, and replayed as `frameanalyze` would with
 * one tracker variant: the report model (pipeline, submissions truth, and sometimes the
 * score of every variant), its text, JSON and HTML renderers, and the Perfetto exporter. None of
 * them may crash, leak, overflow or divide by zero (ASan/UBSan), whatever times, PIDs, buffers,
 * Surfaces, sysfs contents, drops, attach and exit records the capture holds. A replay
 * that refuses the capture must say why.
 *
 * Input: byte 0 picks the chunk length; byte 1 the capture's recorded `tracker` metadata
 * (none, each variant, or an unknown name), the --tick-ms, and whether to score; byte 2
 * the --tracker replayed (none: the recorded one, or a variant) and the --meter (none:
 * the default, or a variant: frc-window reads the display records, so hostile presents,
 * vsync periods and polls reach it); the rest is records.
 * One replay per input keeps the fuzzer fast: inputs, not one input, cover the variants.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frc.h"
#include "fuzz_records.h"
#include "meter_kind.h"
#include "perfetto.h"
#include "report_model.h"
#include "report_render.h"
#include "tracker_kind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The capture of the input's records in a memfd; its /proc path in path. -1: none. */
static int write_capture(const uint8_t *data, size_t size, char *path, size_t len)
{
	static const char *const recorded[] = {NULL,	  "kala",	  "surface",
					       "process", "main-surface", "no-such-tracker"};
	struct frc_writer_options opt = {.flush_ms = 1 + (uint32_t)data[0] * 20};
	const char *name = recorded[data[1] % 6];
	struct frc_meta meta[] = {{"recorder", "fuzz_analyze"}, {"tracker", name}};
	size_t n = (size - 3) / FUZZ_RECORD_BYTES;
	frc_writer *w = NULL;
	struct frc_record r;
	uint64_t t = 0;
	int fd = memfd_create("fuzz_analyze", MFD_CLOEXEC);

	if (fd < 0 || frc_writer_open_fd(&w, fd, "fuzz.frc", meta, name ? 2 : 1, &opt))
		abort();
	for (size_t k = 0; k < n; k++) {
		fuzz_make_record(data + 3 + FUZZ_RECORD_BYTES * k, &t, &r);
		if (frc_writer_append(w, &r))
			abort();
	}
	if (frc_writer_finish(w))
		abort();
	frc_writer_free(w);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* A refused replay names what: an empty message is a bug. */
static void check_refusal(int rc, const char *err)
{
	if (rc && err[0] == '\0')
		__builtin_trap();
}

/* Replay path with tracker and meter (NULL: the recorded one) into every renderer. */
static void analyze(const char *path, const char *tracker, const char *meter, uint32_t tick_ms,
		    bool score, FILE *sink)
{
	struct replay_options ropt = {
	    .tick_ms = tick_ms, .tracker_name = tracker, .meter_name = meter};
	struct report_model *m = NULL;
	char err[FRC_MSG_MAX] = "";
	int rc;

	rc = report_model_build(path, &ropt, NULL, 0, &m, err, sizeof(err));
	check_refusal(rc, err);
	if (rc)
		return;
	if (score) {
		rc = report_model_score(m, path, &ropt, err, sizeof(err));
		check_refusal(rc, err);
	}
	report_render_text(m, sink);
	report_render_json(m, REPORT_VIEW_FULL, true, sink);
	report_render_json(m, REPORT_VIEW_GOLDEN, false, sink);
	report_render_html(m, sink);
	report_model_free(m);
	err[0] = '\0';
	{
		struct perfetto_result pres;
		rc = perfetto_export(path, &ropt, sink, &pres, err, sizeof(err));
	}
	check_refusal(rc, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	const char *tracker = NULL, *meter = NULL;
	size_t nt = tracker_kind_count() + 1, nm = meter_kind_count() + 1;
	char path[64];
	uint32_t tick_ms;
	int fd;

	if (size < 3 + FUZZ_RECORD_BYTES)
		return 0;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	fd = write_capture(data, size, path, sizeof(path));
	tick_ms = data[1] & 0x80 ? 1 + (data[1] & 0x1f) * 50 : 0; /* 0: 1000 */
	if (data[2] % nt)
		tracker = tracker_kind_at(data[2] % nt - 1)->name;
	if (data[2] / nt % nm)
		meter = meter_kind_at(data[2] / nt % nm - 1)->name;
	analyze(path, tracker, meter, tick_ms, data[1] & 0x40, sink);
	close(fd);
	return 0;
}
