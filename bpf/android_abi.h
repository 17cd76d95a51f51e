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
 * A single-buffer queue's timestamp is no argument: it is the Surface member mTimestamp
 * (Surface.cpp, checked at android-11 .. 15, lineage-18.1 .. 22.0: queueBuffer passes
 * mTimestamp to getQueueBufferInputLocked, which takes systemTime() when it is AUTO).
 * Only the constructor (AUTO) and Surface::setBuffersTimestamp(int64_t) write it, never a
 * queue, connect or disconnect: native_window_set_buffers_timestamp -> hook_perform ->
 * perform -> dispatchSetBuffersTimestamp -> setBuffersTimestamp, a virtual member
 * (x0/rdi = Surface* this, x1/rsi = the int64_t), mangled
 * _ZN7android7Surface19setBuffersTimestampEl on LP64 (int64_t is long). The probe keeps
 * the last value set per Surface instead of reading the member, whose offset no header
 * gives.
 */
#define FRAMEREC_STAMP_SYMBOL "_ZN7android7Surface19setBuffersTimestampEl"

/*
 * Surface::BatchQueuedBuffer (AOSP 12..16 and later, unchanged): { ANativeWindowBuffer*
 * buffer @0; int fenceFd @8; nsecs_t timestamp @16 }, 24 bytes, in a libc++ std::vector
 * { begin @0, end @8, end_cap @16 }.
 */
#define FRAMEREC_BATCH_ELEM 24
#define FRAMEREC_BATCH_BUFFER 0
#define FRAMEREC_BATCH_TIMESTAMP 16

/*
 * ANativeWindowBuffer (AOSP nativebase.h, frozen since the NDK published it; LP64):
 * android_native_base_t common { int magic @0; int version @4; void* reserved[4] @8;
 * incRef @40; decRef @48 } (56 bytes), then int width @56, height @60, stride @64,
 * format @68, usage_deprecated @72, uintptr_t layerCount @80, reserved[1] @88, handle @96,
 * uint64_t usage @104. A probe reads the first FRAMEREC_BUFFER_HEADER bytes at once and
 * trusts the geometry only when magic is ANDROID_NATIVE_BUFFER_MAGIC
 * (('_'<<24)|('b'<<16)|('f'<<8)|'r'). tests/standin/surface.h asserts every offset.
 */
#define FRAMEREC_BUFFER_MAGIC 0x5f626672
#define FRAMEREC_BUFFER_WIDTH 56
#define FRAMEREC_BUFFER_HEIGHT 60
#define FRAMEREC_BUFFER_STRIDE 64
#define FRAMEREC_BUFFER_FORMAT 68
#define FRAMEREC_BUFFER_USAGE 104
#define FRAMEREC_BUFFER_HEADER 112

/*
 * system/window.h: NATIVE_WINDOW_API_EGL 1 (what EGL and Vulkan's swapchain connect as),
 * CPU 2, MEDIA 3, CAMERA 4. Surface::connect / disconnect take one as their first argument.
 */
#define FRAMEREC_API_EGL 1

#endif /* ANDROID_ABI_H */
