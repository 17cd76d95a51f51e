/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the text form: any bytes are imported; when the import succeeds the
 * capture is exported and imported again, and the two captures must be byte-identical
 * (export writes the same records, and the writer is deterministic). A failed import must
 * name a line and column and leave no output file.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frc_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void cleanup(void)
{
	static const char *const names[] = {"in.txt", "a.frc", "a.txt", "b.frc"};
	char p[192];

	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

static uint8_t *get(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		abort();
	p = malloc((size_t)len + 1);
	if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
		abort();
	fclose(f);
	*n = (size_t)len;
	return p;
}

static void export_to(const char *frc, const char *txt)
{
	frc_reader *r = NULL;
	FILE *f;

	if (frc_reader_open(&r, frc))
		abort();
	f = fopen(txt, "w");
	if (!f || frc_text_export(r, f) || fclose(f))
		abort();
	frc_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[128], a[128], t[128], b[128], err[512];
	uint8_t *pa, *pb;
	size_t na, nb;
	int ret;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/frc-fuzz-text-%d", (int)getpid());
		if (mkdir(dir, 0700) && access(dir, W_OK))
			abort();
		atexit(cleanup);
	}
	snprintf(in, sizeof(in), "%s/in.txt", dir);
	snprintf(a, sizeof(a), "%s/a.frc", dir);
	snprintf(t, sizeof(t), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.frc", dir);
	unlink(a);
	put(in, data, size);
	ret = frc_text_import(in, a, NULL, err, sizeof(err));
	if (ret) {
		if (ret == FRC_EINVAL && !strstr(err, "in.txt:"))
			__builtin_trap();
		if (access(a, F_OK) == 0)
			__builtin_trap();
		return 0;
	}
	export_to(a, t);
	if (frc_text_import(t, b, NULL, err, sizeof(err)))
		__builtin_trap();
	pa = get(a, &na);
	pb = get(b, &nb);
	if (na != nb || memcmp(pa, pb, na))
		__builtin_trap();
	free(pa);
	free(pb);
	return 0;
}
