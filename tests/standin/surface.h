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
 * `this` as argument 0, and the static hook takes the ANativeWindow first.
 */
#ifndef STANDIN_SURFACE_H
#define STANDIN_SURFACE_H

/* NDK types live in the global namespace (mangled "13ANativeWindow", no "android"). */
struct ANativeWindow {
	int magic;
};
struct ANativeWindowBuffer {
	int width, height, stride, format;
	void *handle;
};

namespace android
{

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

	int id;
};

} /* namespace android */

#endif /* STANDIN_SURFACE_H */
