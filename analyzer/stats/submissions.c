/* SPDX-License-Identifier: MIT */
/* submissions.c - the capture's submissions: main surfaces and their series (submissions.h). */
#include "submissions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frc_map.h"

/* One (PID, surface) pair: an open-addressing table, linear probing, never deleted. */
struct pair {
	uint32_t pid;
	bool used;
	uint64_t surface;
	uint64_t calls;
};

struct pid_state {
	struct subm_pid info;
	bool seen;	  /* the series has a previous call */
	uint64_t last_ns; /* that call's ktime */
};

struct submissions {
	struct pair *pairs;
	size_t mask, count;
	size_t last_pair;	/* pairs[last_pair]: the previous frame's (SIZE_MAX: none) */
	struct pid_state *pids; /* sorted by pid after subm_count */
	size_t n_pids;
	struct frc_map index; /* pid -> position in pids */
	const struct subm_pid *main_pid;
	bool counted; /* the main surfaces are chosen */
	/* the previous frame's PID and its pids[] position (the index is fixed once counted) */
	bool last_valid;
	uint32_t last_pid, last_at;
	/*
	 * The last frame's answer, by its frame_seq: every consumer of one replay (the report
	 * and each score lane) asks about the same frame in turn, and only the first step may
	 * move the series (subm_series_next).
	 */
	uint64_t memo_seq;
	bool memo_has;
	struct pipeline_delta memo_d;
	char err[FRC_MSG_MAX];
};

static size_t pair_slot(const struct submissions *t, uint32_t pid, uint64_t surface)
{
	uint64_t h = (surface ^ ((uint64_t)pid << 32 | pid)) * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & t->mask;

	while (t->pairs[i].used && (t->pairs[i].pid != pid || t->pairs[i].surface != surface))
		i = (i + 1) & t->mask;
	return i;
}

static int pairs_grow(struct submissions *t)
{
	size_t cap = t->pairs ? 2 * (t->mask + 1) : 64;
	struct pair *old = t->pairs;
	size_t old_cap = old ? t->mask + 1 : 0;

	t->pairs = calloc(cap, sizeof(*t->pairs));
	if (!t->pairs) {
		t->pairs = old;
		return -ENOMEM;
	}
	t->mask = cap - 1;
	t->last_pair = SIZE_MAX; /* the pairs move */
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			t->pairs[pair_slot(t, old[i].pid, old[i].surface)] = old[i];
	free(old);
	return 0;
}

static int count_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct submissions *t = ctx;
	const struct frc_frame *f = &rec->u.frame;
	struct pair *p;

	(void)frame_seq;
	if (rec->type != FRC_FRAME)
		return 0;
	/* frames come in long runs of one pair: the previous one needs no hash */
	if (t->last_pair != SIZE_MAX && t->pairs[t->last_pair].pid == f->pid &&
	    t->pairs[t->last_pair].surface == f->surface) {
		t->pairs[t->last_pair].calls++;
		return 0;
	}
	/* Keep the table at most half full so probes stay short. */
	if (2 * (t->count + 1) > t->mask + 1) {
		if (t->count >= SUBM_MAX_PAIRS) {
			snprintf(t->err, sizeof(t->err),
				 "more than %u (pid, surface) pairs: not a real capture?",
				 SUBM_MAX_PAIRS);
			return -E2BIG;
		}
		if (pairs_grow(t))
			return -ENOMEM;
	}
	t->last_pair = pair_slot(t, f->pid, f->surface);
	p = &t->pairs[t->last_pair];
	if (!p->used) {
		*p = (struct pair){.pid = f->pid, .used = true, .surface = f->surface};
		t->count++;
	}
	p->calls++;
	return 0;
}

static const char *count_error(void *ctx)
{
	return ((struct submissions *)ctx)->err;
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = ((const struct pid_state *)a)->info.pid;
	uint32_t y = ((const struct pid_state *)b)->info.pid;

	return (x > y) - (x < y);
}

/*
 * Main surface of every PID: most calls, ties the smallest surface value. PIDs are few in
 * real captures; a hostile one with many PIDs is bounded by SUBM_MAX_PAIRS, and the
 * per-pair PID lookup goes through a map built as PIDs appear.
 */
static int select_mains(struct submissions *t)
{
	struct frc_map tmp;

	t->pids = calloc(t->count ? t->count : 1, sizeof(*t->pids));
	if (!t->pids || frc_map_init(&tmp, 4))
		return -ENOMEM;
	for (size_t i = 0; i <= t->mask && t->pairs; i++) {
		const struct pair *p = &t->pairs[i];
		uint32_t at;
		struct subm_pid *ti;

		if (!p->used)
			continue;
		at = frc_map_get(&tmp, p->pid);
		if (at == FRC_MAP_NONE) {
			at = (uint32_t)t->n_pids++;
			if (frc_map_put(&tmp, p->pid, at)) {
				frc_map_free(&tmp);
				return -ENOMEM;
			}
			t->pids[at].info =
			    (struct subm_pid){.pid = p->pid, .main_surface = p->surface};
		}
		ti = &t->pids[at].info;
		ti->calls += p->calls;
		ti->surfaces++;
		if (p->calls > ti->main_calls ||
		    (p->calls == ti->main_calls && p->surface < ti->main_surface)) {
			ti->main_surface = p->surface;
			ti->main_calls = p->calls;
		}
	}
	frc_map_free(&tmp);
	qsort(t->pids, t->n_pids, sizeof(*t->pids), cmp_pid);
	if (frc_map_init(&t->index, (uint32_t)t->n_pids + 1))
		return -ENOMEM;
	for (size_t i = 0; i < t->n_pids; i++) {
		const struct subm_pid *ti = &t->pids[i].info;

		if (frc_map_put(&t->index, ti->pid, (uint32_t)i))
			return -ENOMEM;
		if (!t->main_pid || ti->calls > t->main_pid->calls)
			t->main_pid = ti; /* increasing PIDs: a tie keeps the smaller */
	}
	return 0;
}

int subm_new(struct submissions **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->memo_seq = UINT64_MAX;
	(*out)->last_pair = SIZE_MAX;
	return 0;
}

/* The end of the counting pass: the main surfaces, before any lane of the replay begins. */
static int count_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct submissions *t = ctx;

	(void)ps;
	if (t->counted) {
		snprintf(t->err, sizeof(t->err), "%s: the submissions were counted twice",
			 info->path);
		return -EINVAL;
	}
	t->counted = true;
	if (select_mains(t)) {
		snprintf(t->err, sizeof(t->err), "%s: out of memory", info->path);
		return -ENOMEM;
	}
	return 0;
}

struct replay_sink subm_count_sink(struct submissions *t)
{
	return (struct replay_sink){
	    .ctx = t, .record = count_record, .end = count_end, .error = count_error};
}

int subm_count(const struct replay_source *src, const struct replay_options *opt,
	       struct submissions **out, char *err, size_t errlen)
{
	struct submissions *t;
	struct replay_sink sink;
	/*
	 * No lane: the counting is the scan pass alone (one read). The truth is the records
	 * themselves: no tracker is involved, so the capture's recorded one (which this build
	 * may not know) does not decide whether it counts.
	 */
	struct replay_plan plan = {.scan = &sink, .n_scan = 1};
	int rc;

	*out = NULL;
	if (subm_new(&t)) {
		snprintf(err, errlen, "%s: out of memory", src->path);
		return -ENOMEM;
	}
	sink = subm_count_sink(t);
	rc = replay_run_plan(src, opt, &plan, err, errlen);
	if (rc) {
		subm_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void subm_free(struct submissions *t)
{
	if (!t)
		return;
	free(t->pairs);
	free(t->pids);
	if (t->index.e)
		frc_map_free(&t->index);
	free(t);
}

size_t subm_pid_count(const struct submissions *t)
{
	return t->n_pids;
}

const struct subm_pid *subm_pid_at(const struct submissions *t, size_t i)
{
	return i < t->n_pids ? &t->pids[i].info : NULL;
}

const struct subm_pid *subm_main_pid(const struct submissions *t)
{
	return t->main_pid;
}

void subm_series_reset(struct submissions *t)
{
	for (size_t i = 0; i < t->n_pids; i++)
		t->pids[i].seen = false;
	t->memo_seq = UINT64_MAX;
}

static void forget_pid(struct submissions *t, uint32_t pid)
{
	uint32_t i = frc_map_get(&t->index, pid);

	if (i != FRC_MAP_NONE)
		t->pids[i].seen = false;
}

/* A frame's step of its PID's series (subm_series_next without the memo). */
static bool series_frame(struct submissions *t, const struct frc_record *rec, uint64_t frame_seq,
			 struct pipeline_delta *d)
{
	const struct frc_frame *f = &rec->u.frame;
	struct pid_state *ps;
	uint64_t delta;
	bool had;
	uint32_t i;

	if (t->last_valid && t->last_pid == f->pid) {
		i = t->last_at;
	} else {
		i = frc_map_get(&t->index, f->pid);
		t->last_valid = true, t->last_pid = f->pid, t->last_at = i;
	}
	if (i == FRC_MAP_NONE)
		return false;
	ps = &t->pids[i];
	if (f->surface != ps->info.main_surface)
		return false;
	had = ps->seen;
	delta = rec->ktime_ns > ps->last_ns ? rec->ktime_ns - ps->last_ns : 0;
	ps->seen = true;
	ps->last_ns = rec->ktime_ns;
	if (!had || delta == 0)
		return false;
	*d = (struct pipeline_delta){.pid = f->pid,
				     .seq = frame_seq,
				     .ktime_ns = rec->ktime_ns,
				     .buffer = f->buffer,
				     .surface = f->surface,
				     .delta_ns = delta};
	return true;
}

bool subm_series_next(struct submissions *t, const struct frc_record *rec, uint64_t frame_seq,
		      struct pipeline_delta *d)
{
	/* forgetting is idempotent: every consumer may do it */
	if (rec->type == FRC_ATTACH || rec->type == FRC_EXIT) {
		forget_pid(t, rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid);
		return false;
	}
	if (rec->type != FRC_FRAME)
		return false;
	if (frame_seq != t->memo_seq) {
		t->memo_seq = frame_seq;
		t->memo_has = series_frame(t, rec, frame_seq, &t->memo_d);
	}
	if (t->memo_has)
		*d = t->memo_d;
	return t->memo_has;
}

static int feed_begin(void *ctx, const struct replay_info *info)
{
	struct subm_feed *f = ctx;

	subm_series_reset(f->subm);
	return f->target.begin ? f->target.begin(f->target.ctx, info) : 0;
}

static int feed_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct subm_feed *f = ctx;
	struct pipeline_delta d;
	int rc = f->target.record ? f->target.record(f->target.ctx, rec, frame_seq) : 0;

	if (rc || !subm_series_next(f->subm, rec, frame_seq, &d))
		return rc;
	if (f->only_pid && d.pid != f->pid_filter)
		return 0;
	return f->target.delta ? f->target.delta(f->target.ctx, &d) : 0;
}

/* Before a window (replay.h): the series steps, so its first interval in it has a start. */
static int feed_warm(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct subm_feed *f = ctx;
	struct pipeline_delta d;

	(void)subm_series_next(f->subm, rec, frame_seq, &d);
	return f->target.warm_record ? f->target.warm_record(f->target.ctx, rec, frame_seq) : 0;
}

static int feed_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct subm_feed *f = ctx;

	return f->target.end ? f->target.end(f->target.ctx, info, ps) : 0;
}

static const char *feed_error(void *ctx)
{
	struct subm_feed *f = ctx;

	return f->target.error ? f->target.error(f->target.ctx) : NULL;
}

struct replay_sink subm_feed_sink(struct subm_feed *f)
{
	return (struct replay_sink){.ctx = f,
				    .begin = feed_begin,
				    .record = feed_record,
				    .end = feed_end,
				    .error = feed_error,
				    .warm_record = feed_warm};
}
