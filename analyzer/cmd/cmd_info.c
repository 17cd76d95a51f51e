/* SPDX-License-Identifier: MIT */
/*
 * info.c - `frameanalyze info`: what a capture holds, read with the streaming reader (no
 * replay): version, metadata, chunks, record counts, time span, status, bytes per frame.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frc.h"
#include "frc_escape.h"
#include "cli.h"
#include "commands.h"

static const char info_help[] =
    "usage: frameanalyze info IN.frc [--json]\n"
    "\n"
    "Read a capture and print its format version, metadata, chunk count, record counts\n"
    "per type, unknown records skipped, time span, status (complete, or truncated/corrupt\n"
    "with the byte offset where valid data ends, or recovered: read past damage, with what\n"
    "it cost) and bytes per frame.\n"
    "\n"
    "exit: 0 complete, truncated or recovered (a warning), 1 corrupt or not a capture,\n"
    "2 usage.\n"
    "\n"
    "examples:\n"
    "  frameanalyze info capture.frc\n"
    "  frameanalyze info --json capture.frc\n";

/* Metadata and paths come from outside: escaped for the terminal (frc_escape.h). */
static void put_escaped(FILE *out, const char *v, bool json)
{
	frc_escape_write(out, v, strlen(v), json ? FRC_ESCAPE_JSON : FRC_ESCAPE_TEXT);
}

/* none: what to print when there are no frames ("-" for people, "null" in JSON) */
static void bytes_per_frame(char *buf, size_t len, const struct frc_reader_stats *st,
			    const char *none)
{
	uint64_t f = st->by_type[FRC_FRAME];
	if (!f) {
		snprintf(buf, len, "%s", none);
		return;
	}
	/* thousandths, rounded half up, in integers */
	uint64_t milli = (st->file_size * 1000 + f / 2) / f;
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, milli / 1000, milli % 1000);
}

/* 1 when the reader skipped damage (FORMAT.md 7, step 6): st->lost says what it cost. */
static int skipped_damage(const struct frc_reader_stats *st)
{
	return st->lost.regions || st->lost.index_lost;
}

/* The status line, and where the damage is and what it cost. */
static void print_status(const struct frc_reader_stats *st)
{
	char loss[512];

	if (st->status == FRC_STATUS_COMPLETE)
		printf("%-18s complete\n", "status");
	else if (st->status == FRC_STATUS_RECOVERED)
		printf("%-18s recovered, read to the end past damage (every intact chunk)\n",
		       "status");
	else
		printf("%-18s %s, valid data ends at byte %" PRIu64 "%s\n", "status",
		       frc_status_name(st->status), st->valid_end,
		       st->status == FRC_STATUS_CORRUPT ? "" : " (records before it are readable)");
	if (st->status == FRC_STATUS_CORRUPT || skipped_damage(st))
		printf("%-18s byte %" PRIu64 "\n", "damage at", st->damage_offset);
	if (skipped_damage(st)) {
		frc_reader_loss_text(st, loss, sizeof(loss));
		printf("%-18s %s\n", "skipped", loss);
	}
}

/* The "lost" object of --json (README: info --json), or null when nothing was skipped. */
static void print_json_lost(const struct frc_reader_stats *st)
{
	const struct frc_reader_loss *l = &st->lost;
	static const char *const time[] = {"null", "\"exact\"", "\"bounds\""};

	if (!skipped_damage(st)) {
		printf("  \"lost\": null,\n");
		return;
	}
	printf("  \"lost\": {\"stretches\": %" PRIu64 ", \"bytes\": %" PRIu64
	       ", \"chunks\": %" PRIu64 ", \"chunks_exact\": %s, \"records\": %" PRIu64
	       ", \"records_exact\": %s, ",
	       l->regions, l->bytes, l->chunks, l->chunks_exact ? "true" : "false", l->records,
	       l->records_exact ? "true" : "false");
	if (l->frames_known)
		printf("\"frames\": %" PRIu64 ", ", l->frames);
	else
		printf("\"frames\": null, ");
	printf("\"time\": %s, ", time[l->time <= FRC_LOSS_TIME_BOUNDS ? l->time : 0]);
	/* an open end of the bounds (nothing read before or after the damage) is null */
	if (l->time && l->min_ktime_ns)
		printf("\"min_ktime_ns\": %" PRIu64 ", ", l->min_ktime_ns);
	else
		printf("\"min_ktime_ns\": null, ");
	if (l->time && l->max_ktime_ns != UINT64_MAX)
		printf("\"max_ktime_ns\": %" PRIu64 ", ", l->max_ktime_ns);
	else
		printf("\"max_ktime_ns\": null, ");
	printf("\"index_lost\": %s},\n", l->index_lost ? "true" : "false");
}

static void print_text(const frc_reader *r, const char *path, const struct frc_reader_stats *st)
{
	unsigned major, minor;
	char bpf[32];

	frc_reader_version(r, &major, &minor);
	bytes_per_frame(bpf, sizeof(bpf), st, "-");
	printf("%-18s ", "file");
	put_escaped(stdout, path, false);
	putchar('\n');
	printf("%-18s %u.%u\n", "format", major, minor);
	print_status(st);
	printf("%-18s %" PRIu64 " bytes\n", "size", st->file_size);
	printf("%-18s %" PRIu64 " (%s)\n", "chunks", st->chunks,
	       st->index_used ? "from the index" : "linear scan, no valid index");
	printf("%-18s %" PRIu64 "\n", "records", st->records);
	for (int t = 1; t <= FRC_TYPE_MAX; t++) {
		if (!frc_type_listed((unsigned)t, st->by_type[t]))
			continue;
		printf("  %-16s %" PRIu64 "\n", frc_type_name((unsigned)t), st->by_type[t]);
		/* Only when there are any (FORMAT.md 4.7): info of other captures is as it was. */
		if (t == FRC_FRAME && st->timestamped)
			printf("    %-14s %" PRIu64 " (their own, besides the ktime)\n",
			       "with timestamp", st->timestamped);
	}
	printf("%-18s %" PRIu64 "\n", "unknown skipped", st->unknown);
	printf("%-18s %" PRIu64 " (kept in the recorder's order)\n", "out of time order",
	       st->out_of_order);
	if (st->records)
		printf("%-18s %" PRIu64 " .. %" PRIu64 " ns (%" PRIu64 ".%03" PRIu64 " s)\n",
		       "time span", st->first_ktime_ns, st->last_ktime_ns,
		       (st->last_ktime_ns - st->first_ktime_ns) / 1000000000u,
		       (st->last_ktime_ns - st->first_ktime_ns) / 1000000u % 1000u);
	else
		printf("%-18s -\n", "time span");
	printf("%-18s %s\n", "bytes per frame", bpf);
	/* Values line up after the longest key (at least the column of the lines above). */
	int width = 16;

	for (size_t i = 0; i < frc_reader_meta_count(r); i++) {
		int len = (int)strlen(frc_reader_meta(r, i)->key);

		if (len > width)
			width = len;
	}
	printf("metadata (%zu)\n", frc_reader_meta_count(r));
	for (size_t i = 0; i < frc_reader_meta_count(r); i++) {
		const struct frc_meta *m = frc_reader_meta(r, i);
		printf("  ");
		put_escaped(stdout, m->key, false);
		printf("%*s ", width - (int)strlen(m->key), "");
		put_escaped(stdout, m->value, false);
		putchar('\n');
	}
}

static void print_json(const frc_reader *r, const char *path, const struct frc_reader_stats *st)
{
	unsigned major, minor;
	char bpf[32];

	frc_reader_version(r, &major, &minor);
	bytes_per_frame(bpf, sizeof(bpf), st, "null");
	printf("{\n  \"path\": \"");
	put_escaped(stdout, path, true);
	printf("\",\n  \"format_version\": \"%u.%u\",\n", major, minor);
	printf("  \"status\": \"%s\",\n", frc_status_name(st->status));
	if (st->status == FRC_STATUS_COMPLETE)
		printf("  \"valid_end\": null,\n");
	else
		printf("  \"valid_end\": %" PRIu64 ",\n", st->valid_end);
	if (st->status == FRC_STATUS_CORRUPT || skipped_damage(st))
		printf("  \"damage_offset\": %" PRIu64 ",\n", st->damage_offset);
	else
		printf("  \"damage_offset\": null,\n");
	print_json_lost(st);
	printf("  \"file_size\": %" PRIu64 ",\n", st->file_size);
	printf("  \"chunks\": %" PRIu64 ",\n", st->chunks);
	printf("  \"index_used\": %s,\n", st->index_used ? "true" : "false");
	printf("  \"records\": %" PRIu64 ",\n  \"records_by_type\": {\n", st->records);
	for (int t = 1, first = 1; t <= FRC_TYPE_MAX; t++) {
		if (!frc_type_listed((unsigned)t, st->by_type[t]))
			continue;
		printf("%s    \"%s\": %" PRIu64, first ? "" : ",\n", frc_type_name((unsigned)t),
		       st->by_type[t]);
		first = 0;
	}
	printf("\n  },\n");
	if (st->timestamped) /* only when there are any, as in the text form */
		printf("  \"frames_with_timestamp\": %" PRIu64 ",\n", st->timestamped);
	printf("  \"unknown_skipped\": %" PRIu64 ",\n", st->unknown);
	printf("  \"out_of_order\": %" PRIu64 ",\n", st->out_of_order);
	if (st->records)
		printf("  \"first_ktime_ns\": %" PRIu64 ",\n  \"last_ktime_ns\": %" PRIu64 ",\n",
		       st->first_ktime_ns, st->last_ktime_ns);
	else
		printf("  \"first_ktime_ns\": null,\n  \"last_ktime_ns\": null,\n");
	printf("  \"bytes_per_frame\": %s,\n  \"metadata\": {", bpf);
	for (size_t i = 0; i < frc_reader_meta_count(r); i++) {
		const struct frc_meta *m = frc_reader_meta(r, i);
		printf("%s\n    \"", i ? "," : "");
		put_escaped(stdout, m->key, true);
		printf("\": \"");
		put_escaped(stdout, m->value, true);
		putchar('"');
	}
	printf("%s}\n}\n", frc_reader_meta_count(r) ? "\n  " : "");
}

int cmd_info(int argc, char **argv)
{
	static const struct cli_spec spec = {
	    .cmd = "info",
	    .help = info_help,
	    .takes = CLI_JSON,
	    .min_pos = 1,
	    .max_pos = 1,
	    .pos_usage = "expected exactly one capture (IN.frc)",
	};
	struct cli_args a;
	struct frc_reader_stats st;
	struct frc_record rec;
	frc_reader *r = NULL;
	const char *path;
	int rc;

	if (!cli_parse(&spec, argc, argv, &a, &rc))
		return rc;
	path = a.pos[0];
	rc = frc_reader_open(&r, path);
	if (rc) {
		cli_error("info", "%s", r ? frc_reader_error(r) : frc_strerror(rc));
		rc = EXIT_INPUT;
		goto cleanup;
	}
	while ((rc = frc_reader_next(r, &rec)) > 0)
		;
	if (rc < 0) {
		cli_error("info", "%s", frc_reader_error(r));
		rc = EXIT_INPUT;
		goto cleanup;
	}
	frc_reader_stats(r, &st);
	if (a.format == CLI_FORMAT_JSON)
		print_json(r, path, &st);
	else
		print_text(r, path, &st);
	/* a full disk or a closed pipe must not look like success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("info", "writing stdout: %s", strerror(errno));
		rc = EXIT_INPUT;
		goto cleanup;
	}
	rc = EXIT_OK;
	if (st.status == FRC_STATUS_CORRUPT) {
		cli_error("info", "%s", frc_reader_error(r));
		rc = EXIT_INPUT;
	} else if (st.status != FRC_STATUS_COMPLETE) {
		/* truncated, or recovered: the reader's message says where and what was lost */
		cli_error("info", "warning: %s", frc_reader_error(r));
	}
cleanup:
	frc_reader_close(r);
	return rc;
}
