// A libcudart.so.12 with CUDA 12.8's batch copies alone: the prototypes with failIdx, which CUDA
// 13's headers no longer declare (hence no CUDA header but the types'). Each one succeeds and
// writes its stream's handle to *failIdx, so a program can tell that its last two arguments
// reached the real function in their places (programs/async_batches_12_8.cpp).
#include <builtin_types.h>

#include <cstddef>
#include <cstdint>

namespace {
cudaError_t answer(size_t* failIdx, cudaStream_t stream) {
  if (failIdx != nullptr) *failIdx = reinterpret_cast<uintptr_t>(stream);
  return cudaSuccess;
}
}  // namespace

#define NULL_BATCH(fn)                                                                            \
  extern "C" __attribute__((visibility("default"))) cudaError_t fn(                              \
      void**, void**, size_t*, size_t, cudaMemcpyAttributes*, size_t*, size_t, size_t* failIdx,  \
      cudaStream_t stream) {                                                                      \
    return answer(failIdx, stream);                                                               \
  }
#define NULL_BATCH_3D(fn)                                                                         \
  extern "C" __attribute__((visibility("default"))) cudaError_t fn(                              \
      size_t, cudaMemcpy3DBatchOp*, size_t* failIdx, unsigned long long, cudaStream_t stream) {   \
    return answer(failIdx, stream);                                                               \
  }
NULL_BATCH(cudaMemcpyBatchAsync)
NULL_BATCH(cudaMemcpyBatchAsync_ptsz)
NULL_BATCH_3D(cudaMemcpy3DBatchAsync)
NULL_BATCH_3D(cudaMemcpy3DBatchAsync_ptsz)
