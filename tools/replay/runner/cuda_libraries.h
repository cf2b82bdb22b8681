// The CUDA libraries the runner drives, opened at run time by soname (libcudart.so.13, then
// .12; libcublas and libcublasLt of the same major), so LD_LIBRARY_PATH picks the copy exactly
// as it would for the user's program, and the tool itself never depends on CUDA.
#pragma once

#include <string>

#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>

namespace cublasspy::replay {

class CudaLibraries {
 public:
  CudaLibraries() = default;
  CudaLibraries(const CudaLibraries&) = delete;
  ~CudaLibraries();

  // Opens the three libraries and resolves what the runner calls. On failure returns false
  // with `error` naming the library or symbol and dlerror()'s text.
  bool load(std::string& error);

  // An entry point of libcublas or libcublasLt, or nullptr.
  void* cublas_symbol(const char* name) const;
  void* cublaslt_symbol(const char* name) const;

  std::string cudart_path, cublas_path, cublaslt_path;  // as loaded

  // The runtime, typed from the headers.
  decltype(&::cudaMalloc) Malloc = nullptr;
  decltype(&::cudaFree) Free = nullptr;
  decltype(&::cudaMemcpy) Memcpy = nullptr;
  decltype(&::cudaDeviceSynchronize) DeviceSynchronize = nullptr;
  decltype(&::cudaStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&::cudaStreamCreate) StreamCreate = nullptr;
  decltype(&::cudaStreamDestroy) StreamDestroy = nullptr;
  decltype(&::cudaGetLastError) GetLastError = nullptr;
  decltype(&::cudaRuntimeGetVersion) RuntimeGetVersion = nullptr;
  decltype(&::cudaDriverGetVersion) DriverGetVersion = nullptr;

  // cuBLAS handles and their state.
  decltype(&::cublasCreate_v2) Create = nullptr;
  decltype(&::cublasDestroy_v2) Destroy = nullptr;
  decltype(&::cublasSetStream_v2) SetStream = nullptr;
  decltype(&::cublasSetPointerMode_v2) SetPointerMode = nullptr;
  decltype(&::cublasSetMathMode) SetMathMode = nullptr;
  decltype(&::cublasSetWorkspace_v2) SetWorkspace = nullptr;

  // The v1 API's set-up and status (cublas.h, which cannot be included with the v2 headers).
  using LegacyStatusFn = cublasStatus_t (*)();
  LegacyStatusFn LegacyInit = nullptr, LegacyShutdown = nullptr, LegacyGetError = nullptr;

  // cublasXt (optional: resolved when a cublasXt call is replayed).
  decltype(&::cublasXtCreate) XtCreate = nullptr;
  decltype(&::cublasXtDestroy) XtDestroy = nullptr;
  decltype(&::cublasXtDeviceSelect) XtDeviceSelect = nullptr;

  // cuBLASLt handles and descriptors.
  decltype(&::cublasLtCreate) LtCreate = nullptr;
  decltype(&::cublasLtDestroy) LtDestroy = nullptr;
  decltype(&::cublasLtMatmulDescCreate) LtMatmulDescCreate = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) LtMatmulDescSetAttribute = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) LtMatmulDescDestroy = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) LtMatrixLayoutCreate = nullptr;
  decltype(&::cublasLtMatrixLayoutSetAttribute) LtMatrixLayoutSetAttribute = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) LtMatrixLayoutDestroy = nullptr;

 private:
  void* cudart_ = nullptr;
  void* cublas_ = nullptr;
  void* cublaslt_ = nullptr;
};

}  // namespace cublasspy::replay
