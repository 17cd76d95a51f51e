/* SPDX-License-Identifier: MIT */
/*
 * probe.h - the BPF side seen from user space (probe.c): load the skeleton, attach the
 * uprobes of each target PID, drain the ring buffer into frame records, read the counters.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"
#include "symbols.h"

struct probe;
struct ring_buffer;

typedef void (*probe_event_fn)(void *ctx, const struct frc_record *r);

/*
 * Open and load the BPF skeleton with a ring of ring_kib KiB. On failure err names the
 * layer that failed (BPF syscall, permissions, ring buffer support).
 */
FRC_MUST_USE int probe_open(struct probe **out, unsigned ring_kib, probe_event_fn fn, void *ctx,
			    char *err, size_t errlen);
void probe_close(struct probe *p);
/*
 * Attach to pid (-1: every process) on lib, trying syms in order: the first single-buffer
 * candidate that attaches wins and is returned in *chosen; the first batch candidate that
 * attaches is attached as well (its failure is not fatal); a forced list attaches its one
 * candidate, whatever its kind. Failures are written into each candidate's status/why.
 * Attaching a PID already attached is a no-op returning 0 (with *chosen = NULL).
 */
FRC_MUST_USE int probe_attach(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
			      const struct sym_candidate **chosen);
void probe_detach(struct probe *p, pid_t pid);
void probe_detach_all(struct probe *p);
/*
 * The stop: every program stops recording at once (the BPF side's `stopped` flag), then
 * every link is detached (a uprobe_multi link per target, or a perf-event uprobe per site:
 * each release waits for a kernel grace period; recorder/README.md "Stop order" has the
 * figures). Afterwards no program runs: drain to empty.
 */
void probe_stop(struct probe *p);
bool probe_attached(const struct probe *p, pid_t pid);
/* Drain the ring (every event goes to fn). Returns events consumed or -errno. */
FRC_MUST_USE int probe_drain(struct probe *p);
/* The fd that becomes readable when the BPF side forces a wakeup. */
int probe_ring_fd(const struct probe *p);
/*
 * Buffers queued but not recorded, summed over CPUs: reservation failures plus batch
 * elements past FRAMEREC_BATCH_MAX (what the drops records count).
 */
uint64_t probe_drops(struct probe *p);
/* The part of probe_drops that is batch elements cut. */
uint64_t probe_batch_cut(struct probe *p);
/*
 * Surface::queueBuffers calls whose vector could not be read or is no vector of 24-byte
 * elements (frame_event.h, FRAMEREC_BATCH_SANE): calls, not buffers, in no drop count.
 */
uint64_t probe_batch_anomalies(struct probe *p);
/*
 * Buffers queued whose ANativeWindowBuffer header could not be read or lacked its magic
 * (recorded as frames without geometry; the drops records' bad_buffers).
 */
uint64_t probe_bad_buffers(struct probe *p);
/* Surface::connect / disconnect calls the ring had no room for (not in the capture). */
uint64_t probe_lifetime_lost(struct probe *p);
/*
 * The Surface::queueBuffers candidate attached in addition for pid (it points into the
 * sym_list given to probe_attach), or NULL.
 */
const struct sym_candidate *probe_batch_attached(const struct probe *p, pid_t pid);
/* The Surface::setBuffersTimestamp candidate attached in addition for pid, or NULL. */
const struct sym_candidate *probe_stamp_attached(const struct probe *p, pid_t pid);
/* The Surface::connect and disconnect candidates attached for pid (NULL: not attached). */
void probe_lifetime_attached(const struct probe *p, pid_t pid, const struct sym_candidate **connect,
			     const struct sym_candidate **disconnect);
/* The links pid holds (uprobe_multi: 1 unless a site was refused together; 0: none). */
int probe_links(const struct probe *p, pid_t pid);
/*
 * How the sites are attached, for -v and doctor: "uprobe_multi links, one per target" or
 * "perf-event uprobes, one per site (uprobe_multi: WHY not)". Returns buf.
 */
const char *probe_links_desc(const struct probe *p, char *buf, size_t len);
/* Describe why an attach failed (errno) as a layer + hint. */
const char *probe_attach_hint(int err);

#endif /* PROBE_H */
