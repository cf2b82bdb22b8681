// A program built as with --default-stream per-thread (CUDA_API_PER_THREAD_DEFAULT_STREAM): the
// CUDA headers turn its copies, memsets and stream queries into their per-thread forms
// (cudaMemcpy -> cudaMemcpy_ptds, cudaMemsetAsync -> cudaMemsetAsync_ptsz, cuMemcpyHtoDAsync ->
// cuMemcpyHtoDAsync_v2_ptsz, cuStreamQuery -> cuStreamQuery_ptsz, ...), and cuGetProcAddress
// looks the driver's up with the per-thread flag. It calls each once, in a fixed order, and
// prints its name and status; exit status 0. On the stand-in, STANDIN_ASYNC_ERROR=
// cudaMemsetAsync_ptsz:1:700 makes the first memset "fault": every call after it reports 700.
//
//   diag_per_thread [--legacy-lookups]
//     --legacy-lookups  the resolver's copies and memsets asked for with the legacy-stream flag:
//                       the plain forms (cuMemcpyHtoDAsync answered by cuMemcpyHtoDAsync_v2)
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error "diag_per_thread is built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

namespace {

void report(const char* what, int status) { std::printf("%s %d\n", what, status); }

// A driver function looked up by its unversioned name, as a program with the static runtime does.
template <typename Fn>
Fn look_up(const char* name, cuuint64_t flags) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found{};
  const CUresult rc = cuGetProcAddress(name, &fn, 12000, flags, &found);
  if (rc != CUDA_SUCCESS || fn == nullptr) std::printf("cuGetProcAddress %s %d\n", name, static_cast<int>(rc));
  return reinterpret_cast<Fn>(fn);
}

}  // namespace

int main(int argc, char** argv) {
  cuuint64_t flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if (argc == 2 && std::strcmp(argv[1], "--legacy-lookups") == 0) {
    flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: diag_per_thread [--legacy-lookups]\n");
    return 2;
  }
  constexpr size_t kBytes = 64;
  unsigned char host[kBytes];
  std::memset(host, 1, sizeof host);
  void* a = nullptr;
  void* b = nullptr;
  report("cudaMalloc", cudaMalloc(&a, kBytes));
  report("cudaMalloc", cudaMalloc(&b, kBytes));
  const auto da = reinterpret_cast<CUdeviceptr>(a), db = reinterpret_cast<CUdeviceptr>(b);
  // Looked up after the runtime made its context current: the first thing a static runtime does.
  const auto resolved_htod = look_up<CUresult (*)(CUdeviceptr, const void*, size_t, CUstream)>("cuMemcpyHtoDAsync", flags);
  const auto resolved_memset = look_up<CUresult (*)(CUdeviceptr, unsigned int, size_t, CUstream)>("cuMemsetD32Async", flags);
  const auto resolved_query = look_up<CUresult (*)(CUstream)>("cuStreamQuery", flags);

  report("cudaMemcpy", cudaMemcpy(a, host, kBytes, cudaMemcpyHostToDevice));  // clean: the bound
  report("cudaMemsetAsync", cudaMemsetAsync(a, 0, 48, 0));                     // the one that faults
  report("cudaMemcpyAsync", cudaMemcpyAsync(b, a, 40, cudaMemcpyDeviceToDevice, 0));
  report("cudaStreamQuery", cudaStreamQuery(0));
  report("cuMemsetD8Async", cuMemsetD8Async(da, 7, 8, nullptr));
  report("cuMemsetD16Async", cuMemsetD16Async(da, 7, 8, nullptr));
  report("cuMemsetD32Async", cuMemsetD32Async(da, 7, 8, nullptr));
  report("cuMemcpyAsync", cuMemcpyAsync(db, da, 24, nullptr));
  report("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync(da, host, 20, nullptr));
  report("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync(host, da, 12, nullptr));
  report("cuMemcpyDtoDAsync", cuMemcpyDtoDAsync(db, da, 4, nullptr));
  report("cuStreamQuery", cuStreamQuery(nullptr));
  if (resolved_htod != nullptr) report("resolved cuMemcpyHtoDAsync", resolved_htod(da, host, 36, nullptr));
  if (resolved_memset != nullptr) report("resolved cuMemsetD32Async", resolved_memset(da, 0, 2, nullptr));
  if (resolved_query != nullptr) report("resolved cuStreamQuery", resolved_query(nullptr));
  report("cudaMemcpy", cudaMemcpy(host, b, kBytes, cudaMemcpyDeviceToHost));
  return 0;
}
