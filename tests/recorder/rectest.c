/* SPDX-License-Identifier: MIT */
/*
 * rectest.c - the helpers framerec's test binaries share (rectest.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rectest.h"

const char *const variant_name[N_VARIANTS] = {"hook",	"internal", "deprecated", "legacy",
					      "output", "sp",	    "sp_input",	  "impl"};
const char *const variant_game[N_VARIANTS] = {"hook",	"internal", "deprecated", "legacy",
					      "output", "sp",	    "sp_input",	  "sp_input"};
const char *const variant_symbol[N_VARIANTS] = {
    "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
    "_ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi",
    "_ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
    "24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_"
    "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPKNS_"
    "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
};

/* ------------------------------------------------------------ scratch files */

char tmpdir[64];

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
			if (unlink(p))
				rmdir(p); /* the unwritable-path test's subdirectory */
		}
	}
	closedir(d);
	rmdir(tmpdir);
}

/* A path in this test's scratch directory (static rotating storage, 8 live at once). */
const char *tmp(const char *name)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *p = bufs[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

/* ------------------------------------------------------------ child processes */

pid_t children[MAX_CHILDREN];
int n_children;

/* Runs at exit of the test process, also when an assertion failed (Check calls exit). */
char mounted[PATH_MAX]; /* a tmpfs the test mounted ("" when none) */

static void cleanup(void)
{
	for (int i = 0; i < n_children; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
		}
	}
	n_children = 0;
	if (mounted[0]) {
		umount2(mounted, MNT_DETACH);
		mounted[0] = 0;
	}
	remove_tmpdir();
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/frc-rectest-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	atexit(cleanup);
}

static void teardown(void)
{
	cleanup();
}

/* A reaped child leaves the list, so a test may start more than MAX_CHILDREN in turn. */
void forget_child(pid_t pid)
{
	for (int i = 0; i < n_children; i++)
		if (children[i] == pid) {
			children[i] = children[--n_children];
			return;
		}
}

/*
 * Start path with argv (argv[0] may differ from path: the --package tests need a custom
 * process name). stdout and stderr go to out_file (NULL: /dev/null). The child dies with
 * the test process (PR_SET_PDEATHSIG), so a failed test leaves nothing running.
 */
rlim_t spawn_fsize;  /* RLIMIT_FSIZE for the next spawn (0: none) */
uid_t spawn_uid;     /* run the next spawn as this user, no groups (0: as we are) */
bool spawn_realtime; /* run the next spawn SCHED_FIFO (see start_game) */

pid_t spawn(const char *path, char *const argv[], const char *out_file)
{
	ck_assert_int_lt(n_children, MAX_CHILDREN);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int in = open("/dev/null", O_RDONLY);
		int out =
		    open(out_file ? out_file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		if (spawn_fsize) {
			struct rlimit rl = {spawn_fsize, spawn_fsize};
			setrlimit(RLIMIT_FSIZE, &rl);
		}
		if (spawn_realtime) {
			struct sched_param sp = {.sched_priority = 1};
			(void)sched_setscheduler(0, SCHED_FIFO,
						 &sp); /* best effort: see start_game */
		}
		if (spawn_uid && (setgroups(0, NULL) || setgid(spawn_uid) || setuid(spawn_uid)))
			_exit(125);
		execv(path, argv);
		_exit(127);
	}
	children[n_children++] = pid;
	return pid;
}

/* Wait up to timeout_ms for pid; returns its wait status, or -1 (then it is killed). */
int wait_exit(pid_t pid, int timeout_ms)
{
	int st;

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			forget_child(pid);
			return st;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	forget_child(pid);
	return -1;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The whole of a small text file (framerec's output), NUL-terminated, static storage. */
const char *slurp(const char *path)
{
	static char buf[16384];
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = 0;
		fclose(f);
	}
	return buf;
}

void add(struct args *a, const char *fmt, ...)
{
	va_list ap;

	ck_assert_int_lt(a->n, 63);
	va_start(ap, fmt);
	vsnprintf(a->store[a->n], PATH_MAX, fmt, ap);
	va_end(ap);
	a->v[a->n] = a->store[a->n];
	a->v[++a->n] = NULL;
}

/* ------------------------------------------------------------ stand-in game */

/* Where the stand-in libgui.so is loaded in pid (its mapping at file offset 0), or 0. */
static uint64_t lib_base(pid_t pid)
{
	char path[64], line[PATH_MAX + 128];
	uint64_t base = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *m = fopen(path, "r");
	while (m && fgets(line, sizeof(line), m)) {
		unsigned long long lo, off;
		char *name = strchr(line, '/');
		if (!name || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (off == 0 && strcmp(name, STANDIN_LIB) == 0) {
			base = lo;
			break;
		}
	}
	if (m)
		fclose(m);
	return base;
}

/* Wait until pid has mapped the stand-in library (the dynamic loader has run). */
void wait_mapped(pid_t pid)
{
	for (int waited = 0; waited < 10000 && !lib_base(pid); waited += 5)
		usleep(5000);
	ck_assert_msg(lib_base(pid), "pid %d never mapped %s", (int)pid, STANDIN_LIB);
}

/*
 * pid can take SIGUSR1 without dying of it: it blocks it (/proc/PID/status SigBlk), or it
 * waits for it in sigwait, during which the kernel unblocks the waited signals
 * (/proc/PID/syscall: rt_sigtimedwait).
 */
static bool blocks_sigusr1(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	long nr = -1;
	bool blocked = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			blocked = mask & (1ull << (SIGUSR1 - 1));
	fclose(f);
	if (blocked)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_rt_sigtimedwait;
}

/*
 * Start standin-game gated (--wait-signal): it makes no call before SIGUSR1, so a probe
 * can be attached first. argv0 is its process name. extra: further NULL-terminated args.
 * Returns once the game has mapped libgui.so and blocks SIGUSR1.
 */
pid_t start_game(const char *argv0, int variant, const char *truth, const char *fps,
		 const char *frames, ...)
{
	static struct args a;
	va_list ap;
	const char *s;

	a.n = 0;
	add(&a, "%s", argv0);
	add(&a, "--wait-signal");
	add(&a, "--symbol");
	add(&a, "%s", variant_game[variant]);
	add(&a, "--fps");
	add(&a, "%s", fps);
	add(&a, "--frames");
	add(&a, "%s", frames);
	add(&a, "--buffers");
	add(&a, "3");
	if (truth) {
		add(&a, "--truth");
		add(&a, "%s", truth);
	}
	va_start(ap, frames);
	while ((s = va_arg(ap, const char *)))
		add(&a, "%s", s);
	va_end(ap);
	/*
	 * The truth timestamp is taken right before the call, so the scheduler must not run
	 * anything between the two: on a loaded 2-core CI machine an ordinary thread was once
	 * descheduled there for 4.3 ms, and the 2 ms check failed a correct recording. A
	 * SCHED_FIFO game (its threads inherit it) is preempted only by interrupts. It sleeps
	 * between calls, so it cannot starve framerec.
	 */
	spawn_realtime = true;
	pid_t pid = spawn(STANDIN_GAME, a.v, NULL);
	spawn_realtime = false;
	/* Like a running app, the game has libgui.so mapped before anyone attaches to it. */
	wait_mapped(pid);
	/*
	 * And it blocks SIGUSR1 before anyone may send it: the loader maps the library before
	 * main, which blocks it, runs; a SIGUSR1 in between kills the game (its default).
	 */
	for (int waited = 0; waited < 10000 && !blocks_sigusr1(pid); waited += 5)
		usleep(5000);
	ck_assert_msg(blocks_sigusr1(pid), "pid %d never blocked SIGUSR1", (int)pid);
	return pid;
}

/*
 * Wait until the uprobe on symbol is armed in process pid: the kernel then has written
 * its breakpoint instruction over the function's first instruction in that process's
 * copy of the code page, which /proc/PID/mem shows. This tells us, without relying on
 * anything framerec prints, that calls from now on trap into the BPF program. Returns
 * true when armed within timeout_ms.
 */
bool wait_armed(pid_t pid, const char *symbol, int timeout_ms)
{
#if defined(__x86_64__)
	static const unsigned char bkpt[] = {0xcc}; /* int3 */
#elif defined(__aarch64__)
	static const unsigned char bkpt[] = {0xa0, 0x00, 0x20, 0xd4}; /* brk #0x5 */
#else
#error "wait_armed: no uprobe breakpoint instruction known for this architecture"
#endif
	/* The symbol's offset from the library's load base, from our own dlopen of it. */
	void *h = dlopen(STANDIN_LIB, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", STANDIN_LIB, dlerror());
	void *f = dlsym(h, symbol);
	Dl_info info;
	ck_assert_msg(f && dladdr(f, &info), "%s not in %s", symbol, STANDIN_LIB);
	uint64_t rel = (uint64_t)((char *)f - (char *)info.dli_fbase);
	dlclose(h);

	char path[64];
	for (int waited = 0; waited <= timeout_ms; waited += 5) {
		uint64_t base = lib_base(pid);
		if (base) {
			unsigned char code[sizeof(bkpt)];
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
			int fd = open(path, O_RDONLY);
			ssize_t n =
			    fd >= 0 ? pread(fd, code, sizeof(code), (off_t)(base + rel)) : -1;
			if (fd >= 0)
				close(fd);
			if (n == (ssize_t)sizeof(code) && memcmp(code, bkpt, sizeof(code)) == 0) {
				/*
				 * Armed. Attaching is breakpoint first, then the BPF program
				 * on the perf event: leave that a moment to complete.
				 */
				usleep(100000);
				return true;
			}
		}
		usleep(5000);
	}
	return false;
}

/* ------------------------------------------------------------ truth and capture */

void read_truth(const char *path, struct truth *t)
{
	FILE *f = fopen(path, "r");
	char line[256];

	ck_assert_msg(f, "truth file %s: %s", path, strerror(errno));
	t->n = 0;
	while (t->n < TRUTH_MAX && fgets(line, sizeof(line), f)) {
		int got = sscanf(
		    line, "%" SCNu64 " 0x%" SCNx64 " 0x%" SCNx64 " %" SCNu32 " %" SCNd64,
		    &t->ns[t->n], &t->buf[t->n], &t->surface[t->n], &t->tid[t->n], &t->ts[t->n]);
		ck_assert_msg(got == 4 || got == 5, "truth file %s: bad line %zu: %s", path,
			      t->n + 1, line);
		t->has_ts[t->n] = got == 5;
		t->n++;
	}
	ck_assert_msg(feof(f), "truth file %s: more than %d lines", path, TRUTH_MAX);
	fclose(f);
}

void read_capture(const char *path, struct capture *c)
{
	frc_reader *rd = NULL;
	struct frc_record rec;
	size_t cap = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = frc_reader_open(&rd, path);
	ck_assert_msg(rc == 0, "frc_reader_open(%s): %s", path,
		      rd ? frc_reader_error(rd) : frc_strerror(rc));
	const char *sym = frc_reader_meta_get(rd, "symbol");
	snprintf(c->symbol_meta, sizeof(c->symbol_meta), "%s", sym ? sym : "");
	while ((rc = frc_reader_next(rd, &rec)) == 1) {
		if (c->n == cap) {
			cap = cap ? 2 * cap : 1024;
			c->r = realloc(c->r, cap * sizeof(*c->r));
			ck_assert_ptr_nonnull(c->r);
		}
		struct rec *o = &c->r[c->n++];
		memset(o, 0, sizeof(*o));
		o->type = rec.type;
		o->ktime = rec.ktime_ns;
		switch (rec.type) {
		case FRC_FRAME:
			o->pid = rec.u.frame.pid;
			o->tid = rec.u.frame.tid;
			o->value = rec.u.frame.buffer;
			o->surface = rec.u.frame.surface;
			o->has_ts = rec.u.frame.has_timestamp;
			o->ts = rec.u.frame.timestamp;
			break;
		case FRC_DROPS:
			o->value = rec.u.drops.cumulative;
			o->anomalies = rec.u.drops.batch_anomalies;
			break;
		case FRC_ATTACH:
			o->pid = rec.u.attach.pid;
			snprintf(o->symbol, sizeof(o->symbol), "%s", rec.u.attach.symbol);
			break;
		case FRC_EXIT:
			o->pid = rec.u.exit.pid;
			break;
		case FRC_TICK:
			o->valid = rec.u.tick.has_result && rec.u.tick.source != FRC_SOURCE_NONE;
			o->value = o->valid ? rec.u.tick.fps_micro : 0;
			break;
		}
	}
	ck_assert_msg(rc == 0, "frc_reader_next(%s): %s", path, frc_reader_error(rd));
	frc_reader_stats(rd, &c->st);
	frc_reader_close(rd);
}

void free_capture(struct capture *c)
{
	free(c->r);
	c->r = NULL;
}

/* Index of the k-th record (0-based) of type with pid (0: any pid), or -1. */
long find_rec(const struct capture *c, uint8_t type, uint32_t pid, size_t k)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].type == type && (pid == 0 || c->r[i].pid == pid) && k-- == 0)
			return (long)i;
	return -1;
}

size_t count_rec(const struct capture *c, uint8_t type, uint32_t pid)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->r[i].type == type && (pid == 0 || c->r[i].pid == pid);
	return n;
}

/* The cumulative count of the last drops record (0 when there is none). */
uint64_t last_drops(const struct capture *c, bool *present)
{
	*present = false;
	uint64_t v = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].type == FRC_DROPS) {
			v = c->r[i].value;
			*present = true;
		}
	return v;
}

/* One call, recorded or true, and its place in its stream. */
struct call {
	uint64_t ns, buf, surface;
	uint32_t tid;
	size_t order;
	bool has_ts;
	int64_t ts;
};

/* By surface, then in order: each Surface's calls as one stream (one thread queues it). */
static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->surface != y->surface)
		return x->surface < y->surface ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * pid's frames equal the first `expect` truth calls, call for call within each Surface's
 * stream (the streams of two threads may interleave differently in the ring and in the
 * truth file when two calls are near-simultaneous): same buffer, Surface and thread, ktime
 * within MAX_SKEW_NS of the truth timestamp. Returns the number of pid's frames.
 */
size_t check_frames(const struct capture *c, pid_t pid, const struct truth *t, size_t expect)
{
	struct call *got = calloc(expect + 1, sizeof(*got)),
		    *want = calloc(expect + 1, sizeof(*want));
	size_t k = 0;

	ck_assert(got && want && expect <= t->n);
	for (size_t i = 0; i < c->n; i++) {
		const struct rec *r = &c->r[i];
		if (r->type != FRC_FRAME || r->pid != (uint32_t)pid)
			continue;
		ck_assert_msg(k < expect, "pid %d: more frames recorded than the %zu expected",
			      (int)pid, expect);
		got[k] = (struct call){r->ktime, r->value, r->surface, r->tid, k, r->has_ts, r->ts};
		k++;
	}
	ck_assert_msg(k == expect, "pid %d: %zu frames recorded, %zu calls expected", (int)pid, k,
		      expect);
	for (size_t i = 0; i < expect; i++)
		want[i] = (struct call){t->ns[i], t->buf[i],	t->surface[i], t->tid[i],
					i,	  t->has_ts[i], t->ts[i]};
	qsort(got, expect, sizeof(*got), call_cmp);
	qsort(want, expect, sizeof(*want), call_cmp);
	for (size_t i = 0; i < expect; i++) {
		const struct call *g = &got[i], *w = &want[i];
		uint64_t d = g->ns > w->ns ? g->ns - w->ns : w->ns - g->ns;

		ck_assert_msg(g->has_ts == w->has_ts && (!g->has_ts || g->ts == w->ts),
			      "pid %d truth call %zu: timestamp %s%" PRId64 ", truth %s%" PRId64,
			      (int)pid, w->order, g->has_ts ? "" : "none ", g->ts,
			      w->has_ts ? "" : "none ", w->ts);
		ck_assert_msg(g->surface == w->surface && g->buf == w->buf && g->tid == w->tid,
			      "pid %d truth call %zu: recorded buffer 0x%" PRIx64
			      " surface 0x%" PRIx64 " tid %u, truth 0x%" PRIx64 " 0x%" PRIx64 " %u",
			      (int)pid, w->order, g->buf, g->surface, g->tid, w->buf, w->surface,
			      w->tid);
		/*
		 * Causality, exact whatever the load: the game reads CLOCK_MONOTONIC (the
		 * probe's clock) right before its call and again before its next call.
		 * (A batch's buffers share one call, one truth time.)
		 */
		ck_assert_msg(g->ns >= w->ns,
			      "pid %d truth call %zu: ktime %" PRIu64
			      " precedes its call at %" PRIu64,
			      (int)pid, w->order, g->ns, w->ns);
		if (i + 1 < expect && w[1].surface == w->surface && w[1].ns > w->ns)
			ck_assert_msg(g->ns <= w[1].ns,
				      "pid %d truth call %zu: ktime %" PRIu64
				      " follows the next call at %" PRIu64,
				      (int)pid, w->order, g->ns, w[1].ns);
		ck_assert_msg(d <= MAX_SKEW_NS,
			      SKEW_MARK "pid %d truth call %zu: ktime %" PRIu64 " is %" PRIu64
					" ns from the truth %" PRIu64,
			      (int)pid, w->order, g->ns, d, w->ns);
	}
	free(got);
	free(want);
	return k;
}

/* ------------------------------------------------------------ framerec */

/* framerec's argv: the arguments given, NULL-terminated; --quiet always. */
pid_t start_framerec(const char *log, ...)
{
	static struct args a;
	va_list ap;
	const char *s;

	a.n = 0;
	add(&a, "framerec");
	add(&a, "--quiet");
	va_start(ap, log);
	while ((s = va_arg(ap, const char *)))
		add(&a, "%s", s);
	va_end(ap);
	return spawn(FRAMEREC, a.v, log);
}

/* Assert a child exited normally with code; show framerec's log otherwise. */
void assert_exit(int st, int code, const char *log)
{
	ck_assert_msg(st != -1, "timed out; output: %s", log ? slurp(log) : "");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == code,
		      "expected exit %d, got status 0x%x; output: %s", code, st,
		      log ? slurp(log) : "");
}

static char pidbuf[8][16];
/* A PID as an argument string (8 live at once). */
const char *pidstr(pid_t pid)
{
	static int next;
	char *p = pidbuf[next++ % 8];
	snprintf(p, 16, "%d", (int)pid);
	return p;
}

/* A game that never calls (gated forever), as a valid --pid for the refusal tests. */
pid_t idle_game(void)
{
	return start_game("standin-game", V_LEGACY, NULL, "60", "0", NULL);
}

/* framerec exited 1 with a one-line-or-more message on stderr that contains needle. */
void assert_refused(pid_t rec, const char *log, const char *needle)
{
	assert_exit(wait_exit(rec, 10000), 1, log);
	const char *out = slurp(log);
	ck_assert_msg(strstr(out, needle), "the message does not name '%s': %s", needle, out);
}

/* A small text file at path. */
void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The capture's tick.ms metadata (which run wrote it), after checking it is complete. */
unsigned long capture_tick_ms(const char *path)
{
	frc_reader *rd = NULL;
	struct frc_record rec;
	const char *v;
	unsigned long ms;
	int rc;

	ck_assert_msg(frc_reader_open(&rd, path) == 0, "%s: not a capture", path);
	v = frc_reader_meta_get(rd, "tick.ms");
	ck_assert_ptr_nonnull(v);
	ms = strtoul(v, NULL, 10);
	while ((rc = frc_reader_next(rd, &rec)) == 1)
		;
	ck_assert_int_eq(rc, 0);
	frc_reader_close(rd);
	return ms;
}

static Suite *build_suite(const struct test_entry *tests, size_t n)
{
	Suite *s = suite_create("recorder");

	for (size_t i = 0; i < n; i++) {
		/* One TCase per test, named like it, so CTest can run each one alone. */
		TCase *tc = tcase_create(tests[i].name);
		tcase_set_timeout(tc, 60);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

int rectest_main(const struct test_entry *tests, size_t n, int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	Suite *s = build_suite(tests, n);
	int run, failed;
	for (int attempt = 1;; attempt++) {
		SRunner *sr = srunner_create(s);
		srunner_run(sr, NULL, only, CK_NORMAL);
		run = srunner_ntests_run(sr);
		failed = srunner_ntests_failed(sr);
		bool skew_only = false;
		if (failed == 1 && run == 1) {
			TestResult **tr = srunner_failures(sr);
			skew_only = tr && strncmp(tr_msg(tr[0]), SKEW_MARK, strlen(SKEW_MARK)) == 0;
			free(tr);
		}
		/* srunner_free frees the suite too: keep it for the next attempt. */
		if (!skew_only || attempt == SKEW_RUNS) {
			srunner_free(sr);
			break;
		}
		fprintf(stderr,
			"test_recorder: run %d of %d missed only the %llu ns skew bound: "
			"running it again\n",
			attempt, SKEW_RUNS, MAX_SKEW_NS);
		srunner_free(sr);
		s = build_suite(tests, n);
	}
	if (run == 0) {
		fprintf(stderr, "test_recorder: no test named '%s'\n", only ? only : "");
		return 1;
	}
	return failed ? 1 : 0;
}
