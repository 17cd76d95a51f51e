/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - framerec's internal interfaces, one section per source file.
 *
 * Data flows one way: ring buffer (probe.c) -> frc_record -> capture writer + pipeline
 * (loop.c). Everything else finds what to attach to (target.c, symbols.c), what to
 * sample (sysfs.c) and what to write in the header (meta.c).
 */
#ifndef RECORDER_H
#define RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../format/frc_record.h"

#define MUST_USE __attribute__((warn_unused_result))

#define FR_MAX_TARGETS 64
#define FR_DEFAULT_LIB "/system/lib64/libgui.so"
#define FR_ERRLEN 2048

/* ------------------------------------------------------------ options (framerec.c) */

struct options {
	pid_t pids[FR_MAX_TARGETS];
	int n_pids;
	const char *package;
	bool wait;
	char **command; /* argv after "--", NULL-terminated, or NULL */
	const char *lib;
	const char *symbol;
	unsigned ring_kib;
	unsigned tick_ms;
	unsigned sysfs_ms;
	unsigned flush_ms;
	const char *sysfs;
	bool sysfs_only;
	double duration_s; /* 0: until stopped */
	const char *output;
	bool force;
	bool quiet;
	bool verbose;
};

/* Monotonic clock in ns (the clock bpf_ktime_get_ns() reads). */
uint64_t now_ns(void);

/* ------------------------------------------------------------ symbols.c */

enum sym_status {
	SYM_FOUND = 0,	   /* defined, offset valid */
	SYM_MISSING,	   /* not in .dynsym/.symtab */
	SYM_UNDEFINED,	   /* present but undefined (imported) */
	SYM_NOT_MAPPED,	   /* defined, but no executable PT_LOAD segment holds it */
	SYM_ATTACH_FAILED, /* found, the kernel refused the uprobe (see why) */
};

struct sym_candidate {
	char name[FRC_SYMBOL_MAX + 1];
	uint64_t offset; /* file offset, what a uprobe needs */
	enum sym_status status;
	bool sp;       /* argument 1 is a const sp<GraphicBuffer>& */
	char why[160]; /* attach failure text */
};

struct sym_list {
	struct sym_candidate *v;
	size_t n;
};

/* The six known names in Kala's order (index 0..5). */
extern const char *const sym_known[6];
/* The stand-in's --symbol variant names for them (hook, internal, legacy, ...). */
extern const char *const sym_variant[6];

/*
 * Read lib's .dynsym/.symtab and list the candidates in attach order: forced (a mangled
 * name or a variant name) alone, else the six known names then every other name with a
 * queueBuffer prefix. Returns 0, or -errno with a message in err (cannot open, not ELF,
 * 32-bit ELF).
 */
MUST_USE int sym_resolve(const char *lib, const char *forced, struct sym_list *out, char *err,
			 size_t errlen);
void sym_list_free(struct sym_list *l);
const char *sym_status_str(enum sym_status s);
/* True when the name is one of the sp<GraphicBuffer>& overloads. */
bool sym_is_sp(const char *name);

/* ------------------------------------------------------------ target.c */

/* 1: the process exists (and is not a zombie); 0: it does not. */
bool target_alive(pid_t pid);
/* A kernel thread (no user code: a uprobe on it never fires); comm gets its name. */
bool target_is_kthread(pid_t pid, char *comm, size_t comm_len);
/* The process (thread group) id of pid, which may be a thread id; 0 when unknown. */
pid_t target_tgid(pid_t pid);
/* argv joined with spaces; "" when unreadable. */
void target_cmdline(pid_t pid, char *buf, size_t len);
/* PIDs whose argv[0] (or its basename) is name; returns the count (at most max). */
int target_find_package(const char *name, pid_t *out, int max);
/*
 * The mapped file in /proc/PID/maps whose basename is base, as a path framerec can open
 * (through /proc/PID/root when the target's mount namespace differs). 0 or -ENOENT.
 */
MUST_USE int target_mapped_lib(pid_t pid, const char *base, char *map_path, size_t map_len,
			       char *open_path, size_t open_len);
/* 1: the process is 32-bit (ELFCLASS32 exe); 0: 64-bit; -errno: unknown. */
int target_is_32bit(pid_t pid);
/* pidfd_open(), or -1 when the kernel has none (then liveness is polled). */
int target_pidfd(pid_t pid);

/* ------------------------------------------------------------ sysfs.c */

extern const char *const sysfs_nodes[8];
/* The first node of Auriya's list that exists and reads non-empty, or NULL. */
const char *sysfs_detect(void);
/* A node named with --sysfs exists, is no directory, may be read; else -errno + err. */
MUST_USE int sysfs_check(const char *path, char *err, size_t errlen);
/* Read the node once: raw bytes, or the errno of the failure. */
void sysfs_sample(const char *path, struct frc_sysfs *out);

/* ------------------------------------------------------------ meta.c */

#define META_MAX 32

struct meta {
	struct frc_meta v[META_MAX];
	char *owned[META_MAX];
	size_t n;
};

/* Add key = printf(fmt...). Silently ignores overflow beyond META_MAX (never reached). */
void meta_add(struct meta *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The system part: recorder, kernel, machine, android.*, clock, realtime.offset_ns. */
void meta_add_system(struct meta *m);
void meta_free(struct meta *m);
/* An Android property from getprop or /system/build.prop; 0 when found. */
int android_prop(const char *name, char *out, size_t len);

/* ------------------------------------------------------------ probe.c */

struct probe;
struct ring_buffer;

typedef void (*probe_event_fn)(void *ctx, const struct frc_record *r);

/*
 * Open and load the BPF skeleton with a ring of ring_kib KiB. On failure err names the
 * layer that failed (BPF syscall, permissions, ring buffer support).
 */
MUST_USE int probe_open(struct probe **out, unsigned ring_kib, probe_event_fn fn, void *ctx,
			char *err, size_t errlen);
void probe_close(struct probe *p);
/*
 * Attach to pid (-1: every process) on lib, trying syms in order; the first success
 * wins and is returned in *chosen. Failures are written into each candidate's status/why.
 * Attaching a PID already attached is a no-op returning 0 (with *chosen = NULL).
 */
MUST_USE int probe_attach(struct probe *p, pid_t pid, const char *lib, struct sym_list *syms,
			  const struct sym_candidate **chosen);
void probe_detach(struct probe *p, pid_t pid);
void probe_detach_all(struct probe *p);
bool probe_attached(const struct probe *p, pid_t pid);
/* Drain the ring (every event goes to fn). Returns events consumed or -errno. */
MUST_USE int probe_drain(struct probe *p);
/* The fd that becomes readable when the BPF side forces a wakeup. */
int probe_ring_fd(const struct probe *p);
/* Reservation failures, summed over CPUs. */
uint64_t probe_drops(struct probe *p);
/* Describe why an attach failed (errno) as a layer + hint. */
const char *probe_attach_hint(int err);

/* One message listing each candidate and why it failed (for the "no symbol" error). */
void sym_list_explain(const struct sym_list *l, const char *lib, char *buf, size_t len);

/* ------------------------------------------------------------ loop.c */

/* Run a recording. Returns the exit code (0 ok, 1 error). */
int record_main(const struct options *opt);

/* ------------------------------------------------------------ doctor.c */

int doctor_main(int argc, char **argv);

#endif /* RECORDER_H */
