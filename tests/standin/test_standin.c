/* SPDX-License-Identifier: MIT */
/*
 * test_standin.c - the stand-in libgui.so exports the real mangled names (the six
 * queueBuffer variants and the batch path queueBuffers), and standin-game writes the truth
 * file the recorder tests compare against, for every behaviour it can imitate: one surface,
 * two surfaces on two threads, batches, reallocation, stutter and rate steps.
 *
 * Every expectation is computed here from the options given, never read from the game.
 * Run one test: test_standin NAME (CTest registers each as standin.NAME).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "frc_case.h"

/*
 * Every Surface queue entry point of Android 11..16 and later (display-truth.md 6), as
 * literal mangled names, never computed: what the stand-in must export.
 */
static const char *const aosp_symbols[] = {
    /* static hook_queueBuffer(ANativeWindow*, ANativeWindowBuffer*, int): 11-16 */
    "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
    /* static queueBufferInternal(ANativeWindow*, ANativeWindowBuffer*, int): 11-16 */
    "_ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi",
    /* static hook_queueBuffer_DEPRECATED(ANativeWindow*, ANativeWindowBuffer*): 11-16 */
    "_ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer",
    /* queueBuffer(ANativeWindowBuffer*, int): 11-15 */
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi",
    /* queueBuffer(ANativeWindowBuffer*, int, SurfaceQueueBufferOutput*): 15 QPR1+, 16 */
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
    /* queueBuffer(const sp<GraphicBuffer>&, const sp<Fence>&, SurfaceQueueBufferOutput*) */
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
    "24SurfaceQueueBufferOutputE",
    /* queueBuffer(const sp<GraphicBuffer>&, const SurfaceQueueBufferInput&, ...*): post-16 */
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_"
    "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
    /* queueBufferImpl(const sp<GraphicBuffer>&, const sp<Fence>&, const ...Input*, ...*) */
    "_ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPKNS_"
    "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
    /* queueBuffers(const std::vector<BatchQueuedBuffer>&): 12-15 */
    "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
    "9allocatorIS3_EEEE",
    /* queueBuffers(const std::vector<BatchQueuedBuffer>&, std::vector<...Output>*): 16 */
    "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
    "9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE",
};
#define N_AOSP (sizeof(aosp_symbols) / sizeof(aosp_symbols[0]))
#define SYM_HOOK aosp_symbols[0]
#define SYM_LEGACY aosp_symbols[3]
#define batch_symbol aosp_symbols[9]

/*
 * ANativeWindow* = Surface* + 16 and ANativeWindowBuffer* = GraphicBuffer* + 16: RefBase
 * (vptr + mRefs) comes first in both (android-abi.md). Written here, not taken from the
 * stand-in or from framerec.
 */
#define REFBASE 16

/* The layout a BPF reader assumes, written out here independently of surface.h. */
struct batch_elem {
	void *buffer;
	int fence_fd;
	int64_t timestamp;
};
_Static_assert(sizeof(struct batch_elem) == 24, "24-byte elements");
struct vec {
	void *begin, *end, *end_cap;
};

static void *lib_sym(void *h, const char *name)
{
	void *f = dlsym(h, name);
	ck_assert_msg(f, "%s is not exported: %s", name, dlerror());
	/* The name resolves to itself: a function of this library, not an alias. */
	Dl_info info;
	ck_assert_int_ne(dladdr(f, &info), 0);
	ck_assert_str_eq(info.dli_sname, name);
	return f;
}

START_TEST(exports_aosp_names)
{
	void *h = dlopen(STANDIN_LIB, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", STANDIN_LIB, dlerror());
	for (size_t i = 0; i < N_AOSP; i++)
		lib_sym(h, aosp_symbols[i]);
	unsigned long long *queued = dlsym(h, "standin_queued");
	void **last = dlsym(h, "standin_last_buffer");
	ck_assert_ptr_nonnull(queued);
	ck_assert_ptr_nonnull(last);

	/*
	 * Call the legacy member through its C ABI: (this, buffer, fence) -> 0. It reads the
	 * Surface's timestamp member, so `this` is a zeroed block larger than a Surface.
	 */
	int (*legacy)(void *, void *, int) = (int (*)(void *, void *, int))lib_sym(h, SYM_LEGACY);
	uint64_t surface[64] = {0};
	int buffer = 0;
	ck_assert_int_eq(legacy(surface, &buffer, -1), 0);
	ck_assert_uint_eq(*queued, 1);

	/* The batch path through its C ABI: (this, &vector, &outputs) -> 0, one per element. */
	int (*batch)(void *, const struct vec *, struct vec *) =
	    (int (*)(void *, const struct vec *, struct vec *))lib_sym(h, batch_symbol);
	int bufs[3];
	struct batch_elem e[3] = {{&bufs[0], -1, 0}, {&bufs[1], -1, 0}, {&bufs[2], -1, 0}};
	uint64_t out[3] = {0, 0, 0};
	struct vec in = {e, e + 3, e + 3}, outv = {out, out + 3, out + 3};
	ck_assert_int_eq(batch(surface, &in, &outv), 0);
	ck_assert_uint_eq(*queued, 4);
	ck_assert_ptr_eq(*last, &bufs[2]);
	ck_assert_uint_eq(out[0], 2); /* frame numbers after the legacy call's 1 */
	ck_assert_uint_eq(out[2], 4);
	/*
	 * No vector of 24-byte elements (what standin-game --batch-malformed passes): refused
	 * with -EINVAL without being read, nothing queued.
	 */
	uintptr_t b = (uintptr_t)e;
	struct vec bad[] = {{e, (void *)(b + 3 * 24 + 1), NULL},
			    {e, (void *)(b + ((uintptr_t)24 << 36)), NULL},
			    {e + 1, e, NULL}};
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(batch(surface, &bad[i], NULL), -22);
		ck_assert_uint_eq(*queued, 4);
	}
	dlclose(h);
}
END_TEST

/*
 * `nm -D libgui.so` (not our loader) lists every AOSP entry point once, defined in .text,
 * by its name; and no other queue entry point (Kala's sp<GraphicBuffer>/sp<Fence> name
 * without the output parameter, or the member form of queueBufferInternal, are in no
 * AOSP tag).
 */
START_TEST(nm_aosp_names)
{
	char cmd[1024], line[512], want[400];
	int found[N_AOSP] = {0}, lines = 0, queue_names = 0;
	snprintf(cmd, sizeof(cmd), "'%s' -D --defined-only '%s'", STANDIN_NM, STANDIN_LIB);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		lines++;
		/* "ADDRESS T NAME": compare from the type letter on. */
		char *sp = strchr(line, ' ');
		for (size_t i = 0; sp && i < N_AOSP; i++) {
			snprintf(want, sizeof(want), " T %s\n", aosp_symbols[i]);
			found[i] += strcmp(sp, want) == 0;
		}
		queue_names += sp && strstr(sp, "queueBuffer") != NULL;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_int_gt(lines, (int)N_AOSP);
	for (size_t i = 0; i < N_AOSP; i++)
		ck_assert_msg(found[i] == 1, "nm -D %s: '%s' found %d times", STANDIN_LIB,
			      aosp_symbols[i], found[i]);
	ck_assert_int_eq(queue_names, (int)N_AOSP);
}
END_TEST

/*
 * Surface lifetime (issue 19): connect's 11-15 overloads and disconnect under AOSP's names
 * (android-11.0.0_r1 .. 15.0.0_r1 Surface.h; written here, not taken from the stand-in),
 * each defined once in .text. framerec attaches the three-argument IProducerListener one,
 * which the others call (recorder.geometry_and_lifetime: one connect per surface).
 */
START_TEST(nm_lifetime_names)
{
	static const char *const names[] = {
	    "_ZN7android7Surface7connectEi",
	    "_ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEE",
	    "_ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEEb",
	    "_ZN7android7Surface7connectEibRKNS_2spINS_15SurfaceListenerEEE",
	    "_ZN7android7Surface10disconnectEiNS_22IGraphicBufferProducer14DisconnectModeE",
	};
	char cmd[1024], line[512], want[400];
	int found[5] = {0};

	snprintf(cmd, sizeof(cmd), "'%s' -D --defined-only '%s'", STANDIN_NM, STANDIN_LIB);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *sp = strchr(line, ' ');
		for (size_t i = 0; sp && i < 5; i++) {
			snprintf(want, sizeof(want), " T %s\n", names[i]);
			found[i] += strcmp(sp, want) == 0;
		}
	}
	ck_assert_int_eq(pclose(p), 0);
	for (size_t i = 0; i < 5; i++)
		ck_assert_msg(found[i] == 1, "nm -D %s: '%s' found %d times", STANDIN_LIB, names[i],
			      found[i]);
}
END_TEST

/* Run standin-game with args; returns its exit status (or -1). stderr to err_path if set. */
static int run_game_err(char *const argv[], const char *err_path)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (err_path && !freopen(err_path, "w", stderr))
			_exit(126);
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int run_game(char *const argv[])
{
	return run_game_err(argv, NULL);
}

/* A truth file, read strictly: every line is "NS 0xBUFFER 0xSURFACE TID [TIMESTAMP]". */
struct truth {
	size_t n;
	uint64_t ns[4096], buf[4096], surface[4096];
	long tid[4096];
	bool has_ts[4096];
	int64_t ts[4096];
	pid_t pid; /* the game's process id */
};

static void read_truth(const char *path, struct truth *t)
{
	char line[256];
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	t->n = 0;
	while (fgets(line, sizeof(line), f)) {
		ck_assert_uint_lt(t->n, 4096);
		int end = -1, ts_end = -1;
		int got =
		    sscanf(line, "%" SCNu64 " 0x%" SCNx64 " 0x%" SCNx64 " %ld%n", &t->ns[t->n],
			   &t->buf[t->n], &t->surface[t->n], &t->tid[t->n], &end);
		t->has_ts[t->n] = got == 4 && end > 0 &&
				  sscanf(line + end, " %" SCNd64 "%n", &t->ts[t->n], &ts_end) == 1;
		if (t->has_ts[t->n])
			end += ts_end;
		ck_assert_msg(got == 4 && end > 0 && strcmp(line + end, "\n") == 0,
			      "truth line %zu is not 'NS 0xBUFFER 0xSURFACE TID [TIMESTAMP]': %s",
			      t->n + 1, line);
		t->n++;
	}
	fclose(f);
}

/*
 * Run the game with args (NULL-terminated, without argv[0] and --truth) and --truth path;
 * returns its wait status, -1 when it could not run. With a gate, the child waits until
 * gate(pid, ctx) has returned true before it execs (and is killed if it returns false).
 * Asserts nothing, so a caller can clean up first.
 */
typedef bool (*spawn_gate)(pid_t pid, const void *ctx);

static int spawn_game(const char *const args[], const char *path, pid_t *pid, spawn_gate gate,
		      const void *ctx)
{
	char *argv[32];
	size_t n = 0;
	int go[2];

	argv[n++] = "standin-game";
	for (size_t i = 0; args[i]; i++) {
		if (n == 28)
			return -1;
		argv[n++] = (char *)args[i];
	}
	argv[n++] = "--truth";
	argv[n++] = (char *)path;
	argv[n] = NULL;
	if (pipe(go) != 0)
		return -1;
	*pid = fork();
	if (*pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	close(go[0]);
	if (*pid > 0 && gate && !gate(*pid, ctx))
		kill(*pid, SIGKILL);
	if (write(go[1], "g", 1) != 1 && *pid > 0)
		kill(*pid, SIGKILL);
	close(go[1]);
	int st;
	if (*pid < 0 || waitpid(*pid, &st, 0) != *pid)
		return -1;
	return st;
}

/* Run the game with args; it must exit 0. Read its truth file into t. */
static void run_truth(struct truth *t, const char *const args[])
{
	char path[] = "/tmp/standin-truth-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	int st = spawn_game(args, path, &t->pid, NULL, NULL);
	ck_assert_msg(st == 0, "standin-game failed: wait status %d", st);
	read_truth(path, t);
	unlink(path);
}

/*
 * Timing checks can miss on a machine that stalls the game for longer than their slack
 * (seen: 48 ms, two cores shared by an ASan run and other tests). A stall is chance, a
 * wrong schedule is not: a timing miss is noted here instead of failing, and
 * with_retries runs the test again, failing when each of 3 runs missed. Every other
 * check fails at once.
 */
#define TIMING_RUNS 3
static char timing_miss[256];

static void timing_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void timing_note(const char *fmt, ...)
{
	va_list ap;
	if (timing_miss[0])
		return; /* the first miss of a run says most */
	va_start(ap, fmt);
	vsnprintf(timing_miss, sizeof(timing_miss), fmt, ap);
	va_end(ap);
}

static void with_retries(void (*run_once)(const void *ctx), const void *ctx)
{
	for (int run = 1;; run++) {
		timing_miss[0] = 0;
		run_once(ctx);
		if (!timing_miss[0])
			return;
		printf("run %d: %s\n", run, timing_miss);
		ck_assert_msg(run < TIMING_RUNS, "%s (and in each of %d runs)", timing_miss,
			      TIMING_RUNS);
	}
}

/*
 * Each call happens at its due time plus a wake-up latency. Measured from the call with
 * the least latency (the schedule's origin is not observable: even call 0 may wake late),
 * every latency is within slack_ms (a busy machine: 20 ms for a short run, more for the
 * long ones, always less than the error a wrong schedule makes), and there is no drift.
 * due_ns[k] is call k's due time relative to call 0's.
 */
static void check_due(const uint64_t *ns, const uint64_t *due_ns, size_t n, int64_t slack_ms)
{
	int64_t least = INT64_MAX;

	for (size_t k = 0; k < n; k++) {
		int64_t late = (int64_t)(ns[k] - ns[0]) - (int64_t)due_ns[k];
		if (late < least)
			least = late;
	}
	for (size_t k = 0; k < n; k++) {
		int64_t late = (int64_t)(ns[k] - ns[0]) - (int64_t)due_ns[k];
		if (late - least > slack_ms * 1000000)
			timing_note("call %zu is %" PRId64 " ns later than the on-time calls", k,
				    late - least);
	}
}

/* A steady rate with jank: call k is due `period_ns` after call k-1, plus jank_ms when its
 * 1-based number is a multiple of jank_every. */
static void check_schedule(const uint64_t *ns, size_t n, uint64_t period_ns, size_t jank_every,
			   uint64_t jank_ms, int64_t slack_ms)
{
	static uint64_t due[4096];

	ck_assert_uint_le(n, 4096);
	for (size_t k = 0; k < n; k++) {
		due[k] = k ? due[k - 1] + period_ns : 0;
		if (k && jank_every && (k + 1) % jank_every == 0)
			due[k] += jank_ms * 1000000;
	}
	check_due(ns, due, n, slack_ms);
}

static struct truth T; /* large: one per test process */

/* One surface on the main thread: surface constant, TID = the game's pid, time order. */
static void check_one_surface(const struct truth *t)
{
	for (size_t i = 0; i < t->n; i++) {
		ck_assert_uint_eq(t->surface[i], t->surface[0]);
		ck_assert_int_eq(t->tid[i], t->pid);
		ck_assert(i == 0 || t->ns[i] >= t->ns[i - 1]);
	}
	ck_assert_uint_ne(t->surface[0], 0);
}

static void truth_once(const void *variant)
{
	const char *args[] = {"--fps", "200",	   "--frames", "20", "--buffers",
			      "3",     "--symbol", variant,    NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 20);
	/* Three distinct buffers in rotation. */
	ck_assert(T.buf[0] != T.buf[1] && T.buf[1] != T.buf[2] && T.buf[0] != T.buf[2]);
	for (size_t i = 3; i < T.n; i++)
		ck_assert_uint_eq(T.buf[i], T.buf[i - 3]);
	check_one_surface(&T);
	/* 200 fps: due every 5 ms on absolute deadlines. */
	check_schedule(T.ns, T.n, 5000000, 0, 0, 20);
}

START_TEST(truth_legacy)
{
	with_retries(truth_once, "legacy");
}
END_TEST

START_TEST(truth_sp)
{
	with_retries(truth_once, "sp");
}
END_TEST

START_TEST(truth_hook)
{
	with_retries(truth_once, "hook");
}
END_TEST

static void jank_once(const void *unused)
{
	(void)unused;
	const char *args[] = {"--fps", "200",	    "--frames", "10", "--jank-every",
			      "5",     "--jank-ms", "30",	NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 10);
	/* Frames 5 and 10 (1-based) are 30 ms late: frame 10 is due 9 * 5 + 2 * 30 = 105 ms
	 * after frame 1 (45 ms without the jank); 20 ms of slack for wake-up latency. */
	check_schedule(T.ns, T.n, 5000000, 5, 30, 20);
	if (T.ns[9] - T.ns[0] < 85000000)
		timing_note("frame 10 came %" PRIu64 " ns after frame 1", T.ns[9] - T.ns[0]);
}

START_TEST(jank)
{
	with_retries(jank_once, NULL);
}
END_TEST

START_TEST(bad_variant)
{
	char *argv[] = {"standin-game", "--symbol", "nosuch", NULL};
	ck_assert_int_eq(run_game(argv), 2);
}
END_TEST

/* The lines of one surface, in file order. */
struct lane {
	size_t n;
	uint64_t ns[4096], buf[4096];
	long tid;
};

static void split_lane(const struct truth *t, uint64_t surface, struct lane *l)
{
	l->n = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->surface[i] != surface)
			continue;
		if (l->n == 0)
			l->tid = t->tid[i];
		ck_assert_int_eq(t->tid[i], l->tid); /* one surface, one thread */
		l->ns[l->n] = t->ns[i];
		l->buf[l->n++] = t->buf[i];
	}
}

/* Buffers of a lane rotate through `count` distinct ones; returns whether any is in other. */
static void check_rotation(const struct lane *l, size_t count)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i >= count)
			ck_assert_uint_eq(l->buf[i], l->buf[i - count]);
		for (size_t j = i + 1; j < count && j < l->n; j++)
			ck_assert_uint_ne(l->buf[i], l->buf[j]);
	}
}

static struct lane main_lane, overlay_lane;

/*
 * --surfaces --fps 60 --overlay-fps 10 --frames 60: one second. The main surface makes
 * exactly 60 calls on the main thread (TID = pid); the overlay, on another thread, makes
 * one call every 100 ms from the start until the main's last call (due at 983 ms): 10,
 * within [9, 12] for a machine that wakes either thread up to 100 ms late.
 */
static void surfaces_once(const void *variant)
{
	const char *args[] = {"--surfaces", "--fps", "60",	 "--overlay-fps",	"10",
			      "--frames",   "60",    "--symbol", (const char *)variant, NULL};
	run_truth(&T, args);
	uint64_t s0 = T.surface[0], s1 = 0;
	for (size_t i = 0; i < T.n; i++) {
		if (T.surface[i] != s0 && !s1)
			s1 = T.surface[i];
		ck_assert(T.surface[i] == s0 || T.surface[i] == s1); /* two surfaces only */
		ck_assert(i == 0 || T.ns[i] >= T.ns[i - 1]);	     /* time order */
	}
	ck_assert_msg(s1 != 0, "one surface only");
	split_lane(&T, s0, &main_lane);
	split_lane(&T, s1, &overlay_lane);
	if (main_lane.tid != T.pid) {
		struct lane tmp = main_lane;
		main_lane = overlay_lane;
		overlay_lane = tmp;
	}
	ck_assert_int_eq(main_lane.tid, T.pid);
	ck_assert_int_ne(overlay_lane.tid, T.pid);
	ck_assert_uint_eq(main_lane.n, 60);
	if (overlay_lane.n < 9 || overlay_lane.n > 12)
		timing_note("the overlay made %zu calls", overlay_lane.n);
	check_rotation(&main_lane, 3);	  /* --buffers 3 (default) */
	check_rotation(&overlay_lane, 2); /* --overlay-buffers 2 (default) */
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 2; j++)
			ck_assert_uint_ne(main_lane.buf[i], overlay_lane.buf[j]);
	/* 60 ms: less than the 100 ms a dropped overlay call or the 16.7 ms by which a main
	 * call at a wrong rate would be off after 4 calls. */
	check_schedule(main_lane.ns, main_lane.n, 1000000000 / 60, 0, 0, 60);
	check_schedule(overlay_lane.ns, overlay_lane.n, 100000000, 0, 0, 60);
}

START_TEST(surfaces_hook)
{
	with_retries(surfaces_once, "hook"); /* argument 0 is the ANativeWindow: one per surface */
}
END_TEST

START_TEST(surfaces_member)
{
	with_retries(surfaces_once, "output"); /* argument 0 is `this` */
}
END_TEST

/*
 * Stopped by SIGTERM with two threads running: the game writes every line it owes (the
 * file reads whole, both surfaces in it), then dies of the signal, as the recorder
 * tests expect of it.
 */
START_TEST(surfaces_sigterm)
{
	char path[] = "/tmp/standin-truth-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char *argv[] = {"standin-game", "--surfaces", "--fps", "200", "--overlay-fps",
			"100",		"--truth",    path,    NULL};
	pid_t pid = fork();
	if (pid == 0) {
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	usleep(300000);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "wait status %d", st);
	T.pid = pid;
	read_truth(path, &T);
	unlink(path);
	ck_assert_uint_ge(T.n, 10);
	split_lane(&T, T.surface[0], &main_lane);
	ck_assert_uint_lt(main_lane.n, T.n); /* the other surface is there too */
}
END_TEST

/*
 * --batch 2 --buffers 3 --fps 100 --frames 10: 10 calls of 2 buffers, so 20 lines in
 * pairs with the call's time, the rotation going on across calls (b0 b1 | b2 b0 | ...),
 * one surface, calls 10 ms apart.
 */
static void batch_once(const void *unused)
{
	(void)unused;
	const char *args[] = {"--batch", "2",	     "--buffers", "3", "--fps",
			      "100",	 "--frames", "10",	  NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 20);
	check_one_surface(&T);
	uint64_t calls[10];
	for (size_t c = 0; c < 10; c++) {
		ck_assert_uint_eq(T.ns[2 * c], T.ns[2 * c + 1]);
		ck_assert(c == 0 || T.ns[2 * c] > T.ns[2 * c - 1]);
		calls[c] = T.ns[2 * c];
	}
	ck_assert(T.buf[0] != T.buf[1] && T.buf[1] != T.buf[2] && T.buf[0] != T.buf[2]);
	for (size_t i = 3; i < T.n; i++)
		ck_assert_uint_eq(T.buf[i], T.buf[i - 3]);
	check_schedule(calls, 10, 10000000, 0, 0, 20);
}

START_TEST(batch_groups)
{
	with_retries(batch_once, NULL);
}
END_TEST

/*
 * --realloc-every 6 --buffers 3 --frames 18: three generations of 6 calls; each rotates
 * through 3 distinct buffers, none of which the previous generation had.
 */
START_TEST(realloc_every)
{
	const char *args[] = {"--realloc-every", "6",  "--buffers", "3", "--fps", "500",
			      "--frames",	 "18", NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 18);
	check_one_surface(&T);
	for (size_t g = 0; g < 3; g++) {
		const uint64_t *b = &T.buf[6 * g];
		ck_assert(b[0] != b[1] && b[1] != b[2] && b[0] != b[2]);
		for (size_t i = 3; i < 6; i++)
			ck_assert_uint_eq(b[i], b[i - 3]);
		for (size_t i = 0; g && i < 3; i++)
			for (size_t j = 0; j < 3; j++)
				ck_assert_msg(b[i] != T.buf[6 * (g - 1) + j],
					      "generation %zu reuses 0x%" PRIx64, g, b[i]);
	}
}
END_TEST

/*
 * --pattern 20,180: gaps alternate 20 ms and 180 ms; 11 calls are due at 0 20 200 220 ...
 * A steady 100 ms rate (no stutter) would put every other call 80 ms off: more than the
 * 60 ms of slack a busy machine (an ASan run beside other tests) needs.
 */
static void pattern_once(const void *unused)
{
	(void)unused;
	const char *args[] = {"--pattern", "20,180", "--frames", "11", NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 11);
	check_one_surface(&T);
	uint64_t due[11] = {0};
	for (size_t k = 1; k < 11; k++)
		due[k] = due[k - 1] + ((k % 2) ? 20 : 180) * 1000000ull;
	check_due(T.ns, due, 11, 60);
}

START_TEST(pattern)
{
	with_retries(pattern_once, NULL);
}
END_TEST

/* Calls of t in [from_ms, to_ms) after origin_ns. */
static size_t calls_between(const struct truth *t, uint64_t origin_ns, uint64_t from_ms,
			    uint64_t to_ms)
{
	size_t n = 0;
	for (size_t k = 0; k < t->n; k++) {
		uint64_t at = t->ns[k] - origin_ns;
		n += at >= from_ms * 1000000 && at < to_ms * 1000000;
	}
	return n;
}

/*
 * --rate-steps 200:1,50:1 --frames 270: 200 calls 5 ms apart in the first second, then
 * 50 calls 20 ms apart in the next, then the last rate stays: 20 more calls 20 ms apart
 * (due at 2000 .. 2380 ms; back at 200 fps they would all be done by 2100 ms). No call
 * is more than 100 ms off. Counted from the schedule's origin as the least late call
 * shows it, a step holds its calls but for late ones crossing its end (absolute
 * deadlines: a late call does not move the later ones).
 */
static void rate_steps_once(const void *unused)
{
	(void)unused;
	const char *args[] = {"--rate-steps", "200:1,50:1", "--frames", "270", NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 270);
	check_one_surface(&T);
	static uint64_t due[270];
	uint64_t origin = UINT64_MAX;
	for (size_t k = 0; k < 270; k++) {
		due[k] = k <= 200 ? k * 5000000ull : 1000000000ull + (k - 200) * 20000000ull;
		if (T.ns[k] - due[k] < origin)
			origin = T.ns[k] - due[k];
	}
	check_due(T.ns, due, 270, 100);
	size_t first = calls_between(&T, origin, 0, 1000);
	size_t second = calls_between(&T, origin, 1000, 2000);
	size_t by_2300 = calls_between(&T, origin, 0, 2300);
	if (first < 196 || first > 200 || second < 46 || second > 54)
		timing_note("%zu calls in the first second, %zu in the second", first, second);
	/* Due before 2300 ms: calls 0 .. 264. */
	if (by_2300 < 262 || by_2300 > 265)
		timing_note("%zu calls by 2300 ms", by_2300);
}

START_TEST(rate_steps)
{
	with_retries(rate_steps_once, NULL);
}
END_TEST

/* A bad value or combination: exit 2 and exactly one line on stderr naming the option. */
static void check_bad(const char *names, const char *const args[])
{
	char path[] = "/tmp/standin-err-XXXXXX", line[512], extra[8];
	char *argv[16];
	size_t n = 0;
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	argv[n++] = "standin-game";
	for (size_t i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	ck_assert_int_eq(run_game_err(argv, path), 2);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_ptr_null(fgets(extra, sizeof(extra), f));
	fclose(f);
	unlink(path);
	ck_assert_msg(strstr(line, names), "'%s' does not name %s", line, names);
	ck_assert_msg(strncmp(line, "standin-game: ", 14) == 0, "%s", line);
}

START_TEST(bad_values)
{
#define BAD(name, ...) check_bad(name, (const char *const[]){__VA_ARGS__, NULL})
	BAD("--batch", "--batch", "0");
	BAD("--batch", "--batch", "4097");
	BAD("[1, 4096]", "--batch", "x");
	BAD("--batch-malformed", "--batch-malformed", "sideways");
	BAD("--batch-malformed", "--batch-malformed", "huge,huge");
	BAD("--batch-malformed", "--batch-malformed", "huge,");
	BAD("--overlay-fps", "--surfaces", "--overlay-fps", "0");
	BAD("--overlay-buffers", "--surfaces", "--overlay-buffers", "1025");
	BAD("--overlay-fps", "--overlay-fps", "5"); /* without --surfaces */
	BAD("--realloc-every", "--realloc-every", "0");
	BAD("--pattern", "--pattern", "0");
	BAD("--pattern", "--pattern", "16,,33");
	BAD("--pattern", "--pattern", "16,");
	BAD("--pattern", "--pattern", "");
	BAD("--pattern", "--pattern", "60001");
	BAD("--rate-steps", "--rate-steps", "60");
	BAD("--rate-steps", "--rate-steps", "60:0");
	BAD("--rate-steps", "--rate-steps", "0:3");
	BAD("--rate-steps", "--rate-steps", "60:3,40");
	BAD("--rate-steps", "--pattern", "16", "--rate-steps", "60:1");
	BAD("--pattern", "--fps", "30", "--pattern", "16");
	BAD("--fps", "--fps", "0");
	/* the display events: refused without --compositor, or out of range */
	BAD("--present-ahead", "--present-ahead", "4");
	BAD("--invisible", "--invisible", "1:2");
	BAD("--resize-at", "--resize-at", "1");
	BAD("--refresh-switch", "--refresh-switch", "60@1");
	BAD("--present-ahead", "--compositor", "/tmp/x.sock", "--present-ahead", "0");
	BAD("--present-ahead", "--compositor", "/tmp/x.sock", "--present-ahead", "4",
	    "--batch-timestamps", "1000");
	BAD("--invisible", "--compositor", "/tmp/x.sock", "--invisible", "2:2");
	BAD("--invisible", "--compositor", "/tmp/x.sock", "--invisible", "0:2");
	BAD("--invisible", "--compositor", "/tmp/x.sock", "--invisible", "1:");
	BAD("--refresh-switch", "--compositor", "/tmp/x.sock", "--refresh-switch", "501@1");
	BAD("--refresh-switch", "--compositor", "/tmp/x.sock", "--refresh-switch", "60@0");
	BAD("--refresh-switch", "--compositor", "/tmp/x.sock", "--refresh-switch", "60:1");
	BAD("--resize-at", "--compositor", "/tmp/x.sock", "--resize-at", "0");
	BAD("--bursts", "--bursts", "1");
	BAD("--bursts", "--bursts", "65");
	BAD("--bursts", "--bursts", "4", "--pattern", "16");
	/* buffer geometry and surface lifetime (issue 19) */
	BAD("--size", "--size", "1080");
	BAD("--size", "--size", "0x100");
	BAD("--size", "--size", "16385x100");
	BAD("--overlay-size", "--overlay-size", "x100");
	BAD("--size-at", "--size-at", "2");
	BAD("--size-at", "--size-at", "0:10x10");
	BAD("--recreate-at", "--recreate-at", "0");
	BAD("--recreate-same-address", "--recreate-same-address");
	BAD("--bad-magic-every", "--bad-magic-every", "0");
	BAD("--bad-magic-every", "--bad-magic-every", "5", "--symbol", "hook,batch");
#undef BAD
}
END_TEST

/* --help exits 0 and teaches every option, the truth format and examples. */
START_TEST(help)
{
	static const char *const opts[] = {"--fps",
					   "--buffers",
					   "--frames",
					   "--symbol",
					   "--jank-every",
					   "--jank-ms",
					   "--burst",
					   "--truth",
					   "--start-delay-ms",
					   "--wait-signal",
					   "--surfaces",
					   "--overlay-fps",
					   "--overlay-buffers",
					   "--batch",
					   "--realloc-every",
					   "--pattern",
					   "--rate-steps",
					   "--present-ahead",
					   "--refresh-switch",
					   "--resize-at",
					   "--invisible",
					   "--bursts",
					   "MONOTONIC_NS 0xBUFFER 0xSURFACE TID",
					   "Examples:"};
	char cmd[512], text[16384];
	snprintf(cmd, sizeof(cmd), "'%s' --help", STANDIN_GAME);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(text, 1, sizeof(text) - 1, p);
	text[n] = 0;
	ck_assert_int_eq(pclose(p), 0);
	static const char *const examples[] = {
	    "  standin-game --surfaces --fps 60 --overlay-fps 10", "  standin-game --batch 3",
	    "  standin-game --realloc-every", "  standin-game --pattern 16,33",
	    "  standin-game --rate-steps 60:3,40:3"};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		ck_assert_msg(strstr(text, opts[i]), "--help does not mention %s", opts[i]);
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		ck_assert_msg(strstr(text, examples[i]), "--help has no example '%s'", examples[i]);
}
END_TEST

/* ------------------------------------------------------------ display scenarios */

/*
 * The compositor's truth (--present-truth, compositor.c): "latch 0xBUF QUEUE DESIRED NAME",
 * "present DESIRED VSYNC NAME", "drop 0xBUF QUEUE WHY NAME"; read strictly.
 */
struct ptruth {
	size_t latched, presents, dropped;
	size_t why_overdue, why_invisible, why_flushed, why_replaced;
	int64_t vsync[4096]; /* the presents' vsync times, in order */
};
static struct ptruth PT;

static void read_ptruth(const char *path, struct ptruth *pt)
{
	char line[512], kind[16], why[32];
	int64_t a, b;
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	*pt = (struct ptruth){0};
	while (fgets(line, sizeof(line), f)) {
		ck_assert_int_eq(sscanf(line, "%15s", kind), 1);
		if (!strcmp(kind, "latch")) {
			ck_assert_int_eq(sscanf(line, "latch 0x%*x %" SCNd64 " %" SCNd64, &a, &b),
					 2);
			pt->latched++;
		} else if (!strcmp(kind, "present")) {
			ck_assert_int_eq(sscanf(line, "present %" SCNd64 " %" SCNd64, &a, &b), 2);
			ck_assert_uint_lt(pt->presents, 4096);
			pt->vsync[pt->presents++] = b;
		} else {
			ck_assert_msg(!strcmp(kind, "drop"), "present truth line: %s", line);
			ck_assert_int_eq(sscanf(line, "drop 0x%*x %" SCNd64 " %31s", &a, why), 2);
			pt->dropped++;
			pt->why_overdue += !strcmp(why, "overdue");
			pt->why_invisible += !strcmp(why, "invisible");
			pt->why_flushed += !strcmp(why, "flushed");
			pt->why_replaced += !strcmp(why, "replaced");
		}
	}
	fclose(f);
}

/* Run the game with its compositor and args (after --compositor SOCK --present-truth F). */
static void run_display(struct ptruth *pt, const char *const args[])
{
	char sock[64], path[] = "/tmp/standin-present-XXXXXX";
	const char *argv[24] = {"--compositor", sock, "--present-truth", path};
	size_t n = 4;
	struct truth *t = calloc(1, sizeof(*t));
	ck_assert_ptr_nonnull(t);
	snprintf(sock, sizeof(sock), "/tmp/standin-sf.%d.sock", (int)getpid());
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	for (size_t i = 0; args[i]; i++) {
		ck_assert_uint_lt(n, 23);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	run_truth(t, argv);
	free(t);
	read_ptruth(path, pt);
	unlink(path);
	unlink(sock);
}

/* Present n's vsync minus present n-1's, for the presents whose vsync is in [from, to) ms. */
static size_t count_period(const struct ptruth *pt, int64_t period, int64_t from_ms, int64_t to_ms)
{
	size_t n = 0;
	for (size_t k = 1; k < pt->presents; k++) {
		int64_t at = pt->vsync[k] - pt->vsync[0];
		if (at >= from_ms * 1000000 && at < to_ms * 1000000)
			n += pt->vsync[k] - pt->vsync[k - 1] == period;
	}
	return n;
}

/*
 * --present-ahead: a game at 17/17/30/2 ms gaps on 60 Hz with timestamps 4 ms ahead. The
 * two buffers after the 30 ms gap are due at one vsync: SF latches the later, drops the
 * earlier as overdue (about one in 4). The same game with auto timestamps drops nothing
 * (FIFO: each buffer one vsync). Counts, not timing: no retries.
 */
START_TEST(present_ahead)
{
	const char *ahead[] = {"--refresh",	  "60", "--pattern", "17,17,30,2", "--frames", "80",
			       "--present-ahead", "4",	NULL};
	run_display(&PT, ahead);
	ck_assert_uint_ge(PT.why_overdue, 10); /* 20 cycles of 4 */
	ck_assert_uint_eq(PT.dropped, PT.why_overdue);
	ck_assert_uint_eq(PT.latched + PT.dropped, 80);
	const char *automatic[] = {"--refresh", "60", "--pattern", "17,17,30,2",
				   "--frames",	"80", NULL};
	run_display(&PT, automatic);
	ck_assert_uint_eq(PT.dropped, 0);
	ck_assert_uint_eq(PT.latched, 80);
}
END_TEST

/*
 * --invisible 1:2 at 60 fps on 60 Hz: the second second's buffers are dropped as
 * invisible, and the presents have a gap of about a second (nothing shown then).
 */
START_TEST(invisible)
{
	const char *args[] = {"--refresh", "60",	  "--fps", "60", "--frames",
			      "150",	   "--invisible", "1:2",   NULL};
	run_display(&PT, args);
	ck_assert_uint_ge(PT.why_invisible, 50);
	ck_assert_uint_le(PT.why_invisible, 70);
	ck_assert_uint_eq(PT.dropped, PT.why_invisible);
	int64_t gap = 0;
	for (size_t k = 1; k < PT.presents; k++)
		if (PT.vsync[k] - PT.vsync[k - 1] > gap)
			gap = PT.vsync[k] - PT.vsync[k - 1];
	ck_assert_int_ge(gap, 900000000);
	ck_assert_int_le(gap, 1100000000);
}
END_TEST

/*
 * --refresh-switch 60@1: a 120 fps FIFO game on 120 Hz. The vsyncs (the presents' times,
 * the compositor's schedule, not a clock read) are P120 apart before the switch (but where a
 * buffer came late: 2 P120, which is P60) and P60 after it, never P120 again.
 */
START_TEST(refresh_switch)
{
	const char *args[] = {"--refresh",	  "120",  "--fps", "120", "--frames", "200",
			      "--refresh-switch", "60@1", NULL};
	run_display(&PT, args);
	ck_assert_uint_ge(count_period(&PT, 8333333, 0, 900), 90);
	ck_assert_uint_ge(count_period(&PT, 16666666, 1100, 100000), 20);
	ck_assert_uint_eq(count_period(&PT, 8333333, 1100, 100000), 0);
}
END_TEST

/*
 * --resize-at 1: a 90 fps FIFO game on 60 Hz keeps its BufferQueue full (COMP_QUEUE_MAX
 * buffers wait); the resize flushes them unpresented. Without it, nothing is dropped.
 */
START_TEST(resize_at)
{
	const char *args[] = {"--refresh", "60",	  "--fps", "90", "--frames",
			      "120",	   "--resize-at", "1",	   NULL};
	run_display(&PT, args);
	ck_assert_uint_ge(PT.why_flushed, 4);
	ck_assert_uint_le(PT.why_flushed, 8);
	ck_assert_uint_eq(PT.dropped, PT.why_flushed);
	const char *plain[] = {"--refresh", "60", "--fps", "90", "--frames", "120", NULL};
	run_display(&PT, plain);
	ck_assert_uint_eq(PT.dropped, 0);
}
END_TEST

/*
 * --bursts 4 --fps 50: calls 4k .. 4k+3 are due together, burst k at k * 80 ms (4 periods
 * of 20 ms); the FIFO compositor presents every one, a burst on consecutive vsyncs.
 */
static void bursts_once(const void *unused)
{
	(void)unused;
	const char *args[] = {"--bursts", "4", "--fps", "50", "--frames", "40", NULL};
	static uint64_t due[40];
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 40);
	check_one_surface(&T);
	for (size_t k = 0; k < 40; k++) {
		due[k] = (k / 4) * 80000000ull;
		if (T.ns[k] - T.ns[k - k % 4] > 5000000)
			timing_note("call %zu is %" PRIu64 " ns after its burst's first", k,
				    T.ns[k] - T.ns[k - k % 4]);
	}
	check_due(T.ns, due, 40, 20);
}

START_TEST(bursts)
{
	with_retries(bursts_once, NULL);
	const char *args[] = {"--refresh", "60", "--bursts", "4",  "--buffers", "6",
			      "--fps",	   "60", "--frames", "40", NULL};
	run_display(&PT, args);
	/* FIFO drops none; a burst is shown on consecutive vsyncs (the last burst may still
	 * wait when the game ends: the compositor stops with it) */
	ck_assert_uint_eq(PT.dropped, 0);
	ck_assert_uint_ge(PT.latched, 36);
	ck_assert_uint_ge(count_period(&PT, 16666666, 0, 100000), 27);
}
END_TEST

/* ------------------------------------------------------------ uprobe attach */

/*
 * A uprobe is placed on a symbol of libgui.so the way a recorder places one, without BPF:
 * a perf event of the uprobe PMU (path + file offset) counting its hits in one process.
 */

/* NULL when this machine can place uprobes; otherwise why not (the test is skipped). */
static const char *uprobe_unavailable(void)
{
	if (geteuid() != 0)
		return "not root";
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK) != 0)
		return "no uprobe PMU (/sys/bus/event_source/devices/uprobe)";
	return NULL;
}

static int uprobe_pmu_type(void)
{
	int type = -1;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &type), 1);
	fclose(f);
	return type;
}

/* The file offset of symbol `name` of the library at `path`, from where it is mapped here. */
static uint64_t symbol_file_offset(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_ptr_nonnull(h);
	uintptr_t addr = (uintptr_t)lib_sym(h, name);
	char line[1024], file[512];
	uint64_t start, end, off, result = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(maps);
	while (fgets(line, sizeof(line), maps)) {
		file[0] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %511s", &start,
			   &end, &off, file) >= 3 &&
		    addr >= start && addr < end) {
			result = addr - start + off;
			break;
		}
	}
	fclose(maps);
	dlclose(h);
	ck_assert_msg(result, "%s is in no mapping of %s", name, path);
	return result;
}

/* A counting uprobe on name for process pid (from its next exec on). */
static int uprobe_open(pid_t pid, const char *name)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)uprobe_pmu_type();
	attr.config1 = (uint64_t)(uintptr_t)STANDIN_LIB;      /* uprobe_path */
	attr.config2 = symbol_file_offset(STANDIN_LIB, name); /* probe_offset */
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	/* Not inherit: a thread the game starts would copy the event, and with it the path
	 * pointer (config1), which means nothing in the game's memory (EFAULT). The calls
	 * counted here are all on the game's main thread. */
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	ck_assert_msg(fd >= 0, "perf_event_open(uprobe %s): %s", name, strerror(errno));
	return fd;
}

static uint64_t uprobe_hits(int fd)
{
	uint64_t n = 0;
	ck_assert_int_eq(read(fd, &n, sizeof(n)), sizeof(n));
	close(fd);
	return n;
}

/*
 * Run the game with args under two uprobes, on the batch symbol and on the hook variant;
 * returns their hit counts. The child waits on a pipe until both are placed, then execs.
 */
static void count_calls(char *const argv[], uint64_t *batch_hits, uint64_t *hook_hits)
{
	int go[2];
	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	close(go[0]);
	int fd_batch = uprobe_open(pid, batch_symbol);
	int fd_hook = uprobe_open(pid, SYM_HOOK);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	*batch_hits = uprobe_hits(fd_batch);
	*hook_hits = uprobe_hits(fd_hook);
}

/*
 * A uprobe attaches to queueBuffers by its mangled name and fires once per batch call,
 * never through the single-buffer path; without --batch it is the other way round.
 */
START_TEST(uprobe_batch)
{
	uint64_t batch_n, hook;
	char *with_batch[] = {"standin-game", "--batch",  "4", "--fps",
			      "1000",	      "--frames", "5", NULL};
	count_calls(with_batch, &batch_n, &hook);
	ck_assert_uint_eq(batch_n, 5);
	ck_assert_uint_eq(hook, 0);
	char *without[] = {"standin-game", "--fps", "1000", "--frames", "7", NULL};
	count_calls(without, &batch_n, &hook);
	ck_assert_uint_eq(batch_n, 0);
	ck_assert_uint_eq(hook, 7);
}
END_TEST

/* ------------------------------------------------------------ what a probe reads */

/*
 * The truth file's BUFFER, SURFACE and TID columns are what a probe reading the arguments
 * sees; checked here by the kernel without BPF: tracefs uprobe events with fetch
 * arguments (the kernel's Documentation/trace/uprobetracer.rst) record argument 0, the
 * buffer and the thread of every call into a trace instance of our own, on the
 * CLOCK_MONOTONIC clock the truth file uses. tracefs is mounted in a private mount
 * namespace; the events and the instance are global, so their names carry this process's
 * pid and they are removed before anything is checked.
 */
#if defined(__x86_64__)
#define ARG0 "%di"
#define ARG1 "%si"
#elif defined(__aarch64__)
#define ARG0 "%x0"
#define ARG1 "%x1"
#endif

#ifdef ARG0
/*
 * The probed symbols and what each event fetches: the raw arguments, s (argument 0) and
 * b (the buffer as passed: argument 1, or the first word of the sp<> it points to), and
 * how far below the canonical ANativeWindow* / ANativeWindowBuffer* of the truth each lies
 * (the static hooks get those; a member gets `this`, REFBASE lower; an sp<> holds the
 * GraphicBuffer*, REFBASE lower).
 */
static const struct probe_def {
	const char *name;
	const char *symbol;
	const char *fetch;
	uint64_t s_below, b_below;
} probe_defs[] = {
    {"hook", "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
     "s=" ARG0 ":x64 b=" ARG1 ":x64", 0, 0},
    {"internal", "_ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi",
     "s=" ARG0 ":x64 b=" ARG1 ":x64", 0, 0},
    {"deprecated",
     "_ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer",
     "s=" ARG0 ":x64 b=" ARG1 ":x64", 0, 0},
    {"legacy", "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi",
     "s=" ARG0 ":x64 b=" ARG1 ":x64", REFBASE, 0},
    {"output",
     "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
     "s=" ARG0 ":x64 b=" ARG1 ":x64", REFBASE, 0},
    /* sp<GraphicBuffer> const&: the sp's first 8 bytes are the GraphicBuffer*. */
    {"sp",
     "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
     "24SurfaceQueueBufferOutputE",
     "s=" ARG0 ":x64 b=+0(" ARG1 "):x64", REFBASE, REFBASE},
    {"sp_input",
     "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_"
     "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
     "s=" ARG0 ":x64 b=+0(" ARG1 "):x64", REFBASE, REFBASE},
    {"impl",
     "_ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPKNS_"
     "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
     "s=" ARG0 ":x64 b=+0(" ARG1 "):x64", REFBASE, REFBASE},
    /* The vector: begin at +0, end at +8; elements of 24 bytes, the buffer first, the
     * timestamp at +16. */
    {"batch",
     "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
     "9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE",
     "s=" ARG0 ":x64 begin=+0(" ARG1 "):x64 end=+8(" ARG1 "):x64 b=+0(+0(" ARG1
     ")):x64 b1=+24(+0(" ARG1 ")):x64 t=+16(+0(" ARG1 ")):x64 t1=+40(+0(" ARG1 ")):x64",
     REFBASE, 0},
};
#define N_PROBES (sizeof(probe_defs) / sizeof(probe_defs[0]))

static const struct probe_def *probe_def(const char *event)
{
	for (size_t i = 0; i < N_PROBES; i++)
		if (strcmp(probe_defs[i].name, event) == 0)
			return &probe_defs[i];
	ck_abort_msg("no probe named %s", event);
	return NULL;
}

struct tracefs {
	char dir[64];	/* the mount point */
	char group[32]; /* standin_PID: the event group and the instance */
	size_t events;	/* defined so far */
	bool instance;
	bool mounted;
};

/* Write text to the tracefs file dir/rel (appending, as uprobe_events needs). */
static bool tfs_write(const struct tracefs *t, const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	int fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return false;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text);
}

/* Mount tracefs privately. NULL on success, else what failed (the test is skipped). */
static const char *tfs_mount(struct tracefs *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/standin-tracefs-XXXXXX");
	snprintf(t->group, sizeof(t->group), "standin_%d", (int)getpid());
	if (!mkdtemp(t->dir))
		return "mkdtemp";
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return "a private mount namespace";
	if (mount("tracefs", t->dir, "tracefs", 0, NULL) != 0)
		return "mount -t tracefs";
	t->mounted = true;
	char path[128];
	snprintf(path, sizeof(path), "%s/uprobe_events", t->dir);
	if (access(path, W_OK) != 0)
		return "tracefs has no uprobe_events (CONFIG_UPROBE_EVENTS)";
	return NULL;
}

/* Define the events and an instance recording them; false when the kernel refused. */
static bool tfs_setup(struct tracefs *t)
{
	char line[1024], rel[128];
	for (size_t i = 0; i < N_PROBES; i++) {
		snprintf(line, sizeof(line), "p:%s/%s %s:0x%" PRIx64 " %s\n", t->group,
			 probe_defs[i].name, STANDIN_LIB,
			 symbol_file_offset(STANDIN_LIB, probe_defs[i].symbol),
			 probe_defs[i].fetch);
		if (!tfs_write(t, "uprobe_events", line))
			return false;
		t->events++;
	}
	snprintf(rel, sizeof(rel), "%s/instances/%s", t->dir, t->group);
	if (mkdir(rel, 0755) != 0)
		return false;
	t->instance = true;
	snprintf(rel, sizeof(rel), "instances/%s/trace_clock", t->group);
	return tfs_write(t, rel, "mono\n");
}

/*
 * Record only the game's calls: other tests' games call the same functions meanwhile.
 * set_event_pid takes the game's pid; event-fork adds each thread it starts. The events
 * are enabled last, so nothing is recorded before the filter is in place.
 */
static bool tfs_follow(pid_t pid, const void *ctx)
{
	const struct tracefs *t = ctx;
	char rel[128], text[32];
	snprintf(rel, sizeof(rel), "instances/%s/options/event-fork", t->group);
	if (!tfs_write(t, rel, "1\n"))
		return false;
	snprintf(rel, sizeof(rel), "instances/%s/set_event_pid", t->group);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (!tfs_write(t, rel, text))
		return false;
	/* Enabled only now that the filter is in place. */
	snprintf(rel, sizeof(rel), "instances/%s/events/%s/enable", t->group, t->group);
	return tfs_write(t, rel, "1\n");
}

/* Undo tfs_setup and tfs_mount, whatever part of them was done. */
static void tfs_teardown(struct tracefs *t)
{
	char rel[128], line[128];
	if (t->instance) {
		snprintf(rel, sizeof(rel), "instances/%s/events/%s/enable", t->group, t->group);
		tfs_write(t, rel, "0\n");
		snprintf(rel, sizeof(rel), "%s/instances/%s", t->dir, t->group);
		rmdir(rel);
	}
	for (size_t i = 0; i < t->events; i++) {
		snprintf(line, sizeof(line), "-:%s/%s\n", t->group, probe_defs[i].name);
		tfs_write(t, "uprobe_events", line);
	}
	if (t->mounted)
		umount(t->dir);
	rmdir(t->dir);
}

/* One traced call: thread, time, event and the fetched values. */
struct hit {
	long tid;
	uint64_t ns;
	char event[16];
	uint64_t s, b, b1, begin, end, t, t1;
};

static uint64_t field(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	return p ? strtoull(p + strlen(key), NULL, 16) : 0;
}

/*
 * A trace line: "  COMM-TID  [CPU] FLAGS  SEC.USEC: EVENT: (0xIP) s=0x.. b=0x.." (COMM may
 * hold '-' and spaces). false for anything else.
 */
static bool parse_hit(const char *line, struct hit *h)
{
	const char *cpu = strstr(line, " [");
	const char *dash = cpu;
	while (dash && dash > line && *dash != '-')
		dash--;
	if (!cpu || !dash || *dash != '-')
		return false;
	h->tid = strtol(dash + 1, NULL, 10);
	const char *p = strchr(cpu, ']');
	unsigned long long sec, usec;
	int n = 0;
	if (!p || sscanf(p + 1, " %*s %llu.%llu: %15[^:]:%n", &sec, &usec, h->event, &n) != 3)
		return false;
	h->ns = sec * 1000000000ull + usec * 1000ull;
	h->s = field(p + n, " s=0x");
	h->b = field(p + n, " b=0x");
	h->b1 = field(p + n, " b1=0x");
	h->begin = field(p + n, " begin=0x");
	h->end = field(p + n, " end=0x");
	h->t = field(p + n, " t=0x");
	h->t1 = field(p + n, " t1=0x");
	return true;
}

static struct hit hits[4096];

/* Read the instance's trace; returns the number of hits (or -1 with why). */
static long tfs_read(const struct tracefs *t, const char **why)
{
	char path[256], line[512];
	snprintf(path, sizeof(path), "%s/instances/%s/trace", t->dir, t->group);
	FILE *f = fopen(path, "r");
	long n = 0;
	if (!f) {
		*why = "cannot open the trace";
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (n == 4096 || !parse_hit(line, &hits[n])) {
			*why = n == 4096 ? "too many hits" : "an unreadable trace line";
			n = -1;
			break;
		}
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Run the game with args under the probes. Everything global is removed before the first
 * check: the game's status, its truth and the hits are checked after.
 */
static size_t probe_game(const char *const args[], struct truth *t)
{
	struct tracefs tfs;
	char path[] = "/tmp/standin-truth-XXXXXX";
	const char *why = tfs_mount(&tfs);
	int fd = mkstemp(path);
	bool set_up = !why && fd >= 0 && tfs_setup(&tfs);
	int st = set_up ? spawn_game(args, path, &t->pid, tfs_follow, &tfs) : -1;
	long n = set_up ? tfs_read(&tfs, &why) : -1;
	tfs_teardown(&tfs);
	if (fd >= 0)
		close(fd);
	ck_assert_msg(!why, "tracefs: %s", why ? why : "");
	ck_assert_msg(set_up, "tracefs refused the uprobe events: %s", strerror(errno));
	ck_assert_msg(st == 0, "standin-game failed: wait status %d", st);
	read_truth(path, t);
	unlink(path);
	ck_assert_int_ge(n, 0);
	return (size_t)n;
}

/* The hits of one event, in trace order, into out; returns how many. */
static size_t hits_of(size_t n, const char *event, const struct hit **out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(hits[i].event, event) == 0) {
			ck_assert_uint_lt(k, max);
			out[k++] = &hits[i];
		}
	return k;
}

static const struct hit *picked[4096];

/*
 * One hit of event per truth line it must reach (line i when bit i % period of mask is
 * set), in order: the same thread, the raw arguments as far below the truth's canonical
 * SURFACE and BUFFER as the entry point's layout puts them, the probe's time within 2 ms
 * after the truth's (taken right before the call; the trace clock counts microseconds).
 */
static void check_event(const struct truth *t, size_t n, const char *event, unsigned mask,
			size_t period)
{
	const struct probe_def *d = probe_def(event);
	size_t k = hits_of(n, event, picked, 4096), want = 0, line[4096];
	for (size_t i = 0; i < t->n; i++)
		if (mask & (1u << (i % period)))
			line[want++] = i;
	ck_assert_msg(k == want, "%zu %s hits for %zu calls", k, event, want);
	for (size_t j = 0; j < k; j++) {
		const struct hit *h = picked[j];
		size_t i = line[j];
		ck_assert_int_eq(h->tid, t->tid[i]);
		ck_assert_msg(
		    h->s + d->s_below == t->surface[i] && h->b + d->b_below == t->buf[i],
		    "%s call %zu: probe saw s=0x%" PRIx64 " b=0x%" PRIx64 ", truth says 0x%" PRIx64
		    " 0x%" PRIx64 " (%" PRIu64 "/%" PRIu64 " bytes lower expected)",
		    event, i, h->s, h->b, t->surface[i], t->buf[i], d->s_below, d->b_below);
		ck_assert_msg(h->ns + 1000 >= t->ns[i] && h->ns <= t->ns[i] + 2000000,
			      "%s call %zu: probe at %" PRIu64 " ns, truth at %" PRIu64, event, i,
			      h->ns, t->ns[i]);
	}
}

static void check_hits_single(const struct truth *t, size_t n, const char *event)
{
	check_event(t, n, event, 1, 1);
}

/* Two surfaces on two threads, each call seen with its own surface and thread. */
START_TEST(probe_args_surfaces)
{
	const char *args[] = {"--surfaces", "--fps",	       "200", "--overlay-fps",
			      "100",	    "--frames",	       "20",  "--symbol",
			      "hook",	    "--realloc-every", "7",   NULL};
	size_t n = probe_game(args, &T);
	check_hits_single(&T, n, "hook");
	const char *args_sp[] = {"--surfaces", "--fps",	   "200", "--frames",
				 "10",	       "--symbol", "sp",  NULL};
	n = probe_game(args_sp, &T);
	check_hits_single(&T, n, "sp");
	const char *args_legacy[] = {"--frames", "5", "--fps", "200", "--symbol", "legacy", NULL};
	n = probe_game(args_legacy, &T);
	check_hits_single(&T, n, "legacy");
}
END_TEST

/*
 * AOSP's call graph (libs/gui/Surface.cpp, 16.0.0_r2 and post-16), one Surface, one call
 * per path in turn: hook -> output; internal (an interceptor set) -> hook -> internal ->
 * output; deprecated -> output; sp -> output; sp_input -> impl; legacy alone. Each event
 * fires exactly for the calls that reach it, and every one of them, whatever its layout,
 * names the same window and buffers once corrected by its offset.
 */
START_TEST(probe_call_graph)
{
	const char *args[] = {"--symbol", "hook,internal,deprecated,sp,sp_input,legacy",
			      "--fps",	  "500",
			      "--frames", "24",
			      NULL};
	size_t n = probe_game(args, &T);
	ck_assert_uint_eq(T.n, 24);
	check_one_surface(&T);
	/* Bit p: the call at position p of each round of 6 reaches the event. */
	check_event(&T, n, "hook", 0x03, 6); /* the hook and the interceptor calls */
	check_event(&T, n, "internal", 0x02, 6);
	check_event(&T, n, "deprecated", 0x04, 6);
	check_event(&T, n, "sp", 0x08, 6);
	check_event(&T, n, "output", 0x0f, 6); /* all but sp_input's and legacy's */
	check_event(&T, n, "sp_input", 0x10, 6);
	check_event(&T, n, "impl", 0x10, 6);
	check_event(&T, n, "legacy", 0x20, 6);
}
END_TEST

/*
 * --batch 2: one hit per call, whose vector holds 2 elements of 24 bytes: the buffers of
 * the call's two truth lines, with the call's surface and thread; with
 * --batch-timestamps, each element's timestamp at +16 is its truth line's.
 */
START_TEST(probe_args_batch)
{
	const char *args[] = {"--surfaces",    "--batch", "2",	      "--fps", "200",
			      "--overlay-fps", "100",	  "--frames", "10",    "--batch-timestamps",
			      "3000000",       NULL};
	size_t n = probe_game(args, &T);
	ck_assert_uint_eq(2 * n, T.n);
	for (size_t i = 0; i < n; i++) {
		const struct hit *h = &hits[i];
		ck_assert_str_eq(h->event, "batch");
		ck_assert_uint_eq(h->end - h->begin, 48);
		ck_assert_int_eq(h->tid, T.tid[2 * i]);
		ck_assert_int_eq(h->tid, T.tid[2 * i + 1]);
		ck_assert_uint_eq(h->s + REFBASE, T.surface[2 * i]);
		ck_assert_uint_eq(h->s + REFBASE, T.surface[2 * i + 1]);
		ck_assert_uint_eq(h->b, T.buf[2 * i]);
		ck_assert_uint_eq(h->b1, T.buf[2 * i + 1]);
		ck_assert(T.has_ts[2 * i] && T.has_ts[2 * i + 1]);
		ck_assert_uint_eq(h->t, (uint64_t)T.ts[2 * i]);
		ck_assert_uint_eq(h->t1, (uint64_t)T.ts[2 * i + 1]);
		ck_assert_int_eq(T.ts[2 * i + 1] - T.ts[2 * i], 3000000);
		ck_assert_uint_eq((uint64_t)T.ts[2 * i], T.ns[2 * i]);
	}
}
END_TEST

/* NULL when tracefs uprobe events can be used here; otherwise why not. */
static const char *tracefs_unavailable(void)
{
	static char why[160];
	const char *u = uprobe_unavailable();
	if (u)
		return u;
	/* Try in a child: the mount namespace is then its own and goes away with it. */
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return "pipe";
	pid_t pid = fork();
	if (pid == 0) {
		struct tracefs t;
		const char *w = tfs_mount(&t);
		tfs_teardown(&t);
		if (w && write(pipefd[1], w, strlen(w)) < 0)
			_exit(2);
		_exit(w ? 1 : 0);
	}
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], why, sizeof(why) - 1);
	close(pipefd[0]);
	int st = -1;
	waitpid(pid, &st, 0);
	if (st == 0)
		return NULL;
	why[n > 0 ? n : 0] = 0;
	return why[0] ? why : "tracefs check failed";
}
#else
static const char *tracefs_unavailable(void)
{
	return "no uprobe fetch-argument registers known for this architecture";
}
START_TEST(probe_args_surfaces)
{
}
END_TEST
START_TEST(probe_args_batch)
{
}
END_TEST
START_TEST(probe_call_graph)
{
}
END_TEST
#endif

/* ------------------------------------------------------------ main */

struct test_entry {
	const char *name;
	const TTest *test;
	const char *(*unavailable)(void); /* NULL, or why the test cannot run here */
};

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	const struct test_entry tests[] = {
	    FRC_CASE("exports", exports_aosp_names, NULL),
	    FRC_CASE("nm_lifetime_names", nm_lifetime_names, NULL),
	    FRC_CASE("nm_aosp_names", nm_aosp_names, NULL),
	    FRC_CASE("truth_legacy", truth_legacy, NULL),
	    FRC_CASE("truth_sp", truth_sp, NULL),
	    FRC_CASE("truth_hook", truth_hook, NULL),
	    FRC_CASE("jank", jank, NULL),
	    FRC_CASE("bad_variant", bad_variant, NULL),
	    FRC_CASE("surfaces_hook", surfaces_hook, NULL),
	    FRC_CASE("surfaces_member", surfaces_member, NULL),
	    FRC_CASE("surfaces_sigterm", surfaces_sigterm, NULL),
	    FRC_CASE("batch", batch_groups, NULL),
	    FRC_CASE("realloc_every", realloc_every, NULL),
	    FRC_CASE("pattern", pattern, NULL),
	    FRC_CASE("rate_steps", rate_steps, NULL),
	    FRC_CASE("bad_values", bad_values, NULL),
	    FRC_CASE("help", help, NULL),
	    FRC_CASE("present_ahead", present_ahead, NULL),
	    FRC_CASE("invisible", invisible, NULL),
	    FRC_CASE("refresh_switch", refresh_switch, NULL),
	    FRC_CASE("resize_at", resize_at, NULL),
	    FRC_CASE("bursts", bursts, NULL),
	    /* These need root and the uprobe PMU (and tracefs): SKIPPED (77) without them. */
	    FRC_CASE("uprobe_batch", uprobe_batch, uprobe_unavailable),
	    FRC_CASE("probe_args_surfaces", probe_args_surfaces, tracefs_unavailable),
	    FRC_CASE("probe_args_batch", probe_args_batch, tracefs_unavailable),
	    FRC_CASE("probe_call_graph", probe_call_graph, tracefs_unavailable),
	};
	Suite *s = suite_create("standin");
	/* One TCase per test, named like the test, so CTest can run each one alone. */
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (only && strcmp(only, tests[i].name) != 0)
			continue;
		const char *why = tests[i].unavailable ? tests[i].unavailable() : NULL;
		if (why) {
			printf("SKIP %s: %s\n", tests[i].name, why);
			if (only)
				return 77;
			continue;
		}
		TCase *tc = tcase_create(tests[i].name);
		tcase_set_timeout(tc, 20);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	int run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (run == 0) {
		fprintf(stderr, "test_standin: no test named '%s'\n", only ? only : "");
		return 1;
	}
	return failed ? 1 : 0;
}
