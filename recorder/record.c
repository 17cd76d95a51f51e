// SPDX-License-Identifier: MIT
/*
 * record.c - set a recording up and tear it down: fds, pipeline, initial targets, the
 * capture, the child; then run the loop (loop.c) and stop.
 *
 * Everything that can fail before recording starts (unknown PID, symbol, BPF refused,
 * output exists or cannot be created) is checked BEFORE the output file is created, so
 * a failed start leaves no file behind; the one failure after creation (the command
 * cannot be executed) removes the file again.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan.h"
#include "recording.h"
#include "sysfs.h"

/* The meter's reading at a tick: rec_emit_tick puts it into the tick record. */
static void on_reading(void *ctx, const struct pipeline_reading *rd)
{
	struct rec *r = ctx;

	r->reading = *rd;
	r->have_reading = true;
}

static int setup_fds(struct rec *r, char *err, size_t errlen)
{
	struct epoll_event ev = {.events = EPOLLIN};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Past a file size limit (ulimit -f) a write fails with EFBIG instead of killing us:
	 * then the write error path keeps the file readable and says why.
	 */
	signal(SIGXFSZ, SIG_IGN);
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->sigfd < 0 || r->tfd < 0 || r->epfd < 0) {
		int e = errno;

		snprintf(err, errlen, "event loop: %s", strerror(e));
		return -e;
	}
	ev.data.u64 = EV_SIGNAL << 32;
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->sigfd, &ev);
	ev.data.u64 = EV_TIMER << 32;
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->tfd, &ev);
	return 0;
}

/*
 * --package --wait: scan every 200 ms until a match attaches or a signal comes. -d is the
 * length of the recording, which starts at the attach, so it does not bound the wait.
 */
static int wait_for_package(struct rec *r, char *err, size_t errlen)
{
	struct pollfd pfd = {.fd = r->sigfd, .events = POLLIN};

	if (!r->opt->quiet)
		fprintf(stderr, "framerec: waiting for %s to start...\n", r->opt->package);
	while (rec_scan_package(r, err, errlen) == 0) {
		if (poll(&pfd, 1, 200) > 0) {
			snprintf(err, errlen, "interrupted while waiting for %s; nothing recorded",
				 r->opt->package);
			return -EINTR;
		}
	}
	return 0;
}

static int attach_initial(struct rec *r, char *err, size_t errlen)
{
	const struct options *opt = r->opt;
	int ret;

	for (int i = 0; i < opt->n_pids; i++) {
		ret = rec_attach_target(r, opt->pids[i], false, err, errlen);
		if (ret)
			return ret;
	}
	if (opt->command) {
		ret = rec_command_check(opt->command[0]);
		if (ret) {
			snprintf(err, errlen, "cannot run %s: %s", opt->command[0],
				 ret == -ENOENT && !strchr(opt->command[0], '/')
				     ? "command not found in PATH"
				     : strerror(-ret));
			return ret;
		}
		ret = rec_start_child(r, err, errlen);
		if (ret)
			return ret;
		ret = rec_attach_target(r, r->child, true, err, errlen);
		if (ret)
			return ret;
	}
	if (opt->package && opt->wait)
		return wait_for_package(r, err, errlen);
	if (opt->package) {
		snprintf(err, errlen,
			 "no process named %s is running (--wait waits for it to start)",
			 opt->package);
		/* Every match that attaches is recorded; if none does, that is the error. */
		if (rec_scan_package(r, err, errlen) == 0)
			return -ESRCH;
	}
	return 0;
}

static int setup_pipeline(struct rec *r, char *err, size_t errlen)
{
	struct pipeline_config cfg;
	struct pipeline_callbacks cb = {.on_reading = on_reading};

	pipeline_config_default(&cfg);
	cfg.has_sysfs = r->sysfs != NULL;
	cfg.synthesize_ticks = false; /* framerec writes real tick records */
	cfg.tick_ms = r->opt->tick_ms;
	cfg.tracker_name = r->opt->tracker;
	cfg.meter_name = r->opt->meter;
	/* the metadata's target.pid (output.c), so a replay builds the same target */
	cfg.target = r->target_pids[0] ? r->target_pids : NULL;
	if (pipeline_new(&r->pl, &cfg, &cb, r)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * The command framerec started outlives the recording (-d, a signal, a write error):
 * SIGTERM, and SIGKILL if it is still there CHILD_GRACE_MS later, so a command that
 * ignores SIGTERM cannot keep framerec waiting for it forever.
 */
#define CHILD_GRACE_MS 2000

static void end_child(pid_t pid)
{
	kill(pid, SIGTERM);
	for (int waited = 0; waited < CHILD_GRACE_MS; waited += 10) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return; /* reaped (or not ours any more) */
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void teardown(struct rec *r)
{
	if (r->present) { /* a failure before the stop */
		present_stop(r->present);
		present_free(r->present);
	}
	probe_close(r->probe);
	pipeline_free(r->pl);
	thread_names_free(r->threads);
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r->t[i].pid && r->t[i].pidfd >= 0)
			close(r->t[i].pidfd);
	if (r->child_gate >= 0)
		close(r->child_gate); /* a child still blocked exits without running */
	if (r->child_err >= 0)
		close(r->child_err);
	if (r->child > 0)
		end_child(r->child);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->sigfd >= 0)
		close(r->sigfd);
}

/*
 * The command failed on its own: not when it died of the stop signal framerec got too
 * (Ctrl-C reaches the whole process group; its exit may be seen before framerec's signal).
 */
static bool command_failed(const struct rec *r)
{
	sigset_t pending;
	int sig = r->child_signal;

	if (!r->child_failed)
		return false;
	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return true;
	if (sigpending(&pending) == 0 && sigismember(&pending, sig))
		return false;
	return !(r->stop_why && strncmp(r->stop_why, "SIG", 3) == 0);
}

/* The stop sequence (emit.c), the summary, and the file closed: the exit code. */
static int stop(struct rec *r)
{
	uint64_t duration = now_ns() - r->t_start;
	bool failed;

	rec_stop_display(r); /* its last rows before the last chunk */
	failed = rec_finish(r) != 0;

	/* --force: the finished (or, after a write error, partial) capture replaces -o now. */
	if (rec_publish_capture(r))
		failed = true;

	rec_summary(r, duration, failed);
	frc_writer_free(r->w);
	r->w = NULL;
	if (close(r->fd) && !failed) {
		fprintf(stderr, "framerec: %s: close: %s\n", r->opt->output, strerror(errno));
		failed = true;
	}
	r->fd = -1;
	/*
	 * Not a silent success: a -- COMMAND that failed on its own exits 3, and so does an
	 * empty capture from a command that failed (its failure is the likelier cause: it is
	 * said); an attached target that never queued a frame exits 4 (the hint says why).
	 */
	if (failed)
		return 1;
	return command_failed(r) ? 3 : rec_no_frame(r) ? 4 : 0;
}

static const char *pick_sysfs(const struct options *opt)
{
	if (opt->sysfs)
		return opt->sysfs;
	return sysfs_detect();
}

int record_main(const struct options *opt)
{
	struct rec r;
	char err[FRC_MSG_MAX] = "";
	int ret = 1;

	memset(&r, 0, sizeof(r));
	r.opt = opt;
	r.attach_latency_ms = -1;
	r.fd = r.epfd = r.tfd = r.sigfd = r.child_gate = r.child_err = -1;
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		r.t[i].pidfd = -1;

	if (rec_check_output(opt, err, sizeof(err)) || setup_fds(&r, err, sizeof(err)))
		goto fail;
	if (opt->sysfs && sysfs_check(opt->sysfs, err, sizeof(err)))
		goto fail;
	r.sysfs = pick_sysfs(opt);
	if (opt->sysfs_only && !r.sysfs) {
		snprintf(err, sizeof(err),
			 "--sysfs-only: no display FPS node found (tried Auriya's list; name one "
			 "with --sysfs PATH)");
		goto fail;
	}
	if (!opt->sysfs_only &&
	    plan_load_probe(&r.probe, opt->ring_kib, rec_on_frame, &r, err, sizeof(err))) {
		size_t n = strlen(err);

		snprintf(err + n, sizeof(err) - n,
			 "\n  (--sysfs-only records the display's FPS node without BPF)");
		goto fail;
	}
	if (r.probe) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_RING << 32};
		char links[FRC_MSG_MAX];

		/* Which way the sites are attached decides the stop's cost (probe.c). */
		if (opt->verbose)
			rec_say(&r, "BPF: %s", probe_links_desc(r.probe, links, sizeof(links)));

		epoll_ctl(r.epfd, EPOLL_CTL_ADD, probe_ring_fd(r.probe), &ev);
	}
	if (r.probe && thread_names_new(&r.threads, "/proc")) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	/* The pipeline after the attaches: it takes the target PIDs they list (target.pid). */
	if (attach_initial(&r, err, sizeof(err)) || rec_start_display(&r, err, sizeof(err)) ||
	    setup_pipeline(&r, err, sizeof(err)))
		goto fail;
	if (rec_open_capture(&r, err, sizeof(err)))
		goto fail;
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r.t[i].pid && r.probe)
			rec_emit_attach(&r, &r.t[i]);
	if (r.child_gate >= 0 && rec_release_child(&r, err, sizeof(err))) {
		/* Nothing of the command was recorded: leave no file. */
		frc_writer_free(r.w);
		r.w = NULL;
		close(r.fd);
		rec_discard_capture(&r); /* -o, or --force's temporary file */
		goto fail;
	}
	r.status_line = !opt->quiet && isatty(STDERR_FILENO);
	rec_loop(&r);
	ret = stop(&r);
	teardown(&r);
	return ret;
fail:
	fprintf(stderr, "framerec: %s\n", err);
	teardown(&r);
	return 1;
}
