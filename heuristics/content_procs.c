/* SPDX-License-Identifier: MIT */
/*
 * content_procs.c - the per-process content instances (content_procs.h). A linear table:
 * a capture has a handful of processes.
 */
#include "content_procs.h"

struct content_proc *content_procs_find(struct content_procs *ps, uint32_t pid)
{
	for (size_t i = 0; i < CONTENT_PROCS; i++)
		if (ps->p[i].used && ps->p[i].pid == pid)
			return &ps->p[i];
	return NULL;
}

void content_procs_drop(struct content_procs *ps, struct content_proc *p)
{
	content_free(p->c);
	if (ps->cur == p)
		ps->cur = NULL;
	*p = (struct content_proc){0};
}

void content_procs_clear(struct content_procs *ps)
{
	for (size_t i = 0; i < CONTENT_PROCS; i++)
		content_procs_drop(ps, &ps->p[i]);
	ps->clock = 0;
}

struct content_proc *content_procs_get(struct content_procs *ps, uint32_t pid)
{
	struct content_proc *p = content_procs_find(ps, pid);

	if (p) {
		p->used = ++ps->clock;
		return p;
	}
	for (size_t i = 0; i < CONTENT_PROCS; i++) {
		struct content_proc *e = &ps->p[i];

		if (e != ps->cur && (!p || e->used < p->used))
			p = e;
	}
	content_procs_drop(ps, p);
	if (content_new(&p->c, CONTENT_SURFACES))
		return NULL;
	p->pid = pid;
	p->used = ++ps->clock;
	return p;
}
