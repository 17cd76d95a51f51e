/* SPDX-License-Identifier: MIT */
/*
 * signals.h - temporary files vs. SIGINT/SIGTERM/SIGHUP: a program that is stopped leaves
 * none behind. Owns nothing else; includes nothing of the analyzer.
 */
#ifndef FRAMEANALYZE_SIGNALS_H
#define FRAMEANALYZE_SIGNALS_H

#include <signal.h>

/*
 * Remove path (a temporary output file) and also (its companion, e.g. an SQLite journal;
 * may be NULL) if SIGINT/SIGTERM/SIGHUP ends the program, then die of that signal; path
 * NULL disarms and restores the default action. One pair at a time.
 */
void sig_unlink_on_stop(const char *path, const char *also);

/*
 * Note SIGINT/SIGTERM/SIGHUP in the returned flag instead of dying at once (for work that
 * cleans up after itself when the flag is set); sig_end_stop() restores the default and
 * dies of the signal that was noted, if any.
 */
volatile sig_atomic_t *sig_catch_stop(void);
void sig_end_stop(void);

#endif
