// The runtime's batch copies as a program built with CUDA 12.8 calls them: the prototypes with
// failIdx, against a libcudart.so.12 of those (null_cuda/cudart_12_8_batches.cpp, which answers
// each call by writing its stream to *failIdx). Prints "NAME STATUS" for each call, so a test can
// compare with the launch ring; exits 1 when an answer shows that the arguments arrived out of
// place.
#include <builtin_types.h>

#include <cstdint>
#include <cstdio>

extern "C" {
cudaError_t cudaMemcpyBatchAsync(void**, void**, size_t*, size_t, cudaMemcpyAttributes*, size_t*, size_t, size_t*,
                                 cudaStream_t);
cudaError_t cudaMemcpyBatchAsync_ptsz(void**, void**, size_t*, size_t, cudaMemcpyAttributes*, size_t*, size_t,
                                      size_t*, cudaStream_t);
cudaError_t cudaMemcpy3DBatchAsync(size_t, cudaMemcpy3DBatchOp*, size_t*, unsigned long long, cudaStream_t);
cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t, cudaMemcpy3DBatchOp*, size_t*, unsigned long long, cudaStream_t);
}

namespace {
bool intact = true;

// `fail_index` is what the library wrote, the stream it was given (a reference: read after the
// call, whatever order the arguments are evaluated in).
void report(const char* name, cudaError_t status, const size_t& fail_index, cudaStream_t stream) {
  std::printf("%s %d\n", name, static_cast<int>(status));
  if (fail_index != reinterpret_cast<uintptr_t>(stream)) {
    std::fprintf(stderr, "%s: the library got stream %#zx, not %p\n", name, fail_index, static_cast<void*>(stream));
    intact = false;
  }
}
}  // namespace

int main() {
  static unsigned char a[4096], b[4096];
  void* dsts[3] = {a, a + 100, a + 200};
  void* srcs[3] = {b, b + 100, b + 200};
  size_t sizes[3] = {10, 20, 30};
  cudaMemcpyAttributes attrs{};
  size_t attrs_index = 0;
  const cudaStream_t legacy = cudaStreamLegacy, per_thread = cudaStreamPerThread;
  const auto other = reinterpret_cast<cudaStream_t>(0x5500);
  size_t fail = 0;

  report("cudaMemcpyBatchAsync", cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attrs, &attrs_index, 1, &fail, legacy),
         fail, legacy);
  report("cudaMemcpyBatchAsync_ptsz",
         cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes + 1, 2, &attrs, &attrs_index, 1, &fail, per_thread), fail,
         per_thread);
  report("cudaMemcpyBatchAsync", cudaMemcpyBatchAsync(dsts, srcs, nullptr, 3, &attrs, &attrs_index, 1, &fail, other),
         fail, other);  // a null sizes array: 0 bytes

  cudaMemcpy3DBatchOp ops[2] = {};
  ops[0].extent = cudaExtent{4, 3, 2};
  ops[1].extent = cudaExtent{5, 1, 1};
  report("cudaMemcpy3DBatchAsync", cudaMemcpy3DBatchAsync(2, ops, &fail, 0, legacy), fail, legacy);
  report("cudaMemcpy3DBatchAsync_ptsz", cudaMemcpy3DBatchAsync_ptsz(1, ops, &fail, 0, per_thread), fail, per_thread);
  report("cudaMemcpy3DBatchAsync", cudaMemcpy3DBatchAsync(2, nullptr, &fail, 0, other), fail, other);  // 0 bytes
  return intact ? 0 : 1;
}
