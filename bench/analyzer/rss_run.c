/* SPDX-License-Identifier: MIT */
/*
 * rss_run.c - run a command, then print its wall time, peak resident set size and CPU
 * time (user + system) on stderr as "rss_run: SECONDS s, PEAK KiB peak RSS, CPU s CPU"
 * (/usr/bin/time may be absent). Peak RSS and CPU are the child's, from wait4(): on a
 * shared machine the CPU time is the steadier figure. Exits with the command's status.
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
	fprintf(stderr, "rss_run: %.3f s, %ld KiB peak RSS, %.3f s CPU\n",
		(double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, ru.ru_maxrss,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
