/* SPDX-License-Identifier: MIT */
/*
 * tracker_kind.c - the table of tracker implementations (see tracker_kind.h and
 * heuristics/README.md, which states every rule and its source).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "content_tracker.h"
#include "main_surface.h"
#include "tracker_kind.h"
#include "heur_names.h"

/* kala and surface: Kala's FrameTracker (tracker.c), keyed on the buffer or the surface. */
static int kala_create(void **out, const struct tracker_config *cfg)
{
	return tracker_new((struct tracker **)out, cfg);
}

static void kala_destroy(void *t)
{
	tracker_free(t);
}

static bool kala_record(void *t, uint64_t ktime_ns, const struct frc_frame *f, uint64_t *delta)
{
	return tracker_record(t, ktime_ns, f->buffer, delta);
}

static bool surface_record(void *t, uint64_t ktime_ns, const struct frc_frame *f, uint64_t *delta)
{
	return tracker_record(t, ktime_ns, f->surface, delta);
}

static void kala_stats(const void *t, struct tracker_stats *st)
{
	tracker_stats(t, st);
}

/* process: one key, every consecutive pair of calls of the process. */
struct process_tracker {
	bool seen;
	uint64_t last_ns;
	struct tracker_stats st;
};

static int process_create(void **out, const struct tracker_config *cfg)
{
	(void)cfg;
	*out = calloc(1, sizeof(struct process_tracker));
	return *out ? 0 : -ENOMEM;
}

static void process_destroy(void *t)
{
	free(t);
}

static bool process_record(void *tp, uint64_t ktime_ns, const struct frc_frame *f, uint64_t *delta)
{
	struct process_tracker *t = tp;
	uint64_t d = ktime_ns > t->last_ns ? ktime_ns - t->last_ns : 0;
	bool first = !t->seen;

	(void)f;
	t->st.records++;
	t->seen = true;
	t->last_ns = ktime_ns; /* as Kala: follows time even backwards */
	if (first || d == 0)
		return false;
	t->st.deltas++;
	*delta = d;
	return true;
}

static void process_stats(const void *tp, struct tracker_stats *st)
{
	const struct process_tracker *t = tp;

	*st = t->st;
	st->buffers = t->seen;
}

/* main-surface: main_surface.c */
static int main_create(void **out, const struct tracker_config *cfg)
{
	return main_surface_new((struct main_surface **)out, cfg);
}

static void main_destroy(void *t)
{
	main_surface_free(t);
}

static bool main_record(void *t, uint64_t ktime_ns, const struct frc_frame *f, uint64_t *delta)
{
	return main_surface_record(t, ktime_ns, f->surface, delta);
}

static void main_stats(const void *t, struct tracker_stats *st)
{
	main_surface_stats(t, st);
}

static const struct tracker_kind kinds[] = {
    {"kala", "per-buffer delta history; reports the active buffer's deltas (the default)",
     "pavelc4/kala@be1061b kala/src/tracker.rs", kala_create, kala_destroy, kala_record, kala_stats,
     NULL, false},
    {"surface", "Kala's rule keyed on the Surface pointer instead of the buffer",
     "fas-rs frame-analyzer (surface-keyed)", kala_create, kala_destroy, surface_record, kala_stats,
     NULL, false},
    {"process", "every consecutive pair of calls of the process is a frame time",
     "fas-rs frame-analyzer before it keyed on surfaces", process_create, process_destroy,
     process_record, process_stats, NULL, false},
    {"main-surface", "intervals of the process's main surface (most calls, stale handover)",
     "ours (issue 12)", main_create, main_destroy, main_record, main_stats, NULL, false},
    /* content: content_tracker.c; the only kind that learns and meters the target only */
    {"content", "intervals of the process's content surface (non-UI thread, largest buffers, rate)",
     "ours (issue 19): the content rule of heuristics/content.h, the truth's", content_tracker_new,
     content_tracker_free, content_tracker_record, content_tracker_stats, content_tracker_learn,
     true},
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct tracker_kind *tracker_kind_find(const char *name)
{
	for (size_t i = 0; name && i < N_KINDS; i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const struct tracker_kind *tracker_kind_at(size_t i)
{
	return i < N_KINDS ? &kinds[i] : NULL;
}

size_t tracker_kind_count(void)
{
	return N_KINDS;
}

static const char *kind_name(size_t i)
{
	return kinds[i].name;
}

size_t tracker_kind_names(char *buf, size_t len)
{
	return heur_join_names(kind_name, N_KINDS, buf, len);
}
