// SPDX-License-Identifier: MIT
/*
 * plan.c - the attach plan (plan.h): target -> library -> symbols -> attach, the steps a
 * recording runs for every target and `framerec doctor` reports one line each.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frc_escape.h"
#include "plan.h"
#include "recorder.h"
#include "target.h"

const char *plan_step_name(enum plan_step s)
{
	switch (s) {
	case PLAN_TARGET:
		return "target";
	case PLAN_LIBRARY:
		return "library";
	case PLAN_SYMBOLS:
		return "symbols";
	case PLAN_BPF:
		return "bpf";
	case PLAN_ATTACH:
		return "attach";
	}
	return "?";
}

void plan_fail(char *err, size_t errlen, enum plan_step s, const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s: ", plan_step_name(s));
	va_list ap;

	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

const char *plan_reason(const char *err)
{
	const char *colon = strstr(err, ": ");

	return colon ? colon + 2 : err;
}

/*
 * A live process (not a zombie), named by its process id rather than a thread id (the
 * uprobe would follow that thread's life, not the process's, and frames carry the
 * process id), running user code (a uprobe on a kernel thread attaches fine and never
 * fires), 64-bit (the probe reads 64-bit argument registers).
 */
int plan_check_target(const struct plan *pl, char *err, size_t errlen)
{
	char comm[64];
	pid_t tgid;

	/* Every process (doctor without --pid), or our own child that has not exec'd. */
	if (pl->pid <= 0 || pl->child)
		return 0;
	if (!target_alive(pl->pid)) {
		plan_fail(err, errlen, PLAN_TARGET, "no process with PID %d", (int)pl->pid);
		return -ESRCH;
	}
	tgid = target_tgid(pl->pid);
	if (tgid && tgid != pl->pid) {
		char shown[512]; /* the process names itself: escaped (frc_escape.h) */

		target_cmdline(tgid, comm, sizeof(comm));
		plan_fail(err, errlen, PLAN_TARGET,
			  "PID %d is a thread of process %d (%s): use --pid %d", (int)pl->pid,
			  (int)tgid, frc_escape_str(comm, shown, sizeof(shown)), (int)tgid);
		return -EINVAL;
	}
	if (target_is_kthread(pl->pid, comm, sizeof(comm))) {
		plan_fail(err, errlen, PLAN_TARGET,
			  "PID %d (%s) is a kernel thread: it runs no user code to probe",
			  (int)pl->pid, comm);
		return -EINVAL;
	}
	if (target_is_32bit(pl->pid) == 1) {
		plan_fail(err, errlen, PLAN_TARGET,
			  "PID %d is a 32-bit process (/system/lib/libgui.so); framerec records "
			  "64-bit processes only for now",
			  (int)pl->pid);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * Where a libgui.so may come from when no --lib names it. framerec runs as root and parses
 * the file with libelf, and an app can map any file it likes under that name (a crafted
 * libgui.so in its data directory): without an explicit choice only the read-only system
 * partitions, which an app cannot write, are trusted.
 */
static const char *const system_dirs[] = {"/system/", "/system_ext/", "/vendor/", "/product/",
					  "/apex/"};

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * A mapped library may be opened (target_lib_ok for target_mapped_lib): it lies on a system
 * partition (as the target sees its path), or is the very file of FR_DEFAULT_LIB, or of
 * --lib (the user's choice; ctx is the plan).
 */
static bool lib_trusted(const char *map, const char *open, void *ctx)
{
	const struct plan *pl = ctx;

	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (strncmp(map, system_dirs[i], strlen(system_dirs[i])) == 0)
			return true;
	return same_file(open, FR_DEFAULT_LIB) || (pl->lib && same_file(open, pl->lib));
}

/* The refusal of a mapped library lib_trusted rejects: named, with the way to choose it. */
static int refuse_mapped(const struct plan *pl, char *err, size_t errlen)
{
	char shown[4 * PATH_MAX + 1]; /* the path comes from the target: escaped */

	frc_escape_str(pl->lib_shown, shown, sizeof(shown));
	if (pl->lib)
		plan_fail(err, errlen, PLAN_LIBRARY,
			  "PID %d maps %s, which is not the --lib file %s and not on a system "
			  "partition (/system, /system_ext, /vendor, /product, /apex): not opened",
			  (int)pl->pid, shown, pl->lib);
	else
		plan_fail(
		    err, errlen, PLAN_LIBRARY,
		    "PID %d maps %s, which is not on a system partition (/system, "
		    "/system_ext, /vendor, /product, /apex): not opened (framerec would parse "
		    "it as root); if it is the library to record, choose it with --lib PATH",
		    (int)pl->pid, shown);
	return -EPERM;
}

/*
 * The library the target really maps (opened through /proc/PID/root when its mount
 * namespace differs), the first one lib_trusted takes, else --lib, else the default path.
 * -ENOENT when none can be read: a --package match may not have mapped it yet, and is
 * retried on that code; -EPERM for a mapped library that is not trusted.
 */
int plan_pick_library(struct plan *pl, char *err, size_t errlen)
{
	const char *want = pl->lib ? pl->lib : FR_DEFAULT_LIB;
	const char *base = strrchr(want, '/') ? strrchr(want, '/') + 1 : want;
	int ret = -ENOENT;

	pl->lib_mapped = false;
	/* A child has not exec'd yet: its maps are ours, so only the path can be used. */
	if (pl->pid > 0 && !pl->child)
		ret = target_mapped_lib(pl->pid, base, lib_trusted, pl, pl->lib_shown,
					sizeof(pl->lib_shown), pl->lib_path, sizeof(pl->lib_path));
	if (ret == -EPERM) {
		ret = refuse_mapped(pl, err, errlen);
		pl->lib_shown[0] = pl->lib_path[0] = '\0'; /* nothing to open */
		return ret;
	}
	if (ret == 0) {
		pl->lib_mapped = true;
		return 0;
	}
	if (access(want, R_OK) == 0) {
		snprintf(pl->lib_shown, sizeof(pl->lib_shown), "%s", want);
		snprintf(pl->lib_path, sizeof(pl->lib_path), "%s", want);
		return 0;
	}
	if (pl->pid <= 0 || pl->child)
		plan_fail(err, errlen, PLAN_LIBRARY, "%s: %s%s", want, strerror(errno),
			  pl->lib ? ""
			  : pl->child
			      ? " (with -- COMMAND the probe is attached before the command "
				"loads anything: name its libgui.so with --lib PATH)"
			      : " (name the library with --lib PATH)");
	else
		plan_fail(err, errlen, PLAN_LIBRARY, "PID %d: %s is not mapped and %s: %s%s",
			  (int)pl->pid, base, want, strerror(errno),
			  pl->lib ? "" : " (use --lib PATH to name the library)");
	return -ENOENT;
}

/*
 * The candidates in attach order; at least one that a recording uses on its own (a
 * single-buffer one, or the --symbol one) must be defined in the library.
 */
int plan_resolve_symbols(struct plan *pl, char *err, size_t errlen)
{
	char why[FRC_MSG_MAX];
	int ret;

	sym_list_free(&pl->syms);
	ret = sym_resolve(pl->lib_path, pl->symbol, &pl->syms, why, sizeof(why));
	if (ret) {
		plan_fail(err, errlen, PLAN_SYMBOLS, "%s", why);
		return ret;
	}
	for (size_t i = 0; i < pl->syms.n; i++)
		if (pl->syms.v[i].status == SYM_FOUND &&
		    (pl->syms.forced || pl->syms.v[i].kind != SYM_KIND_BATCH))
			return 0;
	sym_list_explain(&pl->syms, pl->lib_shown, why, sizeof(why));
	plan_fail(err, errlen, PLAN_SYMBOLS, "%s", why);
	return -ENOENT;
}

/* The first candidate the kernel accepts wins (probe.c marks each refusal and why). */
int plan_attach(struct plan *pl, struct probe *p, char *err, size_t errlen)
{
	char why[FRC_MSG_MAX];
	int ret = probe_attach(p, pl->pid, pl->lib_path, &pl->syms, &pl->chosen);

	if (ret == 0 && pl->chosen)
		return 0;
	sym_list_explain(&pl->syms, pl->lib_shown, why, sizeof(why));
	plan_fail(err, errlen, PLAN_ATTACH, "%s", why);
	return ret ? ret : -EALREADY;
}

int plan_load_probe(struct probe **out, unsigned ring_kib, probe_event_fn fn, void *ctx, char *err,
		    size_t errlen)
{
	char why[FRC_MSG_MAX];
	int ret = probe_open(out, ring_kib, fn, ctx, why, sizeof(why));

	if (ret)
		plan_fail(err, errlen, PLAN_BPF, "%s", why);
	return ret;
}

int plan_run(struct plan *pl, struct probe *p, char *err, size_t errlen)
{
	int ret = plan_check_target(pl, err, errlen);

	if (!ret)
		ret = plan_pick_library(pl, err, errlen);
	if (!ret)
		ret = plan_resolve_symbols(pl, err, errlen);
	if (!ret)
		ret = plan_attach(pl, p, err, errlen);
	return ret;
}

void plan_free(struct plan *pl)
{
	sym_list_free(&pl->syms);
	pl->chosen = NULL;
}
