// SPDX-License-Identifier: MIT
/*
 * target.c - the processes framerec records, as /proc shows them.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

/* Read a small /proc file whole; returns bytes read or -errno (nothing read). */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n = 0, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len && (n = read(fd, buf + total, len - total)) > 0)
		total += n;
	e = errno;
	close(fd);
	return n < 0 && total == 0 ? -e : total;
}

/*
 * /proc/PID/stat into buf; returns what follows "comm)" (comm may contain anything, so
 * the last ')' ends it) and sets *comm_start to the comm's first byte. NULL when unreadable.
 */
static char *read_stat(pid_t pid, char *buf, size_t len, char **comm_start)
{
	char path[64], *open_paren, *close_paren;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = read_small(path, buf, len - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return NULL;
	*comm_start = open_paren + 1;
	return close_paren + 1;
}

bool target_alive(pid_t pid)
{
	char buf[1024], *comm, *rest = read_stat(pid, buf, sizeof(buf), &comm);

	/* " S ...": the state letter; zombies and dead tasks do not count. */
	return rest && rest[1] != 'Z' && rest[1] != 'X';
}

int64_t target_age_ms(pid_t pid)
{
	char buf[1024], *comm, *rest = read_stat(pid, buf, sizeof(buf), &comm);
	unsigned long long start;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);

	/* After "comm) ": fields 3..21, then starttime (22): clock ticks after boot. */
	if (!rest || hz <= 0 ||
	    sscanf(rest,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu",
		   &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &now))
		return rest ? -EINVAL : -ESRCH;
	/* starttime counts from boot, suspend included: CLOCK_BOOTTIME's origin. */
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 -
	       (int64_t)(start * 1000 / (unsigned long long)hz);
}

/* PF_KTHREAD in include/linux/sched.h: stable kernel ABI as seen through /proc. */
#define PF_KTHREAD 0x00200000ul

bool target_is_kthread(pid_t pid, char *comm, size_t comm_len)
{
	char buf[1024], *name, *rest = read_stat(pid, buf, sizeof(buf), &name);
	unsigned long flags;

	/* After "comm) ": state ppid pgrp session tty_nr tpgid flags (field 9). */
	if (!rest || sscanf(rest, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	snprintf(comm, comm_len, "%.*s", (int)(rest - 1 - name), name);
	return (flags & PF_KTHREAD) != 0;
}

pid_t target_tgid(pid_t pid)
{
	char path[64], buf[2048], *t;
	ssize_t n;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	n = read_small(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	t = strstr(buf, "\nTgid:");
	if (!t || sscanf(t + 6, "%ld", &v) != 1 || v <= 0)
		return 0;
	return (pid_t)v;
}

void target_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = read_small(path, buf, len - 1);
	if (n <= 0)
		return;
	while (n > 0 && buf[n - 1] == 0)
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	buf[n] = 0;
}

void target_name_of(const char *argv0, char *buf, size_t len)
{
	size_t n = strcspn(argv0, " ");
	const char *base = argv0;

	for (size_t i = 0; i < n; i++)
		if (argv0[i] == '/')
			base = argv0 + i + 1;
	n -= (size_t)(base - argv0);
	if (n >= len)
		n = 0; /* a name that does not fit names nothing: none */
	memcpy(buf, base, n);
	buf[n] = 0;
}

void target_program(pid_t pid, char *buf, size_t len)
{
	char cmd[4096];

	target_cmdline(pid, cmd, sizeof(cmd));
	target_name_of(cmd, buf, len);
}

static bool argv0_matches(pid_t pid, const char *name)
{
	char path[64], buf[4096], *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = read_small(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = 0; /* argv[0] is the first NUL-terminated string */
	if (strcmp(buf, name) == 0)
		return true;
	/* On Linux argv[0] is often a path; Android app processes carry the bare package. */
	base = strrchr(buf, '/');
	return base && strcmp(base + 1, name) == 0;
}

int target_find_package(const char *name, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	pid_t self = getpid();

	if (!d)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		if (argv0_matches((pid_t)pid, name) && target_alive((pid_t)pid))
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/*
 * The file named by one /proc/PID/maps line when its basename is base: its path as the
 * target shows it into map_path, as framerec opens it into open_path. false otherwise.
 */
static bool maps_line_lib(pid_t pid, char *line, const char *base, char *map_path, size_t map_len,
			  char *open_path, size_t open_len)
{
	char *file = strchr(line, '/'), *nl;
	size_t flen, blen = strlen(base);
	struct stat a, b;

	if (!file)
		return false;
	nl = strchr(file, '\n');
	if (nl)
		*nl = 0;
	flen = strlen(file);
	/* "/.../libgui.so" exactly: basename equal, not "(deleted)" or a prefix. */
	if (flen <= blen || file[flen - blen - 1] != '/' || strcmp(file + flen - blen, base))
		return false;
	snprintf(map_path, map_len, "%s", file);
	/*
	 * The path is in the target's mount namespace; /proc/PID/root/PATH names the same
	 * file from ours. Prefer the plain path when it is the same file.
	 */
	snprintf(open_path, open_len, "/proc/%d/root%s", (int)pid, file);
	if (stat(file, &a) == 0 && stat(open_path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		snprintf(open_path, open_len, "%s", file);
	return true;
}

int target_mapped_lib(pid_t pid, const char *base, target_lib_ok accept, void *ctx, char *map_path,
		      size_t map_len, char *open_path, size_t open_len)
{
	char path[64], *line = NULL, m[PATH_MAX], o[PATH_MAX];
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret != 0 && getline(&line, &cap, f) > 0) {
		if (!maps_line_lib(pid, line, base, m, sizeof(m), o, sizeof(o)))
			continue;
		/* An accepted file wins; else the first one found is what the caller names. */
		if (accept && !accept(m, o, ctx)) {
			if (ret == -ENOENT) {
				snprintf(map_path, map_len, "%s", m);
				snprintf(open_path, open_len, "%s", o);
			}
			ret = -EPERM;
			continue;
		}
		snprintf(map_path, map_len, "%s", m);
		snprintf(open_path, open_len, "%s", o);
		ret = 0;
	}
	free(line);
	fclose(f);
	return ret;
}

int target_is_32bit(pid_t pid)
{
	char path[64];
	unsigned char ident[EI_NIDENT];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = read_small(path, (char *)ident, sizeof(ident));
	if (n < 0)
		return (int)n;
	if (n < EI_NIDENT || memcmp(ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	return ident[EI_CLASS] == ELFCLASS32;
}

int target_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
#else
	return -ENOSYS;
#endif
}
