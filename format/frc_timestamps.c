/* SPDX-License-Identifier: MIT */
/*
 * frc_timestamps.c - the timestamp column of a frame run (FORMAT.md 4.7, entry type 10).
 *
 * A frame may carry a timestamp of its own besides its ktime: framerec records a batch
 * element's (Surface::queueBuffers: BatchQueuedBuffer.timestamp, when the app set one), so
 * two frames queued in one call keep their two times. Few frames have one, so the column
 * is an entry of its own, written before the run it describes (before its surface column,
 * if any) and only when some frame of the run has a timestamp: a reader that does not know
 * type 10 skips it and reads every frame without, and captures without timestamps are byte
 * for byte what they were.
 *
 * Which frames have one: runs of (frames without, frames with) in the frames' run order;
 * then the values in that order, each as the zigzag difference from the one before (the
 * first from 0): a batch's timestamps are a few milliseconds apart.
 */
#include <stdlib.h>

#include "frc_internal.h"

bool frc_timestamps_any(const struct frc_run_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].has_timestamp)
			return true;
	return false;
}

int frc_timestamps_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n)
{
	struct frc_buf b = {0};
	size_t nruns = 0;
	int64_t prev = 0;

	for (size_t i = 0; i < n; i++)
		nruns += f[i].has_timestamp && (i == 0 || !f[i - 1].has_timestamp);
	frc_buf_varint(&b, n);
	frc_buf_varint(&b, nruns);
	for (size_t i = 0, j, k; i < n; i = k) {
		for (j = i; j < n && !f[j].has_timestamp; j++)
			;
		if (j == n)
			break; /* the frames after the last run have none */
		for (k = j; k < n && f[k].has_timestamp; k++)
			;
		frc_buf_varint(&b, j - i);
		frc_buf_varint(&b, k - j);
	}
	for (size_t i = 0; i < n; i++) {
		if (!f[i].has_timestamp)
			continue;
		frc_buf_varint(&b,
			       frc_zigzag((int64_t)((uint64_t)f[i].timestamp - (uint64_t)prev)));
		prev = f[i].timestamp;
	}
	frc_buf_varint(out, FRC_ENTRY_TIMESTAMPS);
	frc_buf_varint(out, b.len);
	frc_buf_put(out, b.p, b.len);
	frc_buf_free(&b);
	return b.oom ? FRC_ENOMEM : 0;
}

int frc_timestamps_apply(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t n,
			 const char **what)
{
	struct frc_cur c = {.p = p, .len = len};
	uint64_t count, nruns, skip, with, v;
	uint64_t prev = 0;
	size_t at = 0;

	*what = "malformed timestamp column";
	frc_cur_varint(&c, &count);
	frc_cur_varint(&c, &nruns);
	if (c.bad || count != n || nruns == 0 || nruns > n)
		return FRC_ECORRUPT;
	for (uint64_t r = 0; r < nruns; r++) {
		frc_cur_varint(&c, &skip);
		frc_cur_varint(&c, &with);
		/* Runs are maximal: only the first may start at once. */
		if (c.bad || (r && skip == 0) || with == 0 || skip > n - at || with > n - at - skip)
			return FRC_ECORRUPT;
		at += (size_t)skip;
		for (uint64_t i = 0; i < with; i++)
			f[at++].has_timestamp = true;
	}
	for (size_t i = 0; i < n; i++) {
		if (!f[i].has_timestamp)
			continue;
		frc_cur_varint(&c, &v);
		if (c.bad)
			return FRC_ECORRUPT;
		prev += (uint64_t)frc_unzigzag(v);
		f[i].timestamp = (int64_t)prev;
	}
	return c.pos == c.len ? 0 : FRC_ECORRUPT;
}
