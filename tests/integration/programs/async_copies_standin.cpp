// 2D and 3D copies that succeed, of real memory: on the stand-in (LD_LIBRARY_PATH), host rows into a
// wider-pitched device buffer with cudaMemcpy2DAsync on the legacy stream, and back into a packed
// host buffer with cudaMemcpy2DAsync_ptsz on the per-thread stream; a 3D copy of such rows the
// same way, with cudaMemcpy3DAsync and cudaMemcpy3DAsync_ptsz; then cudaDeviceSynchronize.
// Prints "NAME STATUS" per call; exits 1 when what came back is not what went in.
#include "spec/per_thread_runtime.h"  // first: the _ptsz forms, as CUDA declares them

#include <cstdio>
#include <cstring>

#include <cuda_runtime_api.h>

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

  // 3D: kDepth slices of the same rows, into a device volume whose slices are kDevRows rows apart
  // (more than kHeight), at slice 1, row 1, byte 8 of it; back into packed host slices.
  constexpr size_t kDepth = 3, kDevRows = 6, kSlices = kDepth + 1;
  unsigned char volume[kSrcPitch * kHeight * kDepth], volume_back[kWidth * kHeight * kDepth];
  for (size_t i = 0; i < sizeof volume; ++i) volume[i] = static_cast<unsigned char>(i * 13 + 5);
  std::memset(volume_back, 0, sizeof volume_back);
  void* dev_volume = nullptr;
  if (cudaMalloc(&dev_volume, kDevPitch * kDevRows * kSlices) != cudaSuccess) return 2;
  cudaMemcpy3DParms up{};
  up.srcPtr = cudaPitchedPtr{volume, kSrcPitch, kWidth, kHeight};
  up.dstPtr = cudaPitchedPtr{dev_volume, kDevPitch, kWidth, kDevRows};
  up.dstPos = cudaPos{8, 1, 1};
  up.extent = cudaExtent{kWidth, kHeight, kDepth};
  up.kind = cudaMemcpyHostToDevice;
  report("cudaMemcpy3DAsync", cudaMemcpy3DAsync(&up, cudaStreamLegacy));
  cudaMemcpy3DParms down{};
  down.srcPtr = up.dstPtr;
  down.srcPos = up.dstPos;
  down.dstPtr = cudaPitchedPtr{volume_back, kWidth, kWidth, kHeight};
  down.extent = up.extent;
  down.kind = cudaMemcpyDeviceToHost;
  report("cudaMemcpy3DAsync_ptsz", cudaMemcpy3DAsync_ptsz(&down, cudaStreamPerThread));

  const cudaError_t waited = cudaDeviceSynchronize();
  report("cudaDeviceSynchronize", waited);
  if (waited != cudaSuccess) return 2;
  for (size_t row = 0; row < kHeight; ++row) {
    if (std::memcmp(back + row * kWidth, src + row * kSrcPitch, kWidth) != 0) {
      std::fprintf(stderr, "row %zu came back wrong\n", row);
      return 1;
    }
  }
  for (size_t row = 0; row < kHeight * kDepth; ++row) {
    if (std::memcmp(volume_back + row * kWidth, volume + row * kSrcPitch, kWidth) != 0) {
      std::fprintf(stderr, "row %zu of the volume came back wrong\n", row);
      return 1;
    }
  }
  cudaFree(dev_volume);
  cudaFree(dev);
  return 0;
}
