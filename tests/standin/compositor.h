/* SPDX-License-Identifier: MIT */
/*
 * compositor.h - the stand-in's SurfaceFlinger: latches the stand-in game's buffers at
 * vsync and keeps, per layer, the FrameTracker that `dumpsys SurfaceFlinger --latency`
 * prints. The rules are AOSP's (frameworks/native 12-16 unless said otherwise; the sources
 * are cited in ../shared/reference/display-truth.md §1 and §5). A buffer goes
 *   app --queueBuffer--> BufferQueue --BBQ acquire--> transaction in SF --latch--> screen:
 *   - BLASTBufferQueue acquires while fewer than mMaxAcquiredBuffers + 2 = 3 of its
 *     buffers are in SF (pending transactions and the one on screen); the acquire sets
 *     desiredPresentTime (auto timestamps: Transaction::setBuffer's systemTime(), 5 us
 *     later here). A buffer it cannot acquire waits in the BufferQueue until SF releases
 *     one (at a latch), so its desired time is then, not its queue time;
 *   - MAILBOX / swap interval 0 (async mode): a buffer queued while another one waits in
 *     the BufferQueue replaces it (BufferQueueProducer::queueBuffer, mIsDroppable); the
 *     replaced one is never acquired nor presented;
 *   - SF applies one auto-timestamped transaction per layer per vsync (backpressure), in
 *     order, dropping none; explicit timestamps are held while desiredPresentTime >= the
 *     expected present time (the next vsync), and of two or more due in one composition
 *     the newest is latched, the earlier dropped (Layer::setBuffer -> releasePreviousBuffer);
 *   - a layer that is not visible composes nothing: its buffers are released unpresented;
 *   - a resize flushes the BufferQueue unpresented (BBQ acquireAndReleaseBuffer).
 * A latched buffer's present fence signals at the next vsync, so rows of the newest
 * composition read INT64_MAX (pending) until then.
 *
 * No clock and no thread here: time is every call's argument, so tests are exact. The
 * stand-in game runs it from its vsync thread; standin-dumpsys prints what it holds.
 */
#ifndef STANDIN_COMPOSITOR_H
#define STANDIN_COMPOSITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COMP_MAX_LAYERS 16
#define COMP_QUEUE_MAX 8       /* buffers in the BufferQueue, per layer (a swapchain's) */
#define COMP_BBQ_IN_FLIGHT 3   /* BBQ: mMaxAcquiredBuffers (1) + 2 */
#define COMP_FT_RECORDS 128    /* FrameTracker's NUM_FRAME_RECORDS */
#define COMP_TIMELINE_MAX 64   /* FrameTimeline's kDefaultMaxDisplayFrames (16) */
#define COMP_TS_AUTO INT64_MIN /* NATIVE_WINDOW_TIMESTAMP_AUTO */
#define COMP_PENDING INT64_MAX /* Fence::SIGNAL_TIME_PENDING */
#define COMP_NAME_MAX 256

enum comp_mode { COMP_FIFO, COMP_MAILBOX };

/* What the layer is, for its name (SurfaceView.java, WindowSurfaceController.java). */
enum comp_kind {
	COMP_SURFACEVIEW, /* 12+: "SurfaceView[T]" container, its "(BLAST)" child latches, and
			     "Background for SurfaceView[T]"; 11: "SurfaceView - T" */
	COMP_WINDOW,	  /* the app window's layer, named by its title "PKG/ACTIVITY" */
};

struct comp_record {
	int64_t desired, actual, ready; /* one FrameTracker row */
};

struct comp_buffer {
	uint64_t buffer;
	int64_t queue_ns;
	int64_t timestamp; /* COMP_TS_AUTO or the app's desired present time */
	int64_t desired;   /* set when BBQ acquires it */
};

struct comp_layer {
	char name[COMP_NAME_MAX];      /* the buffer layer's name, "#SEQ" included */
	char container[COMP_NAME_MAX]; /* 12+ SurfaceView: its container's name, else "" */
	char background[COMP_NAME_MAX];
	enum comp_mode mode;
	bool visible;
	bool removed;
	struct comp_buffer bq[COMP_QUEUE_MAX]; /* queued, not acquired (oldest first) */
	unsigned n_bq;
	struct comp_buffer txn[COMP_BBQ_IN_FLIGHT]; /* acquired: transactions in SF */
	unsigned n_txn;
	bool on_screen; /* a buffer of this layer is latched and not yet released */
	struct comp_record ft[COMP_FT_RECORDS];
	unsigned ft_offset; /* the record the next latch fills (advanceFrame moves on) */
	uint64_t presented, dropped;
};

struct compositor {
	int android;	     /* 11..16: names, --list and --latency shapes follow it */
	bool frame_timeline; /* 16 with deprecate_frame_tracker on: FrameTimeline's shape */
	int64_t period_ns;
	uint32_t next_seq; /* 13+: layer sequence ids, globally increasing */
	struct comp_layer layers[COMP_MAX_LAYERS];
	unsigned n_layers;
	FILE *truth; /* every presented and every dropped buffer, a line each; may be NULL */
};

void comp_init(struct compositor *c, int android, int64_t period_ns, FILE *truth);

/* A new layer for title ("com.pkg/com.pkg.Act"); returns its index or -ENOSPC. */
int comp_add_layer(struct compositor *c, enum comp_kind kind, const char *title,
		   enum comp_mode mode);

/* The layer is destroyed (surface gone); a recreated surface is a new comp_add_layer. */
void comp_remove_layer(struct compositor *c, int layer);

/*
 * A buffer queued (Surface::queueBuffer reached the BufferQueue). Returns 0, or -EAGAIN
 * when COMP_QUEUE_MAX buffers wait already: the producer would block in dequeueBuffer
 * until a vsync frees one (FIFO back-pressure); call again after the next comp_vsync.
 */
int comp_queue(struct compositor *c, int layer, uint64_t buffer, int64_t queue_ns,
	       int64_t timestamp);

/* One composition at vsync time t: fences of the previous one signal, then each layer
 * latches by its rules. */
void comp_vsync(struct compositor *c, int64_t t);

void comp_set_period(struct compositor *c, int64_t period_ns);
void comp_set_visible(struct compositor *c, int layer, bool visible, int64_t t);
void comp_flush(struct compositor *c, int layer, int64_t t);

/* `dumpsys SurfaceFlinger --list` as this Android version prints it. Returns its length
 * (written up to cap - 1 and NUL-terminated, like snprintf). */
size_t comp_print_list(const struct compositor *c, char *buf, size_t cap);

/* `dumpsys SurfaceFlinger --latency NAME`: the period line, then the named layer's rows
 * (none when no layer has that name; a container's FrameTracker is all zeros). */
size_t comp_print_latency(const struct compositor *c, const char *name, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* STANDIN_COMPOSITOR_H */
