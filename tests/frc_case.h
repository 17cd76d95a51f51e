/* SPDX-License-Identifier: MIT */
/*
 * frc_case.h - how a test binary lists its cases: one FRC_CASE("name", fn, ...) line each
 * in its table. CMake reads those same lines (cmake/FrcTests.cmake, frc_check_cases) and
 * registers every case as its own CTest test, so a case is listed once, in its C file.
 */
#ifndef FRC_CASE_H
#define FRC_CASE_H

#define FRC_CASE(name, ...)                                                                        \
	{                                                                                          \
		name, __VA_ARGS__                                                                  \
	}

#endif
