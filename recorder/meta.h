/* SPDX-License-Identifier: MIT */
/*
 * meta.h - the capture header's metadata (meta.c): the system part (kernel, Android
 * properties, clock offset) and the key = value pairs a recording adds.
 */
#ifndef META_H
#define META_H

#include <stddef.h>

#include "frc_record.h"

#define META_MAX 32

struct meta {
	struct frc_meta v[META_MAX];
	char *owned[META_MAX];
	size_t n;
};

/* Add key = printf(fmt...). Silently ignores overflow beyond META_MAX (never reached). */
void meta_add(struct meta *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The system part: recorder, kernel, machine, android.*, clock, realtime.offset_ns. */
void meta_add_system(struct meta *m);
void meta_free(struct meta *m);
/* An Android property from getprop or /system/build.prop; 0 when found. */
int android_prop(const char *name, char *out, size_t len);

#endif /* META_H */
