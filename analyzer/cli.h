/* SPDX-License-Identifier: MIT */
/* cli.h - small helpers the subcommands share (messages, option parsing). */
#ifndef FRAMEANALYZE_CLI_H
#define FRAMEANALYZE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frc_record.h"

#define PROG "frameanalyze"

/* "frameanalyze CMD: MESSAGE (try 'frameanalyze CMD --help')" on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "frameanalyze CMD: MESSAGE" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read a whole file (at most max bytes) into a NUL-terminated buffer. 0 or -errno. */
FRC_MUST_USE int cli_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * Length (2..4) of the well-formed UTF-8 sequence at p (NUL-terminated), 0 when the bytes
 * there are not one (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
 */
size_t cli_utf8_len(const unsigned char *p);
/*
 * Write v as the body of a JSON string (no quotes): '"' and '\' escaped, control bytes
 * as \u00XX, bytes that are not UTF-8 as \ufffd (JSON text must be UTF-8; metadata is
 * UTF-8 only by convention).
 */
void cli_put_json_chars(FILE *out, const char *v);
/* Write v for one line of text for people: control bytes as \xHH, the rest as is. */
void cli_put_text(FILE *out, const char *v);

#endif
