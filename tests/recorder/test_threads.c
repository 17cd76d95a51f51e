/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - recorder/threads.c on a procfs tree of its own (PROC/PID/task/TID/comm
 * files written by the test, as the kernel writes them: the name and a newline): a first
 * frame names its thread once, later frames do not; a rename is found by the rescan, an
 * unchanged name is not repeated; a thread whose name cannot be read (gone) or is empty
 * gets no record, and one whose name appears later gets it at the rescan; the cap.
 * The real /proc with real threads: recorder.thread_names.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frc_case_run.h"
#include "threads.h"

static char root[64];

static void set_comm(unsigned pid, unsigned tid, const char *content)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%u", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%u/task", root, pid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%u/task/%u", root, pid, tid);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%u/task/%u/comm", root, pid, tid);
	if (!content) {
		unlink(p);
		return;
	}
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/test_threads.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* What a rescan emitted. */
struct seen {
	struct frc_record r[8];
	int n;
};

static void collect(void *ctx, const struct frc_record *rec)
{
	struct seen *s = ctx;

	ck_assert_int_lt(s->n, 8);
	s->r[s->n++] = *rec;
}

static void assert_thread(const struct frc_record *r, uint64_t t, unsigned pid, unsigned tid,
			  const char *name)
{
	ck_assert_uint_eq(r->type, FRC_THREAD);
	ck_assert_uint_eq(r->ktime_ns, t);
	ck_assert_uint_eq(r->u.thread.pid, pid);
	ck_assert_uint_eq(r->u.thread.tid, tid);
	ck_assert_uint_eq(r->u.thread.len, strlen(name));
	ck_assert_str_eq(r->u.thread.name, name);
}

START_TEST(threads_first_frame_and_rename)
{
	struct thread_names *t = NULL;
	struct frc_record rec;
	struct seen s = {0};

	make_root();
	set_comm(100, 100, "GameThread\n");
	set_comm(100, 101, "RenderThread\n");
	set_comm(100, 102, "0123456789abcde\n"); /* TASK_COMM_LEN - 1: the longest */
	ck_assert_int_eq(thread_names_new(&t, root), 0);
	ck_assert_int_eq(thread_names_seen(t, 100, 100, 5, &rec), 1);
	assert_thread(&rec, 5, 100, 100, "GameThread");
	ck_assert_int_eq(thread_names_seen(t, 100, 100, 6, &rec), 0); /* known: nothing */
	ck_assert_int_eq(thread_names_seen(t, 100, 101, 7, &rec), 1);
	assert_thread(&rec, 7, 100, 101, "RenderThread");
	ck_assert_int_eq(thread_names_seen(t, 100, 102, 8, &rec), 1);
	assert_thread(&rec, 8, 100, 102, "0123456789abcde");

	thread_names_rescan(t, 10, collect, &s); /* nothing changed */
	ck_assert_int_eq(s.n, 0);
	set_comm(100, 100, "GameThread2\n");
	set_comm(100, 101, NULL); /* the thread is gone: its last name stands */
	thread_names_rescan(t, 20, collect, &s);
	ck_assert_int_eq(s.n, 1);
	assert_thread(&s.r[0], 20, 100, 100, "GameThread2");
	thread_names_rescan(t, 30, collect, &s);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(thread_names_over(t), 0);
	thread_names_free(t);
	remove_root();
}
END_TEST

START_TEST(threads_unreadable_named_later)
{
	struct thread_names *t = NULL;
	struct frc_record rec;
	struct seen s = {0};

	make_root();
	set_comm(200, 201, "\n"); /* an empty name: no record can hold it */
	ck_assert_int_eq(thread_names_new(&t, root), 0);
	ck_assert_int_eq(thread_names_seen(t, 200, 201, 1, &rec), 0);
	ck_assert_int_eq(thread_names_seen(t, 200, 202, 2, &rec), 0); /* no comm file */
	ck_assert_int_eq(thread_names_seen(t, 200, 202, 3, &rec), 0); /* not read again */
	thread_names_rescan(t, 4, collect, &s);
	ck_assert_int_eq(s.n, 0);
	set_comm(200, 202, "late\n");
	thread_names_rescan(t, 5, collect, &s);
	ck_assert_int_eq(s.n, 1);
	assert_thread(&s.r[0], 5, 200, 202, "late");
	/* the same TID in another process is another thread */
	set_comm(300, 202, "other\n");
	ck_assert_int_eq(thread_names_seen(t, 300, 202, 6, &rec), 1);
	assert_thread(&rec, 6, 300, 202, "other");
	thread_names_free(t);
	remove_root();
}
END_TEST

/* Past THREAD_NAMES_MAX threads a new one is counted, not named (no comm is read). */
START_TEST(threads_cap)
{
	struct thread_names *t = NULL;
	struct frc_record rec;

	make_root();
	ck_assert_int_eq(thread_names_new(&t, root), 0);
	for (uint32_t i = 0; i < THREAD_NAMES_MAX; i++)
		ck_assert_int_eq(thread_names_seen(t, 1, 1000 + i, i, &rec), 0);
	ck_assert_uint_eq(thread_names_over(t), 0);
	set_comm(1, 9999, "x\n");
	ck_assert_int_eq(thread_names_seen(t, 1, 9999, 1, &rec), 0);
	ck_assert_uint_eq(thread_names_over(t), 1);
	thread_names_free(t);
	remove_root();
}
END_TEST

int main(int argc, char **argv)
{
	const struct frc_case cases[] = {
	    FRC_CASE("threads_first_frame_and_rename", threads_first_frame_and_rename, 30),
	    FRC_CASE("threads_unreadable_named_later", threads_unreadable_named_later, 30),
	    FRC_CASE("threads_cap", threads_cap, 30),
	};

	return frc_case_run("threads", cases, FRC_NCASES(cases), argc, argv);
}
