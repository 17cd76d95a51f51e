/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - framerec's two commands and their options: what framerec.c parses and
 * hands to record.c (a recording) or doctor.c (`framerec doctor`).
 *
 * The recorder's modules each have their own header: probe.h (BPF), symbols.h (libelf),
 * target.h (/proc), sysfs.h, meta.h, plan.h (the attach plan recording and doctor share)
 * and recording.h (the state of one recording, shared by the files that run it).
 */
#ifndef RECORDER_H
#define RECORDER_H

#include <stdbool.h>
#include <sys/types.h>

#define FR_MAX_TARGETS 64
#define FR_DEFAULT_LIB "/system/lib64/libgui.so"
#define FR_DEFAULT_DUMPSYS "/system/bin/dumpsys"

/* The command line of a recording (framerec.c fills it). */
struct options {
	pid_t pids[FR_MAX_TARGETS];
	int n_pids;
	const char *package;
	bool wait;
	char **command; /* argv after "--", NULL-terminated, or NULL */
	const char *lib;
	const char *symbol;
	unsigned ring_kib;
	unsigned tick_ms;
	unsigned sysfs_ms;
	unsigned flush_ms;
	const char *sysfs;
	bool sysfs_only;
	const char *tracker; /* the live tracker variant (tracker_kind.h); NULL: the default */
	const char *meter;   /* the live meter variant (meter_kind.h); NULL: the default */
	const char *dumpsys; /* display capture's dumpsys; NULL: FR_DEFAULT_DUMPSYS */
	unsigned present_ms; /* its poll period; 0: from the display's (present.h) */
	bool no_present;     /* --no-present */
	double duration_s;   /* 0: until stopped */
	const char *output;
	bool force;
	bool quiet;
	bool verbose;
};

/* Run a recording (record.c). Returns the exit code (0 ok, 1 error). */
int record_main(const struct options *opt);

/* `framerec doctor ARGS` (doctor.c). Returns the exit code (0, 1, 2 usage). */
int doctor_main(int argc, char **argv);

#endif /* RECORDER_H */
