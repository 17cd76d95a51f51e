/* SPDX-License-Identifier: MIT */
/*
 * commands.h - frameanalyze's subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand name) and returns the process exit code:
 * 0 ok, 1 the input is damaged or invalid (or a check failed), 2 usage error.
 */
#ifndef FRAMEANALYZE_COMMANDS_H
#define FRAMEANALYZE_COMMANDS_H

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

int cmd_import(int argc, char **argv);	 /* text form -> capture */
int cmd_export(int argc, char **argv);	 /* capture -> text form */
int cmd_info(int argc, char **argv);	 /* what a capture holds */
int cmd_db(int argc, char **argv);	 /* captures -> SQLite */
int cmd_report(int argc, char **argv);	 /* replay -> report for people or JSON */
int cmd_golden(int argc, char **argv);	 /* replay -> canonical golden text */
int cmd_check(int argc, char **argv);	 /* replay vs an expected golden file */
int cmd_score(int argc, char **argv);	 /* tracker variants vs the capture's submissions */
int cmd_perfetto(int argc, char **argv); /* capture -> Perfetto trace */
int cmd_compare(int argc, char **argv);	 /* two captures side by side, CI gates */

#endif
