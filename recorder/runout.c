// SPDX-License-Identifier: MIT
/*
 * runout.c - run a helper with a deadline and an output cap (runout.h).
 */
#include "runout.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The helper starts with no signal blocked and default dispositions: framerec blocks the
 * signals it waits for and ignores SIGPIPE, and neither is the helper's business.
 */
static int spawn(const char *path, char *const argv[], int out_fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int err;

	sigemptyset(&none);
	sigfillset(&dfl);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	err = posix_spawn(pid, path, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -err;
}

/*
 * Read until end of file, the deadline or the cap; returns 0, -ETIMEDOUT or -EFBIG. Once
 * buf is full, one more byte (read into a scratch byte) means too much; end of file then
 * means an exact fit.
 */
static int collect(int fd, uint64_t deadline, char *buf, size_t cap, size_t *len)
{
	for (;;) {
		uint64_t t = now_ns();
		if (t >= deadline)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ms = (int)((deadline - t + 999999) / 1000000);
		int n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ETIMEDOUT;
		char scratch;
		bool full = *len == cap - 1;
		ssize_t r = full ? read(fd, &scratch, 1) : read(fd, buf + *len, cap - 1 - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		if (full)
			return -EFBIG;
		*len += (size_t)r;
	}
}

/* Wait for the helper (killed first when asked); *code: its exit status or 128 + signal. */
static int reap(pid_t pid, bool kill_it, int *code)
{
	int st;
	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	*code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

int runout(const char *path, char *const argv[], uint32_t timeout_ms, char *buf, size_t cap,
	   struct runout *out)
{
	uint64_t t0 = now_ns();
	int pfd[2], ret;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	if (cap < 1)
		return -EINVAL;
	buf[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	ret = spawn(path, argv, pfd[1], &pid);
	close(pfd[1]);
	if (ret == 0) {
		ret = collect(pfd[0], t0 + (uint64_t)timeout_ms * 1000000u, buf, cap, &out->len);
		int rr = reap(pid, ret != 0, &out->exit_code);
		if (ret == 0)
			ret = rr;
	}
	close(pfd[0]);
	buf[out->len] = '\0';
	out->wall_ns = now_ns() - t0;
	return ret;
}
