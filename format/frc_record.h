/* SPDX-License-Identifier: MIT */
/*
 * frc_record.h - the records a capture holds, as plain C values.
 *
 * This header is pure data: no I/O, no allocation. It is the contract between the
 * three stages of the data flow (ring buffer or file -> records -> pipeline -> sinks):
 * the capture reader produces these, the recorder builds them from ring-buffer events,
 * and the heuristics pipeline consumes them. format/FORMAT.md specifies how each one
 * is encoded on disk.
 */
#ifndef FRC_RECORD_H
#define FRC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The project's one size for a buffer that holds an error message: room for a PATH_MAX
 * (4096) path and the text after it, so a long path never cuts off what went wrong.
 */
#define FRC_MSG_MAX 4352

/* Longest raw sysfs read we keep (the node is a short decimal number). */
#define FRC_SYSFS_MAX 255
/* Longest attached symbol name we keep, without the terminating NUL. */
#define FRC_SYMBOL_MAX 255

/* Record type codes. They are also the type bytes on disk: never renumber. */
enum frc_type {
	FRC_FRAME = 1,	/* one queueBuffer call */
	FRC_SYSFS = 2,	/* one read of the display's FPS node */
	FRC_DROPS = 3,	/* cumulative buffers the recorder could not record (and anomalies) */
	FRC_ATTACH = 4, /* the probe was attached to a process */
	FRC_EXIT = 5,	/* a recorded process exited */
	FRC_TICK = 6,	/* a moment the FPS meter was read */
	/* 7, 8, 10: entries that are not records (FORMAT.md 4.5, 4.6, 4.7) */
	FRC_LAYER = 9,	      /* a SurfaceFlinger layer followed, or let go (display capture) */
	FRC_PRESENT = 11,     /* one row SurfaceFlinger printed for a layer: a presented buffer */
	FRC_VSYNC = 12,	      /* the display's vsync period, at the start and when it changed */
	FRC_PRESENT_GAP = 13, /* present rows of a layer lost between two polls */
	FRC_THREAD = 14,      /* the name of a thread that queued frames: first seen, renamed */
	FRC_BUFFER = 15,      /* a buffer's geometry: first seen, or changed */
	FRC_CONNECT = 16,     /* Surface::connect / disconnect */
	/* 17: an entry that is not a record (FORMAT.md 4.6) */
	FRC_POLL = 18, /* a display capture poll of a layer: its signalled rows are in */
};
#define FRC_TYPE_MAX FRC_POLL
/* The types of 1.1's first release: every listing of types shows them; the later ones only
 * when a capture holds some, so that listings of older captures stay as they were. */
#define FRC_TYPE_BASE_MAX FRC_TICK

/* Where an FPS reading came from; the same values on disk. */
enum frc_source {
	FRC_SOURCE_NONE = 0,
	FRC_SOURCE_SYSFS = 1,
	FRC_SOURCE_EBPF = 2,
};

/*
 * The one spelling of each source, everywhere a source is shown or parsed: "sysfs",
 * "ebpf"; none (or an unknown value) is spelled as the caller's `none` ("-" in the text
 * form, "none" in reports, NULL for SQL NULL).
 */
const char *frc_source_name(unsigned source, const char *none);
/* The source named by the n bytes at s ("sysfs", "ebpf"); -1 when none matches. */
int frc_source_parse(const char *s, size_t n);

struct frc_frame {
	uint32_t pid; /* thread-group id (what userspace calls the PID) */
	uint32_t tid;
	uint64_t buffer; /* the ANativeWindowBuffer* (framerec: whichever entry point fired) */
	/*
	 * The Surface's ANativeWindow* (framerec corrects a member's `this` by the ABI offset),
	 * so one value per BufferQueue. 0: unknown (captures made before the surface was
	 * recorded). Captures of earlier framerec builds hold the raw argument 0.
	 */
	uint64_t surface;
	/*
	 * A timestamp of the frame's own besides its ktime (FORMAT.md 4.7): the app's explicit
	 * one (nanoseconds, the app's clock, usually CLOCK_MONOTONIC), a batch element's
	 * BatchQueuedBuffer.timestamp or the Surface's for a single-buffer call, when the app
	 * set one. has_timestamp false: none (NATIVE_WINDOW_TIMESTAMP_AUTO; every single-buffer
	 * frame of a capture without metadata symbol.timestamp).
	 */
	bool has_timestamp;
	int64_t timestamp;
};

struct frc_sysfs {
	int32_t err; /* 0: raw[0..len) is what read() returned; else the errno of the read */
	uint16_t len;
	uint8_t raw[FRC_SYSFS_MAX];
};

struct frc_drops {
	/*
	 * Buffers queued but not recorded since the recording started: ring-buffer
	 * reservation failures, and batch elements past the recorder's per-call cap.
	 */
	uint64_t cumulative;
	/*
	 * Batch calls (Surface::queueBuffers) since the recording started whose vector the
	 * probe could not read or that is no vector of 24-byte elements (a wrong symbol or
	 * ABI): how many buffers they queued is unknown, so they are in neither count.
	 * 0 in captures that predate it (FORMAT.md 4.6).
	 */
	uint64_t batch_anomalies;
	/*
	 * Buffers queued since the recording started whose ANativeWindowBuffer header could
	 * not be read or did not start with ANDROID_NATIVE_BUFFER_MAGIC: their frames are
	 * recorded, their geometry is not (no buffer record). 0 in captures that predate it.
	 */
	uint64_t bad_buffers;
};

struct frc_attach {
	uint32_t pid;
	uint16_t len;			 /* strlen(symbol) */
	char symbol[FRC_SYMBOL_MAX + 1]; /* NUL-terminated, mangled name */
};

struct frc_exit {
	uint32_t pid;
};

/*
 * The FPS is kept as micro-FPS (llround(fps * 1e6)) so that the value is exact both in
 * the binary file and in the text form, and replay fidelity is an integer comparison.
 */
struct frc_tick {
	bool has_result;    /* false: the meter was read here, result not recorded */
	uint8_t source;	    /* enum frc_source; FRC_SOURCE_NONE = the meter returned none */
	uint64_t fps_micro; /* valid when source != FRC_SOURCE_NONE */
};

/* Longest SurfaceFlinger layer name kept (window titles are ~100 bytes). */
#define FRC_LAYER_NAME_MAX 255

/*
 * Display capture (framerec polling `dumpsys SurfaceFlinger --latency`, FORMAT.md 4.8):
 * a layer gets an id when it is first followed, named once; rows name their layer by id.
 * ktime is when framerec learned it (the poll), not a display time.
 */
struct frc_layer {
	uint32_t id; /* 1.. */
	bool gone;   /* false: followed from now on (name set); true: no longer listed */
	uint16_t len;
	char name[FRC_LAYER_NAME_MAX + 1]; /* NUL-terminated; empty when gone */
};

/* SurfaceFlinger's three columns as it printed them (CLOCK_MONOTONIC ns; actual and
 * ready may be -1, Fence::SIGNAL_TIME_INVALID). */
struct frc_present {
	uint32_t layer;
	int64_t desired; /* desiredPresentTime */
	int64_t actual;	 /* actualPresentTime: the present fence */
	int64_t ready;	 /* frameReadyTime: the acquire fence */
};

struct frc_vsync {
	uint64_t period_ns;
};

/* Rows of a layer were lost: the actual present times of the rows taken before and after
 * the gap (0: unknown). */
struct frc_present_gap {
	uint32_t layer;
	int64_t before, after;
};

/* A thread's name is at most TASK_COMM_LEN - 1 bytes (the kernel's comm, 16 with NUL). */
#define FRC_THREAD_NAME_MAX 15

/*
 * The name of thread tid of process pid (FORMAT.md 4.9): framerec writes one the first time
 * the thread queues a frame and again whenever its name changed. ktime is when framerec
 * read the name, not when the thread got it.
 */
struct frc_thread {
	uint32_t pid;
	uint32_t tid;
	uint8_t len;			    /* 1..FRC_THREAD_NAME_MAX */
	char name[FRC_THREAD_NAME_MAX + 1]; /* NUL-terminated */
};

/*
 * A buffer's geometry (FORMAT.md 4.10), as its ANativeWindowBuffer holds it: framerec writes
 * one the first time a (pid, buffer) is queued and again when its surface or geometry
 * changed, before the frame that shows it. surface and buffer are the canonical
 * ANativeWindow* / ANativeWindowBuffer* the frames carry; format is an
 * AHARDWAREBUFFER_FORMAT_* / HAL_PIXEL_FORMAT_* value, usage the 64-bit gralloc usage.
 */
struct frc_buffer {
	uint32_t pid;
	uint64_t surface;
	uint64_t buffer;
	int32_t width, height, stride, format;
	uint64_t usage;
};

/*
 * Surface::connect (connected true) or Surface::disconnect (false) of surface by thread tid
 * of process pid (FORMAT.md 4.11). api is what the call passed, NATIVE_WINDOW_API_*: EGL 1
 * (also Vulkan's swapchain), CPU 2, MEDIA 3, CAMERA 4; any other value is kept as it is.
 */
struct frc_connect {
	uint32_t pid, tid;
	uint64_t surface;
	int32_t api;
	bool connected;
};

/*
 * Display capture polled layer `layer` at ktime, when it asked for the table (FORMAT.md
 * 4.8): every row of it whose present fence had signalled by then was delivered before
 * this record, so the display presented nothing of the layer between its newest row and
 * ktime.
 */
struct frc_poll {
	uint32_t layer; /* 1.. */
};

struct frc_record {
	uint8_t type;	   /* enum frc_type */
	uint64_t ktime_ns; /* CLOCK_MONOTONIC, what bpf_ktime_get_ns() reads */
	union {
		struct frc_frame frame;
		struct frc_sysfs sysfs;
		struct frc_drops drops;
		struct frc_attach attach;
		struct frc_exit exit;
		struct frc_tick tick;
		struct frc_layer layer;
		struct frc_present present;
		struct frc_vsync vsync;
		struct frc_present_gap gap;
		struct frc_thread thread;
		struct frc_buffer buffer;
		struct frc_connect connect;
		struct frc_poll poll;
	} u;
};

/* One header metadata pair. Keys are [a-z0-9_.]+; values are arbitrary UTF-8 text. */
struct frc_meta {
	const char *key;
	const char *value;
};

#endif /* FRC_RECORD_H */
