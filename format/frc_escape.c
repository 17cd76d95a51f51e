/* SPDX-License-Identifier: MIT */
/* frc_escape.c - untrusted text made safe for terminals and JSON; see frc_escape.h. */
#include "frc_escape.h"

#include <stdbool.h>
#include <string.h>

size_t frc_utf8_len(const uint8_t *p, size_t n)
{
	uint8_t lo = 0x80, hi = 0xBF;
	size_t len;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

/* A stream, or a buffer that counts what it could not hold (snprintf semantics). */
struct sink {
	FILE *f;
	char *buf;
	size_t len, out;
};

static void put(struct sink *s, const char *text, size_t n)
{
	if (s->f) {
		fwrite(text, 1, n, s->f);
		return;
	}
	for (size_t i = 0; i < n; i++, s->out++)
		if (s->out + 1 < s->len)
			s->buf[s->out] = text[i];
}

static void put_hex(struct sink *s, const char *prefix, unsigned v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char t[8];
	size_t n = strlen(prefix);

	memcpy(t, prefix, n);
	for (int i = digits - 1; i >= 0; i--)
		t[n++] = hex[(v >> (4 * i)) & 15];
	put(s, t, n);
}

/* One byte below 0x80. */
static void put_ascii(struct sink *s, uint8_t c, enum frc_escape_style style)
{
	bool json = style == FRC_ESCAPE_JSON;

	if (c == '\\' || (json && c == '"')) {
		char t[2] = {'\\', (char)c};
		put(s, t, 2);
	} else if (c == '\n') {
		put(s, "\\n", 2);
	} else if (c == '\t') {
		put(s, "\\t", 2);
	} else if (c < 0x20 || c == 0x7f) {
		put_hex(s, json ? "\\u00" : "\\x", c, 2);
	} else {
		put(s, (const char *)&c, 1);
	}
}

static void escape(struct sink *s, const uint8_t *p, size_t n, enum frc_escape_style style)
{
	size_t i = 0;

	while (i < n) {
		size_t u = frc_utf8_len(p + i, n - i);

		if (u == 1) {
			put_ascii(s, p[i], style);
		} else if (u == 2 && p[i] == 0xC2 && p[i + 1] <= 0x9F) {
			/* a C1 control, U+0080..U+009F */
			if (style == FRC_ESCAPE_JSON) {
				put_hex(s, "\\u00", p[i + 1], 2);
			} else {
				put_hex(s, "\\x", p[i], 2);
				put_hex(s, "\\x", p[i + 1], 2);
			}
		} else if (u) {
			put(s, (const char *)p + i, u);
		} else {
			if (style == FRC_ESCAPE_JSON)
				put(s, "\\ufffd", 6);
			else
				put_hex(s, "\\x", p[i], 2);
			u = 1;
		}
		i += u;
	}
}

size_t frc_escape(const void *data, size_t n, enum frc_escape_style style, char *buf, size_t len)
{
	struct sink s = {.buf = buf, .len = len};

	escape(&s, data, n, style);
	if (len)
		buf[s.out < len ? s.out : len - 1] = '\0';
	return s.out;
}

void frc_escape_write(FILE *out, const void *data, size_t n, enum frc_escape_style style)
{
	struct sink s = {.f = out};

	escape(&s, data, n, style);
}

const char *frc_escape_str(const char *s, char *buf, size_t len)
{
	frc_escape(s, strlen(s), FRC_ESCAPE_TEXT, buf, len);
	return buf;
}
