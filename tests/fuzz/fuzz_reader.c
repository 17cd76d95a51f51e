/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the capture reader: any bytes go through open, every record, the
 * stats and the canonical text printer. The reader must never crash, leak or read out of
 * bounds (ASan/UBSan), whatever the input.
 *
 * CRCs guard every structure, so random bytes rarely get past them. Each input is therefore
 * also wrapped, as a chunk body, into a capture with valid CRCs and a real zstd frame: that
 * drives the entry and frame-run decoders with hostile content too.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include <zstd.h>

#include "frc.h"
#include "frc_internal.h"
#include "frc_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_capture(const uint8_t *data, size_t size, unsigned long long *counted)
{
	char line[FRC_TEXT_LINE_MAX + 1];
	struct frc_reader_stats st;
	struct frc_record rec;
	frc_reader *r = NULL;
	unsigned maj, min;
	int ret;

	ret = frc_reader_open_mem(&r, data, size, "fuzz.frc");
	if (ret) {
		/* A failed open still names the problem. */
		if (r && !strstr(frc_reader_error(r), "fuzz.frc"))
			__builtin_trap();
		frc_reader_close(r);
		return;
	}
	frc_reader_version(r, &maj, &min);
	for (size_t i = 0; i < frc_reader_meta_count(r); i++)
		if (strlen(frc_reader_meta(r, i)->key) == 0)
			__builtin_trap();
	while ((ret = frc_reader_next(r, &rec)) > 0) {
		int n = frc_text_format_record(&rec, line, sizeof(line));

		if (n < 0 || n > FRC_TEXT_LINE_MAX)
			__builtin_trap();
	}
	frc_reader_stats(r, &st);
	{
		const char *m = strstr(frc_reader_error(r), "chunk 0: ");

		if (counted && m)
			sscanf(m, "chunk 0: %llu records, descriptor says", counted);
	}
	if (ret == 0 && st.status != FRC_STATUS_COMPLETE && frc_reader_error(r)[0] == '\0')
		__builtin_trap();
	if (st.valid_end > size)
		__builtin_trap();
	frc_reader_close(r);
}

/* header (no metadata) + descriptor + zstd frame of body: every CRC right. */
static uint8_t *wrap_body(const uint8_t *body, size_t len, uint64_t nrec, size_t *out_len)
{
	static const uint8_t hdr[] = {0x5a, 0x2a, 0x4d, 0x18, 13, 0, 0, 0, 'F',
				      'R',  'C',  'P',	1,    0,  0, 0, 0};
	static ZSTD_CCtx *cctx;
	struct frc_buf d = {0}, f = {0};
	size_t bound = ZSTD_compressBound(len), csize;
	uint8_t *z = malloc(bound);

	if (!cctx) {
		cctx = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
	}
	csize = ZSTD_compress2(cctx, z, bound, body, len);
	if (ZSTD_isError(csize)) {
		free(z);
		return NULL;
	}
	frc_buf_put(&f, hdr, sizeof(hdr));
	frc_buf_le32(&f, frc_crc32c(0, hdr + 8, sizeof(hdr) - 8));
	frc_buf_varint(&d, 0);
	frc_buf_varint(&d, csize);
	frc_buf_varint(&d, len);
	frc_buf_varint(&d, nrec);
	frc_buf_le32(&d, frc_crc32c(0, z, csize));
	frc_buf_le32(&d, frc_crc32c(0, d.p, d.len));
	frc_buf_le32(&f, FRC_MAGIC_DESC);
	frc_buf_le32(&f, (uint32_t)d.len);
	frc_buf_put(&f, d.p, d.len);
	frc_buf_put(&f, z, csize);
	free(z);
	frc_buf_free(&d);
	*out_len = f.len;
	return f.p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long counted = 0;
	size_t wlen;
	uint8_t *wrapped;

	read_capture(data, size, NULL);
	if (size == 0)
		return 0;
	/*
	 * The record count is the one thing the body does not say: a first pass, declaring
	 * the most a chunk may hold, learns it from the reader's message ("chunk 0: N
	 * records, descriptor says 131072"); a second delivers the records.
	 */
	wrapped = wrap_body(data, size, FRC_CHUNK_RECORDS_MAX, &wlen);
	if (wrapped)
		read_capture(wrapped, wlen, &counted);
	free(wrapped);
	if (counted >= 1 && counted != FRC_CHUNK_RECORDS_MAX) {
		wrapped = wrap_body(data, size, counted, &wlen);
		if (wrapped)
			read_capture(wrapped, wlen, NULL);
		free(wrapped);
	}
	return 0;
}
