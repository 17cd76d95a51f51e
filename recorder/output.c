// SPDX-License-Identifier: MIT
/*
 * output.c - the capture file: refuse early what cannot work, create it only once the
 * probe is attached (O_EXCL|O_NOFOLLOW, 0640), write the header metadata.
 *
 * --force never unlinks the old file at the start: the new capture is written under a
 * temporary name next to it (FILE.tmp-XXXXXX) and renamed over FILE when the recording
 * stops (rec_publish_capture). Two concurrent --force runs thus each write their own file,
 * and each one's summary describes the file it published; unlink-then-create let the
 * second run unlink the first one's file while the first went on writing into it.
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
#include "tracker_kind.h"

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

/* -EEXIST (said in err) for an existing -o that is not a regular file or a symlink, or 0. */
static int refuse_special(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is %s, not a regular file; not replacing it",
			 path, file_kind(st.st_mode));
		return -EEXIST;
	}
	return 0;
}

/* Fail early (before BPF work) on an output that exists or cannot be created. */
int rec_check_output(const struct options *opt, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret;

	/*
	 * --force replaces the name: never do that to a device, FIFO, socket or directory (as
	 * root, "-f -o /dev/null" would delete /dev/null).
	 */
	ret = refuse_special(opt->output, err, errlen);
	if (ret)
		return ret;
	if (!opt->force && lstat(opt->output, &st) == 0) {
		snprintf(err, errlen, "%s exists; use --force to overwrite it", opt->output);
		return -EEXIST;
	}
	snprintf(dir, sizeof(dir), "%s", opt->output);
	if (access(dirname(dir), W_OK)) {
		ret = -errno; /* before snprintf, which may change errno */
		snprintf(err, errlen, "cannot create %s: %s", opt->output, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * --force: a new file next to -o, renamed over it at the end (rec_publish_capture). Its fd,
 * or -errno with the message in err.
 */
static int create_temporary(struct rec *r, char *err, size_t errlen)
{
	const char *out = r->opt->output;
	size_t n = strlen(out);
	int fd, ret;

	/* it may have become a special file since rec_check_output looked */
	ret = refuse_special(out, err, errlen);
	if (ret)
		return ret;
	r->out_tmp = malloc(n + sizeof(".tmp-XXXXXX"));
	if (!r->out_tmp) {
		snprintf(err, errlen, "cannot create %s: out of memory", out);
		return -ENOMEM;
	}
	memcpy(r->out_tmp, out, n);
	memcpy(r->out_tmp + n, ".tmp-XXXXXX", sizeof(".tmp-XXXXXX"));
	fd = mkostemp(r->out_tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a file next to %s: %s", out, strerror(-ret));
		free(r->out_tmp);
		r->out_tmp = NULL;
		return ret;
	}
	return fd;
}

/* -o itself, never an existing file: its fd, or -errno with the message in err. */
static int create_exclusive(const char *out, char *err, size_t errlen)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640), ret;

	if (fd >= 0)
		return fd;
	ret = -errno;
	if (ret == -EEXIST)
		snprintf(err, errlen, "%s exists; use --force to overwrite it", out);
	else
		snprintf(err, errlen, "cannot create %s: %s", out, strerror(-ret));
	return ret;
}

/* The capture's fd (-o, or --force's temporary file), or -errno with the message in err. */
static int create_output(struct rec *r, char *err, size_t errlen)
{
	int fd = r->opt->force ? create_temporary(r, err, errlen)
			       : create_exclusive(r->opt->output, err, errlen);

	if (fd < 0)
		return fd;
	/* Exactly 0640 whatever the umask (mkostemp: 0600): captures hold others' data. */
	if (fchmod(fd, 0640)) {
		/* not fatal */
	}
	return fd;
}

int rec_publish_capture(struct rec *r)
{
	char err[2 * PATH_MAX + 64];
	int ret;

	if (!r->out_tmp)
		return 0;
	/*
	 * rename() replaces a symlink itself, never its target, and is atomic: a reader of
	 * -o sees the old capture or the whole new one. A special file that appeared at the
	 * name meanwhile is not replaced; the capture then stays under its temporary name.
	 */
	ret = refuse_special(r->opt->output, err, sizeof(err));
	if (!ret && rename(r->out_tmp, r->opt->output) != 0) {
		ret = -errno;
		snprintf(err, sizeof(err), "cannot rename %s to %s: %s", r->out_tmp, r->opt->output,
			 strerror(-ret));
	}
	if (ret)
		fprintf(stderr, "framerec: %s; the recording is kept in %s\n", err, r->out_tmp);
	free(r->out_tmp);
	r->out_tmp = NULL;
	return ret;
}

void rec_discard_capture(struct rec *r)
{
	unlink(r->out_tmp ? r->out_tmp : r->opt->output);
	free(r->out_tmp);
	r->out_tmp = NULL;
}

/* The header metadata: the system, then what was attached and how it is sampled. */
static void build_meta(struct rec *r, struct meta *m)
{
	const struct options *opt = r->opt;

	meta_add_system(m);
	if (r->target_desc[0])
		meta_add(m, "target", "%s", r->target_desc);
	if (r->target_pids[0])
		meta_add(m, "target.pid", "%s", r->target_pids);
	if (r->attach_latency_ms >= 0)
		meta_add(m, "attach.latency_ms", "%lld", (long long)r->attach_latency_ms);
	if (r->symbol[0]) {
		meta_add(m, "library", "%s", r->library);
		meta_add(m, "symbol", "%s", r->symbol);
		meta_add(m, "symbol.offset", "0x%llx", (unsigned long long)r->sym_offset);
		/* The batch path is attached in addition: say so, a replay has both kinds. */
		if (r->batch_symbol[0]) {
			meta_add(m, "symbol.batch", "%s", r->batch_symbol);
			meta_add(m, "symbol.batch.offset", "0x%llx",
				 (unsigned long long)r->batch_offset);
		}
		/* Surface lifetime (connect records): attached, or why the capture has none. */
		if (r->connect_symbol[0])
			meta_add(m, "symbol.connect", "%s", r->connect_symbol);
		if (r->disconnect_symbol[0])
			meta_add(m, "symbol.disconnect", "%s", r->disconnect_symbol);
		if (!r->connect_symbol[0] || !r->disconnect_symbol[0])
			meta_add(m, "lifetime",
				 "not recorded: libgui.so defines no Surface::%s "
				 "framerec knows",
				 r->connect_symbol[0] ? "disconnect" : "connect");
		/* Single-buffer calls' explicit timestamps: attached, or why there are none. */
		if (r->stamp_symbol[0])
			meta_add(m, "symbol.timestamp", "%s", r->stamp_symbol);
		else
			meta_add(m, "timestamps",
				 "batch elements only: libgui.so defines no "
				 "Surface::setBuffersTimestamp framerec knows");
	}
	if (r->sysfs)
		meta_add(m, "sysfs.node", "%s", r->sysfs);
	if (r->probe)
		meta_add(m, "ring.kib", "%u", opt->ring_kib);
	/* The live tracker: a replay runs the same one unless told otherwise. */
	meta_add(m, "tracker", "%s", rec_tracker_name(r));
	/* The live meter, likewise (a capture without the key ran auriya-10fe7c6). */
	meta_add(m, "meter", "%s", r->opt->meter ? r->opt->meter : METER_KIND_DEFAULT);
	meta_add(m, "flush.ms", "%u", opt->flush_ms);
	if (r->present) {
		meta_add(m, "present.dumpsys", "%s",
			 opt->dumpsys ? opt->dumpsys : FR_DEFAULT_DUMPSYS);
		meta_add(m, "present.package", "%s", r->display_package);
	}
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
	r->fd = create_output(r, err, errlen);
	if (r->fd < 0) {
		ret = r->fd;
		r->fd = -1;
		meta_free(&m);
		return ret;
	}
	ret = frc_writer_open_fd(&r->w, r->fd, r->opt->output, m.v, m.n, &wo);
	meta_free(&m);
	if (ret) {
		snprintf(err, errlen, "%s", r->w ? frc_writer_error(r->w) : frc_strerror(ret));
		frc_writer_free(r->w);
		r->w = NULL;
		close(r->fd);
		r->fd = -1;
		rec_discard_capture(r);
		return ret; /* an FRC_E* code of the format library */
	}
	return 0;
}
