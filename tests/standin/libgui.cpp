/* SPDX-License-Identifier: MIT */
/*
 * libgui.cpp - a Linux libgui.so stand-in exporting Surface::queueBuffer and its siblings,
 * and the batch path Surface::queueBuffers under its Android (libc++) mangled name.
 *
 * Each function is noinline and does a little work the compiler must keep (an atomic add
 * and a store to exported globals), so it has a real entry point for a uprobe to trap on
 * and a call from the game really reaches it. All return 0 (OK), as the real ones do.
 */
#include "surface.h"

/* Exported so the work below is observable and cannot be optimised away. */
extern "C" {
__attribute__((visibility("default"))) unsigned long long standin_queued;
__attribute__((visibility("default"))) const void *standin_last_buffer;
}

#define STANDIN_EXPORT __attribute__((noinline, used, visibility("default")))

/* The shared body: count the call and remember the buffer. */
static inline int standin_queue(const void *buffer)
{
	__atomic_fetch_add(&standin_queued, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&standin_last_buffer, buffer, __ATOMIC_RELAXED);
	return 0;
}

namespace android
{

STANDIN_EXPORT int Surface::hook_queueBuffer(ANativeWindow *window, ANativeWindowBuffer *buffer,
					     int fenceFd)
{
	(void)window;
	(void)fenceFd;
	return standin_queue(buffer);
}

STANDIN_EXPORT int Surface::queueBufferInternal(ANativeWindowBuffer *buffer, int fenceFd,
						SurfaceQueueBufferOutput *output)
{
	(void)fenceFd;
	if (output)
		output->frame_number = standin_queued + 1;
	return standin_queue(buffer);
}

STANDIN_EXPORT int Surface::queueBuffer(ANativeWindowBuffer *buffer, int fenceFd)
{
	(void)fenceFd;
	return standin_queue(buffer);
}

STANDIN_EXPORT int Surface::queueBuffer(ANativeWindowBuffer *buffer, int fenceFd,
					SurfaceQueueBufferOutput *output)
{
	(void)fenceFd;
	if (output)
		output->frame_number = standin_queued + 1;
	return standin_queue(buffer);
}

STANDIN_EXPORT int Surface::queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fence)
{
	(void)fence;
	return standin_queue(buffer.get());
}

STANDIN_EXPORT int Surface::queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fence,
					SurfaceQueueBufferOutput *output)
{
	(void)fence;
	if (output)
		output->frame_number = standin_queued + 1;
	return standin_queue(buffer.get());
}

/*
 * The batch path: each element counts as one queued buffer, as if queueBuffer had been
 * called for it; an output vector with room gets a frame number per buffer. A vector that
 * is no vector of BatchQueuedBuffers (end before begin, a size that is not a multiple of
 * the element, more than STANDIN_BATCH_SANE elements: what standin-game --batch-malformed
 * passes, to show a probe what a wrong symbol or ABI looks like) is refused without
 * being read: -EINVAL (BAD_VALUE), nothing queued.
 */
STANDIN_EXPORT int Surface::queueBuffers(const LibcxxVector<BatchQueuedBuffer> &buffers,
					 LibcxxVector<SurfaceQueueBufferOutput> *outputs)
{
	uintptr_t b = (uintptr_t)buffers.begin, e = (uintptr_t)buffers.end;

	if (e < b || (e - b) % sizeof(BatchQueuedBuffer) ||
	    (e - b) / sizeof(BatchQueuedBuffer) > STANDIN_BATCH_SANE)
		return -22;
	size_t n = (e - b) / sizeof(BatchQueuedBuffer);
	bool fill = outputs && (size_t)(outputs->end - outputs->begin) >= n;

	for (size_t i = 0; i < n; i++) {
		if (fill)
			outputs->begin[i].frame_number = standin_queued + 1;
		standin_queue(buffers.begin[i].buffer);
	}
	return 0;
}

} /* namespace android */
