/* SPDX-License-Identifier: MIT */
/*
 * content_procs.h - one content rule instance (content.h) per process, bounded.
 *
 * The analyzer's truth and the frc-window meter both follow the target process's content
 * series, and both must learn a process's thread names, buffers and connects before it
 * becomes the target (a launcher, then the game): so both keep an instance per process.
 * One table serves both, so that they remember and forget the same processes:
 * CONTENT_PROCS instances, the least recently used dropped first, never the current one
 * (the target's: other processes' records never evict it). Pure; no clock.
 */
#ifndef CONTENT_PROCS_H
#define CONTENT_PROCS_H

#include <stdint.h>

#include "content.h"

#define CONTENT_PROCS 64

struct content_proc {
	uint32_t pid;
	uint64_t used;	 /* LRU stamp; 0: the slot is free */
	uint64_t period; /* the caller's series period at its last content call */
	struct content *c;
};

/* Zero-initialised is empty. */
struct content_procs {
	struct content_proc p[CONTENT_PROCS];
	uint64_t clock;
	struct content_proc *cur; /* the one being followed (never evicted), or NULL */
};

/* pid's instance, made when new (a free slot, else the least recently used one's, never
 * cur's); NULL when out of memory. */
struct content_proc *content_procs_get(struct content_procs *ps, uint32_t pid);
/* pid's instance if it has one. */
struct content_proc *content_procs_find(struct content_procs *ps, uint32_t pid);
/* Forget p (its process exited); cur becomes NULL if it was p. */
void content_procs_drop(struct content_procs *ps, struct content_proc *p);
/* Forget every instance (the table is empty again). */
void content_procs_clear(struct content_procs *ps);

#endif /* CONTENT_PROCS_H */
