// The shim's shadow state of objects the program creates and destroys (cuBLAS handles,
// cuBLASLt descriptors), keyed by the object's address. Lock-free: a fixed open-addressing
// table read on every call and written only on create and destroy.
//
// Probes are bounded. Destroyed entries leave tombstones, and PyTorch creates and destroys
// cuBLASLt descriptors around every matmul: with unbounded probing the table fills with
// tombstones and each look-up of an address it does not hold walks the whole table. A key that
// finds no place within its window is just not shadowed; its callers fall back (the record
// carries less state, or the real GetAttribute is asked).
#pragma once

#include <atomic>
#include <cstdint>

namespace cublasspy {

// Entry must have `std::atomic<uint64_t> key` (0 empty, 1 destroyed, else the address).
template <typename Entry, uint32_t kCapacity, uint64_t kMix>
class ShadowTable {
 public:
  static constexpr uint32_t kMaxProbes = 64;
  static constexpr uint64_t kEmpty = 0;
  static constexpr uint64_t kTombstone = 1;

  // The entry for a newly created object: its old entry if the address is still held (reused
  // before its destroy was seen), else a destroyed or empty place. The caller resets the rest.
  Entry* claim(uint64_t key) {
    if (key <= kTombstone) return nullptr;
    if (Entry* e = find(key)) return e;
    const uint32_t home = slot_of(key);
    for (uint32_t i = 0; i < kMaxProbes; ++i) {
      Entry& e = entries_[(home + i) % kCapacity];
      uint64_t k = e.key.load(std::memory_order_acquire);
      if (k != kEmpty && k != kTombstone) continue;
      if (e.key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) return &e;
    }
    return nullptr;
  }

  Entry* find(uint64_t key) {
    if (key <= kTombstone) return nullptr;
    const uint32_t home = slot_of(key);
    for (uint32_t i = 0; i < kMaxProbes; ++i) {
      Entry& e = entries_[(home + i) % kCapacity];
      uint64_t k = e.key.load(std::memory_order_acquire);
      if (k == key) return &e;
      if (k == kEmpty) return nullptr;
    }
    return nullptr;
  }

  void remove(uint64_t key) {
    if (Entry* e = find(key)) e->key.store(kTombstone, std::memory_order_release);
  }

 private:
  static uint32_t slot_of(uint64_t key) {
    // Addresses of neighbouring allocations differ in a few middle bits: mix them all in.
    key ^= key >> 33;
    key *= kMix;
    key ^= key >> 33;
    return static_cast<uint32_t>(key % kCapacity);
  }

  Entry entries_[kCapacity];
};

}  // namespace cublasspy
