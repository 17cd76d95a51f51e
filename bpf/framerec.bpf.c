// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * framerec.bpf.c - uprobes on android::Surface::queueBuffer (and its variants), on the
 * batch path Surface::queueBuffers, on connect/disconnect and on setBuffersTimestamp.
 *
 * Every buffer queued becomes one struct frame_event in a ring buffer, or, when the ring
 * is full, one increment of a per-CPU counter: nothing is lost silently. A batch call
 * whose vector is malformed (so the number of its buffers is unknown) is counted as such.
 * The PID filter is the uprobe's own (userspace attaches per PID), so there is none here.
 * One body per argument layout (static window hook, member, sp<GraphicBuffer> member,
 * batch, connect/disconnect, timestamp), each recording the canonical ANativeWindow* and
 * ANativeWindowBuffer* (android_abi.h): a fixed add in the program, where it costs nothing,
 * rather than a per-symbol correction in userspace. Two ways to run them (recorder/probe.c
 * picks one before load): on Linux 6.6+ one dispatcher program, surface_site, behind one
 * uprobe_multi link per target, the layout named by each offset's BPF cookie; elsewhere one
 * program per layout behind one perf-event uprobe per site (cookies need 5.15, framerec
 * runs on 5.8).
 *
 * No vmlinux.h: the program reads only pt_regs, so the UAPI headers of the target
 * (asm/ptrace.h) are enough and the same source builds for x86-64 and arm64
 * (-D__TARGET_ARCH_x86 / -D__TARGET_ARCH_arm64).
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "frame_event.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Wake the consumer only when the ring holds at least this many bytes (framerec sets it
 * to half the ring before load). Below it, events are submitted with BPF_RB_NO_WAKEUP
 * and framerec drains the ring on a short timer: a wakeup is an irq_work plus a context
 * switch, far more than the event itself, and frames need no low-latency delivery.
 * 0 = never force a wakeup (timer only).
 */
const volatile __u64 wakeup_bytes = 0;

/*
 * Set (to 1) by framerec when the recording stops (probe_stop), before the uprobes are
 * detached: from then on every program returns at once, so the recordings of all targets
 * end at that one instant, whatever the detach takes and in whatever order (a detach
 * waits for a kernel grace period). In .bss, which userspace writes through the mmap.
 */
volatile __u32 stopped = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FRAMEREC_RING_KIB_DEFAULT * 1024);
} events SEC(".maps");

/*
 * The counters (frame_event.h, FRAMEREC_DROP_RESERVE...): per CPU so the failure path
 * never contends on a cache line. The increment is still atomic: a uprobe program runs
 * with migration, not preemption, disabled, so two tasks on one CPU can interleave a
 * plain load/add/store and lose a count (the accounting must be exact). An uncontended
 * atomic add costs next to nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FRAMEREC_COUNTER_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void counter_add(__u32 slot, __u64 n)
{
	__u64 *count = bpf_map_lookup_elem(&counters, &slot);

	if (count)
		__sync_fetch_and_add(count, n);
}

/*
 * Where the "seen" state of buffer geometry lives: here, not in userspace. The probe must
 * read each queued buffer's header anyway (a geometry can change in place, a buffer can
 * move to another surface), so the choice is what happens next. Userspace comparing would
 * need the geometry in every frame_event (40 -> 72 bytes: more ring traffic, and a map
 * lookup in framerec for every frame); a map here costs one lookup in the probe and leaves
 * the ring carrying a geometry_event only when something is new, a handful per recording.
 * bench/recorder/probe_cost.sh measures the probe with it (recorder/README.md). An LRU hash:
 * it never fills up; an evicted buffer is written again when next queued.
 */
struct buffer_key {
	__u64 buffer;
	__u32 tgid;
	__u32 pad;
};

struct buffer_geometry {
	__u64 surface;
	__s32 width, height, stride, format;
	__u64 usage;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FRAMEREC_BUFFERS_MAX);
	__type(key, struct buffer_key);
	__type(value, struct buffer_geometry);
} buffers SEC(".maps");

/*
 * The explicit timestamp each Surface would queue with (android_abi.h: the member
 * mTimestamp, which only Surface::setBuffersTimestamp writes): set by record_stamp, read
 * by every single-buffer body, so its frame_event carries what the app asked for, as a
 * batch element's does. No entry is AUTO (a value set back to AUTO is deleted).
 */
struct window_key {
	__u64 window; /* the ANativeWindow* (canonical) */
	__u32 tgid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FRAMEREC_STAMPS_MAX);
	__type(key, struct window_key);
	__type(value, __s64);
} stamps SEC(".maps");

static __always_inline struct window_key window_key_of(__u64 window)
{
	struct window_key k = {.window = window, .tgid = bpf_get_current_pid_tgid() >> 32};

	return k;
}

/* The timestamp a single-buffer call of window queues with. */
static __always_inline __s64 stamp_of(__u64 window)
{
	struct window_key k = window_key_of(window);
	__s64 *ts = bpf_map_lookup_elem(&stamps, &k);

	return ts ? *ts : FRAMEREC_TIMESTAMP_AUTO;
}

/* The buffer's header, read whole (one helper call); 0 when unreadable. */
static __always_inline int header_read(__u64 buffer, __u64 h[FRAMEREC_BUFFER_HEADER / 8])
{
	return bpf_probe_read_user(h, FRAMEREC_BUFFER_HEADER, (const void *)buffer) == 0;
}

/* The geometry of a header read at h (android_abi.h offsets), for surface. */
static __always_inline void geometry_of(const __u64 *h, __u64 surface, struct buffer_geometry *g)
{
	const __s32 *w = (const __s32 *)h;

	g->surface = surface;
	g->width = w[FRAMEREC_BUFFER_WIDTH / 4];
	g->height = w[FRAMEREC_BUFFER_HEIGHT / 4];
	g->stride = w[FRAMEREC_BUFFER_STRIDE / 4];
	g->format = w[FRAMEREC_BUFFER_FORMAT / 4];
	g->usage = h[FRAMEREC_BUFFER_USAGE / 8];
}

static __always_inline int geometry_same(const struct buffer_geometry *a,
					 const struct buffer_geometry *b)
{
	return a->surface == b->surface && a->width == b->width && a->height == b->height &&
	       a->stride == b->stride && a->format == b->format && a->usage == b->usage;
}

/* The geometry_event of a buffer new or changed; its map entry goes when none fits the ring. */
static __always_inline void geometry_emit(const struct buffer_key *k,
					  const struct buffer_geometry *g, __u64 ktime)
{
	struct geometry_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		/* The frame's own reservation will fail too and count it; retry next time. */
		bpf_map_delete_elem(&buffers, k);
		return;
	}
	e->ktime_ns = ktime;
	e->buffer = k->buffer;
	e->surface = g->surface;
	e->tgid = k->tgid;
	e->pad = 0;
	e->width = g->width;
	e->height = g->height;
	e->stride = g->stride;
	e->format = g->format;
	e->usage = g->usage;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/*
 * Before a frame's event: its buffer's geometry when it is new or changed (FORMAT.md 4.10).
 * Only a header with ANDROID_NATIVE_BUFFER_MAGIC is trusted; one that cannot be read or
 * has another magic is counted (FRAMEREC_BAD_BUFFER) and its frame recorded all the same.
 * Buffer 0 (an sp whose pointer could not be read) is neither.
 */
static __always_inline void buffer_note(__u64 buffer, __u64 surface, __u64 ktime)
{
	__u64 h[FRAMEREC_BUFFER_HEADER / 8];
	struct buffer_key k = {.buffer = buffer};
	struct buffer_geometry g, *seen;

	if (!buffer)
		return;
	if (!header_read(buffer, h) || *(const __s32 *)h != FRAMEREC_BUFFER_MAGIC) {
		counter_add(FRAMEREC_BAD_BUFFER, 1);
		return;
	}
	geometry_of(h, surface, &g);
	k.tgid = bpf_get_current_pid_tgid() >> 32;
	seen = bpf_map_lookup_elem(&buffers, &k);
	if (seen && geometry_same(seen, &g))
		return;
	bpf_map_update_elem(&buffers, &k, &g, BPF_ANY);
	geometry_emit(&k, &g, ktime);
}

/* One reservation per buffer queued: the event, or a counted drop. */
static __always_inline int emit(__u64 buffer, __u64 surface, __u64 ktime, __s64 timestamp)
{
	struct frame_event *e;
	__u64 id, flags = BPF_RB_NO_WAKEUP;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		counter_add(FRAMEREC_DROP_RESERVE, 1);
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	e->ktime_ns = ktime;
	e->buffer = buffer;
	e->surface = surface;
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->timestamp = timestamp;
	if (wakeup_bytes && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
	return 0;
}

/*
 * emit() as a global function: the verifier checks a global function once, on its own,
 * and then treats each call as returning a number. The batch loop calls it instead of
 * inlining emit(): with emit's branches inlined, the verifier walked 64 copies of them
 * and spent ~47 ms of framerec's start-up loading queue_buffers; the single-call
 * programs keep emit() inline (one call, no loop, no extra call on the hot path).
 */
__noinline int emit_one(__u64 buffer, __u64 surface, __u64 ktime, __s64 timestamp)
{
	buffer_note(buffer, surface, ktime);
	return emit(buffer, surface, ktime, timestamp);
}

/*
 * A Surface* `this` or a GraphicBuffer* as the ANativeWindow* / ANativeWindowBuffer* base
 * inside it (android_abi.h, FRAMEREC_NATIVE_BASE_OFFSET); 0 (unreadable) stays 0.
 */
static __always_inline __u64 native_base(__u64 object)
{
	return object ? object + FRAMEREC_NATIVE_BASE_OFFSET : 0;
}

/*
 * The bodies, one per argument layout: each named program below runs one (a perf-event
 * uprobe per site, the fallback), the dispatcher surface_site runs the one its cookie names
 * (a uprobe_multi link per target), so both ways write the same events. `now` is the
 * program's first helper call, so the timestamp is as close to the call as possible.
 *
 * The static entry points (AOSP 11..16): hook_queueBuffer, queueBufferInternal,
 * hook_queueBuffer_DEPRECATED (ANativeWindow*, ANativeWindowBuffer*, ...): both
 * arguments are recorded as they come. Every single-buffer body records the Surface's
 * explicit timestamp (stamp_of), AUTO unless the app set one. The post-16
 * SurfaceQueueBufferInput overload may carry a timestamp of its own; its layout is in no
 * header at hand, so that form records the Surface's too.
 */
static __always_inline int record_window(__u64 now, void *window, void *buffer)
{
	if (stopped)
		return 0;
	buffer_note((__u64)buffer, (__u64)window, now);
	return emit((__u64)buffer, (__u64)window, now, stamp_of((__u64)window));
}

/*
 * The members queueBuffer(ANativeWindowBuffer*, int[, SurfaceQueueBufferOutput*]) (11..15;
 * 15 QPR1+ and 16): argument 0 is the Surface* `this`, recorded as its ANativeWindow*.
 */
static __always_inline int record_member(__u64 now, void *self, void *buffer)
{
	__u64 window = native_base((__u64)self);

	if (stopped)
		return 0;
	buffer_note((__u64)buffer, window, now);
	return emit((__u64)buffer, window, now, stamp_of(window));
}

/*
 * The sp<GraphicBuffer> members (16's queueBuffer(const sp<GraphicBuffer>&, const
 * sp<Fence>&, SurfaceQueueBufferOutput*), post-16 queueBuffer(..., const
 * SurfaceQueueBufferInput&, ...) and queueBufferImpl): argument 1 is the address of a
 * smart pointer whose first 8 bytes are the GraphicBuffer*, recorded as its
 * ANativeWindowBuffer*. A failed read records buffer 0 (the call still happened).
 */
static __always_inline int record_member_sp(__u64 now, void *self, void *sp)
{
	__u64 graphic = 0, window = native_base((__u64)self);

	if (stopped)
		return 0;
	if (bpf_probe_read_user(&graphic, sizeof(graphic), sp))
		graphic = 0;
	buffer_note(native_base(graphic), window, now);
	return emit(native_base(graphic), window, now, stamp_of(window));
}

/*
 * The vector {begin, end} at vec: 0 with its first element and element count, or -1 when
 * it is no vector of BatchQueuedBuffers: unreadable, end before begin, a size that is not
 * a whole number of elements, more than FRAMEREC_BATCH_SANE (frame_event.h says why).
 * n is unsigned on purpose: with a signed count the verifier walked the 64-iteration loop
 * in 5663 instructions, unsigned in 2998 (bpftool -d prog loadall; 3284 before the checks).
 */
static __always_inline int batch_count(const void *vec, __u64 *begin, __u64 *n)
{
	__u64 range[2], bytes;

	if (bpf_probe_read_user(range, sizeof(range), vec) || range[1] < range[0])
		return -1;
	bytes = range[1] - range[0];
	if (bytes % FRAMEREC_BATCH_ELEM || bytes / FRAMEREC_BATCH_ELEM > FRAMEREC_BATCH_SANE)
		return -1;
	*begin = range[0];
	*n = bytes / FRAMEREC_BATCH_ELEM;
	return 0;
}

/*
 * The batch path, Surface::queueBuffers (12..15, and 15 QPR1+/16 with its outputs): one
 * event per element of the std::vector<BatchQueuedBuffer> (argument 1), all with the
 * call's time and window, each with its own timestamp (AUTO unless the app set one). A
 * malformed vector is one batch anomaly (how many buffers it queued is unknown, so none is
 * counted as dropped); an element that cannot be read records buffer 0 and no timestamp
 * (the buffer was still queued).
 */
static __always_inline int record_batch(__u64 now, void *self, void *vec)
{
	__u64 begin = 0, n = 0, window = native_base((__u64)self);
	__u64 elem[3];

	if (stopped)
		return 0;
	if (batch_count(vec, &begin, &n)) {
		counter_add(FRAMEREC_BATCH_ANOMALY, 1);
		return 0;
	}
	if (n > FRAMEREC_BATCH_MAX)
		counter_add(FRAMEREC_DROP_CUT, n - FRAMEREC_BATCH_MAX);
	for (__u32 i = 0; i < FRAMEREC_BATCH_MAX && i < n; i++) {
		if (bpf_probe_read_user(elem, sizeof(elem),
					(void *)(begin + (__u64)i * FRAMEREC_BATCH_ELEM))) {
			elem[FRAMEREC_BATCH_BUFFER / 8] = 0;
			elem[FRAMEREC_BATCH_TIMESTAMP / 8] = (__u64)FRAMEREC_TIMESTAMP_AUTO;
		}
		emit_one(elem[FRAMEREC_BATCH_BUFFER / 8], window, now,
			 (__s64)elem[FRAMEREC_BATCH_TIMESTAMP / 8]);
	}
	return 0;
}

/*
 * Surface::setBuffersTimestamp(int64_t) (11..15, android_abi.h): the value the Surface's
 * next single-buffer calls queue with. A timestamp set back to AUTO deletes the entry;
 * a full map evicts the least recently used Surface's (frame_event.h).
 */
static __always_inline int record_stamp(void *self, __s64 timestamp)
{
	struct window_key k = window_key_of(native_base((__u64)self));

	if (stopped)
		return 0;
	if (timestamp == FRAMEREC_TIMESTAMP_AUTO)
		bpf_map_delete_elem(&stamps, &k);
	else
		bpf_map_update_elem(&stamps, &k, &timestamp, BPF_ANY);
	return 0;
}

/*
 * Surface::connect(int api, const sp<IProducerListener>&, bool) (11..15) or (int api,
 * const sp<SurfaceListener>&, bool) (15 QPR1+, 16): the overload every other connect
 * reaches on its version (recorder/README.md "Surface lifetime"), so one event per
 * logical connect; Surface::disconnect(int api, IGraphicBufferProducer::DisconnectMode)
 * (11..16). Members: `this` (a Surface*), then api. One connect_event per call, whatever
 * it returns (an uprobe sees the entry).
 */
static __always_inline int record_lifetime(__u64 now, void *self, int api, __u32 connected)
{
	struct connect_event *e;
	__u64 id;

	if (stopped)
		return 0;
	/*
	 * A Surface built where a destroyed one lived starts AUTO (its constructor, which no
	 * probe sees) and connects before it queues: forget the address's timestamp. The cost:
	 * a Surface reconnected that queues before setting a timestamp again reads AUTO where
	 * AOSP keeps the old one; apps with explicit timestamps set one before every queue.
	 */
	if (connected) {
		struct window_key k = window_key_of(native_base((__u64)self));

		bpf_map_delete_elem(&stamps, &k);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		counter_add(FRAMEREC_LIFETIME_LOST, 1);
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	e->ktime_ns = now;
	e->surface = native_base((__u64)self);
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->api = api;
	e->connected = connected;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

/* The fallback: one program per layout, one perf-event uprobe per site (no cookie). */
SEC("uprobe")
int BPF_KPROBE(queue_window, void *window, void *buffer)
{
	return record_window(bpf_ktime_get_ns(), window, buffer);
}

SEC("uprobe")
int BPF_KPROBE(queue_member, void *self, void *buffer)
{
	return record_member(bpf_ktime_get_ns(), self, buffer);
}

SEC("uprobe")
int BPF_KPROBE(queue_member_sp, void *self, void *sp)
{
	return record_member_sp(bpf_ktime_get_ns(), self, sp);
}

SEC("uprobe")
int BPF_KPROBE(queue_buffers, void *self, void *vec)
{
	return record_batch(bpf_ktime_get_ns(), self, vec);
}

SEC("uprobe")
int BPF_KPROBE(surface_connect, void *self, int api)
{
	return record_lifetime(bpf_ktime_get_ns(), self, api, 1);
}

SEC("uprobe")
int BPF_KPROBE(surface_disconnect, void *self, int api)
{
	return record_lifetime(bpf_ktime_get_ns(), self, api, 0);
}

SEC("uprobe")
int BPF_KPROBE(buffers_timestamp, void *self, long timestamp)
{
	return record_stamp(self, timestamp);
}

/*
 * Every site of a target behind one uprobe_multi link (Linux 6.6+, recorder/probe.c): the
 * cookie of the offset that fired names its layout (frame_event.h, FRAMEREC_SITE_*).
 * framerec loads it with expected_attach_type BPF_TRACE_UPROBE_MULTI, and only where the
 * kernel has uprobe_multi (bpf_get_attach_cookie alone would need 5.15); elsewhere the
 * programs above are loaded instead. An unknown cookie records nothing (cannot happen:
 * framerec writes every cookie).
 */
SEC("uprobe")
int BPF_KPROBE(surface_site, void *arg0, void *arg1)
{
	__u64 now = bpf_ktime_get_ns();

	switch (bpf_get_attach_cookie(ctx)) {
	case FRAMEREC_SITE_WINDOW:
		return record_window(now, arg0, arg1);
	case FRAMEREC_SITE_MEMBER:
		return record_member(now, arg0, arg1);
	case FRAMEREC_SITE_MEMBER_SP:
		return record_member_sp(now, arg0, arg1);
	case FRAMEREC_SITE_BATCH:
		return record_batch(now, arg0, arg1);
	case FRAMEREC_SITE_CONNECT:
		return record_lifetime(now, arg0, (int)(__u64)arg1, 1);
	case FRAMEREC_SITE_DISCONNECT:
		return record_lifetime(now, arg0, (int)(__u64)arg1, 0);
	case FRAMEREC_SITE_STAMP:
		return record_stamp(arg0, (__s64)arg1);
	}
	return 0;
}
