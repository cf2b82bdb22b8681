// Shadow copies of cuBLASLt matmul descriptors and matrix layouts, kept from their Create,
// Init_internal and SetAttribute calls, so that each cublasLtMatmul record can carry m, n, k,
// transposes, types, lds, orders, batches and epilogue without asking cuBLASLt. Descriptors
// never seen (created before the shim was active) are read back with the real GetAttribute.
// Lock-free like the handle registry; PyTorch creates and destroys descriptors per matmul.
#pragma once

#include <atomic>
#include <cstdint>

namespace cublasspy {

enum class LtObject : uint8_t { kMatmulDesc = 1, kLayout = 2, kPreference = 3 };

struct LtShadow {
  static constexpr int kAttributes = 40;
  std::atomic<uint64_t> key{0};     // descriptor address; 0 empty, 1 destroyed
  std::atomic<uint8_t> object{0};   // LtObject
  std::atomic<uint64_t> set_mask{0};
  std::atomic<uint64_t> value[kAttributes];  // first 8 bytes of each attribute, as set
};

class LtRegistry {
 public:
  static constexpr uint32_t kCapacity = 4096;
  LtShadow* add(uint64_t key, LtObject object);
  LtShadow* find(uint64_t key);
  void remove(uint64_t key);
 private:
  LtShadow entries_[kCapacity];
};

LtRegistry& lt_registry();

// Records an attribute's value (up to 8 bytes, zero-extended) in the shadow of `desc`.
void lt_set_attribute(uint64_t desc, uint32_t attr, const void* buf, uint64_t size);

// An attribute of a matmul descriptor or layout: the shadow's value, else the default a fresh
// descriptor has, else (descriptor never seen) the real GetAttribute's answer. `ok` false when
// nothing is known.
uint64_t lt_attribute(LtObject object, uint64_t desc, uint32_t attr, bool* ok);

}  // namespace cublasspy
