/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for SurfaceFlinger's dumpsys text (display/sf_dumpsys.h): the output of
 * another process, with layer names an app chooses (window titles). Any bytes are parsed as
 * `--list` (every line, then the layer pick for a package) and as `--latency` output; a
 * successful parse is merged twice, and each merge must stay inside the poll's rows. (That
 * a merge takes each row once is tested against FrameTracker's model in tests/display:
 * hostile text may repeat a row, which the merge, identifying rows by value, cannot tell.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sf_dumpsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Not CHECK(): the build type defines NDEBUG, and a broken invariant must stop the run. */
#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if (!(x))                                                                          \
			abort();                                                                   \
	} while (0)

static void fuzz_list(const char *text, size_t size)
{
	static struct sf_layer_name all[64];
	size_t n = 0, picked[64];
	const char *p = text, *end = text + size;

	while (p < end && n < 64) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (sf_list_line(p, len, &all[n])) {
			CHECK(all[n].len < SF_NAME_MAX && all[n].name[all[n].len] == '\0');
			CHECK(all[n].base_len <= all[n].len);
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	size_t k = sf_pick_layers(all, n, "com.pkg", picked, 64);
	for (size_t i = 0; i < k && i < 64; i++)
		CHECK(picked[i] < n);
}

static void fuzz_latency(const char *text, size_t size)
{
	static struct sf_latency lat;
	struct sf_present_merge m;
	uint32_t bad = 0;

	if (sf_latency_parse(text, size, &lat, &bad) != 0) {
		CHECK(bad >= 1);
		return;
	}
	CHECK(lat.n_rows <= SF_LATENCY_MAX_ROWS);
	sf_present_merge_init(&m);
	struct sf_poll_result a = sf_present_merge_poll(&m, &lat);
	CHECK(a.first + a.count + a.pending == lat.n_rows);
	struct sf_poll_result b = sf_present_merge_poll(&m, &lat);
	CHECK(b.first + b.count + b.pending == lat.n_rows);
	CHECK(m.rows_taken == (uint64_t)a.count + b.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_list((const char *)data, size);
	fuzz_latency((const char *)data, size);
	return 0;
}
