/* SPDX-License-Identifier: MIT */
/* frc_util.c - varints and byte buffers shared by the writer and the reader. */
#include <stdlib.h>
#include <string.h>

#include "frc_internal.h"

uint32_t frc_bind_seed(unsigned minor, const uint8_t header_crc_le[4])
{
	return minor == 0 ? 0 : frc_crc32c(0, header_crc_le, 4);
}

void frc_buf_free(struct frc_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int buf_reserve(struct frc_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return -1;
	if (b->cap - b->len >= n)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void frc_buf_put(struct frc_buf *b, const void *data, size_t n)
{
	if (n == 0 || buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void frc_buf_u8(struct frc_buf *b, uint8_t v)
{
	frc_buf_put(b, &v, 1);
}

void frc_buf_le32(struct frc_buf *b, uint32_t v)
{
	uint8_t t[4];

	frc_put_le32(t, v);
	frc_buf_put(b, t, 4);
}

void frc_buf_varint(struct frc_buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	frc_buf_put(b, t, n);
}

size_t frc_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * Only the canonical (shortest) encoding is accepted: the writer never emits another, so
 * anything else is damage. The 10th byte may only carry the top bit of a u64.
 */
size_t frc_varint_decode(const uint8_t *p, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < len && i < 10; i++) {
		uint8_t c = p[i];

		if (i == 9 && c > 1)
			return 0;
		x |= (uint64_t)(c & 0x7F) << (7 * i);
		if (!(c & 0x80)) {
			if (c == 0 && i > 0)
				return 0;
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

int frc_cur_varint_long(struct frc_cur *c, uint64_t *v)
{
	size_t n;

	*v = 0;
	if (c->bad)
		return -1;
	n = frc_varint_decode(c->p + c->pos, c->len - c->pos, v);
	if (!n) {
		c->bad = 1;
		*v = 0;
		return -1;
	}
	c->pos += n;
	return 0;
}

const uint8_t *frc_cur_bytes(struct frc_cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || c->len - c->pos < n) {
		c->bad = 1;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

int frc_meta_key_ok(const char *k, size_t n)
{
	if (n == 0 || n > FRC_META_KEY_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_' ||
		      k[i] == '.'))
			return 0;
	return 1;
}

const char *frc_source_name(unsigned source, const char *none)
{
	switch (source) {
	case FRC_SOURCE_SYSFS:
		return "sysfs";
	case FRC_SOURCE_EBPF:
		return "ebpf";
	default:
		return none;
	}
}

int frc_source_parse(const char *s, size_t n)
{
	for (unsigned src = FRC_SOURCE_SYSFS; src <= FRC_SOURCE_EBPF; src++) {
		const char *name = frc_source_name(src, "");

		if (strlen(name) == n && memcmp(s, name, n) == 0)
			return (int)src;
	}
	return -1;
}
