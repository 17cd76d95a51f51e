/* SPDX-License-Identifier: MIT */
/*
 * db.c - the SQLite store: replay captures into a database (schema: analyzer/SCHEMA.md;
 * the command is cmd/cmd_db.c).
 *
 * One transaction per capture with prepared statements. The database is marked with
 * PRAGMA application_id/user_version so that an existing file that is not ours is refused
 * instead of being written into. A capture is identified by the SHA-256 of its bytes;
 * adding it again replaces its rows (keeping its capture_id).
 *
 * Several db runs may create and fill the same database at once (SCHEMA.md, "Concurrent
 * runs"). The "is this our database" decision and the schema creation are one BEGIN
 * IMMEDIATE transaction. A database that does not exist yet is built next to OUT.db with
 * the first capture stored and then published with link(), which fails when another run
 * published first (the capture is then stored into that one): no run ever deletes a
 * database another run may have opened, and a run that stores nothing creates no file.
 * (Deleting an open SQLite file is what loses data: a connection still holding the old
 * file takes the new file's journal for its own hot journal and rolls it back.)
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "db_schema.h"
#include "display.h"
#include "pidmap.h"
#include "replay.h"
#include "sha256.h"
#include "signals.h"
#include "submissions.h"
#include "windows.h"

#define DB_NAME_OF(name, what, sql) #name,

enum stmt_id {
	S_FRAME,
	S_DELTA,
	S_READING,
	S_LIVE,
	S_SYSFS,
	S_DROPS,
	S_EVENT,
	S_META,
	S_MAIN,
	S_WARM,
	S_LAYER,
	S_PRESENT,
	S_VSYNC,
	S_GAP,
	S_THREAD,
	S_BUFFER,
	S_CONNECT,
	S_CONTENT,
	S_COUNT
};

/* What a failing statement was doing, for the error message. */
static const char *const stmt_what[S_COUNT] = {
    [S_FRAME] = "storing a frame",
    [S_DELTA] = "storing a tracker delta",
    [S_READING] = "storing an FPS reading",
    [S_LIVE] = "storing a live reading",
    [S_SYSFS] = "storing a sysfs sample",
    [S_DROPS] = "storing a drops record",
    [S_EVENT] = "storing an attach/exit event",
    [S_META] = "storing the capture's metadata",
    [S_MAIN] = "storing a main surface",
    [S_WARM] = "storing an interval before the window",
    [S_LAYER] = "storing a layer",
    [S_PRESENT] = "storing a present row",
    [S_VSYNC] = "storing a vsync period",
    [S_GAP] = "storing a present gap",
    [S_THREAD] = "storing a thread name",
    [S_BUFFER] = "storing a buffer's geometry",
    [S_CONNECT] = "storing a surface connection",
    [S_CONTENT] = "storing a content interval",
};

static const char *const stmt_sql[S_COUNT] = {
    [S_FRAME] = "INSERT INTO frames VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
    [S_DELTA] = "INSERT INTO tracker_deltas VALUES(?1,?2,?3,?4,?5,?6,?7)",
    [S_READING] = "INSERT INTO fps_readings VALUES(?1,?2,?3,?4,?5,?6)",
    [S_LIVE] = "INSERT INTO live_readings VALUES(?1,?2,?3,?4,?5)",
    [S_SYSFS] = "INSERT INTO sysfs_samples VALUES(?1,?2,?3,?4,?5)",
    [S_DROPS] = "INSERT INTO drops VALUES(?1,?2,?3)",
    [S_EVENT] = "INSERT INTO events VALUES(?1,?2,?3,?4,?5)",
    [S_META] = "INSERT INTO capture_meta VALUES(?1,?2,?3)",
    [S_MAIN] = "INSERT INTO main_surfaces VALUES(?1,?2,?3,?4,?5,?6,?7)",
    [S_WARM] = "INSERT INTO warm_intervals VALUES(?1,?2,?3,?4,?5,?6)",
    [S_LAYER] = "INSERT INTO layers VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    [S_PRESENT] = "INSERT INTO presents VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
    [S_VSYNC] = "INSERT INTO vsync_periods VALUES(?1,?2,?3)",
    [S_GAP] = "INSERT INTO present_gaps VALUES(?1,?2,?3,?4,?5)",
    [S_THREAD] = "INSERT INTO threads VALUES(?1,?2,?3,?4,?5)",
    [S_BUFFER] = "INSERT INTO buffers VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
    [S_CONNECT] = "INSERT INTO connections VALUES(?1,?2,?3,?4,?5,?6,?7)",
    [S_CONTENT] = "INSERT INTO content_intervals VALUES(?1,?2,?3,?4,?5,?6,?7)",
};

struct dbsink {
	const char *path; /* the database file, for messages */
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	int64_t capture_id;
	double fps_max;
	/*
	 * v[0]: attach/exit records of the PID so far (SCHEMA.md); v[1]: the window its series'
	 * clock is at (windows.h), as the report's for the main PID: moved by the PID's
	 * intervals and by every tracker delta (trk_window), windows only move forward.
	 */
	struct pidmap lives;
	struct submissions *subm; /* the capture's main surfaces, counted in the scan pass */
	struct display *disp;	  /* what was presented, linked to the main surface's calls */
	struct win_clock clk;	  /* the analysed span's full windows */
	uint64_t trk_window;	  /* the window the tracker's deltas moved the clocks to */
	/*
	 * With --from: per PID, PerfDog's window (perfdog.h layout) of its submission series
	 * and of the tracker's deltas before the window, stored into warm_intervals before the
	 * window's first record (warm_stored); the ones that come later still (records out of
	 * time order) are stored as they come.
	 */
	struct pidmap warm_sub, warm_trk;
	bool warm_stored;
	uint64_t deltas, readings;
	bool truncated;		       /* the capture just stored was not read whole */
	struct frc_reader_stats stats; /* its reader's: status, what was lost */
	bool replaced;		       /* the capture just stored replaced the same one */
	char msg[FRC_MSG_MAX];
};

/* The message names the database file and what was being done ("disk I/O error" alone
 * did not say which file or step). */
static int db_fail(struct dbsink *s, const char *what)
{
	snprintf(s->msg, sizeof(s->msg), "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	return -EIO;
}

static int exec(struct dbsink *s, const char *sql, const char *what)
{
	char *e = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		snprintf(s->msg, sizeof(s->msg), "%s: %s: %s", s->path, what,
			 e ? e : sqlite3_errmsg(s->db));
		sqlite3_free(e);
		return -EIO;
	}
	return 0;
}

/* Step a prepared insert and reset it for the next row. */
static int step(struct dbsink *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, stmt_what[id]);
}

/*
 * SQLite integers are signed 64-bit: unsigned values (ktime, buffer pointers) are stored
 * as their two's complement bit pattern, which is the same number below 2^63.
 */
static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static uint64_t *pid_life(struct dbsink *s, uint32_t pid)
{
	struct pidmap_entry *e = pidmap_get(&s->lives, pid, true);
	return e ? &e->v[0] : NULL;
}

/*
 * The window (windows.h) a frame time ending at t counts in, on a clock now at window
 * *cur; the clock moves there (windows only move forward: a frame time back in time
 * counts in the current window). windows.h's own steps, so the rule is the report's.
 */
static uint64_t clock_step(const struct win_clock *span, uint64_t *cur, uint64_t t)
{
	struct win_clock c = *span;
	uint64_t w;

	win_clock_move(&c, *cur);
	if (win_clock_past(&c, t, &w))
		*cur = w;
	return *cur;
}

/* One row of warm_intervals: seq is the frame's, or -k for the k-th last before the window. */
static int store_warm(struct dbsink *s, const char *series, int64_t seq, uint32_t pid,
		      uint64_t delta_ns)
{
	sqlite3_stmt *st = s->st[S_WARM];
	uint64_t *life = pid_life(s, pid);

	if (!life)
		return -ENOMEM;
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_text(st, 2, series, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, seq);
	sqlite3_bind_int64(st, 4, pid);
	bind_u64(st, 5, *life);
	bind_u64(st, 6, delta_ns);
	return step(s, S_WARM);
}

/* Each PID's PerfDog window of one series as it was at the window's start. */
static int store_warm_windows(struct dbsink *s, const struct pidmap *m, const char *series)
{
	for (uint32_t i = 0; i < m->count; i++) {
		const struct pidmap_entry *e = &m->slots[i];
		uint32_t pid = e->pid;
		uint64_t n = e->v[0], d[3] = {e->v[1], e->v[2], e->v[3]};

		/* v[1..n], oldest first: the last one is -1 */
		for (uint64_t k = 0; k < n; k++) {
			int rc = store_warm(s, series, -(int64_t)(n - k), pid, d[k]);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Before the window's first record: what its PerfDog windows start from (SCHEMA.md). */
static int warm_store_all(struct dbsink *s)
{
	int rc;

	s->warm_stored = true;
	rc = store_warm_windows(s, &s->warm_sub, "submission");
	return rc ? rc : store_warm_windows(s, &s->warm_trk, "tracker");
}

/* An interval before the window: into its PID's window of the series, or stored if late. */
static int warm_push(struct dbsink *s, struct pidmap *m, const char *series,
		     const struct pipeline_delta *d)
{
	struct pidmap_entry *w;

	if (s->warm_stored)
		return store_warm(s, series, (int64_t)d->seq, d->pid, d->delta_ns);
	w = pidmap_get(m, d->pid, true);
	if (!w)
		return -ENOMEM;
	(void)perfdog_push(w->v, d->delta_ns);
	return 0;
}

static int rec_sysfs(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[S_SYSFS];
	const struct frc_sysfs *y = &rec->u.sysfs;
	double v;

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	if (y->err) {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
		sqlite3_bind_int(st, 5, y->err);
	} else {
		size_t len = y->len < FRC_SYSFS_MAX ? y->len : FRC_SYSFS_MAX;
		sqlite3_bind_text(st, 3, (const char *)y->raw, (int)len, SQLITE_STATIC);
		if (fps_meter_sysfs_value(0, y->raw, len, s->fps_max, &v))
			sqlite3_bind_double(st, 4, v);
		else
			sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	}
	return step(s, S_SYSFS);
}

static int rec_event(struct dbsink *s, const struct frc_record *rec, uint32_t pid)
{
	sqlite3_stmt *st = s->st[S_EVENT];
	uint64_t *life = pid_life(s, pid);

	if (!life)
		return -ENOMEM;
	++*life;
	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	sqlite3_bind_text(st, 3, frc_type_name(rec->type), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, pid);
	if (rec->type == FRC_ATTACH)
		sqlite3_bind_text(st, 5, rec->u.attach.symbol, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	return step(s, S_EVENT);
}

static int rec_live(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[S_LIVE];
	const struct frc_tick *t = &rec->u.tick;
	const char *src = frc_source_name(t->source, NULL);

	if (!t->has_result)
		return 0;
	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	if (src) {
		sqlite3_bind_double(st, 3, (double)t->fps_micro / 1e6);
		sqlite3_bind_text(st, 4, src, -1, SQLITE_STATIC);
		bind_u64(st, 5, t->fps_micro);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	}
	return step(s, S_LIVE);
}

/*
 * A frame, with its PID's life and the interval it closes in the submissions' series
 * (submissions.c decides: the calls of the PID's main surface; NULL for any other call).
 */
static int rec_frame(struct dbsink *s, const struct frc_record *rec, uint64_t frame_seq)
{
	sqlite3_stmt *st = s->st[S_FRAME];
	struct pidmap_entry *e = pidmap_get(&s->lives, rec->u.frame.pid, true);
	uint64_t *life = e ? &e->v[0] : NULL;
	struct pipeline_delta d;

	if (!life)
		return -ENOMEM;
	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, frame_seq);
	bind_u64(st, 3, rec->ktime_ns);
	sqlite3_bind_int64(st, 4, rec->u.frame.pid);
	sqlite3_bind_int64(st, 5, rec->u.frame.tid);
	bind_u64(st, 6, rec->u.frame.buffer);
	bind_u64(st, 7, rec->u.frame.surface);
	bind_u64(st, 8, *life);
	if (subm_series_next(s->subm, rec, frame_seq, &d)) {
		/* the report's clock for the main PID: its intervals' and the tracker's windows */
		uint64_t cur = e->v[1] > s->trk_window ? e->v[1] : s->trk_window;

		bind_u64(st, 9, d.delta_ns);
		bind_u64(st, 10, clock_step(&s->clk, &cur, d.ktime_ns));
		e->v[1] = cur;
	} else {
		sqlite3_bind_null(st, 9);
		sqlite3_bind_null(st, 10);
	}
	return step(s, S_FRAME);
}

/* vsync and present_gap records as they come (layers and presents wait for the link). */
static int rec_display(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[rec->type == FRC_VSYNC ? S_VSYNC : S_GAP];

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	if (rec->type == FRC_VSYNC) {
		bind_u64(st, 3, rec->u.vsync.period_ns);
		return step(s, S_VSYNC);
	}
	sqlite3_bind_int64(st, 3, rec->u.gap.layer);
	sqlite3_bind_int64(st, 4, rec->u.gap.before);
	sqlite3_bind_int64(st, 5, rec->u.gap.after);
	return step(s, S_GAP);
}

/* A thread record as it comes: the name in force for the thread's frames after it. */
static int rec_thread(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[S_THREAD];

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	sqlite3_bind_int64(st, 3, rec->u.thread.pid);
	sqlite3_bind_int64(st, 4, rec->u.thread.tid);
	sqlite3_bind_text(st, 5, rec->u.thread.name, rec->u.thread.len, SQLITE_STATIC);
	return step(s, S_THREAD);
}

/* A buffer record as it comes: the geometry in force for the buffer's frames after it. */
static int rec_buffer(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[S_BUFFER];
	const struct frc_buffer *g = &rec->u.buffer;

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	sqlite3_bind_int64(st, 3, g->pid);
	bind_u64(st, 4, g->surface);
	bind_u64(st, 5, g->buffer);
	sqlite3_bind_int64(st, 6, g->width);
	sqlite3_bind_int64(st, 7, g->height);
	sqlite3_bind_int64(st, 8, g->stride);
	sqlite3_bind_int64(st, 9, g->format);
	bind_u64(st, 10, g->usage);
	return step(s, S_BUFFER);
}

/* A connect or disconnect record as it comes. */
static int rec_connect(struct dbsink *s, const struct frc_record *rec)
{
	sqlite3_stmt *st = s->st[S_CONNECT];
	const struct frc_connect *k = &rec->u.connect;

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, rec->ktime_ns);
	sqlite3_bind_int64(st, 3, k->pid);
	sqlite3_bind_int64(st, 4, k->tid);
	bind_u64(st, 5, k->surface);
	sqlite3_bind_int64(st, 6, k->api);
	sqlite3_bind_int(st, 7, k->connected);
	return step(s, S_CONNECT);
}

static int db_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct dbsink *s = ctx;
	struct pipeline_delta unused;
	sqlite3_stmt *st;
	int rc;

	if (!s->warm_stored && (rc = warm_store_all(s)))
		return rc;
	switch (rec->type) {
	case FRC_FRAME:
		return rec_frame(s, rec, frame_seq);
	case FRC_SYSFS:
		return rec_sysfs(s, rec);
	case FRC_DROPS:
		st = s->st[S_DROPS];
		sqlite3_bind_int64(st, 1, s->capture_id);
		bind_u64(st, 2, rec->ktime_ns);
		bind_u64(st, 3, rec->u.drops.cumulative);
		return step(s, S_DROPS);
	case FRC_ATTACH:
	case FRC_EXIT:
		/* a new process life: the series starts again (no interval across a restart) */
		(void)subm_series_next(s->subm, rec, frame_seq, &unused);
		return rec_event(s, rec,
				 rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid);
	case FRC_TICK:
		return rec_live(s, rec);
	case FRC_VSYNC:
	case FRC_PRESENT_GAP:
		return rec_display(s, rec);
	case FRC_THREAD:
		return rec_thread(s, rec);
	case FRC_BUFFER:
		return rec_buffer(s, rec);
	case FRC_CONNECT:
		return rec_connect(s, rec);
	default:
		return 0;
	}
}

static int db_delta(void *ctx, const struct pipeline_delta *d)
{
	struct dbsink *s = ctx;
	sqlite3_stmt *st = s->st[S_DELTA];
	uint64_t *life = pid_life(s, d->pid);

	if (!life)
		return -ENOMEM;
	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, d->seq);
	bind_u64(st, 3, d->ktime_ns);
	sqlite3_bind_int64(st, 4, d->pid);
	bind_u64(st, 5, d->buffer);
	bind_u64(st, 6, d->delta_ns);
	bind_u64(st, 7, *life);
	s->deltas++;
	(void)clock_step(&s->clk, &s->trk_window, d->ktime_ns);
	return step(s, S_DELTA);
}

/*
 * A record before the window (replay.h): the PIDs' lives and submission series go on (the
 * window's first interval is measured from the call before it), their PerfDog windows
 * fill; nothing is stored but, for a late one, its interval into warm_intervals.
 */
static int db_warm_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct dbsink *s = ctx;
	struct pipeline_delta d;
	uint64_t *life;
	uint32_t pid;

	if (rec->type == FRC_FRAME)
		return subm_series_next(s->subm, rec, frame_seq, &d)
			   ? warm_push(s, &s->warm_sub, "submission", &d)
			   : 0;
	if (rec->type != FRC_ATTACH && rec->type != FRC_EXIT)
		return 0;
	pid = rec->type == FRC_ATTACH ? rec->u.attach.pid : rec->u.exit.pid;
	(void)subm_series_next(s->subm, rec, frame_seq, &d);
	/* a new life: PerfDog's windows start empty (summary.c forgets them too) */
	pidmap_del(&s->warm_sub, pid);
	pidmap_del(&s->warm_trk, pid);
	life = pid_life(s, pid);
	if (!life)
		return -ENOMEM;
	++*life;
	return 0;
}

/* A tracker delta before the window: into its PID's PerfDog window. */
static int db_warm_delta(void *ctx, const struct pipeline_delta *d)
{
	return warm_push(ctx, &((struct dbsink *)ctx)->warm_trk, "tracker", d);
}

static int db_reading(void *ctx, const struct pipeline_reading *r)
{
	struct dbsink *s = ctx;
	sqlite3_stmt *st = s->st[S_READING];

	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, r->tick_ns);
	if (r->reading.valid) {
		sqlite3_bind_double(st, 3, r->reading.fps);
		sqlite3_bind_text(st, 4, frc_source_name(r->reading.source, NULL), -1,
				  SQLITE_STATIC);
		bind_u64(st, 5, fps_to_micro(r->reading.fps));
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	}
	sqlite3_bind_int(st, 6, r->tick == NULL);
	s->readings++;
	return step(s, S_READING);
}

/*
 * One row per PID: its main surface as submissions.c chose it in the scan pass (so the
 * database follows that rule, whatever it becomes), and whether it is the main PID.
 */
static int store_mains(struct dbsink *s)
{
	sqlite3_stmt *st = s->st[S_MAIN];
	const struct subm_pid *main_pid = subm_main_pid(s->subm);

	for (size_t i = 0; i < subm_pid_count(s->subm); i++) {
		const struct subm_pid *p = subm_pid_at(s->subm, i);

		sqlite3_bind_int64(st, 1, s->capture_id);
		sqlite3_bind_int64(st, 2, p->pid);
		bind_u64(st, 3, p->main_surface);
		bind_u64(st, 4, p->main_calls);
		bind_u64(st, 5, p->calls);
		bind_u64(st, 6, p->surfaces);
		sqlite3_bind_int(st, 7, p == main_pid);
		if (step(s, S_MAIN))
			return -EIO;
	}
	return 0;
}

static int db_begin(void *ctx, const struct replay_info *info)
{
	struct dbsink *s = ctx;
	sqlite3_stmt *st = s->st[S_META];

	s->fps_max = info->config.meter.fps_max;
	if (subm_series_begin(s->subm, info, s->msg, sizeof(s->msg)))
		return -EINVAL;
	win_clock_init(&s->clk, info->span_start, info->span_end);
	s->trk_window = 0;
	if (store_mains(s))
		return -EIO;
	for (size_t i = 0; i < frc_reader_meta_count(info->reader); i++) {
		const struct frc_meta *m = frc_reader_meta(info->reader, i);
		sqlite3_bind_int64(st, 1, s->capture_id);
		sqlite3_bind_text(st, 2, m->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, m->value, -1, SQLITE_STATIC);
		if (step(s, S_META))
			return -EIO;
	}
	return 0;
}

/* Bind v, or NULL when it is the "none" value. */
static void bind_or_null(sqlite3_stmt *st, int i, uint64_t v, uint64_t none)
{
	if (v == none)
		sqlite3_bind_null(st, i);
	else
		bind_u64(st, i, v);
}

/* Row i of layer l, with the frame it shows (the linked call's frame_seq) or NULL. */
static int store_present(struct dbsink *s, const struct display_layer *l, size_t i)
{
	const struct display *d = s->disp;
	const struct display_row *r = &l->row[i];
	sqlite3_stmt *st = s->st[S_PRESENT];
	bool linked = l->call_of && l->call_of[i] != PL_NONE;

	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_int64(st, 2, l->id);
	bind_u64(st, 3, i);
	bind_u64(st, 4, r->ktime);
	sqlite3_bind_int64(st, 5, r->p.desired);
	sqlite3_bind_int64(st, 6, r->p.actual);
	sqlite3_bind_int64(st, 7, r->p.ready);
	if (linked) {
		bind_u64(st, 8, d->call_seq[l->call_of[i]]);
		sqlite3_bind_text(st, 9, display_row_tight(d, l, i) ? "tight" : "by_order", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, 14, l->anchored[i]);
	} else {
		sqlite3_bind_null(st, 8);
		sqlite3_bind_null(st, 9);
		sqlite3_bind_null(st, 14);
	}
	bind_or_null(st, 10, r->interval_ns, 0);
	bind_u64(st, 11, r->segment);
	bind_or_null(st, 12, r->period_ns, 0);
	bind_or_null(st, 13, r->window, UINT32_MAX);
	return step(s, S_PRESENT);
}

/* At the end (the link needs every row): each layer and its rows. */
static int store_display(struct dbsink *s)
{
	const struct display *d = s->disp;
	sqlite3_stmt *st = s->st[S_LAYER];

	for (size_t k = 0; k < d->n_layers; k++) {
		const struct display_layer *l = &d->layer[k];
		bool content = l == display_content(d);

		sqlite3_bind_int64(st, 1, s->capture_id);
		sqlite3_bind_int64(st, 2, l->id);
		sqlite3_bind_text(st, 3, l->name, -1, SQLITE_STATIC);
		bind_u64(st, 4, l->first_ktime);
		bind_or_null(st, 5, l->gone_ktime, 0);
		sqlite3_bind_int(st, 6, content);
		if (content)
			sqlite3_bind_text(st, 7,
					  l->link.mode == PL_REPLACING ? "replacing" : "queueing",
					  -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 7);
		/* the calls its rows link to (display.h: the content the truth follows) */
		if (l->call_of && d->has_main) {
			sqlite3_bind_int64(st, 8, d->main_pid);
			bind_u64(st, 9, d->main_surface);
		} else {
			sqlite3_bind_null(st, 8);
			sqlite3_bind_null(st, 9);
		}
		if (step(s, S_LAYER))
			return -EIO;
		for (size_t i = 0; i < l->n_row; i++)
			if (store_present(s, l, i))
				return -EIO;
	}
	return 0;
}

/* The captures row, written last: it needs the final counts. */
/*
 * The truth's changes as intervals (SCHEMA.md): change i holds from its time to the next
 * one's, the last to the capture's last record; a time with no content has none.
 */
static int store_content(struct dbsink *s, uint64_t last_ns)
{
	const struct subm_truth *tr = subm_truth(s->subm);
	sqlite3_stmt *st = s->st[S_CONTENT];

	for (size_t i = 0; i < tr->n_changes; i++) {
		const struct subm_change *c = &tr->changes[i];
		uint64_t to = i + 1 < tr->n_changes ? tr->changes[i + 1].ktime_ns : last_ns;

		if (!c->pid || (!c->surface && tr->rule == SUBM_RULE_CONTENT))
			continue;
		sqlite3_bind_int64(st, 1, s->capture_id);
		sqlite3_bind_int64(st, 2, c->pid);
		bind_u64(st, 3, c->surface);
		bind_u64(st, 4, c->ktime_ns);
		bind_u64(st, 5, to > c->ktime_ns ? to : c->ktime_ns);
		sqlite3_bind_text(st, 6, subm_why_name(c->why), -1, SQLITE_STATIC);
		bind_u64(st, 7, c->frames);
		if (step(s, S_CONTENT))
			return -EIO;
	}
	return 0;
}

static int db_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct dbsink *s = ctx;
	const struct frc_reader_stats *rs = &info->stats;
	sqlite3_stmt *st = NULL;
	char ver[16];
	int rc;

	if (!s->warm_stored && (rc = warm_store_all(s)))
		return rc;
	if ((rc = store_display(s)) || (rc = store_content(s, info->stats.last_ktime_ns)))
		return rc;
	s->truncated = rs->status != FRC_STATUS_COMPLETE;
	s->stats = *rs;
	snprintf(ver, sizeof(ver), "%u.%u", info->major, info->minor);
	if (sqlite3_prepare_v2(s->db,
			       "UPDATE captures SET status=?2, valid_end=?3, format_version=?4,"
			       " first_ktime_ns=?5, last_ktime_ns=?6, frames=?7,"
			       " reservation_failures=?8, records=?9, unknown_records=?10,"
			       " chunks=?11, deltas=?12, readings=?13, has_sysfs=?14,"
			       " synthesized_ticks=?15, tick_ms=?16, tracker=?17, out_of_order=?18,"
			       " trackers_evicted=?19, buffers_evicted=?20, ticks_skipped=?21,"
			       " span_start_ns=?22, span_end_ns=?23, windowed=?24, full_windows=?25"
			       " WHERE capture_id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "preparing the captures row");
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_text(st, 2, frc_status_name(rs->status), -1, SQLITE_STATIC);
	if (rs->status == FRC_STATUS_COMPLETE)
		sqlite3_bind_null(st, 3);
	else
		bind_u64(st, 3, rs->valid_end);
	sqlite3_bind_text(st, 4, ver, -1, SQLITE_TRANSIENT);
	if (rs->records) {
		bind_u64(st, 5, rs->first_ktime_ns);
		bind_u64(st, 6, rs->last_ktime_ns);
	}
	bind_u64(st, 7, rs->by_type[FRC_FRAME]);
	bind_u64(st, 8, ps->drops);
	bind_u64(st, 9, rs->records);
	bind_u64(st, 10, rs->unknown);
	bind_u64(st, 11, rs->chunks);
	bind_u64(st, 12, s->deltas);
	bind_u64(st, 13, s->readings);
	sqlite3_bind_int(st, 14, info->has_sysfs);
	sqlite3_bind_int(st, 15, info->synthesize_ticks);
	sqlite3_bind_int64(st, 16, info->tick_ms);
	sqlite3_bind_text(st, 17, info->tracker, -1, SQLITE_TRANSIENT);
	bind_u64(st, 18, rs->out_of_order);
	bind_u64(st, 19, ps->trackers_evicted);
	bind_u64(st, 20, ps->buffers_evicted);
	bind_u64(st, 21, ps->ticks_skipped);
	if (rs->records) {
		bind_u64(st, 22, info->span_start);
		bind_u64(st, 23, info->span_end);
	}
	sqlite3_bind_int(st, 24, info->windowed);
	bind_u64(st, 25, s->clk.n_full);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, "completing the captures row");
	sqlite3_finalize(st);
	return rc;
}

static const char *db_error(void *ctx)
{
	struct dbsink *s = ctx;
	return s->msg;
}

/* ------------------------------------------------------------ database set-up */

/* How long to wait for another process's write transaction on the same database. */
#define DB_BUSY_MS 10000

/* A failed BEGIN: another writer held on for too long, not SQLite at all, or an I/O error. */
static int lock_fail(struct dbsink *s, const char *what)
{
	int code = sqlite3_errcode(s->db);

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
		snprintf(s->msg, sizeof(s->msg),
			 "%s: database is locked by another writer (waited %d s)", s->path,
			 DB_BUSY_MS / 1000);
		return -EBUSY;
	}
	if (code == SQLITE_NOTADB) {
		snprintf(s->msg, sizeof(s->msg),
			 "%s: not a frameanalyze database (%s); refusing to write to it", s->path,
			 sqlite3_errmsg(s->db));
		return -EINVAL;
	}
	return db_fail(s, what);
}

/*
 * Inside the write transaction: a new or empty file gets the schema; an existing database
 * without our application_id/user_version is refused.
 */
static int db_check_schema(struct dbsink *s)
{
	sqlite3_stmt *st = NULL;
	int64_t app, ver, tables;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT (SELECT application_id FROM pragma_application_id),"
			       " (SELECT user_version FROM pragma_user_version),"
			       " (SELECT count(*) FROM sqlite_schema)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(s, "reading the database header");
	}
	app = sqlite3_column_int64(st, 0);
	ver = sqlite3_column_int64(st, 1);
	tables = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (app == 0 && tables == 0)
		return exec(s, DB_SCHEMA_SQL, "creating the schema");
	if (app == DB_APPLICATION_ID && ver != DB_SCHEMA_VERSION) {
		snprintf(s->msg, sizeof(s->msg),
			 "%s: a frameanalyze database of schema version %" PRId64
			 ", this frameanalyze writes version %d; store into a new database",
			 s->path, ver, DB_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (app != DB_APPLICATION_ID || ver != DB_SCHEMA_VERSION) {
		snprintf(s->msg, sizeof(s->msg),
			 "%s: not a frameanalyze database (application_id %" PRId64
			 ", user_version %" PRId64 ", %" PRId64
			 " schema objects); refusing to write to it",
			 s->path, app, ver, tables);
		return -EINVAL;
	}
	return 0;
}

static int db_prepare(struct dbsink *s)
{
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
				       NULL) != SQLITE_OK)
			return db_fail(s, "preparing the inserts");
	return 0;
}

static void db_disconnect(struct dbsink *s)
{
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(s->st[i]);
		s->st[i] = NULL;
	}
	sqlite3_close(s->db);
	s->db = NULL;
}

static void rollback(struct dbsink *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/*
 * Open the database file (s->path, or the file the first capture is built in) and make
 * sure it is ours. The check and the schema creation are one BEGIN IMMEDIATE transaction:
 * of several runs finding an empty file, one creates the tables and the others wait for it
 * and then find them. Returns -ENOENT, with nothing opened, when the file does not exist
 * and create is false.
 */
static int db_open(struct dbsink *s, const char *file, bool create)
{
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	if (sqlite3_open_v2(file, &s->db, flags, NULL) != SQLITE_OK) {
		/*
		 * The open's own errno, not a later access(): another run may publish the
		 * file in between, and "exists now" must not turn "did not exist" into an
		 * error (the caller then stores into the published one).
		 */
		rc = !create && s->db && sqlite3_system_errno(s->db) == ENOENT ? -ENOENT : -EIO;
		if (rc == -EIO)
			snprintf(s->msg, sizeof(s->msg), "%s: cannot open: %s", s->path,
				 s->db ? sqlite3_errmsg(s->db) : "out of memory");
		db_disconnect(s);
		return rc;
	}
	/* another db run (or sqlite3) writing the same database is waited for */
	sqlite3_busy_timeout(s->db, DB_BUSY_MS);
	if (sqlite3_exec(s->db, DB_PRAGMAS, NULL, NULL, NULL) != SQLITE_OK)
		return lock_fail(s, "setting up the connection");
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return lock_fail(s, "starting a write transaction");
	rc = db_check_schema(s);
	if (!rc)
		rc = exec(s, "COMMIT", "committing the schema");
	if (rc) {
		rollback(s);
		return rc;
	}
	return db_prepare(s);
}

static void db_close(struct dbsink *s)
{
	if (s->db)
		db_disconnect(s);
	pidmap_free(&s->lives);
	pidmap_free(&s->warm_sub);
	pidmap_free(&s->warm_trk);
	subm_free(s->subm);
	display_free(s->disp);
	s->disp = NULL;
}

/*
 * Find the capture with this SHA-256 (to replace) or create its row. Inside the capture's
 * transaction: a failed replay rolls the deletion back too.
 */
static int db_start_capture(struct dbsink *s, const char *path, const char *sha, bool *replaced)
{
	/* every table of the schema's list holds rows of one capture, but captures itself */
	static const char *const tables[] = {DB_TABLES(DB_NAME_OF)};
	sqlite3_stmt *st = NULL;
	char sql[128];
	int rc;

	*replaced = false;
	if (sqlite3_prepare_v2(s->db, "SELECT capture_id FROM captures WHERE sha256=?1", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(s, "looking the capture up");
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->capture_id = sqlite3_column_int64(st, 0);
		*replaced = true;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(s, "looking the capture up");
	if (*replaced) {
		for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
			if (!strcmp(tables[i], "captures"))
				continue;
			snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE capture_id=%" PRId64,
				 tables[i], s->capture_id);
			if (exec(s, sql, "deleting the old rows of the same capture"))
				return -EIO;
		}
		if (sqlite3_prepare_v2(s->db, "UPDATE captures SET path=?2 WHERE capture_id=?1", -1,
				       &st, NULL) != SQLITE_OK)
			return db_fail(s, "updating the captures row");
		sqlite3_bind_int64(st, 1, s->capture_id);
	} else {
		if (sqlite3_prepare_v2(
			s->db,
			"INSERT INTO captures(path, sha256, status, format_version,"
			" frames, reservation_failures) VALUES(?2, ?3, '', '', 0, 0)",
			-1, &st, NULL) != SQLITE_OK)
			return db_fail(s, "adding the captures row");
		sqlite3_bind_text(st, 3, sha, -1, SQLITE_STATIC);
	}
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, "writing the captures row");
	sqlite3_finalize(st);
	if (!rc && !*replaced)
		s->capture_id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

/* Store one capture in its own transaction into the open database. 0 or -errno (s->msg). */
static int store_capture(struct dbsink *s, const char *path, const char *sha,
			 const struct replay_options *ropt)
{
	struct replay_sink sink = {
	    .ctx = s,
	    .begin = db_begin,
	    .record = db_record,
	    .delta = db_delta,
	    .reading = db_reading,
	    .end = db_end,
	    .error = db_error,
	    .warm_record = db_warm_record,
	    .warm_delta = db_warm_delta,
	};
	struct replay_sink count, sinks[2];
	/* the display's sink first: its end links the rows before db_end stores them */
	struct replay_lane lane = {.sinks = sinks, .n_sinks = 2};
	/* the scan pass counts the main surfaces before the lane stores the first frame */
	struct replay_plan plan = {.scan = &count, .n_scan = 1, .lanes = &lane, .n_lanes = 1};
	struct replay_source src = {.path = path};
	char err[FRC_MSG_MAX];
	int rc;

	subm_free(s->subm);
	display_free(s->disp);
	s->disp = NULL;
	if ((rc = subm_new(&s->subm)) || (rc = display_new(&s->disp, s->subm))) {
		snprintf(s->msg, sizeof(s->msg), "%s: out of memory", path);
		return rc;
	}
	count = subm_count_sink(s->subm);
	sinks[0] = display_sink(s->disp);
	sinks[1] = sink;
	pidmap_free(&s->lives);
	pidmap_free(&s->warm_sub);
	pidmap_free(&s->warm_trk);
	s->warm_stored = false;
	s->deltas = s->readings = 0;
	s->truncated = false;
	memset(&s->stats, 0, sizeof(s->stats));
	s->msg[0] = '\0';
	if ((rc = exec(s, "BEGIN IMMEDIATE", "starting a write transaction")) ||
	    (rc = db_start_capture(s, path, sha, &s->replaced)))
		goto rollback;
	rc = replay_run_plan(&src, ropt, &plan, err, sizeof(err));
	if (rc) {
		/* the counting's own messages ("more than N (pid, surface) pairs") name no file */
		size_t n = strstr(err, path)
			       ? 0
			       : (size_t)snprintf(s->msg, sizeof(s->msg),
						  "%.*s: ", (int)sizeof(s->msg) / 2, path);
		snprintf(s->msg + n, sizeof(s->msg) - n, "%s", err);
		goto rollback;
	}
	if ((rc = exec(s, "COMMIT", "committing the capture")))
		goto rollback;
	return 0;
rollback:
	if (rc == -EIO && !strstr(s->msg, path))
		snprintf(s->msg + strlen(s->msg), sizeof(s->msg) - strlen(s->msg), " (storing %s)",
			 path);
	rollback(s);
	return rc;
}

/*
 * The database does not exist yet: build it next to it with this capture stored, then
 * publish it with link(), which never replaces a file. When another run published the
 * database first, the capture is stored into that one instead. A run whose captures all
 * fail thus creates no file, and no run ever deletes a database that others may have
 * opened.
 */
static int store_first_capture(struct dbsink *s, const char *path, const char *sha,
			       const struct replay_options *ropt)
{
	char tmp[4096], journal[4096 + 8];
	bool theirs = false;
	int rc;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", s->path, (long)getpid()) >=
	    sizeof(tmp)) {
		snprintf(s->msg, sizeof(s->msg), "%s: path too long", s->path);
		return -ENAMETOOLONG;
	}
	snprintf(journal, sizeof(journal), "%s-journal", tmp);
	/* leftovers of a killed run with our PID (its journal would be taken as hot) */
	unlink(journal);
	unlink(tmp);
	sig_unlink_on_stop(tmp, journal);
	rc = db_open(s, tmp, true);
	if (!rc) {
		rc = store_capture(s, path, sha, ropt);
		db_disconnect(s);
	}
	if (!rc && link(tmp, s->path) != 0) {
		rc = errno == EEXIST ? 0 : -errno;
		theirs = rc == 0;
		if (rc)
			snprintf(s->msg, sizeof(s->msg), "%s: cannot create: %s", s->path,
				 strerror(-rc));
	}
	/* ours or, when link() found one, the database another run published meanwhile */
	if (!rc && (rc = db_open(s, s->path, false)) && !s->msg[0])
		snprintf(s->msg, sizeof(s->msg), "%s: database vanished", s->path);
	if (!rc && theirs)
		rc = store_capture(s, path, sha, ropt);
	unlink(tmp);
	unlink(journal); /* SQLite removed it at the commit or rollback; after a crash not */
	sig_unlink_on_stop(NULL, NULL);
	return rc;
}

/* ------------------------------------------------------------ the store (db.h) */

#define DB_TABLE_OBJECT(name, what, cols) {#name, what, false},
#define DB_VIEW_OBJECT(name, what, select) {#name, what, true},

const struct db_object *db_schema_objects(size_t *n)
{
	static const struct db_object objects[] = {DB_TABLES(DB_TABLE_OBJECT)
						       DB_VIEWS(DB_VIEW_OBJECT)};

	*n = sizeof(objects) / sizeof(objects[0]);
	return objects;
}

int db_store_open(struct db_store **out, const char *path)
{
	struct dbsink *s = calloc(1, sizeof(*s));
	int rc;

	*out = (struct db_store *)s;
	if (!s)
		return -ENOMEM;
	s->path = path;
	/* a missing database is created with the first capture stored (store_first_capture) */
	rc = db_open(s, path, false);
	return rc == -ENOENT ? 0 : rc;
}

const char *db_store_error(const struct db_store *store)
{
	const struct dbsink *s = (const struct dbsink *)store;

	return s && s->msg[0] ? s->msg : "out of memory";
}

int db_store_add(struct db_store *store, const char *path, const struct replay_options *ropt,
		 struct db_added *added)
{
	struct dbsink *s = (struct dbsink *)store;
	char sha[65];
	int rc;

	s->msg[0] = '\0';
	rc = sha256_file(path, sha);
	if (rc) {
		snprintf(s->msg, sizeof(s->msg), "%s: %s", path,
			 rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return rc;
	}
	rc = s->db ? store_capture(s, path, sha, ropt) : store_first_capture(s, path, sha, ropt);
	if (rc)
		return rc;
	*added = (struct db_added){.capture_id = s->capture_id,
				   .replaced = s->replaced,
				   .truncated = s->truncated,
				   .stats = s->stats,
				   .deltas = s->deltas,
				   .readings = s->readings};
	return 0;
}

void db_store_close(struct db_store *store)
{
	struct dbsink *s = (struct dbsink *)store;

	if (!s)
		return;
	db_close(s);
	free(s);
}
