/* SPDX-License-Identifier: MIT */
/* cli.c - helpers the subcommands share; see cli.h. */
#define _GNU_SOURCE /* mkostemp */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <inttypes.h>

#include "commands.h"
#include "frc_escape.h"
#include "signals.h"

static const char *same_as_input(const struct stat *out, char *const *inputs, size_t n);
#include "meter_kind.h"
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

int cli_replay_error(const char *cmd, int rc, const char *err)
{
	if (rc == REPLAY_EWINDOW)
		return cli_usage_error(cmd, "%s", err);
	cli_error(cmd, "%s", err);
	return EXIT_INPUT;
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

int cli_parse_meter(const char *cmd, const char *arg, const char **out)
{
	char names[256];

	if (meter_kind_find(arg)) {
		*out = arg;
		return 0;
	}
	meter_kind_names(names, sizeof(names));
	return cli_usage_error(cmd, "--meter: unknown meter '%s' (known: %s)", arg, names);
}

/* ------------------------------------------------------------ the one option parser */

/* getopt values of the shared options: above any short option character */
enum {
	O_OUTPUT = 'o',
	O_FORCE = 256,
	O_TICK,
	O_TRACKER,
	O_STRICT,
	O_JSON,
	O_HTML,
	O_FROM,
	O_TO,
	O_METER,
	O_PID,
	O_SURFACE,
	O_HELP = 'h'
};

static const struct {
	unsigned flag;
	struct option opt;
} shared_opts[] = {
    {CLI_OUTPUT, {"output", required_argument, NULL, O_OUTPUT}},
    {CLI_FORCE, {"force", no_argument, NULL, O_FORCE}},
    {CLI_TICK, {"tick-ms", required_argument, NULL, O_TICK}},
    {CLI_TRACKER, {"tracker", required_argument, NULL, O_TRACKER}},
    {CLI_STRICT, {"strict", no_argument, NULL, O_STRICT}},
    {CLI_JSON, {"json", no_argument, NULL, O_JSON}},
    {CLI_HTML, {"html", no_argument, NULL, O_HTML}},
    {CLI_WINDOW, {"from", required_argument, NULL, O_FROM}},
    {CLI_WINDOW, {"to", required_argument, NULL, O_TO}},
    {CLI_METER, {"meter", required_argument, NULL, O_METER}},
    {CLI_TRUTH, {"pid", required_argument, NULL, O_PID}},
    {CLI_TRUTH, {"surface", required_argument, NULL, O_SURFACE}},
};

#define N_SHARED (sizeof(shared_opts) / sizeof(shared_opts[0]))
#define MAX_EXTRA 16

/* The getopt_long table: the shared options spec takes, its own, --help, {0}. */
static int build_table(const struct cli_spec *spec, struct option *t, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < N_SHARED; i++)
		if (spec->takes & shared_opts[i].flag)
			t[n++] = shared_opts[i].opt;
	for (const struct option *e = spec->extra; e && e->name; e++) {
		if (n + 2 >= cap)
			return -E2BIG;
		t[n++] = *e;
	}
	t[n++] = (struct option){"help", no_argument, NULL, O_HELP};
	t[n] = (struct option){0};
	return 0;
}

/* --tick-ms: the meter's period in ms when a capture has no tick records. */
static int parse_tick_ms(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < CLI_TICK_MS_MIN || v > CLI_TICK_MS_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

/*
 * A time of --from/--to: decimal seconds ("1.5", at most 9 decimals), or with a unit "2s",
 * "1500ms" (at most 6 decimals); in ns, exactly (no floating point: the same window on
 * every machine). 0, or -EINVAL (not a time) / -ERANGE (past 2^64 - 1 ns).
 */
static int parse_time_ns(const char *s, uint64_t *out)
{
	const char *p = s, *unit;
	uint64_t scale = 1000000000u, whole = 0, frac = 0, fscale = 1;
	unsigned digits = 0, decimals = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++, decimals++) {
			if (decimals >= 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
			fscale *= 10;
		}
	unit = p;
	if (!strcmp(unit, "ms"))
		scale = 1000000u;
	else if (*unit && strcmp(unit, "s"))
		return -EINVAL;
	if (!digits || (scale == 1000000u && decimals > 6))
		return -EINVAL;
	if (whole > UINT64_MAX / scale)
		return -ERANGE;
	*out = whole * scale + frac * (scale / fscale);
	return *out < whole * scale ? -ERANGE : 0;
}

/* --from T, --to T or --to +DURATION into a->ropt.window; 0 or the usage error. */
static int window_option(const struct cli_spec *spec, int c, const char *arg, struct cli_args *a)
{
	struct replay_window *w = &a->ropt.window;
	bool rel = c == O_TO && arg[0] == '+';
	uint64_t ns;

	if (parse_time_ns(arg + rel, &ns))
		return cli_usage_error(spec->cmd,
				       "%s '%s': not a time (seconds after the capture's first "
				       "record: 1.5, 2s, 1500ms%s)",
				       c == O_FROM ? "--from" : "--to", arg,
				       c == O_TO ? "; or +DURATION after --from" : "");
	if (c == O_FROM)
		w->from_set = true, w->from_ns = ns;
	else
		w->to_set = true, w->to_relative = rel, w->to_ns = ns;
	return 0;
}

/* The window, once every option is read: --to after --from when both say so. */
static int check_window(const struct cli_spec *spec, const struct replay_window *w)
{
	if (w->to_set &&
	    (w->to_relative ? w->to_ns == 0 : w->to_ns <= (w->from_set ? w->from_ns : 0)))
		return cli_usage_error(spec->cmd,
				       "--to must be after --from (a window of no time)");
	return 0;
}

/* The value of c in base 16 (hex) or 10, or -1. */
static int digit(char c, bool hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (hex && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal digits (at most 10) or 0x and hex digits (at most 16); 0 or -EINVAL. */
static int parse_number(const char *s, bool hex, uint64_t *out)
{
	size_t n = 0;
	uint64_t v = 0;

	if (hex && strncmp(s, "0x", 2) && strncmp(s, "0X", 2))
		return -EINVAL;
	for (s += hex ? 2 : 0; *s; s++, n++) {
		int d = digit(*s, hex);

		if (d < 0 || n == (hex ? 16u : 10u))
			return -EINVAL;
		v = v * (hex ? 16 : 10) + (uint64_t)d;
	}
	*out = v;
	return n ? 0 : -EINVAL;
}

/* --pid PID (1..2^32-1) or --surface 0xADDR (as the report prints it) into a->ropt.truth. */
static int truth_option(const struct cli_spec *spec, int c, const char *arg, struct cli_args *a)
{
	uint64_t v;

	if (c == O_SURFACE) {
		if (parse_number(arg, true, &v))
			return cli_usage_error(spec->cmd,
					       "--surface '%s': not a surface (0x and 1 to 16 hex "
					       "digits, as the report prints it)",
					       arg);
		a->ropt.truth.surface_set = true;
		a->ropt.truth.surface = v;
		return 0;
	}
	if (parse_number(arg, false, &v) || v < 1 || v > UINT32_MAX)
		return cli_usage_error(spec->cmd, "--pid '%s': not a PID (1 to 4294967295)", arg);
	a->ropt.truth.pid = (uint32_t)v;
	return 0;
}

/* One shared option; 0 or an exit code. */
static int shared_option(const struct cli_spec *spec, int c, const char *arg, struct cli_args *a)
{
	switch (c) {
	case O_OUTPUT:
		a->output = arg;
		return 0;
	case O_FORCE:
		a->force = true;
		return 0;
	case O_STRICT:
		a->strict = true;
		return 0;
	case O_TICK:
		if (parse_tick_ms(arg, &a->ropt.tick_ms))
			return cli_usage_error(spec->cmd, "--tick-ms: '%s' is not in [%d, %d]", arg,
					       CLI_TICK_MS_MIN, CLI_TICK_MS_MAX);
		return 0;
	case O_TRACKER:
		return cli_parse_tracker(spec->cmd, arg, &a->ropt.tracker_name);
	case O_FROM:
	case O_TO:
		return window_option(spec, c, arg, a);
	case O_METER:
		return cli_parse_meter(spec->cmd, arg, &a->ropt.meter_name);
	case O_PID:
	case O_SURFACE:
		return truth_option(spec, c, arg, a);
	case O_JSON:
	case O_HTML:
		if (a->format != CLI_TEXT)
			return cli_usage_error(spec->cmd, "--json and --html: choose one");
		a->format = c == O_JSON ? CLI_FORMAT_JSON : CLI_FORMAT_HTML;
		return 0;
	}
	return -1;
}

/* The operand count against spec; 0 or the usage error. */
static int check_operands(const struct cli_spec *spec, const struct cli_args *a)
{
	if (a->n_pos < spec->min_pos || (spec->max_pos >= 0 && a->n_pos > spec->max_pos))
		return cli_usage_error(spec->cmd, "%s", spec->pos_usage);
	return 0;
}

bool cli_parse(const struct cli_spec *spec, int argc, char **argv, struct cli_args *a,
	       int *exit_code)
{
	struct option table[N_SHARED + MAX_EXTRA + 2];
	int c, rc = 0;

	memset(a, 0, sizeof(*a));
	if (build_table(spec, table, sizeof(table) / sizeof(table[0]))) {
		*exit_code = cli_usage_error(spec->cmd, "internal: too many options");
		return false;
	}
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, spec->takes & CLI_OUTPUT ? "ho:" : "h", table,
				       NULL)) != -1) {
		if (c == O_HELP) {
			fputs(spec->help, stdout);
			*exit_code = EXIT_OK;
			return false;
		}
		if (c == '?' || c == ':')
			rc = cli_usage_error(spec->cmd, "unknown option or missing value: '%s'",
					     argv[optind - 1]);
		else if ((rc = shared_option(spec, c, optarg, a)) < 0)
			rc = spec->on_extra ? spec->on_extra(spec->ctx, c, optarg) : EXIT_USAGE;
	}
	a->pos = argv + optind;
	a->n_pos = argc - optind;
	if (!rc)
		rc = check_operands(spec, a);
	if (!rc)
		rc = check_window(spec, &a->ropt.window);
	if (!rc && a->force && !a->output)
		rc = cli_usage_error(spec->cmd, "--force without -o FILE");
	*exit_code = rc;
	return rc == 0;
}

/* ------------------------------------------------------------ output files */

const char *cli_input_at(const char *path, char *const *inputs, size_t n)
{
	struct stat st;

	return stat(path, &st) == 0 ? same_as_input(&st, inputs, n) : NULL;
}

/* The output is one of the inputs (same device and inode, links followed)? */
static const char *same_as_input(const struct stat *out, char *const *inputs, size_t n)
{
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (stat(inputs[i], &st) == 0 && st.st_dev == out->st_dev &&
		    st.st_ino == out->st_ino)
			return inputs[i];
	return NULL;
}

/*
 * What exists at path decides how it is written: 0 new or replaced (o->in_place false),
 * 0 in place (a device or FIFO), or the exit code after saying why it is refused.
 */
static int check_existing(const char *cmd, const char *path, bool force, char *const *inputs,
			  size_t n, struct cli_output *o)
{
	struct stat lst, st;
	const char *in;
	bool followed; /* false: a dangling symbolic link */

	if (lstat(path, &lst) != 0) {
		if (errno == ENOENT)
			return 0;
		cli_error(cmd, "%s: %s", path, strerror(errno));
		return EXIT_INPUT;
	}
	followed = stat(path, &st) == 0;
	/*
	 * /dev/stdout, /dev/fd/N and the like name a descriptor, whatever it is open on
	 * (often a file the shell redirected to): written in place, never replaced.
	 */
	if (followed && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/self/fd/", 14)) &&
	    !same_as_input(&st, inputs, n)) {
		o->in_place = true;
		return 0;
	}
	if (followed && (in = same_as_input(&st, inputs, n))) {
		cli_error(cmd, "%s: is the input %s; not writing over it", path, in);
		return EXIT_INPUT;
	}
	if (followed && S_ISDIR(st.st_mode)) {
		cli_error(cmd, "%s: is a directory", path);
		return EXIT_INPUT;
	}
	/* a device, a FIFO, a socket, or a link to one (/dev/stdout): written, never replaced */
	if (followed && !S_ISREG(st.st_mode)) {
		o->in_place = true;
		return 0;
	}
	if (!force) {
		cli_error(cmd, "%s: exists; not replacing it without --force", path);
		return EXIT_INPUT;
	}
	return 0;
}

/* A unique FILE.tmp-XXXXXX next to path, mode 0666 less the umask like fopen()'s. */
static int open_temporary(const char *cmd, struct cli_output *o)
{
	mode_t mask = umask(0);

	umask(mask);
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-XXXXXX", o->path) >= sizeof(o->tmp))
		return cli_usage_error(cmd, "%s: path too long", o->path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		cli_error(cmd, "writing %s: %s", o->path, strerror(errno));
		return EXIT_INPUT;
	}
	sig_unlink_on_stop(o->tmp, NULL);
	if (fchmod(o->fd, 0666 & ~mask) != 0) {
		cli_error(cmd, "writing %s: %s", o->tmp, strerror(errno));
		return EXIT_INPUT;
	}
	return 0;
}

int cli_output_open(const char *cmd, const char *path, bool force, char *const *inputs, size_t n,
		    struct cli_output *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	o->force = force;
	rc = check_existing(cmd, path, force, inputs, n, o);
	if (rc)
		return rc;
	if (o->in_place) {
		o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd < 0) {
			cli_error(cmd, "writing %s: %s", path, strerror(errno));
			return EXIT_INPUT;
		}
	} else if ((rc = open_temporary(cmd, o))) {
		if (o->fd >= 0)
			(void)!cli_output_close(cmd, o, false);
		return rc;
	}
	o->f = fdopen(o->fd, "w");
	if (!o->f) {
		cli_error(cmd, "writing %s: %s", path, strerror(errno));
		(void)!cli_output_close(cmd, o, false);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* Make the temporary o->path: 0 or -errno (EEXIST: another run published it first). */
static int publish(struct cli_output *o)
{
	if (fsync(o->fd) != 0)
		return -errno;
	if (o->force) {
		if (rename(o->tmp, o->path) != 0)
			return -errno;
	} else {
		if (link(o->tmp, o->path) != 0)
			return -errno;
		unlink(o->tmp);
	}
	o->tmp[0] = '\0'; /* published: the name may be another run's temporary next */
	return 0;
}

int cli_output_close(const char *cmd, struct cli_output *o, bool ok)
{
	int err = 0;

	if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
		err = errno ? -errno : -EIO;
	if (ok && !err && !o->in_place)
		err = publish(o);
	if (o->f ? fclose(o->f) != 0 : (o->fd >= 0 && close(o->fd) != 0))
		err = err ? err : -errno;
	o->f = NULL;
	o->fd = -1;
	if (!o->in_place && o->tmp[0])
		unlink(o->tmp);
	sig_unlink_on_stop(NULL, NULL);
	if (!ok)
		return EXIT_INPUT;
	if (err == -EEXIST)
		cli_error(cmd, "%s: appeared while writing it; not replacing it without --force",
			  o->path);
	else if (err)
		cli_error(cmd, "writing %s: %s", o->path, strerror(-err));
	return err ? EXIT_INPUT : EXIT_OK;
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

int cli_warn_damage(const char *cmd, const char *path, const struct frc_reader_stats *st,
		    const char *verb, bool strict)
{
	const char *failing = strict ? " (--strict: failing)" : "";
	char loss[512];

	if (st->status == FRC_STATUS_COMPLETE)
		return EXIT_OK;
	frc_reader_loss_text(st, loss, sizeof(loss));
	if (st->status == FRC_STATUS_RECOVERED) {
		cli_error(cmd,
			  "warning: %s: offset %" PRIu64 ": recovered: %s; %s every intact chunk%s",
			  path, st->damage_offset, loss, verb, failing);
	} else {
		cli_error(cmd, "warning: %s: offset %" PRIu64 ": truncated; %s up to the damage%s",
			  path, st->valid_end, verb, failing);
		if (st->lost.regions || st->lost.index_lost)
			cli_error(cmd, "warning: %s: offset %" PRIu64 ": damage skipped: %s", path,
				  st->damage_offset, loss);
	}
	return strict ? EXIT_INPUT : EXIT_OK;
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
