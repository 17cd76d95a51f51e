/* SPDX-License-Identifier: MIT */
/*
 * surface.h - the stand-in for Android's libgui Surface, as far as framerec cares: the
 * class layout a probe reads through and every queue entry point under its real mangled
 * name (display-truth.md 6; recorder/README.md, "Symbols").
 *
 * The layout is AOSP's (libs/nativebase/include/nativebase/nativebase.h,
 * nativewindow/include/system/window.h, libs/gui/include/gui/Surface.h,
 * libs/ui/include/ui/GraphicBuffer.h, android-11.0.0_r1 .. 16.0.0_r2): the C structs
 * ANativeWindow and ANativeWindowBuffer start with android_native_base_t; Surface and
 * GraphicBuffer are ANativeObjectBase<NATIVE, TYPE, RefBase>, so the polymorphic RefBase
 * comes first (the Itanium ABI's primary base) and the native pointer is 16 bytes into the
 * object. The compiler lays the classes out from the same declarations and the asserts at
 * the end pin the result, against framerec's own constant (bpf/android_abi.h).
 *
 * What a probe sees per entry point: the static hooks get the ANativeWindow* and the
 * ANativeWindowBuffer*; the members get `this` (a Surface*, 16 bytes lower) and the
 * ANativeWindowBuffer*; the sp<GraphicBuffer> members get `this` and the address of an sp
 * whose first word is the GraphicBuffer* (16 bytes below its ANativeWindowBuffer*); the
 * batch members get `this` and a libc++ std::vector of BatchQueuedBuffer.
 *
 * The stand-in is built with g++ and libstdc++, so the names that mention std::vector
 * (the batch members) carry Android's libc++ mangling through asm labels; every other name
 * is what g++ emits for these declarations (checked against `nm -D`, standin.exports).
 */
#ifndef STANDIN_SURFACE_H
#define STANDIN_SURFACE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "android_abi.h" /* FRAMEREC_NATIVE_BASE_OFFSET: what framerec assumes */

#define STANDIN_EXPORT_CLASS __attribute__((visibility("default")))

/*
 * The libgui.so of a vendor whose Surface::connect / disconnect and setBuffersTimestamp
 * framerec does not know (standin-nolife/libgui.so, built with STANDIN_NO_LIFETIME): the
 * same class and call graph, but those six functions under names that are no AOSP names
 * (asm labels), so a recorder finds no lifetime or timestamp symbol and must record
 * without them.
 */
#ifdef STANDIN_NO_LIFETIME
#define STANDIN_LIFETIME_NAME(n) __asm__("standin_nolife_" n)
#else
#define STANDIN_LIFETIME_NAME(n)
#endif

/* ---------------------------------------------------------------- the NDK's C structs */

/* nativebase.h: ('_'<<24)|('b'<<16)|('f'<<8)|'r' and ('_'<<24)|('w'<<16)|('n'<<8)|'d'. */
#define ANDROID_NATIVE_BUFFER_MAGIC 0x5f626672
#define ANDROID_NATIVE_WINDOW_MAGIC 0x5f776e64
/* system/window.h: "no timestamp, Surface takes the queue time". */
#define NATIVE_WINDOW_TIMESTAMP_AUTO INT64_MIN
/* system/window.h: the producer APIs a window connects, and perform()'s operations for it. */
#define NATIVE_WINDOW_API_EGL 1
#define NATIVE_WINDOW_API_CPU 2
#define NATIVE_WINDOW_API_MEDIA 3
#define NATIVE_WINDOW_API_CAMERA 4
#define NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP 7
#define NATIVE_WINDOW_API_CONNECT 13
#define NATIVE_WINDOW_API_DISCONNECT 14
/* graphics-base.h / hardware/gralloc.h: what the stand-in's buffers say they are. */
#define HAL_PIXEL_FORMAT_RGBA_8888 1
#define GRALLOC_USAGE_HW_TEXTURE 0x100
#define GRALLOC_USAGE_HW_RENDER 0x200
#define GRALLOC_USAGE_HW_COMPOSER 0x800

/* NDK types live in the global namespace (mangled "13ANativeWindow", no "android"). */
struct android_native_base_t {
	int magic;
	int version; /* sizeof the whole struct */
	void *reserved[4];
	void (*incRef)(struct android_native_base_t *base);
	void (*decRef)(struct android_native_base_t *base);
};

struct native_handle_t;

/* nativebase.h, frozen since the NDK published it. */
struct ANativeWindowBuffer {
	ANativeWindowBuffer()
	{
		common.magic = ANDROID_NATIVE_BUFFER_MAGIC;
		common.version = sizeof(ANativeWindowBuffer);
		for (void *&r : common.reserved)
			r = nullptr;
	}
	struct android_native_base_t common;
	int width = 0;
	int height = 0;
	int stride = 0;
	int format = 0;
	int usage_deprecated = 0;
	uintptr_t layerCount = 1;
	void *reserved[1] = {nullptr};
	const native_handle_t *handle = nullptr;
	uint64_t usage = 0;
};

struct ANativeWindow;
typedef int (*ANativeWindow_queueBufferFn)(ANativeWindow *window, ANativeWindowBuffer *buffer,
					   int fenceFd);
/* ANativeWindow_setQueueBufferInterceptor's callback (API 30, libnativewindow). */
typedef int (*ANativeWindow_queueBufferInterceptor)(ANativeWindow *window,
						    ANativeWindow_queueBufferFn queueBuffer,
						    void *data, ANativeWindowBuffer *buffer,
						    int fenceFd);

/*
 * system/window.h: the header, a few constants, then the hooks an EGL or Vulkan driver
 * calls (Surface's constructor points them at its static hook_* functions).
 */
struct ANativeWindow {
	ANativeWindow()
	{
		common.magic = ANDROID_NATIVE_WINDOW_MAGIC;
		common.version = sizeof(ANativeWindow);
		for (void *&r : common.reserved)
			r = nullptr;
	}
	struct android_native_base_t common;
	uint32_t flags = 0;
	int minSwapInterval = 0;
	int maxSwapInterval = 1;
	float xdpi = 0;
	float ydpi = 0;
	intptr_t oem[4] = {0, 0, 0, 0};
	int (*setSwapInterval)(ANativeWindow *window, int interval) = nullptr;
	int (*dequeueBuffer_DEPRECATED)(ANativeWindow *window,
					ANativeWindowBuffer **buffer) = nullptr;
	int (*lockBuffer_DEPRECATED)(ANativeWindow *window, ANativeWindowBuffer *buffer) = nullptr;
	int (*queueBuffer_DEPRECATED)(ANativeWindow *window, ANativeWindowBuffer *buffer) = nullptr;
	int (*query)(const ANativeWindow *window, int what, int *value) = nullptr;
	int (*perform)(ANativeWindow *window, int operation, ...) = nullptr;
	int (*cancelBuffer_DEPRECATED)(ANativeWindow *window,
				       ANativeWindowBuffer *buffer) = nullptr;
	int (*dequeueBuffer)(ANativeWindow *window, ANativeWindowBuffer **buffer,
			     int *fenceFd) = nullptr;
	ANativeWindow_queueBufferFn queueBuffer = nullptr;
	int (*cancelBuffer)(ANativeWindow *window, ANativeWindowBuffer *buffer,
			    int fenceFd) = nullptr;
};

/* system/window.h's inline helpers, as EGL (eglCreateWindowSurface) and Vulkan call them. */
static inline int native_window_api_connect(ANativeWindow *window, int api)
{
	return window->perform(window, NATIVE_WINDOW_API_CONNECT, api);
}

static inline int native_window_api_disconnect(ANativeWindow *window, int api)
{
	return window->perform(window, NATIVE_WINDOW_API_DISCONNECT, api);
}

/* What eglPresentationTimeANDROID and Vulkan's VkPresentTimeGOOGLE end in. */
static inline int native_window_set_buffers_timestamp(ANativeWindow *window, int64_t timestamp)
{
	return window->perform(window, NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP, timestamp);
}

/* The most elements the stand-in's queueBuffers takes (framerec's FRAMEREC_BATCH_SANE). */
#define STANDIN_BATCH_SANE 4096

/* Surface::queueBuffers as Android's libc++ mangles its two forms (display-truth.md 6). */
#define STANDIN_QUEUE_BUFFERS_SYMBOL                                                               \
	"_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"          \
	"9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE"
#define STANDIN_QUEUE_BUFFERS_LEGACY_SYMBOL                                                        \
	"_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"          \
	"9allocatorIS3_EEEE"

namespace android
{

typedef int32_t status_t;
typedef int64_t nsecs_t;

/*
 * The memory layout of a libc++ (Android's C++ library) std::vector<T>: three pointers,
 * begin, end (one past the last element) and end of capacity; the allocator is empty and
 * takes no room. Its size is (end - begin) / sizeof(T). The stand-in is built against
 * libstdc++, whose vector has the same three pointers but another mangled name, so it
 * spells the layout out here and the libc++ name in an asm label (Surface::queueBuffers).
 */
template <typename T> struct LibcxxVector {
	T *begin;
	T *end;
	T *end_cap;
};

struct SurfaceQueueBufferOutput {
	unsigned long long frame_number;
};

/* Post-16 main: what queueBuffer's inputs became (fence, timestamp, ...). */
struct SurfaceQueueBufferInput {
	int fenceFd;
	nsecs_t timestamp;
};

/*
 * utils/RefBase.h: polymorphic (the vptr) with one pointer of state, 16 bytes. The
 * reference counting itself is of no concern to a probe and is left out.
 */
class STANDIN_EXPORT_CLASS RefBase
{
      public:
	virtual void onFirstRef()
	{
	}
	virtual void onLastStrongRef(const void *id)
	{
		(void)id;
	}

      protected:
	RefBase() = default;
	virtual ~RefBase() = default;

      private:
	/* RefBase's weakref_impl*: only its room matters to the layout (16 bytes with the vptr) */
	[[maybe_unused]] void *mRefs = nullptr;
};

/*
 * nativebase/nativebase.h (ui/ANativeObjectBase.h before 12): the C struct first in the
 * base list, RefBase second; the ABI still puts RefBase at offset 0 (see above).
 */
template <typename NATIVE_TYPE, typename TYPE, typename REF>
class ANativeObjectBase : public NATIVE_TYPE, public REF
{
      public:
	static inline TYPE *getSelf(NATIVE_TYPE *self)
	{
		return static_cast<TYPE *>(self);
	}

      protected:
	ANativeObjectBase() : NATIVE_TYPE(), REF()
	{
		NATIVE_TYPE::common.incRef = incRef;
		NATIVE_TYPE::common.decRef = decRef;
	}

      private:
	static void incRef(android_native_base_t *base)
	{
		(void)base;
	}
	static void decRef(android_native_base_t *base)
	{
		(void)base;
	}
};

class STANDIN_EXPORT_CLASS GraphicBuffer
    : public ANativeObjectBase<ANativeWindowBuffer, GraphicBuffer, RefBase>
{
      public:
	GraphicBuffer() = default;
	static GraphicBuffer *from(ANativeWindowBuffer *buffer)
	{
		return static_cast<GraphicBuffer *>(buffer);
	}
	ANativeWindowBuffer *getNativeBuffer()
	{
		return static_cast<ANativeWindowBuffer *>(this);
	}
};

class Fence
{
      public:
	int fd;
};

/* gui/IProducerListener.h and (15 QPR1+) gui/Surface.h's SurfaceListener: only the names. */
class IProducerListener : public RefBase
{
};
class StubProducerListener : public IProducerListener
{
};
class SurfaceListener : public RefBase
{
};

/* gui/IGraphicBufferProducer.h: disconnect's second argument. */
class IGraphicBufferProducer
{
      public:
	enum class DisconnectMode { Api, AllLocal };
};

/*
 * Android's strong pointer. Its only member is the raw pointer, so the first 8 bytes of
 * an sp<T> object are the T* (what framerec reads with bpf_probe_read_user). No counting.
 */
template <typename T> class sp
{
      public:
	sp() : m_ptr(nullptr)
	{
	}
	explicit sp(T *p) : m_ptr(p)
	{
	}
	T *get() const
	{
		return m_ptr;
	}

      private:
	T *m_ptr;
};

class STANDIN_EXPORT_CLASS Surface : public ANativeObjectBase<ANativeWindow, Surface, RefBase>
{
      public:
	/* One buffer of a batch, as in AOSP's gui/Surface.h (12+). */
	struct BatchQueuedBuffer {
		ANativeWindowBuffer *buffer = nullptr;
		int fenceFd = -1;
		nsecs_t timestamp = NATIVE_WINDOW_TIMESTAMP_AUTO;
	};

	/* Points the window's hooks at the static hook_* functions, as AOSP's does. */
	Surface();
	virtual ~Surface() = default;

	/*
	 * --- producer lifetime (11..15's overloads; AOSP Surface.cpp's call graph):
	 * ANativeWindow::perform = hook_perform -> perform -> dispatchConnect -> connect(int)
	 * -> connect(int, const sp<IProducerListener>&) -> connect(int, const
	 * sp<IProducerListener>&, bool), the one that connects; connect(int, bool, const
	 * sp<SurfaceListener>&) reaches it too. dispatchDisconnect -> disconnect(int, mode).
	 */
	static int hook_perform(ANativeWindow *window, int operation, ...);
	virtual int perform(int operation, va_list args);
	/* _ZN7android7Surface7connectEi */
	virtual int connect(int api) STANDIN_LIFETIME_NAME("connect1");
	/* _ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEE */
	virtual int connect(int api, const sp<IProducerListener> &listener)
	    STANDIN_LIFETIME_NAME("connect2");
	/* _ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEEb */
	virtual int connect(int api, const sp<IProducerListener> &listener,
			    bool reportBufferRemoval) STANDIN_LIFETIME_NAME("connect3");
	/* _ZN7android7Surface7connectEibRKNS_2spINS_15SurfaceListenerEEE */
	virtual int connect(int api, bool reportBufferRemoval, const sp<SurfaceListener> &sListener)
	    STANDIN_LIFETIME_NAME("connect4");
	/* _ZN7android7Surface10disconnectEiNS_22IGraphicBufferProducer14DisconnectModeE */
	virtual int disconnect(int api, IGraphicBufferProducer::DisconnectMode mode =
					    IGraphicBufferProducer::DisconnectMode::Api)
	    STANDIN_LIFETIME_NAME("disconnect");
	/*
	 * perform -> dispatchSetBuffersTimestamp -> setBuffersTimestamp, the only writer of
	 * mTimestamp besides the constructor (android_abi.h, FRAMEREC_STAMP_SYMBOL):
	 * _ZN7android7Surface19setBuffersTimestampEl
	 */
	virtual int setBuffersTimestamp(int64_t timestamp) STANDIN_LIFETIME_NAME("stamp");
	int connectedApi() const
	{
		return mConnectedApi;
	}

	/* ANativeWindow_setQueueBufferInterceptor: hook_queueBuffer then calls it. */
	void setQueueInterceptor(ANativeWindow_queueBufferInterceptor fn, void *data)
	{
		mQueueInterceptor = fn;
		mQueueInterceptorData = data;
	}

	/* --- the static entry points: (ANativeWindow*, ANativeWindowBuffer*, ...), 11..16 */
	/* _ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi */
	static int hook_queueBuffer(ANativeWindow *window, ANativeWindowBuffer *buffer,
				    int fenceFd);
	/* _ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi */
	static int queueBufferInternal(ANativeWindow *window, ANativeWindowBuffer *buffer,
				       int fenceFd);
	/* _ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer
	 */
	static int hook_queueBuffer_DEPRECATED(ANativeWindow *window, ANativeWindowBuffer *buffer);

	/* --- the members: (Surface* this, ANativeWindowBuffer*, ...) */
	/* 11..15: _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi */
	virtual int queueBuffer(ANativeWindowBuffer *buffer, int fenceFd);
	/*
	 * 15 QPR1+, 16 (WB_PLATFORM_API_IMPROVEMENTS on):
	 * _ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE
	 */
	virtual int queueBuffer(ANativeWindowBuffer *buffer, int fenceFd,
				SurfaceQueueBufferOutput *output);

	/* --- the sp<GraphicBuffer> members: (Surface* this, const sp<GraphicBuffer>*, ...) */
	/* 15 QPR1+, 16: _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_
	 * INS_5FenceEEEPNS_24SurfaceQueueBufferOutputE */
	status_t queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fd,
			     SurfaceQueueBufferOutput *output);
	/* post-16: _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_
	 * 23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE */
	status_t queueBuffer(const sp<GraphicBuffer> &buffer, const SurfaceQueueBufferInput &input,
			     SurfaceQueueBufferOutput *output);
	/* post-16: _ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_
	 * INS_5FenceEEEPKNS_23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE */
	status_t queueBufferImpl(const sp<GraphicBuffer> &buffer, const sp<Fence> &fence,
				 const SurfaceQueueBufferInput *input,
				 SurfaceQueueBufferOutput *output);

	/* --- the batch members: (Surface* this, const std::vector<BatchQueuedBuffer>*, ...) */
	/* 12..15: int queueBuffers(const std::vector<BatchQueuedBuffer>& buffers) */
	virtual int queueBuffers(const LibcxxVector<BatchQueuedBuffer> &buffers) __asm__(
	    STANDIN_QUEUE_BUFFERS_LEGACY_SYMBOL);
	/*
	 * 15 QPR1+, 16 and later: int queueBuffers(const std::vector<BatchQueuedBuffer>&,
	 * std::vector<SurfaceQueueBufferOutput>* queueBufferOutputs = nullptr). A recorder
	 * reads begin and end from argument 1, then (end - begin) / 24 elements.
	 */
	virtual int queueBuffers(
	    const LibcxxVector<BatchQueuedBuffer> &buffers,
	    LibcxxVector<SurfaceQueueBufferOutput> *outputs) __asm__(STANDIN_QUEUE_BUFFERS_SYMBOL);

      private:
	int dispatchConnect(va_list args);
	int dispatchDisconnect(va_list args);
	int dispatchSetBuffersTimestamp(va_list args);

	ANativeWindow_queueBufferInterceptor mQueueInterceptor = nullptr;
	void *mQueueInterceptorData = nullptr;
	nsecs_t mTimestamp = NATIVE_WINDOW_TIMESTAMP_AUTO;
	int mConnectedApi = 0; /* 0: no producer connected */
};

/*
 * The layout a BPF recorder reads byte by byte (LP64: arm64 and x86-64, the only targets
 * framerec records), pinned here, not assumed. offsetof on a class with bases is
 * conditionally supported (g++ and clang give the offset, with -Winvalid-offsetof): it is
 * what says where the compiler put the native struct inside the object.
 */
static_assert(sizeof(void *) == 8, "the stand-in models 64-bit Android only");
static_assert(sizeof(android_native_base_t) == 56, "android_native_base_t is 56 bytes");
static_assert(offsetof(ANativeWindowBuffer, width) == 56, "width at 56");
static_assert(offsetof(ANativeWindowBuffer, height) == 60, "height at 60");
static_assert(offsetof(ANativeWindowBuffer, stride) == 64, "stride at 64");
static_assert(offsetof(ANativeWindowBuffer, format) == 68, "format at 68");
static_assert(offsetof(ANativeWindowBuffer, usage_deprecated) == 72, "usage_deprecated at 72");
static_assert(offsetof(ANativeWindowBuffer, layerCount) == 80, "layerCount at 80");
static_assert(offsetof(ANativeWindowBuffer, handle) == 96, "handle at 96");
static_assert(offsetof(ANativeWindowBuffer, usage) == 104, "usage at 104");
static_assert(sizeof(ANativeWindowBuffer) == 112, "ANativeWindowBuffer is 112 bytes");
/* framerec's copy of these offsets (bpf/android_abi.h), read by its geometry probe. */
static_assert(offsetof(ANativeWindowBuffer, common.magic) == 0, "magic at 0");
static_assert(offsetof(ANativeWindowBuffer, width) == FRAMEREC_BUFFER_WIDTH, "width");
static_assert(offsetof(ANativeWindowBuffer, height) == FRAMEREC_BUFFER_HEIGHT, "height");
static_assert(offsetof(ANativeWindowBuffer, stride) == FRAMEREC_BUFFER_STRIDE, "stride");
static_assert(offsetof(ANativeWindowBuffer, format) == FRAMEREC_BUFFER_FORMAT, "format");
static_assert(offsetof(ANativeWindowBuffer, usage) == FRAMEREC_BUFFER_USAGE, "usage");
static_assert(sizeof(ANativeWindowBuffer) >= FRAMEREC_BUFFER_HEADER, "the header read fits");
static_assert(ANDROID_NATIVE_BUFFER_MAGIC == FRAMEREC_BUFFER_MAGIC, "the buffer magic");
static_assert(NATIVE_WINDOW_API_EGL == FRAMEREC_API_EGL, "NATIVE_WINDOW_API_EGL is 1");
static_assert(sizeof(RefBase) == 16, "RefBase is a vptr and mRefs");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
static_assert(offsetof(Surface, common) == FRAMEREC_NATIVE_BASE_OFFSET,
	      "ANativeWindow* = Surface* + FRAMEREC_NATIVE_BASE_OFFSET");
static_assert(offsetof(GraphicBuffer, common) == FRAMEREC_NATIVE_BASE_OFFSET,
	      "ANativeWindowBuffer* = GraphicBuffer* + FRAMEREC_NATIVE_BASE_OFFSET");
static_assert(offsetof(Surface::BatchQueuedBuffer, buffer) == FRAMEREC_BATCH_BUFFER,
	      "buffer at offset 0");
static_assert(offsetof(Surface::BatchQueuedBuffer, fenceFd) == 8, "fenceFd at offset 8");
static_assert(offsetof(Surface::BatchQueuedBuffer, timestamp) == FRAMEREC_BATCH_TIMESTAMP,
	      "timestamp at offset 16");
#pragma GCC diagnostic pop
static_assert(sizeof(Surface::BatchQueuedBuffer) == FRAMEREC_BATCH_ELEM,
	      "BatchQueuedBuffer is 24 bytes");
static_assert(NATIVE_WINDOW_TIMESTAMP_AUTO == FRAMEREC_TIMESTAMP_AUTO, "AUTO is INT64_MIN");
static_assert(sizeof(LibcxxVector<Surface::BatchQueuedBuffer>) == 24, "vector is 3 pointers");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, begin) == 0, "begin at 0");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, end) == 8, "end at 8");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, end_cap) == 16, "cap at 16");
static_assert(sizeof(sp<GraphicBuffer>) == 8, "an sp is its pointer");

} /* namespace android */

#endif /* STANDIN_SURFACE_H */
