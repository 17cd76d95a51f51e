/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - the display's FPS node (sysfs.c): Auriya's list of nodes, the start-up check
 * of a --sysfs PATH, and one raw read per sample.
 */
#ifndef SYSFS_H
#define SYSFS_H

#include <stddef.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

extern const char *const sysfs_nodes[8];
/* The first node of Auriya's list that exists and reads non-empty, or NULL. */
const char *sysfs_detect(void);
/* A node named with --sysfs exists, is no directory, may be read; else -errno + err. */
FRC_MUST_USE int sysfs_check(const char *path, char *err, size_t errlen);
/* Read the node once: raw bytes, or the errno of the failure. */
void sysfs_sample(const char *path, struct frc_sysfs *out);

#endif /* SYSFS_H */
