/* SPDX-License-Identifier: MIT */
/*
 * meter_kind.c - the table of FPS meter implementations (see meter_kind.h and
 * heuristics/README.md, which states every rule and its source).
 */
#include <string.h>

#include "meter_kind.h"
#include "heur_names.h"
#include "meter_kinds.h"

/* auriya-10fe7c6 and auriya-ccafd78: fps_meter.c, sysfs first or eBPF first. */
static int sysfs_first_create(void **out, const struct fps_meter_config *cfg, uint64_t t0,
			      bool has_sysfs)
{
	return fps_meter_new((struct fps_meter **)out, cfg, t0, has_sysfs);
}

static int ebpf_first_create(void **out, const struct fps_meter_config *cfg, uint64_t t0,
			     bool has_sysfs)
{
	return fps_meter_new_ebpf_first((struct fps_meter **)out, cfg, t0, has_sysfs);
}

static void auriya_destroy(void *m)
{
	fps_meter_free(m);
}

static void auriya_delta(void *m, uint64_t delta_ns)
{
	fps_meter_push_delta(m, delta_ns);
}

static void auriya_sysfs(void *m, int err, const uint8_t *raw, size_t len)
{
	fps_meter_set_sysfs(m, err, raw, len);
}

static struct fps_reading auriya_read(void *m, uint64_t now)
{
	return fps_meter_read(m, now);
}

static void auriya_stats(const void *m, struct fps_meter_stats *st)
{
	fps_meter_stats(m, st);
}

/* frc-window: frc_window.c */
static int window_create(void **out, const struct fps_meter_config *cfg, uint64_t t0,
			 bool has_sysfs)
{
	return frc_window_new((struct frc_window **)out, cfg, t0, has_sysfs);
}

static void window_destroy(void *m)
{
	frc_window_free(m);
}

static int window_frame(void *m, uint64_t ktime_ns, const struct frc_frame *f,
			const struct target *target)
{
	return frc_window_frame(m, ktime_ns, f, target);
}

static int window_learn(void *m, const struct frc_record *r, const struct target *target)
{
	return frc_window_learn(m, r, target);
}

static void window_delta(void *m, uint64_t delta_ns)
{
	frc_window_delta(m, delta_ns);
}

static void window_sysfs(void *m, int err, const uint8_t *raw, size_t len)
{
	frc_window_set_sysfs(m, err, raw, len);
}

static void window_vsync(void *m, uint64_t period_ns)
{
	frc_window_set_vsync(m, period_ns);
}

static void window_present(void *m, int64_t actual_ns)
{
	frc_window_set_present(m, actual_ns);
}

static void window_poll(void *m, uint64_t ktime_ns)
{
	frc_window_set_poll(m, ktime_ns);
}

static struct fps_reading window_read(void *m, uint64_t now)
{
	return frc_window_read(m, now);
}

static void window_stats(const void *m, struct fps_meter_stats *st)
{
	frc_window_stats(m, st);
}

static const struct meter_kind kinds[] = {
    {"auriya-10fe7c6",
     "sysfs first (2 s cache), eBPF ring of 30 deltas as the fallback (the default)",
     "Auriya@10fe7c6 src/core/fps_meter/mod.rs (seed 002)", sysfs_first_create, auriya_destroy,
     NULL, NULL, auriya_delta, auriya_sysfs, NULL, NULL, NULL, auriya_read, auriya_stats},
    {"auriya-ccafd78", "eBPF ring of 30 deltas first (drained every read), sysfs as the fallback",
     "pavelc4/auriya@ccafd78 src/core/fps_meter/mod.rs", ebpf_first_create, auriya_destroy, NULL,
     NULL, auriya_delta, auriya_sysfs, NULL, NULL, NULL, auriya_read, auriya_stats},
    {"frc-window",
     "content surface's intervals in the last 1 s, less the frames SurfaceFlinger drops "
     "(explicit timestamps); 0 FPS 250 ms after its last frame or the display's last "
     "present; the display's refresh (vsync period, sysfs) caps",
     "ours (issue 21)", window_create, window_destroy, window_frame, window_learn, window_delta,
     window_sysfs, window_vsync, window_present, window_poll, window_read, window_stats},
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct meter_kind *meter_kind_find(const char *name)
{
	for (size_t i = 0; name && i < N_KINDS; i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const struct meter_kind *meter_kind_at(size_t i)
{
	return i < N_KINDS ? &kinds[i] : NULL;
}

size_t meter_kind_count(void)
{
	return N_KINDS;
}

static const char *kind_name(size_t i)
{
	return kinds[i].name;
}

size_t meter_kind_names(char *buf, size_t len)
{
	return heur_join_names(kind_name, N_KINDS, buf, len);
}
