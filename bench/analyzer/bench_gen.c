/* SPDX-License-Identifier: MIT */
/*
 * bench_gen.c - the benchmark capture for bench/analyzer/bench_db.sh, written with the
 * capture writer API: N frames of one PID at 60 Hz (+-200 us uniform jitter), 3 buffers in
 * rotation, a tick every second of ktime. Also writes the same frames as CSV rows
 * (capture_id,seq,ktime_ns,pid,tid,buffer) for the sqlite3 CLI baseline.
 *
 * usage: bench_gen FRAMES OUT.frc OUT.csv [HZ]   (HZ: the frame rate, default 60; the
 * HTML report's bench, bench_html.sh, uses 120)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "frc.h"

int main(int argc, char **argv)
{
	static const uint64_t bufs[3] = {0x7a2c01e000, 0x7a2c0b4000, 0x7a2c14a000};
	struct frc_meta meta[] = {
	    {"recorder", "bench_gen"}, {"clock", "CLOCK_MONOTONIC"}, {"target", "bench.60hz"}};
	uint64_t n, rng = 0x9e3779b97f4a7c15ull, t0 = 1000000000ull, next_tick, period = 16666667;
	frc_writer *w = NULL;
	struct frc_record r = {0};
	FILE *csv;
	int fd, rc = 1;

	if ((argc != 4 && argc != 5) || (n = strtoull(argv[1], NULL, 10)) == 0 ||
	    (argc == 5 &&
	     (strtoull(argv[4], NULL, 10) == 0 || strtoull(argv[4], NULL, 10) > 1000))) {
		fprintf(stderr, "usage: bench_gen FRAMES OUT.frc OUT.csv [HZ 1..1000]\n");
		return 2;
	}
	if (argc == 5)
		period = 1000000000ull / strtoull(argv[4], NULL, 10);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	csv = fopen(argv[3], "w");
	if (fd < 0 || !csv) {
		perror("bench_gen");
		return 1;
	}
	if (frc_writer_open_fd(&w, fd, argv[2], meta, 3, NULL)) {
		fprintf(stderr, "bench_gen: %s\n", w ? frc_writer_error(w) : "out of memory");
		goto cleanup;
	}
	next_tick = t0 + 1000000000ull;
	for (uint64_t i = 0; i < n; i++) {
		int64_t jitter;
		uint64_t t;

		rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
		jitter = (int64_t)((rng * 2685821657736338717ull) % 400001) - 200000;
		t = t0 + i * period + (uint64_t)jitter;
		while (next_tick <= t) {
			r.type = FRC_TICK;
			r.ktime_ns = next_tick;
			r.u.tick.has_result = false;
			if (frc_writer_append(w, &r))
				goto werr;
			next_tick += 1000000000ull;
		}
		r.type = FRC_FRAME;
		r.ktime_ns = t;
		r.u.frame.pid = 4242;
		r.u.frame.tid = 4243;
		r.u.frame.buffer = bufs[i % 3];
		if (frc_writer_append(w, &r))
			goto werr;
		fprintf(csv, "1,%" PRIu64 ",%" PRIu64 ",4242,4243,%" PRIu64 "\n", i, t,
			bufs[i % 3]);
	}
	if (frc_writer_finish(w))
		goto werr;
	if (fclose(csv) != 0) {
		csv = NULL;
		perror(argv[3]);
		goto cleanup;
	}
	csv = NULL;
	rc = 0;
	goto cleanup;
werr:
	fprintf(stderr, "bench_gen: %s\n", frc_writer_error(w));
cleanup:
	frc_writer_free(w);
	if (csv)
		fclose(csv);
	close(fd);
	return rc;
}
