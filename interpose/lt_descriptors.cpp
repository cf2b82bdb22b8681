#include "lt_descriptors.h"

#include <cstring>

#include <cublasLt.h>

#include "hook_table.h"
#include "real_functions.h"
#include "runtime.h"

namespace cublasspy {
namespace {

constinit LtRegistry g_registry;

// Defaults of a freshly created descriptor (cublasLt.h): what an attribute is until set.
bool default_value(LtObject object, uint32_t attr, uint64_t* out) {
  if (object == LtObject::kLayout) {
    switch (attr) {
      case CUBLASLT_MATRIX_LAYOUT_ORDER: *out = CUBLASLT_ORDER_COL; return true;
      case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: *out = 1; return true;
      case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: *out = 0; return true;
      default: return false;
    }
  }
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: *out = CUBLASLT_POINTER_MODE_HOST; return true;
    case CUBLASLT_MATMUL_DESC_TRANSA: case CUBLASLT_MATMUL_DESC_TRANSB: *out = CUBLAS_OP_N; return true;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: *out = CUBLASLT_EPILOGUE_DEFAULT; return true;
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
      *out = 0;
      return true;
    default: return false;
  }
}

// The real GetAttribute, for a descriptor the shim never saw being made.
bool ask_cublaslt(LtObject object, uint64_t desc, uint32_t attr, uint64_t* out) {
  const char* name = object == LtObject::kLayout ? "cublasLtMatrixLayoutGetAttribute"
                                                 : "cublasLtMatmulDescGetAttribute";
  using Fn = cublasStatus_t (*)(void*, int, void*, size_t, size_t*);
  static std::atomic<Fn> cached[2];
  static std::atomic<bool> missing[2];  // searched once and not found: do not search per call
  int which = object == LtObject::kLayout ? 1 : 0;
  Fn fn = cached[which].load(std::memory_order_acquire);
  if (fn == nullptr) {
    if (missing[which].load(std::memory_order_relaxed)) return false;
    fn = reinterpret_cast<Fn>(find_loaded_symbol(Library::kCublasLt, name));
    if (fn == nullptr) {
      missing[which].store(true, std::memory_order_relaxed);
      return false;
    }
    cached[which].store(fn, std::memory_order_release);
  }
  uint64_t value = 0;
  size_t written = 0;
  ThreadState& ts = thread_state();
  ts.internal++;
  cublasStatus_t st = fn(reinterpret_cast<void*>(desc), static_cast<int>(attr), &value, sizeof value, &written);
  ts.internal--;
  if (st != CUBLAS_STATUS_SUCCESS) return false;
  *out = value;
  return true;
}

}  // namespace

LtShadow* LtRegistry::add(uint64_t key, LtObject object) {
  LtShadow* e = claim(key);
  if (e == nullptr) return nullptr;
  e->object.store(static_cast<uint8_t>(object), std::memory_order_relaxed);
  e->set_mask.store(0, std::memory_order_release);
  return e;
}

LtRegistry& lt_registry() { return g_registry; }

void lt_set_attribute(uint64_t desc, uint32_t attr, const void* buf, uint64_t size) {
  LtShadow* e = g_registry.find(desc);
  if (e == nullptr || attr >= LtShadow::kAttributes || buf == nullptr) return;
  uint64_t value = 0;
  std::memcpy(&value, buf, size < sizeof value ? size : sizeof value);
  e->value[attr].store(value, std::memory_order_relaxed);
  e->set_mask.fetch_or(1ull << attr, std::memory_order_release);
}

uint64_t LtAttributes::unset(uint32_t attr) const {
  uint64_t value = 0;
  if (shadow_ != nullptr && default_value(object_, attr, &value)) return value;
  if (ask_cublaslt(object_, desc_, attr, &value)) return value;
  return format::kArgUnset;
}

}  // namespace cublasspy
