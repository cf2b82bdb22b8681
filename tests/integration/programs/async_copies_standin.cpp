// A 2D copy that succeeds, of real memory: on the stand-in (LD_LIBRARY_PATH), host rows into a
// wider-pitched device buffer with cudaMemcpy2DAsync on the legacy stream, and back into a packed
// host buffer with cudaMemcpy2DAsync_ptsz on the per-thread stream, then cudaDeviceSynchronize.
// Prints "NAME STATUS" per call; exits 1 when what came back is not what went in.
#include <cstdio>
#include <cstring>

#include <cuda_runtime_api.h>

#include "spec/per_thread_runtime.h"  // the _ptsz forms, declared as the hook list names them

namespace {
void report(const char* name, cudaError_t status) { std::printf("%s %d\n", name, static_cast<int>(status)); }
}  // namespace

int main() {
  constexpr size_t kWidth = 24, kHeight = 4, kSrcPitch = 32, kDevPitch = 64;
  unsigned char src[kSrcPitch * kHeight], back[kWidth * kHeight];
  for (size_t i = 0; i < sizeof src; ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  std::memset(back, 0, sizeof back);
  void* dev = nullptr;
  if (cudaMalloc(&dev, kDevPitch * kHeight) != cudaSuccess) return 2;
  report("cudaMemcpy2DAsync",
         cudaMemcpy2DAsync(dev, kDevPitch, src, kSrcPitch, kWidth, kHeight, cudaMemcpyHostToDevice, cudaStreamLegacy));
  report("cudaMemcpy2DAsync_ptsz", cudaMemcpy2DAsync_ptsz(back, kWidth, dev, kDevPitch, kWidth, kHeight,
                                                          cudaMemcpyDeviceToHost, cudaStreamPerThread));
  const cudaError_t waited = cudaDeviceSynchronize();
  report("cudaDeviceSynchronize", waited);
  if (waited != cudaSuccess) return 2;
  for (size_t row = 0; row < kHeight; ++row) {
    if (std::memcmp(back + row * kWidth, src + row * kSrcPitch, kWidth) != 0) {
      std::fprintf(stderr, "row %zu came back wrong\n", row);
      return 1;
    }
  }
  cudaFree(dev);
  return 0;
}
