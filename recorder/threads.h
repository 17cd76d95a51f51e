/* SPDX-License-Identifier: MIT */
/*
 * threads.h - the names of the threads that queue frames (thread records, FORMAT.md 4.9).
 *
 * framerec keeps a set of the (PID, TID) pairs whose frames it has seen. The first frame
 * of a thread reads its name from PROC/PID/task/TID/comm (one file read per thread, off
 * the per-frame path: later frames cost one hash lookup), and a rescan on a timer reads
 * every known thread's name again so that a rename becomes a new record.
 */
#ifndef THREADS_H
#define THREADS_H

#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

/* Threads followed at most; past it a new thread's name is not recorded (counted). */
#define THREAD_NAMES_MAX 4096u

struct thread_names;

/* proc: the procfs root ("/proc"; tests give a directory of their own). 0 or -ENOMEM. */
FRC_MUST_USE int thread_names_new(struct thread_names **out, const char *proc);
void thread_names_free(struct thread_names *t);

/*
 * A frame of pid/tid at ktime. Returns 1 with *rec the thread record to write before the
 * frame when this is the thread's first frame and its name could be read, else 0.
 */
int thread_names_seen(struct thread_names *t, uint32_t pid, uint32_t tid, uint64_t ktime,
		      struct frc_record *rec);

/* Read every known thread's name again; emit(ctx, rec) for each one that changed. */
void thread_names_rescan(struct thread_names *t, uint64_t ktime,
			 void (*emit)(void *ctx, const struct frc_record *rec), void *ctx);

/* Threads whose name was not recorded because THREAD_NAMES_MAX were followed already. */
uint64_t thread_names_over(const struct thread_names *t);

#endif /* THREADS_H */
