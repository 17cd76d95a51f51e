/* SPDX-License-Identifier: MIT */
/*
 * frc_writer.c - write a capture: header, then (descriptor, zstd frame) per chunk, then the
 * footer/index. FORMAT.md specifies the bytes.
 *
 * Records of the open chunk are kept encoded in memory: non-frame records as entries at
 * once, frames as a pending run that is encoded column by column when the run ends (a
 * non-frame record arrives, the run is full, or the chunk closes).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "frc_internal.h"

/*
 * Upper bound of the bytes one frame can add to a run (selector, slot increment, residual,
 * buffer index and dictionary entry, tid run, and a new PID's block header). The chunk
 * size limit is checked against it, so a chunk body never exceeds chunk_max_bytes.
 */
#define FRAME_WORST_BYTES 96
/* What a frame can add to the run's surface column (dictionary entry, index run). */
#define SURFACE_WORST_BYTES 32
/* What a frame can add to the run's timestamp column (a run, a 10-byte value). */
#define TIMESTAMP_WORST_BYTES 32

struct frc_writer {
	int fd;
	char *path;
	struct frc_writer_options opt;
	ZSTD_CCtx *cctx;
	int err;       /* sticky: the first failure; every later call returns it */
	uint32_t bind; /* CRC state binding descriptors and footer to the header */
	int done;      /* finish() succeeded */
	char msg[FRC_MSG_MAX];

	/* The open chunk. */
	struct frc_buf body;
	struct frc_run_frame *run;
	size_t nrun;
	/* The run's distinct surfaces; run_column: it has a nonzero one (an entry reserved). */
	uint64_t run_surf[FRC_SURFACES_MAX];
	uint32_t nrun_surf;
	bool run_column;
	bool run_ts; /* some frame of the run has a timestamp (its column: an entry reserved) */
	uint64_t c_records, c_frames, c_first, c_min, c_max;
	int c_has_time;

	/* The index, built as chunks are written; and totals. */
	struct frc_buf index;
	uint64_t prev_desc_off, prev_min;
	/* entries by type: records, surface columns (7), batch anomaly entries (8), timestamp
	 * columns (10), bad buffer entries (17) */
	uint64_t by_type[FRC_ENTRY_TYPE_MAX + 1];
	uint64_t t_min, t_max;
	int t_has_time;
	struct frc_writer_stats st;

	struct frc_buf out; /* descriptor + compressed frame of the chunk being written */
};

static int fail(frc_writer *w, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(frc_writer *w, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(w->msg, sizeof(w->msg), "%s: ", w->path);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(w->msg))
		vsnprintf(w->msg + n, sizeof(w->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (err != FRC_EINVAL)
		w->err = err; /* a rejected record leaves the writer usable */
	return err;
}

static int write_all(frc_writer *w, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(w->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return fail(w, FRC_EIO, "offset %llu: write: %s",
				    (unsigned long long)w->st.bytes,
				    k < 0 ? strerror(errno) : "no progress");
		p += k;
		n -= (size_t)k;
		w->st.bytes += (uint64_t)k;
	}
	return 0;
}

static void put_skippable(struct frc_buf *b, uint32_t magic, uint32_t size)
{
	frc_buf_le32(b, magic);
	frc_buf_le32(b, size);
}

static int header_write(frc_writer *w, const struct frc_meta *meta, size_t n_meta)
{
	struct frc_buf p = {0}, f = {0};
	int ret;

	if (n_meta > FRC_META_MAX)
		return fail(w, FRC_EINVAL, "too many metadata pairs (%zu > %d)", n_meta,
			    FRC_META_MAX);
	frc_buf_put(&p, FRC_TAG_HEADER, 4);
	frc_buf_u8(&p, FRC_FORMAT_MAJOR & 0xFF);
	frc_buf_u8(&p, FRC_FORMAT_MAJOR >> 8);
	frc_buf_u8(&p, FRC_FORMAT_MINOR & 0xFF);
	frc_buf_u8(&p, FRC_FORMAT_MINOR >> 8);
	frc_buf_varint(&p, n_meta);
	for (size_t i = 0; i < n_meta; i++) {
		const char *k = meta[i].key, *v = meta[i].value;

		ret = FRC_EINVAL;
		if (!k || !v || !frc_meta_key_ok(k, strlen(k))) {
			fail(w, ret, "metadata key '%s' is not [a-z0-9_.]{1,255}",
			     k ? k : "(null)");
			goto cleanup;
		}
		if (strlen(v) > FRC_META_VALUE_MAX) {
			fail(w, ret, "metadata '%s': value longer than %d bytes", k,
			     FRC_META_VALUE_MAX);
			goto cleanup;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(meta[j].key, k)) {
				fail(w, ret, "metadata key '%s' given twice", k);
				goto cleanup;
			}
		frc_buf_varint(&p, strlen(k));
		frc_buf_put(&p, k, strlen(k));
		frc_buf_varint(&p, strlen(v));
		frc_buf_put(&p, v, strlen(v));
	}
	frc_buf_le32(&p, frc_crc32c(0, p.p, p.len));
	ret = FRC_ENOMEM;
	if (p.oom) {
		fail(w, ret, "out of memory");
		goto cleanup;
	}
	w->bind = frc_bind_seed(FRC_FORMAT_MINOR, p.p + p.len - 4);
	ret = FRC_EINVAL;
	if (p.len > FRC_HEADER_MAX) {
		fail(w, ret, "metadata larger than %u bytes", FRC_HEADER_MAX);
		goto cleanup;
	}
	put_skippable(&f, FRC_MAGIC_HEADER, (uint32_t)p.len);
	frc_buf_put(&f, p.p, p.len);
	ret = f.oom ? fail(w, FRC_ENOMEM, "out of memory") : write_all(w, f.p, f.len);
cleanup:
	frc_buf_free(&f);
	frc_buf_free(&p);
	return ret;
}

int frc_writer_open_fd(frc_writer **out, int fd, const char *path, const struct frc_meta *meta,
		       size_t n_meta, const struct frc_writer_options *opt)
{
	frc_writer *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w)
		return FRC_ENOMEM;
	w->fd = fd;
	w->path = strdup(path ? path : "(capture)");
	if (opt)
		w->opt = *opt;
	if (!w->opt.flush_ms)
		w->opt.flush_ms = FRC_DEFAULT_FLUSH_MS;
	if (!w->opt.chunk_max_bytes)
		w->opt.chunk_max_bytes = FRC_DEFAULT_CHUNK_BYTES;
	if (!w->opt.zstd_level)
		w->opt.zstd_level = FRC_DEFAULT_LEVEL;
	w->run = malloc(FRC_RUN_MAX * sizeof(*w->run));
	w->cctx = ZSTD_createCCtx();
	if (!w->path || !w->run || !w->cctx) {
		frc_writer_free(w);
		return FRC_ENOMEM;
	}
	*out = w; /* from here on the handle carries the message of a failure */
	if (w->opt.chunk_max_bytes > FRC_CHUNK_RAW_MAX || w->opt.chunk_max_bytes < 1024)
		return fail(w, FRC_EINVAL, "chunk_max_bytes %u outside [1024, %u]",
			    w->opt.chunk_max_bytes, FRC_CHUNK_RAW_MAX);
	if (w->opt.zstd_level < ZSTD_minCLevel() || w->opt.zstd_level > ZSTD_maxCLevel())
		return fail(w, FRC_EINVAL, "zstd level %d unsupported", w->opt.zstd_level);
	/* Single-threaded, checksummed, content size recorded: deterministic output. */
	if (ZSTD_isError(
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opt.zstd_level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1)))
		return fail(w, FRC_EINVAL, "zstd parameters rejected");
	ret = header_write(w, meta, n_meta);
	if (ret)
		w->err = ret;
	return ret;
}

/* Encode the pending frames as one run entry (after its timestamp and surface columns). */
static int run_flush(frc_writer *w)
{
	int ret = 0;

	if (!w->nrun)
		return 0;
	/* Type 10 first: a reader that predates it skips it, then finds 7 right before 1. */
	if (w->run_ts) {
		ret = frc_timestamps_encode(&w->body, w->run, w->nrun);
		w->by_type[FRC_ENTRY_TIMESTAMPS]++;
	}
	if (!ret && w->run_column) {
		ret = frc_surfaces_encode(&w->body, w->run, w->nrun);
		w->by_type[FRC_ENTRY_SURFACES]++;
	}
	if (!ret)
		ret = frc_run_encode(&w->body, w->run, w->nrun);
	w->nrun = 0;
	w->nrun_surf = 0;
	w->run_column = false;
	w->run_ts = false;
	if (!ret && w->body.oom)
		ret = FRC_ENOMEM;
	return ret ? fail(w, ret, "out of memory") : 0;
}

static void index_add(frc_writer *w, uint64_t desc_off)
{
	uint64_t min = w->c_has_time ? w->c_min : 0, max = w->c_has_time ? w->c_max : 0;

	frc_buf_varint(&w->index, desc_off - w->prev_desc_off);
	frc_buf_varint(&w->index, w->c_records);
	frc_buf_varint(&w->index, w->c_frames);
	frc_buf_varint(&w->index, frc_zigzag((int64_t)(min - w->prev_min)));
	frc_buf_varint(&w->index, max - min);
	w->prev_desc_off = desc_off;
	w->prev_min = min;
}

/* Close the open chunk: compress it, write descriptor + frame with one write. */
static int chunk_close(frc_writer *w)
{
	struct frc_buf d = {0};
	size_t bound, csize;
	uint64_t desc_off = w->st.bytes;
	int ret;

	ret = run_flush(w);
	if (ret || !w->c_records)
		return ret;
	bound = ZSTD_compressBound(w->body.len);
	if (w->out.cap < bound + 8 + FRC_DESC_MAX) {
		free(w->out.p);
		w->out.p = malloc(bound + 8 + FRC_DESC_MAX);
		w->out.cap = w->out.p ? bound + 8 + FRC_DESC_MAX : 0;
		if (!w->out.p)
			return fail(w, FRC_ENOMEM, "out of memory");
	}
	/* The frame goes after room for the descriptor; the descriptor is moved next to it. */
	csize = ZSTD_compress2(w->cctx, w->out.p + 8 + FRC_DESC_MAX, bound, w->body.p, w->body.len);
	if (ZSTD_isError(csize))
		return fail(w, FRC_EIO, "zstd: %s", ZSTD_getErrorName(csize));
	frc_buf_varint(&d, w->st.chunks);
	frc_buf_varint(&d, csize);
	frc_buf_varint(&d, w->body.len);
	frc_buf_varint(&d, w->c_records);
	frc_buf_le32(&d, frc_crc32c(0, w->out.p + 8 + FRC_DESC_MAX, csize));
	frc_buf_le32(&d, frc_crc32c(w->bind, d.p, d.len));
	if (d.oom) {
		frc_buf_free(&d);
		return fail(w, FRC_ENOMEM, "out of memory");
	}
	{
		size_t dlen = d.len;
		uint8_t *start = w->out.p + FRC_DESC_MAX - dlen;

		frc_put_le32(start, FRC_MAGIC_DESC);
		frc_put_le32(start + 4, (uint32_t)dlen);
		memcpy(start + 8, d.p, dlen);
		frc_buf_free(&d);
		ret = write_all(w, start, 8 + dlen + csize);
	}
	if (ret)
		return ret;
	index_add(w, desc_off);
	w->st.chunks++;
	w->body.len = 0;
	w->c_records = w->c_frames = 0;
	w->c_has_time = 0;
	return w->index.oom ? fail(w, FRC_ENOMEM, "out of memory") : 0;
}

static void chunk_note_time(frc_writer *w, uint64_t t)
{
	if (!w->c_records)
		w->c_first = t;
	if (!w->c_has_time || t < w->c_min)
		w->c_min = t;
	if (!w->c_has_time || t > w->c_max)
		w->c_max = t;
	if (!w->t_has_time || t < w->t_min)
		w->t_min = t;
	if (!w->t_has_time || t > w->t_max)
		w->t_max = t;
	w->c_has_time = w->t_has_time = 1;
}

/* Close the chunk first if adding est bytes would pass chunk_max_bytes. */
static int make_room(frc_writer *w, size_t est)
{
	int ret;

	size_t per_frame = FRAME_WORST_BYTES + (w->run_column ? SURFACE_WORST_BYTES : 0) +
			   (w->run_ts ? TIMESTAMP_WORST_BYTES : 0);

	if (!w->c_records || w->body.len + w->nrun * per_frame + est <= w->opt.chunk_max_bytes)
		return 0;
	/* The pending run's real size is far below its worst case: measure it first. */
	ret = run_flush(w);
	if (ret || w->body.len + est <= w->opt.chunk_max_bytes)
		return ret;
	return chunk_close(w);
}

/* surface is one of the pending run's distinct surfaces. */
static bool surface_known(const frc_writer *w, uint64_t surface)
{
	for (uint32_t i = 0; i < w->nrun_surf; i++)
		if (w->run_surf[i] == surface)
			return true;
	return false;
}

/*
 * A frame joins the pending run. The first nonzero surface of a run and its first
 * timestamp each reserve one more entry of the chunk (the run's surface and timestamp
 * columns, written before it by run_flush), so the chunk's record limit counts them from
 * the start. *new_columns: how many this frame reserved (0..2).
 */
static int frame_append(frc_writer *w, const struct frc_record *r, unsigned *new_columns)
{
	uint64_t surface = r->u.frame.surface;
	bool ts = r->u.frame.has_timestamp;
	int ret = make_room(w, FRAME_WORST_BYTES + SURFACE_WORST_BYTES +
				   (ts ? TIMESTAMP_WORST_BYTES : 0));
	unsigned add;

	/* A run holds at most FRC_SURFACES_MAX distinct surfaces: a new one past that ends it. */
	if (!ret && (w->nrun == FRC_RUN_MAX ||
		     (!surface_known(w, surface) && w->nrun_surf == FRC_SURFACES_MAX)))
		ret = run_flush(w);
	add = (unsigned)(surface && !w->run_column) + (unsigned)(ts && !w->run_ts);
	if (!ret && add && w->c_records + 1 + add > FRC_CHUNK_RECORDS_MAX)
		ret = chunk_close(w); /* no room for the frame and its columns */
	if (ret)
		return ret;
	/* The column entries are counted by frc_writer_append, after the chunk's first time. */
	*new_columns = (unsigned)(surface && !w->run_column) + (unsigned)(ts && !w->run_ts);
	w->run_column |= surface != 0;
	w->run_ts |= ts;
	if (!surface_known(w, surface))
		w->run_surf[w->nrun_surf++] = surface;
	w->run[w->nrun++] = (struct frc_run_frame){.ktime = r->ktime_ns,
						   .buffer = r->u.frame.buffer,
						   .surface = surface,
						   .pid = r->u.frame.pid,
						   .tid = r->u.frame.tid,
						   .has_timestamp = ts,
						   .timestamp = ts ? r->u.frame.timestamp : 0};
	w->c_frames++;
	return 0;
}

int frc_writer_append(frc_writer *w, const struct frc_record *r)
{
	uint64_t flush_ns;
	unsigned new_columns = 0; /* this frame starts the run's surface/timestamp column */
	bool anomalies = false;	  /* a batch anomaly entry goes before this drops record */
	bool bad = false;	  /* a bad buffer entry goes before it (and its anomaly entry) */
	int ret;

	if (w->err)
		return w->err;
	if (w->done)
		return fail(w, FRC_EINVAL, "append after finish");
	if (frc_record_check(r))
		return fail(w, FRC_EINVAL, "record of type %u at ktime %llu cannot be stored",
			    r->type, (unsigned long long)r->ktime_ns);
	flush_ns = (uint64_t)w->opt.flush_ms * 1000000u;
	if (w->c_records == FRC_CHUNK_RECORDS_MAX ||
	    (w->c_records && r->ktime_ns >= w->c_first && r->ktime_ns - w->c_first >= flush_ns)) {
		ret = chunk_close(w);
		if (ret)
			return ret;
	}
	if (r->type == FRC_FRAME) {
		ret = frame_append(w, r, &new_columns);
		if (ret)
			return ret;
	} else {
		struct frc_buf e = {0};

		/*
		 * A drops record's bad buffer and anomaly entries go right before it, in that
		 * order and in the same chunk (4.6).
		 */
		anomalies = r->type == FRC_DROPS && r->u.drops.batch_anomalies;
		bad = r->type == FRC_DROPS && r->u.drops.bad_buffers;
		if (w->c_records + 1u + anomalies + bad > FRC_CHUNK_RECORDS_MAX &&
		    (ret = chunk_close(w)))
			return ret;
		if (bad)
			frc_bad_buffers_encode(&e, r->u.drops.bad_buffers);
		if (anomalies)
			frc_anomalies_encode(&e, r->u.drops.batch_anomalies);
		frc_entry_encode(&e, r);
		ret = e.oom ? fail(w, FRC_ENOMEM, "out of memory") : make_room(w, e.len);
		if (!ret)
			ret = run_flush(w);
		if (!ret)
			frc_buf_put(&w->body, e.p, e.len);
		frc_buf_free(&e);
		if (!ret && w->body.oom)
			ret = fail(w, FRC_ENOMEM, "out of memory");
		if (ret)
			return ret;
	}
	chunk_note_time(w, r->ktime_ns);
	w->c_records += 1u + new_columns + anomalies + bad;
	w->by_type[r->type]++;
	w->by_type[FRC_ENTRY_ANOMALIES] += anomalies;
	w->by_type[FRC_ENTRY_BAD_BUFFERS] += bad;
	w->st.records++;
	if (r->type == FRC_FRAME)
		w->st.frames++;
	return 0;
}

int frc_writer_append_raw_entry(frc_writer *w, uint64_t type, const void *payload, size_t len)
{
	int ret;

	if (w->err)
		return w->err;
	ret = w->c_records == FRC_CHUNK_RECORDS_MAX ? chunk_close(w) : make_room(w, 20 + len);
	if (!ret)
		ret = run_flush(w);
	if (ret)
		return ret;
	if (!w->c_records)
		w->c_first = 0;
	frc_buf_varint(&w->body, type);
	frc_buf_varint(&w->body, len);
	frc_buf_put(&w->body, payload, len);
	w->c_records++;
	w->st.records++;
	return w->body.oom ? fail(w, FRC_ENOMEM, "out of memory") : 0;
}

int frc_writer_flush(frc_writer *w)
{
	if (w->err)
		return w->err;
	if (w->done)
		return 0;
	return chunk_close(w);
}

static int footer_write(frc_writer *w)
{
	struct frc_buf f = {0};
	uint32_t size;
	int ret, ntypes;

	put_skippable(&f, FRC_MAGIC_FOOTER, 0); /* size patched below */
	frc_buf_put(&f, FRC_TAG_INDEX, 4);
	frc_buf_varint(&f, w->st.chunks);
	frc_buf_varint(&f, FRC_INDEX_FIELDS);
	frc_buf_put(&f, w->index.p, w->index.len);
	frc_buf_varint(&f, w->st.records + w->by_type[FRC_ENTRY_SURFACES] +
			       w->by_type[FRC_ENTRY_ANOMALIES] + w->by_type[FRC_ENTRY_TIMESTAMPS] +
			       w->by_type[FRC_ENTRY_BAD_BUFFERS]);
	/*
	 * Self-describing: a reader that knows fewer or more types still finds min/max. The
	 * totals of the types after 1.1's first six (7, 8, 10, 17 and the later records) only up to
	 * the last one present, so that a capture without them is byte for byte what it was
	 * before they existed.
	 */
	ntypes = FRC_TYPE_BASE_MAX;
	for (int t = FRC_TYPE_BASE_MAX + 1; t <= FRC_ENTRY_TYPE_MAX; t++)
		if (w->by_type[t])
			ntypes = t;
	frc_buf_varint(&f, ntypes);
	for (int t = 1; t <= ntypes; t++)
		frc_buf_varint(&f, w->by_type[t]);
	frc_buf_varint(&f, w->t_has_time ? w->t_min : 0);
	frc_buf_varint(&f, w->t_has_time ? w->t_max : 0);
	if (f.oom || f.len + FRC_FOOTER_TAIL > UINT32_MAX) {
		frc_buf_free(&f);
		return fail(w, FRC_ENOMEM, "out of memory");
	}
	frc_buf_le32(&f, frc_crc32c(w->bind, f.p + 8, f.len - 8));
	size = (uint32_t)(f.len + 8);
	frc_buf_le32(&f, size);
	frc_buf_put(&f, FRC_TAG_END, 4);
	if (!f.oom)
		frc_put_le32(f.p + 4, (uint32_t)(f.len - 8));
	ret = f.oom ? fail(w, FRC_ENOMEM, "out of memory") : write_all(w, f.p, f.len);
	frc_buf_free(&f);
	return ret;
}

int frc_writer_finish(frc_writer *w)
{
	int ret;

	if (w->err)
		return w->err;
	if (w->done)
		return 0;
	ret = chunk_close(w);
	if (!ret)
		ret = footer_write(w);
	/* A pipe or a character device cannot be synced (EINVAL); that is not a failure. */
	if (!ret && fsync(w->fd) && errno != EINVAL && errno != EROFS)
		ret = fail(w, FRC_EIO, "fsync: %s", strerror(errno));
	if (!ret)
		w->done = 1;
	return ret;
}

void frc_writer_stats(const frc_writer *w, struct frc_writer_stats *st)
{
	*st = w->st;
}

const char *frc_writer_error(const frc_writer *w)
{
	return w ? w->msg : "";
}

void frc_writer_free(frc_writer *w)
{
	if (!w)
		return;
	frc_buf_free(&w->out);
	frc_buf_free(&w->index);
	frc_buf_free(&w->body);
	ZSTD_freeCCtx(w->cctx);
	free(w->run);
	free(w->path);
	free(w);
}
