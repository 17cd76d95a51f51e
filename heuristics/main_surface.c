/* SPDX-License-Identifier: MIT */
/*
 * main_surface.c - the `main-surface` tracker (see main_surface.h, heuristics/README.md).
 *
 * Per surface a slot holds last_ns and the number of calls seen. A hash map finds the
 * slot, a doubly linked "last seen" list bounds their number (LRU), and the leader (the
 * main surface) is kept incrementally: only the fed surface's count changes in a call, so
 * comparing it with the leader is enough. O(1) per call.
 */
#include <errno.h>
#include <stdlib.h>

#include "heur_lru.h"
#include "frc_map.h"
#include "main_surface.h"

#define NIL UINT32_MAX
#define SURFACES_LIMIT (1u << 20)

struct ms_slot {
	uint64_t surface;
	uint64_t first_ns; /* first call since the surface was (re)remembered */
	uint64_t last_ns;
	uint64_t calls;	     /* calls seen since the surface was (re)remembered */
	uint64_t mark_ns;    /* a non-leader's first call after the leader's last call ... */
	uint64_t mark_calls; /* ... and its calls then: its pace while the leader is silent */
};

struct main_surface {
	uint32_t max_surfaces;
	struct frc_map map;
	struct ms_slot *slots;
	uint32_t used, cap;
	struct heur_lru lru; /* slots by last call, for the max_surfaces bound */
	uint32_t leader;     /* NIL: none yet, or it was forgotten */
	struct tracker_stats st;
};

int main_surface_new(struct main_surface **out, const struct tracker_config *cfg)
{
	struct main_surface *t;

	*out = NULL;
	if (cfg->max_buffers < 1 || cfg->max_buffers > SURFACES_LIMIT)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->max_surfaces = cfg->max_buffers;
	heur_lru_init(&t->lru);
	t->leader = NIL;
	if (frc_map_init(&t->map, 4)) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void main_surface_free(struct main_surface *t)
{
	if (!t)
		return;
	free(t->slots);
	heur_lru_free(&t->lru);
	frc_map_free(&t->map);
	free(t);
}

void main_surface_stats(const struct main_surface *t, struct tracker_stats *st)
{
	*st = t->st;
	st->buffers = t->used;
}

/*
 * A slot for a surface seen for the first time: a new one while fewer than max_surfaces
 * are remembered, else the least recently seen surface's (forgotten; if it led, nobody
 * leads until the next call). The map insertion goes first: when it runs out of memory
 * nothing has changed. Returns the slot, or NIL (out of memory: the call is ignored).
 */
static uint32_t remember(struct main_surface *t, uint64_t ktime_ns, uint64_t surface)
{
	bool fresh = t->used < t->max_surfaces;
	uint32_t i;

	if (fresh && t->used == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 4;
		struct ms_slot *slots;

		if (cap > t->max_surfaces)
			cap = t->max_surfaces;
		slots = realloc(t->slots, (size_t)cap * sizeof(*slots));
		if (!slots)
			return NIL;
		t->slots = slots;
		if (heur_lru_grow(&t->lru, cap))
			return NIL;
		t->cap = cap;
	}
	if (frc_map_put(&t->map, surface, fresh ? t->used : t->lru.tail))
		return NIL;
	if (fresh) {
		i = t->used++;
	} else {
		i = t->lru.tail;
		frc_map_del(&t->map, t->slots[i].surface);
		heur_lru_unlink(&t->lru, i);
		t->st.buffers_evicted++;
		if (t->leader == i)
			t->leader = NIL;
	}
	t->slots[i] = (struct ms_slot){.surface = surface,
				       .first_ns = ktime_ns,
				       .last_ns = ktime_ns,
				       .calls = 1,
				       .mark_ns = ktime_ns,
				       .mark_calls = 1};
	heur_lru_push_front(&t->lru, i);
	return i;
}

/*
 * May s take the lead of a stale leader? Only if it keeps pace: its mean interval since
 * the leader's last call is under MAIN_SURFACE_PACE times the leader's own mean interval.
 * A new main surface (menu -> game) does; an overlay calling on while the main surface
 * pauses (a loading spinner at 10 fps beside a 60 fps game) does not, so the pause stays
 * one long frame instead of the overlay's intervals. Integer ns, no overflow: a period is
 * at most a span of ktime, and a period over UINT64_MAX / PACE always keeps pace.
 */
static bool keeps_pace(const struct ms_slot *s, const struct ms_slot *lead, uint64_t ktime_ns)
{
	uint64_t runs = s->calls - s->mark_calls, own, lead_period;

	if (runs == 0)
		return false; /* one call since the leader's last: no pace yet */
	if (lead->calls < 2 || lead->last_ns <= lead->first_ns)
		return true; /* the leader has no rate to keep */
	own = (ktime_ns > s->mark_ns ? ktime_ns - s->mark_ns : 0) / runs;
	lead_period = (lead->last_ns - lead->first_ns) / (lead->calls - 1);
	return lead_period > UINT64_MAX / MAIN_SURFACE_PACE ||
	       own < MAIN_SURFACE_PACE * lead_period;
}

/*
 * The main surface: the most calls; a tie keeps the leader. (The truth, analyzer/truth.c,
 * breaks a tie of whole-capture counts on the smaller surface value; online, that rule
 * made two equal-rate surfaces trade the lead on every call whenever the larger value
 * called first in each period, reporting both surfaces' intervals: twice the FPS. Equal
 * counts mean equal rates, so either surface's intervals are right.) A leader silent for
 * more than MAIN_SURFACE_STALE_NS hands over to a surface calling now that keeps pace
 * (keeps_pace): the app moved to a new surface (menu -> game) and the old one's count must
 * not hold the lead forever. s->calls already counts this call.
 */
static void elect(struct main_surface *t, uint32_t i, uint64_t ktime_ns)
{
	struct ms_slot *s = &t->slots[i];
	const struct ms_slot *lead;

	if (t->leader == NIL) {
		t->leader = i;
		return;
	}
	lead = &t->slots[t->leader];
	if (s->mark_ns < lead->last_ns) { /* the leader called since: s's run starts now */
		s->mark_ns = ktime_ns;
		s->mark_calls = s->calls;
	}
	if (s->calls > lead->calls ||
	    (ktime_ns > lead->last_ns && ktime_ns - lead->last_ns > MAIN_SURFACE_STALE_NS &&
	     keeps_pace(s, lead, ktime_ns)))
		t->leader = i;
}

bool main_surface_record(struct main_surface *t, uint64_t ktime_ns, uint64_t surface,
			 uint64_t *delta_ns)
{
	uint32_t i = frc_map_get(&t->map, surface);
	struct ms_slot *s;
	uint64_t delta;

	t->st.records++;
	if (i == NIL) {
		i = remember(t, ktime_ns, surface);
		if (i != NIL && t->leader != i)
			elect(t, i, ktime_ns);
		return false;
	}
	heur_lru_touch(&t->lru, i);
	s = &t->slots[i];
	if (s->calls < UINT64_MAX)
		s->calls++;
	/* As Kala: a saturating delta, and last_ns follows ktime even backwards. */
	delta = ktime_ns > s->last_ns ? ktime_ns - s->last_ns : 0;
	if (t->leader != i)
		elect(t, i, ktime_ns); /* before last_ns moves: a leader is never stale to itself */
	s->last_ns = ktime_ns;
	if (delta == 0 || t->leader != i)
		return false;
	t->st.deltas++;
	*delta_ns = delta;
	return true;
}
