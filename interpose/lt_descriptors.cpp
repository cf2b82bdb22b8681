#include "lt_descriptors.h"

#include <cstring>

#include <cublasLt.h>

#include "hook_table.h"
#include "runtime.h"
#include "driver_table.h"

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
      case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: *out = CUBLASLT_BATCH_MODE_STRIDED; return true;
      case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: *out = 0; return true;
      default: return false;
    }
  }
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: *out = CUBLASLT_POINTER_MODE_HOST; return true;
    case CUBLASLT_MATMUL_DESC_TRANSA: case CUBLASLT_MATMUL_DESC_TRANSB: *out = CUBLAS_OP_N; return true;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: *out = CUBLASLT_EPILOGUE_DEFAULT; return true;
    case CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR:  // none attached (asked on every matmul)
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER: case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
      *out = 0;
      return true;
    default: return false;
  }
}

// The real GetAttribute, for an attribute the shim holds no value for.
bool ask_cublaslt(LtObject object, uint64_t desc, uint32_t attr, uint64_t* out) {
  uint64_t value = 0;
  size_t written = 0;
  CublasLtApi scratch;
  const CublasLtApi& lt = shim_cublaslt(scratch);
  ThreadState& ts = thread_state();
  ts.internal++;
  cublasStatus_t st = CUBLAS_STATUS_NOT_INITIALIZED;
  if (object == LtObject::kLayout && lt.matrix_layout_get_attribute != nullptr) {
    st = lt.matrix_layout_get_attribute(reinterpret_cast<cublasLtMatrixLayout_t>(desc),
                                        static_cast<cublasLtMatrixLayoutAttribute_t>(attr), &value,
                                        sizeof value, &written);
  } else if (object == LtObject::kMatmulDesc && lt.matmul_desc_get_attribute != nullptr) {
    st = lt.matmul_desc_get_attribute(reinterpret_cast<cublasLtMatmulDesc_t>(desc),
                                      static_cast<cublasLtMatmulDescAttributes_t>(attr), &value,
                                      sizeof value, &written);
  }
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

void read_lt_emulation(uint64_t emulation_desc, format::LtEmulation& out) {
  out = format::LtEmulation{};
  if (emulation_desc <= LtRegistry::kTombstone || emulation_desc == format::kArgUnset) return;
  out.flags = format::kEmulationAttached;
  const LtShadow* e = g_registry.find(emulation_desc);
  if (e == nullptr || e->object.load(std::memory_order_relaxed) != static_cast<uint8_t>(LtObject::kEmulationDesc)) {
    return;  // created before the shim saw it: only its presence is known
  }
  const uint64_t set = e->set_mask.load(std::memory_order_acquire);
  // An attribute never set has the default a fresh descriptor has (cublasLt.h).
  auto get = [&](uint32_t attr, uint64_t fallback) {
    return (set >> attr & 1) ? e->value[attr].load(std::memory_order_relaxed) : fallback;
  };
  out.flags |= format::kEmulationKnown;
  out.strategy = static_cast<int32_t>(get(CUBLASLT_EMULATION_DESC_STRATEGY, CUBLAS_EMULATION_STRATEGY_DEFAULT));
  out.special_values = static_cast<int32_t>(
      get(CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT));
  out.mantissa_control = static_cast<int32_t>(
      get(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL, CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC));
  out.max_mantissa_bits = static_cast<int32_t>(get(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT, 0));
  out.mantissa_bit_offset = static_cast<int32_t>(get(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET, 0));
  out.mantissa_bit_count_pointer = get(CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER, 0);
}

LtMatmulExtras read_lt_matmul_extras(uint64_t matmul_desc, const uint64_t layouts[4]) {
  LtMatmulExtras x;
  x.present = true;
  auto or_else = [](uint64_t v, uint64_t fallback) { return v == format::kArgUnset ? fallback : v; };
  const LtAttributes desc(LtObject::kMatmulDesc, matmul_desc);
  x.epilogue = static_cast<uint32_t>(or_else(desc.get(CUBLASLT_MATMUL_DESC_EPILOGUE), CUBLASLT_EPILOGUE_DEFAULT));
  if (epilogue_needs_bias(x.epilogue)) {
    x.bias = or_else(desc.get(CUBLASLT_MATMUL_DESC_BIAS_POINTER), 0);
    x.bias_type = static_cast<int32_t>(or_else(desc.get(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE), ~uint64_t{0}));
  }
  if (epilogue_needs_aux(x.epilogue)) {
    x.aux = or_else(desc.get(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER), 0);
    x.aux_ld = static_cast<int64_t>(or_else(desc.get(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD), 0));
  }
  for (int i = 0; i < 4; ++i) {
    const LtAttributes layout(LtObject::kLayout, layouts[i]);
    x.batch_count[i] = static_cast<int32_t>(or_else(layout.get(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT), 1));
  }
  return x;
}

uint64_t LtAttributes::unset(uint32_t attr) const {
  uint64_t value = 0;
  if (shadow_ != nullptr && default_value(object_, attr, &value)) return value;
  if (ask_cublaslt(object_, desc_, attr, &value)) return value;
  return format::kArgUnset;
}

}  // namespace cublasspy
