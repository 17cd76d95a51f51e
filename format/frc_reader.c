/* SPDX-License-Identifier: MIT */
/*
 * frc_reader.c - read a capture as a stream of records, treating every byte as hostile.
 *
 * Memory is bounded by one chunk (compressed + decompressed, at most 64 MiB raw, and its
 * decoded frames) and a read-ahead window, whatever the file size: the footer index is
 * validated and then consulted entry by entry through a small window, never loaded whole.
 * FORMAT.md "Reading" is the algorithm.
 *
 * Speed matters too (frameanalyze reads 10 M-frame captures): a chunk's frames are decoded
 * once, while it is checked, and delivered from there; frc_reader_next's path for a frame
 * is a copy (bench/format/frc_bench_read measures it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "frc_internal.h"

/*
 * How this capture's descriptor and footer CRCs are computed (FORMAT.md 3, "recording id"):
 * bound to the header (minor >= 1 writers), or plain (minor 0, and writers that followed
 * the 1.0 rules while writing a later minor). The first CRC that checks decides for the
 * whole file; every later one must follow the same rule.
 */
enum { BIND_UNKNOWN, BIND_BOUND, BIND_PLAIN };

/* The read-ahead window of the walk over the chunks (read_at). */
#define RA_SIZE (256u << 10)

/* A window over the file for reading varints at increasing offsets (the footer index). */
struct window {
	uint64_t pos; /* file offset of buf[off] */
	uint64_t end; /* reads stop here */
	uint8_t buf[512];
	size_t len, off;
};

/* The chunk being loaded, once its descriptor checked and its bytes fit (ok). */
struct cur_desc {
	int ok;
	uint64_t seq, nrec, end; /* end: the file offset after its zstd frame */
};

/*
 * A damaged stretch of the chunk area being skipped: it starts where the last intact
 * structure ended and ends at the next intact chunk (or the end of the chunk area).
 */
struct gap {
	int open;
	uint64_t start;
	uint64_t before; /* the ktime of the last record read before it (0: none) */
	/* chunks in it whose descriptor checked, their nrec, and the next seq to count */
	uint64_t desc_chunks, desc_records, desc_next;
	struct frc_reader_loss pend; /* with the index: its entries of the chunks lost here */
};

struct frc_reader {
	int fd; /* -1 for a memory capture */
	const uint8_t *mem;
	uint64_t size;
	char *path;
	char msg[FRC_MSG_MAX];
	unsigned major, minor;
	struct frc_meta *meta;
	size_t n_meta;
	uint8_t *header; /* header payload; the metadata strings point into meta_store */
	char *meta_store;
	uint32_t bind;	/* CRC state binding descriptors and footer to this header */
	int bind_mode;	/* BIND_UNKNOWN until the first descriptor or the footer decides */
	int end_tagged; /* the file ends in "FRCE": the writer finished it */

	/* The read-ahead window (files only): ra[0..ra_len) holds the bytes at ra_off. */
	uint8_t *ra;
	uint64_t ra_off;
	size_t ra_len;

	uint64_t pos;	   /* offset of the next frame to read */
	uint64_t data_end; /* footer offset when the index is used, else the file size */
	int done;

	/* The footer index (when index_used): a cursor over its entries and its totals. */
	struct window idx;
	uint64_t idx_chunks, idx_fields, idx_prev_off, idx_prev_min;
	uint64_t idx_records, idx_ntypes, idx_by_type[FRC_ENTRY_TYPE_MAX + 1], idx_min, idx_max;
	uint64_t columns;    /* surface column entries in the chunks loaded (type 7) */
	uint64_t anomalies;  /* batch anomaly entries in the chunks loaded (type 8) */
	uint64_t ts_columns; /* timestamp column entries in the chunks loaded (type 10) */
	uint64_t bads;	     /* bad buffer entries in the chunks loaded (type 17) */

	/* The current chunk. */
	ZSTD_DCtx *dctx;
	uint8_t *cbuf, *raw;
	size_t ccap, rcap, raw_len, raw_pos;
	/*
	 * Its frames, decoded once while the chunk is checked (surfaces applied), in file
	 * order: frc_reader_next delivers run[frame_pos..run_end) for the frame run entry
	 * it reached. Decoding them again there cost as much as the check itself.
	 */
	struct frc_run_frame *run;
	size_t run_cap, frame_pos, run_end;
	uint64_t batch_anomalies; /* the anomaly entry read before the next drops record */
	uint64_t bad_buffers;	  /* the bad buffer entry read before the next drops record */
	uint64_t prev_ktime;	  /* the last delivered record's (out_of_order) */
	uint64_t chunk_off;	  /* offset of the current chunk's descriptor */

	/* Recovery from damage (FORMAT.md 7, step 6). */
	uint64_t seq;	    /* the chunk number expected next: chunks read + chunks lost */
	uint64_t idx_seq;   /* index entries consumed (read chunks' and lost ones') */
	uint32_t tail_size; /* footer size in the file's last 12 bytes (when end_tagged) */
	struct cur_desc cur;
	struct gap gap;
	char first_what[300]; /* what the first damage skipped was ("" before any) */
	uint64_t first_pos;   /* where the valid data before it ended */

	struct frc_reader_stats st;
	int has_time;
};

const char *frc_strerror(int err)
{
	switch (err) {
	case FRC_OK:
		return "success";
	case FRC_EIO:
		return "I/O error";
	case FRC_ENOMEM:
		return "out of memory";
	case FRC_EINVAL:
		return "invalid argument or record";
	case FRC_ENOTCAPTURE:
		return "not an .frc capture";
	case FRC_EVERSION:
		return "unsupported .frc format version";
	case FRC_ECORRUPT:
		return "capture is corrupt";
	case FRC_ETRUNCATED:
		return "capture is truncated";
	default:
		return err < 0 && !frc_is_error_code(err) ? strerror(-err) : "unknown error";
	}
}

const char *frc_status_name(enum frc_status s)
{
	switch (s) {
	case FRC_STATUS_COMPLETE:
		return "complete";
	case FRC_STATUS_TRUNCATED:
		return "truncated";
	case FRC_STATUS_CORRUPT:
		return "corrupt";
	case FRC_STATUS_RECOVERED:
		return "recovered";
	}
	return "unknown";
}

static void say(frc_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(frc_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->msg, sizeof(r->msg), "%s: offset %llu: ", r->path, (unsigned long long)off);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->msg))
		vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Read exactly n bytes at off (the caller has checked off + n <= size). */
static int read_direct(frc_reader *r, uint64_t off, void *buf, size_t n)
{
	uint8_t *p = buf;

	if (r->mem) {
		memcpy(buf, r->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			say(r, off, "read: %s",
			    k < 0 ? strerror(errno) : "file shrank while reading");
			return FRC_EIO;
		}
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/*
 * Fill the read-ahead window from off with as much of RA_SIZE as the file holds, at least
 * the n bytes asked for: an error or end of file past those only shortens the window, so a
 * read fails exactly where a direct one would, with the same message.
 */
static int ra_fill(frc_reader *r, uint64_t off, size_t n)
{
	size_t want = r->size - off < RA_SIZE ? (size_t)(r->size - off) : RA_SIZE, got = 0;

	r->ra_len = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, r->ra + got, want - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 && got >= n)
			break;
		if (k <= 0) {
			say(r, off + got, "read: %s",
			    k < 0 ? strerror(errno) : "file shrank while reading");
			return FRC_EIO;
		}
		got += (size_t)k;
	}
	r->ra_off = off;
	r->ra_len = got;
	return 0;
}

/*
 * read_direct for the walk over the chunks, front to back in small pieces (a frame header,
 * a descriptor, a chunk of a few hundred bytes): through the read-ahead window, as one
 * pread per piece made the system calls a quarter of the reader's time. A piece larger
 * than the window is read directly.
 */
static int read_at(frc_reader *r, uint64_t off, void *buf, size_t n)
{
	if (r->mem || n >= RA_SIZE)
		return read_direct(r, off, buf, n);
	if (off < r->ra_off || off - r->ra_off > r->ra_len || n > r->ra_len - (off - r->ra_off)) {
		int ret = ra_fill(r, off, n);

		if (ret)
			return ret;
	}
	memcpy(buf, r->ra + (off - r->ra_off), n);
	return 0;
}

/* ------------------------------------------------------------ window over the file */

static int win_fill(frc_reader *r, struct window *w)
{
	size_t keep = w->len - w->off, want;

	memmove(w->buf, w->buf + w->off, keep);
	w->pos += w->off;
	w->off = 0;
	w->len = keep;
	want = sizeof(w->buf) - keep;
	if (want > w->end - (w->pos + keep))
		want = (size_t)(w->end - (w->pos + keep));
	if (want && read_direct(r, w->pos + keep, w->buf + keep, want))
		return FRC_EIO;
	w->len += want;
	return 0;
}

/* 1: a varint was read; 0: malformed or past the end; <0: I/O error. */
static int win_varint(frc_reader *r, struct window *w, uint64_t *v)
{
	size_t n;

	if (w->len - w->off < 10 && win_fill(r, w))
		return FRC_EIO;
	n = frc_varint_decode(w->buf + w->off, w->len - w->off, v);
	w->off += n;
	return n ? 1 : 0;
}

static uint64_t win_offset(const struct window *w)
{
	return w->pos + w->off;
}

/* ------------------------------------------------------------ header */

static int header_parse(frc_reader *r, const uint8_t *p, size_t len)
{
	struct frc_cur c = {.p = p, .len = len - 4};
	uint64_t n, kl, vl;
	size_t store = 0;
	char *s;

	c.pos = 8;
	frc_cur_varint(&c, &n);
	if (c.bad || n > FRC_META_MAX)
		return -1;
	/* Every pair takes at least 2 bytes, so n is bounded by the (checked) header size. */
	if (n > len / 2)
		return -1;
	r->meta = calloc(n ? n : 1, sizeof(*r->meta));
	r->meta_store = malloc(len + 2 * n + 1);
	if (!r->meta || !r->meta_store)
		return FRC_ENOMEM;
	s = r->meta_store;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *k, *v;

		frc_cur_varint(&c, &kl);
		k = frc_cur_bytes(&c, kl);
		frc_cur_varint(&c, &vl);
		v = frc_cur_bytes(&c, vl);
		/*
		 * The writer and the text form only accept [a-z0-9_.] keys, each once; a
		 * header with other keys could not be exported and imported back (a blank in
		 * a key would even split differently), so it is damage, not data.
		 */
		if (c.bad || !frc_meta_key_ok((const char *)k, kl) || vl > FRC_META_VALUE_MAX ||
		    memchr(v, 0, vl))
			return -1;
		for (uint64_t j = 0; j < i; j++)
			if (strlen(r->meta[j].key) == kl && !memcmp(r->meta[j].key, k, kl))
				return -1;
		memcpy(s + store, k, kl);
		s[store + kl] = 0;
		r->meta[i].key = s + store;
		store += kl + 1;
		memcpy(s + store, v, vl);
		s[store + vl] = 0;
		r->meta[i].value = s + store;
		store += vl + 1;
	}
	r->n_meta = n;
	return c.pos == c.len ? 0 : -1;
}

/* Read and check the header frame at offset 0; sets r->pos after it. */
static int header_read(frc_reader *r)
{
	uint8_t h[8];
	uint32_t size;
	int ret;

	if (r->size < 8) {
		static const uint8_t magic[4] = {0x5A, 0x2A, 0x4D, 0x18};
		size_t n = r->size < 4 ? (size_t)r->size : 4;

		if (n && read_direct(r, 0, h, n))
			return FRC_EIO;
		if (memcmp(h, magic, n)) {
			say(r, 0, "not an .frc capture (no header frame)");
			return FRC_ENOTCAPTURE;
		}
		say(r, r->size, "truncated: the file ends inside the header");
		return FRC_ETRUNCATED;
	}
	if (read_direct(r, 0, h, 8))
		return FRC_EIO;
	if (frc_get_le32(h) != FRC_MAGIC_HEADER) {
		say(r, 0, "not an .frc capture (no header frame)");
		return FRC_ENOTCAPTURE;
	}
	size = frc_get_le32(h + 4);
	if (size < 13 || size > FRC_HEADER_MAX) {
		say(r, 4, "header size %u outside [13, %u]", size, FRC_HEADER_MAX);
		return FRC_ECORRUPT;
	}
	if (size > r->size - 8) {
		say(r, r->size, "truncated: the file ends inside the header (%u bytes declared)",
		    size);
		return FRC_ETRUNCATED;
	}
	r->header = malloc(size);
	if (!r->header)
		return FRC_ENOMEM;
	if (read_direct(r, 8, r->header, size))
		return FRC_EIO;
	if (memcmp(r->header, FRC_TAG_HEADER, 4)) {
		say(r, 8, "not an .frc capture (header tag is not " FRC_TAG_HEADER ")");
		return FRC_ENOTCAPTURE;
	}
	if (frc_crc32c(0, r->header, size - 4) != frc_get_le32(r->header + size - 4)) {
		say(r, 8, "header checksum mismatch");
		return FRC_ECORRUPT;
	}
	r->major = r->header[4] | (unsigned)r->header[5] << 8;
	r->minor = r->header[6] | (unsigned)r->header[7] << 8;
	if (r->major != FRC_FORMAT_MAJOR) {
		say(r, 12, "format version %u.%u; this reader knows %u.x", r->major, r->minor,
		    FRC_FORMAT_MAJOR);
		return FRC_EVERSION;
	}
	r->bind = frc_bind_seed(r->minor, r->header + size - 4);
	r->bind_mode = r->minor == 0 ? BIND_PLAIN : BIND_UNKNOWN;
	ret = header_parse(r, r->header, size);
	if (ret == FRC_ENOMEM)
		return ret;
	if (ret) {
		say(r, 8, "malformed header metadata");
		return FRC_ECORRUPT;
	}
	r->pos = 8 + (uint64_t)size;
	return 0;
}

/* ------------------------------------------------------------ footer / index */

/*
 * Whether a stored CRC matches under the capture's binding rule: bound is the CRC
 * continued from the recording id, plain the CRC from 0. An undecided rule is decided here.
 */
static int crc_follows_binding(frc_reader *r, uint32_t stored, uint32_t bound, uint32_t plain)
{
	if (r->bind_mode == BIND_UNKNOWN && (stored == bound || stored == plain))
		r->bind_mode = stored == bound ? BIND_BOUND : BIND_PLAIN;
	return stored == (r->bind_mode == BIND_BOUND ? bound : plain) &&
	       r->bind_mode != BIND_UNKNOWN;
}

/* The smallest footer frame: skippable header, tag, 4 one-byte varints, the tail. */
#define FOOTER_MIN (8 + 4 + 4 + FRC_FOOTER_TAIL)

/* 1: n varints were read (the last into *last, may be NULL); 0: malformed; <0: I/O error. */
static int win_varints(frc_reader *r, struct window *w, uint64_t n, uint64_t *last)
{
	uint64_t v = 0;
	int ret;

	for (uint64_t i = 0; i < n; i++)
		if ((ret = win_varint(r, w, &v)) <= 0)
			return ret;
	if (last)
		*last = v;
	return 1;
}

/*
 * Walk the footer payload after its tag once, checking its structure and keeping the
 * totals. 1.0 footers have 5 varints per index entry and 6 per-type totals; from 1.1 both
 * counts are written before what they count, so a reader of any 1.x knows where min/max
 * are whatever types or entry fields a newer writer added (FORMAT.md 5, 9). Every loop
 * consumes at least one byte per step, so the work is bounded by the footer's size.
 */
static int footer_parse(frc_reader *r, struct window *w, uint64_t off, uint64_t end)
{
	uint64_t v;
	int ret;

	memset(w, 0, sizeof(*w));
	w->pos = off + 12;
	w->end = end;
	r->idx_fields = FRC_INDEX_FIELDS;
	r->idx_ntypes = 6;
	if ((ret = win_varint(r, w, &r->idx_chunks)) <= 0)
		return ret;
	if (r->minor > 0 && (ret = win_varint(r, w, &r->idx_fields)) <= 0)
		return ret;
	if (r->idx_fields < FRC_INDEX_FIELDS || r->idx_fields > FRC_INDEX_FIELDS_MAX)
		return 0;
	for (uint64_t i = 0; i < r->idx_chunks; i++)
		if ((ret = win_varints(r, w, r->idx_fields, NULL)) <= 0)
			return ret;
	if ((ret = win_varint(r, w, &r->idx_records)) <= 0)
		return ret;
	if (r->minor > 0 && (ret = win_varint(r, w, &r->idx_ntypes)) <= 0)
		return ret;
	for (uint64_t t = 1; t <= r->idx_ntypes; t++) {
		if ((ret = win_varint(r, w, &v)) <= 0)
			return ret;
		if (t <= FRC_ENTRY_TYPE_MAX)
			r->idx_by_type[t] = v;
	}
	if ((ret = win_varint(r, w, &r->idx_min)) <= 0 ||
	    (ret = win_varint(r, w, &r->idx_max)) <= 0)
		return ret;
	/* A newer minor may append fields; at our minor or older the payload ends here. */
	if (win_offset(w) != end && r->minor <= FRC_FORMAT_MINOR)
		return 0;
	return 1;
}

/*
 * Check the footer at the end of the file. Returns 1 when it is valid (and sets up the
 * index cursor), 0 when it is absent or damaged (the caller scans linearly), <0 on I/O
 * error. Nothing here is trusted until the checksum over the whole payload matched.
 */
static int footer_check(frc_reader *r)
{
	uint8_t tail[FRC_FOOTER_TAIL], h[8], buf[4096];
	uint64_t off, plen, v, end;
	uint32_t size, crc = 0, bcrc = r->bind; /* bcrc: continued from the recording id */
	struct window *w = &r->idx;
	int ret;

	if (r->size - r->pos < FOOTER_MIN)
		return 0;
	if (read_direct(r, r->size - FRC_FOOTER_TAIL, tail, FRC_FOOTER_TAIL))
		return FRC_EIO;
	size = frc_get_le32(tail + 4);
	if (memcmp(tail + 8, FRC_TAG_END, 4) || size > r->size - r->pos || size < FOOTER_MIN)
		return 0;
	off = r->size - size;
	if (read_direct(r, off, h, 8))
		return FRC_EIO;
	plen = size - 8;
	if (frc_get_le32(h) != FRC_MAGIC_FOOTER || frc_get_le32(h + 4) != plen)
		return 0;
	end = r->size - FRC_FOOTER_TAIL;
	for (uint64_t at = off + 8; at < end;) {
		size_t n = end - at < sizeof(buf) ? (size_t)(end - at) : sizeof(buf);

		if (read_direct(r, at, buf, n))
			return FRC_EIO;
		crc = frc_crc32c(crc, buf, n);
		bcrc = frc_crc32c(bcrc, buf, n);
		at += n;
	}
	if (!crc_follows_binding(r, frc_get_le32(tail), bcrc, crc))
		return 0;
	if (read_direct(r, off + 8, h, 4))
		return FRC_EIO;
	if (memcmp(h, FRC_TAG_INDEX, 4))
		return 0;
	ret = footer_parse(r, w, off, end);
	if (ret <= 0)
		return ret;
	/* Valid: rewind the cursor to the first entry. */
	memset(w, 0, sizeof(*w));
	w->pos = off + 12;
	w->end = end;
	if (win_varint(r, w, &v) <= 0 || (r->minor > 0 && win_varint(r, w, &v) <= 0))
		return FRC_EIO;
	r->data_end = off;
	r->st.index_used = 1;
	return 1;
}

/* ------------------------------------------------------------ chunks */

/* chunk_next's result when the walk goes on from r->pos (after damage, it moved there). */
#define AGAIN 2

/* Stop reading: the valid data ends at r->pos. */
static int stop(frc_reader *r, enum frc_status status, uint64_t damage)
{
	r->st.status = status;
	r->st.valid_end = r->pos;
	/* Damage recovered from keeps the offset of the first (note_damage). */
	if (status == FRC_STATUS_CORRUPT)
		r->st.damage_offset = damage;
	r->done = 1;
	return 0;
}

static int corrupt(frc_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Damage that ends the reading (the index totals disagree with intact chunks). */
static int corrupt(frc_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	say(r, off, "corrupt: %s", what);
	return stop(r, FRC_STATUS_CORRUPT, off);
}

/* ------------------------------------------------------------ recovery */

/*
 * A damaged capture is not given up at its first damage (FORMAT.md 7, step 6): the walk
 * skips to the next intact chunk, found by its descriptor (magic, size, CRC bound to this
 * recording), as zstd's and MCAP's readers resynchronise, and counts what the skipped
 * stretch held: from the footer index when it is valid, else from the descriptors that
 * checked and from the chunk numbers on both sides of it. st.lost sums it up.
 */

/* Remember the first damage: where and what, for the final message. */
static void note_damage(frc_reader *r, uint64_t off, const char *what)
{
	if (r->first_what[0])
		return;
	snprintf(r->first_what, sizeof(r->first_what), "%s", what);
	r->st.damage_offset = off;
	r->first_pos = r->pos;
}

/*
 * Damage, and not one intact chunk read: nothing was recovered. The capture is corrupt,
 * as at its first damage (the message and offsets are those of a reader that stops there).
 */
static int unrecovered(frc_reader *r)
{
	say(r, r->st.damage_offset, "corrupt: %s", r->first_what);
	/* as a reader that stopped there: it skipped nothing (lost is for what was read past) */
	memset(&r->st.lost, 0, sizeof(r->st.lost));
	r->pos = r->first_pos;
	return stop(r, FRC_STATUS_CORRUPT, r->st.damage_offset);
}

/* Add [lo, hi] to the lost time range; one range of bounds makes the whole one bounds. */
static void loss_time(struct frc_reader_loss *l, int kind, uint64_t lo, uint64_t hi)
{
	if (l->time == FRC_LOSS_TIME_NONE) {
		l->min_ktime_ns = lo;
		l->max_ktime_ns = hi;
		l->time = (uint8_t)kind;
		return;
	}
	if (lo < l->min_ktime_ns)
		l->min_ktime_ns = lo;
	if (hi > l->max_ktime_ns)
		l->max_ktime_ns = hi;
	if (kind != FRC_LOSS_TIME_EXACT)
		l->time = FRC_LOSS_TIME_BOUNDS;
}

/* One footer index entry, decoded (FORMAT.md 5). */
struct ientry {
	uint64_t off, records, frames, min, max;
};

/* Consume the next index entry. 1, 0 when malformed (footer_parse makes it rare), <0: I/O. */
static int index_entry(frc_reader *r, struct ientry *e)
{
	uint64_t v[FRC_INDEX_FIELDS];
	int ret;

	for (int k = 0; k < FRC_INDEX_FIELDS; k++)
		if ((ret = win_varint(r, &r->idx, &v[k])) <= 0)
			return ret;
	/* Fields a newer minor added to each entry: skipped (footer_parse checked them). */
	if ((ret = win_varints(r, &r->idx, r->idx_fields - FRC_INDEX_FIELDS, NULL)) <= 0)
		return ret;
	e->off = r->idx_prev_off + v[0];
	e->records = v[1];
	e->frames = v[2];
	e->min = r->idx_prev_min + (uint64_t)frc_unzigzag(v[3]);
	e->max = e->min + v[4];
	r->idx_prev_off = e->off;
	r->idx_prev_min = e->min;
	r->idx_seq++;
	return 1;
}

/* A lost chunk's index entry into the open stretch's count. */
static void pend_entry(frc_reader *r, const struct ientry *e)
{
	r->gap.pend.records += e->records;
	r->gap.pend.frames += e->frames;
	loss_time(&r->gap.pend, FRC_LOSS_TIME_EXACT, e->min, e->max);
}

/* Consume the index entries up to (not including) chunk seq as lost. 1, 0, <0: I/O. */
static int index_skip_to(frc_reader *r, uint64_t seq)
{
	struct ientry e;
	int ret;

	while (r->idx_seq < seq)
		if ((ret = index_entry(r, &e)) <= 0)
			return ret;
		else
			pend_entry(r, &e);
	return 1;
}

/* Open a lost stretch at r->pos, unless one is open. */
static void gap_open(frc_reader *r)
{
	if (r->gap.open)
		return;
	memset(&r->gap, 0, sizeof(r->gap));
	r->gap.open = 1;
	r->gap.start = r->pos;
	r->gap.before = r->has_time ? r->prev_ktime : 0;
	r->gap.desc_next = r->seq;
}

/*
 * Close the open stretch at `at`: it held `chunks` lost chunks (exactly that many, or at
 * least, for a stretch that runs to the end without an index); hi bounds the time of
 * their records from above (the first record after it; UINT64_MAX: none).
 */
static void gap_close(frc_reader *r, uint64_t at, uint64_t chunks, int exact, uint64_t hi)
{
	struct frc_reader_loss *l = &r->st.lost;
	struct gap *g = &r->gap;

	l->regions++;
	l->bytes += at - g->start;
	l->chunks += chunks;
	if (!exact)
		l->chunks_exact = 0;
	if (r->st.index_used) {
		l->records += g->pend.records;
		l->frames += g->pend.frames;
		if (g->pend.time)
			loss_time(l, FRC_LOSS_TIME_EXACT, g->pend.min_ktime_ns,
				  g->pend.max_ktime_ns);
	} else {
		l->records += g->desc_records;
		if (g->desc_chunks < chunks || !exact)
			l->records_exact = 0;
		if (chunks || !exact)
			loss_time(l, FRC_LOSS_TIME_BOUNDS, g->before, hi);
	}
	g->open = 0;
}

/* The footer/index is damaged: the chunks were (are being) found by the scan. */
static void footer_lost(frc_reader *r, uint64_t off)
{
	note_damage(r, off,
		    "the footer/index is damaged (the file ends in its end tag, but the footer "
		    "does not check)");
	r->st.lost.index_lost = 1;
}

/* 1 when the descriptor payload p[0..size) checks and names a chunk not passed yet. */
static int desc_sound(frc_reader *r, const uint8_t *p, uint32_t size)
{
	struct frc_cur c = {.p = p, .len = size - 8};
	uint64_t seq;

	if (!crc_follows_binding(r, frc_get_le32(p + size - 4), frc_crc32c(r->bind, p, size - 4),
				 frc_crc32c(0, p, size - 4)))
		return 0;
	frc_cur_varint(&c, &seq);
	return !c.bad && seq >= r->seq;
}

#define SCAN_BLOCK 4096
#define SCAN_TAIL (8 + FRC_DESC_MAX) /* the most a candidate descriptor frame needs */

/*
 * The offset of the first chunk descriptor frame at or after from (before the end of the
 * chunk area) that desc_sound accepts, in *at: 1; 0 and the end when there is none; <0 on
 * an I/O error. Blocks overlap by SCAN_TAIL so that a candidate is always seen whole.
 */
static int find_desc(frc_reader *r, uint64_t from, uint64_t *at)
{
	uint8_t buf[SCAN_BLOCK];
	uint64_t pos = from, end = r->data_end;

	*at = end;
	while (pos < end && end - pos >= 8 + 12) {
		size_t n = end - pos < SCAN_BLOCK ? (size_t)(end - pos) : SCAN_BLOCK;
		size_t lim = pos + n == end ? n : n - SCAN_TAIL;

		if (read_at(r, pos, buf, n))
			return FRC_EIO;
		for (size_t i = 0; i < lim; i++) {
			const uint8_t *m = memchr(buf + i, FRC_MAGIC_DESC & 0xff, lim - i);
			uint32_t size;

			if (!m)
				break;
			i = (size_t)(m - buf);
			if (n - i < 8 + 12 || frc_get_le32(buf + i) != FRC_MAGIC_DESC)
				continue;
			size = frc_get_le32(buf + i + 4);
			if (size >= 12 && size <= FRC_DESC_MAX && size <= n - i - 8 &&
			    desc_sound(r, buf + i + 8, size)) {
				*at = pos + i;
				return 1;
			}
		}
		pos += lim;
	}
	return 0;
}

static int damage(frc_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The structure at off does not check. Note it, open the lost stretch (from where the last
 * intact structure ended) and go on at the next sound descriptor: past the chunk when its
 * own descriptor checked (its sizes are then trusted), else from the next byte. AGAIN, or
 * <0 on an I/O error.
 */
static int damage(frc_reader *r, uint64_t off, const char *fmt, ...)
{
	char what[300];
	uint64_t next, from = off + 1;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	note_damage(r, off, what);
	gap_open(r);
	if (r->cur.ok) {
		/* A damaged chunk whose descriptor checked: one lost chunk of nrec records. */
		if (r->cur.seq >= r->gap.desc_next) {
			r->gap.desc_chunks++;
			r->gap.desc_records += r->cur.nrec;
			r->gap.desc_next = r->cur.seq + 1;
		}
		from = r->cur.end;
		r->cur.ok = 0;
	}
	ret = find_desc(r, from, &next);
	if (ret < 0)
		return ret;
	r->pos = next;
	return AGAIN;
}

/*
 * A stretch still open at the end of the chunk area: with the index, the chunks it has
 * not listed yet are lost; without one, at least those whose descriptor checked. A stretch
 * that is exactly the footer frame (the file's last 12 bytes point at its start) lost
 * nothing but the index. <0 on an I/O error.
 */
static int gap_close_end(frc_reader *r)
{
	uint64_t chunks = r->gap.desc_chunks;
	int ret;

	if (!r->gap.open)
		return 0;
	if (!r->st.index_used && r->end_tagged && r->tail_size &&
	    r->size - r->tail_size == r->gap.start && !r->gap.desc_chunks) {
		r->gap.open = 0;
		footer_lost(r, r->gap.start);
		return 0;
	}
	if (r->st.index_used) {
		if ((ret = index_skip_to(r, r->idx_chunks)) < 0)
			return ret;
		chunks = r->idx_chunks - r->seq;
	}
	gap_close(r, r->data_end, chunks, r->st.index_used, UINT64_MAX);
	r->seq += chunks;
	return 0;
}

/* "; damage skipped: offset N: WHAT; LOSS" when damage was skipped: a truncation's tail. */
static const char *loss_suffix(const frc_reader *r, char *buf, size_t len)
{
	char text[512];

	if (!r->st.lost.regions && !r->st.lost.index_lost)
		return "";
	frc_reader_loss_text(&r->st, text, sizeof(text));
	snprintf(buf, len, "; damage skipped: offset %llu: %s; %s",
		 (unsigned long long)r->st.damage_offset, r->first_what, text);
	return buf;
}

/* The file was cut at off (the structure there needs more bytes than remain). */
static int truncated_at(frc_reader *r, uint64_t off, const char *what, uint64_t need, uint64_t have)
{
	char suffix[1024];
	int ret = gap_close_end(r);

	if (ret < 0)
		return ret;
	if (r->first_what[0] && !r->st.chunks)
		return unrecovered(r);
	say(r, off, "truncated: %s needs %llu bytes, only %llu remain%s", what,
	    (unsigned long long)need, (unsigned long long)have,
	    loss_suffix(r, suffix, sizeof(suffix)));
	return stop(r, FRC_STATUS_TRUNCATED, off);
}

/*
 * A structure that claims more bytes than remain. Without a valid index this is what a
 * cut file looks like, unless an intact chunk follows (then a size field was damaged);
 * with one, or in a file that ends in the footer's end tag (finished: damaged, not cut),
 * it is damage.
 */
static int short_data(frc_reader *r, uint64_t off, const char *what, uint64_t need)
{
	uint64_t have = r->data_end - off, next;
	int ret;

	if (r->end_tagged && !r->st.index_used)
		return damage(r, off,
			      "%s needs %llu bytes, only %llu remain, yet the file ends in "
			      "a footer (a damaged footer?)",
			      what, (unsigned long long)need, (unsigned long long)have);
	if (r->st.index_used)
		return damage(r, off, "%s needs %llu bytes, only %llu before the index", what,
			      (unsigned long long)need, (unsigned long long)have);
	ret = find_desc(r, off + 1, &next);
	if (ret < 0)
		return ret;
	if (ret)
		return damage(r, off, "%s needs %llu bytes, only %llu remain, yet a chunk follows",
			      what, (unsigned long long)need, (unsigned long long)have);
	return truncated_at(r, off, what, need, have);
}

static int grow(uint8_t **p, size_t *cap, size_t need)
{
	uint8_t *n;

	if (*cap >= need)
		return 0;
	n = realloc(*p, need);
	if (!n)
		return FRC_ENOMEM;
	*p = n;
	*cap = need;
	return 0;
}

struct chunk_sum {
	uint64_t records, frames, unknown, columns, anomalies, ts_columns, bads, min, max;
	uint64_t first; /* the first record's ktime, in file order */
	int has_time;
};

static void sum_time(struct chunk_sum *s, uint64_t t)
{
	if (!s->has_time)
		s->first = t;
	if (!s->has_time || t < s->min)
		s->min = t;
	if (!s->has_time || t > s->max)
		s->max = t;
	s->has_time = 1;
}

/* The entry after a column at c: its type, payload and length; false past the end. */
static bool entry_after(struct frc_cur *c, uint64_t *type, const uint8_t **p, size_t *len)
{
	uint64_t l;

	frc_cur_varint(c, type);
	frc_cur_varint(c, &l);
	*p = frc_cur_bytes(c, l);
	*len = (size_t)l;
	return !c->bad;
}

/*
 * Room in r->run for the run whose payload is p[0..len) after the chunk's first `have`
 * frames: its declared frame count (checked by frc_run_decode; a count it refuses needs no
 * room), so the frames kept are the chunk's own, at most one run more for a damaged chunk.
 */
static int run_room(frc_reader *r, size_t have, const uint8_t *p, size_t len)
{
	uint64_t n = 0;
	size_t need, cap;
	struct frc_run_frame *f;

	if (!frc_varint_decode(p, len, &n) || n == 0 || n > FRC_RUN_MAX)
		n = 1;
	need = have + (size_t)n;
	if (need <= r->run_cap)
		return 0;
	cap = r->run_cap < 512 ? 1024 : 2 * r->run_cap; /* doubling: few reallocs */
	if (cap < need)
		cap = need;
	f = realloc(r->run, cap * sizeof(*f));
	if (!f)
		return FRC_ENOMEM;
	r->run = f;
	r->run_cap = cap;
	return 0;
}

/*
 * A frame run, with the timestamp column (4.7) and the surface column (4.5) that may come
 * before it, in that order: decode and check them all into the chunk's frames (r->run
 * after the s->frames decoded so far), and count the run's frames and the columns' entries.
 */
static int run_check(frc_reader *r, struct frc_cur *c, uint64_t type, const uint8_t *p, size_t len,
		     struct chunk_sum *s, const char **what)
{
	const uint8_t *column = NULL, *ts = NULL;
	size_t column_len = 0, ts_len = 0;
	struct frc_run_frame *f;
	long n;

	if (type == FRC_ENTRY_TIMESTAMPS) {
		ts = p, ts_len = len;
		if (!entry_after(c, &type, &p, &len) ||
		    (type != FRC_FRAME && type != FRC_ENTRY_SURFACES)) {
			*what = "a timestamp column not followed by a frame run";
			return FRC_ECORRUPT;
		}
		s->records++;
		s->ts_columns++;
	}
	if (type == FRC_ENTRY_SURFACES) {
		column = p, column_len = len;
		frc_cur_varint(c, &type);
		frc_cur_varint(c, &len);
		p = frc_cur_bytes(c, len);
		if (c->bad || type != FRC_FRAME) {
			*what = "a surface column not followed by a frame run";
			return FRC_ECORRUPT;
		}
		s->records++;
		s->columns++;
	}
	if (run_room(r, (size_t)s->frames, p, len)) {
		*what = "out of memory";
		return FRC_ENOMEM;
	}
	f = r->run + s->frames;
	n = frc_run_decode(p, len, f, r->run_cap - (size_t)s->frames, what);
	if (n < 0)
		return (int)n;
	if (column && frc_surfaces_apply(column, column_len, f, (size_t)n, what))
		return FRC_ECORRUPT;
	if (ts && frc_timestamps_apply(ts, ts_len, f, (size_t)n, what))
		return FRC_ECORRUPT;
	for (long i = 0; i < n; i++)
		sum_time(s, f[i].ktime);
	s->records += (uint64_t)n;
	s->frames += (uint64_t)n;
	return 0;
}

/*
 * A batch anomaly entry and the drops record that must follow it (FORMAT.md 4.6): decode
 * and check both, and count the entry.
 */
static int anomalies_check(struct frc_cur *c, const uint8_t *p, size_t len, struct chunk_sum *s,
			   const char **what)
{
	struct frc_record rec;
	uint64_t n, type, dlen;
	int ret = frc_anomalies_decode(p, len, &n, what);

	if (ret)
		return ret;
	frc_cur_varint(c, &type);
	frc_cur_varint(c, &dlen);
	p = frc_cur_bytes(c, dlen);
	if (c->bad || type != FRC_DROPS) {
		*what = "a batch anomaly entry not followed by a drops record";
		return FRC_ECORRUPT;
	}
	ret = frc_entry_decode(type, p, dlen, &rec, what);
	if (ret)
		return ret;
	sum_time(s, rec.ktime_ns);
	s->records += 2;
	s->anomalies++;
	return 0;
}

/*
 * A bad buffer entry (FORMAT.md 4.6) and what must follow it: a batch anomaly entry and its
 * drops record, or a drops record. Decode and check them all, and count the entry.
 */
static int bad_buffers_check(struct frc_cur *c, const uint8_t *p, size_t len, struct chunk_sum *s,
			     const char **what)
{
	struct frc_record rec;
	uint64_t n, type, dlen;
	int ret = frc_bad_buffers_decode(p, len, &n, what);

	if (ret)
		return ret;
	frc_cur_varint(c, &type);
	frc_cur_varint(c, &dlen);
	p = frc_cur_bytes(c, dlen);
	if (c->bad || (type != FRC_DROPS && type != FRC_ENTRY_ANOMALIES)) {
		*what = "a bad buffer entry not followed by a drops record";
		return FRC_ECORRUPT;
	}
	s->records++;
	s->bads++;
	if (type == FRC_ENTRY_ANOMALIES)
		return anomalies_check(c, p, (size_t)dlen, s, what);
	ret = frc_entry_decode(type, p, dlen, &rec, what);
	if (ret)
		return ret;
	sum_time(s, rec.ktime_ns);
	s->records++;
	return 0;
}

/*
 * Walk the decompressed body once, checking every entry, before anything is delivered. It
 * stops as soon as the chunk holds more than the nrec records its descriptor declared
 * (at most FRC_CHUNK_RECORDS_MAX), so the work is bounded by the limit, not by rsize.
 */
static int body_check(frc_reader *r, size_t raw_len, uint64_t nrec, struct chunk_sum *s,
		      const char **what)
{
	struct frc_cur c = {.p = r->raw, .len = raw_len};
	struct frc_record rec;

	while (c.pos < c.len) {
		if (s->records >= nrec) {
			*what = "more records than the descriptor declares";
			return FRC_ECORRUPT;
		}
		uint64_t type, len;
		const uint8_t *p;

		frc_cur_varint(&c, &type);
		frc_cur_varint(&c, &len);
		p = frc_cur_bytes(&c, len);
		if (c.bad) {
			*what = "entry header or length past the end of the chunk";
			return FRC_ECORRUPT;
		}
		if (type == FRC_FRAME || type == FRC_ENTRY_SURFACES ||
		    type == FRC_ENTRY_TIMESTAMPS) {
			int ret = run_check(r, &c, type, p, len, s, what);

			if (ret)
				return ret;
		} else if (type == FRC_ENTRY_ANOMALIES || type == FRC_ENTRY_BAD_BUFFERS) {
			int ret = type == FRC_ENTRY_ANOMALIES
				      ? anomalies_check(&c, p, len, s, what)
				      : bad_buffers_check(&c, p, len, s, what);

			if (ret)
				return ret;
		} else if (type <= FRC_TYPE_MAX && frc_type_ops((unsigned)type)) {
			int ret = frc_entry_decode(type, p, len, &rec, what);

			if (ret)
				return ret;
			sum_time(s, rec.ktime_ns);
			s->records++;
		} else {
			s->records++;
			s->unknown++;
		}
	}
	return 0;
}

/*
 * The writer's min/max cover the records whose type it knew. When this reader skipped
 * entries of types it does not know, its own min/max cover fewer records: they must lie
 * within the writer's, not equal them. With no unknown entries they must be equal.
 */
static int times_agree(int has_time, uint64_t min, uint64_t max, uint64_t unknown, uint64_t imin,
		       uint64_t imax)
{
	if (!unknown)
		return has_time ? min == imin && max == imax : imin == 0 && imax == 0;
	return !has_time || (imin <= min && max <= imax);
}

/*
 * Compare a checked chunk with its index entry (the next one). 1: agrees; 0: disagrees, and
 * the entry is counted as the lost chunk's; <0: I/O.
 */
static int index_agrees(frc_reader *r, const struct chunk_sum *s)
{
	struct ientry e;
	int ret = index_entry(r, &e);

	if (ret <= 0)
		return ret;
	if (e.off != r->chunk_off || e.records != s->records || e.frames != s->frames ||
	    !times_agree(s->has_time, s->min, s->max, s->unknown, e.min, e.max)) {
		gap_open(r);
		pend_entry(r, &e);
		return 0;
	}
	return 1;
}

/* The file was read to its end past damage: say what was lost. */
static int recovered(frc_reader *r)
{
	char text[512];

	frc_reader_loss_text(&r->st, text, sizeof(text));
	if (r->st.lost.regions)
		say(r, r->st.damage_offset, "recovered: %s; %s", r->first_what, text);
	else /* the footer alone: the loss says it */
		say(r, r->st.damage_offset, "recovered: %s", text);
	r->pos = r->size;
	return stop(r, FRC_STATUS_RECOVERED, 0);
}

/* The end of the chunk area: decide complete / truncated / recovered / corrupt. */
static int at_data_end(frc_reader *r)
{
	int same =
	    r->st.chunks == r->idx_chunks &&
	    r->st.records + r->st.unknown + r->columns + r->anomalies + r->ts_columns + r->bads ==
		r->idx_records &&
	    r->columns == r->idx_by_type[FRC_ENTRY_SURFACES] &&
	    r->anomalies == r->idx_by_type[FRC_ENTRY_ANOMALIES] &&
	    r->ts_columns == r->idx_by_type[FRC_ENTRY_TIMESTAMPS] &&
	    r->bads == r->idx_by_type[FRC_ENTRY_BAD_BUFFERS];
	char suffix[1024];
	int ret = gap_close_end(r);

	if (ret < 0)
		return ret;
	/* Finished (it ends in the end tag), but the footer did not check in step 2. */
	if (!r->st.index_used && r->end_tagged)
		footer_lost(r, r->tail_size ? r->size - r->tail_size : r->pos);
	if (r->first_what[0] && !r->st.chunks)
		return unrecovered(r);
	/* No footer at all (a footer frame met by the walk counts, its end tag damaged). */
	if (!r->st.index_used && !r->end_tagged && !r->st.lost.index_lost) {
		say(r, r->pos, "truncated: no footer/index (the recorder did not finish)%s",
		    loss_suffix(r, suffix, sizeof(suffix)));
		return stop(r, FRC_STATUS_TRUNCATED, 0);
	}
	if (r->st.lost.regions || r->st.lost.index_lost)
		return recovered(r);
	/* idx_by_type holds 0 for the types the footer does not list (footer_parse). */
	for (int t = 1; t <= FRC_TYPE_MAX; t++)
		if (frc_type_ops((unsigned)t)) /* 7, 8: compared above */
			same = same && r->st.by_type[t] == r->idx_by_type[t];
	same = same && times_agree(r->has_time, r->st.first_ktime_ns, r->st.last_ktime_ns,
				   r->st.unknown, r->idx_min, r->idx_max);
	if (!same)
		return corrupt(r, r->data_end, "the index totals disagree with the chunks");
	r->msg[0] = 0;
	r->pos = r->size;
	return stop(r, FRC_STATUS_COMPLETE, 0);
}

/* A chunk descriptor's fields (FORMAT.md 4.1). */
struct chunk_desc {
	uint64_t seq, csize, rsize, nrec;
	uint32_t data_crc;
};

/*
 * Read and check the descriptor payload (dsize bytes) at off: its CRC bound to the
 * header, its fields, the limits. 1 when it is sound; else what chunk_load returns: AGAIN
 * (the walk skips the damage, damage()) or FRC_EIO.
 */
static int desc_load(frc_reader *r, uint64_t off, uint32_t dsize, struct chunk_desc *cd)
{
	uint8_t d[FRC_DESC_MAX];
	struct frc_cur c = {.p = d, .len = dsize - 8};
	unsigned long long chunk = (unsigned long long)r->seq;

	if (read_at(r, off + 8, d, dsize))
		return FRC_EIO;
	if (!crc_follows_binding(r, frc_get_le32(d + dsize - 4), frc_crc32c(r->bind, d, dsize - 4),
				 frc_crc32c(0, d, dsize - 4)))
		return damage(r, off,
			      "chunk %llu: descriptor checksum mismatch (damaged, or from another "
			      "recording than the header)",
			      chunk);
	frc_cur_varint(&c, &cd->seq);
	frc_cur_varint(&c, &cd->csize);
	frc_cur_varint(&c, &cd->rsize);
	frc_cur_varint(&c, &cd->nrec);
	cd->data_crc = frc_get_le32(d + dsize - 8);
	if (c.bad || c.pos != c.len)
		return damage(r, off, "chunk %llu: malformed descriptor", chunk);
	/* A later number: the chunks between are lost (chunk_accept); an earlier one is no
	 * chunk of this place. The bound keeps the count of chunks from overflowing. */
	if (cd->seq < r->seq || cd->seq >= UINT64_MAX / 2)
		return damage(r, off, "chunk %llu: descriptor says chunk %llu", chunk,
			      (unsigned long long)cd->seq);
	if (cd->nrec > FRC_CHUNK_RECORDS_MAX)
		return damage(r, off,
			      "chunk %llu: %llu records, more than the limit of %d per chunk",
			      chunk, (unsigned long long)cd->nrec, FRC_CHUNK_RECORDS_MAX);
	if (cd->rsize == 0 || cd->rsize > FRC_CHUNK_RAW_MAX || cd->nrec == 0 || cd->csize < 9 ||
	    cd->csize > ZSTD_compressBound((size_t)cd->rsize))
		return damage(r, off, "chunk %llu: implausible sizes (%llu compressed, %llu raw)",
			      chunk, (unsigned long long)cd->csize, (unsigned long long)cd->rsize);
	return 1;
}

/*
 * The chunk at off (descriptor cd, body checked: s) is intact. With the index, the entries
 * of the chunks lost before it are consumed and its own must agree. A lost stretch before
 * it, or a jump in the chunk numbers, is closed and counted. 1, AGAIN (damage), <0: I/O.
 */
static int chunk_accept(frc_reader *r, uint64_t off, const struct chunk_desc *cd,
			const struct chunk_sum *s)
{
	uint64_t lost = cd->seq - r->seq;
	int ret;

	r->chunk_off = off;
	if (lost && !r->gap.open) {
		/* No damaged byte, but chunks are missing: their stretch is empty. */
		char what[128];

		snprintf(what, sizeof(what), "chunk %llu: missing (the next one is chunk %llu)",
			 (unsigned long long)r->seq, (unsigned long long)cd->seq);
		note_damage(r, off, what);
		gap_open(r);
	}
	if (r->st.index_used) {
		if (cd->seq >= r->idx_chunks || r->idx_seq > cd->seq)
			return damage(r, off, "chunk %llu: not in the index",
				      (unsigned long long)cd->seq);
		if ((ret = index_skip_to(r, cd->seq)) > 0)
			ret = index_agrees(r, s);
		if (ret < 0)
			return ret;
		if (!ret)
			return damage(r, off, "chunk %llu: the index disagrees with it",
				      (unsigned long long)cd->seq);
	}
	if (r->gap.open)
		gap_close(r, off, lost, 1, s->has_time ? s->first : UINT64_MAX);
	r->seq = cd->seq + 1;
	return 1;
}

/*
 * Read, verify and decompress the chunk whose descriptor payload (dsize bytes) is at off.
 * 1: loaded; AGAIN: damaged (skipped); 0: the file ends inside it (status set); <0: error.
 */
static int chunk_load(frc_reader *r, uint64_t off, uint32_t dsize)
{
	struct chunk_desc cd;
	struct chunk_sum s = {0};
	const char *what = "";
	uint64_t seq, csize, rsize, nrec, zoff = off + 8 + dsize;
	size_t got;
	int ret = desc_load(r, off, dsize, &cd);

	if (ret != 1)
		return ret;
	seq = cd.seq, csize = cd.csize, rsize = cd.rsize, nrec = cd.nrec;
	if (csize > r->data_end - zoff)
		return short_data(r, off, "chunk", 8 + dsize + csize);
	r->cur = (struct cur_desc){1, seq, nrec, zoff + csize};
	if (grow(&r->cbuf, &r->ccap, (size_t)csize))
		return FRC_ENOMEM;
	if (read_at(r, zoff, r->cbuf, (size_t)csize))
		return FRC_EIO;
	if (frc_crc32c(0, r->cbuf, (size_t)csize) != cd.data_crc)
		return damage(r, zoff, "chunk %llu: data checksum mismatch",
			      (unsigned long long)seq);
	if (frc_get_le32(r->cbuf) != FRC_MAGIC_ZSTD ||
	    ZSTD_getFrameContentSize(r->cbuf, (size_t)csize) != rsize ||
	    ZSTD_findFrameCompressedSize(r->cbuf, (size_t)csize) != csize)
		return damage(r, zoff, "chunk %llu: zstd frame disagrees with its descriptor",
			      (unsigned long long)seq);
	/* Only now, with the bytes verified, is the declared raw size worth allocating. */
	if (grow(&r->raw, &r->rcap, (size_t)rsize))
		return FRC_ENOMEM;
	got = ZSTD_decompressDCtx(r->dctx, r->raw, (size_t)rsize, r->cbuf, (size_t)csize);
	if (ZSTD_isError(got) || got != rsize)
		return damage(r, zoff, "chunk %llu: zstd: %s", (unsigned long long)seq,
			      ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
	ret = body_check(r, (size_t)rsize, nrec, &s, &what);
	if (ret == FRC_ENOMEM)
		return ret;
	if (ret)
		return damage(r, zoff, "chunk %llu: %s", (unsigned long long)seq, what);
	if (s.records != nrec)
		return damage(r, off, "chunk %llu: %llu records, descriptor says %llu",
			      (unsigned long long)seq, (unsigned long long)s.records,
			      (unsigned long long)nrec);
	if ((ret = chunk_accept(r, off, &cd, &s)) != 1)
		return ret;
	/*
	 * Only now is the body handed to frc_reader_next: set earlier, a chunk rejected above
	 * would be walked by a caller that calls it again after it returned 0.
	 */
	r->cur.ok = 0;
	r->raw_len = (size_t)rsize;
	r->raw_pos = 0;
	r->frame_pos = r->run_end = 0;
	r->pos = zoff + csize;
	r->st.chunks++;
	r->columns += s.columns;
	r->anomalies += s.anomalies;
	r->ts_columns += s.ts_columns;
	r->bads += s.bads;
	return 1;
}

/*
 * A footer frame met by the walk (the footer was not accepted in step 2). One that ends
 * where the chunk area does is the damaged footer; elsewhere it is damage.
 */
static int footer_frame(frc_reader *r, uint64_t off, uint32_t size)
{
	if (size > r->data_end - off - 8)
		return short_data(r, off, "footer", 8 + (uint64_t)size);
	if (!r->st.index_used && off + 8 + size == r->data_end) {
		footer_lost(r, off);
		r->pos = r->data_end;
		return AGAIN;
	}
	return damage(r, off, "footer/index damaged or followed by extra bytes");
}

/* The frame at r->pos: 1: a chunk is loaded; 0: the end (status set); AGAIN; <0: error. */
static int frame_next(frc_reader *r)
{
	uint64_t off = r->pos, left = r->data_end - off;
	uint8_t h[8];
	uint32_t magic, size;

	r->cur.ok = 0;
	if (left == 0)
		return at_data_end(r);
	if (left < 8) {
		if (read_at(r, off, h, (size_t)left))
			return FRC_EIO;
		magic = left >= 4 ? frc_get_le32(h) : FRC_MAGIC_DESC;
		if ((magic & FRC_MAGIC_SKIP_MASK) != FRC_MAGIC_SKIP_BASE && magic != FRC_MAGIC_ZSTD)
			return damage(r, off, "unknown frame magic 0x%08x", magic);
		return short_data(r, off, "frame header", 8);
	}
	if (read_at(r, off, h, 8))
		return FRC_EIO;
	magic = frc_get_le32(h);
	size = frc_get_le32(h + 4);
	if (magic == FRC_MAGIC_DESC) {
		if (size < 12 || size > FRC_DESC_MAX)
			return damage(r, off, "chunk descriptor size %u outside [12, %d]", size,
				      FRC_DESC_MAX);
		if (size > left - 8)
			return short_data(r, off, "chunk descriptor", 8 + (uint64_t)size);
		return chunk_load(r, off, size);
	}
	if (magic == FRC_MAGIC_FOOTER)
		return footer_frame(r, off, size);
	if (magic == FRC_MAGIC_HEADER)
		return damage(r, off, "a second header frame");
	if (magic == FRC_MAGIC_ZSTD)
		return damage(r, off, "zstd frame without a chunk descriptor");
	if ((magic & FRC_MAGIC_SKIP_MASK) != FRC_MAGIC_SKIP_BASE)
		return damage(r, off, "unknown frame magic 0x%08x", magic);
	if (size > left - 8)
		return short_data(r, off, "skippable frame", 8 + (uint64_t)size);
	r->pos = off + 8 + size;
	return AGAIN;
}

/*
 * Advance to the next chunk. 1: a chunk is loaded; 0: the end (status set); <0: error.
 * Unknown skippable frames are skipped: a later minor version may add some. Damage is
 * skipped too (frame_next, damage()): the walk goes on at the next intact chunk.
 */
static int chunk_next(frc_reader *r)
{
	int ret;

	while ((ret = frame_next(r)) == AGAIN)
		if (r->done)
			return 0;
	return ret;
}

static inline void deliver_time(frc_reader *r, unsigned type, uint64_t t)
{
	/* File order is kept (what the live pipeline saw); a step back in time is counted. */
	if (r->has_time && t < r->prev_ktime)
		r->st.out_of_order++;
	r->prev_ktime = t;
	if (!r->has_time || t < r->st.first_ktime_ns)
		r->st.first_ktime_ns = t;
	if (!r->has_time || t > r->st.last_ktime_ns)
		r->st.last_ktime_ns = t;
	r->has_time = 1;
	r->st.records++;
	r->st.by_type[type]++;
}

/*
 * The next entry of the checked body: a frame run makes its frames (decoded by the check)
 * the next to deliver; a record is decoded into *rec (1); a batch anomaly entry is kept
 * for the drops record that follows it; unknown entries and surface and timestamp columns
 * (already applied) are stepped over (0).
 */
static int body_next(frc_reader *r, struct frc_record *rec)
{
	/* body_check() accepted this chunk: these reads cannot fail. */
	struct frc_cur c = {.p = r->raw, .len = r->raw_len, .pos = r->raw_pos};
	uint64_t type, len, n;
	const uint8_t *p;
	const char *what;

	frc_cur_varint(&c, &type);
	frc_cur_varint(&c, &len);
	p = frc_cur_bytes(&c, len);
	r->raw_pos = c.pos;
	if (type == FRC_FRAME) {
		frc_varint_decode(p, len, &n); /* the run's frame count, its first field */
		r->run_end = r->frame_pos + n;
		return 0;
	}
	if (type == FRC_ENTRY_SURFACES || type == FRC_ENTRY_TIMESTAMPS)
		return 0; /* applied to the run's frames by body_check */
	if (type == FRC_ENTRY_ANOMALIES) {
		/* The drops record that follows it (body_check made sure) gets it. */
		if (frc_anomalies_decode(p, len, &r->batch_anomalies, &what))
			return FRC_ECORRUPT;
		return 0;
	}
	if (type == FRC_ENTRY_BAD_BUFFERS) /* likewise */
		return frc_bad_buffers_decode(p, len, &r->bad_buffers, &what) ? FRC_ECORRUPT : 0;
	if (type <= FRC_TYPE_MAX && frc_type_ops((unsigned)type)) {
		if (frc_entry_decode(type, p, len, rec, &what))
			return FRC_ECORRUPT;
		if (type == FRC_DROPS) {
			rec->u.drops.batch_anomalies = r->batch_anomalies;
			rec->u.drops.bad_buffers = r->bad_buffers;
			r->batch_anomalies = r->bad_buffers = 0;
		}
		deliver_time(r, rec->type, rec->ktime_ns);
		return 1;
	}
	r->st.unknown++;
	return 0;
}

/* frc_reader_next past the frames of the current run: entries, then the next chunk. */
__attribute__((noinline)) static int next_entry(frc_reader *r, struct frc_record *rec)
{
	for (;;) {
		if (r->frame_pos < r->run_end)
			return 0;
		if (r->raw_pos < r->raw_len) {
			int ret = body_next(r, rec);

			if (ret)
				return ret;
			continue;
		}
		if (r->done)
			return 0;
		int ret = chunk_next(r);

		if (ret <= 0)
			return ret;
	}
}

/*
 * Split so that a frame, nearly every record, costs no more than its copy: the rest
 * (entries, chunk loading, with their large stack frame) is in next_entry, not inlined.
 */
int frc_reader_next(frc_reader *r, struct frc_record *rec)
{
	if (r->frame_pos == r->run_end) {
		int ret = next_entry(r, rec);

		if (ret || r->frame_pos == r->run_end)
			return ret;
	}
	const struct frc_run_frame *f = &r->run[r->frame_pos++];

	frc_record_clear(rec);
	rec->type = FRC_FRAME;
	rec->ktime_ns = f->ktime;
	rec->u.frame.pid = f->pid;
	rec->u.frame.tid = f->tid;
	rec->u.frame.buffer = f->buffer;
	rec->u.frame.surface = f->surface;
	rec->u.frame.has_timestamp = f->has_timestamp;
	rec->u.frame.timestamp = f->timestamp;
	r->st.timestamped += f->has_timestamp;
	deliver_time(r, FRC_FRAME, f->ktime);
	return 1;
}

/* ------------------------------------------------------------ open / close */

static int reader_new(frc_reader **out, const char *path)
{
	frc_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return FRC_ENOMEM;
	r->fd = -1;
	r->path = strdup(path ? path : "(capture)");
	r->dctx = ZSTD_createDCtx();
	if (!r->path || !r->dctx) {
		frc_reader_close(r);
		return FRC_ENOMEM;
	}
	*out = r;
	return 0;
}

static int reader_start(frc_reader *r)
{
	int ret;

	r->st.file_size = r->size;
	ret = header_read(r);
	if (ret)
		return ret;
	r->data_end = r->size;
	if (r->size - r->pos >= 4) {
		uint8_t tag[4];

		if (read_direct(r, r->size - 4, tag, 4))
			return FRC_EIO;
		r->end_tagged = !memcmp(tag, FRC_TAG_END, 4);
	}
	if (r->end_tagged && r->size - r->pos >= FRC_FOOTER_TAIL) {
		uint8_t sz[4];

		/* Where the footer starts, by the tail: recovery tells a damaged one by it. */
		if (read_direct(r, r->size - 8, sz, 4))
			return FRC_EIO;
		r->tail_size = frc_get_le32(sz);
		if (r->tail_size < FOOTER_MIN || r->tail_size > r->size - r->pos)
			r->tail_size = 0;
	}
	ret = footer_check(r);
	if (ret < 0)
		return ret;
	if (!ret) {
		r->data_end = r->size;
		r->st.index_used = 0;
	}
	r->st.status = FRC_STATUS_TRUNCATED; /* until the end says otherwise */
	r->st.lost.chunks_exact = r->st.lost.records_exact = 1;
	r->st.lost.frames_known = (uint8_t)r->st.index_used;
	return 0;
}

int frc_reader_open(frc_reader **out, const char *path)
{
	struct stat sb;
	frc_reader *r;
	int ret = reader_new(out, path);

	if (ret)
		return ret;
	r = *out;
	/*
	 * O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever before the
	 * fstat below could refuse it. It changes nothing for the regular files we read.
	 */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		snprintf(r->msg, sizeof(r->msg), "%s: %s", r->path, strerror(errno));
		return FRC_EIO;
	}
	if (fstat(r->fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(r->msg, sizeof(r->msg), "%s: not a regular file", r->path);
		return FRC_EIO;
	}
	r->ra = malloc(RA_SIZE);
	if (!r->ra)
		return FRC_ENOMEM;
	r->size = (uint64_t)sb.st_size;
	return reader_start(r);
}

int frc_reader_open_mem(frc_reader **out, const void *data, size_t size, const char *name)
{
	static const uint8_t empty[1];
	int ret = reader_new(out, name);

	if (ret)
		return ret;
	(*out)->mem = data ? data : empty;
	(*out)->size = size;
	return reader_start(*out);
}

size_t frc_reader_meta_count(const frc_reader *r)
{
	return r->n_meta;
}

const struct frc_meta *frc_reader_meta(const frc_reader *r, size_t i)
{
	return i < r->n_meta ? &r->meta[i] : NULL;
}

const char *frc_reader_meta_get(const frc_reader *r, const char *key)
{
	for (size_t i = 0; i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

void frc_reader_version(const frc_reader *r, unsigned *major, unsigned *minor)
{
	*major = r->major;
	*minor = r->minor;
}

void frc_reader_stats(const frc_reader *r, struct frc_reader_stats *st)
{
	*st = r->st;
}

/* The lost records' time range as words ("ktime A .. B ns", "before ktime B ns", ...). */
static void loss_time_text(const struct frc_reader_loss *l, char *buf, size_t len)
{
	unsigned long long lo = l->min_ktime_ns, hi = l->max_ktime_ns;

	if (l->time == FRC_LOSS_TIME_EXACT)
		snprintf(buf, len, "ktime %llu .. %llu ns", lo, hi);
	else if (l->time == FRC_LOSS_TIME_NONE || (lo == 0 && hi == UINT64_MAX))
		snprintf(buf, len, "time unknown");
	else if (lo == 0)
		snprintf(buf, len, "before ktime %llu ns", hi);
	else if (hi == UINT64_MAX)
		snprintf(buf, len, "after ktime %llu ns", lo);
	else
		snprintf(buf, len, "between ktime %llu and %llu ns", lo, hi);
}

int frc_reader_loss_text(const struct frc_reader_stats *st, char *buf, size_t len)
{
	const struct frc_reader_loss *l = &st->lost;
	const char *least = l->chunks_exact ? "" : "at least ";
	char count[48];
	const char *index = l->index_lost ? "; the footer/index is damaged (the chunks were "
					    "found by a scan)"
					  : "";
	char what[200] = "", when[96], frames[48] = "", recs[48];

	if (!l->regions)
		return snprintf(buf, len, "%s",
				l->index_lost
				    ? "the footer/index is damaged; every chunk was found by a "
				      "scan, none damaged"
				    : "nothing lost");
	if (l->frames_known)
		snprintf(frames, sizeof(frames), ", %llu frames", (unsigned long long)l->frames);
	loss_time_text(l, when, sizeof(when));
	if (l->records_exact || l->records)
		snprintf(recs, sizeof(recs), "%s%llu records", l->records_exact ? "" : "at least ",
			 (unsigned long long)l->records);
	else
		snprintf(recs, sizeof(recs), "records unknown");
	if (l->chunks || !l->chunks_exact)
		snprintf(what, sizeof(what), " (%s%s; %s)", recs, frames, when);
	if (!l->chunks && !l->chunks_exact)
		least = "an unknown number of chunks", count[0] = 0;
	else
		snprintf(count, sizeof(count), "%llu chunk%s", (unsigned long long)l->chunks,
			 l->chunks == 1 ? "" : "s");
	return snprintf(buf, len, "lost %s%s%s in %llu damaged stretch%s of %llu bytes%s", least,
			count, what, (unsigned long long)l->regions, l->regions == 1 ? "" : "es",
			(unsigned long long)l->bytes, index);
}

const char *frc_reader_error(const frc_reader *r)
{
	return r ? r->msg : "";
}

void frc_reader_close(frc_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->ra);
	free(r->run);
	free(r->raw);
	free(r->cbuf);
	free(r->meta_store);
	free(r->meta);
	free(r->header);
	free(r->path);
	free(r);
}
