/* SPDX-License-Identifier: MIT */
/*
 * content_tracker.c - the `content` tracker: the content series of each process
 * (heuristics/README.md "content (ours)").
 *
 * One struct content (content.h) per process. A frame is content_frame_delta on its surface
 * and thread, so the deltas are exactly the content series the analyzer's truth takes of
 * the target process: the same rule, run incrementally here, live or replayed. What the
 * capture says of the process besides its frames (thread names, buffer geometry, Surface
 * connect/disconnect) goes to the same instance through the kind's `learn` op.
 */
#include <errno.h>
#include <stdlib.h>

#include "content.h"
#include "content_tracker.h"

struct content_tracker {
	struct content *c;
	struct tracker_stats st;
};

int content_tracker_new(void **out, const struct tracker_config *cfg)
{
	struct content_tracker *t;
	/* max_buffers bounds every kind's keys; this one's keys are surfaces, fewer still */
	uint32_t cap = cfg->max_buffers < CONTENT_SURFACES ? cfg->max_buffers : CONTENT_SURFACES;
	int err;

	*out = NULL;
	if (cfg->max_buffers < 1)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	err = content_new(&t->c, cap);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void content_tracker_free(void *tp)
{
	struct content_tracker *t = tp;

	if (!t)
		return;
	content_free(t->c);
	free(t);
}

bool content_tracker_record(void *tp, uint64_t ktime_ns, const struct frc_frame *f,
			    uint64_t *delta_ns)
{
	struct content_tracker *t = tp;

	t->st.records++;
	if (!content_frame_delta(t->c, content_frame_time(ktime_ns, f), f->surface, f->tid,
				 delta_ns))
		return false;
	t->st.deltas++;
	return true;
}

void content_tracker_learn(void *tp, const struct frc_record *r)
{
	struct content_tracker *t = tp;
	uint64_t surface = r->type == FRC_BUFFER    ? r->u.buffer.surface
			   : r->type == FRC_CONNECT ? r->u.connect.surface
						    : 0;

	content_learn(t->c, r, surface);
}

void content_tracker_stats(const void *tp, struct tracker_stats *st)
{
	const struct content_tracker *t = tp;

	*st = t->st;
	st->buffers = content_surfaces(t->c);
	st->buffers_evicted = content_evicted(t->c);
}
