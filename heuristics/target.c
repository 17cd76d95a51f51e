/* SPDX-License-Identifier: MIT */
/*
 * target.c - the target process (target.h, heuristics/README.md "Target process").
 *
 * Each remembered PID has a rank: the start's targets rank below every followed one, the
 * first listed highest among them; a followed PID takes the next rank of a counter, so
 * the PID attached last ranks highest. The target is the best-ranked alive PID that drew,
 * else the best-ranked alive one. TARGET_MAX entries, searched linearly: a capture has a
 * handful of targets.
 */
#include "target.h"

#include <errno.h>
#include <stdlib.h>

struct target_pid {
	uint32_t pid;
	uint64_t rank;
	bool alive; /* attached, no exit since */
	bool drew;  /* queued a frame since it was attached */
};

struct target {
	struct target_pid p[TARGET_MAX];
	uint32_t n;
	uint64_t next_rank; /* followed PIDs: TARGET_MAX + 1, + 2, ... */
	uint32_t current;
	bool known;
	/* a PID alive and drawn already, whose frames change nothing (the common case: a run
	 * of one process's frames skips the search); 0 none, cleared by attach and exit */
	uint32_t settled;
};

static uint32_t choose(const struct target *t);

/* Parse "1,22,333" into t's start targets; -EINVAL unless every item is 1..2^32-1 (an
 * empty value too: framerec writes the key only with a PID). */
static int parse_meta(struct target *t, const char *s)
{
	if (!*s)
		return -EINVAL;
	while (*s) {
		uint64_t v = 0;
		const char *start = s;
		for (; *s >= '0' && *s <= '9'; s++) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > UINT32_MAX)
				return -EINVAL;
		}
		if (s == start || v == 0 || (*s && *s != ','))
			return -EINVAL;
		if (*s == ',' && !*++s)
			return -EINVAL; /* a trailing comma */
		if (t->n < TARGET_MAX) {
			/* the first listed ranks highest of the start's, below any followed */
			t->p[t->n] =
			    (struct target_pid){(uint32_t)v, TARGET_MAX - t->n, true, false};
			t->n++;
		}
	}
	t->known = t->n > 0;
	return 0;
}

int target_new(struct target **out, const char *meta_pids)
{
	struct target *t = calloc(1, sizeof(*t));
	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->next_rank = TARGET_MAX + 1;
	if (meta_pids && parse_meta(t, meta_pids) < 0) {
		free(t);
		return -EINVAL;
	}
	t->current = choose(t);
	*out = t;
	return 0;
}

void target_free(struct target *t)
{
	free(t);
}

static struct target_pid *find(struct target *t, uint32_t pid)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->p[i].pid == pid)
			return &t->p[i];
	return NULL;
}

/* A slot for a new PID: a free one, else the lowest-ranked exited one, else the lowest. */
static struct target_pid *slot(struct target *t)
{
	struct target_pid *low = NULL, *low_dead = NULL;
	if (t->n < TARGET_MAX)
		return &t->p[t->n++];
	for (uint32_t i = 0; i < t->n; i++) {
		struct target_pid *e = &t->p[i];
		if (!low || e->rank < low->rank)
			low = e;
		if (!e->alive && (!low_dead || e->rank < low_dead->rank))
			low_dead = e;
	}
	return low_dead ? low_dead : low;
}

static uint32_t choose(const struct target *t)
{
	const struct target_pid *best = NULL;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct target_pid *e = &t->p[i];
		if (!e->alive)
			continue;
		/* one that drew beats one that did not, then the higher rank */
		if (!best || e->drew > best->drew ||
		    (e->drew == best->drew && e->rank > best->rank))
			best = e;
	}
	return best ? best->pid : 0;
}

static void attach(struct target *t, uint32_t pid)
{
	struct target_pid *e = find(t, pid);
	t->known = true;
	/* framerec writes one attach per symbol: a PID alive already is the same process */
	if (e && e->alive)
		return;
	/* a new process, or a PID attached again after its exit (a restart that reused it) */
	if (!e)
		e = slot(t);
	*e = (struct target_pid){pid, t->next_rank++, true, false};
}

bool target_record(struct target *t, const struct frc_record *r)
{
	uint32_t before = t->current;
	struct target_pid *e;
	switch (r->type) {
	case FRC_ATTACH:
		t->settled = 0;
		attach(t, r->u.attach.pid);
		break;
	case FRC_EXIT:
		t->settled = 0;
		if ((e = find(t, r->u.exit.pid)))
			e->alive = e->drew = false;
		break;
	case FRC_FRAME:
		if (r->u.frame.pid == t->settled)
			return false;
		e = find(t, r->u.frame.pid);
		if (!e || !e->alive || e->drew) {
			if (e && e->alive)
				t->settled = e->pid; /* nothing changes until an attach or exit */
			return false;
		}
		e->drew = true;
		break;
	default:
		return false;
	}
	t->current = choose(t);
	return t->current != before;
}

uint32_t target_pid(const struct target *t)
{
	return t->current;
}

bool target_known(const struct target *t)
{
	return t->known;
}
