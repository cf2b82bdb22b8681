// A library of a program that holds two cuBLAS majors at once: compiled twice, against the CUDA
// 12 stand-in (libcublas.so.12) and the CUDA 13 one (libcublas.so.13), each copy with entry
// points of its own name (OWN_CUBLAS_ENTRY: own_cublas12, own_cublas13). Each makes a handle with
// the cuBLAS it links and runs GEMMs on it, so that a call routed to the other major's library
// (a shim's wrapper must pick the one that made the handle) crashes there (the stand-ins tag
// their handles by major) instead of working by accident.
#include <cstdint>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

#define OWN_CUBLAS_CAT2(a, b) a##b
#define OWN_CUBLAS_CAT(a, b) OWN_CUBLAS_CAT2(a, b)
#define OWN_CUBLAS_NAME(suffix) OWN_CUBLAS_CAT(OWN_CUBLAS_ENTRY, suffix)

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

struct OwnCublas {
  cublasHandle_t handle = nullptr;
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
};

}  // namespace

// The handle and the operands; nullptr when cuBLAS or the memory could not be had.
extern "C" __attribute__((visibility("default"))) void* OWN_CUBLAS_NAME(_open)() {
  auto* own = new OwnCublas;
  if (cublasCreate(&own->handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  own->a = device_copy(std::vector<float>(kM * kK, 1.0f));
  own->b = device_copy(std::vector<float>(kK * kN, 1.0f));
  own->c = device_copy(std::vector<float>(kM * kN, 0.0f));
  if (own->a == nullptr || own->b == nullptr || own->c == nullptr) return nullptr;
  return own;
}

// One round as PyTorch makes it (the setters, then the GEMM, alpha = round + 1), and the sum of
// C afterwards; a negative number is the status of the call that failed.
extern "C" __attribute__((visibility("default"))) double OWN_CUBLAS_NAME(_round)(void* opened, int round) {
  auto* own = static_cast<OwnCublas*>(opened);
  if (cublasStatus_t s = cublasSetStream(own->handle, nullptr); s != CUBLAS_STATUS_SUCCESS) return -s;
  if (cublasStatus_t s = cublasSetMathMode(own->handle, CUBLAS_DEFAULT_MATH); s != CUBLAS_STATUS_SUCCESS) return -s;
  const float alpha = static_cast<float>(round + 1), beta = 0.0f;
  if (cublasStatus_t s = cublasSgemm(own->handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, own->a, kM, own->b,
                                     kK, &beta, own->c, kM);
      s != CUBLAS_STATUS_SUCCESS) {
    return -s;
  }
  std::vector<float> c(kM * kN);
  cudaMemcpy(c.data(), own->c, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : c) sum += v;
  return sum;
}

// What this library's CUDA runtime says of an error made in it: cudaStreamCreate(nullptr) fails
// with cudaErrorInvalidValue (1), which the runtime keeps for cudaGetLastError, and clears once
// read: 10 (1, then 0). A runtime call routed to the other major's runtime (a shim's wrapper of
// cudaGetLastError) finds no error there. (Neither call is a tail call: a routing by return
// address would see this library's caller instead.)
extern "C" __attribute__((visibility("default"))) int OWN_CUBLAS_NAME(_last_error)() {
  cudaStreamCreate(nullptr);
  const cudaError_t kept = cudaGetLastError();
  const cudaError_t cleared = cudaGetLastError();
  return static_cast<int>(kept) * 10 + static_cast<int>(cleared);
}

// The same through cudaPeekAtLastError, which leaves the error where it is: 11 (1 peeked, then
// 1 read and cleared), for a program whose first cudaPeekAtLastError comes after a second major
// was loaded.
extern "C" __attribute__((visibility("default"))) int OWN_CUBLAS_NAME(_peek_error)() {
  cudaStreamCreate(nullptr);
  const cudaError_t peeked = cudaPeekAtLastError();
  const cudaError_t kept = cudaGetLastError();
  return static_cast<int>(peeked) * 10 + static_cast<int>(kept);
}

extern "C" __attribute__((visibility("default"))) int OWN_CUBLAS_NAME(_close)(void* opened) {
  auto* own = static_cast<OwnCublas*>(opened);
  cudaFree(own->a);
  cudaFree(own->b);
  cudaFree(own->c);
  const int status = cublasDestroy(own->handle);
  delete own;
  return status;
}
