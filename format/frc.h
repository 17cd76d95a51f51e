/* SPDX-License-Identifier: MIT */
/*
 * frc.h - write and read .frc capture files.
 *
 * A capture is a valid zstd stream: the header, chunk descriptors and footer are zstd
 * skippable frames, each chunk of records is an ordinary zstd frame with its content
 * checksum. format/FORMAT.md is the specification; this is the library that implements it.
 *
 * Every function of this library that can fail returns 0 on success or a negative FRC_E*
 * code; the handle then holds a one-line message (frc_writer_error / frc_reader_error)
 * that names the file and, for damage, the byte offset.
 *
 * The error convention of the whole project (frc_error.h holds its codes and
 * FRC_MUST_USE): inside libraries and engines (format, heuristics, the recorder's modules,
 * the analyzer's engines and sinks) a function that can fail returns 0, -errno or an
 * FRC_E* code, never an exit code; FRC_E* codes lie below -FRC_ERRNO_MAX so that neither
 * can be taken for the other where both meet (frc_is_error_code), and frc_strerror names
 * either. Exit codes exist only at the command layer (the commands of framerec and
 * frameanalyze), which turns a code into one.
 *
 * Public headers: frc.h (this), frc_error.h, frc_record.h (the records as plain data),
 * frc_text.h (the text form) and frc_escape.h. internal/frc_internal.h belongs to the
 * library and its tests (CMake target frc_format_internal), not to programs.
 */
#ifndef FRC_H
#define FRC_H

#include <stddef.h>
#include <stdint.h>

#include "frc_error.h"
#include "frc_record.h"

#define FRC_FORMAT_MAJOR 1
#define FRC_FORMAT_MINOR 1

/* ---------------------------------------------------------------- writer */

typedef struct frc_writer frc_writer;

struct frc_writer_options {
	/*
	 * A chunk is closed when a record's ktime is flush_ms or more past the chunk's first
	 * record, when it holds chunk_max_bytes of encoded records or 131072 records (the
	 * format's limit, FORMAT.md 4.1), on frc_writer_flush()
	 * (the caller's wall-clock timer) and on close. 0 selects the default.
	 */
	uint32_t flush_ms;	  /* default 1000 */
	uint32_t chunk_max_bytes; /* default 1 MiB of encoded records; at most 64 MiB */
	int zstd_level;		  /* default 3 */
};

/*
 * Write a capture to fd (the writer does not close fd; the caller created it). The header
 * with the n_meta metadata pairs is written at once. opt may be NULL for the defaults.
 * path is used only in messages. Metadata keys must be [a-z0-9_.]{1,255}, unique; values
 * at most 65535 bytes. On failure *out is NULL (out of memory) or a handle holding the
 * message that the caller must still frc_writer_free(). free(NULL) is a no-op.
 */
FRC_MUST_USE int frc_writer_open_fd(frc_writer **out, int fd, const char *path,
				    const struct frc_meta *meta, size_t n_meta,
				    const struct frc_writer_options *opt);

/* Append one record; may close and write the current chunk (see flush_ms). */
FRC_MUST_USE int frc_writer_append(frc_writer *w, const struct frc_record *r);

/* Close the open chunk (if it holds any record) and write it now. */
FRC_MUST_USE int frc_writer_flush(frc_writer *w);

/*
 * Write the open chunk and the footer/index, then fsync. The handle stays valid for
 * frc_writer_error/stats until frc_writer_free().
 */
FRC_MUST_USE int frc_writer_finish(frc_writer *w);

struct frc_writer_stats {
	uint64_t records;
	uint64_t frames;
	uint64_t chunks;
	uint64_t bytes; /* bytes written to the file so far */
};
void frc_writer_stats(const frc_writer *w, struct frc_writer_stats *st);
const char *frc_writer_error(const frc_writer *w);
/* Free the handle. Without a successful finish the file stays as it is (no footer). */
void frc_writer_free(frc_writer *w);

/* ---------------------------------------------------------------- reader */

typedef struct frc_reader frc_reader;

enum frc_status {
	FRC_STATUS_COMPLETE = 0,  /* footer present and consistent with the chunks read */
	FRC_STATUS_TRUNCATED = 1, /* the file ends early (no footer, or a cut chunk) */
	FRC_STATUS_CORRUPT = 2,	  /* a checksum or structure error that stopped the reading */
	/*
	 * The file was read to its end, but damage was skipped: a damaged footer/index (the
	 * chunks were found by a scan) or damaged chunks (lost, the reading resumed at the
	 * next intact one). frc_reader_stats' `lost` says what is missing (FORMAT.md 7).
	 */
	FRC_STATUS_RECOVERED = 3,
};

/* How well the time range of the lost records is known (struct frc_reader_loss). */
enum frc_loss_time {
	FRC_LOSS_TIME_NONE = 0,	  /* no record was lost (or nothing bounds them) */
	FRC_LOSS_TIME_EXACT = 1,  /* min/max of the lost chunks, from the footer index */
	FRC_LOSS_TIME_BOUNDS = 2, /* between the records read around each lost stretch */
};

/*
 * What the reader skipped to read the rest of a damaged capture (FORMAT.md 7, step 6):
 * all zero when nothing was. Status recovered, or truncated when the file also ends early.
 */
struct frc_reader_loss {
	uint64_t regions; /* damaged stretches of the chunk area skipped */
	uint64_t bytes;	  /* bytes in them */
	uint64_t chunks;  /* chunks lost (at least this many unless chunks_exact) */
	/* their records, as the descriptors and the index count them (unknown entries,
	 * surface columns and batch anomaly entries included; at least this many unless
	 * records_exact) */
	uint64_t records;
	uint64_t frames; /* their frames, when frames_known (the index lists them) */
	/* the lost records lie within [min, max] (time); 0 and UINT64_MAX for an open end */
	uint64_t min_ktime_ns, max_ktime_ns;
	uint8_t chunks_exact, records_exact, frames_known;
	uint8_t time;	    /* enum frc_loss_time */
	uint8_t index_lost; /* the footer/index was damaged: the chunks were found by a scan */
};

/*
 * Open a capture and read its header. Fails (with a message) only when the file cannot be
 * opened, is not a capture, has an unknown major version, or its header is damaged.
 * On failure *out is NULL (out of memory) or a handle holding the message
 * (frc_reader_error) that the caller must still frc_reader_close(). close(NULL) is a no-op.
 */
FRC_MUST_USE int frc_reader_open(frc_reader **out, const char *path);

/*
 * The same for a capture held in memory (data must outlive the reader); name is used only
 * in messages. Useful for tests and fuzzing.
 */
FRC_MUST_USE int frc_reader_open_mem(frc_reader **out, const void *data, size_t size,
				     const char *name);

/* Header metadata, in file order. The strings live as long as the reader. */
size_t frc_reader_meta_count(const frc_reader *r);
const struct frc_meta *frc_reader_meta(const frc_reader *r, size_t i);
/* The value of key, or NULL. */
const char *frc_reader_meta_get(const frc_reader *r, const char *key);
void frc_reader_version(const frc_reader *r, unsigned *major, unsigned *minor);

/*
 * The next record in file order: returns 1 and fills *rec, or 0 at the end of the valid
 * data (then see frc_reader_status), or a negative FRC_E* for an I/O error. Records of a
 * chunk are delivered only after the whole chunk has been verified. Unknown record types
 * are skipped and counted.
 */
FRC_MUST_USE int frc_reader_next(frc_reader *r, struct frc_record *rec);

struct frc_reader_stats {
	enum frc_status status; /* final once frc_reader_next returned 0 */
	uint64_t valid_end;	/* truncated/corrupt: byte offset where valid data ends */
	uint64_t damage_offset; /* corrupt: the damaged structure; else the first one skipped */
	uint64_t file_size;
	uint64_t chunks;
	uint64_t records;
	uint64_t by_type[FRC_TYPE_MAX + 1]; /* records delivered, indexed by enum frc_type */
	uint64_t unknown;		    /* records of unknown type skipped */
	/*
	 * Records whose ktime is before the previous record's. Records are in the order the
	 * recorder saw them (the ring buffer's, as the live pipeline did), and events from
	 * two CPUs can reach the ring in the opposite order of their timestamps.
	 */
	uint64_t out_of_order;
	uint64_t timestamped; /* frames delivered with a timestamp of their own (FORMAT.md 4.7) */
	uint64_t first_ktime_ns, last_ktime_ns; /* min/max ktime over delivered records */
	int index_used;				/* 1 when the footer index was valid and used */
	struct frc_reader_loss lost;		/* recovered/truncated: what damage cost */
};
void frc_reader_stats(const frc_reader *r, struct frc_reader_stats *st);

/*
 * What st->lost says, as one line for people ("lost 1 chunk (120 records, 120 frames;
 * ktime 1000 .. 2000 ns) in 1 damaged stretch of 976 bytes", "the footer/index is damaged;
 * every chunk was found by a scan, none damaged"), or "nothing lost". Like snprintf: the
 * length it needed.
 */
int frc_reader_loss_text(const struct frc_reader_stats *st, char *buf, size_t len);

/* A one-line message for the last problem: "FILE: offset N: what" (or "" when none). */
const char *frc_reader_error(const frc_reader *r);
void frc_reader_close(frc_reader *r);

/* The name of an enum frc_status ("complete", "truncated", "corrupt", "recovered"). */
const char *frc_status_name(enum frc_status s);

/*
 * The name of a record type ("frame", "sysfs", "drops", "attach", "exit", "tick": also its
 * text keyword), or NULL for a type this library does not know. Types are 1..FRC_TYPE_MAX;
 * every program that names types takes the name from here (format/frc_types.c).
 */
const char *frc_type_name(unsigned type);

/*
 * Whether a listing of record types (info, the report's records) shows type with count
 * records: every record type of 1.1's first release (up to FRC_TYPE_BASE_MAX), a later one
 * when the capture holds some, so that listings of older captures stay as they were; never
 * 7 and 8, which are no records.
 */
bool frc_type_listed(unsigned type, uint64_t count);

#endif /* FRC_H */
