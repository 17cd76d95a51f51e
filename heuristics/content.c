/* SPDX-License-Identifier: MIT */
/*
 * content.c - the content rule (content.h, heuristics/README.md "Content surface").
 *
 * A process has few surfaces (a window, a SurfaceView or two, a codec's): they are kept
 * in a small array searched linearly from the last one called, which is the one called
 * next nearly always. Each keeps its last CONTENT_RATE_MAX call times for rule 3.
 */
#include "content.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define THREADS_MAX 256
#define NIL UINT32_MAX

struct cs {
	uint64_t surface;
	uint64_t last_ns;
	uint64_t area;	 /* 0: unknown */
	uint32_t tid;	 /* the thread of its last call */
	bool connected;	 /* not disconnected since it was last seen connecting */
	bool called;	 /* called since its last connect (or ever) */
	uint32_t ring_n; /* call times kept, up to CONTENT_RATE_MAX */
	uint32_t ring_head;
	uint64_t ring[CONTENT_RATE_MAX];
};

struct thread_info {
	uint32_t tid;
	bool ui;
};

struct content {
	struct cs *s;
	uint32_t n, cap;
	uint32_t hint;	 /* the slot called last */
	uint32_t leader; /* NIL: none */
	enum content_reason why;
	uint64_t next_rerank_ns; /* the rates are compared again from then on */
	bool has_series;	 /* the leader called since it became the leader ... */
	uint64_t series_ns;	 /* ... last at this time (content_frame_delta) */
	struct thread_info threads[THREADS_MAX];
	uint32_t n_threads, next_thread; /* next_thread: round-robin replacement */
	uint64_t evicted;		 /* surfaces forgotten for a new one (take_slot) */
};

const char *content_reason_name(enum content_reason r)
{
	static const char *const names[] = {"none",	   "only surface", "thread name",
					    "buffer area", "call rate",	   "kept"};
	return r <= CONTENT_KEPT ? names[r] : "?";
}

int content_new(struct content **out, uint32_t max_surfaces)
{
	struct content *c;
	*out = NULL;
	if (max_surfaces < 1 || max_surfaces > 4096)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->s = calloc(max_surfaces, sizeof(*c->s));
	if (!c->s) {
		free(c);
		return -ENOMEM;
	}
	c->cap = max_surfaces;
	c->leader = NIL;
	*out = c;
	return 0;
}

void content_free(struct content *c)
{
	if (!c)
		return;
	free(c->s);
	free(c);
}

bool content_is_ui_thread(const char *name)
{
	return !strcmp(name, "RenderThread") || !strncmp(name, "hwuiTask", 8);
}

static struct thread_info *find_thread(struct content *c, uint32_t tid)
{
	for (uint32_t i = 0; i < c->n_threads; i++)
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	return NULL;
}

void content_thread_name(struct content *c, uint32_t tid, const char *name)
{
	struct thread_info *t = find_thread(c, tid);
	if (!t) {
		if (c->n_threads < THREADS_MAX)
			t = &c->threads[c->n_threads++];
		else
			t = &c->threads[c->next_thread++ % THREADS_MAX];
	}
	t->tid = tid;
	t->ui = content_is_ui_thread(name);
}

static uint32_t find(struct content *c, uint64_t surface)
{
	if (c->hint < c->n && c->s[c->hint].surface == surface)
		return c->hint;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->s[i].surface == surface)
			return i;
	return NIL;
}

/* A new slot for surface: a free one, else the least recently called non-leader's. */
static uint32_t take_slot(struct content *c, uint64_t surface)
{
	uint32_t i = c->n;
	if (c->n < c->cap) {
		c->n++;
	} else {
		i = NIL;
		for (uint32_t k = 0; k < c->n; k++)
			if (k != c->leader && (i == NIL || c->s[k].last_ns < c->s[i].last_ns))
				i = k;
		if (i == NIL)
			i = 0; /* cap 1: the leader itself */
		c->evicted++;
		if (i == c->leader) {
			c->leader = NIL;
			c->has_series = false;
		}
	}
	memset(&c->s[i], 0, sizeof(c->s[i]));
	c->s[i].surface = surface;
	c->s[i].connected = true;
	return i;
}

static bool alive(const struct cs *s, uint64_t t)
{
	return s->connected && s->called && s->last_ns + CONTENT_SILENT_NS >= t;
}

static bool is_ui(struct content *c, const struct cs *s)
{
	struct thread_info *ti = find_thread(c, s->tid);
	return ti && ti->ui;
}

static uint32_t rate(const struct cs *s, uint64_t t)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->ring_n; i++)
		n += s->ring[i] + CONTENT_RATE_WINDOW_NS > t;
	return n;
}

/*
 * Which tier puts a ahead of b (> 0), b ahead of a (< 0), or 0 for a tie; *tier = which.
 * A challenger's rate must beat the leader's by CONTENT_RATE_MARGIN to count (b_leads).
 */
static int rank(struct content *c, const struct cs *a, const struct cs *b, uint64_t t, bool b_leads,
		enum content_reason *tier)
{
	bool ua = is_ui(c, a), ub = is_ui(c, b);
	if (ua != ub) {
		*tier = CONTENT_THREAD;
		return ua ? -1 : 1;
	}
	if (a->area && b->area && a->area != b->area) {
		*tier = CONTENT_AREA;
		return a->area > b->area ? 1 : -1;
	}
	uint64_t ra = rate(a, t), rb = rate(b, t);
	*tier = CONTENT_RATE;
	if (b_leads)
		return ra * CONTENT_RATE_MARGIN_DEN > rb * CONTENT_RATE_MARGIN_NUM ? 1 : 0;
	return ra == rb ? 0 : ra > rb ? 1 : -1;
}

/* Choose among the live surfaces; the leader wins ties. True when the leader changed. */
static bool evaluate(struct content *c, uint64_t t)
{
	uint32_t best = c->leader != NIL && alive(&c->s[c->leader], t) ? c->leader : NIL;
	enum content_reason tier;
	for (uint32_t i = 0; i < c->n; i++)
		if (i != best && alive(&c->s[i], t) &&
		    (best == NIL ||
		     rank(c, &c->s[i], &c->s[best], t, best == c->leader, &tier) > 0))
			best = i;
	/*
	 * why: how the winner stands against its closest rival, the one it beats only at the
	 * latest tier (THREAD < AREA < RATE < KEPT, a tie it wins as the leader).
	 */
	enum content_reason why = best == NIL ? CONTENT_NONE : CONTENT_ONLY;
	for (uint32_t i = 0; best != NIL && i < c->n; i++) {
		if (i == best || !alive(&c->s[i], t))
			continue;
		enum content_reason w =
		    rank(c, &c->s[best], &c->s[i], t, false, &tier) == 0 ? CONTENT_KEPT : tier;
		if (why == CONTENT_ONLY || w > why)
			why = w;
	}
	bool changed = best != c->leader;
	if (changed)
		c->has_series = false; /* no interval across a change of the content */
	c->leader = best;
	c->why = why;
	return changed;
}

bool content_frame(struct content *c, uint64_t t, uint64_t surface, uint32_t tid)
{
	uint32_t i = find(c, surface);
	if (i == NIL)
		i = take_slot(c, surface);
	struct cs *s = &c->s[i];
	bool first = !s->called || !s->connected;
	c->hint = i;
	s->called = true;
	s->connected = true;
	s->last_ns = t;
	s->tid = tid;
	s->ring[s->ring_head] = t;
	s->ring_head = (s->ring_head + 1) % CONTENT_RATE_MAX;
	if (s->ring_n < CONTENT_RATE_MAX)
		s->ring_n++;
	bool silent = c->leader != NIL && c->leader != i && !alive(&c->s[c->leader], t);
	bool rerank = t >= c->next_rerank_ns;
	if (c->leader == NIL || first || silent || rerank) {
		c->next_rerank_ns = t + CONTENT_RATE_WINDOW_NS;
		return evaluate(c, t);
	}
	return false;
}

bool content_frame_delta(struct content *c, uint64_t t, uint64_t surface, uint32_t tid,
			 uint64_t *delta_ns)
{
	uint64_t prev = c->series_ns;
	bool had = c->has_series;
	content_frame(c, t, surface, tid);
	if (c->leader == NIL || c->s[c->leader].surface != surface)
		return false;
	/* has_series was cleared if this call changed the leader: the series starts here */
	had = had && c->has_series;
	c->has_series = true;
	c->series_ns = t;
	if (!had || t <= prev)
		return false; /* the first call of a series; a zero or backward interval is none */
	*delta_ns = t - prev;
	return true;
}

int64_t content_frame_stamp(const struct frc_frame *f)
{
	return f->has_timestamp && f->timestamp > 0 ? f->timestamp : 0;
}

uint64_t content_frame_time(uint64_t ktime, const struct frc_frame *f)
{
	int64_t stamp = content_frame_stamp(f);
	if (!stamp)
		return ktime;
	uint64_t ts = (uint64_t)stamp;
	return ts > ktime && ts - ktime <= CONTENT_TIMESTAMP_MAX_AHEAD_NS ? ts : ktime;
}

void content_geometry(struct content *c, uint64_t surface, uint32_t w, uint32_t h)
{
	uint32_t i = find(c, surface);
	uint64_t area = (uint64_t)w * h;
	if (i == NIL)
		i = take_slot(c, surface);
	if (area > c->s[i].area)
		c->s[i].area = area;
}

void content_connect(struct content *c, uint64_t t, uint64_t surface)
{
	uint32_t i = find(c, surface);
	(void)t;
	if (i == NIL) {
		take_slot(c, surface);
		return;
	}
	/* a new Surface, maybe at a destroyed one's address: nothing of the old carries over */
	bool was_leader = i == c->leader;
	memset(&c->s[i], 0, sizeof(c->s[i]));
	c->s[i].surface = surface;
	c->s[i].connected = true;
	if (was_leader) {
		c->leader = NIL;
		c->has_series = false;
	}
}

bool content_disconnect(struct content *c, uint64_t t, uint64_t surface)
{
	uint32_t i = find(c, surface);
	if (i == NIL)
		return false;
	c->s[i].connected = false;
	return i == c->leader ? evaluate(c, t) : false;
}

void content_learn(struct content *c, const struct frc_record *r, uint64_t surface)
{
	const struct frc_buffer *b = &r->u.buffer;

	if (r->type == FRC_THREAD)
		content_thread_name(c, r->u.thread.tid, r->u.thread.name);
	else if (r->type == FRC_BUFFER && b->width > 0 && b->height > 0)
		content_geometry(c, surface, (uint32_t)b->width, (uint32_t)b->height);
	else if (r->type == FRC_CONNECT && r->u.connect.connected)
		content_connect(c, r->ktime_ns, surface);
	else if (r->type == FRC_CONNECT)
		(void)content_disconnect(c, r->ktime_ns, surface);
}

bool content_at(struct content *c, uint64_t t)
{
	if (c->leader == NIL || alive(&c->s[c->leader], t))
		return false;
	return evaluate(c, t);
}

uint64_t content_surface(const struct content *c, enum content_reason *why)
{
	if (why)
		*why = c->leader == NIL ? CONTENT_NONE : c->why;
	return c->leader == NIL ? 0 : c->s[c->leader].surface;
}

uint32_t content_surfaces(const struct content *c)
{
	return c->n;
}

uint64_t content_evicted(const struct content *c)
{
	return c->evicted;
}
