/* SPDX-License-Identifier: MIT */
#ifndef TEST_HEURISTICS_H
#define TEST_HEURISTICS_H

#include <check.h>

void add_tracker_cases(Suite *s);
void add_meter_cases(Suite *s);
void add_pipeline_cases(Suite *s);
void add_variant_cases(Suite *s);
void add_meter_kind_cases(Suite *s);

/*
 * Adds a case named `name` holding the one test function `fn`. Check's default 4 s is too
 * short for the long cases under qemu-aarch64 on a loaded machine (the arm64 stage runs
 * them emulated); CTest's own timeout (60 s) still bounds a hang.
 */
#define ADD_CASE(s, name, fn)                                                                      \
	do {                                                                                       \
		TCase *tc_ = tcase_create(name);                                                   \
		tcase_set_timeout(tc_, 50);                                                        \
		tcase_add_test(tc_, fn);                                                           \
		suite_add_tcase(s, tc_);                                                           \
	} while (0)

#endif
