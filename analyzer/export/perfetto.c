/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - the capture as a native
 * Perfetto trace (protobuf, written by pb.c; field numbers from Perfetto's public protos,
 * analyzer/REPORT.md "Perfetto trace"), to open in ui.perfetto.dev next to the device's
 * own system trace. `frameanalyze perfetto` (cmd/cmd_perfetto.c) writes it to a file.
 *
 * One trusted sequence; every event carries its CLOCK_MONOTONIC timestamp (Perfetto's
 * builtin clock 3: bpf_ktime_get_ns()), and a clock snapshot relates it to CLOCK_REALTIME
 * from the capture's realtime.offset_ns metadata, so the two traces line up. Tracks: a
 * process track per PID, a thread track per TID (an instant per queueBuffer call), a
 * track per (PID, surface) with one slice per submission interval; counter tracks for the
 * main surface's FPS and frame time, the tracker's deltas, the meter's readings by source,
 * sysfs samples and cumulative reservation failures; instants for janks, BigJanks, attach
 * and exit. Streaming: memory is bounded by the tracks, not the capture's length.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fps_meter.h"
#include "frc_escape.h"
#include "pb.h"
#include "perfetto.h"
#include "perfdog.h"
#include "pidmap.h"
#include "replay.h"
#include "submissions.h"

/* Perfetto field numbers (../shared/reference/perfetto-fields.md). */
enum {
	TRACE_PACKET = 1,
	PKT_TIMESTAMP = 8,
	PKT_CLOCK_ID = 58,
	PKT_CLOCK_SNAPSHOT = 6,
	PKT_SEQ_ID = 10,
	PKT_TRACK_EVENT = 11,
	PKT_TRACK_DESCRIPTOR = 60,
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	PD_PID = 1,
	PD_NAME = 6,
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	CD_UNIT = 3,
	CD_UNIT_NAME = 6,
	TE_TYPE = 9,
	TE_TRACK = 11,
	TE_NAME = 23,
	TE_DOUBLE_VALUE = 44,
	TE_ANNOTATION = 4,
	DA_NAME = 10,
	DA_DOUBLE = 5,
	CS_CLOCKS = 1,
	CLK_ID = 1,
	CLK_TIMESTAMP = 2,
};
enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4 };
enum { CLOCK_ID_REALTIME = 1, CLOCK_ID_MONOTONIC = 3 };
#define SEQ_ID 1

/* Counter tracks: fixed uuids (nonzero; process, thread and surface uuids are hashes). */
enum counter_track {
	CT_SUB_FPS,
	CT_SUB_MS,
	CT_TRK_MS,
	CT_METER_SYSFS,
	CT_METER_EBPF,
	CT_SYSFS,
	CT_DROPS,
	CT_EVENTS, /* not a counter: the instants of janks */
	CT_KINDS
};
static const char *const ct_name[CT_KINDS] = {"submitted FPS (main surface)",
					      "frame time ms (main surface)",
					      "tracker delta ms",
					      "meter FPS (sysfs)",
					      "meter FPS (eBPF)",
					      "sysfs FPS",
					      "reservation failures",
					      "janks (PerfDog)"};
static const char *const ct_unit[CT_KINDS] = {"FPS", "ms", "ms", "FPS", "FPS", "FPS", "", ""};
#define CT_UUID(k) (0x100u + (unsigned)(k))

#define MAX_SURFACE_TRACKS PERFETTO_MAX_SURFACE_TRACKS

struct surface_track {
	uint32_t pid;
	uint64_t surface, uuid, begin_ns;
	bool open;
};

struct exporter {
	FILE *out;
	struct pb pkt, ev, sub; /* reused: the packet, its event, a nested message */
	struct pidmap pids, tids, trk_win;
	struct surface_track surf[MAX_SURFACE_TRACKS];
	size_t n_surf;
	uint64_t untracked, sub_win[4];
	const char *target;
	uint32_t main_pid;
	struct frc_reader_stats stats; /* the replay's, at its end */
	char err[160];
};

/* splitmix64: deterministic, well-spread track uuids from (kind, a, b). */
static uint64_t uuid_of(uint64_t kind, uint64_t a, uint64_t b)
{
	uint64_t z = kind * 0x9E3779B97F4A7C15ull ^ a * 0xBF58476D1CE4E5B9ull ^ b;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z < 0x1000 ? z + 0x1000 : z; /* never a counter's uuid */
}

/* The packet as one `packet` field of the Trace: key, length varint, bytes. */
static void emit_packet(struct exporter *x)
{
	uint8_t len[10];
	size_t n = 0;
	uint64_t v = x->pkt.n;

	if (x->pkt.oom)
		return;
	while (v >= 0x80) {
		len[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	len[n++] = (uint8_t)v;
	fputc(TRACE_PACKET << 3 | PB_LEN, x->out);
	fwrite(len, 1, n, x->out);
	fwrite(x->pkt.b, 1, x->pkt.n, x->out);
}

static void descriptor(struct exporter *x, const struct pb *td)
{
	pb_reset(&x->pkt);
	pb_u64(&x->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_msg(&x->pkt, PKT_TRACK_DESCRIPTOR, td);
	emit_packet(x);
}

/* An event of type on track at t; value: a counter's value; name: a slice's or instant's. */
static void event(struct exporter *x, uint64_t t, int type, uint64_t track, const char *name,
		  double value, const char *ann_name, double ann)
{
	pb_reset(&x->ev);
	pb_u64(&x->ev, TE_TYPE, (uint64_t)type);
	pb_u64(&x->ev, TE_TRACK, track);
	if (name)
		pb_str(&x->ev, TE_NAME, name);
	if (type == COUNTER)
		pb_double(&x->ev, TE_DOUBLE_VALUE, value);
	if (ann_name) {
		pb_reset(&x->sub);
		pb_str(&x->sub, DA_NAME, ann_name);
		pb_double(&x->sub, DA_DOUBLE, ann);
		pb_msg(&x->ev, TE_ANNOTATION, &x->sub);
	}
	pb_reset(&x->pkt);
	pb_u64(&x->pkt, PKT_TIMESTAMP, t);
	pb_u64(&x->pkt, PKT_CLOCK_ID, CLOCK_ID_MONOTONIC);
	pb_u64(&x->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->ev);
	emit_packet(x);
}

/* Text from the capture as a valid UTF-8 string field (frc_escape.h, the one escaper). */
static void safe_name(char *buf, size_t len, const char *s)
{
	frc_escape(s, strlen(s), FRC_ESCAPE_TEXT, buf, len);
}

/* ------------------------------------------------------------ tracks */

static uint64_t process_uuid(uint32_t pid)
{
	return uuid_of(1, pid, 0);
}

/* The process track of pid, described on first use. */
static int process_track(struct exporter *x, uint32_t pid)
{
	struct pidmap_entry *e = pidmap_get(&x->pids, pid, true);
	struct pb td = {0}, pd = {0};
	char name[160], esc[128];

	if (!e)
		return -ENOMEM;
	if (e->v[0])
		return 0;
	e->v[0] = 1;
	if (pid == x->main_pid && x->target) {
		safe_name(esc, sizeof(esc), x->target);
		snprintf(name, sizeof(name), "%s", esc);
	} else {
		snprintf(name, sizeof(name), "pid %" PRIu32, pid);
	}
	pb_u64(&pd, PD_PID, pid);
	pb_str(&pd, PD_NAME, name);
	pb_u64(&td, TD_UUID, process_uuid(pid));
	pb_msg(&td, TD_PROCESS, &pd);
	descriptor(x, &td);
	pb_free(&pd);
	pb_free(&td);
	return td.oom || pd.oom ? -ENOMEM : 0;
}

/* The thread track of tid (child of its process), described on first use. */
static int thread_track(struct exporter *x, uint32_t pid, uint32_t tid, uint64_t *uuid)
{
	struct pidmap_entry *e = pidmap_get(&x->tids, tid, true);
	struct pb td = {0}, th = {0};
	char name[32];

	*uuid = uuid_of(2, pid, tid);
	if (!e)
		return -ENOMEM;
	if (e->v[0] == *uuid)
		return 0;
	e->v[0] = *uuid; /* a TID reused by another process gets its own track */
	snprintf(name, sizeof(name), "tid %" PRIu32, tid);
	pb_u64(&th, THD_PID, pid);
	pb_u64(&th, THD_TID, tid);
	pb_str(&th, THD_NAME, name);
	pb_u64(&td, TD_UUID, *uuid);
	pb_u64(&td, TD_PARENT, process_uuid(pid));
	pb_msg(&td, TD_THREAD, &th);
	descriptor(x, &td);
	pb_free(&th);
	pb_free(&td);
	return 0;
}

/* The slice track of (pid, surface), described on first use; NULL past the limit. */
static struct surface_track *surface_track(struct exporter *x, uint32_t pid, uint64_t surface)
{
	struct surface_track *s;
	struct pb td = {0};
	char name[64];

	for (size_t i = 0; i < x->n_surf; i++)
		if (x->surf[i].pid == pid && x->surf[i].surface == surface)
			return &x->surf[i];
	if (x->n_surf == MAX_SURFACE_TRACKS)
		return NULL;
	s = &x->surf[x->n_surf++];
	*s = (struct surface_track){
	    .pid = pid, .surface = surface, .uuid = uuid_of(3, pid, surface)};
	snprintf(name, sizeof(name), "surface 0x%" PRIx64 " (submissions)", surface);
	pb_u64(&td, TD_UUID, s->uuid);
	pb_str(&td, TD_NAME, name);
	pb_u64(&td, TD_PARENT, process_uuid(pid));
	descriptor(x, &td);
	pb_free(&td);
	return s;
}

static void counter_tracks(struct exporter *x)
{
	for (int k = 0; k < CT_KINDS; k++) {
		struct pb td = {0}, cd = {0};

		pb_u64(&td, TD_UUID, CT_UUID(k));
		pb_str(&td, TD_NAME, ct_name[k]);
		if (k != CT_EVENTS) {
			if (*ct_unit[k])
				pb_str(&cd, CD_UNIT_NAME, ct_unit[k]);
			else
				pb_u64(&cd, CD_UNIT, 2); /* UNIT_COUNT */
			pb_msg(&td, TD_COUNTER, &cd);
		}
		descriptor(x, &td);
		pb_free(&cd);
		pb_free(&td);
	}
}

/* MONOTONIC <-> REALTIME at the capture's first record, from realtime.offset_ns. */
static void clock_snapshot(struct exporter *x, const struct replay_info *info)
{
	const char *off =
	    info->reader ? frc_reader_meta_get(info->reader, "realtime.offset_ns") : NULL;
	uint64_t t0 = info->stats.first_ktime_ns;
	struct pb cs = {0}, clk = {0};
	long long o;
	char *end;

	errno = 0;
	o = off ? strtoll(off, &end, 10) : 0;
	/* a missing or malformed offset: no snapshot (REPORT.md); a bad one must not lie */
	if (!off || errno || end == off || *end || (o < 0 && (uint64_t)-o > t0))
		return;
	pb_u64(&clk, CLK_ID, CLOCK_ID_MONOTONIC);
	pb_u64(&clk, CLK_TIMESTAMP, t0);
	pb_msg(&cs, CS_CLOCKS, &clk);
	pb_reset(&clk);
	pb_u64(&clk, CLK_ID, CLOCK_ID_REALTIME);
	pb_u64(&clk, CLK_TIMESTAMP, t0 + (uint64_t)o);
	pb_msg(&cs, CS_CLOCKS, &clk);
	pb_reset(&x->pkt);
	pb_u64(&x->pkt, PKT_TIMESTAMP, t0);
	pb_u64(&x->pkt, PKT_CLOCK_ID, CLOCK_ID_MONOTONIC);
	pb_u64(&x->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_msg(&x->pkt, PKT_CLOCK_SNAPSHOT, &cs);
	emit_packet(x);
	pb_free(&clk);
	pb_free(&cs);
}

/* ------------------------------------------------------------ the sink */

static int px_begin(void *ctx, const struct replay_info *info)
{
	struct exporter *x = ctx;

	x->target = info->reader ? frc_reader_meta_get(info->reader, "target") : NULL;
	clock_snapshot(x, info);
	counter_tracks(x);
	return 0;
}

/* A queueBuffer call: the thread's instant, the surface's slices. */
static int px_frame(struct exporter *x, const struct frc_record *rec)
{
	const struct frc_frame *f = &rec->u.frame;
	struct surface_track *s;
	uint64_t thread;
	int rc = process_track(x, f->pid);

	if (!rc)
		rc = thread_track(x, f->pid, f->tid, &thread);
	if (rc)
		return rc;
	event(x, rec->ktime_ns, INSTANT, thread, "queueBuffer", 0, NULL, 0);
	s = surface_track(x, f->pid, f->surface);
	if (!s) {
		x->untracked++;
		return 0;
	}
	/*
	 * One slice per interval: a call ends the previous interval and begins the next. A
	 * call before the open slice's begin (a clock step back) makes no interval: that
	 * slice ends at its begin, as a zero interval is none in the truth series.
	 */
	if (s->open)
		event(x, rec->ktime_ns > s->begin_ns ? rec->ktime_ns : s->begin_ns, SLICE_END,
		      s->uuid, NULL, 0, NULL, 0);
	event(x, rec->ktime_ns, SLICE_BEGIN, s->uuid, "frame", 0, NULL, 0);
	s->open = true;
	s->begin_ns = rec->ktime_ns;
	return 0;
}

/*
 * A process life (pid) or the capture (pid 0) ends: the slices still open began at their
 * surface's last call, which no call closes. Running them to the exit or to the capture's
 * end would draw a frame that never was; each ends at its own begin (zero length).
 */
static void close_slices(struct exporter *x, uint32_t pid)
{
	for (size_t i = 0; i < x->n_surf; i++) {
		struct surface_track *s = &x->surf[i];
		if (s->open && (s->pid == pid || pid == 0)) {
			event(x, s->begin_ns, SLICE_END, s->uuid, NULL, 0, NULL, 0);
			s->open = false;
		}
	}
}

static int px_lifecycle(struct exporter *x, const struct frc_record *rec, bool attach)
{
	uint32_t pid = attach ? rec->u.attach.pid : rec->u.exit.pid;
	int rc = process_track(x, pid);

	if (rc)
		return rc;
	if (!attach)
		close_slices(x, pid);
	pidmap_del(&x->trk_win, pid); /* a fresh tracker: its jank window starts empty */
	event(x, rec->ktime_ns, INSTANT, process_uuid(pid), attach ? "attach" : "exit", 0, NULL, 0);
	return 0;
}

static int px_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct exporter *x = ctx;
	double v;

	(void)frame_seq;
	switch (rec->type) {
	case FRC_FRAME:
		return px_frame(x, rec);
	case FRC_ATTACH:
	case FRC_EXIT:
		return px_lifecycle(x, rec, rec->type == FRC_ATTACH);
	case FRC_DROPS:
		event(x, rec->ktime_ns, COUNTER, CT_UUID(CT_DROPS), NULL,
		      (double)rec->u.drops.cumulative, NULL, 0);
		return 0;
	case FRC_SYSFS:
		if (fps_meter_sysfs_value(rec->u.sysfs.err, rec->u.sysfs.raw, rec->u.sysfs.len, 500,
					  &v))
			event(x, rec->ktime_ns, COUNTER, CT_UUID(CT_SYSFS), NULL, v, NULL, 0);
		return 0;
	default:
		return 0;
	}
}

static int px_delta(void *ctx, const struct pipeline_delta *d)
{
	struct exporter *x = ctx;
	struct pidmap_entry *w = pidmap_get(&x->trk_win, d->pid, true);
	double ms = (double)d->delta_ns / 1e6;

	if (!w)
		return -ENOMEM;
	event(x, d->ktime_ns, COUNTER, CT_UUID(CT_TRK_MS), NULL, ms, NULL, 0);
	if (perfdog_push(w->v, d->delta_ns) != PERFDOG_NONE)
		event(x, d->ktime_ns, INSTANT, CT_UUID(CT_EVENTS), "tracker jank", 0, "delta_ms",
		      ms);
	return 0;
}

static int px_reading(void *ctx, const struct pipeline_reading *r)
{
	struct exporter *x = ctx;

	if (!r->reading.valid)
		return 0;
	event(x, r->tick_ns, COUNTER,
	      CT_UUID(r->reading.source == FRC_SOURCE_SYSFS ? CT_METER_SYSFS : CT_METER_EBPF), NULL,
	      r->reading.fps, NULL, 0);
	return 0;
}

static int px_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct exporter *x = ctx;

	(void)ps;
	x->stats = info->stats;
	close_slices(x, 0);
	return 0;
}

static const char *px_error(void *ctx)
{
	struct exporter *x = ctx;

	return x->err[0] ? x->err : NULL;
}

/* A submission interval of the main surface (the truth feed's delta). */
static int sub_delta(void *ctx, const struct pipeline_delta *d)
{
	struct exporter *x = ctx;
	double ms = (double)d->delta_ns / 1e6;
	enum perfdog_kind k = perfdog_push(x->sub_win, d->delta_ns);

	event(x, d->ktime_ns, COUNTER, CT_UUID(CT_SUB_FPS), NULL, 1e9 / (double)d->delta_ns, NULL,
	      0);
	event(x, d->ktime_ns, COUNTER, CT_UUID(CT_SUB_MS), NULL, ms, NULL, 0);
	if (k != PERFDOG_NONE)
		event(x, d->ktime_ns, INSTANT, CT_UUID(CT_EVENTS),
		      k == PERFDOG_BIGJANK ? "BigJank" : "Jank", 0, "frame_time_ms", ms);
	return 0;
}

static int sub_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct exporter *x = ctx;

	(void)frame_seq;
	/* a new process life: the submissions' jank window starts empty, as in the report */
	if ((rec->type == FRC_ATTACH && rec->u.attach.pid == x->main_pid) ||
	    (rec->type == FRC_EXIT && rec->u.exit.pid == x->main_pid))
		memset(x->sub_win, 0, sizeof(x->sub_win));
	return 0;
}

int perfetto_export(const char *path, const struct replay_options *ropt, FILE *out,
		    struct perfetto_result *res, char *err, size_t errlen)
{
	struct replay_source src = {.path = path};
	struct exporter *x = calloc(1, sizeof(*x));
	struct submissions *t = NULL;
	struct subm_feed feed = {.only_pid = true};
	struct replay_sink sinks[2];
	int rc;

	if (!x) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	x->out = out;
	rc = subm_count(&src, ropt, &t, err, errlen);
	if (rc)
		goto cleanup;
	x->main_pid = subm_main_pid(t) ? subm_main_pid(t)->pid : 0;
	feed.subm = t;
	feed.pid_filter = x->main_pid;
	feed.target = (struct replay_sink){.ctx = x, .record = sub_record, .delta = sub_delta};
	sinks[0] = (struct replay_sink){.ctx = x,
					.begin = px_begin,
					.record = px_record,
					.delta = px_delta,
					.reading = px_reading,
					.end = px_end,
					.error = px_error};
	sinks[1] = subm_feed_sink(&feed);
	rc = replay_run_source(&src, ropt, sinks, 2, err, errlen);
	if (!rc && (x->pkt.oom || x->ev.oom || x->sub.oom)) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
	}
	res->untracked = x->untracked;
	res->stats = x->stats;
cleanup:
	subm_free(t);
	pb_free(&x->pkt);
	pb_free(&x->ev);
	pb_free(&x->sub);
	pidmap_free(&x->pids);
	pidmap_free(&x->tids);
	pidmap_free(&x->trk_win);
	free(x);
	return rc;
}
