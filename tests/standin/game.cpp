/* SPDX-License-Identifier: MIT */
/*
 * standin-game - calls the stand-in libgui's Surface::queueBuffer like a game would.
 *
 * It is the target framerec records in the tests, the benchmark and the demo. With
 * --truth it writes what a perfect recorder would see: one line per queued buffer, the
 * CLOCK_MONOTONIC time taken right before the call, the buffer's ANativeWindowBuffer*, the
 * Surface's ANativeWindow* (the same two values whichever entry point queued it: the
 * canonical identities framerec records), the calling thread and, for a batch element
 * with a timestamp of its own, that timestamp.
 *
 * Like an app, it queues GraphicBuffers to a Surface (the stand-in's AOSP layout,
 * surface.h) through the entry point --symbol names: the window's hook as EGL and Vulkan
 * do, the queue interceptor, the deprecated hook, a member, an sp<GraphicBuffer> overload
 * or the batch path; a list of them is cycled call by call on the same Surface.
 *
 * Beyond one steady surface it behaves like real apps do: a second surface queued by
 * another thread (--surfaces), the batch path (--batch), buffer reallocation
 * (--realloc-every), frame pacing stutter (--pattern), bursts (--bursts) and thermal
 * throttling (--rate-steps). With --compositor its buffers reach the stand-in SurfaceFlinger,
 * and the display events a real game meets can be scheduled: explicit timestamps
 * (--present-ahead), a refresh-rate switch (--refresh-switch), a resize (--resize-at) and
 * the surface hidden for a while (--invisible). Without those options it makes exactly
 * the calls it always made.
 *
 * Each surface's producer connects as EGL and Vulkan's swapchain do
 * (native_window_api_connect(window, NATIVE_WINDOW_API_EGL), AOSP vulkan/libvulkan/
 * swapchain.cpp and EGL's eglCreateWindowSurface) on the thread that draws it, before its
 * first call, and disconnects after its last. Its buffers carry a real ANativeWindowBuffer
 * header (magic, version, --size / --overlay-size, stride, RGBA_8888, usage); a surface can
 * be recreated mid-run (--recreate-at) and a buffer queued with a wrong magic
 * (--bad-magic-every), as a recorder meets them.
 */
#include <errno.h>
#include <getopt.h>
#include <new>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sf_server.h"
#include "surface.h"

using android::Fence;
using android::GraphicBuffer;
using android::LibcxxVector;
using android::sp;
using android::Surface;
using android::SurfaceQueueBufferInput;
using android::SurfaceQueueBufferOutput;

/* The entry points, as framerec's --symbol names them (recorder/symbols.c). */
enum variant {
	V_HOOK,
	V_INTERNAL,
	V_DEPRECATED,
	V_LEGACY,
	V_OUTPUT,
	V_SP,
	V_SP_INPUT,
	V_BATCH,
	V_BATCH_LEGACY
};

/* --batch-malformed: the vectors no real libgui would pass (a wrong symbol or ABI's view). */
enum malformed { M_UNALIGNED, M_HUGE, M_REVERSED };
static const char *const malformed_names[] = {"unaligned", "huge", "reversed"};
#define N_MALFORMED (sizeof(malformed_names) / sizeof(malformed_names[0]))
static const char *const variant_names[] = {"hook",	"internal", "deprecated",
					    "legacy",	"output",   "sp",
					    "sp_input", "batch",    "batch_legacy"};
#define N_VARIANTS (sizeof(variant_names) / sizeof(variant_names[0]))
/* Longest --symbol list. */
#define MAX_PATHS 16

/* Longest --pattern and --rate-steps lists. */
#define MAX_STEPS 64
#define MAX_FPS 1000000ull

/* One --rate-steps entry: FPS calls per second for SECONDS seconds. */
struct rate_step {
	unsigned long long fps;
	unsigned long long seconds;
};

/* How one surface's calls are spaced: a steady rate, a cycled pattern, or rate steps. */
struct pacing {
	unsigned long long fps;
	unsigned long long bursts; /* --bursts K: K calls back to back, then K periods */
	unsigned long long pattern_ms[MAX_STEPS];
	size_t n_pattern;
	struct rate_step steps[MAX_STEPS];
	size_t n_steps;
};

/* Numbers are unsigned long long so one table (num_opts) parses them all. */
struct options {
	struct pacing pace; /* the main surface's */
	unsigned long long buffers;
	unsigned long long frames; /* 0: until killed */
	unsigned long long jank_every;
	unsigned long long jank_ms;
	unsigned long long start_delay_ms;
	unsigned long long overlay_fps;
	unsigned long long overlay_buffers;
	unsigned long long batch;	/* buffers per batch call; 0: not given */
	unsigned long long batch_ts_ns; /* --batch-timestamps: element j at t + j * this */
	unsigned long long realloc_every;
	unsigned malformed;	      /* --batch-malformed: a bit per enum malformed */
	enum variant path[MAX_PATHS]; /* --symbol: the entry points, cycled call by call */
	size_t n_paths;
	bool burst;
	bool wait_signal;
	bool surfaces;
	bool fps_given;
	bool overlay_given;
	const char *truth;
	/* --compositor: the stand-in SurfaceFlinger (sf_server.h) in this process */
	const char *compositor;
	const char *present_truth;
	const char *package;
	unsigned long long refresh_hz;
	unsigned long long sf_android;
	bool mailbox;
	bool refresh_given; /* any of the compositor's options */
	/* The display events (need --compositor), times in seconds since the first call. */
	unsigned long long present_ahead_ms;	/* --present-ahead: explicit timestamps */
	unsigned long long switch_hz, switch_s; /* --refresh-switch HZ@S */
	unsigned long long resize_s;		/* --resize-at: 0 = not given */
	unsigned long long hide_s, show_s;	/* --invisible A:B: 0 = not given */
	const char *thread_name;		/* --thread-name: the main surface's thread */
	const char *rename_to;			/* --rename-after N:NAME */
	unsigned long long rename_after;
	unsigned long long width, height;	/* --size: the main surface's buffers */
	unsigned long long ov_width, ov_height; /* --overlay-size */
	unsigned long long recreate_s;		/* --recreate-at: 0 = not given */
	unsigned long long size_at_s;		/* --size-at S:WxH: 0 = not given */
	unsigned long long size_at_w, size_at_h;
	bool recreate_same;		    /* --recreate-same-address */
	unsigned long long bad_magic_every; /* --bad-magic-every: 0 = not given */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* The options of a surface's buffers and lifetime (its size, recreation, a bad header). */
static void usage_scene(FILE *f)
{
	fprintf(
	    f,
	    "  --size WxH           the main surface's buffers' width and height (1..16384;\n"
	    "                       default 1080x2400); stride: width rounded up to 64\n"
	    "  --overlay-size WxH   the overlay's (default 540x1200)\n"
	    "  --recreate-at S      S seconds (1..3600) after the first call the main surface\n"
	    "                       is recreated: disconnect, a new Surface, connect, new buffers\n"
	    "  --recreate-same-address  ... the new Surface at the old one's address\n"
	    "  --size-at S:WxH      S seconds (1..3600) after the first call the main surface's\n"
	    "                       buffers become WxH in place (their headers rewritten, the\n"
	    "                       same addresses: a geometry change, not new buffers)\n"
	    "  --bad-magic-every N  every N-th call of the main surface (1..10^9) queues a\n"
	    "                       buffer whose header has a wrong magic (not 0x5f626672)\n"
	    "                       instead of the next in rotation; single-buffer paths only\n");
}

static void usage_options(FILE *f)
{
	fprintf(
	    f,
	    "  --fps N              the main surface's calls per second (default 60,\n"
	    "                       1..1000000); absolute deadlines: the rate does not drift\n"
	    "  --buffers N          the main surface's buffers in rotation (default 3, 1..1024)\n"
	    "  --frames N           the main surface's calls; 0 = until SIGINT/SIGTERM\n"
	    "                       (default 0)\n"
	    "  --symbol PATH,...    the entry points the calls go through, cycled call by\n"
	    "                       call on the same Surface (up to 16; default hook):\n"
	    "                       hook (the window's queueBuffer hook, as EGL/Vulkan),\n"
	    "                       internal (the same with a queue interceptor set:\n"
	    "                       queueBufferInternal), deprecated (the window's\n"
	    "                       queueBuffer_DEPRECATED hook), legacy / output (the member\n"
	    "                       queueBuffer(ANativeWindowBuffer*, int[, output*])), sp\n"
	    "                       (queueBuffer(sp<GraphicBuffer>, sp<Fence>, output*)),\n"
	    "                       sp_input (the post-16 SurfaceQueueBufferInput overload,\n"
	    "                       through queueBufferImpl), batch / batch_legacy\n"
	    "                       (queueBuffers with / without outputs, --batch buffers)\n"
	    "  --jank-every K       every K-th frame of the main surface is late ...\n"
	    "  --jank-ms M          ... by M milliseconds (default 0, 0..60000)\n"
	    "  --burst              no sleeping; print the cost per call at the end\n"
	    "  --truth FILE         write one line per queued buffer (format below)\n"
	    "  --start-delay-ms MS  sleep before the first call (default 0)\n"
	    "  --wait-signal        wait for SIGUSR1 before the first call\n"
	    "\n"
	    "Like a real app:\n"
	    "  --surfaces           add an overlay surface (a UI or danmaku layer): its own\n"
	    "                       Surface, window and buffers, queued by a second thread\n"
	    "                       until the main surface's calls end\n"
	    "  --overlay-fps N      the overlay's calls per second (default 10, 1..1000000)\n"
	    "  --overlay-buffers N  the overlay's buffers in rotation (default 2, 1..1024)\n"
	    "  --batch K            queue K buffers per batch call (1..4096; default 2);\n"
	    "                       without batch in --symbol every call of every surface\n"
	    "                       is one through Surface::queueBuffers; --fps and --frames\n"
	    "                       count calls, each queueing the next K buffers in rotation\n"
	    "  --batch-timestamps NS  batch element j gets the timestamp T + j * NS (T: the\n"
	    "                       call's time) instead of NATIVE_WINDOW_TIMESTAMP_AUTO\n"
	    "                       (1..10^12)\n"
	    "  --batch-malformed MODE,...  before the first call, one Surface::queueBuffers\n"
	    "                       call per MODE with a vector that is no vector of\n"
	    "                       24-byte elements: unaligned (3 elements and 1 byte),\n"
	    "                       huge (2^36 elements), reversed (end before begin); the\n"
	    "                       library refuses them (nothing queued, no truth line)\n"
	    "  --realloc-every N    replace a surface's buffers with new ones (new addresses,\n"
	    "                       like a resolution change) once N buffers were queued;\n"
	    "                       checked before each call\n"
	    "  --pattern MS,MS,...  frame pacing stutter: the gaps between calls, in ms\n"
	    "                       (1..60000 each, up to 64), cycled; replaces --fps\n"
	    "                       (the main surface's pacing)\n"
	    "  --rate-steps FPS:S,...  thermal throttling: FPS for S seconds (1..3600), in\n"
	    "                       order, then the last FPS forever (up to 64 steps);\n"
	    "                       replaces --fps\n"
	    "  --compositor SOCK    run the stand-in SurfaceFlinger here (tests/standin/\n"
	    "                       sf_server.h): every buffer queued reaches it, latched at\n"
	    "                       vsync, and standin-dumpsys (STANDIN_SF_SOCKET=SOCK) prints\n"
	    "                       its --list / --latency as AOSP does\n"
	    "  --refresh HZ         its display refresh (1..500; 60)\n"
	    "  --present-mode M     fifo (every buffer presented, back-pressure) or mailbox\n"
	    "                       (swap interval 0: a waiting buffer is replaced)\n"
	    "  --sf-android N       the Android version whose names and text it prints (11..16;\n"
	    "                       13)\n"
	    "  --package NAME       the app's package in its layer names (standin-game)\n"
	    "  --present-truth F    its truth: every buffer latched, presented and dropped\n"
	    "  --present-ahead MS   explicit timestamps: each buffer's desired present time is\n"
	    "                       its queue time + MS (1..1000; SF holds it until due and of\n"
	    "                       two overdue in one vsync drops the earlier), set as an app\n"
	    "                       does: native_window_set_buffers_timestamp before each\n"
	    "                       single-buffer call, the elements' own in a batch\n"
	    "  --refresh-switch HZ@S  the display switches to HZ (1..500) S seconds (1..3600)\n"
	    "                       after the first call\n"
	    "  --resize-at S        the surface is resized S seconds (1..3600) after the first\n"
	    "                       call: its waiting buffers are flushed unpresented\n"
	    "  --invisible A:B      the surface is not visible from A to B seconds after the\n"
	    "                       first call (1 <= A < B <= 3600): SF presents none of it\n"
	    "  --bursts K           pacing: K calls back to back (2..64), then a pause of K\n"
	    "                       periods of --fps (the same calls per second, in bursts)\n"
	    "  --thread-name NAME   name the main surface's thread NAME (1..15 bytes; the\n"
	    "                       overlay's is always RenderThread, as HWUI names it)\n"
	    "  --rename-after N:NAME  ... and rename it NAME after its N-th call\n");
	usage_scene(f);
	fprintf(f, "  -h, --help           this text\n");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: standin-game [OPTIONS]\n"
		   "Call the stand-in libgui.so's android::Surface::queueBuffer like a game.\n"
		   "\n");
	usage_options(f);
	fprintf(f,
		"\n"
		"Truth file: one line per queued buffer, in time order:\n"
		"  MONOTONIC_NS 0xBUFFER 0xSURFACE TID [TIMESTAMP]\n"
		"MONOTONIC_NS is CLOCK_MONOTONIC right before the call; BUFFER the buffer's\n"
		"ANativeWindowBuffer*, SURFACE the Surface's ANativeWindow*, whatever the entry\n"
		"point (a member gets `this`, 16 bytes lower; an sp<> the GraphicBuffer*, 16\n"
		"bytes lower); TID the calling thread; TIMESTAMP (signed ns) only for a buffer\n"
		"queued with an explicit timestamp (--batch-timestamps, --present-ahead). A batch\n"
		"call writes one line per buffer, all with the call's time.\n"
		"\n"
		"Exit status: 0 done, 1 error, 2 usage; a stop signal kills it after the truth\n"
		"file is complete.\n"
		"\n"
		"Examples:\n"
		"  standin-game --fps 60 --frames 600 --truth truth.txt\n"
		"  standin-game --symbol sp --jank-every 30 --jank-ms 40\n"
		"  standin-game --symbol hook,legacy,sp,batch --batch 2 --frames 40 --truth t.txt\n"
		"  standin-game --burst --frames 1000000      # prints ns/call\n"
		"  standin-game --surfaces --fps 60 --overlay-fps 10 --frames 600 --truth t.txt\n"
		"  standin-game --batch 3 --fps 20 --frames 100     # 300 buffers, 3 per call\n"
		"  standin-game --realloc-every 300 --buffers 3     # new buffers every 5 s\n"
		"  standin-game --pattern 16,33 --frames 120        # 16/33/16/33 ms stutter\n"
		"  standin-game --rate-steps 60:3,40:3              # 60 fps for 3 s, then 40\n"
		"  standin-game --compositor /tmp/sf.sock --refresh 120 --fps 120 \\\n"
		"      --refresh-switch 60@2 --present-truth p.txt  # 120 -> 60 Hz at 2 s\n"
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

/* A decimal in [lo, hi] at *s, ending at one of the characters in `stop` (or the end). */
static bool take_num(const char **s, const char *stop, unsigned long long lo, unsigned long long hi,
		     unsigned long long *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	unsigned long long v = strtoull(*s, &end, 10);
	if (errno || v < lo || v > hi || (*end && !strchr(stop, *end)))
		return false;
	*out = v;
	*s = end;
	return true;
}

/* --pattern MS[,MS...]: 1 to MAX_STEPS gaps in [1, 60000] ms. */
static bool parse_pattern(const char *arg, struct pacing *p)
{
	const char *s = arg;

	p->n_pattern = 0;
	while (p->n_pattern < MAX_STEPS &&
	       take_num(&s, ",", 1, 60000, &p->pattern_ms[p->n_pattern])) {
		p->n_pattern++;
		if (!*s)
			return true;
		s++; /* the comma */
	}
	fprintf(stderr,
		"standin-game: --pattern: '%s' is not a list of 1 to %d gaps in [1, 60000] ms "
		"(e.g. 16,33)\n",
		arg, MAX_STEPS);
	return false;
}

/* --rate-steps FPS:S[,FPS:S...]: 1 to MAX_STEPS steps, FPS in [1, MAX_FPS], S in [1, 3600]. */
static bool parse_rate_steps(const char *arg, struct pacing *p)
{
	const char *s = arg;

	p->n_steps = 0;
	while (p->n_steps < MAX_STEPS) {
		struct rate_step *st = &p->steps[p->n_steps];
		if (!take_num(&s, ":", 1, MAX_FPS, &st->fps) || *s++ != ':' ||
		    !take_num(&s, ",", 1, 3600, &st->seconds))
			break;
		p->n_steps++;
		if (!*s)
			return true;
		s++; /* the comma */
	}
	fprintf(stderr,
		"standin-game: --rate-steps: '%s' is not a list of 1 to %d FPS:SECONDS steps, "
		"FPS in [1, %llu], SECONDS in [1, 3600] (e.g. 60:3,40:3)\n",
		arg, MAX_STEPS, MAX_FPS);
	return false;
}

/* --batch-malformed MODE[,MODE...]: each of unaligned, huge, reversed at most once. */
static bool parse_malformed(const char *arg, unsigned *out)
{
	const char *s = arg;

	*out = 0;
	while (*s) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < N_MALFORMED; i++)
			if (strlen(malformed_names[i]) == len &&
			    !strncmp(s, malformed_names[i], len))
				break;
		if (i == N_MALFORMED || (*out & (1u << i)))
			break;
		*out |= 1u << i;
		s += len;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			break;
	}
	if (*out && !*s)
		return true;
	fprintf(stderr,
		"standin-game: --batch-malformed: '%s' is not a list of unaligned, huge, "
		"reversed (each once)\n",
		arg);
	return false;
}

/* --symbol PATH[,PATH...]: 1 to MAX_PATHS entry point names. */
static bool parse_paths(const char *arg, struct options *o)
{
	const char *s = arg;

	o->n_paths = 0;
	while (o->n_paths < MAX_PATHS) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < N_VARIANTS; i++)
			if (strlen(variant_names[i]) == len && !strncmp(s, variant_names[i], len))
				break;
		if (i == N_VARIANTS)
			break;
		o->path[o->n_paths++] = (enum variant)i;
		s += len;
		if (!*s)
			return true;
		s++; /* the comma */
	}
	fprintf(stderr,
		"standin-game: --symbol: '%s' is not a list of 1 to %d of hook, internal, "
		"deprecated, legacy, output, sp, sp_input, batch, batch_legacy\n",
		arg, MAX_PATHS);
	return false;
}

/* --refresh-switch HZ@S (sep '@') or --invisible A:B (sep ':'). */
static bool parse_pair(const char *arg, char sep, struct options *o)
{
	const char stop[2] = {sep, 0};
	const char *s = arg;
	unsigned long long a, b;
	bool is_switch = sep == '@';

	if (take_num(&s, stop, 1, is_switch ? 500 : 3600, &a) && *s++ == sep &&
	    take_num(&s, "", 1, 3600, &b) && !*s && (is_switch || a < b)) {
		if (is_switch) {
			o->switch_hz = a;
			o->switch_s = b;
		} else {
			o->hide_s = a;
			o->show_s = b;
		}
		return true;
	}
	if (is_switch)
		fprintf(stderr,
			"standin-game: --refresh-switch: '%s' is not HZ@SECONDS, HZ in [1, 500], "
			"SECONDS in [1, 3600] (e.g. 60@2)\n",
			arg);
	else
		fprintf(stderr,
			"standin-game: --invisible: '%s' is not A:B seconds, 1 <= A < B <= 3600 "
			"(e.g. 2:3)\n",
			arg);
	return false;
}

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
	O_WAITSIG,
	O_SURFACES,
	O_OVL_FPS,
	O_OVL_BUFFERS,
	O_BATCH,
	O_REALLOC,
	O_PATTERN,
	O_RATE_STEPS,
	O_MALFORMED,
	O_BATCH_TS,
	O_COMPOSITOR,
	O_PRESENT_TRUTH,
	O_PACKAGE,
	O_REFRESH,
	O_SF_ANDROID,
	O_PRESENT_MODE,
	O_AHEAD,
	O_SWITCH,
	O_RESIZE,
	O_INVISIBLE,
	O_BURSTS,
	O_THREAD_NAME,
	O_RENAME_AFTER,
	O_SIZE,
	O_OVL_SIZE,
	O_RECREATE,
	O_RECREATE_SAME,
	O_BAD_MAGIC,
	O_SIZE_AT,
};

/* The options that take one number: name, range and where it goes. */
static const struct num_opt {
	int id;
	const char *name;
	unsigned long long lo, hi;
	size_t offset;
} num_opts[] = {
    {O_FPS, "--fps", 1, MAX_FPS, offsetof(struct options, pace.fps)},
    {O_BUFFERS, "--buffers", 1, 1024, offsetof(struct options, buffers)},
    {O_FRAMES, "--frames", 0, ULLONG_MAX, offsetof(struct options, frames)},
    {O_JEVERY, "--jank-every", 1, ULLONG_MAX, offsetof(struct options, jank_every)},
    {O_JMS, "--jank-ms", 0, 60000, offsetof(struct options, jank_ms)},
    {O_DELAY, "--start-delay-ms", 0, 3600000, offsetof(struct options, start_delay_ms)},
    {O_OVL_FPS, "--overlay-fps", 1, MAX_FPS, offsetof(struct options, overlay_fps)},
    {O_OVL_BUFFERS, "--overlay-buffers", 1, 1024, offsetof(struct options, overlay_buffers)},
    {O_BATCH, "--batch", 1, 4096, offsetof(struct options, batch)},
    {O_BATCH_TS, "--batch-timestamps", 1, 1000000000000ull, offsetof(struct options, batch_ts_ns)},
    {O_REALLOC, "--realloc-every", 1, ULLONG_MAX, offsetof(struct options, realloc_every)},
    {O_REFRESH, "--refresh", 1, 500, offsetof(struct options, refresh_hz)},
    {O_SF_ANDROID, "--sf-android", 11, 16, offsetof(struct options, sf_android)},
    {O_AHEAD, "--present-ahead", 1, 1000, offsetof(struct options, present_ahead_ms)},
    {O_RESIZE, "--resize-at", 1, 3600, offsetof(struct options, resize_s)},
    {O_BURSTS, "--bursts", 2, 64, offsetof(struct options, pace.bursts)},
    {O_RECREATE, "--recreate-at", 1, 3600, offsetof(struct options, recreate_s)},
    {O_BAD_MAGIC, "--bad-magic-every", 1, 1000000000, offsetof(struct options, bad_magic_every)},
};

/* --size / --overlay-size WxH, each 1..16384. */
static bool parse_size(const char *opt, const char *arg, unsigned long long *w,
		       unsigned long long *h)
{
	const char *x = strchr(arg, 'x');
	char num[32];

	if (x && x != arg && (size_t)(x - arg) < sizeof(num)) {
		snprintf(num, sizeof(num), "%.*s", (int)(x - arg), arg);
		if (parse_num(opt, num, 1, 16384, w) && parse_num(opt, x + 1, 1, 16384, h))
			return true;
		return false;
	}
	fprintf(stderr, "standin-game: %s: '%s' is not WxH (e.g. 1080x2400)\n", opt, arg);
	return false;
}

/* A thread name the kernel keeps whole: 1..15 bytes (TASK_COMM_LEN - 1). */
static bool thread_name_ok(const char *opt, const char *name)
{
	size_t n = strlen(name);

	if (n >= 1 && n <= 15)
		return true;
	fprintf(stderr, "standin-game: %s: '%s' is not 1..15 bytes\n", opt, name);
	return false;
}

/* --rename-after N:NAME */
static bool parse_rename(const char *arg, struct options *o)
{
	const char *colon = strchr(arg, ':');
	char num[32];

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(num)) {
		fprintf(stderr, "standin-game: --rename-after: '%s' is not N:NAME\n", arg);
		return false;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(colon - arg), arg);
	o->rename_to = colon + 1;
	return parse_num("--rename-after", num, 1, ULLONG_MAX, &o->rename_after) &&
	       thread_name_ok("--rename-after", o->rename_to);
}

/* Option c with argument arg; false (after a one-line message) when it is bad. */
static bool parse_one(int c, const char *arg, struct options *o)
{
	for (const struct num_opt &n : num_opts) {
		if (n.id == c)
			return parse_num(n.name, arg, n.lo, n.hi,
					 (unsigned long long *)((char *)o + n.offset));
	}
	switch (c) {
	case O_SYMBOL:
		return parse_paths(arg, o);
	case O_BURST:
		o->burst = true;
		return true;
	case O_TRUTH:
		o->truth = arg;
		return true;
	case O_WAITSIG:
		o->wait_signal = true;
		return true;
	case O_SURFACES:
		o->surfaces = true;
		return true;
	case O_PATTERN:
		return parse_pattern(arg, &o->pace);
	case O_RATE_STEPS:
		return parse_rate_steps(arg, &o->pace);
	case O_MALFORMED:
		return parse_malformed(arg, &o->malformed);
	case O_COMPOSITOR:
		o->compositor = arg;
		return true;
	case O_PRESENT_TRUTH:
		o->present_truth = arg;
		return true;
	case O_PACKAGE:
		o->package = arg;
		return true;
	case O_THREAD_NAME:
		o->thread_name = arg;
		return thread_name_ok("--thread-name", arg);
	case O_RENAME_AFTER:
		return parse_rename(arg, o);
	case O_SIZE:
		return parse_size("--size", arg, &o->width, &o->height);
	case O_OVL_SIZE:
		return parse_size("--overlay-size", arg, &o->ov_width, &o->ov_height);
	case O_RECREATE_SAME:
		o->recreate_same = true;
		return true;
	case O_SIZE_AT: {
		const char *colon = strchr(arg, ':');
		char num[32];

		if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(num)) {
			fprintf(stderr, "standin-game: --size-at: '%s' is not S:WxH\n", arg);
			return false;
		}
		snprintf(num, sizeof(num), "%.*s", (int)(colon - arg), arg);
		return parse_num("--size-at", num, 1, 3600, &o->size_at_s) &&
		       parse_size("--size-at", colon + 1, &o->size_at_w, &o->size_at_h);
	}
	case O_PRESENT_MODE:
		if (strcmp(arg, "fifo") && strcmp(arg, "mailbox")) {
			fprintf(stderr,
				"standin-game: --present-mode: '%s' is not fifo or mailbox\n", arg);
			return false;
		}
		o->mailbox = !strcmp(arg, "mailbox");
		return true;
	case O_SWITCH:
		return parse_pair(arg, '@', o);
	case O_INVISIBLE:
		return parse_pair(arg, ':', o);
	}
	return false;
}

/* Options that parse alone but not together; false after a one-line message. */
static bool check_combination(const struct options *o)
{
	const char *why = nullptr;

	if (o->pace.n_pattern && o->pace.n_steps)
		why = "--pattern and --rate-steps exclude each other";
	else if (o->fps_given && (o->pace.n_pattern || o->pace.n_steps))
		why = "--fps and --pattern/--rate-steps exclude each other (they set the pacing)";
	else if (o->overlay_given && !o->surfaces)
		why = "--overlay-fps and --overlay-buffers need --surfaces";
	else if (!o->compositor && (o->present_truth || o->package || o->refresh_given))
		why = "--present-truth, --package, --refresh, --sf-android, --present-mode, "
		      "--present-ahead, --refresh-switch, --resize-at and --invisible need "
		      "--compositor";
	else if (o->pace.bursts && (o->pace.n_pattern || o->pace.n_steps))
		why =
		    "--bursts and --pattern/--rate-steps exclude each other (they set the pacing)";
	else if (o->present_ahead_ms && o->batch_ts_ns)
		why = "--present-ahead and --batch-timestamps exclude each other (both set the "
		      "timestamps)";
	else if (o->recreate_same && !o->recreate_s)
		why = "--recreate-same-address needs --recreate-at";
	if (why)
		fprintf(stderr, "standin-game: %s\n", why);
	return !why;
}

static bool is_batch(enum variant v)
{
	return v == V_BATCH || v == V_BATCH_LEGACY;
}

/*
 * --batch without a batch path in --symbol: every call is a batch call (what --batch
 * always meant); a batch path without --batch queues 2 buffers per call.
 */
static void finish_paths(struct options *o)
{
	bool batch = false;

	for (size_t i = 0; i < o->n_paths; i++)
		batch |= is_batch(o->path[i]);
	if (o->batch && !batch) {
		o->path[0] = V_BATCH;
		o->n_paths = 1;
	}
	if (!o->batch)
		o->batch = 2;
}

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
    {"surfaces", no_argument, nullptr, O_SURFACES},
    {"overlay-fps", required_argument, nullptr, O_OVL_FPS},
    {"overlay-buffers", required_argument, nullptr, O_OVL_BUFFERS},
    {"batch", required_argument, nullptr, O_BATCH},
    {"realloc-every", required_argument, nullptr, O_REALLOC},
    {"pattern", required_argument, nullptr, O_PATTERN},
    {"rate-steps", required_argument, nullptr, O_RATE_STEPS},
    {"batch-malformed", required_argument, nullptr, O_MALFORMED},
    {"batch-timestamps", required_argument, nullptr, O_BATCH_TS},
    {"compositor", required_argument, nullptr, O_COMPOSITOR},
    {"present-truth", required_argument, nullptr, O_PRESENT_TRUTH},
    {"package", required_argument, nullptr, O_PACKAGE},
    {"refresh", required_argument, nullptr, O_REFRESH},
    {"sf-android", required_argument, nullptr, O_SF_ANDROID},
    {"present-mode", required_argument, nullptr, O_PRESENT_MODE},
    {"present-ahead", required_argument, nullptr, O_AHEAD},
    {"refresh-switch", required_argument, nullptr, O_SWITCH},
    {"resize-at", required_argument, nullptr, O_RESIZE},
    {"invisible", required_argument, nullptr, O_INVISIBLE},
    {"bursts", required_argument, nullptr, O_BURSTS},
    {"thread-name", required_argument, nullptr, O_THREAD_NAME},
    {"rename-after", required_argument, nullptr, O_RENAME_AFTER},
    {"size", required_argument, nullptr, O_SIZE},
    {"overlay-size", required_argument, nullptr, O_OVL_SIZE},
    {"recreate-at", required_argument, nullptr, O_RECREATE},
    {"recreate-same-address", no_argument, nullptr, O_RECREATE_SAME},
    {"bad-magic-every", required_argument, nullptr, O_BAD_MAGIC},
    {"size-at", required_argument, nullptr, O_SIZE_AT},
    {"help", no_argument, nullptr, 'h'},
    {nullptr, 0, nullptr, 0},
};

/* Returns 0 to run, 1 for --help, 2 for a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	int c;

	*o = {};
	o->pace.fps = 60;
	o->buffers = 3;
	o->path[0] = V_HOOK;
	o->n_paths = 1;
	o->overlay_fps = 10;
	o->overlay_buffers = 2;
	o->refresh_hz = 60;
	o->sf_android = 13;
	o->width = 1080;
	o->height = 2400;
	o->ov_width = 540;
	o->ov_height = 1200;
	while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c < O_FPS) { /* getopt_long printed what was wrong */
			usage(stderr);
			return 2;
		}
		o->fps_given |= c == O_FPS;
		o->overlay_given |= c == O_OVL_FPS || c == O_OVL_BUFFERS;
		o->refresh_given |= c == O_REFRESH || c == O_SF_ANDROID || c == O_PRESENT_MODE ||
				    c == O_AHEAD || c == O_SWITCH || c == O_RESIZE ||
				    c == O_INVISIBLE;
		if (!parse_one(c, optarg, o))
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "standin-game: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!check_combination(o))
		return 2;
	finish_paths(o);
	for (size_t i = 0; i < o->n_paths && o->bad_magic_every; i++)
		if (is_batch(o->path[i])) {
			fprintf(stderr, "standin-game: --bad-magic-every needs single-buffer "
					"--symbol paths\n");
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

static struct timespec to_timespec(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	return ts;
}

/* Sleep until the absolute CLOCK_MONOTONIC time t; returns early on a stop signal. */
static void sleep_until(uint64_t t)
{
	struct timespec ts = to_timespec(t);

	while (!stop_signal &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
		;
}

/*
 * Stopping the overlay thread: stop signals go to the main thread (the overlay blocks
 * them), so the main thread, once its own calls are over, sets overlay_stop and wakes
 * the overlay from its timed wait on overlay_wake.
 */
static pthread_mutex_t overlay_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t overlay_wake;
static bool overlay_stop; /* under overlay_lock */

static bool overlay_stopping(void)
{
	pthread_mutex_lock(&overlay_lock);
	bool stop = overlay_stop;
	pthread_mutex_unlock(&overlay_lock);
	return stop;
}

/* The overlay's sleep_until: returns at t or when the main thread says stop. */
static void overlay_sleep_until(uint64_t t)
{
	struct timespec ts = to_timespec(t);

	pthread_mutex_lock(&overlay_lock);
	while (!overlay_stop && pthread_cond_timedwait(&overlay_wake, &overlay_lock, &ts) == 0)
		;
	pthread_mutex_unlock(&overlay_lock);
}

/* One generation of buffers; --realloc-every replaces it with a new one. */
struct buffer_set {
	unsigned long n;
	GraphicBuffer *gb;	  /* the buffers, as AOSP allocates them */
	sp<GraphicBuffer> *gb_sp; /* one strong pointer per GraphicBuffer */
};

/* What gralloc would put in a buffer's ANativeWindowBuffer header (the probe reads it). */
struct buffer_geometry {
	int width, height;
};

/* A magic that is no ANDROID_NATIVE_BUFFER_MAGIC: --bad-magic-every's buffer. */
#define STANDIN_BAD_MAGIC 0x0badf00d

static void buffer_header(GraphicBuffer *b, const struct buffer_geometry *g)
{
	b->width = g->width;
	b->height = g->height;
	b->stride = (g->width + 63) & ~63; /* a gralloc's row alignment (64 pixels here) */
	b->format = HAL_PIXEL_FORMAT_RGBA_8888;
	b->usage = GRALLOC_USAGE_HW_TEXTURE | GRALLOC_USAGE_HW_RENDER | GRALLOC_USAGE_HW_COMPOSER;
	b->usage_deprecated = (int)b->usage;
}

/* The fake objects one surface of a game queues through: its Surface and buffers. */
struct scene {
	Surface *surface;
	struct buffer_geometry geometry;
	struct buffer_set set;
	GraphicBuffer bad; /* --bad-magic-every: a header with a wrong magic */
	sp<GraphicBuffer> bad_sp;
	unsigned long next;		  /* the buffer the next call queues */
	unsigned long long since_realloc; /* buffers queued from this set */
	unsigned long long calls;	  /* made so far: picks the --symbol path */
	sp<Fence> fence;
	SurfaceQueueBufferOutput output;
	Surface::BatchQueuedBuffer *batch; /* the K elements of one batch call */
	SurfaceQueueBufferOutput *batch_out;
};

static void buffer_set_free(struct buffer_set *b)
{
	if (b->gb)
		for (unsigned long i = 0; i < b->n; i++)
			b->gb[i].~GraphicBuffer();
	free(b->gb);
	free(b->gb_sp);
	*b = {};
}

static bool buffer_set_alloc(struct buffer_set *b, unsigned long n, const struct buffer_geometry *g)
{
	*b = {};
	b->gb = (GraphicBuffer *)calloc(n, sizeof(*b->gb));
	b->gb_sp = (sp<GraphicBuffer> *)calloc(n, sizeof(*b->gb_sp));
	if (!b->gb || !b->gb_sp)
		return false;
	b->n = n;
	for (unsigned long i = 0; i < n; i++) {
		new (&b->gb[i]) GraphicBuffer();
		buffer_header(&b->gb[i], g);
		b->gb_sp[i] = sp<GraphicBuffer>(&b->gb[i]);
	}
	return true;
}

/*
 * A resolution change: a new set of buffers. It is allocated while the old one still
 * exists, so no new buffer can have the address of a buffer it replaces.
 */
static bool scene_realloc(struct scene *s)
{
	struct buffer_set fresh;

	if (!buffer_set_alloc(&fresh, s->set.n, &s->geometry)) {
		buffer_set_free(&fresh);
		return false;
	}
	buffer_set_free(&s->set);
	s->set = fresh;
	s->next = 0;
	s->since_realloc = 0;
	return true;
}

static bool scene_init(struct scene *s, unsigned long n, unsigned long long batch,
		       struct buffer_geometry g)
{
	*s = {};
	s->geometry = g;
	buffer_header(&s->bad, &g);
	s->bad.common.magic = STANDIN_BAD_MAGIC;
	s->bad_sp = sp<GraphicBuffer>(&s->bad);
	s->surface = new (std::nothrow) Surface();
	if (!s->surface || !buffer_set_alloc(&s->set, n, &g))
		return false;
	s->batch = (Surface::BatchQueuedBuffer *)calloc(batch, sizeof(*s->batch));
	s->batch_out = (SurfaceQueueBufferOutput *)calloc(batch, sizeof(*s->batch_out));
	return s->batch && s->batch_out;
}

static void scene_free(struct scene *s)
{
	delete s->surface;
	buffer_set_free(&s->set);
	free(s->batch);
	free(s->batch_out);
}

/* What framerec must record for buffer i and the surface: the native pointers (canonical). */
static uint64_t buffer_of(const struct scene *s, unsigned long i)
{
	return (uint64_t)(uintptr_t)s->set.gb[i].getNativeBuffer();
}

static uint64_t surface_of(const struct scene *s)
{
	return (uint64_t)(uintptr_t) static_cast<ANativeWindow *>(s->surface);
}

/* --symbol internal: the interceptor an app (or a layer like Swappy) installs. */
static int pass_through(ANativeWindow *window, ANativeWindow_queueBufferFn queue_fn, void *data,
			ANativeWindowBuffer *buffer, int fenceFd)
{
	(void)data;
	return queue_fn(window, buffer, fenceFd);
}

/*
 * One single-buffer call through entry point v with buffer g (its strong pointer gsp) and
 * timestamp ts (AUTO, or set on the Surface first as an app does; the post-16 input form
 * passes it in its input as well).
 */
static int queue(struct scene *s, enum variant v, GraphicBuffer *g, const sp<GraphicBuffer> &gsp,
		 int64_t ts)
{
	ANativeWindow *w = s->surface;
	ANativeWindowBuffer *b = g->getNativeBuffer();
	SurfaceQueueBufferInput input = {-1, ts};
	int ret = -1;

	if (ts != NATIVE_WINDOW_TIMESTAMP_AUTO)
		(void)native_window_set_buffers_timestamp(w, ts);
	switch (v) {
	case V_HOOK:
		return w->queueBuffer(w, b, -1);
	case V_INTERNAL:
		s->surface->setQueueInterceptor(pass_through, nullptr);
		ret = w->queueBuffer(w, b, -1);
		s->surface->setQueueInterceptor(nullptr, nullptr);
		return ret;
	case V_DEPRECATED:
		return w->queueBuffer_DEPRECATED(w, b);
	case V_LEGACY:
		return s->surface->queueBuffer(b, -1);
	case V_OUTPUT:
		return s->surface->queueBuffer(b, -1, &s->output);
	case V_SP:
		return s->surface->queueBuffer(gsp, s->fence, &s->output);
	case V_SP_INPUT:
		return s->surface->queueBuffer(gsp, input, &s->output);
	case V_BATCH:
	case V_BATCH_LEGACY:
		break;
	}
	return ret;
}

/*
 * The timestamp buffer j of a call at time t queues with: --batch-timestamps' t + j * N for
 * a batch element, --present-ahead's t + MS for every buffer, else AUTO.
 */
static int64_t call_timestamp(const struct options *o, uint64_t t, unsigned long long j, bool batch)
{
	if (o->present_ahead_ms)
		return (int64_t)(t + o->present_ahead_ms * 1000000ull);
	if (batch && o->batch_ts_ns)
		return (int64_t)(t + j * o->batch_ts_ns);
	return NATIVE_WINDOW_TIMESTAMP_AUTO;
}

/*
 * One queueBuffers call (v: which form) with the k buffers from i on in rotation, at
 * time t, each with its call_timestamp.
 */
static int queue_batch(struct scene *s, const struct options *o, enum variant v, unsigned long i,
		       unsigned long long k, uint64_t t)
{
	for (unsigned long long j = 0; j < k; j++) {
		s->batch[j].buffer = s->set.gb[(i + j) % s->set.n].getNativeBuffer();
		s->batch[j].fenceFd = -1;
		s->batch[j].timestamp = call_timestamp(o, t, j, true);
	}
	LibcxxVector<Surface::BatchQueuedBuffer> in = {s->batch, s->batch + k, s->batch + k};
	LibcxxVector<SurfaceQueueBufferOutput> out = {s->batch_out, s->batch_out + k,
						      s->batch_out + k};
	if (v == V_BATCH_LEGACY)
		return s->surface->queueBuffers(in);
	return s->surface->queueBuffers(in, &out);
}

/*
 * --batch-malformed: one queueBuffers call per mode, with a vector whose begin points at
 * three real elements (a probe that trusted it would read them) but whose end makes no
 * vector of 24-byte elements: what a recorder sees through a wrong symbol or another ABI.
 * The library refuses them (surface.h, STANDIN_BATCH_SANE); they queue nothing.
 */
static void queue_malformed(struct scene *s, unsigned modes)
{
	Surface::BatchQueuedBuffer elems[3];
	uintptr_t begin = (uintptr_t)elems, end[N_MALFORMED];

	for (unsigned long j = 0; j < 3; j++)
		elems[j] = {s->set.gb[j % s->set.n].getNativeBuffer(), -1,
			    NATIVE_WINDOW_TIMESTAMP_AUTO};
	end[M_UNALIGNED] = begin + 3 * sizeof(elems[0]) + 1;
	end[M_HUGE] = begin + (sizeof(elems[0]) << 36);
	end[M_REVERSED] = begin - sizeof(elems[0]);
	for (size_t m = 0; m < N_MALFORMED; m++) {
		if (!(modes & (1u << m)))
			continue;
		LibcxxVector<Surface::BatchQueuedBuffer> in = {
		    reinterpret_cast<Surface::BatchQueuedBuffer *>(begin),
		    reinterpret_cast<Surface::BatchQueuedBuffer *>(end[m]),
		    reinterpret_cast<Surface::BatchQueuedBuffer *>(end[m])};
		(void)s->surface->queueBuffers(in, nullptr);
	}
}

/*
 * --truth: one FILE for every thread. With two threads the lock is held from the time
 * taken before a call to its lines being written, so the file is in time order.
 */
struct truth {
	FILE *f;
	bool shared; /* two threads write: take lock */
	pthread_mutex_t lock;
};

/* One surface and the thread that queues its buffers. */
struct lane {
	const struct options *o;
	const struct pacing *pace;
	bool is_main;		   /* the main thread: jank, --frames, stop signals */
	unsigned long long frames; /* calls to make; 0 = until stopped */
	uint64_t start;		   /* the first call's due time */
	struct scene scene;
	struct truth *truth;
	long tid;
	unsigned long long calls;
	bool truth_failed;
	bool out_of_memory;
	struct sf_server *sf; /* --compositor: where its buffers go after the call */
	int layer;
	unsigned events; /* the display events done (a bit per enum display_event) */
	bool recreated;	 /* --recreate-at done */
	bool resized;	 /* --size-at done */
};

/* --refresh-switch, --resize-at, --invisible: each happens once, on the main lane. */
enum display_event { E_SWITCH, E_RESIZE, E_HIDE, E_SHOW, N_EVENTS };

/*
 * The display events due by `due` (ns since the first call), before the call due then:
 * the app (or the system) changes the display or the surface between two frames, on
 * the schedule, so a run with the same options has them at the same frame.
 */
static void display_events(struct lane *l, uint64_t due)
{
	const struct options *o = l->o;
	const unsigned long long at[N_EVENTS] = {o->switch_s, o->resize_s, o->hide_s, o->show_s};

	if (!l->sf || !l->is_main)
		return;
	for (unsigned e = 0; e < N_EVENTS; e++) {
		if (!at[e] || (l->events & (1u << e)) || due < at[e] * 1000000000ull)
			continue;
		l->events |= 1u << e;
		if (e == E_SWITCH)
			sf_server_set_period(l->sf, (int64_t)(1000000000ull / o->switch_hz));
		else if (e == E_RESIZE)
			sf_server_flush(l->sf, l->layer);
		else
			sf_server_set_visible(l->sf, l->layer, e == E_SHOW);
	}
}

/* The gap after call n (0-based) that was due `due` ns after the start. */
static uint64_t period_after(const struct pacing *p, unsigned long long n, uint64_t due)
{
	if (p->n_pattern)
		return p->pattern_ms[n % p->n_pattern] * 1000000ull;
	if (p->n_steps) {
		/* The step the call fell in; after the last step, the last one's rate. */
		uint64_t end = 0;
		size_t i;
		for (i = 0; i + 1 < p->n_steps; i++) {
			end += p->steps[i].seconds * 1000000000ull;
			if (due < end)
				break;
		}
		return 1000000000ull / p->steps[i].fps;
	}
	if (p->bursts) /* the last call of a burst waits for the whole burst's periods */
		return (n + 1) % p->bursts ? 0 : p->bursts * (1000000000ull / p->fps);
	return 1000000000ull / p->fps;
}

/* One truth line: MONOTONIC_NS 0xBUFFER 0xSURFACE TID [TIMESTAMP, when not AUTO]. */
static void truth_line(struct lane *l, uint64_t t, uint64_t buf, uint64_t surface, int64_t ts)
{
	int n;

	if (ts != NATIVE_WINDOW_TIMESTAMP_AUTO)
		n = fprintf(l->truth->f,
			    "%" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " %ld %" PRId64 "\n", t, buf,
			    surface, l->tid, ts);
	else
		n = fprintf(l->truth->f, "%" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " %ld\n", t, buf,
			    surface, l->tid);
	if (n < 0)
		l->truth_failed = true;
}

/* The truth lines of one call: k buffers from first on, all at time t. */
static void truth_lines(struct lane *l, unsigned long first, unsigned long long k, uint64_t t,
			bool batch)
{
	const struct scene *s = &l->scene;
	uint64_t surface = surface_of(s);

	for (unsigned long long j = 0; j < k; j++)
		truth_line(l, t, buffer_of(s, (first + j) % s->set.n), surface,
			   call_timestamp(l->o, t, j, batch));
}

/*
 * --compositor: the call's buffers reach SurfaceFlinger's side (BLAST's BufferQueue), each
 * with the timestamp it was queued with (call_timestamp). A FIFO queue that is full
 * blocks here, as dequeueBuffer would block the game.
 */
static void to_compositor(struct lane *l, unsigned long first, unsigned long long k, uint64_t t,
			  bool batch)
{
	const struct scene *s = &l->scene;

	if (!l->sf)
		return;
	/*
	 * The buffers reach the queue now, after the call (its probe entry comes first), with
	 * the timestamps of the call's time t. call_timestamp's AUTO is the compositor's
	 * COMP_TS_AUTO (both INT64_MIN).
	 */
	int64_t queued = (int64_t)now_ns();
	for (unsigned long long j = 0; j < k; j++)
		sf_server_queue(l->sf, l->layer, buffer_of(s, (first + j) % s->set.n), queued,
				call_timestamp(l->o, t, j, batch));
}

/*
 * --bad-magic-every: the call queues the scene's bad buffer, out of rotation, with its
 * truth line (a recorder records the frame, not the geometry).
 */
static void lane_call_bad(struct lane *l, enum variant v)
{
	struct scene *s = &l->scene;
	uint64_t t = 0;

	if (l->truth && l->truth->shared)
		pthread_mutex_lock(&l->truth->lock);
	if (l->truth || l->o->present_ahead_ms)
		t = now_ns();
	int64_t ts = call_timestamp(l->o, t, 0, false);
	(void)queue(s, v, &s->bad, s->bad_sp, ts);
	if (l->sf)
		sf_server_queue(l->sf, l->layer, (uint64_t)(uintptr_t)s->bad.getNativeBuffer(),
				(int64_t)now_ns(), ts);
	if (!l->truth)
		return;
	truth_line(l, t, (uint64_t)(uintptr_t)s->bad.getNativeBuffer(), surface_of(s), ts);
	if (l->truth->shared)
		pthread_mutex_unlock(&l->truth->lock);
}

/* One call of the lane's surface through its next --symbol path; with its truth lines. */
static void lane_call(struct lane *l)
{
	const struct options *o = l->o;
	struct scene *s = &l->scene;
	unsigned long first = s->next;
	enum variant v = o->path[s->calls++ % o->n_paths];
	bool batch = is_batch(v);
	unsigned long long k = batch ? o->batch : 1;
	uint64_t t = 0;

	if (l->is_main && o->bad_magic_every && s->calls % o->bad_magic_every == 0) {
		lane_call_bad(l, v);
		return;
	}
	if (l->truth && l->truth->shared)
		pthread_mutex_lock(&l->truth->lock);
	if (l->truth || (batch && o->batch_ts_ns) || o->present_ahead_ms)
		t = now_ns();
	if (batch)
		(void)queue_batch(s, o, v, first, k, t);
	else
		(void)queue(s, v, &s->set.gb[first], s->set.gb_sp[first],
			    call_timestamp(o, t, 0, false));
	s->next = (unsigned long)((first + k) % s->set.n);
	s->since_realloc += k;
	to_compositor(l, first, k, t, batch);
	if (!l->truth)
		return;
	truth_lines(l, first, k, t, batch);
	if (l->truth->shared)
		pthread_mutex_unlock(&l->truth->lock);
}

static bool lane_stopping(const struct lane *l)
{
	return stop_signal || (!l->is_main && overlay_stopping());
}

/*
 * --recreate-at: what an app does on rotation or pause/resume. The producer disconnects,
 * the Surface is replaced (a new object; --recreate-same-address: destroyed and built
 * again in place, so the new Surface has the old address), the new one is connected and
 * gets new buffers (allocated before the old ones are freed: new addresses).
 */
static bool scene_recreate(struct scene *s, bool same_address)
{
	ANativeWindow *old = s->surface;

	(void)native_window_api_disconnect(old, NATIVE_WINDOW_API_EGL);
	if (same_address) {
		s->surface->~Surface();
		new (s->surface) Surface();
	} else {
		Surface *fresh = new (std::nothrow) Surface();

		if (!fresh)
			return false;
		delete s->surface;
		s->surface = fresh;
	}
	(void)native_window_api_connect(s->surface, NATIVE_WINDOW_API_EGL);
	return scene_realloc(s);
}

/*
 * The main lane's --recreate-at and --size-at, each once, before the call due `due` ns
 * after the start. --size-at rewrites the buffers' headers where they are.
 */
static bool recreate_due(struct lane *l, uint64_t due)
{
	const struct options *o = l->o;
	struct scene *s = &l->scene;

	if (!l->is_main)
		return true;
	if (o->size_at_s && !l->resized && due >= o->size_at_s * 1000000000ull) {
		l->resized = true;
		s->geometry = {(int)o->size_at_w, (int)o->size_at_h};
		for (unsigned long i = 0; i < s->set.n; i++)
			buffer_header(&s->set.gb[i], &s->geometry);
	}
	if (!o->recreate_s || l->recreated || due < o->recreate_s * 1000000000ull)
		return true;
	l->recreated = true;
	return scene_recreate(s, o->recreate_same);
}

/* Make the lane's calls on their schedule until --frames, a stop signal or the main's end. */
static void lane_run(struct lane *l)
{
	const struct options *o = l->o;
	uint64_t deadline = l->start;
	unsigned long long n;

	l->tid = (long)syscall(SYS_gettid);
	/* The drawing thread connects its producer first, as EGL and Vulkan do. */
	(void)native_window_api_connect(l->scene.surface, NATIVE_WINDOW_API_EGL);
	for (n = 0; (l->frames == 0 || n < l->frames) && !lane_stopping(l); n++) {
		if (!o->burst) {
			if (l->is_main)
				sleep_until(deadline);
			else
				overlay_sleep_until(deadline);
			if (lane_stopping(l))
				break;
		}
		if ((o->realloc_every && l->scene.since_realloc >= o->realloc_every &&
		     !scene_realloc(&l->scene)) ||
		    !recreate_due(l, deadline - l->start)) {
			l->out_of_memory = true;
			break;
		}
		display_events(l, deadline - l->start);
		lane_call(l);
		/* A game naming its thread again mid-run (a pool thread taking a new job). */
		if (l->is_main && o->rename_to && n + 1 == o->rename_after)
			pthread_setname_np(pthread_self(), o->rename_to);
		/* Call n+2 (1-based) is due one period later, plus the jank if it is late. */
		deadline += period_after(l->pace, n, deadline - l->start);
		if (l->is_main && o->jank_every && (n + 2) % o->jank_every == 0)
			deadline += o->jank_ms * 1000000ull;
	}
	l->calls = n;
	/* eglDestroySurface / vkDestroySurfaceKHR: the producer goes. */
	(void)native_window_api_disconnect(l->scene.surface, NATIVE_WINDOW_API_EGL);
}

/* HWUI names the thread that draws an app's views RenderThread (RenderThread.cpp). */
static void *overlay_main(void *arg)
{
	pthread_setname_np(pthread_self(), "RenderThread");
	lane_run((struct lane *)arg);
	return nullptr;
}

/*
 * Start the overlay thread. It blocks the stop signals and SIGUSR1 (the mask it
 * inherits), so they interrupt the main thread's sleep, never its own.
 */
static bool overlay_start(struct lane *ov, pthread_t *thread)
{
	pthread_condattr_t ca;
	sigset_t block, old;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&overlay_wake, &ca);
	pthread_condattr_destroy(&ca);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int err = pthread_create(thread, nullptr, overlay_main, ov);
	pthread_sigmask(SIG_SETMASK, &old, nullptr);
	if (err)
		fprintf(stderr, "standin-game: overlay thread: %s\n", strerror(err));
	return err == 0;
}

static void overlay_join(pthread_t thread)
{
	pthread_mutex_lock(&overlay_lock);
	overlay_stop = true;
	pthread_cond_broadcast(&overlay_wake);
	pthread_mutex_unlock(&overlay_lock);
	pthread_join(thread, nullptr);
}

/* Run the main lane here and the overlay lane (if any) on its own thread, from now on. */
static bool run(struct lane *main_lane, struct lane *ov, uint64_t *elapsed_ns)
{
	pthread_t thread;
	uint64_t start = now_ns();

	main_lane->start = start;
	if (ov) {
		ov->start = start;
		if (!overlay_start(ov, &thread))
			return false;
	}
	lane_run(main_lane);
	*elapsed_ns = now_ns() - start;
	if (ov)
		overlay_join(thread);
	return true;
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
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

/* The main surface (--fps, --buffers, --frames) and the overlay (--overlay-*). */
static bool lanes_init(const struct options *o, struct pacing *ov_pace, struct lane *main_lane,
		       struct lane *ov)
{
	*main_lane = {};
	main_lane->o = o;
	main_lane->pace = &o->pace;
	main_lane->is_main = true;
	main_lane->frames = o->frames;
	*ov = {};
	ov->o = o;
	*ov_pace = {};
	ov_pace->fps = o->overlay_fps;
	ov->pace = ov_pace;
	bool ok = scene_init(&main_lane->scene, (unsigned long)o->buffers, o->batch,
			     {(int)o->width, (int)o->height});
	if (o->surfaces)
		ok = scene_init(&ov->scene, (unsigned long)o->overlay_buffers, o->batch,
				{(int)o->ov_width, (int)o->ov_height}) &&
		     ok;
	if (!ok)
		fprintf(stderr, "standin-game: out of memory for the buffers\n");
	return ok;
}

static FILE *truth_open(const char *path, struct truth *t, bool shared)
{
	t->f = fopen(path, "w");
	if (!t->f) {
		fprintf(stderr, "standin-game: %s: %s\n", path, strerror(errno));
		return nullptr;
	}
	/* A large buffer: few write() calls in the frame loop. */
	setvbuf(t->f, nullptr, _IOFBF, 1 << 20);
	t->shared = shared;
	pthread_mutex_init(&t->lock, nullptr);
	return t->f;
}

/*
 * --compositor: the stand-in SurfaceFlinger, its layers named as Android names a game's:
 * the main surface a SurfaceView of the activity PACKAGE/PACKAGE.MainActivity, the
 * overlay (--surfaces) the activity's window, drawn by the view system.
 */
static bool compositor_start(const struct options *o, struct lane *m, struct lane *ov)
{
	char title[512];
	const char *pkg = o->package ? o->package : "standin-game";
	int err = sf_server_start(&m->sf, o->compositor, o->present_truth, (int)o->sf_android,
				  (int64_t)(1000000000ull / o->refresh_hz));

	if (err) {
		fprintf(stderr, "standin-game: --compositor %s: %s\n", o->compositor,
			strerror(-err));
		m->sf = nullptr;
		return false;
	}
	snprintf(title, sizeof(title), "%s/%s.MainActivity", pkg, pkg);
	comp_mode mode = o->mailbox ? COMP_MAILBOX : COMP_FIFO;
	m->layer = sf_server_add_layer(m->sf, COMP_SURFACEVIEW, title, mode);
	if (ov) {
		ov->sf = m->sf;
		ov->layer = sf_server_add_layer(m->sf, COMP_WINDOW, title, COMP_FIFO);
	}
	return m->layer >= 0 && (!ov || ov->layer >= 0);
}

static void print_burst(const struct options *o, const struct lane *m, const struct lane *ov,
			uint64_t elapsed_ns)
{
	if (!o->burst || !m->calls)
		return;
	if (ov)
		printf("standin-game: overlay: %llu calls\n", ov->calls);
	printf("standin-game: %llu calls of %s in %" PRIu64 " ns: %.1f ns/call\n", m->calls,
	       o->n_paths == 1 ? variant_names[o->path[0]] : "the --symbol paths", elapsed_ns,
	       (double)elapsed_ns / (double)m->calls);
}

int main(int argc, char **argv)
{
	struct options o;
	struct pacing ov_pace;
	struct lane m, ov;
	struct truth truth = {};
	uint64_t elapsed_ns = 0;
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
	struct lane *ovp = o.surfaces ? &ov : nullptr;
	if (!lanes_init(&o, &ov_pace, &m, &ov))
		goto cleanup;
	if (o.truth) {
		if (!truth_open(o.truth, &truth, o.surfaces))
			goto cleanup;
		m.truth = ov.truth = &truth;
	}
	if (o.compositor && !compositor_start(&o, &m, o.surfaces ? &ov : nullptr))
		goto cleanup;
	/* Engines name the thread that queues their frames (Unreal's GameThread, UnityMain). */
	if (o.thread_name)
		pthread_setname_np(pthread_self(), o.thread_name);
	if (o.wait_signal)
		wait_for_go();
	if (o.start_delay_ms && !stop_signal)
		sleep_until(now_ns() + o.start_delay_ms * 1000000ull);
	if (o.malformed && !stop_signal)
		queue_malformed(&m.scene, o.malformed);

	if (!run(&m, ovp, &elapsed_ns))
		goto cleanup;
	if (m.out_of_memory || ov.out_of_memory) {
		fprintf(stderr, "standin-game: out of memory for new buffers (--realloc-every)\n");
		goto cleanup;
	}
	if (truth.f) {
		int err = fclose(truth.f);
		truth.f = nullptr;
		if (err != 0 || m.truth_failed || ov.truth_failed) {
			fprintf(stderr, "standin-game: %s: write failed: %s\n", o.truth,
				strerror(errno));
			goto cleanup;
		}
	}
	print_burst(&o, &m, ovp, elapsed_ns);
	rc = 0;
cleanup:
	if (m.sf) {
		/* the game's last buffers are latched before it goes (5 vsyncs at most), and
		 * the last presents are in the truth file */
		if (!stop_signal)
			sf_server_drain(m.sf, 5 * (int64_t)(1000000000ull / o.refresh_hz));
		sf_server_stop(m.sf);
	}
	if (truth.f)
		fclose(truth.f);
	scene_free(&m.scene);
	scene_free(&ov.scene);
	fflush(stdout);
	if (stop_signal) {
		/* Die of the signal, as a game would, now that the truth file is complete. */
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return rc;
}
