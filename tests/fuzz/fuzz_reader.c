/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the capture reader: any bytes go through open, every record, the
 * stats and the canonical text printer. The reader must never crash, leak or read out of
 * bounds (ASan/UBSan), whatever the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "frc.h"
#include "frc_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
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
		return 0;
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
	if (ret == 0 && st.status != FRC_STATUS_COMPLETE && frc_reader_error(r)[0] == '\0')
		__builtin_trap();
	if (st.valid_end > size)
		__builtin_trap();
	frc_reader_close(r);
	return 0;
}
