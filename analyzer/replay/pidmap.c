/* SPDX-License-Identifier: MIT */
/*
 * pidmap.c - see pidmap.h. The project's hash map (common/frc_map.h) finds a PID's position in
 * a dense array of entries; a deleted entry's place is taken by the last one, so the
 * array never has holes and the project keeps one hash map implementation.
 */
#include "pidmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct pidmap *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 16;
	struct pidmap_entry *ns = realloc(m->slots, (size_t)ncap * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

/* Forget every PID at once: the bound that keeps a hostile capture's PIDs in check. */
static void reset(struct pidmap *m)
{
	frc_map_free(&m->index);
	m->count = 0;
	m->resets++;
}

struct pidmap_entry *pidmap_get(struct pidmap *m, uint32_t pid, bool create)
{
	uint32_t i;

	/* the slots hold each PID once: a hinted slot that holds pid is its entry */
	if (m->hint < m->count && m->slots[m->hint].pid == pid)
		return &m->slots[m->hint];
	i = m->index.e ? frc_map_get(&m->index, pid) : FRC_MAP_NONE;
	if (i != FRC_MAP_NONE) {
		m->hint = i;
		return &m->slots[i];
	}
	if (!create)
		return NULL;
	if (m->count >= PIDMAP_MAX)
		reset(m);
	if (!m->index.e && frc_map_init(&m->index, 16))
		return NULL;
	if (m->count == m->cap && grow(m))
		return NULL;
	if (frc_map_put(&m->index, pid, m->count))
		return NULL;
	m->slots[m->count] = (struct pidmap_entry){.pid = pid};
	m->hint = m->count;
	return &m->slots[m->count++];
}

void pidmap_del(struct pidmap *m, uint32_t pid)
{
	uint32_t i = m->index.e ? frc_map_get(&m->index, pid) : FRC_MAP_NONE;
	uint32_t last = m->count - 1;

	if (i == FRC_MAP_NONE)
		return;
	frc_map_del(&m->index, pid);
	if (i != last) {
		m->slots[i] = m->slots[last];
		frc_map_set(&m->index, m->slots[i].pid, i);
	}
	m->count--;
}

void pidmap_free(struct pidmap *m)
{
	frc_map_free(&m->index);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
