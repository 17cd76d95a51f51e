// SPDX-License-Identifier: MIT
/*
 * record.c - set a recording up and tear it down: targets, attach, output file, child.
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

#include "rec.h"

#define EV_SIGNAL 1ull
#define EV_TIMER 2ull
#define EV_RING 3ull
#define EV_PIDFD 4ull

static struct target *find_target(struct rec *r, pid_t pid)
{
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r->t[i].pid == pid)
			return &r->t[i];
	return NULL;
}

int rec_alive_targets(const struct rec *r)
{
	int n = 0;

	for (int i = 0; i < FR_MAX_TARGETS; i++)
		n += r->t[i].pid != 0;
	return n;
}

static void emit_attach(struct rec *r, const struct target *t)
{
	struct frc_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = FRC_ATTACH;
	rec.ktime_ns = t->attach_ns;
	rec.u.attach.pid = (uint32_t)t->pid;
	rec.u.attach.len = (uint16_t)strlen(t->symbol);
	memcpy(rec.u.attach.symbol, t->symbol, rec.u.attach.len + 1);
	rec_emit(r, &rec);
}

/* Which library to attach in pid: the mapped one, else --lib, else the default path. */
static int pick_library(struct rec *r, pid_t pid, bool child, char *shown, char *path, char *err,
			size_t errlen)
{
	const char *want = r->opt->lib ? r->opt->lib : FR_DEFAULT_LIB;
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", want);
	/* A child has not exec'd yet: its maps are ours, so only the path can be used. */
	if (!child && target_mapped_lib(pid, basename(tmp), shown, PATH_MAX, path, PATH_MAX) == 0)
		return 0;
	if (access(want, R_OK)) {
		snprintf(err, errlen, "PID %d: %s is not mapped and %s: %s%s", (int)pid,
			 basename(tmp), want, strerror(errno),
			 r->opt->lib ? "" : " (use --lib PATH to name the library)");
		return -ENOENT;
	}
	snprintf(shown, PATH_MAX, "%s", want);
	snprintf(path, PATH_MAX, "%s", want);
	return 0;
}

static int attach_probe(struct rec *r, struct target *t, char *err, size_t errlen)
{
	char shown[PATH_MAX], path[PATH_MAX];
	struct sym_list syms;
	const struct sym_candidate *chosen;
	int ret;

	if (!t->child && target_is_32bit(t->pid) == 1) {
		snprintf(err, errlen,
			 "PID %d is a 32-bit process (/system/lib/libgui.so); framerec records "
			 "64-bit processes only for now",
			 (int)t->pid);
		return -ENOEXEC;
	}
	ret = pick_library(r, t->pid, t->child, shown, path, err, errlen);
	if (ret)
		return ret;
	ret = sym_resolve(path, r->opt->symbol, &syms, err, errlen);
	if (ret)
		return ret;
	ret = probe_attach(r->probe, t->pid, path, &syms, &chosen);
	if (ret || !chosen) {
		sym_list_explain(&syms, shown, err, errlen);
		sym_list_free(&syms);
		return ret ? ret : -EALREADY;
	}
	snprintf(t->symbol, sizeof(t->symbol), "%s", chosen->name);
	if (!r->symbol[0]) {
		snprintf(r->symbol, sizeof(r->symbol), "%s", chosen->name);
		snprintf(r->library, sizeof(r->library), "%s", shown);
		r->sym_offset = chosen->offset;
	}
	if (r->opt->verbose)
		fprintf(stderr, "framerec: PID %d: attached %s at 0x%llx in %s\n", (int)t->pid,
			chosen->name, (unsigned long long)chosen->offset, shown);
	sym_list_free(&syms);
	return 0;
}

int rec_attach_target(struct rec *r, pid_t pid, bool child, char *err, size_t errlen)
{
	struct target *t;
	int ret;

	if (find_target(r, pid))
		return 0; /* attaching the same PID twice is a no-op */
	t = find_target(r, 0);
	if (!t) {
		snprintf(err, errlen, "more than %d targets", FR_MAX_TARGETS);
		return -E2BIG;
	}
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->child = child;
	t->pidfd = -1;
	if (r->probe) {
		/* Frames already in the ring belong before this attach record. */
		if (r->w)
			rec_drain(r);
		ret = attach_probe(r, t, err, errlen);
		if (ret) {
			t->pid = 0;
			return ret;
		}
	}
	t->attach_ns = now_ns();
	t->pidfd = target_pidfd(pid);
	if (t->pidfd >= 0) {
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.u64 = EV_PIDFD << 32 | (uint32_t)pid};

		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, t->pidfd, &ev)) {
			close(t->pidfd);
			t->pidfd = -1;
		}
	}
	if (!r->target_pid) {
		r->target_pid = pid;
		if (r->opt->package)
			snprintf(r->target_desc, sizeof(r->target_desc), "%s", r->opt->package);
		else if (!child)
			target_cmdline(pid, r->target_desc, sizeof(r->target_desc));
	}
	r->had_target = true;
	if (r->w && r->probe)
		emit_attach(r, t);
	return 0;
}

void rec_target_exited(struct rec *r, struct target *t)
{
	struct frc_record rec;

	/*
	 * Its last frames are in the ring: they go before the exit record. Without a probe
	 * (--sysfs-only) there was no attach record, so there is no exit record either.
	 */
	if (r->probe) {
		rec_drain(r);
		memset(&rec, 0, sizeof(rec));
		rec.type = FRC_EXIT;
		rec.ktime_ns = now_ns();
		rec.u.exit.pid = (uint32_t)t->pid;
		rec_emit(r, &rec);
		probe_detach(r->probe, t->pid);
	}
	if (t->pidfd >= 0)
		close(t->pidfd); /* also leaves the epoll set */
	if (t->child) {
		waitpid(t->pid, NULL, 0);
		r->child = 0;
	}
	if (!r->opt->quiet)
		fprintf(stderr, "%sframerec: PID %d exited\n", r->status_line ? "\r\033[K" : "",
			(int)t->pid);
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	if (rec_alive_targets(r) == 0 && !(r->opt->package && r->opt->wait)) {
		r->stop = true;
		r->stop_why = "every target exited";
	}
}

static bool ignored(const struct rec *r, pid_t pid)
{
	for (int i = 0; i < r->n_ignored; i++)
		if (r->ignored[i] == pid)
			return true;
	return false;
}

void rec_scan_package(struct rec *r)
{
	pid_t pids[FR_MAX_TARGETS];
	char err[FR_ERRLEN];
	int n = target_find_package(r->opt->package, pids, FR_MAX_TARGETS);

	for (int i = 0; i < n; i++) {
		if (find_target(r, pids[i]) || ignored(r, pids[i]))
			continue;
		if (rec_attach_target(r, pids[i], false, err, sizeof(err)) == 0) {
			if (!r->opt->quiet)
				fprintf(stderr, "%sframerec: attached PID %d (%s)\n",
					r->status_line ? "\r\033[K" : "", (int)pids[i],
					r->opt->package);
			continue;
		}
		fprintf(stderr, "framerec: ignoring PID %d: %s\n", (int)pids[i], err);
		if (r->n_ignored < FR_MAX_TARGETS)
			r->ignored[r->n_ignored++] = pids[i];
	}
}

void rec_poll_liveness(struct rec *r)
{
	for (int i = 0; i < FR_MAX_TARGETS && !r->stop; i++)
		if (r->t[i].pid && r->t[i].pidfd < 0 && !target_alive(r->t[i].pid))
			rec_target_exited(r, &r->t[i]);
}

/* ------------------------------------------------------------------ setup */

/* Fail early (before BPF work) on an output that exists or cannot be created. */
static int check_output(const struct options *opt, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!opt->force && lstat(opt->output, &st) == 0) {
		snprintf(err, errlen, "%s exists; use --force to overwrite it", opt->output);
		return -EEXIST;
	}
	snprintf(dir, sizeof(dir), "%s", opt->output);
	if (access(dirname(dir), W_OK)) {
		snprintf(err, errlen, "cannot create %s: %s", opt->output, strerror(errno));
		return -errno;
	}
	return 0;
}

static int create_output(const struct options *opt, char *err, size_t errlen)
{
	int fd;

	/* --force removes the old name (a symlink itself, never its target). */
	if (opt->force && unlink(opt->output) && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove %s: %s", opt->output, strerror(errno));
		return -1;
	}
	fd = open(opt->output, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s exists; use --force to overwrite it",
				 opt->output);
		else
			snprintf(err, errlen, "cannot create %s: %s", opt->output, strerror(errno));
		return -1;
	}
	/* Exactly 0640 whatever the umask: captures can hold other processes' data. */
	if (fchmod(fd, 0640)) {
		/* not fatal */
	}
	return fd;
}

/* Fork the command, blocked on a pipe until the probe is attached and the file open. */
static int start_child(struct rec *r, char *err, size_t errlen)
{
	int gate[2], ep[2];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC))
		goto fail;
	if (pipe2(ep, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		close(gate[0]);
		close(gate[1]);
		close(ep[0]);
		close(ep[1]);
		goto fail;
	}
	if (pid == 0) {
		sigset_t all;
		char c;
		int e;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(gate[1]);
		close(ep[0]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127); /* framerec gave up: never run the command */
		execvp(r->opt->command[0], r->opt->command);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[0]);
	close(ep[1]);
	r->child = pid;
	r->child_gate = gate[1];
	r->child_err = ep[0];
	snprintf(r->target_desc, sizeof(r->target_desc), "%s", r->opt->command[0]);
	for (char **a = r->opt->command + 1; *a; a++) {
		size_t n = strlen(r->target_desc);

		snprintf(r->target_desc + n, sizeof(r->target_desc) - n, " %s", *a);
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot start %s: %s", r->opt->command[0], strerror(errno));
	return -1;
}

/* Let the child exec; returns 0 when the exec succeeded. */
static int release_child(struct rec *r, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (write(r->child_gate, "g", 1) != 1)
		e = errno;
	close(r->child_gate);
	r->child_gate = -1;
	/* EOF: the exec closed the CLOEXEC pipe; an int: the exec's errno. */
	do
		n = read(r->child_err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(r->child_err);
	r->child_err = -1;
	if (n == (ssize_t)sizeof(e) || e) {
		snprintf(err, errlen, "cannot run %s: %s", r->opt->command[0], strerror(e));
		return -1;
	}
	return 0;
}

/* Is cmd runnable (a path, or found in PATH)? Checked before any attach. */
static bool command_exists(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

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
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->sigfd < 0 || r->tfd < 0 || r->epfd < 0) {
		snprintf(err, errlen, "event loop: %s", strerror(errno));
		return -1;
	}
	ev.data.u64 = EV_SIGNAL << 32;
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->sigfd, &ev);
	ev.data.u64 = EV_TIMER << 32;
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->tfd, &ev);
	return 0;
}

/* --package --wait before the first start: scan every 200 ms; a signal or -d ends it. */
static int wait_for_package(struct rec *r, char *err, size_t errlen)
{
	uint64_t t0 = now_ns();
	struct pollfd pfd = {.fd = r->sigfd, .events = POLLIN};

	if (!r->opt->quiet)
		fprintf(stderr, "framerec: waiting for %s to start...\n", r->opt->package);
	for (;;) {
		pid_t pid;

		if (target_find_package(r->opt->package, &pid, 1) > 0)
			return 0;
		if (poll(&pfd, 1, 200) > 0) {
			snprintf(err, errlen, "interrupted while waiting for %s; nothing recorded",
				 r->opt->package);
			return -EINTR;
		}
		if (r->opt->duration_s > 0 && (double)(now_ns() - t0) / 1e9 >= r->opt->duration_s) {
			snprintf(err, errlen, "%s did not start within %g s; nothing recorded",
				 r->opt->package, r->opt->duration_s);
			return -ETIMEDOUT;
		}
	}
}

static int attach_initial(struct rec *r, char *err, size_t errlen)
{
	const struct options *opt = r->opt;
	int ret;

	for (int i = 0; i < opt->n_pids; i++) {
		if (!target_alive(opt->pids[i])) {
			snprintf(err, errlen, "no process with PID %d", (int)opt->pids[i]);
			return -ESRCH;
		}
		ret = rec_attach_target(r, opt->pids[i], false, err, errlen);
		if (ret)
			return ret;
	}
	if (opt->command) {
		if (!command_exists(opt->command[0])) {
			snprintf(err, errlen, "cannot run %s: command not found", opt->command[0]);
			return -ENOENT;
		}
		if (start_child(r, err, errlen))
			return -1;
		ret = rec_attach_target(r, r->child, true, err, errlen);
		if (ret)
			return ret;
	}
	if (opt->package) {
		pid_t pids[FR_MAX_TARGETS];
		int n = target_find_package(opt->package, pids, FR_MAX_TARGETS);

		if (n == 0 && !opt->wait) {
			snprintf(err, errlen,
				 "no process named %s is running (--wait waits for it to start)",
				 opt->package);
			return -ESRCH;
		}
		if (n == 0) {
			ret = wait_for_package(r, err, errlen);
			if (ret)
				return ret;
			n = target_find_package(opt->package, pids, FR_MAX_TARGETS);
		}
		/* Every match that attaches is recorded; if none does, that is the error. */
		for (int i = 0; i < n; i++) {
			char e2[FR_ERRLEN];

			if (rec_attach_target(r, pids[i], false, i ? e2 : err,
					      i ? sizeof(e2) : errlen) &&
			    r->n_ignored < FR_MAX_TARGETS)
				r->ignored[r->n_ignored++] = pids[i];
		}
		if (!r->had_target)
			return -ENOENT;
	}
	return 0;
}

static void build_meta(struct rec *r, struct meta *m)
{
	const struct options *opt = r->opt;

	meta_add_system(m);
	if (r->target_desc[0])
		meta_add(m, "target", "%s", r->target_desc);
	if (r->target_pid)
		meta_add(m, "target.pid", "%d", (int)r->target_pid);
	if (r->symbol[0]) {
		meta_add(m, "library", "%s", r->library);
		meta_add(m, "symbol", "%s", r->symbol);
		meta_add(m, "symbol.offset", "0x%llx", (unsigned long long)r->sym_offset);
	}
	if (r->sysfs)
		meta_add(m, "sysfs.node", "%s", r->sysfs);
	if (r->probe)
		meta_add(m, "ring.kib", "%u", opt->ring_kib);
	meta_add(m, "flush.ms", "%u", opt->flush_ms);
	meta_add(m, "tick.ms", "%u", opt->tick_ms);
	meta_add(m, "sysfs.ms", "%u", opt->sysfs_ms);
}

static int open_capture(struct rec *r, char *err, size_t errlen)
{
	struct frc_writer_options wo = {.flush_ms = r->opt->flush_ms};
	struct meta m = {0};
	int ret;

	build_meta(r, &m);
	r->fd = create_output(r->opt, err, errlen);
	if (r->fd < 0) {
		meta_free(&m);
		return -1;
	}
	ret = frc_writer_open_fd(&r->w, r->fd, r->opt->output, m.v, m.n, &wo);
	meta_free(&m);
	if (ret) {
		snprintf(err, errlen, "%s", r->w ? frc_writer_error(r->w) : frc_strerror(ret));
		frc_writer_free(r->w);
		r->w = NULL;
		close(r->fd);
		r->fd = -1;
		unlink(r->opt->output);
		return -1;
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
	if (pipeline_new(&r->pl, &cfg, &cb, r)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void on_frame(void *ctx, const struct frc_record *rec)
{
	struct rec *r = ctx;

	r->frames++;
	rec_emit(r, rec);
}

static void teardown(struct rec *r)
{
	probe_close(r->probe);
	pipeline_free(r->pl);
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r->t[i].pid && r->t[i].pidfd >= 0)
			close(r->t[i].pidfd);
	if (r->child_gate >= 0)
		close(r->child_gate); /* a child still blocked exits without running */
	if (r->child_err >= 0)
		close(r->child_err);
	if (r->child > 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, NULL, 0);
	}
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->sigfd >= 0)
		close(r->sigfd);
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
	char err[FR_ERRLEN] = "";
	int ret = 1;

	memset(&r, 0, sizeof(r));
	r.opt = opt;
	r.fd = r.epfd = r.tfd = r.sigfd = r.child_gate = r.child_err = -1;
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		r.t[i].pidfd = -1;

	if (check_output(opt, err, sizeof(err)) || setup_fds(&r, err, sizeof(err)))
		goto fail;
	r.sysfs = pick_sysfs(opt);
	if (opt->sysfs_only && !r.sysfs) {
		snprintf(err, sizeof(err),
			 "--sysfs-only: no display FPS node found (tried Auriya's list; name one "
			 "with --sysfs PATH)");
		goto fail;
	}
	if (!opt->sysfs_only &&
	    probe_open(&r.probe, opt->ring_kib, on_frame, &r, err, sizeof(err))) {
		size_t n = strlen(err);

		snprintf(err + n, sizeof(err) - n,
			 "\n  (--sysfs-only records the display's FPS node without BPF)");
		goto fail;
	}
	if (r.probe) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_RING << 32};

		epoll_ctl(r.epfd, EPOLL_CTL_ADD, probe_ring_fd(r.probe), &ev);
	}
	if (setup_pipeline(&r, err, sizeof(err)) || attach_initial(&r, err, sizeof(err)))
		goto fail;
	if (open_capture(&r, err, sizeof(err)))
		goto fail;
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r.t[i].pid && r.probe)
			emit_attach(&r, &r.t[i]);
	if (r.child_gate >= 0 && release_child(&r, err, sizeof(err))) {
		/* Nothing of the command was recorded: leave no file. */
		frc_writer_free(r.w);
		r.w = NULL;
		close(r.fd);
		unlink(opt->output);
		goto fail;
	}
	r.status_line = !opt->quiet && isatty(STDERR_FILENO);
	rec_loop(&r);
	ret = rec_stop(&r) ? 1 : 0;
	teardown(&r);
	return ret;
fail:
	fprintf(stderr, "framerec: %s\n", err);
	teardown(&r);
	return 1;
}
