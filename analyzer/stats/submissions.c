/* SPDX-License-Identifier: MIT */
/* submissions.c - the capture's submissions: the truth and its series (submissions.h). */
#include "submissions.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "content_procs.h"
#include "frc_map.h"
#include "target.h"

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
	/* the rule (count_end) and the override (replay_info.truth) */
	struct replay_truth opt;
	bool has_attach; /* the capture has attach records */
	struct subm_truth truth;
	/* SUBM_RULE_CONTENT's state: the target (NULL: a fixed PID), one instance per PID */
	struct target *target;
	struct content_procs procs; /* procs.cur: the truth's PID's instance, or NULL */
	uint32_t cur_pid;	    /* the truth's PID now */
	uint64_t period; /* +1 at every target switch and attach/exit of the truth's PID */
	struct subm_change *changes;
	uint32_t note_pid;     /* the truth noted last ... */
	uint64_t note_surface; /* ... its surface */
	bool note_kept;	       /* ... and it is changes[n_changes - 1] */
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

static const struct subm_pid *pid_entry(const struct submissions *t, uint32_t pid)
{
	uint32_t i = t->index.e ? frc_map_get(&t->index, pid) : FRC_MAP_NONE;

	return i == FRC_MAP_NONE ? NULL : &t->pids[i].info;
}

/*
 * The records the content rule ranks by: thread names (and, with the buffer and connect
 * records, geometry and lifetime). A capture without any predates them: the count rule.
 */
static bool has_identity(const struct frc_reader_stats *st)
{
	return st->by_type[FRC_THREAD] > 0 || st->by_type[FRC_BUFFER] > 0 ||
	       st->by_type[FRC_CONNECT] > 0;
}

/*
 * --surface: its PID (--pid's, else the one with the most calls of it; ties the smaller)
 * becomes the main PID, the surface its main surface. 0, or -ENOENT when no PID has it.
 */
static int choose_surface(struct submissions *t, const char *path)
{
	struct subm_pid *best = NULL;
	uint64_t best_calls = 0;

	for (size_t i = 0; i <= t->mask && t->pairs; i++) {
		const struct pair *p = &t->pairs[i];
		struct subm_pid *e;

		if (!p->used || p->surface != t->opt.surface ||
		    (t->opt.pid && p->pid != t->opt.pid))
			continue;
		e = &t->pids[frc_map_get(&t->index, p->pid)].info;
		if (!best || p->calls > best_calls ||
		    (p->calls == best_calls && e->pid < best->pid))
			best = e, best_calls = p->calls;
	}
	if (!best) {
		snprintf(t->err, sizeof(t->err),
			 "%s: --surface %#" PRIx64 ": no frame of that surface%s", path,
			 t->opt.surface, t->opt.pid ? " in that PID" : "");
		return -ENOENT;
	}
	best->main_surface = t->opt.surface;
	best->main_calls = best_calls;
	t->main_pid = best;
	return 0;
}

/* The rule (REPORT.md "Ground truth"), once the counts are known; the override checked. */
static int choose_rule(struct submissions *t, const struct replay_info *info)
{
	t->opt = info->truth;
	t->has_attach = info->stats.by_type[FRC_ATTACH] > 0;
	t->truth.rule = has_identity(&info->stats) ? SUBM_RULE_CONTENT : SUBM_RULE_COUNT;
	if (t->opt.pid) {
		const struct subm_pid *e = pid_entry(t, t->opt.pid);

		if (!e) {
			snprintf(t->err, sizeof(t->err),
				 "%s: --pid %" PRIu32 ": no frame of that PID", info->path,
				 t->opt.pid);
			return -ENOENT;
		}
		t->main_pid = e;
	}
	if (!t->opt.surface_set)
		return 0;
	t->truth.rule = SUBM_RULE_SURFACE;
	return choose_surface(t, info->path);
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
	return choose_rule(t, info);
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

static void content_reset(struct submissions *t);

void subm_free(struct submissions *t)
{
	if (!t)
		return;
	content_reset(t);
	free(t->changes);
	free(t->pairs);
	free(t->pids);
	if (t->index.e)
		frc_map_free(&t->index);
	free(t);
}

uint64_t subm_pair_calls(const struct submissions *t, uint32_t pid, uint64_t surface)
{
	const struct pair *p;

	if (!t->pairs)
		return 0;
	p = &t->pairs[pair_slot(t, pid, surface)];
	return p->used ? p->calls : 0;
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
	t->last_valid = false;
}

static void forget_pid(struct submissions *t, uint32_t pid)
{
	uint32_t i = frc_map_get(&t->index, pid);

	if (i != FRC_MAP_NONE)
		t->pids[i].seen = false;
}

const char *subm_why_name(unsigned why)
{
	if (why == SUBM_WHY_COUNT)
		return "call count";
	if (why == SUBM_WHY_OPTION)
		return "--surface";
	return why <= CONTENT_KEPT ? content_reason_name((enum content_reason)why) : "?";
}

/*
 * Whether why a says more than b: a rival beaten at an earlier tier (thread name, then
 * area, rate, kept) than "only surface" (no rival), so a content keeps the strongest
 * reason that held it (a game chosen over the HUD by thread name stays so when the HUD
 * pauses and it is the only surface for a while).
 */
static bool stronger(unsigned a, unsigned b)
{
	bool rival_a = a >= CONTENT_THREAD && a <= CONTENT_KEPT;
	bool rival_b = b >= CONTENT_THREAD && b <= CONTENT_KEPT;

	return rival_a && (!rival_b || a < b);
}

/* The truth is pid's surface from ktime on (a change), or still is (its why updated). */
static void note(struct submissions *t, uint64_t ktime, uint32_t pid, uint64_t surface,
		 unsigned why)
{
	struct subm_truth *tr = &t->truth;

	if (!tr->changes_total && !surface && tr->rule == SUBM_RULE_CONTENT)
		return; /* no content yet is where every capture starts, not a change */
	if (tr->changes_total && t->note_pid == pid && t->note_surface == surface) {
		if (t->note_kept && surface && stronger(why, t->changes[tr->n_changes - 1].why))
			t->changes[tr->n_changes - 1].why = why;
		return;
	}
	tr->changes_total++;
	t->note_pid = pid;
	t->note_surface = surface;
	t->note_kept = tr->n_changes < SUBM_MAX_CHANGES;
	if (t->note_kept)
		t->changes[tr->n_changes++] = (struct subm_change){
		    .ktime_ns = ktime, .pid = pid, .surface = surface, .why = why};
}

/* A frame time of the truth: counted in the change it belongs to. */
static void count_truth(struct submissions *t)
{
	if (t->note_kept)
		t->changes[t->truth.n_changes - 1].frames++;
}

/* The truth interval a frame closes, as a pipeline delta (every sink takes deltas). */
static struct pipeline_delta truth_delta(const struct frc_record *rec, uint64_t frame_seq,
					 uint64_t delta)
{
	const struct frc_frame *f = &rec->u.frame;

	return (struct pipeline_delta){.pid = f->pid,
				       .seq = frame_seq,
				       .ktime_ns = rec->ktime_ns,
				       .buffer = f->buffer,
				       .surface = f->surface,
				       .delta_ns = delta};
}

/* A frame's step of its PID's series (SUBM_RULE_COUNT and _SURFACE). */
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
	*d = truth_delta(rec, frame_seq, delta);
	if (&ps->info == t->main_pid)
		count_truth(t);
	return true;
}

/* ------------------------------------------------------------ the content rule */

static void content_reset(struct submissions *t)
{
	content_procs_clear(&t->procs);
	target_free(t->target);
	t->target = NULL;
	t->cur_pid = 0;
	t->period = 1;
}

/* pid's instance (content_procs_get); NULL when out of memory (t->oom: the views fail). */
static struct content_proc *inst_get(struct submissions *t, uint32_t pid)
{
	struct content_proc *in = content_procs_get(&t->procs, pid);

	if (!in)
		t->truth.oom = true;
	return in;
}

/*
 * The truth's PID is pid from ktime on: a new series, its content as its instance says
 * (noted now unless a frame of it follows at once: it says what the content is).
 */
static void switch_to(struct submissions *t, uint32_t pid, uint64_t ktime, bool noted)
{
	enum content_reason why = CONTENT_NONE;
	uint64_t surface = 0;

	t->cur_pid = pid;
	t->procs.cur = pid ? inst_get(t, pid) : NULL;
	t->period++;
	if (t->procs.cur)
		surface = content_surface(t->procs.cur->c, &why);
	if (noted)
		note(t, ktime, pid, surface, why);
}

/*
 * A thread, buffer or connect record, to its PID's instance (content_learn); for the
 * truth's PID a disconnect of the content (or a connect at its address: a new Surface)
 * changes it now.
 */
static void content_learned(struct submissions *t, const struct frc_record *rec)
{
	uint32_t pid = rec->type == FRC_THREAD	 ? rec->u.thread.pid
		       : rec->type == FRC_BUFFER ? rec->u.buffer.pid
						 : rec->u.connect.pid;
	uint64_t surface = rec->type == FRC_BUFFER    ? rec->u.buffer.surface
			   : rec->type == FRC_CONNECT ? rec->u.connect.surface
						      : 0;
	struct content_proc *in = inst_get(t, pid);
	enum content_reason why;

	if (!in)
		return;
	content_learn(in->c, rec, surface);
	if (rec->type != FRC_CONNECT || pid != t->cur_pid)
		return;
	surface = content_surface(in->c, &why);
	note(t, rec->ktime_ns, pid, surface, why);
}

/* attach, exit, thread, buffer and connect records under the content rule (idempotent:
 * every consumer gives each record; a repeated connect finds a surface new already). */
static void content_event(struct submissions *t, const struct frc_record *rec)
{
	uint32_t pid = rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid;
	struct content_proc *in;

	if (rec->type == FRC_THREAD || rec->type == FRC_BUFFER || rec->type == FRC_CONNECT) {
		content_learned(t, rec);
		return;
	}
	if (rec->type != FRC_ATTACH && rec->type != FRC_EXIT)
		return;
	/* a new process life: no interval across it; an exited process's surfaces are gone */
	if (pid == t->cur_pid)
		t->period++;
	if (rec->type == FRC_EXIT && (in = content_procs_find(&t->procs, pid)))
		content_procs_drop(&t->procs, in);
	if (t->target && target_record(t->target, rec))
		switch_to(t, target_pid(t->target), rec->ktime_ns, true);
}

/* A frame under the content rule: the target's content series (content_frame_delta). */
static bool content_step(struct submissions *t, const struct frc_record *rec, uint64_t frame_seq,
			 struct pipeline_delta *d)
{
	const struct frc_frame *f = &rec->u.frame;
	enum content_reason why;
	uint64_t delta = 0, surface;
	bool has;

	if (t->target && target_record(t->target, rec))
		switch_to(t, target_pid(t->target), rec->ktime_ns, false);
	if (f->pid != t->cur_pid || (!t->procs.cur && !(t->procs.cur = inst_get(t, f->pid))))
		return false;
	has = content_frame_delta(t->procs.cur->c, content_frame_time(rec->ktime_ns, f), f->surface,
				  f->tid, &delta);
	surface = content_surface(t->procs.cur->c, &why);
	note(t, rec->ktime_ns, f->pid, surface, why);
	if (surface != f->surface)
		return false;
	/* content_frame_delta breaks at a change of the content; the period at the target's */
	has = has && t->procs.cur->period == t->period;
	t->procs.cur->period = t->period;
	if (!has)
		return false;
	*d = truth_delta(rec, frame_seq, delta);
	count_truth(t);
	return true;
}

/* The content rule's start: the target from the metadata, else a fixed PID. */
static int content_begin(struct submissions *t, const struct replay_info *info, char *err,
			 size_t errlen)
{
	const char *meta = info->reader ? frc_reader_meta_get(info->reader, "target.pid") : NULL;
	int rc;

	t->truth.pid_rule = t->opt.pid		    ? SUBM_PID_OPTION
			    : meta || t->has_attach ? SUBM_PID_TARGET
						    : SUBM_PID_BUSIEST;
	if (t->truth.pid_rule != SUBM_PID_TARGET) {
		if (t->main_pid)
			switch_to(t, t->main_pid->pid, info->stats.first_ktime_ns, true);
		return t->truth.oom ? -ENOMEM : 0;
	}
	rc = target_new(&t->target, meta);
	if (rc == -EINVAL)
		snprintf(err, errlen, "%s: metadata target.pid '%s': not a list of PIDs",
			 info->path, meta);
	else if (rc)
		snprintf(err, errlen, "%s: out of memory", info->path);
	else if (target_pid(t->target))
		switch_to(t, target_pid(t->target), info->stats.first_ktime_ns, true);
	return rc;
}

int subm_series_begin(struct submissions *t, const struct replay_info *info, char *err,
		      size_t errlen)
{
	struct subm_truth *tr = &t->truth;

	subm_series_reset(t);
	content_reset(t);
	if (!t->changes && !(t->changes = calloc(SUBM_MAX_CHANGES, sizeof(*t->changes)))) {
		snprintf(err, errlen, "%s: out of memory", info->path);
		return -ENOMEM;
	}
	*tr = (struct subm_truth){.rule = tr->rule, .changes = t->changes};
	t->note_kept = false;
	if (tr->rule == SUBM_RULE_CONTENT)
		return content_begin(t, info, err, errlen);
	tr->pid_rule = t->opt.pid ? SUBM_PID_OPTION : SUBM_PID_BUSIEST;
	if (t->main_pid)
		note(t, info->stats.first_ktime_ns, t->main_pid->pid, t->main_pid->main_surface,
		     tr->rule == SUBM_RULE_SURFACE ? SUBM_WHY_OPTION : SUBM_WHY_COUNT);
	return 0;
}

uint32_t subm_truth_pid(const struct submissions *t)
{
	if (t->truth.rule == SUBM_RULE_CONTENT)
		return t->cur_pid;
	return t->main_pid ? t->main_pid->pid : 0;
}

/* Truth intervals of changes[i]'s (PID, surface) over every kept change. */
static uint64_t pair_frames(const struct submissions *t, size_t i)
{
	const struct subm_change *c = &t->changes[i];
	uint64_t sum = 0;

	for (size_t k = 0; k < t->truth.n_changes; k++)
		if (t->changes[k].pid == c->pid && t->changes[k].surface == c->surface)
			sum += t->changes[k].frames;
	return sum;
}

/*
 * The principal content: the (PID, surface) with the most truth intervals (ties: the first
 * to be the truth), its why that of its change with the most of them. Quadratic in the
 * kept changes (SUBM_MAX_CHANGES), asked once per view.
 */
const struct subm_truth *subm_truth(struct submissions *t)
{
	struct subm_truth *tr = &t->truth;
	size_t best = SIZE_MAX, why_at;
	uint64_t best_sum = 0;

	for (size_t i = 0; i < tr->n_changes; i++) {
		uint64_t sum;

		if (!t->changes[i].pid)
			continue;
		sum = pair_frames(t, i);
		if (best == SIZE_MAX || sum > best_sum)
			best = i, best_sum = sum;
	}
	tr->has = best != SIZE_MAX;
	if (!tr->has)
		return tr;
	why_at = best;
	for (size_t i = best; i < tr->n_changes; i++)
		if (t->changes[i].pid == t->changes[best].pid &&
		    t->changes[i].surface == t->changes[best].surface &&
		    t->changes[i].frames > t->changes[why_at].frames)
			why_at = i;
	tr->pid = t->changes[best].pid;
	tr->surface = t->changes[best].surface;
	tr->frames = best_sum;
	tr->why = t->changes[why_at].why;
	return tr;
}

bool subm_series_next(struct submissions *t, const struct frc_record *rec, uint64_t frame_seq,
		      struct pipeline_delta *d)
{
	bool content = t->truth.rule == SUBM_RULE_CONTENT;

	if (rec->type != FRC_FRAME) {
		/* forgetting is idempotent: every consumer may do it */
		if (content)
			content_event(t, rec);
		else if (rec->type == FRC_ATTACH || rec->type == FRC_EXIT)
			forget_pid(t,
				   rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid);
		return false;
	}
	if (frame_seq != t->memo_seq) {
		t->memo_seq = frame_seq;
		t->memo_has = content ? content_step(t, rec, frame_seq, &t->memo_d)
				      : series_frame(t, rec, frame_seq, &t->memo_d);
	}
	if (t->memo_has)
		*d = t->memo_d;
	return t->memo_has;
}

static int feed_begin(void *ctx, const struct replay_info *info)
{
	struct subm_feed *f = ctx;
	int rc = subm_series_begin(f->subm, info, f->err, sizeof(f->err));

	if (rc)
		return rc;
	return f->target.begin ? f->target.begin(f->target.ctx, info) : 0;
}

static int feed_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct subm_feed *f = ctx;
	struct pipeline_delta d;
	int rc = f->target.record ? f->target.record(f->target.ctx, rec, frame_seq) : 0;

	if (rc || !subm_series_next(f->subm, rec, frame_seq, &d))
		return rc;
	if (f->truth_only && d.pid != subm_truth_pid(f->subm))
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

	if (subm_truth(f->subm)->oom) {
		snprintf(f->err, sizeof(f->err), "%s: out of memory (content)", info->path);
		return -ENOMEM;
	}
	return f->target.end ? f->target.end(f->target.ctx, info, ps) : 0;
}

static const char *feed_error(void *ctx)
{
	struct subm_feed *f = ctx;

	if (f->err[0])
		return f->err;
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
