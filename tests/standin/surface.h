/* SPDX-License-Identifier: MIT */
/*
 * surface.h - the stand-in for Android's libgui Surface, as far as framerec cares.
 *
 * framerec attaches a uprobe to android::Surface::queueBuffer (and its siblings) by their
 * mangled names. These declarations are written so that g++ emits exactly the six names
 * the real libgui.so exports (recorder/README.md, "Symbols"); the types are empty
 * shells because only the names and the argument positions matter to the probe.
 *
 * In every variant argument index 1 (PT_REGS_PARM2) is the buffer: member functions take
 * `this` as argument 0, and the static hook takes the ANativeWindow first. Argument 0 is
 * the surface: one BufferQueue, whichever buffer it queues.
 *
 * The seventh export is the batch path, Surface::queueBuffers (see "The batch path" below):
 * one call queues N buffers, and the buffers are not in registers but in a std::vector the
 * probe reads from user memory.
 */
#ifndef STANDIN_SURFACE_H
#define STANDIN_SURFACE_H

#include <stddef.h>
#include <stdint.h>

/* NDK types live in the global namespace (mangled "13ANativeWindow", no "android"). */
struct ANativeWindow {
	int magic;
};
struct ANativeWindowBuffer {
	int width, height, stride, format;
	void *handle;
};

/* The most elements the stand-in's queueBuffers takes (framerec's FRAMEREC_BATCH_SANE). */
#define STANDIN_BATCH_SANE 4096

/* Surface::queueBuffers as Android's libc++ mangles it (see "7." below). */
#define STANDIN_QUEUE_BUFFERS_SYMBOL                                                               \
	"_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"          \
	"9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE"

namespace android
{

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

class GraphicBuffer
{
      public:
	ANativeWindowBuffer base;
};

class Fence
{
      public:
	int fd;
};

/*
 * Android's strong pointer. Its only member is the raw pointer, so the first 8 bytes of
 * an sp<T> object are the T* (what framerec reads with bpf_probe_read_user).
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

class Surface
{
      public:
	/* 1. _ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi */
	static int hook_queueBuffer(ANativeWindow *window, ANativeWindowBuffer *buffer,
				    int fenceFd);
	/* 2.
	 * _ZN7android7Surface19queueBufferInternalEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE
	 */
	int queueBufferInternal(ANativeWindowBuffer *buffer, int fenceFd,
				SurfaceQueueBufferOutput *output);
	/* 3. _ZN7android7Surface11queueBufferEP19ANativeWindowBufferi (legacy) */
	int queueBuffer(ANativeWindowBuffer *buffer, int fenceFd);
	/* 4.
	 * _ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE
	 */
	int queueBuffer(ANativeWindowBuffer *buffer, int fenceFd, SurfaceQueueBufferOutput *output);
	/* 5. _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEE */
	int queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fence);
	/* 6.
	 * _ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_24SurfaceQueueBufferOutputE
	 */
	int queueBuffer(const sp<GraphicBuffer> &buffer, const sp<Fence> &fence,
			SurfaceQueueBufferOutput *output);

	/* One buffer of a batch, as in AOSP's gui/Surface.h (nsecs_t is int64_t). */
	struct BatchQueuedBuffer {
		ANativeWindowBuffer *buffer;
		int fenceFd;
		int64_t timestamp;
	};

	/*
	 * 7. The batch path:
	 * int queueBuffers(const std::vector<BatchQueuedBuffer>& buffers,
	 *                  std::vector<SurfaceQueueBufferOutput>* queueBufferOutputs);
	 * exported under Android's libc++ mangling (std::__1, "NSt3__16vector"), which g++
	 * with libstdc++ would not produce, hence the asm label. Argument 0 is `this`,
	 * argument 1 the address of the vector: a recorder reads begin and end from it, then
	 * (end - begin) / 24 elements of 24 bytes, `buffer` at offset 0 of each.
	 */
	int queueBuffers(
	    const LibcxxVector<BatchQueuedBuffer> &buffers,
	    LibcxxVector<SurfaceQueueBufferOutput> *outputs) __asm__(STANDIN_QUEUE_BUFFERS_SYMBOL);

	int id;
};

/*
 * The batch path's layout is an ABI a BPF recorder reads byte by byte (LP64: arm64 and
 * x86-64, the only targets framerec records), so it is pinned here, not assumed.
 */
static_assert(sizeof(void *) == 8, "the stand-in models 64-bit Android only");
static_assert(sizeof(Surface::BatchQueuedBuffer) == 24, "BatchQueuedBuffer is 24 bytes");
static_assert(offsetof(Surface::BatchQueuedBuffer, buffer) == 0, "buffer at offset 0");
static_assert(offsetof(Surface::BatchQueuedBuffer, fenceFd) == 8, "fenceFd at offset 8");
static_assert(offsetof(Surface::BatchQueuedBuffer, timestamp) == 16, "timestamp at offset 16");
static_assert(sizeof(LibcxxVector<Surface::BatchQueuedBuffer>) == 24, "vector is 3 pointers");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, begin) == 0, "begin at 0");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, end) == 8, "end at 8");
static_assert(offsetof(LibcxxVector<Surface::BatchQueuedBuffer>, end_cap) == 16, "cap at 16");

} /* namespace android */

#endif /* STANDIN_SURFACE_H */
