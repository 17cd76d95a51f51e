/* SPDX-License-Identifier: MIT */
/*
 * rec.h - the state of one recording, shared by record.c (setup: targets, attach,
 * output file, child) and loop.c (the event loop and the stop sequence).
 */
#ifndef REC_H
#define REC_H

#include <limits.h>

#include "../format/frc.h"
#include "../heuristics/pipeline.h"
#include "recorder.h"

/* What an epoll event is: the kind in the high 32 bits of data.u64 (a PID in the low). */
#define EV_SIGNAL 1ull
#define EV_TIMER 2ull
#define EV_RING 3ull
#define EV_PIDFD 4ull

/*
 * A chunk is closed by framerec after at most this many records (besides the --flush-ms
 * timer), so a burst cannot make the writer close one by size without a drops record.
 * FR_RECORD_WORST bounds one encoded record (a 255-byte sysfs or symbol payload plus
 * its header; the writer's worst frame estimate is 96 bytes).
 */
#define FR_CHUNK_RECORDS 65536u
#define FR_RECORD_WORST 512u

struct target {
	pid_t pid; /* 0: free slot */
	int pidfd; /* -1: liveness polled on the scan timer instead */
	bool child;
	uint64_t attach_ns;
	char symbol[FRC_SYMBOL_MAX + 1]; /* "" in --sysfs-only mode (not attached) */
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
	int child_gate; /* write end: one byte releases the child */
	int child_err;	/* read end: EOF on a successful exec, else its errno */

	int epfd, sigfd, tfd;

	/* The first attach: metadata. */
	char library[PATH_MAX];
	char symbol[FRC_SYMBOL_MAX + 1];
	uint64_t sym_offset;
	char target_desc[1024];
	pid_t target_pid;

	/* Running state. */
	bool stop;
	const char *stop_why;
	bool write_failed;
	uint32_t chunk_records; /* records appended since the last chunk close */
	uint64_t t_start;
	uint64_t frames;      /* received from the ring */
	uint64_t frames_kept; /* in chunks written completely (what a write error leaves) */
	uint64_t drops;
	struct pipeline_reading reading;
	bool have_reading;
	bool status_line;
	/* frames/s over the last second: the last 4 refreshes (the drain is 50 ms coarse). */
	uint64_t status_frames[4];
	uint64_t status_ns[4];
	unsigned status_i;
};

/* attach.c */
MUST_USE int rec_attach_target(struct rec *r, pid_t pid, bool child, char *err, size_t errlen);
void rec_target_exited(struct rec *r, struct target *t);
int rec_alive_targets(const struct rec *r);
/* Attach every --package match not attached yet; returns how many attached now. err: the
 * last failure. */
int rec_scan_package(struct rec *r, char *err, size_t errlen);
void rec_poll_liveness(struct rec *r);
void rec_emit_attach(struct rec *r, const struct target *t);

/* output.c: check before any BPF work; create + header after the attach. */
MUST_USE int rec_check_output(const struct options *opt, char *err, size_t errlen);
MUST_USE int rec_open_capture(struct rec *r, char *err, size_t errlen);
/* --force: rename the finished capture over -o (at stop; nothing to do without --force). */
MUST_USE int rec_publish_capture(struct rec *r);
/* Remove the capture being created: nothing of it is worth keeping. */
void rec_discard_capture(struct rec *r);

/* child.c */
MUST_USE int rec_command_check(const char *cmd);
MUST_USE int rec_start_child(struct rec *r, char *err, size_t errlen);
MUST_USE int rec_release_child(struct rec *r, char *err, size_t errlen);

/* loop.c */
void rec_emit(struct rec *r, const struct frc_record *rec);
void rec_drain(struct rec *r);
void rec_loop(struct rec *r);
MUST_USE int rec_stop(struct rec *r);

#endif /* REC_H */
