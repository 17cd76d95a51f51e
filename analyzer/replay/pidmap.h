/* SPDX-License-Identifier: MIT */
/*
 * pidmap.h - a small per-PID state table for the analyzer's sinks (PerfDog jank windows,
 * PID lives), bounded so that a hostile capture with millions of PIDs cannot make memory
 * or time grow without limit: at most PIDMAP_MAX PIDs; inserting one more forgets every
 * PID first (counted in resets). Indexed by the project's hash map (common/frc_map.h).
 */
#ifndef FRAMEANALYZE_PIDMAP_H
#define FRAMEANALYZE_PIDMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "frc_map.h"

#define PIDMAP_MAX 65536u

struct pidmap_entry {
	uint32_t pid;
	uint64_t v[4]; /* the caller's state, zero for a new PID */
};

struct pidmap {
	struct frc_map index;	    /* pid -> position in slots */
	struct pidmap_entry *slots; /* dense: the first count are in use */
	uint32_t cap;		    /* entries allocated, at most PIDMAP_MAX */
	uint32_t count;
	uint32_t hint; /* the slot pidmap_get found last: the same PID comes again and again */
	uint64_t resets;
};

/*
 * The entry of pid; with create, a new zeroed one if absent. NULL: absent, or no memory.
 * The pointer is valid until the next pidmap_get(create) or pidmap_del.
 */
struct pidmap_entry *pidmap_get(struct pidmap *m, uint32_t pid, bool create);
/* Forget pid (no-op when absent). */
void pidmap_del(struct pidmap *m, uint32_t pid);
void pidmap_free(struct pidmap *m);

#endif
