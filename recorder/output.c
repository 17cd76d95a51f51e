// SPDX-License-Identifier: MIT
/*
 * output.c - the capture file: refuse early what cannot work, create it only once the
 * probe is attached (O_EXCL|O_NOFOLLOW, 0640), write the header metadata.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "meta.h"
#include "recording.h"
#include "symbols.h"

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "a special file";
}

/* Fail early (before BPF work) on an output that exists or cannot be created. */
int rec_check_output(const struct options *opt, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (lstat(opt->output, &st) == 0) {
		/*
		 * --force replaces the name by unlinking it: never do that to a device, FIFO,
		 * socket or directory (as root, "-f -o /dev/null" would delete /dev/null).
		 */
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			snprintf(err, errlen,
				 "%s exists and is %s, not a regular file; not replacing it",
				 opt->output, file_kind(st.st_mode));
			return -EEXIST;
		}
		if (!opt->force) {
			snprintf(err, errlen, "%s exists; use --force to overwrite it",
				 opt->output);
			return -EEXIST;
		}
	}
	snprintf(dir, sizeof(dir), "%s", opt->output);
	if (access(dirname(dir), W_OK)) {
		snprintf(err, errlen, "cannot create %s: %s", opt->output, strerror(errno));
		return -errno;
	}
	return 0;
}

static int create_output(const struct options *opt, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	/*
	 * --force removes the old name (a symlink itself, never its target); only a regular
	 * file or a symlink: it may have changed since rec_check_output looked.
	 */
	if (opt->force && lstat(opt->output, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is %s, not a regular file; not replacing it",
			 opt->output, file_kind(st.st_mode));
		return -1;
	}
	if (opt->force && unlink(opt->output) && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove %s: %s", opt->output, strerror(errno));
		return -1;
	}
	fd = open(opt->output, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s exists; use --force to overwrite it",
				 opt->output);
		else
			snprintf(err, errlen, "cannot create %s: %s", opt->output, strerror(errno));
		return -1;
	}
	/* Exactly 0640 whatever the umask: captures can hold other processes' data. */
	if (fchmod(fd, 0640)) {
		/* not fatal */
	}
	return fd;
}

/* The header metadata: the system, then what was attached and how it is sampled. */
static void build_meta(struct rec *r, struct meta *m)
{
	const struct options *opt = r->opt;

	meta_add_system(m);
	if (r->target_desc[0])
		meta_add(m, "target", "%s", r->target_desc);
	if (r->target_pid)
		meta_add(m, "target.pid", "%d", (int)r->target_pid);
	if (r->symbol[0]) {
		meta_add(m, "library", "%s", r->library);
		meta_add(m, "symbol", "%s", r->symbol);
		meta_add(m, "symbol.offset", "0x%llx", (unsigned long long)r->sym_offset);
		/* The batch path is attached in addition: say so, a replay has both kinds. */
		if (r->batch_offset) {
			meta_add(m, "symbol.batch", "%s", sym_batch);
			meta_add(m, "symbol.batch.offset", "0x%llx",
				 (unsigned long long)r->batch_offset);
		}
	}
	if (r->sysfs)
		meta_add(m, "sysfs.node", "%s", r->sysfs);
	if (r->probe)
		meta_add(m, "ring.kib", "%u", opt->ring_kib);
	meta_add(m, "flush.ms", "%u", opt->flush_ms);
	meta_add(m, "tick.ms", "%u", opt->tick_ms);
	meta_add(m, "sysfs.ms", "%u", opt->sysfs_ms);
}

int rec_open_capture(struct rec *r, char *err, size_t errlen)
{
	/*
	 * framerec closes every chunk itself (loop.c: on its wall-clock --flush-ms timer and
	 * every FR_CHUNK_RECORDS records), right after a drops record, so every chunk ends
	 * with the current count. The writer's own closes (a record's ktime flush_ms past the
	 * chunk's first, or chunk_max_bytes) would cut a chunk without one: both are set out
	 * of reach: FR_CHUNK_RECORDS records of at most FR_RECORD_WORST bytes fill at most
	 * half of a chunk of the format's 64 MiB limit.
	 */
	struct frc_writer_options wo = {
	    .flush_ms = UINT32_MAX,
	    .chunk_max_bytes = FR_CHUNK_RECORDS * FR_RECORD_WORST * 2,
	};
	struct meta m = {0};
	int ret;

	build_meta(r, &m);
	r->fd = create_output(r->opt, err, errlen);
	if (r->fd < 0) {
		meta_free(&m);
		return -1;
	}
	ret = frc_writer_open_fd(&r->w, r->fd, r->opt->output, m.v, m.n, &wo);
	meta_free(&m);
	if (ret) {
		snprintf(err, errlen, "%s", r->w ? frc_writer_error(r->w) : frc_strerror(ret));
		frc_writer_free(r->w);
		r->w = NULL;
		close(r->fd);
		r->fd = -1;
		unlink(r->opt->output);
		return -1;
	}
	return 0;
}
