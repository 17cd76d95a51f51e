/* SPDX-License-Identifier: MIT */
/*
 * tracker.c - Kala's FrameTracker (see tracker.h and heuristics/README.md).
 *
 * Per buffer pointer a slot holds last_ns and a ring of at most cfg.history deltas with
 * their sum. Three structures index the slots, each O(1) or O(log n) per call, so the cost
 * of a call does not grow with the number of buffers:
 *  - a hash map buffer -> slot;
 *  - a doubly linked list in "last seen" order (head = most recent) for the LRU bound;
 *  - a binary heap ordered by the active-buffer rule, whose root is the active buffer.
 *    Only the fed buffer's key changes in a call, so one sift restores the order.
 */
#include <errno.h>
#include <stdlib.h>

#include "heur_lru.h"
#include "frc_map.h"
#include "tracker.h"

#define NIL UINT32_MAX
/* Config bounds: keep allocations sane for a config read from anywhere. */
#define HISTORY_LIMIT (1u << 16)
#define BUFFERS_LIMIT (1u << 20)

struct slot {
	uint64_t buffer;
	uint64_t last_ns;
	uint64_t sum_ns;  /* sum of the deltas now in the ring, modulo 2^64 */
	uint32_t count;	  /* deltas in the ring */
	uint32_t oldest;  /* ring index of the oldest delta */
	uint32_t heap_at; /* position in t->heap */
};

struct tracker {
	struct tracker_config cfg;
	struct frc_map map;
	struct slot *slots;
	uint64_t *rings;     /* slot i's ring: rings[i * history .. (i + 1) * history) */
	uint32_t *heap;	     /* slot indices; heap[0] is the active buffer */
	uint32_t used;	     /* slots in use (they are never freed, only recycled) */
	uint32_t cap;	     /* slots allocated */
	struct heur_lru lru; /* slots by last sighting, for the max_buffers bound */
	struct tracker_stats st;
};

void tracker_config_default(struct tracker_config *cfg)
{
	cfg->history = 144;
	cfg->max_buffers = 1024;
}

int tracker_new(struct tracker **out, const struct tracker_config *cfg)
{
	struct tracker *t;

	*out = NULL;
	if (cfg->history < 1 || cfg->history > HISTORY_LIMIT || cfg->max_buffers < 1 ||
	    cfg->max_buffers > BUFFERS_LIMIT)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->cfg = *cfg;
	heur_lru_init(&t->lru);
	/* Most apps have 2-4 buffers in flight: start small, grow by doubling. */
	if (frc_map_init(&t->map, 4)) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void tracker_free(struct tracker *t)
{
	if (!t)
		return;
	free(t->heap);
	free(t->rings);
	free(t->slots);
	heur_lru_free(&t->lru);
	frc_map_free(&t->map);
	free(t);
}

void tracker_stats(const struct tracker *t, struct tracker_stats *st)
{
	*st = t->st;
	st->buffers = t->used;
}

/* The active-buffer order: true when slot a ranks before slot b. */
static bool better(const struct slot *a, const struct slot *b)
{
	if (a->count != b->count)
		return a->count > b->count;
	if (a->sum_ns != b->sum_ns)
		return a->sum_ns < b->sum_ns;
	return a->buffer < b->buffer;
}

static void heap_set(struct tracker *t, uint32_t pos, uint32_t idx)
{
	t->heap[pos] = idx;
	t->slots[idx].heap_at = pos;
}

static void sift_up(struct tracker *t, uint32_t pos)
{
	uint32_t idx = t->heap[pos];

	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;

		if (!better(&t->slots[idx], &t->slots[t->heap[parent]]))
			break;
		heap_set(t, pos, t->heap[parent]);
		pos = parent;
	}
	heap_set(t, pos, idx);
}

static void sift_down(struct tracker *t, uint32_t pos, uint32_t n)
{
	uint32_t idx = t->heap[pos];

	for (;;) {
		uint32_t child = 2 * pos + 1;

		if (child >= n)
			break;
		if (child + 1 < n &&
		    better(&t->slots[t->heap[child + 1]], &t->slots[t->heap[child]]))
			child++;
		if (!better(&t->slots[t->heap[child]], &t->slots[idx]))
			break;
		heap_set(t, pos, t->heap[child]);
		pos = child;
	}
	heap_set(t, pos, idx);
}

static int grow_slots(struct tracker *t)
{
	uint32_t cap = t->cap ? 2 * t->cap : 4;
	struct slot *slots;
	uint64_t *rings;
	uint32_t *heap;

	if (cap > t->cfg.max_buffers)
		cap = t->cfg.max_buffers;
	/* Each realloc result is stored at once, so a later failure leaks nothing. */
	slots = realloc(t->slots, (size_t)cap * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	heap = realloc(t->heap, (size_t)cap * sizeof(*heap));
	if (!heap)
		return -ENOMEM;
	t->heap = heap;
	rings = realloc(t->rings, (size_t)cap * t->cfg.history * sizeof(*rings));
	if (!rings)
		return -ENOMEM;
	t->rings = rings;
	if (heur_lru_grow(&t->lru, cap))
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

/* Forget the least recently seen buffer; returns its slot for reuse. */
static uint32_t forget_lru(struct tracker *t)
{
	uint32_t idx = t->lru.tail;

	frc_map_del(&t->map, t->slots[idx].buffer);
	heur_lru_unlink(&t->lru, idx);
	t->st.buffers_evicted++;
	return idx;
}

/*
 * Step 1: remember a buffer seen for the first time, in a fresh slot while fewer than
 * max_buffers are remembered, else in the slot of the least recently seen buffer (which is
 * forgotten). The map insertion goes first: when it runs out of memory nothing has changed
 * and the call is ignored.
 */
static bool first_sighting(struct tracker *t, uint64_t ktime_ns, uint64_t buffer)
{
	bool fresh = t->used < t->cfg.max_buffers;
	uint32_t idx;
	struct slot *s;

	if (fresh && t->used == t->cap && grow_slots(t))
		return false;
	if (frc_map_put(&t->map, buffer, fresh ? t->used : t->lru.tail))
		return false;
	if (fresh) {
		idx = t->used++;
		heap_set(t, idx, idx);
	} else {
		idx = forget_lru(t);
	}
	s = &t->slots[idx];
	s->buffer = buffer;
	s->last_ns = ktime_ns;
	s->sum_ns = 0;
	s->count = 0;
	s->oldest = 0;
	heur_lru_push_front(&t->lru, idx);
	/* Its key is now (0 deltas, sum 0): the heap order may need it higher or lower. */
	sift_up(t, s->heap_at);
	sift_down(t, s->heap_at, t->used);
	return false;
}

bool tracker_record(struct tracker *t, uint64_t ktime_ns, uint64_t buffer, uint64_t *delta_ns)
{
	uint32_t idx = frc_map_get(&t->map, buffer);
	uint32_t history = t->cfg.history;
	struct slot *s;
	uint64_t *ring;
	uint64_t delta;

	t->st.records++;
	/* Step 1: a buffer seen for the first time only gets remembered. */
	if (idx == NIL)
		return first_sighting(t, ktime_ns, buffer);
	heur_lru_touch(&t->lru, idx);
	s = &t->slots[idx];
	/* Steps 2 and 3: a saturating delta; last_ns follows ktime_ns even backwards. */
	delta = ktime_ns > s->last_ns ? ktime_ns - s->last_ns : 0;
	s->last_ns = ktime_ns;
	if (delta == 0)
		return false;
	/* Step 4: append to the ring, evicting the oldest when full; keep sum_ns. */
	ring = &t->rings[(size_t)idx * history];
	if (s->count < history) {
		uint32_t at = s->oldest + s->count;

		ring[at >= history ? at - history : at] = delta;
		s->count++;
		s->sum_ns += delta;
		sift_up(t, s->heap_at); /* one more delta only ever ranks higher */
	} else {
		uint64_t old = ring[s->oldest];

		ring[s->oldest] = delta;
		s->oldest = s->oldest + 1 == history ? 0 : s->oldest + 1;
		s->sum_ns = s->sum_ns - old + delta;
		if (delta < old)
			sift_up(t, s->heap_at);
		else if (delta > old)
			sift_down(t, s->heap_at, t->used);
	}
	/* Steps 5 and 6: only the active buffer (the heap's root) reports its delta. */
	if (t->heap[0] != idx)
		return false;
	t->st.deltas++;
	*delta_ns = delta;
	return true;
}
