/* SPDX-License-Identifier: MIT */
/*
 * rss_run.c - run a command, then print its wall time and peak resident set size on
 * stderr as "rss_run: SECONDS s, PEAK KiB peak RSS" (/usr/bin/time may be absent).
 * Peak RSS is the child's ru_maxrss from wait4(). Exits with the command's status.
 *
 * usage: rss_run CMD [ARGS...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: rss_run CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "rss_run: %.3f s, %ld KiB peak RSS\n",
		(double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
		ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
