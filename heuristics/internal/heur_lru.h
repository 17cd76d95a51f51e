/* SPDX-License-Identifier: MIT */
/*
 * heur_lru.h - a "last seen" order over slot indexes, the one the bounded tables share:
 * the tracker's buffers, main-surface's surfaces, the pipeline's PIDs. When a table is
 * full, its least recently seen slot (the tail) is forgotten and reused.
 *
 * The links live in an array of their own, parallel to the owner's slots (link[i] for
 * slot i), grown with the slots. head is the most recently seen, tail the least;
 * HEUR_LRU_NIL ends the list. An owner may keep a free list of its own through link[].next
 * for slots that are not in the order.
 */
#ifndef HEUR_LRU_H
#define HEUR_LRU_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

#define HEUR_LRU_NIL UINT32_MAX

struct heur_lru_link {
	uint32_t prev; /* towards the most recently seen */
	uint32_t next; /* towards the least recently seen */
};

struct heur_lru {
	struct heur_lru_link *link;
	uint32_t head, tail;
};

static inline void heur_lru_init(struct heur_lru *l)
{
	l->link = NULL;
	l->head = l->tail = HEUR_LRU_NIL;
}

/* Room for slots 0..cap-1 (the owner's slots grew to cap). 0 or -ENOMEM (unchanged). */
FRC_MUST_USE static inline int heur_lru_grow(struct heur_lru *l, uint32_t cap)
{
	struct heur_lru_link *link = realloc(l->link, (size_t)cap * sizeof(*link));

	if (!link)
		return -ENOMEM;
	l->link = link;
	return 0;
}

static inline void heur_lru_free(struct heur_lru *l)
{
	free(l->link);
	l->link = NULL;
}

/* Take slot i out of the order. */
static inline void heur_lru_unlink(struct heur_lru *l, uint32_t i)
{
	struct heur_lru_link *s = &l->link[i];

	if (s->prev != HEUR_LRU_NIL)
		l->link[s->prev].next = s->next;
	else
		l->head = s->next;
	if (s->next != HEUR_LRU_NIL)
		l->link[s->next].prev = s->prev;
	else
		l->tail = s->prev;
}

/* Slot i (not in the order) becomes the most recently seen. */
static inline void heur_lru_push_front(struct heur_lru *l, uint32_t i)
{
	l->link[i].prev = HEUR_LRU_NIL;
	l->link[i].next = l->head;
	if (l->head != HEUR_LRU_NIL)
		l->link[l->head].prev = i;
	else
		l->tail = i;
	l->head = i;
}

/* Slot i (in the order) was seen again: it moves to the front. */
static inline void heur_lru_touch(struct heur_lru *l, uint32_t i)
{
	if (l->head != i) {
		heur_lru_unlink(l, i);
		heur_lru_push_front(l, i);
	}
}

#endif /* HEUR_LRU_H */
