// SPDX-License-Identifier: MIT
/*
 * display.c - display capture in a recording: start the dumpsys poller (present.c) for
 * the target's package, turn what it found into records (FORMAT.md 4.8) when its fd is
 * readable, and take its last rows at the stop. The poller runs on its own thread, so a
 * slow or hung dumpsys never delays a frame; the records go through rec_emit like every
 * other one, so a replay feeds the pipeline what the live run fed it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "present.h"
#include "recording.h"
#include "target.h"

/*
 * The package whose layers are followed: --package, else the program's name: the
 * -- COMMAND's (not yet exec'd at this point), or the first target's argv[0] (on Android a
 * process's argv[0] is its package; elsewhere a path, whose last part names it, as the
 * stand-in compositor names its layers).
 */
static void display_package(const struct rec *r, char *buf, size_t len)
{
	if (r->opt->package)
		snprintf(buf, len, "%s", r->opt->package);
	else if (r->opt->command)
		target_name_of(r->opt->command[0], buf, len);
	else if (r->target_pid > 0)
		target_program(r->target_pid, buf, len);
	else
		buf[0] = '\0';
}

int rec_start_display(struct rec *r, char *err, size_t errlen)
{
	const struct options *o = r->opt;
	struct present_config cfg = {o->dumpsys ? o->dumpsys : FR_DEFAULT_DUMPSYS, NULL,
				     o->present_ms};
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV_PRESENT << 32};
	char why[FRC_MSG_MAX];
	int ret;

	if (o->no_present || o->sysfs_only)
		return 0;
	display_package(r, r->display_package, sizeof(r->display_package));
	if (!r->display_package[0]) {
		rec_say(r, "display capture off: the target's package is not known (--package)");
		return 0;
	}
	cfg.package = r->display_package;
	ret = present_start(&r->present, &cfg, why, sizeof(why));
	if (ret && o->dumpsys) {
		snprintf(err, errlen, "--dumpsys %s", why);
		return ret;
	}
	if (ret) {
		/* Not Android (or no dumpsys): frames are recorded all the same; the summary
		 * says why, once. */
		snprintf(r->display_off, sizeof(r->display_off), "%s", why);
		return 0;
	}
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, present_fd(r->present), &ev);
	return 0;
}

/* One event of the poller as a record (FORMAT.md 4.8); false for none. */
static bool display_record(struct rec *r, const struct present_event *e, struct frc_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->ktime_ns = e->ktime;
	switch (e->kind) {
	case PEV_LAYER: {
		const char *name = present_layer_name(r->present, e->layer);
		size_t n = name ? strlen(name) : 0;

		if (n == 0 || n > FRC_LAYER_NAME_MAX) {
			rec_say(r,
				"display capture: a layer name of %zu bytes is not kept (at most "
				"%d)",
				n, FRC_LAYER_NAME_MAX);
			return false;
		}
		rec->type = FRC_LAYER;
		rec->u.layer.id = e->layer;
		rec->u.layer.len = (uint16_t)n;
		memcpy(rec->u.layer.name, name, n + 1);
		r->display_layers++;
		return true;
	}
	case PEV_LAYER_GONE:
		rec->type = FRC_LAYER;
		rec->u.layer.id = e->layer;
		rec->u.layer.gone = true;
		return true;
	case PEV_PERIOD:
		rec->type = FRC_VSYNC;
		rec->u.vsync.period_ns = e->a > 0 ? (uint64_t)e->a : 0;
		return true;
	case PEV_ROW:
		rec->type = FRC_PRESENT;
		rec->u.present = (struct frc_present){e->layer, e->a, e->b, e->c};
		r->display_rows++;
		return true;
	case PEV_GAP:
		rec->type = FRC_PRESENT_GAP;
		rec->u.gap = (struct frc_present_gap){e->layer, e->a, e->b};
		r->display_gaps++;
		return true;
	case PEV_POLL:
		rec->type = FRC_POLL;
		rec->u.poll.layer = e->layer;
		return true;
	}
	return false;
}

void rec_emit_display(struct rec *r)
{
	struct present_event ev[256];
	struct frc_record rec;
	char why[1024];
	size_t n;

	if (!r->present)
		return;
	/* The frames already in the ring come first: they were queued before this poll. */
	rec_drain(r);
	while ((n = present_drain(r->present, ev, 256)) > 0)
		for (size_t i = 0; i < n; i++)
			if (display_record(r, &ev[i], &rec))
				rec_emit(r, &rec);
	if (present_problem(r->present, why, sizeof(why)))
		rec_say(r, "display capture: %s; frames are recorded all the same", why);
}

void rec_stop_display(struct rec *r)
{
	if (!r->present)
		return;
	present_stop(r->present); /* its last round: what settled since the previous one */
	rec_emit_display(r);
	present_stats(r->present, &r->display_st);
	present_free(r->present);
	r->present = NULL;
	r->display_done = true;
}
