/* SPDX-License-Identifier: MIT */
/*
 * test_standin.c - the stand-in libgui.so exports the six real mangled names, and
 * standin-game writes the truth file the recorder tests compare against.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

START_TEST(exports_six_names)
{
	void *h = dlopen(STANDIN_LIB, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", STANDIN_LIB, dlerror());
	for (size_t i = 0; i < 6; i++) {
		void *f = dlsym(h, kala_symbols[i]);
		ck_assert_msg(f, "%s is not exported: %s", kala_symbols[i], dlerror());
		/* The name resolves to itself: a function of this library, not an alias. */
		Dl_info info;
		ck_assert_int_ne(dladdr(f, &info), 0);
		ck_assert_str_eq(info.dli_sname, kala_symbols[i]);
	}
	/* Call the legacy variant through its C ABI: (this, buffer, fence) -> 0. */
	int (*legacy)(void *, void *, int) =
	    (int (*)(void *, void *, int))dlsym(h, kala_symbols[2]);
	int surface = 0, buffer = 0;
	ck_assert_int_eq(legacy(&surface, &buffer, -1), 0);
	unsigned long long *queued = dlsym(h, "standin_queued");
	ck_assert_ptr_nonnull(queued);
	ck_assert_uint_eq(*queued, 1);
	dlclose(h);
}
END_TEST

/* Run standin-game with args; returns its exit status (or -1). */
static int run_game(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(STANDIN_GAME, argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Read the truth file: up to max lines of "NS 0xPTR". Returns the line count. */
static size_t read_truth(const char *path, uint64_t *ns, uint64_t *buf, size_t max)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	ck_assert_ptr_nonnull(f);
	while (n < max && fscanf(f, "%" SCNu64 " 0x%" SCNx64, &ns[n], &buf[n]) == 2)
		n++;
	fclose(f);
	return n;
}

/*
 * The calls follow the absolute schedule: call k is due `period` after call k-1, plus
 * jank_ms when it is a late one (1-based number a multiple of jank_every). Each call
 * happens at its due time plus a wake-up latency; measured from the call with the least
 * latency (the schedule's origin is not observable: even call 0 may wake late), every
 * latency is within 20 ms (a busy machine), and there is no drift.
 */
static void check_schedule(const uint64_t *ns, size_t n, uint64_t period_ms, size_t jank_every,
			   uint64_t jank_ms)
{
	int64_t late[64], least = INT64_MAX;
	uint64_t due = 0;

	ck_assert_uint_le(n, 64);
	for (size_t k = 0; k < n; k++) {
		if (k) {
			due += period_ms * 1000000;
			if (jank_every && (k + 1) % jank_every == 0)
				due += jank_ms * 1000000;
		}
		late[k] = (int64_t)(ns[k] - ns[0]) - (int64_t)due;
		if (late[k] < least)
			least = late[k];
	}
	for (size_t k = 0; k < n; k++)
		ck_assert_msg(late[k] - least <= 20000000,
			      "call %zu is %" PRId64 " ns later than the on-time calls", k,
			      late[k] - least);
}

static void check_truth(const char *variant)
{
	char path[] = "/tmp/standin-truth-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char sym[32];
	snprintf(sym, sizeof(sym), "%s", variant);
	char *argv[] = {"standin-game", "--fps", "200",	    "--frames", "20", "--buffers", "3",
			"--symbol",	sym,	 "--truth", path,	NULL};
	ck_assert_int_eq(run_game(argv), 0);

	uint64_t ns[32], buf[32];
	size_t n = read_truth(path, ns, buf, 32);
	unlink(path);
	ck_assert_uint_eq(n, 20);
	/* Three distinct buffers in rotation. */
	ck_assert(buf[0] != buf[1] && buf[1] != buf[2] && buf[0] != buf[2]);
	for (size_t i = 3; i < n; i++)
		ck_assert_uint_eq(buf[i], buf[i - 3]);
	/* 200 fps: due every 5 ms on absolute deadlines. */
	check_schedule(ns, n, 5, 0, 0);
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

START_TEST(jank)
{
	char path[] = "/tmp/standin-truth-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	char *argv[] = {"standin-game", "--fps", "200",	    "--frames", "10", "--jank-every", "5",
			"--jank-ms",	"30",	 "--truth", path,	NULL};
	ck_assert_int_eq(run_game(argv), 0);
	uint64_t ns[16], buf[16];
	size_t n = read_truth(path, ns, buf, 16);
	unlink(path);
	ck_assert_uint_eq(n, 10);
	/* Frames 5 and 10 (1-based) are 30 ms late: frame 10 is due 9 * 5 + 2 * 30 = 105 ms
	 * after frame 1 (45 ms without the jank); 20 ms of slack for wake-up latency. */
	check_schedule(ns, n, 5, 5, 30);
	ck_assert_uint_ge(ns[9] - ns[0], 85000000);
}
END_TEST

START_TEST(bad_variant)
{
	char *argv[] = {"standin-game", "--symbol", "nosuch", NULL};
	ck_assert_int_eq(run_game(argv), 2);
}
END_TEST

/* One TCase per test, named like the test, so CTest can run each one alone. */
static void add(Suite *s, const char *name, const TTest *t)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, t);
	suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
	Suite *s = suite_create("standin");
	add(s, "exports", exports_six_names);
	add(s, "truth_legacy", truth_legacy);
	add(s, "truth_sp", truth_sp);
	add(s, "jank", jank);
	add(s, "bad_variant", bad_variant);
	SRunner *sr = srunner_create(s);
	/* argv[1]: the one test to run (CTest registers each separately); none = all. */
	srunner_run(sr, NULL, argc > 1 ? argv[1] : NULL, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	int run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (run == 0) {
		fprintf(stderr, "test_standin: no test named '%s'\n", argc > 1 ? argv[1] : "");
		return 1;
	}
	return failed ? 1 : 0;
}
