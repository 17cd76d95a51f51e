/* SPDX-License-Identifier: MIT */
/*
 * diff.c - Myers' greedy O(ND) shortest edit script ("An O(ND) Difference Algorithm and Its
 * Variations", 1986), then unified-diff hunks with 3 lines of context.
 *
 * The common prefix and suffix are stripped first (a golden change usually touches a few
 * lines). The search keeps one V vector per edit distance d to walk the path back, which
 * costs O(D^2) memory; past MAX_D edits the middle is shown as "all removed, all added"
 * instead (still a correct diff, just not a minimal one).
 */
#include "diff.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3
#define MAX_D 4096

struct line {
	const char *s;
	size_t len; /* without the '\n' */
	int nl;	    /* 1 when a '\n' ends it */
	uint64_t hash;
};

enum op { OP_EQ, OP_DEL, OP_INS };

struct edit {
	enum op op;
	size_t ai, bi; /* index into a (EQ, DEL) and b (EQ, INS) */
};

struct edits {
	struct edit *e;
	size_t n, cap;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	while (n--)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* Split text into lines; *out is NULL for an empty text. Returns the count or -ENOMEM. */
static long split_lines(const char *t, size_t len, struct line **out)
{
	size_t n = 0, cap = 0, i = 0;
	struct line *v = NULL;

	while (i < len) {
		const char *nl = memchr(t + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - t) : len;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct line *nv = realloc(v, ncap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv, cap = ncap;
		}
		v[n].s = t + i;
		v[n].len = end - i;
		v[n].nl = nl != NULL;
		v[n].hash = fnv1a(t + i, end - i) ^ (uint64_t)v[n].nl;
		n++;
		i = nl ? end + 1 : len;
	}
	*out = v;
	return (long)n;
}

static int line_eq(const struct line *x, const struct line *y)
{
	return x->hash == y->hash && x->len == y->len && x->nl == y->nl &&
	       memcmp(x->s, y->s, x->len) == 0;
}

static int push(struct edits *ed, enum op op, size_t ai, size_t bi)
{
	if (ed->n == ed->cap) {
		size_t ncap = ed->cap ? ed->cap * 2 : 256;
		struct edit *ne = realloc(ed->e, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		ed->e = ne, ed->cap = ncap;
	}
	ed->e[ed->n++] = (struct edit){op, ai, bi};
	return 0;
}

/* The search's end state: what the walk back from (n, m) needs. */
struct myers_trace {
	size_t a0, b0;
	long n, m, max;
	long **v; /* v[d]: the furthest x per diagonal after step d */
};

/* The edit that step d took to reach diagonal k came from diagonal k + 1 (an insert). */
static bool from_insert(const long *v, long d, long k, long max)
{
	return k == -d || (k != d && v[k - 1 + max + 1] < v[k + 1 + max + 1]);
}

/*
 * Walk back from (n, m) through the recorded steps, collecting the edits in reverse, then
 * append them to ed in order. Returns 0 or -ENOMEM.
 */
static int walk_back(const struct myers_trace *t, long dfound, struct edits *ed)
{
	struct edits rev = {0};
	long x = t->n, y = t->m, max = t->max;
	int rc = 0;

	for (long d = dfound; d >= 0 && rc == 0; d--) {
		long k = x - y, pk, px, py;

		if (d == 0)
			pk = k, px = 0, py = 0; /* the common start: only equal lines remain */
		else {
			pk = from_insert(t->v[d - 1], d, k, max) ? k + 1 : k - 1;
			px = t->v[d - 1][pk + max + 1];
			py = px - pk;
		}
		while (x > px && y > py && rc == 0) {
			x--, y--;
			rc = push(&rev, OP_EQ, t->a0 + x, t->b0 + y);
		}
		if (d == 0 || rc)
			break;
		if (pk == k + 1)
			y--, rc = push(&rev, OP_INS, t->a0 + x, t->b0 + y);
		else
			x--, rc = push(&rev, OP_DEL, t->a0 + x, t->b0 + y);
	}
	for (size_t i = rev.n; i-- > 0 && rc == 0;)
		rc = push(ed, rev.e[i].op, rev.e[i].ai, rev.e[i].bi);
	free(rev.e);
	return rc;
}

/*
 * Myers on a[a0..a1) x b[b0..b1) (no common prefix/suffix). Appends the edits in order.
 * Returns 0, 1 when the distance exceeds MAX_D (nothing appended), or -ENOMEM.
 */
static int myers(const struct line *a, size_t a0, size_t a1, const struct line *b, size_t b0,
		 size_t b1, struct edits *ed)
{
	struct myers_trace t = {a0, b0, (long)(a1 - a0), (long)(b1 - b0), 0, NULL};
	long n = t.n, m = t.m, max = n + m, d, k, dfound = -1, *v = NULL;
	size_t nsteps = 0, vlen;
	int rc = 1;

	if (max > 0 && max > MAX_D)
		max = MAX_D;
	t.max = max;
	vlen = 2 * (size_t)max + 3;
	t.v = calloc((size_t)max + 1, sizeof(*t.v));
	v = calloc(vlen, sizeof(*v));
	if (!t.v || !v) {
		rc = -ENOMEM;
		goto cleanup;
	}
	/* v[k + max + 1] = furthest x on diagonal k (x - y = k). */
	for (d = 0; d <= max && dfound < 0; d++) {
		for (k = -d; k <= d; k += 2) {
			long x =
			    from_insert(v, d, k, max) ? v[k + 1 + max + 1] : v[k - 1 + max + 1] + 1;
			long y = x - k;

			while (x < n && y < m && line_eq(&a[a0 + x], &b[b0 + y]))
				x++, y++;
			v[k + max + 1] = x;
			if (x >= n && y >= m) {
				dfound = d;
				break;
			}
		}
		t.v[d] = malloc(vlen * sizeof(long));
		if (!t.v[d]) {
			rc = -ENOMEM;
			goto cleanup;
		}
		memcpy(t.v[d], v, vlen * sizeof(long));
		nsteps = (size_t)d + 1;
	}
	if (dfound >= 0) /* else: too many edits */
		rc = walk_back(&t, dfound, ed);
cleanup:
	for (size_t i = 0; t.v && i < nsteps; i++)
		free(t.v[i]);
	free(t.v);
	free(v);
	return rc;
}

static void print_line(FILE *out, char tag, const struct line *l)
{
	fputc(tag, out);
	fwrite(l->s, 1, l->len, out);
	fputc('\n', out);
	if (!l->nl)
		fputs("\\ No newline at end of file\n", out);
}

/* GNU style: "start,count", ",count" omitted when 1, start = preceding line when count 0. */
static void print_range(FILE *out, size_t start, size_t count)
{
	if (count == 1)
		fprintf(out, "%zu", start + 1);
	else if (count == 0)
		fprintf(out, "%zu,0", start);
	else
		fprintf(out, "%zu,%zu", start + 1, count);
}

static void print_hunks(FILE *out, const struct edits *ed, const struct line *a,
			const struct line *b)
{
	size_t i = 0;

	while (i < ed->n) {
		size_t first, last, j, a_start, b_start, a_cnt = 0, b_cnt = 0;
		while (i < ed->n && ed->e[i].op == OP_EQ)
			i++;
		if (i == ed->n)
			break;
		first = i >= CONTEXT ? i - CONTEXT : 0;
		/* Extend the hunk while the next change is within 2 * CONTEXT equal lines. */
		last = i;
		for (j = i; j < ed->n; j++) {
			if (ed->e[j].op != OP_EQ)
				last = j;
			else if (j - last > 2 * CONTEXT)
				break;
		}
		last = last + CONTEXT < ed->n - 1 ? last + CONTEXT : ed->n - 1;
		a_start = ed->e[first].ai;
		b_start = ed->e[first].bi;
		for (j = first; j <= last; j++) {
			a_cnt += ed->e[j].op != OP_INS;
			b_cnt += ed->e[j].op != OP_DEL;
		}
		fputs("@@ -", out);
		print_range(out, a_start, a_cnt);
		fputs(" +", out);
		print_range(out, b_start, b_cnt);
		fputs(" @@\n", out);
		for (j = first; j <= last; j++) {
			const struct edit *e = &ed->e[j];
			if (e->op == OP_EQ)
				print_line(out, ' ', &a[e->ai]);
			else if (e->op == OP_DEL)
				print_line(out, '-', &a[e->ai]);
			else
				print_line(out, '+', &b[e->bi]);
		}
		i = last + 1;
	}
}

int diff_unified(FILE *out, const char *a_label, const char *a, size_t a_len, const char *b_label,
		 const char *b, size_t b_len)
{
	struct line *la = NULL, *lb = NULL;
	struct edits ed = {0};
	long na, nb;
	size_t pre = 0, suf = 0, i;
	int rc;

	if (a_len == b_len && memcmp(a, b, a_len) == 0)
		return 0;
	na = split_lines(a, a_len, &la);
	nb = split_lines(b, b_len, &lb);
	if (na < 0 || nb < 0) {
		rc = -ENOMEM;
		goto cleanup;
	}
	while (pre < (size_t)na && pre < (size_t)nb && line_eq(&la[pre], &lb[pre]))
		pre++;
	while (suf < (size_t)na - pre && suf < (size_t)nb - pre &&
	       line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	rc = 0;
	for (i = 0; i < pre && rc == 0; i++)
		rc = push(&ed, OP_EQ, i, i);
	if (rc == 0)
		rc = myers(la, pre, (size_t)na - suf, lb, pre, (size_t)nb - suf, &ed);
	if (rc == 1) {
		/* Too different for the bounded search: everything in the middle changed. */
		rc = 0;
		for (i = pre; i < (size_t)na - suf && rc == 0; i++)
			rc = push(&ed, OP_DEL, i, pre);
		for (i = pre; i < (size_t)nb - suf && rc == 0; i++)
			rc = push(&ed, OP_INS, (size_t)na - suf, i);
	}
	for (i = 0; i < suf && rc == 0; i++)
		rc = push(&ed, OP_EQ, (size_t)na - suf + i, (size_t)nb - suf + i);
	if (rc < 0)
		goto cleanup;
	fprintf(out, "--- %s\n+++ %s\n", a_label, b_label);
	print_hunks(out, &ed, la, lb);
	rc = 1;
cleanup:
	free(ed.e);
	free(la);
	free(lb);
	return rc;
}
