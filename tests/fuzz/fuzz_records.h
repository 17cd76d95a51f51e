/* SPDX-License-Identifier: MIT */
/*
 * fuzz_records.h - fuzz input bytes as capture records, for the targets that need valid
 * captures with hostile content (fuzz_roundtrip: the writer; fuzz_analyze: everything a
 * replay drives). 12 input bytes make one record: mostly frames, with hostile times,
 * PIDs, tids, buffers, Surfaces and explicit timestamps, and every other record type.
 */
#ifndef FRC_FUZZ_RECORDS_H
#define FRC_FUZZ_RECORDS_H
#include <stdint.h>
#include <string.h>

#include "frc.h"

#define FUZZ_RECORD_BYTES 12

static inline uint64_t fuzz_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A frame's Surface: none (old captures), one of three, or any pointer. */
static inline uint64_t fuzz_surface(uint8_t sel, const uint8_t *p)
{
	switch ((sel >> 1) & 7) {
	case 0:
	case 1:
		return 0;
	case 2:
	case 3:
	case 4:
		return 0x7e0000000000ull + ((sel >> 1) & 7) * 0x100;
	default:
		return fuzz_get(p, 4) << 20;
	}
}

/*
 * Selector 2: a drops record (a quarter with batch anomalies, a quarter with bad buffers:
 * entries of their own, FORMAT.md 4.6), or a buffer or connect record (4.10, 4.11) with
 * any int32 geometry or api.
 */
static inline void fuzz_make_drops(const uint8_t *p, struct frc_record *r)
{
	switch (p[11] % 4) {
	case 0:
		r->type = FRC_BUFFER;
		r->u.buffer.pid = p[5] % 5;
		r->u.buffer.surface = fuzz_surface(p[6], p + 7);
		r->u.buffer.buffer = 0x7f0000000000ull + (p[7] % 4) * 0x1000;
		r->u.buffer.width = (int32_t)(uint32_t)fuzz_get(p + 7, 4);
		r->u.buffer.height = (int8_t)p[8] * 100;
		r->u.buffer.stride = (int32_t)(uint32_t)fuzz_get(p + 8, 3);
		r->u.buffer.format = (int8_t)p[9];
		r->u.buffer.usage = fuzz_get(p + 9, 3) << (p[10] % 48);
		break;
	case 1:
		r->type = FRC_CONNECT;
		r->u.connect.pid = p[5] % 5;
		r->u.connect.tid = p[6];
		r->u.connect.surface = fuzz_surface(p[7], p + 7);
		r->u.connect.api = (int32_t)(uint32_t)fuzz_get(p + 8, 4) >> (p[10] % 32);
		r->u.connect.connected = p[10] & 1;
		break;
	default:
		r->type = FRC_DROPS;
		r->u.drops.cumulative = fuzz_get(p + 5, 5);
		r->u.drops.batch_anomalies = p[10] & 3 ? 0 : fuzz_get(p + 10, 2) >> 2;
		r->u.drops.bad_buffers = p[10] & 12 ? 0 : fuzz_get(p + 9, 2) >> 4;
		break;
	}
}

/*
 * Selector 5: display capture (FORMAT.md 4.8) as a meter sees it: a vsync period (0, a
 * display's, or any), a present row of layer 1..3 (any actual, a vsync or -1), or a poll.
 */
static inline void fuzz_make_display(const uint8_t *p, uint64_t t, struct frc_record *r)
{
	switch (p[11] % 3) {
	case 0:
		r->type = FRC_VSYNC;
		r->u.vsync.period_ns = p[10] & 1 ? fuzz_get(p + 5, 5) : 8333333ull * (p[6] % 4);
		break;
	case 1:
		r->type = FRC_PRESENT;
		r->u.present.layer = 1 + p[5] % 3;
		/* in uint64_t: t may be near 2^63, where an int64_t difference overflows */
		r->u.present.desired = (int64_t)(t - fuzz_get(p + 6, 3));
		r->u.present.actual =
		    p[10] & 1 ? (int64_t)fuzz_get(p + 6, 5) << (p[9] % 24) : (int64_t)p[9] - 1;
		r->u.present.ready = r->u.present.desired;
		break;
	default:
		r->type = FRC_POLL;
		r->u.poll.layer = 1 + p[5] % 3;
		break;
	}
}

/* One record from FUZZ_RECORD_BYTES bytes at p; *t is the running time. */
static inline void fuzz_make_record(const uint8_t *p, uint64_t *t, struct frc_record *r)
{
	uint8_t sel = p[0];
	uint64_t step = fuzz_get(p + 1, 4);

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
		r->u.tick.fps_micro = r->u.tick.source ? fuzz_get(p + 6, 6) : 0;
		break;
	case 1:
		r->type = FRC_SYSFS;
		r->u.sysfs.len = p[5] % 8;
		memcpy(r->u.sysfs.raw, p + 6, r->u.sysfs.len > 6 ? 6 : r->u.sysfs.len);
		break;
	case 2:
		fuzz_make_drops(p, r);
		break;
	case 3:
		r->type = FRC_ATTACH;
		r->u.attach.pid = p[5] % 5;
		r->u.attach.len = p[6] % 4;
		memcpy(r->u.attach.symbol, "_ZN7", r->u.attach.len);
		break;
	case 4:
		r->type = FRC_EXIT;
		r->u.exit.pid = p[5] % 5;
		break;
	case 5:
		fuzz_make_display(p, *t, r);
		break;
	default:
		r->type = FRC_FRAME;
		r->u.frame.pid = p[5] % 5;
		r->u.frame.tid = p[6] % 3 ? r->u.frame.pid : p[6];
		r->u.frame.buffer =
		    p[7] & 1 ? 0x7f0000000000ull + (p[8] % 4) * 0x1000 : fuzz_get(p + 8, 4) << 24;
		r->u.frame.surface = fuzz_surface(p[7], p + 8);
		/* an explicit timestamp: a little ahead of the call, or any */
		r->u.frame.has_timestamp = (p[9] & 0x30) == 0x30;
		if (r->u.frame.has_timestamp)
			r->u.frame.timestamp = p[10] & 1
						   ? (int64_t)fuzz_get(p + 8, 4) << 30
						   : (int64_t)(*t + fuzz_get(p + 10, 2) * 1000);
		break;
	}
}

/* Whether two records are the same record, field for field. */
static inline int fuzz_same_record(const struct frc_record *a, const struct frc_record *b)
{
	if (a->type != b->type || a->ktime_ns != b->ktime_ns)
		return 0;
	switch (a->type) {
	case FRC_FRAME:
		return a->u.frame.pid == b->u.frame.pid && a->u.frame.tid == b->u.frame.tid &&
		       a->u.frame.buffer == b->u.frame.buffer &&
		       a->u.frame.surface == b->u.frame.surface &&
		       a->u.frame.has_timestamp == b->u.frame.has_timestamp &&
		       (!a->u.frame.has_timestamp || a->u.frame.timestamp == b->u.frame.timestamp);
	case FRC_VSYNC:
		return a->u.vsync.period_ns == b->u.vsync.period_ns;
	case FRC_PRESENT:
		return a->u.present.layer == b->u.present.layer &&
		       a->u.present.desired == b->u.present.desired &&
		       a->u.present.actual == b->u.present.actual &&
		       a->u.present.ready == b->u.present.ready;
	case FRC_POLL:
		return a->u.poll.layer == b->u.poll.layer;
	case FRC_TICK:
		return a->u.tick.has_result == b->u.tick.has_result &&
		       a->u.tick.source == b->u.tick.source &&
		       a->u.tick.fps_micro == b->u.tick.fps_micro;
	case FRC_SYSFS:
		return a->u.sysfs.len == b->u.sysfs.len &&
		       !memcmp(a->u.sysfs.raw, b->u.sysfs.raw, a->u.sysfs.len);
	case FRC_DROPS:
		return a->u.drops.cumulative == b->u.drops.cumulative &&
		       a->u.drops.batch_anomalies == b->u.drops.batch_anomalies &&
		       a->u.drops.bad_buffers == b->u.drops.bad_buffers;
	case FRC_BUFFER:
		return !memcmp(&a->u.buffer, &b->u.buffer, sizeof(a->u.buffer));
	case FRC_CONNECT:
		return a->u.connect.pid == b->u.connect.pid &&
		       a->u.connect.tid == b->u.connect.tid &&
		       a->u.connect.surface == b->u.connect.surface &&
		       a->u.connect.api == b->u.connect.api &&
		       a->u.connect.connected == b->u.connect.connected;
	case FRC_ATTACH:
		return a->u.attach.pid == b->u.attach.pid && a->u.attach.len == b->u.attach.len &&
		       !memcmp(a->u.attach.symbol, b->u.attach.symbol, a->u.attach.len);
	case FRC_EXIT:
		return a->u.exit.pid == b->u.exit.pid;
	}
	return 0;
}
#endif
