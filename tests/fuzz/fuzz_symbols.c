/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for framerec's symbol scan (recorder/symbols.c, sym_scan_image): hostile
 * ELF images, as an app could map one as its libgui.so or --lib could name one, read the
 * way framerec reads them as root. The scan must end within its bounds whatever the bytes,
 * and what it returns must be sound: a symbol it found lies in the image (where the uprobe
 * goes), a candidate's name is a NUL-terminated string, a failure says why on one line.
 *
 * Seeds: the stand-in's libgui.so as built for this machine, stripped (.dynsym only), and
 * for aarch64 when the compiler can (tests/fuzz/CMakeLists.txt, SEEDS of run_fuzz.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort (a finding) unless what one scan gave is sound; free it. */
static void check(int ret, const struct sym_list *l, const char *err, size_t size)
{
	if (ret) {
		if (!err[0] || strchr(err, '\n') || l->v || l->n)
			abort();
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct sym_candidate *c = &l->v[i];

		if (!memchr(c->name, 0, sizeof(c->name)) ||
		    (c->status == SYM_FOUND && c->offset >= size) ||
		    (c->status == SYM_FOUND && c->kind == SYM_KIND_UNKNOWN))
			abort();
	}
}

/* One scan of a private copy: libelf may rewrite the image (a foreign byte order). */
static void scan(const uint8_t *data, size_t size, const char *forced)
{
	char err[FRC_MSG_MAX] = "";
	struct sym_list l;
	void *img = malloc(size ? size : 1);
	int ret;

	if (!img)
		return;
	memcpy(img, data, size);
	ret = sym_scan_image(img, size, "fuzz.so", forced, &l, err, sizeof(err));
	check(ret, &l, err, size);
	if (!ret)
		sym_list_free(&l);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	scan(data, size, NULL); /* the known names, the prefix scan and the batch path */
	scan(data, size, "sp"); /* one forced symbol, by variant name */
	return 0;
}
