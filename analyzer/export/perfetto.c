/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - the capture as a native
 * Perfetto trace (protobuf, written by pb.c; field numbers from Perfetto's public protos,
 * analyzer/REPORT.md "Perfetto trace"), to open in ui.perfetto.dev next to the device's
 * own system trace. `frameanalyze perfetto` (cmd/cmd_perfetto.c) writes it to a file.
 *
 * One trusted sequence, written compactly with Perfetto's own incremental state: its first
 * packet clears that state and sets the sequence's defaults (the delta clock as timestamp
 * clock, the main surface's track, the counters an event may carry), interns every event
 * and annotation name, and snapshots the clocks: the delta clock and CLOCK_MONOTONIC
 * (Perfetto's builtin clock 3: bpf_ktime_get_ns()) at the first record, CLOCK_REALTIME
 * from the capture's realtime.offset_ns metadata, so the two traces line up. Every later
 * packet needs that state; its timestamp is the ns since the previous one's. The packets
 * reach the file deflated, in compressed_packets bundles (emit_packet).
 *
 * Tracks: a process track per PID, a thread track per TID (an instant per queueBuffer
 * call, annotated with its buffer and surface), a track per (PID, surface) with one slice
 * per submission interval; counter tracks for the main surface's frame time, the
 * tracker's deltas, the meter's readings by source, sysfs samples and cumulative
 * reservation failures; instants for janks, BigJanks, attach and exit. Streaming: memory
 * is bounded by the tracks, not the capture's length.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deflate.h"
#include "fps_meter.h"
#include "frc_escape.h"
#include "pb.h"
#include "perfetto.h"
#include "display.h"
#include "perfdog.h"
#include "pidmap.h"
#include "replay.h"
#include "submissions.h"

/*
 * Perfetto field numbers, each from the message named above it in Perfetto's protos
 * (google/perfetto, protos/perfetto/...; tests/analyzer/perfetto_subset.proto has the same).
 */
enum {
	/* trace/trace.proto: Trace */
	TRACE_PACKET = 1,
	/* trace/trace_packet.proto: TracePacket */
	PKT_CLOCK_SNAPSHOT = 6,
	PKT_TIMESTAMP = 8,
	PKT_SEQ_ID = 10, /* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQ_FLAGS = 13,  /* sequence_flags */
	PKT_COMPRESSED = 50, /* compressed_packets: a zlib stream of Trace.packet fields */
	PKT_CLOCK_ID = 58,   /* timestamp_clock_id */
	PKT_DEFAULTS = 59,   /* trace_packet_defaults */
	PKT_TRACK_DESCRIPTOR = 60,
	/* trace/trace_packet_defaults.proto: TracePacketDefaults */
	DEF_TRACK_EVENT = 11, /* track_event_defaults */
	DEF_CLOCK_ID = 58,    /* timestamp_clock_id */
	/* trace/track_event/track_event.proto: TrackEventDefaults */
	TED_TRACK = 11,		   /* track_uuid */
	TED_EXTRA_INT_TRACKS = 31, /* extra_counter_track_uuids */
	/* trace/track_event/track_event.proto: TrackEvent */
	TE_ANNOTATION = 4, /* debug_annotations */
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK = 11,	   /* track_uuid */
	TE_NAME = 23,	   /* name: a string of its own (not interned) */
	TE_INT_VALUE = 30, /* counter_value (int64) */
	TE_DOUBLE_VALUE = 44,
	TE_EXTRA_INT_TRACKS = 31,  /* extra_counter_track_uuids */
	TE_EXTRA_INT_VALUES = 12,  /* extra_counter_values (repeated int64, not packed) */
	TE_FLOW_IDS = 47,	   /* repeated fixed64 flow_ids */
	TE_TERMINATING_FLOWS = 48, /* repeated fixed64 terminating_flow_ids */
	/* trace/track_event/debug_annotation.proto: DebugAnnotation */
	DA_NAME_IID = 1,
	DA_DOUBLE = 5,
	DA_STRING_IID = 17, /* string_value_iid */
	/* trace/interned_data/interned_data.proto: InternedData */
	ID_EVENT_NAMES = 2,
	ID_ANNOTATION_NAMES = 3,
	ID_ANNOTATION_STRINGS = 29, /* debug_annotation_string_values */
	/*
	 * EventName (track_event.proto), DebugAnnotationName (debug_annotation.proto),
	 * InternedString (trace/profiling/profile_common.proto): iid 1, name (str) 2
	 */
	IN_IID = 1,
	IN_NAME = 2,
	/* trace/clock_snapshot.proto: ClockSnapshot, ClockSnapshot.Clock */
	CS_CLOCKS = 1,
	CLK_ID = 1,
	CLK_TIMESTAMP = 2,
	CLK_INCREMENTAL = 3, /* is_incremental */
	/* trace/track_event/track_descriptor.proto: TrackDescriptor */
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	/* trace/track_event/process_descriptor.proto: ProcessDescriptor */
	PD_PID = 1,
	PD_NAME = 6,
	/* trace/track_event/thread_descriptor.proto: ThreadDescriptor */
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	/* trace/track_event/counter_descriptor.proto: CounterDescriptor */
	CD_UNIT = 3, /* Unit: UNIT_TIME_NS 1, UNIT_COUNT 2 */
	CD_UNIT_NAME = 6,
};
/* TrackEvent.Type (track_event.proto) */
enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4 };
/* TracePacket.SequenceFlags (trace_packet.proto) */
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
/*
 * Clock ids: REALTIME 1 and MONOTONIC 3 are BuiltinClock (common/builtin_clock.proto); ids
 * 64..127 are the sequence's own clocks (ClockSnapshot.Clock.clock_id), and the delta
 * clock, is_incremental in the snapshot, makes each timestamp a delta from the previous.
 */
enum { CLOCK_ID_REALTIME = 1, CLOCK_ID_MONOTONIC = 3, CLOCK_ID_DELTA = 64 };
#define SEQ_ID 1
#define NO_TS UINT64_MAX /* a packet without a timestamp (a track descriptor) */

/* The interned event names and annotation names: iid = index (0 is "none" in Perfetto). */
enum event_name {
	EN_NONE,
	EN_QUEUEBUFFER,
	EN_FRAME,
	EN_ATTACH,
	EN_EXIT,
	EN_TJANK,
	EN_JANK,
	EN_BIGJANK,
	EN_PRESENT,
	EN_SHOWN,
	EN_COUNT
};
static const char *const event_name[EN_COUNT] = {NULL,	    "queueBuffer",  "frame", "attach",
						 "exit",    "tracker jank", "Jank",  "BigJank",
						 "present", "presented"};
enum ann_name { AN_NONE, AN_BUFFER, AN_SURFACE, AN_DELTA_MS, AN_FRAME_TIME_MS, AN_COUNT };
static const char *const ann_name[AN_COUNT] = {NULL, "buffer", "surface", "delta_ms",
					       "frame_time_ms"};

/*
 * Counter tracks: fixed uuids 1..CT_KINDS; threads and surfaces take the next small ones
 * as they appear (a one- or two-byte varint in every event); process tracks are hashes
 * with the top bit set, so no uuid is ever two tracks'.
 */
enum counter_track {
	CT_SUB_NS,
	CT_TRK_NS,
	CT_METER_SYSFS,
	CT_METER_EBPF,
	CT_SYSFS,
	CT_DROPS,
	CT_EVENTS, /* not a counter: the instants of janks */
	CT_KINDS
};
static const char *const ct_name[CT_KINDS] = {"frame time (main surface)",
					      "tracker delta",
					      "meter FPS (sysfs)",
					      "meter FPS (eBPF)",
					      "sysfs FPS",
					      "reservation failures",
					      "janks (PerfDog)"};
/*
 * A time or a count is an exact integer (CounterDescriptor.unit, TrackEvent.counter_value
 * and extra_counter_values: int64, a 4-byte varint for a 16.7 ms frame in ns where a double
 * in ms took 8 bytes and was rounded); a rate keeps its double and a free-form unit name.
 */
enum { UNIT_TIME_NS = 1, UNIT_COUNT = 2 };
static const unsigned char ct_int_unit[CT_KINDS] = {
    [CT_SUB_NS] = UNIT_TIME_NS, [CT_TRK_NS] = UNIT_TIME_NS, [CT_DROPS] = UNIT_COUNT};
static const char *const ct_unit_name[CT_KINDS] = {
    [CT_METER_SYSFS] = "FPS", [CT_METER_EBPF] = "FPS", [CT_SYSFS] = "FPS"};
#define CT_UUID(k) (1u + (unsigned)(k))
#define FIRST_TRACK_UUID 16

/*
 * The integer counters a queueBuffer instant carries as extra values (TrackEventDefaults'
 * extra_counter_track_uuids, in this order) when their samples fall at its ktime: one
 * packet instead of one per counter.
 */
static const enum counter_track extra_ct[] = {CT_SUB_NS, CT_TRK_NS};
#define N_EXTRA (sizeof(extra_ct) / sizeof(extra_ct[0]))

#define MAX_SURFACE_TRACKS PERFETTO_MAX_SURFACE_TRACKS
#define STR_BITS 10 /* 1024 interned hex strings remembered (direct-mapped) */
#define STR_SLOTS (1u << STR_BITS)

struct surface_track {
	uint32_t pid;
	uint64_t surface, uuid, begin_ns;
	bool open, described;
};

/* The queueBuffer instant not yet written, and the counter samples it may still take. */
struct pending {
	bool on;
	unsigned mask; /* bit k: extra_ct[k]'s value is set */
	uint64_t t;
	uint64_t v[N_EXTRA];
};

struct str_slot {
	uint64_t v, iid; /* iid 0: empty */
};

struct exporter {
	FILE *out;
	/* reused: the packet, its event, a nested message, the pending instant, interning */
	struct pb pkt, ev, sub, pend_ev, intern, tmp;
	struct pb bundle, zout; /* the packets not yet compressed; their compressed bytes */
	struct deflate_state *z;
	bool zfail; /* out of memory for the compressed bytes: reported once at the end */
	struct pidmap pids, tids, trk_win;
	struct surface_track surf[MAX_SURFACE_TRACKS];
	size_t n_surf;
	uint64_t untracked, sub_win[4];
	uint64_t clock_ns;   /* the delta clock: the last delta-encoded timestamp */
	uint64_t next_uuid;  /* the next thread or surface track's */
	uint64_t main_track; /* the sequence's default track: the main surface's, or 0 */
	struct pending pend;
	struct str_slot strs[STR_SLOTS];
	uint64_t next_str_iid;
	const char *target;
	uint32_t main_pid;
	uint64_t main_surface;
	struct submissions *subm; /* the truth: its PID now (subm_truth_pid) */
	bool has_main;
	struct display *disp;	       /* what was presented, linked at the replay's end */
	struct frc_reader_stats stats; /* the replay's, at its end */
	char err[160];
};

/* splitmix64: a deterministic, well-spread process track uuid, top bit set. */
static uint64_t process_uuid(uint32_t pid)
{
	uint64_t z = 0x9E3779B97F4A7C15ull ^ pid * 0xBF58476D1CE4E5B9ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (z ^ (z >> 31)) | 1ull << 63;
}

/*
 * Packets are written in bundles, as Perfetto's own tracing service writes them when its
 * config asks for compression: a TracePacket whose only field is compressed_packets (50),
 * the zlib stream of a run of Trace.packet fields, which trace processor inflates and reads
 * as if they stood in the file (proto_trace_tokenizer.h). Inside, every field is where it
 * was: the bundle changes bytes on disk, not what a reader sees. trace_packet.proto wants
 * a bundle under 512 KB: 256 KiB in deflates to at most deflate_bound's 288 KiB. The
 * stream is deflate.c's (LZ77 and the fixed Huffman codes): no library beyond the
 * project's own, and the same bytes on every machine; zlib's level 1 (the libelf's zlib,
 * tried) wrote 10.85 bytes a frame on bench_perfetto.sh's 1 M frames (REPORT.md "Size").
 */
#define BUNDLE_IN_MAX (256u * 1024u)

/* v as a varint at b; its length. */
static size_t put_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

/*
 * The bundle deflated, as one packet of the Trace (its key and length, then the packet:
 * compressed_packets' key and length, the zlib stream); then an empty bundle.
 */
static void flush_bundle(struct exporter *x)
{
	uint8_t outer[12], inner[12];
	size_t no, ni, n;

	if (!x->bundle.n || x->bundle.oom || x->zfail)
		return;
	if (!pb_reserve(&x->zout, deflate_bound(x->bundle.n))) {
		x->zfail = true;
		return;
	}
	n = deflate_zlib(x->z, x->bundle.b, x->bundle.n, x->zout.b);
	ni = put_varint(inner, PKT_COMPRESSED << 3 | PB_LEN);
	ni += put_varint(inner + ni, n);
	no = put_varint(outer, TRACE_PACKET << 3 | PB_LEN);
	no += put_varint(outer + no, ni + n);
	fwrite(outer, 1, no, x->out);
	fwrite(inner, 1, ni, x->out);
	fwrite(x->zout.b, 1, n, x->out);
	pb_reset(&x->bundle);
}

/*
 * The packet as one `packet` field of a Trace (key, length, bytes) in the bundle, which is
 * written first when the packet would take it past BUNDLE_IN_MAX (a packet is at most a
 * few hundred bytes: its names are bounded).
 */
static void emit_packet(struct exporter *x)
{
	if (x->pkt.oom)
		return;
	if (x->bundle.n + x->pkt.n + 12 > BUNDLE_IN_MAX)
		flush_bundle(x);
	pb_msg(&x->bundle, TRACE_PACKET, &x->pkt);
}

/*
 * The packet's timestamp on the sequence's default clock, the delta clock: the ns since
 * the previous delta-encoded packet. A step back cannot be a delta (uint64): that packet
 * carries its absolute MONOTONIC time and its clock id instead (as Perfetto's own SDK
 * does), and leaves the delta clock where it was.
 */
static void timestamp(struct exporter *x, uint64_t t)
{
	if (t >= x->clock_ns) {
		pb_u64(&x->pkt, PKT_TIMESTAMP, t - x->clock_ns);
		x->clock_ns = t;
	} else {
		pb_u64(&x->pkt, PKT_TIMESTAMP, t);
		pb_u64(&x->pkt, PKT_CLOCK_ID, CLOCK_ID_MONOTONIC);
	}
}

/*
 * A packet after the first: its timestamp (or NO_TS), the sequence, its flags. These six
 * bytes, with the packet's and its event's key and length and the event's type, are the
 * 12-byte floor of every event (REPORT.md "Perfetto trace", size), and trace processor
 * needs each (src/trace_processor/importers/proto): a track event without a timestamp is
 * dropped (track_event_tokenizer.cc, track_event_missing_timestamp), also at a zero delta;
 * without trusted_packet_sequence_id the packet is on sequence 0, where clock 64 and the
 * interned names do not exist (proto_trace_reader.cc); SEQ_NEEDS_INCREMENTAL_STATE is what
 * trace_packet.proto asks of a packet that relies on defaults or interned data, which
 * every one of ours does (the delta clock), so a reader can skip it when that state is
 * lost instead of misreading it.
 */
static void packet_head(struct exporter *x, uint64_t t)
{
	pb_reset(&x->pkt);
	if (t != NO_TS)
		timestamp(x, t);
	pb_u64(&x->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_u64(&x->pkt, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
}

/*
 * An int64 field's value: a uint64 past INT64_MAX would read back negative (same varint),
 * so it is clamped; no time or count of a capture comes near it.
 */
static uint64_t int64_value(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : v;
}

/*
 * Write the pending queueBuffer instant, with the counter samples it took. Trace processor
 * (track_event_tokenizer.cc, AddExtraCounterValues) maps extra_counter_values to the
 * event's extra_counter_track_uuids, else to the defaults', in order, and wants counter
 * tracks already described: ours are, right after the first packet.
 */
static void flush_pending(struct exporter *x)
{
	struct pending *p = &x->pend;
	/* the defaults' list applies only to a prefix of it; other sets name their tracks */
	bool named = p->mask & (p->mask + 1);

	if (!p->on)
		return;
	p->on = false;
	for (size_t k = 0; named && k < N_EXTRA; k++)
		if (p->mask & 1u << k)
			pb_u64(&x->pend_ev, TE_EXTRA_INT_TRACKS, CT_UUID(extra_ct[k]));
	for (size_t k = 0; k < N_EXTRA; k++)
		if (p->mask & 1u << k)
			pb_u64(&x->pend_ev, TE_EXTRA_INT_VALUES, int64_value(p->v[k]));
	packet_head(x, p->t);
	if (x->intern.n) {
		pb_msg(&x->pkt, PKT_INTERNED_DATA, &x->intern);
		pb_reset(&x->intern);
	}
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->pend_ev);
	emit_packet(x);
}

/* Start a packet: the pending instant is written first, so packets stay in call order. */
static void packet_start(struct exporter *x, uint64_t t)
{
	flush_pending(x);
	packet_head(x, t);
}

/* The sample (counter extra_ct[k], v) at t joins the pending instant if it is at t. */
static bool add_extra(struct exporter *x, uint64_t t, unsigned k, uint64_t v)
{
	struct pending *p = &x->pend;

	if (!p->on || p->t != t || p->mask & 1u << k)
		return false;
	p->mask |= 1u << k;
	p->v[k] = v;
	return true;
}

static void descriptor(struct exporter *x, const struct pb *td)
{
	packet_start(x, NO_TS);
	pb_msg(&x->pkt, PKT_TRACK_DESCRIPTOR, td);
	emit_packet(x);
}

/*
 * An event of type on track at t; name: an interned event name (EN_NONE: none); value: a
 * counter's; ann: an interned annotation name (AN_NONE: none) and its double value.
 */
static void event(struct exporter *x, uint64_t t, int type, uint64_t track, enum event_name name,
		  double value, enum ann_name ann, double ann_value)
{
	pb_reset(&x->ev);
	pb_u64(&x->ev, TE_TYPE, (uint64_t)type);
	if (track != x->main_track)
		pb_u64(&x->ev, TE_TRACK, track);
	if (name != EN_NONE)
		pb_u64(&x->ev, TE_NAME_IID, name);
	if (type == COUNTER)
		pb_double(&x->ev, TE_DOUBLE_VALUE, value);
	if (ann != AN_NONE) {
		pb_reset(&x->sub);
		pb_u64(&x->sub, DA_NAME_IID, ann);
		pb_double(&x->sub, DA_DOUBLE, ann_value);
		pb_msg(&x->ev, TE_ANNOTATION, &x->sub);
	}
	packet_start(x, t);
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->ev);
	emit_packet(x);
}

/* A sample v at t of the integer counter k (ct_int_unit), as TrackEvent.counter_value. */
static void int_counter(struct exporter *x, uint64_t t, enum counter_track k, uint64_t v)
{
	pb_reset(&x->ev);
	pb_u64(&x->ev, TE_TYPE, COUNTER);
	pb_u64(&x->ev, TE_TRACK, CT_UUID(k));
	pb_u64(&x->ev, TE_INT_VALUE, int64_value(v));
	packet_start(x, t);
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->ev);
	emit_packet(x);
}

/*
 * The iid of v's hex text among the interned annotation string values; a new one joins
 * x->intern (written with the pending instant, the first packet to use it). The slots
 * forget a value whose slot another takes: it is interned again, under a new iid.
 */
static uint64_t intern_hex(struct exporter *x, uint64_t v)
{
	struct str_slot *s = &x->strs[(v * 0x9E3779B97F4A7C15ull) >> (64 - STR_BITS)];
	char hex[24];

	if (s->iid && s->v == v)
		return s->iid;
	s->v = v;
	s->iid = ++x->next_str_iid;
	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	pb_reset(&x->tmp);
	pb_u64(&x->tmp, IN_IID, s->iid);
	pb_str(&x->tmp, IN_NAME, hex);
	pb_msg(&x->intern, ID_ANNOTATION_STRINGS, &x->tmp);
	return s->iid;
}

/* An annotation of the pending instant: name = the hex text of v (interned). */
static void hex_annotation(struct exporter *x, enum ann_name name, uint64_t v)
{
	pb_reset(&x->sub);
	pb_u64(&x->sub, DA_NAME_IID, name);
	pb_u64(&x->sub, DA_STRING_IID, intern_hex(x, v));
	pb_msg(&x->pend_ev, TE_ANNOTATION, &x->sub);
}

/*
 * The queueBuffer instant of f on its thread track: held back (pending) until the next
 * packet, so the counter samples at its ktime ride in it as extra values.
 */
static void queue_instant(struct exporter *x, uint64_t t, uint64_t thread,
			  const struct frc_frame *f)
{
	flush_pending(x);
	pb_reset(&x->pend_ev);
	pb_u64(&x->pend_ev, TE_TYPE, INSTANT);
	pb_u64(&x->pend_ev, TE_TRACK, thread);
	pb_u64(&x->pend_ev, TE_NAME_IID, EN_QUEUEBUFFER);
	hex_annotation(x, AN_BUFFER, f->buffer);
	hex_annotation(x, AN_SURFACE, f->surface);
	x->pend = (struct pending){.on = true, .t = t};
}

/* Text from the capture as a valid UTF-8 string field (frc_escape.h, the one escaper). */
static void safe_name(char *buf, size_t len, const char *s)
{
	frc_escape(s, strlen(s), FRC_ESCAPE_TEXT, buf, len);
}

/* ------------------------------------------------------------ tracks */

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

/*
 * The thread track of tid (child of its process), described on first use; a TID seen in
 * another process than its track's gets a new track (v[0]: uuid, v[1]: pid + 1).
 */
static int thread_track(struct exporter *x, uint32_t pid, uint32_t tid, uint64_t *uuid)
{
	struct pidmap_entry *e = pidmap_get(&x->tids, tid, true);
	struct pb td = {0}, th = {0};
	char name[32];

	if (!e)
		return -ENOMEM;
	*uuid = e->v[0];
	if (e->v[0] && e->v[1] == (uint64_t)pid + 1)
		return 0;
	*uuid = e->v[0] = x->next_uuid++;
	e->v[1] = (uint64_t)pid + 1;
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

/* The slot of (pid, surface), with a uuid of its own; NULL past the limit. */
static struct surface_track *surface_slot(struct exporter *x, uint32_t pid, uint64_t surface)
{
	struct surface_track *s;

	for (size_t i = 0; i < x->n_surf; i++)
		if (x->surf[i].pid == pid && x->surf[i].surface == surface)
			return &x->surf[i];
	if (x->n_surf == MAX_SURFACE_TRACKS)
		return NULL;
	s = &x->surf[x->n_surf++];
	*s = (struct surface_track){.pid = pid, .surface = surface, .uuid = x->next_uuid++};
	return s;
}

/* The slice track of (pid, surface), described on first use; NULL past the limit. */
static struct surface_track *surface_track(struct exporter *x, uint32_t pid, uint64_t surface)
{
	struct surface_track *s = surface_slot(x, pid, surface);
	struct pb td = {0};
	char name[64];

	if (!s || s->described)
		return s;
	s->described = true;
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
			if (ct_unit_name[k])
				pb_str(&cd, CD_UNIT_NAME, ct_unit_name[k]);
			else
				pb_u64(&cd, CD_UNIT, ct_int_unit[k]);
			pb_msg(&td, TD_COUNTER, &cd);
		}
		descriptor(x, &td);
		pb_free(&cd);
		pb_free(&td);
	}
}

/* ------------------------------------------------------------ the first packet */

static void snapshot_clock(struct pb *cs, struct pb *clk, uint32_t id, uint64_t t, bool incremental)
{
	pb_reset(clk);
	pb_u64(clk, CLK_ID, id);
	pb_u64(clk, CLK_TIMESTAMP, t);
	if (incremental)
		pb_u64(clk, CLK_INCREMENTAL, 1);
	pb_msg(cs, CS_CLOCKS, clk);
}

/*
 * The clocks at the capture's first record t0: the delta clock and MONOTONIC at t0, so a
 * delta-encoded timestamp is MONOTONIC ns; REALTIME at t0 + realtime.offset_ns when the
 * capture has a valid offset (a missing or malformed one: none, REPORT.md; a bad one must
 * not lie).
 */
static void clock_snapshot(struct exporter *x, const struct replay_info *info, struct pb *cs)
{
	const char *off =
	    info->reader ? frc_reader_meta_get(info->reader, "realtime.offset_ns") : NULL;
	uint64_t t0 = info->stats.first_ktime_ns;
	struct pb clk = {0};
	long long o;
	char *end;

	snapshot_clock(cs, &clk, CLOCK_ID_DELTA, t0, true);
	snapshot_clock(cs, &clk, CLOCK_ID_MONOTONIC, t0, false);
	x->clock_ns = t0;
	errno = 0;
	o = off ? strtoll(off, &end, 10) : 0;
	if (off && !errno && end != off && !*end && !(o < 0 && (uint64_t)-o > t0))
		snapshot_clock(cs, &clk, CLOCK_ID_REALTIME, t0 + (uint64_t)o, false);
	if (clk.oom)
		cs->oom = true;
	pb_free(&clk);
}

/* TracePacketDefaults: the delta clock; the main surface's track; the extra counters. */
static void defaults(struct exporter *x, struct pb *def)
{
	struct pb ted = {0};

	pb_u64(def, DEF_CLOCK_ID, CLOCK_ID_DELTA);
	if (x->main_track)
		pb_u64(&ted, TED_TRACK, x->main_track);
	for (size_t k = 0; k < N_EXTRA; k++)
		pb_u64(&ted, TED_EXTRA_INT_TRACKS, CT_UUID(extra_ct[k]));
	pb_msg(def, DEF_TRACK_EVENT, &ted);
	pb_free(&ted);
}

/* InternedData: every event name and annotation name, iid = its enum value. */
/* The display's names only when the capture has present rows: other traces stay as they were. */
static void interned_names(struct exporter *x, struct pb *idata, bool presents)
{
	for (int i = 1; i < (presents ? EN_COUNT : EN_PRESENT); i++) {
		pb_reset(&x->tmp);
		pb_u64(&x->tmp, IN_IID, (uint64_t)i);
		pb_str(&x->tmp, IN_NAME, event_name[i]);
		pb_msg(idata, ID_EVENT_NAMES, &x->tmp);
	}
	for (int i = 1; i < AN_COUNT; i++) {
		pb_reset(&x->tmp);
		pb_u64(&x->tmp, IN_IID, (uint64_t)i);
		pb_str(&x->tmp, IN_NAME, ann_name[i]);
		pb_msg(idata, ID_ANNOTATION_NAMES, &x->tmp);
	}
}

/*
 * The sequence's first packet: it clears the incremental state (Perfetto's readers skip
 * packets that need it until one does) and sets it up: defaults, names, clocks. It has no
 * timestamp: a reader takes none from a clock snapshot packet.
 */
static void first_packet(struct exporter *x, const struct replay_info *info)
{
	struct pb def = {0}, idata = {0}, cs = {0};

	defaults(x, &def);
	interned_names(x, &idata, info->stats.by_type[FRC_PRESENT] > 0);
	clock_snapshot(x, info, &cs);
	pb_reset(&x->pkt);
	pb_u64(&x->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_u64(&x->pkt, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_msg(&x->pkt, PKT_DEFAULTS, &def);
	pb_msg(&x->pkt, PKT_INTERNED_DATA, &idata);
	pb_msg(&x->pkt, PKT_CLOCK_SNAPSHOT, &cs);
	emit_packet(x);
	pb_free(&def);
	pb_free(&idata);
	pb_free(&cs);
}

/* ------------------------------------------------------------ the sink */

/*
 * The main surface's track is the sequence's default (its events name no track): its
 * uuid is taken before the first packet, its descriptor written after it.
 */
static int px_begin(void *ctx, const struct replay_info *info)
{
	struct exporter *x = ctx;
	struct surface_track *s =
	    x->has_main ? surface_slot(x, x->main_pid, x->main_surface) : NULL;
	int rc;

	x->target = info->reader ? frc_reader_meta_get(info->reader, "target") : NULL;
	x->main_track = s ? s->uuid : 0;
	first_packet(x, info);
	counter_tracks(x);
	if (!s)
		return 0;
	rc = process_track(x, x->main_pid);
	if (!rc)
		surface_track(x, x->main_pid, x->main_surface);
	return rc;
}

/* A queueBuffer call: the surface's slices, the thread's instant. */
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
	s = surface_track(x, f->pid, f->surface);
	if (!s) {
		x->untracked++;
	} else {
		/*
		 * One slice per interval: a call ends the previous interval and begins the
		 * next. A call before the open slice's begin (a clock step back) makes no
		 * interval: that slice ends at its begin, as a zero interval is none in the
		 * truth series.
		 */
		if (s->open)
			event(x, rec->ktime_ns > s->begin_ns ? rec->ktime_ns : s->begin_ns,
			      SLICE_END, s->uuid, EN_NONE, 0, AN_NONE, 0);
		event(x, rec->ktime_ns, SLICE_BEGIN, s->uuid, EN_FRAME, 0, AN_NONE, 0);
		s->open = true;
		s->begin_ns = rec->ktime_ns;
	}
	queue_instant(x, rec->ktime_ns, thread, f);
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
			event(x, s->begin_ns, SLICE_END, s->uuid, EN_NONE, 0, AN_NONE, 0);
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
	event(x, rec->ktime_ns, INSTANT, process_uuid(pid), attach ? EN_ATTACH : EN_EXIT, 0,
	      AN_NONE, 0);
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
		int_counter(x, rec->ktime_ns, CT_DROPS, rec->u.drops.cumulative);
		return 0;
	case FRC_SYSFS:
		if (fps_meter_sysfs_value(rec->u.sysfs.err, rec->u.sysfs.raw, rec->u.sysfs.len, 500,
					  &v))
			event(x, rec->ktime_ns, COUNTER, CT_UUID(CT_SYSFS), EN_NONE, v, AN_NONE, 0);
		return 0;
	default:
		return 0;
	}
}

/* A counter sample: in the pending instant when it is at its ktime, else a packet. */
static void sample(struct exporter *x, uint64_t t, unsigned k, uint64_t v)
{
	if (!add_extra(x, t, k, v))
		int_counter(x, t, extra_ct[k], v);
}

static int px_delta(void *ctx, const struct pipeline_delta *d)
{
	struct exporter *x = ctx;
	struct pidmap_entry *w = pidmap_get(&x->trk_win, d->pid, true);
	double ms = (double)d->delta_ns / 1e6;

	if (!w)
		return -ENOMEM;
	sample(x, d->ktime_ns, 1, d->delta_ns); /* extra_ct[1]: CT_TRK_NS */
	if (perfdog_push(w->v, d->delta_ns) != PERFDOG_NONE)
		event(x, d->ktime_ns, INSTANT, CT_UUID(CT_EVENTS), EN_TJANK, 0, AN_DELTA_MS, ms);
	return 0;
}

static int px_reading(void *ctx, const struct pipeline_reading *r)
{
	struct exporter *x = ctx;

	if (!r->reading.valid)
		return 0;
	event(x, r->tick_ns, COUNTER,
	      CT_UUID(r->reading.source == FRC_SOURCE_SYSFS ? CT_METER_SYSFS : CT_METER_EBPF),
	      EN_NONE, r->reading.fps, AN_NONE, 0);
	return 0;
}

/* ------------------------------------------------------------ what was presented */

/*
 * A slice event on track at t with a flow: begin carries terminating_flow_ids (the present
 * a submission's flow ends on), an instant flow_ids (the submission it starts from); flow
 * 0: none.
 */
static void flow_event(struct exporter *x, uint64_t t, int type, uint64_t track,
		       enum event_name name, uint32_t field, uint64_t flow)
{
	pb_reset(&x->ev);
	pb_u64(&x->ev, TE_TYPE, (uint64_t)type);
	if (track != x->main_track)
		pb_u64(&x->ev, TE_TRACK, track);
	if (name != EN_NONE)
		pb_u64(&x->ev, TE_NAME_IID, name);
	if (flow)
		pb_fixed64(&x->ev, field, flow);
	packet_start(x, t);
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->ev);
	emit_packet(x);
}

/* A layer's track, a child of no process (SurfaceFlinger's, not the app's). */
static uint64_t display_track(struct exporter *x, const struct display_layer *l)
{
	struct pb td = {0};
	char name[320], esc[288];
	uint64_t uuid = x->next_uuid++;

	safe_name(esc, sizeof(esc), l->name[0] ? l->name : "(no name)");
	snprintf(name, sizeof(name), "display layer %" PRIu32 " %s (presented)", l->id, esc);
	pb_u64(&td, TD_UUID, uuid);
	pb_str(&td, TD_NAME, name);
	descriptor(x, &td);
	pb_free(&td);
	return uuid;
}

static bool valid_actual(int64_t t)
{
	return t > 0 && t < INT64_MAX;
}

/*
 * Where row i's slice ends: the next row's actual present that is not back in time, when
 * it closes a frame time from row i (no gap between, later: display.c's interval_ns), else
 * row i's own (zero length).
 */
static uint64_t present_end(const struct display_layer *l, size_t i)
{
	int64_t a = l->row[i].p.actual;

	for (size_t j = i + 1; j < l->n_row; j++) {
		const struct display_row *r = &l->row[j];
		if (!valid_actual(r->p.actual) ||
		    (r->segment == l->row[i].segment && r->p.actual < a))
			continue;
		return r->interval_ns ? (uint64_t)r->p.actual : (uint64_t)a;
	}
	return (uint64_t)a;
}

/*
 * One slice "present" per row with a valid actual present time, from it to the next one
 * of the layer (a frame time, display.h), or of zero length when none follows (the last,
 * before a gap or a present back in time); rows back in time get none. A linked row's
 * slice ends the flow from an instant "presented" on the main surface's track at the
 * call's ktime (flow id = the frame's seq + 1).
 */
static void display_layer_slices(struct exporter *x, const struct display_layer *l,
				 uint64_t surface_track)
{
	const struct display *d = x->disp;
	uint64_t track = display_track(x, l);
	int64_t last = 0;
	uint32_t seg = 0;

	for (size_t i = 0; i < l->n_row; i++) {
		const struct display_row *r = &l->row[i];
		uint64_t flow = 0;

		if (r->segment != seg) /* after a gap nothing is back in time (display.c) */
			last = 0, seg = r->segment;
		if (!valid_actual(r->p.actual) || r->p.actual < last)
			continue;
		last = r->p.actual;
		if (l->call_of && l->call_of[i] != PL_NONE && surface_track) {
			flow = d->call_seq[l->call_of[i]] + 1;
			flow_event(x, d->call_ktime[l->call_of[i]], INSTANT, surface_track,
				   EN_SHOWN, TE_FLOW_IDS, flow);
		}
		flow_event(x, (uint64_t)r->p.actual, SLICE_BEGIN, track, EN_PRESENT,
			   TE_TERMINATING_FLOWS, flow);
		flow_event(x, present_end(l, i), SLICE_END, track, EN_NONE, 0, 0);
	}
}

/* After the replay (the link needs every row): a track per layer that has rows. */
static void display_tracks(struct exporter *x)
{
	const struct display *d = x->disp;
	uint64_t surface = 0;

	/* the surface the display linked (display.h: the content the truth follows) */
	for (size_t i = 0; i < x->n_surf; i++)
		if (d->has_main && x->surf[i].pid == d->main_pid &&
		    x->surf[i].surface == d->main_surface && x->surf[i].described)
			surface = x->surf[i].uuid;
	for (size_t i = 0; i < d->n_layers; i++)
		if (d->layer[i].n_row)
			display_layer_slices(x, &d->layer[i], surface);
}

/* A slice edge on track named name (NULL: none), the name written out: few, each its own. */
static void named_event(struct exporter *x, uint64_t t, int type, uint64_t track, const char *name)
{
	pb_reset(&x->ev);
	pb_u64(&x->ev, TE_TYPE, (uint64_t)type);
	pb_u64(&x->ev, TE_TRACK, track);
	if (name)
		pb_str(&x->ev, TE_NAME, name);
	packet_start(x, t);
	pb_msg(&x->pkt, PKT_TRACK_EVENT, &x->ev);
	emit_packet(x);
}

/*
 * What the truth followed (REPORT.md "Ground truth"), under the content rule only (the
 * count rule's one surface says nothing new): a track "content (what the truth follows)"
 * with one slice per change of the content, named "pid P surface 0x... (REASON)", from the
 * change to the next one or the capture's last record; a time without content has none.
 * After the replay (the changes are known then); its packets may be back in time: the
 * timestamp helper writes those on the absolute clock.
 */
static void content_track(struct exporter *x)
{
	const struct subm_truth *tr = subm_truth(x->subm);
	struct pb td = {0};
	uint64_t uuid;
	char name[96];

	if (tr->rule == SUBM_RULE_COUNT || !tr->n_changes)
		return;
	uuid = x->next_uuid++;
	pb_u64(&td, TD_UUID, uuid);
	pb_str(&td, TD_NAME, "content (what the truth follows)");
	descriptor(x, &td);
	pb_free(&td);
	for (size_t k = 0; k < tr->n_changes; k++) {
		const struct subm_change *c = &tr->changes[k];
		uint64_t end =
		    k + 1 < tr->n_changes ? tr->changes[k + 1].ktime_ns : x->stats.last_ktime_ns;

		if (!c->pid)
			continue;
		snprintf(name, sizeof(name), "pid %" PRIu32 " surface 0x%" PRIx64 " (%s)", c->pid,
			 c->surface, subm_why_name(c->why));
		named_event(x, c->ktime_ns, SLICE_BEGIN, uuid, name);
		named_event(x, end > c->ktime_ns ? end : c->ktime_ns, SLICE_END, uuid, NULL);
	}
}

static int px_end(void *ctx, const struct replay_info *info, const struct pipeline_stats *ps)
{
	struct exporter *x = ctx;

	(void)ps;
	x->stats = info->stats;
	close_slices(x, 0);
	if (x->disp)
		display_tracks(x);
	content_track(x);
	flush_pending(x);
	flush_bundle(x);
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

	/*
	 * No submitted-FPS counter: per interval it is 1e9 / the frame time at the same
	 * ktime, which the trace keeps (this counter, and the main surface's slices), and it
	 * cost 10 bytes per frame (REPORT.md "Perfetto trace" gives the query).
	 */
	sample(x, d->ktime_ns, 0, d->delta_ns); /* extra_ct[0]: CT_SUB_NS */
	if (k != PERFDOG_NONE)
		event(x, d->ktime_ns, INSTANT, CT_UUID(CT_EVENTS),
		      k == PERFDOG_BIGJANK ? EN_BIGJANK : EN_JANK, 0, AN_FRAME_TIME_MS, ms);
	return 0;
}

static int sub_record(void *ctx, const struct frc_record *rec, uint64_t frame_seq)
{
	struct exporter *x = ctx;

	(void)frame_seq;
	/* a new process life: the submissions' jank window starts empty, as in the report */
	if ((rec->type == FRC_ATTACH && rec->u.attach.pid == subm_truth_pid(x->subm)) ||
	    (rec->type == FRC_EXIT && rec->u.exit.pid == subm_truth_pid(x->subm)))
		memset(x->sub_win, 0, sizeof(x->sub_win));
	return 0;
}

int perfetto_export(const char *path, const struct replay_options *ropt, FILE *out,
		    struct perfetto_result *res, char *err, size_t errlen)
{
	struct replay_source src = {.path = path};
	struct exporter *x = calloc(1, sizeof(*x));
	struct submissions *t = NULL;
	/* the truth's intervals alone: they follow the target and its content (submissions.h) */
	struct subm_feed feed = {.truth_only = true};
	struct replay_sink sinks[3];
	int rc;

	if (!x || deflate_new(&x->z)) {
		free(x);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	x->out = out;
	rc = subm_count(&src, ropt, &t, err, errlen);
	if (rc)
		goto cleanup;
	x->next_uuid = FIRST_TRACK_UUID;
	if (subm_main_pid(t)) {
		x->has_main = true;
		x->main_pid = subm_main_pid(t)->pid;
		x->main_surface = subm_main_pid(t)->main_surface;
	}
	rc = display_new(&x->disp, t);
	if (rc) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto cleanup;
	}
	feed = (struct subm_feed){.subm = t, .truth_only = true};
	x->subm = t;
	feed.target = (struct replay_sink){.ctx = x, .record = sub_record, .delta = sub_delta};
	/* the display first: its end links the rows before px_end draws them */
	sinks[0] = display_sink(x->disp);
	sinks[1] = (struct replay_sink){.ctx = x,
					.begin = px_begin,
					.record = px_record,
					.delta = px_delta,
					.reading = px_reading,
					.end = px_end,
					.error = px_error};
	sinks[2] = subm_feed_sink(&feed);
	rc = replay_run_source(&src, ropt, sinks, 3, err, errlen);
	if (!rc && (x->pkt.oom || x->ev.oom || x->sub.oom || x->pend_ev.oom || x->intern.oom ||
		    x->tmp.oom || x->bundle.oom || x->zfail)) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
	}
	res->untracked = x->untracked;
	res->stats = x->stats;
cleanup:
	display_free(x->disp);
	subm_free(t);
	pb_free(&x->pkt);
	pb_free(&x->ev);
	pb_free(&x->sub);
	pb_free(&x->pend_ev);
	pb_free(&x->intern);
	pb_free(&x->tmp);
	pb_free(&x->bundle);
	pb_free(&x->zout);
	deflate_free(x->z);
	pidmap_free(&x->pids);
	pidmap_free(&x->tids);
	pidmap_free(&x->trk_win);
	free(x);
	return rc;
}
