// SPDX-License-Identifier: MIT
/*
 * loop.c - the recording loop. It only schedules: it decides WHEN to drain the ring,
 * sample the node, tick the meter, close a chunk, refresh the status line, look for
 * targets and stop; emit.c and targets.c do the work.
 *
 * One thread, one epoll set: the signalfd (SIGINT/SIGTERM/SIGHUP), one timerfd armed at
 * the earliest due deadline, the ring buffer's fd (readable only when the BPF side forces
 * a wakeup because the ring is half full), one pidfd per target and display capture's
 * eventfd (its poller thread found presents).
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

#include "recording.h"

/*
 * Drain the ring this often even when the BPF side never wakes us: 50 ms keeps a 60 fps
 * target's frames at most 3 events behind and costs 20 wakeups/s. A busy target wakes
 * us earlier (the BPF side forces a wakeup at half a ring).
 */
#define DRAIN_NS (50 * 1000000ull)
#define STATUS_NS (250 * 1000000ull)
#define SCAN_NS (200 * 1000000ull)
/* Thread names are read again once a second: a rename is rare, a read is ~10 us each. */
#define NAMES_NS (1000 * 1000000ull)
#define MS (1000000ull)

struct deadlines {
	uint64_t drain, sysfs, tick, flush, status, scan, names, end;
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
	struct target *t = rec_find_target(r, pid);

	if (t)
		rec_target_exited(r, t);
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
		else if (kind == EV_PRESENT)
			rec_emit_display(r);
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
		rec_emit_tick(r); /* samples sysfs first */
		d->tick = next_due(r->t_start, o->tick_ms * MS, now);
		if (d->sysfs)
			d->sysfs = next_due(r->t_start, o->sysfs_ms * MS, now);
	} else if (d->sysfs && now >= d->sysfs) {
		rec_emit_sysfs(r);
		d->sysfs = next_due(r->t_start, o->sysfs_ms * MS, now);
	}
	if (now >= d->flush) {
		rec_drain(r); /* everything in the ring goes into this chunk */
		rec_end_chunk(r);
		d->flush = next_due(r->t_start, o->flush_ms * MS, now);
	}
	if (d->scan && now >= d->scan) {
		if (o->package) {
			char err[FRC_MSG_MAX];

			rec_scan_package(r, err, sizeof(err));
		}
		rec_poll_liveness(r);
		d->scan = now + SCAN_NS;
	}
	if (d->names && now >= d->names) {
		rec_rescan_threads(r);
		d->names = now + NAMES_NS;
	}
	if (d->status && now >= d->status) {
		rec_status(r, now);
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
		rec_emit_sysfs(r); /* the node's content at the start */
		d.sysfs = r->t_start + o->sysfs_ms * MS;
	}
	if (r->status_line)
		d.status = r->t_start + STATUS_NS;
	/* Package mode watches for restarts; a target without pidfd is polled. */
	d.scan = r->t_start + SCAN_NS;
	if (r->threads)
		d.names = r->t_start + NAMES_NS;
	if (o->duration_s > 0)
		d.end = r->t_start + (uint64_t)(o->duration_s * 1e9);
	while (!r->stop) {
		int n;

		arm(r, earliest(&d));
		n = epoll_wait(r->epfd, ev, 16, -1);
		if (n < 0 && errno != EINTR) {
			rec_say(r, "epoll_wait: %s", strerror(errno));
			r->stop_why = "event loop error";
			break;
		}
		if (n > 0)
			handle_events(r, ev, n);
		if (!r->stop)
			run_due(r, &d, now_ns());
	}
}
