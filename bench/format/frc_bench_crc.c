/* SPDX-License-Identifier: MIT */
/*
 * frc_bench_crc - CRC-32C throughput of the portable table and of the CPU's instruction,
 * side by side (issue 17: the table was 8.5 % of `frameanalyze report`). Not a test.
 *
 *   frc_bench_crc [RUNS]      (default 7)
 *
 * For each buffer size (a descriptor, a small and a large chunk) each path checksums about
 * 64 MiB, RUNS times; the median MB/s of the runs is printed, the portable path (the
 * baseline) first. The CRCs of the two paths are compared too: a benchmark of a wrong
 * result would be worthless.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frc_internal.h"

#define BENCH_BYTES (64u << 20)
#define RUNS_MAX 51

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median MB/s of f over buf[0..size), RUNS runs of ~BENCH_BYTES each; *crc: its result. */
static double median_mbs(frc_crc32c_fn f, const uint8_t *buf, size_t size, int runs, uint32_t *crc)
{
	double mbs[RUNS_MAX];
	size_t reps = BENCH_BYTES / size;

	for (int r = 0; r < runs; r++) {
		uint32_t c = 0;
		double t0 = now_s();

		/* Each CRC chained into the next, so no call can be skipped or hoisted. */
		for (size_t i = 0; i < reps; i++)
			c = f(c, buf, size);
		mbs[r] = (double)(reps * size) / 1e6 / (now_s() - t0);
		*crc = c;
	}
	qsort(mbs, (size_t)runs, sizeof(mbs[0]), cmp_double);
	return mbs[runs / 2];
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {64, 4096, 65536, 1u << 20};
	frc_crc32c_fn hw = frc_crc32c_hw();
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	uint8_t *buf = malloc(1u << 20);
	uint64_t x = 1;

	if (!buf || runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: frc_bench_crc [RUNS]   (1..%d, default 7)\n", RUNS_MAX);
		return 2;
	}
	for (size_t i = 0; i < 1u << 20; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(x >> 56);
	}
	printf("crc32c MB/s, median of %d runs of %u MiB; frc_crc32c runs: %s\n", runs,
	       BENCH_BYTES >> 20, frc_crc32c_path());
	printf("%10s %12s %12s %8s\n", "bytes", "portable", hw ? frc_crc32c_path() : "(no hw)",
	       "speedup");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t c_sw, c_hw;
		double sw = median_mbs(frc_crc32c_portable, buf, sizes[i], runs, &c_sw);

		if (!hw) {
			printf("%10zu %12.0f %12s %8s\n", sizes[i], sw, "-", "-");
			continue;
		}
		double mhw = median_mbs(hw, buf, sizes[i], runs, &c_hw);

		if (c_hw != c_sw) {
			fprintf(stderr, "frc_bench_crc: the paths disagree at %zu bytes\n",
				sizes[i]);
			return 1;
		}
		printf("%10zu %12.0f %12.0f %7.1fx\n", sizes[i], sw, mhw, mhw / sw);
	}
	free(buf);
	return 0;
}
