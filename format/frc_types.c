/* SPDX-License-Identifier: MIT */
/*
 * frc_types.c - the record type table: one row per type with its name (the text keyword)
 * and its validation, binary encoding and decoding, and text printing and parsing.
 *
 * Every part of the library and of the programs that names or dispatches on a type by
 * name goes through this table (frc_type_ops, frc_type_name), so adding a type is a row
 * here, its functions, FORMAT.md and the tests. Types are never renumbered (frc_record.h).
 */
#include <stddef.h>

#include "frc_internal.h"

static const struct frc_type_ops types[FRC_TYPE_MAX + 1] = {
    [FRC_FRAME] = {.type = FRC_FRAME,
		   .name = "frame",
		   /* encode/decode: columnar frame runs (frc_run_encode, FORMAT.md 4.4) */
		   .print = frc_frame_print,
		   .parse = frc_frame_parse},
    [FRC_SYSFS] = {.type = FRC_SYSFS,
		   .name = "sysfs",
		   .check = frc_sysfs_check,
		   .encode = frc_sysfs_encode,
		   .decode = frc_sysfs_decode,
		   .print = frc_sysfs_print,
		   .parse = frc_sysfs_parse},
    [FRC_DROPS] = {.type = FRC_DROPS,
		   .name = "drops",
		   .encode = frc_drops_encode,
		   .decode = frc_drops_decode,
		   .print = frc_drops_print,
		   .parse = frc_drops_parse},
    [FRC_ATTACH] = {.type = FRC_ATTACH,
		    .name = "attach",
		    .check = frc_attach_check,
		    .encode = frc_attach_encode,
		    .decode = frc_attach_decode,
		    .print = frc_attach_print,
		    .parse = frc_attach_parse},
    [FRC_EXIT] = {.type = FRC_EXIT,
		  .name = "exit",
		  .encode = frc_exit_encode,
		  .decode = frc_exit_decode,
		  .print = frc_exit_print,
		  .parse = frc_exit_parse},
    [FRC_TICK] = {.type = FRC_TICK,
		  .name = "tick",
		  .check = frc_tick_check,
		  .encode = frc_tick_encode,
		  .decode = frc_tick_decode,
		  .print = frc_tick_print,
		  .parse = frc_tick_parse},
    /* 7, 8 (and 10, 17): entries without a record of their own (frc_internal.h FRC_ENTRY_*) */
    [FRC_LAYER] = {.type = FRC_LAYER,
		   .name = "layer",
		   .check = frc_layer_check,
		   .encode = frc_layer_encode,
		   .decode = frc_layer_decode,
		   .print = frc_layer_print,
		   .parse = frc_layer_parse},
    [FRC_PRESENT] = {.type = FRC_PRESENT,
		     .name = "present",
		     .encode = frc_present_encode,
		     .decode = frc_present_decode,
		     .print = frc_present_print,
		     .parse = frc_present_parse},
    [FRC_VSYNC] = {.type = FRC_VSYNC,
		   .name = "vsync",
		   .encode = frc_vsync_encode,
		   .decode = frc_vsync_decode,
		   .print = frc_vsync_print,
		   .parse = frc_vsync_parse},
    [FRC_PRESENT_GAP] = {.type = FRC_PRESENT_GAP,
			 .name = "present_gap",
			 .encode = frc_gap_encode,
			 .decode = frc_gap_decode,
			 .print = frc_gap_print,
			 .parse = frc_gap_parse},
    [FRC_THREAD] = {.type = FRC_THREAD,
		    .name = "thread",
		    .check = frc_thread_check,
		    .encode = frc_thread_encode,
		    .decode = frc_thread_decode,
		    .print = frc_thread_print,
		    .parse = frc_thread_parse},
    [FRC_BUFFER] = {.type = FRC_BUFFER,
		    .name = "buffer",
		    .encode = frc_buffer_encode,
		    .decode = frc_buffer_decode,
		    .print = frc_buffer_print,
		    .parse = frc_buffer_parse},
    [FRC_CONNECT] = {.type = FRC_CONNECT,
		     .name = "connect",
		     .encode = frc_connect_encode,
		     .decode = frc_connect_decode,
		     .print = frc_connect_print,
		     .parse = frc_connect_parse,
		     .alias = "disconnect",
		     .alias_of = frc_connect_is_disconnect},
    [FRC_POLL] = {.type = FRC_POLL,
		  .name = "poll",
		  .check = frc_poll_check,
		  .encode = frc_poll_encode,
		  .decode = frc_poll_decode,
		  .print = frc_poll_print,
		  .parse = frc_poll_parse},
};

const struct frc_type_ops *frc_type_ops(unsigned type)
{
	return type >= 1 && type <= FRC_TYPE_MAX && types[type].name ? &types[type] : NULL;
}

bool frc_type_listed(unsigned type, uint64_t count)
{
	return frc_type_ops(type) && (type <= FRC_TYPE_BASE_MAX || count > 0);
}

const char *frc_type_name(unsigned type)
{
	const struct frc_type_ops *t = frc_type_ops(type);

	return t ? t->name : NULL;
}
