/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - which queueBuffer symbols a libgui.so defines and at which file offset
 * (symbols.c, libelf), in the order a recording tries them.
 */
#ifndef SYMBOLS_H
#define SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frc_error.h" /* FRC_MUST_USE */
#include "frc_record.h"

enum sym_status {
	SYM_FOUND = 0,	   /* defined, offset valid */
	SYM_MISSING,	   /* not in .dynsym/.symtab */
	SYM_UNDEFINED,	   /* present but undefined (imported) */
	SYM_NOT_MAPPED,	   /* defined, but no executable PT_LOAD segment holds it */
	SYM_NO_LAYOUT,	   /* defined, but its arguments are no layout a program reads */
	SYM_ATTACH_FAILED, /* found, the kernel refused the uprobe (see why) */
};

/*
 * How an entry point passes the window and the buffer (the Itanium mangled parameters
 * say it, display-truth.md 6), and so which BPF program reads it (framerec.bpf.c).
 */
enum sym_kind {
	SYM_KIND_UNKNOWN = 0, /* another layout: never attached */
	SYM_KIND_WINDOW,      /* static (ANativeWindow*, ANativeWindowBuffer*, ...) */
	SYM_KIND_MEMBER,      /* member (Surface* this, ANativeWindowBuffer*, ...) */
	SYM_KIND_MEMBER_SP,   /* member (Surface* this, const sp<GraphicBuffer>&, ...) */
	SYM_KIND_BATCH,	  /* member (Surface* this, const std::vector<BatchQueuedBuffer>&, ...) */
	SYM_KIND_CONNECT, /* member (Surface* this, int api, ...): Surface::connect */
	SYM_KIND_DISCONNECT, /* member (Surface* this, int api, ...): Surface::disconnect */
	SYM_KIND_STAMP,	     /* member (Surface* this, int64_t): Surface::setBuffersTimestamp */
};

struct sym_candidate {
	char name[FRC_SYMBOL_MAX + 1];
	uint64_t offset; /* file offset, what a uprobe needs */
	enum sym_status status;
	enum sym_kind kind;
	char why[160]; /* attach failure text */
};

/*
 * Every candidate in attach order: the single-buffer ones (kind != SYM_KIND_BATCH), of
 * which the first that attaches is used, and the batch ones, of which the first that
 * attaches is attached IN ADDITION (a call through Surface::queueBuffers never passes
 * through queueBuffer). With --symbol (forced) the list holds that one symbol, whatever its
 * kind, and nothing is attached in addition.
 */
#define SYM_LIFETIME_N 3 /* the entries of sym_lifetime */
struct sym_list {
	struct sym_candidate *v;
	size_t n;
	bool forced;
	/*
	 * Surface::connect and disconnect (sym_lifetime, in that order), found by the same
	 * scan whatever --symbol says: they are no queue entry point, so they are not in v and
	 * never chosen as one. The first connect found and the disconnect are attached in
	 * addition (probe_attach); a library without them is recorded without lifetime.
	 */
	struct sym_candidate life[SYM_LIFETIME_N];
	/*
	 * Surface::setBuffersTimestamp (sym_stamp), found and attached the same way: the
	 * explicit timestamp of single-buffer calls; without it only batch elements have one.
	 */
	struct sym_candidate stamp;
};

/* One entry point of AOSP's Surface (display-truth.md 6): --symbol's variant name for it. */
struct sym_known {
	const char *variant; /* hook, internal, ... */
	const char *name;    /* the Itanium mangled name (Android's libc++: std::__1) */
	enum sym_kind kind;
	const char *versions; /* the Android versions that define it */
};

/* The known entry points in attach order, the single-buffer ones, then the batch ones. */
extern const struct sym_known sym_known[];
extern const size_t sym_known_n;
/* Surface::connect (one form per version) and disconnect: sym_list.life, in this order. */
extern const struct sym_known sym_lifetime[SYM_LIFETIME_N];
/* Surface::setBuffersTimestamp(int64_t): sym_list.stamp. */
extern const struct sym_known sym_stamp;

/* "window", "member", "sp member", "batch", "unknown layout": doctor's word for a kind. */
const char *sym_kind_str(enum sym_kind k);
/* The layout of a mangled name (SYM_KIND_UNKNOWN when it is none framerec reads). */
enum sym_kind sym_classify(const char *name);

/*
 * Read lib's .dynsym/.symtab and list the candidates in attach order: forced (a mangled
 * name or a variant name) alone, else the known names (sym_known) then every other name
 * with an entry point's prefix (queueBuffer, queueBufferImpl, hook_queueBuffer,
 * queueBufferInternal, hook_queueBuffer_DEPRECATED, queueBuffers). Returns 0, or -errno
 * with a message in err (cannot open, not a regular file, over SYM_FILE_MAX bytes, not
 * ELF, 32-bit ELF).
 */
FRC_MUST_USE int sym_resolve(const char *lib, const char *forced, struct sym_list *out, char *err,
			     size_t errlen);
/*
 * The same for an ELF image in memory (what sym_resolve reads from lib, and what the
 * fuzzer feeds: tests/fuzz/fuzz_symbols.c): len bytes at img, which libelf may rewrite in
 * place (a foreign byte order), so it must be writable and private. name is used only in
 * messages. Bounded whatever the bytes (symbols.c: SYM_*_MAX); -ENOEXEC (not a 64-bit
 * ELF), -E2BIG (past a bound) or -ENOMEM, with the message in err.
 */
FRC_MUST_USE int sym_scan_image(void *img, size_t len, const char *name, const char *forced,
				struct sym_list *out, char *err, size_t errlen);
void sym_list_free(struct sym_list *l);
const char *sym_status_str(enum sym_status s);

/* One message listing each candidate and why it failed (for the "no symbol" error). */
void sym_list_explain(const struct sym_list *l, const char *lib, char *buf, size_t len);

#endif /* SYMBOLS_H */
