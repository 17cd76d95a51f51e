/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - records -> trackers (one per PID) -> FPS meter -> callbacks.
 * See pipeline.h and heuristics/README.md for the exact rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heur_lru.h"
#include "frc_map.h"
#include "pipeline.h"
#include "target.h"

#define NIL UINT32_MAX
#define PIDS_LIMIT (1u << 20)

/* One PID's tracker, in a "last seen" list (head = most recent) for the max_pids bound. */
struct pid_slot {
	uint32_t pid;
	void *t; /* the kind's tracker; NULL: the slot is on the free list */
};

/* Synthesized ticks per gap between two records at most (1 hour of 1 s ticks): README. */
#define SYNTH_GAP_MAX 3600

struct pipeline {
	struct pipeline_config cfg;
	const struct tracker_kind *kind;
	const struct meter_kind *mk;
	struct pipeline_callbacks cb;
	void *ctx;

	void *meter; /* the meter kind's, created by the first record */
	/* Which PID is the target, fed every record; the meter's filter when the kind asks. */
	struct target *target;
	uint64_t tick_ns;
	uint64_t next_tick; /* the next synthesized tick's time */
	bool ticks_over;    /* next_tick would overflow: no more synthesized ticks */
	uint64_t max_ktime; /* the largest ktime fed so far */

	struct frc_map pids; /* pid -> slot */
	struct pid_slot *slots;
	uint32_t used; /* slots ever handed out */
	uint32_t cap;
	uint32_t free_head;  /* free slots, linked through lru.link[].next */
	struct heur_lru lru; /* slots by last frame, for the max_pids bound */
	/* The slot of the last frame's PID: most captures have one PID, skip the map. */
	uint32_t last_slot;

	uint64_t gone_buffers_evicted; /* buffers_evicted of trackers already freed */
	struct pipeline_stats st;
};

void pipeline_config_default(struct pipeline_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	tracker_config_default(&cfg->tracker);
	fps_meter_config_default(&cfg->meter);
	cfg->has_sysfs = false;
	cfg->synthesize_ticks = false;
	cfg->tick_ms = 1000;
	cfg->max_pids = 1024;
	cfg->max_synth_ticks = 10000000;
}

int pipeline_new(struct pipeline **out, const struct pipeline_config *cfg,
		 const struct pipeline_callbacks *cb, void *ctx)
{
	const struct tracker_kind *kind =
	    tracker_kind_find(cfg->tracker_name ? cfg->tracker_name : TRACKER_KIND_DEFAULT);
	const struct meter_kind *mk =
	    meter_kind_find(cfg->meter_name ? cfg->meter_name : METER_KIND_DEFAULT);
	struct pipeline *p;
	void *probe_t, *probe_m;
	int err;

	*out = NULL;
	if ((cfg->synthesize_ticks && cfg->tick_ms == 0) || cfg->max_pids < 1 ||
	    cfg->max_pids > PIDS_LIMIT)
		return -EINVAL;
	if (!kind || !mk)
		return -ENOENT;
	/* Check the tracker and meter configs now rather than at the first record. */
	err = kind->create(&probe_t, &cfg->tracker);
	if (err)
		return err;
	kind->destroy(probe_t);
	err = mk->create(&probe_m, &cfg->meter, 0, cfg->has_sysfs);
	if (err)
		return err;
	mk->destroy(probe_m);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = target_new(&p->target, cfg->target);
	if (err) {
		free(p);
		return err;
	}
	p->cfg = *cfg;
	p->cfg.target = NULL;		  /* parsed: the caller's string need not outlive us */
	p->cfg.tracker_name = kind->name; /* the caller's strings need not outlive us */
	p->cfg.meter_name = mk->name;
	p->kind = kind;
	p->mk = mk;
	if (cb)
		p->cb = *cb;
	p->ctx = ctx;
	p->tick_ns = (uint64_t)cfg->tick_ms * 1000000ull;
	p->free_head = NIL;
	heur_lru_init(&p->lru);
	p->last_slot = NIL;
	if (frc_map_init(&p->pids, 4)) {
		target_free(p->target);
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->used; i++)
		if (p->slots[i].t)
			p->kind->destroy(p->slots[i].t);
	free(p->slots);
	heur_lru_free(&p->lru);
	frc_map_free(&p->pids);
	if (p->meter)
		p->mk->destroy(p->meter);
	target_free(p->target);
	free(p);
}

void pipeline_stats(const struct pipeline *p, struct pipeline_stats *st)
{
	*st = p->st;
	st->buffers_evicted = p->gone_buffers_evicted;
	for (uint32_t i = 0; i < p->used; i++) {
		struct tracker_stats ts;

		if (!p->slots[i].t)
			continue;
		p->kind->stats(p->slots[i].t, &ts);
		st->buffers_evicted += ts.buffers_evicted;
	}
	if (p->meter)
		p->mk->stats(p->meter, &st->meter);
}

/* Free a tracker, keeping its eviction count for pipeline_stats. */
static void drop_tracker(struct pipeline *p, void *t)
{
	struct tracker_stats ts;

	p->kind->stats(t, &ts);
	p->gone_buffers_evicted += ts.buffers_evicted;
	p->kind->destroy(t);
}

/* Forget slot i's PID and tracker; the slot goes to the free list. */
static void forget_slot(struct pipeline *p, uint32_t i)
{
	struct pid_slot *s = &p->slots[i];

	drop_tracker(p, s->t);
	s->t = NULL;
	frc_map_del(&p->pids, s->pid);
	heur_lru_unlink(&p->lru, i);
	p->lru.link[i].next = p->free_head;
	p->free_head = i;
	p->st.trackers--;
	if (p->last_slot == i)
		p->last_slot = NIL;
}

/* A free slot: from the free list, a new one, or the least recently seen PID's. */
static int take_slot(struct pipeline *p, uint32_t *out)
{
	if (p->free_head == NIL && p->used == p->cap && p->used < p->cfg.max_pids) {
		uint32_t cap = p->cap ? 2 * p->cap : 4;
		struct pid_slot *slots;

		if (cap > p->cfg.max_pids)
			cap = p->cfg.max_pids;
		slots = realloc(p->slots, (size_t)cap * sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		p->slots = slots;
		if (heur_lru_grow(&p->lru, cap))
			return -ENOMEM;
		p->cap = cap;
	}
	if (p->free_head == NIL && p->used == p->cap) {
		/* max_pids trackers alive: the least recently seen PID is forgotten. */
		forget_slot(p, p->lru.tail);
		p->st.trackers_evicted++;
	}
	if (p->free_head != NIL) {
		*out = p->free_head;
		p->free_head = p->lru.link[*out].next;
	} else {
		*out = p->used++;
		p->slots[*out].t = NULL;
	}
	return 0;
}

/*
 * Start a fresh tracker for pid (attach, or a frame of an unknown PID); a PID that already
 * has one gets the fresh tracker in its place. Sets *slot; returns 0 or -ENOMEM.
 */
static int start_tracker(struct pipeline *p, uint32_t pid, uint32_t *slot)
{
	uint32_t i = frc_map_get(&p->pids, pid);
	void *t;
	int err;

	err = p->kind->create(&t, &p->cfg.tracker);
	if (err)
		return err;
	if (i != NIL) {
		drop_tracker(p, p->slots[i].t);
		p->slots[i].t = t;
		goto seen;
	}
	err = take_slot(p, &i);
	if (err)
		goto fail;
	err = frc_map_put(&p->pids, pid, i);
	if (err) {
		p->lru.link[i].next = p->free_head;
		p->free_head = i;
		goto fail;
	}
	p->slots[i].pid = pid;
	p->slots[i].t = t;
	heur_lru_push_front(&p->lru, i);
	p->st.trackers++;
seen:
	heur_lru_touch(&p->lru, i);
	*slot = i;
	return 0;
fail:
	p->kind->destroy(t);
	return err;
}

static void emit_reading(struct pipeline *p, uint64_t now, const struct frc_record *tick)
{
	struct pipeline_reading r;

	r.tick_ns = now;
	r.reading = p->mk->read(p->meter, now);
	r.tick = tick;
	p->st.readings++;
	if (p->cb.on_reading)
		p->cb.on_reading(p->ctx, &r);
}

/*
 * Read the meter at every synthesized tick strictly before `until` (or at it too, when
 * `inclusive`), in time order, but at most SYNTH_GAP_MAX of them per gap between two
 * records: the rest of a longer gap is skipped (stats.ticks_skipped) and the grid goes on
 * after it. Synthesized readings are thus bounded by the records the capture really holds,
 * not by the times it claims (an 80-byte capture with a ktime jump of months would
 * otherwise become millions of readings). Returns -EOVERFLOW, having emitted none of them,
 * when they would take the total beyond cfg.max_synth_ticks.
 */
static int emit_due_ticks(struct pipeline *p, uint64_t until, bool inclusive)
{
	uint64_t due, skip = 0;

	if (p->ticks_over || p->next_tick > until || (p->next_tick == until && !inclusive))
		return 0;
	due = (until - p->next_tick) / p->tick_ns + 1;
	if (!inclusive && p->next_tick + (due - 1) * p->tick_ns == until)
		due--;
	if (due > SYNTH_GAP_MAX) {
		skip = due - SYNTH_GAP_MAX;
		due = SYNTH_GAP_MAX;
	}
	if (p->cfg.max_synth_ticks && due > p->cfg.max_synth_ticks - p->st.ticks_synthesized)
		return -EOVERFLOW;
	p->st.ticks_skipped += skip;
	while (due--) {
		uint64_t t = p->next_tick;

		p->st.ticks_synthesized++;
		emit_reading(p, t, NULL);
		/* The next tick would be past 2^64 - 1 ns: there is none (t was the last due). */
		if (t > UINT64_MAX - p->tick_ns) {
			p->ticks_over = true;
			break;
		}
		p->next_tick = t + p->tick_ns;
	}
	if (skip && !p->ticks_over) {
		/* The last skipped tick is due (<= until); the one after it may overflow. */
		uint64_t last = p->next_tick + (skip - 1) * p->tick_ns;

		if (last > UINT64_MAX - p->tick_ns)
			p->ticks_over = true;
		else
			p->next_tick = last + p->tick_ns;
	}
	return 0;
}

/*
 * Do pid's deltas reach the meter? Every PID's, unless the kind asks for the
 * target's only and the capture says which PID that is (README "Pipeline").
 */
static bool metered_pid(const struct pipeline *p, uint32_t pid)
{
	return !p->kind->meter_target_only || !target_known(p->target) ||
	       target_pid(p->target) == pid;
}

static int feed_frame(struct pipeline *p, const struct frc_record *r)
{
	const struct frc_frame *f = &r->u.frame;
	uint64_t seq = p->st.frames++;
	uint32_t i = p->last_slot;
	struct pipeline_delta d;
	bool metered;

	if (i == NIL || p->slots[i].pid != f->pid) {
		i = frc_map_get(&p->pids, f->pid);
		if (i == NIL) {
			int err = start_tracker(p, f->pid, &i);

			if (err)
				return err;
		}
		p->last_slot = i;
	}
	heur_lru_touch(&p->lru, i);
	metered = metered_pid(p, f->pid);
	/*
	 * Every frame, whatever the tracker: a meter that reads frames picks the target's
	 * itself (the pipeline's target says which), so it reads the same under every tracker.
	 */
	if (p->mk->frame) {
		int err = p->mk->frame(p->meter, r->ktime_ns, f, p->target);

		if (err)
			return err;
	}
	if (!p->kind->record(p->slots[i].t, r->ktime_ns, f, &d.delta_ns))
		return 0;
	if (metered)
		p->mk->delta(p->meter, d.delta_ns);
	else
		p->st.deltas_unmetered++;
	p->st.deltas++;
	if (p->cb.on_delta) {
		d.pid = f->pid;
		d.seq = seq;
		d.ktime_ns = r->ktime_ns;
		d.buffer = f->buffer;
		d.surface = f->surface;
		p->cb.on_delta(p->ctx, &d);
	}
	return 0;
}

/* A thread, buffer, connect, attach or exit record, to a meter that reads them. */
static int feed_meter_learn(struct pipeline *p, const struct frc_record *r)
{
	return p->mk->learn ? p->mk->learn(p->meter, r, p->target) : 0;
}

/*
 * A record a tracker may learn from (tracker_kind.h `learn`), to its PID's tracker. A PID
 * without one gets one, as at a frame: a thread's name and a buffer's geometry come just
 * before the frame that first shows them, a connect before the surface's first frame, which
 * may be the process's first (no attach record in the capture); dropping them would leave
 * that thread unnamed, that surface without a size or a lifetime. A kind without `learn` sees
 * nothing, and no tracker is created (its stats stay as they were before these records existed).
 */
static int feed_learn(struct pipeline *p, const struct frc_record *r, uint32_t pid)
{
	uint32_t i;
	int err = feed_meter_learn(p, r);

	if (err || !p->kind->learn)
		return err;
	i = frc_map_get(&p->pids, pid);
	if (i == NIL && (err = start_tracker(p, pid, &i)) != 0)
		return err;
	p->kind->learn(p->slots[i].t, r);
	return 0;
}

int pipeline_feed(struct pipeline *p, const struct frc_record *r)
{
	uint32_t i;
	int err;

	if (!p->meter) {
		err = p->mk->create(&p->meter, &p->cfg.meter, r->ktime_ns, p->cfg.has_sysfs);
		if (err)
			return err;
		p->max_ktime = r->ktime_ns;
		if (r->ktime_ns > UINT64_MAX - p->tick_ns)
			p->ticks_over = true;
		else
			p->next_tick = r->ktime_ns + p->tick_ns;
	}
	/* A tick at T has seen every record with ktime <= T. */
	if (p->cfg.synthesize_ticks) {
		err = emit_due_ticks(p, r->ktime_ns, false);
		if (err)
			return err;
	}
	p->st.records++;
	if (r->ktime_ns > p->max_ktime)
		p->max_ktime = r->ktime_ns;
	/* before the record itself: a PID's first frame makes it the target for that frame */
	target_record(p->target, r);

	switch (r->type) {
	case FRC_FRAME:
		return feed_frame(p, r);
	case FRC_SYSFS: {
		size_t len = r->u.sysfs.len;

		p->mk->sysfs(p->meter, r->u.sysfs.err, r->u.sysfs.raw,
			     len < FRC_SYSFS_MAX ? len : FRC_SYSFS_MAX);
		return 0;
	}
	case FRC_DROPS:
		p->st.drops = r->u.drops.cumulative;
		return 0;
	case FRC_ATTACH:
		err = feed_meter_learn(p, r);
		return err ? err : start_tracker(p, r->u.attach.pid, &i);
	case FRC_EXIT:
		i = frc_map_get(&p->pids, r->u.exit.pid);
		if (i != NIL)
			forget_slot(p, i);
		return feed_meter_learn(p, r);
	case FRC_TICK:
		/* the live readings; a replay that synthesizes its own ticks reads at those */
		if (!p->cfg.synthesize_ticks)
			emit_reading(p, r->ktime_ns, r);
		return 0;
	case FRC_VSYNC: /* display capture: the display's refresh, for a meter that uses it */
		if (p->mk->vsync)
			p->mk->vsync(p->meter, r->u.vsync.period_ns);
		return 0;
	case FRC_PRESENT: /* display capture: a vsync the display presented at */
		if (p->mk->present)
			p->mk->present(p->meter, r->u.present.actual);
		return 0;
	case FRC_POLL: /* display capture: every row signalled by then is in */
		if (p->mk->poll)
			p->mk->poll(p->meter, r->ktime_ns);
		return 0;
	case FRC_LAYER: /* display capture's bookkeeping: no heuristic reads it */
	case FRC_PRESENT_GAP:
		return 0;
	case FRC_THREAD:
		return feed_learn(p, r, r->u.thread.pid);
	case FRC_BUFFER:
		return feed_learn(p, r, r->u.buffer.pid);
	case FRC_CONNECT:
		return feed_learn(p, r, r->u.connect.pid);
	default:
		p->st.unknown++;
		return 0;
	}
}

int pipeline_finish(struct pipeline *p)
{
	if (p->meter && p->cfg.synthesize_ticks)
		return emit_due_ticks(p, p->max_ktime, true);
	return 0;
}
