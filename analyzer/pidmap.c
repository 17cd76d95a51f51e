/* SPDX-License-Identifier: MIT */
/* pidmap.c - see pidmap.h. Deletion shifts the probe run back (no tombstones). */
#include "pidmap.h"

#include <stdlib.h>
#include <string.h>

static uint32_t slot_of(const struct pidmap *m, uint32_t pid)
{
	/* Fibonacci hashing: consecutive PIDs spread over the table */
	return (uint32_t)((pid * 2654435769u) & (m->cap - 1));
}

static int grow(struct pidmap *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 16;
	struct pidmap_entry *old = m->slots, *ns = calloc(ncap, sizeof(*ns));
	uint32_t oldcap = m->cap;

	if (!ns)
		return -1;
	m->slots = ns;
	m->cap = ncap;
	for (uint32_t i = 0; i < oldcap; i++) {
		if (!old[i].used)
			continue;
		uint32_t j = slot_of(m, old[i].pid);
		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = old[i];
	}
	free(old);
	return 0;
}

struct pidmap_entry *pidmap_get(struct pidmap *m, uint32_t pid, bool create)
{
	uint32_t i;

	if (m->cap) {
		for (i = slot_of(m, pid); m->slots[i].used; i = (i + 1) & (m->cap - 1))
			if (m->slots[i].pid == pid)
				return &m->slots[i];
	}
	if (!create)
		return NULL;
	if (m->count >= PIDMAP_MAX) {
		memset(m->slots, 0, (size_t)m->cap * sizeof(*m->slots));
		m->count = 0;
		m->resets++;
	}
	if (2 * (m->count + 1) > m->cap && grow(m))
		return NULL;
	for (i = slot_of(m, pid); m->slots[i].used; i = (i + 1) & (m->cap - 1))
		;
	m->slots[i] = (struct pidmap_entry){.pid = pid, .used = 1};
	m->count++;
	return &m->slots[i];
}

void pidmap_del(struct pidmap *m, uint32_t pid)
{
	struct pidmap_entry *e = pidmap_get(m, pid, false);
	uint32_t i, j, mask = m->cap - 1;

	if (!e)
		return;
	i = (uint32_t)(e - m->slots);
	m->slots[i].used = 0;
	m->count--;
	/* Move later entries of the probe run back into the hole when their home allows. */
	for (j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
		uint32_t home = slot_of(m, m->slots[j].pid);
		/* entry j may move to i when home is not cyclically within (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].used = 0;
			i = j;
		}
	}
}

void pidmap_free(struct pidmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
