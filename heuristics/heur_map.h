/* SPDX-License-Identifier: MIT */
/*
 * heur_map.h - the project's one hash map: uint64 -> uint32.
 *
 * Open addressing with linear probing and backward-shift deletion (no tombstones), so a
 * lookup costs a probe or two no matter how many insertions and deletions came before.
 * The tracker maps buffer pointers to its slot indices with it, the pipeline PIDs to its
 * tracker slots, the analyzer PIDs to their per-PID state (analyzer/pidmap.c). Keys may be any
 * value (0 included); HEUR_MAP_NONE is never a value.
 */
#ifndef HEUR_MAP_H
#define HEUR_MAP_H

#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define HEUR_MAP_NONE UINT32_MAX

struct heur_map_entry {
	uint64_t key;
	uint32_t val; /* HEUR_MAP_NONE: empty bucket */
};

struct heur_map {
	struct heur_map_entry *e;
	uint32_t mask;	/* capacity - 1; capacity is a power of two */
	uint32_t shift; /* 64 - log2(capacity) */
	uint32_t count;
};

/* min_entries: entries expected at first (the table grows as needed). */
FRC_MUST_USE int heur_map_init(struct heur_map *m, uint32_t min_entries);
void heur_map_free(struct heur_map *m);

/* The value stored for key, or HEUR_MAP_NONE. */
static inline uint32_t heur_map_get(const struct heur_map *m, uint64_t key)
{
	/* Fibonacci hashing: the high bits of key * 2^64/phi spread aligned pointers well. */
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);

	for (;;) {
		const struct heur_map_entry *e = &m->e[i];

		if (e->val == HEUR_MAP_NONE)
			return HEUR_MAP_NONE;
		if (e->key == key)
			return e->val;
		i = (i + 1) & m->mask;
	}
}

/* Insert key (which must be absent) -> val. Returns 0 or -ENOMEM (map unchanged). */
FRC_MUST_USE int heur_map_put(struct heur_map *m, uint64_t key, uint32_t val);

/* Change the value of key, which must be present (no allocation, cannot fail). */
void heur_map_set(struct heur_map *m, uint64_t key, uint32_t val);

/* Remove key if present. */
void heur_map_del(struct heur_map *m, uint64_t key);

#endif /* HEUR_MAP_H */
