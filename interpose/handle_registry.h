// Shadow state of each cuBLAS handle (stream, pointer mode, math mode, workspace, and which
// loaded libcublas it belongs to), kept from the Set* calls so that every GEMM record carries
// them without asking cuBLAS. Lock-free: a fixed open-addressing table, because handles are
// few (one per device and thread pool) and lookups happen on every call.
#pragma once

#include <atomic>
#include <cstdint>

namespace cublasspy {

struct HandleState {
  std::atomic<uint64_t> key{0};  // the handle value; 0 empty, 1 a destroyed entry
  std::atomic<uint64_t> stream{0};
  std::atomic<int32_t> pointer_mode{0};  // CUBLAS_POINTER_MODE_HOST on creation
  std::atomic<int32_t> math_mode{0};     // CUBLAS_DEFAULT_MATH on creation
  std::atomic<uint64_t> workspace{0};
  std::atomic<uint64_t> workspace_bytes{0};
  std::atomic<int32_t> variant{-1};      // index into the library's sonames, -1 default
};

class HandleRegistry {
 public:
  static constexpr uint32_t kCapacity = 4096;
  // Returns the entry for a newly created handle (reusing a destroyed one's place).
  HandleState* add(uint64_t handle, int variant);
  HandleState* find(uint64_t handle);
  void remove(uint64_t handle);
 private:
  HandleState entries_[kCapacity];
};

HandleRegistry& handles();

}  // namespace cublasspy
