/* SPDX-License-Identifier: MIT */
/*
 * frc_map.h - the project's one hash map: uint64 -> uint32.
 *
 * Open addressing with linear probing and backward-shift deletion (no tombstones), so a
 * lookup costs a probe or two no matter how many insertions and deletions came before.
 * The tracker maps buffer pointers to its slot indices with it, the pipeline PIDs to its
 * tracker slots, the analyzer PIDs to their per-PID state (analyzer/replay/pidmap.c). Keys
 * may be any value (0 included); FRC_MAP_NONE is never a value. A public utility of its own
 * (common/, library frc_common) so that neither user reaches into the other's internals.
 */
#ifndef FRC_MAP_H
#define FRC_MAP_H

#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define FRC_MAP_NONE UINT32_MAX

struct frc_map_entry {
	uint64_t key;
	uint32_t val; /* FRC_MAP_NONE: empty bucket */
};

struct frc_map {
	struct frc_map_entry *e;
	uint32_t mask;	/* capacity - 1; capacity is a power of two */
	uint32_t shift; /* 64 - log2(capacity) */
	uint32_t count;
};

/* min_entries: entries expected at first (the table grows as needed). */
FRC_MUST_USE int frc_map_init(struct frc_map *m, uint32_t min_entries);
void frc_map_free(struct frc_map *m);

/* The value stored for key, or FRC_MAP_NONE. */
static inline uint32_t frc_map_get(const struct frc_map *m, uint64_t key)
{
	/* Fibonacci hashing: the high bits of key * 2^64/phi spread aligned pointers well. */
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);

	for (;;) {
		const struct frc_map_entry *e = &m->e[i];

		if (e->val == FRC_MAP_NONE)
			return FRC_MAP_NONE;
		if (e->key == key)
			return e->val;
		i = (i + 1) & m->mask;
	}
}

/* Insert key (which must be absent) -> val. Returns 0 or -ENOMEM (map unchanged). */
FRC_MUST_USE int frc_map_put(struct frc_map *m, uint64_t key, uint32_t val);

/* Change the value of key, which must be present (no allocation, cannot fail). */
void frc_map_set(struct frc_map *m, uint64_t key, uint32_t val);

/* Remove key if present. */
void frc_map_del(struct frc_map *m, uint64_t key);

#endif /* FRC_MAP_H */
