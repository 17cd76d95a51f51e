/* SPDX-License-Identifier: MIT */
/*
 * frc_case_run.h - what the main() of a Check test binary does with its FRC_CASE table
 * (frc_case.h; a table in main(), as Check's test handles are not constants): run the case
 * named by argv[1] (CTest runs each case as its own test), or all of them without an
 * argument; a name that matches no case is an error, never a pass.
 */
#ifndef FRC_CASE_RUN_H
#define FRC_CASE_RUN_H

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "frc_case.h"

struct frc_case {
	const char *name;
	const TTest *test;
	int timeout; /* seconds; 0: Check's default */
};

static inline int frc_case_run(const char *suite, const struct frc_case *cases, size_t n, int argc,
			       char **argv)
{
	Suite *s = suite_create(suite);
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name))
			continue;
		TCase *tc = tcase_create(cases[i].name);
		if (cases[i].timeout)
			tcase_set_timeout(tc, cases[i].timeout);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
		found = 1;
	}
	if (!found) {
		fprintf(stderr, "%s: no case '%s'\n", suite, argc > 1 ? argv[1] : "");
		return 2;
	}
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#define FRC_NCASES(cases) (sizeof(cases) / sizeof((cases)[0]))

#endif /* FRC_CASE_RUN_H */
