// The cuBLASLt descriptors of a replayed cublasLtMatmul, rebuilt from the plan: the matmul
// descriptor (compute and scale types, transposes, pointer mode, epilogue, bias and scale
// pointers) and one layout per matrix (type, rows, cols, ld, order, batch count and stride).
#pragma once

#include <string>

#include "replay/runner/cuda_libraries.h"
#include "replay/runner/device_operands.h"
#include "replay/replay_plan.h"

namespace cublasspy::replay {

class LtDescriptors {
 public:
  explicit LtDescriptors(const CudaLibraries& cuda) : cuda_(cuda) {}
  LtDescriptors(const LtDescriptors&) = delete;
  ~LtDescriptors();

  // Returns the first failing cuBLASLt status (0 on success), `step` naming the call.
  int build(const ReplayPlan& plan, const DeviceOperands& operands, std::string& step);

  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t layout[4] = {nullptr, nullptr, nullptr, nullptr};  // A, B, C, D

 private:
  const CudaLibraries& cuda_;
};

}  // namespace cublasspy::replay
