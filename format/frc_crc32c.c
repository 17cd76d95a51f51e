/* SPDX-License-Identifier: MIT */
/*
 * frc_crc32c.c - CRC-32C (FORMAT.md 2): the CPU's CRC32C instruction when it has one, else
 * the portable table.
 *
 * Every chunk's compressed bytes are checksummed on write and on every read, so the CRC is
 * on the reader's hot path (8.5 % of `frameanalyze report` with the table alone). SSE4.2
 * (x86-64) and the ARMv8 CRC extension (aarch64) compute CRC-32C, the same polynomial, 8
 * bytes per instruction. Neither can be assumed of the build machine's target (an x86-64
 * before Nehalem, an ARMv8.0 core without the optional extension), so the instruction is
 * compiled into one function with a target attribute and chosen at run time; the table
 * stays as the fallback and as the reference the test compares the instruction with.
 * Which path runs changes no byte: a CRC is a function of the data.
 */
#include <stdint.h>
#include <string.h>

#include "frc_internal.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define CRC_HW_NAME "sse4.2"
#define CRC_HW_TARGET __attribute__((target("sse4.2")))
#define crc_hw_u8(c, b) _mm_crc32_u8((c), (b))
#define crc_hw_u64(c, v) ((uint32_t)_mm_crc32_u64((c), (v)))
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <sys/auxv.h>
#define CRC_HW_NAME "armv8-crc"
/* The feature name differs: GCC takes "+crc" (and its arm_acle.h enables the intrinsics
 * inside such a function), clang "crc" with its own builtins. */
#if defined(__clang__)
#define CRC_HW_TARGET __attribute__((target("crc")))
#define crc_hw_u8(c, b) __builtin_arm_crc32cb((c), (b))
#define crc_hw_u64(c, v) __builtin_arm_crc32cd((c), (v))
#else
#include <arm_acle.h>
#define CRC_HW_TARGET __attribute__((target("+crc")))
#define crc_hw_u8(c, b) __crc32cb((c), (b))
#define crc_hw_u64(c, v) __crc32cd((c), (v))
#endif
/* The kernel's bit for the CRC32 instructions in AT_HWCAP (uapi asm/hwcap.h). */
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

static uint32_t crc_table[256];
static frc_crc32c_fn crc_impl, crc_hw;
static const char *crc_name;
static int crc_ready;

static void crc_init(void);

uint32_t frc_crc32c_portable(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

#ifdef CRC_HW_NAME
/*
 * Bytes one at a time up to an 8-byte boundary, so the 8-byte loads do not straddle cache
 * lines, then 8 at a time (memcpy: no alignment or aliasing assumption; the instruction
 * takes the word's bytes in little-endian order, which is file order here), then the tail.
 */
CRC_HW_TARGET static uint32_t crc32c_hw(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t c = ~crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = crc_hw_u8(c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = crc_hw_u64(c, v);
	}
	for (; len; len--)
		c = crc_hw_u8(c, *p++);
	return ~c;
}

static int crc_hw_present(void)
{
#if defined(__x86_64__)
	/* This runs from a constructor, maybe before libgcc's own: initialise its CPU model. */
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2");
#elif defined(__ARM_FEATURE_CRC32)
	return 1; /* compiled for a CPU that has it */
#else
	return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}
#endif

/*
 * Built before main() (and again, harmlessly, if called first from another constructor):
 * the table, and the choice of path.
 */
__attribute__((constructor)) static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[i] = c;
	}
	crc_impl = frc_crc32c_portable;
	crc_name = "portable";
#ifdef CRC_HW_NAME
	if (crc_hw_present()) {
		crc_hw = crc_impl = crc32c_hw;
		crc_name = CRC_HW_NAME;
	}
#endif
	crc_ready = 1;
}

uint32_t frc_crc32c(uint32_t crc, const void *data, size_t len)
{
	if (!crc_ready)
		crc_init();
	return crc_impl(crc, data, len);
}

frc_crc32c_fn frc_crc32c_hw(void)
{
	if (!crc_ready)
		crc_init();
	return crc_hw;
}

const char *frc_crc32c_path(void)
{
	if (!crc_ready)
		crc_init();
	return crc_name;
}
