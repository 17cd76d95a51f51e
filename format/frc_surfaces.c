/* SPDX-License-Identifier: MIT */
/*
 * frc_surfaces.c - the surface column of a frame run (FORMAT.md 4.5, entry type 7).
 *
 * Which Surface queued each frame is kept in an entry of its own, written right before
 * the frame run it describes, and only when some frame of that run has a surface other
 * than 0. A reader that does not know entry type 7 skips it and still reads every frame
 * (with surface 0), so captures with surfaces stay readable by every 1.x reader from 1.1
 * on, and captures without surfaces are byte for byte what they were.
 *
 * The column is a dictionary of the run's distinct surfaces (in order of first use) and,
 * when there are several, run-length encoded dictionary indexes in the frames' order:
 * a game's surfaces alternate in long runs (the main surface's frames between two overlay
 * frames), and zstd takes what regularity is left.
 */
#include <stdlib.h>
#include <string.h>

#include "frc_internal.h"

/* The dictionary index of each frame into idx; the distinct values into dict. */
static uint32_t surface_dict(const struct frc_run_frame *f, size_t n, uint64_t *dict, uint32_t *idx)
{
	uint32_t ndict = 0;

	/* Surfaces per run are few (one per BufferQueue): a linear search is enough. */
	for (size_t i = 0; i < n; i++) {
		uint32_t j = 0;

		while (j < ndict && dict[j] != f[i].surface)
			j++;
		if (j == ndict)
			dict[ndict++] = f[i].surface;
		idx[i] = j;
	}
	return ndict;
}

int frc_surfaces_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n)
{
	struct frc_buf b = {0};
	uint64_t dict[FRC_SURFACES_MAX];
	uint32_t *idx = malloc(n * sizeof(*idx));
	uint32_t ndict;

	if (!idx)
		return FRC_ENOMEM;
	ndict = surface_dict(f, n, dict, idx);
	if (ndict > FRC_SURFACES_MAX) {
		free(idx);
		return FRC_EINVAL;
	}
	frc_buf_varint(&b, n);
	frc_buf_varint(&b, ndict);
	for (uint32_t j = 0; j < ndict; j++)
		frc_buf_varint(&b, j ? frc_zigzag((int64_t)(dict[j] - dict[j - 1])) : dict[0]);
	if (ndict > 1) {
		size_t nruns = 0;

		for (size_t i = 0; i < n; i++)
			nruns += i == 0 || idx[i] != idx[i - 1];
		frc_buf_varint(&b, nruns);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && idx[j] == idx[i]; j++)
				;
			frc_buf_varint(&b, idx[i]);
			frc_buf_varint(&b, j - i);
		}
	}
	free(idx);
	frc_buf_varint(out, FRC_ENTRY_SURFACES);
	frc_buf_varint(out, b.len);
	frc_buf_put(out, b.p, b.len);
	frc_buf_free(&b);
	return b.oom ? FRC_ENOMEM : 0;
}

int frc_surfaces_apply(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t n,
		       const char **what)
{
	struct frc_cur c = {.p = p, .len = len};
	uint64_t dict[FRC_SURFACES_MAX], count, ndict, v, nruns = 1;
	size_t at = 0;

	*what = "malformed surface column";
	frc_cur_varint(&c, &count);
	frc_cur_varint(&c, &ndict);
	if (c.bad || count != n || ndict == 0 || ndict > n || ndict > FRC_SURFACES_MAX)
		return FRC_ECORRUPT;
	for (uint64_t j = 0; j < ndict; j++) {
		frc_cur_varint(&c, &v);
		dict[j] = j ? dict[j - 1] + (uint64_t)frc_unzigzag(v) : v;
	}
	if (ndict > 1)
		frc_cur_varint(&c, &nruns);
	if (c.bad || nruns == 0 || nruns > n)
		return FRC_ECORRUPT;
	for (uint64_t r = 0; r < nruns; r++) {
		uint64_t j = 0, length = n;

		if (ndict > 1) {
			frc_cur_varint(&c, &j);
			frc_cur_varint(&c, &length);
		}
		if (c.bad || j >= ndict || length == 0 || length > n - at)
			return FRC_ECORRUPT;
		for (uint64_t i = 0; i < length; i++)
			f[at++].surface = dict[j];
	}
	return at == n && c.pos == c.len ? 0 : FRC_ECORRUPT;
}
