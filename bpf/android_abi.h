/* SPDX-License-Identifier: MIT */
/*
 * android_abi.h - the facts of Android's ABI that framerec's probe depends on, as plain
 * macros (no include, so the BPF program, framerec and the stand-in libgui.so, which checks
 * them against its model of the AOSP classes with static_assert, all read this one copy).
 *
 * LP64 only (arm64 and x86-64): framerec records 64-bit processes.
 */
#ifndef ANDROID_ABI_H
#define ANDROID_ABI_H

/*
 * Where the ANativeWindow / ANativeWindowBuffer base lies in a Surface / GraphicBuffer
 * (AOSP 11..16, libs/gui/include/gui/Surface.h, libs/ui/include/ui/GraphicBuffer.h):
 * both are ANativeObjectBase<NATIVE_TYPE, TYPE, RefBase>, which derives from the plain C
 * struct NATIVE_TYPE and from the polymorphic RefBase (vptr + mRefs: 16 bytes). The
 * Itanium C++ ABI makes the first dynamic base the primary base, at offset 0, and puts the
 * C struct after it, so ANativeWindow* = Surface* + 16 and ANativeWindowBuffer* =
 * GraphicBuffer* + 16. Member functions receive `this` (a Surface*), the sp<GraphicBuffer>
 * overloads a GraphicBuffer*; the static hooks receive the native pointers, the ones
 * framerec records. tests/standin/surface.h models that hierarchy and asserts this value.
 */
#define FRAMEREC_NATIVE_BASE_OFFSET 16

/*
 * NATIVE_WINDOW_TIMESTAMP_AUTO (AOSP system/window.h, INT64_MIN): "no timestamp, Surface
 * takes the queue time". A BatchQueuedBuffer holds it unless the app set a timestamp.
 */
#define FRAMEREC_TIMESTAMP_AUTO (-0x7fffffffffffffffLL - 1)

/*
 * Surface::BatchQueuedBuffer (AOSP 12..16 and later, unchanged): { ANativeWindowBuffer*
 * buffer @0; int fenceFd @8; nsecs_t timestamp @16 }, 24 bytes, in a libc++ std::vector
 * { begin @0, end @8, end_cap @16 }.
 */
#define FRAMEREC_BATCH_ELEM 24
#define FRAMEREC_BATCH_BUFFER 0
#define FRAMEREC_BATCH_TIMESTAMP 16

#endif /* ANDROID_ABI_H */
