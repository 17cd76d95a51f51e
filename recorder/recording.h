/* SPDX-License-Identifier: MIT */
/*
 * recording.h - the state of one recording, shared by the files that run it:
 *
 *   record.c   set up (fds, probe, pipeline, targets, file, child), run, tear down
 *   loop.c     the event loop: it only schedules (timers, ring drain, liveness, stop)
 *   targets.c  attach (through plan.c) and exit of each target, --package re-attach
 *   emit.c     every record: ring event -> record -> capture writer + pipeline
 *   status.c   what the user sees: messages, the live status line, the summary
 *   output.c   the capture file;  child.c  the -- COMMAND child
 *
 * Calls go one way: record -> loop -> targets -> emit -> status (and output/child from
 * record), so the data path reads top to bottom.
 */
#ifndef RECORDING_H
#define RECORDING_H

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "frc.h"
#include "pipeline.h"
#include "present.h"
#include "probe.h"
#include "recorder.h"
#include "threads.h"
#include "tracker_kind.h"

/* What an epoll event is: the kind in the high 32 bits of data.u64 (a PID in the low). */
#define EV_SIGNAL 1ull
#define EV_TIMER 2ull
#define EV_RING 3ull
#define EV_PIDFD 4ull
#define EV_PRESENT 5ull /* display capture's queue (present.h) has events */

/*
 * A chunk is closed by framerec after at most this many records (besides the --flush-ms
 * timer), so a burst cannot make the writer close one by size or count without a drops
 * record: a frame run has at most two column entries (surface, timestamp) and ends at
 * every other record, so with its drops record a chunk stays within the format's 131072
 * entries. FR_RECORD_WORST bounds one encoded record (a 255-byte sysfs or symbol payload
 * plus its header; the writer's worst frame estimate is 96 bytes, 160 with both columns).
 */
#define FR_CHUNK_RECORDS 65535u
#define FR_RECORD_WORST 512u

struct target {
	pid_t pid; /* 0: free slot */
	int pidfd; /* -1: liveness polled on the scan timer instead */
	bool child;
	uint64_t attach_ns;
	char symbol[FRC_SYMBOL_MAX + 1];       /* "" in --sysfs-only mode (not attached) */
	char batch_symbol[FRC_SYMBOL_MAX + 1]; /* the Surface::queueBuffers attached too, or "" */
	bool lifetime;			       /* Surface::connect and disconnect attached too */
};

struct rec {
	const struct options *opt;
	struct probe *probe; /* NULL in --sysfs-only mode */
	struct pipeline *pl;
	frc_writer *w;
	int fd;
	char *out_tmp;	   /* --force: the capture's name until rec_publish_capture renames it */
	const char *sysfs; /* the node sampled, or NULL */

	struct target t[FR_MAX_TARGETS];
	pid_t ignored[FR_MAX_TARGETS]; /* --package matches that could not be attached */
	int n_ignored;
	/* --package matches that had not mapped libgui.so yet, retried until a deadline. */
	struct {
		pid_t pid;
		uint64_t give_up_ns;
	} pending[FR_MAX_TARGETS];
	bool had_target;

	/* -- COMMAND */
	pid_t child;
	int child_gate;	   /* write end: one byte releases the child */
	int child_err;	   /* read end: EOF on a successful exec, else its errno */
	bool child_failed; /* the command ended by itself with a failure (exit != 0, signal) */
	int child_signal;  /* the signal it died of, 0 when it exited */

	int epfd, sigfd, tfd;

	/* The first attach: metadata. */
	char library[PATH_MAX];
	char symbol[FRC_SYMBOL_MAX + 1];
	uint64_t sym_offset;
	char batch_symbol[FRC_SYMBOL_MAX + 1]; /* "": the batch path is not attached */
	uint64_t batch_offset;
	/* Surface::connect / disconnect attached to the first target ("": not attached) */
	char connect_symbol[FRC_SYMBOL_MAX + 1];
	char disconnect_symbol[FRC_SYMBOL_MAX + 1];
	/* Surface::setBuffersTimestamp attached to the first target ("": not attached) */
	char stamp_symbol[FRC_SYMBOL_MAX + 1];
	int lifetime_missing;	   /* targets attached without lifetime (the summary says so) */
	int64_t attach_latency_ms; /* --package: the first match's age at attach; -1 unknown */
	char target_desc[4096];	   /* metadata target: every target attached before the header */
	pid_t target_pid;	   /* the first target */
	char target_pids[FR_MAX_TARGETS * 12]; /* metadata target.pid: "PID[,PID...]" */

	/* Display capture (display.c): NULL when off. */
	struct present *present;
	char display_package[256];
	uint64_t display_layers, display_rows, display_gaps; /* records written */
	struct present_stats display_st;		     /* at the stop */
	bool display_done;
	char display_off[FRC_MSG_MAX]; /* why display capture did not start ("": it did, or was off)
					*/

	/* Thread names (threads.h): NULL in --sysfs-only mode. */
	struct thread_names *threads;
	uint64_t thread_records; /* written */

	/* Running state. */
	bool stop;
	const char *stop_why;
	bool write_failed;
	uint32_t chunk_records; /* records appended since the last chunk close */
	uint64_t t_start;
	uint64_t frames;	  /* received from the ring */
	uint64_t frames_kept;	  /* in chunks written completely (what a write error leaves) */
	uint64_t drops;		  /* buffers not recorded, as the last drops record says */
	uint64_t batch_cut;	  /* the part of drops that is batch elements past the cap */
	uint64_t batch_anomalies; /* batch calls with a malformed vector (in no drop count) */
	uint64_t bad_buffers;	  /* buffers whose header is not trusted (frames, no geometry) */
	uint64_t buffer_records, connect_records; /* written (FORMAT.md 4.10, 4.11) */
	uint64_t last_ktime, out_of_order; /* records emitted before the previous one's time */
	bool emitted;
	struct pipeline_reading reading;
	bool have_reading;
	double fps_sum; /* the live meter's valid readings at the ticks, for the summary's mean */
	uint64_t fps_n;
	bool status_line;
	/* frames/s over the last second: the last 4 refreshes (the drain is 50 ms coarse). */
	uint64_t status_frames[4];
	uint64_t status_ns[4];
	unsigned status_i;
};

/* Monotonic clock in ns: the clock bpf_ktime_get_ns() reads, so records line up. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A probe was attached to a target and not one frame came: framerec says why (status.c)
 * and exits 4 (record.c). --sysfs-only attaches nothing and records no frame by design.
 */
static inline bool rec_no_frame(const struct rec *r)
{
	return r->probe && r->had_target && !r->frames;
}

/* The live meter's tracker (--tracker, else the default): named wherever its FPS is shown. */
static inline const char *rec_tracker_name(const struct rec *r)
{
	return r->opt->tracker ? r->opt->tracker : TRACKER_KIND_DEFAULT;
}

/* ---------------------------------------------------------------- loop.c */

void rec_loop(struct rec *r);

/* ---------------------------------------------------------------- targets.c */

/* Attach pid through the attach plan (plan.h); err gets "STEP: why". */
FRC_MUST_USE int rec_attach_target(struct rec *r, pid_t pid, bool child, char *err, size_t errlen);
struct target *rec_find_target(struct rec *r, pid_t pid);
/* Its last frames, the exit record, detach, reap a child. */
void rec_target_exited(struct rec *r, struct target *t);
int rec_alive_targets(const struct rec *r);
/* Attach every --package match not attached yet; returns how many attached now. err: the
 * last failure. */
int rec_scan_package(struct rec *r, char *err, size_t errlen);
/* Targets without a pidfd: notice their exit by polling /proc. */
void rec_poll_liveness(struct rec *r);

/* ---------------------------------------------------------------- emit.c */

/* Every record: to the capture first, then to the pipeline (the order replay sees). */
void rec_emit(struct rec *r, const struct frc_record *rec);
/* The probe's callback: one frame record per ring event. */
void rec_on_frame(void *ctx, const struct frc_record *rec);
/* Drain the ring: every event waiting becomes a frame record now. */
void rec_drain(struct rec *r);
void rec_emit_sysfs(struct rec *r);
/* A tick: the pipeline reads the meter, and the tick is written with that reading. */
void rec_emit_tick(struct rec *r);
/* One attach record per symbol attached in t (the batch path is a second one). */
void rec_emit_attach(struct rec *r, const struct target *t);
void rec_emit_exit(struct rec *r, pid_t pid);
/* Drain, then read the known threads' names again: a rename is a new thread record. */
void rec_rescan_threads(struct rec *r);
/* Close the chunk after a cumulative drops record: what --flush-ms and bursts do. */
void rec_end_chunk(struct rec *r);

/* display.c: display capture. Start (0, or -errno for an explicit --dumpsys that does not
 * work), take the poller's events as records, and its last ones at the stop. */
int rec_start_display(struct rec *r, char *err, size_t errlen);
void rec_emit_display(struct rec *r);
void rec_stop_display(struct rec *r);
/* Stop: detach, drain to empty, final drops, last chunk + footer + fsync. 0 or -EIO. */
int rec_finish(struct rec *r);

/* ---------------------------------------------------------------- status.c */

/* "framerec: MESSAGE" on stderr, clearing the status line first when one is shown. */
void rec_say(const struct rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rec_status(struct rec *r, uint64_t now);
/* The final summary (frames, drops, duration, size), failed: the recording failed. */
void rec_summary(struct rec *r, uint64_t duration_ns, bool failed);

/* ---------------------------------------------------------------- output.c */

/*
 * Each returns 0, or -errno (an FRC_E* code when the format library failed) with the
 * message in err; record.c turns a failure into framerec's exit status.
 * Check before any BPF work; create + header after the attach.
 */
FRC_MUST_USE int rec_check_output(const struct options *opt, char *err, size_t errlen);
FRC_MUST_USE int rec_open_capture(struct rec *r, char *err, size_t errlen);
/*
 * --force: rename the finished capture over -o (at stop; nothing to do without --force).
 * 0, or -errno after saying on stderr where the recording is kept instead.
 */
FRC_MUST_USE int rec_publish_capture(struct rec *r);
/* Remove the capture being created: nothing of it is worth keeping. */
void rec_discard_capture(struct rec *r);

/* ---------------------------------------------------------------- child.c */

/* Each returns 0 or -errno, with the message in err (rec_command_check has none: record.c
 * words it). */
FRC_MUST_USE int rec_command_check(const char *cmd);
FRC_MUST_USE int rec_start_child(struct rec *r, char *err, size_t errlen);
FRC_MUST_USE int rec_release_child(struct rec *r, char *err, size_t errlen);

#endif /* RECORDING_H */
