/* SPDX-License-Identifier: MIT */
/*
 * Capture format tests (Check). Each case is its own CTest test, format.<case>; run one
 * with `test_format CASE`.
 *
 * Expectations are literal where the format fixes the bytes (tiny chunks, text lines) and
 * structural elsewhere: chunk boundaries are found with libzstd's own frame parser, not
 * with the code under test.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include <zstd.h>

#include "frc.h"
#include "frc_internal.h"
#include "frc_text.h"
#include "frc_case.h"

/* ------------------------------------------------------------ helpers */

struct capture {
	uint8_t *p;
	size_t len;
};

static void capture_free(struct capture *c)
{
	free(c->p);
	c->p = NULL;
	c->len = 0;
}

/* The whole content of fd. */
static struct capture slurp_fd(int fd)
{
	struct capture c = {0};
	struct stat sb;

	ck_assert_int_eq(fstat(fd, &sb), 0);
	c.len = (size_t)sb.st_size;
	c.p = malloc(c.len ? c.len : 1);
	ck_assert_ptr_nonnull(c.p);
	ck_assert_int_eq(pread(fd, c.p, c.len, 0), (ssize_t)c.len);
	return c;
}

/*
 * Write recs to a capture in memory. groups[] (0-terminated, may be NULL) lists how many
 * records go into each chunk: frc_writer_flush() closes a chunk after each group.
 */
static struct capture write_capture(const struct frc_record *recs, size_t n, const size_t *groups,
				    const struct frc_writer_options *opt, int finish)
{
	static const struct frc_meta meta[] = {{"recorder", "test_format"},
					       {"clock", "CLOCK_MONOTONIC"}};
	int fd = memfd_create("capture", MFD_CLOEXEC);
	frc_writer *w = NULL;
	struct capture c;
	size_t g = 0, in_group = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "mem.frc", meta, 2, opt), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(frc_writer_append(w, &recs[i]) == 0, "%s", frc_writer_error(w));
		if (groups && groups[g] && ++in_group == groups[g]) {
			ck_assert_int_eq(frc_writer_flush(w), 0);
			g++;
			in_group = 0;
		}
	}
	if (finish)
		ck_assert_msg(frc_writer_finish(w) == 0, "%s", frc_writer_error(w));
	else
		ck_assert_int_eq(frc_writer_flush(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);
	return c;
}

static void rec_assert_eq(const struct frc_record *a, const struct frc_record *b, size_t i)
{
	ck_assert_msg(a->type == b->type, "record %zu: type %u != %u", i, a->type, b->type);
	ck_assert_msg(a->ktime_ns == b->ktime_ns, "record %zu: ktime %llu != %llu", i,
		      (unsigned long long)a->ktime_ns, (unsigned long long)b->ktime_ns);
	switch (a->type) {
	case FRC_FRAME:
		ck_assert_msg(a->u.frame.pid == b->u.frame.pid &&
				  a->u.frame.tid == b->u.frame.tid &&
				  a->u.frame.buffer == b->u.frame.buffer &&
				  a->u.frame.surface == b->u.frame.surface &&
				  a->u.frame.has_timestamp == b->u.frame.has_timestamp &&
				  a->u.frame.timestamp == b->u.frame.timestamp,
			      "record %zu: frame differs", i);
		break;
	case FRC_SYSFS:
		ck_assert_int_eq(a->u.sysfs.err, b->u.sysfs.err);
		ck_assert_int_eq(a->u.sysfs.len, b->u.sysfs.len);
		ck_assert(!memcmp(a->u.sysfs.raw, b->u.sysfs.raw, a->u.sysfs.len));
		break;
	case FRC_DROPS:
		ck_assert(a->u.drops.cumulative == b->u.drops.cumulative);
		ck_assert_msg(a->u.drops.batch_anomalies == b->u.drops.batch_anomalies,
			      "record %zu: batch anomalies differ", i);
		ck_assert_msg(a->u.drops.bad_buffers == b->u.drops.bad_buffers,
			      "record %zu: bad buffers differ", i);
		break;
	case FRC_ATTACH:
		ck_assert_uint_eq(a->u.attach.pid, b->u.attach.pid);
		ck_assert_uint_eq(a->u.attach.len, b->u.attach.len);
		ck_assert_str_eq(a->u.attach.symbol, b->u.attach.symbol);
		break;
	case FRC_EXIT:
		ck_assert_uint_eq(a->u.exit.pid, b->u.exit.pid);
		break;
	case FRC_TICK:
		ck_assert_int_eq(a->u.tick.has_result, b->u.tick.has_result);
		ck_assert_uint_eq(a->u.tick.source, b->u.tick.source);
		ck_assert(a->u.tick.fps_micro == b->u.tick.fps_micro);
		break;
	case FRC_LAYER:
		ck_assert_uint_eq(a->u.layer.id, b->u.layer.id);
		ck_assert_int_eq(a->u.layer.gone, b->u.layer.gone);
		ck_assert_uint_eq(a->u.layer.len, b->u.layer.len);
		ck_assert_str_eq(a->u.layer.name, b->u.layer.name);
		break;
	case FRC_PRESENT:
		ck_assert_msg(a->u.present.layer == b->u.present.layer &&
				  a->u.present.desired == b->u.present.desired &&
				  a->u.present.actual == b->u.present.actual &&
				  a->u.present.ready == b->u.present.ready,
			      "record %zu: present differs", i);
		break;
	case FRC_VSYNC:
		ck_assert(a->u.vsync.period_ns == b->u.vsync.period_ns);
		break;
	case FRC_PRESENT_GAP:
		ck_assert(a->u.gap.layer == b->u.gap.layer && a->u.gap.before == b->u.gap.before &&
			  a->u.gap.after == b->u.gap.after);
		break;
	case FRC_POLL:
		ck_assert_uint_eq(a->u.poll.layer, b->u.poll.layer);
		break;
	case FRC_THREAD:
		ck_assert_uint_eq(a->u.thread.pid, b->u.thread.pid);
		ck_assert_uint_eq(a->u.thread.tid, b->u.thread.tid);
		ck_assert_uint_eq(a->u.thread.len, b->u.thread.len);
		ck_assert_str_eq(a->u.thread.name, b->u.thread.name);
		break;
	case FRC_BUFFER:
		ck_assert_msg(a->u.buffer.pid == b->u.buffer.pid &&
				  a->u.buffer.surface == b->u.buffer.surface &&
				  a->u.buffer.buffer == b->u.buffer.buffer &&
				  a->u.buffer.width == b->u.buffer.width &&
				  a->u.buffer.height == b->u.buffer.height &&
				  a->u.buffer.stride == b->u.buffer.stride &&
				  a->u.buffer.format == b->u.buffer.format &&
				  a->u.buffer.usage == b->u.buffer.usage,
			      "record %zu: buffer differs", i);
		break;
	case FRC_CONNECT:
		ck_assert_msg(a->u.connect.pid == b->u.connect.pid &&
				  a->u.connect.tid == b->u.connect.tid &&
				  a->u.connect.surface == b->u.connect.surface &&
				  a->u.connect.api == b->u.connect.api &&
				  a->u.connect.connected == b->u.connect.connected,
			      "record %zu: connect differs", i);
		break;
	}
}

/* Read every record; returns how many were delivered (up to max into out). */
static size_t read_all(frc_reader *r, struct frc_record *out, size_t max)
{
	struct frc_record rec;
	size_t n = 0;
	int ret;

	while ((ret = frc_reader_next(r, &rec)) > 0) {
		if (n < max)
			out[n] = rec;
		n++;
	}
	ck_assert_int_eq(ret, 0);
	return n;
}

static struct frc_record frame(uint64_t t, uint32_t pid, uint32_t tid, uint64_t buf)
{
	struct frc_record r = {.type = FRC_FRAME, .ktime_ns = t};

	r.u.frame.pid = pid;
	r.u.frame.tid = tid;
	r.u.frame.buffer = buf;
	return r;
}

static struct frc_record sysfs(uint64_t t, const char *raw, int err)
{
	struct frc_record r = {.type = FRC_SYSFS, .ktime_ns = t};

	r.u.sysfs.err = err;
	if (raw) {
		r.u.sysfs.len = (uint16_t)strlen(raw);
		memcpy(r.u.sysfs.raw, raw, r.u.sysfs.len);
	}
	return r;
}

static struct frc_record attach(uint64_t t, uint32_t pid, const char *sym)
{
	struct frc_record r = {.type = FRC_ATTACH, .ktime_ns = t};

	r.u.attach.pid = pid;
	r.u.attach.len = (uint16_t)strlen(sym);
	memcpy(r.u.attach.symbol, sym, r.u.attach.len + 1);
	return r;
}

static struct frc_record tick(uint64_t t, int has, uint8_t src, uint64_t fps)
{
	struct frc_record r = {.type = FRC_TICK, .ktime_ns = t};

	r.u.tick.has_result = has;
	r.u.tick.source = src;
	r.u.tick.fps_micro = fps;
	return r;
}

static struct frc_record simple(uint8_t type, uint64_t t, uint64_t v)
{
	struct frc_record r = {.type = type, .ktime_ns = t};

	if (type == FRC_DROPS)
		r.u.drops.cumulative = v;
	else
		r.u.exit.pid = (uint32_t)v;
	return r;
}

#define SYM_QB "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi"

/* A small mixed capture: 16 records in 4 chunks of 5, 3, 6, 2 records. */
static size_t sample(struct frc_record *r)
{
	size_t n = 0;

	r[n++] = attach(900000000, 4242, SYM_QB);
	r[n++] = frame(1000000000, 4242, 4301, 0xb400007a1c2e3000ull);
	r[n++] = frame(1016666667, 4242, 4301, 0xb400007a1c2e5000ull);
	r[n++] = frame(1033333334, 4242, 4302, 0xb400007a1c2e7000ull);
	r[n++] = sysfs(1040000000, "60\n", 0);
	r[n++] = frame(1050000001, 4242, 4301, 0xb400007a1c2e3000ull);
	r[n++] = frame(1050000002, 77, 78, 0x5555aaaa0000ull);
	r[n++] = tick(1100000000, 1, FRC_SOURCE_SYSFS, 60000000);
	r[n++] = sysfs(1200000000, NULL, 5);
	r[n++] = simple(FRC_DROPS, 1300000000, 12);
	r[n++] = frame(1300000001, 4242, 4301, 0xb400007a1c2e5000ull);
	r[n++] = frame(1300000002, 4242, 4301, 0xb400007a1c2e7000ull);
	r[n++] = tick(1400000000, 0, 0, 0);
	r[n++] = simple(FRC_EXIT, 1500000000, 77);
	r[n++] = tick(1600000000, 1, FRC_SOURCE_NONE, 0);
	r[n++] = tick(1700000000, 1, FRC_SOURCE_EBPF, 59999999);
	return n;
}

static const size_t sample_groups[] = {5, 3, 6, 2, 0};

/* Chunk end offsets found with libzstd, independent of the reader. */
static size_t chunk_ends(const struct capture *c, size_t *header_end, size_t *ends, size_t max)
{
	size_t off = 8 + frc_get_le32(c->p + 4), n = 0;

	*header_end = off;
	while (off + 8 <= c->len && frc_get_le32(c->p + off) == FRC_MAGIC_DESC) {
		size_t fsz;

		off += 8 + frc_get_le32(c->p + off + 4);
		fsz = ZSTD_findFrameCompressedSize(c->p + off, c->len - off);
		ck_assert(!ZSTD_isError(fsz));
		off += fsz;
		ck_assert_uint_lt(n, max);
		ends[n++] = off;
	}
	return n;
}

/* ------------------------------------------------------------ round trip */

START_TEST(roundtrip_all_types)
{
	struct frc_record in[32], out[32];
	size_t n = sample(in);
	struct capture c = write_capture(in, n, sample_groups, NULL, 1);
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	unsigned maj, min;

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	frc_reader_version(r, &maj, &min);
	ck_assert_uint_eq(maj, 1);
	ck_assert_uint_eq(min, 1);
	ck_assert_uint_eq(frc_reader_meta_count(r), 2);
	ck_assert_str_eq(frc_reader_meta(r, 0)->key, "recorder");
	ck_assert_str_eq(frc_reader_meta_get(r, "clock"), "CLOCK_MONOTONIC");
	ck_assert_ptr_null(frc_reader_meta_get(r, "kernel"));
	ck_assert_uint_eq(read_all(r, out, 32), 16);
	for (size_t i = 0; i < n; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_int_eq(st.index_used, 1);
	ck_assert_uint_eq(st.chunks, 4);
	ck_assert_uint_eq(st.records, 16);
	ck_assert_uint_eq(st.by_type[FRC_FRAME], 7);
	ck_assert_uint_eq(st.by_type[FRC_SYSFS], 2);
	ck_assert_uint_eq(st.by_type[FRC_DROPS], 1);
	ck_assert_uint_eq(st.by_type[FRC_ATTACH], 1);
	ck_assert_uint_eq(st.by_type[FRC_EXIT], 1);
	ck_assert_uint_eq(st.by_type[FRC_TICK], 4);
	ck_assert_uint_eq(st.unknown, 0);
	ck_assert(st.first_ktime_ns == 900000000 && st.last_ktime_ns == 1700000000);
	ck_assert_uint_eq(st.file_size, c.len);
	ck_assert_str_eq(frc_reader_error(r), "");
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

START_TEST(roundtrip_edge_values)
{
	struct frc_record in[24], out[24];
	char sym[FRC_SYMBOL_MAX + 1];
	uint8_t all[255];
	size_t n = 0;

	memset(sym, 'S', FRC_SYMBOL_MAX);
	sym[FRC_SYMBOL_MAX] = 0;
	for (int i = 0; i < 255; i++)
		all[i] = (uint8_t)(i + 1); /* every byte value but 0, and 0 below */
	all[100] = 0;
	in[n++] = frame(UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX);
	in[n++] = frame(0, 0, 0, 0);
	in[n++] = frame(UINT64_MAX, 1, 1, 1); /* a jump back of 2^64-1 and forward again */
	in[n++] = sysfs(UINT64_MAX, "", 0);   /* empty read */
	in[n++] = sysfs(1, NULL, INT32_MAX);  /* errno */
	in[n] = sysfs(2, NULL, 0);
	in[n].u.sysfs.len = 255;
	memcpy(in[n++].u.sysfs.raw, all, 255);
	in[n++] = attach(3, UINT32_MAX, sym); /* 255-byte symbol */
	in[n++] = attach(4, 0, "");
	in[n++] = simple(FRC_DROPS, 5, UINT64_MAX);
	in[n++] = simple(FRC_EXIT, 6, UINT32_MAX);
	in[n++] = tick(7, 1, FRC_SOURCE_EBPF, UINT64_MAX);
	in[n++] = tick(UINT64_MAX, 1, FRC_SOURCE_SYSFS, 0);

	/* One PID whose times jump across the whole u64 range (slot numbers overflow). */
	in[n++] = frame(1, 9, 9, 1);
	in[n++] = frame(1ull << 63, 9, 9, UINT64_MAX);
	in[n++] = frame(2, 9, 9, 1);
	in[n++] = frame(UINT64_MAX, 9, 9, 0);
	in[n++] = frame(3, 9, 9, 1);
	in[n++] = frame(4, 9, 9, 1);
	in[n++] = frame((1ull << 63) + 7, 9, 9, 1);
	in[n++] = frame(5, 9, 9, 1);

	struct capture c = write_capture(in, n, NULL, NULL, 1);
	frc_reader *r = NULL;

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 24), 20);
	for (size_t i = 0; i < n; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

static uint64_t prng = 0x1234567;

static uint64_t next_rand(void)
{
	prng ^= prng << 13;
	prng ^= prng >> 7;
	prng ^= prng << 17;
	return prng;
}

/*
 * Many frames of several PIDs with pauses, reallocated buffers, tid changes, a clock
 * jump back and ties: every frame comes back exactly, in order, through the columns.
 */
START_TEST(roundtrip_frame_columns)
{
	enum { N = 30000 };
	struct frc_record *in = malloc(N * sizeof(*in)), *out = malloc(N * sizeof(*out));
	uint64_t t[5] = {5000000000ull, 5000000001ull, 7000000000ull, 100, 1ull << 62};
	struct frc_writer_options opt = {.flush_ms = 700};
	frc_reader *r = NULL;

	for (size_t i = 0; i < N; i++) {
		uint64_t x = next_rand(), p = x % 5;

		t[p] += 8333333 + (x >> 8) % 400001 - 200000;
		if (x % 997 == 0)
			t[p] += 4000000000ull; /* a 4 s pause */
		if (x % 1499 == 0)
			t[p] -= 30000000; /* non-monotonic */
		in[i] = frame(t[p], 1000 + (uint32_t)p, 2000 + (uint32_t)(x >> 40) % 3,
			      0x7f0000000000ull + ((x >> 20) % (p == 4 ? 40 : 3)) * 0x1000 +
				  (i > N / 2 ? 0x100000 : 0));
	}
	struct capture c = write_capture(in, N, NULL, &opt, 1);

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, N), N);
	for (size_t i = 0; i < N; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_close(r);
	capture_free(&c);
	free(out);
	free(in);
}
END_TEST

/* ------------------------------------------------------------ chunking and writer rules */

START_TEST(writer_chunking)
{
	struct frc_record in[8];
	struct frc_writer_options opt = {.flush_ms = 100};
	size_t ends[8], hdr, n = 0;

	in[n++] = frame(0, 1, 1, 1);
	in[n++] = frame(50000000, 1, 1, 1);
	in[n++] = frame(99999999, 1, 1, 1);  /* still the first chunk */
	in[n++] = frame(100000000, 1, 1, 1); /* 100 ms after the first: new chunk */
	in[n++] = frame(20000000, 1, 1, 1);  /* earlier than the chunk's first: stays */
	in[n++] = frame(200000000, 1, 1, 1); /* new chunk */
	struct capture c = write_capture(in, n, NULL, &opt, 1);

	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 8), 3);
	capture_free(&c);
}
END_TEST

START_TEST(writer_rejects_invalid)
{
	static const struct frc_meta bad_key[] = {{"Bad Key", "x"}};
	static const struct frc_meta dup[] = {{"a", "1"}, {"a", "2"}};
	int fd = memfd_create("w", MFD_CLOEXEC);
	frc_writer *w = NULL;
	struct frc_record r;

	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "w.frc", bad_key, 1, NULL), FRC_EINVAL);
	ck_assert_ptr_nonnull(strstr(frc_writer_error(w), "Bad Key"));
	frc_writer_free(w);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "w.frc", dup, 2, NULL), FRC_EINVAL);
	frc_writer_free(w);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "w.frc", NULL, 0, NULL), 0);
	r = sysfs(1, NULL, 0);
	r.u.sysfs.len = 256;
	ck_assert_int_eq(frc_writer_append(w, &r), FRC_EINVAL);
	r = sysfs(1, NULL, 5);
	r.u.sysfs.len = 1; /* an errno and bytes */
	ck_assert_int_eq(frc_writer_append(w, &r), FRC_EINVAL);
	r = tick(1, 1, 3, 0);
	ck_assert_int_eq(frc_writer_append(w, &r), FRC_EINVAL);
	r = attach(1, 1, "abc");
	r.u.attach.len = 2; /* len disagrees with the string */
	ck_assert_int_eq(frc_writer_append(w, &r), FRC_EINVAL);
	r.type = 7;
	ck_assert_int_eq(frc_writer_append(w, &r), FRC_EINVAL);
	/* A rejected record leaves the writer usable. */
	r = frame(1, 1, 1, 1);
	ck_assert_int_eq(frc_writer_append(w, &r), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	close(fd);
}
END_TEST

/* A recorder killed mid-capture loses only its open chunk; the rest reads, "truncated". */
START_TEST(writer_killed_midway)
{
	char path[] = "/tmp/frc-kill-XXXXXX";
	int fd = mkstemp(path), status;
	struct frc_record out[32];
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		frc_writer *w = NULL;

		if (frc_writer_open_fd(&w, fd, path, NULL, 0, NULL))
			_exit(1);
		for (uint64_t i = 0; i < 13; i++) {
			struct frc_record rec = frame(1000 + i, 1, 1, 0x10);

			if (frc_writer_append(w, &rec))
				_exit(1);
			if (i == 9 && frc_writer_flush(w)) /* 10 records written, 3 stay open */
				_exit(1);
		}
		raise(SIGKILL);
		_exit(1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(frc_reader_open(&r, path), 0);
	ck_assert_uint_eq(read_all(r, out, 32), 10);
	ck_assert(out[9].ktime_ns == 1009);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_TRUNCATED);
	ck_assert_uint_eq(st.valid_end, st.file_size);
	frc_reader_close(r);
	close(fd);
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------ damage */

/*
 * Cut the capture at every byte offset: the reader delivers exactly the records of the
 * chunks wholly before the cut and says "truncated" (a cut inside the header fails open).
 */
START_TEST(truncation_every_offset)
{
	static const size_t cum[] = {0, 5, 8, 14, 16}; /* records before chunk end k */
	struct frc_record in[32], out[32];
	size_t n = sample(in), ends[8], hdr;
	struct capture c = write_capture(in, n, sample_groups, NULL, 1);
	char path[] = "/tmp/frc-cut-XXXXXX";
	int tfd = mkstemp(path);

	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 8), 4);
	ck_assert_int_ge(tfd, 0);
	for (size_t cut = 0; cut <= c.len; cut++) {
		struct frc_reader_stats st;
		frc_reader *r = NULL;
		size_t whole = 0, got;
		int ret, via_file = cut % 7 == 0;

		if (via_file) {
			ck_assert_int_eq(ftruncate(tfd, 0), 0);
			ck_assert_int_eq(pwrite(tfd, c.p, cut, 0), (ssize_t)cut);
			ret = frc_reader_open(&r, path);
		} else {
			ret = frc_reader_open_mem(&r, c.p, cut, "cut.frc");
		}
		if (cut < hdr) {
			ck_assert_msg(ret == FRC_ETRUNCATED, "cut %zu: open %d", cut, ret);
			ck_assert_ptr_nonnull(strstr(frc_reader_error(r), "truncated"));
			frc_reader_close(r);
			continue;
		}
		ck_assert_msg(ret == 0, "cut %zu: %s", cut, frc_reader_error(r));
		while (whole < 4 && ends[whole] <= cut)
			whole++;
		got = read_all(r, out, 32);
		ck_assert_msg(got == cum[whole], "cut %zu: %zu records, expected %zu", cut, got,
			      cum[whole]);
		for (size_t i = 0; i < got; i++)
			rec_assert_eq(&in[i], &out[i], i);
		frc_reader_stats(r, &st);
		if (cut == c.len) {
			ck_assert_int_eq(st.status, FRC_STATUS_COMPLETE);
		} else {
			ck_assert_msg(st.status == FRC_STATUS_TRUNCATED, "cut %zu: %s", cut,
				      frc_status_name(st.status));
			ck_assert_uint_eq(st.valid_end, whole ? ends[whole - 1] : hdr);
			ck_assert_ptr_nonnull(strstr(frc_reader_error(r), "truncated"));
			ck_assert_ptr_nonnull(strstr(frc_reader_error(r), ": offset "));
		}
		frc_reader_close(r);
	}
	close(tfd);
	unlink(path);
	capture_free(&c);
}
END_TEST

/*
 * Which chunk (bounds cum[0..n]) is missing from out[0..got): n when none. Every other
 * record must be the input's, unchanged and in order (the sizes in cum differ, so got
 * names the chunk).
 */
static size_t missing_chunk(const struct frc_record *in, const struct frc_record *out, size_t got,
			    const size_t *cum, size_t n)
{
	size_t k = n;

	for (size_t j = 0; j < n; j++)
		if (got == cum[n] - (cum[j + 1] - cum[j]))
			k = j;
	ck_assert_msg(got == cum[n] || k < n, "%zu records: not the input less one chunk", got);
	for (size_t i = 0, o = 0; i < cum[n]; i++)
		if (k == n || i < cum[k] || i >= cum[k + 1])
			rec_assert_eq(&in[i], &out[o++], i);
	return k;
}

/*
 * What the reader says it skipped when chunk k (bounds cum) is missing: with the index,
 * exactly that chunk, its records and its time range; without one, the chunk numbers on
 * both sides tell one chunk (none after the last: "at least"), its records are known when
 * its descriptor checked, and its time lies between the records around it.
 */
static void assert_lost(const struct frc_reader_stats *st, const struct frc_record *in,
			const size_t *cum, size_t n, size_t k, int index, size_t off)
{
	const struct frc_reader_loss *l = &st->lost;
	uint64_t size = cum[k + 1] - cum[k];

	ck_assert_msg(l->regions == 1, "flip at %zu: %llu regions", off,
		      (unsigned long long)l->regions);
	ck_assert_msg(l->records == 0 || l->records == size, "flip at %zu", off);
	if (index || k + 1 < n) {
		ck_assert_msg(l->chunks == 1 && l->chunks_exact, "flip at %zu: chunks", off);
	} else {
		ck_assert_msg(l->chunks <= 1 && !l->chunks_exact && !l->records_exact,
			      "flip at %zu: chunks", off);
	}
	if (index) {
		ck_assert_msg(l->records_exact && l->records == size, "flip at %zu: records", off);
		ck_assert_int_eq(l->time, FRC_LOSS_TIME_EXACT);
		ck_assert_uint_eq(l->min_ktime_ns, in[cum[k]].ktime_ns);
		ck_assert_uint_eq(l->max_ktime_ns, in[cum[k + 1] - 1].ktime_ns);
		return;
	}
	ck_assert_msg(!l->records_exact || l->records == size, "flip at %zu: records", off);
	ck_assert_int_eq(l->time, FRC_LOSS_TIME_BOUNDS);
	ck_assert_uint_eq(l->min_ktime_ns, k ? in[cum[k] - 1].ktime_ns : 0);
	ck_assert_uint_eq(l->max_ktime_ns, k + 1 < n ? in[cum[k + 1]].ktime_ns : UINT64_MAX);
}

/*
 * Flip bits of every byte of c (two patterns): the damage is always reported (open fails,
 * or the status is recovered, or truncated with what was skipped), never a crash. The
 * reader resumes at the next intact chunk (FORMAT.md 7, step 6): every record but those of
 * the one damaged chunk is delivered, unchanged, and the loss is stated.
 */
static void flip_every_offset(const struct capture *c, const struct frc_record *in, size_t footer)
{
	static const size_t cum[] = {0, 5, 8, 14, 16};
	static const uint8_t pattern[] = {0x01, 0xFF};
	struct frc_record out[32];
	uint8_t *bad = malloc(c->len);

	for (size_t pi = 0; pi < sizeof(pattern); pi++) {
		for (size_t off = 0; off < c->len; off++) {
			struct frc_reader_stats st;
			frc_reader *r = NULL;
			size_t got, k;
			int ret;

			memcpy(bad, c->p, c->len);
			bad[off] ^= pattern[pi];
			ret = frc_reader_open_mem(&r, bad, c->len, "flip.frc");
			if (ret) {
				ck_assert_msg(ret == FRC_ECORRUPT || ret == FRC_ENOTCAPTURE ||
						  ret == FRC_ETRUNCATED || ret == FRC_EVERSION,
					      "flip at %zu: open %d", off, ret);
				ck_assert_msg(strlen(frc_reader_error(r)) > 0, "flip at %zu", off);
				frc_reader_close(r);
				continue;
			}
			got = read_all(r, out, 32);
			frc_reader_stats(r, &st);
			k = missing_chunk(in, out, got, cum, 4);
			/*
			 * A finished file (it ends in the footer) is read to its end whatever byte
			 * of it flips: recovered, never "truncated" (issue 11, point 6; issue 18,
			 * point 6). Without a footer an intact file is "truncated" anyway.
			 */
			ck_assert_msg(st.status ==
					  (footer ? FRC_STATUS_RECOVERED : FRC_STATUS_TRUNCATED),
				      "flip 0x%02x at %zu: %s, %zu records", pattern[pi], off,
				      frc_status_name(st.status), got);
			ck_assert_msg(strstr(frc_reader_error(r), "flip.frc: offset "), "%s",
				      frc_reader_error(r));
			if (footer && off >= c->len - footer) {
				/* A damaged footer costs only the index: the chunks are intact. */
				ck_assert_msg(got == 16 && st.lost.index_lost && !st.lost.regions,
					      "flip in the footer at %zu: %zu records", off, got);
			} else {
				/* Every other byte belongs to a chunk: that one chunk is lost. */
				ck_assert_msg(k < 4, "flip at %zu: no record lost", off);
				assert_lost(&st, in, cum, 4, k, footer != 0, off);
				ck_assert_msg(strstr(frc_reader_error(r), "lost "), "%s",
					      frc_reader_error(r));
			}
			frc_reader_close(r);
		}
	}
	free(bad);
}

/* With a footer (the index path) and without one (the linear scan of a killed recorder). */
START_TEST(byte_flip_every_offset)
{
	struct frc_record in[32];
	size_t n = sample(in);
	struct capture c = write_capture(in, n, sample_groups, NULL, 1);
	struct capture d = write_capture(in, n, sample_groups, NULL, 0);

	ck_assert_uint_gt(c.len, d.len);
	flip_every_offset(&c, in, c.len - d.len); /* the footer's size */
	flip_every_offset(&d, in, 0);
	capture_free(&c);
	capture_free(&d);
}
END_TEST

/*
 * One chunk rebuilt with a descriptor whose CRCs are right but whose fields lie: every
 * field is checked against the data, and nothing is allocated from an unchecked size.
 */
static struct capture with_descriptor(const struct capture *c, uint64_t seq, uint64_t csize,
				      uint64_t rsize, uint64_t nrec)
{
	size_t hdr = 8 + frc_get_le32(c->p + 4);
	size_t frame_at = hdr + 8 + frc_get_le32(c->p + hdr + 4);
	size_t flen = ZSTD_findFrameCompressedSize(c->p + frame_at, c->len - frame_at);
	struct frc_buf d = {0}, f = {0};
	struct capture out;

	frc_buf_varint(&d, seq);
	frc_buf_varint(&d, csize);
	frc_buf_varint(&d, rsize);
	frc_buf_varint(&d, nrec);
	frc_buf_le32(&d, frc_crc32c(0, c->p + frame_at, flen));
	/* FORMAT.md 4.1: the CRC continues from the header's CRC (the recording id). */
	frc_buf_le32(&d, frc_crc32c(frc_crc32c(0, c->p + hdr - 4, 4), d.p, d.len));
	frc_buf_put(&f, c->p, hdr);
	frc_buf_le32(&f, FRC_MAGIC_DESC);
	frc_buf_le32(&f, (uint32_t)d.len);
	frc_buf_put(&f, d.p, d.len);
	frc_buf_put(&f, c->p + frame_at, flen);
	frc_buf_free(&d);
	out.p = f.p;
	out.len = f.len;
	return out;
}

static void expect_damage(const struct capture *c, enum frc_status status, const char *what)
{
	struct frc_record out[8];
	struct frc_reader_stats st;
	frc_reader *r = NULL;

	ck_assert_int_eq(frc_reader_open_mem(&r, c->p, c->len, "d.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 8), 0);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_reader_error(r), what);
	ck_assert_str_eq(frc_status_name(st.status), frc_status_name(status));
	frc_reader_close(r);
}

START_TEST(reader_hostile_descriptors)
{
	/* drops 5 7, exit 6 42: an 8-byte body. */
	struct frc_record in[2] = {simple(FRC_DROPS, 5, 7), simple(FRC_EXIT, 6, 42)};
	struct capture c = write_capture(in, 2, NULL, NULL, 0), d;
	size_t hdr = 8 + frc_get_le32(c.p + 4);
	size_t frame_at = hdr + 8 + frc_get_le32(c.p + hdr + 4);
	uint64_t csize = ZSTD_findFrameCompressedSize(c.p + frame_at, c.len - frame_at);
	char want[400];

	ck_assert_uint_eq(hdr, 64); /* 8 + FRCP, 1.0, n, 2 pairs (21 + 22 bytes), CRC */
	/* The honest descriptor reads. */
	d = with_descriptor(&c, 0, csize, 8, 2);
	ck_assert_uint_eq(d.len, c.len);
	ck_assert(!memcmp(d.p, c.p, c.len));
	capture_free(&d);

	d = with_descriptor(&c, 0, csize, (64u << 20) + 1, 2);
	snprintf(
	    want, sizeof(want),
	    "d.frc: offset 64: corrupt: chunk 0: implausible sizes (%llu compressed, 67108865 raw)",
	    (unsigned long long)csize);
	expect_damage(&d, FRC_STATUS_CORRUPT, want);
	capture_free(&d);

	d = with_descriptor(&c, 0, csize, 9, 2);
	snprintf(want, sizeof(want),
		 "d.frc: offset %zu: corrupt: chunk 0: zstd frame disagrees with its descriptor",
		 d.len - (size_t)csize);
	expect_damage(&d, FRC_STATUS_CORRUPT, want);
	capture_free(&d);

	/* A number from the past is no chunk of this place; nothing else is read: corrupt. */
	d = with_descriptor(&c, UINT64_MAX / 2, csize, 8, 2);
	snprintf(want, sizeof(want),
		 "d.frc: offset 64: corrupt: chunk 0: descriptor says chunk %llu",
		 (unsigned long long)(UINT64_MAX / 2));
	expect_damage(&d, FRC_STATUS_CORRUPT, want);
	capture_free(&d);
	/* A later number: chunks 0..4 are missing, this one is read (recovery, FORMAT.md 7). */
	d = with_descriptor(&c, 5, csize, 8, 2);
	{
		struct frc_reader_stats st;
		frc_reader *r = NULL;

		ck_assert_int_eq(frc_reader_open_mem(&r, d.p, d.len, "d.frc"), 0);
		ck_assert_uint_eq(read_all(r, NULL, 0), 2);
		frc_reader_stats(r, &st);
		ck_assert_int_eq(st.status, FRC_STATUS_TRUNCATED); /* and no footer */
		ck_assert_uint_eq(st.lost.chunks, 5);
		ck_assert(st.lost.chunks_exact && !st.lost.records_exact);
		ck_assert_uint_eq(st.lost.bytes, 0);
		ck_assert_int_eq(st.lost.time, FRC_LOSS_TIME_BOUNDS);
		ck_assert_uint_eq(st.lost.max_ktime_ns, 5); /* before the drops record at 5 ns */
		snprintf(
		    want, sizeof(want),
		    "d.frc: offset %zu: truncated: no footer/index (the recorder did not "
		    "finish); damage skipped: offset 64: chunk 0: missing (the next one is "
		    "chunk 5); lost 5 chunks (records unknown; before ktime 5 ns) in 1 damaged "
		    "stretch of 0 bytes",
		    d.len);
		ck_assert_str_eq(frc_reader_error(r), want);
		frc_reader_close(r);
	}
	capture_free(&d);

	d = with_descriptor(&c, 0, csize, 8, 3);
	expect_damage(&d, FRC_STATUS_CORRUPT,
		      "d.frc: offset 64: corrupt: chunk 0: 2 records, descriptor says 3");
	capture_free(&d);

	/* A compressed size past the end of the file: the cut-file case, no allocation. */
	d = with_descriptor(&c, 0, 100000, 1u << 20, 2);
	snprintf(want, sizeof(want),
		 "d.frc: offset 64: truncated: chunk needs 100024 bytes, only %zu remain",
		 d.len - 64);
	expect_damage(&d, FRC_STATUS_TRUNCATED, want);
	capture_free(&d);
	capture_free(&c);
}
END_TEST

/*
 * A footer with a valid CRC that describes other chunks: the chunk that disagrees with its
 * entry is skipped as damage, the others are read, and the entry says what was lost.
 */
START_TEST(reader_index_disagrees)
{
	struct frc_record a[32], b[32], out[32];
	size_t n = sample(a), ends[8], hdr;
	struct capture ca, cb;
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	char want[400];

	sample(b);
	b[15].ktime_ns++; /* the last chunk's max ktime differs by 1 ns */
	ca = write_capture(a, n, sample_groups, NULL, 1);
	cb = write_capture(b, n, sample_groups, NULL, 1);
	ck_assert_uint_eq(ca.len, cb.len);
	ck_assert_uint_eq(chunk_ends(&ca, &hdr, ends, 8), 4);
	/* a's chunks, b's footer. */
	memcpy(ca.p + ends[3], cb.p + ends[3], ca.len - ends[3]);
	ck_assert_int_eq(frc_reader_open_mem(&r, ca.p, ca.len, "d.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 32), 14);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_RECOVERED);
	ck_assert_int_eq(st.index_used, 1);
	ck_assert_uint_eq(st.damage_offset, ends[2]);
	ck_assert_uint_eq(st.valid_end, ca.len);
	ck_assert_uint_eq(st.chunks, 3);
	/* b's entry of chunk 3: 2 records (two ticks, no frame), 1600000000 .. 1700000001 */
	snprintf(want, sizeof(want),
		 "d.frc: offset %zu: recovered: chunk 3: the index disagrees with it; lost 1 "
		 "chunk (2 records, 0 frames; ktime 1600000000 .. 1700000001 ns) in 1 damaged "
		 "stretch of %zu bytes",
		 ends[2], ends[3] - ends[2]);
	ck_assert_str_eq(frc_reader_error(r), want);
	frc_reader_close(r);
	capture_free(&ca);
	capture_free(&cb);
}
END_TEST

START_TEST(not_a_capture_and_version)
{
	static const uint8_t junk[] = "hello, world\n";
	struct frc_record in[32];
	size_t n = sample(in);
	struct capture c = write_capture(in, n, NULL, NULL, 1);
	uint32_t size = frc_get_le32(c.p + 4);
	frc_reader *r = NULL;
	unsigned maj, min;

	ck_assert_int_eq(frc_reader_open_mem(&r, junk, sizeof(junk) - 1, "junk"), FRC_ENOTCAPTURE);
	ck_assert_str_eq(frc_reader_error(r),
			 "junk: offset 0: not an .frc capture (no header frame)");
	frc_reader_close(r);
	ck_assert_int_eq(frc_reader_open(&r, "/nonexistent/x.frc"), FRC_EIO);
	ck_assert_str_eq(frc_reader_error(r), "/nonexistent/x.frc: No such file or directory");
	frc_reader_close(r);
	/* A later minor version is read; a later major one is refused. */
	c.p[8 + 6] = 7;
	frc_put_le32(c.p + 8 + size - 4, frc_crc32c(0, c.p + 8, size - 4));
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "v.frc"), 0);
	frc_reader_version(r, &maj, &min);
	ck_assert_uint_eq(maj, 1);
	ck_assert_uint_eq(min, 7);
	frc_reader_close(r);
	c.p[8 + 4] = 2;
	frc_put_le32(c.p + 8 + size - 4, frc_crc32c(0, c.p + 8, size - 4));
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "v.frc"), FRC_EVERSION);
	ck_assert_str_eq(frc_reader_error(r),
			 "v.frc: offset 12: format version 2.7; this reader knows 1.x");
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

/* ------------------------------------------------------------ forward compatibility */

START_TEST(unknown_types_skipped)
{
	static const uint8_t future[] = {1, 2, 3, 4};
	static const uint8_t skippable[] = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'};
	struct frc_record out[8], r1 = frame(10, 1, 2, 3), r2 = simple(FRC_EXIT, 11, 1);
	int fd = memfd_create("u", MFD_CLOEXEC);
	struct frc_reader_stats st;
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct capture c, d;
	size_t hdr, ends[4];

	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "u.frc", NULL, 0, NULL), 0);
	ck_assert_int_eq(frc_writer_append(w, &r1), 0);
	ck_assert_int_eq(frc_writer_append_raw_entry(w, 99, future, sizeof(future)), 0);
	ck_assert_int_eq(frc_writer_append_raw_entry(w, 0, NULL, 0), 0);
	ck_assert_int_eq(frc_writer_append(w, &r2), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "u.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 8), 2);
	rec_assert_eq(&r1, &out[0], 0);
	rec_assert_eq(&r2, &out[1], 1);
	frc_reader_stats(r, &st);
	ck_assert_uint_eq(st.unknown, 2);
	ck_assert_uint_eq(st.records, 2);
	ck_assert_int_eq(st.status, FRC_STATUS_COMPLETE);
	frc_reader_close(r);

	/* An unknown skippable frame after the chunk (footer dropped: a linear scan). */
	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 4), 1);
	d.len = ends[0] + sizeof(skippable);
	d.p = malloc(d.len);
	memcpy(d.p, c.p, ends[0]);
	memcpy(d.p + ends[0], skippable, sizeof(skippable));
	ck_assert_int_eq(frc_reader_open_mem(&r, d.p, d.len, "s.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 8), 2);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_TRUNCATED);
	ck_assert_uint_eq(st.valid_end, d.len);
	ck_assert_int_eq(st.index_used, 0);
	frc_reader_close(r);
	capture_free(&d);
	capture_free(&c);
}
END_TEST

/*
 * A chunk whose CRCs check but whose body does not (a malformed frame run after 50 good
 * records, written through the test hook) is rejected whole, and stays rejected: calling
 * frc_reader_next again after it returned 0 delivers none of its records. (The reader
 * once handed the rejected body to the next call, which then walked it.) The chunk before
 * it is read: recovered, with the lost chunk's 51 records from the index.
 */
START_TEST(reader_end_is_final)
{
	static const uint8_t bad_run[] = {0x03, 0x01, 0xff, 0xff, 0xff, 0x01};
	struct frc_record out[64], first = simple(FRC_DROPS, 5, 1);
	int fd = memfd_create("e", MFD_CLOEXEC);
	struct frc_reader_stats st;
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct capture c;

	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "e.frc", NULL, 0, NULL), 0);
	ck_assert_int_eq(frc_writer_append(w, &first), 0);
	ck_assert_int_eq(frc_writer_flush(w), 0);
	for (uint64_t i = 0; i < 50; i++) {
		struct frc_record d = simple(FRC_DROPS, 10 + i, i);

		ck_assert_int_eq(frc_writer_append(w, &d), 0);
	}
	ck_assert_int_eq(frc_writer_append_raw_entry(w, FRC_FRAME, bad_run, sizeof(bad_run)), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "e.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 64), 1);
	rec_assert_eq(&first, &out[0], 0);
	for (int again = 0; again < 3; again++)
		ck_assert_uint_eq(read_all(r, out, 64), 0);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_RECOVERED);
	ck_assert_uint_eq(st.records, 1);
	ck_assert_uint_eq(st.chunks, 1);
	ck_assert_uint_eq(st.lost.chunks, 1);
	ck_assert_uint_eq(st.lost.records, 51);
	ck_assert_msg(strstr(frc_reader_error(r), ": recovered: chunk 1: malformed frame run"),
		      "%s", frc_reader_error(r));
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

/* ------------------------------------------------------------ recovery (issue 18, point 6) */

#define SIX 6
#define PER 60 /* frames per chunk: one second at 60 Hz */

/* 360 frames in 6 one-second chunks; finished (footer and index) or not. */
static struct capture six_chunks(struct frc_record *in, int finish, size_t *hdr, size_t *ends)
{
	static const size_t groups[] = {PER, PER, PER, PER, PER, PER, 0};
	struct capture c;

	for (size_t i = 0; i < SIX * PER; i++)
		in[i] =
		    frame(1000000000ull + i * 16666667ull, 4242, 4301, 0x7000 + 0x100 * (i % 3));
	c = write_capture(in, SIX * PER, groups, NULL, finish);
	ck_assert_uint_eq(chunk_ends(&c, hdr, ends, SIX + 1), SIX);
	return c;
}

/* Read c with byte at flipped; out gets every record; the stats and message are returned. */
static size_t read_flipped(const struct capture *c, size_t at, struct frc_record *out,
			   struct frc_reader_stats *st, char *msg, size_t len)
{
	uint8_t *bad = malloc(c->len);
	frc_reader *r = NULL;
	size_t got;

	memcpy(bad, c->p, c->len);
	bad[at] ^= 0x20;
	ck_assert_int_eq(frc_reader_open_mem(&r, bad, c->len, "six.frc"), 0);
	got = read_all(r, out, SIX * PER);
	frc_reader_stats(r, st);
	snprintf(msg, len, "%s", frc_reader_error(r));
	frc_reader_close(r);
	free(bad);
	return got;
}

/*
 * One flipped byte in the footer, or in the index it holds (its entries: under the same
 * CRC), costs the index only: every chunk is found by the scan and read, and the status
 * says recovered (today's main said "corrupt", and the analyzer refused the capture).
 */
START_TEST(recover_damaged_footer_or_index)
{
	struct frc_record in[SIX * PER], out[SIX * PER];
	size_t hdr, ends[SIX + 1];
	struct capture c = six_chunks(in, 1, &hdr, ends);
	/* the footer tag FRCI, an index entry (after it, n_chunks and n_fields), the CRC */
	const size_t at[] = {ends[5] + 9, ends[5] + 8 + 4 + 2 + 3, c.len - 12};
	struct frc_reader_stats st;
	char msg[FRC_MSG_MAX], want[200];

	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		ck_assert_uint_eq(read_flipped(&c, at[k], out, &st, msg, sizeof(msg)), SIX * PER);
		for (size_t i = 0; i < SIX * PER; i++)
			rec_assert_eq(&in[i], &out[i], i);
		ck_assert_msg(st.status == FRC_STATUS_RECOVERED, "flip at %zu: %s", at[k],
			      frc_status_name(st.status));
		ck_assert_int_eq(st.index_used, 0);
		ck_assert_uint_eq(st.chunks, SIX);
		ck_assert(st.lost.index_lost && !st.lost.regions && !st.lost.chunks);
		ck_assert_uint_eq(st.damage_offset, ends[5]);
		snprintf(want, sizeof(want),
			 "six.frc: offset %zu: recovered: the footer/index is damaged; every chunk "
			 "was found by a scan, none damaged",
			 ends[5]);
		ck_assert_str_eq(msg, want);
	}
	capture_free(&c);
}
END_TEST

/*
 * One flipped byte in chunk 0 of a 6-chunk capture (its descriptor, or its compressed data):
 * chunks 1..5 are read (today's main stopped at chunk 0 and delivered nothing), and the loss
 * is stated: with the index, exactly chunk 0, its 60 records and frames and its time range.
 */
START_TEST(recover_damaged_chunk0_indexed)
{
	struct frc_record in[SIX * PER], out[SIX * PER];
	size_t hdr, ends[SIX + 1];
	struct capture c = six_chunks(in, 1, &hdr, ends);
	const size_t at[] = {hdr + 9, hdr + 14, (hdr + ends[0]) / 2, ends[0] - 2};
	struct frc_reader_stats st;
	char msg[FRC_MSG_MAX], want[300];

	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		ck_assert_uint_eq(read_flipped(&c, at[k], out, &st, msg, sizeof(msg)),
				  (SIX - 1) * PER);
		for (size_t i = 0; i < (SIX - 1) * PER; i++)
			rec_assert_eq(&in[PER + i], &out[i], PER + i);
		ck_assert_msg(st.status == FRC_STATUS_RECOVERED, "flip at %zu: %s", at[k],
			      frc_status_name(st.status));
		ck_assert_int_eq(st.index_used, 1);
		ck_assert_uint_eq(st.chunks, SIX - 1);
		ck_assert_uint_eq(st.lost.regions, 1);
		ck_assert_uint_eq(st.lost.bytes, ends[0] - hdr);
		ck_assert(st.lost.chunks == 1 && st.lost.chunks_exact);
		ck_assert(st.lost.records == PER && st.lost.records_exact);
		ck_assert(st.lost.frames == PER && st.lost.frames_known);
		ck_assert_int_eq(st.lost.time, FRC_LOSS_TIME_EXACT);
		ck_assert_uint_eq(st.lost.min_ktime_ns, in[0].ktime_ns);
		ck_assert_uint_eq(st.lost.max_ktime_ns, in[PER - 1].ktime_ns);
		snprintf(want, sizeof(want),
			 "; lost 1 chunk (60 records, 60 frames; ktime 1000000000 .. 1983333353 "
			 "ns) in 1 damaged stretch of %zu bytes",
			 ends[0] - hdr);
		ck_assert_msg(strstr(msg, ": recovered: chunk 0: ") && strstr(msg, want), "%s",
			      msg);
	}
	capture_free(&c);
}
END_TEST

/*
 * The same in a capture the recorder did not finish (no index): chunks 1..5 are read, the
 * chunk numbers say one chunk is lost, its descriptor (intact when the data is hit) its 60
 * records, and its time lies before the first record read after it.
 */
START_TEST(recover_damaged_chunk0_unindexed)
{
	struct frc_record in[SIX * PER], out[SIX * PER];
	size_t hdr, ends[SIX + 1];
	struct capture c = six_chunks(in, 0, &hdr, ends);
	struct frc_reader_stats st;
	char msg[FRC_MSG_MAX], want[300];

	ck_assert_uint_eq(read_flipped(&c, (hdr + ends[0]) / 2, out, &st, msg, sizeof(msg)),
			  (SIX - 1) * PER);
	for (size_t i = 0; i < (SIX - 1) * PER; i++)
		rec_assert_eq(&in[PER + i], &out[i], PER + i);
	ck_assert_int_eq(st.status, FRC_STATUS_TRUNCATED); /* no footer: not finished */
	ck_assert_uint_eq(st.chunks, SIX - 1);
	ck_assert(st.lost.chunks == 1 && st.lost.chunks_exact);
	ck_assert(st.lost.records == PER && st.lost.records_exact && !st.lost.frames_known);
	ck_assert_int_eq(st.lost.time, FRC_LOSS_TIME_BOUNDS);
	ck_assert_uint_eq(st.lost.min_ktime_ns, 0);
	ck_assert_uint_eq(st.lost.max_ktime_ns, in[PER].ktime_ns);
	snprintf(want, sizeof(want),
		 "damage skipped: offset %zu: chunk 0: data checksum mismatch; lost 1 chunk (60 "
		 "records; before ktime 2000000020 ns) in 1 damaged stretch of %zu bytes",
		 hdr + 8 + frc_get_le32(c.p + hdr + 4), ends[0] - hdr);
	ck_assert_msg(strstr(msg, "truncated: no footer/index") && strstr(msg, want), "%s", msg);
	capture_free(&c);
}
END_TEST

/*
 * Two damaged chunks, 1 and 4, of a finished capture: two stretches, both chunks' records
 * and the hull of their time ranges; chunks 0, 2, 3, 5 are read, in order.
 */
START_TEST(recover_two_damaged_chunks)
{
	struct frc_record in[SIX * PER], out[SIX * PER];
	size_t hdr, ends[SIX + 1];
	struct capture c = six_chunks(in, 1, &hdr, ends);
	frc_reader *r = NULL;
	struct frc_reader_stats st;
	static const size_t keep[] = {0, 2, 3, 5};

	c.p[(ends[0] + ends[1]) / 2] ^= 1;
	c.p[(ends[3] + ends[4]) / 2] ^= 1;
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "two.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, SIX * PER), 4 * PER);
	for (size_t k = 0; k < 4; k++)
		for (size_t i = 0; i < PER; i++)
			rec_assert_eq(&in[keep[k] * PER + i], &out[k * PER + i], keep[k] * PER + i);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_RECOVERED);
	ck_assert_uint_eq(st.lost.regions, 2);
	ck_assert_uint_eq(st.lost.chunks, 2);
	ck_assert_uint_eq(st.lost.records, 2 * PER);
	ck_assert_uint_eq(st.lost.bytes, (ends[1] - ends[0]) + (ends[4] - ends[3]));
	ck_assert_uint_eq(st.lost.min_ktime_ns, in[PER].ktime_ns);
	ck_assert_uint_eq(st.lost.max_ktime_ns, in[5 * PER - 1].ktime_ns);
	ck_assert_msg(strstr(frc_reader_error(r), "lost 2 chunks (120 records, 120 frames; "), "%s",
		      frc_reader_error(r));
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

/* ------------------------------------------------------------ zstd CLI and determinism */

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_zstd(void)
{
	return run("zstd --version >/dev/null 2>&1") == 0;
}

/*
 * The chunk bodies of this capture, written out by hand from FORMAT.md:
 *   chunk 0: drops 5 7 -> 03 02 05 07; exit 6 42 -> 05 02 06 2a
 *   chunk 1: frame 1000 1 2 0x10 -> 01 0b | n=01 npids=01 pid=01 m=01 base=e8 07
 *            ndict=01 buf=10 nruns=01 tid=02 len=01
 *            tick 2000 60.5 sysfs -> 06 07 d0 0f 01 a0 d0 ec 1c
 */
static const uint8_t tiny_stream[] = {0x03, 0x02, 0x05, 0x07, 0x05, 0x02, 0x06, 0x2a, 0x01, 0x0b,
				      0x01, 0x01, 0x01, 0x01, 0xe8, 0x07, 0x01, 0x10, 0x01, 0x02,
				      0x01, 0x06, 0x07, 0xd0, 0x0f, 0x01, 0xa0, 0xd0, 0xec, 0x1c};

START_TEST(zstd_cli_interop)
{
	struct frc_record in[4] = {simple(FRC_DROPS, 5, 7), simple(FRC_EXIT, 6, 42),
				   frame(1000, 1, 2, 0x10),
				   tick(2000, 1, FRC_SOURCE_SYSFS, 60500000)};
	static const size_t groups[] = {2, 2, 0};
	char dir[] = "/tmp/frc-zstd-XXXXXX", cmd[1024], path[64], outp[64];
	struct capture c = write_capture(in, 4, groups, NULL, 1);
	struct capture big;
	struct frc_record many[32];
	FILE *f;
	uint8_t got[4096];
	size_t n;

	if (!have_zstd()) {
		fprintf(stderr, "SKIP: no zstd CLI\n");
		exit(77);
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.frc", dir);
	snprintf(outp, sizeof(outp), "%s/t.out", dir);
	f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(c.p, 1, c.len, f), c.len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "zstd -q -t '%s'", path);
	ck_assert_int_eq(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "zstd -q -dc '%s' > '%s'", path, outp);
	ck_assert_int_eq(run(cmd), 0);
	f = fopen(outp, "rb");
	n = fread(got, 1, sizeof(got), f);
	fclose(f);
	ck_assert_uint_eq(n, sizeof(tiny_stream));
	ck_assert(!memcmp(got, tiny_stream, n));

	/* The larger sample (4 chunks, footer) passes zstd -t too. */
	big = write_capture(many, sample(many), sample_groups, NULL, 1);
	f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(big.p, 1, big.len, f), big.len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "zstd -q -t '%s'", path);
	ck_assert_int_eq(run(cmd), 0);
	/* A cut capture is an incomplete zstd stream only when cut inside a frame. */
	snprintf(cmd, sizeof(cmd), "head -c %zu '%s' > '%s.cut' && zstd -q -t '%s.cut' 2>/dev/null",
		 big.len / 2, path, path, path);
	ck_assert_int_ne(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(run(cmd), 0);
	capture_free(&big);
	capture_free(&c);
}
END_TEST

/*
 * The fixed records of the determinism capture (format.determinism): every record type,
 * two PIDs (one queueing to two Surfaces, one with buffers out of rotation), 60 Hz frames
 * with jitter from a fixed-seed generator, janks, a step back in time, in several chunks
 * (an explicit flush, the writer's 1 s rule).
 */
#define DET_MAX 1600
/* The size of tests/format/determinism_v1_1.frc, as written (FORMAT.md 6: libzstd 1.5.4). */
#define DET_EXPECTED_LEN 12548

static size_t determinism_records(struct frc_record *r)
{
	uint64_t x = 0x5EED2026u, t = 5000000000ull;
	size_t n = 0;

	r[n++] = attach(t - 1000, 4242, SYM_QB);
	for (uint64_t i = 0; n < DET_MAX - 8; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t += 16466667 + (x >> 33) % 400001 + (i % 97 == 0 ? 50000000 : 0);
		r[n] = frame(i == 400 ? t - 3000000 : t, 4242, 4301 + (i % 7 == 0),
			     0xb400007a1c2e3000ull + i % 3 * 0x2000);
		r[n++].u.frame.surface = i % 6 == 5 ? 0xb400007a0c002000ull : 0xb400007a0c001000ull;
		if (i % 5 == 0)
			r[n++] = frame(t + 1234, 77, 78, 0x5555aaaa0000ull + (x >> 60) * 0x1000);
		if (i % 60 == 59)
			r[n++] = tick(t + 5, 1, FRC_SOURCE_EBPF, 59000000 + (x >> 40) % 2000000);
		if (i % 120 == 7)
			r[n++] = i % 240 == 7 ? sysfs(t + 9, "60\n", 0) : sysfs(t + 9, NULL, 5);
		if (i % 300 == 150)
			r[n++] = simple(FRC_DROPS, t + 11, i);
	}
	r[n++] = simple(FRC_EXIT, t + 100, 77);
	r[n++] = tick(t + 200, 0, 0, 0);
	return n;
}

/* Write the determinism capture to fd, without Check (a child runs it too). 0 or -1. */
static int determinism_write(int fd)
{
	static const struct frc_meta meta[] = {{"recorder", "test_format determinism"},
					       {"clock", "CLOCK_MONOTONIC"}};
	struct frc_record *r = calloc(DET_MAX, sizeof(*r));
	size_t n = r ? determinism_records(r) : 0;
	frc_writer *w = NULL;
	int ret = r && !frc_writer_open_fd(&w, fd, "determinism.frc", meta, 2, NULL) ? 0 : -1;

	for (size_t i = 0; i < n && !ret; i++)
		if (frc_writer_append(w, &r[i]) || (i == 200 && frc_writer_flush(w)))
			ret = -1;
	if (!ret && frc_writer_finish(w))
		ret = -1;
	if (ret)
		fprintf(stderr, "determinism: %s\n", w ? frc_writer_error(w) : "out of memory");
	frc_writer_free(w);
	free(r);
	return ret;
}

/*
 * Run this test binary again as `test_format --write-determinism OUT` in a process of its
 * own, with environment env and, when no_aslr, without address space randomization
 * (setarch -R). Under a cross build CTest's emulator (FRC_TEST_EMULATOR, words) runs it.
 */
static void determinism_child(const char *out, char *const env[], int no_aslr)
{
	char self[PATH_MAX], emu[1024] = "", *argv[16], *save = NULL;
	const char *e = getenv("FRC_TEST_EMULATOR");
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int argc = 0, st;
	pid_t pid;

	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	snprintf(emu, sizeof(emu), "%s", e ? e : "");
	for (char *w = strtok_r(emu, " ", &save); w && argc < 12; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc++] = self;
	argv[argc++] = "--write-determinism";
	argv[argc++] = (char *)out;
	argv[argc] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (no_aslr)
			personality(ADDR_NO_RANDOMIZE);
		execvpe(argv[0], argv, env);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s --write-determinism: status %d",
		      self, st);
}

/* The first offset where a and b differ (or the shorter length), -1 when equal. */
static long first_difference(const struct capture *a, const struct capture *b)
{
	size_t n = a->len < b->len ? a->len : b->len;

	for (size_t i = 0; i < n; i++)
		if (a->p[i] != b->p[i])
			return (long)i;
	return a->len == b->len ? -1 : (long)n;
}

static struct capture slurp_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct capture c;

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	c = slurp_fd(fd);
	close(fd);
	return c;
}

/*
 * The same records give the same bytes (FORMAT.md 6) in another process with another
 * heap and address layout, and on every machine and architecture: the capture is written
 * here and by two child processes (glibc's MALLOC_PERTURB_ fills their fresh allocations
 * with two different bytes, one runs without ASLR, the other with a 64 KiB environment
 * that moves its stack, another TZ and locale), and all three must equal, byte for byte,
 * tests/format/determinism_v1_1.frc, written once with libzstd 1.5.4 on x86-64 (the
 * arm64 stage checks it under qemu-aarch64). An uninitialised byte, a pointer, a clock or
 * a host-dependent value in the output fails it. After a deliberate format or writer
 * change, regenerate the file and review the diff of `frameanalyze export` of both:
 *   build/bin/test_format --write-determinism tests/format/determinism_v1_1.frc
 */
START_TEST(determinism)
{
	static char pad[65536 + 8] = "FRC_PAD=";
	char a_path[64], b_path[64];
	char *env_a[] = {"MALLOC_PERTURB_=165", "LC_ALL=C", NULL};
	char *env_b[] = {"MALLOC_PERTURB_=90", "TZ=Pacific/Chatham", "LC_ALL=C.UTF-8", pad, NULL};
	struct capture want = slurp_path(FORMAT_TEST_DIR "/determinism_v1_1.frc"), got[3];
	int fd = memfd_create("determinism", MFD_CLOEXEC);

	char dir[] = "/tmp/frc-det-XXXXXX";

	memset(pad + 8, 'x', sizeof(pad) - 9);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(a_path, sizeof(a_path), "%s/a.frc", dir);
	snprintf(b_path, sizeof(b_path), "%s/b.frc", dir);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(determinism_write(fd), 0);
	got[0] = slurp_fd(fd);
	close(fd);
	determinism_child(a_path, env_a, 1);
	determinism_child(b_path, env_b, 0);
	got[1] = slurp_path(a_path);
	got[2] = slurp_path(b_path);
	for (int k = 0; k < 3; k++) {
		long at = first_difference(&want, &got[k]);

		ck_assert_msg(at < 0,
			      "%s: %zu bytes, differs from determinism_v1_1.frc (%zu bytes) at "
			      "offset %ld (libzstd %s; the file was written with 1.5.4)",
			      k == 0   ? "this process"
			      : k == 1 ? "child a"
				       : "child b",
			      got[k].len, want.len, at, ZSTD_versionString());
		capture_free(&got[k]);
	}
	ck_assert_uint_eq(want.len, DET_EXPECTED_LEN);
	capture_free(&want);
	ck_assert_int_eq(unlink(a_path) | unlink(b_path) | rmdir(dir), 0);
}
END_TEST

/* ------------------------------------------------------------ text form */

static char tdir[64];

static void text_dir(void)
{
	strcpy(tdir, "/tmp/frc-text-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
}

static void text_dir_rm(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	ck_assert_int_eq(run(cmd), 0);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* export(import(text)) into a malloc'd string. */
static char *text_roundtrip(const char *text)
{
	char in[128], out[128], err[256], *buf = NULL;
	size_t len = 0;
	frc_reader *r = NULL;
	FILE *mem;

	snprintf(in, sizeof(in), "%s/in.txt", tdir);
	snprintf(out, sizeof(out), "%s/out.frc", tdir);
	put_file(in, text);
	ck_assert_msg(frc_text_import(in, out, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(frc_reader_open(&r, out), 0);
	mem = open_memstream(&buf, &len);
	ck_assert_int_eq(frc_text_export(r, mem), 0);
	fclose(mem);
	frc_reader_close(r);
	return buf;
}

static const char canonical[] =
    "meta recorder framerec 0.1.0\n"
    "meta target com.example.game --flag \\\"x\\\"\\tq\n"
    "meta spaces \\x20both ends\\x20\n"
    "meta empty\n"
    "meta utf8 \\xe4\\xb8\\xad\n"
    "attach 1000 4242 " SYM_QB "\n"
    "frame 1000000000 4242 4301 0xb400007a1c2e3000 0xb400007a0c001000\n"
    "frame 1016666667 4242 4301 0xb400007a1c2e5000 0xb400007a0c001000\n"
    "frame 1016666667 77 78 0x0 0x0\n"
    "frame 1016666668 4242 4301 0xb400007a1c2e3000 0xb400007a0c001000 1033333334\n"
    "frame 1016666668 4242 4301 0xb400007a1c2e5000 0xb400007a0c001000 -9223372036854775808\n"
    "frame 1016666669 77 78 0x0 0x0 9223372036854775807\n"
    "sysfs 1040000000 \"60\\n\"\n"
    "sysfs 1040000001 \"\"\n"
    "sysfs 1040000002 \"\\x00\\x01\\\\\\\" \\xff\"\n"
    "sysfs 1200000000 !5\n"
    "drops 1300000000 18446744073709551615\n"
    "tick 1400000000\n"
    "tick 1500000000 - -\n"
    "tick 1600000000 60.500000 sysfs\n"
    "tick 1700000000 0.000001 ebpf\n"
    "tick 1700000001 18446744073709.551615 sysfs\n"
    "exit 1800000000 77\n"
    "attach 1900000000 5\n"
    "frame 18446744073709551615 4294967295 4294967295 0xffffffffffffffff "
    "0xffffffffffffffff\n";

START_TEST(text_roundtrip_canonical)
{
	char *got;

	text_dir();
	got = text_roundtrip(canonical);
	ck_assert_str_eq(got, canonical);
	free(got);
	text_dir_rm();
}
END_TEST

START_TEST(text_import_normalizes)
{
	static const char loose[] = "# a comment\n"
				    "\n"
				    "   # indented comment\n"
				    "meta\tkey   v a l\r\n"
				    "frame  1\t2 3   0XAbC  \n"
				    "frame 2 2 3 0x1\t0XfF \n"
				    "tick 5 60 sysfs\n"
				    "tick 6 60.5 ebpf\n"
				    "sysfs 7 \"a\\x4A\"  \n"
				    "sysfs 8 !0007\n";
	static const char want[] = "meta key v a l\n"
				   "frame 1 2 3 0xabc 0x0\n"
				   "frame 2 2 3 0x1 0xff\n"
				   "tick 5 60.000000 sysfs\n"
				   "tick 6 60.500000 ebpf\n"
				   "sysfs 7 \"aJ\"\n"
				   "sysfs 8 !7\n";
	char *got;

	text_dir();
	got = text_roundtrip(loose);
	ck_assert_str_eq(got, want);
	free(got);
	text_dir_rm();
}
END_TEST

START_TEST(text_import_deterministic)
{
	char in[128], a[128], b[128], err[256];
	int fa, fb;
	struct capture ca, cb;

	text_dir();
	snprintf(in, sizeof(in), "%s/in.txt", tdir);
	snprintf(a, sizeof(a), "%s/a.frc", tdir);
	snprintf(b, sizeof(b), "%s/b.frc", tdir);
	put_file(in, canonical);
	ck_assert_int_eq(frc_text_import(in, a, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(frc_text_import(in, b, NULL, err, sizeof(err)), 0);
	fa = open(a, O_RDONLY);
	fb = open(b, O_RDONLY);
	ca = slurp_fd(fa);
	cb = slurp_fd(fb);
	ck_assert_uint_eq(ca.len, cb.len);
	ck_assert(!memcmp(ca.p, cb.p, ca.len));
	close(fa);
	close(fb);
	capture_free(&ca);
	capture_free(&cb);
	text_dir_rm();
}
END_TEST

static const struct {
	const char *text, *err;
} bad_texts[] = {
    {"frobnicate 1\n", "IN:1:1: unknown record type 'frobnicate'"},
    {"layer 1 0 new x\n", "IN:1:9: LAYER: ids start at 1"},
    {"layer 1 1 maybe x\n", "IN:1:11: expected new or gone"},
    {"layer 1 1 new\n", "IN:1:14: NAME must be 1..255 bytes without \\x00"},
    {"present 1 1 2 3\n", "IN:1:16: expected READY"},
    {"present 1 1 9223372036854775808 0 0\n",
     "IN:1:13: DESIRED out of range (max 9223372036854775807)"},
    {"present 1 1 2 3 x\n", "IN:1:17: READY: expected a decimal digit"},
    {"vsync 1 -5\n", "IN:1:9: PERIOD_NS: expected a decimal digit"},
    {"thread 1 2 3\n", "IN:1:13: NAME must be 1..15 bytes without \\x00"},
    {"thread 1 2 3 0123456789abcdef\n", "IN:1:29: NAME longer than 15 bytes"},
    {"thread 1 2 3 a\\x00b\n", "IN:1:13: NAME must be 1..15 bytes without \\x00"},
    {"thread 1 2\n", "IN:1:11: expected TID"},
    {"buffer 1 2 0x1 0x2 1 2 3 4\n", "IN:1:27: expected USAGE (0x...)"},
    {"buffer 1 2 0x1 0x2 2147483648 2 3 4 0x0\n",
     "IN:1:20: WIDTH out of range (-2147483648..2147483647)"},
    {"buffer 1 2 0x1 0x2 1 -2147483649 3 4 0x0\n",
     "IN:1:22: HEIGHT out of range (-2147483648..2147483647)"},
    {"buffer 1 2 0x1 0x2 1 2 x 4 0x0\n", "IN:1:24: STRIDE: expected a decimal digit"},
    {"buffer 1 4294967296 0x1 0x2 1 2 3 4 0x0\n", "IN:1:10: PID out of range (max 4294967295)"},
    {"buffer 1 2 3 0x2 1 2 3 4 0x0\n", "IN:1:12: SURFACE: expected 0x followed by hex digits"},
    {"buffer 1 2 0x1 0x2 1 2 3 4 0x0 5\n", "IN:1:32: unexpected text after the record"},
    {"connect 1 2 3 0x4\n", "IN:1:18: expected API"},
    {"disconnect 1 2 3 0x4 -2147483649\n", "IN:1:22: API out of range (-2147483648..2147483647)"},
    {"connect 1 2 3 0x4 1 0\n", "IN:1:21: unexpected text after the record"},
    {"disconnect 1 2 4294967296 0x4 1\n", "IN:1:16: TID out of range (max 4294967295)"},
    {"drops 1 2 3 x\n", "IN:1:13: BAD_BUFFERS: expected a decimal digit"},
    {"drops 1 2 3 4 5\n", "IN:1:15: unexpected text after the record"},
    {"frame 1 2 3\n", "IN:1:12: expected BUFFER (0x...)"},
    {"frame 1 2 3 4\n", "IN:1:13: BUFFER: expected 0x followed by hex digits"},
    {"frame 1 2 3 0x12345678901234567\n", "IN:1:13: BUFFER out of range (more than 16 hex digits)"},
    {"frame 1 2 3 0x1g\n", "IN:1:16: BUFFER: expected a hex digit"},
    {"frame 1 2 3 0x1 extra\n", "IN:1:17: SURFACE: expected 0x followed by hex digits"},
    {"frame 1 2 3 0x1 0x1g\n", "IN:1:20: SURFACE: expected a hex digit"},
    {"frame 1 2 3 0x1 0x12345678901234567\n",
     "IN:1:17: SURFACE out of range (more than 16 hex digits)"},
    {"frame 1 2 3 0x1 0x2 extra\n", "IN:1:21: unexpected text after the record"},
    {"frame 1 2 3 0x1 0x2 -\n", "IN:1:22: TIMESTAMP: expected a decimal digit"},
    {"frame 1 2 3 0x1 0x2 -1x\n", "IN:1:23: TIMESTAMP: expected a decimal digit"},
    {"frame 1 2 3 0x1 0x2 9223372036854775808\n",
     "IN:1:21: TIMESTAMP out of range (max 9223372036854775807)"},
    {"frame 1 2 3 0x1 0x2 5 6\n", "IN:1:23: unexpected text after the record"},
    {"frame 18446744073709551616 1 1 0x1\n",
     "IN:1:7: KTIME_NS out of range (max 18446744073709551615)"},
    {"exit 1 4294967296\n", "IN:1:8: PID out of range (max 4294967295)"},
    {"exit 1 -1\n", "IN:1:8: PID: expected a decimal digit"},
    {"frame 1 2 3 0x1\nmeta k v\n", "IN:2:1: meta after the first record"},
    {"meta Key v\n", "IN:1:6: KEY: only a-z 0-9 _ . are allowed"},
    {"meta k 1\nmeta k 2\n", "IN:2:6: KEY 'k' given twice"},
    {"sysfs 1 \"abc\n", "IN:1:9: RAW: missing closing quote"},
    {"sysfs 1 \"a\\qb\"\n", "IN:1:11: RAW: unknown escape (use \\n \\t \\\\ \\\" \\xHH)"},
    {"sysfs 1 \"\\x4\"\n", "IN:1:10: RAW: unknown escape (use \\n \\t \\\\ \\\" \\xHH)"},
    {"sysfs 1 60\n", "IN:1:9: expected \"RAW\" or !ERRNO"},
    {"sysfs 1 !0\n", "IN:1:10: ERRNO must not be 0"},
    {"sysfs 1 !\n", "IN:1:10: ERRNO: expected digits after !"},
    {"tick 1 60.1234567 sysfs\n", "IN:1:17: FPS: at most 6 decimals"},
    {"tick 1 18446744073709.551616 ebpf\n", "IN:1:8: FPS out of range"},
    {"tick 1 60\n", "IN:1:10: expected SOURCE"},
    {"tick 1 60 gpu\n", "IN:1:11: SOURCE: expected sysfs, ebpf or -"},
    {"tick 1 - sysfs\n", "IN:1:10: SOURCE must be - when FPS is -"},
    {"tick 1 60 -\n", "IN:1:8: FPS must be - when SOURCE is -"},
    {"drops\n", "IN:1:6: expected KTIME_NS"},
    {"attach 1 2 a\\x00b\n", "IN:1:12: SYMBOL must not contain \\x00"},
    {"frame 1 2 3 0x1\nframe 1 2 3 0x1\nframe 1x 2 3 0x1\n",
     "IN:3:8: KTIME_NS: expected a decimal digit"},
};

START_TEST(text_import_errors)
{
	char in[128], out[128], err[256], want[300];

	text_dir();
	snprintf(in, sizeof(in), "%s/in.txt", tdir);
	snprintf(out, sizeof(out), "%s/out.frc", tdir);
	for (size_t i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		put_file(in, bad_texts[i].text);
		ck_assert_int_eq(frc_text_import(in, out, NULL, err, sizeof(err)), FRC_EINVAL);
		snprintf(want, sizeof(want), "%s/in.txt%s", tdir, bad_texts[i].err + 2);
		ck_assert_str_eq(err, want);
		/* No output, no temporary file left behind: only in.txt is there. */
		ck_assert_int_eq(access(out, F_OK), -1);
		ck_assert_int_eq(dir_entries(tdir), 1);
	}
	/* An existing output is left untouched by a failed import. */
	put_file(out, "old");
	put_file(in, "frame 1\n");
	ck_assert_int_eq(frc_text_import(in, out, NULL, err, sizeof(err)), FRC_EINVAL);
	{
		char buf[8] = {0};
		FILE *f = fopen(out, "r");

		ck_assert_uint_eq(fread(buf, 1, sizeof(buf), f), 3);
		fclose(f);
		ck_assert_str_eq(buf, "old");
	}
	snprintf(want, sizeof(want), "%s/missing.txt", tdir);
	ck_assert_int_eq(frc_text_import(want, out, NULL, err, sizeof(err)), FRC_EIO);
	text_dir_rm();
}
END_TEST

/*
 * A header whose CRC is right but whose metadata keys break FORMAT.md 3 (a key outside
 * [a-z0-9_.], a key given twice) is corrupt: export would print lines import refuses
 * (`meta A x`, a second `meta ab`), and a blank in a key would re-import as another key.
 */
START_TEST(reader_rejects_bad_meta_keys)
{
	static const struct frc_meta meta[] = {{"ab", "1"}, {"ac", "2"}};
	struct frc_record one = frame(10, 1, 2, 3);
	int fd = memfd_create("m", MFD_CLOEXEC);
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct capture c;
	uint32_t size;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "m.frc", meta, 2, NULL), 0);
	ck_assert_int_eq(frc_writer_append(w, &one), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);
	size = frc_get_le32(c.p + 4);
	/* payload: FRCP, 1, 0, n=2, 02 'a' 'b' 01 '1', 02 'a' 'c' 01 '2', crc */
	static const uint8_t pairs[] = {2, 2, 'a', 'b', 1, '1', 2, 'a', 'c', 1, '2'};

	ck_assert_int_eq(memcmp(c.p + 16, pairs, sizeof(pairs)), 0);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "m.frc"), 0);
	frc_reader_close(r);

	c.p[18] = 'A'; /* key "Ab" */
	frc_put_le32(c.p + 8 + size - 4, frc_crc32c(0, c.p + 8, size - 4));
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "m.frc"), FRC_ECORRUPT);
	ck_assert_str_eq(frc_reader_error(r), "m.frc: offset 8: malformed header metadata");
	frc_reader_close(r);

	c.p[18] = ' '; /* key " b" */
	frc_put_le32(c.p + 8 + size - 4, frc_crc32c(0, c.p + 8, size - 4));
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "m.frc"), FRC_ECORRUPT);
	frc_reader_close(r);

	c.p[18] = 'a';
	c.p[24] = 'b'; /* keys "ab", "ab" */
	frc_put_le32(c.p + 8 + size - 4, frc_crc32c(0, c.p + 8, size - 4));
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "m.frc"), FRC_ECORRUPT);
	ck_assert_str_eq(frc_reader_error(r), "m.frc: offset 8: malformed header metadata");
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

/*
 * A FIFO is refused at once (open used to wait for a writer that never comes). The open
 * runs in a child so that a hang fails the test after 5 s instead of blocking CTest.
 */
START_TEST(reader_open_fifo)
{
	char path[128], want[160];
	int status = 0, fds[2];
	char msg[160] = {0};
	pid_t pid;

	text_dir();
	snprintf(path, sizeof(path), "%s/fifo.frc", tdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		frc_reader *r = NULL;
		int ret = frc_reader_open(&r, path);
		const char *e = frc_reader_error(r);

		(void)!write(fds[1], e, strlen(e));
		_exit(ret == FRC_EIO ? 0 : 1);
	}
	close(fds[1]);
	for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ck_abort_msg("frc_reader_open on a FIFO still blocked after 5 s");
	}
	ck_assert_int_eq(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
	ck_assert_int_ge(read(fds[0], msg, sizeof(msg) - 1), 0);
	close(fds[0]);
	snprintf(want, sizeof(want), "%s/fifo.frc: not a regular file", tdir);
	ck_assert_str_eq(msg, want);
	text_dir_rm();
}
END_TEST

/*
 * import renames its temporary file over OUT; when OUT is a FIFO, a device or a directory
 * that must not happen (as root, `-o /dev/full` replaced the device node with a capture).
 */
START_TEST(text_import_refuses_special_output)
{
	char in[128], out[128], err[256], want[300];
	struct stat sb;

	text_dir();
	snprintf(in, sizeof(in), "%s/in.txt", tdir);
	put_file(in, "frame 1 2 3 0x4 0x0\n");
	snprintf(out, sizeof(out), "%s/fifo.frc", tdir);
	ck_assert_int_eq(mkfifo(out, 0600), 0);
	ck_assert_int_eq(frc_text_import(in, out, NULL, err, sizeof(err)), FRC_EIO);
	snprintf(want, sizeof(want), "%s/fifo.frc: not a regular file; refusing to replace it",
		 tdir);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(stat(out, &sb), 0);
	ck_assert_int_eq(S_ISFIFO(sb.st_mode), 1);

	snprintf(out, sizeof(out), "%s/dir.frc", tdir);
	ck_assert_int_eq(mkdir(out, 0700), 0);
	ck_assert_int_eq(frc_text_import(in, out, NULL, err, sizeof(err)), FRC_EIO);
	snprintf(want, sizeof(want), "%s/dir.frc: not a regular file; refusing to replace it",
		 tdir);
	ck_assert_str_eq(err, want);
	/* in.txt, fifo.frc, dir.frc: no temporary file left */
	ck_assert_int_eq(dir_entries(tdir), 3);
	text_dir_rm();
}
END_TEST

/*
 * The 1 MiB header limit (FORMAT.md 8) is reported at the meta line that crosses it, like
 * any other text error (it named only the output file). 16 pairs: "a" with a value of V
 * bytes, k00..k14 with 65535 bytes each; the payload is 983148 + V bytes.
 */
static char *big_meta_text(size_t v)
{
	size_t cap = 16 * 65600, len = 0;
	char *t = malloc(cap);

	ck_assert_ptr_nonnull(t);
	len += (size_t)sprintf(t, "meta a ");
	memset(t + len, 'x', v);
	len += v;
	t[len++] = '\n';
	for (int i = 0; i < 15; i++) {
		len += (size_t)sprintf(t + len, "meta k%02d ", i);
		memset(t + len, 'y', 65535);
		len += 65535;
		t[len++] = '\n';
	}
	t[len] = '\0';
	return t;
}

START_TEST(text_import_header_limit)
{
	char in[128], out[128], err[256], want[300];
	char *text;

	text_dir();
	snprintf(in, sizeof(in), "%s/in.txt", tdir);
	snprintf(out, sizeof(out), "%s/out.frc", tdir);
	text = big_meta_text(65428); /* payload exactly 1048576 bytes: accepted */
	put_file(in, text);
	free(text);
	ck_assert_msg(frc_text_import(in, out, NULL, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(unlink(out), 0);
	text = big_meta_text(65429);
	put_file(in, text);
	free(text);
	ck_assert_int_eq(frc_text_import(in, out, NULL, err, sizeof(err)), FRC_EINVAL);
	snprintf(want, sizeof(want), "%s/in.txt:16:1: metadata larger than 1048576 bytes in all",
		 tdir);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(dir_entries(tdir), 1);
	text_dir_rm();
}
END_TEST

/*
 * Captures written by an independent Python writer from FORMAT.md alone, with legal
 * choices our writer never makes: minor 7, an unknown skippable frame before the first
 * chunk, no footer; runs with period 0 and 64-bit residuals, an increment column (kflag
 * 1), an explicit buffer index column (cyclic 0), an unknown entry type 99, a tick with
 * source none; PID blocks out of first-use order. Expected records computed by hand.
 */
START_TEST(foreign_encoder_choices)
{
	static const char choices[] = "meta a.b \\x20x\\x20\n"
				      "meta e\n"
				      "frame 1000 7 7 0x10 0x0\n"
				      "frame 2000 7 7 0x20 0x0\n"
				      "frame 3000 7 8 0x10 0x0\n"
				      "frame 5000 9 1 0xabc 0x0\n"
				      "frame 5295 9 1 0xabc 0x0\n"
				      "frame 5502 9 1 0xabc 0x0\n"
				      "frame 100 11 11 0x1 0x0\n"
				      "frame 120 12 12 0x2 0x0\n"
				      "frame 150 11 11 0x1 0x0\n"
				      "tick 10 60.000000 ebpf\n"
				      "tick 11 - -\n";
	static const char order[] = "frame 90 12 12 0x5 0x0\n"
				    "frame 100 11 11 0x5 0x0\n";
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	ck_assert_int_eq(frc_reader_open(&r, FORMAT_TEST_DIR "/foreign_choices.frc"), 0);
	mem = open_memstream(&buf, &len);
	ck_assert_int_eq(frc_text_export(r, mem), FRC_ETRUNCATED); /* no footer */
	fclose(mem);
	ck_assert_str_eq(buf, choices);
	frc_reader_stats(r, &st);
	ck_assert_uint_eq(st.unknown, 1);
	ck_assert_uint_eq(st.records, 11); /* delivered: the unknown entry is not one */
	frc_reader_close(r);
	free(buf);

	buf = NULL;
	ck_assert_int_eq(frc_reader_open(&r, FORMAT_TEST_DIR "/foreign_block_order.frc"), 0);
	mem = open_memstream(&buf, &len);
	ck_assert_int_eq(frc_text_export(r, mem), 0); /* its footer is valid: complete */
	fclose(mem);
	ck_assert_str_eq(buf, order);
	frc_reader_close(r);
	free(buf);
}
END_TEST

/*
 * The header of one recording in front of the chunks (and footer) of another: the chunks'
 * CRCs continue from their own header's CRC (FORMAT.md 3), so the first descriptor is
 * reported corrupt and nothing of the other recording is delivered as this one's.
 */
START_TEST(spliced_recordings_corrupt)
{
	struct frc_record in[32], out[32];
	size_t n = sample(in);
	struct capture full = write_capture(in, n, sample_groups, NULL, 1);
	struct capture cut = write_capture(in, n, sample_groups, NULL, 0);
	struct capture *caps[] = {&full, &cut};
	size_t hdr = 8 + frc_get_le32(full.p + 4);
	char want[200];

	for (size_t i = 0; i < 2; i++) {
		struct capture *c = caps[i];
		struct frc_reader_stats st;
		frc_reader *r = NULL;

		/* Another recording's header: the recorder value "test_format" -> "test_formaT". */
		c->p[8 + 4 + 4 + 1 + 1 + 8 + 1 + 10] = 'T';
		frc_put_le32(c->p + hdr - 4, frc_crc32c(0, c->p + 8, hdr - 12));
		ck_assert_int_eq(frc_reader_open_mem(&r, c->p, c->len, "s.frc"), 0);
		ck_assert_str_eq(frc_reader_meta_get(r, "recorder"), "test_formaT");
		ck_assert_uint_eq(read_all(r, out, 32), 0);
		frc_reader_stats(r, &st);
		ck_assert_str_eq(frc_status_name(st.status), "corrupt");
		ck_assert_uint_eq(st.damage_offset, hdr);
		snprintf(want, sizeof(want),
			 "s.frc: offset %zu: corrupt: chunk 0: descriptor checksum mismatch "
			 "(damaged, or from another recording than the header)",
			 hdr);
		ck_assert_str_eq(frc_reader_error(r), want);
		frc_reader_close(r);
		capture_free(c);
	}
}
END_TEST

/* One chunk whose body is nruns copies of a 65536-frame run, declaring nrec records. */
static struct capture run_bomb(size_t nruns, uint64_t nrec)
{
	struct capture head = write_capture(NULL, 0, NULL, NULL, 0);
	struct frc_run_frame *f = calloc(FRC_RUN_MAX, sizeof(*f));
	struct frc_buf run = {0}, body = {0}, d = {0}, out = {0};
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t bound, csize;
	uint8_t *zb;

	for (size_t i = 0; i < FRC_RUN_MAX; i++)
		f[i] = (struct frc_run_frame){.ktime = 1000 + i * 16666667ull, .pid = 1, .tid = 1};
	ck_assert_int_eq(frc_run_encode(&run, f, FRC_RUN_MAX), 0);
	for (size_t i = 0; i < nruns; i++)
		frc_buf_put(&body, run.p, run.len);
	bound = ZSTD_compressBound(body.len);
	zb = malloc(bound);
	ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
	csize = ZSTD_compress2(z, zb, bound, body.p, body.len);
	ck_assert(!ZSTD_isError(csize));
	frc_buf_varint(&d, 0);
	frc_buf_varint(&d, csize);
	frc_buf_varint(&d, body.len);
	frc_buf_varint(&d, nrec);
	frc_buf_le32(&d, frc_crc32c(0, zb, csize));
	frc_buf_le32(&d, frc_crc32c(frc_crc32c(0, head.p + head.len - 4, 4), d.p, d.len));
	frc_buf_put(&out, head.p, head.len);
	frc_buf_le32(&out, FRC_MAGIC_DESC);
	frc_buf_le32(&out, (uint32_t)d.len);
	frc_buf_put(&out, d.p, d.len);
	frc_buf_put(&out, zb, csize);
	ck_assert(!out.oom);
	ZSTD_freeCCtx(z);
	free(zb);
	free(f);
	frc_buf_free(&d);
	frc_buf_free(&body);
	frc_buf_free(&run);
	capture_free(&head);
	return (struct capture){.p = out.p, .len = out.len};
}

/*
 * At most 131072 records per chunk (FORMAT.md 4.1): the writer closes a chunk there even
 * when neither time nor size would, and the reader refuses a chunk that declares or holds
 * more, so a few KB can no longer stand for 10^11 frames (issue 11, point 2).
 */
START_TEST(chunk_record_limit)
{
	struct frc_writer_options opt = {.flush_ms = UINT32_MAX, .chunk_max_bytes = 64u << 20};
	size_t n = 2 * FRC_CHUNK_RECORDS_MAX + 5, hdr, ends[8];
	struct frc_record *in = calloc(n, sizeof(*in));
	struct capture c, bomb;
	frc_reader *r = NULL;
	struct frc_reader_stats st;
	char want[200];

	for (size_t i = 0; i < n; i++)
		in[i] = frame(1000 + i * 16666667ull, 1, 1, 0x10);
	c = write_capture(in, n, NULL, &opt, 1);
	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 8), 3);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "l.frc"), 0);
	ck_assert_uint_eq(read_all(r, NULL, 0), n);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	frc_reader_close(r);
	capture_free(&c);
	free(in);

	/* Declared honestly but over the limit: refused before anything is decompressed. */
	bomb = run_bomb(3, 3 * FRC_RUN_MAX);
	ck_assert_int_eq(frc_reader_open_mem(&r, bomb.p, bomb.len, "b.frc"), 0);
	ck_assert_uint_eq(read_all(r, NULL, 0), 0);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "corrupt");
	snprintf(want, sizeof(want),
		 "b.frc: offset %llu: corrupt: chunk 0: 196608 records, more than the limit of "
		 "131072 per chunk",
		 (unsigned long long)st.damage_offset);
	ck_assert_str_eq(frc_reader_error(r), want);
	frc_reader_close(r);
	capture_free(&bomb);

	/* 2^22 frames in a few KB, declared as 1 record: the walk stops at the second run. */
	bomb = run_bomb(64, 1);
	ck_assert_uint_lt(bomb.len, 4096);
	ck_assert_int_eq(frc_reader_open_mem(&r, bomb.p, bomb.len, "b.frc"), 0);
	ck_assert_uint_eq(read_all(r, NULL, 0), 0);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "corrupt");
	ck_assert_ptr_nonnull(strstr(frc_reader_error(r), "more records than the descriptor"));
	frc_reader_close(r);
	capture_free(&bomb);
}
END_TEST

/*
 * The type table (format/frc_types.c) is what names types everywhere: its names are the
 * keywords of FORMAT.md 11, each row's printer and parser agree, and a type it does not
 * know has no name (so callers print it as unknown, never index past the table).
 */
START_TEST(type_table)
{
	static const char
	    *const names[] = {NULL,	 "frame", "sysfs",	 "drops",  "attach",
			      "exit",	 "tick",  NULL,		 NULL, /* 7, 8: entries without a
									* record of their own
									*/
			      "layer",	 NULL, /* 10: the timestamp column */
			      "present", "vsync", "present_gap", "thread", "buffer",
			      "connect", NULL, /* 17: the bad buffer entry */
			      "poll"};
	struct frc_record in[32];
	size_t n = sample(in);

	ck_assert_uint_eq(FRC_TYPE_MAX, 18);
	ck_assert_ptr_null(frc_type_ops(7));
	ck_assert_ptr_null(frc_type_ops(8));
	ck_assert_ptr_null(frc_type_ops(17)); /* the bad buffer entry: no record of its own */
	ck_assert_str_eq(frc_type_ops(FRC_CONNECT)->alias, "disconnect");
	ck_assert(!frc_type_listed(7, 5));
	ck_assert(frc_type_listed(FRC_TICK, 0));   /* 1.1's first six: always listed */
	ck_assert(!frc_type_listed(FRC_LAYER, 0)); /* later ones: when a capture holds some */
	ck_assert(frc_type_listed(FRC_LAYER, 1));
	for (unsigned t = 1; t <= FRC_TYPE_MAX; t++) {
		const struct frc_type_ops *ops = frc_type_ops(t);

		if (t == 7 || t == 8 || t == 10 || t == 17)
			continue;
		ck_assert_str_eq(frc_type_name(t), names[t]);
		ck_assert_ptr_nonnull(ops);
		ck_assert_uint_eq(ops->type, t);
		ck_assert_ptr_nonnull(ops->print);
		ck_assert_ptr_nonnull(ops->parse);
		/* Only frames go without a payload codec: they are stored as columnar runs. */
		ck_assert_int_eq(ops->encode == NULL, t == FRC_FRAME);
		ck_assert_int_eq(ops->decode == NULL, t == FRC_FRAME);
	}
	ck_assert_ptr_null(frc_type_name(0));
	ck_assert_ptr_null(frc_type_name(FRC_TYPE_MAX + 1));
	ck_assert_ptr_null(frc_type_name(99));
	/* Every sample record prints as its table name followed by its ktime. */
	for (size_t i = 0; i < n; i++) {
		char line[FRC_TEXT_LINE_MAX + 1], want[64];

		ck_assert_int_gt(frc_text_format_record(&in[i], line, sizeof(line)), 0);
		snprintf(want, sizeof(want), "%s %llu", names[in[i].type],
			 (unsigned long long)in[i].ktime_ns);
		ck_assert_msg(!strncmp(line, want, strlen(want)), "%s", line);
	}
	in[0].type = 7;
	ck_assert_int_eq(frc_record_check(&in[0]), FRC_EINVAL);
	ck_assert_int_eq(frc_text_format_record(&in[0], NULL, 0), FRC_EINVAL);
}
END_TEST

START_TEST(text_export_damaged)
{
	struct frc_record in[32];
	size_t n = sample(in), ends[8], hdr;
	struct capture c = write_capture(in, n, sample_groups, NULL, 1);
	frc_reader *r = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 8), 4);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, ends[0] + 3, "t.frc"), 0);
	mem = open_memstream(&buf, &len);
	ck_assert_int_eq(frc_text_export(r, mem), FRC_ETRUNCATED);
	fclose(mem);
	ck_assert_str_eq(buf, "meta recorder test_format\n"
			      "meta clock CLOCK_MONOTONIC\n"
			      "attach 900000000 4242 " SYM_QB "\n"
			      "frame 1000000000 4242 4301 0xb400007a1c2e3000 0x0\n"
			      "frame 1016666667 4242 4301 0xb400007a1c2e5000 0x0\n"
			      "frame 1033333334 4242 4302 0xb400007a1c2e7000 0x0\n"
			      "sysfs 1040000000 \"60\\n\"\n");
	free(buf);
	frc_reader_close(r);
	capture_free(&c);
}
END_TEST

START_TEST(text_format_helpers)
{
	char buf[FRC_TEXT_LINE_MAX + 1];
	struct frc_record r = sysfs(1, NULL, 0);

	ck_assert_uint_eq(frc_text_escape(" a\"\\\n\t\x7f ", 8, buf, sizeof(buf), 1), 21);
	ck_assert_str_eq(buf, "\\x20a\\\"\\\\\\n\\t\\x7f\\x20");
	ck_assert_uint_eq(frc_text_escape(" a ", 3, buf, 2, 0), 3);
	ck_assert_str_eq(buf, " ");
	r.u.sysfs.len = 255;
	memset(r.u.sysfs.raw, 0xff, 255);
	ck_assert_int_eq(frc_text_format_record(&r, buf, sizeof(buf)), 8 + 2 + 1020);
	ck_assert_int_le(frc_text_format_record(&r, buf, sizeof(buf)), FRC_TEXT_LINE_MAX);
	r.type = 42;
	ck_assert_int_eq(frc_text_format_record(&r, buf, sizeof(buf)), FRC_EINVAL);
	ck_assert_str_eq(frc_strerror(FRC_ECORRUPT), "capture is corrupt");
	ck_assert_str_eq(frc_status_name(FRC_STATUS_TRUNCATED), "truncated");
	ck_assert_uint_eq(frc_crc32c(0, "123456789", 9), 0xE3069283u);
}
END_TEST

/* ------------------------------------------------------------ format stability */

/* golden_v1_0.txt without its leading comment lines. */
static char *golden_text(void)
{
	FILE *f = fopen(FORMAT_TEST_DIR "/golden_v1_0.txt", "r");
	char *all = calloc(1, 65536), *p;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_gt(fread(all, 1, 65535, f), 0);
	fclose(f);
	p = all;
	while (*p == '#')
		p = strchr(p, '\n') + 1;
	memmove(all, p, strlen(p) + 1);
	return all;
}

/* The canonical text export of the capture at path (asserting its status is complete). */
static char *export_text(const char *path, int want_ret)
{
	frc_reader *r = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	ck_assert_msg(frc_reader_open(&r, path) == 0, "%s", frc_reader_error(r));
	mem = open_memstream(&buf, &len);
	ck_assert_msg(frc_text_export(r, mem) == want_ret, "%s: %s", path, frc_reader_error(r));
	fclose(mem);
	frc_reader_close(r);
	return buf;
}

/*
 * Captures written by format 1.0 (committed, never regenerated) still read the same, and
 * the 1.1 golden written from the same text reads to the same records.
 */
START_TEST(golden_read)
{
	static const char *const files[] = {"golden_v1_0.frc", "golden_v1_1.frc"};
	char *want = golden_text(), path[512];
	unsigned maj, min;
	frc_reader *r = NULL;

	for (size_t i = 0; i < 2; i++) {
		char *buf;

		snprintf(path, sizeof(path), "%s/%s", FORMAT_TEST_DIR, files[i]);
		buf = export_text(path, 0);
		ck_assert_str_eq(buf, want);
		free(buf);
		ck_assert_int_eq(frc_reader_open(&r, path), 0);
		frc_reader_version(r, &maj, &min);
		ck_assert_uint_eq(min, i);
		frc_reader_close(r);
	}
	free(want);
}
END_TEST

/* The whole content of a file (NUL-terminated). */
static char *file_text(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct capture c;
	char *s;

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	c = slurp_fd(fd);
	close(fd);
	s = realloc(c.p, c.len + 1);
	ck_assert_ptr_nonnull(s);
	s[c.len] = 0;
	return s;
}

/*
 * Every committed 1.0 capture decodes exactly as the 1.0 reader decoded it: the expected
 * texts in tests/format/v1_0/ are what `frameanalyze export` printed before format 1.1
 * (commit f038259), and golden_v1_0.txt is the text golden_v1_0.frc was written from.
 */
START_TEST(v1_0_captures_decode_identically)
{
	static const struct {
		const char *capture, *expected;
		int ret;
	} cases[] = {
	    {"/../../fixtures/real/standin_60hz_jank.frc", "/v1_0/standin_60hz_jank.txt", 0},
	    {"/foreign_block_order.frc", "/v1_0/foreign_block_order.txt", 0},
	    {"/foreign_choices.frc", "/v1_0/foreign_choices.txt", FRC_ETRUNCATED},
	};
	char path[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got, *want;

		snprintf(path, sizeof(path), "%s%s", FORMAT_TEST_DIR, cases[i].expected);
		want = file_text(path);
		snprintf(path, sizeof(path), "%s%s", FORMAT_TEST_DIR, cases[i].capture);
		got = export_text(path, cases[i].ret);
		ck_assert_msg(!strcmp(got, want), "%s decodes differently", path);
		free(got);
		free(want);
	}
}
END_TEST

/* ------------------------------------------------------------ batch anomalies (issue 17) */

static struct frc_record drops(uint64_t t, uint64_t cumulative, uint64_t anomalies)
{
	struct frc_record r = simple(FRC_DROPS, t, cumulative);

	r.u.drops.batch_anomalies = anomalies;
	return r;
}

/* The decompressed body of c's first chunk into out; returns its length. */
static size_t first_body(const struct capture *c, uint8_t *out, size_t cap)
{
	size_t off = 8 + frc_get_le32(c->p + 4), fsz, n;

	ck_assert_uint_eq(frc_get_le32(c->p + off), FRC_MAGIC_DESC);
	off += 8 + frc_get_le32(c->p + off + 4);
	fsz = ZSTD_findFrameCompressedSize(c->p + off, c->len - off);
	ck_assert(!ZSTD_isError(fsz));
	n = ZSTD_decompress(out, cap, c->p + off, fsz);
	ck_assert(!ZSTD_isError(n));
	return n;
}

/*
 * A drops record's batch anomaly count (FORMAT.md 4.6) comes back with it, 0 included,
 * in several chunks and at the largest value; the entry is its own, right before the
 * drops entry: 08 01 02 | 03 02 05 07 for drops 5 7 with 2 anomalies.
 */
START_TEST(anomalies_roundtrip)
{
	struct frc_record in[6] = {drops(100, 0, 0),
				   drops(200, 3, 1),
				   frame(250, 1, 2, 0x10),
				   drops(300, 3, 2),
				   drops(400, UINT64_MAX, UINT64_MAX),
				   drops(500, 9, 0)},
			  out[8], one = drops(5, 7, 2);
	static const uint8_t want[] = {0x08, 0x01, 0x02, 0x03, 0x02, 0x05, 0x07};
	struct capture c = write_capture(in, 6, (const size_t[]){3, 2, 0}, NULL, 1);
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	uint8_t body[64];

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 8), 6);
	for (size_t i = 0; i < 6; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_uint_eq(st.records, 6);
	ck_assert_uint_eq(st.by_type[FRC_DROPS], 5);
	ck_assert_uint_eq(st.unknown, 0);
	ck_assert_uint_eq(st.chunks, 3);
	frc_reader_close(r);
	capture_free(&c);

	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want));
	ck_assert(!memcmp(body, want, sizeof(want)));
	capture_free(&c);
}
END_TEST

/*
 * An anomaly entry not followed by a drops record (another record, or the chunk's end), a
 * count of 0 (never written) or a payload with bytes left over: the chunk is corrupt.
 */
START_TEST(anomalies_damaged)
{
	static const uint8_t two[] = {0x02}, zero[] = {0x00}, extra[] = {0x02, 0x00};
	struct frc_record d = drops(10, 1, 0), x = simple(FRC_EXIT, 11, 1), out[4];
	const struct {
		const uint8_t *p;
		size_t len;
		const struct frc_record *after; /* NULL: the chunk ends */
		const char *why;
	} cases[] = {
	    {two, sizeof(two), &x, "not followed by a drops record"},
	    {two, sizeof(two), NULL, "not followed by a drops record"},
	    {zero, sizeof(zero), &d, "malformed batch anomaly entry"},
	    {extra, sizeof(extra), &d, "malformed batch anomaly entry"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int fd = memfd_create("a", MFD_CLOEXEC);
		struct frc_reader_stats st;
		frc_writer *w = NULL;
		frc_reader *r = NULL;
		struct capture c;

		ck_assert_int_eq(frc_writer_open_fd(&w, fd, "a.frc", NULL, 0, NULL), 0);
		ck_assert_int_eq(frc_writer_append_raw_entry(w, 8, cases[k].p, cases[k].len), 0);
		if (cases[k].after)
			ck_assert_int_eq(frc_writer_append(w, cases[k].after), 0);
		ck_assert_int_eq(frc_writer_finish(w), 0);
		frc_writer_free(w);
		c = slurp_fd(fd);
		close(fd);
		ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "a.frc"), 0);
		ck_assert_uint_eq(read_all(r, out, 4), 0);
		frc_reader_stats(r, &st);
		ck_assert_int_eq(st.status, FRC_STATUS_CORRUPT);
		ck_assert_msg(strstr(frc_reader_error(r), cases[k].why), "case %zu: %s", k,
			      frc_reader_error(r));
		frc_reader_close(r);
		capture_free(&c);
	}
}
END_TEST

static struct frc_record layer_rec(uint64_t t, uint32_t id, const char *name)
{
	struct frc_record r = {.type = FRC_LAYER, .ktime_ns = t};

	r.u.layer.id = id;
	r.u.layer.gone = name == NULL;
	if (name) {
		r.u.layer.len = (uint16_t)strlen(name);
		memcpy(r.u.layer.name, name, r.u.layer.len + 1);
	}
	return r;
}

static struct frc_record present_rec(uint64_t t, uint32_t layer, int64_t d, int64_t a, int64_t r)
{
	struct frc_record x = {.type = FRC_PRESENT, .ktime_ns = t};

	x.u.present = (struct frc_present){layer, d, a, r};
	return x;
}

/*
 * Display capture (FORMAT.md 4.8): layers, present rows (an invalid -1 fence, times far
 * from the poll's, the int64 extremes), vsync periods, gaps and polls round-trip through
 * the writer and reader and the text form; a present row's bytes are FORMAT.md's example,
 * and so are a poll's.
 */
START_TEST(display_records_roundtrip)
{
	struct frc_record in[11], out[12], one;
	size_t n = 0;

	in[n++] = layer_rec(1000, 1, "SurfaceView - com.pkg/com.pkg.Act#0");
	in[n].type = FRC_VSYNC, in[n].ktime_ns = 1000, in[n++].u.vsync.period_ns = 16666666;
	in[n++] = present_rec(500000000, 1, 480000000, 496666666, 481000000);
	in[n++] = present_rec(500000001, 1, 490000000, -1, -1);
	in[n++] = present_rec(500000002, 1, INT64_MAX, INT64_MIN, 0);
	in[n].type = FRC_PRESENT_GAP, in[n].ktime_ns = 2000000000;
	in[n++].u.gap = (struct frc_present_gap){1, 496666666, 1996666666};
	in[n].type = FRC_PRESENT_GAP, in[n].ktime_ns = 2000000001;
	in[n++].u.gap = (struct frc_present_gap){1, 0, 0};
	in[n].type = FRC_POLL, in[n].ktime_ns = 2000000002, in[n++].u.poll.layer = 1;
	in[n].type = FRC_POLL, in[n].ktime_ns = 2000000003, in[n++].u.poll.layer = UINT32_MAX;
	in[n++] = layer_rec(3000000000, 1, NULL);
	in[n++] = layer_rec(3000000000, 2, "SurfaceView[com.pkg/com.pkg.Act](BLAST)#1234");

	struct capture c = write_capture(in, n, (const size_t[]){4, 7, 0}, NULL, 1);
	struct frc_reader_stats st;
	frc_reader *r = NULL;

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 12), n);
	for (size_t i = 0; i < n; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_uint_eq(st.by_type[FRC_LAYER], 3);
	ck_assert_uint_eq(st.by_type[FRC_PRESENT], 3);
	ck_assert_uint_eq(st.by_type[FRC_VSYNC], 1);
	ck_assert_uint_eq(st.by_type[FRC_PRESENT_GAP], 2);
	ck_assert_uint_eq(st.by_type[FRC_POLL], 2);
	ck_assert_uint_eq(st.unknown, 0);
	frc_reader_close(r);
	capture_free(&c);

	/* FORMAT.md 4.8's example: present at ktime 1000, layer 1, desired 900 (zigzag(-100)
	 * = 199), actual 1100 (zigzag(200) = 400), ready 905 (zigzag(5) = 10). */
	static const uint8_t want[] = {0x0b, 0x08, 0xe8, 0x07, 0x01, 0xc7, 0x01, 0x90, 0x03, 0x0a};
	uint8_t body[64];

	one = present_rec(1000, 1, 900, 1100, 905);
	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want));
	ck_assert(!memcmp(body, want, sizeof(want)));
	capture_free(&c);

	/* FORMAT.md 4.8's poll: ktime 1000, layer 1. */
	static const uint8_t want_poll[] = {0x12, 0x03, 0xe8, 0x07, 0x01};

	one = (struct frc_record){.type = FRC_POLL, .ktime_ns = 1000};
	one.u.poll.layer = 1;
	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want_poll));
	ck_assert(!memcmp(body, want_poll, sizeof(want_poll)));
	capture_free(&c);

	/*
	 * What the writer refuses: layer id 0, a gone layer with a name, a new one without, a
	 * poll of layer 0.
	 */
	struct frc_record bad[4] = {layer_rec(1, 0, "x"),
				    layer_rec(1, 3, "x"),
				    layer_rec(1, 3, NULL),
				    {.type = FRC_POLL, .ktime_ns = 1}};
	bad[1].u.layer.gone = true;
	bad[2].u.layer.gone = false;
	for (int k = 0; k < 4; k++) {
		int fd = memfd_create("d", MFD_CLOEXEC);
		frc_writer *w = NULL;

		ck_assert_int_eq(frc_writer_open_fd(&w, fd, "d.frc", NULL, 0, NULL), 0);
		ck_assert_int_eq(frc_writer_append(w, &bad[k]), FRC_EINVAL);
		frc_writer_free(w);
		close(fd);
	}
}
END_TEST

/* The text form of the display records, canonical both ways; hostile lines refused. */
START_TEST(display_records_text)
{
	static const char text[] = "layer 1000 1 new SurfaceView - com.pkg/com.pkg.Act#0\n"
				   "vsync 1000 8333333\n"
				   "present 500000000 1 480000000 488333333 480001000\n"
				   "present 500000001 1 490000000 -1 -1\n"
				   "present_gap 2000000000 1 488333333 0\n"
				   "poll 2000000002 1\n"
				   "layer 3000000000 1 gone\n";
	char *got;

	text_dir();
	got = text_roundtrip(text);
	ck_assert_str_eq(got, text);
	free(got);
	text_dir_rm();
}
END_TEST

/* ------------------------------------------------------------ thread names (4.9) */

static struct frc_record thread_rec(uint64_t t, uint32_t pid, uint32_t tid, const char *name)
{
	struct frc_record r = {.type = FRC_THREAD, .ktime_ns = t};

	r.u.thread.pid = pid;
	r.u.thread.tid = tid;
	r.u.thread.len = (uint8_t)strlen(name);
	memcpy(r.u.thread.name, name, r.u.thread.len + 1);
	return r;
}

/* Open a capture of one raw entry of type 14 followed by an exit; expect it corrupt. */
static void thread_entry_corrupt(const uint8_t *p, size_t len)
{
	struct frc_record x = simple(FRC_EXIT, 11, 1), out[2];
	int fd = memfd_create("t", MFD_CLOEXEC);
	struct frc_reader_stats st;
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct capture c;

	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "t.frc", NULL, 0, NULL), 0);
	ck_assert_int_eq(frc_writer_append_raw_entry(w, FRC_THREAD, p, len), 0);
	ck_assert_int_eq(frc_writer_append(w, &x), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "t.frc"), 0);
	read_all(r, out, 2);
	frc_reader_stats(r, &st);
	ck_assert_msg(st.status == FRC_STATUS_CORRUPT, "len %zu: %s", len, frc_reader_error(r));
	frc_reader_close(r);
	capture_free(&c);
}

/*
 * Thread names (type 14): the extremes round-trip (a 15-byte name, tid and pid 2^32-1, any
 * byte but NUL), FORMAT.md 4.9's example bytes, what the writer refuses (empty, 16 bytes,
 * a NUL) and what the reader calls corrupt.
 */
START_TEST(thread_records_roundtrip)
{
	struct frc_record in[4], out[6], one;
	size_t n = 0;
	uint8_t body[64];

	in[n++] = thread_rec(1000, 4242, 4242, "GameThread");
	in[n++] = thread_rec(1001, 4242, 4301, "RenderThread");
	in[n++] = thread_rec(2000, UINT32_MAX, UINT32_MAX, "0123456789abcde");
	in[n++] = thread_rec(3000, 1, 2, "a b\t\xff");

	struct capture c = write_capture(in, n, (const size_t[]){2, 0}, NULL, 1);
	struct frc_reader_stats st;
	frc_reader *r = NULL;

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 6), n);
	for (size_t i = 0; i < n; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_uint_eq(st.by_type[FRC_THREAD], 4);
	ck_assert_uint_eq(st.unknown, 0);
	frc_reader_close(r);
	capture_free(&c);

	/* FORMAT.md 4.9's example: ktime 1000, pid 300, tid 301, "Ren": 0e 09 | e8 07 ac 02
	 * ad 02 52 65 6e. */
	static const uint8_t want[] = {0x0e, 0x09, 0xe8, 0x07, 0xac, 0x02,
				       0xad, 0x02, 0x52, 0x65, 0x6e};
	one = thread_rec(1000, 300, 301, "Ren");
	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want));
	ck_assert(!memcmp(body, want, sizeof(want)));
	capture_free(&c);

	struct frc_record bad[3] = {thread_rec(1, 2, 3, "x"), thread_rec(1, 2, 3, "x"),
				    thread_rec(1, 2, 3, "ab")};
	bad[0].u.thread.len = 0;
	bad[1].u.thread.len = 16;
	bad[2].u.thread.name[0] = '\0';
	for (int k = 0; k < 3; k++) {
		int fd = memfd_create("t", MFD_CLOEXEC);
		frc_writer *w = NULL;

		ck_assert_int_eq(frc_writer_open_fd(&w, fd, "t.frc", NULL, 0, NULL), 0);
		ck_assert_int_eq(frc_writer_append(w, &bad[k]), FRC_EINVAL);
		frc_writer_free(w);
		close(fd);
	}
	static const uint8_t noname[] = {0x01, 0x02, 0x03}, nul[] = {0x01, 0x02, 0x03, 'a', 0},
			     longname[] = {0x01, 0x02, 0x03, '0', '1', '2', '3', '4', '5', '6',
					   '7',	 '8',  '9',  'a', 'b', 'c', 'd', 'e', 'f', 'g'},
			     bigtid[] = {0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 0x03, 'a'};
	thread_entry_corrupt(noname, sizeof(noname));
	thread_entry_corrupt(nul, sizeof(nul));
	thread_entry_corrupt(longname, sizeof(longname));
	thread_entry_corrupt(bigtid, sizeof(bigtid));
}
END_TEST

/* The text form of thread names, canonical both ways (a name with blanks, escapes). */
START_TEST(thread_records_text)
{
	static const char text[] = "thread 1000 4242 4242 GameThread\n"
				   "thread 1001 4242 4301 RenderThread\n"
				   "thread 2000 4242 4301 a b\\tc\\xff\n";
	char *got;

	text_dir();
	got = text_roundtrip(text);
	ck_assert_str_eq(got, text);
	free(got);
	text_dir_rm();
}
END_TEST

/* The text form: a 4th drops field only when not 0, so older texts stay canonical. */
START_TEST(anomalies_text)
{
	static const char text[] = "drops 10 0 1\n"
				   "drops 20 7\n"
				   "drops 30 18446744073709551615 18446744073709551615\n";
	char *got;

	text_dir();
	got = text_roundtrip(text);
	ck_assert_str_eq(got, text);
	free(got);
	got = text_roundtrip("drops 40 7 0\n");
	ck_assert_str_eq(got, "drops 40 7\n");
	free(got);
	text_dir_rm();
}
END_TEST

/* ------------------------------------------------------------ buffers, connections (4.10, 4.11) */

static struct frc_record buffer_rec(uint64_t t, uint32_t pid, uint64_t surface, uint64_t buffer,
				    int32_t w, int32_t h, int32_t stride, int32_t format,
				    uint64_t usage)
{
	struct frc_record r = {.type = FRC_BUFFER, .ktime_ns = t};

	r.u.buffer = (struct frc_buffer){.pid = pid,
					 .surface = surface,
					 .buffer = buffer,
					 .width = w,
					 .height = h,
					 .stride = stride,
					 .format = format,
					 .usage = usage};
	return r;
}

static struct frc_record connect_rec(uint64_t t, uint32_t pid, uint32_t tid, uint64_t surface,
				     int32_t api, bool connected)
{
	struct frc_record r = {.type = FRC_CONNECT, .ktime_ns = t};

	r.u.connect = (struct frc_connect){
	    .pid = pid, .tid = tid, .surface = surface, .api = api, .connected = connected};
	return r;
}

/* Open a capture of one raw entry of `type` followed by an exit; expect it corrupt. */
static void entry_corrupt(uint64_t type, const uint8_t *p, size_t len)
{
	struct frc_record x = simple(FRC_EXIT, 11, 1), out[2];
	int fd = memfd_create("g", MFD_CLOEXEC);
	struct frc_reader_stats st;
	frc_writer *w = NULL;
	frc_reader *r = NULL;
	struct capture c;

	ck_assert_int_eq(frc_writer_open_fd(&w, fd, "g.frc", NULL, 0, NULL), 0);
	ck_assert_int_eq(frc_writer_append_raw_entry(w, type, p, len), 0);
	ck_assert_int_eq(frc_writer_append(w, &x), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	c = slurp_fd(fd);
	close(fd);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "g.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 2), 0);
	frc_reader_stats(r, &st);
	ck_assert_msg(st.status == FRC_STATUS_CORRUPT, "type %llu len %zu: %s",
		      (unsigned long long)type, len, frc_reader_error(r));
	frc_reader_close(r);
	capture_free(&c);
}

/* The geometry capture of the tests below: frames with their buffer and connect records. */
static size_t geometry_sample(struct frc_record *in)
{
	size_t n = 0;

	in[n++] = connect_rec(900, 4242, 4301, 0xb400007a0c001000ull, 1, true);
	in[n++] = buffer_rec(1000, 4242, 0xb400007a0c001000ull, 0xb400007a1c2e3000ull, 1080, 2400,
			     1088, 1, 0x300);
	in[n++] = frame(1000, 4242, 4301, 0xb400007a1c2e3000ull);
	in[n++] = buffer_rec(1016, 4242, 0xb400007a0c001000ull, 0xb400007a1c2e5000ull, 1080, 2400,
			     1088, 1, 0x300);
	in[n++] = frame(1016, 4242, 4301, 0xb400007a1c2e5000ull);
	in[n++] = drops(1020, 0, 0);
	in[n++] = drops(1030, 4, 0);
	in[n++] = buffer_rec(2000, UINT32_MAX, UINT64_MAX, UINT64_MAX, INT32_MIN, INT32_MAX, -1,
			     INT32_MIN, UINT64_MAX);
	in[n++] = buffer_rec(2001, 0, 0, 0, 0, 0, 0, 0, 0);
	in[n++] = drops(2002, 4, 1);
	in[n++] = connect_rec(3000, UINT32_MAX, UINT32_MAX, UINT64_MAX, INT32_MIN, false);
	in[n++] = connect_rec(3001, 1, 2, 0, INT32_MAX, true);
	in[n++] = connect_rec(3002, 4242, 4301, 0xb400007a0c001000ull, 5, false);
	in[n++] = drops(3003, UINT64_MAX, UINT64_MAX);
	in[n++] = drops(3004, 9, 0);
	return n;
}

/*
 * Buffer geometry and connections (types 15, 16) and the bad buffer count of drops (entry
 * 17): every field's extremes round-trip, with and without a batch anomaly count, across
 * chunks; the footer lists types up to 17; FORMAT.md's example bytes.
 */
START_TEST(geometry_records_roundtrip)
{
	struct frc_record in[20], out[24], one;
	size_t n = geometry_sample(in);
	uint8_t body[64];

	in[6].u.drops.bad_buffers = 2;		 /* bad buffers, no anomaly */
	in[9].u.drops.bad_buffers = 7;		 /* both */
	in[13].u.drops.bad_buffers = UINT64_MAX; /* both at their largest */
	struct capture c = write_capture(in, n, (const size_t[]){4, 3, 4, 0}, NULL, 1);
	struct frc_reader_stats st;
	frc_reader *r = NULL;

	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, 24), n);
	for (size_t i = 0; i < n; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_uint_eq(st.by_type[FRC_BUFFER], 4);
	ck_assert_uint_eq(st.by_type[FRC_CONNECT], 4);
	ck_assert_uint_eq(st.by_type[FRC_DROPS], 5);
	ck_assert_uint_eq(st.records, n);
	ck_assert_uint_eq(st.unknown, 0);
	ck_assert_uint_eq(st.chunks, 4);
	ck_assert_int_eq(st.index_used, 1);
	frc_reader_close(r);
	capture_free(&c);

	/* FORMAT.md 4.10's example. */
	static const uint8_t want_buffer[] = {0x0f, 0x13, 0xe8, 0x07, 0xac, 0x02, 0x80,
					      0xa0, 0x01, 0x80, 0xc0, 0x01, 0xf0, 0x10,
					      0xc0, 0x25, 0x80, 0x11, 0x02, 0x80, 0x06};
	one = buffer_rec(1000, 300, 0x5000, 0x6000, 1080, 2400, 1088, 1, 0x300);
	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want_buffer));
	ck_assert(!memcmp(body, want_buffer, sizeof(want_buffer)));
	capture_free(&c);
	/* 4.11's: a connect, and the same as a disconnect (its last byte). */
	static const uint8_t want_connect[] = {0x10, 0x0b, 0xe8, 0x07, 0xac, 0x02, 0xad,
					       0x02, 0x80, 0xa0, 0x01, 0x02, 0x01};
	for (int on = 0; on < 2; on++) {
		one = connect_rec(1000, 300, 301, 0x5000, 1, on);
		c = write_capture(&one, 1, NULL, NULL, 1);
		ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want_connect));
		ck_assert(!memcmp(body, want_connect, sizeof(want_connect) - 1));
		ck_assert_uint_eq(body[sizeof(want_connect) - 1], on);
		capture_free(&c);
	}
	/* 4.6's: drops 5 7 with 2 anomalies and 3 bad buffers: 11 01 03 | 08 01 02 | 03 02 05 07.
	 */
	static const uint8_t want_bad[] = {0x11, 0x01, 0x03, 0x08, 0x01,
					   0x02, 0x03, 0x02, 0x05, 0x07};
	one = drops(5, 7, 2);
	one.u.drops.bad_buffers = 3;
	c = write_capture(&one, 1, NULL, NULL, 1);
	ck_assert_uint_eq(first_body(&c, body, sizeof(body)), sizeof(want_bad));
	ck_assert(!memcmp(body, want_bad, sizeof(want_bad)));
	capture_free(&c);
}
END_TEST

/*
 * What the reader calls corrupt: a pid or tid over 2^32-1, a width/height/stride/format/api
 * outside int32, a connected byte other than 0 or 1, a payload cut short or with bytes
 * left over; a bad buffer entry of 0, with bytes left over, or not followed by a drops
 * record (directly or after an anomaly entry).
 */
START_TEST(geometry_records_damaged)
{
	/* ktime 1, pid 2, surface 3, buffer 4, w 1, h 2, stride 3, format 4 (zigzag), usage 5 */
	static const uint8_t ok[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x04, 0x06, 0x08, 0x05};
	static const uint8_t bigpid[] = {0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 0x03,
					 0x04, 0x02, 0x04, 0x06, 0x08, 0x05};
	static const uint8_t bigw[] = {0x01, 0x02, 0x03, 0x04, 0x80, 0x80, 0x80,
				       0x80, 0x10, 0x04, 0x06, 0x08, 0x05};
	static const uint8_t smallfmt[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x04, 0x06,
					   0x81, 0x80, 0x80, 0x80, 0x10, 0x05};
	static const uint8_t more[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x04, 0x06, 0x08, 0x05, 0x00};
	/* ktime 1, pid 2, tid 3, surface 4, api 1 (zigzag 2), connected 1 */
	static const uint8_t c_ok[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x01};
	static const uint8_t c_on2[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x02};
	static const uint8_t c_bigtid[] = {0x01, 0x02, 0x80, 0x80, 0x80,
					   0x80, 0x10, 0x04, 0x02, 0x01};
	static const uint8_t c_bigapi[] = {0x01, 0x02, 0x03, 0x04, 0x80,
					   0x80, 0x80, 0x80, 0x10, 0x01};
	static const uint8_t c_more[] = {0x01, 0x02, 0x03, 0x04, 0x02, 0x01, 0x00};

	for (size_t k = 0; k < sizeof(ok); k++) /* every cut of a valid payload */
		entry_corrupt(FRC_BUFFER, ok, k);
	entry_corrupt(FRC_BUFFER, bigpid, sizeof(bigpid));
	entry_corrupt(FRC_BUFFER, bigw, sizeof(bigw));
	entry_corrupt(FRC_BUFFER, smallfmt, sizeof(smallfmt));
	entry_corrupt(FRC_BUFFER, more, sizeof(more));
	for (size_t k = 0; k < sizeof(c_ok); k++)
		entry_corrupt(FRC_CONNECT, c_ok, k);
	entry_corrupt(FRC_CONNECT, c_on2, sizeof(c_on2));
	entry_corrupt(FRC_CONNECT, c_bigtid, sizeof(c_bigtid));
	entry_corrupt(FRC_CONNECT, c_bigapi, sizeof(c_bigapi));
	entry_corrupt(FRC_CONNECT, c_more, sizeof(c_more));

	static const uint8_t two[] = {0x02}, zero[] = {0x00}, extra[] = {0x02, 0x00};
	struct frc_record d = drops(10, 1, 0), x = simple(FRC_EXIT, 11, 1), out[4];
	const struct {
		const uint8_t *p;
		size_t len;
		const struct frc_record *after; /* NULL: the chunk ends */
		bool anomaly;			/* an anomaly entry comes between */
		const char *why;
	} cases[] = {
	    {two, sizeof(two), &x, false, "bad buffer entry not followed by a drops record"},
	    {two, sizeof(two), NULL, false, "bad buffer entry not followed by a drops record"},
	    {two, sizeof(two), &x, true, "batch anomaly entry not followed by a drops record"},
	    {zero, sizeof(zero), &d, false, "malformed bad buffer entry"},
	    {extra, sizeof(extra), &d, false, "malformed bad buffer entry"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int fd = memfd_create("b", MFD_CLOEXEC);
		struct frc_reader_stats st;
		frc_writer *w = NULL;
		frc_reader *r = NULL;
		struct capture c;

		ck_assert_int_eq(frc_writer_open_fd(&w, fd, "b.frc", NULL, 0, NULL), 0);
		ck_assert_int_eq(frc_writer_append_raw_entry(w, 17, cases[k].p, cases[k].len), 0);
		if (cases[k].anomaly)
			ck_assert_int_eq(frc_writer_append_raw_entry(w, 8, two, sizeof(two)), 0);
		if (cases[k].after)
			ck_assert_int_eq(frc_writer_append(w, cases[k].after), 0);
		ck_assert_int_eq(frc_writer_finish(w), 0);
		frc_writer_free(w);
		c = slurp_fd(fd);
		close(fd);
		ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "b.frc"), 0);
		ck_assert_uint_eq(read_all(r, out, 4), 0);
		frc_reader_stats(r, &st);
		ck_assert_msg(st.status == FRC_STATUS_CORRUPT, "case %zu: %s", k,
			      frc_reader_error(r));
		ck_assert_msg(strstr(frc_reader_error(r), cases[k].why), "case %zu: %s", k,
			      frc_reader_error(r));
		frc_reader_close(r);
		capture_free(&c);
	}
}
END_TEST

/*
 * A capture with the new records cut at every byte offset: exactly the records of the
 * chunks wholly before the cut, in order, and "truncated" (truncation_every_offset does
 * the same for the other types).
 */
START_TEST(geometry_truncation_every_offset)
{
	struct frc_record in[20], out[24];
	size_t n = geometry_sample(in), ends[8], hdr;
	static const size_t groups[] = {4, 3, 4, 0}, cum[] = {0, 4, 7, 11, 15};

	in[6].u.drops.bad_buffers = 2;
	in[9].u.drops.bad_buffers = 7;
	struct capture c = write_capture(in, n, groups, NULL, 1);

	ck_assert_uint_eq(chunk_ends(&c, &hdr, ends, 8), 4);
	for (size_t cut = hdr; cut <= c.len; cut++) {
		struct frc_reader_stats st;
		frc_reader *r = NULL;
		size_t whole = 0, got;

		ck_assert_int_eq(frc_reader_open_mem(&r, c.p, cut, "cut.frc"), 0);
		while (whole < 4 && ends[whole] <= cut)
			whole++;
		got = read_all(r, out, 24);
		ck_assert_msg(got == cum[whole], "cut %zu: %zu records, expected %zu", cut, got,
			      cum[whole]);
		for (size_t i = 0; i < got; i++)
			rec_assert_eq(&in[i], &out[i], i);
		frc_reader_stats(r, &st);
		ck_assert_int_eq(st.status,
				 cut == c.len ? FRC_STATUS_COMPLETE : FRC_STATUS_TRUNCATED);
		frc_reader_close(r);
	}
	capture_free(&c);
}
END_TEST

/*
 * The text form: buffer lines, connect and disconnect lines (one type, two keywords), and
 * drops with BAD_BUFFERS (after a BATCH_ANOMALIES of 0 when there are none), canonical both
 * ways; a drops line with a bad count of 0 is written without it.
 */
START_TEST(geometry_records_text)
{
	static const char text[] =
	    "connect 900 4242 4301 0xb400007a0c001000 1\n"
	    "buffer 1000 4242 0xb400007a0c001000 0xb400007a1c2e3000 1080 2400 1088 1 0x300\n"
	    "frame 1000 4242 4301 0xb400007a1c2e3000 0xb400007a0c001000\n"
	    "buffer 2000 4294967295 0xffffffffffffffff 0x0 -2147483648 2147483647 -1 0 "
	    "0xffffffffffffffff\n"
	    "drops 2001 4 0 3\n"
	    "drops 2002 4 1 18446744073709551615\n"
	    "drops 2003 4 2\n"
	    "disconnect 3000 4242 4301 0xb400007a0c001000 1\n"
	    "disconnect 3001 1 2 0x0 -7\n"
	    "connect 3002 4294967295 4294967295 0x1 -2147483648\n";
	char *got;

	text_dir();
	got = text_roundtrip(text);
	ck_assert_str_eq(got, text);
	free(got);
	got = text_roundtrip("drops 40 7 0 0\nconnect 41 1 2 0X1F 002\n");
	ck_assert_str_eq(got, "drops 40 7\nconnect 41 1 2 0x1f 2\n");
	free(got);
	text_dir_rm();
}
END_TEST

/* ------------------------------------------------------------ surfaces (issue 10) */

/*
 * Frames with surfaces come back with them: two PIDs, a main and an overlay surface
 * interleaved, surface 0 mixed in, and one run with more distinct surfaces than a column
 * holds (FRC_SURFACES_MAX, 256: the writer splits the run), across several chunks.
 */
START_TEST(surfaces_roundtrip)
{
	enum { N = 4000 };
	struct frc_record *in = calloc(N, sizeof(*in)), *out = calloc(N, sizeof(*out));
	frc_reader *r = NULL;
	struct frc_reader_stats st;
	struct capture c;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < N; i++) {
		uint32_t pid = i % 7 == 3 ? 88 : 77;

		in[i] =
		    frame(1000000 + i * 1000, pid, pid + (i % 6 == 5), 0x7000 + (i % 3) * 0x100);
		if (i < 1000)
			in[i].u.frame.surface =
			    i % 6 == 5 ? 0xb400007a0c002000 : 0xb400007a0c001000;
		else if (i < 1500)
			in[i].u.frame.surface = i % 5 == 0 ? 0 : 0x5000;
		else if (i < 2500)
			in[i].u.frame.surface = 0x100000 + i * 16; /* 1000 distinct in one run */
		/* 2500..3999: surface 0 only, no column at all */
	}
	c = write_capture(in, N, (const size_t[]){1200, 1200, 0}, NULL, 1);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, N), N);
	for (size_t i = 0; i < N; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_COMPLETE);
	ck_assert_uint_eq(st.unknown, 0);
	ck_assert_uint_eq(st.by_type[FRC_FRAME], N);
	frc_reader_close(r);
	capture_free(&c);
	free(in);
	free(out);
}
END_TEST

/*
 * Frame timestamps (FORMAT.md 4.7: the timestamp column, entry type 10, before the surface
 * column): runs with and without them, the extremes, several chunks, come back exactly;
 * the text form carries them (export, import: the same bytes); the entry of two frames,
 * the second with timestamp 5000, is 0a 06 | 02 01 01 01 90 4e, and it comes before the
 * surface column.
 */
START_TEST(timestamps_roundtrip)
{
	enum { N = 3000 };
	static const int64_t odd[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
	struct frc_record *in = calloc(N, sizeof(*in)), *out = calloc(N, sizeof(*out)), two[2];
	static const uint8_t want[] = {0x0a, 0x06, 0x02, 0x01, 0x01, 0x01, 0x90, 0x4e};
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	struct capture c;
	uint8_t body[256];
	size_t nts = 0;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < N; i++) {
		in[i] = frame(1000000 + i * 1000, 77, 78, 0x7000 + (i % 3) * 0x100);
		in[i].u.frame.surface = i < 2000 ? 0x5000 : 0;
		/* pairs of a batch call, 4 ms apart; none in 1000..1999 */
		if ((i < 1000 || i >= 2000) && i % 5 >= 3) {
			in[i].u.frame.has_timestamp = true;
			in[i].u.frame.timestamp = (int64_t)in[i].ktime_ns + (i % 5 == 4) * 4000000;
		}
		if (i >= 2990) {
			in[i].u.frame.has_timestamp = true;
			in[i].u.frame.timestamp = odd[i % 5];
		}
		nts += in[i].u.frame.has_timestamp;
	}
	c = write_capture(in, N, (const size_t[]){900, 1400, 0}, NULL, 1);
	ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "mem.frc"), 0);
	ck_assert_uint_eq(read_all(r, out, N), N);
	for (size_t i = 0; i < N; i++)
		rec_assert_eq(&in[i], &out[i], i);
	frc_reader_stats(r, &st);
	ck_assert_int_eq(st.status, FRC_STATUS_COMPLETE);
	ck_assert_uint_eq(st.unknown, 0);
	ck_assert_uint_eq(st.timestamped, nts);
	frc_reader_close(r);
	capture_free(&c);

	two[0] = frame(1000, 1, 2, 0x10);
	two[1] = frame(2000, 1, 2, 0x10);
	two[1].u.frame.has_timestamp = true;
	two[1].u.frame.timestamp = 5000;
	c = write_capture(two, 2, NULL, NULL, 1);
	ck_assert_uint_ge(first_body(&c, body, sizeof(body)), sizeof(want));
	ck_assert(!memcmp(body, want, sizeof(want)));
	capture_free(&c);
	two[0].u.frame.surface = two[1].u.frame.surface = 0x40;
	c = write_capture(two, 2, NULL, NULL, 1);
	ck_assert_uint_ge(first_body(&c, body, sizeof(body)), sizeof(want) + 2);
	ck_assert(!memcmp(body, want, sizeof(want)));
	ck_assert_uint_eq(body[sizeof(want)], 0x07); /* then the surface column */
	capture_free(&c);
	free(in);
	free(out);
}
END_TEST

/* A column that is not followed by a run, or describes another number of frames: corrupt. */
START_TEST(surfaces_damaged_column)
{
	/* n = 1, ndict = 1, dict_0 = 0x10 */
	static const uint8_t col1[] = {0x01, 0x01, 0x10}, col2[] = {0x02, 0x01, 0x10};
	struct frc_record f = frame(10, 1, 2, 3), t = simple(FRC_EXIT, 11, 1), out[4];
	const struct {
		const uint8_t *col;
		size_t len;
		int frame_after;
	} cases[] = {{col1, sizeof(col1), 0}, {col2, sizeof(col2), 1}};

	for (size_t k = 0; k < 2; k++) {
		int fd = memfd_create("s", MFD_CLOEXEC);
		struct frc_reader_stats st;
		frc_writer *w = NULL;
		frc_reader *r = NULL;
		struct capture c;

		ck_assert_int_eq(frc_writer_open_fd(&w, fd, "s.frc", NULL, 0, NULL), 0);
		ck_assert_int_eq(frc_writer_append_raw_entry(w, 7, cases[k].col, cases[k].len), 0);
		ck_assert_int_eq(frc_writer_append(w, cases[k].frame_after ? &f : &t), 0);
		ck_assert_int_eq(frc_writer_finish(w), 0);
		frc_writer_free(w);
		c = slurp_fd(fd);
		close(fd);
		ck_assert_int_eq(frc_reader_open_mem(&r, c.p, c.len, "s.frc"), 0);
		ck_assert_uint_eq(read_all(r, out, 4), 0);
		frc_reader_stats(r, &st);
		ck_assert_int_eq(st.status, FRC_STATUS_CORRUPT);
		ck_assert_msg(strstr(frc_reader_error(r), "surface column"), "%s",
			      frc_reader_error(r));
		frc_reader_close(r);
		capture_free(&c);
	}
}
END_TEST

/*
 * A capture with surface columns written from FORMAT.md alone (tests/format/gen_surfaces.py,
 * not libfrc_format): every frame gets the surface its column gives, in both column forms
 * (one value; run-length indexes).
 */
START_TEST(surfaces_foreign_capture)
{
	static const char want[] = "meta recorder gen_surfaces.py\n"
				   "frame 1000 7 8 0x10 0x5000\n"
				   "frame 2000 7 9 0x20 0x5000\n"
				   "frame 3000 7 8 0x10 0x6000\n"
				   "tick 3500\n"
				   "frame 4000 7 8 0x30 0xa000\n"
				   "frame 5000 7 8 0x40 0xa000\n"
				   "frame 6000 7 8 0x50 0x0\n";
	char *got = export_text(FORMAT_TEST_DIR "/surfaces_v1_1.frc", 0);

	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

/*
 * A capture of a later minor (1.9), written from FORMAT.md by tests/format/gen_future.py
 * (not by libfrc_format): a record type 40 this reader does not know, a 6th field in each
 * index entry, 40 per-type totals and a trailing footer field. Today's reader reads it
 * complete, counts the 3 type-40 entries as unknown, and delivers the rest exactly.
 */
START_TEST(future_minor_capture)
{
	static const char want[] = "meta recorder gen_future.py\n"
				   "meta clock CLOCK_MONOTONIC\n"
				   "frame 1000 7 8 0x10 0x0\n"
				   "tick 1100\n"
				   "exit 4000 7\n";
	struct frc_reader_stats st;
	frc_reader *r = NULL;
	struct frc_record out[8];
	unsigned maj, min;
	char *got = export_text(FORMAT_TEST_DIR "/future_v1_9.frc", 0);

	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_int_eq(frc_reader_open(&r, FORMAT_TEST_DIR "/future_v1_9.frc"), 0);
	frc_reader_version(r, &maj, &min);
	ck_assert_uint_eq(min, 9);
	ck_assert_uint_eq(read_all(r, out, 8), 3);
	frc_reader_stats(r, &st);
	ck_assert_str_eq(frc_status_name(st.status), "complete");
	ck_assert_int_eq(st.index_used, 1);
	ck_assert_uint_eq(st.chunks, 2);
	ck_assert_uint_eq(st.unknown, 3);
	ck_assert_uint_eq(st.records, 3);
	ck_assert_uint_eq(st.by_type[FRC_FRAME], 1);
	ck_assert_uint_eq(st.by_type[FRC_TICK], 1);
	ck_assert_uint_eq(st.by_type[FRC_EXIT], 1);
	ck_assert(st.first_ktime_ns == 1000 && st.last_ktime_ns == 4000);
	frc_reader_close(r);
}
END_TEST

/*
 * Writing the same text today gives the committed bytes. Compressed bytes depend on the
 * libzstd version, so with another version than the golden's (1.5.4) this is a skip.
 */
START_TEST(golden_bytes)
{
	char err[256], out[128];
	int fa, fb;
	struct capture a, b;

	if (ZSTD_versionNumber() != 10504) {
		fprintf(stderr, "SKIP: libzstd %s, the golden was written with 1.5.4\n",
			ZSTD_versionString());
		exit(77);
	}
	text_dir();
	snprintf(out, sizeof(out), "%s/g.frc", tdir);
	ck_assert_int_eq(
	    frc_text_import(FORMAT_TEST_DIR "/golden_v1_0.txt", out, NULL, err, sizeof(err)), 0);
	/* The writer writes 1.1 now; golden_v1_0.frc stays as it is (golden_read reads it). */
	fa = open(FORMAT_TEST_DIR "/golden_v1_1.frc", O_RDONLY);
	fb = open(out, O_RDONLY);
	a = slurp_fd(fa);
	b = slurp_fd(fb);
	ck_assert_uint_eq(a.len, 548);
	ck_assert_uint_eq(b.len, a.len);
	ck_assert(!memcmp(a.p, b.p, a.len));
	close(fa);
	close(fb);
	capture_free(&a);
	capture_free(&b);
	text_dir_rm();
}
END_TEST

/* ------------------------------------------------------------ CRC-32C paths */

/*
 * The path frc_crc32c must run here, asked of the CPU (cpuid) or the kernel (AT_HWCAP)
 * directly, not through the library: so a machine with the instruction whose library
 * wrongly falls back to the table (or the reverse) fails.
 */
static const char *crc_path_expected(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) ? "sse4.2" : "portable";
#elif defined(__aarch64__)
	return getauxval(AT_HWCAP) & (1ul << 7) ? "armv8-crc" : "portable"; /* HWCAP_CRC32 */
#else
	return "portable";
#endif
}

/* Published CRC-32C values: FORMAT.md 2 ("123456789") and RFC 3720 B.4 (the others). */
static void crc_vectors(frc_crc32c_fn f, const char *name)
{
	uint8_t zeros[32] = {0}, ones[32], up[32], down[32];

	for (int i = 0; i < 32; i++) {
		ones[i] = 0xFF;
		up[i] = (uint8_t)i;
		down[i] = (uint8_t)(31 - i);
	}
	ck_assert_msg(f(0, "123456789", 9) == 0xE3069283u, "%s: \"123456789\"", name);
	ck_assert_msg(f(0, zeros, 32) == 0x8A9136AAu, "%s: 32 zero bytes", name);
	ck_assert_msg(f(0, ones, 32) == 0x62A8AB43u, "%s: 32 0xff bytes", name);
	ck_assert_msg(f(0, up, 32) == 0x46DD794Eu, "%s: bytes 0..31", name);
	ck_assert_msg(f(0, down, 32) == 0x113FDB5Cu, "%s: bytes 31..0", name);
	ck_assert_msg(f(0, up, 0) == 0 && f(0x1234u, up, 0) == 0x1234u, "%s: no bytes", name);
	/* Chaining: the CRC of "1234" continued over "56789" is the CRC of the whole. */
	ck_assert_msg(f(f(0, "1234", 4), "56789", 5) == 0xE3069283u, "%s: chained", name);
}

START_TEST(crc32c_paths)
{
	static const size_t big[] = {511, 512, 513, 1000, 4095, 4096};
	const uint32_t seeds[] = {0, 0xFFFFFFFFu, 0x12345678u, 0x9E3779B9u};
	frc_crc32c_fn hw = frc_crc32c_hw();
	const char *want = crc_path_expected();
	uint8_t *buf = malloc(4096 + 16);
	uint64_t x = 0x5EED;
	size_t compared = 0;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < 4096 + 16; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(x >> 56);
	}
	printf("crc32c: frc_crc32c runs the %s path (this CPU: %s)\n", frc_crc32c_path(), want);
	ck_assert_str_eq(frc_crc32c_path(), want);
	ck_assert_int_eq(hw != NULL, strcmp(want, "portable") != 0);
	crc_vectors(frc_crc32c_portable, "portable");
	crc_vectors(frc_crc32c, frc_crc32c_path());
	if (!hw) {
		printf("crc32c: no CRC32C instruction here: only the portable path ran\n");
		free(buf);
		return;
	}
	crc_vectors(hw, "hardware");
	/* Every alignment of the head and the 8-byte loop, every tail length, several seeds. */
	for (size_t off = 0; off < 16; off++)
		for (size_t k = 0; k < 264 + sizeof(big) / sizeof(big[0]); k++)
			for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
				size_t len = k < 264 ? k : big[k - 264];

				ck_assert_msg(hw(seeds[s], buf + off, len) ==
						  frc_crc32c_portable(seeds[s], buf + off, len),
					      "offset %zu, length %zu, seed 0x%08x", off, len,
					      seeds[s]);
				compared++;
			}
	printf("crc32c: the %s path agrees with the portable one on %zu inputs\n",
	       frc_crc32c_path(), compared);
	free(buf);
}
END_TEST

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
		int timeout;
	} cases[] = {
	    FRC_CASE("roundtrip_all_types", roundtrip_all_types, 10),
	    FRC_CASE("roundtrip_edge_values", roundtrip_edge_values, 10),
	    FRC_CASE("roundtrip_frame_columns", roundtrip_frame_columns, 60),
	    FRC_CASE("writer_chunking", writer_chunking, 10),
	    FRC_CASE("writer_rejects_invalid", writer_rejects_invalid, 10),
	    FRC_CASE("writer_killed_midway", writer_killed_midway, 10),
	    FRC_CASE("truncation_every_offset", truncation_every_offset, 120),
	    FRC_CASE("byte_flip_every_offset", byte_flip_every_offset, 120),
	    FRC_CASE("not_a_capture_and_version", not_a_capture_and_version, 10),
	    FRC_CASE("reader_hostile_descriptors", reader_hostile_descriptors, 10),
	    FRC_CASE("reader_index_disagrees", reader_index_disagrees, 10),
	    FRC_CASE("unknown_types_skipped", unknown_types_skipped, 10),
	    FRC_CASE("reader_end_is_final", reader_end_is_final, 10),
	    FRC_CASE("recover_damaged_footer_or_index", recover_damaged_footer_or_index, 10),
	    FRC_CASE("recover_damaged_chunk0_indexed", recover_damaged_chunk0_indexed, 10),
	    FRC_CASE("recover_damaged_chunk0_unindexed", recover_damaged_chunk0_unindexed, 10),
	    FRC_CASE("recover_two_damaged_chunks", recover_two_damaged_chunks, 10),
	    FRC_CASE("zstd_cli_interop", zstd_cli_interop, 30),
	    FRC_CASE("determinism", determinism, 10),
	    FRC_CASE("text_roundtrip_canonical", text_roundtrip_canonical, 10),
	    FRC_CASE("text_import_normalizes", text_import_normalizes, 10),
	    FRC_CASE("text_import_deterministic", text_import_deterministic, 10),
	    FRC_CASE("text_import_errors", text_import_errors, 30),
	    FRC_CASE("text_export_damaged", text_export_damaged, 10),
	    FRC_CASE("text_format_helpers", text_format_helpers, 10),
	    FRC_CASE("golden_read", golden_read, 10),
	    FRC_CASE("golden_bytes", golden_bytes, 10),
	    FRC_CASE("reader_rejects_bad_meta_keys", reader_rejects_bad_meta_keys, 10),
	    FRC_CASE("reader_open_fifo", reader_open_fifo, 10),
	    FRC_CASE("text_import_refuses_special_output", text_import_refuses_special_output, 10),
	    FRC_CASE("text_import_header_limit", text_import_header_limit, 10),
	    FRC_CASE("foreign_encoder_choices", foreign_encoder_choices, 10),
	    FRC_CASE("surfaces_roundtrip", surfaces_roundtrip, 30),
	    FRC_CASE("timestamps_roundtrip", timestamps_roundtrip, 30),
	    FRC_CASE("surfaces_damaged_column", surfaces_damaged_column, 10),
	    FRC_CASE("surfaces_foreign_capture", surfaces_foreign_capture, 10),
	    FRC_CASE("anomalies_roundtrip", anomalies_roundtrip, 10),
	    FRC_CASE("anomalies_damaged", anomalies_damaged, 10),
	    FRC_CASE("anomalies_text", anomalies_text, 10),
	    FRC_CASE("v1_0_captures_decode_identically", v1_0_captures_decode_identically, 10),
	    FRC_CASE("future_minor_capture", future_minor_capture, 10),
	    FRC_CASE("spliced_recordings_corrupt", spliced_recordings_corrupt, 10),
	    FRC_CASE("chunk_record_limit", chunk_record_limit, 60),
	    FRC_CASE("type_table", type_table, 10),
	    FRC_CASE("display_records_roundtrip", display_records_roundtrip, 10),
	    FRC_CASE("display_records_text", display_records_text, 10),
	    FRC_CASE("thread_records_roundtrip", thread_records_roundtrip, 10),
	    FRC_CASE("thread_records_text", thread_records_text, 10),
	    FRC_CASE("geometry_records_roundtrip", geometry_records_roundtrip, 10),
	    FRC_CASE("geometry_records_damaged", geometry_records_damaged, 10),
	    FRC_CASE("geometry_truncation_every_offset", geometry_truncation_every_offset, 60),
	    FRC_CASE("geometry_records_text", geometry_records_text, 10),
	    FRC_CASE("crc32c_paths", crc32c_paths, 30),
	};

	Suite *s;
	SRunner *sr;
	int failed, found = 0;

	/* Not a case: what format.determinism runs in its child processes (and regenerates
	 * tests/format/determinism_v1_1.frc with). */
	if (argc == 3 && !strcmp(argv[1], "--write-determinism")) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		return fd < 0 || determinism_write(fd) || close(fd) ? 1 : 0;
	}
	s = suite_create("format");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc;

		if (argc > 1 && strcmp(argv[1], cases[i].name))
			continue;
		tc = tcase_create(cases[i].name);
		tcase_set_timeout(tc, cases[i].timeout);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
		found = 1;
	}
	if (!found) {
		fprintf(stderr, "test_format: no case '%s'\n", argv[1]);
		return 2;
	}
	sr = srunner_create(s);
	/* exit(77) inside a case must reach CTest as a skip: run in this process. */
	if (argc > 1)
		srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
