/* SPDX-License-Identifier: MIT */
/* cli.c - helpers the subcommands share; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "frc_escape.h"
#include "tracker_kind.h"

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

int cli_parse_tracker(const char *cmd, const char *arg, const char **out)
{
	char names[256];

	if (tracker_kind_find(arg)) {
		*out = arg;
		return 0;
	}
	tracker_kind_names(names, sizeof(names));
	return cli_usage_error(cmd, "--tracker: unknown tracker '%s' (known: %s)", arg, names);
}

/* ------------------------------------------------------------ output files */

int cli_output_open(const char *cmd, const char *path, struct cli_output *o)
{
	struct stat st;

	o->path = path;
	o->in_place = lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), o->in_place ? "%s" : "%s.tmp", path) >=
	    sizeof(o->tmp))
		return cli_usage_error(cmd, "%s: path too long", path);
	if (!o->in_place)
		cli_unlink_on_signal(o->tmp, NULL);
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		cli_error(cmd, "writing %s: %s", o->tmp, strerror(errno));
		cli_unlink_on_signal(NULL, NULL);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_output_close(const char *cmd, struct cli_output *o, bool ok)
{
	int bad = ferror(o->f);

	errno = 0;
	if (fclose(o->f) != 0)
		bad = 1;
	o->f = NULL;
	if (ok && !bad && (o->in_place || rename(o->tmp, o->path) == 0)) {
		cli_unlink_on_signal(NULL, NULL);
		return EXIT_OK;
	}
	if (ok)
		cli_error(cmd, "writing %s: %s", o->path, strerror(errno ? errno : EIO));
	if (!o->in_place)
		unlink(o->tmp);
	cli_unlink_on_signal(NULL, NULL);
	return EXIT_INPUT;
}

/* ------------------------------------------------------------ temporary files vs. signals */

static char unlink_path[2][4096];
static volatile sig_atomic_t unlink_armed;
static volatile sig_atomic_t stop_signal;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* unlink() and raise() are async-signal-safe; SA_RESETHAND makes the raise fatal. */
static void unlink_and_die(int sig)
{
	if (unlink_armed) {
		unlink(unlink_path[0]);
		if (unlink_path[1][0])
			unlink(unlink_path[1]);
	}
	raise(sig);
}

static void note_stop(int sig)
{
	stop_signal = sig;
}

static void on_stop_signals(void (*handler)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

void cli_unlink_on_signal(const char *path, const char *also)
{
	unlink_armed = 0;
	if (!path || strlen(path) >= sizeof(unlink_path[0]) ||
	    (also && strlen(also) >= sizeof(unlink_path[1]))) {
		on_stop_signals(SIG_DFL, 0);
		return;
	}
	strcpy(unlink_path[0], path);
	strcpy(unlink_path[1], also ? also : "");
	unlink_armed = 1;
	on_stop_signals(unlink_and_die, SA_RESETHAND);
}

volatile sig_atomic_t *cli_catch_stop(void)
{
	stop_signal = 0;
	/* no SA_RESTART: a blocking read returns EINTR instead of waiting on */
	on_stop_signals(note_stop, 0);
	return &stop_signal;
}

void cli_end_stop(void)
{
	int sig = stop_signal;

	on_stop_signals(SIG_DFL, 0);
	if (sig)
		raise(sig); /* die of the signal, as the shell expects of Ctrl-C */
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

void cli_put_json_chars(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_JSON);
}

void cli_put_text(FILE *out, const char *v)
{
	frc_escape_write(out, v, strlen(v), FRC_ESCAPE_TEXT);
}
