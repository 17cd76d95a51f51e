/* SPDX-License-Identifier: MIT */
/*
 * pidmap.h - a small per-PID state table for the analyzer's sinks (PerfDog jank windows,
 * PID lives), bounded so that a hostile capture with millions of PIDs cannot make memory
 * or time grow without limit: open addressing with linear probing, at most PIDMAP_MAX
 * PIDs; inserting one more forgets every PID first (counted in resets).
 */
#ifndef FRAMEANALYZE_PIDMAP_H
#define FRAMEANALYZE_PIDMAP_H

#include <stdbool.h>
#include <stdint.h>

#define PIDMAP_MAX 65536u

struct pidmap_entry {
	uint32_t pid;
	uint32_t used;
	uint64_t v[4]; /* the caller's state, zero for a new PID */
};

struct pidmap {
	struct pidmap_entry *slots;
	uint32_t cap; /* power of two, at least twice count */
	uint32_t count;
	uint64_t resets;
};

/* The entry of pid; with create, a new zeroed one if absent. NULL: absent, or no memory. */
struct pidmap_entry *pidmap_get(struct pidmap *m, uint32_t pid, bool create);
/* Forget pid (no-op when absent). */
void pidmap_del(struct pidmap *m, uint32_t pid);
void pidmap_free(struct pidmap *m);

#endif
