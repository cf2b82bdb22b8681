// Shadow state of each cuBLAS handle (stream, pointer mode, math mode, workspace, and which
// loaded libcublas it belongs to), kept from the Set* calls so that every GEMM record carries
// them without asking cuBLAS. Handles are few (one per device and thread pool) and looked up
// on every call: a lock-free ShadowTable.
#pragma once

#include <atomic>
#include <cstdint>

#include "shadow_table.h"

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

class HandleRegistry : public ShadowTable<HandleState, 4096, 0xff51afd7ed558ccdull> {
 public:
  // The entry for a newly created handle, in its creation state (reusing a destroyed one's
  // place); nullptr when the table has no place for it (the calls are still recorded).
  HandleState* add(uint64_t handle, int variant);
};

// The registry, constant-initialized (no constructor runs at load time). Inline: every call on
// a handle looks it up.
namespace detail {
extern constinit HandleRegistry g_handles;
}
inline HandleRegistry& handles() { return detail::g_handles; }

}  // namespace cublasspy
