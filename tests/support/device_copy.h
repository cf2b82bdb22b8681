// For the subject programs (the programs the tests run under the shim): a host vector copied
// into new device memory, the way a program fills its GEMM operands. nullptr when cudaMalloc
// fails (on the real libraries without a driver, for one).
#pragma once

#include <vector>

#include <cuda_runtime_api.h>

inline float* device_copy(const std::vector<float>& host) {
  void* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(float)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}
