/* SPDX-License-Identifier: MIT */
/*
 * test_main.c - runs one heuristics test case, named on the command line.
 *
 * CTest registers every case as its own test (heuristics.<case>), so a failure names the
 * behaviour. A name that matches no case fails instead of passing with nothing run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test_heuristics.h"

int main(int argc, char **argv)
{
	Suite *s = suite_create("heuristics");
	SRunner *sr;
	int run, failed;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CASE\n", argv[0]);
		return 2;
	}
	add_tracker_cases(s);
	add_meter_cases(s);
	add_pipeline_cases(s);
	add_variant_cases(s);
	add_meter_kind_cases(s);
	sr = srunner_create(s);
	srunner_run(sr, NULL, argv[1], CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (run == 0) {
		fprintf(stderr, "no test case named '%s'\n", argv[1]);
		return 1;
	}
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
