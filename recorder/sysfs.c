// SPDX-License-Identifier: MIT
/*
 * sysfs.c - the display's FPS node (Auriya's FpsMeter source), read raw.
 *
 * framerec keeps exactly what read() returned (or its errno): the live meter parses the
 * same bytes the capture holds, so a replay reproduces every reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

/* Auriya's FPS_SYSFS_PATHS, in its order (seed 002). */
const char *const sysfs_nodes[8] = {
    "/sys/class/drm/sde-crtc-0/measured_fps",
    "/sys/class/drm/card0/sde-crtc-0/measured_fps",
    "/sys/class/drm/card0/sde_crtc_fps",
    "/sys/class/drm/card0/fbc/fps",
    "/sys/class/graphics/fb0/measured_fps",
    "/sys/class/graphics/fb0/fps",
    "/sys/kernel/debug/mali/fps",
    "/sys/class/misc/mali0/device/fps",
};

const char *sysfs_detect(void)
{
	for (size_t i = 0; i < 8; i++) {
		struct frc_sysfs s;

		sysfs_sample(sysfs_nodes[i], &s);
		if (s.err == 0 && s.len > 0)
			return sysfs_nodes[i];
	}
	return NULL;
}

/*
 * Open, read, close each time: a sysfs attribute is regenerated on each open, and a
 * node that disappears (display off, driver reload) shows up as the errno of the open.
 */
void sysfs_sample(const char *path, struct frc_sysfs *out)
{
	struct stat st;
	ssize_t n;
	int fd;

	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK: a FIFO put in the node's place must not hold the recording up. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		out->err = errno;
		return;
	}
	/* sysfs attributes are regular files; anything else is recorded as EINVAL, unread. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		out->err = EINVAL;
		close(fd);
		return;
	}
	n = read(fd, out->raw, sizeof(out->raw));
	if (n < 0)
		out->err = errno;
	else
		out->len = (uint16_t)n;
	close(fd);
}

/*
 * A node named with --sysfs must be there when the recording starts: a typo would
 * otherwise give a capture of nothing but ENOENT samples. A node that reads empty or
 * fails later (display off, driver reload) is recorded as it is.
 */
int sysfs_check(const char *path, char *err, size_t errlen)
{
	struct frc_sysfs s;
	struct stat st;
	int e = 0;

	if (stat(path, &st))
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "--sysfs %s: not a regular file (a FIFO or device would block "
			 "or lie; sysfs nodes are regular files)",
			 path);
		return -EINVAL;
	} else {
		sysfs_sample(path, &s);
		if (s.err == EACCES || s.err == EPERM)
			e = s.err;
	}
	if (e)
		snprintf(err, errlen, "--sysfs %s: %s", path, strerror(e));
	return -e;
}
