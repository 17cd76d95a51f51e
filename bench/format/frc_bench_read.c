/* SPDX-License-Identifier: MIT */
/*
 * frc_bench_read - how fast the reader delivers records (issue 17: `frameanalyze report`
 * on 10 M frames spent 25 % in frc_run_decode and 18 % in frc_reader_next). Not a test.
 *
 *   frc_bench_read [-n FRAMES] [-r RUNS] CAPTURE.frc
 *
 * When CAPTURE.frc does not exist it is written first: FRAMES (default 10 000 000) frames
 * of the compactness stream (frc_bench_gen: one PID at 60 Hz, +-200 us uniform jitter,
 * three buffers in rotation) and, as framerec records, a tick record every second, in the
 * writer's default 1 s chunks. Then it is read RUNS times (default 5) through
 * frc_reader_open / frc_reader_next, every record, and the median is printed as records/s.
 * The baseline, printed next to it from the same run: zstd decompressing the same chunks
 * and nothing else, the floor no record decoder can go below. Both as wall and CPU time:
 * on a shared machine the CPU time is the steadier figure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "frc.h"

#define RUNS_MAX 51

static uint64_t rng_state = 0x5EED2026u;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall and CPU seconds since *t0 (which it then resets): on a shared machine the CPU time
 * is the steadier of the two (waiting for a core is not in it). */
struct lap {
	double wall, cpu;
};

static struct lap lap_since(struct lap *t0)
{
	struct lap now = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
	struct lap d = {now.wall - t0->wall, now.cpu - t0->cpu};

	*t0 = now;
	return d;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* Frame i of the stream (frc_bench_gen's), preceded by the ticks of the seconds it ends. */
static int append_frame(frc_writer *w, long i, uint64_t *next_tick)
{
	static const uint64_t buffers[3] = {0xb400007a1c2e3000ull, 0xb400007a1c2e5000ull,
					    0xb400007a1c2e7000ull};
	int64_t jitter = (int64_t)(splitmix64() % 400001) - 200000;
	struct frc_record r = {.type = FRC_FRAME};

	r.ktime_ns = (uint64_t)(1000000000000ll + i * 16666667ll + jitter);
	while (*next_tick <= r.ktime_ns) {
		struct frc_record t = {.type = FRC_TICK, .ktime_ns = *next_tick};

		if (frc_writer_append(w, &t))
			return -1;
		*next_tick += 1000000000ull;
	}
	r.u.frame.pid = 4242;
	r.u.frame.tid = 4301;
	r.u.frame.buffer = buffers[i % 3];
	return frc_writer_append(w, &r) ? -1 : 0;
}

static int generate(const char *path, long frames)
{
	static const struct frc_meta meta[] = {{"recorder", "frc_bench_read"},
					       {"clock", "CLOCK_MONOTONIC"}};
	uint64_t next_tick = 1000000000000ull + 1000000000ull;
	frc_writer *w = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), ret = -1;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	fprintf(stderr, "frc_bench_read: writing %ld frames to %s\n", frames, path);
	if (frc_writer_open_fd(&w, fd, path, meta, 2, NULL))
		goto out;
	for (long i = 0; i < frames; i++)
		if (append_frame(w, i, &next_tick))
			goto out;
	if (frc_writer_finish(w))
		goto out;
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "frc_bench_read: %s\n", w ? frc_writer_error(w) : "out of memory");
	frc_writer_free(w);
	close(fd);
	if (ret)
		unlink(path);
	return ret;
}

/* One pass of the reader over every record into *t; -1 when the capture is not whole. */
static int read_pass(const char *path, struct lap *t, uint64_t *records, uint64_t *chunks)
{
	struct lap t0 = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
	struct frc_reader_stats st;
	struct frc_record rec;
	frc_reader *r = NULL;
	uint64_t n = 0, sum = 0;
	int ret;

	if (frc_reader_open(&r, path)) {
		fprintf(stderr, "frc_bench_read: %s\n", frc_reader_error(r));
		frc_reader_close(r);
		return -1;
	}
	while ((ret = frc_reader_next(r, &rec)) > 0) {
		n++;
		sum += rec.ktime_ns; /* the records are used, as a consumer would */
	}
	*t = lap_since(&t0);
	frc_reader_stats(r, &st);
	*records = n;
	*chunks = st.chunks;
	if (ret < 0 || st.status != FRC_STATUS_COMPLETE || sum == 0) {
		fprintf(stderr, "frc_bench_read: %s: not read whole: %s\n", path,
			frc_reader_error(r));
		ret = -1;
	}
	frc_reader_close(r);
	return ret;
}

/*
 * The baseline: every ordinary zstd frame of the file decompressed into *t, nothing else
 * (the skippable frames, header, descriptors and footer, are stepped over). -1 on error.
 */
static int zstd_pass(const uint8_t *p, size_t len, struct lap *t)
{
	struct lap t0 = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t cap = 64u << 20, at = 0;
	uint8_t *out = malloc(cap);
	int ret = -1;

	while (d && out && len - at >= 8) {
		uint32_t magic = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 |
				 (uint32_t)p[at + 2] << 16 | (uint32_t)p[at + 3] << 24;
		size_t n;

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			at += 8 + ((size_t)p[at + 4] | (size_t)p[at + 5] << 8 |
				   (size_t)p[at + 6] << 16 | (size_t)p[at + 7] << 24);
			continue;
		}
		n = ZSTD_findFrameCompressedSize(p + at, len - at);
		if (ZSTD_isError(n) || ZSTD_isError(ZSTD_decompressDCtx(d, out, cap, p + at, n)))
			goto out;
		at += n;
	}
	*t = lap_since(&t0);
	if (at == len)
		ret = 0;
out:
	free(out);
	ZSTD_freeDCtx(d);
	return ret;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *p = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &sb) && (p = malloc((size_t)sb.st_size + 1))) {
		*len = (size_t)sb.st_size;
		if (pread(fd, p, *len, 0) != sb.st_size) {
			free(p);
			p = NULL;
		}
	}
	close(fd);
	return p;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: frc_bench_read [-n FRAMES] [-r RUNS (1..%d)] CAPTURE.frc\n"
		"  CAPTURE.frc is written first when it does not exist\n",
		RUNS_MAX);
	return 2;
}

/* "NAME  wall W ms  R M records/s   cpu C ms  R M records/s" from the medians of t[0..runs). */
static void report(const char *name, const struct lap *t, int runs, uint64_t records)
{
	double wall[RUNS_MAX], cpu[RUNS_MAX], w, c;

	for (int i = 0; i < runs; i++) {
		wall[i] = t[i].wall;
		cpu[i] = t[i].cpu;
	}
	w = median(wall, runs);
	c = median(cpu, runs);
	printf("  %-30s wall %7.1f ms %7.2f M records/s   cpu %7.1f ms %7.2f M records/s\n", name,
	       w * 1e3, (double)records / w / 1e6, c * 1e3, (double)records / c / 1e6);
}

int main(int argc, char **argv)
{
	struct lap rd[RUNS_MAX], zs[RUNS_MAX];
	long frames = 10000000;
	int runs = 5, c;
	uint64_t records = 0, chunks = 0;
	size_t len = 0;
	uint8_t *file;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			frames = atol(optarg);
		else if (c == 'r')
			runs = atoi(optarg);
		else
			return usage();
	}
	if (optind != argc - 1 || frames < 1 || runs < 1 || runs > RUNS_MAX)
		return usage();
	if (access(argv[optind], F_OK) && generate(argv[optind], frames))
		return 1;
	if (!(file = slurp(argv[optind], &len))) {
		perror(argv[optind]);
		return 1;
	}
	/* Interleaved, so both medians see the same machine load. */
	for (int i = 0; i < runs; i++)
		if (read_pass(argv[optind], &rd[i], &records, &chunks) ||
		    zstd_pass(file, len, &zs[i]))
			return 1;
	printf("frc_bench_read: %s: %llu records in %llu chunks, %zu bytes; median of %d runs\n",
	       argv[optind], (unsigned long long)records, (unsigned long long)chunks, len, runs);
	report("reader, every record", rd, runs, records);
	report("baseline: zstd of the chunks", zs, runs, records);
	free(file);
	return 0;
}
