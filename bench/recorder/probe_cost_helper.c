/* SPDX-License-Identifier: MIT */
/*
 * probe_cost_helper - the pieces of bench/recorder/probe_cost.sh that a shell cannot do.
 *
 *   probe-cost-helper empty LIB SYMBOL -- COMMAND...
 *	attach the empty uprobe program (empty.bpf.c) on LIB:SYMBOL for every process,
 *	run COMMAND, detach; exits with COMMAND's status.
 *   probe-cost-helper cpu -- COMMAND...
 *	run COMMAND and print "cpu_ns=N": its own CPU time, not its children's.
 *   probe-cost-helper frames CAPTURE.frc
 *	print "frames=N drops=D status=S" for a capture.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "frc.h"
#include "probe_empty.skel.h"

static int usage(void)
{
	fprintf(stderr, "Usage: probe-cost-helper empty LIB SYMBOL -- COMMAND...\n"
			"       probe-cost-helper cpu -- COMMAND...\n"
			"       probe-cost-helper frames CAPTURE.frc\n"
			"Helpers for bench/recorder/probe_cost.sh (see there).\n");
	return 2;
}

/* libbpf stays quiet unless something is wrong. */
__attribute__((format(printf, 2, 0))) static int libbpf_quiet(enum libbpf_print_level level,
							      const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static pid_t start(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "probe-cost-helper: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "probe-cost-helper: fork: %s\n", strerror(errno));
	return pid;
}

/* The exit code a shell would report for wait status st. */
static int exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmd_empty(const char *lib, const char *symbol, char **command)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = symbol);
	struct probe_empty *skel = NULL;
	struct bpf_link *link = NULL;
	int st, rc = 1;

	libbpf_set_print(libbpf_quiet);
	skel = probe_empty__open_and_load();
	if (!skel) {
		fprintf(stderr, "probe-cost-helper: loading empty.bpf.o: %s\n", strerror(errno));
		goto cleanup;
	}
	/* pid -1: every process; only the stand-in game calls the stand-in library. */
	link = bpf_program__attach_uprobe_opts(skel->progs.empty, -1, lib, 0, &opts);
	if (!link) {
		fprintf(stderr, "probe-cost-helper: uprobe %s:%s: %s\n", lib, symbol,
			strerror(errno));
		goto cleanup;
	}
	pid_t pid = start(command);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		goto cleanup;
	rc = exit_code(st);
cleanup:
	bpf_link__destroy(link);
	probe_empty__destroy(skel);
	return rc;
}

/*
 * CPU time of a process that has exited but is not yet reaped. First choice: the first
 * field of /proc/PID/schedstat, the main thread's time on CPU in ns (framerec is
 * single-threaded), because utime+stime in /proc/PID/stat count 10 ms ticks: too coarse
 * for ~0.1 s of recorder work. Fallback: fields 14 and 15 of /proc/PID/stat (its own
 * threads only; children are in fields 16 and 17).
 */
static int own_cpu_ns(pid_t pid, uint64_t *ns)
{
	char path[64], buf[1024];
	unsigned long long ut, st, run;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		int ok = fscanf(f, "%llu", &run) == 1;
		fclose(f);
		if (ok) {
			*ns = run;
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* The command name (field 2) may hold spaces and ')': parse after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	*ns = (ut + st) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
	return 0;
}

static int cmd_cpu(char **command)
{
	siginfo_t si;
	uint64_t ns;
	int st;

	pid_t pid = start(command);
	if (pid < 0)
		return 1;
	/* WNOWAIT: the exited process stays a zombie, so its /proc/PID/stat is still there. */
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0) {
		fprintf(stderr, "probe-cost-helper: waitid: %s\n", strerror(errno));
		return 1;
	}
	int have = own_cpu_ns(pid, &ns) == 0;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	if (!have) {
		fprintf(stderr, "probe-cost-helper: cannot read /proc/%d/stat\n", (int)pid);
		return 1;
	}
	printf("cpu_ns=%" PRIu64 "\n", ns);
	return exit_code(st);
}

static int cmd_frames(const char *path)
{
	struct frc_reader_stats st;
	struct frc_record rec;
	frc_reader *r = NULL;
	uint64_t drops = 0;
	int rc;

	rc = frc_reader_open(&r, path);
	if (rc) {
		fprintf(stderr, "probe-cost-helper: %s: %s\n", path,
			r ? frc_reader_error(r) : frc_strerror(rc));
		if (r)
			frc_reader_close(r);
		return 1;
	}
	while ((rc = frc_reader_next(r, &rec)) == 1)
		if (rec.type == FRC_DROPS)
			drops = rec.u.drops.cumulative;
	if (rc < 0) {
		fprintf(stderr, "probe-cost-helper: %s\n", frc_reader_error(r));
		frc_reader_close(r);
		return 1;
	}
	frc_reader_stats(r, &st);
	printf("frames=%" PRIu64 " drops=%" PRIu64 " status=%s\n", st.by_type[FRC_FRAME], drops,
	       frc_status_name(st.status));
	frc_reader_close(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && strcmp(argv[1], "empty") == 0 && strcmp(argv[4], "--") == 0)
		return cmd_empty(argv[2], argv[3], argv + 5);
	if (argc >= 4 && strcmp(argv[1], "cpu") == 0 && strcmp(argv[2], "--") == 0)
		return cmd_cpu(argv + 3);
	if (argc == 3 && strcmp(argv[1], "frames") == 0)
		return cmd_frames(argv[2]);
	return usage();
}
