/* SPDX-License-Identifier: MIT */
/*
 * test_deflate.c - analyzer/export/deflate.c against an independent inflater: Python's zlib
 * (zlib.decompress checks the stream, its Adler-32 included) must give back every input,
 * byte for byte; the output stays within deflate_bound; the same input gives the same bytes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deflate.h"
#include "frc_case_run.h"

/* in[0..n) deflated, inflated by python3's zlib, and compared; the compressed size. */
static size_t roundtrip(const uint8_t *in, size_t n)
{
	char zpath[] = "/tmp/test_deflate.XXXXXX", cmd[256];
	struct deflate_state *s;
	uint8_t *z = malloc(deflate_bound(n)), *back = malloc(n + 1);
	size_t zn, got;
	FILE *f, *p;
	int fd = mkstemp(zpath);

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(z);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(deflate_new(&s), 0);
	zn = deflate_zlib(s, in, n, z);
	ck_assert_uint_le(zn, deflate_bound(n));
	f = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(z, 1, zn, f), zn);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.decompress("
		 "open(sys.argv[1], \"rb\").read()))' %s",
		 zpath);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	got = fread(back, 1, n + 1, p);
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_uint_eq(got, n);
	ck_assert_int_eq(memcmp(back, in, n), 0);
	/* the same input again, after another one: the same bytes (nothing carried over) */
	{
		uint8_t *z2 = malloc(deflate_bound(n > 25 ? n : 25));

		ck_assert_ptr_nonnull(z2);
		(void)deflate_zlib(s, (const uint8_t *)"other input, other tables", 25, z2);
		ck_assert_uint_eq(deflate_zlib(s, in, n, z2), zn);
		ck_assert_int_eq(memcmp(z, z2, zn), 0);
		free(z2);
	}
	deflate_free(s);
	unlink(zpath);
	free(z);
	free(back);
	return zn;
}

/* A deterministic pseudo-random byte stream (xorshift64). */
static void noise(uint8_t *b, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		b[i] = (uint8_t)(seed >> 32);
	}
}

START_TEST(small_inputs)
{
	static const uint8_t one[1] = {0x0a};
	uint8_t all[256];

	ck_assert_uint_eq(roundtrip(one, 0), 2 + 2 + 4); /* header, the block's 10 bits, adler */
	roundtrip(one, 1);
	roundtrip((const uint8_t *)"abcabcabcabc", 12);
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i; /* every literal, both code lengths */
	roundtrip(all, sizeof(all));
}
END_TEST

/* Runs: the longest match (258), overlapping matches (distance 1), every length code. */
START_TEST(runs_and_lengths)
{
	size_t n = 0, cap = 1 << 16;
	uint8_t *b = malloc(cap);

	ck_assert_ptr_nonnull(b);
	memset(b, 'x', 5000);
	ck_assert_uint_lt(roundtrip(b, 5000), 5000 / 50); /* 20 matches of 258 and some bits */
	for (unsigned len = 3; len <= 300 && n + 2 * len + 2 < cap; len++) {
		b[n++] = (uint8_t)len; /* a marker, then the run twice: a match of that length */
		for (int rep = 0; rep < 2; rep++)
			for (unsigned i = 0; i < len; i++)
				b[n++] = (uint8_t)('a' + (i * 7 + len) % 26);
	}
	roundtrip(b, n);
	free(b);
}
END_TEST

/* Matches at the window's edge: distance 32768 is the farthest a stream can say. */
START_TEST(window_edge)
{
	size_t n = 32768 + 64;
	uint8_t *b = malloc(3 * n);

	ck_assert_ptr_nonnull(b);
	noise(b, 3 * n, 0x9e3779b97f4a7c15ull);
	memcpy(b + 32768, b, 64);	  /* distance exactly 32768 */
	memcpy(b + n + 32769, b + n, 64); /* one past it: no match may reach it */
	roundtrip(b, 3 * n);
	free(b);
}
END_TEST

/* Incompressible bytes stay within the bound; a bundle's worth of packets shrinks. */
START_TEST(noise_and_packets)
{
	size_t n = 256 * 1024, k = 0, zn;
	uint8_t *b = malloc(n);
	uint64_t seed = 42;

	ck_assert_ptr_nonnull(b);
	noise(b, n, 7);
	roundtrip(b, n);
	/* packet-like: the same fields, with varint deltas that jitter */
	while (k + 16 < n) {
		uint64_t d;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		d = 16666666 + seed % 400000;
		b[k++] = 0x0a, b[k++] = 12, b[k++] = 0x08;
		for (int i = 0; i < 4; i++, d >>= 7)
			b[k++] = (uint8_t)(d & 0x7f) | (i < 3 ? 0x80 : 0);
		b[k++] = 0x50, b[k++] = 0x01, b[k++] = 0x58, b[k++] = 0x02, b[k++] = 0x5a;
		b[k++] = 0x02, b[k++] = 0x10, b[k++] = 0x02;
	}
	zn = roundtrip(b, k);
	ck_assert_uint_lt(zn, k / 2);
	free(b);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("small_inputs", small_inputs, 30),
	    FRC_CASE("runs_and_lengths", runs_and_lengths, 30),
	    FRC_CASE("window_edge", window_edge, 30),
	    FRC_CASE("noise_and_packets", noise_and_packets, 60),
	};

	return frc_case_run("deflate", cases, FRC_NCASES(cases), argc, argv);
}
