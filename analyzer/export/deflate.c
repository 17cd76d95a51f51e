/* SPDX-License-Identifier: MIT */
/*
 * deflate.c - a zlib stream of one fixed-Huffman deflate block (see deflate.h).
 *
 * RFC 1951 3.2.6's fixed codes need no code table in the stream; on the exporter's packets
 * (small varint-heavy messages that repeat with other numbers) LZ77's matches carry the
 * gain, and a dynamic-Huffman block would add a few percent for twice the code.
 */
#include "deflate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW (1u << 15) /* RFC 1951: distances up to 32768 */
#define HASH_BITS 15
#define MIN_MATCH 3
#define MAX_MATCH 258
#define CHAIN_MAX 8 /* candidates looked at per position: speed over the last bytes */

struct deflate_state {
	int32_t head[1u << HASH_BITS]; /* the newest position with this hash, -1: none */
	int32_t prev[WINDOW];	       /* the position before it with the same hash */
	/* the fixed literal/length codes, bits reversed, and their lengths (deflate_new) */
	uint16_t lit_code[288];
	uint8_t lit_len[288];
	uint8_t len_code[MAX_MATCH + 1];    /* a match length's code, 0..28 */
	uint8_t dist_code_lo[512];	    /* a distance's code: d - 1 < 512 ... */
	uint8_t dist_code_hi[WINDOW / 128]; /* ... else by (d - 1) >> 7 (zlib's trick) */
};

/* The output, written least significant bit first (RFC 1951 3.1.1). */
struct bits {
	uint8_t *out;
	size_t n;
	uint64_t acc;
	unsigned used;
};

static void put_bits(struct bits *b, uint32_t v, unsigned count)
{
	b->acc |= (uint64_t)v << b->used;
	b->used += count;
	while (b->used >= 8) {
		b->out[b->n++] = (uint8_t)b->acc;
		b->acc >>= 8;
		b->used -= 8;
	}
}

/* The bits of a Huffman code reversed: it goes most significant bit first. */
static uint32_t reversed(uint32_t code, unsigned len)
{
	uint32_t r = 0;

	for (unsigned i = 0; i < len; i++)
		r |= ((code >> i) & 1u) << (len - 1 - i);
	return r;
}

/* A literal/length symbol's fixed code (RFC 1951 3.2.6) and its length. */
static void fixed_code(unsigned sym, uint32_t *code, unsigned *len)
{
	if (sym < 144)
		*code = 0x30 + sym, *len = 8;
	else if (sym < 256)
		*code = 0x190 + sym - 144, *len = 9;
	else if (sym < 280)
		*code = sym - 256, *len = 7;
	else
		*code = 0xc0 + sym - 280, *len = 8;
}

static void put_litlen(const struct deflate_state *s, struct bits *b, unsigned sym)
{
	put_bits(b, s->lit_code[sym], s->lit_len[sym]);
}

static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,	 9,   10,  11, 13,
				      15, 17, 19, 23,  27,  31,	 35,  43,  51, 59,
				      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,	 2,   3,   4,	5,   7,	   9,	 13,   17,   25,   33,	 49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,	3,  3,	4,  4,	5,  5,	6,
				       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The largest i with table[i] <= v (v >= table[0]). */
static unsigned code_of(const uint16_t *table, unsigned n, unsigned v)
{
	unsigned i = 0;

	while (i + 1 < n && table[i + 1] <= v)
		i++;
	return i;
}

/* A match: its length code and extra bits, its distance code (5 fixed bits) and extra bits. */
static void put_match(const struct deflate_state *s, struct bits *b, unsigned len, unsigned dist)
{
	unsigned lc = s->len_code[len];
	unsigned dc = dist <= 512 ? s->dist_code_lo[dist - 1] : s->dist_code_hi[(dist - 1) >> 7];

	put_litlen(s, b, 257 + lc);
	put_bits(b, len - len_base[lc], len_extra[lc]);
	put_bits(b, reversed(dc, 5), 5);
	put_bits(b, dist - dist_base[dc], dist_extra[dc]);
}

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

	return (v * 2654435761u) >> (32 - HASH_BITS);
}

static void insert(struct deflate_state *s, const uint8_t *in, size_t pos)
{
	uint32_t h = hash3(in + pos);

	s->prev[pos % WINDOW] = s->head[h];
	s->head[h] = (int32_t)pos;
}

/* The longest earlier match at pos (length 0 when shorter than MIN_MATCH), its distance. */
static unsigned longest(const struct deflate_state *s, const uint8_t *in, size_t n, size_t pos,
			unsigned *dist)
{
	size_t max = n - pos < MAX_MATCH ? n - pos : MAX_MATCH;
	int32_t cand = s->head[hash3(in + pos)];
	unsigned best = 0;

	for (unsigned chain = 0; cand >= 0 && chain < CHAIN_MAX; chain++) {
		size_t c = (size_t)cand, len = 0;

		if (pos - c > WINDOW)
			break;
		while (len < max && in[c + len] == in[pos + len])
			len++;
		if (len > best) {
			best = (unsigned)len;
			*dist = (unsigned)(pos - c);
			if (len == max)
				break;
		}
		/* prev of a position older than the window is stale: stop at the window's edge */
		if (pos - c >= WINDOW - 1)
			break;
		cand = s->prev[c % WINDOW];
		if (cand >= 0 && (size_t)cand >= c)
			break; /* a slot reused by a newer position: the chain has ended */
	}
	return best >= MIN_MATCH ? best : 0;
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n) {
		size_t run = n < 5552 ? n : 5552; /* no overflow before the modulo (zlib's NMAX) */

		n -= run;
		while (run--) {
			a += *p++;
			b += a;
		}
		a %= 65521u;
		b %= 65521u;
	}
	return b << 16 | a;
}

int deflate_new(struct deflate_state **out)
{
	struct deflate_state *s = malloc(sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	for (unsigned sym = 0; sym < 288; sym++) {
		uint32_t code;
		unsigned len;

		fixed_code(sym, &code, &len);
		s->lit_code[sym] = (uint16_t)reversed(code, len);
		s->lit_len[sym] = (uint8_t)len;
	}
	for (unsigned len = MIN_MATCH; len <= MAX_MATCH; len++)
		s->len_code[len] = (uint8_t)code_of(len_base, 29, len);
	for (unsigned d = 1; d <= 512; d++)
		s->dist_code_lo[d - 1] = (uint8_t)code_of(dist_base, 30, d);
	/* above 512 every code's range starts at a multiple of 128 plus 1 */
	for (unsigned i = 4; i < WINDOW / 128; i++)
		s->dist_code_hi[i] = (uint8_t)code_of(dist_base, 30, i * 128 + 1);
	return 0;
}

void deflate_free(struct deflate_state *s)
{
	free(s);
}

size_t deflate_bound(size_t n)
{
	/* a literal takes at most 9 bits; header, block header, end code, adler32, the last byte */
	return n + n / 8 + 16;
}

size_t deflate_zlib(struct deflate_state *s, const uint8_t *in, size_t n, uint8_t *out)
{
	struct bits b = {.out = out};
	uint32_t adler = adler32(in, n);
	size_t pos = 0;

	memset(s->head, 0xff, sizeof(s->head));
	out[b.n++] = 0x78;  /* CM 8 (deflate), CINFO 7 (32 KiB window) */
	out[b.n++] = 0x01;  /* FLEVEL 0, no dictionary; 0x7801 is a multiple of 31 */
	put_bits(&b, 1, 1); /* BFINAL: the only block */
	put_bits(&b, 1, 2); /* BTYPE 01: fixed Huffman codes */
	while (pos < n) {
		unsigned len = 0, dist = 0;

		if (n - pos >= MIN_MATCH)
			len = longest(s, in, n, pos, &dist);
		if (!len) {
			put_litlen(s, &b, in[pos]);
			if (n - pos >= MIN_MATCH)
				insert(s, in, pos);
			pos++;
			continue;
		}
		put_match(s, &b, len, dist);
		for (size_t end = pos + len; pos < end; pos++)
			if (n - pos >= MIN_MATCH)
				insert(s, in, pos);
	}
	put_litlen(s, &b, 256); /* end of block */
	if (b.used)
		put_bits(&b, 0, 8 - b.used);
	for (int i = 3; i >= 0; i--)
		out[b.n++] = (uint8_t)(adler >> (8 * i));
	return b.n;
}
