/* SPDX-License-Identifier: MIT */
/*
 * frc_escape.h - the one place that makes untrusted text safe to print: capture metadata,
 * attach symbols, sysfs raw bytes, process names, paths read from /proc. Every printer of
 * such text (frameanalyze info/report, framerec doctor) goes through it, so a hostile
 * capture or target cannot send terminal control sequences: C0 controls, DEL, the C1
 * controls U+0080..U+009F (a terminal may act on them, e.g. U+009B = CSI) and bytes that
 * are not well-formed UTF-8 (an 8-bit terminal reads 0x9b as CSI) are all escaped.
 *
 * The .frc text form (frc_text.h) keeps its own stricter escape: it must round-trip
 * through import.
 */
#ifndef FRC_ESCAPE_H
#define FRC_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum frc_escape_style {
	/* for people: \\ \n \t, other controls, C1 and bytes that are not UTF-8 as \xHH */
	FRC_ESCAPE_TEXT,
	/* the body of a JSON string: \" \\ \n \t, controls and C1 as \u00XX, not UTF-8 as
	 * \ufffd (JSON text must be UTF-8) */
	FRC_ESCAPE_JSON,
};

/*
 * Length (1..4) of the well-formed UTF-8 sequence at p, of which n bytes are available;
 * 0 when the bytes there are not one (RFC 3629: no overlongs, no surrogates, nothing
 * above U+10FFFF, no truncated sequence).
 */
size_t frc_utf8_len(const uint8_t *p, size_t n);

/*
 * Escape data[0..n) into buf (len bytes; NUL-terminated, cut when too small, when len > 0).
 * Returns the length the whole escaped text needs, without the NUL (as snprintf does).
 */
size_t frc_escape(const void *data, size_t n, enum frc_escape_style style, char *buf, size_t len);

/* Write data[0..n) to out, escaped. */
void frc_escape_write(FILE *out, const void *data, size_t n, enum frc_escape_style style);

/* The NUL-terminated s escaped (FRC_ESCAPE_TEXT) into buf; returns buf, for printf. */
const char *frc_escape_str(const char *s, char *buf, size_t len);

#endif
