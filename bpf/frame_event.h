/* SPDX-License-Identifier: MIT */
/*
 * frame_event.h - the event the uprobe writes into the ring buffer, shared by the BPF
 * program (framerec.bpf.c) and framerec's userspace, so the two layouts cannot drift
 * (Kala keeps two hand-synchronized copies).
 */
#ifndef FRAME_EVENT_H
#define FRAME_EVENT_H

#include <linux/types.h>

#include "android_abi.h"

/*
 * Kala's 16-byte FrameRecord {ktime_ns, buffer} first, then what Kala leaves out: the
 * queueing window, the ids and the app's own timestamp (a batch element's, or the one a
 * single-buffer call queues with: the Surface's last Surface::setBuffersTimestamp,
 * android_abi.h). 40 bytes, no padding, the same on x86-64 and arm64.
 *
 * buffer and surface are canonical: the same ANativeWindowBuffer* and ANativeWindow*
 * whichever entry point fired (the programs of framerec.bpf.c correct the member and
 * sp<GraphicBuffer> forms by FRAMEREC_NATIVE_BASE_OFFSET, android_abi.h), so one window is one
 * surface value and one buffer one buffer value in a capture.
 */
struct frame_event {
	__u64 ktime_ns;	 /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 buffer;	 /* the ANativeWindowBuffer* queued (0: unreadable) */
	__u64 surface;	 /* the ANativeWindow* it was queued to */
	__u32 tgid;	 /* process id */
	__u32 tid;	 /* thread id */
	__s64 timestamp; /* the app's own timestamp; FRAMEREC_TIMESTAMP_AUTO: none */
};

/*
 * The two other events the ring carries, told apart from a frame_event by their size
 * (the ring gives each sample's size; the sizes differ, asserted below), so a frame, the
 * event of nearly every sample, keeps its 40 bytes and no kind field.
 *
 * geometry_event: a buffer's geometry (the ANativeWindowBuffer's width, height, stride,
 * format and usage), written just before the frame_event of the frame that queued it, with
 * the frame's ktime, when the (process, buffer) is new to the probe's `buffers` map or its
 * surface or geometry changed. 56 bytes.
 */
struct geometry_event {
	__u64 ktime_ns;
	__u64 buffer;  /* the ANativeWindowBuffer* (canonical, as the frame's) */
	__u64 surface; /* the ANativeWindow* it was queued to */
	__u32 tgid;
	__u32 pad; /* 0 */
	__s32 width, height, stride, format;
	__u64 usage;
};

/* connect_event: Surface::connect (connected 1) or disconnect (0), its api argument. 32 bytes. */
struct connect_event {
	__u64 ktime_ns;
	__u64 surface; /* the ANativeWindow*: `this` + FRAMEREC_NATIVE_BASE_OFFSET */
	__u32 tgid;
	__u32 tid;
	__s32 api;
	__u32 connected;
};

_Static_assert(sizeof(struct frame_event) == 40, "a frame_event is 40 bytes");
_Static_assert(sizeof(struct geometry_event) == 56, "a geometry_event is 56 bytes");
_Static_assert(sizeof(struct connect_event) == 32, "a connect_event is 32 bytes");

/*
 * Surface::queueBuffers(const std::vector<BatchQueuedBuffer>&, ...): argument 1 is a
 * libc++ std::vector, {begin, end, end_of_storage} pointers, of 24-byte BatchQueuedBuffer
 * elements (android_abi.h). One event per element, at most
 * FRAMEREC_BATCH_MAX per call (the verifier needs a bound); elements past it are counted
 * in slot FRAMEREC_DROP_CUT instead of recorded.
 */
#define FRAMEREC_BATCH_MAX 64
/*
 * More elements than this is no batch of buffers: a BufferQueue has 64 slots
 * (BufferQueueDefs::NUM_BUFFER_SLOTS), so a real batch queues at most 64 distinct
 * buffers; 4096 leaves a wide margin (and is the stand-in's --batch maximum). A vector
 * above it, or one whose end is before its begin, or whose size is not a multiple of 24,
 * is what a wrong symbol or another ABI shows: its "size" is garbage, and dividing it
 * used to add up to 2^59 drops. Such a call (or one whose vector cannot be read) queues an
 * unknown number of buffers: it is counted in slot FRAMEREC_BATCH_ANOMALY, a number of
 * calls, and in no drop count.
 */
#define FRAMEREC_BATCH_SANE 4096

/*
 * The per-CPU counters. Buffers not recorded (the drops records): slot 0 reservation
 * failures, slot 1 batch elements cut. Slot 2: batch calls with a malformed vector. Slot
 * 3: buffers queued whose ANativeWindowBuffer header could not be read or has no
 * ANDROID_NATIVE_BUFFER_MAGIC (recorded as frames, their geometry not: the drops records'
 * bad_buffers, FORMAT.md 4.6).
 */
#define FRAMEREC_DROP_RESERVE 0
#define FRAMEREC_DROP_CUT 1
#define FRAMEREC_BATCH_ANOMALY 2
#define FRAMEREC_BAD_BUFFER 3
/*
 * Slot 4: connect/disconnect events the ring had no room for (no buffer, so in no drop
 * count; framerec's summary names them, the capture misses them).
 */
#define FRAMEREC_LIFETIME_LOST 4
#define FRAMEREC_COUNTER_SLOTS 5

/*
 * Buffers whose geometry the probe remembers (its `buffers` map, an LRU hash keyed by
 * process and buffer): a BufferQueue has at most 64 slots, a game a few surfaces, so 4096
 * (a few hundred KiB) holds every live buffer of many processes. One evicted, when queued
 * again, is written again: a repeated record, never a lost one.
 */
#define FRAMEREC_BUFFERS_MAX 4096

/*
 * The argument layout of a probed site, as the BPF cookie of each offset of a uprobe_multi
 * link (framerec.bpf.c, `surface_site`): one program and one link per target cover every
 * site (queue entry point, batch path, connect, disconnect, timestamp), so stopping a target
 * releases one link, one kernel grace period (recorder/README.md, "Stop order"). The fallback, one
 * perf-event uprobe per site, uses the program of each layout instead and no cookie.
 */
#define FRAMEREC_SITE_WINDOW 1	   /* queue_window's layout */
#define FRAMEREC_SITE_MEMBER 2	   /* queue_member's */
#define FRAMEREC_SITE_MEMBER_SP 3  /* queue_member_sp's */
#define FRAMEREC_SITE_BATCH 4	   /* queue_buffers' */
#define FRAMEREC_SITE_CONNECT 5	   /* surface_connect's */
#define FRAMEREC_SITE_DISCONNECT 6 /* surface_disconnect's */
#define FRAMEREC_SITE_STAMP 7	   /* buffers_timestamp's */

/*
 * The explicit timestamps the probe remembers (its `stamps` map, an LRU hash keyed by
 * process and ANativeWindow*): one per Surface an app set a timestamp on, a handful per
 * game. An evicted one reads as AUTO until the app sets it again (apps that use explicit
 * timestamps set one before every queue: eglPresentationTimeANDROID, Vulkan's
 * VkPresentTimeGOOGLE, Swappy).
 */
#define FRAMEREC_STAMPS_MAX 1024

/* Default ring buffer size (Kala: 256 KiB); framerec --ring-kib overrides it. */
#define FRAMEREC_RING_KIB_DEFAULT 256

#endif /* FRAME_EVENT_H */
