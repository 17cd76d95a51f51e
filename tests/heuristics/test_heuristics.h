/* SPDX-License-Identifier: MIT */
#ifndef TEST_HEURISTICS_H
#define TEST_HEURISTICS_H

#include <check.h>

void add_tracker_cases(Suite *s);
void add_meter_cases(Suite *s);
void add_pipeline_cases(Suite *s);
void add_variant_cases(Suite *s);

/* Adds a case named `name` holding the one test function `fn`. */
#define ADD_CASE(s, name, fn)                                                                      \
	do {                                                                                       \
		TCase *tc_ = tcase_create(name);                                                   \
		tcase_add_test(tc_, fn);                                                           \
		suite_add_tcase(s, tc_);                                                           \
	} while (0)

#endif
