/* SPDX-License-Identifier: MIT */
/*
 * target.h - what /proc says about a target process (target.c): liveness, thread group,
 * kernel thread, command line, package match, mapped library, 32-bit, pidfd.
 */
#ifndef TARGET_H
#define TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

/* 1: the process exists (and is not a zombie); 0: it does not. */
bool target_alive(pid_t pid);
/* A kernel thread (no user code: a uprobe on it never fires); comm gets its name. */
bool target_is_kthread(pid_t pid, char *comm, size_t comm_len);
/* The process (thread group) id of pid, which may be a thread id; 0 when unknown. */
pid_t target_tgid(pid_t pid);
/* argv joined with spaces; "" when unreadable. */
void target_cmdline(pid_t pid, char *buf, size_t len);
/*
 * A program's name: the last part of argv0 (up to a blank), a path's file name or an
 * Android package, into buf; "" when it does not fit. target_program: of pid's argv[0].
 */
void target_name_of(const char *argv0, char *buf, size_t len);
void target_program(pid_t pid, char *buf, size_t len);
/* PIDs whose argv[0] (or its basename) is name; returns the count (at most max). */
int target_find_package(const char *name, pid_t *out, int max);
/*
 * A mapped file's path as the target shows it (map) and as framerec can open it (open):
 * accept says whether that one may be used.
 */
typedef bool (*target_lib_ok)(const char *map, const char *open, void *ctx);
/*
 * The first mapped file in /proc/PID/maps whose basename is base and that accept (NULL:
 * any) takes, as a path framerec can open (through /proc/PID/root when the target's mount
 * namespace differs). 0; -EPERM when files of that name are mapped but accept took none
 * (the first of them is then in map_path/open_path); -ENOENT when none is mapped.
 */
FRC_MUST_USE int target_mapped_lib(pid_t pid, const char *base, target_lib_ok accept, void *ctx,
				   char *map_path, size_t map_len, char *open_path,
				   size_t open_len);
/* 1: the process is 32-bit (ELFCLASS32 exe); 0: 64-bit; -errno: unknown. */
int target_is_32bit(pid_t pid);
/*
 * How long ago pid started, in ms (from /proc/PID/stat's starttime). A
 * process found by --package ran that long before the probe was attached to it.
 * -errno when unknown (-ESRCH: no such process).
 */
int64_t target_age_ms(pid_t pid);
/* pidfd_open(), or -errno (-ENOSYS: the kernel has none; liveness is then polled). */
int target_pidfd(pid_t pid);

#endif /* TARGET_H */
