/* SPDX-License-Identifier: MIT */
/* frc_map.c - see frc_map.h. */
#include <errno.h>
#include <stdlib.h>

#include "frc_map.h"

static uint32_t home(const struct frc_map *m, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static int alloc_table(struct frc_map *m, uint32_t bits)
{
	uint32_t cap = 1u << bits;
	struct frc_map_entry *e = malloc((size_t)cap * sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		e[i].val = FRC_MAP_NONE;
	m->e = e;
	m->mask = cap - 1;
	m->shift = 64 - bits;
	m->count = 0;
	return 0;
}

int frc_map_init(struct frc_map *m, uint32_t min_entries)
{
	uint32_t bits = 2;

	/* Keep the load factor at or below 1/2. */
	while (bits < 30 && (1u << bits) < 2ull * min_entries)
		bits++;
	return alloc_table(m, bits);
}

void frc_map_free(struct frc_map *m)
{
	free(m->e);
	m->e = NULL;
}

static void insert_new(struct frc_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = home(m, key);

	while (m->e[i].val != FRC_MAP_NONE)
		i = (i + 1) & m->mask;
	m->e[i].key = key;
	m->e[i].val = val;
	m->count++;
}

static int grow(struct frc_map *m)
{
	struct frc_map old = *m;
	uint32_t bits = 64 - m->shift + 1;

	if (bits > 30 || alloc_table(m, bits)) {
		*m = old;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i <= old.mask; i++)
		if (old.e[i].val != FRC_MAP_NONE)
			insert_new(m, old.e[i].key, old.e[i].val);
	free(old.e);
	return 0;
}

int frc_map_put(struct frc_map *m, uint64_t key, uint32_t val)
{
	if (2ull * (m->count + 1) > (uint64_t)m->mask + 1) {
		int err = grow(m);

		if (err)
			return err;
	}
	insert_new(m, key, val);
	return 0;
}

void frc_map_del(struct frc_map *m, uint64_t key)
{
	uint32_t i = home(m, key);

	for (;;) {
		if (m->e[i].val == FRC_MAP_NONE)
			return;
		if (m->e[i].key == key)
			break;
		i = (i + 1) & m->mask;
	}
	/*
	 * Backward-shift deletion: move later members of the probe run into the hole when
	 * their home bucket does not lie (cyclically) after the hole, so no lookup ever stops
	 * early at an empty bucket that used to be occupied.
	 */
	uint32_t hole = i;

	for (;;) {
		i = (i + 1) & m->mask;
		if (m->e[i].val == FRC_MAP_NONE)
			break;
		uint32_t h = home(m, m->e[i].key);

		/* Entry i may fill the hole iff its home is not in the cyclic range (hole, i]. */
		if (((i - h) & m->mask) >= ((i - hole) & m->mask)) {
			m->e[hole] = m->e[i];
			hole = i;
		}
	}
	m->e[hole].val = FRC_MAP_NONE;
	m->count--;
}

void frc_map_set(struct frc_map *m, uint64_t key, uint32_t val)
{
	for (uint32_t i = home(m, key); m->e[i].val != FRC_MAP_NONE; i = (i + 1) & m->mask)
		if (m->e[i].key == key) {
			m->e[i].val = val;
			return;
		}
}
