// SPDX-License-Identifier: MIT
/*
 * status.c - what the user of a recording sees on stderr: messages, the live status line
 * (a terminal only), and the summary at the end.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "frame_event.h"
#include "frc_escape.h"
#include "recording.h"

/* Clears the status line first: a message written after it would share its row. */
void rec_say(const struct rec *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%sframerec: ", r->status_line ? "\r\033[K" : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%.1f KiB", (double)b / (1 << 10));
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

/* The terminal's width; 80 when it cannot be asked. */
static unsigned term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

void rec_status(struct rec *r, uint64_t now)
{
	struct frc_writer_stats st;
	char bytes[32], fps[48] = "-", line[256];
	size_t max = term_cols() - 1;
	unsigned old = r->status_i % 4;
	double dt = (double)(now - r->status_ns[old]) / 1e9;
	double rate = dt > 0 ? (double)(r->frames - r->status_frames[old]) / dt : 0;

	frc_writer_stats(r->w, &st);
	human_bytes(st.bytes, bytes, sizeof(bytes));
	if (r->have_reading && r->reading.reading.valid)
		snprintf(fps, sizeof(fps), "%.1f %s/%s", r->reading.reading.fps,
			 rec_tracker_name(r), frc_source_name(r->reading.reading.source, "none"));
	snprintf(line, sizeof(line),
		 "%.1fs  frames %" PRIu64 "  %.1f/s  fps %s  drops %" PRIu64 "  %s",
		 (double)(now - r->t_start) / 1e9, r->frames, rate, fps,
		 r->probe ? probe_drops(r->probe) : 0, bytes); /* live, not as of the last flush */
	/*
	 * A line wider than the terminal wraps, and "\r\033[K" then clears only its last
	 * row: every refresh would leave a row behind. Cut it to the width instead (the
	 * last column stays free, some terminals wrap on writing it).
	 */
	if (strlen(line) > max)
		line[max] = 0;
	fprintf(stderr, "\r\033[K%s", line);
	r->status_frames[old] = r->frames;
	r->status_ns[old] = now;
	r->status_i++;
}

/* What the capture keeps as it came, or the live pipeline had to forget: said, not hidden. */
static void losses_summary(const struct rec *r)
{
	struct pipeline_stats ps;

	pipeline_stats(r->pl, &ps);
	if (r->batch_anomalies)
		fprintf(
		    stderr,
		    "framerec: %" PRIu64 " malformed batch calls: Surface::queueBuffers got no "
		    "vector of 24-byte buffers (unreadable, end before begin, a size that is no "
		    "multiple of 24, or over %d elements: a wrong symbol or ABI?); how many "
		    "buffers they queued is unknown, so they are in no drop count (the capture's "
		    "drops records carry this count)\n",
		    r->batch_anomalies, FRAMEREC_BATCH_SANE);
	if (r->out_of_order)
		fprintf(stderr,
			"framerec: %" PRIu64 " records reached the ring out of time order (two "
			"CPUs); the capture keeps the ring's order, as the live meter saw it\n",
			r->out_of_order);
	if (ps.trackers_evicted || ps.buffers_evicted)
		fprintf(stderr,
			"framerec: the live tracker forgot %" PRIu64 " PIDs and %" PRIu64
			" buffers past its bounds (1024 each); the capture has all their frames\n",
			ps.trackers_evicted, ps.buffers_evicted);
}

/* An empty capture has a few usual causes: name them (the symbol escaped: ELF bytes). */
static void no_frame_hint(const struct rec *r)
{
	char sym[4 * FRC_SYMBOL_MAX + 1];

	fprintf(stderr,
		"framerec: no frame recorded: the target never called %s (another "
		"variant? see --symbol; a -- wrapper script must exec the program)\n",
		r->symbol[0] ? frc_escape_str(r->symbol, sym, sizeof(sym)) : "the symbol");
}

/* Display capture's line: what was recorded, and what its dumpsys runs cost. */
static void display_summary(const struct rec *r)
{
	const struct present_stats *d = &r->display_st;

	if (r->display_off[0])
		fprintf(stderr, "framerec: display: off (%s); frames only\n", r->display_off);
	if (!r->display_done)
		return;
	fprintf(stderr,
		"framerec: display: %" PRIu64 " presents of %" PRIu64 " layer%s (%s), %" PRIu64
		" gap%s; %" PRIu64 " dumpsys runs, %.2f ms mean, %.2f ms max, %" PRIu64 " failed\n",
		r->display_rows, r->display_layers, r->display_layers == 1 ? "" : "s",
		r->display_package, r->display_gaps, r->display_gaps == 1 ? "" : "s", d->runs,
		d->runs ? (double)d->run_ns_total / 1e6 / (double)d->runs : 0.0,
		(double)d->run_ns_max / 1e6, d->failures);
}

/* Buffer geometry and surface lifetime (FORMAT.md 4.10, 4.11): what was recorded, or why not. */
static void geometry_summary(const struct rec *r)
{
	if (!r->probe || !r->symbol[0])
		return;
	fprintf(stderr, "framerec: %" PRIu64 " buffer geometr%s, %" PRIu64 " surface connect%s\n",
		r->buffer_records, r->buffer_records == 1 ? "y" : "ies", r->connect_records,
		r->connect_records == 1 ? "" : "s");
	if (r->bad_buffers)
		fprintf(stderr,
			"framerec: %" PRIu64 " buffers queued had no readable ANativeWindowBuffer "
			"header or not its magic (a wrong symbol or ABI?): their frames are "
			"recorded, their geometry is not (the drops records carry this count)\n",
			r->bad_buffers);
	if (r->probe && probe_lifetime_lost(r->probe))
		fprintf(stderr,
			"framerec: %" PRIu64 " Surface::connect/disconnect calls found the ring "
			"full: the capture misses their connect records (--ring-kib)\n",
			probe_lifetime_lost(r->probe));
	if (r->lifetime_missing)
		fprintf(stderr,
			"framerec: surface lifetime not recorded for %d target%s: its libgui.so "
			"defines no Surface::connect/disconnect framerec knows (framerec doctor "
			"lists them)\n",
			r->lifetime_missing, r->lifetime_missing == 1 ? "" : "s");
}

void rec_summary(struct rec *r, uint64_t duration_ns, bool failed)
{
	struct frc_writer_stats st;
	char lost[64] = "", cut[96] = "", fps[128];
	bool empty = rec_no_frame(r) && !failed;

	if (r->status_line)
		fputs("\r\033[K", stderr);
	if (r->opt->quiet && !failed) {
		/* framerec exits 4 then: a status that is not 0 says why, even with --quiet. */
		if (empty)
			no_frame_hint(r);
		return;
	}
	frc_writer_stats(r->w, &st);
	if (r->batch_cut)
		snprintf(cut, sizeof(cut),
			 " + %" PRIu64 " batch buffers past %d per call (counted as drops)",
			 r->batch_cut, FRAMEREC_BATCH_MAX);
	/* After a write error, the count the file holds, not what the ring gave. */
	if (r->frames_kept != r->frames)
		snprintf(lost, sizeof(lost), " (of %" PRIu64 " received)", r->frames);
	if (r->fps_n)
		snprintf(fps, sizeof(fps), "mean live fps %.1f (%s, %" PRIu64 " readings)",
			 r->fps_sum / (double)r->fps_n, rec_tracker_name(r), r->fps_n);
	else
		snprintf(fps, sizeof(fps), "no live fps reading (%s)", rec_tracker_name(r));
	fprintf(stderr,
		"framerec: %s: %" PRIu64 " frames%s, %" PRIu64
		" reservation failures%s, %.1f s, %" PRIu64 " bytes (%.1f bytes/frame), %s%s%s\n",
		r->opt->output, r->frames_kept, lost, r->drops - r->batch_cut, cut,
		(double)duration_ns / 1e9, st.bytes,
		r->frames_kept ? (double)st.bytes / (double)r->frames_kept : 0.0, fps,
		r->stop_why ? "; stopped: " : "", r->stop_why ? r->stop_why : "");
	losses_summary(r);
	geometry_summary(r);
	display_summary(r);
	if (empty)
		no_frame_hint(r);
}
