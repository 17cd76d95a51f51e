/* SPDX-License-Identifier: MIT */
/*
 * fps_meter.c - Auriya's FpsMeter (see fps_meter.h and heuristics/README.md): the order of
 * Auriya@10fe7c6 (sysfs first) and, through fps_meter_new_ebpf_first (meter_kinds.h), the
 * order of pavelc4/auriya@ccafd78 (eBPF first); the sources' rules are the same code.
 *
 * Floating point: a reading is one IEEE double division of two exactly representable
 * values (count * 1e9 and the ring's sum in ns), so it is correctly rounded and identical
 * on x86-64 and arm64. No libm function with platform-dependent results is used.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h> /* snprintf only: no I/O */
#include <stdlib.h>

#include "fps_meter.h"
#include "meter_kinds.h"

/* Config bounds: keep allocations sane for a config read from anywhere. */
#define WINDOW_LIMIT (1u << 20)
#define CHANNEL_LIMIT (1u << 24)

enum sysfs_state {
	SYSFS_ERROR,   /* no sample yet, or the last read failed */
	SYSFS_INVALID, /* the last sample is not a decimal number in (0, fps_max] */
	SYSFS_VALUE,
};

struct fps_meter {
	struct fps_meter_config cfg;
	bool has_sysfs;
	bool ebpf_first; /* ccafd78's order: eBPF, then sysfs; and fps < fps_max (strict) */
	uint64_t last_poll;
	uint64_t last_ebpf_frame;

	/* The node's current content, parsed when it is set (sample-and-hold). */
	enum sysfs_state node;
	double node_value;
	/* The last valid poll result, returned for sysfs_poll_ns after the poll. */
	bool cached_valid;
	double cached;

	/* Frame-time ring: the newest cfg.window kept deltas and their (exact) sum. */
	uint64_t *ring;
	uint32_t ring_count;
	uint32_t ring_oldest;
	uint64_t ring_sum;

	/*
	 * The broadcast channel: chan_pending deltas pushed since the last drain. Writing
	 * restarts at chan[0] after each drain and wraps at channel_capacity, so chan[chan_w]
	 * is the next slot to write and, after a wrap, the oldest delta still held.
	 */
	uint64_t *chan;
	uint64_t chan_pending;
	uint32_t chan_w;

	struct fps_meter_stats st;
};

void fps_meter_config_default(struct fps_meter_config *cfg)
{
	cfg->sysfs_poll_ns = 2000000000ull;
	cfg->ebpf_timeout_ns = 3000000000ull;
	cfg->max_delta_ns = 500000000ull;
	cfg->window = 30;
	cfg->channel_capacity = 4096;
	cfg->fps_max = 500.0;
}

int fps_meter_new(struct fps_meter **out, const struct fps_meter_config *cfg, uint64_t t0,
		  bool has_sysfs)
{
	struct fps_meter *m;

	*out = NULL;
	/* !(x > 0) also rejects NaN. */
	if (cfg->window < 1 || cfg->window > WINDOW_LIMIT || cfg->channel_capacity < 1 ||
	    cfg->channel_capacity > CHANNEL_LIMIT || !(cfg->fps_max > 0) || !isfinite(cfg->fps_max))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->ring = malloc((size_t)cfg->window * sizeof(*m->ring));
	m->chan = malloc((size_t)cfg->channel_capacity * sizeof(*m->chan));
	if (!m->ring || !m->chan) {
		fps_meter_free(m);
		return -ENOMEM;
	}
	m->cfg = *cfg;
	m->has_sysfs = has_sysfs;
	m->last_poll = t0;
	m->last_ebpf_frame = t0;
	m->node = SYSFS_ERROR;
	*out = m;
	return 0;
}

void fps_meter_free(struct fps_meter *m)
{
	if (!m)
		return;
	free(m->chan);
	free(m->ring);
	free(m);
}

void fps_meter_stats(const struct fps_meter *m, struct fps_meter_stats *st)
{
	*st = m->st;
}

void fps_meter_push_delta(struct fps_meter *m, uint64_t delta_ns)
{
	m->chan[m->chan_w] = delta_ns;
	m->chan_w = m->chan_w + 1 == m->cfg.channel_capacity ? 0 : m->chan_w + 1;
	m->chan_pending++;
	m->st.deltas_pushed++;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* Exponents beyond this are clamped: any value past it is already 0 or inf as a double. */
#define EXP_CLAMP 100000

bool fps_parse_sysfs(const uint8_t *raw, size_t len, double *value)
{
	/* sign + up to FRC_SYSFS_MAX digits + "e-" + exponent digits + NUL */
	char buf[FRC_SYSFS_MAX + 32];
	size_t b = 0, i = 0, end = len;
	size_t int_digits = 0, frac_digits = 0;
	long exp = 0;
	bool exp_neg = false;

	if (!raw)
		return false;
	while (i < end && is_space(raw[i]))
		i++;
	while (end > i && is_space(raw[end - 1]))
		end--;
	/* Longer than any sysfs read we keep: not a number the node produced. */
	if (end - i > FRC_SYSFS_MAX)
		return false;
	if (i < end && (raw[i] == '+' || raw[i] == '-'))
		buf[b++] = (char)raw[i++];
	while (i < end && is_digit(raw[i])) {
		buf[b++] = (char)raw[i++];
		int_digits++;
	}
	if (i < end && raw[i] == '.') {
		i++;
		while (i < end && is_digit(raw[i])) {
			buf[b++] = (char)raw[i++];
			frac_digits++;
		}
	}
	/* "5." and ".5" are numbers (as for Rust's f64::from_str); "." and "" are not. */
	if (int_digits + frac_digits == 0)
		return false;
	if (i < end && (raw[i] == 'e' || raw[i] == 'E')) {
		size_t exp_digits = 0;

		i++;
		if (i < end && (raw[i] == '+' || raw[i] == '-'))
			exp_neg = raw[i++] == '-';
		while (i < end && is_digit(raw[i])) {
			if (exp < EXP_CLAMP)
				exp = exp * 10 + (raw[i] - '0');
			i++;
			exp_digits++;
		}
		if (exp_digits == 0)
			return false;
	}
	if (i != end)
		return false;
	/*
	 * strtod reads the decimal point of the current locale; give it none: the digits
	 * without the point and the exponent shifted by the fraction's length ("60.25" ->
	 * "6025e-2") mean the same value in every locale. strtod rounds correctly (glibc,
	 * musl, bionic), so the result is the same double everywhere.
	 */
	exp = (exp_neg ? -exp : exp) - (long)frac_digits;
	b += (size_t)snprintf(buf + b, sizeof(buf) - b, "e%ld", exp);
	buf[b] = '\0';
	*value = strtod(buf, NULL);
	return true;
}

bool fps_meter_sysfs_value(int err, const uint8_t *raw, size_t len, double fps_max, double *value)
{
	double v;

	if (err != 0 || !fps_parse_sysfs(raw, len, &v) || !(v > 0 && v <= fps_max))
		return false;
	*value = v;
	return true;
}

void fps_meter_set_sysfs(struct fps_meter *m, int err, const uint8_t *raw, size_t len)
{
	double v;

	if (err != 0) {
		m->node = SYSFS_ERROR;
	} else if (fps_meter_sysfs_value(err, raw, len, m->cfg.fps_max, &v)) {
		m->node = SYSFS_VALUE;
		m->node_value = v;
	} else {
		m->node = SYSFS_INVALID;
	}
}

/* Saturating now - then: a clock read before `then` counts as no time elapsed. */
static uint64_t elapsed(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Step 1: the sysfs node, polled at most every sysfs_poll_ns, cached in between. */
static bool read_sysfs(struct fps_meter *m, uint64_t now, double *fps)
{
	if (elapsed(now, m->last_poll) < m->cfg.sysfs_poll_ns) {
		*fps = m->cached;
		return m->cached_valid;
	}
	m->last_poll = now;
	m->st.sysfs_polls++;
	if (m->node != SYSFS_VALUE) {
		/* A read error or garbage: none now, the cache stays as it was. */
		m->st.sysfs_invalid++;
		return false;
	}
	m->cached_valid = true;
	m->cached = m->node_value;
	*fps = m->cached;
	return true;
}

static void ring_push(struct fps_meter *m, uint64_t delta)
{
	uint32_t window = m->cfg.window;

	if (m->ring_count < window) {
		uint32_t at = m->ring_oldest + m->ring_count;

		m->ring[at >= window ? at - window : at] = delta;
		m->ring_count++;
	} else {
		m->ring_sum -= m->ring[m->ring_oldest];
		m->ring[m->ring_oldest] = delta;
		m->ring_oldest = m->ring_oldest + 1 == window ? 0 : m->ring_oldest + 1;
	}
	m->ring_sum += delta;
}

/* Step 2, drain: the channel's deltas, in order, through the max_delta_ns filter. */
static void drain(struct fps_meter *m, uint64_t now)
{
	uint32_t cap = m->cfg.channel_capacity;
	uint32_t at = 0, n = (uint32_t)m->chan_pending;
	bool pushed = false;

	if (m->chan_pending > cap) {
		/* Lagged: the oldest deltas were overwritten; the newest `cap` remain. */
		m->st.lagged++;
		m->st.lagged_deltas += m->chan_pending - cap;
		at = m->chan_w;
		n = cap;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t delta = m->chan[at];

		at = at + 1 == cap ? 0 : at + 1;
		if (delta < m->cfg.max_delta_ns) {
			ring_push(m, delta);
			m->st.deltas_kept++;
			pushed = true;
		}
	}
	m->chan_pending = 0;
	m->chan_w = 0;
	if (pushed)
		m->last_ebpf_frame = now;
}

/*
 * Step 2: the eBPF fallback (ccafd78: the first source). 10fe7c6 accepts (0, fps_max],
 * ccafd78 (0, fps_max): its check is `fps > 0.0 && fps < 500.0`.
 */
static bool read_ebpf(struct fps_meter *m, uint64_t now, double *fps)
{
	double v;

	drain(m, now);
	if (m->ring_count == 0 || m->ring_sum == 0 ||
	    elapsed(now, m->last_ebpf_frame) >= m->cfg.ebpf_timeout_ns)
		return false;
	/* count * 1e9 and a sum of at most window deltas < 500 ms are exact doubles. */
	v = (double)m->ring_count * 1e9 / (double)m->ring_sum;
	if (!(v > 0 && (m->ebpf_first ? v < m->cfg.fps_max : v <= m->cfg.fps_max)))
		return false;
	*fps = v;
	return true;
}

/* A source's value as a reading. */
static struct fps_reading reading_of(bool ok, double fps, enum frc_source source)
{
	struct fps_reading r = {.valid = false, .fps = 0, .source = FRC_SOURCE_NONE};

	if (ok) {
		r.valid = true;
		r.fps = fps;
		r.source = source;
	}
	return r;
}

/*
 * 10fe7c6: sysfs (when detected), and the eBPF ring only when it gave none. ccafd78: the
 * eBPF ring (drained at every read), and sysfs only when the ring gave none.
 */
struct fps_reading fps_meter_read(struct fps_meter *m, uint64_t now)
{
	double fps = 0;
	bool ok;

	m->st.reads++;
	if (m->ebpf_first) {
		if (read_ebpf(m, now, &fps))
			return reading_of(true, fps, FRC_SOURCE_EBPF);
		ok = m->has_sysfs && read_sysfs(m, now, &fps);
		return reading_of(ok, fps, FRC_SOURCE_SYSFS);
	}
	if (m->has_sysfs && read_sysfs(m, now, &fps))
		return reading_of(true, fps, FRC_SOURCE_SYSFS);
	ok = read_ebpf(m, now, &fps); /* before reading_of reads fps */
	return reading_of(ok, fps, FRC_SOURCE_EBPF);
}

int fps_meter_new_ebpf_first(struct fps_meter **out, const struct fps_meter_config *cfg,
			     uint64_t t0, bool has_sysfs)
{
	int err = fps_meter_new(out, cfg, t0, has_sysfs);

	if (!err)
		(*out)->ebpf_first = true;
	return err;
}

uint64_t fps_to_micro(double fps)
{
	double v = fps * 1e6;

	/* Readings are in (0, fps_max]; anything else (NaN included) maps to the ends. */
	if (!(v > 0))
		return 0;
	if (v >= 9.2e18)
		return UINT64_MAX;
	/* llround is exact (no approximation), so it gives the same integer everywhere. */
	return (uint64_t)llround(v);
}
