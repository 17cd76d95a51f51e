/* SPDX-License-Identifier: MIT */
/*
 * compositor.c - the stand-in SurfaceFlinger (compositor.h states the rules).
 */
#include "compositor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * With auto timestamps on BLAST (12+) desiredPresentTime is Transaction::setBuffer's
 * systemTime(), taken in the app process microseconds after queueBuffer: 5 us here.
 */
#define COMP_SETBUFFER_NS 5000

void comp_init(struct compositor *c, int android, int64_t period_ns, FILE *truth)
{
	memset(c, 0, sizeof(*c));
	c->android = android;
	c->period_ns = period_ns;
	c->next_seq = 100;
	c->truth = truth;
}

/*
 * "NAME#N": N is the layer sequence id from 13 on (Layer's "%s#%d" of args.sequence); on
 * 11/12 getUniqueLayerName's dupe counter, 0 unless the name is taken.
 */
static void layer_name(struct compositor *c, char *out, const char *base)
{
	if (c->android >= 13) {
		snprintf(out, COMP_NAME_MAX, "%s#%" PRIu32, base, c->next_seq++);
		return;
	}
	unsigned dupe = 0;
	char want[COMP_NAME_MAX];
	for (;;) {
		snprintf(want, sizeof(want), "%s#%u", base, dupe);
		bool taken = false;
		for (unsigned i = 0; i < c->n_layers; i++)
			taken |= !c->layers[i].removed && !strcmp(c->layers[i].name, want);
		if (!taken)
			break;
		dupe++;
	}
	snprintf(out, COMP_NAME_MAX, "%s", want);
}

int comp_add_layer(struct compositor *c, enum comp_kind kind, const char *title,
		   enum comp_mode mode)
{
	char base[COMP_NAME_MAX];
	if (c->n_layers == COMP_MAX_LAYERS)
		return -ENOSPC;
	struct comp_layer *l = &c->layers[c->n_layers];
	memset(l, 0, sizeof(*l));
	l->mode = mode;
	l->visible = true;
	if (kind == COMP_SURFACEVIEW && c->android >= 12) {
		/* SurfaceView.java createBlastSurfaceControls: container, then its children. */
		snprintf(base, sizeof(base), "SurfaceView[%s]", title);
		layer_name(c, l->container, base);
		snprintf(base, sizeof(base), "SurfaceView[%s](BLAST)", title);
		layer_name(c, l->name, base);
		snprintf(base, sizeof(base), "Background for SurfaceView[%s]", title);
		layer_name(c, l->background, base);
	} else if (kind == COMP_SURFACEVIEW) {
		snprintf(base, sizeof(base), "SurfaceView - %s", title);
		layer_name(c, l->name, base);
	} else {
		layer_name(c, l->name, title);
	}
	return (int)c->n_layers++;
}

static void truth_drop(struct compositor *c, struct comp_layer *l, const struct comp_buffer *b,
		       const char *why)
{
	l->dropped++;
	if (c->truth)
		fprintf(c->truth, "drop 0x%" PRIx64 " %" PRId64 " %s %s\n", b->buffer, b->queue_ns,
			why, l->name);
}

static void drop_all(struct compositor *c, struct comp_layer *l, struct comp_buffer *b, unsigned *n,
		     const char *why)
{
	for (unsigned i = 0; i < *n; i++)
		truth_drop(c, l, &b[i], why);
	*n = 0;
}

void comp_remove_layer(struct compositor *c, int layer)
{
	struct comp_layer *l = &c->layers[layer];
	drop_all(c, l, l->bq, &l->n_bq, "removed");
	drop_all(c, l, l->txn, &l->n_txn, "removed");
	l->removed = true;
}

/*
 * BBQ acquires from the BufferQueue while it has room in SF; the acquire at time t sets
 * desired. Only buffers queued by t: sf_server runs a composition a little after its
 * vsync's time, and a buffer queued in between was not there at t.
 */
static void bbq_acquire(struct comp_layer *l, int64_t t)
{
	while (l->n_bq > 0 && l->bq[0].queue_ns <= t &&
	       l->n_txn + l->on_screen < COMP_BBQ_IN_FLIGHT) {
		struct comp_buffer b = l->bq[0];
		memmove(l->bq, l->bq + 1, (l->n_bq - 1) * sizeof(l->bq[0]));
		l->n_bq--;
		b.desired = b.timestamp == COMP_TS_AUTO ? t + COMP_SETBUFFER_NS : b.timestamp;
		l->txn[l->n_txn++] = b;
	}
}

int comp_queue(struct compositor *c, int layer, uint64_t buffer, int64_t queue_ns,
	       int64_t timestamp)
{
	struct comp_layer *l = &c->layers[layer];
	struct comp_buffer b = {buffer, queue_ns, timestamp, 0};
	if (l->removed)
		return -ENODEV;
	if (l->mode == COMP_MAILBOX && l->n_bq > 0) {
		/* async mode: the waiting item is droppable, the new one overwrites it */
		truth_drop(c, l, &l->bq[l->n_bq - 1], "replaced");
		l->bq[l->n_bq - 1] = b;
	} else if (l->n_bq == COMP_QUEUE_MAX) {
		return -EAGAIN;
	} else {
		l->bq[l->n_bq++] = b;
	}
	bbq_acquire(l, queue_ns);
	return 0;
}

/* The previous composition's present fence signals at this vsync. */
static void signal_fences(struct compositor *c, struct comp_layer *l, int64_t t)
{
	for (unsigned i = 0; i < COMP_FT_RECORDS; i++) {
		struct comp_record *r = &l->ft[i];
		if (r->actual != COMP_PENDING)
			continue;
		r->actual = t;
		if (c->truth)
			fprintf(c->truth, "present %" PRId64 " %" PRId64 " %s\n", r->desired, t,
				l->name);
	}
}

static void latch(struct compositor *c, struct comp_layer *l, const struct comp_buffer *b)
{
	/* no acquire fence in the stand-in: FrameTracker then takes desiredPresentTime */
	l->ft[l->ft_offset] = (struct comp_record){b->desired, COMP_PENDING, b->desired};
	l->ft_offset = (l->ft_offset + 1) % COMP_FT_RECORDS;
	l->presented++;
	l->on_screen = true; /* and the one before it is released */
	if (c->truth)
		fprintf(c->truth, "latch 0x%" PRIx64 " %" PRId64 " %" PRId64 " %s\n", b->buffer,
			b->queue_ns, b->desired, l->name);
}

/*
 * How many pending transactions this composition applies: one auto-timestamped one
 * (backpressure), or every explicit one whose time has come, in order.
 */
static unsigned due_count(const struct comp_layer *l, int64_t t, int64_t expected_present)
{
	if (l->n_txn == 0 || l->txn[0].queue_ns > t) /* queued after this vsync */
		return 0;
	if (l->txn[0].timestamp == COMP_TS_AUTO)
		return 1;
	unsigned k = 0;
	while (k < l->n_txn && l->txn[k].queue_ns <= t && l->txn[k].timestamp != COMP_TS_AUTO &&
	       l->txn[k].timestamp < expected_present)
		k++;
	return k;
}

static void compose_layer(struct compositor *c, struct comp_layer *l, int64_t t)
{
	if (!l->visible) {
		drop_all(c, l, l->txn, &l->n_txn, "invisible");
		l->on_screen = false;
		bbq_acquire(l, t);
		drop_all(c, l, l->txn, &l->n_txn, "invisible");
		return;
	}
	unsigned k = due_count(l, t, t + c->period_ns);
	if (k == 0)
		return;
	for (unsigned i = 0; i + 1 < k; i++)
		truth_drop(c, l, &l->txn[i], "overdue");
	latch(c, l, &l->txn[k - 1]);
	memmove(l->txn, l->txn + k, (l->n_txn - k) * sizeof(l->txn[0]));
	l->n_txn -= k;
	/* the release of the buffer it replaced reaches BBQ, which may acquire again */
	bbq_acquire(l, t);
}

void comp_vsync(struct compositor *c, int64_t t)
{
	for (unsigned i = 0; i < c->n_layers; i++) {
		struct comp_layer *l = &c->layers[i];
		if (l->removed)
			continue;
		signal_fences(c, l, t);
		compose_layer(c, l, t);
	}
}

void comp_set_period(struct compositor *c, int64_t period_ns)
{
	c->period_ns = period_ns;
}

void comp_set_visible(struct compositor *c, int layer, bool visible, int64_t t)
{
	(void)t;
	c->layers[layer].visible = visible;
}

void comp_flush(struct compositor *c, int layer, int64_t t)
{
	struct comp_layer *l = &c->layers[layer];
	(void)t;
	drop_all(c, l, l->bq, &l->n_bq, "flushed");
}

/* snprintf that appends at *n and never runs past cap (returns the would-be length). */
#define APPEND(buf, cap, n, ...)                                                                   \
	(*(n) += (size_t)snprintf((buf) + (*(n) < (cap) ? *(n) : (cap)),                           \
				  *(n) < (cap) ? (cap) - *(n) : 0, __VA_ARGS__))

/* 11-14: listLayersLocked prints getDebugName() per line in Z order: a child with a
 * negative z (the Background) before its parent, the (BLAST) child (z 0) after it. */
static void list_legacy(const struct comp_layer *l, char *buf, size_t cap, size_t *n)
{
	if (l->container[0]) {
		APPEND(buf, cap, n, "%s\n%s\n", l->background, l->container);
	}
	APPEND(buf, cap, n, "%s\n", l->name);
}

/* The "#SEQ" of a name (13+ names end in their sequence id). */
static unsigned long seq_of(const char *name)
{
	const char *h = strrchr(name, '#');
	return h ? strtoul(h + 1, NULL, 10) : 0;
}

/* 15/16: RequestedLayerState::getDebugString per layer. */
static void list_requested(const struct comp_layer *l, char *buf, size_t cap, size_t *n)
{
	if (l->container[0]) {
		unsigned long parent = seq_of(l->container);
		APPEND(buf, cap, n, "RequestedLayerState{%s}\n", l->container);
		APPEND(buf, cap, n, "RequestedLayerState{%s parentId=%lu}\n", l->name, parent);
		APPEND(buf, cap, n, "RequestedLayerState{%s parentId=%lu z=-2147483648}\n",
		       l->background, parent);
		return;
	}
	APPEND(buf, cap, n, "RequestedLayerState{%s}\n", l->name);
}

size_t comp_print_list(const struct compositor *c, char *buf, size_t cap)
{
	size_t n = 0;
	if (cap)
		buf[0] = '\0';
	for (unsigned i = 0; i < c->n_layers; i++) {
		const struct comp_layer *l = &c->layers[i];
		if (l->removed)
			continue;
		if (c->android >= 15)
			list_requested(l, buf, cap, &n);
		else
			list_legacy(l, buf, cap, &n);
	}
	return n;
}

/* FrameTracker::dumpStats: records 1..127 after the current one, oldest first. */
static void latency_frametracker(const struct comp_layer *l, bool zeros, char *buf, size_t cap,
				 size_t *n)
{
	for (unsigned i = 1; i < COMP_FT_RECORDS; i++) {
		const struct comp_record *r = &l->ft[(l->ft_offset + i) % COMP_FT_RECORDS];
		if (zeros)
			APPEND(buf, cap, n, "0\t0\t0\n");
		else
			APPEND(buf, cap, n, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", r->desired,
			       r->actual, r->ready);
	}
	APPEND(buf, cap, n, "\n");
}

/* 16, deprecate_frame_tracker on: the last <= 64 presented frames, no zero or pending. */
static void latency_timeline(const struct comp_layer *l, char *buf, size_t cap, size_t *n)
{
	unsigned first = 1, shown = 0;
	for (unsigned i = COMP_FT_RECORDS; i-- > 1;) {
		const struct comp_record *r = &l->ft[(l->ft_offset + i) % COMP_FT_RECORDS];
		if (r->actual <= 0 || r->actual == COMP_PENDING)
			continue;
		if (++shown == COMP_TIMELINE_MAX) {
			first = i;
			break;
		}
	}
	for (unsigned i = first; i < COMP_FT_RECORDS; i++) {
		const struct comp_record *r = &l->ft[(l->ft_offset + i) % COMP_FT_RECORDS];
		if (r->actual > 0 && r->actual != COMP_PENDING)
			APPEND(buf, cap, n, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", r->desired,
			       r->actual, r->ready);
	}
}

size_t comp_print_latency(const struct compositor *c, const char *name, char *buf, size_t cap)
{
	size_t n = 0;
	if (cap)
		buf[0] = '\0';
	APPEND(buf, cap, &n, "%" PRId64 "\n", c->period_ns);
	for (unsigned i = 0; i < c->n_layers; i++) {
		const struct comp_layer *l = &c->layers[i];
		if (l->removed)
			continue;
		bool other = !strcmp(name, l->container) || !strcmp(name, l->background);
		if (!name[0] || (strcmp(name, l->name) && !other))
			continue;
		if (c->frame_timeline && !other)
			latency_timeline(l, buf, cap, &n);
		else if (!c->frame_timeline)
			latency_frametracker(l, other, buf, cap, &n);
		break;
	}
	return n;
}
