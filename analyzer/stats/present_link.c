/* SPDX-License-Identifier: MIT */
/*
 * present_link.c - link present rows to queueBuffer calls (present_link.h).
 */
#include "present_link.h"

#include <stdbool.h>
#include <string.h>

/* How many calls have ktime <= t, counting on from *k (calls ascending, t not falling). */
static size_t calls_upto(const uint64_t *calls, size_t nc, size_t k, int64_t t)
{
	if (t < 0)
		return 0;
	while (k < nc && calls[k] <= (uint64_t)t)
		k++;
	return k;
}

/*
 * PL_REPLACING when the calls made between the rows exceed the rows shown by more than 5 %
 * and PL_MODE_SLACK buffers: buffers were replaced, not queued. Each row's interval (the calls
 * after the previous row's desired time, up to its own) counts at most PL_INTERVAL_CALLS: replacing
 * spreads its excess over every interval (MAILBOX, 240 calls/s on 120 Hz: 2 in each), a FIFO layer
 * that lost buffers at once (a flush on resize, a second invisible) has it in one, and that must
 * not make the whole layer replacing (its waiting buffers would link to the newest call instead of
 * the oldest: 2 % of resize_flush's links right, 36 % of invisible_2_3's). The first interval with
 * calls (every call before its row) counts whole.
 */
static enum pl_mode link_mode(const uint64_t *calls, size_t nc, const struct pl_present *rows,
			      size_t nr)
{
	size_t shown = 0, made = 0, k = 0, prev_k = 0;
	int64_t upto = INT64_MIN; /* the latest desired so far (explicit ones may run back) */

	if (nc == 0 || nr == 0)
		return PL_QUEUEING;
	for (size_t i = 0; i < nr; i++) {
		shown += rows[i].desired >= 0 && (uint64_t)rows[i].desired >= calls[0];
		if (rows[i].desired <= upto)
			continue;
		upto = rows[i].desired;
		k = calls_upto(calls, nc, k, upto);
		/* prev_k 0: the first interval with calls, every call before it */
		made +=
		    prev_k == 0 || k - prev_k <= PL_INTERVAL_CALLS ? k - prev_k : PL_INTERVAL_CALLS;
		prev_k = k;
	}
	/*
	 * 5 %: a FIFO game's calls between rows run ahead by a few while its queue fills
	 * (resize_flush: 308 counted for 299 rows, refresh_120_to_60: 428 for 420), replacing
	 * makes twice as many (MAILBOX 240 on 120: 1182 for 598), explicit timestamps
	 * dropping overdue ones a quarter more (302 for 236)
	 */
	return (double)made > 1.05 * (double)shown + PL_MODE_SLACK ? PL_REPLACING : PL_QUEUEING;
}

/* The call row r shows among calls[next .. upto), or PL_NONE; counts into st. */
static bool within(const uint64_t *calls, uint32_t c, int64_t desired, int64_t tol)
{
	return (int64_t)((uint64_t)desired - calls[c]) <= tol;
}

static uint32_t link_row(const uint64_t *calls, size_t next, size_t upto, int64_t desired,
			 int64_t tol, struct pl_stats *st)
{
	if (upto <= next) {
		st->unlinked++;
		return PL_NONE;
	}
	uint32_t oldest = (uint32_t)next, newest = (uint32_t)(upto - 1);
	/*
	 * Queueing, the next call is the one when it is within the tolerance: calls of a burst
	 * can be closer together than the stamp's delay after each, so the newest within it
	 * may be the next buffer's call. Else the newest within it (rows were lost before
	 * this one, or buffers replaced); else the buffer waited: by order. Queueing, the
	 * newest only when the next call waited longer than a FIFO buffer can (PL_WAIT_MAX_NS):
	 * then it was dropped (a flush, an invisible layer) or shown in rows never read; a
	 * back-pressured FIFO layer's waiting buffer is otherwise the one, although a later
	 * call may fall within the tolerance (refresh_120_to_60: 46 % right without this).
	 */
	if (st->mode == PL_QUEUEING && within(calls, oldest, desired, tol)) {
		st->tight++;
		return oldest;
	}
	if (within(calls, newest, desired, tol) &&
	    (st->mode == PL_REPLACING || !within(calls, oldest, desired, PL_WAIT_MAX_NS))) {
		st->tight++;
		return newest;
	}
	st->by_order++;
	if (st->mode == PL_QUEUEING)
		return oldest;
	/*
	 * Replacing: the buffer waiting in the BufferQueue when BBQ acquired it (the stamp): the
	 * newest call that had reached the queue by then, PL_INSERT_NS after its probe entry.
	 */
	while (newest > oldest && (int64_t)((uint64_t)desired - calls[newest]) < PL_INSERT_NS)
		newest--;
	return newest;
}

/* How many calls have ktime <= t (binary search; calls ascending). */
static size_t count_upto(const uint64_t *calls, size_t nc, int64_t t)
{
	size_t lo = 0, hi = nc;

	if (t < 0)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (calls[mid] <= (uint64_t)t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The newest of calls[next .. upto) queued with explicit timestamp desired, at most
 * PL_EXACT_AHEAD_NS before it, or PL_NONE.
 */
static uint32_t exact_call(const uint64_t *calls, const int64_t *stamps, size_t next, size_t upto,
			   int64_t desired)
{
	if (!stamps || desired <= 0)
		return PL_NONE;
	size_t lo = count_upto(calls, upto, desired - PL_EXACT_AHEAD_NS - 1);

	for (size_t c = upto; c-- > (lo > next ? lo : next);)
		if (stamps[c] == desired)
			return (uint32_t)c;
	return PL_NONE;
}

/*
 * Backwards, into cap[i]: the newest call row i may show so that each later row that has a
 * call at or before its desired time still has one of its own after it (rows show distinct
 * calls, in order). Without it a row took the newest candidate although the next row had
 * no other (explicit timestamps: two calls 2 ms apart, both presented), and that row went
 * unlinked. PL_NONE: no limit (nothing later needs a call, or the limit is below every
 * candidate: then the rule is left as it was).
 */
static void link_caps(const uint64_t *calls, size_t nc, const struct pl_present *rows, size_t nr,
		      uint32_t *cap)
{
	int64_t later = INT64_MAX; /* the cap of the nearest later row that needs a call */

	for (size_t i = nr; i-- > 0;) {
		int64_t newest = (int64_t)count_upto(calls, nc, rows[i].desired) - 1;
		int64_t c = later == INT64_MAX || newest < later - 1 ? newest : later - 1;

		cap[i] = c >= 0 && later != INT64_MAX ? (uint32_t)c : PL_NONE;
		if (newest >= 0)
			later = c;
	}
}

/* The previous anchored row (present_link.h): its call, the linked rows up to it, segment. */
struct pl_anchor {
	bool has;
	uint32_t call, seg;
	size_t linked; /* linked rows before it, and it */
};

/*
 * Whether row i, linked to c with upto its candidates' end, is anchored (tight, or one
 * candidate: the rows since the previous anchor each took a call of their own, so none
 * before an->call + 1 + those rows), counting the certain drops since that anchor.
 * linked: the rows linked before i.
 */
static void anchor_row(struct pl_anchor *an, uint32_t c, size_t upto, bool tight, uint32_t seg,
		       size_t linked, struct pl_stats *st, uint8_t *anchored)
{
	bool same = an->has && an->seg == seg;
	size_t lo = same ? an->call + 1 + (linked - an->linked) : linked;

	*anchored = tight || upto == lo + 1;
	if (!*anchored)
		return;
	st->anchored++;
	/* the calls between two anchors no row between them showed, whatever their links */
	if (same)
		st->dropped += c - an->call - 1 - (uint32_t)(linked - an->linked);
	*an = (struct pl_anchor){.has = true, .call = c, .seg = seg, .linked = linked + 1};
}

/*
 * After linking: the calls not shown and not certainly dropped are uncertain (between the
 * first and the last linked call outside anchored pairs, and after the last linked one up
 * to the latest desired time), or after the last row (queued after every row's desired
 * time: no row of the capture can show them). Nothing linked: every call is `before`.
 */
static void split_rest(const uint64_t *calls, size_t nc, const struct pl_present *rows, size_t nr,
		       uint32_t between, uint32_t last, struct pl_stats *st)
{
	int64_t latest = INT64_MIN;
	size_t upto;

	if (last == PL_NONE)
		return;
	for (size_t i = 0; i < nr; i++)
		latest = rows[i].desired > latest ? rows[i].desired : latest;
	/* the last linked call is at or before its row's desired time: last < upto */
	upto = count_upto(calls, nc, latest);
	st->after_last_row = (uint32_t)(nc - upto);
	st->uncertain = between - st->dropped + (uint32_t)(upto - 1 - last);
}

void present_link(const uint64_t *calls, const int64_t *stamps, size_t nc,
		  const struct pl_present *rows, size_t nr, const uint32_t *segment,
		  int64_t tolerance_ns, uint32_t *call_of, uint8_t *anchored, struct pl_stats *st)
{
	size_t next = 0, k = 0, linked = 0; /* next: the first call no row showed yet */
	uint32_t first = PL_NONE, prev = PL_NONE, between = 0;
	struct pl_anchor an = {0};
	uint8_t scratch;
	/* a tight link anchors when closer still (PL_ANCHOR_NS): a coincidence is rarer */
	int64_t close = tolerance_ns < PL_ANCHOR_NS ? tolerance_ns : PL_ANCHOR_NS;

	memset(st, 0, sizeof(*st));
	st->mode = link_mode(calls, nc, rows, nr);
	link_caps(calls, nc, rows, nr, call_of); /* call_of[i] holds row i's cap until linked */
	for (size_t i = 0; i < nr; i++) {
		uint32_t tight = st->tight;
		uint8_t *a = anchored ? &anchored[i] : &scratch;

		k = calls_upto(calls, nc, k, rows[i].desired);
		/* desired may run backwards (explicit timestamps): leave out the later calls */
		size_t upto = k;
		while (upto > next &&
		       (rows[i].desired < 0 || calls[upto - 1] > (uint64_t)rows[i].desired))
			upto--;
		if (call_of[i] != PL_NONE && call_of[i] >= next && call_of[i] + (size_t)1 < upto)
			upto = (size_t)call_of[i] + 1;
		uint32_t exact = exact_call(calls, stamps, next, upto, rows[i].desired);

		if (exact != PL_NONE)
			st->tight++;
		call_of[i] = exact != PL_NONE
				 ? exact
				 : link_row(calls, next, upto, rows[i].desired, tolerance_ns, st);
		*a = 0;
		if (call_of[i] == PL_NONE)
			continue;
		anchor_row(&an, call_of[i], upto,
			   exact != PL_NONE || (st->tight != tight &&
						within(calls, call_of[i], rows[i].desired, close)),
			   segment ? segment[i] : 0, linked++, st, a);
		if (prev != PL_NONE)
			between += call_of[i] - prev - 1;
		else
			first = call_of[i];
		prev = call_of[i];
		next = (size_t)prev + 1;
	}
	st->before = prev != PL_NONE ? first : (uint32_t)nc;
	st->after = prev != PL_NONE ? (uint32_t)(nc - 1 - prev) : 0;
	split_rest(calls, nc, rows, nr, between, prev, st);
	st->confidence = nr ? (double)st->tight / (double)nr : 0;
}
