// The floor of any interposer, for the PyTorch loop's timing (tests/pytorch/bench_mm_lockstep.py
// --floor): an LD_PRELOAD library that defines the four functions PyTorch calls per torch.mm
// (three handle setters and cublasSgemm_v2) and only forwards each to the real one. What the
// loop costs with it is what interposing those calls costs at all (a call through the
// preloaded definition, its code and the pointer it loads); what the shim costs beyond it is its
// own work.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <atomic>

namespace {

// The real function: in the library already loaded that PyTorch links (dlopen'ed by Python
// without RTLD_GLOBAL, so RTLD_NEXT does not see it), else the next definition. Looked up on the
// first call, then one load.
template <typename Fn>
Fn real(std::atomic<Fn>& cache, const char* name) {
  Fn fn = cache.load(std::memory_order_relaxed);
  if (fn == nullptr) [[unlikely]] {
    void* lib = dlopen("libcublas.so.12", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) lib = dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD);
    fn = reinterpret_cast<Fn>(lib != nullptr ? dlsym(lib, name) : dlsym(RTLD_NEXT, name));
    cache.store(fn, std::memory_order_relaxed);
  }
  return fn;
}

std::atomic<decltype(&cublasSetStream_v2)> g_set_stream;
std::atomic<decltype(&cublasSetWorkspace_v2)> g_set_workspace;
std::atomic<decltype(&cublasSetMathMode)> g_set_math_mode;
std::atomic<decltype(&cublasSgemm_v2)> g_sgemm;

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cublasStatus_t cublasSetStream_v2(cublasHandle_t handle,
                                                                         cudaStream_t stream) {
  return real(g_set_stream, "cublasSetStream_v2")(handle, stream);
}

__attribute__((visibility("default"))) cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,
                                                                            size_t bytes) {
  return real(g_set_workspace, "cublasSetWorkspace_v2")(handle, workspace, bytes);
}

__attribute__((visibility("default"))) cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  return real(g_set_math_mode, "cublasSetMathMode")(handle, mode);
}

__attribute__((visibility("default"))) cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                                                     cublasOperation_t transb, int m, int n, int k,
                                                                     const float* alpha, const float* A, int lda,
                                                                     const float* B, int ldb, const float* beta,
                                                                     float* C, int ldc) {
  return real(g_sgemm, "cublasSgemm_v2")(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // extern "C"
