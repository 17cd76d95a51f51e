/* SPDX-License-Identifier: MIT */
/*
 * frc_text.h - the text form of a capture: one record per line, diffable, canonical.
 *
 *   meta KEY VALUE            (only before the first record; VALUE: rest of line, C-escaped)
 *   frame KTIME_NS PID TID 0xBUFFER 0xSURFACE [TIMESTAMP]
 *                                 (0xSURFACE may be left out on import: surface 0;
 *                                 TIMESTAMP, signed: only when the frame has one)
 *   sysfs KTIME_NS "RAW"      or   sysfs KTIME_NS !ERRNO
 *   drops KTIME_NS CUMULATIVE [BATCH_ANOMALIES]   (the latter only when not 0)
 *   attach KTIME_NS PID SYMBOL          (SYMBOL: rest of line, C-escaped)
 *   exit KTIME_NS PID
 *   tick KTIME_NS                       (the meter was read; result not recorded)
 *   tick KTIME_NS FPS SOURCE            (FPS %llu.%06llu or -, SOURCE sysfs|ebpf|-)
 *
 * Escapes: \n \t \\ \" and \xHH for every other byte outside 0x20..0x7e (and for a space
 * at either end of a rest-of-line value). Lines starting with '#' (after blanks) and blank
 * lines are ignored. format/FORMAT.md "Text form" is the full grammar.
 */
#ifndef FRC_TEXT_H
#define FRC_TEXT_H

#include <signal.h>
#include <stdio.h>

#include "frc.h"

/* Longest canonical record line, without newline and NUL (a 255-byte sysfs read, escaped). */
#define FRC_TEXT_LINE_MAX 1100

/*
 * Parse the text at in_path and write the capture to out_path atomically (a temporary file
 * in the same directory, fsync, rename): on any error no output file is created or
 * replaced. opt may be NULL. Returns 0; FRC_EINVAL for a syntax error, with err set to
 * "IN:LINE:COL: what"; or another FRC_E* with err set to a one-line message.
 */
FRC_MUST_USE int frc_text_import(const char *in_path, const char *out_path,
				 const struct frc_writer_options *opt, char *err, size_t errlen);

/*
 * The longest line import reads, without its line end: a meta line with a 255-byte key
 * and a 65535-byte value escaped as \xHH throughout, plus room for extra blanks. A longer
 * line is refused ("IN:LINE:COL: line longer than ...") at the byte that crosses the
 * limit, without reading the rest of it: a file that is one huge line costs no memory.
 */
#define FRC_TEXT_IMPORT_LINE_MAX (4 * 65535 + 1024)

/*
 * frc_text_import that also gives up between two lines once *stop is nonzero (set by a
 * SIGINT/SIGTERM handler): the temporary output file is removed, FRC_EIO with err
 * "IN: interrupted". stop may be NULL.
 */
FRC_MUST_USE int frc_text_import_ex(const char *in_path, const char *out_path,
				    const struct frc_writer_options *opt,
				    const volatile sig_atomic_t *stop, char *err, size_t errlen);

/*
 * frc_text_import_ex into fd, an empty file the caller opened and publishes (out_name
 * names it in messages): the capture is written whole and finished, fd is left open.
 * On an error fd holds garbage for the caller to discard.
 */
FRC_MUST_USE int frc_text_import_fd(const char *in_path, int fd, const char *out_name,
				    const struct frc_writer_options *opt,
				    const volatile sig_atomic_t *stop, char *err, size_t errlen);

/*
 * Write r (freshly opened) as canonical text: meta lines first, then every record in file
 * order. Returns 0 when the capture is complete; FRC_ETRUNCATED (truncated, or recovered:
 * read past damage) or FRC_ECORRUPT after writing every valid record of a damaged capture
 * (frc_reader_error says where and, recovered, what was lost); FRC_EIO
 * when writing to out failed; another FRC_E* from the reader.
 */
FRC_MUST_USE int frc_text_export(frc_reader *r, FILE *out);

/*
 * One canonical line for rec (no newline) into buf, like snprintf: returns the length it
 * needs (FRC_TEXT_LINE_MAX at most), or FRC_EINVAL for a record that cannot be printed.
 */
int frc_text_format_record(const struct frc_record *rec, char *buf, size_t len);

/*
 * C-escape data[0..n) into buf (NUL-terminated when len > 0), like snprintf: returns the
 * length needed without the NUL. edges != 0 also escapes a space at the start or the end
 * (for rest-of-line values, whose edge blanks would otherwise be lost).
 */
size_t frc_text_escape(const void *data, size_t n, char *buf, size_t len, int edges);

#endif /* FRC_TEXT_H */
