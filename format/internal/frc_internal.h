/* SPDX-License-Identifier: MIT */
/*
 * frc_internal.h - constants and helpers shared by the writer, the reader and the tests.
 *
 * Not a public header: programs use frc.h and frc_text.h. The numbers here are the ones
 * format/FORMAT.md specifies; change them only together with that document.
 *
 * Only libfrc_format's sources and tests reach it: its directory is a PRIVATE include
 * directory of frc_format, and tests link the INTERFACE target frc_format_internal, which
 * adds it and defines FRC_FORMAT_INTERNAL. The #error below stops a program that finds it
 * by a path anyway (format/ is a public include directory, so "internal/frc_internal.h"
 * resolves): these helpers change with the format and are no API.
 */
#ifndef FRC_INTERNAL_H
#define FRC_INTERNAL_H

#ifndef FRC_FORMAT_INTERNAL
#error "frc_internal.h is private to libfrc_format (tests: link frc_format_internal)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "frc.h"

/* zstd skippable-frame magics (0x184D2A50..5F are reserved for skippable frames). */
#define FRC_MAGIC_HEADER 0x184D2A5Au
#define FRC_MAGIC_DESC 0x184D2A5Bu
#define FRC_MAGIC_FOOTER 0x184D2A5Cu
#define FRC_MAGIC_SKIP_MASK 0xFFFFFFF0u
#define FRC_MAGIC_SKIP_BASE 0x184D2A50u
#define FRC_MAGIC_ZSTD 0xFD2FB528u

/* 4-byte tags at the start of the header and footer payloads, and at the footer's end. */
#define FRC_TAG_HEADER "FRCP"
#define FRC_TAG_INDEX "FRCI"
#define FRC_TAG_END "FRCE"

/* Limits (FORMAT.md "Limits"). */
#define FRC_HEADER_MAX (1u << 20)     /* header payload bytes */
#define FRC_META_MAX 1024	      /* metadata pairs */
#define FRC_META_KEY_MAX 255	      /* key bytes */
#define FRC_META_VALUE_MAX 65535      /* value bytes */
#define FRC_DESC_MAX 64		      /* descriptor payload bytes */
#define FRC_CHUNK_RAW_MAX (64u << 20) /* decompressed chunk bytes */
#define FRC_RUN_MAX 65536	      /* frames in one frame-run entry */
/*
 * Records (unknown entries included) in one chunk: two full frame runs, and above what
 * framerec puts in one (it closes a chunk after 65536 records plus its drops record).
 */
#define FRC_CHUNK_RECORDS_MAX 131072
/*
 * Entry types that carry no record of their own: 7 is the surface column of the frame run
 * that follows it (FORMAT.md 4.5), 8 the batch anomaly count of the drops record that
 * follows it (4.6), 10 the timestamp column of the frame run that follows it, before its
 * surface column if any (4.7). Each counts as one entry in nrec and the footer's totals.
 */
#define FRC_ENTRY_SURFACES 7
#define FRC_ENTRY_ANOMALIES 8
#define FRC_ENTRY_TIMESTAMPS 10
/*
 * 17: the bad buffer count of the drops record that follows it, or of the batch anomaly
 * entry and drops record that follow it (4.6).
 */
#define FRC_ENTRY_BAD_BUFFERS 17
/* The largest entry type this library knows: records and the four above. */
#define FRC_ENTRY_TYPE_MAX FRC_TYPE_MAX
_Static_assert(FRC_TYPE_MAX > FRC_ENTRY_TIMESTAMPS, "record types after 10 are entry types too");
_Static_assert(FRC_ENTRY_BAD_BUFFERS == FRC_CONNECT + 1 && FRC_ENTRY_BAD_BUFFERS < FRC_TYPE_MAX,
	       "17 follows connect, and poll (18) follows it");
#define FRC_SURFACES_MAX 256	/* distinct surfaces in one run (the writer splits runs) */
#define FRC_INDEX_FIELDS 5	/* varints per footer index entry this writer writes */
#define FRC_INDEX_FIELDS_MAX 64 /* more per entry is damage, not a newer minor */
#define FRC_FOOTER_TAIL 12	/* crc32c + footer size + "FRCE" */
#define FRC_DEFAULT_FLUSH_MS 1000
#define FRC_DEFAULT_CHUNK_BYTES (1u << 20)
#define FRC_DEFAULT_LEVEL 3

/*
 * CRC-32C (Castagnoli), reflected, init/xorout 0xFFFFFFFF; crc32c("123456789") = 0xE3069283.
 * crc is the CRC of the bytes before data (0 for none), so calls chain. It runs the CPU's
 * CRC32C instruction when there is one (frc_crc32c.c); every path gives the same values.
 */
uint32_t frc_crc32c(uint32_t crc, const void *data, size_t len);
/*
 * The paths behind frc_crc32c, for the test and the benchmark that compare them: the
 * portable table, and the CPU's instruction (SSE4.2 on x86-64, the ARMv8 CRC extension on
 * aarch64), which frc_crc32c_hw returns, or NULL when this CPU or this build has none.
 * frc_crc32c_path names the one frc_crc32c runs: "sse4.2", "armv8-crc" or "portable".
 */
typedef uint32_t (*frc_crc32c_fn)(uint32_t crc, const void *data, size_t len);
uint32_t frc_crc32c_portable(uint32_t crc, const void *data, size_t len);
frc_crc32c_fn frc_crc32c_hw(void);
const char *frc_crc32c_path(void);
/*
 * The CRC state that binds descriptors and the footer to one recording (FORMAT.md 3,
 * "recording id"): the CRC-32C of the 4 bytes of the header's own CRC field. Their CRCs
 * continue from it, so a chunk or a footer of another recording fails its CRC. Minor 0
 * captures were not bound: 0 (a plain CRC) for them.
 */
uint32_t frc_bind_seed(unsigned minor, const uint8_t header_crc_le[4]);
/* 1 when k[0..n) is a valid metadata key: 1..255 bytes of [a-z0-9_.] (FORMAT.md 3). */
int frc_meta_key_ok(const char *k, size_t n);

/* Little-endian fixed-width helpers. */
static inline void frc_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t frc_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ZigZag maps signed to unsigned so small magnitudes give short varints. */
static inline uint64_t frc_zigzag(int64_t v)
{
	uint64_t u = (uint64_t)v;
	return (u << 1) ^ (0 - (u >> 63));
}

static inline int64_t frc_unzigzag(uint64_t z)
{
	return (int64_t)((z >> 1) ^ (0 - (z & 1)));
}

/*
 * *r = all zero bytes, as the reader clears each record it delivers (only type, ktime and
 * the type's member are then set). On its hot path: GCC inlines memset(r, 0, sizeof(*r))
 * of this 280-byte struct as `rep stosq`, whose start-up cost made the clearing a third
 * of the reader's time on x86-64; 16-byte stores, unrolled before GCC can turn the loop
 * back into that memset, take a few cycles (clang makes it a call to libc's memset).
 */
static inline void frc_record_clear(struct frc_record *r)
{
	static const unsigned char zero[16];
	unsigned char *p = (unsigned char *)r;
	size_t o = 0;

#pragma GCC unroll 32
	for (; o + 16 <= sizeof(*r); o += 16)
		memcpy(p + o, zero, 16);
	memcpy(p + o, zero, sizeof(*r) - o);
}

/* A growable byte buffer (writer side). */
struct frc_buf {
	uint8_t *p;
	size_t len, cap;
	int oom; /* sticky: an allocation failed, the contents are incomplete */
};

void frc_buf_free(struct frc_buf *b);
void frc_buf_put(struct frc_buf *b, const void *data, size_t n);
void frc_buf_u8(struct frc_buf *b, uint8_t v);
void frc_buf_le32(struct frc_buf *b, uint32_t v);
/* Unsigned LEB128: 7 bits per byte, low group first, high bit = more; at most 10 bytes. */
void frc_buf_varint(struct frc_buf *b, uint64_t v);
size_t frc_varint_len(uint64_t v);

/* A bounds-checked cursor over bytes in memory (reader side). */
struct frc_cur {
	const uint8_t *p;
	size_t len, pos;
	int bad; /* sticky: a read went past the end or a varint was malformed */
};

static inline int frc_cur_u8(struct frc_cur *c, uint8_t *v)
{
	if (c->bad || c->pos >= c->len) {
		c->bad = 1;
		*v = 0;
		return -1;
	}
	*v = c->p[c->pos++];
	return 0;
}

int frc_cur_varint_long(struct frc_cur *c, uint64_t *v);

/*
 * A varint, into *v (0 when it fails, which sets c->bad). The one-byte case is inline:
 * most varints of a chunk body are small (counts, lengths, flags, indexes), and the reader
 * decodes millions of them.
 */
static inline int frc_cur_varint(struct frc_cur *c, uint64_t *v)
{
	if (!c->bad && c->pos < c->len && c->p[c->pos] < 0x80) {
		*v = c->p[c->pos++];
		return 0;
	}
	return frc_cur_varint_long(c, v);
}
/* A pointer to the next n bytes and advance, or NULL (and c->bad) when fewer remain. */
const uint8_t *frc_cur_bytes(struct frc_cur *c, size_t n);

/* Decode a varint from p[0..len): returns bytes used, 0 when malformed or cut. */
size_t frc_varint_decode(const uint8_t *p, size_t len, uint64_t *v);

/* ------------------------------------------------------------ the record type table */

struct frc_parser; /* a text line being parsed (frc_text.c) */

/*
 * Everything the library knows about one record type, in one row of the table in
 * frc_types.c: its name (also its text keyword, and what info, report and db print),
 * and its functions. Adding a record type is one row plus these functions (binary ones in
 * frc_codec.c, text ones in frc_text.c) and their tests; nothing else names types.
 */
struct frc_type_ops {
	unsigned type;	  /* enum frc_type: the type code on disk */
	const char *name; /* "frame", "sysfs", ...: the text keyword */
	/* 0 when r can be stored, FRC_EINVAL when not; NULL: every value can. */
	int (*check)(const struct frc_record *r);
	/*
	 * The entry payload after its ktime (which every non-frame entry starts with), and
	 * back: decode reads through c and returns -1 for a value out of range; the caller
	 * checks that the payload was consumed exactly. NULL for frame: frames are stored as
	 * columnar runs (frc_run_encode / frc_run_decode, FORMAT.md 4.4).
	 */
	void (*encode)(struct frc_buf *b, const struct frc_record *r);
	int (*decode)(struct frc_cur *c, struct frc_record *r);
	/* The canonical text fields after "NAME KTIME_NS", like snprintf (FRC_EINVAL: cannot). */
	int (*print)(const struct frc_record *r, char *buf, size_t len);
	/* Parse the text fields after KTIME_NS; 0 or FRC_EINVAL with the message set. */
	int (*parse)(struct frc_parser *p, struct frc_record *r);
	/*
	 * A second text keyword of the type, for the records alias_of says (connect: its
	 * "disconnect" lines). NULL: the type has one keyword. The parser tells parse which
	 * keyword it read (frc_text_alias).
	 */
	const char *alias;
	bool (*alias_of)(const struct frc_record *r);
};

/* The row for type, or NULL for a type this library does not know. */
const struct frc_type_ops *frc_type_ops(unsigned type);

/* The per-type functions the table points to. */
#define FRC_TYPE_TEXT_FUNCS(t)                                                                     \
	int frc_##t##_print(const struct frc_record *r, char *buf, size_t len);                    \
	int frc_##t##_parse(struct frc_parser *p, struct frc_record *r);
#define FRC_TYPE_BIN_FUNCS(t)                                                                      \
	void frc_##t##_encode(struct frc_buf *b, const struct frc_record *r);                      \
	int frc_##t##_decode(struct frc_cur *c, struct frc_record *r);
FRC_TYPE_TEXT_FUNCS(frame)
FRC_TYPE_TEXT_FUNCS(sysfs)
FRC_TYPE_TEXT_FUNCS(drops)
FRC_TYPE_TEXT_FUNCS(attach)
FRC_TYPE_TEXT_FUNCS(exit)
FRC_TYPE_TEXT_FUNCS(tick)
FRC_TYPE_BIN_FUNCS(sysfs)
FRC_TYPE_BIN_FUNCS(drops)
FRC_TYPE_BIN_FUNCS(attach)
FRC_TYPE_BIN_FUNCS(exit)
FRC_TYPE_BIN_FUNCS(tick)
FRC_TYPE_TEXT_FUNCS(layer)
FRC_TYPE_TEXT_FUNCS(present)
FRC_TYPE_TEXT_FUNCS(vsync)
FRC_TYPE_TEXT_FUNCS(gap)
FRC_TYPE_BIN_FUNCS(layer)
FRC_TYPE_BIN_FUNCS(present)
FRC_TYPE_BIN_FUNCS(vsync)
FRC_TYPE_BIN_FUNCS(gap)
FRC_TYPE_TEXT_FUNCS(thread)
FRC_TYPE_BIN_FUNCS(thread)
int frc_thread_check(const struct frc_record *r);
FRC_TYPE_TEXT_FUNCS(buffer)
FRC_TYPE_BIN_FUNCS(buffer)
FRC_TYPE_TEXT_FUNCS(connect)
FRC_TYPE_BIN_FUNCS(connect)
FRC_TYPE_TEXT_FUNCS(poll)
FRC_TYPE_BIN_FUNCS(poll)
int frc_poll_check(const struct frc_record *r);
bool frc_connect_is_disconnect(const struct frc_record *r);
int frc_layer_check(const struct frc_record *r);
int frc_sysfs_check(const struct frc_record *r);
int frc_attach_check(const struct frc_record *r);
int frc_tick_check(const struct frc_record *r);

/*
 * Chunk body codec. frc_chunk_encode appends the entries for recs[0..n) to out exactly as
 * the writer would for a chunk holding these records (used by the writer and by tests
 * that compare `zstd -dc` output). Records must be valid (frc_record_check).
 */
int frc_record_check(const struct frc_record *r);
void frc_entry_encode(struct frc_buf *out, const struct frc_record *r);

struct frc_run_frame {
	uint64_t ktime;
	uint64_t buffer;
	uint64_t surface;
	uint32_t pid;
	uint32_t tid;
	bool has_timestamp; /* a timestamp column (type 10) gave it one */
	int64_t timestamp;
};

/* Append the batch anomaly entry (type 8) of a drops record with n (>= 1) anomalies. */
void frc_anomalies_encode(struct frc_buf *out, uint64_t n);
/* Decode a batch anomaly payload: exactly one varint, >= 1. 0, or FRC_ECORRUPT, *what set. */
int frc_anomalies_decode(const uint8_t *p, size_t len, uint64_t *n, const char **what);
/* The same two for the bad buffer entry (type 17) of a drops record with n >= 1. */
void frc_bad_buffers_encode(struct frc_buf *out, uint64_t n);
int frc_bad_buffers_decode(const uint8_t *p, size_t len, uint64_t *n, const char **what);

/* Append the surface column entry (type 7) of f[0..n). 0, FRC_ENOMEM, or FRC_EINVAL
 * for more than FRC_SURFACES_MAX distinct surfaces. */
int frc_surfaces_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n);
/* Decode a surface column payload into f[0..n).surface; it must describe exactly n frames.
 * 0, or FRC_ECORRUPT with *what set. */
int frc_surfaces_apply(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t n,
		       const char **what);
/* Some frame of f[0..n) has a timestamp: the run gets a timestamp column (type 10). */
bool frc_timestamps_any(const struct frc_run_frame *f, size_t n);
/* Append the timestamp column entry (type 10) of f[0..n). 0 or FRC_ENOMEM. */
int frc_timestamps_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n);
/*
 * Decode a timestamp column payload into f[0..n).has_timestamp/timestamp (which must be
 * false/0 before); it must describe exactly n frames. 0, or FRC_ECORRUPT with *what set.
 */
int frc_timestamps_apply(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t n,
			 const char **what);
/* Encode one frame-run entry (type 1) of n (1..FRC_RUN_MAX) frames. 0 or FRC_ENOMEM. */
int frc_run_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n);
/*
 * Decode a frame-run payload into f[0..cap). Returns the frame count (>= 1), or a negative
 * FRC_ECORRUPT (or FRC_ENOMEM) with *what set to a static description; f[0..cap) may then
 * hold anything.
 */
long frc_run_decode(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t cap,
		    const char **what);

/*
 * Decode one non-frame entry of a known type into *r. 0, or FRC_ECORRUPT with *what set
 * (also for a type without a decoder: 1 is a frame run, others are unknown).
 */
int frc_entry_decode(uint64_t type, const uint8_t *p, size_t len, struct frc_record *r,
		     const char **what);

/* Test hook: append an entry of an arbitrary (e.g. unknown) type to the open chunk. */
int frc_writer_append_raw_entry(frc_writer *w, uint64_t type, const void *payload, size_t len);

#endif /* FRC_INTERNAL_H */
