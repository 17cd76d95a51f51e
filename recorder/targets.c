// SPDX-License-Identifier: MIT
/*
 * targets.c - the targets of a recording: attach each one through the attach plan
 * (plan.c: target -> library -> symbols -> uprobe), notice exits, re-attach --package
 * restarts. Their attach and exit records go out through emit.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan.h"
#include "recording.h"
#include "target.h"

struct target *rec_find_target(struct rec *r, pid_t pid)
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

/* The attach plan for one target; the first attach names the capture's library/symbol. */
static int attach_probe(struct rec *r, struct target *t, char *err, size_t errlen)
{
	struct plan pl = {
	    .pid = t->pid, .child = t->child, .lib = r->opt->lib, .symbol = r->opt->symbol};
	int ret = plan_run(&pl, r->probe, err, errlen);

	if (ret) {
		plan_free(&pl);
		return ret;
	}
	const struct sym_candidate *batch = probe_batch_attached(r->probe, t->pid), *conn, *disc;
	const struct sym_candidate *stamp = probe_stamp_attached(r->probe, t->pid);

	probe_lifetime_attached(r->probe, t->pid, &conn, &disc);
	t->lifetime = conn && disc;
	r->lifetime_missing += !t->lifetime;
	snprintf(t->symbol, sizeof(t->symbol), "%s", pl.chosen->name);
	snprintf(t->batch_symbol, sizeof(t->batch_symbol), "%s", batch ? batch->name : "");
	if (!r->symbol[0]) {
		snprintf(r->symbol, sizeof(r->symbol), "%s", pl.chosen->name);
		snprintf(r->library, sizeof(r->library), "%s", pl.lib_shown);
		r->sym_offset = pl.chosen->offset;
		snprintf(r->batch_symbol, sizeof(r->batch_symbol), "%s", t->batch_symbol);
		r->batch_offset = batch ? batch->offset : 0;
		snprintf(r->connect_symbol, sizeof(r->connect_symbol), "%s",
			 conn ? conn->name : "");
		snprintf(r->disconnect_symbol, sizeof(r->disconnect_symbol), "%s",
			 disc ? disc->name : "");
		snprintf(r->stamp_symbol, sizeof(r->stamp_symbol), "%s", stamp ? stamp->name : "");
	}
	if (r->opt->verbose)
		rec_say(r, "PID %d: attached %s at 0x%llx%s in %s (%d link%s)", (int)t->pid,
			pl.chosen->name, (unsigned long long)pl.chosen->offset,
			batch ? " and the batch path" : "", pl.lib_shown,
			probe_links(r->probe, t->pid),
			probe_links(r->probe, t->pid) == 1 ? "" : "s");
	for (size_t i = 0; i < pl.syms.n; i++)
		if (pl.syms.v[i].kind == SYM_KIND_BATCH && pl.syms.v[i].status == SYM_ATTACH_FAILED)
			rec_say(r, "PID %d: the batch path %s: %s", (int)t->pid, pl.syms.v[i].name,
				pl.syms.v[i].why);
	plan_free(&pl);
	return 0;
}

/*
 * The metadata's target and target.pid (output.c): the package name, the command (child.c),
 * or each --pid's command line, "; " between two; target.pid lists the PIDs. Only targets
 * attached before the header is written (r->w) can be named; with one target both keep the
 * single value they always had.
 */
static void describe_target(struct rec *r, pid_t pid, bool child)
{
	size_t n = strlen(r->target_desc), np = strlen(r->target_pids);

	if (r->w)
		return;
	snprintf(r->target_pids + np, sizeof(r->target_pids) - np, "%s%d", np ? "," : "", (int)pid);
	if (!r->target_pid) {
		r->target_pid = pid;
		if (r->opt->package)
			snprintf(r->target_desc, sizeof(r->target_desc), "%s", r->opt->package);
		else if (!child)
			target_cmdline(pid, r->target_desc, sizeof(r->target_desc));
	} else if (!r->opt->package && !child && n + 2 < sizeof(r->target_desc)) {
		snprintf(r->target_desc + n, sizeof(r->target_desc) - n, "; ");
		target_cmdline(pid, r->target_desc + n + 2, sizeof(r->target_desc) - n - 2);
	}
}

int rec_attach_target(struct rec *r, pid_t pid, bool child, char *err, size_t errlen)
{
	struct target *t;
	int ret;

	if (rec_find_target(r, pid))
		return 0; /* attaching the same PID twice is a no-op */
	t = rec_find_target(r, 0);
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
	} else {
		/* --sysfs-only: nothing to attach, but the target must still be one. */
		struct plan pl = {.pid = pid, .child = child};

		ret = plan_check_target(&pl, err, errlen);
	}
	if (ret) {
		t->pid = 0;
		return ret;
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
	describe_target(r, pid, child);
	r->had_target = true;
	if (r->w && r->probe)
		rec_emit_attach(r, t);
	return 0;
}

void rec_target_exited(struct rec *r, struct target *t)
{
	/*
	 * Its last frames are in the ring: they go before the exit record. Without a probe
	 * (--sysfs-only) there was no attach record, so there is no exit record either.
	 */
	if (r->probe) {
		rec_drain(r);
		rec_emit_exit(r, t->pid);
		probe_detach(r->probe, t->pid);
	}
	if (t->pidfd >= 0)
		close(t->pidfd); /* also leaves the epoll set */
	if (t->child) {
		int st = 0;
		bool failed;

		waitpid(t->pid, &st, 0);
		r->child = 0;
		/*
		 * The command framerec started: say how it ended, even with --quiet when it
		 * failed (a game that rejects its arguments exits at once, and an empty
		 * capture with exit 0 would not say why).
		 */
		failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		if (failed) { /* framerec then exits 3 (recorder/README.md) */
			r->child_failed = true;
			r->child_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		}
		if (!r->opt->quiet || failed)
			rec_say(r, "PID %d (%s) %s %d", (int)t->pid, r->opt->command[0],
				WIFEXITED(st) ? "exited with status" : "was killed by signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	} else if (!r->opt->quiet) {
		rec_say(r, "PID %d exited", (int)t->pid);
	}
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

static void ignore(struct rec *r, pid_t pid, const char *why)
{
	rec_say(r, "ignoring PID %d: %s", (int)pid, why);
	if (r->n_ignored < FR_MAX_TARGETS)
		r->ignored[r->n_ignored++] = pid;
}

/*
 * A process found by name may be between exec and the loader mapping libgui.so (on Linux;
 * Android's zygote children have it mapped already). Such a match is retried on the next
 * scans until MAP_GRACE_NS after it was first seen, instead of being given up at once.
 * Returns true while pid is still within its grace period.
 */
#define MAP_GRACE_NS (5ull * 1000000000ull)

static bool retry_later(struct rec *r, pid_t pid)
{
	uint64_t now = now_ns();
	int free_slot = -1;

	for (int i = 0; i < FR_MAX_TARGETS; i++) {
		if (r->pending[i].pid == pid) {
			if (now < r->pending[i].give_up_ns)
				return true;
			r->pending[i].pid = 0;
			return false;
		}
		if (!r->pending[i].pid && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return false;
	r->pending[free_slot].pid = pid;
	r->pending[free_slot].give_up_ns = now + MAP_GRACE_NS;
	return true;
}

static void forget_pending(struct rec *r, pid_t pid)
{
	for (int i = 0; i < FR_MAX_TARGETS; i++)
		if (r->pending[i].pid == pid)
			r->pending[i].pid = 0;
}

/*
 * A process found by name ran before the probe reached it: whatever it queued until now
 * is not in the capture. Say so, with how long that was (no silent loss); the first
 * target's latency also goes into the metadata (attach.latency_ms).
 */
static void say_attach_latency(struct rec *r, pid_t pid)
{
	int64_t ms = target_age_ms(pid);

	if (r->attach_latency_ms < 0)
		r->attach_latency_ms = ms;
	if (r->opt->quiet)
		return;
	if (ms >= 0)
		rec_say(r,
			"attached PID %d (%s) %lld ms after it started: frames it queued before "
			"are not in the capture",
			(int)pid, r->opt->package, (long long)ms);
	else
		rec_say(r, "attached PID %d (%s)", (int)pid, r->opt->package);
}

int rec_scan_package(struct rec *r, char *err, size_t errlen)
{
	pid_t pids[FR_MAX_TARGETS];
	int n = target_find_package(r->opt->package, pids, FR_MAX_TARGETS);
	int attached = 0;

	for (int i = 0; i < n; i++) {
		int ret;

		if (rec_find_target(r, pids[i]) || ignored(r, pids[i]))
			continue;
		ret = rec_attach_target(r, pids[i], false, err, errlen);
		if (ret == 0) {
			forget_pending(r, pids[i]);
			attached++;
			say_attach_latency(r, pids[i]);
			continue;
		}
		if (ret == -ENOENT && retry_later(r, pids[i]))
			continue;
		ignore(r, pids[i], err);
	}
	return attached;
}

void rec_poll_liveness(struct rec *r)
{
	for (int i = 0; i < FR_MAX_TARGETS && !r->stop; i++)
		if (r->t[i].pid && r->t[i].pidfd < 0 && !target_alive(r->t[i].pid))
			rec_target_exited(r, &r->t[i]);
}
