// SPDX-License-Identifier: MIT
/*
 * probe.c - the BPF side seen from userspace: load the skeleton, attach one uprobe per
 * target PID (the kernel filters by PID), drain the ring buffer, sum the counters.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frame_event.h"
#include "framerec.skel.h"
#include "probe.h"
#include "recorder.h"

struct attachment {
	pid_t pid;
	struct bpf_link *link;			  /* the single-buffer symbol */
	struct bpf_link *batch_link;		  /* Surface::queueBuffers too, when found */
	const struct sym_candidate *batch_symbol; /* the one batch_link is on */
	/* Surface::connect / disconnect, when found (sym_list.life) */
	struct bpf_link *life_link[2];
	const struct sym_candidate *life_symbol[2];
};

struct probe {
	struct framerec *skel;
	struct ring_buffer *rb;
	probe_event_fn fn;
	void *ctx;
	struct attachment att[FR_MAX_TARGETS];
	int n_att;
	int ncpu;
	uint64_t *percpu; /* scratch for the per-CPU counter lookup */
	uint64_t last[FRAMEREC_COUNTER_SLOTS];
};

static const char *load_hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "the bpf() syscall is not permitted: run as root (or with CAP_BPF, "
		       "CAP_PERFMON and CAP_SYS_ADMIN); on Android an enforcing SELinux policy "
		       "can deny it (check getenforce and avc denials in dmesg/logcat)";
	case ENOSYS:
		return "the kernel has no bpf() syscall (CONFIG_BPF_SYSCALL off, or running "
		       "under an emulator such as qemu-user)";
	case EINVAL:
		return "the kernel rejected the program or its ring buffer map (BPF ring buffer "
		       "needs Linux 5.8+; run 'framerec doctor')";
	default:
		/* doctor has no -v (it would exit 2): the recording's own -v shows the log */
		return "run 'framerec doctor', or this command again with -v for libbpf's log";
	}
}

const char *probe_attach_hint(int err)
{
	switch (err) {
	case ENOENT:
		return "no such file, or no uprobe support (CONFIG_UPROBE_EVENTS)";
	case EPERM:
	case EACCES:
		return "permission denied (root, CAP_PERFMON/CAP_SYS_ADMIN, SELinux)";
	case EINVAL:
		return "the kernel refused the uprobe offset";
	case ESRCH:
		return "no such process";
	default:
		return strerror(err);
	}
}

/* A geometry_event as the buffer record it is (FORMAT.md 4.10). */
static void geometry_record(const struct geometry_event *e, struct frc_record *r)
{
	r->type = FRC_BUFFER;
	r->ktime_ns = e->ktime_ns;
	r->u.buffer.pid = e->tgid;
	r->u.buffer.surface = e->surface;
	r->u.buffer.buffer = e->buffer;
	r->u.buffer.width = e->width;
	r->u.buffer.height = e->height;
	r->u.buffer.stride = e->stride;
	r->u.buffer.format = e->format;
	r->u.buffer.usage = e->usage;
}

/* A connect_event as the connect record it is (FORMAT.md 4.11). */
static void connect_record(const struct connect_event *e, struct frc_record *r)
{
	r->type = FRC_CONNECT;
	r->ktime_ns = e->ktime_ns;
	r->u.connect.pid = e->tgid;
	r->u.connect.tid = e->tid;
	r->u.connect.surface = e->surface;
	r->u.connect.api = e->api;
	r->u.connect.connected = e->connected != 0;
}

/* The ring holds three event types, one size each (frame_event.h). */
static int on_event(void *ctx, void *data, size_t size)
{
	struct probe *p = ctx;
	const struct frame_event *e = data;
	struct frc_record r;

	memset(&r, 0, sizeof(r));
	if (size == sizeof(struct geometry_event) || size == sizeof(struct connect_event)) {
		if (size == sizeof(struct geometry_event))
			geometry_record(data, &r);
		else
			connect_record(data, &r);
		p->fn(p->ctx, &r);
		return 0;
	}
	if (size < sizeof(*e))
		return 0; /* cannot happen: the program writes fixed-size events */
	r.type = FRC_FRAME;
	r.ktime_ns = e->ktime_ns;
	r.u.frame.pid = e->tgid;
	r.u.frame.tid = e->tid;
	r.u.frame.buffer = e->buffer;
	r.u.frame.surface = e->surface;
	/* AUTO is "no timestamp" (a single-buffer call, or a batch element without one). */
	r.u.frame.has_timestamp = e->timestamp != FRAMEREC_TIMESTAMP_AUTO;
	r.u.frame.timestamp = r.u.frame.has_timestamp ? e->timestamp : 0;
	p->fn(p->ctx, &r);
	return 0;
}

int probe_open(struct probe **out, unsigned ring_kib, probe_event_fn fn, void *ctx, char *err,
	       size_t errlen)
{
	struct probe *p = calloc(1, sizeof(*p));
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->fn = fn;
	p->ctx = ctx;
	p->ncpu = libbpf_num_possible_cpus();
	if (p->ncpu <= 0) {
		ret = p->ncpu ? p->ncpu : -EINVAL;
		snprintf(err, errlen, "cannot count CPUs: %s", strerror(-ret));
		goto fail;
	}
	p->percpu = calloc((size_t)p->ncpu, sizeof(uint64_t));
	p->skel = framerec__open();
	if (!p->percpu || !p->skel) {
		ret = p->percpu ? -errno : -ENOMEM;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		goto fail;
	}
	/* A power of 2 (framerec.c checks) and a multiple of the page size (16 KiB on some
	 * Android devices): say so rather than let the kernel answer EINVAL. */
	if ((ring_kib * 1024ul) % (unsigned long)sysconf(_SC_PAGESIZE)) {
		ret = -EINVAL;
		snprintf(err, errlen,
			 "--ring-kib %u: the ring must be a multiple of the page "
			 "size (%ld KiB here)",
			 ring_kib, sysconf(_SC_PAGESIZE) / 1024);
		goto fail;
	}
	ret = bpf_map__set_max_entries(p->skel->maps.events, ring_kib * 1024u);
	if (ret) {
		snprintf(err, errlen, "ring buffer of %u KiB: %s", ring_kib, strerror(-ret));
		goto fail;
	}
	/* Force a wakeup only once half the ring is full; below, the drain timer suffices. */
	p->skel->rodata->wakeup_bytes = (uint64_t)ring_kib * 1024u / 2;
	ret = framerec__load(p->skel);
	if (ret) {
		ret = ret < 0 ? ret : -EINVAL;
		snprintf(err, errlen, "BPF unavailable: loading the program failed (%s): %s",
			 strerror(-ret), load_hint(-ret));
		goto fail;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.events), on_event, p, NULL);
	if (!p->rb) {
		ret = -errno;
		snprintf(err, errlen, "BPF ring buffer: %s", strerror(-ret));
		goto fail;
	}
	*out = p;
	return 0;
fail:
	probe_close(p);
	return ret;
}

void probe_close(struct probe *p)
{
	if (!p)
		return;
	probe_detach_all(p);
	ring_buffer__free(p->rb);
	framerec__destroy(p->skel);
	free(p->percpu);
	free(p);
}

bool probe_attached(const struct probe *p, pid_t pid)
{
	for (int i = 0; i < p->n_att; i++)
		if (p->att[i].pid == pid)
			return true;
	return false;
}

/* The program that reads the candidate's argument layout (NULL: none does). */
static struct bpf_program *program_for(const struct probe *p, const struct sym_candidate *c)
{
	switch (c->kind) {
	case SYM_KIND_WINDOW:
		return p->skel->progs.queue_window;
	case SYM_KIND_MEMBER:
		return p->skel->progs.queue_member;
	case SYM_KIND_MEMBER_SP:
		return p->skel->progs.queue_member_sp;
	case SYM_KIND_BATCH:
		return p->skel->progs.queue_buffers;
	case SYM_KIND_CONNECT:
		return p->skel->progs.surface_connect;
	case SYM_KIND_DISCONNECT:
		return p->skel->progs.surface_disconnect;
	case SYM_KIND_UNKNOWN:
		break;
	}
	return NULL;
}

/* One uprobe; a refusal is written into the candidate (status, why). */
static struct bpf_link *attach_one(struct probe *p, pid_t pid, const char *lib,
				   struct sym_candidate *c)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_program *prog = program_for(p, c);
	struct bpf_link *link;
	int err;

	if (!prog) /* sym_scan_image marks these SYM_NO_LAYOUT: not reached */
		return NULL;
	link = bpf_program__attach_uprobe_opts(prog, pid, lib, (size_t)c->offset, &uo);
	err = errno;
	if (!link) {
		c->status = SYM_ATTACH_FAILED;
		snprintf(c->why, sizeof(c->why), "attach failed: %s (%s)", strerror(err),
			 probe_attach_hint(err));
	}
	return link;
}

/* The first candidate of the wanted kind (batch or not) the kernel accepts, or NULL. */
static struct sym_candidate *attach_first(struct probe *p, pid_t pid, const char *lib,
					  struct sym_list *syms, bool batch, struct bpf_link **link)
{
	for (size_t i = 0; i < syms->n; i++) {
		struct sym_candidate *c = &syms->v[i];

		if (c->status != SYM_FOUND || c->kind >= SYM_KIND_CONNECT ||
		    (!syms->forced && (c->kind == SYM_KIND_BATCH) != batch))
			continue;
		*link = attach_one(p, pid, lib, c);
		if (*link)
			return c;
	}
	return NULL;
}

/*
 * Surface::connect (the first of its forms found, symbols.c says why one) and disconnect,
 * in addition to the queue symbols; a refusal is written into the candidate and is not
 * fatal (the recording goes on without lifetime records).
 */
static void attach_lifetime(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
			    struct attachment *a)
{
	for (int k = 0; k < 2; k++) {
		a->life_link[k] = NULL;
		a->life_symbol[k] = NULL;
	}
	for (size_t i = 0; i < SYM_LIFETIME_N; i++) {
		struct sym_candidate *c = &syms->life[i];
		int k = c->kind == SYM_KIND_DISCONNECT;

		if (c->status != SYM_FOUND || a->life_link[k])
			continue;
		a->life_link[k] = attach_one(p, pid, lib, c);
		if (a->life_link[k])
			a->life_symbol[k] = c;
	}
}

int probe_attach(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
		 const struct sym_candidate **chosen)
{
	struct attachment *a = &p->att[p->n_att];

	*chosen = NULL;
	if (probe_attached(p, pid))
		return 0;
	if (p->n_att >= FR_MAX_TARGETS)
		return -E2BIG;
	*chosen = attach_first(p, pid, lib, syms, false, &a->link);
	if (!*chosen)
		return -ENOENT;
	/* The batch path as well: its calls never pass through the symbol chosen. */
	a->batch_link = NULL;
	a->batch_symbol = NULL;
	if (!syms->forced)
		a->batch_symbol = attach_first(p, pid, lib, syms, true, &a->batch_link);
	attach_lifetime(p, pid, lib, syms, a);
	a->pid = pid;
	p->n_att++;
	return 0;
}

void probe_lifetime_attached(const struct probe *p, pid_t pid, const struct sym_candidate **connect,
			     const struct sym_candidate **disconnect)
{
	*connect = *disconnect = NULL;
	for (int i = 0; i < p->n_att; i++)
		if (p->att[i].pid == pid) {
			*connect = p->att[i].life_link[0] ? p->att[i].life_symbol[0] : NULL;
			*disconnect = p->att[i].life_link[1] ? p->att[i].life_symbol[1] : NULL;
		}
}

const struct sym_candidate *probe_batch_attached(const struct probe *p, pid_t pid)
{
	for (int i = 0; i < p->n_att; i++)
		if (p->att[i].pid == pid)
			return p->att[i].batch_link ? p->att[i].batch_symbol : NULL;
	return NULL;
}

void probe_detach(struct probe *p, pid_t pid)
{
	for (int i = 0; i < p->n_att; i++) {
		if (p->att[i].pid != pid)
			continue;
		bpf_link__destroy(p->att[i].link);
		bpf_link__destroy(p->att[i].batch_link);
		bpf_link__destroy(p->att[i].life_link[0]);
		bpf_link__destroy(p->att[i].life_link[1]);
		p->att[i] = p->att[--p->n_att];
		return;
	}
}

void probe_detach_all(struct probe *p)
{
	while (p->n_att > 0)
		probe_detach(p, p->att[0].pid);
}

void probe_stop(struct probe *p)
{
	/* No program records from here on; detaching them may take a while. */
	__atomic_store_n(&p->skel->bss->stopped, 1, __ATOMIC_SEQ_CST);
	probe_detach_all(p);
}

int probe_drain(struct probe *p)
{
	return ring_buffer__consume(p->rb);
}

int probe_ring_fd(const struct probe *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

/* One per-CPU counter, summed over CPUs; a failed lookup repeats the last sum. */
static uint64_t counter(struct probe *p, uint32_t slot)
{
	uint64_t sum = 0;

	if (bpf_map__lookup_elem(p->skel->maps.counters, &slot, sizeof(slot), p->percpu,
				 (size_t)p->ncpu * sizeof(uint64_t), 0))
		return p->last[slot];
	for (int i = 0; i < p->ncpu; i++)
		sum += p->percpu[i];
	p->last[slot] = sum;
	return sum;
}

uint64_t probe_drops(struct probe *p)
{
	return counter(p, FRAMEREC_DROP_RESERVE) + counter(p, FRAMEREC_DROP_CUT);
}

uint64_t probe_batch_cut(struct probe *p)
{
	return counter(p, FRAMEREC_DROP_CUT);
}

uint64_t probe_batch_anomalies(struct probe *p)
{
	return counter(p, FRAMEREC_BATCH_ANOMALY);
}

uint64_t probe_bad_buffers(struct probe *p)
{
	return counter(p, FRAMEREC_BAD_BUFFER);
}

uint64_t probe_lifetime_lost(struct probe *p)
{
	return counter(p, FRAMEREC_LIFETIME_LOST);
}
