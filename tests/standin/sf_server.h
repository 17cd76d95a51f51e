/* SPDX-License-Identifier: MIT */
/*
 * sf_server.h - the stand-in SurfaceFlinger as a service: a vsync thread driving the
 * compositor (compositor.h) at the display's refresh, and a Unix socket on which
 * standin-dumpsys asks for `--list` and `--latency NAME`, as framerec asks a device's
 * dumpsys. Runs inside the stand-in game's process (the game hands it each buffer it
 * queues, as BufferQueue hands it to BLAST); its truth file lists every buffer latched,
 * presented and dropped.
 */
#ifndef STANDIN_SF_SERVER_H
#define STANDIN_SF_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "compositor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The request standin-dumpsys sends: "list\n" or "latency NAME\n" (NAME to the newline). */
#define SF_SERVER_REQ_MAX 1024
#define SF_SERVER_REPLY_MAX 65536

struct sf_server;

/*
 * Start: socket at sock_path (removed first if it is a stale socket), truth written to
 * truth_path (may be NULL), vsync every period_ns from now. Returns 0 or -errno.
 */
int sf_server_start(struct sf_server **out, const char *sock_path, const char *truth_path,
		    int android, int64_t period_ns);

/* A layer for the game's surface (compositor.h comp_add_layer); returns its index. */
int sf_server_add_layer(struct sf_server *s, enum comp_kind kind, const char *title,
			enum comp_mode mode);

/* A buffer the game queued at queue_ns; blocks (FIFO back-pressure) until it is taken. */
void sf_server_queue(struct sf_server *s, int layer, uint64_t buffer, int64_t queue_ns,
		     int64_t timestamp);

void sf_server_set_period(struct sf_server *s, int64_t period_ns);

/* The layer's visibility (compositor.h comp_set_visible), now. */
void sf_server_set_visible(struct sf_server *s, int layer, bool visible);

/* A resize: the layer's waiting buffers are flushed (compositor.h comp_flush), now. */
void sf_server_flush(struct sf_server *s, int layer);

/* Wait until every queued buffer was latched (or dropped), at most timeout_ns. */
void sf_server_drain(struct sf_server *s, int64_t timeout_ns);

/* Stop the threads, close the socket, flush the truth file. */
void sf_server_stop(struct sf_server *s);

#ifdef __cplusplus
}
#endif

#endif /* STANDIN_SF_SERVER_H */
