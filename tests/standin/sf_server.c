/* SPDX-License-Identifier: MIT */
/*
 * sf_server.c - the stand-in SurfaceFlinger service (sf_server.h).
 */
#define _GNU_SOURCE
#include "sf_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct sf_server {
	pthread_mutex_t lock;
	pthread_cond_t taken; /* a vsync ran: a blocked producer may try again */
	struct compositor comp;
	FILE *truth;
	int listen_fd;
	int stop_pipe[2];
	bool stop;
	pthread_t vsync_thread, socket_thread;
	char reply[SF_SERVER_REPLY_MAX];
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One composition per vsync, at the vsync's time (not when the thread woke). */
static void *vsync_main(void *arg)
{
	struct sf_server *s = arg;
	pthread_mutex_lock(&s->lock);
	int64_t next = now_ns() + s->comp.period_ns;
	while (!s->stop) {
		pthread_mutex_unlock(&s->lock);
		sleep_until(next);
		pthread_mutex_lock(&s->lock);
		comp_vsync(&s->comp, next);
		pthread_cond_broadcast(&s->taken);
		next += s->comp.period_ns;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static size_t answer(struct sf_server *s, const char *req)
{
	size_t n;
	pthread_mutex_lock(&s->lock);
	if (!strcmp(req, "list"))
		n = comp_print_list(&s->comp, s->reply, sizeof(s->reply));
	else if (!strncmp(req, "latency ", 8))
		n = comp_print_latency(&s->comp, req + 8, s->reply, sizeof(s->reply));
	else
		n = (size_t)snprintf(s->reply, sizeof(s->reply), "unknown request\n");
	pthread_mutex_unlock(&s->lock);
	return n < sizeof(s->reply) ? n : sizeof(s->reply) - 1;
}

static void serve_one(struct sf_server *s, int fd)
{
	char req[SF_SERVER_REQ_MAX];
	size_t len = 0;
	while (len < sizeof(req) - 1) {
		ssize_t r = read(fd, req + len, sizeof(req) - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
		if (memchr(req, '\n', len))
			break;
	}
	req[len] = '\0';
	char *nl = strchr(req, '\n');
	if (!nl)
		return;
	*nl = '\0';
	size_t n = answer(s, req);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, s->reply + off, n - off);
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void *socket_main(void *arg)
{
	struct sf_server *s = arg;
	struct pollfd p[2] = {{.fd = s->listen_fd, .events = POLLIN},
			      {.fd = s->stop_pipe[0], .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve_one(s, fd);
		close(fd);
	}
	return NULL;
}

static int listen_at(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct stat st;
	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

int sf_server_start(struct sf_server **out, const char *sock_path, const char *truth_path,
		    int android, int64_t period_ns)
{
	struct sf_server *s = calloc(1, sizeof(*s));
	int err;
	if (!s)
		return -ENOMEM;
	s->truth = truth_path ? fopen(truth_path, "we") : NULL;
	if (truth_path && !s->truth) {
		err = -errno;
		free(s);
		return err;
	}
	comp_init(&s->comp, android, period_ns, s->truth);
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* sf_server_drain's deadline */
	pthread_cond_init(&s->taken, &ca);
	pthread_condattr_destroy(&ca);
	s->listen_fd = listen_at(sock_path);
	if (s->listen_fd < 0 || pipe2(s->stop_pipe, O_CLOEXEC)) {
		err = s->listen_fd < 0 ? s->listen_fd : -errno;
		goto fail;
	}
	if ((err = -pthread_create(&s->vsync_thread, NULL, vsync_main, s)))
		goto fail;
	if ((err = -pthread_create(&s->socket_thread, NULL, socket_main, s))) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->vsync_thread, NULL);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->truth)
		fclose(s->truth);
	free(s);
	return err;
}

int sf_server_add_layer(struct sf_server *s, enum comp_kind kind, const char *title,
			enum comp_mode mode)
{
	pthread_mutex_lock(&s->lock);
	int l = comp_add_layer(&s->comp, kind, title, mode);
	pthread_mutex_unlock(&s->lock);
	return l;
}

void sf_server_queue(struct sf_server *s, int layer, uint64_t buffer, int64_t queue_ns,
		     int64_t timestamp)
{
	pthread_mutex_lock(&s->lock);
	while (comp_queue(&s->comp, layer, buffer, queue_ns, timestamp) == -EAGAIN && !s->stop)
		pthread_cond_wait(&s->taken, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

void sf_server_set_period(struct sf_server *s, int64_t period_ns)
{
	pthread_mutex_lock(&s->lock);
	comp_set_period(&s->comp, period_ns);
	pthread_mutex_unlock(&s->lock);
}

void sf_server_set_visible(struct sf_server *s, int layer, bool visible)
{
	pthread_mutex_lock(&s->lock);
	comp_set_visible(&s->comp, layer, visible, now_ns());
	pthread_mutex_unlock(&s->lock);
}

void sf_server_flush(struct sf_server *s, int layer)
{
	pthread_mutex_lock(&s->lock);
	comp_flush(&s->comp, layer, now_ns());
	/* the flush freed the queue: a producer blocked on it may go on */
	pthread_cond_broadcast(&s->taken);
	pthread_mutex_unlock(&s->lock);
}

/* Nothing waits in any layer's queue or transactions (under the lock). */
static bool all_latched(const struct sf_server *s)
{
	for (unsigned i = 0; i < s->comp.n_layers; i++) {
		const struct comp_layer *l = &s->comp.layers[i];
		if (!l->removed && (l->n_bq || l->n_txn))
			return false;
	}
	return true;
}

void sf_server_drain(struct sf_server *s, int64_t timeout_ns)
{
	int64_t end = now_ns() + timeout_ns;
	struct timespec ts = {.tv_sec = end / 1000000000, .tv_nsec = end % 1000000000};

	pthread_mutex_lock(&s->lock);
	while (!all_latched(s) && now_ns() < end)
		if (pthread_cond_timedwait(&s->taken, &s->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&s->lock);
}

void sf_server_stop(struct sf_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->taken);
	pthread_mutex_unlock(&s->lock);
	if (write(s->stop_pipe[1], "x", 1) < 0) {
		/* the socket thread then ends at its next request; join waits for it */
	}
	pthread_join(s->vsync_thread, NULL);
	pthread_join(s->socket_thread, NULL);
	close(s->listen_fd);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	if (s->truth)
		fclose(s->truth);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->taken);
	free(s);
}
