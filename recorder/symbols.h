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
	SYM_ATTACH_FAILED, /* found, the kernel refused the uprobe (see why) */
};

struct sym_candidate {
	char name[FRC_SYMBOL_MAX + 1];
	uint64_t offset; /* file offset, what a uprobe needs */
	enum sym_status status;
	bool sp;       /* argument 1 is a const sp<GraphicBuffer>& */
	bool batch;    /* Surface::queueBuffers: argument 1 is a vector of buffers */
	char why[160]; /* attach failure text */
};

struct sym_list {
	struct sym_candidate *v; /* the single-buffer candidates, in attach order */
	size_t n;
	/*
	 * The batch path, Surface::queueBuffers, attached IN ADDITION to the single-buffer
	 * symbol chosen (a call through it never passes through queueBuffer). Its name is
	 * "" when --symbol forced one symbol.
	 */
	struct sym_candidate batch;
};

/* The six known names in Kala's order (index 0..5). */
extern const char *const sym_known[6];
/* The stand-in's --symbol variant names for them (hook, internal, legacy, ...). */
extern const char *const sym_variant[6];
/* Surface::queueBuffers as Android's libc++ mangles it; `--symbol batch` names it alone. */
extern const char sym_batch[];

/*
 * Read lib's .dynsym/.symtab and list the candidates in attach order: forced (a mangled
 * name or a variant name) alone, else the six known names then every other name with a
 * queueBuffer prefix, and the batch symbol beside them. Returns 0, or -errno with a message in err
 * (cannot open, not a regular file, over SYM_FILE_MAX bytes, not ELF, 32-bit ELF).
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
/* True when the name is one of the sp<GraphicBuffer>& overloads. */
bool sym_is_sp(const char *name);

/* One message listing each candidate and why it failed (for the "no symbol" error). */
void sym_list_explain(const struct sym_list *l, const char *lib, char *buf, size_t len);

#endif /* SYMBOLS_H */
