/* SPDX-License-Identifier: MIT */
/*
 * frc_error.h - the project's one error convention, in one header (frc.h states it).
 *
 * Inside libraries and engines (format, heuristics, the recorder's modules, the analyzer's
 * engines and sinks) a function that can fail returns 0 on success, or a negative code:
 * -errno, or one of the FRC_E* codes below. The FRC_E* codes lie below -FRC_ERRNO_MAX, so
 * neither can be taken for the other where both meet (frc_is_error_code), and frc_strerror
 * names either. Exit codes exist only at the command layer (framerec's and frameanalyze's
 * commands), which turns a code into one.
 *
 * No I/O and nothing to link for the macros and the inline function: the heuristics, which
 * do not link the format library, include it for FRC_MUST_USE. frc_strerror is in
 * libfrc_format.
 */
#ifndef FRC_ERROR_H
#define FRC_ERROR_H

/*
 * The project's one "must use" marker: every function of ours that can fail returns a
 * code the caller may not drop (format, heuristics, recorder and analyzer alike).
 */
#if defined(__GNUC__)
#define FRC_MUST_USE __attribute__((warn_unused_result))
#else
#define FRC_MUST_USE
#endif

/* Linux's largest errno (MAX_ERRNO); FRC_E* codes lie below its negation. */
#define FRC_ERRNO_MAX 4095

enum frc_error {
	FRC_OK = 0,
	FRC_EIO = -4097,	 /* read/write/fsync failed (errno kept in the message) */
	FRC_ENOMEM = -4098,	 /* allocation failed */
	FRC_EINVAL = -4099,	 /* bad argument: a record or metadata the format cannot hold */
	FRC_ENOTCAPTURE = -4100, /* the file does not start with an .frc header */
	FRC_EVERSION = -4101,	 /* a major version this reader does not know */
	FRC_ECORRUPT = -4102,	 /* structure or checksum error */
	FRC_ETRUNCATED = -4103,	 /* the file ends before its structure does */
};

/* True for an FRC_E* code (not a -errno). */
static inline int frc_is_error_code(int err)
{
	return err < -FRC_ERRNO_MAX;
}

/* A static English description of an FRC_E* code or of a -errno (libfrc_format). */
const char *frc_strerror(int err);

#endif /* FRC_ERROR_H */
