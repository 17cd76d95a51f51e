// SPDX-License-Identifier: MIT
/*
 * meta.c - the capture header's metadata, read from the running system.
 * Keys are the ones format/FORMAT.md lists (section 3); values are text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "frc_version.h"
#include "meta.h"
#include "runout.h"

void meta_add(struct meta *m, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *val = NULL;

	if (m->n >= META_MAX)
		return;
	va_start(ap, fmt);
	if (vasprintf(&val, fmt, ap) < 0)
		val = NULL;
	va_end(ap);
	if (!val)
		return;
	m->owned[m->n] = val;
	m->v[m->n].key = key;
	m->v[m->n].value = val;
	m->n++;
}

void meta_free(struct meta *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->owned[i]);
	m->n = 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = 0;
}

/*
 * Run /system/bin/getprop NAME (no shell) and read its one line. Bounded like every helper
 * framerec runs (runout.h): a wedged property service costs a second, not the recording.
 */
static int getprop_exec(const char *name, char *out, size_t len)
{
	char *argv[] = {"getprop", (char *)name, NULL};
	struct runout ro;

	if (access("/system/bin/getprop", X_OK))
		return -ENOENT;
	if (runout("/system/bin/getprop", argv, 1000, out, len, &ro) || ro.exit_code != 0) {
		out[0] = 0;
		return -ENOENT;
	}
	trim(out);
	return out[0] ? 0 : -ENOENT;
}

static int buildprop(const char *name, char *out, size_t len)
{
	FILE *f = fopen("/system/build.prop", "re");
	char *line = NULL;
	size_t cap = 0, nlen = strlen(name);
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, name, nlen) == 0 && line[nlen] == '=') {
			snprintf(out, len, "%s", line + nlen + 1);
			trim(out);
			ret = out[0] ? 0 : -ENOENT;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

int android_prop(const char *name, char *out, size_t len)
{
	if (getprop_exec(name, out, len) == 0)
		return 0;
	return buildprop(name, out, len);
}

void meta_add_system(struct meta *m)
{
	static const struct {
		const char *key, *prop;
	} props[] = {
	    {"android.fingerprint", "ro.build.fingerprint"},
	    {"android.sdk", "ro.build.version.sdk"},
	    {"android.model", "ro.product.model"},
	};
	struct utsname u;
	struct timespec rt, mono;
	char val[256];

	meta_add(m, "recorder", "framerec %s", FRC_VERSION);
	if (uname(&u) == 0) {
		meta_add(m, "kernel", "%s", u.release);
		meta_add(m, "machine", "%s", u.machine);
	}
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++)
		if (android_prop(props[i].prop, val, sizeof(val)) == 0)
			meta_add(m, props[i].key, "%s", val);
	meta_add(m, "clock", "CLOCK_MONOTONIC");
	/* Read back to back so the offset is as tight as two vDSO calls allow. */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	meta_add(m, "realtime.offset_ns", "%lld",
		 (long long)(rt.tv_sec - mono.tv_sec) * 1000000000LL +
		     (long long)(rt.tv_nsec - mono.tv_nsec));
}
