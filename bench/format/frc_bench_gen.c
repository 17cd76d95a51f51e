/* SPDX-License-Identifier: MIT */
/*
 * frc_bench_gen - write the compactness benchmark stream twice: as an .frc capture and as
 * raw 24-byte records (struct frame_event: ktime u64, buffer u64, tgid u32, tid u32, little
 * endian), so size.sh can compare the capture with `zstd -19` of the raw records.
 *
 * The stream: N frames of one PID at 60 Hz, each timestamp = i * 16666667 ns plus a
 * uniform integer jitter in [-200000, +200000] ns, three buffers in rotation. The PRNG is
 * splitmix64 with a fixed seed, so every run and machine writes the same bytes.
 *
 * Options (issue 10: what recording the Surface costs):
 *   --surface      frames carry their Surface pointer (default: surface 0, not recorded)
 *   --overlay      every 6th frame belongs to a 10 fps overlay surface instead: another
 *                  thread and its own 2 buffers (a game's UI or danmaku layer)
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frc.h"

static uint64_t rng_state = 0x5EED2026u;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int usage(void)
{
	fprintf(stderr, "usage: frc_bench_gen [--surface] [--overlay] FRAMES FLUSH_MS OUT.frc "
			"[OUT.raw]\n"
			"  e.g. frc_bench_gen 100000 1000 /tmp/b.frc /tmp/b.raw\n"
			"       frc_bench_gen --surface --overlay 100000 1000 /tmp/s.frc\n");
	return 2;
}

static bool with_surface, with_overlay;

/* Frame i of the stream: the main surface's, or (--overlay) every 6th the overlay's. */
static void stream_frame(long i, struct frc_record *r)
{
	static const uint64_t buffers[3] = {0xb400007a1c2e3000ull, 0xb400007a1c2e5000ull,
					    0xb400007a1c2e7000ull};
	static const uint64_t overlay_buffers[2] = {0xb400007a1d001000ull, 0xb400007a1d003000ull};
	int64_t jitter = (int64_t)(splitmix64() % 400001) - 200000;
	bool overlay = with_overlay && i % 6 == 5;

	memset(r, 0, sizeof(*r));
	r->type = FRC_FRAME;
	r->ktime_ns = (uint64_t)(1000000000000ll + i * 16666667ll + jitter);
	r->u.frame.pid = 4242;
	r->u.frame.tid = overlay ? 4302 : 4301;
	r->u.frame.buffer = overlay ? overlay_buffers[(i / 6) % 2] : buffers[i % 3];
	if (with_surface)
		r->u.frame.surface = overlay ? 0xb400007a0c002000ull : 0xb400007a0c001000ull;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"surface", no_argument, NULL, 's'},
					     {"overlay", no_argument, NULL, 'o'},
					     {NULL, 0, NULL, 0}};
	static const struct frc_meta meta[] = {{"recorder", "frc_bench_gen"},
					       {"clock", "CLOCK_MONOTONIC"}};
	struct frc_writer_options opt = {0};
	FILE *raw = NULL;
	frc_writer *w = NULL;
	long frames;
	int fd, c, ret = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			with_surface = true;
		else if (c == 'o')
			with_overlay = true;
		else
			return usage();
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 4 || argc > 5)
		return usage();
	frames = atol(argv[1]);
	opt.flush_ms = (uint32_t)strtoul(argv[2], NULL, 10);
	if (frames <= 0)
		return usage();
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (argc == 5 && !(raw = fopen(argv[4], "wb")))) {
		perror("frc_bench_gen: open");
		goto cleanup;
	}
	if (frc_writer_open_fd(&w, fd, argv[3], meta, 2, &opt))
		goto fail;
	for (long i = 0; i < frames; i++) {
		struct frc_record r;
		uint8_t rec[24];

		stream_frame(i, &r);
		if (frc_writer_append(w, &r))
			goto fail;
		if (raw) {
			put_le(rec, r.ktime_ns, 8);
			put_le(rec + 8, r.u.frame.buffer, 8);
			put_le(rec + 16, r.u.frame.pid, 4);
			put_le(rec + 20, r.u.frame.tid, 4);
			fwrite(rec, 1, sizeof(rec), raw);
		}
	}
	if (frc_writer_finish(w))
		goto fail;
	ret = 0;
	goto cleanup;
fail:
	fprintf(stderr, "frc_bench_gen: %s\n", w ? frc_writer_error(w) : "out of memory");
cleanup:
	frc_writer_free(w);
	if (raw && fclose(raw))
		ret = 1;
	if (fd >= 0)
		close(fd);
	return ret;
}
