/* SPDX-License-Identifier: MIT */
/* frc_text.c - text form <-> capture (import, export) and the canonical record printer. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frc_text.h"

#include "frc_escape.h"
#include "frc_internal.h"

/* ------------------------------------------------------------ printing */

size_t frc_text_escape(const void *data, size_t n, char *buf, size_t len, int edges)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = data;
	size_t out = 0;

#define EMIT(c)                                                                                    \
	do {                                                                                       \
		if (out + 1 < len)                                                                 \
			buf[out] = (c);                                                            \
		out++;                                                                             \
	} while (0)
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		int edge_space = edges && c == ' ' && (i == 0 || i == n - 1);

		if (c == '\n') {
			EMIT('\\');
			EMIT('n');
		} else if (c == '\t') {
			EMIT('\\');
			EMIT('t');
		} else if (c == '\\' || c == '"') {
			EMIT('\\');
			EMIT((char)c);
		} else if (c < 0x20 || c > 0x7e || edge_space) {
			EMIT('\\');
			EMIT('x');
			EMIT(hex[c >> 4]);
			EMIT(hex[c & 15]);
		} else {
			EMIT((char)c);
		}
	}
#undef EMIT
	if (len)
		buf[out < len ? out : len - 1] = '\0';
	return out;
}

/*
 * Per-type printers (frc_types.c lists them in the type table): the canonical fields after
 * "NAME KTIME", each with its leading space, like snprintf; FRC_EINVAL for a record that
 * cannot be printed.
 */

static int printed(int n)
{
	return n < 0 ? FRC_EINVAL : n;
}

/* TIMESTAMP only when the frame has one: texts of captures without them stay as they were. */
int frc_frame_print(const struct frc_record *rec, char *buf, size_t len)
{
	if (rec->u.frame.has_timestamp)
		return printed(snprintf(
		    buf, len, " %" PRIu32 " %" PRIu32 " 0x%llx 0x%llx %" PRId64, rec->u.frame.pid,
		    rec->u.frame.tid, (unsigned long long)rec->u.frame.buffer,
		    (unsigned long long)rec->u.frame.surface, rec->u.frame.timestamp));
	return printed(snprintf(
	    buf, len, " %" PRIu32 " %" PRIu32 " 0x%llx 0x%llx", rec->u.frame.pid, rec->u.frame.tid,
	    (unsigned long long)rec->u.frame.buffer, (unsigned long long)rec->u.frame.surface));
}

int frc_sysfs_print(const struct frc_record *rec, char *buf, size_t len)
{
	char esc[FRC_TEXT_LINE_MAX];

	if (rec->u.sysfs.err)
		return printed(snprintf(buf, len, " !%" PRId32, rec->u.sysfs.err));
	if (rec->u.sysfs.len > FRC_SYSFS_MAX)
		return FRC_EINVAL;
	frc_text_escape(rec->u.sysfs.raw, rec->u.sysfs.len, esc, sizeof(esc), 0);
	return printed(snprintf(buf, len, " \"%s\"", esc));
}

/*
 * BATCH_ANOMALIES only when there are any, BAD_BUFFERS only when there are any (then after
 * BATCH_ANOMALIES, 0 included): texts of captures without them stay as they were.
 */
int frc_drops_print(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_drops *d = &rec->u.drops;

	if (d->bad_buffers)
		return printed(snprintf(
		    buf, len, " %llu %llu %llu", (unsigned long long)d->cumulative,
		    (unsigned long long)d->batch_anomalies, (unsigned long long)d->bad_buffers));
	if (d->batch_anomalies)
		return printed(snprintf(buf, len, " %llu %llu", (unsigned long long)d->cumulative,
					(unsigned long long)d->batch_anomalies));
	return printed(snprintf(buf, len, " %llu", (unsigned long long)d->cumulative));
}

int frc_attach_print(const struct frc_record *rec, char *buf, size_t len)
{
	char esc[FRC_TEXT_LINE_MAX];

	if (rec->u.attach.len > FRC_SYMBOL_MAX)
		return FRC_EINVAL;
	frc_text_escape(rec->u.attach.symbol, rec->u.attach.len, esc, sizeof(esc), 1);
	return printed(snprintf(buf, len, " %" PRIu32 "%s%s", rec->u.attach.pid,
				rec->u.attach.len ? " " : "", esc));
}

int frc_exit_print(const struct frc_record *rec, char *buf, size_t len)
{
	return printed(snprintf(buf, len, " %" PRIu32, rec->u.exit.pid));
}

int frc_tick_print(const struct frc_record *rec, char *buf, size_t len)
{
	uint64_t f = rec->u.tick.fps_micro;

	if (!rec->u.tick.has_result)
		return printed(snprintf(buf, len, "%s", ""));
	if (rec->u.tick.source == FRC_SOURCE_NONE)
		return printed(snprintf(buf, len, " - -"));
	if (rec->u.tick.source > FRC_SOURCE_EBPF)
		return FRC_EINVAL;
	return printed(snprintf(buf, len, " %llu.%06llu %s", (unsigned long long)(f / 1000000),
				(unsigned long long)(f % 1000000),
				frc_source_name(rec->u.tick.source, "-")));
}

int frc_text_format_record(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_type_ops *t = frc_type_ops(rec->type);
	char fields[FRC_TEXT_LINE_MAX + 1];
	int n;

	if (!t || !t->print)
		return FRC_EINVAL;
	n = t->print(rec, fields, sizeof(fields));
	if (n < 0 || (size_t)n >= sizeof(fields))
		return FRC_EINVAL;
	return printed(snprintf(buf, len, "%s %llu%s",
				t->alias && t->alias_of(rec) ? t->alias : t->name,
				(unsigned long long)rec->ktime_ns, fields));
}

/* "meta KEY VALUE" (no newline) into a malloc'd string. */
static char *meta_line(const struct frc_meta *m)
{
	size_t vn = strlen(m->value), need = frc_text_escape(m->value, vn, NULL, 0, 1);
	size_t kn = strlen(m->key);
	char *s = malloc(5 + kn + 1 + need + 1);

	if (!s)
		return NULL;
	memcpy(s, "meta ", 5);
	memcpy(s + 5, m->key, kn);
	s[5 + kn] = '\0';
	if (vn) {
		s[5 + kn] = ' ';
		frc_text_escape(m->value, vn, s + 6 + kn, need + 1, 1);
	}
	return s;
}

int frc_text_export(frc_reader *r, FILE *out)
{
	char line[FRC_TEXT_LINE_MAX + 1];
	struct frc_record rec;
	struct frc_reader_stats st;
	int ret;

	for (size_t i = 0; i < frc_reader_meta_count(r); i++) {
		char *s = meta_line(frc_reader_meta(r, i));

		if (!s)
			return FRC_ENOMEM;
		fputs(s, out);
		fputc('\n', out);
		free(s);
	}
	while ((ret = frc_reader_next(r, &rec)) > 0) {
		if (frc_text_format_record(&rec, line, sizeof(line)) < 0)
			return FRC_EINVAL;
		fputs(line, out);
		fputc('\n', out);
	}
	if (ret < 0)
		return ret;
	if (fflush(out) || ferror(out))
		return FRC_EIO;
	frc_reader_stats(r, &st);
	/* recovered: every intact chunk was written, damage skipped; a warning, like a cut */
	if (st.status == FRC_STATUS_TRUNCATED || st.status == FRC_STATUS_RECOVERED)
		return FRC_ETRUNCATED;
	if (st.status == FRC_STATUS_CORRUPT)
		return FRC_ECORRUPT;
	return 0;
}

/* ------------------------------------------------------------ parsing */

struct frc_parser {
	const char *path;
	size_t lineno;
	const char *s; /* the line, without its newline */
	size_t len, pos;
	char *err;
	size_t errlen;
	bool alias; /* the line's keyword is its type's alias (frc_type_ops.alias) */
};

static int syntax(struct frc_parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int syntax(struct frc_parser *p, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%zu:%zu: ", p->path, p->lineno, at + 1);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return FRC_EINVAL;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_blanks(struct frc_parser *p)
{
	while (p->pos < p->len && is_blank(p->s[p->pos]))
		p->pos++;
}

/* The next blank-separated token; its start in *at. Requires a blank before it. */
static int token(struct frc_parser *p, const char *what, size_t *at, size_t *n)
{
	size_t start = p->pos;

	skip_blanks(p);
	if (p->pos == p->len)
		return syntax(p, p->pos, "expected %s", what);
	if (p->pos == start && p->pos > 0)
		return syntax(p, p->pos, "expected a blank before %s", what);
	*at = p->pos;
	while (p->pos < p->len && !is_blank(p->s[p->pos]))
		p->pos++;
	*n = p->pos - *at;
	return 0;
}

static int at_end(struct frc_parser *p)
{
	skip_blanks(p);
	if (p->pos != p->len)
		return syntax(p, p->pos, "unexpected text after the record");
	return 0;
}

static int span_u64(struct frc_parser *p, size_t at, size_t n, const char *what, uint64_t max,
		    uint64_t *v)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)p->s[at + i] - '0';

		if (d > 9)
			return syntax(p, at + i, "%s: expected a decimal digit", what);
		if (x > (max - d) / 10)
			return syntax(p, at, "%s out of range (max %llu)", what,
				      (unsigned long long)max);
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int number(struct frc_parser *p, const char *what, uint64_t max, uint64_t *v)
{
	size_t at = 0, n = 0; /* set by token(); GCC -O3 cannot see that */
	int ret = token(p, what, &at, &n);

	return ret ? ret : span_u64(p, at, n, what, max, v);
}

/* A signed decimal int64 named what: an optional '-', then digits. */
static int signed_number(struct frc_parser *p, const char *what, int64_t *v)
{
	size_t at = 0, n = 0;
	uint64_t mag = 0; /* set by span_u64; GCC -O3 cannot see that */
	int neg, ret = token(p, what, &at, &n);

	if (ret)
		return ret;
	neg = p->s[at] == '-';
	if (neg && n == 1)
		return syntax(p, at + 1, "%s: expected a decimal digit", what);
	/* INT64_MIN's magnitude is one more than INT64_MAX. */
	ret = span_u64(p, at + (size_t)neg, n - (size_t)neg, what,
		       neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &mag);
	if (ret)
		return ret;
	*v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A 0x-prefixed hex u64 named what ("BUFFER", "SURFACE"). */
static int hex_value(struct frc_parser *p, const char *what, uint64_t *v)
{
	char expect[32];
	size_t at = 0, n = 0;
	int ret;

	snprintf(expect, sizeof(expect), "%s (0x...)", what);
	ret = token(p, expect, &at, &n);
	if (ret)
		return ret;
	if (n < 3 || p->s[at] != '0' || (p->s[at + 1] != 'x' && p->s[at + 1] != 'X'))
		return syntax(p, at, "%s: expected 0x followed by hex digits", what);
	if (n > 18)
		return syntax(p, at, "%s out of range (more than 16 hex digits)", what);
	*v = 0;
	for (size_t i = 2; i < n; i++) {
		int h = hexval(p->s[at + i]);

		if (h < 0)
			return syntax(p, at + i, "%s: expected a hex digit", what);
		*v = *v << 4 | (uint64_t)h;
	}
	return 0;
}

/*
 * Unescape s[from..) into out (at most max bytes). quoted: stop at an unescaped '"' and
 * leave p->pos after it; else take the rest of the line.
 */
static int unescape(struct frc_parser *p, int quoted, uint8_t *out, size_t max, size_t *outlen,
		    const char *what)
{
	size_t n = 0, start = p->pos;

	for (;;) {
		size_t at = p->pos;
		int c;

		if (p->pos == p->len) {
			if (quoted)
				return syntax(p, start - 1, "%s: missing closing quote", what);
			break;
		}
		c = (unsigned char)p->s[p->pos++];
		if (quoted && c == '"')
			break;
		if (c == '\\') {
			int e = p->pos < p->len ? p->s[p->pos++] : 0;

			if (e == 'n')
				c = '\n';
			else if (e == 't')
				c = '\t';
			else if (e == '\\' || e == '"')
				c = e;
			else if (e == 'x' && p->len - p->pos >= 2 && hexval(p->s[p->pos]) >= 0 &&
				 hexval(p->s[p->pos + 1]) >= 0) {
				c = hexval(p->s[p->pos]) << 4 | hexval(p->s[p->pos + 1]);
				p->pos += 2;
			} else {
				return syntax(p, at,
					      "%s: unknown escape (use \\n \\t \\\\ \\\" \\xHH)",
					      what);
			}
		}
		if (n == max)
			return syntax(p, at, "%s longer than %zu bytes", what, max);
		out[n++] = (uint8_t)c;
	}
	*outlen = n;
	return 0;
}

/* The value after KEY/PID: separated by blanks, may be empty, runs to the end of line. */
static int rest_of_line(struct frc_parser *p, uint8_t *out, size_t max, size_t *n, const char *what)
{
	size_t start = p->pos;

	skip_blanks(p);
	if (p->pos != p->len && p->pos == start)
		return syntax(p, p->pos, "expected a blank before %s", what);
	return unescape(p, 0, out, max, n, what);
}

static int fps_value(struct frc_parser *p, size_t at, size_t n, uint64_t *micro)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0;

	for (; i < n && p->s[at + i] != '.'; i++) {
		unsigned d = (unsigned char)p->s[at + i] - '0';

		if (d > 9)
			return syntax(p, at + i, "FPS: expected digits, '.' or -");
		if (whole > (UINT64_MAX / 1000000 - d) / 10)
			return syntax(p, at, "FPS out of range");
		whole = whole * 10 + d;
	}
	if (i == 0)
		return syntax(p, at, "FPS: expected digits before '.'");
	if (i < n) {
		for (i++; i < n; i++, digits++) {
			unsigned d = (unsigned char)p->s[at + i] - '0';

			if (d > 9 || digits == 6)
				return syntax(p, at + i,
					      d > 9 ? "FPS: expected a decimal digit"
						    : "FPS: at most 6 decimals");
			frac = frac * 10 + d;
		}
		if (digits == 0)
			return syntax(p, at + i, "FPS: expected digits after '.'");
	}
	while (digits++ < 6)
		frac *= 10;
	if (whole > (UINT64_MAX - frac) / 1000000)
		return syntax(p, at, "FPS out of range");
	*micro = whole * 1000000 + frac;
	return 0;
}

int frc_tick_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t fat, fn, sat, sn, start = p->pos;
	int ret;

	skip_blanks(p);
	if (p->pos == p->len)
		return 0;
	p->pos = start;
	if ((ret = token(p, "FPS", &fat, &fn)) || (ret = token(p, "SOURCE", &sat, &sn)))
		return ret;
	r->u.tick.has_result = true;
	if (frc_source_parse(p->s + sat, sn) > 0)
		r->u.tick.source = (uint8_t)frc_source_parse(p->s + sat, sn);
	else if (sn == 1 && p->s[sat] == '-')
		r->u.tick.source = FRC_SOURCE_NONE;
	else
		return syntax(p, sat, "SOURCE: expected sysfs, ebpf or -");
	if (fn == 1 && p->s[fat] == '-') {
		if (r->u.tick.source != FRC_SOURCE_NONE)
			return syntax(p, sat, "SOURCE must be - when FPS is -");
		return 0;
	}
	if (r->u.tick.source == FRC_SOURCE_NONE)
		return syntax(p, fat, "FPS must be - when SOURCE is -");
	return fps_value(p, fat, fn, &r->u.tick.fps_micro);
}

int frc_sysfs_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t n = 0, start = p->pos;
	uint64_t v = 0;
	int ret;

	skip_blanks(p);
	if (p->pos == p->len)
		return syntax(p, p->pos, "expected \"RAW\" or !ERRNO");
	if (p->pos == start)
		return syntax(p, p->pos, "expected a blank before \"RAW\" or !ERRNO");
	if (p->s[p->pos] == '!') {
		size_t at = ++p->pos;

		while (p->pos < p->len && !is_blank(p->s[p->pos]))
			p->pos++;
		if (p->pos == at)
			return syntax(p, at, "ERRNO: expected digits after !");
		if ((ret = span_u64(p, at, p->pos - at, "ERRNO", INT32_MAX, &v)))
			return ret;
		if (v == 0)
			return syntax(p, at, "ERRNO must not be 0");
		r->u.sysfs.err = (int32_t)v;
		return 0;
	}
	if (p->s[p->pos] != '"')
		return syntax(p, p->pos, "expected \"RAW\" or !ERRNO");
	p->pos++;
	ret = unescape(p, 1, r->u.sysfs.raw, FRC_SYSFS_MAX, &n, "RAW");
	r->u.sysfs.len = (uint16_t)n;
	return ret;
}

/* Per-type parsers (frc_types.c lists them in the type table): the fields after KTIME_NS. */

int frc_frame_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t at;
	uint64_t v;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &v)))
		return ret;
	r->u.frame.pid = (uint32_t)v;
	if ((ret = number(p, "TID", UINT32_MAX, &v)))
		return ret;
	r->u.frame.tid = (uint32_t)v;
	if ((ret = hex_value(p, "BUFFER", &r->u.frame.buffer)))
		return ret;
	/* SURFACE is optional: texts written before it existed have 4 fields (surface 0). */
	at = p->pos;
	skip_blanks(p);
	if (p->pos == p->len)
		return 0;
	p->pos = at;
	if ((ret = hex_value(p, "SURFACE", &r->u.frame.surface)))
		return ret;
	/* TIMESTAMP is optional: absent, the frame has none (FORMAT.md 4.7). */
	at = p->pos;
	skip_blanks(p);
	if (p->pos == p->len)
		return 0;
	/* Something that cannot begin a number is no TIMESTAMP, just text too many. */
	if (p->s[p->pos] != '-' && (p->s[p->pos] < '0' || p->s[p->pos] > '9'))
		return 0; /* the caller's at_end() says "unexpected text after the record" */
	p->pos = at;
	r->u.frame.has_timestamp = true;
	return signed_number(p, "TIMESTAMP", &r->u.frame.timestamp);
}

/* Whether a field follows on the line (an optional one), without consuming anything. */
static bool more_fields(struct frc_parser *p)
{
	size_t at = p->pos;

	skip_blanks(p);
	if (p->pos == p->len)
		return false;
	p->pos = at;
	return true;
}

int frc_drops_parse(struct frc_parser *p, struct frc_record *r)
{
	int ret = number(p, "CUMULATIVE", UINT64_MAX, &r->u.drops.cumulative);

	/* BATCH_ANOMALIES and BAD_BUFFERS are optional: absent, there were none (FORMAT.md 4.6). */
	if (ret || !more_fields(p))
		return ret;
	ret = number(p, "BATCH_ANOMALIES", UINT64_MAX, &r->u.drops.batch_anomalies);
	if (ret || !more_fields(p))
		return ret;
	return number(p, "BAD_BUFFERS", UINT64_MAX, &r->u.drops.bad_buffers);
}

int frc_attach_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t n = 0, at;
	uint64_t v;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &v)))
		return ret;
	r->u.attach.pid = (uint32_t)v;
	at = p->pos;
	ret = rest_of_line(p, (uint8_t *)r->u.attach.symbol, FRC_SYMBOL_MAX, &n, "SYMBOL");
	if (ret)
		return ret;
	if (memchr(r->u.attach.symbol, '\0', n))
		return syntax(p, at + 1, "SYMBOL must not contain \\x00");
	r->u.attach.len = (uint16_t)n;
	r->u.attach.symbol[n] = '\0';
	return 0;
}

int frc_exit_parse(struct frc_parser *p, struct frc_record *r)
{
	uint64_t v = 0;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &v)))
		return ret;
	r->u.exit.pid = (uint32_t)v;
	return 0;
}

/* ------------------------------------------------------------ display capture (4.8) */

/* "ID new NAME" or "ID gone". */
int frc_layer_print(const struct frc_record *rec, char *buf, size_t len)
{
	char esc[FRC_TEXT_LINE_MAX];
	const struct frc_layer *l = &rec->u.layer;

	if (l->gone)
		return printed(snprintf(buf, len, " %" PRIu32 " gone", l->id));
	frc_text_escape(l->name, l->len, esc, sizeof(esc), 1);
	return printed(snprintf(buf, len, " %" PRIu32 " new %s", l->id, esc));
}

/* A layer id (FORMAT.md 4.8): 1..2^32-1. */
static int layer_id(struct frc_parser *p, uint32_t *id)
{
	uint64_t v = 0; /* set by number(); GCC -O3 cannot see that */
	int ret = number(p, "LAYER", UINT32_MAX, &v);

	if (ret)
		return ret;
	if (v == 0)
		return syntax(p, p->pos - 1, "LAYER: ids start at 1");
	*id = (uint32_t)v;
	return 0;
}

int frc_layer_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t at = 0, n = 0;
	int ret;

	if ((ret = layer_id(p, &r->u.layer.id)))
		return ret;
	if ((ret = token(p, "new or gone", &at, &n)))
		return ret;
	if (n == 4 && !memcmp(p->s + at, "gone", 4)) {
		r->u.layer.gone = true;
		return 0;
	}
	if (n != 3 || memcmp(p->s + at, "new", 3))
		return syntax(p, at, "expected new or gone");
	at = p->pos;
	ret = rest_of_line(p, (uint8_t *)r->u.layer.name, FRC_LAYER_NAME_MAX, &n, "NAME");
	if (ret)
		return ret;
	if (n == 0 || memchr(r->u.layer.name, '\0', n))
		return syntax(p, at, "NAME must be 1..255 bytes without \\x00");
	r->u.layer.len = (uint16_t)n;
	r->u.layer.name[n] = '\0';
	return 0;
}

int frc_present_print(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_present *q = &rec->u.present;

	return printed(snprintf(buf, len, " %" PRIu32 " %" PRId64 " %" PRId64 " %" PRId64, q->layer,
				q->desired, q->actual, q->ready));
}

int frc_present_parse(struct frc_parser *p, struct frc_record *r)
{
	struct frc_present *q = &r->u.present;
	int ret;

	if ((ret = layer_id(p, &q->layer)))
		return ret;
	if ((ret = signed_number(p, "DESIRED", &q->desired)) ||
	    (ret = signed_number(p, "ACTUAL", &q->actual)))
		return ret;
	return signed_number(p, "READY", &q->ready);
}

int frc_vsync_print(const struct frc_record *rec, char *buf, size_t len)
{
	return printed(snprintf(buf, len, " %" PRIu64, rec->u.vsync.period_ns));
}

int frc_vsync_parse(struct frc_parser *p, struct frc_record *r)
{
	return number(p, "PERIOD_NS", UINT64_MAX, &r->u.vsync.period_ns);
}

int frc_gap_print(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_present_gap *g = &rec->u.gap;

	return printed(
	    snprintf(buf, len, " %" PRIu32 " %" PRId64 " %" PRId64, g->layer, g->before, g->after));
}

int frc_gap_parse(struct frc_parser *p, struct frc_record *r)
{
	int ret;

	if ((ret = layer_id(p, &r->u.gap.layer)))
		return ret;
	if ((ret = signed_number(p, "BEFORE", &r->u.gap.before)))
		return ret;
	return signed_number(p, "AFTER", &r->u.gap.after);
}

int frc_poll_print(const struct frc_record *rec, char *buf, size_t len)
{
	return printed(snprintf(buf, len, " %" PRIu32, rec->u.poll.layer));
}

int frc_poll_parse(struct frc_parser *p, struct frc_record *r)
{
	return layer_id(p, &r->u.poll.layer);
}

/* ------------------------------------------------------------ thread names (4.9) */

/* "PID TID NAME"; NAME escaped like SYMBOL (a comm may hold any byte but NUL). */
int frc_thread_print(const struct frc_record *rec, char *buf, size_t len)
{
	char esc[FRC_TEXT_LINE_MAX];
	const struct frc_thread *t = &rec->u.thread;

	if (t->len > FRC_THREAD_NAME_MAX)
		return FRC_EINVAL;
	frc_text_escape(t->name, t->len, esc, sizeof(esc), 1);
	return printed(snprintf(buf, len, " %" PRIu32 " %" PRIu32 " %s", t->pid, t->tid, esc));
}

int frc_thread_parse(struct frc_parser *p, struct frc_record *r)
{
	size_t n = 0, at;
	uint64_t pid, tid;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &pid)) ||
	    (ret = number(p, "TID", UINT32_MAX, &tid)))
		return ret;
	r->u.thread.pid = (uint32_t)pid;
	r->u.thread.tid = (uint32_t)tid;
	at = p->pos;
	ret = rest_of_line(p, (uint8_t *)r->u.thread.name, FRC_THREAD_NAME_MAX, &n, "NAME");
	if (ret)
		return ret;
	if (n == 0 || memchr(r->u.thread.name, '\0', n))
		return syntax(p, at, "NAME must be 1..15 bytes without \\x00");
	r->u.thread.len = (uint8_t)n;
	r->u.thread.name[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------ buffers, connections */

/* "PID 0xSURFACE 0xBUFFER WIDTH HEIGHT STRIDE FORMAT 0xUSAGE" (4.10). */
int frc_buffer_print(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_buffer *g = &rec->u.buffer;

	return printed(snprintf(
	    buf, len,
	    " %" PRIu32 " 0x%llx 0x%llx %" PRId32 " %" PRId32 " %" PRId32 " %" PRId32 " 0x%llx",
	    g->pid, (unsigned long long)g->surface, (unsigned long long)g->buffer, g->width,
	    g->height, g->stride, g->format, (unsigned long long)g->usage));
}

/* A signed decimal that fits an int32 named what. */
static int int32_value(struct frc_parser *p, const char *what, int32_t *v)
{
	size_t at = p->pos;
	int64_t x = 0;
	int ret = signed_number(p, what, &x);

	if (ret)
		return ret;
	while (is_blank(p->s[at])) /* to the token's start, for the message */
		at++;
	if (x < INT32_MIN || x > INT32_MAX)
		return syntax(p, at, "%s out of range (-2147483648..2147483647)", what);
	*v = (int32_t)x;
	return 0;
}

int frc_buffer_parse(struct frc_parser *p, struct frc_record *r)
{
	struct frc_buffer *g = &r->u.buffer;
	uint64_t pid;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &pid)) ||
	    (ret = hex_value(p, "SURFACE", &g->surface)) ||
	    (ret = hex_value(p, "BUFFER", &g->buffer)) ||
	    (ret = int32_value(p, "WIDTH", &g->width)) ||
	    (ret = int32_value(p, "HEIGHT", &g->height)) ||
	    (ret = int32_value(p, "STRIDE", &g->stride)) ||
	    (ret = int32_value(p, "FORMAT", &g->format)))
		return ret;
	g->pid = (uint32_t)pid;
	return hex_value(p, "USAGE", &g->usage);
}

/* A connect record is printed as "disconnect" when it is one (4.11). */
bool frc_connect_is_disconnect(const struct frc_record *r)
{
	return !r->u.connect.connected;
}

/* "PID TID 0xSURFACE API" after "connect" or "disconnect" (4.11). */
int frc_connect_print(const struct frc_record *rec, char *buf, size_t len)
{
	const struct frc_connect *k = &rec->u.connect;

	return printed(snprintf(buf, len, " %" PRIu32 " %" PRIu32 " 0x%llx %" PRId32, k->pid,
				k->tid, (unsigned long long)k->surface, k->api));
}

int frc_connect_parse(struct frc_parser *p, struct frc_record *r)
{
	struct frc_connect *k = &r->u.connect;
	uint64_t pid, tid;
	int ret;

	if ((ret = number(p, "PID", UINT32_MAX, &pid)) ||
	    (ret = number(p, "TID", UINT32_MAX, &tid)) ||
	    (ret = hex_value(p, "SURFACE", &k->surface)) || (ret = int32_value(p, "API", &k->api)))
		return ret;
	k->pid = (uint32_t)pid;
	k->tid = (uint32_t)tid;
	k->connected = !p->alias;
	return 0;
}

static int parse_record(struct frc_parser *p, const char *kw, size_t kwn, size_t kwat,
			struct frc_record *r)
{
	const struct frc_type_ops *t = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	for (unsigned type = 1; type <= FRC_TYPE_MAX && !t; type++) {
		const struct frc_type_ops *c = frc_type_ops(type);

		if (c && strlen(c->name) == kwn && !memcmp(c->name, kw, kwn))
			t = c;
		else if (c && c->alias && strlen(c->alias) == kwn && !memcmp(c->alias, kw, kwn))
			t = c;
	}
	p->alias = t && t->alias && strlen(t->alias) == kwn && !memcmp(t->alias, kw, kwn);
	if (!t || !t->parse) {
		/* the line's own bytes: escaped, so a control sequence never reaches a terminal */
		char shown[4 * 64 + 1];

		frc_escape(kw, kwn < 64 ? kwn : 64, FRC_ESCAPE_TEXT, shown, sizeof(shown));
		return syntax(p, kwat, "unknown record type '%s'%s", shown, kwn > 64 ? "..." : "");
	}
	r->type = (uint8_t)t->type;
	if ((ret = number(p, "KTIME_NS", UINT64_MAX, &r->ktime_ns)))
		return ret;
	ret = t->parse(p, r);
	return ret ? ret : at_end(p);
}

/* ------------------------------------------------------------ import */

struct import {
	struct frc_parser p;
	struct frc_meta *meta;
	size_t n_meta, cap_meta;
	size_t pair_bytes; /* header bytes of the pairs so far (FORMAT.md 3) */
	char *tmp;
	int fd;
	bool given_fd; /* fd is the caller's (frc_text_import_fd): written, never published */
	frc_writer *w;
	const char *out_path;
	const struct frc_writer_options *opt;
};

static int key_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int parse_meta(struct import *im)
{
	struct frc_parser *p = &im->p;
	size_t at = 0, n = 0, vn = 0;
	uint8_t *val;
	int ret;

	if (im->w)
		return syntax(p, 0, "meta after the first record");
	if ((ret = token(p, "KEY", &at, &n)))
		return ret;
	if (n > 255)
		return syntax(p, at, "KEY longer than 255 bytes");
	for (size_t i = 0; i < n; i++)
		if (!key_char_ok(p->s[at + i]))
			return syntax(p, at + i, "KEY: only a-z 0-9 _ . are allowed");
	for (size_t i = 0; i < im->n_meta; i++)
		if (strlen(im->meta[i].key) == n && !memcmp(im->meta[i].key, p->s + at, n))
			return syntax(p, at, "KEY '%.*s' given twice", (int)n, p->s + at);
	if (im->n_meta == 1024)
		return syntax(p, 0, "more than 1024 meta lines");
	val = malloc(65536);
	if (!val)
		return FRC_ENOMEM;
	{
		size_t vat = p->pos;

		ret = rest_of_line(p, val, 65535, &vn, "VALUE");
		if (!ret && memchr(val, '\0', vn))
			ret = syntax(p, vat + 1, "VALUE must not contain \\x00");
	}
	if (!ret) {
		size_t pair = frc_varint_len(n) + n + frc_varint_len(vn) + vn;

		/*
		 * FRCP, major, minor, n_meta, the pairs, CRC: the writer's 1 MiB header limit,
		 * checked here so that the error names the line that crosses it.
		 */
		if (8 + frc_varint_len(im->n_meta + 1) + im->pair_bytes + pair + 4 > FRC_HEADER_MAX)
			ret = syntax(p, 0, "metadata larger than %u bytes in all", FRC_HEADER_MAX);
		else
			im->pair_bytes += pair;
	}
	if (!ret && im->n_meta == im->cap_meta) {
		size_t cap = im->cap_meta ? im->cap_meta * 2 : 16;
		struct frc_meta *m = realloc(im->meta, cap * sizeof(*m));

		if (!m)
			ret = FRC_ENOMEM;
		else {
			im->meta = m;
			im->cap_meta = cap;
		}
	}
	if (!ret) {
		char *k = strndup(p->s + at, n), *v = strndup((char *)val, vn);

		if (!k || !v) {
			free(k);
			free(v);
			ret = FRC_ENOMEM;
		} else {
			im->meta[im->n_meta].key = k;
			im->meta[im->n_meta++].value = v;
		}
	}
	free(val);
	return ret;
}

static int open_output(struct import *im)
{
	size_t n = strlen(im->out_path);
	int ret;

	if (im->given_fd)
		goto open_writer;
	im->tmp = malloc(n + sizeof(".tmp.XXXXXX"));
	if (!im->tmp)
		return FRC_ENOMEM;
	memcpy(im->tmp, im->out_path, n);
	memcpy(im->tmp + n, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
	im->fd = mkstemp(im->tmp);
	if (im->fd < 0) {
		snprintf(im->p.err, im->p.errlen, "%s: cannot create a file next to it: %s",
			 im->out_path, strerror(errno));
		free(im->tmp);
		im->tmp = NULL;
		return FRC_EIO;
	}
	/* mkstemp makes 0600; a capture is an ordinary document. */
	(void)!fchmod(im->fd, 0644);
open_writer:
	ret = frc_writer_open_fd(&im->w, im->fd, im->out_path, im->meta, im->n_meta, im->opt);
	if (ret)
		snprintf(im->p.err, im->p.errlen, "%s",
			 im->w ? frc_writer_error(im->w) : frc_strerror(ret));
	return ret;
}

static int import_line(struct import *im)
{
	struct frc_parser *p = &im->p;
	struct frc_record rec;
	size_t at = 0, n = 0;
	int ret;

	p->pos = 0;
	if (memchr(p->s, '\0', p->len))
		return syntax(p, (size_t)((const char *)memchr(p->s, '\0', p->len) - p->s),
			      "NUL byte in the text");
	skip_blanks(p);
	if (p->pos == p->len || p->s[p->pos] == '#')
		return 0;
	at = p->pos;
	while (p->pos < p->len && !is_blank(p->s[p->pos]))
		p->pos++;
	n = p->pos - at;
	if (n == 4 && !memcmp(p->s + at, "meta", 4))
		return parse_meta(im);
	ret = parse_record(p, p->s + at, n, at, &rec);
	if (ret)
		return ret;
	if (!im->w && (ret = open_output(im)))
		return ret;
	ret = frc_writer_append(im->w, &rec);
	if (ret == FRC_EINVAL)
		return syntax(p, at, "%s", frc_writer_error(im->w));
	if (ret)
		snprintf(p->err, p->errlen, "%s", frc_writer_error(im->w));
	return ret;
}

/* fsync the directory holding path so that the rename itself is durable. */
static void sync_dir(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!fsync(fd);
		close(fd);
	}
	free(dir);
}

/*
 * The next line of in into *buf (grown as needed): its length including the '\n', 0 at the
 * end of the input, -1 on a read error, -2 when more than FRC_TEXT_IMPORT_LINE_MAX bytes
 * come before the line end (the rest is not read: memory stays bounded), -3 out of memory.
 * getline() would read a line of any length whole into memory.
 */
static ssize_t read_line(FILE *in, char **buf, size_t *cap)
{
	size_t n = 0;
	int c = 0;

	while ((c = getc_unlocked(in)) != EOF) {
		/* + 1: room for the '\r' of a CRLF line end */
		if (c != '\n' && n >= FRC_TEXT_IMPORT_LINE_MAX + 1)
			return -2;
		if (n + 2 > *cap) {
			size_t grow = *cap ? *cap * 2 : 4096;
			char *b;

			if (grow > FRC_TEXT_IMPORT_LINE_MAX + 3)
				grow = FRC_TEXT_IMPORT_LINE_MAX + 3;
			if (grow < n + 2 || !(b = realloc(*buf, grow)))
				return -3;
			*buf = b;
			*cap = grow;
		}
		(*buf)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(in))
		return -1;
	if (n)
		(*buf)[n] = '\0'; /* as getline() did: the parser may look one byte ahead */
	return (ssize_t)n;
}

/* What read_line's negative result means, as the import's error. */
static int read_line_error(struct import *im, FILE *in, ssize_t got)
{
	struct frc_parser *p = &im->p;

	if (got == -2) {
		p->lineno++;
		return syntax(p, FRC_TEXT_IMPORT_LINE_MAX, "line longer than %d bytes; refused",
			      FRC_TEXT_IMPORT_LINE_MAX);
	}
	if (got == -3)
		return FRC_ENOMEM;
	snprintf(p->err, p->errlen, "%s: read: %s", p->path,
		 ferror(in) ? strerror(errno) : "unknown error");
	return FRC_EIO;
}

int frc_text_import(const char *in_path, const char *out_path, const struct frc_writer_options *opt,
		    char *err, size_t errlen)
{
	return frc_text_import_ex(in_path, out_path, opt, NULL, err, errlen);
}

/*
 * The end of an import: the footer, then the temporary file renamed over OUT, so OUT is
 * never a half-written capture. 0 or FRC_EIO with the message set.
 */
static int publish_output(struct import *im)
{
	struct frc_parser *p = &im->p;
	int ret;

	if (!im->w && (ret = open_output(im)))
		return ret;
	ret = frc_writer_finish(im->w);
	if (ret) {
		snprintf(p->err, p->errlen, "%s", frc_writer_error(im->w));
		return ret;
	}
	if (im->given_fd)
		return 0;
	ret = close(im->fd);
	im->fd = -1;
	if (ret) {
		snprintf(p->err, p->errlen, "%s: close: %s", im->out_path, strerror(errno));
		return FRC_EIO;
	}
	if (rename(im->tmp, im->out_path)) {
		snprintf(p->err, p->errlen, "%s: rename: %s", im->out_path, strerror(errno));
		return FRC_EIO;
	}
	free(im->tmp);
	im->tmp = NULL;
	sync_dir(im->out_path);
	return 0;
}

/* Import in_path into im's output (a temporary published over OUT, or the given fd). */
static int run_import(struct import *im, const char *in_path, const volatile sig_atomic_t *stop)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	FILE *in;
	int ret = 0;

	in = fopen(in_path, "r");
	if (!in) {
		snprintf(im->p.err, im->p.errlen, "%s: %s", in_path, strerror(errno));
		return FRC_EIO;
	}
	while ((got = read_line(in, &line, &cap)) > 0) {
		if (stop && *stop)
			break;
		im->p.lineno++;
		im->p.s = line;
		im->p.len = (size_t)got;
		if (im->p.len && line[im->p.len - 1] == '\n')
			im->p.len--;
		if (im->p.len && line[im->p.len - 1] == '\r')
			im->p.len--;
		ret = import_line(im);
		if (ret)
			goto cleanup;
	}
	if (stop && *stop) {
		snprintf(im->p.err, im->p.errlen, "%s: interrupted", in_path);
		ret = FRC_EIO;
		goto cleanup;
	}
	if (got < 0) {
		ret = read_line_error(im, in, got);
		goto cleanup;
	}
	ret = publish_output(im);
cleanup:
	frc_writer_free(im->w);
	if (im->fd >= 0 && !im->given_fd)
		close(im->fd);
	if (im->tmp) {
		unlink(im->tmp);
		free(im->tmp);
	}
	for (size_t i = 0; i < im->n_meta; i++) {
		free((char *)im->meta[i].key);
		free((char *)im->meta[i].value);
	}
	free(im->meta);
	free(line);
	fclose(in);
	return ret;
}

int frc_text_import_ex(const char *in_path, const char *out_path,
		       const struct frc_writer_options *opt, const volatile sig_atomic_t *stop,
		       char *err, size_t errlen)
{
	struct import im = {.p = {.path = in_path, .err = err, .errlen = errlen},
			    .fd = -1,
			    .out_path = out_path,
			    .opt = opt};
	struct stat sb;

	if (errlen)
		err[0] = '\0';
	/*
	 * The output is renamed over OUT at the end, which would replace whatever OUT is:
	 * refuse a device (-o /dev/null would delete the node), a FIFO or a directory now,
	 * before any work.
	 */
	if (stat(out_path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file; refusing to replace it", out_path);
		return FRC_EIO;
	}
	return run_import(&im, in_path, stop);
}

int frc_text_import_fd(const char *in_path, int fd, const char *out_name,
		       const struct frc_writer_options *opt, const volatile sig_atomic_t *stop,
		       char *err, size_t errlen)
{
	struct import im = {.p = {.path = in_path, .err = err, .errlen = errlen},
			    .fd = fd,
			    .given_fd = true,
			    .out_path = out_name,
			    .opt = opt};

	if (errlen)
		err[0] = '\0';
	return run_import(&im, in_path, stop);
}
