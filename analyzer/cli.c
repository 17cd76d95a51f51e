/* SPDX-License-Identifier: MIT */
/* cli.c - helpers the subcommands share; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "commands.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG " %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '" PROG " %s --help')\n", cmd);
	return EXIT_USAGE;
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG " %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_read_file(const char *path, size_t max, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	struct stat sb;

	*out = NULL;
	*len = 0;
	if (!f)
		return -errno;
	/* fopen() accepts a directory; reading it would only say "Input/output error" */
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fclose(f);
		return -EISDIR;
	}
	for (;;) {
		size_t got;
		if (cap - n < 4096) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb;
			if (ncap > max + 1)
				ncap = max + 1;
			if (ncap <= n + 1) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, ncap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb, cap = ncap;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				err = -EIO;
			break;
		}
	}
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
