// SPDX-License-Identifier: MIT
/*
 * child.c - framerec -- COMMAND: fork the command blocked on a pipe, so the probe can be
 * attached (by library path, before the library is mapped) and the file created before
 * its first instruction runs; then release it and learn whether the exec worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recording.h"

int rec_start_child(struct rec *r, char *err, size_t errlen)
{
	int gate[2], ep[2], ret;
	pid_t pid, parent = getpid();

	if (pipe2(gate, O_CLOEXEC))
		goto fail;
	if (pipe2(ep, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		close(gate[0]);
		close(gate[1]);
		close(ep[0]);
		close(ep[1]);
		goto fail;
	}
	if (pid == 0) {
		sigset_t all;
		char c;
		int e;

		/*
		 * framerec killed (kill -9, a crash) must not leave the command running on,
		 * unrecorded. SIGTERM, as a normal stop begins (record.c, end_child): the command
		 * can end cleanly (the stand-in writes its truth file, which the arm64 kernel
		 * stage's SIGKILL run checks framerec's truncated capture against). With
		 * framerec dead nobody escalates to SIGKILL, so a command that ignores SIGTERM
		 * runs on: the price of letting the others finish their writes. The signal
		 * comes when the forking thread exits (framerec's only one) and survives the
		 * exec (not of a set-user-ID program). framerec may have died before the
		 * prctl: then the parent is no longer it (reparented to init or a subreaper,
		 * so compare with its PID, not with 1) and the command must not run at all.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL); /* framerec ignores these; the command must not */
		signal(SIGXFSZ, SIG_DFL);
		close(gate[1]);
		close(ep[0]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127); /* framerec gave up: never run the command */
		execvp(r->opt->command[0], r->opt->command);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[0]);
	close(ep[1]);
	r->child = pid;
	r->child_gate = gate[1];
	r->child_err = ep[0];
	snprintf(r->target_desc, sizeof(r->target_desc), "%s", r->opt->command[0]);
	for (char **a = r->opt->command + 1; *a; a++) {
		size_t n = strlen(r->target_desc);

		snprintf(r->target_desc + n, sizeof(r->target_desc) - n, " %s", *a);
	}
	return 0;
fail:
	ret = errno;
	snprintf(err, errlen, "cannot start %s: %s", r->opt->command[0], strerror(ret));
	return -ret;
}

/* Let the child exec; returns 0 when the exec succeeded, else -errno (the exec's). */
int rec_release_child(struct rec *r, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (write(r->child_gate, "g", 1) != 1)
		e = errno;
	close(r->child_gate);
	r->child_gate = -1;
	/* EOF: the exec closed the CLOEXEC pipe; an int: the exec's errno. */
	do
		n = read(r->child_err, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(r->child_err);
	r->child_err = -1;
	if (n == (ssize_t)sizeof(e) || e) {
		snprintf(err, errlen, "cannot run %s: %s", r->opt->command[0], strerror(e));
		return e ? -e : -EIO;
	}
	return 0;
}

/*
 * Is cmd runnable (a path, or found in PATH)? Checked before any attach. 0, or why not
 * (for a path, -errno of access(X_OK); for a name, -ENOENT when no PATH entry has it).
 */
int rec_command_check(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK))
			return -errno;
		return stat(cmd, &st) == 0 && S_ISDIR(st.st_mode) ? -EISDIR : 0;
	}
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
			return 0;
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}
