// The driver's 2D, 3D, peer and batched copies and its 2D memsets, each once with its
// per-thread-default-stream form, in a fixed order; and cuMemcpy2DAsync_v2 and
// cuMemcpy3DAsync_v2 once more with a null parameter struct. Linked against the null CUDA
// stack's libcuda (null_cuda/), which defines these functions and answers CUDA_SUCCESS without
// touching anything: there is no driver on this machine, and the stand-in has no 2D copies.
// Stream i is the made-up handle 0x5100 + i (never dereferenced). Prints "NAME STATUS" per call.
#define __CUDA_API_VERSION_INTERNAL  // declares the plain and the _ptsz forms
#include <cuda.h>

#include <cstdint>
#include <cstdio>

namespace {
void report(const char* name, CUresult status) { std::printf("%s %d\n", name, static_cast<int>(status)); }
CUstream stream(uintptr_t i) { return reinterpret_cast<CUstream>(uintptr_t{0x5100} + i); }
}  // namespace

int main() {
  const CUdeviceptr dst = 0xD000, src = 0xE000;

  CUDA_MEMCPY2D c2{};
  c2.srcMemoryType = c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c2.srcDevice = src, c2.dstDevice = dst, c2.srcPitch = c2.dstPitch = 128;
  c2.WidthInBytes = 96, c2.Height = 5;
  report("cuMemcpy2DAsync_v2", cuMemcpy2DAsync_v2(&c2, stream(1)));
  report("cuMemcpy2DAsync_v2_ptsz", cuMemcpy2DAsync_v2_ptsz(&c2, stream(2)));
  report("cuMemcpy2DAsync_v2", cuMemcpy2DAsync_v2(nullptr, stream(3)));

  CUDA_MEMCPY3D c3{};
  c3.srcMemoryType = c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = src, c3.dstDevice = dst, c3.srcPitch = c3.dstPitch = 64, c3.srcHeight = c3.dstHeight = 4;
  c3.WidthInBytes = 40, c3.Height = 3, c3.Depth = 7;
  report("cuMemcpy3DAsync_v2", cuMemcpy3DAsync_v2(&c3, stream(4)));
  report("cuMemcpy3DAsync_v2_ptsz", cuMemcpy3DAsync_v2_ptsz(&c3, stream(5)));
  report("cuMemcpy3DAsync_v2", cuMemcpy3DAsync_v2(nullptr, stream(6)));

  report("cuMemcpyPeerAsync", cuMemcpyPeerAsync(dst, nullptr, src, nullptr, 333, stream(7)));
  report("cuMemcpyPeerAsync_ptsz", cuMemcpyPeerAsync_ptsz(dst, nullptr, src, nullptr, 334, stream(8)));

  report("cuMemsetD2D8Async", cuMemsetD2D8Async(dst, 256, 7, 50, 3, stream(9)));
  report("cuMemsetD2D8Async_ptsz", cuMemsetD2D8Async_ptsz(dst, 256, 7, 50, 3, stream(10)));
  report("cuMemsetD2D16Async", cuMemsetD2D16Async(dst, 256, 7, 50, 3, stream(11)));
  report("cuMemsetD2D16Async_ptsz", cuMemsetD2D16Async_ptsz(dst, 256, 7, 50, 3, stream(12)));
  report("cuMemsetD2D32Async", cuMemsetD2D32Async(dst, 256, 7, 50, 3, stream(13)));
  report("cuMemsetD2D32Async_ptsz", cuMemsetD2D32Async_ptsz(dst, 256, 7, 50, 3, stream(14)));

  CUdeviceptr dsts[3] = {dst, dst + 0x100, dst + 0x200}, srcs[3] = {src, src + 0x100, src + 0x200};
  size_t sizes[3] = {10, 20, 30};
  CUmemcpyAttributes attrs{};
  size_t attrs_idx = 0;
  report("cuMemcpyBatchAsync_v2", cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, &attrs, &attrs_idx, 1, stream(15)));
  report("cuMemcpyBatchAsync_v2_ptsz",
         cuMemcpyBatchAsync_v2_ptsz(dsts, srcs, sizes, 2, &attrs, &attrs_idx, 1, stream(16)));
  report("cuMemcpyBatchAsync_v2", cuMemcpyBatchAsync_v2(dsts, srcs, nullptr, 3, &attrs, &attrs_idx, 1, stream(17)));
  return 0;
}
