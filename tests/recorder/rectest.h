/* SPDX-License-Identifier: MIT */
/*
 * rectest.h - what framerec's two test binaries share: a scratch directory, child
 * processes that die with the test, the stand-in game, framerec's argv, capture reading,
 * the truth file, and the Check runner.
 *
 *   test_recorder.c      recorder.*      end to end with the real BPF probe (SKIPPED,
 *                                        exit 77, where a uprobe cannot run)
 *   test_recorder_cli.c  recorder_cli.*  what needs no probe: the command line, refusals
 *                                        made before BPF, --sysfs-only recordings, doctor's
 *                                        user-space lines; they run everywhere, the
 *                                        sanitizer stage included
 */
#ifndef RECTEST_H
#define RECTEST_H

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "frc.h"

/*
 * framerec's --symbol variants (recorder/README.md): the literal mangled name of each
 * (display-truth.md 6), and the standin-game --symbol path whose calls reach it (impl is
 * private in AOSP: the post-16 SurfaceQueueBufferInput overload calls it).
 */
#define N_VARIANTS 8
extern const char *const variant_name[N_VARIANTS];
extern const char *const variant_game[N_VARIANTS];
extern const char *const variant_symbol[N_VARIANTS];
enum { V_HOOK, V_INTERNAL, V_DEPRECATED, V_LEGACY, V_OUTPUT, V_SP, V_SP_INPUT, V_IMPL };
/* Surface::queueBuffers, the batch path (tests/standin/surface.h): 15 QPR1+/16, 12-15. */
#define BATCH_SYMBOL                                                                               \
	"_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"          \
	"9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE"
#define BATCH_LEGACY_SYMBOL                                                                        \
	"_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"          \
	"9allocatorIS3_EEEE"

/* Allowed distance between a recorded ktime and the truth timestamp (issue 4). */
#define MAX_SKEW_NS 2000000ull
/*
 * A failure message that starts with this is a skew over MAX_SKEW_NS in a recording that
 * is otherwise exact (every call, buffer, Surface and thread right, every ktime inside its
 * call). rectest_main runs such a test again, up to SKEW_RUNS times: even a SCHED_FIFO game
 * loses the CPU for milliseconds when the hypervisor steals it (this machine is a VM on 2
 * shared cores; a CI run saw 2.03 ms), which the recorder cannot help. A recorder that gets
 * times wrong misses in every run.
 */
#define SKEW_MARK "skew: "
#define SKEW_RUNS 3

/* ------------------------------------------------------------ scratch files, children */

/* This test's scratch directory, removed at exit; tmp(NAME) is a path in it (8 live). */
extern char tmpdir[64];
const char *tmp(const char *name);
/* A tmpfs the test mounted ("" when none): unmounted at exit. */
extern char mounted[PATH_MAX];

#define MAX_CHILDREN 16
extern pid_t children[MAX_CHILDREN];
extern int n_children;
/* A reaped child leaves the list, so a test may start more than MAX_CHILDREN in turn. */
void forget_child(pid_t pid);

/* How the next spawn runs: RLIMIT_FSIZE (0: none), as this user (0: as we are), SCHED_FIFO. */
extern rlim_t spawn_fsize;
extern uid_t spawn_uid;
extern bool spawn_realtime;
/*
 * Start path with argv (argv[0] may differ from path). stdout and stderr go to out_file
 * (NULL: /dev/null). The child dies with the test process (PR_SET_PDEATHSIG).
 */
pid_t spawn(const char *path, char *const argv[], const char *out_file);
/* Wait up to timeout_ms for pid; returns its wait status, or -1 (then it is killed). */
int wait_exit(pid_t pid, int timeout_ms);
uint64_t mono_ns(void);
/* The whole of a small text file (framerec's output), NUL-terminated, static storage. */
const char *slurp(const char *path);
/* A small text file at path. */
void write_file(const char *path, const char *text);

/* An argv under construction: add(&a, "fmt", ...) appends one argument. */
struct args {
	char *v[64];
	int n;
	char store[64][PATH_MAX];
};

#define TRUTH_MAX 4096

/* The game's truth file: MONOTONIC_NS 0xBUFFER 0xSURFACE TID [TIMESTAMP] per buffer. */
struct truth {
	size_t n;
	uint64_t ns[TRUTH_MAX];
	uint64_t buf[TRUTH_MAX];
	uint64_t surface[TRUTH_MAX];
	uint32_t tid[TRUTH_MAX];
	bool has_ts[TRUTH_MAX]; /* a batch element with its own timestamp */
	int64_t ts[TRUTH_MAX];
};

struct rec {
	uint8_t type;
	uint32_t pid;
	uint32_t tid;
	uint64_t ktime;
	uint64_t value;	    /* frame: buffer; drops: cumulative; tick: fps_micro */
	bool valid;	    /* tick: has a reading (fps_micro is one) */
	uint64_t anomalies; /* drops: batch anomalies */
	uint64_t surface;   /* frame */
	bool has_ts;	    /* frame: its own timestamp */
	int64_t ts;
	char symbol[FRC_SYMBOL_MAX + 1]; /* attach */
};

struct capture {
	struct frc_reader_stats st;
	char symbol_meta[FRC_SYMBOL_MAX + 1];
	size_t n;
	struct rec *r; /* every record in file order */
};

void add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ stand-in game */

/* Wait until pid has mapped the stand-in library (the dynamic loader has run). */
void wait_mapped(pid_t pid);
/*
 * Start standin-game gated (--wait-signal): it makes no call before SIGUSR1, so a probe
 * can be attached first. argv0 is its process name. extra: further NULL-terminated args.
 * Returns once the game has mapped libgui.so.
 */
pid_t start_game(const char *argv0, int variant, const char *truth, const char *fps,
		 const char *frames, ...);
/* A game that never calls (gated forever), as a valid --pid for the refusal tests. */
pid_t idle_game(void);
/* The uprobe on symbol is armed in pid (its breakpoint is in the code) within timeout_ms. */
bool wait_armed(pid_t pid, const char *symbol, int timeout_ms);

/* ------------------------------------------------------------ truth and capture */

void read_truth(const char *path, struct truth *t);
void read_capture(const char *path, struct capture *c);
void free_capture(struct capture *c);
/* Index of the k-th record (0-based) of type with pid (0: any pid), or -1. */
long find_rec(const struct capture *c, uint8_t type, uint32_t pid, size_t k);
size_t count_rec(const struct capture *c, uint8_t type, uint32_t pid);
/* The cumulative count of the last drops record (0 when there is none). */
uint64_t last_drops(const struct capture *c, bool *present);
/*
 * pid's frames equal the first `expect` truth calls, call for call within each Surface's
 * stream: same buffer, Surface, thread and timestamp (or none), ktime within MAX_SKEW_NS.
 * Returns the count.
 */
size_t check_frames(const struct capture *c, pid_t pid, const struct truth *t, size_t expect);
/* The capture's tick.ms metadata (which run wrote it), after checking it is complete. */
unsigned long capture_tick_ms(const char *path);

/* ------------------------------------------------------------ framerec */

/* framerec's argv: the arguments given, NULL-terminated; --quiet always. */
pid_t start_framerec(const char *log, ...);
/* Assert a child exited normally with code; show framerec's log otherwise. */
void assert_exit(int st, int code, const char *log);
/* framerec exited 1 with a one-line-or-more message on stderr that contains needle. */
void assert_refused(pid_t rec, const char *log, const char *needle);
/* A PID as an argument string (8 live at once). */
const char *pidstr(pid_t pid);

/* ------------------------------------------------------------ the runner */

struct test_entry {
	const char *name;
	const TTest *test;
};

/*
 * Run the case named argv[1] (CTest registers each case as its own test), or all of them,
 * each in its scratch directory; a failure that is only a skew is run again (SKEW_RUNS).
 * Returns the process exit status: 0 passed, 1 failed or no such case.
 */
int rectest_main(const struct test_entry *tests, size_t n, int argc, char **argv);

#endif /* RECTEST_H */
