/* SPDX-License-Identifier: MIT */
/*
 * pb.h - the few protobuf wire-format primitives the Perfetto export needs (no protobuf
 * library): varints, length-delimited fields, fixed64 doubles, into a growable buffer.
 * A nested message is built in a buffer of its own, then appended as a length-delimited
 * field. An allocation failure is sticky (pb.oom) and checked once at the end.
 */
#ifndef FRAMEANALYZE_PB_H
#define FRAMEANALYZE_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *b;
	size_t n, cap;
	bool oom;
};

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

void pb_reset(struct pb *p);
/* Room for more bytes past p->n (false: out of memory, p->oom set). */
bool pb_reserve(struct pb *p, size_t more);
void pb_free(struct pb *p);
void pb_varint(struct pb *p, uint64_t v);
void pb_u64(struct pb *p, uint32_t field, uint64_t v);
/* A fixed64 field (little-endian, 8 bytes): Perfetto's flow ids. */
void pb_fixed64(struct pb *p, uint32_t field, uint64_t bits);
void pb_double(struct pb *p, uint32_t field, double v);
void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t n);
void pb_str(struct pb *p, uint32_t field, const char *s);
/* child as a length-delimited field of p (a nested message). */
void pb_msg(struct pb *p, uint32_t field, const struct pb *child);

#endif
