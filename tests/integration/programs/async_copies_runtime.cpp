// The runtime's 2D, 3D, peer, 3D peer, symbol, array and batched copies (CUDA 13's prototypes)
// and its 2D/3D memsets, each once,
// with its per-thread-default-stream form (cudaMemcpyPeerAsync has none), in a fixed order; and
// cudaMemcpy3DAsync and cudaMemcpy3DPeerAsync once more with a null parameter struct. Run against the REAL CUDA 13
// runtime on a machine without a driver, where each fails for real. Prints "NAME STATUS" for each
// call, so a test can compare with the launch ring. The pointers are never dereferenced: the
// runtime fails before it reaches them. Streams: the legacy one for the plain forms, the
// per-thread one for the _ptsz forms (special handles no runtime dereferences).
#include "spec/per_thread_runtime.h"  // first: the _ptsz forms, as CUDA declares them

#include <cstdio>

#include <cuda_runtime_api.h>
#include <cuda_runtime.h>  // make_cudaPitchedPtr, make_cudaExtent (driver_functions.h, through the header meant to include it)

namespace {
void report(const char* name, cudaError_t status) { std::printf("%s %d\n", name, static_cast<int>(status)); }
}  // namespace

int main() {
  static unsigned char a[4096], b[4096];
  static const int symbol = 0;
  const cudaStream_t legacy = cudaStreamLegacy, per_thread = cudaStreamPerThread;
  const auto h2d = cudaMemcpyHostToDevice;

  report("cudaMemcpy2DAsync", cudaMemcpy2DAsync(a, 64, b, 64, 48, 3, h2d, legacy));
  report("cudaMemcpy2DAsync_ptsz", cudaMemcpy2DAsync_ptsz(a, 64, b, 64, 48, 3, h2d, per_thread));

  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(b, 64, 8, 4);
  p.dstPtr = make_cudaPitchedPtr(a, 64, 8, 4);
  p.extent = make_cudaExtent(8, 4, 2);
  p.kind = h2d;
  report("cudaMemcpy3DAsync", cudaMemcpy3DAsync(&p, legacy));
  report("cudaMemcpy3DAsync_ptsz", cudaMemcpy3DAsync_ptsz(&p, per_thread));
  report("cudaMemcpy3DAsync", cudaMemcpy3DAsync(nullptr, legacy));  // the null struct: 0 bytes

  report("cudaMemcpyPeerAsync", cudaMemcpyPeerAsync(a, 1, b, 0, 100, legacy));

  cudaMemcpy3DPeerParms peer{};
  peer.srcPtr = make_cudaPitchedPtr(b, 64, 16, 4);
  peer.dstPtr = make_cudaPitchedPtr(a, 64, 16, 4);
  peer.srcDevice = 0, peer.dstDevice = 1;
  peer.extent = make_cudaExtent(16, 3, 5);
  report("cudaMemcpy3DPeerAsync", cudaMemcpy3DPeerAsync(&peer, legacy));
  report("cudaMemcpy3DPeerAsync_ptsz", cudaMemcpy3DPeerAsync_ptsz(&peer, per_thread));
  report("cudaMemcpy3DPeerAsync", cudaMemcpy3DPeerAsync(nullptr, legacy));  // 0 bytes

  report("cudaMemcpyToSymbolAsync", cudaMemcpyToSymbolAsync(&symbol, b, 24, 0, h2d, legacy));
  report("cudaMemcpyToSymbolAsync_ptsz", cudaMemcpyToSymbolAsync_ptsz(&symbol, b, 24, 0, h2d, per_thread));
  report("cudaMemcpyFromSymbolAsync",
         cudaMemcpyFromSymbolAsync(a, &symbol, 12, 4, cudaMemcpyDeviceToHost, legacy));
  report("cudaMemcpyFromSymbolAsync_ptsz",
         cudaMemcpyFromSymbolAsync_ptsz(a, &symbol, 12, 4, cudaMemcpyDeviceToHost, per_thread));

  report("cudaMemcpy2DToArrayAsync", cudaMemcpy2DToArrayAsync(nullptr, 0, 0, b, 32, 16, 5, h2d, legacy));
  report("cudaMemcpy2DToArrayAsync_ptsz",
         cudaMemcpy2DToArrayAsync_ptsz(nullptr, 0, 0, b, 32, 16, 5, h2d, per_thread));
  report("cudaMemcpy2DFromArrayAsync",
         cudaMemcpy2DFromArrayAsync(a, 32, nullptr, 0, 0, 20, 6, cudaMemcpyDeviceToHost, legacy));
  report("cudaMemcpy2DFromArrayAsync_ptsz",
         cudaMemcpy2DFromArrayAsync_ptsz(a, 32, nullptr, 0, 0, 20, 6, cudaMemcpyDeviceToHost, per_thread));

  report("cudaMemset2DAsync", cudaMemset2DAsync(a, 64, 0, 40, 7, legacy));
  report("cudaMemset2DAsync_ptsz", cudaMemset2DAsync_ptsz(a, 64, 0, 40, 7, per_thread));
  const cudaPitchedPtr pitched = make_cudaPitchedPtr(a, 64, 16, 4);
  report("cudaMemset3DAsync", cudaMemset3DAsync(pitched, 0, make_cudaExtent(16, 4, 3), legacy));
  report("cudaMemset3DAsync_ptsz", cudaMemset3DAsync_ptsz(pitched, 0, make_cudaExtent(16, 4, 3), per_thread));

  void* dsts[2] = {a, a + 64};
  const void* srcs[2] = {b, b + 64};
  const size_t sizes[2] = {40, 24};
  cudaMemcpyAttributes attrs{};
  size_t attrs_index = 0;
  report("cudaMemcpyBatchAsync", cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attrs, &attrs_index, 1, legacy));
  report("cudaMemcpyBatchAsync_ptsz",
         cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes, 1, &attrs, &attrs_index, 1, per_thread));
  cudaMemcpy3DBatchOp ops[2] = {};
  ops[0].extent = make_cudaExtent(6, 2, 2);
  ops[1].extent = make_cudaExtent(3, 3, 1);
  report("cudaMemcpy3DBatchAsync", cudaMemcpy3DBatchAsync(2, ops, 0, legacy));
  report("cudaMemcpy3DBatchAsync_ptsz", cudaMemcpy3DBatchAsync_ptsz(2, ops, 0, per_thread));
  return 0;
}
