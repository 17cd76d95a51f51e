// SPDX-License-Identifier: MIT
/*
 * loop.c - the recording loop: ring -> records -> capture + pipeline, ticks, sysfs
 * samples, chunk flushes, live status, and the stop sequence.
 *
 * One thread, one epoll set: the signalfd (SIGINT/SIGTERM/SIGHUP), one timerfd armed at
 * the earliest due deadline, the ring buffer's fd (readable only when the BPF side forces
 * a wakeup because the ring is half full) and one pidfd per target. Every record goes to
 * the writer and to the pipeline in the same order, so a replay of the capture feeds the
 * pipeline exactly what the live run fed it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "frc_escape.h"
#include "rec.h"

/*
 * Drain the ring this often even when the BPF side never wakes us: 50 ms keeps a 60 fps
 * target's frames at most 3 events behind and costs 20 wakeups/s. A busy target wakes
 * us earlier (the BPF side forces a wakeup at half a ring).
 */
#define DRAIN_NS (50 * 1000000ull)
#define STATUS_NS (250 * 1000000ull)
#define SCAN_NS (200 * 1000000ull)
#define MS (1000000ull)

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void write_failed(struct rec *r, int err)
{
	r->write_failed = true;
	r->stop = true;
	r->stop_why = "write error";
	fprintf(stderr, "%sframerec: %s; recording stopped, %s keeps what was written before\n",
		r->status_line ? "\r\033[K" : "", r->w ? frc_writer_error(r->w) : frc_strerror(err),
		r->opt->output);
}

static void end_chunk(struct rec *r);

/* Append to the capture only (a tick is fed to the pipeline before it is written). */
static int append(struct rec *r, const struct frc_record *rec)
{
	int ret = frc_writer_append(r->w, rec);

	if (ret) {
		write_failed(r, ret);
		return ret;
	}
	r->chunk_records++;
	return 0;
}

/* A burst: close the chunk (after a drops record) before the writer would by size. */
static void end_chunk_if_full(struct rec *r)
{
	if (r->chunk_records >= FR_CHUNK_RECORDS && !r->write_failed)
		end_chunk(r);
}

/* Append to the capture, then feed the pipeline: the order replay will see. */
void rec_emit(struct rec *r, const struct frc_record *rec)
{
	if (r->write_failed || !r->w)
		return;
	if (append(r, rec))
		return;
	if (pipeline_feed(r->pl, rec)) {
		r->stop = true;
		r->stop_why = "out of memory";
	}
	/* After the feed: the drops record it may write comes after rec in both orders. */
	end_chunk_if_full(r);
}

void rec_drain(struct rec *r)
{
	int n;

	if (!r->probe)
		return;
	n = probe_drain(r->probe);
	if (n < 0 && n != -EINTR) {
		fprintf(stderr, "%sframerec: ring buffer: %s\n", r->status_line ? "\r\033[K" : "",
			strerror(-n));
		r->stop = true;
		r->stop_why = "ring buffer error";
	}
}

static void sample_sysfs(struct rec *r)
{
	struct frc_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = FRC_SYSFS;
	sysfs_sample(r->sysfs, &rec.u.sysfs);
	rec.ktime_ns = now_ns();
	rec_emit(r, &rec);
}

/*
 * A tick: feed the pipeline a tick without result, take the reading it reports, and
 * write the tick WITH that result; the replay then compares its own reading to it.
 */
static void tick(struct rec *r)
{
	struct frc_record rec;

	rec_drain(r);
	if (r->sysfs)
		sample_sysfs(r); /* the meter reads the freshest node content */
	if (r->write_failed)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.type = FRC_TICK;
	rec.ktime_ns = now_ns();
	rec.u.tick.has_result = false;
	r->have_reading = false;
	if (pipeline_feed(r->pl, &rec)) {
		r->stop = true;
		r->stop_why = "out of memory";
		return;
	}
	if (r->have_reading) {
		rec.u.tick.has_result = true;
		if (r->reading.reading.valid) {
			rec.u.tick.source = (uint8_t)r->reading.reading.source;
			rec.u.tick.fps_micro = fps_to_micro(r->reading.reading.fps);
		} else {
			rec.u.tick.source = FRC_SOURCE_NONE;
		}
	}
	if (append(r, &rec) == 0)
		end_chunk_if_full(r);
}

static void write_drops(struct rec *r)
{
	struct frc_record rec;

	if (!r->probe)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.type = FRC_DROPS;
	rec.ktime_ns = now_ns();
	r->drops = probe_drops(r->probe);
	rec.u.drops.cumulative = r->drops;
	rec_emit(r, &rec);
}

/*
 * Close the chunk: drops first, so every chunk ends with the current count. No drain
 * here: end_chunk_if_full runs inside a drain. The writer never closes a chunk by itself
 * (output.c), so this and frc_writer_finish are the only places chunks end.
 */
static void end_chunk(struct rec *r)
{
	struct frc_writer_stats st;

	r->chunk_records = 0; /* before write_drops, which appends through rec_emit */
	write_drops(r);
	if (r->write_failed)
		return;
	if (frc_writer_flush(r->w)) {
		write_failed(r, FRC_EIO);
		return;
	}
	frc_writer_stats(r->w, &st);
	r->frames_kept = st.frames; /* every frame appended is in a written chunk now */
}

/* The wall-clock chunk flush: everything in the ring first. */
static void flush(struct rec *r)
{
	rec_drain(r);
	end_chunk(r);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

/* The terminal's width; 80 when it cannot be asked. */
static unsigned term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

static void status(struct rec *r, uint64_t now)
{
	struct frc_writer_stats st;
	char bytes[32], fps[48] = "-", line[256];
	size_t max = term_cols() - 1;
	unsigned old = r->status_i % 4;
	double dt = (double)(now - r->status_ns[old]) / 1e9;
	double rate = dt > 0 ? (double)(r->frames - r->status_frames[old]) / dt : 0;

	frc_writer_stats(r->w, &st);
	human_bytes(st.bytes, bytes, sizeof(bytes));
	if (r->have_reading && r->reading.reading.valid)
		snprintf(fps, sizeof(fps), "%.1f (%s)", r->reading.reading.fps,
			 r->reading.reading.source == FRC_SOURCE_SYSFS ? "sysfs" : "ebpf");
	snprintf(line, sizeof(line),
		 "%.1fs  frames %" PRIu64 "  %.1f/s  fps %s  drops %" PRIu64 "  %s",
		 (double)(now - r->t_start) / 1e9, r->frames, rate, fps,
		 r->probe ? probe_drops(r->probe) : 0, bytes); /* live, not as of the last flush */
	/*
	 * A line wider than the terminal wraps, and "\r\033[K" then clears only its last
	 * row: every refresh would leave a row behind. Cut it to the width instead (the
	 * last column stays free, some terminals wrap on writing it).
	 */
	if (strlen(line) > max)
		line[max] = 0;
	fprintf(stderr, "\r\033[K%s", line);
	r->status_frames[old] = r->frames;
	r->status_ns[old] = now;
	r->status_i++;
}

struct deadlines {
	uint64_t drain, sysfs, tick, flush, status, scan, end;
};

static uint64_t earliest(const struct deadlines *d)
{
	const uint64_t *v = &d->drain;
	uint64_t m = UINT64_MAX;

	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		if (v[i] && v[i] < m)
			m = v[i];
	return m;
}

/* Next multiple of period after now, counted from start: ticks never drift. */
static uint64_t next_due(uint64_t start, uint64_t period, uint64_t now)
{
	return start + ((now - start) / period + 1) * period;
}

static void arm(struct rec *r, uint64_t at)
{
	struct itimerspec its = {0};

	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	timerfd_settime(r->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_signal(struct rec *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		r->stop = true;
		r->stop_why = si.ssi_signo == SIGINT	? "SIGINT"
			      : si.ssi_signo == SIGTERM ? "SIGTERM"
							: "SIGHUP";
	}
}

static void on_pidfd(struct rec *r, pid_t pid)
{
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r->t[i].pid == pid) {
			rec_target_exited(r, &r->t[i]);
			return;
		}
}

static void handle_events(struct rec *r, const struct epoll_event *ev, int n)
{
	uint64_t junk;

	for (int i = 0; i < n; i++) {
		uint64_t kind = ev[i].data.u64 >> 32;

		if (kind == EV_SIGNAL)
			on_signal(r);
		else if (kind == EV_TIMER) {
			if (read(r->tfd, &junk, sizeof(junk)) < 0) {
				/* EAGAIN: the deadline checks below run anyway */
			}
		} else if (kind == EV_RING)
			rec_drain(r);
		else if (kind == EV_PIDFD)
			on_pidfd(r, (pid_t)(ev[i].data.u64 & 0xffffffffu));
	}
}

static void run_due(struct rec *r, struct deadlines *d, uint64_t now)
{
	const struct options *o = r->opt;

	/* Past the end (a late wakeup), run only what was due by the end itself. */
	if (d->end && now > d->end)
		now = d->end;
	if (now >= d->drain) {
		rec_drain(r);
		d->drain = now + DRAIN_NS;
	}
	if (now >= d->tick) {
		tick(r); /* samples sysfs first */
		d->tick = next_due(r->t_start, o->tick_ms * MS, now);
		if (d->sysfs)
			d->sysfs = next_due(r->t_start, o->sysfs_ms * MS, now);
	} else if (d->sysfs && now >= d->sysfs) {
		sample_sysfs(r);
		d->sysfs = next_due(r->t_start, o->sysfs_ms * MS, now);
	}
	if (now >= d->flush) {
		flush(r);
		d->flush = next_due(r->t_start, o->flush_ms * MS, now);
	}
	if (d->scan && now >= d->scan) {
		if (o->package) {
			char err[FR_ERRLEN];

			rec_scan_package(r, err, sizeof(err));
		}
		rec_poll_liveness(r);
		d->scan = now + SCAN_NS;
	}
	if (d->status && now >= d->status) {
		status(r, now);
		d->status = now + STATUS_NS;
	}
	/*
	 * The end last: a tick or sample due at the same instant (-d 1 with the default
	 * 1000 ms tick) is still written, so -d N gives N s worth of readings.
	 */
	if (d->end && now >= d->end && !r->stop) {
		r->stop = true;
		r->stop_why = "duration reached";
	}
}

void rec_loop(struct rec *r)
{
	const struct options *o = r->opt;
	struct deadlines d = {0};
	struct epoll_event ev[16];

	r->t_start = now_ns();
	for (int i = 0; i < 4; i++)
		r->status_ns[i] = r->t_start;
	d.drain = r->t_start + DRAIN_NS;
	d.tick = r->t_start + o->tick_ms * MS;
	d.flush = r->t_start + o->flush_ms * MS;
	if (r->sysfs) {
		sample_sysfs(r); /* the node's content at the start */
		d.sysfs = r->t_start + o->sysfs_ms * MS;
	}
	if (r->status_line)
		d.status = r->t_start + STATUS_NS;
	/* Package mode watches for restarts; a target without pidfd is polled. */
	d.scan = r->t_start + SCAN_NS;
	if (o->duration_s > 0)
		d.end = r->t_start + (uint64_t)(o->duration_s * 1e9);
	while (!r->stop) {
		int n;

		arm(r, earliest(&d));
		n = epoll_wait(r->epfd, ev, 16, -1);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "%sframerec: epoll_wait: %s\n",
				r->status_line ? "\r\033[K" : "", strerror(errno));
			r->stop_why = "event loop error";
			break;
		}
		if (n > 0)
			handle_events(r, ev, n);
		if (!r->stop)
			run_due(r, &d, now_ns());
	}
}

/*
 * Stop: detach (no new events), drain the ring to empty (nothing in flight is lost), the
 * final drop count, then the last chunk + footer + fsync (frc_writer_finish), close.
 */
int rec_stop(struct rec *r)
{
	struct frc_writer_stats st;
	uint64_t dur = now_ns() - r->t_start;
	int ret = 0;

	if (r->probe) {
		probe_detach_all(r->probe);
		while (!r->write_failed && probe_drain(r->probe) > 0)
			;
		write_drops(r);
	}
	if (!r->write_failed && frc_writer_finish(r->w)) {
		write_failed(r, FRC_EIO);
	}
	if (r->write_failed) {
		/* Keep every complete chunk durable; the reader reports the file truncated. */
		fsync(r->fd);
		ret = -1;
	}
	/* --force: the finished capture replaces -o only now (output.c) */
	if (rec_publish_capture(r))
		ret = -1;
	frc_writer_stats(r->w, &st);
	if (!r->write_failed)
		r->frames_kept = st.frames;
	if (r->status_line)
		fputs("\r\033[K", stderr);
	if (!r->opt->quiet || ret) {
		char lost[64] = "";

		/* After a write error, the count the file holds, not what the ring gave. */
		if (r->frames_kept != r->frames)
			snprintf(lost, sizeof(lost), " (of %" PRIu64 " received)", r->frames);
		fprintf(stderr,
			"framerec: %s: %" PRIu64 " frames%s, %" PRIu64
			" reservation failures, %.1f s, %" PRIu64 " bytes (%.1f bytes/frame)%s%s\n",
			r->opt->output, r->frames_kept, lost, r->drops, (double)dur / 1e9, st.bytes,
			r->frames_kept ? (double)st.bytes / (double)r->frames_kept : 0.0,
			r->stop_why ? "; stopped: " : "", r->stop_why ? r->stop_why : "");
		char sym[4 * FRC_SYMBOL_MAX + 1]; /* from the library's ELF: escaped */

		/* An empty capture has a few usual causes: name them. */
		if (r->probe && r->had_target && !r->frames && !ret)
			fprintf(
			    stderr,
			    "framerec: no frame recorded: the target never called %s (another "
			    "variant? see --symbol; a -- wrapper script must exec the program)\n",
			    r->symbol[0] ? frc_escape_str(r->symbol, sym, sizeof(sym))
					 : "the symbol");
	}
	frc_writer_free(r->w);
	r->w = NULL;
	if (close(r->fd) && !ret) {
		fprintf(stderr, "framerec: %s: close: %s\n", r->opt->output, strerror(errno));
		ret = -1;
	}
	r->fd = -1;
	return ret;
}
