// A minimal LD_PRELOAD library for the selftest: it defines cublasLtMatmul (unversioned, like
// a tracing shim), counts the calls and forwards them. It proves that the stand-in's
// cublasGemmEx reaches cublasLtMatmul through the dynamic linker, where a shim can see it.
#include <cublasLt.h>
#include <dlfcn.h>

#include <atomic>

extern "C" {

__attribute__((visibility("default"))) std::atomic<int> probe_lt_matmul_calls{0};

__attribute__((visibility("default"))) cublasStatus_t cublasLtMatmul(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
    const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C, cublasLtMatrixLayout_t Cdesc, void* D,
    cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspaceSize,
    cudaStream_t stream) {
  using Fn = decltype(&cublasLtMatmul);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "cublasLtMatmul"));
  probe_lt_matmul_calls.fetch_add(1);
  return real(handle, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace, workspaceSize, stream);
}

}  // extern "C"
