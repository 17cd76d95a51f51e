/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the writer: the input is read as a list of records (mostly frames,
 * with hostile times, PIDs, tids, buffers and Surfaces; fuzz_records.h), written to a
 * capture in memory and read back. Every record must come back exactly, in order, and
 * the capture must be complete. This drives the column encoder (period fit, slot increments,
 * residual widths up to 64 bits, dictionaries, the surface column) with inputs no test thought of.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frc.h"
#include "fuzz_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frc_writer_options opt = {0};
	size_t n = size < 1 ? 0 : (size - 1) / FUZZ_RECORD_BYTES;
	struct frc_record *recs, got;
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct frc_reader_stats st;
	uint64_t t = 0;
	uint8_t *buf;
	off_t len;
	size_t i = 0;
	int fd;

	if (n == 0)
		return 0;
	opt.flush_ms = 1 + data[0] * 20;
	recs = calloc(n, sizeof(*recs));
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (!recs || fd < 0)
		abort();
	for (size_t k = 0; k < n; k++)
		fuzz_make_record(data + 1 + FUZZ_RECORD_BYTES * k, &t, &recs[k]);
	if (frc_writer_open_fd(&w, fd, "fuzz.frc", NULL, 0, &opt))
		abort();
	for (size_t k = 0; k < n; k++)
		if (frc_writer_append(w, &recs[k]))
			abort();
	if (frc_writer_finish(w))
		abort();
	frc_writer_free(w);
	len = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)len);
	if (!buf || pread(fd, buf, (size_t)len, 0) != len)
		abort();
	if (frc_reader_open_mem(&r, buf, (size_t)len, "fuzz.frc"))
		abort();
	while (frc_reader_next(r, &got) > 0) {
		if (i >= n || !fuzz_same_record(&recs[i], &got))
			__builtin_trap();
		i++;
	}
	frc_reader_stats(r, &st);
	if (i != n || st.status != FRC_STATUS_COMPLETE)
		__builtin_trap();
	frc_reader_close(r);
	free(buf);
	close(fd);
	free(recs);
	return 0;
}
