// SPDX-License-Identifier: MIT
/*
 * probe.c - the BPF side seen from userspace: load the skeleton, attach the uprobes of each
 * target PID (the kernel filters by PID), drain the ring buffer, sum the counters.
 *
 * Two ways to attach, chosen once before load. uprobe_multi (Linux 6.6+): every site of a
 * target (queue entry point, batch path, connect, disconnect, timestamp) in one link of the
 * dispatcher program, whose release unregisters them all behind one kernel grace period. The
 * fallback (older kernels, Android GKI 5.10-6.1): one perf-event uprobe per site, each release
 * waiting for grace periods of its own under a global mutex (~0.1 s a link here).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frame_event.h"
#include "framerec.skel.h"
#include "probe.h"
#include "recorder.h"

/*
 * uprobe_multi as Linux 6.6 defined it (include/uapi/linux/bpf.h at v6.6: enum
 * bpf_attach_type BPF_TRACE_UPROBE_MULTI = 48; union bpf_attr.link_create's common
 * {prog_fd, target_fd, attach_type, flags}, then uprobe_multi {path, offsets,
 * ref_ctr_offsets, cookies, cnt, flags, pid}). Spelled here because Debian 12's
 * linux-libc-dev (6.1) and libbpf (1.1) predate it; the link is made with the raw
 * bpf(BPF_LINK_CREATE).
 */
#define FRC_BPF_TRACE_UPROBE_MULTI 48

struct frc_uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd; /* unused: 0 */
	__u32 attach_type;
	__u32 flags; /* link_create.flags: 0 */
	__aligned_u64 path;
	__aligned_u64 offsets; /* unsigned long[cnt]: file offsets */
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies; /* __u64[cnt]: bpf_get_attach_cookie() of each offset */
	__u32 cnt;
	__u32 multi_flags; /* BPF_F_UPROBE_MULTI_RETURN not set: entry probes */
	__u32 pid;	   /* 0: every process */
};

_Static_assert(offsetof(struct frc_uprobe_multi_attr, path) == 16 &&
		   offsetof(struct frc_uprobe_multi_attr, pid) == 56,
	       "link_create.uprobe_multi as in the 6.6 uapi");

/* The environment variable that forces the perf-event fallback (tests, and a way out). */
#define PROBE_NO_MULTI_ENV "FRAMEREC_NO_UPROBE_MULTI"

/* One link: a libbpf perf-event uprobe (fallback) or a uprobe_multi link fd (else -1). */
struct site_link {
	struct bpf_link *perf;
	int fd;
};

/* Sites per target: the queue entry point, the batch path, connect, disconnect, timestamp. */
#define PROBE_SITES 5

struct attachment {
	pid_t pid;
	/* uprobe_multi: one link for every site; fallback: one per site attached */
	struct site_link link[PROBE_SITES];
	int n_link;
	const struct sym_candidate *batch_symbol;   /* Surface::queueBuffers, or NULL */
	const struct sym_candidate *life_symbol[2]; /* connect / disconnect, or NULL */
	const struct sym_candidate *stamp_symbol;   /* Surface::setBuffersTimestamp, or NULL */
};

struct probe {
	struct framerec *skel;
	bool multi;	   /* uprobe_multi links (else the perf-event fallback) */
	char why_perf[96]; /* why not uprobe_multi, when !multi */
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

/*
 * A uprobe_multi link of prog_fd on cnt offsets of path for pid (the attr's value as it is:
 * 0 is every process, multi_check passes -1 on purpose).
 */
static int multi_link(int prog_fd, const char *path, __u32 pid, const unsigned long *offsets,
		      const __u64 *cookies, __u32 cnt)
{
	struct frc_uprobe_multi_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)prog_fd;
	a.attach_type = FRC_BPF_TRACE_UPROBE_MULTI;
	a.path = (__u64)(uintptr_t)path;
	a.offsets = (__u64)(uintptr_t)offsets;
	a.cookies = (__u64)(uintptr_t)cookies;
	a.cnt = cnt;
	a.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/* A link the kernel refused on purpose: its errno (0 if, unexpectedly, it was made). */
static int multi_refusal(int prog_fd, const char *path, __u32 pid)
{
	unsigned long offset = 0;
	int fd = multi_link(prog_fd, path, pid, &offset, NULL, 1);

	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

/*
 * Can this kernel's uprobe_multi links be used? "" when they can, else why not, in why.
 * libbpf 1.3's probe_uprobe_multi_link, spelled out: a program of that attach type on "/"
 * must fail with EBADF (no regular file: the attach type is known), and with pid -1 with
 * EINVAL: kernels before the fix of May 2024 (6.10, and the stable kernels it went to)
 * check the pid later, and their pid filter keeps one thread, not the process, so the
 * threads besides the main one would go unrecorded.
 */
static void multi_check(char *why, size_t len)
{
	const struct bpf_insn ret0[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = (enum bpf_attach_type)FRC_BPF_TRACE_UPROBE_MULTI);
	const char *env = getenv(PROBE_NO_MULTI_ENV);
	int prog, err;

	why[0] = 0;
	if (env && env[0] && strcmp(env, "0") != 0) {
		snprintf(why, len, "%s is set", PROBE_NO_MULTI_ENV);
		return;
	}
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "frc_multi_chk", "GPL", ret0, 2, &lo);
	if (prog < 0) {
		snprintf(why, len, "its program type refused (%s)", strerror(errno));
		return;
	}
	err = multi_refusal(prog, "/", 0);
	if (err != EBADF)
		snprintf(why, len, "not in this kernel (%s)", strerror(err ? err : EEXIST));
	else if ((err = multi_refusal(prog, "/", (__u32)-1)) != EINVAL)
		snprintf(why, len,
			 "this kernel's pid filter is per thread (needs 6.10 or a fixed "
			 "stable kernel)");
	close(prog);
}

/*
 * Load one way or the other (probe.c's top comment): the dispatcher with uprobe_multi's
 * attach type, or the seven programs of the fallback; the others are not loaded at all (the
 * dispatcher's bpf_get_attach_cookie would not even verify before 5.15).
 */
static void choose_programs(struct probe *p)
{
	struct bpf_program *fallback[] = {
	    p->skel->progs.queue_window,      p->skel->progs.queue_member,
	    p->skel->progs.queue_member_sp,   p->skel->progs.queue_buffers,
	    p->skel->progs.surface_connect,   p->skel->progs.surface_disconnect,
	    p->skel->progs.buffers_timestamp,
	};

	multi_check(p->why_perf, sizeof(p->why_perf));
	p->multi = !p->why_perf[0];
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		bpf_program__set_autoload(fallback[i], !p->multi);
	bpf_program__set_autoload(p->skel->progs.surface_site, p->multi);
	if (p->multi)
		bpf_program__set_expected_attach_type(
		    p->skel->progs.surface_site, (enum bpf_attach_type)FRC_BPF_TRACE_UPROBE_MULTI);
}

const char *probe_links_desc(const struct probe *p, char *buf, size_t len)
{
	if (p->multi)
		snprintf(buf, len, "uprobe_multi links, one per target");
	else
		snprintf(buf, len, "perf-event uprobes, one per site (uprobe_multi: %s)",
			 p->why_perf);
	return buf;
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
	choose_programs(p);
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

/* The attachment of pid, or NULL: what every per-target question below looks up. */
static const struct attachment *attachment_of(const struct probe *p, pid_t pid)
{
	for (int i = 0; i < p->n_att; i++)
		if (p->att[i].pid == pid)
			return &p->att[i];
	return NULL;
}

bool probe_attached(const struct probe *p, pid_t pid)
{
	return attachment_of(p, pid) != NULL;
}

/* The fallback's program that reads the candidate's argument layout (NULL: none does). */
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
	case SYM_KIND_STAMP:
		return p->skel->progs.buffers_timestamp;
	case SYM_KIND_UNKNOWN:
		break;
	}
	return NULL;
}

/* The dispatcher's cookie for the candidate's layout (frame_event.h; 0: none). */
static __u64 site_cookie(const struct sym_candidate *c)
{
	switch (c->kind) {
	case SYM_KIND_WINDOW:
		return FRAMEREC_SITE_WINDOW;
	case SYM_KIND_MEMBER:
		return FRAMEREC_SITE_MEMBER;
	case SYM_KIND_MEMBER_SP:
		return FRAMEREC_SITE_MEMBER_SP;
	case SYM_KIND_BATCH:
		return FRAMEREC_SITE_BATCH;
	case SYM_KIND_CONNECT:
		return FRAMEREC_SITE_CONNECT;
	case SYM_KIND_DISCONNECT:
		return FRAMEREC_SITE_DISCONNECT;
	case SYM_KIND_STAMP:
		return FRAMEREC_SITE_STAMP;
	case SYM_KIND_UNKNOWN:
		break;
	}
	return 0;
}

/* probe_attach's pid (-1: every process, as libbpf's) as uprobe_multi's (0). */
static __u32 multi_pid(pid_t pid)
{
	return pid > 0 ? (__u32)pid : 0;
}

static void link_close(struct site_link *l)
{
	bpf_link__destroy(l->perf);
	if (l->fd >= 0)
		close(l->fd);
	l->perf = NULL;
	l->fd = -1;
}

/* One site alone, either way; a refusal is written into the candidate (status, why). */
static int attach_one(struct probe *p, pid_t pid, const char *lib, struct sym_candidate *c,
		      struct site_link *l)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_program *prog = program_for(p, c);
	unsigned long offset = (unsigned long)c->offset;
	__u64 cookie = site_cookie(c);
	int err = 0;

	if (!prog) /* sym_scan_image marks these SYM_NO_LAYOUT: not reached */
		return -EINVAL;
	l->perf = NULL;
	l->fd = -1;
	if (p->multi) {
		l->fd = multi_link(bpf_program__fd(p->skel->progs.surface_site), lib,
				   multi_pid(pid), &offset, &cookie, 1);
		err = l->fd < 0 ? -l->fd : 0;
	} else {
		l->perf = bpf_program__attach_uprobe_opts(prog, pid, lib, (size_t)c->offset, &uo);
		err = l->perf ? 0 : errno;
	}
	if (err) {
		c->status = SYM_ATTACH_FAILED;
		snprintf(c->why, sizeof(c->why), "attach failed: %s (%s)", strerror(err),
			 probe_attach_hint(err));
	}
	return -err;
}

/* Whether c is a candidate of the queue site wanted (batch or not) or, forced, any. */
static bool queue_site(const struct sym_list *syms, const struct sym_candidate *c, bool batch)
{
	return c->status == SYM_FOUND && c->kind < SYM_KIND_CONNECT &&
	       (syms->forced || (c->kind == SYM_KIND_BATCH) == batch);
}

/* The first candidate of the wanted kind (batch or not) the kernel accepts, or NULL. */
static struct sym_candidate *attach_first(struct probe *p, pid_t pid, const char *lib,
					  struct sym_list *syms, bool batch, struct site_link *l)
{
	for (size_t i = 0; i < syms->n; i++) {
		struct sym_candidate *c = &syms->v[i];

		if (queue_site(syms, c, batch) && attach_one(p, pid, lib, c, l) == 0)
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
	for (size_t i = 0; i < SYM_LIFETIME_N; i++) {
		struct sym_candidate *c = &syms->life[i];
		int k = c->kind == SYM_KIND_DISCONNECT;

		if (c->status != SYM_FOUND || a->life_symbol[k])
			continue;
		if (attach_one(p, pid, lib, c, &a->link[a->n_link]) == 0) {
			a->life_symbol[k] = c;
			a->n_link++;
		}
	}
}

/* Surface::setBuffersTimestamp in addition, when found; a refusal is not fatal either. */
static void attach_stamp(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
			 struct attachment *a)
{
	if (syms->stamp.status != SYM_FOUND ||
	    attach_one(p, pid, lib, &syms->stamp, &a->link[a->n_link]))
		return;
	a->stamp_symbol = &syms->stamp;
	a->n_link++;
}

/* One site per link, in attach order (the fallback's way, and uprobe_multi's second try). */
static int attach_each(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
		       struct attachment *a, const struct sym_candidate **chosen)
{
	*chosen = attach_first(p, pid, lib, syms, false, &a->link[0]);
	if (!*chosen)
		return -ENOENT;
	a->n_link = 1;
	/* The batch path as well: its calls never pass through the symbol chosen. */
	if (!syms->forced)
		a->batch_symbol = attach_first(p, pid, lib, syms, true, &a->link[a->n_link]);
	a->n_link += a->batch_symbol != NULL;
	attach_lifetime(p, pid, lib, syms, a);
	attach_stamp(p, pid, lib, syms, a);
	return 0;
}

/*
 * The first candidate attach_each would try for a site (k: queue, batch, connect,
 * disconnect, timestamp).
 */
static struct sym_candidate *first_site(struct sym_list *syms, int k)
{
	if (k == 1 && syms->forced)
		return NULL; /* a forced list attaches its one candidate, no batch besides */
	if (k == 4)
		return syms->stamp.status == SYM_FOUND ? &syms->stamp : NULL;
	if (k < 2) {
		for (size_t i = 0; i < syms->n; i++)
			if (queue_site(syms, &syms->v[i], k == 1))
				return &syms->v[i];
		return NULL;
	}
	for (size_t i = 0; i < SYM_LIFETIME_N; i++)
		if (syms->life[i].status == SYM_FOUND &&
		    (syms->life[i].kind == SYM_KIND_DISCONNECT) == (k == 3))
			return &syms->life[i];
	return NULL;
}

/*
 * uprobe_multi: the sites attach_each would attach when the kernel takes its first choices,
 * in one link. 0, or -errno with nothing attached and no candidate marked: a refusal takes
 * the whole link, so attach_each then finds the site refused, one link each.
 */
static int attach_together(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
			   struct attachment *a, const struct sym_candidate **chosen)
{
	struct sym_candidate *site[PROBE_SITES];
	unsigned long offsets[PROBE_SITES];
	__u64 cookies[PROBE_SITES];
	__u32 n = 0;
	int fd;

	for (int k = 0; k < PROBE_SITES; k++) {
		site[k] = first_site(syms, k);
		if (site[k]) {
			offsets[n] = (unsigned long)site[k]->offset;
			cookies[n++] = site_cookie(site[k]);
		}
	}
	if (!site[0])
		return -ENOENT;
	fd = multi_link(bpf_program__fd(p->skel->progs.surface_site), lib, multi_pid(pid), offsets,
			cookies, n);
	if (fd < 0)
		return fd;
	a->link[0] = (struct site_link){.perf = NULL, .fd = fd};
	a->n_link = 1;
	*chosen = site[0];
	a->batch_symbol = site[1];
	a->life_symbol[0] = site[2];
	a->life_symbol[1] = site[3];
	a->stamp_symbol = site[4];
	return 0;
}

int probe_attach(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
		 const struct sym_candidate **chosen)
{
	struct attachment *a = &p->att[p->n_att];
	int ret;

	*chosen = NULL;
	if (probe_attached(p, pid))
		return 0;
	if (p->n_att >= FR_MAX_TARGETS)
		return -E2BIG;
	memset(a, 0, sizeof(*a));
	ret = p->multi ? attach_together(p, pid, lib, syms, a, chosen) : -1;
	if (ret) /* the fallback, or a site uprobe_multi refused: one link each */
		ret = attach_each(p, pid, lib, syms, a, chosen);
	if (ret)
		return ret;
	a->pid = pid;
	p->n_att++;
	return 0;
}

int probe_links(const struct probe *p, pid_t pid)
{
	const struct attachment *a = attachment_of(p, pid);

	return a ? a->n_link : 0;
}

void probe_lifetime_attached(const struct probe *p, pid_t pid, const struct sym_candidate **connect,
			     const struct sym_candidate **disconnect)
{
	const struct attachment *a = attachment_of(p, pid);

	*connect = a ? a->life_symbol[0] : NULL;
	*disconnect = a ? a->life_symbol[1] : NULL;
}

const struct sym_candidate *probe_stamp_attached(const struct probe *p, pid_t pid)
{
	const struct attachment *a = attachment_of(p, pid);

	return a ? a->stamp_symbol : NULL;
}

const struct sym_candidate *probe_batch_attached(const struct probe *p, pid_t pid)
{
	const struct attachment *a = attachment_of(p, pid);

	return a ? a->batch_symbol : NULL;
}

void probe_detach(struct probe *p, pid_t pid)
{
	for (int i = 0; i < p->n_att; i++) {
		if (p->att[i].pid != pid)
			continue;
		for (int k = 0; k < p->att[i].n_link; k++)
			link_close(&p->att[i].link[k]);
		p->att[i] = p->att[--p->n_att];
		return;
	}
}

void probe_detach_all(struct probe *p)
{
	while (p->n_att > 0)
		probe_detach(p, p->att[0].pid);
}

/* One target's links closed on a thread of its own (probe_stop). */
static void *close_links(void *arg)
{
	struct attachment *a = arg;

	for (int k = 0; k < a->n_link; k++)
		link_close(&a->link[k]);
	a->n_link = 0;
	return NULL;
}

/*
 * Close every target's links at once, a thread per target: concurrent uprobe_multi
 * releases wait for the same grace period instead of one each. A thread that cannot be
 * started leaves its target to probe_detach_all, one after another.
 */
static void close_all_at_once(struct probe *p)
{
	pthread_t th[FR_MAX_TARGETS];
	bool started[FR_MAX_TARGETS];

	for (int i = 0; i < p->n_att; i++)
		started[i] = pthread_create(&th[i], NULL, close_links, &p->att[i]) == 0;
	for (int i = 0; i < p->n_att; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

void probe_stop(struct probe *p)
{
	/* No program records from here on; detaching them may take a while. */
	__atomic_store_n(&p->skel->bss->stopped, 1, __ATOMIC_SEQ_CST);
	if (p->multi)
		close_all_at_once(p);
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
