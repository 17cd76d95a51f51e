// SPDX-License-Identifier: MIT
/*
 * threads.c - thread names for thread records (threads.h, FORMAT.md 4.9).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frc_map.h"
#include "threads.h"

struct known {
	uint32_t pid, tid;
	uint8_t len; /* 0: not read yet (the thread had gone, or its name was empty) */
	char name[FRC_THREAD_NAME_MAX + 1];
};

struct thread_names {
	struct frc_map ix; /* pid << 32 | tid -> index into v */
	struct known *v;
	uint32_t n, cap;
	uint64_t over;
	char proc[256];
};

int thread_names_new(struct thread_names **out, const char *proc)
{
	struct thread_names *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || strlen(proc) >= sizeof(t->proc) || frc_map_init(&t->ix, 64)) {
		free(t);
		return -ENOMEM;
	}
	snprintf(t->proc, sizeof(t->proc), "%s", proc);
	*out = t;
	return 0;
}

void thread_names_free(struct thread_names *t)
{
	if (!t)
		return;
	frc_map_free(&t->ix);
	free(t->v);
	free(t);
}

uint64_t thread_names_over(const struct thread_names *t)
{
	return t->over;
}

/*
 * The comm of pid/tid into name (NUL-terminated): its length, or 0 when it cannot be read
 * (the thread is gone) or is empty, which a thread record cannot hold. The kernel ends it
 * with a newline and never makes it longer than TASK_COMM_LEN - 1.
 */
static uint8_t read_comm(const struct thread_names *t, uint32_t pid, uint32_t tid,
			 char name[FRC_THREAD_NAME_MAX + 1])
{
	char path[320], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/task/%u/comm", t->proc, pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n <= 0 || n > FRC_THREAD_NAME_MAX || memchr(buf, '\0', (size_t)n))
		return 0;
	memcpy(name, buf, (size_t)n);
	name[n] = '\0';
	return (uint8_t)n;
}

static void to_record(const struct known *k, uint64_t ktime, struct frc_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = FRC_THREAD;
	rec->ktime_ns = ktime;
	rec->u.thread.pid = k->pid;
	rec->u.thread.tid = k->tid;
	rec->u.thread.len = k->len;
	memcpy(rec->u.thread.name, k->name, k->len + 1u);
}

/* Room for one more thread: 0, or -ENOMEM / -ENOSPC (THREAD_NAMES_MAX followed). */
static int grow(struct thread_names *t)
{
	struct known *v;
	uint32_t cap;

	if (t->n < t->cap)
		return 0;
	if (t->cap >= THREAD_NAMES_MAX)
		return -ENOSPC;
	cap = t->cap ? t->cap * 2 : 16;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

int thread_names_seen(struct thread_names *t, uint32_t pid, uint32_t tid, uint64_t ktime,
		      struct frc_record *rec)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	struct known *k;

	/* The per-frame cost: one lookup of a thread seen before. */
	if (frc_map_get(&t->ix, key) != FRC_MAP_NONE)
		return 0;
	if (grow(t) || frc_map_put(&t->ix, key, t->n)) {
		t->over++;
		return 0;
	}
	k = &t->v[t->n++];
	k->pid = pid;
	k->tid = tid;
	k->len = read_comm(t, pid, tid, k->name);
	if (!k->len)
		return 0; /* the rescan tries again */
	to_record(k, ktime, rec);
	return 1;
}

void thread_names_rescan(struct thread_names *t, uint64_t ktime,
			 void (*emit)(void *ctx, const struct frc_record *rec), void *ctx)
{
	char name[FRC_THREAD_NAME_MAX + 1];
	struct frc_record rec;

	for (uint32_t i = 0; i < t->n; i++) {
		struct known *k = &t->v[i];
		uint8_t len = read_comm(t, k->pid, k->tid, name);

		/* Gone (or emptied): keep the last name, there is nothing new to say. */
		if (!len || (len == k->len && !memcmp(name, k->name, len)))
			continue;
		k->len = len;
		memcpy(k->name, name, len + 1u);
		to_record(k, ktime, &rec);
		emit(ctx, &rec);
	}
}
