// Shadow copies of cuBLASLt matmul descriptors and matrix layouts, kept from their Create,
// Init_internal and SetAttribute calls, so that each cublasLtMatmul record can carry m, n, k,
// transposes, types, lds, orders, batches and epilogue without asking cuBLASLt. Descriptors
// never seen (created before the shim was active) are read back with the real GetAttribute.
// A lock-free ShadowTable like the handle registry; PyTorch creates and destroys descriptors
// around every matmul.
#pragma once

#include <atomic>
#include <cstdint>

#include "checks/operand_checks.h"
#include "shadow_table.h"
#include "trace/trace_format.h"

namespace cublasspy {

enum class LtObject : uint8_t { kMatmulDesc = 1, kLayout = 2, kPreference = 3, kEmulationDesc = 4 };

struct LtShadow {
  static constexpr int kAttributes = 40;
  std::atomic<uint64_t> key{0};     // descriptor address; 0 empty, 1 destroyed
  std::atomic<uint8_t> object{0};   // LtObject
  std::atomic<uint64_t> set_mask{0};
  std::atomic<uint64_t> value[kAttributes];  // first 8 bytes of each attribute, as set
};

class LtRegistry : public ShadowTable<LtShadow, 4096, 0xc4ceb9fe1a85ec53ull> {
 public:
  // The shadow of a newly created descriptor, with no attribute set yet.
  LtShadow* add(uint64_t key, LtObject object);
};

LtRegistry& lt_registry();

// Records an attribute's value (up to 8 bytes, zero-extended) in the shadow of `desc`.
void lt_set_attribute(uint64_t desc, uint32_t attr, const void* buf, uint64_t size);

// The settings of the emulation descriptor a matmul descriptor names (its
// CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR; 0: none), from its shadow: all zero when none is
// attached, kEmulationAttached alone when the shim never saw it created. No library call.
void read_lt_emulation(uint64_t emulation_desc, format::LtEmulation& out);

// A cuBLASLt matmul's epilogue, bias, auxiliary buffer and batch counts (checks/operand_checks.h),
// from the shadows of its descriptor and its A, B, C, D layouts, for CUBLASSPY_CHECK. The bias and
// aux attributes are read only for an epilogue that uses them: a descriptor the shim saw created
// answers from its shadow, another through the real GetAttribute.
LtMatmulExtras read_lt_matmul_extras(uint64_t matmul_desc, const uint64_t layouts[4]);

// The attributes of one matmul descriptor or layout, its shadow looked up once (a matmul
// record reads about forty of them). get(): the shadow's value, else the default a fresh
// descriptor has, else (a descriptor never seen) the real GetAttribute's answer, else
// format::kArgUnset.
class LtAttributes {
 public:
  LtAttributes(LtObject object, uint64_t desc)
      : object_(object), desc_(desc), shadow_(lt_registry().find(desc)),
        set_(shadow_ != nullptr ? shadow_->set_mask.load(std::memory_order_acquire) : 0) {}

  uint64_t get(uint32_t attr) const {
    if (attr < LtShadow::kAttributes && (set_ >> attr & 1)) {
      return shadow_->value[attr].load(std::memory_order_relaxed);
    }
    if (desc_ <= LtRegistry::kTombstone) return format::kArgUnset;  // null: nothing to ask
    return unset(attr);
  }

 private:
  uint64_t unset(uint32_t attr) const;  // the default, or the real GetAttribute

  LtObject object_;
  uint64_t desc_;
  LtShadow* shadow_;
  uint64_t set_;  // the shadow's set_mask when looked up
};

}  // namespace cublasspy
