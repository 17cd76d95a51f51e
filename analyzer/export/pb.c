/* SPDX-License-Identifier: MIT */
/* pb.c - protobuf wire-format primitives (see pb.h). */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

bool pb_reserve(struct pb *p, size_t more)
{
	size_t cap;
	uint8_t *nb;

	if (p->oom)
		return false;
	if (p->n + more <= p->cap)
		return true;
	cap = p->cap ? p->cap : 256;
	while (cap < p->n + more)
		cap *= 2;
	nb = realloc(p->b, cap);
	if (!nb) {
		p->oom = true;
		return false;
	}
	p->b = nb;
	p->cap = cap;
	return true;
}

void pb_reset(struct pb *p)
{
	p->n = 0;
}

void pb_free(struct pb *p)
{
	free(p->b);
	*p = (struct pb){0};
}

void pb_varint(struct pb *p, uint64_t v)
{
	if (!pb_reserve(p, 10))
		return;
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static void key(struct pb *p, uint32_t field, unsigned wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

void pb_u64(struct pb *p, uint32_t field, uint64_t v)
{
	key(p, field, PB_VARINT);
	pb_varint(p, v);
}

/* IEEE 754 binary64, little-endian whatever the host's byte order. */
void pb_fixed64(struct pb *p, uint32_t field, uint64_t bits)
{
	key(p, field, PB_FIXED64);
	if (!pb_reserve(p, 8))
		return;
	for (int i = 0; i < 8; i++)
		p->b[p->n++] = (uint8_t)(bits >> (8 * i));
}

void pb_double(struct pb *p, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pb_fixed64(p, field, bits);
}

void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t n)
{
	key(p, field, PB_LEN);
	pb_varint(p, n);
	if (!pb_reserve(p, n))
		return;
	memcpy(p->b + p->n, data, n);
	p->n += n;
}

void pb_str(struct pb *p, uint32_t field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

void pb_msg(struct pb *p, uint32_t field, const struct pb *child)
{
	if (child->oom) {
		p->oom = true;
		return;
	}
	pb_bytes(p, field, child->b, child->n);
}
