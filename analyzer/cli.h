/* SPDX-License-Identifier: MIT */
/* cli.h - small helpers the subcommands share (messages, option parsing). */
#ifndef FRAMEANALYZE_CLI_H
#define FRAMEANALYZE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PROG "frameanalyze"

/* "frameanalyze CMD: MESSAGE (try 'frameanalyze CMD --help')" on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "frameanalyze CMD: MESSAGE" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read a whole file (at most max bytes) into a NUL-terminated buffer. 0 or -errno. */
__attribute__((warn_unused_result)) int cli_read_file(const char *path, size_t max, char **out,
						      size_t *len);

#endif
