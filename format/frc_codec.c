/* SPDX-License-Identifier: MIT */
/*
 * frc_codec.c - the chunk body: typed, length-prefixed entries, and the columnar frame run.
 *
 * FORMAT.md "Chunk body" and "Frame run" describe the bytes; this file is the single
 * encoder/decoder of them.
 */
#include <stdlib.h>
#include <string.h>

#include "frc_internal.h"

/* ------------------------------------------------------------ plain records */

/*
 * Per-type validation, payload encoding and decoding; frc_types.c lists them in the type
 * table. The entry header and the ktime that starts every non-frame payload are handled
 * once, in frc_entry_encode / frc_entry_decode; these see the fields after the ktime.
 * A decoder reads through the cursor (whose bad flag records overruns) and returns -1 for
 * a value out of range; the caller then checks that the payload was consumed exactly.
 */

int frc_sysfs_check(const struct frc_record *r)
{
	if (r->u.sysfs.err < 0)
		return FRC_EINVAL;
	if (r->u.sysfs.err == 0 && r->u.sysfs.len > FRC_SYSFS_MAX)
		return FRC_EINVAL;
	if (r->u.sysfs.err != 0 && r->u.sysfs.len != 0)
		return FRC_EINVAL;
	return 0;
}

void frc_sysfs_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, (uint32_t)r->u.sysfs.err);
	if (r->u.sysfs.err == 0)
		frc_buf_put(b, r->u.sysfs.raw, r->u.sysfs.len);
}

int frc_sysfs_decode(struct frc_cur *c, struct frc_record *r)
{
	uint64_t v = 0;

	frc_cur_varint(c, &v);
	if (v > INT32_MAX)
		return -1;
	r->u.sysfs.err = (int32_t)v;
	if (v == 0 && !c->bad) {
		if (c->len - c->pos > FRC_SYSFS_MAX)
			return -1;
		r->u.sysfs.len = (uint16_t)(c->len - c->pos);
		memcpy(r->u.sysfs.raw, c->p + c->pos, r->u.sysfs.len);
		c->pos = c->len;
	}
	return 0;
}

void frc_drops_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.drops.cumulative);
}

int frc_drops_decode(struct frc_cur *c, struct frc_record *r)
{
	frc_cur_varint(c, &r->u.drops.cumulative);
	return 0;
}

void frc_anomalies_encode(struct frc_buf *out, uint64_t n)
{
	frc_buf_varint(out, FRC_ENTRY_ANOMALIES);
	frc_buf_varint(out, frc_varint_len(n));
	frc_buf_varint(out, n);
}

/* 0 is never written (no entry is), so that the same records have one encoding. */
int frc_anomalies_decode(const uint8_t *p, size_t len, uint64_t *n, const char **what)
{
	struct frc_cur c = {.p = p, .len = len};

	frc_cur_varint(&c, n);
	if (c.bad || c.pos != c.len || *n == 0) {
		*what = "malformed batch anomaly entry";
		return FRC_ECORRUPT;
	}
	return 0;
}

/* The bad buffer count (type 17, FORMAT.md 4.6) is encoded as the anomaly count is. */
void frc_bad_buffers_encode(struct frc_buf *out, uint64_t n)
{
	frc_buf_varint(out, FRC_ENTRY_BAD_BUFFERS);
	frc_buf_varint(out, frc_varint_len(n));
	frc_buf_varint(out, n);
}

int frc_bad_buffers_decode(const uint8_t *p, size_t len, uint64_t *n, const char **what)
{
	struct frc_cur c = {.p = p, .len = len};

	frc_cur_varint(&c, n);
	if (c.bad || c.pos != c.len || *n == 0) {
		*what = "malformed bad buffer entry";
		return FRC_ECORRUPT;
	}
	return 0;
}

int frc_attach_check(const struct frc_record *r)
{
	if (r->u.attach.len > FRC_SYMBOL_MAX || r->u.attach.symbol[r->u.attach.len] != '\0' ||
	    memchr(r->u.attach.symbol, '\0', r->u.attach.len))
		return FRC_EINVAL;
	return 0;
}

void frc_attach_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.attach.pid);
	frc_buf_put(b, r->u.attach.symbol, r->u.attach.len);
}

int frc_attach_decode(struct frc_cur *c, struct frc_record *r)
{
	uint64_t v = 0;

	frc_cur_varint(c, &v);
	if (c->bad || v > UINT32_MAX || c->len - c->pos > FRC_SYMBOL_MAX ||
	    memchr(c->p + c->pos, '\0', c->len - c->pos))
		return -1;
	r->u.attach.pid = (uint32_t)v;
	r->u.attach.len = (uint16_t)(c->len - c->pos);
	memcpy(r->u.attach.symbol, c->p + c->pos, r->u.attach.len);
	c->pos = c->len;
	return 0;
}

void frc_exit_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.exit.pid);
}

int frc_exit_decode(struct frc_cur *c, struct frc_record *r)
{
	uint64_t v = 0;

	frc_cur_varint(c, &v);
	if (v > UINT32_MAX)
		return -1;
	r->u.exit.pid = (uint32_t)v;
	return 0;
}

/*
 * Display capture (FORMAT.md 4.8). The SurfaceFlinger times are signed (-1: an invalid
 * fence) and stored as zigzag differences: desired from the record's ktime (the poll that
 * saw it, a second or so later), actual and ready from desired (microseconds to a few
 * frames), so that each is a few bytes.
 */
int frc_layer_check(const struct frc_record *r)
{
	const struct frc_layer *l = &r->u.layer;

	if (l->id == 0 || l->len > FRC_LAYER_NAME_MAX || (l->gone && l->len) ||
	    (!l->gone && !l->len) || memchr(l->name, '\0', l->len))
		return FRC_EINVAL;
	return 0;
}

/*
 * A layer id (FORMAT.md 4.8: 1 .. 2^32 - 1, every display record names its layer so) as a
 * varint; 0, never an id, when it is malformed or out of range.
 */
static uint32_t get_layer_id(struct frc_cur *c)
{
	uint64_t id = 0;

	frc_cur_varint(c, &id);
	return c->bad || id > UINT32_MAX ? 0 : (uint32_t)id;
}

void frc_layer_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.layer.id);
	frc_buf_u8(b, r->u.layer.gone);
	frc_buf_put(b, r->u.layer.name, r->u.layer.len);
}

int frc_layer_decode(struct frc_cur *c, struct frc_record *r)
{
	uint32_t id = get_layer_id(c);
	uint8_t gone = 0;
	size_t n;

	frc_cur_u8(c, &gone);
	n = c->bad ? 0 : c->len - c->pos;
	if (c->bad || id == 0 || gone > 1 || n > FRC_LAYER_NAME_MAX || (gone && n) ||
	    (!gone && !n) || memchr(c->p + c->pos, '\0', n))
		return -1;
	r->u.layer.id = id;
	r->u.layer.gone = gone;
	r->u.layer.len = (uint16_t)n;
	memcpy(r->u.layer.name, c->p + c->pos, n);
	r->u.layer.name[n] = '\0';
	c->pos = c->len;
	return 0;
}

/* a - b as a zigzag varint, wrapping (two's complement) so that any pair round-trips. */
static void put_diff(struct frc_buf *b, int64_t a, int64_t base)
{
	frc_buf_varint(b, frc_zigzag((int64_t)((uint64_t)a - (uint64_t)base)));
}

static int64_t get_diff(struct frc_cur *c, int64_t base)
{
	uint64_t z = 0;

	frc_cur_varint(c, &z);
	return (int64_t)((uint64_t)base + (uint64_t)frc_unzigzag(z));
}

void frc_present_encode(struct frc_buf *b, const struct frc_record *r)
{
	const struct frc_present *p = &r->u.present;

	frc_buf_varint(b, p->layer);
	put_diff(b, p->desired, (int64_t)r->ktime_ns);
	put_diff(b, p->actual, p->desired);
	put_diff(b, p->ready, p->desired);
}

int frc_present_decode(struct frc_cur *c, struct frc_record *r)
{
	struct frc_present *p = &r->u.present;

	p->layer = get_layer_id(c);
	p->desired = get_diff(c, (int64_t)r->ktime_ns);
	p->actual = get_diff(c, p->desired);
	p->ready = get_diff(c, p->desired);
	if (c->bad || p->layer == 0)
		return -1;
	return 0;
}

void frc_vsync_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.vsync.period_ns);
}

int frc_vsync_decode(struct frc_cur *c, struct frc_record *r)
{
	frc_cur_varint(c, &r->u.vsync.period_ns);
	return c->bad ? -1 : 0;
}

int frc_poll_check(const struct frc_record *r)
{
	return r->u.poll.layer ? 0 : FRC_EINVAL;
}

void frc_poll_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.poll.layer);
}

int frc_poll_decode(struct frc_cur *c, struct frc_record *r)
{
	r->u.poll.layer = get_layer_id(c);
	return c->bad || r->u.poll.layer == 0 ? -1 : 0;
}

void frc_gap_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.gap.layer);
	put_diff(b, r->u.gap.before, 0);
	put_diff(b, r->u.gap.after, 0);
}

int frc_gap_decode(struct frc_cur *c, struct frc_record *r)
{
	r->u.gap.layer = get_layer_id(c);
	r->u.gap.before = get_diff(c, 0);
	r->u.gap.after = get_diff(c, 0);
	return c->bad || r->u.gap.layer == 0 ? -1 : 0;
}

/*
 * Thread names (FORMAT.md 4.9): the pid and tid, then the name as the rest of the payload
 * (1..15 bytes, the kernel's comm without its NUL), so a record is about 20 bytes.
 */
int frc_thread_check(const struct frc_record *r)
{
	const struct frc_thread *t = &r->u.thread;

	if (t->len == 0 || t->len > FRC_THREAD_NAME_MAX || memchr(t->name, '\0', t->len))
		return FRC_EINVAL;
	return 0;
}

void frc_thread_encode(struct frc_buf *b, const struct frc_record *r)
{
	frc_buf_varint(b, r->u.thread.pid);
	frc_buf_varint(b, r->u.thread.tid);
	frc_buf_put(b, r->u.thread.name, r->u.thread.len);
}

int frc_thread_decode(struct frc_cur *c, struct frc_record *r)
{
	uint64_t pid = 0, tid = 0;
	size_t n;

	frc_cur_varint(c, &pid);
	frc_cur_varint(c, &tid);
	n = c->bad ? 0 : c->len - c->pos;
	if (c->bad || pid > UINT32_MAX || tid > UINT32_MAX || n == 0 || n > FRC_THREAD_NAME_MAX ||
	    memchr(c->p + c->pos, '\0', n))
		return -1;
	r->u.thread.pid = (uint32_t)pid;
	r->u.thread.tid = (uint32_t)tid;
	r->u.thread.len = (uint8_t)n;
	memcpy(r->u.thread.name, c->p + c->pos, n);
	r->u.thread.name[n] = '\0';
	c->pos = c->len;
	return 0;
}

/*
 * Buffer geometry (FORMAT.md 4.10): pid, surface, buffer, the four int32 fields as zigzag
 * varints (a negative value is corruption nowhere: the ABI's fields are plain ints), usage.
 */
static int int32_of(struct frc_cur *c, int32_t *v)
{
	uint64_t z = 0;
	int64_t s;

	frc_cur_varint(c, &z);
	s = frc_unzigzag(z);
	if (c->bad || s < INT32_MIN || s > INT32_MAX)
		return -1;
	*v = (int32_t)s;
	return 0;
}

void frc_buffer_encode(struct frc_buf *b, const struct frc_record *r)
{
	const struct frc_buffer *g = &r->u.buffer;

	frc_buf_varint(b, g->pid);
	frc_buf_varint(b, g->surface);
	frc_buf_varint(b, g->buffer);
	frc_buf_varint(b, frc_zigzag(g->width));
	frc_buf_varint(b, frc_zigzag(g->height));
	frc_buf_varint(b, frc_zigzag(g->stride));
	frc_buf_varint(b, frc_zigzag(g->format));
	frc_buf_varint(b, g->usage);
}

int frc_buffer_decode(struct frc_cur *c, struct frc_record *r)
{
	struct frc_buffer *g = &r->u.buffer;
	uint64_t pid = 0;

	frc_cur_varint(c, &pid);
	frc_cur_varint(c, &g->surface);
	frc_cur_varint(c, &g->buffer);
	if (c->bad || pid > UINT32_MAX || int32_of(c, &g->width) || int32_of(c, &g->height) ||
	    int32_of(c, &g->stride) || int32_of(c, &g->format))
		return -1;
	frc_cur_varint(c, &g->usage);
	g->pid = (uint32_t)pid;
	return 0;
}

/* Surface connections (FORMAT.md 4.11): pid, tid, surface, api (zigzag), u8 connected. */
void frc_connect_encode(struct frc_buf *b, const struct frc_record *r)
{
	const struct frc_connect *k = &r->u.connect;

	frc_buf_varint(b, k->pid);
	frc_buf_varint(b, k->tid);
	frc_buf_varint(b, k->surface);
	frc_buf_varint(b, frc_zigzag(k->api));
	frc_buf_u8(b, k->connected ? 1 : 0);
}

int frc_connect_decode(struct frc_cur *c, struct frc_record *r)
{
	struct frc_connect *k = &r->u.connect;
	uint64_t pid = 0, tid = 0;
	uint8_t on = 0;

	frc_cur_varint(c, &pid);
	frc_cur_varint(c, &tid);
	frc_cur_varint(c, &k->surface);
	if (c->bad || pid > UINT32_MAX || tid > UINT32_MAX || int32_of(c, &k->api) ||
	    frc_cur_u8(c, &on) || on > 1)
		return -1;
	k->pid = (uint32_t)pid;
	k->tid = (uint32_t)tid;
	k->connected = on == 1;
	return 0;
}

int frc_tick_check(const struct frc_record *r)
{
	return r->u.tick.has_result && r->u.tick.source > FRC_SOURCE_EBPF ? FRC_EINVAL : 0;
}

void frc_tick_encode(struct frc_buf *b, const struct frc_record *r)
{
	if (!r->u.tick.has_result)
		return;
	frc_buf_u8(b, r->u.tick.source);
	if (r->u.tick.source != FRC_SOURCE_NONE)
		frc_buf_varint(b, r->u.tick.fps_micro);
}

int frc_tick_decode(struct frc_cur *c, struct frc_record *r)
{
	uint8_t src = 0;

	if (c->bad || c->pos == c->len)
		return 0; /* the meter was read, result not recorded */
	r->u.tick.has_result = true;
	frc_cur_u8(c, &src);
	if (src > FRC_SOURCE_EBPF)
		return -1;
	r->u.tick.source = src;
	if (src != FRC_SOURCE_NONE)
		frc_cur_varint(c, &r->u.tick.fps_micro);
	return 0;
}

int frc_record_check(const struct frc_record *r)
{
	const struct frc_type_ops *t = frc_type_ops(r->type);

	if (!t)
		return FRC_EINVAL;
	return t->check ? t->check(r) : 0;
}

void frc_entry_encode(struct frc_buf *out, const struct frc_record *r)
{
	const struct frc_type_ops *t = frc_type_ops(r->type);
	uint8_t tmp[300];
	struct frc_buf b = {.p = tmp, .cap = sizeof(tmp)};

	/* A non-frame payload is at most 10 + 10 + 255 bytes, so tmp never grows. */
	frc_buf_varint(&b, r->ktime_ns);
	if (t && t->encode)
		t->encode(&b, r);
	frc_buf_varint(out, r->type);
	frc_buf_varint(out, b.len);
	frc_buf_put(out, b.p, b.len);
}

int frc_entry_decode(uint64_t type, const uint8_t *p, size_t len, struct frc_record *r,
		     const char **what)
{
	const struct frc_type_ops *t = type <= FRC_TYPE_MAX ? frc_type_ops((unsigned)type) : NULL;
	struct frc_cur c = {.p = p, .len = len};

	frc_record_clear(r);
	r->type = (uint8_t)type;
	frc_cur_varint(&c, &r->ktime_ns);
	if (!t || !t->decode || t->decode(&c, r) || c.bad || c.pos != c.len) {
		*what = "malformed record";
		return FRC_ECORRUPT;
	}
	return 0;
}

/* ------------------------------------------------------------ frame runs */

/*
 * A tiny open-addressing map from (a, b) to an index, sized for at most FRC_RUN_MAX keys.
 * Runs can hold many PIDs/buffers (hostile or unusual callers), so lookups must not be
 * linear in the number of keys.
 */
struct map_slot {
	uint64_t a;
	uint32_t b;
	uint32_t val; /* index + 1; 0 = empty */
};

struct map {
	struct map_slot *s;
	size_t mask;
};

static int map_init(struct map *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	m->s = calloc(cap, sizeof(*m->s));
	m->mask = cap - 1;
	return m->s ? 0 : -1;
}

/* Returns the slot for (a, b); slot->val == 0 means it is new (caller fills it). */
static struct map_slot *map_find(struct map *m, uint64_t a, uint32_t b)
{
	uint64_t h = (a ^ ((uint64_t)b << 32) ^ b) * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 32) & m->mask;

	while (m->s[i].val && (m->s[i].a != a || m->s[i].b != b))
		i = (i + 1) & m->mask;
	m->s[i].a = a;
	m->s[i].b = b;
	return &m->s[i];
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static unsigned bit_width(uint64_t x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/* round(d / p) for p > 0, halves rounded up, in 128-bit so nothing overflows. */
static int64_t div_round(int64_t d, int64_t p)
{
	__int128 num = (__int128)d * 2 + p, den = (__int128)p * 2;
	__int128 q = num / den;

	if (num % den != 0 && num < 0)
		q--;
	return (int64_t)q;
}

/* The spread (max - min) of d[i] - k[i] * p over i in [1, m). */
static __int128 spread(const int64_t *d, const int64_t *k, size_t m, int64_t p)
{
	__int128 lo = 0, hi = 0;

	for (size_t i = 1; i < m; i++) {
		__int128 r = (__int128)d[i] - (__int128)k[i] * p;

		if (i == 1 || r < lo)
			lo = r;
		if (i == 1 || r > hi)
			hi = r;
	}
	return hi - lo;
}

/*
 * The period that minimises the residual spread for fixed slot numbers k. The spread is
 * convex in p (max of linear functions minus min of linear functions), so a ternary search
 * over integers finds a minimiser; the window around the median delta keeps it cheap.
 */
static int64_t fit_period(const int64_t *d, const int64_t *k, size_t m, int64_t p0)
{
	int64_t lo = p0 - p0 / 8, hi = p0 > INT64_MAX - p0 / 8 ? INT64_MAX : p0 + p0 / 8, best;

	if (lo < 1)
		lo = 1;
	while (hi - lo > 2) {
		int64_t m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;

		if (spread(d, k, m, m1) <= spread(d, k, m, m2))
			hi = m2;
		else
			lo = m1 + 1;
	}
	best = lo;
	/* hi may be INT64_MAX: step without ever computing hi + 1. */
	for (int64_t p = lo; p < hi;) {
		p++;
		if (spread(d, k, m, p) < spread(d, k, m, best))
			best = p;
	}
	return best;
}

/* k[i] - k[i-1], wrapping: slot numbers of hostile inputs may overflow, the decoder wraps too. */
static int64_t kstep(const int64_t *k, size_t i)
{
	return (int64_t)((uint64_t)k[i] - (uint64_t)k[i - 1]);
}

struct time_plan {
	int64_t period;
	unsigned width;
	uint64_t rmin; /* the smallest residual (as a signed value, stored zigzagged) */
	int kcolumn;   /* 1: slot increments stored; 0: all increments are 1 */
	size_t cost;   /* bytes of residuals + increments, for choosing a plan */
};

/* Residuals t[i] - base - k[i] * period in u64 arithmetic; exact whatever the plan. */
static void plan_residuals(struct time_plan *pl, const uint64_t *t, const int64_t *k, size_t m,
			   uint64_t *res)
{
	int64_t lo = 0;
	uint64_t maxv = 0;

	for (size_t i = 1; i < m; i++) {
		res[i] = t[i] - t[0] - (uint64_t)k[i] * (uint64_t)pl->period;
		if (i == 1 || (int64_t)res[i] < lo)
			lo = (int64_t)res[i];
	}
	pl->rmin = (uint64_t)lo;
	for (size_t i = 1; i < m; i++)
		if (res[i] - pl->rmin > maxv)
			maxv = res[i] - pl->rmin;
	pl->width = bit_width(maxv);
	pl->kcolumn = 0;
	for (size_t i = 1; i < m && pl->period; i++)
		if (kstep(k, i) != 1)
			pl->kcolumn = 1;
	pl->cost = ((m - 1) * pl->width + 7) / 8;
	for (size_t i = 1; i < m && pl->kcolumn; i++)
		pl->cost += frc_varint_len(frc_zigzag(kstep(k, i)));
}

static void put_bits(struct frc_buf *b, const uint64_t *v, size_t from, size_t m, unsigned w)
{
	uint64_t acc = 0;
	unsigned nacc = 0;

	for (size_t i = from; i < m; i++) {
		for (unsigned done = 0; done < w;) {
			unsigned take = w - done < 8 ? w - done : 8;

			acc |= ((v[i] >> done) & ((1u << take) - 1)) << nacc;
			nacc += take;
			done += take;
			if (nacc >= 8) {
				frc_buf_u8(b, (uint8_t)acc);
				acc >>= 8;
				nacc -= 8;
			}
		}
	}
	if (nacc)
		frc_buf_u8(b, (uint8_t)acc);
}

/* The time column of one PID's m frames (FORMAT.md "Frame run", time block). */
static int time_encode(struct frc_buf *b, const uint64_t *t, size_t m)
{
	int64_t *d = NULL, *k = NULL, *e = NULL, p0 = 0;
	uint64_t *res = NULL;
	size_t ne = 0;
	struct time_plan flat = {0}, fit = {0}, *pl = &flat;
	int ret = FRC_ENOMEM;

	frc_buf_varint(b, t[0]);
	if (m == 1)
		return 0;
	d = malloc(m * sizeof(*d));
	k = calloc(m, sizeof(*k));
	e = malloc(m * sizeof(*e));
	res = malloc(m * sizeof(*res));
	if (!d || !k || !e || !res)
		goto cleanup;
	for (size_t i = 0; i < m; i++) {
		d[i] = (int64_t)(t[i] - t[0]);
		if (i && (int64_t)(t[i] - t[i - 1]) > 0)
			e[ne++] = (int64_t)(t[i] - t[i - 1]);
	}
	/* Plan "flat": no period, residual = offset from the first frame. */
	plan_residuals(&flat, t, k, m, res);
	/* Plan "fit": slots from the median positive delta, then the best period for them. */
	if (ne) {
		qsort(e, ne, sizeof(*e), cmp_i64);
		p0 = e[ne / 2];
		/*
		 * Each delta is rounded to whole periods on its own: a small error in p0
		 * then never accumulates into a wrong slot far from the start.
		 */
		for (size_t i = 1; i < m; i++)
			k[i] = (int64_t)((uint64_t)k[i - 1] +
					 (uint64_t)div_round((int64_t)(t[i] - t[i - 1]), p0));
		fit.period = fit_period(d, k, m, p0);
		plan_residuals(&fit, t, k, m, res);
		if (fit.cost <= flat.cost)
			pl = &fit;
	}
	if (pl == &flat)
		memset(k, 0, m * sizeof(*k));
	plan_residuals(pl, t, k, m, res);
	frc_buf_varint(b, (uint64_t)pl->period);
	frc_buf_u8(b, (uint8_t)pl->width);
	frc_buf_varint(b, frc_zigzag((int64_t)pl->rmin));
	if (pl->period) {
		frc_buf_u8(b, (uint8_t)pl->kcolumn);
		for (size_t i = 1; i < m && pl->kcolumn; i++)
			frc_buf_varint(b, frc_zigzag(kstep(k, i)));
	}
	for (size_t i = 1; i < m; i++)
		res[i] -= pl->rmin;
	put_bits(b, res, 1, m, pl->width);
	ret = 0;
cleanup:
	free(res);
	free(e);
	free(k);
	free(d);
	return ret;
}

/* The buffer and tid columns of one PID's m frames, gathered through idx. */
static int bufs_tids_encode(struct frc_buf *b, const struct frc_run_frame *f, const size_t *idx,
			    size_t m)
{
	struct map dict;
	uint32_t ndict = 0, *col = malloc(m * sizeof(*col));
	uint64_t *vals = malloc(m * sizeof(*vals));
	size_t nruns = 0;

	if (!col || !vals || map_init(&dict, m)) {
		free(col);
		free(vals);
		return FRC_ENOMEM;
	}
	for (size_t i = 0; i < m; i++) {
		struct map_slot *s = map_find(&dict, f[idx[i]].buffer, 0);

		if (!s->val) {
			vals[ndict++] = f[idx[i]].buffer;
			s->val = ndict;
		}
		col[i] = s->val - 1;
	}
	/* Dictionary: first value, then zigzag deltas (buffers of one pool are close). */
	frc_buf_varint(b, ndict);
	for (uint32_t i = 0; i < ndict; i++)
		frc_buf_varint(b, i ? frc_zigzag((int64_t)(vals[i] - vals[i - 1])) : vals[0]);
	if (ndict > 1) {
		/* A BufferQueue in steady state cycles its buffers: then no column at all. */
		int cyclic = 1;

		for (size_t i = 0; i < m && cyclic; i++)
			cyclic = col[i] == i % ndict;
		frc_buf_u8(b, (uint8_t)cyclic);
		for (size_t i = 0; i < m && !cyclic; i++)
			frc_buf_varint(b, col[i]);
	}
	for (size_t i = 0; i < m; i++)
		if (i == 0 || f[idx[i]].tid != f[idx[i - 1]].tid)
			nruns++;
	frc_buf_varint(b, nruns);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;

		while (j < m && f[idx[j]].tid == f[idx[i]].tid)
			j++;
		frc_buf_varint(b, f[idx[i]].tid);
		frc_buf_varint(b, j - i);
		i = j;
	}
	free(dict.s);
	free(vals);
	free(col);
	return 0;
}

static int run_payload(struct frc_buf *b, const struct frc_run_frame *f, size_t n)
{
	struct map pids;
	uint32_t npids = 0, *sel = malloc(n * sizeof(*sel));
	size_t *count = calloc(n, sizeof(*count)), *start = calloc(n + 1, sizeof(*start));
	size_t *order = malloc(n * sizeof(*order));
	uint64_t *t = malloc(n * sizeof(*t));
	int ret = FRC_ENOMEM;

	pids.s = NULL;
	if (!sel || !count || !start || !order || !t || map_init(&pids, n))
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		struct map_slot *s = map_find(&pids, f[i].pid, 0);

		if (!s->val)
			s->val = ++npids;
		sel[i] = s->val - 1;
		count[sel[i]]++;
	}
	/* order[] lists frame indexes grouped by PID, each group in file order. */
	for (uint32_t g = 0; g < npids; g++)
		start[g + 1] = start[g] + count[g];
	memset(count, 0, n * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		order[start[sel[i]] + count[sel[i]]++] = i;

	frc_buf_varint(b, n);
	frc_buf_varint(b, npids);
	for (size_t i = 0; i < n && npids > 1; i++)
		frc_buf_varint(b, sel[i]);
	for (uint32_t g = 0; g < npids; g++) {
		const size_t *idx = order + start[g];
		size_t m = count[g];

		frc_buf_varint(b, f[idx[0]].pid);
		frc_buf_varint(b, m);
		for (size_t i = 0; i < m; i++)
			t[i] = f[idx[i]].ktime;
		ret = time_encode(b, t, m);
		if (!ret)
			ret = bufs_tids_encode(b, f, idx, m);
		if (ret)
			goto cleanup;
	}
	ret = 0;
cleanup:
	free(pids.s);
	free(t);
	free(order);
	free(start);
	free(count);
	free(sel);
	return ret;
}

int frc_run_encode(struct frc_buf *out, const struct frc_run_frame *f, size_t n)
{
	struct frc_buf b = {0};
	int ret;

	if (n == 0 || n > FRC_RUN_MAX)
		return FRC_EINVAL;
	ret = run_payload(&b, f, n);
	if (!ret && b.oom)
		ret = FRC_ENOMEM;
	if (!ret) {
		frc_buf_varint(out, FRC_FRAME);
		frc_buf_varint(out, b.len);
		frc_buf_put(out, b.p, b.len);
	}
	frc_buf_free(&b);
	return ret;
}

/* ------------------------------------------------------------ frame run decoding */

/*
 * The decoder is the reader's hot path (a capture of 10 M frames decodes 10 M of them):
 * it decodes straight into the caller's frames, with no allocation for a one-PID run,
 * and every check of the format stays (each count and length against what remains).
 */

/* 8 bytes at p as a little-endian u64, any alignment, any host byte order. */
static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The w-bit value (w <= 64) at bit offset bit of p, a byte at a time (LSB-first). */
static uint64_t bits_at(const uint8_t *p, size_t bit, unsigned w)
{
	uint64_t v = 0;

	for (unsigned done = 0; done < w;) {
		unsigned off = bit % 8, take = 8 - off;

		if (take > w - done)
			take = w - done;
		v |= (uint64_t)((p[bit / 8] >> off) & ((1u << take) - 1)) << done;
		done += take;
		bit += take;
	}
	return v;
}

/*
 * Add the count packed w-bit residuals to g[0..count).ktime (FORMAT.md 4.4: LSB-first,
 * ceil(count * w / 8) bytes). While 8 bytes can be loaded inside the packed bytes, one
 * load and a shift give a value (it spans at most 8 bytes: bit % 8 + w <= 64 for w <= 57);
 * the last values, and wider ones, go a byte at a time.
 */
static int add_residuals(struct frc_cur *c, unsigned w, size_t count, struct frc_run_frame *g)
{
	size_t nbytes = (count * w + 7) / 8, bit = 0, i = 0;
	const uint8_t *p = frc_cur_bytes(c, nbytes);
	uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;

	if (!p)
		return -1;
	if (w == 0)
		return 0;
	if (w <= 57)
		for (; i < count && bit / 8 + 8 <= nbytes; i++, bit += w)
			g[i].ktime += (load_le64(p + bit / 8) >> (bit % 8)) & mask;
	for (; i < count; i++, bit += w)
		g[i].ktime += bits_at(p, bit, w);
	/* Padding bits of the last byte must be zero: the encoding is canonical. */
	if (bit % 8 && (p[bit / 8] >> (bit % 8)))
		return -1;
	return 0;
}

/*
 * The time block of m frames into g[0..m).ktime: first each frame's point on the line,
 * base + k_i * period + rmin (mod 2^64, as FORMAT.md computes it), then its residual.
 */
static int times_decode(struct frc_cur *c, struct frc_run_frame *g, size_t m)
{
	uint64_t base, period = 0, zmin = 0, v = 0, k = 0, line;
	uint8_t width = 0, kcol = 0;

	frc_cur_varint(c, &base);
	g[0].ktime = base;
	if (m == 1)
		return c->bad ? -1 : 0;
	frc_cur_varint(c, &period);
	frc_cur_u8(c, &width);
	frc_cur_varint(c, &zmin);
	if (width > 64)
		return -1;
	if (period)
		frc_cur_u8(c, &kcol);
	if (kcol > 1 || c->bad)
		return -1;
	line = base + (uint64_t)frc_unzigzag(zmin);
	for (size_t i = 1; i < m; i++) {
		if (kcol) {
			frc_cur_varint(c, &v);
			k += (uint64_t)frc_unzigzag(v);
			g[i].ktime = line + k * period;
		} else {
			g[i].ktime = line + i * period; /* k_i = i, or period 0 */
		}
	}
	if (c->bad)
		return -1;
	return add_residuals(c, width, m - 1, g + 1);
}

/* Each frame's buffer through the dictionary: dict[0..ndict) read into dict. */
static int buffers_assign(struct frc_cur *c, struct frc_run_frame *g, size_t m,
			  const uint64_t *dict, uint64_t ndict)
{
	uint8_t cyclic = 0;
	uint64_t v, j = 0;

	if (ndict > 1)
		frc_cur_u8(c, &cyclic);
	if (c->bad || cyclic > 1)
		return -1;
	if (ndict == 1 || cyclic) {
		/* dict_(i mod ndict), counted rather than divided */
		for (size_t i = 0; i < m; i++) {
			g[i].buffer = dict[j];
			j = j + 1 == ndict ? 0 : j + 1;
		}
		return 0;
	}
	for (size_t i = 0; i < m; i++) {
		frc_cur_varint(c, &v);
		if (c->bad || v >= ndict)
			return -1;
		g[i].buffer = dict[v];
	}
	return 0;
}

/* The buffer block: the dictionary (on the stack when small, as it nearly always is). */
static int buffers_decode(struct frc_cur *c, struct frc_run_frame *g, size_t m)
{
	uint64_t small[32], *dict = small, ndict, v;
	int ret;

	frc_cur_varint(c, &ndict);
	if (c->bad || ndict == 0 || ndict > m)
		return -1;
	if (ndict > sizeof(small) / sizeof(small[0]) && !(dict = malloc(ndict * sizeof(*dict))))
		return FRC_ENOMEM;
	for (uint64_t i = 0; i < ndict; i++) {
		frc_cur_varint(c, &v);
		dict[i] = i ? dict[i - 1] + (uint64_t)frc_unzigzag(v) : v;
	}
	ret = buffers_assign(c, g, m, dict, ndict);
	if (dict != small)
		free(dict);
	return ret;
}

/* The tid block: run-length encoded, lengths summing to m exactly. */
static int tids_decode(struct frc_cur *c, struct frc_run_frame *g, size_t m)
{
	uint64_t nruns, tid, len;
	size_t cursor = 0;

	frc_cur_varint(c, &nruns);
	if (c->bad || nruns == 0 || nruns > m)
		return -1;
	for (uint64_t r = 0; r < nruns; r++) {
		frc_cur_varint(c, &tid);
		frc_cur_varint(c, &len);
		if (c->bad || tid > UINT32_MAX || len == 0 || len > m - cursor)
			return -1;
		for (uint64_t i = 0; i < len; i++)
			g[cursor++].tid = (uint32_t)tid;
	}
	return cursor == m ? 0 : -1;
}

/*
 * One PID block into g[0..m): pid, m (must be want), times, buffers, tids; surface 0 (a
 * surface column, type 7, may set it). 0, -1 (malformed) or FRC_ENOMEM.
 */
static int pid_block_decode(struct frc_cur *c, struct frc_run_frame *g, uint64_t want)
{
	uint64_t pid, m;
	int ret;

	frc_cur_varint(c, &pid);
	frc_cur_varint(c, &m);
	if (c->bad || pid > UINT32_MAX || m != want || m == 0)
		return -1;
	if (times_decode(c, g, m))
		return -1;
	if ((ret = buffers_decode(c, g, m)))
		return ret;
	if (tids_decode(c, g, m))
		return -1;
	for (uint64_t i = 0; i < m; i++) {
		g[i].pid = (uint32_t)pid;
		g[i].surface = 0;	    /* a surface column (type 7) may set it */
		g[i].has_timestamp = false; /* and a timestamp column (10) these */
		g[i].timestamp = 0;
	}
	return 0;
}

/*
 * Several PIDs: the selector, each PID's block into its own slice of g, then the frames
 * interleaved into f by the selector. 0, -1 (malformed) or FRC_ENOMEM.
 */
static int run_multi_decode(struct frc_cur *c, struct frc_run_frame *f, uint64_t n, uint64_t npids)
{
	uint32_t *sel = malloc(n * sizeof(*sel));
	size_t *count = calloc(npids + 1, sizeof(*count)), *pos = calloc(npids + 1, sizeof(*pos));
	struct frc_run_frame *g = malloc(n * sizeof(*g));
	uint64_t v, at = 0;
	int ret = FRC_ENOMEM;

	if (!sel || !count || !pos || !g)
		goto cleanup;
	ret = -1;
	for (uint64_t i = 0; i < n; i++) {
		frc_cur_varint(c, &v);
		if (c->bad || v >= npids)
			goto cleanup;
		sel[i] = (uint32_t)v;
		count[v]++;
	}
	for (uint64_t grp = 0; grp < npids; grp++) {
		if ((ret = pid_block_decode(c, g + at, count[grp])))
			goto cleanup;
		pos[grp] = at;
		at += count[grp];
	}
	for (uint64_t i = 0; i < n; i++)
		f[i] = g[pos[sel[i]]++];
	ret = 0;
cleanup:
	free(g);
	free(pos);
	free(count);
	free(sel);
	return ret;
}

long frc_run_decode(const uint8_t *p, size_t len, struct frc_run_frame *f, size_t cap,
		    const char **what)
{
	struct frc_cur c = {.p = p, .len = len};
	uint64_t n, npids;
	int ret;

	*what = "malformed frame run";
	frc_cur_varint(&c, &n);
	frc_cur_varint(&c, &npids);
	if (c.bad || n == 0 || n > FRC_RUN_MAX || n > cap || npids == 0 || npids > n)
		return FRC_ECORRUPT;
	/* One PID (the usual run): its block is the run, decoded in place. */
	ret = npids == 1 ? pid_block_decode(&c, f, n) : run_multi_decode(&c, f, n, npids);
	if (ret == FRC_ENOMEM) {
		*what = "out of memory";
		return FRC_ENOMEM;
	}
	if (ret || c.bad || c.pos != c.len)
		return FRC_ECORRUPT;
	return (long)n;
}
