#include "replay/runner/cuda_libraries.h"

#include <dlfcn.h>
#include <link.h>

namespace cublasspy::replay {
namespace {

std::string loaded_path(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  return map->l_name;
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

template <typename Fn>
bool resolve(void* lib, const char* name, Fn& out, std::string& error, const std::string& lib_name) {
  dlerror();
  out = reinterpret_cast<Fn>(dlsym(lib, name));
  if (out == nullptr) error = lib_name + " has no " + name + " (" + last_dl_error() + ")";
  return out != nullptr;
}

}  // namespace

CudaLibraries::~CudaLibraries() {
  // The libraries stay loaded: unloading CUDA libraries at exit is a known source of crashes,
  // and the process ends right after.
}

bool CudaLibraries::load(std::string& error) {
  // One major for all three: the runtime's, then the cuBLAS libraries of the same major.
  std::string tried;
  for (const char* major : {"13", "12"}) {
    std::string cudart = std::string("libcudart.so.") + major;
    dlerror();
    cudart_ = dlopen(cudart.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cudart_ == nullptr) {
      tried += (tried.empty() ? "" : "; ") + last_dl_error();
      continue;
    }
    std::string cublaslt = std::string("libcublasLt.so.") + major;
    std::string cublas = std::string("libcublas.so.") + major;
    cublaslt_ = dlopen(cublaslt.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cublaslt_ == nullptr) {
      error = "cannot load " + cublaslt + ": " + last_dl_error();
      return false;
    }
    cublas_ = dlopen(cublas.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (cublas_ == nullptr) {
      error = "cannot load " + cublas + ": " + last_dl_error();
      return false;
    }
    cudart_path = loaded_path(cudart_);
    cublas_path = loaded_path(cublas_);
    cublaslt_path = loaded_path(cublaslt_);
    break;
  }
  if (cudart_ == nullptr) {
    error = "cannot load the CUDA runtime (libcudart.so.13 or .12): " + tried;
    return false;
  }
  const std::string rt = "libcudart", bl = "libcublas", lt = "libcublasLt";
  const bool required =
      resolve(cudart_, "cudaMalloc", Malloc, error, rt) && resolve(cudart_, "cudaFree", Free, error, rt) &&
      resolve(cudart_, "cudaMemcpy", Memcpy, error, rt) &&
      resolve(cudart_, "cudaDeviceSynchronize", DeviceSynchronize, error, rt) &&
      resolve(cudart_, "cudaStreamSynchronize", StreamSynchronize, error, rt) &&
      resolve(cudart_, "cudaStreamCreate", StreamCreate, error, rt) &&
      resolve(cudart_, "cudaStreamDestroy", StreamDestroy, error, rt) &&
      resolve(cudart_, "cudaGetLastError", GetLastError, error, rt) &&
      resolve(cudart_, "cudaRuntimeGetVersion", RuntimeGetVersion, error, rt) &&
      resolve(cudart_, "cudaDriverGetVersion", DriverGetVersion, error, rt) &&
      resolve(cublas_, "cublasCreate_v2", Create, error, bl) && resolve(cublas_, "cublasDestroy_v2", Destroy, error, bl) &&
      resolve(cublas_, "cublasSetStream_v2", SetStream, error, bl) &&
      resolve(cublas_, "cublasSetPointerMode_v2", SetPointerMode, error, bl) &&
      resolve(cublas_, "cublasSetMathMode", SetMathMode, error, bl) &&
      resolve(cublas_, "cublasSetWorkspace_v2", SetWorkspace, error, bl) &&
      resolve(cublaslt_, "cublasLtCreate", LtCreate, error, lt) && resolve(cublaslt_, "cublasLtDestroy", LtDestroy, error, lt) &&
      resolve(cublaslt_, "cublasLtMatmulDescCreate", LtMatmulDescCreate, error, lt) &&
      resolve(cublaslt_, "cublasLtMatmulDescSetAttribute", LtMatmulDescSetAttribute, error, lt) &&
      resolve(cublaslt_, "cublasLtMatmulDescDestroy", LtMatmulDescDestroy, error, lt) &&
      resolve(cublaslt_, "cublasLtMatrixLayoutCreate", LtMatrixLayoutCreate, error, lt) &&
      resolve(cublaslt_, "cublasLtMatrixLayoutSetAttribute", LtMatrixLayoutSetAttribute, error, lt) &&
      resolve(cublaslt_, "cublasLtMatrixLayoutDestroy", LtMatrixLayoutDestroy, error, lt);
  if (!required) return false;
  // Only the replay of a v1 or cublasXt call needs these; a library without them (the CPU
  // stand-in has no cublasXt) is fine until such a call is replayed.
  std::string ignored;
  resolve(cublas_, "cublasInit", LegacyInit, ignored, bl);
  resolve(cublas_, "cublasShutdown", LegacyShutdown, ignored, bl);
  resolve(cublas_, "cublasGetError", LegacyGetError, ignored, bl);
  resolve(cublas_, "cublasXtCreate", XtCreate, ignored, bl);
  resolve(cublas_, "cublasXtDestroy", XtDestroy, ignored, bl);
  resolve(cublas_, "cublasXtDeviceSelect", XtDeviceSelect, ignored, bl);
  return true;
}

void* CudaLibraries::cublas_symbol(const char* name) const { return cublas_ ? dlsym(cublas_, name) : nullptr; }
void* CudaLibraries::cublaslt_symbol(const char* name) const { return cublaslt_ ? dlsym(cublaslt_, name) : nullptr; }

}  // namespace cublasspy::replay
