/* SPDX-License-Identifier: MIT */
/*
 * libgui.cpp - a Linux libgui.so stand-in: android::Surface's queue entry points under
 * their real mangled names (surface.h), wired the way AOSP wires them (libs/gui/Surface.cpp):
 *
 *   ANativeWindow::queueBuffer = hook_queueBuffer (11..16)
 *     -> the queue interceptor, if one is set, with queueBufferInternal (11..16)
 *          -> queueBuffer(ANativeWindowBuffer*, int, SurfaceQueueBufferOutput*) (virtual)
 *     -> else queueBuffer(ANativeWindowBuffer*, int, SurfaceQueueBufferOutput*) (virtual)
 *   ANativeWindow::queueBuffer_DEPRECATED = hook_queueBuffer_DEPRECATED -> the same, fd -1
 *   queueBuffer(const sp<GraphicBuffer>&, const sp<Fence>&, output*) (16.0.0_r2)
 *     -> queueBuffer(buffer.get(), fd, output) (virtual)
 *   queueBuffer(const sp<GraphicBuffer>&, const SurfaceQueueBufferInput&, output*) (post-16)
 *     -> queueBufferImpl(buffer, fence, &input, output) (post-16)
 *   queueBuffer(ANativeWindowBuffer*, int) (11..15): queues on its own
 *   queueBuffers(vector) (12..15), queueBuffers(vector, outputs) (15 QPR1+, 16): each
 *     element queued on its own (AOSP's batch fills one input per buffer and never calls
 *     queueBuffer)
 *   ANativeWindow::perform = hook_perform -> perform -> dispatchConnect -> connect(int)
 *     -> connect(int, const sp<IProducerListener>&) -> connect(int, ..., bool) (11..15)
 *   connect(int, bool, const sp<SurfaceListener>&) -> connect(int, ..., bool) (11..15)
 *   perform -> dispatchDisconnect -> disconnect(int, DisconnectMode) (11..16)
 *   perform -> dispatchSetBuffersTimestamp -> setBuffersTimestamp(int64_t) (11..15): the
 *     mTimestamp every single-buffer queue then takes (AUTO: the queue time)
 *
 * A real library holds the forms of one version (the 2- or the 3-argument queueBuffer, one
 * queueBuffers); the stand-in exports them all, so that every symbol framerec knows can be
 * attached and driven (standin-game --symbol). Every function is noinline and does a
 * little work the compiler must keep (an atomic add and a store to exported globals), so
 * it has a real entry point for a uprobe to trap on. All return 0 (OK), as the real ones do.
 */
#include "surface.h"

/* Exported so the work below is observable and cannot be optimised away. */
extern "C" {
__attribute__((visibility("default"))) unsigned long long standin_queued;
__attribute__((visibility("default"))) const void *standin_last_buffer;
__attribute__((visibility("default"))) long long standin_last_timestamp;
}

#define STANDIN_EXPORT __attribute__((noinline, used, visibility("default")))

/* The shared end of every path: count the buffer, remember it and its timestamp. */
static inline int standin_queue(const ANativeWindowBuffer *buffer, long long timestamp)
{
	__atomic_fetch_add(&standin_queued, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&standin_last_buffer, (const void *)buffer, __ATOMIC_RELAXED);
	__atomic_store_n(&standin_last_timestamp, timestamp, __ATOMIC_RELAXED);
	return 0;
}

namespace android
{

Surface::Surface()
{
	ANativeWindow::queueBuffer = hook_queueBuffer;
	ANativeWindow::queueBuffer_DEPRECATED = hook_queueBuffer_DEPRECATED;
	ANativeWindow::perform = hook_perform;
}

STANDIN_EXPORT int Surface::hook_perform(ANativeWindow *window, int operation, ...)
{
	va_list args;

	va_start(args, operation);
	int res = getSelf(window)->perform(operation, args);
	va_end(args);
	return res;
}

/* The operations a producer's lifetime and timing need; the others are -EINVAL here. */
STANDIN_EXPORT int Surface::perform(int operation, va_list args)
{
	switch (operation) {
	case NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP:
		return dispatchSetBuffersTimestamp(args);
	case NATIVE_WINDOW_API_CONNECT:
		return dispatchConnect(args);
	case NATIVE_WINDOW_API_DISCONNECT:
		return dispatchDisconnect(args);
	}
	return -22;
}

int Surface::dispatchSetBuffersTimestamp(va_list args)
{
	return setBuffersTimestamp(va_arg(args, int64_t));
}

/* AOSP: Mutex::Autolock lock(mMutex); mTimestamp = timestamp; */
STANDIN_EXPORT int Surface::setBuffersTimestamp(int64_t timestamp)
{
	__atomic_store_n(&mTimestamp, timestamp, __ATOMIC_RELAXED);
	return 0;
}

int Surface::dispatchConnect(va_list args)
{
	return connect(va_arg(args, int));
}

int Surface::dispatchDisconnect(va_list args)
{
	return disconnect(va_arg(args, int));
}

/*
 * AOSP keeps one static StubProducerListener; the stand-in builds it on the stack (the
 * worker keeps no listener): a static object with a destructor would need the start files'
 * __dso_handle, which the BTI builds leave out (tests/arm64vm/CMakeLists.txt).
 */
STANDIN_EXPORT int Surface::connect(int api)
{
	StubProducerListener stub;
	sp<IProducerListener> listener(&stub);

	return connect(api, listener);
}

STANDIN_EXPORT int Surface::connect(int api, const sp<IProducerListener> &listener)
{
	return connect(api, listener, false);
}

STANDIN_EXPORT int Surface::connect(int api, bool reportBufferRemoval,
				    const sp<SurfaceListener> &sListener)
{
	StubProducerListener proxy; /* AOSP: a ProducerListenerProxy of sListener */
	sp<IProducerListener> listener(&proxy);

	(void)sListener;
	return connect(api, listener, reportBufferRemoval);
}

/* As BufferQueueProducer::connect: one producer at a time (-EINVAL when one is connected). */
STANDIN_EXPORT int Surface::connect(int api, const sp<IProducerListener> &listener,
				    bool reportBufferRemoval)
{
	(void)listener;
	(void)reportBufferRemoval;
	if (mConnectedApi)
		return -22;
	__atomic_store_n(&mConnectedApi, api, __ATOMIC_RELAXED);
	return 0;
}

/* BufferQueueProducer::disconnect: -EINVAL for an api that is not the one connected. */
STANDIN_EXPORT int Surface::disconnect(int api, IGraphicBufferProducer::DisconnectMode mode)
{
	(void)mode;
	if (mConnectedApi != api)
		return -22;
	__atomic_store_n(&mConnectedApi, 0, __ATOMIC_RELAXED);
	return 0;
}

STANDIN_EXPORT int Surface::hook_queueBuffer(ANativeWindow *window, ANativeWindowBuffer *buffer,
					     int fenceFd)
{
	Surface *c = getSelf(window);

	if (c->mQueueInterceptor)
		return c->mQueueInterceptor(window, queueBufferInternal, c->mQueueInterceptorData,
					    buffer, fenceFd);
	return c->queueBuffer(buffer, fenceFd, nullptr);
}

STANDIN_EXPORT int Surface::queueBufferInternal(ANativeWindow *window, ANativeWindowBuffer *buffer,
						int fenceFd)
{
	return getSelf(window)->queueBuffer(buffer, fenceFd, nullptr);
}

STANDIN_EXPORT int Surface::hook_queueBuffer_DEPRECATED(ANativeWindow *window,
							ANativeWindowBuffer *buffer)
{
	return getSelf(window)->queueBuffer(buffer, -1, nullptr);
}

STANDIN_EXPORT int Surface::queueBuffer(ANativeWindowBuffer *buffer, int fenceFd)
{
	(void)fenceFd;
	return standin_queue(buffer, mTimestamp);
}

STANDIN_EXPORT int Surface::queueBuffer(ANativeWindowBuffer *buffer, int fenceFd,
					SurfaceQueueBufferOutput *output)
{
	(void)fenceFd;
	if (output)
		output->frame_number = standin_queued + 1;
	return standin_queue(buffer, mTimestamp);
}

STANDIN_EXPORT status_t Surface::queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fd,
					     SurfaceQueueBufferOutput *output)
{
	(void)fd;
	/* GraphicBuffer* to its ANativeWindowBuffer base: the 16 bytes a probe must add. */
	return queueBuffer(buffer.get(), -1, output);
}

STANDIN_EXPORT status_t Surface::queueBuffer(const sp<GraphicBuffer> &buffer,
					     const SurfaceQueueBufferInput &input,
					     SurfaceQueueBufferOutput *output)
{
	sp<Fence> fence;

	return queueBufferImpl(buffer, fence, &input, output);
}

STANDIN_EXPORT status_t Surface::queueBufferImpl(const sp<GraphicBuffer> &buffer,
						 const sp<Fence> &fence,
						 const SurfaceQueueBufferInput *input,
						 SurfaceQueueBufferOutput *output)
{
	(void)fence;
	if (output)
		output->frame_number = standin_queued + 1;
	return standin_queue(buffer.get(), input ? input->timestamp : mTimestamp);
}

/*
 * A vector that is no vector of BatchQueuedBuffers (end before begin, a size that is not a
 * multiple of the element, more than STANDIN_BATCH_SANE elements: what standin-game
 * --batch-malformed passes, to show a probe what a wrong symbol or ABI looks like) is
 * refused without being read: -EINVAL (BAD_VALUE), nothing queued.
 */
static bool batch_sane(const LibcxxVector<Surface::BatchQueuedBuffer> &buffers, size_t *n)
{
	uintptr_t b = (uintptr_t)buffers.begin, e = (uintptr_t)buffers.end;
	const size_t elem = sizeof(Surface::BatchQueuedBuffer);

	if (e < b || (e - b) % elem || (e - b) / elem > STANDIN_BATCH_SANE)
		return false;
	*n = (e - b) / elem;
	return true;
}

/* Each element counts as one queued buffer with its own timestamp; outputs get numbers. */
static int queue_batch(const LibcxxVector<Surface::BatchQueuedBuffer> &buffers,
		       LibcxxVector<SurfaceQueueBufferOutput> *outputs)
{
	size_t n;

	if (!batch_sane(buffers, &n))
		return -22;
	bool fill = outputs && (size_t)(outputs->end - outputs->begin) >= n;
	for (size_t i = 0; i < n; i++) {
		if (fill)
			outputs->begin[i].frame_number = standin_queued + 1;
		standin_queue(buffers.begin[i].buffer, buffers.begin[i].timestamp);
	}
	return 0;
}

STANDIN_EXPORT int Surface::queueBuffers(const LibcxxVector<BatchQueuedBuffer> &buffers)
{
	return queue_batch(buffers, nullptr);
}

STANDIN_EXPORT int Surface::queueBuffers(const LibcxxVector<BatchQueuedBuffer> &buffers,
					 LibcxxVector<SurfaceQueueBufferOutput> *outputs)
{
	return queue_batch(buffers, outputs);
}

} /* namespace android */
