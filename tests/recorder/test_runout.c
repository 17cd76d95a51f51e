/* SPDX-License-Identifier: MIT */
/*
 * test_runout.c - recorder/runout.c on real processes: output taken whole, arguments with
 * spaces kept whole (SurfaceFlinger's layer names on Android 11), a hung helper killed at
 * its deadline, a flooding one at its cap, a missing one named.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frc_case_run.h"
#include "runout.h"

static char buf[65536];

START_TEST(runout_collects)
{
	char *argv[] = {"sh", "-c", "printf '%s|' \"$@\"; exit 3", "sh", "SurfaceView - a/b#0",
			"x",  NULL};
	struct runout ro;

	ck_assert_int_eq(runout("/bin/sh", argv, 5000, buf, sizeof(buf), &ro), 0);
	ck_assert_str_eq(buf, "SurfaceView - a/b#0|x|");
	ck_assert_uint_eq(ro.len, strlen("SurfaceView - a/b#0|x|"));
	ck_assert_int_eq(ro.exit_code, 3);

	/* stderr is not taken, stdin is empty */
	char *argv2[] = {"sh", "-c", "echo err >&2; cat; echo out", NULL};
	ck_assert_int_eq(runout("/bin/sh", argv2, 5000, buf, sizeof(buf), &ro), 0);
	ck_assert_str_eq(buf, "out\n");
	ck_assert_int_eq(ro.exit_code, 0);
}
END_TEST

START_TEST(runout_deadline)
{
	char *argv[] = {"sh", "-c", "echo started; exec sleep 30", NULL};
	struct runout ro;

	ck_assert_int_eq(runout("/bin/sh", argv, 300, buf, sizeof(buf), &ro), -ETIMEDOUT);
	ck_assert_str_eq(buf, "started\n"); /* what came before the deadline is kept */
	ck_assert_int_eq(ro.exit_code, 128 + 9);
	ck_assert_uint_ge(ro.wall_ns, 300000000u);
	ck_assert_uint_lt(ro.wall_ns, 3000000000u);
}
END_TEST

START_TEST(runout_cap)
{
	char *argv[] = {"sh", "-c", "exec yes", NULL};
	struct runout ro;

	ck_assert_int_eq(runout("/bin/sh", argv, 5000, buf, 4097, &ro), -EFBIG);
	ck_assert_uint_eq(ro.len, 4096);
	ck_assert_int_eq(buf[4096], '\0');
	ck_assert_int_eq(ro.exit_code, 128 + 9);

	/* Exactly cap - 1 bytes fit. */
	char *argv2[] = {"sh", "-c", "head -c 4096 /dev/zero | tr '\\0' a", NULL};
	ck_assert_int_eq(runout("/bin/sh", argv2, 5000, buf, 4097, &ro), 0);
	ck_assert_uint_eq(ro.len, 4096);
	ck_assert_int_eq(buf[4095], 'a');
}
END_TEST

START_TEST(runout_missing)
{
	char *argv[] = {"dumpsys", "SurfaceFlinger", "--list", NULL};
	struct runout ro;

	ck_assert_int_eq(runout("/nonexistent/dumpsys", argv, 1000, buf, sizeof(buf), &ro),
			 -ENOENT);
	ck_assert_uint_eq(ro.len, 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("runout_collects", runout_collects, 30),
	    FRC_CASE("runout_deadline", runout_deadline, 30),
	    FRC_CASE("runout_cap", runout_cap, 30),
	    FRC_CASE("runout_missing", runout_missing, 30),
	};

	return frc_case_run("runout", cases, FRC_NCASES(cases), argc, argv);
}
