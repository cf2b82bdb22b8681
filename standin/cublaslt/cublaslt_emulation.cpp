// libcublasLt's floating-point emulation descriptors (CUDA 13: cublasLtEmulationDesc*), which
// a matmul descriptor takes through CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR (NVIDIA's
// LtDgemmEmulated sample). The stand-in computes every compute type on the CPU in its own
// precision, so the settings change nothing in the result: they are kept, checked and given
// back, so that a program that sets and reads them runs as on the real library.
#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "export.h"
#include "lt_entry.h"
#include "stack_version.h"
#include "standin_private.h"

#if STANDIN_CUDA_MAJOR >= 13

namespace {

constexpr uint32_t kEmulationMagic = 0x4c4d4545u;  // "EEML"

// What the stand-in keeps in the semi-opaque cublasLtEmulationDescOpaque_t.
struct Emulation {
  uint32_t magic;
  int32_t strategy;            // cublasEmulationStrategy_t
  int32_t special_values;      // cudaEmulationSpecialValuesSupport (a bit mask)
  int32_t mantissa_control;    // cudaEmulationMantissaControl
  int32_t max_mantissa_bits;   // FIXEDPOINT_MAX_MANTISSA_BIT_COUNT
  int32_t mantissa_bit_offset; // FIXEDPOINT_MANTISSA_BIT_OFFSET
  int32_t* mantissa_bit_count_pointer;  // FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER (device memory)
};
static_assert(sizeof(Emulation) <= sizeof(cublasLtEmulationDescOpaque_t));

Emulation* as_emulation(cublasLtEmulationDesc_t d) { return reinterpret_cast<Emulation*>(d); }

// The defaults cublasLt.h documents for each attribute.
void init_emulation(Emulation* e) {
  std::memset(e, 0, sizeof *e);
  e->magic = kEmulationMagic;
  e->strategy = CUBLAS_EMULATION_STRATEGY_DEFAULT;
  e->special_values = CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT;
  e->mantissa_control = CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC;
  e->max_mantissa_bits = 0;
  e->mantissa_bit_offset = 0;
}

// Where an attribute lives in the descriptor and its exact size; nullptr for an unknown one.
void* field(Emulation* e, cublasLtEmulationDescAttributes_t attr, size_t* size) {
  switch (attr) {
    case CUBLASLT_EMULATION_DESC_STRATEGY: *size = sizeof e->strategy; return &e->strategy;
    case CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT: *size = sizeof e->special_values; return &e->special_values;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL:
      *size = sizeof e->mantissa_control;
      return &e->mantissa_control;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT:
      *size = sizeof e->max_mantissa_bits;
      return &e->max_mantissa_bits;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET:
      *size = sizeof e->mantissa_bit_offset;
      return &e->mantissa_bit_offset;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER:
      *size = sizeof e->mantissa_bit_count_pointer;
      return &e->mantissa_bit_count_pointer;
  }
  return nullptr;
}

bool valid(cublasLtEmulationDesc_t d) { return d != nullptr && as_emulation(d)->magic == kEmulationMagic; }

// An attribute's value must be one the library knows (the real one refuses others).
bool acceptable(cublasLtEmulationDescAttributes_t attr, const void* buf) {
  int32_t v = 0;
  if (attr == CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER) return true;
  std::memcpy(&v, buf, sizeof v);
  switch (attr) {
    case CUBLASLT_EMULATION_DESC_STRATEGY: return v >= CUBLAS_EMULATION_STRATEGY_DEFAULT && v <= CUBLAS_EMULATION_STRATEGY_EAGER;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL:
      return v == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC || v == CUDA_EMULATION_MANTISSA_CONTROL_FIXED;
    case CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT: return v >= 0;
    default: return true;
  }
}

}  // namespace

extern "C" {

STANDIN_EXPORT cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t emulationDesc, size_t size) {
  STANDIN_LT_ENTRY("cublasLtEmulationDescInit_internal");
  if (emulationDesc == nullptr || size < sizeof(cublasLtEmulationDescOpaque_t)) return CUBLAS_STATUS_INVALID_VALUE;
  init_emulation(as_emulation(emulationDesc));
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t* emulationDesc) {
  STANDIN_LT_ENTRY("cublasLtEmulationDescCreate");
  if (emulationDesc == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new cublasLtEmulationDescOpaque_t;
  init_emulation(as_emulation(d));
  *emulationDesc = d;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtEmulationDescDestroy(cublasLtEmulationDesc_t emulationDesc) {
  STANDIN_LT_ENTRY("cublasLtEmulationDescDestroy");
  if (emulationDesc != nullptr) {
    as_emulation(emulationDesc)->magic = 0;
    delete emulationDesc;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtEmulationDescSetAttribute(cublasLtEmulationDesc_t emulationDesc,
                                                                cublasLtEmulationDescAttributes_t attr,
                                                                const void* buf, size_t sizeInBytes) {
  STANDIN_LT_ENTRY("cublasLtEmulationDescSetAttribute");
  if (!valid(emulationDesc) || buf == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  size_t size = 0;
  void* at = field(as_emulation(emulationDesc), attr, &size);
  if (at == nullptr || sizeInBytes != size || !acceptable(attr, buf)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(at, buf, size);
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtEmulationDescGetAttribute(cublasLtEmulationDesc_t emulationDesc,
                                                                cublasLtEmulationDescAttributes_t attr, void* buf,
                                                                size_t sizeInBytes, size_t* sizeWritten) {
  STANDIN_LT_ENTRY("cublasLtEmulationDescGetAttribute");
  if (!valid(emulationDesc)) return CUBLAS_STATUS_INVALID_VALUE;
  size_t size = 0;
  void* at = field(as_emulation(emulationDesc), attr, &size);
  if (at == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  // As cublasLt.h says: with sizeInBytes 0, only the size is asked for.
  if (sizeInBytes == 0 && sizeWritten != nullptr) {
    *sizeWritten = size;
    return finish(fault);
  }
  if (buf == nullptr || sizeInBytes != size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, at, size);
  if (sizeWritten != nullptr) *sizeWritten = size;
  return finish(fault);
}

}  // extern "C"

#endif  // STANDIN_CUDA_MAJOR >= 13
