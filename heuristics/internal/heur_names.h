/* SPDX-License-Identifier: MIT */
/*
 * heur_names.h - the variant registries' one way to list their names ("kala, surface,
 * ..."), for --help and the unknown-name messages of tracker_kind.c and meter_kind.c.
 */
#ifndef HEUR_NAMES_H
#define HEUR_NAMES_H

#include <stddef.h>

/*
 * The n names name(0..n) joined with ", " into buf[0..len) (NUL-terminated, cut when it
 * does not fit, like snprintf); returns the whole length.
 */
static inline size_t heur_join_names(const char *(*name)(size_t i), size_t n, char *buf, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		const char *sep = i ? ", " : "";

		for (const char *p = sep; *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
		for (const char *p = name(i); *p; p++, at++)
			if (at + 1 < len)
				buf[at] = *p;
	}
	if (len)
		buf[at < len ? at : len - 1] = '\0';
	return at;
}

#endif /* HEUR_NAMES_H */
