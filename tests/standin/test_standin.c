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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Literal names, in Kala's order (recorder/README.md); never computed. */
static const char *const kala_symbols[] = {
    "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
    "_ZN7android7Surface19queueBufferInternalEP19ANativeWindowBufferiPNS_"
    "24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
    "24SurfaceQueueBufferOutputE",
};

/*
 * android::Surface::queueBuffers(std::vector<BatchQueuedBuffer> const&,
 * std::vector<SurfaceQueueBufferOutput>*) as Android's libc++ mangles it (issue 10).
 */
static const char batch_symbol[] =
    "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
    "9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE";

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

START_TEST(exports_seven_names)
{
	void *h = dlopen(STANDIN_LIB, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", STANDIN_LIB, dlerror());
	for (size_t i = 0; i < 6; i++)
		lib_sym(h, kala_symbols[i]);
	unsigned long long *queued = dlsym(h, "standin_queued");
	void **last = dlsym(h, "standin_last_buffer");
	ck_assert_ptr_nonnull(queued);
	ck_assert_ptr_nonnull(last);

	/* Call the legacy variant through its C ABI: (this, buffer, fence) -> 0. */
	int (*legacy)(void *, void *, int) =
	    (int (*)(void *, void *, int))lib_sym(h, kala_symbols[2]);
	int surface = 0, buffer = 0;
	ck_assert_int_eq(legacy(&surface, &buffer, -1), 0);
	ck_assert_uint_eq(*queued, 1);

	/* The batch path through its C ABI: (this, &vector, &outputs) -> 0, one per element. */
	int (*batch)(void *, const struct vec *, struct vec *) =
	    (int (*)(void *, const struct vec *, struct vec *))lib_sym(h, batch_symbol);
	int bufs[3];
	struct batch_elem e[3] = {{&bufs[0], -1, 0}, {&bufs[1], -1, 0}, {&bufs[2], -1, 0}};
	uint64_t out[3] = {0, 0, 0};
	struct vec in = {e, e + 3, e + 3}, outv = {out, out + 3, out + 3};
	ck_assert_int_eq(batch(&surface, &in, &outv), 0);
	ck_assert_uint_eq(*queued, 4);
	ck_assert_ptr_eq(*last, &bufs[2]);
	ck_assert_uint_eq(out[0], 2); /* frame numbers after the legacy call's 1 */
	ck_assert_uint_eq(out[2], 4);
	dlclose(h);
}
END_TEST

/* `nm -D libgui.so` (not our loader) lists queueBuffers, defined in .text, by that name. */
START_TEST(nm_batch_symbol)
{
	char cmd[1024], line[512], want[400];
	snprintf(cmd, sizeof(cmd), "'%s' -D --defined-only '%s'", STANDIN_NM, STANDIN_LIB);
	snprintf(want, sizeof(want), " T %s\n", batch_symbol);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	int found = 0, lines = 0;
	while (fgets(line, sizeof(line), p)) {
		lines++;
		/* "ADDRESS T NAME": compare from the type letter on. */
		char *sp = strchr(line, ' ');
		if (sp && strcmp(sp, want) == 0)
			found++;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_int_gt(lines, 7);
	ck_assert_msg(found == 1, "nm -D %s: '%s' found %d times", STANDIN_LIB, batch_symbol,
		      found);
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

/* A truth file, read strictly: every line is "NS 0xBUFFER 0xSURFACE TID". */
struct truth {
	size_t n;
	uint64_t ns[4096], buf[4096], surface[4096];
	long tid[4096];
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
		int end = -1;
		int got =
		    sscanf(line, "%" SCNu64 " 0x%" SCNx64 " 0x%" SCNx64 " %ld%n", &t->ns[t->n],
			   &t->buf[t->n], &t->surface[t->n], &t->tid[t->n], &end);
		ck_assert_msg(got == 4 && end > 0 && strcmp(line + end, "\n") == 0,
			      "truth line %zu is not 'NS 0xBUFFER 0xSURFACE TID': %s", t->n + 1,
			      line);
		t->n++;
	}
	fclose(f);
}

/*
 * Run the game with args (NULL-terminated, without argv[0] and --truth) and read its
 * truth file; the game must exit 0.
 */
static void run_truth(struct truth *t, const char *const args[])
{
	char path[] = "/tmp/standin-truth-XXXXXX";
	char *argv[32];
	size_t n = 0;
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	argv[n++] = "standin-game";
	for (size_t i = 0; args[i]; i++) {
		ck_assert_uint_lt(n, 28);
		argv[n++] = (char *)args[i];
	}
	argv[n++] = "--truth";
	argv[n++] = path;
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "standin-game failed: %d", st);
	t->pid = pid;
	read_truth(path, t);
	unlink(path);
}

/*
 * Each call happens at its due time plus a wake-up latency. Measured from the call with
 * the least latency (the schedule's origin is not observable: even call 0 may wake late),
 * every latency is within 20 ms (a busy machine), and there is no drift. due_ns[k] is
 * call k's due time relative to call 0's.
 */
static void check_due(const uint64_t *ns, const uint64_t *due_ns, size_t n)
{
	int64_t least = INT64_MAX;

	for (size_t k = 0; k < n; k++) {
		int64_t late = (int64_t)(ns[k] - ns[0]) - (int64_t)due_ns[k];
		if (late < least)
			least = late;
	}
	for (size_t k = 0; k < n; k++) {
		int64_t late = (int64_t)(ns[k] - ns[0]) - (int64_t)due_ns[k];
		ck_assert_msg(late - least <= 20000000,
			      "call %zu is %" PRId64 " ns later than the on-time calls", k,
			      late - least);
	}
}

/* A steady rate with jank: call k is due `period_ns` after call k-1, plus jank_ms when its
 * 1-based number is a multiple of jank_every. */
static void check_schedule(const uint64_t *ns, size_t n, uint64_t period_ns, size_t jank_every,
			   uint64_t jank_ms)
{
	static uint64_t due[4096];

	ck_assert_uint_le(n, 4096);
	for (size_t k = 0; k < n; k++) {
		due[k] = k ? due[k - 1] + period_ns : 0;
		if (k && jank_every && (k + 1) % jank_every == 0)
			due[k] += jank_ms * 1000000;
	}
	check_due(ns, due, n);
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

static void check_truth(const char *variant)
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
	check_schedule(T.ns, T.n, 5000000, 0, 0);
}

START_TEST(truth_legacy)
{
	check_truth("legacy");
}
END_TEST

START_TEST(truth_sp)
{
	check_truth("sp");
}
END_TEST

START_TEST(truth_hook)
{
	check_truth("hook");
}
END_TEST

START_TEST(jank)
{
	const char *args[] = {"--fps", "200",	    "--frames", "10", "--jank-every",
			      "5",     "--jank-ms", "30",	NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 10);
	/* Frames 5 and 10 (1-based) are 30 ms late: frame 10 is due 9 * 5 + 2 * 30 = 105 ms
	 * after frame 1 (45 ms without the jank); 20 ms of slack for wake-up latency. */
	check_schedule(T.ns, T.n, 5000000, 5, 30);
	ck_assert_uint_ge(T.ns[9] - T.ns[0], 85000000);
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
static void check_surfaces(const char *variant)
{
	const char *args[] = {"--surfaces", "--fps", "60",	 "--overlay-fps", "10",
			      "--frames",   "60",    "--symbol", variant,	  NULL};
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
	ck_assert_msg(overlay_lane.n >= 9 && overlay_lane.n <= 12, "overlay made %zu calls",
		      overlay_lane.n);
	check_rotation(&main_lane, 3);	  /* --buffers 3 (default) */
	check_rotation(&overlay_lane, 2); /* --overlay-buffers 2 (default) */
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 2; j++)
			ck_assert_uint_ne(main_lane.buf[i], overlay_lane.buf[j]);
	check_schedule(main_lane.ns, main_lane.n, 1000000000 / 60, 0, 0);
	check_schedule(overlay_lane.ns, overlay_lane.n, 100000000, 0, 0);
}

START_TEST(surfaces_hook)
{
	check_surfaces("hook"); /* argument 0 is the ANativeWindow: one per surface */
}
END_TEST

START_TEST(surfaces_member)
{
	check_surfaces("output"); /* argument 0 is `this` */
}
END_TEST

/*
 * --batch 2 --buffers 3 --fps 100 --frames 10: 10 calls of 2 buffers, so 20 lines in
 * pairs with the call's time, the rotation going on across calls (b0 b1 | b2 b0 | ...),
 * one surface, calls 10 ms apart.
 */
START_TEST(batch_groups)
{
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
	check_schedule(calls, 10, 10000000, 0, 0);
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

/* --pattern 10,60: gaps alternate 10 ms and 60 ms; 11 calls are due at 0 10 70 80 ... */
START_TEST(pattern)
{
	const char *args[] = {"--pattern", "10,60", "--frames", "11", NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 11);
	check_one_surface(&T);
	uint64_t due[11] = {0};
	for (size_t k = 1; k < 11; k++)
		due[k] = due[k - 1] + ((k % 2) ? 10 : 60) * 1000000ull;
	check_due(T.ns, due, 11);
	/* Each short gap is shorter than both long gaps beside it. */
	for (size_t k = 1; k + 1 < 10; k += 2) {
		uint64_t shrt = T.ns[k] - T.ns[k - 1], lng = T.ns[k + 1] - T.ns[k];
		ck_assert_msg(shrt < lng, "gap %zu: %" PRIu64 " ns, gap %zu: %" PRIu64 " ns", k,
			      shrt, k + 1, lng);
	}
}
END_TEST

/*
 * --rate-steps 200:1,50:1 --frames 260: 200 calls 5 ms apart in the first second, then
 * 50 calls 20 ms apart in the next, then the last rate stays: 10 more calls 20 ms apart
 * (due at 2000 .. 2180 ms).
 */
START_TEST(rate_steps)
{
	const char *args[] = {"--rate-steps", "200:1,50:1", "--frames", "260", NULL};
	run_truth(&T, args);
	ck_assert_uint_eq(T.n, 260);
	check_one_surface(&T);
	static uint64_t due[260];
	for (size_t k = 0; k < 260; k++)
		due[k] = k <= 200 ? k * 5000000ull : 1000000000ull + (k - 200) * 20000000ull;
	check_due(T.ns, due, 260);
	size_t first_second = 0;
	for (size_t k = 0; k < T.n; k++)
		first_second += T.ns[k] - T.ns[0] < 1000000000ull;
	ck_assert_msg(first_second >= 196 && first_second <= 201, "%zu calls in the first second",
		      first_second);
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
	int fd_hook = uprobe_open(pid, kala_symbols[0]);
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

/* ------------------------------------------------------------ main */

struct test_entry {
	const char *name;
	const TTest *test;
};

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	const struct test_entry tests[] = {
	    {"exports", exports_seven_names},
	    {"nm_batch_symbol", nm_batch_symbol},
	    {"truth_legacy", truth_legacy},
	    {"truth_sp", truth_sp},
	    {"truth_hook", truth_hook},
	    {"jank", jank},
	    {"bad_variant", bad_variant},
	    {"surfaces_hook", surfaces_hook},
	    {"surfaces_member", surfaces_member},
	    {"batch", batch_groups},
	    {"realloc_every", realloc_every},
	    {"pattern", pattern},
	    {"rate_steps", rate_steps},
	    {"bad_values", bad_values},
	    {"help", help},
	    {"uprobe_batch", uprobe_batch},
	};

	/* The uprobe test needs root and the uprobe PMU: SKIPPED (77) without them. */
	if (only && strcmp(only, "uprobe_batch") == 0 && uprobe_unavailable()) {
		printf("SKIP: %s\n", uprobe_unavailable());
		return 77;
	}
	Suite *s = suite_create("standin");
	/* One TCase per test, named like the test, so CTest can run each one alone. */
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!only && strcmp(tests[i].name, "uprobe_batch") == 0 && uprobe_unavailable())
			continue;
		TCase *tc = tcase_create(tests[i].name);
		tcase_set_timeout(tc, 20);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	SRunner *sr = srunner_create(s);
	srunner_run(sr, NULL, only, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	int run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (run == 0) {
		fprintf(stderr, "test_standin: no test named '%s'\n", only ? only : "");
		return 1;
	}
	return failed ? 1 : 0;
}
