/* SPDX-License-Identifier: MIT */
/*
 * deflate.h - a small zlib-format compressor (RFC 1950 around RFC 1951): greedy LZ77 over a
 * 32 KiB window and one block of the fixed Huffman codes. What the Perfetto exporter needs
 * for TracePacket.compressed_packets, which trace processor inflates with zlib: no library
 * beyond the project's fixed ones, and the same bytes from the same input on every machine
 * (a zlib build's own choices do not enter the file). Any zlib inflates it.
 */
#ifndef FRAMEANALYZE_DEFLATE_H
#define FRAMEANALYZE_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */

/* The compressor's tables (about 192 KiB), reused from one call to the next. */
struct deflate_state;

FRC_MUST_USE int deflate_new(struct deflate_state **out); /* 0 or -ENOMEM */
void deflate_free(struct deflate_state *s);

/* The most deflate_zlib can write for n input bytes. */
size_t deflate_bound(size_t n);

/*
 * in[0..n) as one zlib stream into out (at least deflate_bound(n) bytes); the length
 * written. Deterministic: a function of the input alone.
 */
size_t deflate_zlib(struct deflate_state *s, const uint8_t *in, size_t n, uint8_t *out);

#endif
