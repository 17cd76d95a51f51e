/* SPDX-License-Identifier: MIT */
/*
 * standin-game - calls the stand-in libgui's Surface::queueBuffer like a game would.
 *
 * It is the target framerec records in the tests, the benchmark and the demo. With
 * --truth it writes what a perfect recorder would see: one line per call, the
 * CLOCK_MONOTONIC time taken right before the call and the buffer pointer as framerec
 * records it (the GraphicBuffer pointer for the sp<> variants).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "surface.h"

using android::Fence;
using android::GraphicBuffer;
using android::sp;
using android::Surface;
using android::SurfaceQueueBufferOutput;

enum variant { V_HOOK, V_INTERNAL, V_LEGACY, V_OUTPUT, V_SP, V_SP_OUTPUT };
static const char *const variant_names[] = {"hook",   "internal", "legacy",
					    "output", "sp",	  "sp_output"};
#define N_VARIANTS (sizeof(variant_names) / sizeof(variant_names[0]))

struct options {
	unsigned long fps;
	unsigned long buffers;
	unsigned long long frames; /* 0: until killed */
	enum variant symbol;
	unsigned long jank_every;
	unsigned long jank_ms;
	bool burst;
	const char *truth;
	unsigned long start_delay_ms;
	bool wait_signal;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: standin-game [OPTIONS]\n"
		"Call the stand-in libgui.so's android::Surface::queueBuffer like a game.\n"
		"\n"
		"  --fps N              calls per second (default 60); absolute deadlines\n"
		"  --buffers N          distinct buffers in rotation (default 3)\n"
		"  --frames N           calls to make; 0 = until SIGINT/SIGTERM (default 0)\n"
		"  --symbol VARIANT     hook|internal|legacy|output|sp|sp_output (default hook)\n"
		"  --jank-every K       every K-th frame is late ...\n"
		"  --jank-ms M          ... by M milliseconds (default 0)\n"
		"  --burst              no sleeping; print the cost per call at the end\n"
		"  --truth FILE         write 'MONOTONIC_NS 0xBUFFER' per call (flushed at exit)\n"
		"  --start-delay-ms MS  sleep before the first call (default 0)\n"
		"  --wait-signal        wait for SIGUSR1 before the first call\n"
		"  -h, --help           this text\n"
		"\n"
		"Examples:\n"
		"  standin-game --fps 60 --frames 600 --truth truth.txt\n"
		"  standin-game --symbol sp --jank-every 30 --jank-ms 40\n"
		"  standin-game --burst --frames 1000000      # prints ns/call\n"
		"  framerec --lib build/standin/libgui.so -o game.frc -- \\\n"
		"      build/bin/standin-game --fps 90 --frames 900\n");
}

/* Parse a decimal number in [lo, hi]; on error print which option was wrong. */
static bool parse_num(const char *opt, const char *s, unsigned long long lo, unsigned long long hi,
		      unsigned long long *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "standin-game: %s: '%s' is not a number in [%llu, %llu]\n", opt, s,
			lo, hi);
		return false;
	}
	*out = v;
	return true;
}

static bool parse_variant(const char *s, enum variant *out)
{
	for (size_t i = 0; i < N_VARIANTS; i++) {
		if (strcmp(s, variant_names[i]) == 0) {
			*out = (enum variant)i;
			return true;
		}
	}
	fprintf(stderr,
		"standin-game: --symbol: unknown variant '%s' "
		"(hook|internal|legacy|output|sp|sp_output)\n",
		s);
	return false;
}

/* Returns 0 to run, 1 for --help, 2 for a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	enum {
		O_FPS = 256,
		O_BUFFERS,
		O_FRAMES,
		O_SYMBOL,
		O_JEVERY,
		O_JMS,
		O_BURST,
		O_TRUTH,
		O_DELAY,
		O_WAITSIG
	};
	static const struct option longopts[] = {
	    {"fps", required_argument, nullptr, O_FPS},
	    {"buffers", required_argument, nullptr, O_BUFFERS},
	    {"frames", required_argument, nullptr, O_FRAMES},
	    {"symbol", required_argument, nullptr, O_SYMBOL},
	    {"jank-every", required_argument, nullptr, O_JEVERY},
	    {"jank-ms", required_argument, nullptr, O_JMS},
	    {"burst", no_argument, nullptr, O_BURST},
	    {"truth", required_argument, nullptr, O_TRUTH},
	    {"start-delay-ms", required_argument, nullptr, O_DELAY},
	    {"wait-signal", no_argument, nullptr, O_WAITSIG},
	    {"help", no_argument, nullptr, 'h'},
	    {nullptr, 0, nullptr, 0},
	};
	unsigned long long v;
	int c;

	*o = {};
	o->fps = 60;
	o->buffers = 3;
	o->symbol = V_HOOK;
	while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
		switch (c) {
		case O_FPS:
			if (!parse_num("--fps", optarg, 1, 1000000, &v))
				return 2;
			o->fps = v;
			break;
		case O_BUFFERS:
			if (!parse_num("--buffers", optarg, 1, 1024, &v))
				return 2;
			o->buffers = v;
			break;
		case O_FRAMES:
			if (!parse_num("--frames", optarg, 0, ULLONG_MAX, &v))
				return 2;
			o->frames = v;
			break;
		case O_SYMBOL:
			if (!parse_variant(optarg, &o->symbol))
				return 2;
			break;
		case O_JEVERY:
			if (!parse_num("--jank-every", optarg, 1, ULONG_MAX, &v))
				return 2;
			o->jank_every = v;
			break;
		case O_JMS:
			if (!parse_num("--jank-ms", optarg, 0, 60000, &v))
				return 2;
			o->jank_ms = v;
			break;
		case O_BURST:
			o->burst = true;
			break;
		case O_TRUTH:
			o->truth = optarg;
			break;
		case O_DELAY:
			if (!parse_num("--start-delay-ms", optarg, 0, 3600000, &v))
				return 2;
			o->start_delay_ms = v;
			break;
		case O_WAITSIG:
			o->wait_signal = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "standin-game: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleep until the absolute CLOCK_MONOTONIC time t; returns early on a stop signal. */
static void sleep_until(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	while (!stop_signal &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
		;
}

/* The fake objects a game would queue: N buffers in rotation, one Surface, one window. */
struct scene {
	Surface surface;
	ANativeWindow window;
	ANativeWindowBuffer *anwb; /* buffers[] for the ANativeWindowBuffer* variants */
	GraphicBuffer *gb;	   /* buffers[] for the sp<GraphicBuffer> variants */
	sp<GraphicBuffer> *gb_sp;  /* one strong pointer per GraphicBuffer */
	sp<Fence> fence;
	SurfaceQueueBufferOutput output;
};

/*
 * One queueBuffer call of the chosen variant with buffer i; returns the pointer framerec
 * must record for it (the GraphicBuffer the sp<> holds for the sp variants).
 */
static uint64_t buffer_of(const struct scene *s, enum variant v, unsigned long i)
{
	if (v == V_SP || v == V_SP_OUTPUT)
		return (uint64_t)(uintptr_t)s->gb_sp[i].get();
	return (uint64_t)(uintptr_t)&s->anwb[i];
}

static int queue(struct scene *s, enum variant v, unsigned long i)
{
	switch (v) {
	case V_HOOK:
		return Surface::hook_queueBuffer(&s->window, &s->anwb[i], -1);
	case V_INTERNAL:
		return s->surface.queueBufferInternal(&s->anwb[i], -1, &s->output);
	case V_LEGACY:
		return s->surface.queueBuffer(&s->anwb[i], -1);
	case V_OUTPUT:
		return s->surface.queueBuffer(&s->anwb[i], -1, &s->output);
	case V_SP:
		return s->surface.queueBuffer(s->gb_sp[i], s->fence);
	case V_SP_OUTPUT:
		return s->surface.queueBuffer(s->gb_sp[i], s->fence, &s->output);
	}
	return -1;
}

static bool scene_init(struct scene *s, unsigned long n)
{
	*s = {};
	s->anwb = (ANativeWindowBuffer *)calloc(n, sizeof(*s->anwb));
	s->gb = (GraphicBuffer *)calloc(n, sizeof(*s->gb));
	s->gb_sp = (sp<GraphicBuffer> *)calloc(n, sizeof(*s->gb_sp));
	if (!s->anwb || !s->gb || !s->gb_sp)
		return false;
	for (unsigned long i = 0; i < n; i++)
		s->gb_sp[i] = sp<GraphicBuffer>(&s->gb[i]);
	return true;
}

static void scene_free(struct scene *s)
{
	free(s->gb_sp);
	free(s->gb);
	free(s->anwb);
}

static void install_stop_handlers(void)
{
	struct sigaction sa = {};

	/* No SA_RESTART: a stop signal must interrupt the sleep so we flush and leave. */
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
}

/* --wait-signal: block SIGUSR1 first (done in main), then wait for it or a stop signal. */
static void wait_for_go(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	int sig = 0;
	if (sigwait(&set, &sig) == 0 && sig != SIGUSR1)
		stop_signal = sig;
}

struct run_result {
	unsigned long long calls;
	uint64_t elapsed_ns;
	bool truth_failed;
};

static void run(const struct options *o, struct scene *s, FILE *truth, struct run_result *res)
{
	uint64_t period = 1000000000ull / o->fps;
	uint64_t deadline = now_ns();
	uint64_t start = deadline;
	unsigned long b = 0;
	unsigned long long n;

	for (n = 0; (o->frames == 0 || n < o->frames) && !stop_signal; n++) {
		if (!o->burst) {
			sleep_until(deadline);
			if (stop_signal)
				break;
		}
		if (truth) {
			uint64_t t = now_ns();
			(void)queue(s, o->symbol, b);
			if (fprintf(truth, "%" PRIu64 " 0x%" PRIx64 "\n", t,
				    buffer_of(s, o->symbol, b)) < 0)
				res->truth_failed = true;
		} else {
			(void)queue(s, o->symbol, b);
		}
		b = (b + 1) % o->buffers;
		/* Frame n+2 (1-based) is due one period later, plus the jank if it is late. */
		deadline += period;
		if (o->jank_every && (n + 2) % o->jank_every == 0)
			deadline += o->jank_ms * 1000000ull;
	}
	res->calls = n;
	res->elapsed_ns = now_ns() - start;
}

int main(int argc, char **argv)
{
	struct options o;
	struct scene s;
	struct run_result res = {};
	FILE *truth = nullptr;
	int rc = 1;

	int prc = parse_args(argc, argv, &o);
	if (prc)
		return prc == 1 ? 0 : 2;

	install_stop_handlers();
	if (o.wait_signal) {
		/* Block before anyone can send it, so an early SIGUSR1 is kept pending. */
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, nullptr);
	}
	if (!scene_init(&s, o.buffers)) {
		fprintf(stderr, "standin-game: out of memory for %lu buffers\n", o.buffers);
		goto cleanup;
	}
	if (o.truth) {
		truth = fopen(o.truth, "w");
		if (!truth) {
			fprintf(stderr, "standin-game: %s: %s\n", o.truth, strerror(errno));
			goto cleanup;
		}
		/* A large buffer: few write() calls in the frame loop. */
		setvbuf(truth, nullptr, _IOFBF, 1 << 20);
	}
	if (o.wait_signal) {
		wait_for_go();
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &set, nullptr);
	}
	if (o.start_delay_ms && !stop_signal)
		sleep_until(now_ns() + o.start_delay_ms * 1000000ull);

	run(&o, &s, truth, &res);

	if (truth && (fclose(truth) != 0 || res.truth_failed)) {
		truth = nullptr;
		fprintf(stderr, "standin-game: %s: write failed: %s\n", o.truth, strerror(errno));
		goto cleanup;
	}
	truth = nullptr;
	if (o.burst && res.calls)
		printf("standin-game: %llu calls of %s in %" PRIu64 " ns: %.1f ns/call\n",
		       res.calls, variant_names[o.symbol], res.elapsed_ns,
		       (double)res.elapsed_ns / (double)res.calls);
	rc = 0;
cleanup:
	if (truth)
		fclose(truth);
	scene_free(&s);
	fflush(stdout);
	if (stop_signal) {
		/* Die of the signal, as a game would, now that the truth file is complete. */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return rc;
}
