/* SPDX-License-Identifier: MIT */
/*
 * test_target.c - the target process (heuristics/target.h): which PID the truth and the
 * content tracker follow. Every expectation is written out by hand from the scenario.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "frc_case_run.h"
#include "target.h"

static struct target *t;

static bool rec_attach(uint32_t pid)
{
	struct frc_record r = {.type = FRC_ATTACH, .u.attach = {.pid = pid}};
	return target_record(t, &r);
}

static bool rec_exit(uint32_t pid)
{
	struct frc_record r = {.type = FRC_EXIT, .u.exit = {.pid = pid}};
	return target_record(t, &r);
}

static bool rec_frame(uint32_t pid)
{
	struct frc_record r = {.type = FRC_FRAME, .u.frame = {.pid = pid, .tid = pid}};
	return target_record(t, &r);
}

START_TEST(target_from_metadata)
{
	ck_assert_int_eq(target_new(&t, "4242"), 0);
	ck_assert(target_known(t));
	ck_assert_uint_eq(target_pid(t), 4242);
	/* framerec's own attach records (one per symbol) for the start's target change nothing */
	ck_assert(!rec_attach(4242));
	ck_assert(!rec_attach(4242));
	ck_assert(!rec_frame(4242));
	/* another process's frames (recorded alongside) never make it the target */
	ck_assert(!rec_frame(777));
	ck_assert(!rec_frame(777));
	ck_assert_uint_eq(target_pid(t), 4242);
	target_free(t);
}
END_TEST

START_TEST(target_first_listed_that_draws)
{
	ck_assert_int_eq(target_new(&t, "10,20"), 0);
	ck_assert_uint_eq(target_pid(t), 10);
	/* 20 draws first: a target that draws beats one that does not (yet) */
	ck_assert(rec_frame(20));
	ck_assert_uint_eq(target_pid(t), 20);
	/* then 10 draws: the first listed wins */
	ck_assert(rec_frame(10));
	ck_assert_uint_eq(target_pid(t), 10);
	ck_assert(!rec_frame(20));
	/* 10 exits: 20 again */
	ck_assert(rec_exit(10));
	ck_assert_uint_eq(target_pid(t), 20);
	target_free(t);
}
END_TEST

START_TEST(target_launcher_then_game)
{
	ck_assert_int_eq(target_new(&t, "300"), 0); /* the launcher */
	ck_assert(!rec_attach(300));
	for (int i = 0; i < 100; i++)
		ck_assert(!rec_frame(300));
	/* framerec follows the game: attached, not yet drawing: the launcher stays */
	ck_assert(!rec_attach(400));
	ck_assert_uint_eq(target_pid(t), 300);
	ck_assert(!rec_frame(300));
	/* the game's first frame switches the target */
	ck_assert(rec_frame(400));
	ck_assert_uint_eq(target_pid(t), 400);
	ck_assert(!rec_frame(300));
	ck_assert_uint_eq(target_pid(t), 400);
	target_free(t);
}
END_TEST

START_TEST(target_follows_restart)
{
	ck_assert_int_eq(target_new(&t, "2000"), 0);
	ck_assert(!rec_frame(2000));
	ck_assert(rec_exit(2000));
	ck_assert_uint_eq(target_pid(t), 0);
	ck_assert(rec_attach(2050));
	ck_assert_uint_eq(target_pid(t), 2050);
	ck_assert(!rec_frame(2050));
	/* the old PID reused by a new process framerec attached again: the newest */
	ck_assert(!rec_attach(2000));
	ck_assert_uint_eq(target_pid(t), 2050); /* 2000 has not drawn yet */
	ck_assert(rec_frame(2000));
	ck_assert_uint_eq(target_pid(t), 2000);
	target_free(t);
}
END_TEST

START_TEST(target_attach_without_metadata)
{
	ck_assert_int_eq(target_new(&t, NULL), 0);
	ck_assert(!target_known(t));
	ck_assert_uint_eq(target_pid(t), 0);
	ck_assert(!rec_frame(5)); /* no target: the caller's own rule */
	ck_assert(rec_attach(6));
	ck_assert(target_known(t));
	ck_assert_uint_eq(target_pid(t), 6);
	target_free(t);
}
END_TEST

START_TEST(target_bad_metadata)
{
	static const char *const bad[] = {
	    "",	   "0",	 "12,", ",12",	      "12,,13",
	    "12x", "-5", " 12", "4294967296", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = (struct target *)1;
		ck_assert_msg(target_new(&t, bad[i]) == -EINVAL, "accepted \"%s\"", bad[i]);
		ck_assert_ptr_null(t);
	}
	ck_assert_int_eq(target_new(&t, "4294967295,1"), 0);
	ck_assert_uint_eq(target_pid(t), 4294967295u);
	target_free(t);
}
END_TEST

START_TEST(target_bounded)
{
	ck_assert_int_eq(target_new(&t, "1"), 0);
	/* far more followed processes than are remembered: the last one attached and drawing */
	for (uint32_t pid = 100; pid < 100 + 10 * TARGET_MAX; pid++) {
		rec_attach(pid);
		rec_frame(pid);
		if (pid % 3)
			rec_exit(pid);
	}
	/* 739 = 3 * 246 + 1 exited; 738 is the last one alive */
	ck_assert_uint_eq(10 * TARGET_MAX, 640);
	ck_assert_uint_eq(target_pid(t), 738);
	target_free(t);
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("target_from_metadata", target_from_metadata, 30),
	    FRC_CASE("target_first_listed_that_draws", target_first_listed_that_draws, 30),
	    FRC_CASE("target_launcher_then_game", target_launcher_then_game, 30),
	    FRC_CASE("target_follows_restart", target_follows_restart, 30),
	    FRC_CASE("target_attach_without_metadata", target_attach_without_metadata, 30),
	    FRC_CASE("target_bad_metadata", target_bad_metadata, 30),
	    FRC_CASE("target_bounded", target_bounded, 30),
	};

	return frc_case_run("target", cases, FRC_NCASES(cases), argc, argv);
}
