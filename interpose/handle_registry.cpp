#include "handle_registry.h"

namespace cublasspy {
namespace {

constexpr uint64_t kEmpty = 0;
constexpr uint64_t kTombstone = 1;

uint32_t slot_of(uint64_t handle) {
  // Handles are heap pointers: mix the bits so neighbouring allocations spread out.
  handle ^= handle >> 33;
  handle *= 0xff51afd7ed558ccdull;
  handle ^= handle >> 33;
  return static_cast<uint32_t>(handle % HandleRegistry::kCapacity);
}

}  // namespace

HandleState* HandleRegistry::add(uint64_t handle, int variant) {
  if (handle <= kTombstone) return nullptr;
  uint32_t start = slot_of(handle);
  for (uint32_t i = 0; i < kCapacity; ++i) {
    HandleState& e = entries_[(start + i) % kCapacity];
    uint64_t key = e.key.load(std::memory_order_acquire);
    if (key == handle) return &e;  // cuBLAS reused the address of a destroyed handle
    if (key == kEmpty || key == kTombstone) {
      if (!e.key.compare_exchange_strong(key, handle, std::memory_order_acq_rel)) continue;
      e.stream.store(0, std::memory_order_relaxed);
      e.pointer_mode.store(0, std::memory_order_relaxed);
      e.math_mode.store(0, std::memory_order_relaxed);
      e.workspace.store(0, std::memory_order_relaxed);
      e.workspace_bytes.store(0, std::memory_order_relaxed);
      e.variant.store(variant, std::memory_order_release);
      return &e;
    }
  }
  return nullptr;  // more live handles than places: the calls are still recorded, less state
}

HandleState* HandleRegistry::find(uint64_t handle) {
  if (handle <= kTombstone) return nullptr;
  uint32_t start = slot_of(handle);
  for (uint32_t i = 0; i < kCapacity; ++i) {
    HandleState& e = entries_[(start + i) % kCapacity];
    uint64_t key = e.key.load(std::memory_order_acquire);
    if (key == handle) return &e;
    if (key == kEmpty) return nullptr;
  }
  return nullptr;
}

void HandleRegistry::remove(uint64_t handle) {
  if (HandleState* e = find(handle)) e->key.store(kTombstone, std::memory_order_release);
}

HandleRegistry& handles() {
  static HandleRegistry registry;  // constant-initialized: no constructor runs at load time
  return registry;
}

}  // namespace cublasspy
