/* SPDX-License-Identifier: MIT */
/*
 * frame_event.h - the event the uprobe writes into the ring buffer, shared by the BPF
 * program (framerec.bpf.c) and framerec's userspace, so the two layouts cannot drift
 * (Kala keeps two hand-synchronized copies).
 */
#ifndef FRAME_EVENT_H
#define FRAME_EVENT_H

#include <linux/types.h>

/*
 * Kala's 16-byte FrameRecord {ktime_ns, buffer} first, then the ids: 24 bytes, no
 * padding, the same on x86-64 and arm64.
 */
struct frame_event {
	__u64 ktime_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 buffer;	/* the ANativeWindowBuffer* / GraphicBuffer* queued */
	__u32 tgid;	/* process id */
	__u32 tid;	/* thread id */
};

/* Default ring buffer size (Kala: 256 KiB); framerec --ring-kib overrides it. */
#define FRAMEREC_RING_KIB_DEFAULT 256

#endif /* FRAME_EVENT_H */
