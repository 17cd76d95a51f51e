/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the writer: the input is read as a list of records (mostly frames,
 * with hostile times, PIDs, tids and buffers), written to a capture in memory and read
 * back. Every record must come back exactly, in order, and the capture must be complete.
 * This drives the column encoder (period fit, slot increments, residual widths up to 64
 * bits, dictionaries) with inputs no test thought of.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One record from 12 input bytes: a type selector, a time step, an id and a buffer. */
static void make(const uint8_t *p, uint64_t *t, struct frc_record *r)
{
	uint8_t sel = p[0];
	uint64_t step = get(p + 1, 4);

	/* Mostly small steps around 16.7 ms, sometimes a huge or backwards jump. */
	if (sel & 0x80)
		*t += step << (sel & 0x3F);
	else
		*t += 16000000 + (step & 0xFFFFF) - 0x80000;
	memset(r, 0, sizeof(*r));
	r->ktime_ns = *t;
	switch (sel % 16) {
	case 0:
		r->type = FRC_TICK;
		r->u.tick.has_result = p[5] & 1;
		r->u.tick.source = r->u.tick.has_result ? p[5] % 3 : 0;
		r->u.tick.fps_micro = r->u.tick.source ? get(p + 6, 6) : 0;
		break;
	case 1:
		r->type = FRC_SYSFS;
		r->u.sysfs.len = p[5] % 8;
		memcpy(r->u.sysfs.raw, p + 6, r->u.sysfs.len > 6 ? 6 : r->u.sysfs.len);
		break;
	case 2:
		r->type = FRC_DROPS;
		r->u.drops.cumulative = get(p + 5, 7);
		break;
	default:
		r->type = FRC_FRAME;
		r->u.frame.pid = p[5] % 5;
		r->u.frame.tid = p[6] % 3 ? r->u.frame.pid : p[6];
		r->u.frame.buffer =
		    p[7] & 1 ? 0x7f0000000000ull + (p[8] % 4) * 0x1000 : get(p + 8, 4) << 24;
		break;
	}
}

static int same(const struct frc_record *a, const struct frc_record *b)
{
	if (a->type != b->type || a->ktime_ns != b->ktime_ns)
		return 0;
	switch (a->type) {
	case FRC_FRAME:
		return a->u.frame.pid == b->u.frame.pid && a->u.frame.tid == b->u.frame.tid &&
		       a->u.frame.buffer == b->u.frame.buffer;
	case FRC_TICK:
		return a->u.tick.has_result == b->u.tick.has_result &&
		       a->u.tick.source == b->u.tick.source &&
		       a->u.tick.fps_micro == b->u.tick.fps_micro;
	case FRC_SYSFS:
		return a->u.sysfs.len == b->u.sysfs.len &&
		       !memcmp(a->u.sysfs.raw, b->u.sysfs.raw, a->u.sysfs.len);
	case FRC_DROPS:
		return a->u.drops.cumulative == b->u.drops.cumulative;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frc_writer_options opt = {0};
	size_t n = size < 1 ? 0 : (size - 1) / 12;
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
		make(data + 1 + 12 * k, &t, &recs[k]);
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
		if (i >= n || !same(&recs[i], &got))
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
