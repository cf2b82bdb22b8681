#include "handle_registry.h"

#include "runtime.h"

namespace cublasspy {

HandleState* HandleRegistry::add(uint64_t handle, int variant) {
  HandleState* e = claim(handle);
  if (e == nullptr) return nullptr;
  e->stream.store(0, std::memory_order_relaxed);
  e->pointer_mode.store(0, std::memory_order_relaxed);
  e->math_mode.store(0, std::memory_order_relaxed);
  e->workspace.store(0, std::memory_order_relaxed);
  e->workspace_bytes.store(0, std::memory_order_relaxed);
  e->variant.store(variant, std::memory_order_release);
  return e;
}

HandleState* find_handle_slow(ThreadState& ts, uint64_t h) {
  HandleState* st = handles().find(h);
  if (st != nullptr) {
    ts.last_handle = h;
    ts.last_handle_state = st;
  }
  return st;
}

constinit HandleRegistry detail::g_handles;

}  // namespace cublasspy
