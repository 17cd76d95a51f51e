/* SPDX-License-Identifier: MIT */
/*
 * sha256.h - SHA-256 (FIPS 180-4), used to recognise a capture added to a database twice.
 * Small and self-contained so frameanalyze needs no crypto library.
 */
#ifndef FRAMEANALYZE_SHA256_H
#define FRAMEANALYZE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

struct sha256 {
	uint32_t h[8];
	uint64_t total; /* bytes hashed so far */
	uint8_t block[64];
	size_t used; /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[32]);
/* Lower-case hex of a digest: 64 characters + NUL. */
void sha256_hex(const uint8_t digest[32], char hex[65]);
/* Hash a whole regular file into hex; 0, -errno, or -EINVAL when it is not a regular file. */
FRC_MUST_USE int sha256_file(const char *path, char hex[65]);

#endif
