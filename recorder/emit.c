// SPDX-License-Identifier: MIT
/*
 * emit.c - every record of a recording, and the one place it goes:
 *
 *     ring event (probe.c) -> frc_record -> capture writer, then pipeline -> status line
 *
 * Frames come from the ring; sysfs samples, ticks, drops, attach and exit records are
 * built here when loop.c or targets.c says it is time. Each one is appended to the
 * capture before it is fed to the pipeline, one record at a time, so a replay of the
 * capture feeds the pipeline exactly what the live run fed it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "recording.h"
#include "symbols.h"
#include "sysfs.h"

static void write_failed(struct rec *r, int err)
{
	r->write_failed = true;
	r->stop = true;
	r->stop_why = "write error";
	rec_say(r, "%s; recording stopped, %s keeps what was written before",
		r->w ? frc_writer_error(r->w) : frc_strerror(err), r->opt->output);
}

/* Append to the capture only (a tick is fed to the pipeline before it is written). */
static int append(struct rec *r, const struct frc_record *rec)
{
	int ret = frc_writer_append(r->w, rec);

	if (ret) {
		write_failed(r, ret);
		return ret;
	}
	r->chunk_records++;
	return 0;
}

/* A burst: close the chunk (after a drops record) before the writer would by size. */
static void end_chunk_if_full(struct rec *r)
{
	if (r->chunk_records >= FR_CHUNK_RECORDS && !r->write_failed)
		rec_end_chunk(r);
}

static void feed(struct rec *r, const struct frc_record *rec)
{
	if (pipeline_feed(r->pl, rec)) {
		r->stop = true;
		r->stop_why = "out of memory";
	}
}

void rec_emit(struct rec *r, const struct frc_record *rec)
{
	if (r->write_failed || !r->w)
		return;
	/* Two CPUs' events can reach the ring out of time order: kept as is, but counted. */
	if (r->emitted && rec->ktime_ns < r->last_ktime)
		r->out_of_order++;
	r->last_ktime = rec->ktime_ns;
	r->emitted = true;
	if (append(r, rec))
		return;
	feed(r, rec);
	/* After the feed: the drops record it may write comes after rec in both orders. */
	end_chunk_if_full(r);
}

/* One thread record (threads.h): counted, and written and fed like every other record. */
static void emit_thread(void *ctx, const struct frc_record *rec)
{
	struct rec *r = ctx;

	r->thread_records++;
	rec_emit(r, rec);
}

/*
 * Every ring event. A buffer record (the probe wrote it right before its frame's event,
 * with the frame's ktime) and a connect record go to the capture as they come; a thread's
 * first frame is preceded by its name. The thread record takes the frame's ktime (the
 * name is read now, a drain later at most) so that it stays in time order before it.
 */
void rec_on_frame(void *ctx, const struct frc_record *rec)
{
	struct rec *r = ctx;
	struct frc_record tr;

	if (rec->type != FRC_FRAME) {
		r->buffer_records += rec->type == FRC_BUFFER;
		r->connect_records += rec->type == FRC_CONNECT;
		rec_emit(r, rec);
		return;
	}
	r->frames++;
	if (r->threads &&
	    thread_names_seen(r->threads, rec->u.frame.pid, rec->u.frame.tid, rec->ktime_ns, &tr))
		emit_thread(r, &tr);
	rec_emit(r, rec);
}

/* Drained first, like a tick: the frames in the ring come before the records' time. */
void rec_rescan_threads(struct rec *r)
{
	if (!r->threads || r->write_failed)
		return;
	rec_drain(r);
	thread_names_rescan(r->threads, now_ns(), emit_thread, r);
}

void rec_drain(struct rec *r)
{
	int n;

	if (!r->probe)
		return;
	n = probe_drain(r->probe);
	if (n < 0 && n != -EINTR) {
		rec_say(r, "ring buffer: %s", strerror(-n));
		r->stop = true;
		r->stop_why = "ring buffer error";
	}
}

static void init_record(struct frc_record *rec, enum frc_type type)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->ktime_ns = now_ns();
}

void rec_emit_sysfs(struct rec *r)
{
	struct frc_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = FRC_SYSFS;
	sysfs_sample(r->sysfs, &rec.u.sysfs);
	rec.ktime_ns = now_ns(); /* after the read: the time the content was seen */
	rec_emit(r, &rec);
}

/*
 * A tick: feed the pipeline a tick without result, take the reading it reports
 * (rec_on_reading), and write the tick WITH that result; the replay then compares its
 * own reading to it. The ring is drained and the node sampled first, so the meter reads
 * the freshest frames and node content.
 */
void rec_emit_tick(struct rec *r)
{
	struct frc_record rec;

	rec_drain(r);
	if (r->sysfs)
		rec_emit_sysfs(r);
	if (r->write_failed)
		return;
	init_record(&rec, FRC_TICK);
	rec.u.tick.has_result = false;
	r->have_reading = false;
	if (pipeline_feed(r->pl, &rec)) {
		r->stop = true;
		r->stop_why = "out of memory";
		return;
	}
	if (r->have_reading) {
		rec.u.tick.has_result = true;
		rec.u.tick.source = FRC_SOURCE_NONE;
		if (r->reading.reading.valid) {
			rec.u.tick.source = (uint8_t)r->reading.reading.source;
			rec.u.tick.fps_micro = fps_to_micro(r->reading.reading.fps);
			/* The value written, so the summary's mean is the capture's ticks' mean. */
			r->fps_sum += (double)rec.u.tick.fps_micro / 1e6;
			r->fps_n++;
		}
	}
	if (append(r, &rec) == 0)
		end_chunk_if_full(r);
}

static void emit_drops(struct rec *r)
{
	struct frc_record rec;

	if (!r->probe)
		return;
	init_record(&rec, FRC_DROPS);
	r->drops = probe_drops(r->probe);
	r->batch_cut = probe_batch_cut(r->probe);
	r->batch_anomalies = probe_batch_anomalies(r->probe);
	r->bad_buffers = probe_bad_buffers(r->probe);
	rec.u.drops.cumulative = r->drops;
	rec.u.drops.batch_anomalies = r->batch_anomalies; /* FORMAT.md 4.6 */
	rec.u.drops.bad_buffers = r->bad_buffers;
	rec_emit(r, &rec);
}

static void emit_attach(struct rec *r, const struct target *t, const char *symbol)
{
	struct frc_record rec;

	init_record(&rec, FRC_ATTACH);
	rec.ktime_ns = t->attach_ns;
	rec.u.attach.pid = (uint32_t)t->pid;
	rec.u.attach.len = (uint16_t)strlen(symbol);
	memcpy(rec.u.attach.symbol, symbol, rec.u.attach.len + 1);
	rec_emit(r, &rec);
}

void rec_emit_attach(struct rec *r, const struct target *t)
{
	emit_attach(r, t, t->symbol);
	if (t->batch_symbol[0])
		emit_attach(r, t, t->batch_symbol);
}

void rec_emit_exit(struct rec *r, pid_t pid)
{
	struct frc_record rec;

	init_record(&rec, FRC_EXIT);
	rec.u.exit.pid = (uint32_t)pid;
	rec_emit(r, &rec);
}

/*
 * Drops first, so every chunk ends with the current count. No drain here: a burst's
 * end_chunk_if_full runs inside a drain. The writer never closes a chunk by itself
 * (output.c), so this and frc_writer_finish are the only places chunks end.
 */
void rec_end_chunk(struct rec *r)
{
	struct frc_writer_stats st;

	r->chunk_records = 0; /* before emit_drops, which appends through rec_emit */
	emit_drops(r);
	if (r->write_failed)
		return;
	if (frc_writer_flush(r->w)) {
		write_failed(r, FRC_EIO);
		return;
	}
	frc_writer_stats(r->w, &st);
	r->frames_kept = st.frames; /* every frame appended is in a written chunk now */
}

/*
 * Stop every target's recording at one instant and detach (no new events; probe_stop),
 * drain the ring to empty (nothing in flight is lost), the final
 * drop count, then the last chunk + footer + fsync (frc_writer_finish). After a write
 * error the complete chunks are made durable; the reader reports the file truncated.
 */
int rec_finish(struct rec *r)
{
	struct frc_writer_stats st;

	if (r->probe) {
		probe_stop(r->probe);
		while (!r->write_failed && probe_drain(r->probe) > 0)
			;
		rec_rescan_threads(r); /* a rename since the last rescan */
		emit_drops(r);
	}
	if (!r->write_failed && frc_writer_finish(r->w))
		write_failed(r, FRC_EIO);
	if (r->write_failed) {
		fsync(r->fd);
		return -EIO; /* the writer's message was said (write_failed) */
	}
	frc_writer_stats(r->w, &st);
	r->frames_kept = st.frames;
	return 0;
}
