/* SPDX-License-Identifier: MIT */
/*
 * plan.h - the attach plan: the steps from a target process to a running uprobe.
 *
 *     target -> library -> symbols -> bpf -> attach
 *
 * A recording (targets.c) and `framerec doctor` run these very functions, so doctor
 * reports each step of the code a recording runs and cannot pass where a recording fails
 * (or the reverse). A failed step writes "STEP: why" into err; the step's name is the
 * word doctor prints on its line, so the two always name the same step.
 *
 * bpf is the one step that is not per target: a recording loads the program once
 * (probe_open) before its first target, doctor loads it on its "bpf" line.
 */
#ifndef PLAN_H
#define PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "probe.h"
#include "symbols.h"

enum plan_step {
	PLAN_TARGET,  /* the PID is a live 64-bit user process, not a thread id */
	PLAN_LIBRARY, /* the libgui.so it maps, else --lib, else the default path */
	PLAN_SYMBOLS, /* the library defines a queueBuffer symbol */
	PLAN_BPF,     /* framerec's BPF program and ring buffer load (probe_open) */
	PLAN_ATTACH,  /* the kernel accepts the uprobe on one of the symbols */
};

struct plan {
	/* What to attach (set by the caller). */
	pid_t pid;	    /* a process, or -1 (doctor without --pid): every process */
	bool child;	    /* framerec's -- COMMAND before exec: its maps are framerec's */
	const char *lib;    /* --lib, or NULL */
	const char *symbol; /* --symbol, or NULL: Kala's order */

	/* What the steps found. */
	char lib_shown[PATH_MAX]; /* the library as the target maps it (messages, metadata) */
	char lib_path[PATH_MAX];  /* the same file as framerec opens it */
	bool lib_mapped;	  /* found in /proc/PID/maps (else the --lib/default path) */
	struct sym_list syms;
	const struct sym_candidate *chosen; /* the symbol attached */
};

/* "target", "library", "symbols", "bpf", "attach": doctor's word for the step. */
const char *plan_step_name(enum plan_step s);

/* Write "STEP: why" into err (what every step does on failure). */
void plan_fail(char *err, size_t errlen, enum plan_step s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The why of a "STEP: why" message (doctor prints the step as its own column). */
const char *plan_reason(const char *err);

/* Each step: 0, or a negative errno with "STEP: why" in err. */
FRC_MUST_USE int plan_check_target(const struct plan *pl, char *err, size_t errlen);
FRC_MUST_USE int plan_pick_library(struct plan *pl, char *err, size_t errlen);
FRC_MUST_USE int plan_resolve_symbols(struct plan *pl, char *err, size_t errlen);
FRC_MUST_USE int plan_attach(struct plan *pl, struct probe *p, char *err, size_t errlen);

/* The bpf step: probe_open (framerec's program and its ring of ring_kib KiB). */
FRC_MUST_USE int plan_load_probe(struct probe **out, unsigned ring_kib, probe_event_fn fn,
				 void *ctx, char *err, size_t errlen);

/* target, library, symbols, attach in order (the probe is loaded already). */
FRC_MUST_USE int plan_run(struct plan *pl, struct probe *p, char *err, size_t errlen);

void plan_free(struct plan *pl);

#endif /* PLAN_H */
