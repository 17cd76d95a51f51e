// SPDX-License-Identifier: MIT
/*
 * present.c - display capture from dumpsys, off the recording thread (present.h).
 */
#include "present.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "runout.h"

#define QUEUE_MAX 8192	      /* events; the poller waits for room, never drops */
#define OUT_MAX (1024 * 1024) /* one dumpsys run's output */
#define LIST_MAX 512	      /* layers read from one --list */

struct layer {
	uint32_t id;
	bool live; /* listed at the last --list */
	struct sf_layer_name name;
	struct sf_present_merge merge;
};

struct present {
	struct present_config cfg;
	char dumpsys[4096], package[256];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* room in the queue, or stop */
	bool stop;
	int efd;
	struct present_event queue[QUEUE_MAX];
	size_t head, count;
	/* the thread's own (names read under lock by present_layer_name) */
	struct layer layers[PRESENT_LAYERS_MAX];
	uint32_t n_layers, next_id;
	int64_t period_ns;
	uint64_t last_list_ns;
	char problem[1024];
	bool last_failed;	/* the last dumpsys run failed */
	uint64_t nothing_since; /* --list has had no layer to follow since then (0: it has) */
	bool problem_told;
	struct present_stats st;
	char out[OUT_MAX];
	struct sf_layer_name list[LIST_MAX];
	struct sf_latency lat;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t present_poll_ms(int64_t period_ns)
{
	int64_t half_ring_ms = period_ns > 0 ? period_ns * SF_FRAMETRACKER_ROWS / 2 / 1000000 : 0;
	if (half_ring_ms <= 0 || half_ring_ms >= PRESENT_DEFAULT_POLL_MS)
		return PRESENT_DEFAULT_POLL_MS;
	return half_ring_ms < 10 ? 10 : (uint32_t)half_ring_ms;
}

/* Queue an event of time t for the recording thread; waits for room (off the frame path). */
static void emit_at(struct present *p, uint64_t t, uint8_t kind, uint32_t layer, int64_t a,
		    int64_t b, int64_t c)
{
	struct present_event ev = {kind, layer, t, a, b, c};
	uint64_t one = 1;
	pthread_mutex_lock(&p->lock);
	while (p->count == QUEUE_MAX && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->count < QUEUE_MAX) {
		p->queue[(p->head + p->count) % QUEUE_MAX] = ev;
		p->count++;
	} else {
		p->st.lost++; /* stopping with a full queue: counted, never silent */
	}
	if (kind == PEV_ROW)
		p->st.rows++;
	else if (kind == PEV_GAP)
		p->st.gaps++;
	pthread_mutex_unlock(&p->lock);
	if (write(p->efd, &one, sizeof(one)) < 0) {
		/* the counter saturates only past 2^64 - 2 writes: nothing to do */
	}
}

/* An event of now. */
static void emit(struct present *p, uint8_t kind, uint32_t layer, int64_t a, int64_t b, int64_t c)
{
	emit_at(p, now_ns(), kind, layer, a, b, c);
}

/* The first problem is kept, to be said once (present_problem). */
static void problem(struct present *p, const char *msg)
{
	pthread_mutex_lock(&p->lock);
	if (!p->problem[0])
		snprintf(p->problem, sizeof(p->problem), "%s", msg);
	pthread_mutex_unlock(&p->lock);
}

/* One dumpsys run: 0 and p->out[0..*len), or -errno (counted as a failure). */
static int run_dumpsys(struct present *p, const char *what, const char *name, size_t *len)
{
	char *argv[] = {"dumpsys", "SurfaceFlinger", (char *)what, (char *)name, NULL};
	struct runout ro;
	int err = runout(p->dumpsys, argv, PRESENT_TIMEOUT_MS, p->out, sizeof(p->out), &ro);
	if (!err && ro.exit_code != 0)
		err = -EPROTO;
	pthread_mutex_lock(&p->lock);
	p->st.runs++;
	p->st.run_ns_total += ro.wall_ns;
	if (ro.wall_ns > p->st.run_ns_max)
		p->st.run_ns_max = ro.wall_ns;
	p->st.failures += err != 0;
	pthread_mutex_unlock(&p->lock);
	p->last_failed = err != 0;
	if (err) {
		char msg[128];
		snprintf(msg, sizeof(msg), "dumpsys SurfaceFlinger %s %s", what,
			 err == -ETIMEDOUT ? "timed out" : "failed");
		problem(p, msg);
	}
	*len = ro.len;
	return err;
}

static struct layer *find_layer(struct present *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_layers; i++)
		if (!strcmp(p->layers[i].name.name, name))
			return &p->layers[i];
	return NULL;
}

/* Forget layers that are no longer listed (their slot is reused). */
static void drop_gone(struct present *p)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < p->n_layers; i++) {
		if (!p->layers[i].live) {
			emit(p, PEV_LAYER_GONE, p->layers[i].id, 0, 0, 0);
			continue;
		}
		if (k != i) {
			pthread_mutex_lock(&p->lock);
			p->layers[k] = p->layers[i];
			pthread_mutex_unlock(&p->lock);
		}
		k++;
	}
	pthread_mutex_lock(&p->lock);
	p->n_layers = k;
	pthread_mutex_unlock(&p->lock);
}

static void add_layer(struct present *p, const struct sf_layer_name *name)
{
	if (p->n_layers == PRESENT_LAYERS_MAX)
		return;
	struct layer *l = &p->layers[p->n_layers];
	pthread_mutex_lock(&p->lock);
	memset(l, 0, sizeof(*l));
	l->id = ++p->next_id;
	l->live = true;
	l->name = *name;
	sf_present_merge_init(&l->merge);
	p->n_layers++;
	p->st.layers++;
	pthread_mutex_unlock(&p->lock);
	emit(p, PEV_LAYER, l->id, 0, 0, 0);
}

/*
 * Nothing to follow yet is normal at the start (the app has not made its surface): said
 * only once it lasted PRESENT_PATIENCE_MS, with the likely why.
 */
static void no_layer(struct present *p, size_t listed, size_t picked)
{
	uint64_t now = now_ns();

	if (picked) {
		p->nothing_since = 0;
		return;
	}
	if (!p->nothing_since)
		p->nothing_since = now;
	if (now - p->nothing_since < PRESENT_PATIENCE_MS * 1000000ull)
		return;
	if (listed == 0) {
		problem(p,
			"dumpsys SurfaceFlinger --list printed no layer (Android 14 QPR2+: "
			"setprop persist.debug.sf.enable_layer_lifecycle_manager false, reboot)");
	} else {
		char msg[512];
		snprintf(msg, sizeof(msg), "no SurfaceFlinger layer of %s is listed", p->package);
		problem(p, msg);
	}
}

/* --list: follow the package's buffer layers, forget those gone. */
static void relist(struct present *p)
{
	size_t len, n = 0, picked[PRESENT_LAYERS_MAX];
	p->last_list_ns = now_ns();
	if (run_dumpsys(p, "--list", NULL, &len))
		return;
	for (char *s = p->out, *end = p->out + len; s < end && n < LIST_MAX;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t ll = nl ? (size_t)(nl - s) : (size_t)(end - s);
		n += sf_list_line(s, ll, &p->list[n]);
		s += ll + 1;
	}
	size_t k = sf_pick_layers(p->list, n, p->package, picked, PRESENT_LAYERS_MAX);
	no_layer(p, n, k);
	for (uint32_t i = 0; i < p->n_layers; i++)
		p->layers[i].live = false;
	for (size_t i = 0; i < k && i < PRESENT_LAYERS_MAX; i++) {
		struct layer *l = find_layer(p, p->list[picked[i]].name);
		if (l)
			l->live = true;
		else
			add_layer(p, &p->list[picked[i]]);
	}
	drop_gone(p);
}

/* --latency for one layer: the period, then the rows not delivered yet. */
static void poll_layer(struct present *p, struct layer *l)
{
	size_t len;
	uint32_t bad;
	uint64_t asked = now_ns(); /* SurfaceFlinger prints the table after this */
	if (run_dumpsys(p, "--latency", l->name.name, &len))
		return;
	if (sf_latency_parse(p->out, len, &p->lat, &bad)) {
		pthread_mutex_lock(&p->lock);
		p->st.failures++;
		pthread_mutex_unlock(&p->lock);
		problem(p, "dumpsys SurfaceFlinger --latency printed no latency table");
		return;
	}
	if (p->lat.period_ns != p->period_ns) {
		p->period_ns = p->lat.period_ns;
		emit(p, PEV_PERIOD, 0, p->period_ns, 0, 0);
	}
	int64_t before = l->merge.have_anchor ? l->merge.anchor.actual : 0;
	struct sf_poll_result r = sf_present_merge_poll(&l->merge, &p->lat);
	if (r.gap) {
		int64_t after = r.count ? p->lat.rows[r.first].actual : 0;
		emit(p, PEV_GAP, l->id, before == SF_TIME_PENDING ? 0 : before, after, 0);
	}
	for (uint32_t i = r.first; i < r.first + r.count; i++) {
		const struct sf_row *row = &p->lat.rows[i];
		emit(p, PEV_ROW, l->id, row->desired, row->actual, row->ready);
	}
	/*
	 * After its rows, rows or not (a poll that found nothing new is told from none), at
	 * the time it was asked: every row whose fence signalled by then is in, however long
	 * dumpsys took.
	 */
	emit_at(p, asked, PEV_POLL, l->id, 0, 0, 0);
}

static void poll_round(struct present *p)
{
	if (p->n_layers == 0 || now_ns() - p->last_list_ns >= PRESENT_RELIST_MS * 1000000ull)
		relist(p);
	for (uint32_t i = 0; i < p->n_layers; i++)
		poll_layer(p, &p->layers[i]);
	pthread_mutex_lock(&p->lock);
	p->st.polls++;
	pthread_mutex_unlock(&p->lock);
}

/* Sleep until t or a stop; true when stopping. */
static bool wait_until(struct present *p, uint64_t t)
{
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u),
			      .tv_nsec = (long)(t % 1000000000u)};
	pthread_mutex_lock(&p->lock);
	while (!p->stop && now_ns() < t)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &ts) == ETIMEDOUT)
			break;
	bool stop = p->stop;
	pthread_mutex_unlock(&p->lock);
	return stop;
}

static void *present_main(void *arg)
{
	struct present *p = arg;
	uint64_t next = now_ns();
	for (;;) {
		poll_round(p);
		uint32_t ms = p->cfg.poll_ms ? p->cfg.poll_ms : present_poll_ms(p->period_ns);
		next += (uint64_t)ms * 1000000u;
		if (next < now_ns())
			next = now_ns(); /* a slow dumpsys: poll again at once, don't pile up */
		if (wait_until(p, next))
			break;
	}
	/* The last rows, what settled since the previous round; not after a failed run, so
	 * that a hung dumpsys does not cost the stop another timeout. */
	if (!p->last_failed)
		poll_round(p);
	return NULL;
}

int present_start(struct present **out, const struct present_config *cfg, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	struct present *p;
	int ret;

	if (access(cfg->dumpsys, X_OK)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", cfg->dumpsys, strerror(errno));
		return ret;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	snprintf(p->dumpsys, sizeof(p->dumpsys), "%s", cfg->dumpsys);
	snprintf(p->package, sizeof(p->package), "%s", cfg->package);
	p->cfg.dumpsys = p->dumpsys;
	p->cfg.package = p->package;
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0) {
		ret = -errno;
		free(p);
		return ret;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&p->thread, NULL, present_main, p);
	if (ret) {
		snprintf(err, errlen, "display capture thread: %s", strerror(-ret));
		close(p->efd);
		free(p);
		return ret;
	}
	*out = p;
	return 0;
}

int present_fd(const struct present *p)
{
	return p->efd;
}

size_t present_drain(struct present *p, struct present_event *ev, size_t max)
{
	uint64_t v;
	size_t n = 0;
	if (read(p->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing signalled; the queue is read anyway */
	}
	pthread_mutex_lock(&p->lock);
	while (n < max && p->count > 0) {
		ev[n++] = p->queue[p->head];
		p->head = (p->head + 1) % QUEUE_MAX;
		p->count--;
	}
	if (p->count > 0) {
		uint64_t one = 1; /* more than max waited: stay readable */
		if (write(p->efd, &one, sizeof(one)) < 0) {
		}
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return n;
}

const char *present_layer_name(struct present *p, uint32_t id)
{
	const char *name = NULL;
	pthread_mutex_lock(&p->lock);
	for (uint32_t i = 0; i < p->n_layers; i++)
		if (p->layers[i].id == id)
			name = p->layers[i].name.name;
	pthread_mutex_unlock(&p->lock);
	return name;
}

bool present_problem(struct present *p, char *buf, size_t len)
{
	bool tell;
	pthread_mutex_lock(&p->lock);
	tell = p->problem[0] && !p->problem_told;
	if (tell) {
		snprintf(buf, len, "%s", p->problem);
		p->problem_told = true;
	}
	pthread_mutex_unlock(&p->lock);
	return tell;
}

void present_stats(struct present *p, struct present_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->st;
	pthread_mutex_unlock(&p->lock);
}

void present_stop(struct present *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
}

void present_free(struct present *p)
{
	if (!p)
		return;
	close(p->efd);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}
