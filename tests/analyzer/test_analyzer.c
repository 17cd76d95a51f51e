/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer.c - frameanalyze's tests (Check). Usage: test_analyzer CASE.
 *
 * Most cases run the real binary (FRAMEANALYZE_BIN) in a fresh temporary directory and
 * check exit codes and output; expectations are literal. The small scenario
 * tests/analyzer/hand.txt was worked out by hand (its comment shows the arithmetic).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "frc.h"
#include "frc_escape.h"
#include "frc_internal.h" /* frc_writer_append_raw_entry: a record of a future type */
#include "pidmap.h"
#include "score.h"
#include "select.h"
#include "sha256.h"
#include "frc_case.h"

static char tmpdir[256];
static char out_path[512], err_path[512];
static char *out_text, *err_text; /* the last run's stdout/stderr */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static const char *tmp(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, 512, "%s/%s", tmpdir, name);
	return p;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Run frameanalyze with the NULL-terminated arguments; returns its exit code. */
static int fa(const char *arg, ...)
{
	const char *argv[32];
	int n = 0, status;
	va_list ap;
	pid_t pid;

	argv[n++] = FRAMEANALYZE_BIN;
	va_start(ap, arg);
	for (const char *a = arg; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* a hang kills frameanalyze (SIGALRM): the case fails instead of blocking */
		alarm(30);
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	free(out_text);
	free(err_text);
	out_text = slurp(out_path, NULL);
	err_text = slurp(err_path, NULL);
	ck_assert_int_eq(WIFEXITED(status), 1);
	return WEXITSTATUS(status);
}

#define ck_out_has(s) ck_assert_msg(strstr(out_text, s), "stdout lacks [%s]:\n%s", s, out_text)
#define ck_err_has(s) ck_assert_msg(strstr(err_text, s), "stderr lacks [%s]:\n%s", s, err_text)

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_analyzer.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(out_path, sizeof(out_path), "%s/.stdout", tmpdir);
	snprintf(err_path, sizeof(err_path), "%s/.stderr", tmpdir);
}

static void teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	free(out_text);
	free(err_text);
	out_text = err_text = NULL;
}

/* Import tests/analyzer/hand.txt into the temp dir; returns the capture's path. */
static const char *hand_frc(void)
{
	const char *frc = tmp("hand.frc");
	ck_assert_int_eq(fa("import", TESTS_SRC_DIR "/hand.txt", "-o", frc, NULL), 0);
	return frc;
}

/* ------------------------------------------------------------ unit: SHA-256, diff */

static void sha_hex(const void *data, size_t len, char hex[65])
{
	struct sha256 s;
	uint8_t d[32];
	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, d);
	sha256_hex(d, hex);
}

START_TEST(sha256_vectors)
{
	/* FIPS 180-4 / NIST CAVS examples */
	char hex[65];
	struct sha256 s;
	uint8_t d[32], chunk[1003];

	sha_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* one million 'a', fed in pieces that straddle block boundaries */
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		sha256_update(&s, chunk, i % 2 ? 997 : 1003);
	sha256_final(&s, d);
	sha256_hex(d, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

static char *diff_str(const char *a, const char *b, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	*rc = diff_unified(f, "a", a, strlen(a), "b", b, strlen(b));
	fclose(f);
	return buf;
}

START_TEST(diff_unified_case)
{
	int rc;
	char *d;

	/* expectations are what GNU diff -u prints for the same texts */
	/* one line changed in the middle of 10: 3 lines of context either side */
	d = diff_str("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n10\n", &rc);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
	free(d);
	/* insertion at the start, deletion at the end: two hunks */
	d = diff_str("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "NEW\na\nb\nc\nd\ne\nf\ng\nh\ni\n", &rc);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -1,3 +1,4 @@\n+NEW\n a\n b\n c\n"
			    "@@ -7,4 +8,3 @@\n g\n h\n i\n-j\n");
	free(d);
	/* missing final newline */
	d = diff_str("x\ny\n", "x\ny", &rc);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(
	    d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n+y\n\\ No newline at end of file\n");
	free(d);
	/* everything different */
	d = diff_str("p\nq\n", "r\n", &rc);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(d, "--- a\n+++ b\n@@ -1,2 +1 @@\n-p\n-q\n+r\n");
	free(d);
}
END_TEST

START_TEST(diff_identical)
{
	int rc;
	char *d = diff_str("same\ntext\n", "same\ntext\n", &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(d, "");
	free(d);
	d = diff_str("", "", &rc);
	ck_assert_int_eq(rc, 0);
	free(d);
}
END_TEST

static int cmp_u64_asc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * u64_select against qsort, the reference: every k of arrays of 1..300 values, with many
 * equal values (a steady game's frame times), sorted, reversed and all alike.
 */
START_TEST(select_matches_sort)
{
	static uint64_t v[300], w[300], sorted[300];
	uint64_t x = 88172645463325252ull; /* xorshift64, fixed seed */

	for (size_t n = 1; n <= 300; n += n < 20 ? 1 : 37) {
		for (int shape = 0; shape < 5; shape++) {
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v[i] = shape == 0   ? x
				       : shape == 1 ? 16666666 + x % 5 * 1000 /* few distinct */
				       : shape == 2 ? i			      /* sorted */
				       : shape == 3 ? n - i		      /* reversed */
						    : 8333333;		      /* all alike */
			}
			memcpy(sorted, v, n * sizeof(*v));
			qsort(sorted, n, sizeof(*sorted), cmp_u64_asc);
			for (size_t k = 0; k < n; k++) {
				memcpy(w, v, n * sizeof(*v));
				ck_assert_uint_eq(u64_select(w, n, k), sorted[k]);
				/* reordered, not changed: the same values */
				qsort(w, n, sizeof(*w), cmp_u64_asc);
				ck_assert_int_eq(memcmp(w, sorted, n * sizeof(*w)), 0);
			}
		}
	}
}
END_TEST

START_TEST(pidmap_bounded)
{
	struct pidmap m = {0};
	struct pidmap_entry *e;
	uint32_t pid;

	/* insert 1000 PIDs (many share a home slot), delete every third, check the rest */
	for (pid = 0; pid < 1000; pid++) {
		e = pidmap_get(&m, pid * 1024, true);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->v[0], 0);
		e->v[0] = pid + 1;
	}
	for (pid = 0; pid < 1000; pid += 3)
		pidmap_del(&m, pid * 1024);
	ck_assert_uint_eq(m.count, 666);
	for (pid = 0; pid < 1000; pid++) {
		e = pidmap_get(&m, pid * 1024, false);
		if (pid % 3 == 0) {
			ck_assert_ptr_null(e);
		} else {
			ck_assert_ptr_nonnull(e);
			ck_assert_uint_eq(e->v[0], pid + 1);
		}
	}
	/* past PIDMAP_MAX live PIDs the table starts over instead of growing */
	for (pid = 0; pid < PIDMAP_MAX + 10; pid++)
		ck_assert_ptr_nonnull(pidmap_get(&m, 5000000 + pid, true));
	ck_assert_uint_eq(m.resets, 1);
	ck_assert_uint_le(m.cap, 2 * PIDMAP_MAX);
	pidmap_free(&m);
}
END_TEST

/* ------------------------------------------------------------ command line */

START_TEST(usage_errors)
{
	const char *frc = hand_frc();

	ck_assert_int_eq(fa(NULL), 2);
	ck_assert_int_eq(fa("frobnicate", NULL), 2);
	ck_err_has("unknown subcommand 'frobnicate'");
	ck_assert_int_eq(fa("report", NULL), 2);
	ck_assert_int_eq(fa("report", frc, "extra.frc", NULL), 2);
	ck_assert_int_eq(fa("report", "--bogus", frc, NULL), 2);
	ck_err_has("--help");
	ck_assert_int_eq(fa("report", "--tick-ms", "0", frc, NULL), 2);
	ck_assert_int_eq(fa("report", "--tick-ms", "12x", frc, NULL), 2);
	ck_assert_int_eq(fa("report", frc, "--tick-ms", NULL), 2);
	ck_assert_int_eq(fa("db", frc, NULL), 2);
	ck_err_has("missing -o");
	ck_assert_int_eq(fa("db", "-o", tmp("x.db"), NULL), 2);
	ck_assert_int_eq(exists(tmp("x.db")), 0);
	ck_assert_int_eq(fa("import", TESTS_SRC_DIR "/hand.txt", NULL), 2);
	ck_assert_int_eq(fa("export", NULL), 2);
	ck_assert_int_eq(fa("info", frc, "--pretty", NULL), 2);
	ck_assert_int_eq(fa("golden", NULL), 2);
	ck_assert_int_eq(fa("check", frc, NULL), 2);
}
END_TEST

START_TEST(help_and_version)
{
	static const char *const cmds[] = {"import", "export", "info", "report",
					   "db",     "golden", "check"};

	ck_assert_int_eq(fa("--help", NULL), 0);
	ck_out_has("examples:");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_out_has(cmds[i]);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(fa(cmds[i], "--help", NULL), 0);
		ck_out_has("usage: frameanalyze ");
		ck_out_has("example");
	}
	ck_assert_int_eq(fa("--version", NULL), 0);
	ck_out_has("frameanalyze 0.1.0 (capture format 1.");
	ck_assert_int_eq(fa("--help", NULL), 0);
	ck_out_has("       frameanalyze SUBCOMMAND --help   (or: frameanalyze help SUBCOMMAND)\n");
	/* "help CMD" shows CMD's help (it showed the general usage) */
	ck_assert_int_eq(fa("help", "report", NULL), 0);
	ck_out_has("usage: frameanalyze report IN.frc [--json | --html] [-o FILE [--force]]\n");
	ck_assert_int_eq(fa("help", "frobnicate", NULL), 2);
	ck_err_has("unknown subcommand 'frobnicate'");
}
END_TEST

/* ------------------------------------------------------------ text form */

START_TEST(import_errors)
{
	const char *bad = tmp("bad.txt"), *out = tmp("bad.frc");

	spit(bad, "# a comment\nmeta target x\nframe 1000 1 2 0x10\nframe 2000 1 x 0x10\n");
	ck_assert_int_eq(fa("import", bad, "-o", out, NULL), 1);
	ck_err_has("bad.txt:4:");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(exists(out), 0);
	spit(bad, "tick 1000\nmeta late value\n");
	ck_assert_int_eq(fa("import", bad, "-o", out, NULL), 1);
	ck_err_has("bad.txt:2:");
	ck_assert_int_eq(exists(out), 0);
	spit(bad, "bogus 1 2 3\n");
	ck_assert_int_eq(fa("import", bad, "-o", out, NULL), 1);
	ck_err_has("bad.txt:1:1");
	ck_assert_int_eq(exists(out), 0);
	ck_assert_int_eq(fa("import", tmp("missing.txt"), "-o", out, NULL), 1);
	ck_assert_int_eq(exists(out), 0);
}
END_TEST

/* Canonical text covering every record type (as export prints it). */
static const char canonical[] =
    "meta recorder framerec 0.1.0\n"
    "meta sysfs.node /sys/class/drm/card0/fps\n"
    "meta note tab\\there \\\"quoted\\\"\n"
    "attach 1000 42 _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi\n"
    "frame 2000 42 43 0x7f00001000 0x7f0000a000\n"
    "sysfs 2500 \"60\\n\"\n"
    "sysfs 2600 \"\\xff\\x01 a\\\\\"\n"
    "sysfs 2700 !5\n"
    "frame 3000 42 44 0x7f00002000 0x0\n"
    "drops 3100 7\n"
    "tick 4000\n"
    "tick 5000 59.940060 sysfs\n"
    "tick 6000 - -\n"
    "tick 7000 30.000000 ebpf\n"
    "exit 8000 42\n";

START_TEST(export_import_roundtrip)
{
	const char *txt = tmp("c.txt"), *a = tmp("a.frc"), *b = tmp("b.frc");
	char *ba, *bb;
	size_t la, lb;

	spit(txt, canonical);
	ck_assert_int_eq(fa("import", txt, "-o", a, NULL), 0);
	ck_assert_int_eq(fa("export", a, NULL), 0);
	ck_assert_str_eq(out_text, canonical);
	/* importing the same text twice gives byte-identical files */
	ck_assert_int_eq(fa("import", txt, "-o", b, NULL), 0);
	ba = slurp(a, &la);
	bb = slurp(b, &lb);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(ba, bb, la), 0);
	free(ba);
	free(bb);
}
END_TEST

START_TEST(info_fields)
{
	const char *frc = hand_frc();

	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("status             complete\n");
	ck_out_has("  frame            21\n");
	ck_out_has("  drops            1\n");
	ck_out_has("  attach           1\n");
	ck_out_has("  tick             1\n");
	ck_out_has("unknown skipped    0\n");
	ck_out_has("time span          999000000 .. 1800000000 ns (0.801 s)\n");
	ck_out_has("  target           hand.test\n");
	ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
	ck_out_has("\"status\": \"complete\",\n");
	ck_out_has("    \"frame\": 21,\n");
	ck_out_has("\"first_ktime_ns\": 999000000,\n");
	ck_out_has("\"last_ktime_ns\": 1800000000,\n");
	ck_out_has("\"target\": \"hand.test\"");
}
END_TEST

/*
 * Buffer and connect records (FORMAT.md 4.10, 4.11) are listed by info when a capture holds
 * some, a disconnect counted as a connect record; a capture without them lists neither.
 */
START_TEST(info_lists_geometry)
{
	const char *txt = tmp("geometry.txt"), *frc = tmp("geometry.frc");
	FILE *f = fopen(txt, "w");

	ck_assert_ptr_nonnull(f);
	fputs("connect 900 1 2 0xa000 1\n"
	      "buffer 1000 1 0xa000 0x1000 64 32 64 1 0x300\n"
	      "frame 1000 1 2 0x1000 0xa000\n"
	      "disconnect 2000 1 2 0xa000 1\n",
	      f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("  buffer           1\n  connect          2\n");
	ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
	ck_out_has("    \"buffer\": 1,\n    \"connect\": 2\n");
	ck_assert_int_eq(fa("info", hand_frc(), NULL), 0);
	ck_assert_ptr_null(strstr(out_text, "buffer"));
	ck_assert_ptr_null(strstr(out_text, "connect"));
}
END_TEST

/* ------------------------------------------------------------ report */

START_TEST(report_text_hand)
{
	const char *frc = hand_frc();

	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  frames                   21\n");
	ck_out_has("  reservation failures     5 (19.231 % loss)\n");
	ck_out_has("  deltas                   20\n");
	ck_out_has("  mean                     27.701 FPS\n");
	ck_out_has("  p50                      16.000 ms\n");
	ck_out_has("  p90                      100.000 ms\n");
	ck_out_has("  p95                      150.000 ms\n");
	ck_out_has("  p99                      200.000 ms\n");
	ck_out_has("  max                      200.000 ms\n");
	ck_out_has("  1% low                   5.000 FPS\n");
	ck_out_has("  janks                    2\n");
	ck_out_has("  big janks                1\n");
	ck_out_has("  jank time                300.000 ms\n");
	ck_out_has("  stutter                  41.551 %\n");
	ck_out_has(
	    "  ebpf                     1 readings, mean 27.701, min 27.701, max 27.701 FPS\n");
	ck_out_has("  live readings            1 of 1 reproduced\n");
	ck_out_has("  duration                 0.801 s");
	ck_assert_str_eq(err_text, "");
}
END_TEST

START_TEST(report_json_hand)
{
	const char *frc = hand_frc();

	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("\"frameanalyze_report\": 1,\n");
	ck_out_has("    \"status\": \"complete\",\n");
	ck_out_has("    \"frames\": 21,\n");
	ck_out_has("    \"reservation_failures\": 5,\n");
	ck_out_has("    \"loss_percent\": 19.231,\n");
	ck_out_has("    \"deltas\": 20,\n");
	ck_out_has("    \"sum_ns\": 722000000,\n");
	ck_out_has("    \"mean_fps\": 27.701,\n");
	ck_out_has("    \"p50_ms\": 16.000,\n");
	ck_out_has("    \"p90_ms\": 100.000,\n");
	ck_out_has("    \"p95_ms\": 150.000,\n");
	ck_out_has("    \"p99_ms\": 200.000,\n");
	ck_out_has("    \"max_ms\": 200.000,\n");
	ck_out_has("    \"low_1pct_fps\": 5.000\n");
	ck_out_has("    \"janks\": 2,\n");
	ck_out_has("    \"big_janks\": 1,\n");
	ck_out_has("    \"jank_time_ms\": 300.000,\n");
	ck_out_has("    \"stutter_percent\": 41.551\n");
	ck_out_has("      \"count\": 1,\n      \"mean_fps\": 27.701,");
	ck_out_has("    \"live_readings\": 1,\n    \"reproduced\": 1,\n    \"mismatches\": 0,\n");
	ck_out_has("\"has_sysfs\": false,\n");
	ck_out_has("\"synthesized_ticks\": false,\n");
}
END_TEST

START_TEST(report_fidelity_mismatch)
{
	char *text = slurp(TESTS_SRC_DIR "/hand.txt", NULL), *p;
	const char *txt = tmp("mismatch.txt"), *frc = tmp("mismatch.frc");

	ck_assert_ptr_nonnull(text);
	p = strstr(text, "tick 1800000000 27.700831 ebpf");
	ck_assert_ptr_nonnull(p);
	memcpy(p, "tick 1800000000 27.700832 ebpf", 30);
	spit(txt, text);
	free(text);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", frc, NULL), 1);
	ck_out_has("  live readings            0 of 1 reproduced  ** MISMATCH **\n");
	ck_out_has("  tick 1800000000: live 27.700832 ebpf, replay 27.700831 ebpf\n");
	ck_err_has("1 live reading(s) not reproduced");
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 1);
	ck_out_has("{\"tick_ns\": 1800000000, \"live_fps\": 27.700832, \"live_source\": \"ebpf\", "
		   "\"replay_fps\": 27.700831, \"replay_source\": \"ebpf\"}");
}
END_TEST

/*
 * No tick record: the replay synthesizes reads every --tick-ms from t0 + tick_ms up to
 * the last record. hand.txt without its tick: t0 = 0.999 s (attach), last = 1.75 s (drops).
 */
START_TEST(report_tick_ms)
{
	char *text = slurp(TESTS_SRC_DIR "/hand.txt", NULL), *p;
	const char *txt = tmp("noticks.txt"), *frc = tmp("noticks.frc");

	ck_assert_ptr_nonnull(text);
	p = strstr(text, "tick 1800000000");
	ck_assert_ptr_nonnull(p);
	*p = '\0';
	spit(txt, text);
	free(text);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	/* 1.999 s is past the last record: no read at all */
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  ticks                    0 (0 with none)\n");
	ck_out_has("ticks synthesized\n");
	/* every 100 ms: 1.099, 1.199, ..., 1.699 s = 7 reads */
	ck_assert_int_eq(fa("report", "--json", "--tick-ms", "100", frc, NULL), 0);
	ck_out_has("    \"synthesized_ticks\": true,\n    \"tick_ms\": 100\n");
	ck_out_has("    \"ticks\": 7,\n");
	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_out_has("replay has_sysfs=no synthesize_ticks=yes tick_ms=1000\n");
}
END_TEST

/* Copy the fixture capture NAME.frc into the temp dir, keeping only its first len bytes
 * (len 0: all). Returns the copy's path and its full size through *size. */
static const char *fixture_copy(const char *name, size_t cut, size_t *size)
{
	char src[512];
	const char *dst = tmp(name);
	size_t len;
	char *buf;
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s", FIXTURES_BIN_DIR, name);
	buf = slurp(src, &len);
	ck_assert_msg(buf != NULL, "fixture %s missing (build the frc_fixtures target)", src);
	f = fopen(dst, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, cut ? cut : len, f), cut ? cut : len);
	ck_assert_int_eq(fclose(f), 0);
	free(buf);
	if (size)
		*size = len;
	return dst;
}

START_TEST(report_truncated)
{
	size_t size;
	const char *frc;

	fixture_copy("steady_60hz_triple.frc", 0, &size);
	/* drop the last 200 bytes: the footer and the end of the last chunk */
	frc = fixture_copy("steady_60hz_triple.frc", size - 200, NULL);
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  status                   truncated at byte ");
	ck_err_has("warning:");
	ck_err_has("truncated");
	ck_assert_int_eq(fa("report", "--strict", frc, NULL), 1);
	ck_err_has("--strict");
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("\"status\": \"truncated\",\n");
	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_assert_int_eq(fa("db", frc, "-o", tmp("t.db"), NULL), 0);
	ck_err_has("warning:");
}
END_TEST

/* XOR the byte at off (from the end when negative) of the file at path with 0x5a. */
static void flip_byte(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
	c = fgetc(f);
	ck_assert_int_eq(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
	fputc(c ^ 0x5a, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The hand capture (one chunk) with a byte of that chunk flipped: nothing is intact. */
static const char *corrupt_hand(const char *name)
{
	const char *frc = tmp(name);

	ck_assert_int_eq(fa("import", TESTS_SRC_DIR "/hand.txt", "-o", frc, NULL), 0);
	flip_byte(frc, 164); /* 328 bytes: the chunk's compressed data */
	return frc;
}

/* Damage with no intact chunk to recover (the capture's only one): one line, exit 1. */
START_TEST(report_corrupt)
{
	const char *frc = corrupt_hand("c.frc");

	ck_assert_int_eq(fa("report", frc, NULL), 1);
	ck_assert_str_eq(out_text, "");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_err_has("offset");
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 1);
	ck_assert_str_eq(out_text, "");
	ck_assert_int_eq(fa("golden", frc, NULL), 1);
	ck_assert_str_eq(out_text, "");
	ck_assert_int_eq(fa("info", frc, NULL), 1);
	ck_out_has("corrupt");
}
END_TEST

/*
 * Hostile input: the capture cut at every 9th byte offset. Whatever the cut, report exits
 * 0 (truncated, a warning) or 1 (a one-line error and nothing on stdout), never crashes.
 */
START_TEST(report_every_cut)
{
	size_t size, cut;
	int ok = 0, refused = 0;

	fixture_copy("hz120_double.frc", 0, &size);
	for (cut = 0; cut < size; cut += 9) {
		const char *frc = fixture_copy("hz120_double.frc", cut ? cut : 1, NULL);
		int rc = fa("report", frc, NULL);
		ck_assert_msg(rc == 0 || rc == 1, "cut %zu: exit %d", cut, rc);
		if (rc == 0) {
			ck_err_has("truncated");
			ck_out_has("  status                   truncated at byte ");
			ok++;
		} else {
			ck_assert_str_eq(out_text, "");
			ck_assert_int_eq(count_lines(err_text), 1);
			refused++;
		}
	}
	/* a cut inside the header is not a capture; later cuts keep the chunks before it */
	ck_assert_int_gt(ok, 0);
	ck_assert_int_gt(refused, 0);
}
END_TEST

START_TEST(report_not_capture)
{
	const char *p = tmp("notes.txt");

	spit(p, "this is not a capture\n");
	ck_assert_int_eq(fa("report", p, NULL), 1);
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_err_has("notes.txt");
	ck_assert_str_eq(out_text, "");
	ck_assert_int_eq(fa("report", tmp("absent.frc"), NULL), 1);
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("info", p, NULL), 1);
	ck_assert_int_eq(fa("export", p, NULL), 1);
}
END_TEST

/* A real capture recorded by framerec from the stand-in: every live reading replays. */
START_TEST(real_capture_fidelity)
{
	const char *frc = FIXTURES_SRC_DIR "/real/standin_60hz_jank.frc";

	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  live readings            5 of 5 reproduced\n");
	ck_assert_ptr_null(strstr(out_text, "MISMATCH"));
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("    \"live_readings\": 5,\n    \"reproduced\": 5,\n    \"mismatches\": 0,\n");
}
END_TEST

/* ------------------------------------------------------------ db */

static sqlite3 *db_open_ro(const char *path)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* The first column of the first row of sql, as text ("NULL" for NULL). */
static char *q(sqlite3 *db, const char *sql)
{
	static char buf[8][256];
	static int next;
	char *out = buf[next++ % 8];
	sqlite3_stmt *st = NULL;

	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "no row: %s", sql);
	if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		snprintf(out, 256, "NULL");
	else
		snprintf(out, 256, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/*
 * issue 10/12: frames keep their surface, and the submissions/surfaces views give each
 * surface's calls and intervals. Main surface 0xa000 at 10 ms, overlay 0xb000 at 25 ms on
 * another thread, one surface-0 frame of another PID; values worked out by hand below.
 */
START_TEST(db_surfaces)
{
	const char *txt = tmp("s.txt"), *frc = tmp("s.frc"), *dbp = tmp("s.db");
	sqlite3 *db;

	spit(txt, "frame 1000000000 7 7 0x100 0xa000\n"
		  "frame 1010000000 7 7 0x200 0xa000\n"
		  "frame 1015000000 7 8 0x900 0xb000\n"
		  "frame 1020000000 7 7 0x100 0xa000\n"
		  "frame 1030000000 7 7 0x200 0xa000\n"
		  "frame 1040000000 7 8 0x900 0xb000\n"
		  "frame 1040000000 9 9 0x300 0x0\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT group_concat(surface, ' ') FROM frames"),
			 "40960 40960 45056 40960 40960 45056 0");
	/* 0xa000: 4 calls, 2 buffers, 30 ms -> 3 / 0.03 s = 100 calls/s; 0xb000: 2 calls, 1
	 * buffer, 25 ms -> 40 calls/s; PID 9: one call, no rate. */
	ck_assert_str_eq(q(db, "SELECT group_concat(pid || ':' || surface || ':' || calls || ':'"
			       " || buffers || ':' || ifnull(calls_per_s, '-'), ' ') FROM"
			       " (SELECT * FROM surfaces ORDER BY pid, surface)"),
			 "7:40960:4:2:100.0 7:45056:2:1:40.0 9:0:1:1:-");
	ck_assert_str_eq(q(db, "SELECT group_concat(ifnull(interval_ns, '-'), ' ') FROM"
			       " (SELECT * FROM submissions WHERE pid = 7 ORDER BY surface, seq)"),
			 "- 10000000 10000000 10000000 - 25000000");
	sqlite3_close(db);
}
END_TEST

/*
 * issue 11, no silent loss: records out of time order (two CPUs' events in ring order) are
 * kept in file order and counted, by info (text, JSON) and db. Here 2 of 5 records step back.
 */
START_TEST(out_of_order_counted)
{
	const char *txt = tmp("o.txt"), *frc = tmp("o.frc"), *dbp = tmp("o.db");
	sqlite3 *db;

	spit(txt, "frame 1000 7 7 0x100\n"
		  "frame 900 7 8 0x200\n"
		  "frame 2000 7 7 0x100\n"
		  "frame 3000 7 7 0x200\n"
		  "frame 2500 7 8 0x300\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("out of time order  2 (kept in the recorder's order)");
	ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
	ck_out_has("\"out_of_order\": 2,");
	ck_assert_int_eq(fa("export", frc, NULL), 0);
	ck_out_has("frame 1000 7 7 0x100 0x0\nframe 900 7 8 0x200 0x0\n");
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT out_of_order || ' ' || trackers_evicted || ' ' ||"
			       " buffers_evicted || ' ' || ticks_skipped FROM captures"),
			 "2 0 0 0");
	sqlite3_close(db);
}
END_TEST

START_TEST(db_contents)
{
	const char *frc = hand_frc(), *dbp = tmp("c.db");
	const char *jank = fixture_copy("jank_bursts.frc", 0, NULL);
	sqlite3 *db;

	ck_assert_int_eq(fa("db", frc, jank, "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) FROM captures"), "2");
	ck_assert_str_eq(q(db, "SELECT status || ' ' || format_version || ' ' || first_ktime_ns"
			       " || ' ' || last_ktime_ns || ' ' || frames || ' ' ||"
			       " reservation_failures FROM captures WHERE capture_id = 1"),
			 "complete 1.1 999000000 1800000000 21 5");
	ck_assert_str_eq(q(db, "SELECT length(sha256) FROM captures WHERE capture_id = 1"), "64");
	ck_assert_str_eq(q(db, "SELECT value FROM capture_meta WHERE capture_id = 1 AND"
			       " key = 'target'"),
			 "hand.test");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames WHERE capture_id = 1"), "21");
	ck_assert_str_eq(q(db, "SELECT ktime_ns || ' ' || pid || ' ' || tid || ' ' || buffer"
			       " FROM frames WHERE capture_id = 1 AND seq = 2"),
			 "1166000000 500 501 4096");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM tracker_deltas WHERE capture_id = 1"), "20");
	ck_assert_str_eq(q(db, "SELECT seq || ' ' || delta_ns FROM tracker_deltas WHERE"
			       " capture_id = 1 AND delta_ns = 200000000"),
			 "15 200000000");
	ck_assert_str_eq(q(db, "SELECT tick_ns || ' ' || fps_micro || ' ' || source || ' ' ||"
			       " synthesized FROM fps_readings WHERE capture_id = 1"),
			 "1800000000 27700831 ebpf 0");
	ck_assert_str_eq(q(db, "SELECT fps_micro || ' ' || source FROM live_readings WHERE"
			       " capture_id = 1"),
			 "27700831 ebpf");
	ck_assert_str_eq(q(db, "SELECT ktime_ns || ' ' || reservation_failures FROM drops"
			       " WHERE capture_id = 1"),
			 "1750000000 5");
	ck_assert_str_eq(q(db, "SELECT kind || ' ' || pid FROM events WHERE capture_id = 1"),
			 "attach 500");
	/* views */
	ck_assert_str_eq(q(db, "SELECT deltas || ' ' || p50_ms || ' ' || p90_ms || ' ' || p95_ms"
			       " || ' ' || p99_ms || ' ' || max_ms FROM frame_time_percentiles"
			       " WHERE capture_id = 1"),
			 "20 16.0 100.0 150.0 200.0 200.0");
	ck_assert_str_eq(q(db, "SELECT group_concat(seq || ':' || kind, ' ') FROM janks WHERE"
			       " capture_id = 1"),
			 "11:Jank 15:BigJank");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM fps_over_time WHERE capture_id = 1"), "1");
	/* the fixture: row counts match its text (373 frame lines, 7 tick lines) */
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames WHERE capture_id = 2"), "373");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM fps_readings WHERE capture_id = 2"), "7");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM live_readings WHERE capture_id = 2"), "0");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM sysfs_samples"), "0");
	sqlite3_close(db);
}
END_TEST

START_TEST(db_replaces_same_capture)
{
	const char *frc = hand_frc(), *dbp = tmp("r.db");
	sqlite3 *db;

	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	ck_err_has("replaced");
	/* the same bytes under another name are the same capture */
	{
		char cmd[1200];
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", frc, tmp("copy.frc"));
		ck_assert_int_eq(system(cmd), 0);
	}
	ck_assert_int_eq(fa("db", tmp("copy.frc"), "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) || ' ' || min(capture_id) FROM captures"), "1 1");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames"), "21");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM tracker_deltas"), "20");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM capture_meta"), "2");
	ck_assert_msg(strstr(q(db, "SELECT path FROM captures"), "copy.frc"), "path not updated");
	sqlite3_close(db);
}
END_TEST

START_TEST(db_refuses_foreign_schema)
{
	const char *frc = hand_frc(), *dbp = tmp("foreign.db"), *txt = tmp("plain.db");
	sqlite3 *db;
	char *before, *after;
	size_t lb, la;

	ck_assert_int_eq(sqlite3_open(dbp, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE frames(x); INSERT INTO frames VALUES(1);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	before = slurp(dbp, &lb);
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 1);
	ck_err_has("not a frameanalyze database");
	ck_assert_int_eq(count_lines(err_text), 1);
	after = slurp(dbp, &la);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(before, after, la), 0);
	free(before);
	free(after);
	/* not SQLite at all */
	spit(txt, "hello, this is a text file and not a database at all........\n");
	ck_assert_int_eq(fa("db", frc, "-o", txt, NULL), 1);
	ck_err_has("not a frameanalyze database");
	before = slurp(txt, NULL);
	ck_assert_str_eq(before, "hello, this is a text file and not a database at all........\n");
	free(before);
}
END_TEST

START_TEST(db_corrupt_input_stores_nothing)
{
	const char *good = hand_frc(), *dbp = tmp("k.db");
	const char *bad = corrupt_hand("bad.frc");
	sqlite3 *db;

	ck_assert_int_eq(fa("db", bad, good, "-o", dbp, NULL), 1);
	ck_err_has("offset");
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) FROM captures"), "1");
	ck_assert_str_eq(q(db, "SELECT frames FROM captures"), "21");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames"), "21");
	sqlite3_close(db);
}
END_TEST

/* ------------------------------------------------------------ damage recovered from */

/* The golden's deltas and readings (the text before its "report" section), malloc'd. */
static char *golden_events(const char *frc)
{
	char *end;

	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	end = strstr(out_text, "report\n");
	ck_assert_ptr_nonnull(end);
	return strndup(out_text, (size_t)(end - out_text));
}

/* Frames the db command stored for frc (a fresh database each time). */
static long db_frames(const char *frc, const char *dbname)
{
	sqlite3 *db;
	long n;

	ck_assert_int_eq(fa("db", frc, "-o", tmp(dbname), NULL), 0);
	db = db_open_ro(tmp(dbname));
	n = atol(q(db, "SELECT frames FROM captures"));
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames"),
			 q(db, "SELECT frames FROM captures"));
	sqlite3_close(db);
	return n;
}

/*
 * One flipped byte inside a chunk of an 11-chunk capture (issue 18, point 6): every other
 * chunk is analyzed by report, golden and db, what was lost is stated on stderr and in the
 * output (info, text and JSON), and --strict makes it exit 1. Main refused the capture.
 */
START_TEST(report_recovered_chunk)
{
	size_t size;
	const char *frc = fixture_copy("steady_60hz_triple.frc", 0, &size);
	long all = db_frames(frc, "good.db");

	flip_byte(frc, (long)size / 2); /* inside chunk 4's compressed data */
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  status                   recovered at byte ");
	ck_out_has(": lost 1 chunk (62 records, 61 frames; ktime ");
	ck_out_has("(analyzed every intact chunk)\n");
	ck_err_has(": recovered: lost 1 chunk (");
	ck_err_has("; analyzed every intact chunk\n");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("report", "--strict", frc, NULL), 1);
	ck_err_has("(--strict: failing)");
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("\"status\": \"recovered\",\n");
	ck_out_has("\"lost\": \"lost 1 chunk (62 records, 61 frames; ktime ");
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("status             recovered, read to the end past damage");
	ck_out_has("\nskipped            lost 1 chunk (62 records, 61 frames; ktime ");
	ck_out_has("chunks             10 (from the index)\n");
	ck_err_has(": recovered: chunk 4: data checksum mismatch; lost 1 chunk");
	ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
	ck_out_has("\"lost\": {\"stretches\": 1, ");
	ck_out_has(
	    "\"chunks\": 1, \"chunks_exact\": true, \"records\": 62, \"records_exact\": true, "
	    "\"frames\": 61, \"time\": \"exact\", ");
	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_out_has("\"status\": \"recovered\"");
	ck_err_has("frameanalyze golden: warning: ");
	ck_err_has("; replayed every intact chunk\n");
	ck_assert_int_eq(db_frames(frc, "dam.db"), all - 61);
	ck_err_has("frameanalyze db: warning: ");
	ck_err_has("; stored every intact chunk\n");
	/* score says recovered too, not "truncated: scored up to the damage" */
	ck_assert_int_eq(fa("score", "--tracker", "kala", "--meter", "frc-window", frc, NULL), 0);
	ck_out_has(" (recovered: every intact chunk scored)\n");
	ck_err_has("frameanalyze score: warning: ");
	ck_err_has(": recovered: lost 1 chunk (");
	ck_err_has("; scored every intact chunk\n");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("score", "--json", "--tracker", "kala", frc, NULL), 0);
	ck_out_has("\"status\": \"recovered\", ");
}
END_TEST

/*
 * One flipped byte in the footer (here its CRC, then an index entry): the index is lost,
 * not one frame. Every delta and reading of the golden is the intact capture's.
 */
START_TEST(report_recovered_footer)
{
	static const long at[] = {-12, -30};
	size_t size;
	const char *frc = fixture_copy("steady_60hz_triple.frc", 0, &size);
	char *want = golden_events(frc);
	long all = db_frames(frc, "f0.db");

	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		char *got;

		frc = fixture_copy("steady_60hz_triple.frc", 0, &size);
		flip_byte(frc, at[k]);
		got = golden_events(frc);
		ck_assert_str_eq(got, want);
		free(got);
		ck_out_has("\"status\": \"recovered\"");
		ck_err_has(": recovered: the footer/index is damaged; every chunk was found by a "
			   "scan, none damaged; replayed every intact chunk\n");
		ck_assert_int_eq(fa("report", frc, NULL), 0);
		ck_out_has("  status                   recovered at byte ");
		ck_assert_int_eq(fa("report", "--strict", frc, NULL), 1);
		ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
		ck_out_has("\"index_used\": false,\n");
		ck_out_has("\"index_lost\": true},\n");
		ck_assert_int_eq(db_frames(frc, k ? "f2.db" : "f1.db"), all);
	}
	free(want);
}
END_TEST

/* ------------------------------------------------------------ golden */

START_TEST(golden_check_diff)
{
	const char *frc = hand_frc(), *g = tmp("hand.golden");
	char *text, *p;

	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_out_has("delta 15 1642000000 500 0x1000 200000000\n");
	ck_out_has("reading 1800000000 27.700831 ebpf live 27.700831 ebpf\n");
	ck_out_has("\"p99_ms\": 200.000,");
	spit(g, out_text);
	ck_assert_int_eq(fa("check", frc, g, NULL), 0);
	/* success is one line, naming both files */
	ck_assert_int_eq(count_lines(out_text), 1);
	ck_out_has("ok: ");
	ck_out_has(" matches ");
	/* change one expected delta: check shows it as a unified diff and fails */
	text = slurp(g, NULL);
	p = strstr(text, "delta 15 1642000000 500 0x1000 200000000\n");
	ck_assert_ptr_nonnull(p);
	memcpy(p, "delta 15 1642000000 500 0x1000 199999999\n", 41);
	spit(g, text);
	free(text);
	ck_assert_int_eq(fa("check", frc, g, NULL), 1);
	ck_out_has("--- ");
	ck_out_has("+++ frameanalyze golden ");
	ck_out_has("\n-delta 15 1642000000 500 0x1000 199999999\n"
		   "+delta 15 1642000000 500 0x1000 200000000\n");
	ck_out_has("@@ -");
	ck_err_has("differs");
	ck_assert_int_eq(fa("check", frc, tmp("absent.golden"), NULL), 1);
}
END_TEST

/*
 * What was submitted is in the golden: one frame of the steady fixture moved 8 ms later
 * makes its interval 16.573036 + 8 = 24.573 ms (frames 300 and 301 of the text are 16.573036
 * ms apart), the submissions' max, and check shows it. A capture given as EXPECTED is
 * refused by name, not diffed as binary.
 */
START_TEST(golden_shows_submissions)
{
	char *text = slurp(FIXTURES_SRC_DIR "/steady_60hz_triple.txt", NULL), *p = text;
	const char *moved = tmp("moved.txt"), *frc = tmp("moved.frc");
	unsigned long long kt;
	FILE *f;
	int n = 0;

	ck_assert_ptr_nonnull(text);
	f = fopen(moved, "w");
	ck_assert_ptr_nonnull(f);
	for (char *line = strtok_r(p, "\n", &p); line; line = strtok_r(NULL, "\n", &p)) {
		if (!strncmp(line, "frame ", 6) && ++n == 301) {
			char *rest;

			kt = strtoull(line + 6, &rest, 10);
			ck_assert_uint_eq(kt, 5999841817ull);
			fprintf(f, "frame %llu%s\n", kt + 8000000ull, rest);
			continue;
		}
		fprintf(f, "%s\n", line);
	}
	ck_assert_int_eq(fclose(f), 0);
	free(text);
	ck_assert_int_eq(fa("import", moved, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("check", frc, FIXTURES_SRC_DIR "/steady_60hz_triple.golden", NULL), 1);
	ck_out_has("\n-    \"max_ms\": 17.042,\n");
	ck_out_has("\n+    \"max_ms\": 24.573,\n");
	ck_assert_int_eq(fa("check", frc, frc, NULL), 1);
	ck_err_has(
	    "moved.frc: not a golden file (it does not start with '# frameanalyze golden 1')");
	ck_assert_str_eq(out_text, "");
}
END_TEST

/*
 * An import error quotes the line's bytes escaped: an OSC sequence (ESC ] ... BEL), the
 * C1 control U+009B (CSI, as UTF-8 c2 9b) and a lone 0x9b byte (not UTF-8; CSI to an 8-bit
 * terminal) never reach stderr raw.
 */
START_TEST(import_error_escaped)
{
	static const char *const lines[] = {"frame\x1b]0;pwned\x07 1 2 3 0x1\n",
					    "\xc2\x9b"
					    "31m 1\n",
					    "\x9b"
					    "31m 1\n"};
	const char *txt = tmp("bad.txt");

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		spit(txt, lines[i]);
		ck_assert_int_eq(fa("import", txt, "-o", tmp("bad.frc"), NULL), 1);
		ck_err_has("unknown record type '");
		for (const unsigned char *c = (const unsigned char *)err_text; *c; c++)
			ck_assert_msg((*c >= 0x20 && *c < 0x7f) || *c == '\n',
				      "line %zu: raw byte 0x%02x on stderr: %s", i, *c, err_text);
	}
	ck_err_has("\\x9b31m");
}
END_TEST

START_TEST(golden_stable_across_paths)
{
	const char *a = hand_frc(), *b = tmp("elsewhere.frc");
	char cmd[1200], *first;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", a, b);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(fa("golden", a, NULL), 0);
	first = strdup(out_text);
	ck_assert_int_eq(fa("golden", b, NULL), 0);
	ck_assert_str_eq(out_text, first);
	ck_assert_ptr_null(strstr(first, tmpdir));
	free(first);
}
END_TEST

/* A FIFO (or directory) as a capture is refused at once; import never replaces one. */
START_TEST(special_files_refused)
{
	static const char *const cmds[] = {"export", "info", "report", "golden"};
	const char *fifo = tmp("p.frc"), *frc = hand_frc();
	struct stat st;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(fa(cmds[i], fifo, NULL), 1);
		ck_err_has("p.frc: not a regular file\n");
		ck_assert_int_eq(fa(cmds[i], tmpdir, NULL), 1);
		ck_err_has(": not a regular file\n");
	}
	ck_assert_int_eq(fa("check", fifo, frc, NULL), 1);
	ck_err_has("p.frc: not a regular file\n");
	ck_assert_int_eq(fa("db", fifo, "-o", tmp("f.db"), NULL), 1);
	ck_err_has("p.frc: not a regular file\n");
	ck_assert_int_eq(fa("import", TESTS_SRC_DIR "/hand.txt", "-o", fifo, NULL), 1);
	ck_err_has("p.frc: not a regular file; refusing to replace it\n");
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert_int_eq(S_ISFIFO(st.st_mode), 1);
}
END_TEST

/* A db run that stores no capture leaves no database it created (it used to leave an empty one). */
START_TEST(db_nothing_stored_leaves_no_file)
{
	const char *junk = tmp("junk.frc"), *dbp = tmp("n.db"), *frc;

	spit(junk, "hello\n");
	ck_assert_int_eq(fa("db", tmp("absent.frc"), junk, "-o", dbp, NULL), 1);
	ck_err_has("absent.frc: No such file or directory");
	ck_err_has("junk.frc: offset 0: not an .frc capture (no header frame)");
	ck_assert_int_eq(exists(dbp), 0);
	/* an existing database is kept as it was */
	frc = hand_frc();
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	ck_assert_int_eq(fa("db", junk, "-o", dbp, NULL), 1);
	ck_assert_int_eq(exists(dbp), 1);
}
END_TEST

/* Without frames, bytes per frame is "-" for people ("null" was JSON leaking into text). */
START_TEST(info_no_frames)
{
	const char *txt = tmp("t.txt"), *frc = tmp("t.frc");

	spit(txt, "tick 5\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("\nbytes per frame    -\n");
	ck_assert_ptr_null(strstr(out_text, "null"));
	ck_assert_int_eq(fa("info", "--json", frc, NULL), 0);
	ck_out_has("\"bytes_per_frame\": null,");
}
END_TEST

/* --help prints literal text (no printf escapes) and its examples name files that exist. */
START_TEST(help_examples_literal)
{
	ck_assert_int_eq(fa("report", "--help", NULL), 0);
	ck_out_has("p50/p90/p95/p99/max, 1% low)");
	ck_assert_ptr_null(strstr(out_text, "%%"));
	ck_assert_int_eq(fa("golden", "--help", NULL), 0);
	ck_out_has("  frameanalyze golden build/fixtures/steady_60hz_triple.frc | less\n");
	ck_out_has("scripts/update-goldens.sh");
	ck_out_has("\nexit: 0 ok (a truncated capture too, with a warning), 1 corrupt or not a");
	ck_assert_int_eq(fa("check", "--help", NULL), 0);
	ck_out_has(
	    "\nexit: 0 identical (one line: ok), 1 different, EXPECTED unreadable or not a golden");
	ck_out_has("  frameanalyze check build/fixtures/steady_60hz_triple.frc \\\n"
		   "      fixtures/steady_60hz_triple.golden\n");
	ck_assert_int_eq(exists(FIXTURES_SRC_DIR "/steady_60hz_triple.txt"), 1);
	ck_assert_int_eq(exists(FIXTURES_SRC_DIR "/steady_60hz_triple.golden"), 1);
	ck_assert_int_eq(exists(FIXTURES_BIN_DIR "/steady_60hz_triple.frc"), 1);
}
END_TEST

/* check with a directory as EXPECTED says so (it said "Input/output error"). */
START_TEST(check_golden_directory)
{
	char want[600];

	ck_assert_int_eq(fa("check", hand_frc(), tmpdir, NULL), 1);
	snprintf(want, sizeof(want), "frameanalyze check: %s: Is a directory\n", tmpdir);
	ck_assert_str_eq(err_text, want);
	ck_assert_str_eq(out_text, "");
}
END_TEST

/* golden and check on a truncated capture warn on stderr, as report does (they were silent). */
START_TEST(golden_truncated_warns)
{
	size_t size;
	const char *frc;

	fixture_copy("steady_60hz_triple.frc", 0, &size);
	frc = fixture_copy("steady_60hz_triple.frc", size - 200, NULL);
	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_err_has("frameanalyze golden: warning: ");
	ck_err_has(": truncated; replayed up to the damage\n");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_out_has("\"status\": \"truncated\"");
}
END_TEST

/*
 * Metadata is hostile input: text output shows control bytes, C1 controls (U+0080..U+009F:
 * U+009B is CSI to a terminal) and bytes that are not UTF-8 (0x9b alone is CSI to an
 * 8-bit terminal) escaped as \xHH; JSON stays UTF-8 (\u00XX, \ufffd). Well-formed UTF-8
 * (é) passes. Before frc_escape, C1 and invalid bytes went to the terminal raw.
 */
START_TEST(metadata_escaped_in_output)
{
	const char *txt = tmp("m.txt"), *frc = tmp("m.frc");

	spit(txt, "meta target a\\x1b[2J\\xff \\xc3\\xa9\\tz\\\\\n"
		  "meta kernel k\\x07\\xc2\\x9b31m\\x9b2J\\xe2\\x82\n"
		  "frame 1000 1 1 0x1\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  target                   a\\x1b[2J\\xff \xc3\xa9\\tz\\\\\n");
	ck_out_has("  kernel                   k\\x07\\xc2\\x9b31m\\x9b2J\\xe2\\x82\n");
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	ck_out_has("  target           a\\x1b[2J\\xff \xc3\xa9\\tz\\\\\n");
	ck_out_has("  kernel           k\\x07\\xc2\\x9b31m\\x9b2J\\xe2\\x82\n");
	for (int json = 0; json < 2; json++) {
		ck_assert_int_eq(fa(json ? "report" : "info", "--json", frc, NULL), 0);
		ck_out_has("\"target\": \"a\\u001b[2J\\ufffd \xc3\xa9\\tz\\\\\"");
		ck_out_has("\"kernel\": \"k\\u0007\\u009b31m\\ufffd2J\\ufffd\\ufffd\"");
	}
	/* no byte of the C1 range, in any form, and no ESC reaches the terminal */
	for (const char *cmd[] = {"report", "info"}, **c = cmd; c < cmd + 2; c++) {
		ck_assert_int_eq(fa(*c, frc, NULL), 0);
		ck_assert_ptr_null(strchr(out_text, 0x1b));
		for (const unsigned char *p = (const unsigned char *)out_text; *p; p++)
			ck_assert_msg(*p < 0x80 || *p == 0xc3 || *p == 0xa9, "%s: raw byte 0x%02x",
				      *c, *p);
	}
}
END_TEST

/* A failed write of the output (here: /dev/full) is exit 1 with a message, never success. */
START_TEST(stdout_write_error)
{
	static const char *const cmds[] = {"info",   "info --json",   "export",
					   "report", "report --json", "golden"};
	const char *frc = hand_frc();
	char cmd[1200];

	ck_assert_int_eq(access("/dev/full", W_OK), 0); /* Linux always has it */
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' %s '%s' >/dev/full 2>'%s'", FRAMEANALYZE_BIN,
			 cmds[i], frc, err_path);
		ck_assert_msg(system(cmd) == 1 << 8, "%s did not exit 1", cmds[i]);
		free(err_text);
		err_text = slurp(err_path, NULL);
		ck_err_has(": writing stdout: No space left on device\n");
	}
}
END_TEST

/* loss % stays within 0..100 for a cumulative drop count at 2^64-1 (frames + drops wrapped). */
START_TEST(report_loss_no_overflow)
{
	const char *txt = tmp("l.txt"), *frc = tmp("l.frc");

	spit(txt, "frame 1000 1 1 0x1\n"
		  "frame 2000 1 1 0x1\n"
		  "drops 3000 18446744073709551615\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  reservation failures     18446744073709551615 (100.000 % loss)\n");
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("\"loss_percent\": 100.000,");
}
END_TEST

/*
 * A ktime jump near 2^63..2^64 must not wrap the frame-time arithmetic: the sum of deltas
 * is held at 2^64-1 (it wrapped to 2 ns: mean 1000000000.000 FPS), and a delta whose 3x
 * wraps is still compared exactly for PerfDog janks (it was missed).
 */
START_TEST(report_huge_deltas_no_wrap)
{
	const char *txt = tmp("h.txt"), *frc = tmp("h.frc");

	/* two PIDs, one delta of 2^63+1 each: the sum is 2^64+2 */
	spit(txt, "tick 0\n"
		  "frame 0 1 1 0x1\n"
		  "frame 0 2 2 0x1\n"
		  "frame 9223372036854775809 1 1 0x1\n"
		  "frame 9223372036854775809 2 2 0x1\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("\"sum_ns\": 18446744073709551615,\n    \"mean_fps\": 0.000,");
	/* three 60 Hz deltas, then (2^64+2)/3 ns: 3 * d wraps to 2 in 64 bits */
	spit(txt, "tick 0\n"
		  "frame 0 1 1 0x1\n"
		  "frame 16666666 1 1 0x1\n"
		  "frame 33333333 1 1 0x1\n"
		  "frame 50000000 1 1 0x1\n"
		  "frame 6148914691286517206 1 1 0x1\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, "--force", NULL), 0);
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  janks                    1\n  big janks                1\n");
}
END_TEST

/*
 * report's memory does not grow with the capture (issue 11, point 2): 2 million frames 2 s
 * apart, every delta beyond the microsecond histogram. Each used to be kept one by one
 * (16 MB here, peaking at 24 MB while the array grew; 1.5 GB for a 24 KB hostile capture);
 * past 65536 they now go into a bounded log histogram (REPORT.md "Memory"). Under ASan the
 * resident size measures the sanitizer, not the report: main() skips the case there.
 */
START_TEST(report_memory_bounded)
{
	const char *frc = tmp("m.frc");
	struct frc_writer_options opt = {.flush_ms = UINT32_MAX, .chunk_max_bytes = 64u << 20};
	int fd = open(frc, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	frc_writer *w = NULL;
	struct rusage ru;
	struct stat sb;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, frc, NULL, 0, &opt), 0);
	/* One tick record: the replay reads recorded ticks instead of synthesizing 16 M. */
	ck_assert_int_eq(frc_writer_append(w, &(struct frc_record){.type = FRC_TICK}), 0);
	for (uint64_t i = 0; i < 2000000; i++) {
		struct frc_record r = {.type = FRC_FRAME,
				       .ktime_ns = 1000000000ull + i * 2000000000ull};

		r.u.frame.pid = 1;
		r.u.frame.tid = 1;
		r.u.frame.buffer = 0x10;
		ck_assert_int_eq(frc_writer_append(w, &r), 0);
	}
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	close(fd);
	ck_assert_int_eq(stat(frc, &sb), 0);
	ck_assert_int_lt(sb.st_size, 64 * 1024); /* a small file that claims a lot */
	ck_assert_int_eq(fa("report", frc, NULL), 0);
	ck_out_has("  frames                   2000000\n");
	ck_out_has("  p50                      2000.000 ms\n");
	ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
	ck_assert_msg(ru.ru_maxrss < 16 * 1024, "report took %ld KiB", ru.ru_maxrss);
}
END_TEST

/* Bytes this process and its reaped children have read (rchar of /proc/self/io). */
static uint64_t bytes_read(void)
{
	char *io = slurp("/proc/self/io", NULL);
	char *at = io ? strstr(io, "rchar: ") : NULL;
	uint64_t v;

	ck_assert_msg(at, "no rchar in /proc/self/io");
	v = strtoull(at + 7, NULL, 10);
	free(io);
	return v;
}

/* A capture of n frames at 60 Hz (3 buffers, a tick every second), written in 1 s chunks. */
static void write_60hz(const char *path, uint64_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	frc_writer *w = NULL;
	uint64_t next_tick = 2000000000ull;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, path, NULL, 0, NULL), 0);
	for (uint64_t i = 0; i < n; i++) {
		struct frc_record r = {.type = FRC_FRAME, .ktime_ns = 1000000000ull + i * 16666667};

		for (; next_tick <= r.ktime_ns; next_tick += 1000000000ull)
			ck_assert_int_eq(
			    frc_writer_append(
				w, &(struct frc_record){.type = FRC_TICK, .ktime_ns = next_tick}),
			    0);
		r.u.frame.pid = 7;
		r.u.frame.tid = 7;
		r.u.frame.buffer = 0x1000 + i % 3;
		ck_assert_int_eq(frc_writer_append(w, &r), 0);
	}
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	close(fd);
}

/*
 * Work done once (issue 17): the report, the page (the report, its charts and every tracker
 * variant's score) and the score each read the capture twice, the replay's scan and the one
 * pass that feeds every lane (it was 4, 14 and 10 times). Counted by the kernel: a reaped
 * child's reads are added to its parent's rchar; starting frameanalyze reads a little
 * (--version: its libraries), and `info` reads the capture once.
 */
START_TEST(report_reads_capture_twice)
{
	const char *frc = tmp("twice.frc");
	const char *cmds[][6] = {
	    {"report", frc}, {"report", "--html", "-o", tmp("twice.html"), frc}, {"score", frc}};
	uint64_t start, once;

	write_60hz(frc, 250000);
	start = bytes_read();
	ck_assert_int_eq(fa("--version", NULL), 0);
	start = bytes_read() - start;
	once = bytes_read();
	ck_assert_int_eq(fa("info", frc, NULL), 0);
	once = bytes_read() - once - start;
	ck_assert_uint_gt(once, 200000); /* the capture, well above what a start reads */
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		uint64_t b = bytes_read();
		double reads;

		ck_assert_int_eq(
		    fa(cmds[i][0], cmds[i][1], cmds[i][2], cmds[i][3], cmds[i][4], cmds[i][5]), 0);
		reads = (double)(bytes_read() - b - start) / (double)once;
		ck_assert_msg(reads > 1.9 && reads < 2.1, "%s %s read the capture %.2f times",
			      cmds[i][0], cmds[i][1], reads);
	}
}
END_TEST

/*
 * Synthesized ticks are bounded by the records the capture holds, not by the times it
 * claims (issue 11, point 2): two frames 11.6 days apart, no tick record. At most 3600
 * ticks are synthesized per gap (SCHEMA.md, REPORT.md); it used to be 10^6 readings.
 */
START_TEST(db_synth_ticks_bounded)
{
	const char *txt = tmp("g.txt"), *frc = tmp("g.frc"), *dbp = tmp("g.db");
	sqlite3 *db;

	spit(txt, "frame 1000000000 1 1 0x1\n"
		  "frame 1000001500000000 1 1 0x1\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	/* ticks at 2 s .. 3601 s after the first frame; the other 996400 are skipped */
	ck_assert_str_eq(q(db, "SELECT count(*) || ' ' || min(tick_ns) || ' ' || max(tick_ns)"
			       " FROM fps_readings"),
			 "3600 2000000000 3601000000000");
	sqlite3_close(db);
}
END_TEST

/* import --help lists its option and exit codes like the other subcommands; both work. */
START_TEST(import_help_options)
{
	ck_assert_int_eq(fa("import", "--help", NULL), 0);
	ck_out_has("\n  -o, --output OUT.frc  the capture to write");
	ck_out_has("\nexit: 0 written, 1 a syntax error (IN:LINE:COL: what)");
	ck_out_has("(FPS up to 6 decimals, SOURCE sysfs|ebpf; - - = none)\n");
	ck_assert_int_eq(fa("import", TESTS_SRC_DIR "/hand.txt", "--output", tmp("o.frc"), NULL),
			 0);
	ck_assert_int_eq(exists(tmp("o.frc")), 1);
}
END_TEST

/*
 * A database another process is writing is waited for (it was refused at once as "not a
 * frameanalyze database (database is locked)"). The child holds an exclusive lock 1.5 s.
 */
static pid_t fa_start(char *const argv[]);

/* Does process pid have a descriptor open on path (it reached the database)? */
static bool has_open(pid_t pid, const char *path)
{
	char fd_dir[64], link[600], target[600];
	struct dirent *d;
	DIR *dir;
	bool found = false;
	ssize_t n;

	snprintf(fd_dir, sizeof(fd_dir), "/proc/%d/fd", (int)pid);
	dir = opendir(fd_dir);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir)) != NULL) {
		snprintf(link, sizeof(link), "%s/%s", fd_dir, d->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, path);
		}
	}
	closedir(dir);
	return found;
}

/*
 * A db run finding the database locked by another writer waits for it (SQLite's busy
 * timeout) instead of failing "database is locked". The lock is held until the run has
 * opened the database and is still running 300 ms later (a run on this capture takes a few
 * ms): only then is it released, so the run demonstrably waited.
 */
START_TEST(db_waits_for_lock)
{
	const char *frc = hand_frc(), *dbp = tmp("l.db");
	char *argv[] = {"frameanalyze", "db", TESTS_SRC_DIR "/hand.txt", (char *)frc, "-o",
			(char *)dbp,	NULL};
	int ready[2], go[2], status;
	char c;
	sqlite3 *db;
	pid_t holder, run;

	ck_assert_int_eq(fa("db", frc, "-o", dbp, NULL), 0);
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	holder = fork();
	ck_assert_int_ge(holder, 0);
	if (holder == 0) {
		sqlite3 *w;

		alarm(30);
		if (sqlite3_open(dbp, &w) != SQLITE_OK ||
		    sqlite3_exec(w, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(1);
		(void)!write(ready[1], "x", 1);
		(void)!read(go[0], &c, 1); /* hold the lock until told */
		sqlite3_exec(w, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(w);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1); /* the lock is held now */
	close(ready[0]);
	run = fa_start(argv);
	for (int i = 0; i < 1000 && !has_open(run, dbp); i++)
		usleep(10000);
	ck_assert_msg(has_open(run, dbp), "the db run never opened %s", dbp);
	usleep(300000);
	ck_assert_msg(waitpid(run, &status, WNOHANG) == 0, "the db run ended under the lock");
	ck_assert_int_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	ck_assert_int_eq(waitpid(run, &status, 0), run);
	ck_assert_int_eq(WIFEXITED(status) && WEXITSTATUS(status) == 1, 1);
	free(err_text);
	err_text = slurp(err_path, NULL);
	ck_assert_ptr_nonnull(err_text);
	ck_err_has("hand.txt: offset 0: not an .frc capture");
	ck_err_has("hand.frc -> capture_id 1, replaced the same capture");
	ck_assert_ptr_null(strstr(err_text, "locked"));
	ck_assert_int_eq(waitpid(holder, &status, 0), holder);
	ck_assert_int_eq(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) FROM captures"), "1");
	sqlite3_close(db);
}
END_TEST

/*
 * Several db runs racing to create and fill the same new database: every capture a run
 * reports as stored is in the database afterwards and the schema exists. Before schema
 * creation and the clean-up were made atomic, the loser of the race failed on "table
 * captures already exists" and removed the file the winner had just stored into.
 * Each round starts RACERS runs at once (they wait on a pipe closed by the parent); one
 * run in three has a second, corrupt capture (it fails, exit 1, and must not take the
 * others' data with it), one in three only a corrupt capture (nothing of its own stored).
 */
#define RACERS 6
#define ROUNDS 8

static pid_t db_racer(const int gate[2], const char *frc, const char *junk, const char *dbp,
		      const char *err)
{
	pid_t pid = fork();
	char c;

	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	alarm(30);
	int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int o = open("/dev/null", O_WRONLY);
	if (e < 0 || o < 0 || dup2(e, 2) < 0 || dup2(o, 1) < 0)
		_exit(127);
	close(gate[1]);
	(void)!read(gate[0], &c, 1); /* EOF: the parent let everyone go */
	if (frc && junk)
		execl(FRAMEANALYZE_BIN, FRAMEANALYZE_BIN, "db", frc, junk, "-o", dbp, (char *)NULL);
	else
		execl(FRAMEANALYZE_BIN, FRAMEANALYZE_BIN, "db", frc ? frc : junk, "-o", dbp,
		      (char *)NULL);
	_exit(127);
}

static void db_race_round(int round, const char *const frc[RACERS], const char *junk)
{
	char dbp[600], err[RACERS][600], sql[700];
	pid_t pids[RACERS];
	int gate[2], status;
	int stored = 0;
	sqlite3 *db;

	snprintf(dbp, sizeof(dbp), "%s/race%d.db", tmpdir, round);
	ck_assert_int_eq(pipe(gate), 0);
	for (int i = 0; i < RACERS; i++) {
		snprintf(err[i], sizeof(err[i]), "%s/race%d.%d.err", tmpdir, round, i);
		pids[i] =
		    db_racer(gate, i % 3 == 2 ? NULL : frc[i], i % 3 ? junk : NULL, dbp, err[i]);
	}
	close(gate[0]);
	close(gate[1]);
	for (int i = 0; i < RACERS; i++) {
		char *e;

		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert_int_eq(WIFEXITED(status), 1);
		e = slurp(err[i], NULL);
		ck_assert_ptr_nonnull(e);
		/* a run that fails must say why: never silently */
		ck_assert_msg(WEXITSTATUS(status) == (i % 3 ? 1 : 0), "racer %d exit %d:\n%s", i,
			      WEXITSTATUS(status), e);
		if (i % 3 != 2) {
			ck_assert_msg(strstr(e, "-> capture_id"), "racer %d stored nothing:\n%s", i,
				      e);
			stored++;
		}
		free(e);
	}
	ck_assert_msg(exists(dbp), "round %d: the database is gone", round);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'captures'"), "1");
	ck_assert_str_eq(q(db, "PRAGMA application_id"), "1179796289");
	for (int i = 0; i < RACERS; i++) {
		if (i % 3 == 2)
			continue;
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) || ' ' || sum(frames) FROM captures WHERE path = '%s'",
			 frc[i]);
		ck_assert_str_eq(q(db, sql), "1 21");
	}
	ck_assert_int_eq(atoi(q(db, "SELECT count(*) FROM captures")), stored);
	ck_assert_int_eq(atoi(q(db, "SELECT count(*) FROM frames")), stored * 21);
	sqlite3_close(db);
}

START_TEST(db_concurrent_runs_keep_data)
{
	const char *frc[RACERS], *junk = tmp("junk.frc");
	char *hand = slurp(TESTS_SRC_DIR "/hand.txt", NULL), name[64], *text;

	ck_assert_ptr_nonnull(hand);
	spit(junk, "not a capture\n");
	/* RACERS distinct captures (the same frames, another SHA-256) */
	for (int i = 0; i < RACERS; i++) {
		text = malloc(strlen(hand) + 64);
		ck_assert_ptr_nonnull(text);
		sprintf(text, "meta racer %d\n%s", i, hand);
		snprintf(name, sizeof(name), "racer%d.txt", i);
		spit(tmp(name), text);
		free(text);
		snprintf(name, sizeof(name), "racer%d.frc", i);
		frc[i] = strdup(tmp(name));
		snprintf(name, sizeof(name), "racer%d.txt", i);
		ck_assert_msg(fa("import", tmp(name), "-o", frc[i], NULL) == 0, "%s", err_text);
	}
	free(hand);
	for (int round = 0; round < ROUNDS; round++)
		db_race_round(round, frc, junk);
	for (int i = 0; i < RACERS; i++)
		free((char *)frc[i]);
}
END_TEST

/*
 * SQLite errors name the database file and the step (db -o /dev/null said only "disk I/O
 * error"); numeric options out of range state the range (they said "bad --tick-ms").
 */
START_TEST(errors_name_file_and_range)
{
	const char *frc = hand_frc();

	ck_assert_int_eq(fa("db", frc, "-o", "/dev/null", NULL), 1);
	ck_err_has("frameanalyze db: /dev/null: ");
	ck_err_has(" the schema: disk I/O error\n");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("db", frc, "-o", tmp("r.db"), "--tick-ms", "0", NULL), 2);
	ck_err_has("--tick-ms: '0' is not in [10, 3600000]");
	ck_assert_int_eq(fa("report", "--tick-ms", "3600001", frc, NULL), 2);
	ck_err_has("--tick-ms: '3600001' is not in [10, 3600000]");
	/* framerec's range: a replay cannot read the meter more often than a recording. */
	ck_assert_int_eq(fa("report", "--tick-ms", "9", frc, NULL), 2);
	ck_err_has("--tick-ms: '9' is not in [10, 3600000]");
	ck_assert_int_eq(fa("report", "--tick-ms", "10", frc, NULL), 0);
}
END_TEST

/* frameanalyze ARGS... in the background (stdout/stderr to the usual files); its PID. */
static pid_t fa_start(char *const argv[])
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		alarm(30);
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execv(FRAMEANALYZE_BIN, argv);
		_exit(127);
	}
	return pid;
}

/* A child writing text into the FIFO, then holding it open for hold_s seconds. */
static pid_t fifo_writer(const char *fifo, const char *text, size_t filler, int hold_s)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static char x[65536];
		int fd = open(fifo, O_WRONLY);

		/*
		 * When the reader gives up mid-line, a write must fail with EPIPE, not kill
		 * this child: the test asks whether the line was still open, so the child
		 * keeps holding the FIFO either way.
		 */
		signal(SIGPIPE, SIG_IGN);
		if (fd < 0)
			_exit(1);
		memset(x, 'x', sizeof(x));
		if (write(fd, text, strlen(text)) < 0)
			_exit(1);
		for (size_t n = 0; n < filler;) {
			ssize_t w = write(fd, x, filler - n < sizeof(x) ? filler - n : sizeof(x));
			if (w <= 0)
				break; /* the reader gave up: that is the point */
			n += (size_t)w;
		}
		sleep((unsigned)hold_s);
		_exit(0);
	}
	return pid;
}

/*
 * import refuses an over-long line at the limit, without reading the rest of it: the line
 * here never ends (the writer holds the FIFO open), yet import answers at once. getline()
 * waited for the end of the line, holding all of it in memory.
 */
START_TEST(import_long_line_refused_early)
{
	const char *fifo = tmp("long.txt"), *frc = tmp("long.frc");
	char *argv[] = {"frameanalyze", "import", (char *)fifo, "-o", (char *)frc, NULL};
	char want[128];
	int status;
	pid_t w, imp;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	imp = fa_start(argv);
	w = fifo_writer(fifo, "# a comment that never ends ", 300000, 20);
	ck_assert_int_eq(waitpid(imp, &status, 0), imp);
	/* the writer still holds the line open: import did not wait for its end */
	ck_assert_int_eq(waitpid(w, NULL, WNOHANG), 0);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	ck_assert_int_eq(WIFEXITED(status) && WEXITSTATUS(status) == 1, 1);
	free(err_text);
	err_text = slurp(err_path, NULL);
	snprintf(want, sizeof(want), "long.txt:1:%d: line longer than %d bytes; refused\n",
		 4 * 65535 + 1024 + 1, 4 * 65535 + 1024);
	ck_err_has(want);
	ck_assert_int_eq(exists(frc), 0);
}
END_TEST

/* Files in the test directory whose name starts with prefix (one per line), or "". */
static char *files_starting(const char *prefix)
{
	char cmd[700];
	char *list;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep '^%s' || true", tmpdir, prefix);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	list = calloc(1, 4096);
	ck_assert_ptr_nonnull(list);
	(void)!fread(list, 1, 4095, p);
	pclose(p);
	return list;
}

/* The temporary file next to OUT (OUT.tmp-XXXXXX), or NULL. */
static char *import_tmp_file(void)
{
	char *found = files_starting("o\\.frc\\.tmp-");

	if (!*found) {
		free(found);
		return NULL;
	}
	return found;
}

/*
 * Ctrl-C during import -o leaves no temporary file behind (SIGINT killed import with its
 * OUT.tmp-XXXXXX in place), and no OUT: the import dies of the signal after cleaning up.
 */
START_TEST(import_sigint_leaves_no_tmp)
{
	const char *fifo = tmp("in.txt"), *frc = tmp("o.frc");
	char *argv[] = {"frameanalyze", "import", (char *)fifo, "-o", (char *)frc, NULL};
	char *t = NULL;
	int status;
	pid_t w, imp;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	imp = fa_start(argv);
	w = fifo_writer(fifo, "frame 1000 1 1 0x1\nframe 2000 1 1 0x1\n", 0, 20);
	/* the first record opens the temporary output; then import waits for more lines */
	for (int i = 0; i < 500 && !(t = import_tmp_file()); i++)
		usleep(10000);
	ck_assert_msg(t != NULL, "no temporary file appeared");
	free(t);
	ck_assert_int_eq(kill(imp, SIGINT), 0);
	ck_assert_int_eq(waitpid(imp, &status, 0), imp);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status 0x%x", status);
	t = import_tmp_file();
	ck_assert_msg(t == NULL, "left behind: %s", t ? t : "");
	ck_assert_int_eq(exists(frc), 0);
}
END_TEST

/*
 * Ctrl-C while db builds a new database (its first capture is being stored) leaves no
 * file: neither OUT.db nor the temporary database or its journal.
 */
START_TEST(db_sigint_leaves_no_file)
{
	const char *frc = tmp("big.frc"), *dbp = tmp("new.db");
	char *argv[] = {"frameanalyze", "db", (char *)frc, "-o", (char *)dbp, NULL};
	int fd = open(frc, O_WRONLY | O_CREAT | O_TRUNC, 0644), status;
	frc_writer *w = NULL;
	char *left;
	pid_t pid;

	/* 400000 frames at 60 Hz: storing them takes about a second */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, frc, NULL, 0, NULL), 0);
	for (uint64_t i = 0; i < 400000; i++) {
		struct frc_record fr = {
		    .type = FRC_FRAME,
		    .ktime_ns = 1000000 + i * 16666666,
		    .u.frame = {.pid = 7, .tid = 7, .buffer = 0x1000 * (i % 3 + 1)}};
		ck_assert_int_eq(frc_writer_append(w, &fr), 0);
	}
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	ck_assert_int_eq(close(fd), 0);

	pid = fa_start(argv);
	for (int i = 0; i < 300; i++) {
		left = files_starting("new\\.db");
		if (strstr(left, "-journal")) { /* inside the capture's transaction */
			free(left);
			break;
		}
		free(left);
		usleep(5000);
	}
	usleep(100000);
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
		      "status 0x%x (finished before the signal?)", status);
	left = files_starting("new\\.db");
	ck_assert_msg(left[0] == '\0', "left behind:\n%s", left);
	free(left);
}
END_TEST

/* frc_escape, the one escaper of untrusted text: every class of byte, both styles. */
START_TEST(escape_unit)
{
	static const struct {
		const char *in;
		size_t n;
		const char *text, *json;
	} v[] = {
	    {"plain é €", 12, "plain é €", "plain é €"},
	    {"\x1b[2J\x07\x7f", 6, "\\x1b[2J\\x07\\x7f", "\\u001b[2J\\u0007\\u007f"},
	    {"a\\b\"c\n\t", 7, "a\\\\b\"c\\n\\t", "a\\\\b\\\"c\\n\\t"},
	    {"\xc2\x80\xc2\x9b\xc2\x9f\xc2\xa0", 8, "\\xc2\\x80\\xc2\\x9b\\xc2\\x9f\xc2\xa0",
	     "\\u0080\\u009b\\u009f\xc2\xa0"}, /* C1; U+00A0 is not */
	    {"\x9b\xff\xc0\x80", 4, "\\x9b\\xff\\xc0\\x80",
	     "\\ufffd\\ufffd\\ufffd\\ufffd"},				     /* lone, overlong */
	    {"\xed\xa0\x80", 3, "\\xed\\xa0\\x80", "\\ufffd\\ufffd\\ufffd"}, /* a surrogate */
	    {"\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80",
	     "\\ufffd\\ufffd\\ufffd\\ufffd"},				     /* > U+10FFFF */
	    {"\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"}, /* U+1F600 */
	    {"x\xe2\x82", 3, "x\\xe2\\x82", "x\\ufffd\\ufffd"},		     /* cut at the end */
	    {"n\0ul", 4, "n\\x00ul", "n\\u0000ul"},
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ck_assert_uint_eq(frc_escape(v[i].in, v[i].n, FRC_ESCAPE_TEXT, buf, sizeof(buf)),
				  strlen(v[i].text));
		ck_assert_msg(!strcmp(buf, v[i].text), "%zu text: [%s]", i, buf);
		ck_assert_uint_eq(frc_escape(v[i].in, v[i].n, FRC_ESCAPE_JSON, buf, sizeof(buf)),
				  strlen(v[i].json));
		ck_assert_msg(!strcmp(buf, v[i].json), "%zu json: [%s]", i, buf);
	}
	/* snprintf semantics: cut, NUL-terminated, the full length returned */
	ck_assert_uint_eq(frc_escape("\x1b\x1b", 2, FRC_ESCAPE_TEXT, buf, 6), 8);
	ck_assert_str_eq(buf, "\\x1b\\");
	ck_assert_uint_eq(frc_escape("ab", 2, FRC_ESCAPE_TEXT, NULL, 0), 2);
	ck_assert_str_eq(frc_escape_str("\x1b", buf, sizeof(buf)), "\\x1b");
}
END_TEST

/*
 * Records of unknown (future) types have no text form: export says it dropped them
 * instead of silently producing a text whose import loses them.
 */
START_TEST(export_warns_unknown_records)
{
	static const uint8_t future[] = {1, 2, 3};
	struct frc_record fr = {
	    .type = FRC_FRAME, .ktime_ns = 1000, .u.frame = {.pid = 1, .tid = 2, .buffer = 0x10}};
	const char *frc = tmp("u.frc");
	int fd = open(frc, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	frc_writer *w = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(frc_writer_open_fd(&w, fd, frc, NULL, 0, NULL), 0);
	ck_assert_int_eq(frc_writer_append(w, &fr), 0);
	ck_assert_int_eq(frc_writer_append_raw_entry(w, 99, future, sizeof(future)), 0);
	ck_assert_int_eq(frc_writer_finish(w), 0);
	frc_writer_free(w);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(fa("export", frc, NULL), 0);
	ck_assert_str_eq(out_text, "frame 1000 1 2 0x10 0x0\n");
	ck_err_has("frameanalyze export: warning: ");
	ck_err_has("u.frc: 1 record(s) of unknown types skipped (the text form cannot hold them;"
		   " import will not restore them)\n");
}
END_TEST

/*
 * Messages keep "what went wrong" with a long path (a 600+ byte path used to fill the
 * 512-byte message buffers, cutting off everything after it).
 */
START_TEST(long_paths_keep_message)
{
	char dir[1024], txt[1100], frc[1100], cmd[1200];
	static const char *const cmds[] = {"info", "export", "report", "golden"};

	snprintf(dir, sizeof(dir), "%s", tmpdir);
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(dir);

		dir[n] = '/';
		memset(dir + n + 1, 'd', 200);
		dir[n + 201] = '\0';
	}
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(txt, sizeof(txt), "%s/bad.txt", dir);
	snprintf(frc, sizeof(frc), "%s/o.frc", dir);
	spit(txt, "frame x\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 1);
	ck_err_has("/bad.txt:1:7: KTIME_NS: expected a decimal digit\n");
	spit(frc, "not a capture\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(fa(cmds[i], frc, NULL), 1);
		ck_err_has("/o.frc: offset 0: not an .frc capture (no header frame)\n");
	}
}
END_TEST

/* check says why a CRLF golden file (git autocrlf) differs on every line. */
START_TEST(check_crlf_golden_explained)
{
	const char *frc = hand_frc(), *g = tmp("crlf.golden");
	FILE *f;

	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	f = fopen(g, "wb");
	ck_assert_ptr_nonnull(f);
	for (const char *p = out_text; *p; p++) {
		if (*p == '\n')
			fputc('\r', f);
		fputc(*p, f);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("check", frc, g, NULL), 1);
	ck_err_has("crlf.golden (diff above; ");
	ck_err_has("crlf.golden has CRLF line ends, golden text uses LF)\n");
}
END_TEST

/* ------------------------------------------------------------ score */

/*
 * The number after "KEY": on the JSON line of tracker NAME (each tracker object is one
 * line) of the first capture; NAN for null.
 */
static double score_json(const char *name, const char *key)
{
	char pat[96];
	const char *line, *eol, *k;

	snprintf(pat, sizeof(pat), "{\"name\": \"%s\",", name);
	line = strstr(out_text, pat);
	ck_assert_msg(line != NULL, "no tracker %s in:\n%s", name, out_text);
	eol = strchr(line, '\n');
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	k = strstr(line, pat);
	ck_assert_msg(k != NULL && k < eol, "no %s for %s", key, name);
	k += strlen(pat);
	return strncmp(k, "null", 4) ? strtod(k, NULL) : NAN;
}

#define ck_score(name, key, want)                                                                  \
	ck_assert_msg(fabs(score_json(name, key) - (want)) < 0.0005, "%s %s = %f, want %f", name,  \
		      key, score_json(name, key), (double)(want))

/*
 * Exact triple buffering at 60 Hz, written here: frames i = 0..240 at 1e9 + i * T,
 * T = 16666667 ns, buffers 0xA000, 0xB000, 0xC000 in turn, no tick records.
 * Windows: t0 = 1e9, last = 1e9 + 240 T = 5.00000008e9: 4 full windows. Frame i ends in
 * window floor(i T / 1e9): i = 0..59 in window 0 (i = 0 has no interval: 59 truth frame
 * times), 60..119, 120..179, 180..239 (60 each); i = 240 is in window 4 (not full).
 * Truth 239 frames in 4 s = 59.75 FPS.
 * kala: every buffer's delta is 3T and B, C tie with A on (count, sum): only A (i = 3, 6,
 * ...) reports; i = 3..57: 19, 60..117: 20, 120..177: 20, 180..237: 20 = 79 = 19.75 FPS;
 * error (79 - 239) / 239 = -66.946 %; MAE (40 * 4) / 4 = 40; MAE % 160 / 239 = 66.946.
 * Mean FPS (frame times / their sum): truth 240 T: 1e9 / T = 59.9999988 -> 60.000; kala 80
 * deltas of 3T: 1e9 / 50000001 = 19.9999996 -> 20.000, error -66.667 %: not the window
 * FPS (19.750, -66.946 %), two numbers with two names.
 * p50: truth T -> 16.666 ms (the report's us truncation), kala 3T -> 50.000 ms: +33.334.
 * Meter (synthesized ticks at 2e9..5e9, 4 ticks): truth in (T - 1 s, T] = 59, 60, 60, 60.
 * process: 30 deltas of T: 1e9 / 16666667 = 59.9999988; |err| 0.9999988 + 3 * 0.0000012:
 * MAE 0.250, 1.0000024 / 239 = 0.418 %. kala: 1e9 / 50000001 = 19.9999996: |err|
 * 39.0000004 + 3 * 40.0000004 = 159.0000016: MAE 39.750, 66.527 %.
 */
START_TEST(score_exact_triple_60hz)
{
	const char *txt = tmp("triple.txt"), *frc = tmp("triple.frc");
	FILE *f = fopen(txt, "w");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i <= 240; i++)
		fprintf(f, "frame %llu 77 78 %#x\n", 1000000000ull + i * 16666667ull,
			0xA000 + 0x1000 * (i % 3));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("score", "--json", frc, NULL), 0);
	ck_out_has("\"frameanalyze_score\": 1,");
	ck_out_has("\"pid\": 77, \"pid_frames\": 241, \"frames\": 241, \"surfaces\": 1, "
		   "\"main_surface\": \"0\", \"main_surface_frames\": 241, \"full_windows\": 4, "
		   "\"truth_mean_fps\": 60.000, \"truth_window_fps\": 59.750, "
		   "\"truth_p50_ms\": 16.666,");
	ck_score("kala", "window_fps", 19.75);
	ck_score("kala", "window_fps_error_percent", -66.946);
	ck_score("kala", "window_fps_mae", 40.0);
	ck_score("kala", "window_fps_mae_percent", 66.946);
	ck_score("kala", "mean_fps", 20.0);
	ck_score("kala", "mean_fps_error_percent", -66.667);
	ck_score("kala", "p50_error_ms", 33.334);
	ck_score("kala", "meter_mae", 39.75);
	ck_score("kala", "meter_mae_percent", 66.527);
	ck_assert(isnan(score_json("kala", "jank_precision")));
	for (int k = 0; k < 3; k++) {
		const char *name = (const char *[]){"surface", "process", "main-surface"}[k];

		ck_score(name, "window_fps", 59.75);
		ck_score(name, "window_fps_error_percent", 0);
		ck_score(name, "window_fps_mae", 0);
		ck_score(name, "mean_fps", 60.0);
		ck_score(name, "mean_fps_error_percent", 0);
		ck_score(name, "p99_error_ms", 0);
		ck_score(name, "meter_mae", 0.25);
		ck_score(name, "meter_mae_percent", 0.418);
		ck_score(name, "rate_changes", 0);
	}
	/* text: the same numbers, and a subset of trackers in the order given */
	ck_assert_int_eq(fa("score", frc, "--tracker", "main-surface,kala", NULL), 0);
	ck_out_has("  submitted: mean 60.000 FPS, window 59.750 FPS (4 full windows)\n");
	ck_out_has("  main-surface    60.000    0.000     59.750    0.000    0.000    0.000");
	ck_out_has("  kala            20.000  -66.667     19.750  -66.946   40.000   66.946");
	ck_assert_ptr_null(strstr(out_text, "process"));
	ck_assert(strstr(out_text, "main-surface ") < strstr(out_text, "kala "));
}
END_TEST

/*
 * score's text fits 100 columns (issue 18 point 2: it was 143): every line of the whole
 * score set's table but the "capture PATH" lines (the path is the caller's) and the pooled
 * rows, whatever the numbers.
 */
START_TEST(score_text_100_columns)
{
	static const char *const names[] = {
	    "jank_bursts",   "lag_4096", "pauses", "two_pids", "score/two_equal_surfaces",
	    "score/pause_5s"};
	char paths[6][512];
	const char *line;
	size_t lines = 0;

	for (int i = 0; i < 6; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/%s.frc", FIXTURES_BIN_DIR, names[i]);
	ck_assert_int_eq(
	    fa("score", paths[0], paths[1], paths[2], paths[3], paths[4], paths[5], NULL), 0);
	for (line = out_text; *line; lines++) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (strncmp(line, "capture ", 8))
			ck_assert_msg(len <= 100, "%zu columns: %.*s", len, (int)len, line);
		line += len + (eol != NULL);
	}
	ck_assert_uint_gt(lines, 6 * 12);
}
END_TEST

/* ------------------------------------------------------------ window (--from/--to) */

/*
 * One PID, one surface, one buffer (kala's deltas are then the intervals): frames every
 * 20 ms from 1.000 s to 2.000 s (i = 0..50), a 200 ms gap, then every 20 ms from 2.200 s
 * (k = 0..99, the last at 4.180 s); no tick records. The window --from 1.1 --to +2 is
 * [2.100 s, 4.100 s): frames k = 0..94 (4.100 s is out): 95 frames, 95 intervals when the
 * replay runs from the start (k = 0's is the 200 ms gap from the frame at 2.000 s before
 * the window), sum 0.2 + 94 * 0.02 = 2.08 s: mean FPS 95 / 2.08 = 45.673. The gap is a
 * PerfDog BigJank (200 > 2 * 20, > 125 ms) only because its three predecessors, before
 * the window, are known: 1 jank, 1 big; stutter 0.2 / 2.08 = 9.615 %. Full windows
 * [2.1, 3.1) (k = 0..44: 45, k = 45 is at 3.100 s) and [3.1, 4.1) (k = 45..94: 50): window
 * FPS 95 / 2 = 47.500, median 47.5. Synthesized ticks at 2, 3, 4 s: 2 in the window.
 */
static const char *window_capture(void)
{
	const char *txt = tmp("win.txt"), *frc = tmp("win.frc");
	FILE *f = fopen(txt, "w");

	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i <= 50; i++)
		fprintf(f, "frame %llu 7 8 0x100 0xa\n", 1000000000ull + i * 20000000ull);
	for (unsigned k = 0; k < 100; k++)
		fprintf(f, "frame %llu 7 8 0x100 0xa\n", 2200000000ull + k * 20000000ull);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	return frc;
}

START_TEST(window_report)
{
	const char *frc = window_capture();

	ck_assert_int_eq(fa("report", "--json", "--from", "1.1", "--to", "+2s", frc, NULL), 0);
	ck_out_has("    \"intervals\": 95,\n    \"mean_fps\": 45.673,\n");
	ck_out_has("    \"janks\": 1,\n    \"big_janks\": 1,\n    \"jank_time_ms\": 200.000,\n"
		   "    \"stutter_percent\": 9.615,\n");
	ck_out_has("    \"full_windows\": 2,\n    \"window_fps\": 47.500,\n");
	ck_out_has("    \"per_second_min\": 45.000,\n    \"per_second_max\": 50.000,\n"
		   "    \"median_fps\": 47.500,\n");
	ck_out_has("    \"window\": {\n      \"from_s\": 1.100,\n      \"to_s\": 3.100,\n"
		   "      \"start_ktime_ns\": 2100000000,\n      \"end_ktime_ns\": 4100000000\n");
	ck_out_has("    \"frames\": 95,\n");
	ck_out_has("    \"deltas\": 95,\n    \"sum_ns\": 2080000000,\n    \"mean_fps\": 45.673,\n");
	ck_out_has("  \"janks\": {\n    \"janks\": 1,\n    \"big_janks\": 1,\n");
	ck_out_has("    \"ticks\": 2,\n");
	ck_out_has("    \"window_fps\": 47.500,\n    \"submitted_window_fps\": 47.500,\n"
		   "    \"window_fps_error_percent\": 0.000,\n");
	/* the same window in ms, the text says which window it shows; the page too */
	ck_assert_int_eq(fa("report", "--from", "1100ms", "--to", "3.1", frc, NULL), 0);
	ck_out_has("  window                   1.100 .. 3.100 s after the first record");
	ck_out_has("  mean FPS                 45.673 (95 intervals / their sum)\n");
	ck_assert_int_eq(fa("report", "--html", "--from", "1.1", "--to", "3.1", frc, NULL), 0);
	ck_out_has("1.100 .. 3.100 s after the first record");
	ck_out_has("data-json=\"submissions.mean_fps\">45.673<");
	/* no window: the whole capture (150 intervals) and "window": null */
	ck_assert_int_eq(fa("report", "--json", frc, NULL), 0);
	ck_out_has("    \"intervals\": 150,\n");
	ck_out_has("    \"window\": null\n");
}
END_TEST

START_TEST(window_score_compare)
{
	const char *frc = window_capture();

	ck_assert_int_eq(
	    fa("score", "--json", "--tracker", "kala", "--from", "1.1", "--to", "3.1", frc, NULL),
	    0);
	ck_out_has("\"window\": {\"from_s\": 1.100, \"to_s\": 3.100}, ");
	ck_out_has(
	    "\"full_windows\": 2, \"truth_mean_fps\": 45.673, \"truth_window_fps\": 47.500,");
	ck_out_has("\"truth_janks\": 1,");
	ck_score("kala", "window_fps", 47.5);
	ck_score("kala", "window_fps_error_percent", 0);
	ck_score("kala", "mean_fps", 45.673);
	ck_score("kala", "janks", 1);
	ck_score("kala", "jank_precision", 1);
	ck_score("kala", "jank_recall", 1);
	ck_assert_int_eq(
	    fa("score", "--tracker", "kala", "--from", "1.1", "--to", "3.1", frc, NULL), 0);
	ck_out_has("  window: 1.100 .. 3.100 s after the first record");
	ck_out_has("  submitted: mean 45.673 FPS, window 47.500 FPS (2 full windows)\n");
	ck_assert_int_eq(fa("compare", "--json", "--from", "1.1", "--to", "+2", frc, frc, NULL), 0);
	ck_out_has("  \"window_before\": {\"from_s\": 1.100, \"to_s\": 3.100},\n");
	ck_out_has("\"submitted_fps\": {\"before\": 45.673, \"after\": 45.673,");
	ck_out_has("\"median_fps\": {\"before\": 47.500,");
	ck_out_has("\"janks_per_min\": {\"before\": 28.846,"); /* 1 / (2.08 s / 60) */
}
END_TEST

START_TEST(window_db_perfetto)
{
	const char *frc = window_capture(), *dbp = tmp("win.db"), *whole = tmp("whole.pftrace");
	const char *part = tmp("part.pftrace");
	struct stat a, b;
	sqlite3 *db;

	ck_assert_int_eq(fa("db", "--from", "1.1", "--to", "3.1", frc, "-o", dbp, NULL), 0);
	db = db_open_ro(dbp);
	ck_assert_str_eq(q(db, "SELECT count(*) FROM frames"), "95");
	ck_assert_str_eq(q(db, "SELECT min(ktime_ns) FROM frames"), "2200000000");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM tracker_deltas"), "95");
	ck_assert_str_eq(q(db, "SELECT max(delta_ns) FROM tracker_deltas"), "200000000");
	ck_assert_str_eq(q(db, "SELECT count(*) FROM fps_readings"), "2");
	sqlite3_close(db);
	ck_assert_int_eq(fa("perfetto", frc, "-o", whole, NULL), 0);
	ck_assert_int_eq(fa("perfetto", "--from", "1.1", "--to", "3.1", frc, "-o", part, NULL), 0);
	ck_assert_int_eq(stat(whole, &a), 0);
	ck_assert_int_eq(stat(part, &b), 0);
	/* 95 of 151 calls: fewer packets */
	ck_assert_int_lt(b.st_size, a.st_size);
	ck_assert_int_gt(b.st_size, 0);
}
END_TEST

/* Every command: a window that is not a time or does not fit the capture is usage (2). */
START_TEST(window_usage)
{
	static const char *const cmds[] = {"report", "score", "compare", "db", "perfetto"};
	static const char *const bad[][5] = {
	    {"--from", "abc", NULL, NULL, "--from 'abc': not a time"},
	    {"--to", "-1", NULL, NULL, "--to '-1': not a time"},
	    {"--from", "2", "--to", "1.5", "--to must be after --from"},
	    {"--from", "3.18", NULL, NULL, "--from 3.180 s: not before the end of"},
	    {"--to", "+2.1", "--from", "1.1", "--to 3.200 s: after the end of"},
	};
	const char *frc = window_capture(), *out = tmp("out.x");

	for (size_t c = 0; c < 5; c++)
		for (size_t b = 0; b < 5; b++) {
			const char *v[12];
			int n = 0;

			v[n++] = cmds[c];
			for (int k = 0; k < 4 && bad[b][k]; k++)
				v[n++] = bad[b][k];
			v[n++] = frc;
			if (c == 2)
				v[n++] = frc;
			if (c >= 3)
				v[n++] = "-o", v[n++] = out;
			v[n] = NULL;
			ck_assert_msg(fa(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], NULL) == 2,
				      "%s %s %s: exit not 2", v[0], v[1], v[2]);
			ck_err_has(bad[b][4]);
			ck_assert_str_eq(out_text, "");
			ck_assert_msg(!exists(out), "%s wrote %s", cmds[c], out);
		}
}
END_TEST

/* Frame records of a fixture text: ktimes in file order, and the first/last of any record. */
static size_t fixture_frames(const char *name, uint64_t *kt, size_t max, uint64_t *t0,
			     uint64_t *last)
{
	char path[512], *text, *line, *save = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s.txt", FIXTURES_SRC_DIR, name);
	text = slurp(path, NULL);
	ck_assert_ptr_nonnull(text);
	*t0 = UINT64_MAX, *last = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type[16];
		unsigned long long k;

		if (line[0] == '#' || sscanf(line, "%15s %llu", type, &k) != 2 ||
		    !strcmp(type, "meta"))
			continue;
		*t0 = k < *t0 ? k : *t0;
		*last = k > *last ? k : *last;
		if (!strcmp(type, "frame") && n < max)
			kt[n++] = k;
	}
	free(text);
	return n;
}

/*
 * On committed one-PID surface-less fixtures, the truth is every consecutive pair of
 * frames. Computed here from the fixture text: the frame times ending in full 1 s windows
 * (truth FPS), and PerfDog's janks (d > 84 ms and 3d > 2 * the sum of the previous three).
 * process, surface and main-surface reproduce the truth exactly (error 0, precision and
 * recall 1 when there are janks); kala is shown as it is (well below the truth).
 */
START_TEST(score_fixtures_truth)
{
	static const char *const names[] = {"steady_60hz_triple", "jank_bursts", "hz90_realloc"};
	static uint64_t kt[4096];

	for (size_t c = 0; c < 3; c++) {
		uint64_t t0, last, n_full, in_windows = 0, janks = 0, w[3] = {0, 0, 0};
		size_t n = fixture_frames(names[c], kt, 4096, &t0, &last);
		char frc[512], want[128];

		n_full = (last - t0) / 1000000000ull;
		for (size_t i = 1; i < n; i++) {
			uint64_t d = kt[i] - kt[i - 1];

			in_windows += (kt[i] - t0) / 1000000000ull < n_full;
			janks += i >= 4 && d > 84000000 && 3 * d > 2 * (w[0] + w[1] + w[2]);
			w[0] = w[1], w[1] = w[2], w[2] = d;
		}
		snprintf(frc, sizeof(frc), "%s/%s.frc", FIXTURES_BIN_DIR, names[c]);
		ck_assert_int_eq(fa("score", "--json", frc, NULL), 0);
		snprintf(want, sizeof(want), "\"full_windows\": %llu, ",
			 (unsigned long long)n_full);
		ck_out_has(want);
		snprintf(want, sizeof(want), "\"truth_window_fps\": %.3f,",
			 (double)in_windows / (double)n_full);
		ck_out_has(want);
		for (int k = 0; k < 3; k++) {
			const char *name =
			    (const char *[]){"surface", "process", "main-surface"}[k];

			ck_score(name, "window_fps_error_percent", 0);
			ck_score(name, "window_fps_mae", 0);
			ck_score(name, "mean_fps_error_percent", 0);
			ck_score(name, "p95_error_ms", 0);
			ck_score(name, "truth_janks", (double)janks);
			ck_score(name, "janks", (double)janks);
			if (janks) {
				ck_score(name, "jank_precision", 1);
				ck_score(name, "jank_recall", 1);
			}
		}
		ck_assert_double_lt(score_json("kala", "window_fps_error_percent"), -10);
		if (c == 1)
			ck_assert_uint_gt(janks, 0); /* jank_bursts has janks */
	}
}
END_TEST

/*
 * A capture recorded with a tracker this build does not know (a newer framerec): the
 * replays of the recorded tracker refuse it naming the file and the way out (--tracker),
 * and score, which replays every variant it knows and needs no recorded one, scores it.
 */
START_TEST(unknown_recorded_tracker)
{
	const char *txt = tmp("future.txt"), *frc = tmp("future.frc");

	spit(txt, "meta tracker future-variant\n"
		  "attach 1000000000 7 sym\n"
		  "frame 1000000000 7 7 0x1000 0x0\n"
		  "frame 1016666666 7 7 0x2000 0x0\n"
		  "frame 1033333333 7 7 0x1000 0x0\n"
		  "frame 1050000000 7 7 0x2000 0x0\n");
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", frc, NULL), 1);
	ck_err_has("future.frc: recorded with tracker 'future-variant', which this frameanalyze "
		   "does not know (known: kala, surface, process, main-surface, content); replay "
		   "one of those with --tracker NAME\n");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_msg(out_text[0] == 0, "stdout: %s", out_text);
	ck_assert_int_eq(fa("report", "--tracker", "kala", frc, NULL), 0);
	ck_out_has("tracker kala");
	ck_assert_int_eq(fa("score", frc, NULL), 0);
	ck_out_has("all 1 captures pooled");
}
END_TEST

/*
 * The metadata key target.pid (what framerec wrote; the pipeline's target, issue 19): a
 * value that is not a list of PIDs is refused in one line naming the file and the key,
 * before any output, by every variant's replay; a good one replays.
 */
START_TEST(bad_target_pid_metadata)
{
	const char *txt = tmp("target.txt"), *frc = tmp("target.frc");
	static const char *const bad[] = {"7,x", "7,", "0", "4294967296", "7;8"};
	static const char *const trackers[] = {"kala", "content"};
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "meta target.pid %s\nframe 1000000000 7 7 0x1000 0x0\n"
			 "frame 1016666666 7 7 0x1000 0x0\n",
			 bad[i]);
		spit(txt, text);
		ck_assert_int_eq(fa("import", "--force", txt, "-o", frc, NULL), 0);
		for (size_t k = 0; k < 2; k++) {
			ck_assert_int_eq(fa("report", "--tracker", trackers[k], frc, NULL), 1);
			ck_err_has("target.frc: metadata target.pid is not a list of PIDs "
				   "(PID[,PID...])\n");
			ck_assert_int_eq(count_lines(err_text), 1);
			ck_assert_msg(out_text[0] == 0, "'%s' stdout: %s", bad[i], out_text);
		}
	}
	spit(txt, "meta target.pid 7,8\nframe 1000000000 7 7 0x1000 0x0\n");
	ck_assert_int_eq(fa("import", "--force", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("report", "--tracker", "content", frc, NULL), 0);
}
END_TEST

/*
 * --meter (issue 21): the meter a replay runs is --meter, else the recorded one (metadata
 * key `meter`), else auriya-10fe7c6; golden names it when it is not the default. The
 * capture: 50 FPS (20 ms, 3 buffers) from 1 s to 3 s, then nothing until one frame at
 * 4.6 s; synthesized ticks at 2, 3 and 4 s. At 4 s (1 s after the last frame):
 * auriya-10fe7c6 still shows the ring's 50 FPS (kala's deltas on 3 buffers are 60 ms:
 * 16.666667), frc-window shows the freeze, 0 FPS.
 */
START_TEST(meter_option)
{
	const char *txt = tmp("meter.txt"), *frc = tmp("meter.frc");
	const char *rtxt = tmp("meter_rec.txt"), *rfrc = tmp("meter_rec.frc");
	char body[8192], text[16384];
	size_t n = (size_t)snprintf(body, sizeof(body), "attach 1000000000 7 sym\n");

	for (int i = 0; i <= 100; i++) /* 1.00 .. 3.00 s, buffers round robin */
		n += (size_t)snprintf(body + n, sizeof(body) - n, "frame %lld 7 7 %#x 0x10\n",
				      1000000000ll + i * 20000000ll, 0x1000 + (i % 3) * 0x100);
	snprintf(body + n, sizeof(body) - n, "frame 4600000000 7 7 0x1000 0x10\n");

	snprintf(text, sizeof(text), "%s", body);
	spit(txt, text);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("golden", frc, NULL), 0);
	ck_out_has("replay has_sysfs=no synthesize_ticks=yes tick_ms=1000\n");
	ck_out_has("reading* 4000000000 16.666667 ebpf\n");
	ck_assert_int_eq(fa("golden", frc, "--meter", "frc-window", NULL), 0);
	ck_out_has("replay has_sysfs=no synthesize_ticks=yes tick_ms=1000 meter=frc-window\n");
	ck_out_has("reading* 3000000000 50.000000 ebpf\n");
	ck_out_has("reading* 4000000000 0.000000 ebpf\n");
	ck_assert_int_eq(fa("report", frc, "--meter", "auriya-ccafd78", NULL), 0);
	ck_out_has("tracker kala, meter auriya-ccafd78, sysfs absent");
	/* recorded: the capture's meter unless --meter says otherwise */
	snprintf(text, sizeof(text), "meta meter frc-window\n%s", body);
	spit(rtxt, text);
	ck_assert_int_eq(fa("import", rtxt, "-o", rfrc, NULL), 0);
	ck_assert_int_eq(fa("golden", rfrc, NULL), 0);
	ck_out_has("tick_ms=1000 meter=frc-window\n");
	ck_out_has("reading* 4000000000 0.000000 ebpf\n");
	ck_assert_int_eq(fa("golden", rfrc, "--meter", "auriya-10fe7c6", NULL), 0);
	ck_out_has("replay has_sysfs=no synthesize_ticks=yes tick_ms=1000\n");
	ck_out_has("reading* 4000000000 16.666667 ebpf\n");
	/* an unknown name: usage (2), one line listing the names */
	ck_assert_int_eq(fa("report", frc, "--meter", "nope", NULL), 2);
	ck_err_has("frameanalyze report: --meter: unknown meter 'nope' (known: auriya-10fe7c6, "
		   "auriya-ccafd78, frc-window)");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("db", frc, "-o", tmp("meter.db"), "--meter", "nope", NULL), 2);
	ck_assert_int_eq(fa("check", frc, tmp("none.golden"), "--meter", "nope", NULL), 2);
	/* recorded with a meter this build does not know: refused, naming the way out */
	snprintf(text, sizeof(text), "meta meter future-meter\n%s", body);
	spit(rtxt, text);
	ck_assert_int_eq(fa("import", rtxt, "-o", tmp("meter_future.frc"), NULL), 0);
	ck_assert_int_eq(fa("report", tmp("meter_future.frc"), NULL), 1);
	ck_err_has(
	    "meter_future.frc: recorded with meter 'future-meter', which this "
	    "frameanalyze does not know (known: auriya-10fe7c6, auriya-ccafd78, frc-window); "
	    "replay one of those with --meter NAME\n");
	ck_assert_int_eq(fa("report", tmp("meter_future.frc"), "--meter", "frc-window", NULL), 0);
	/* compare replays both with one meter; two meters are for one capture (its own test) */
	ck_assert_int_eq(fa("compare", frc, rfrc, "--meter", "frc-window", "--json", NULL), 0);
	ck_assert_int_eq(
	    fa("compare", frc, frc, "--meter", "frc-window", "--meter", "auriya-ccafd78", NULL), 2);
	ck_err_has("frameanalyze compare: --meter given twice with two captures: two meters "
		   "compare two variants of ONE capture");
}
END_TEST

/*
 * score's settle and freeze grading (REPORT.md "Score"), worked by hand for frc-window at
 * --tick-ms 250 --synth-ticks (the capture's one recorded tick, at 2.1 s, is then ignored;
 * without --synth-ticks it is the only tick, and the only one graded). One surface: 50 FPS
 * (20 ms) from 1.00 to 3.00 s, 25 FPS (40 ms) from 3.04 to 5.00 s, nothing for 1 s, 25 FPS
 * from 6.00 to 7.00 s. Graded ticks: 2.00 .. 7.00 s (21).
 * - Settle. The truth's rate at a tick is the mean of its frame times ending in the last
 *   0.5 s but those longer than 2.5 x their median. At 3.25 s: 13 of 20 ms (2.76..3.00), 6
 *   of 40 ms; the median (index 9 of 19) is 20, none is over 50: 500 ms / 19 -> 38.000 FPS,
 *   off 50 by > 5 %: a movement starts. 3.50 s: 12 of 40 ms -> 25 (still moving); 3.75 s:
 *   25 (held): it ends at 25, not within 5 % of 50: one rate change. frc-window at 3.25 s:
 *   its last 8 frame times (20, 20, then six of 40: interquartile mean 40 ms) against the
 *   35 before (20 ms) are a change, so it reads the ends of the last 0.3 s: 2.96..3.24, 9
 *   ends, 8 / 0.28 s = 28.571 (not within 5 % of 38); at 3.50 s: 3.24..3.48, 6 / 0.24 s =
 *   25 = the truth: settled 250 ms after 3.25 s.
 * - The freeze (5.00 .. 6.00 s, >= 0.5 s): its first tick >= 250 ms after the last frame,
 *   5.25 s, reads 0 (no frame for 250 ms): shown after 250 ms, not late, not unseen. Its
 *   ticks have no truth rate (no 4 frame times in 0.5 s), nor do 6.00 s (one); at 6.25 s the
 *   1 s frame time is over 2.5 x the median (40 ms) and left out: 25 again, no change.
 * At --tick-ms 1000 the freeze has no tick 250 ms on before its end (5.00 and 6.00 s: the
 * frame at 6.00 s ends it before the tick at 6.00 s reads): unseen.
 */
START_TEST(score_settle_freeze)
{
	const char *txt = tmp("settle.txt"), *frc = tmp("settle.frc");
	char body[16384];
	size_t n = 0;

	n += (size_t)snprintf(body + n, sizeof(body) - n, "attach 1000000000 7 sym\n");
	for (long long t = 1000; t <= 7000; t += t < 3000 ? 20 : 40) {
		if (t > 5000 && t < 6000)
			continue;
		n += (size_t)snprintf(body + n, sizeof(body) - n, "frame %lld 7 7 0x1000 0x10\n",
				      t * 1000000ll);
		if (t == 2080)
			n += (size_t)snprintf(body + n, sizeof(body) - n, "tick 2100000000\n");
	}
	spit(txt, body);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window", "--tracker", "content",
			    "--tick-ms", "250", "--synth-ticks", NULL),
			 0);
	ck_out_has("  frc-window      content          ");
	ck_out_has(" 250.000/250.000 (1, 0)\n");
	ck_out_has("  frc-window      content       250.000/250.000 (1, 0, 0, 0)");
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window", "--tracker", "content",
			    "--tick-ms", "250", "--synth-ticks", "--json", NULL),
			 0);
	ck_out_has("\"meter_ticks\": 21, ");
	ck_out_has("\"rate_changes\": 1, \"unsettled\": 0, \"settle_mean_ms\": 250.000, "
		   "\"settle_max_ms\": 250.000, \"freezes\": 1, \"freezes_shown\": 1, "
		   "\"freezes_missed\": 0, \"freezes_late\": 0, \"freezes_unseen\": 0, "
		   "\"freeze_show_mean_ms\": 250.000");
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window", "--tracker", "content",
			    "--tick-ms", "1000", "--synth-ticks", "--json", NULL),
			 0);
	ck_out_has("\"freezes\": 1, \"freezes_shown\": 0, \"freezes_missed\": 0, "
		   "\"freezes_late\": 0, \"freezes_unseen\": 1, ");
	/* the recorded tick alone, without --synth-ticks */
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window", "--tracker", "content",
			    "--tick-ms", "250", "--json", NULL),
			 0);
	ck_out_has("\"meter_ticks\": 1, ");
}
END_TEST

/*
 * A steady cadence is no rate change (REPORT.md "Score", settle): one surface, frame times
 * 20, 20, 40 ms by turns (37.5 FPS, a display showing frames for one and two vsyncs) from
 * 1.00 to 5.00 s, with one hitch: the frame after 2.96 s comes at 3.16 s (200 ms). At
 * --tick-ms 250 the frame times in the last 0.5 s (worked out tick by tick, 2.00 .. 5.00 s):
 * 19 (13 of 20, 6 of 40: 500 ms), 18 (12 and 6: 480 ms) or 19 (12 and 7: 520 ms), and at
 * 3.25 and 3.50 s the hitch among 13 and 14 (520 and 540 ms besides it); the median is 20
 * each time, so the hitch (over 50) is left out: 38.000, 37.500, 36.538, 37.500 (3.25 s),
 * 38.235 (3.50 s) FPS, never 5 % apart: no movement, no rate change. An interquartile mean
 * (the middle half) reads 42.308, 41.667, 39.286, 38.889 and 40.000 at those ticks: 41.667
 * to 38.889 at 3.25 s is a movement (6.7 %), 40.000 to 42.308 at 3.75 s another, ending
 * 5.8 % from where it began: a rate change that never was.
 */
START_TEST(score_settle_cadence)
{
	static const int pattern[3] = {20, 20, 40};
	const char *txt = tmp("cadence.txt"), *frc = tmp("cadence.frc");
	char body[16384];
	size_t n = 0;
	int k = 0;

	n += (size_t)snprintf(body + n, sizeof(body) - n, "attach 1000000000 7 sym\n");
	for (long long t = 1000; t <= 5000; t += t == 2960 ? 200 : pattern[k++ % 3])
		n += (size_t)snprintf(body + n, sizeof(body) - n, "frame %lld 7 7 0x1000 0x10\n",
				      t * 1000000ll);
	spit(txt, body);
	ck_assert_int_eq(fa("import", txt, "-o", frc, NULL), 0);
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window", "--tracker", "content",
			    "--tick-ms", "250", "--synth-ticks", "--json", NULL),
			 0);
	ck_out_has("\"rate_changes\": 0, \"unsettled\": 0, \"settle_mean_ms\": null");
}
END_TEST

START_TEST(score_usage)
{
	const char *frc = hand_frc(), *bad = tmp("bad.frc");

	ck_assert_int_eq(fa("score", NULL), 2);
	ck_err_has("expected at least one capture");
	ck_assert_int_eq(fa("score", frc, "--tracker", "kala,nope", NULL), 2);
	ck_err_has("frameanalyze score: --tracker: unknown tracker 'nope' (known: all, kala, "
		   "surface, process, main-surface, content)");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_int_eq(fa("score", frc, "--tracker", ",", NULL), 2);
	ck_assert_int_eq(fa("score", frc, "--tracker", "kala,,surface", NULL), 2);
	ck_err_has("unknown tracker ''");
	ck_assert_int_eq(fa("score", frc, "--tracker", "all,kala", NULL), 2);
	ck_err_has("--tracker: 'all' stands alone, not in a list");
	ck_assert_int_eq(fa("score", frc, "--tracker", "kala,surface,kala", NULL), 2);
	ck_err_has("--tracker: 'kala' given twice");
	ck_assert_int_eq(fa("score", frc, "--bogus", NULL), 2);
	ck_assert_int_eq(fa("score", frc, "--tick-ms", "0", NULL), 2);
	ck_assert_int_eq(fa("help", "score", NULL), 0);
	ck_out_has("usage: frameanalyze score CAPTURE... [--tracker all|NAME,...] [--meter "
		   "all|NAME,...]");
	ck_out_has("examples:");
	ck_assert_int_eq(fa("score", frc, "--meter", "frc-window,nope", NULL), 2);
	ck_err_has("frameanalyze score: --meter: unknown meter 'nope' (known: all, auriya-10fe7c6, "
		   "auriya-ccafd78, frc-window)");
	ck_assert_int_eq(fa("--help", NULL), 0);
	ck_out_has("  score    trackers vs the truth");
	/* not a capture: exit 1, one line naming the file, nothing on stdout */
	spit(bad, "not a capture\n");
	ck_assert_int_eq(fa("score", frc, bad, NULL), 1);
	ck_err_has("bad.frc");
	ck_assert_int_eq(count_lines(err_text), 1);
	ck_assert_msg(out_text[0] == 0, "stdout after a failed score: %s", out_text);
	ck_assert_int_eq(fa("score", "--json", frc, bad, NULL), 1);
	ck_assert_msg(out_text[0] == 0, "stdout after a failed score --json: %s", out_text);
	/* scoring is not pass/fail: a capture with janks and errors still exits 0 */
	ck_assert_int_eq(fa("score", frc, NULL), 0);
	ck_out_has("all 1 captures pooled");
}
END_TEST

/*
 * Two surfaces of one PID, in memory (no capture format carries the surface yet): surface
 * A = 0x1000 calls at 1e9 + k T (k = 0..240, T = 16666667 ns), surface B = 0x2000 at
 * 1e9 + b(k) for k = 0..n_b - 1; 3 buffers each. Merged in time order.
 */
static size_t two_surfaces(struct frc_record *recs, uint64_t (*b)(unsigned), unsigned n_b)
{
	unsigned ka = 0, kb = 0;
	size_t n = 0;

	while (ka <= 240 || kb < n_b) {
		uint64_t ta = 1000000000ull + ka * 16666667ull, tb = 1000000000ull + b(kb);
		bool a = kb >= n_b || (ka <= 240 && ta < tb);
		struct frc_record *r = &recs[n++];

		memset(r, 0, sizeof(*r));
		r->type = FRC_FRAME;
		r->ktime_ns = a ? ta : tb;
		r->u.frame.pid = 42;
		r->u.frame.tid = a ? 42 : 43;
		r->u.frame.surface = a ? 0x1000 : 0x2000;
		r->u.frame.buffer = (a ? 0xA000 : 0xF000) + 0x1000 * ((a ? ka++ : kb++) % 3);
	}
	return n;
}

static uint64_t overlay_10fps(unsigned j)
{
	return 5000000ull + j * 100000000ull;
}

static uint64_t equal_rate_jitter(unsigned k)
{
	return k * 16666667ull + 3000000ull - (k % 3) * 1000000ull;
}

static void score_mem(const struct frc_record *recs, size_t n, struct score_result *res)
{
	static const char *const names[] = {"surface", "process", "main-surface"};
	struct replay_source src = {.path = "memory", .recs = recs, .n = n};
	struct score_capture cap;
	char err[256];

	ck_assert_int_eq(score_capture(&src, NULL, names, 3, &cap, res, err, sizeof(err)), 0);
	ck_assert_uint_eq(cap.pid, 42);
	ck_assert_uint_eq(cap.surfaces, 2);
	for (int i = 0; i < 3; i++) {
		/* The truth: A's 241 calls; windows 0..3 hold 59, 60, 60, 60 of its intervals
		 * (as in score_exact_triple_60hz): 239 in 4 full windows. */
		ck_assert_uint_eq(res[i].windows, 4);
		ck_assert_uint_eq(res[i].truth_frames, 239);
	}
	/* main-surface reports exactly A's intervals */
	ck_assert_uint_eq(res[2].est_frames, 239);
	ck_assert_uint_eq(res[2].abs_err_frames, 0);
	ck_assert_uint_eq(res[2].est_p[0], res[2].truth_p[0]);
	ck_assert_uint_eq(res[2].est_p[2], res[2].truth_p[2]);
}

/*
 * Overlay: B is a 10 fps overlay at 5 ms + j * 100 ms (j = 0..39), 10 calls in each window;
 * A (241 calls) is the main surface. process: every call but the first: 60 + 10 - 1 = 69 in
 * window 0, 70 in windows 1..3: 279 (error +40 = +16.7 %, |error| 10 per window: 40).
 * surface: A always has more deltas (B at most 39), so only A reports: exact, as ours.
 */
START_TEST(score_in_memory_overlay)
{
	static struct frc_record recs[400];
	struct score_result res[3];

	score_mem(recs, two_surfaces(recs, overlay_10fps, 40), res);
	ck_assert_uint_eq(res[0].est_frames, 239);
	ck_assert_uint_eq(res[0].abs_err_frames, 0);
	ck_assert_uint_eq(res[1].est_frames, 279);
	ck_assert_uint_eq(res[1].abs_err_frames, 40);
	ck_assert_uint_eq(res[1].worst_err, 10);
}
END_TEST

/*
 * Two surfaces at the same rate: B at k T + 3 ms - (k % 3) ms (k = 0..240); both have 241
 * calls: the truth's tie rule picks A (the smaller value), and so does ours.
 * surface (Kala's rule on surfaces): at B's k-th call both have k deltas, B's sum is
 * k T - (k % 3) ms, A's k T: B is active (reports) when k % 3 != 0, until the rings are
 * full (k = 144: then both sums are 144 T and A wins the tie). B reports for k in 1..143,
 * k % 3 != 0: windows 0 (k 1..59): 40, 1 (60..119): 40, 2 (120..143): 16 = 96 extra:
 * 335 frames, |error| 40 + 40 + 16 + 0 = 96. process: both surfaces' calls but the first:
 * 119 + 120 * 3 = 479, |error| 60 per window = 240.
 */
START_TEST(score_in_memory_equal_rate)
{
	static struct frc_record recs[600];
	struct score_result res[3];

	score_mem(recs, two_surfaces(recs, equal_rate_jitter, 241), res);
	ck_assert_uint_eq(res[0].est_frames, 335);
	ck_assert_uint_eq(res[0].abs_err_frames, 96);
	ck_assert_uint_eq(res[1].est_frames, 479);
	ck_assert_uint_eq(res[1].abs_err_frames, 240);
}
END_TEST

int main(int argc, char **argv)
{
#if defined(__SANITIZE_ADDRESS__)
	/* Before Check forks: its child's exit code would be a failure, not a skip. */
	if (argc > 1 && !strcmp(argv[1], "report_memory_bounded")) {
		fprintf(stderr, "SKIP: resident size is not meaningful under AddressSanitizer\n");
		return 77;
	}
#endif
	/* the kernel's per-process I/O counts (CONFIG_TASK_IO_ACCOUNTING) may be absent */
	if (argc > 1 && !strcmp(argv[1], "report_reads_capture_twice") &&
	    access("/proc/self/io", R_OK) != 0) {
		fprintf(stderr, "SKIP: no /proc/self/io to count the bytes read\n");
		return 77;
	}
	/* automatic, not static: START_TEST's names are pointer variables, not constants */
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
	    FRC_CASE("sha256_vectors", sha256_vectors),
	    FRC_CASE("diff_unified", diff_unified_case),
	    FRC_CASE("diff_identical", diff_identical),
	    FRC_CASE("pidmap_bounded", pidmap_bounded),
	    FRC_CASE("usage_errors", usage_errors),
	    FRC_CASE("help_and_version", help_and_version),
	    FRC_CASE("import_errors", import_errors),
	    FRC_CASE("export_import_roundtrip", export_import_roundtrip),
	    FRC_CASE("info_fields", info_fields),
	    FRC_CASE("info_lists_geometry", info_lists_geometry),
	    FRC_CASE("report_text_hand", report_text_hand),
	    FRC_CASE("report_json_hand", report_json_hand),
	    FRC_CASE("report_fidelity_mismatch", report_fidelity_mismatch),
	    FRC_CASE("report_tick_ms", report_tick_ms),
	    FRC_CASE("report_truncated", report_truncated),
	    FRC_CASE("report_corrupt", report_corrupt),
	    FRC_CASE("report_every_cut", report_every_cut),
	    FRC_CASE("report_not_capture", report_not_capture),
	    FRC_CASE("real_capture_fidelity", real_capture_fidelity),
	    FRC_CASE("db_contents", db_contents),
	    FRC_CASE("out_of_order_counted", out_of_order_counted),
	    FRC_CASE("db_surfaces", db_surfaces),
	    FRC_CASE("report_memory_bounded", report_memory_bounded),
	    FRC_CASE("report_reads_capture_twice", report_reads_capture_twice),
	    FRC_CASE("db_synth_ticks_bounded", db_synth_ticks_bounded),
	    FRC_CASE("db_replaces_same_capture", db_replaces_same_capture),
	    FRC_CASE("db_refuses_foreign_schema", db_refuses_foreign_schema),
	    FRC_CASE("db_corrupt_input_stores_nothing", db_corrupt_input_stores_nothing),
	    FRC_CASE("report_recovered_chunk", report_recovered_chunk),
	    FRC_CASE("report_recovered_footer", report_recovered_footer),
	    FRC_CASE("golden_check_diff", golden_check_diff),
	    FRC_CASE("golden_stable_across_paths", golden_stable_across_paths),
	    FRC_CASE("golden_shows_submissions", golden_shows_submissions),
	    FRC_CASE("import_error_escaped", import_error_escaped),
	    FRC_CASE("special_files_refused", special_files_refused),
	    FRC_CASE("db_nothing_stored_leaves_no_file", db_nothing_stored_leaves_no_file),
	    FRC_CASE("info_no_frames", info_no_frames),
	    FRC_CASE("help_examples_literal", help_examples_literal),
	    FRC_CASE("check_golden_directory", check_golden_directory),
	    FRC_CASE("golden_truncated_warns", golden_truncated_warns),
	    FRC_CASE("metadata_escaped_in_output", metadata_escaped_in_output),
	    FRC_CASE("stdout_write_error", stdout_write_error),
	    FRC_CASE("report_loss_no_overflow", report_loss_no_overflow),
	    FRC_CASE("report_huge_deltas_no_wrap", report_huge_deltas_no_wrap),
	    FRC_CASE("import_help_options", import_help_options),
	    FRC_CASE("db_waits_for_lock", db_waits_for_lock),
	    FRC_CASE("export_warns_unknown_records", export_warns_unknown_records),
	    FRC_CASE("long_paths_keep_message", long_paths_keep_message),
	    FRC_CASE("check_crlf_golden_explained", check_crlf_golden_explained),
	    FRC_CASE("db_concurrent_runs_keep_data", db_concurrent_runs_keep_data),
	    FRC_CASE("errors_name_file_and_range", errors_name_file_and_range),
	    FRC_CASE("import_long_line_refused_early", import_long_line_refused_early),
	    FRC_CASE("import_sigint_leaves_no_tmp", import_sigint_leaves_no_tmp),
	    FRC_CASE("score_exact_triple_60hz", score_exact_triple_60hz),
	    FRC_CASE("score_fixtures_truth", score_fixtures_truth),
	    FRC_CASE("score_text_100_columns", score_text_100_columns),
	    FRC_CASE("window_report", window_report),
	    FRC_CASE("window_score_compare", window_score_compare),
	    FRC_CASE("window_db_perfetto", window_db_perfetto),
	    FRC_CASE("window_usage", window_usage),
	    FRC_CASE("score_usage", score_usage),
	    FRC_CASE("unknown_recorded_tracker", unknown_recorded_tracker),
	    FRC_CASE("bad_target_pid_metadata", bad_target_pid_metadata),
	    FRC_CASE("meter_option", meter_option),
	    FRC_CASE("score_settle_freeze", score_settle_freeze),
	    FRC_CASE("score_settle_cadence", score_settle_cadence),
	    FRC_CASE("score_in_memory_overlay", score_in_memory_overlay),
	    FRC_CASE("score_in_memory_equal_rate", score_in_memory_equal_rate),
	    FRC_CASE("db_sigint_leaves_no_file", db_sigint_leaves_no_file),
	    FRC_CASE("escape_unit", escape_unit),
	    FRC_CASE("select_matches_sort", select_matches_sort),
	};
	Suite *s = suite_create("analyzer");
	SRunner *sr;
	int failed, found = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
		found++;
	}
	if (!found) {
		fprintf(stderr, "test_analyzer: no case named '%s'\n", argv[1]);
		return 2;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
