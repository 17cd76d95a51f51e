// SPDX-License-Identifier: MIT
/*
 * framerec - record Android frame pacing: every Surface::queueBuffer call of a process
 * (uprobe + ring buffer), the display's sysfs FPS node and the live FPS meter, into an
 * .frc capture that frameanalyze replays exactly.
 *
 * This file: command line, --help, --version, libbpf logging; record.c does the rest.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frc_version.h"
#include "frame_event.h"
#include "recorder.h"
#include "meter_kind.h"
#include "tracker_kind.h"

static bool verbose;

static const char usage[] =
    "Usage: framerec [OPTIONS] (--pid PID... | --package NAME [--wait] | -- COMMAND [ARGS...]) "
    "-o FILE.frc\n"
    "       framerec --sysfs-only [-d SECONDS] -o FILE.frc\n"
    "       framerec doctor [--pid PID] [--lib PATH] [--symbol NAME]\n"
    "\n"
    "Record every android::Surface::queueBuffer call of the target (uprobe, BPF ring\n"
    "buffer), the display's sysfs FPS node and the live FPS meter into an .frc capture.\n"
    "\n"
    "Targets:\n"
    "  -p, --pid PID        record this process (repeatable)\n"
    "  -P, --package NAME   record the process whose argv[0] is NAME (Android package)\n"
    "  -w, --wait           with --package: wait for it to start, re-attach on restart\n"
    "  -- COMMAND ARGS...   start COMMAND, attached before its first instruction runs\n"
    "Probe:\n"
    "  -l, --lib PATH       libgui.so to probe when the target maps none\n"
    "                       (default: the mapped one, else " FR_DEFAULT_LIB ")\n"
    "  -s, --symbol NAME    mangled symbol (or hook|output|legacy|impl|sp|sp_input|\n"
    "                       internal|deprecated|batch|batch_legacy) instead of the\n"
    "                       default order and the batch path\n"
    "      --ring-kib N     ring buffer size in KiB, a power of 2 >= page size (256)\n"
    "Sampling:\n"
    "      --tick-ms MS     read the FPS meter every MS ms (1000; 10..3600000, as\n"
    "                       frameanalyze --tick-ms)\n"
    "      --sysfs PATH     the display FPS node (default: detect Auriya's list)\n"
    "      --sysfs-ms MS    sample the node every MS ms (250)\n"
    "      --sysfs-only     no BPF: record the sysfs node only (no target, --lib,\n"
    "                       --symbol or --ring-kib with it)\n"
    "      --tracker NAME   the frame tracker the live FPS meter runs: kala (default,\n"
    "                       Auriya's), surface, process, main-surface, content (the\n"
    "                       meter fed the target only); the capture names it, and\n"
    "                       frameanalyze replays it\n"
    "      --meter NAME     the FPS meter run live: auriya-10fe7c6 (default), auriya-\n"
    "                       ccafd78, frc-window; named and replayed likewise\n"
    "Display capture (what SurfaceFlinger presented; on when dumpsys works):\n"
    "      --dumpsys PATH   run PATH SurfaceFlinger --list / --latency LAYER (default\n"
    "                       " FR_DEFAULT_DUMPSYS "; an explicit PATH must work)\n"
    "      --present-ms MS  poll every MS ms (10..10000; default 500, less above 127 Hz)\n"
    "      --no-present     no display capture\n"
    "Output:\n"
    "  -d, --duration S     stop after S seconds of recording (default: SIGINT/SIGTERM,\n"
    "                       or every target gone; not counting a --wait)\n"
    "      --flush-ms MS    write a chunk (and the drop count) every MS ms (1000): what\n"
    "                       a crash of framerec can lose\n"
    "  -o, --output FILE    the capture to create (mode 0640, never overwritten...)\n"
    "  -f, --force          ...unless --force: the new capture replaces FILE when the\n"
    "                       recording stops (FILE stays whole until then)\n"
    "  -q, --quiet          no live status line or summary\n"
    "  -v, --verbose        libbpf's log and attach details\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "Examples:\n"
    "  framerec doctor                                   # can recording work here?\n"
    "  framerec --package com.example.game --wait -d 60 -o game.frc\n"
    "  framerec --pid 4242 -o game.frc                   # until Ctrl-C\n"
    "  framerec --lib build/standin/libgui.so -d 5 -o demo.frc -- \\\n"
    "      build/bin/standin-game --fps 60\n"
    "  framerec --sysfs-only -d 30 -o display.frc\n"
    "  frameanalyze report game.frc\n"
    "\n"
    "Exit status: 0 recorded, 1 error (nothing recorded, or a write error: what was\n"
    "written before stays readable), 2 usage, 3 recorded but the -- COMMAND failed\n"
    "(exited non-zero or died of a signal on its own), 4 recorded but no frame: a\n"
    "target was attached and never called the symbol (the capture is complete; the\n"
    "message says the usual causes; not with --sysfs-only, which records no frame).\n";

/* libbpf's messages are printf formats: the attribute lets clang check the vfprintf */
__attribute__((format(printf, 2, 0))) static int libbpf_print_fn(enum libbpf_print_level level,
								 const char *fmt, va_list args)
{
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("framerec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'framerec --help'.\n", stderr);
	return 2;
}

/* A decimal in [min, max]; false on anything else. */
static bool parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

enum {
	OPT_RING = 1000,
	OPT_TICK,
	OPT_SYSFS,
	OPT_SYSFS_MS,
	OPT_SYSFS_ONLY,
	OPT_FLUSH,
	OPT_TRACKER,
	OPT_METER,
	OPT_DUMPSYS,
	OPT_PRESENT_MS,
	OPT_NO_PRESENT,
};

static const struct option long_opts[] = {
    {"pid", required_argument, NULL, 'p'},
    {"package", required_argument, NULL, 'P'},
    {"wait", no_argument, NULL, 'w'},
    {"lib", required_argument, NULL, 'l'},
    {"symbol", required_argument, NULL, 's'},
    {"ring-kib", required_argument, NULL, OPT_RING},
    {"tick-ms", required_argument, NULL, OPT_TICK},
    {"sysfs", required_argument, NULL, OPT_SYSFS},
    {"sysfs-ms", required_argument, NULL, OPT_SYSFS_MS},
    {"sysfs-only", no_argument, NULL, OPT_SYSFS_ONLY},
    {"flush-ms", required_argument, NULL, OPT_FLUSH},
    {"tracker", required_argument, NULL, OPT_TRACKER},
    {"meter", required_argument, NULL, OPT_METER},
    {"dumpsys", required_argument, NULL, OPT_DUMPSYS},
    {"present-ms", required_argument, NULL, OPT_PRESENT_MS},
    {"no-present", no_argument, NULL, OPT_NO_PRESENT},
    {"duration", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, 'f'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static bool power_of_two(unsigned long v)
{
	return v && !(v & (v - 1));
}

/* A period in ms (--tick-ms, --sysfs-ms, --flush-ms). -1 to go on, else the exit code. */
static int parse_period(const char *name, const char *arg, unsigned *out)
{
	unsigned long v;

	if (!parse_uint(arg, 10, 3600000, &v))
		return usage_error("%s: '%s' is not in [10, 3600000]", name, arg);
	*out = (unsigned)v;
	return -1;
}

/* How the recording samples and reads: ring, periods, sysfs, tracker, meter. -1 to go on. */
static int parse_sampling_option(struct options *o, int c, const char *arg)
{
	unsigned long v;

	switch (c) {
	case OPT_RING:
		/* A ring buffer map is a power-of-2 number of pages. */
		if (!parse_uint(arg, 4, 1u << 20, &v) || !power_of_two(v))
			return usage_error("--ring-kib: '%s' is not a power of 2 in [4, 1048576]",
					   arg);
		o->ring_kib = (unsigned)v;
		return -1;
	case OPT_TICK:
		return parse_period("--tick-ms", arg, &o->tick_ms);
	case OPT_SYSFS_MS:
		return parse_period("--sysfs-ms", arg, &o->sysfs_ms);
	case OPT_FLUSH:
		return parse_period("--flush-ms", arg, &o->flush_ms);
	case OPT_SYSFS:
		o->sysfs = arg;
		return -1;
	case OPT_SYSFS_ONLY:
		o->sysfs_only = true;
		return -1;
	case OPT_TRACKER:
		if (!tracker_kind_find(arg)) {
			char names[256];

			tracker_kind_names(names, sizeof(names));
			return usage_error("--tracker: unknown tracker '%s' (known: %s)", arg,
					   names);
		}
		o->tracker = arg;
		return -1;
	case OPT_METER:
		if (!meter_kind_find(arg)) {
			char names[256];

			meter_kind_names(names, sizeof(names));
			return usage_error("--meter: unknown meter '%s' (known: %s)", arg, names);
		}
		o->meter = arg;
		return -1;
	case OPT_DUMPSYS:
		o->dumpsys = arg;
		return -1;
	case OPT_PRESENT_MS:
		if (!parse_uint(arg, 10, 10000, &v))
			return usage_error("--present-ms: '%s' is not in [10, 10000]", arg);
		o->present_ms = (unsigned)v;
		return -1;
	case OPT_NO_PRESENT:
		o->no_present = true;
		return -1;
	default:
		return usage_error("unknown option");
	}
}

/* Returns -1 to go on, else the exit code. */
static int parse_option(struct options *o, int c, const char *arg)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'p':
		if (!parse_uint(arg, 1, 0x7fffffff, &v))
			return usage_error("--pid: '%s' is not a process id (1..2147483647)", arg);
		if (o->n_pids >= FR_MAX_TARGETS)
			return usage_error("--pid: at most %d of them", FR_MAX_TARGETS);
		o->pids[o->n_pids++] = (pid_t)v;
		break;
	case 'P':
		o->package = arg;
		break;
	case 'w':
		o->wait = true;
		break;
	case 'l':
		o->lib = arg;
		break;
	case 's':
		o->symbol = arg;
		break;
	case 'd':
		errno = 0;
		o->duration_s = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->duration_s > 0) || o->duration_s > 1e7)
			return usage_error("-d: '%s' is not a number of seconds in (0, 10000000]",
					   arg);
		break;
	case 'o':
		o->output = arg;
		break;
	case 'f':
		o->force = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'h':
		fputs(usage, stdout);
		return 0;
	case 'V':
		printf("framerec %s\n", FRC_VERSION);
		return 0;
	default:
		return parse_sampling_option(o, c, arg);
	}
	return -1;
}

/* The long name of option c, for messages. */
static const char *opt_name(int c)
{
	for (const struct option *l = long_opts; l->name; l++)
		if (l->val == c)
			return l->name;
	return "?";
}

/*
 * getopt returned '?'. optopt is 0 for an unknown or ambiguous long option, the option's
 * value for a long option given "=VALUE" it does not take, else the unknown short option;
 * last is argv[optind - 1], the argument a long option error was in.
 */
static int bad_option(const char *last)
{
	const char *eq = strchr(last, '=');

	if (strncmp(last, "--", 2) == 0 && eq && optopt) {
		for (const struct option *l = long_opts; l->name; l++)
			if (l->val == optopt &&
			    strncmp(l->name, last + 2, (size_t)(eq - last - 2)) == 0)
				return usage_error("--%s takes no value", l->name);
	}
	if (!optopt)
		return usage_error("unknown or ambiguous option '%s'", last);
	return usage_error("unknown option '-%c'", optopt);
}

/*
 * --sysfs-only attaches no probe: a target, a library, a symbol or a ring size would be
 * ignored in silence (a --pid was: the user thought the process was recorded), and so
 * would display capture, which follows a target's layers. Refused, naming both options;
 * 0 when none of them is given.
 */
static int sysfs_only_conflict(const struct options *o, bool ring_given)
{
	const char *other = o->n_pids	    ? "--pid"
			    : o->package    ? "--package"
			    : o->command    ? "-- COMMAND"
			    : o->lib	    ? "--lib"
			    : o->symbol	    ? "--symbol"
			    : ring_given    ? "--ring-kib"
			    : o->dumpsys    ? "--dumpsys"
			    : o->present_ms ? "--present-ms"
					    : NULL;

	if (!other)
		return 0;
	return usage_error("--sysfs-only and %s cannot be combined: --sysfs-only records the "
			   "sysfs node alone, no process",
			   other);
}

static int parse_args(struct options *o, int argc, char **argv)
{
	int c, ret;
	bool ring_given = false;

	o->ring_kib = FRAMEREC_RING_KIB_DEFAULT;
	o->tick_ms = 1000;
	o->sysfs_ms = 250;
	o->flush_ms = 1000;
	/*
	 * "+": stop at the first non-option, so "-- COMMAND -x" keeps -x for COMMAND.
	 * ":" and opterr = 0: our own one-line messages, named "framerec:" like the others.
	 */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:P:wl:s:d:o:fqvhV", long_opts, NULL)) != -1) {
		if (c == ':')
			return usage_error("%s needs a value", argv[optind - 1]);
		if (c == '?')
			return bad_option(argv[optind - 1]);
		/* An empty name or path is a quoting mistake, not a file called "". */
		if (optarg && !*optarg)
			return usage_error("--%s: empty value", opt_name(c));
		ret = parse_option(o, c, optarg);
		if (ret >= 0)
			return ret;
		ring_given |= c == OPT_RING;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return usage_error("unexpected argument '%s' (a command goes after --)",
					   argv[optind]);
		o->command = &argv[optind];
	}
	if (!o->output)
		return usage_error("-o FILE.frc is required");
	if (o->sysfs_only && sysfs_only_conflict(o, ring_given))
		return 2;
	if (o->wait && !o->package)
		return usage_error("--wait needs --package");
	if (o->no_present && (o->dumpsys || o->present_ms))
		return usage_error("--no-present and %s cannot be combined",
				   o->dumpsys ? "--dumpsys" : "--present-ms");
	if (!o->sysfs_only && !o->n_pids && !o->package && !o->command)
		return usage_error("no target: --pid PID, --package NAME or -- COMMAND");
	if ((o->n_pids > 0) + (o->package != NULL) + (o->command != NULL) > 1)
		return usage_error("--pid, --package and -- COMMAND are exclusive");
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = {0};
	int ret;

	if (argc > 1 && strcmp(argv[1], "doctor") == 0) {
		libbpf_set_print(libbpf_print_fn);
		return doctor_main(argc - 1, argv + 1);
	}
	ret = parse_args(&opt, argc, argv);
	if (ret >= 0)
		return ret;
	verbose = opt.verbose;
	libbpf_set_print(libbpf_print_fn);
	return record_main(&opt);
}
