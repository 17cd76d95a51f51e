/* SPDX-License-Identifier: MIT */
/*
 * sf_dumpsys.c - parse SurfaceFlinger's `--list` and `--latency` text (sf_dumpsys.h).
 */
#include "sf_dumpsys.h"

#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A package name's characters: a match must not continue into one of them. */
static bool is_pkg_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '.';
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* s[0..len) is [-]digits (the value grammars of RequestedLayerState's fields). */
static bool all_int(const char *s, size_t len, bool sign)
{
	size_t i = 0;
	if (sign && len > 0 && s[0] == '-')
		i = 1;
	if (i == len)
		return false;
	for (; i < len; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/*
 * Strip " KEY=VALUE" (or " KEY" when value_kind is 0) from the end of s[0..*len) when it is
 * there. value_kind: 0 none, 'u' digits, 'i' signed digits, 's' any non-space text.
 */
static void strip_field(const char *s, size_t *len, const char *key, char value_kind)
{
	size_t klen = strlen(key);
	for (size_t i = *len; i-- > 0;) {
		if (s[i] != ' ')
			continue;
		if (*len - i - 1 < klen || memcmp(s + i + 1, key, klen) != 0)
			return; /* the last field is not this one */
		const char *v = s + i + 1 + klen;
		size_t vlen = *len - i - 1 - klen;
		bool ok = value_kind == 0     ? vlen == 0
			  : value_kind == 's' ? vlen > 0 && !memchr(v, ' ', vlen)
					      : all_int(v, vlen, value_kind == 'i');
		if (ok)
			*len = i;
		return;
	}
}

/*
 * RequestedLayerState::getDebugString (native@15.0.0_r1, @16.0.0_r2): the name, then the
 * fields that differ from their defaults, in this order. Stripped from the right, so a
 * name with spaces ("Background for SurfaceView[..]") stays whole.
 */
static size_t requested_layer_name(const char *s, size_t len)
{
	if (len > 0 && s[len - 1] == '}') /* 15.0.0_r1 printed no closing brace */
		len--;
	strip_field(s, &len, "layerStack=", 'u');
	strip_field(s, &len, "z=", 'i');
	strip_field(s, &len, "!handle", 0);
	strip_field(s, &len, "mirrorId=", 's');
	strip_field(s, &len, "relativeParentId=", 'u');
	strip_field(s, &len, "parentId=", 'u');
	return len;
}

/* "#SEQ" at the end of the name: Layer's "%s#%d" (13+) or getUniqueLayerName (11/12). */
static void split_seq(struct sf_layer_name *l)
{
	size_t i = l->len;
	while (i > 0 && is_digit(l->name[i - 1]))
		i--;
	l->base_len = l->len;
	l->has_seq = false;
	l->seq = 0;
	if (i == l->len || i == 0 || l->name[i - 1] != '#' || l->len - i > 19)
		return;
	for (size_t k = i; k < l->len; k++)
		l->seq = l->seq * 10 + (uint64_t)(l->name[k] - '0');
	l->base_len = i - 1;
	l->has_seq = true;
}

bool sf_list_line(const char *line, size_t len, struct sf_layer_name *out)
{
	static const char rls[] = "RequestedLayerState{";
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (has_prefix(line, len, rls)) {
		line += sizeof(rls) - 1;
		len = requested_layer_name(line, len - (sizeof(rls) - 1));
	}
	if (len == 0 || len >= SF_NAME_MAX || memchr(line, '\n', len))
		return false;
	memcpy(out->name, line, len);
	out->name[len] = '\0';
	out->len = len;
	split_seq(out);
	return true;
}

/* package occurs in s[0..len) as a whole token. */
static bool names_package(const char *s, size_t len, const char *package)
{
	size_t plen = strlen(package);
	if (plen == 0 || plen > len)
		return false;
	for (size_t i = 0; i + plen <= len; i++) {
		if (memcmp(s + i, package, plen) != 0)
			continue;
		bool left = i == 0 || !is_pkg_char(s[i - 1]);
		bool right = i + plen == len || !is_pkg_char(s[i + plen]);
		if (left && right)
			return true;
	}
	return false;
}

/*
 * Layer names (frameworks/base): SurfaceView.java names its layers "SurfaceView - TITLE"
 * (11, a BufferQueueLayer) or "SurfaceView[TITLE]" with the child "SurfaceView[TITLE](BLAST)"
 * that latches the buffers and a color layer "Background for SurfaceView[TITLE]" (12+);
 * a window's layer is its title "PKG/ACTIVITY", with a "(BLAST)" child on 11 when WM BLAST
 * is on (WindowSurfaceController.java).
 */
enum sf_layer_role sf_layer_role(const struct sf_layer_name *l, const char *package)
{
	const char *s = l->name;
	size_t n = l->base_len;
	if (!names_package(s, n, package))
		return SF_LAYER_UNRELATED;
	if (has_prefix(s, n, "SurfaceView[")) {
		if (has_suffix(s, n, "](BLAST)"))
			return SF_LAYER_SURFACEVIEW;
		return has_suffix(s, n, "]") ? SF_LAYER_CONTAINER : SF_LAYER_OTHER;
	}
	if (has_prefix(s, n, "SurfaceView - "))
		return SF_LAYER_SURFACEVIEW;
	size_t plen = strlen(package);
	if (n > plen && memcmp(s, package, plen) == 0 && s[plen] == '/')
		return SF_LAYER_WINDOW;
	return SF_LAYER_OTHER;
}

/* all[j] is all[i]'s "(BLAST)" child: same base name plus "(BLAST)". */
static bool is_blast_child(const struct sf_layer_name *child, const struct sf_layer_name *parent)
{
	static const char blast[] = "(BLAST)";
	size_t b = sizeof(blast) - 1;
	return child->base_len == parent->base_len + b &&
	       memcmp(child->name, parent->name, parent->base_len) == 0 &&
	       memcmp(child->name + parent->base_len, blast, b) == 0;
}

static bool has_blast_child(const struct sf_layer_name *all, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && is_blast_child(&all[j], &all[i]))
			return true;
	return false;
}

size_t sf_pick_layers(const struct sf_layer_name *all, size_t n, const char *package,
		      size_t *picked, size_t cap)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		enum sf_layer_role role = sf_layer_role(&all[i], package);
		if (role != SF_LAYER_SURFACEVIEW && role != SF_LAYER_WINDOW)
			continue;
		if (role == SF_LAYER_WINDOW && has_blast_child(all, n, i))
			continue;
		if (count < cap)
			picked[count] = i;
		count++;
	}
	return count;
}

/* A decimal int64 at *p (spaces and tabs before it skipped); false on overflow or none. */
static bool parse_i64(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	bool neg = s < end && *s == '-';
	if (neg)
		s++;
	if (s == end || !is_digit(*s))
		return false;
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; s < end && is_digit(*s); s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
	*p = s;
	return true;
}

/* The line s[0..len) holds exactly n integers (spaces/tabs between), put into v[]. */
static bool parse_ints(const char *s, size_t len, int64_t *v, int n)
{
	const char *p = s, *end = s + len;
	for (int i = 0; i < n; i++)
		if (!parse_i64(&p, end, &v[i]))
			return false;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == end;
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* One line after the period line: a row (kept or "0 0 0") or a blank. */
static bool latency_row(struct sf_latency *out, const char *s, size_t len)
{
	int64_t v[3];
	if (is_blank(s, len))
		return true;
	if (!parse_ints(s, len, v, 3))
		return false;
	if (v[0] == 0 && v[1] == 0 && v[2] == 0) {
		out->n_unused++;
		return true;
	}
	if (out->n_rows == SF_LATENCY_MAX_ROWS)
		return false;
	out->rows[out->n_rows++] = (struct sf_row){v[0], v[1], v[2]};
	return true;
}

int sf_latency_parse(const char *text, size_t len, struct sf_latency *out, uint32_t *bad_line)
{
	const char *p = text, *end = text + len;
	uint32_t line = 0;
	out->period_ns = 0;
	out->n_rows = 0;
	out->n_unused = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line++;
		bool ok = line == 1 ? parse_ints(p, n, &out->period_ns, 1) && out->period_ns >= 0
				    : latency_row(out, p, n);
		if (!ok) {
			*bad_line = line;
			return FRC_EINVAL;
		}
		p = nl ? nl + 1 : end;
	}
	if (line == 0) {
		*bad_line = 1;
		return FRC_EINVAL;
	}
	return 0;
}

void sf_present_merge_init(struct sf_present_merge *m)
{
	memset(m, 0, sizeof(*m));
}

static bool row_eq(const struct sf_row *a, const struct sf_row *b)
{
	return a->desired == b->desired && a->actual == b->actual && a->ready == b->ready;
}

static bool time_known(int64_t t)
{
	return t > 0 && t != SF_TIME_PENDING;
}

/*
 * r came after last. One layer presents one buffer per composition, so present times
 * strictly increase; a pending row is newer than every settled one; without two present
 * times, the desired times order them (queue order).
 */
static bool row_newer(const struct sf_row *r, const struct sf_row *last)
{
	if (r->actual == SF_TIME_PENDING)
		return true;
	if (time_known(r->actual) && time_known(last->actual))
		return r->actual > last->actual;
	return r->desired > last->desired;
}

/* row is the anchor: the same row, or the pending one it was, now signalled. */
static bool is_anchor(const struct sf_present_merge *m, const struct sf_row *row)
{
	if (m->anchor_taken)
		return row_eq(row, &m->anchor);
	return row->desired == m->anchor.desired && row->ready == m->anchor.ready;
}

/* Where this poll's new rows begin; *gap when it does not overlap the previous poll. */
static uint32_t merge_start(const struct sf_present_merge *m, const struct sf_latency *lat,
			    bool *gap)
{
	uint32_t n = lat->n_rows;
	*gap = false;
	if (!m->have_anchor) {
		/* The ring was polled and held no row; now it is full: it may have wrapped. */
		*gap = m->polls > 0 && n == SF_FRAMETRACKER_ROWS && lat->n_unused == 0;
		return 0;
	}
	for (uint32_t i = n; i-- > 0;)
		if (is_anchor(m, &lat->rows[i]))
			return m->anchor_taken ? i + 1 : i;
	uint32_t start = 0;
	while (start < n && !row_newer(&lat->rows[start], &m->anchor))
		start++;
	/* Every row is newer and the anchor is gone: the ring wrapped in between. */
	*gap = start == 0 && n > 0;
	return start;
}

struct sf_poll_result sf_present_merge_poll(struct sf_present_merge *m,
					    const struct sf_latency *lat)
{
	struct sf_poll_result r = {0};
	uint32_t i = merge_start(m, lat, &r.gap);
	r.first = i;
	while (i < lat->n_rows && lat->rows[i].actual != SF_TIME_PENDING)
		i++;
	r.count = i - r.first;
	r.pending = lat->n_rows - i;
	/* The next poll resumes at the first row left pending, else after the newest taken. */
	if (r.pending > 0) {
		m->anchor = lat->rows[i];
		m->anchor_taken = false;
		m->have_anchor = true;
	} else if (r.count > 0) {
		m->anchor = lat->rows[i - 1];
		m->anchor_taken = true;
		m->have_anchor = true;
	}
	m->polls++;
	m->rows_taken += r.count;
	m->gaps += r.gap;
	return r;
}
