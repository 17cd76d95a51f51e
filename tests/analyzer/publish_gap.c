/* SPDX-License-Identifier: MIT */
/*
 * publish_gap.c - an LD_PRELOAD shim for db_published_meanwhile.sh: it makes
 * access(FRC_PUBLISH_GAP_PATH, ...) wait until that file exists (at most 10 s), that is,
 * until another db run has published the database. It stretches to seconds the
 * microsecond gap in which a run that found no OUT.db checks again, so the race that once
 * failed a CI run ("cannot open: unable to open database file") happens every time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int access(const char *path, int mode)
{
	static int (*real_access)(const char *, int);
	const char *gap = getenv("FRC_PUBLISH_GAP_PATH");

	if (!real_access)
		real_access = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
	if (gap && strcmp(path, gap) == 0)
		for (int waited = 0; waited < 10000 && real_access(path, F_OK) != 0; waited += 5)
			usleep(5000);
	return real_access(path, mode);
}
