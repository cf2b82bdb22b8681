// libcublasLt's bookkeeping API: handles, versions, status strings, and the three descriptor
// kinds (matmul, matrix layout, preference) and the matrix transform descriptor, with their
// attributes. The descriptors live in the
// semi-opaque structs of cublasLt.h (see lt_descriptors.h), so *Init_internal works on caller
// storage exactly like *Create does on heap storage.
#include <cublasLt.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "blas_handles.h"
#include "blas_status_text.h"
#include "driver_link.h"
#include "lt_descriptors.h"
#include "lt_entry.h"
#include "stack_version.h"
#include "standin_private.h"

using namespace standin;

namespace {

// Where an attribute lives inside its descriptor, and its exact size.
struct Slot {
  int attribute;
  size_t offset;
  size_t size;
};

#define STANDIN_SLOT(ATTRIBUTE, TYPE, FIELD) {ATTRIBUTE, offsetof(TYPE, FIELD), sizeof(TYPE::FIELD)}

const Slot kDescSlots[] = {
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, LtMatmulDesc, compute_type),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_SCALE_TYPE, LtMatmulDesc, scale_type),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_POINTER_MODE, LtMatmulDesc, pointer_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_TRANSA, LtMatmulDesc, transa),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_TRANSB, LtMatmulDesc, transb),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_TRANSC, LtMatmulDesc, transc),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_FILL_MODE, LtMatmulDesc, fill_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE, LtMatmulDesc, epilogue),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_BIAS_POINTER, LtMatmulDesc, bias_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, LtMatmulDesc, bias_batch_stride),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, LtMatmulDesc, epilogue_aux_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, LtMatmulDesc, epilogue_aux_ld),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, LtMatmulDesc, epilogue_aux_batch_stride),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, LtMatmulDesc, alpha_vector_batch_stride),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, LtMatmulDesc, sm_count_target),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, LtMatmulDesc, a_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, LtMatmulDesc, b_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, LtMatmulDesc, c_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, LtMatmulDesc, d_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, LtMatmulDesc, amax_d_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, LtMatmulDesc, epilogue_aux_data_type),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, LtMatmulDesc, epilogue_aux_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, LtMatmulDesc, epilogue_aux_amax_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_FAST_ACCUM, LtMatmulDesc, fast_accum),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, LtMatmulDesc, bias_data_type),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, LtMatmulDesc, a_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, LtMatmulDesc, b_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_C_SCALE_MODE, LtMatmulDesc, c_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_D_SCALE_MODE, LtMatmulDesc, d_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE, LtMatmulDesc, epilogue_aux_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER, LtMatmulDesc, d_out_scale_pointer),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE, LtMatmulDesc, d_out_scale_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR, LtMatmulDesc, emulation_descriptor),
};

const Slot kLayoutSlots[] = {
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_TYPE, LtLayout, type),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_ORDER, LtLayout, order),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_ROWS, LtLayout, rows),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_COLS, LtLayout, cols),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_LD, LtLayout, ld),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, LtLayout, batch_count),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, LtLayout, batch_stride),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, LtLayout, plane_offset),
    STANDIN_SLOT(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, LtLayout, batch_mode),
};

const Slot kPreferenceSlots[] = {
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_SEARCH_MODE, LtPreference, search_mode),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, LtPreference, max_workspace_bytes),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, LtPreference, reduction_scheme_mask),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, LtPreference, min_alignment_a),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, LtPreference, min_alignment_b),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, LtPreference, min_alignment_c),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, LtPreference, min_alignment_d),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, LtPreference, max_waves_count),
    STANDIN_SLOT(CUBLASLT_MATMUL_PREF_IMPL_MASK, LtPreference, impl_mask),
};

const Slot kTransformSlots[] = {
    STANDIN_SLOT(CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, LtTransformDesc, scale_type),
    STANDIN_SLOT(CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, LtTransformDesc, pointer_mode),
    STANDIN_SLOT(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, LtTransformDesc, transa),
    STANDIN_SLOT(CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, LtTransformDesc, transb),
};

template <size_t N>
const Slot* find_slot(const Slot (&slots)[N], int attribute) {
  for (const Slot& s : slots)
    if (s.attribute == attribute) return &s;
  return nullptr;
}

// The documented contract of every *SetAttribute: a known attribute, a buffer of its exact size.
template <size_t N>
cublasStatus_t set_attribute(void* object, uint32_t magic, const Slot (&slots)[N], int attribute, const void* buf,
                             size_t size) {
  if (object == nullptr || *static_cast<uint32_t*>(object) != magic) return CUBLAS_STATUS_INVALID_VALUE;
  const Slot* slot = find_slot(slots, attribute);
  if (slot == nullptr || buf == nullptr || size != slot->size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(static_cast<char*>(object) + slot->offset, buf, size);
  return CUBLAS_STATUS_SUCCESS;
}

// And of every *GetAttribute: sizeInBytes 0 asks for the size; otherwise it must match.
template <size_t N>
cublasStatus_t get_attribute(const void* object, uint32_t magic, const Slot (&slots)[N], int attribute, void* buf,
                             size_t size, size_t* written) {
  if (object == nullptr || *static_cast<const uint32_t*>(object) != magic) return CUBLAS_STATUS_INVALID_VALUE;
  const Slot* slot = find_slot(slots, attribute);
  if (slot == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (size == 0) {
    if (written == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
    *written = slot->size;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (buf == nullptr || size != slot->size) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(buf, static_cast<const char*>(object) + slot->offset, size);
  if (written) *written = slot->size;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

// ---- handles and versions ------------------------------------------------------------------

STANDIN_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t* lightHandle) {
  STANDIN_LT_ENTRY("cublasLtCreate");
  if (lightHandle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  int device = 0;
  if (!bind_library_context(&device)) return CUBLAS_STATUS_NOT_INITIALIZED;
  auto* h = new CublasLtHandle;
  h->device = device;
  *lightHandle = reinterpret_cast<cublasLtHandle_t>(h);
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle) {
  STANDIN_LT_ENTRY("cublasLtDestroy");
  if (lightHandle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (read_magic(lightHandle) != kCublasLtMagic) segfault_now();
  auto* h = reinterpret_cast<CublasLtHandle*>(lightHandle);
  h->magic = kDeadMagic;
  delete h;
  return finish(fault);
}

// cuBLASLt ships with cuBLAS and reports the same version, unless STANDIN_LT_VERSION (major *
// 10000 + minor * 100 + patch) makes this one play a libcublasLt of another release.
size_t reported_lt_version() {
  const char* text = std::getenv("STANDIN_LT_VERSION");
  if (text == nullptr || *text == '\0') return kCublasVersion;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return *end == '\0' && v > 0 ? static_cast<size_t>(v) : kCublasVersion;
}

STANDIN_EXPORT size_t cublasLtGetVersion(void) {
  standin_enter("cublasLtGetVersion");
  return reported_lt_version();
}

STANDIN_EXPORT size_t cublasLtGetCudartVersion(void) {
  standin_enter("cublasLtGetCudartVersion");
  return kCudaVersion;
}

STANDIN_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int* value) {
  STANDIN_LT_ENTRY("cublasLtGetProperty");
  if (value == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION: *value = static_cast<int>(reported_lt_version() / 10000); break;
    case MINOR_VERSION: *value = static_cast<int>(reported_lt_version() / 100 % 100); break;
    case PATCH_LEVEL: *value = static_cast<int>(reported_lt_version() % 100); break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  return finish(fault);
}

STANDIN_EXPORT const char* cublasLtGetStatusName(cublasStatus_t status) {
  standin_enter("cublasLtGetStatusName");
  return blas_status_name(status);
}

STANDIN_EXPORT const char* cublasLtGetStatusString(cublasStatus_t status) {
  standin_enter("cublasLtGetStatusString");
  return blas_status_string(status);
}

// ---- matmul descriptors --------------------------------------------------------------------

STANDIN_EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                                              cublasComputeType_t computeType,
                                                              cudaDataType_t scaleType) {
  STANDIN_LT_ENTRY("cublasLtMatmulDescInit_internal");
  if (matmulDesc == nullptr || size < sizeof(cublasLtMatmulDescOpaque_t)) return CUBLAS_STATUS_INVALID_VALUE;
  init_matmul_desc(as_desc(matmulDesc), computeType, scaleType);
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc,
                                                       cublasComputeType_t computeType, cudaDataType_t scaleType) {
  STANDIN_LT_ENTRY("cublasLtMatmulDescCreate");
  if (matmulDesc == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new cublasLtMatmulDescOpaque_t;
  init_matmul_desc(as_desc(d), computeType, scaleType);
  *matmulDesc = d;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc) {
  STANDIN_LT_ENTRY("cublasLtMatmulDescDestroy");
  if (matmulDesc != nullptr) {
    as_desc(matmulDesc)->magic = 0;
    delete matmulDesc;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                             cublasLtMatmulDescAttributes_t attr, const void* buf,
                                                             size_t sizeInBytes) {
  STANDIN_LT_ENTRY("cublasLtMatmulDescSetAttribute");
  if (cublasStatus_t s = set_attribute(matmulDesc, kLtMatmulDescMagic, kDescSlots, attr, buf, sizeInBytes); s) return s;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                             cublasLtMatmulDescAttributes_t attr, void* buf,
                                                             size_t sizeInBytes, size_t* sizeWritten) {
  STANDIN_LT_ENTRY("cublasLtMatmulDescGetAttribute");
  if (cublasStatus_t s = get_attribute(matmulDesc, kLtMatmulDescMagic, kDescSlots, attr, buf, sizeInBytes, sizeWritten); s) {
    return s;
  }
  return finish(fault);
}

// ---- matrix layouts ------------------------------------------------------------------------

STANDIN_EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                                cudaDataType type, uint64_t rows, uint64_t cols,
                                                                int64_t ld) {
  STANDIN_LT_ENTRY("cublasLtMatrixLayoutInit_internal");
  if (matLayout == nullptr || size < sizeof(cublasLtMatrixLayoutOpaque_t)) return CUBLAS_STATUS_INVALID_VALUE;
  init_layout(as_layout(matLayout), type, rows, cols, ld);
  return finish(fault);
}

// Like the real library, nothing is checked here: a bad shape is reported by cublasLtMatmul.
STANDIN_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type,
                                                         uint64_t rows, uint64_t cols, int64_t ld) {
  STANDIN_LT_ENTRY("cublasLtMatrixLayoutCreate");
  if (matLayout == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* l = new cublasLtMatrixLayoutOpaque_t;
  init_layout(as_layout(l), type, rows, cols, ld);
  *matLayout = l;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout) {
  STANDIN_LT_ENTRY("cublasLtMatrixLayoutDestroy");
  if (matLayout != nullptr) {
    as_layout(matLayout)->magic = 0;
    delete matLayout;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                               cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                               size_t sizeInBytes) {
  STANDIN_LT_ENTRY("cublasLtMatrixLayoutSetAttribute");
  if (cublasStatus_t s = set_attribute(matLayout, kLtLayoutMagic, kLayoutSlots, attr, buf, sizeInBytes); s) return s;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                               cublasLtMatrixLayoutAttribute_t attr, void* buf,
                                                               size_t sizeInBytes, size_t* sizeWritten) {
  STANDIN_LT_ENTRY("cublasLtMatrixLayoutGetAttribute");
  if (cublasStatus_t s = get_attribute(matLayout, kLtLayoutMagic, kLayoutSlots, attr, buf, sizeInBytes, sizeWritten); s) {
    return s;
  }
  return finish(fault);
}

// ---- matmul preferences --------------------------------------------------------------------

STANDIN_EXPORT cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
  STANDIN_LT_ENTRY("cublasLtMatmulPreferenceInit_internal");
  if (pref == nullptr || size < sizeof(cublasLtMatmulPreferenceOpaque_t)) return CUBLAS_STATUS_INVALID_VALUE;
  init_preference(as_preference(pref));
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  STANDIN_LT_ENTRY("cublasLtMatmulPreferenceCreate");
  if (pref == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* p = new cublasLtMatmulPreferenceOpaque_t;
  init_preference(as_preference(p));
  *pref = p;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  STANDIN_LT_ENTRY("cublasLtMatmulPreferenceDestroy");
  if (pref != nullptr) {
    as_preference(pref)->magic = 0;
    delete pref;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                   cublasLtMatmulPreferenceAttributes_t attr,
                                                                   const void* buf, size_t sizeInBytes) {
  STANDIN_LT_ENTRY("cublasLtMatmulPreferenceSetAttribute");
  if (cublasStatus_t s = set_attribute(pref, kLtPreferenceMagic, kPreferenceSlots, attr, buf, sizeInBytes); s) return s;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                                   cublasLtMatmulPreferenceAttributes_t attr, void* buf,
                                                                   size_t sizeInBytes, size_t* sizeWritten) {
  STANDIN_LT_ENTRY("cublasLtMatmulPreferenceGetAttribute");
  if (cublasStatus_t s = get_attribute(pref, kLtPreferenceMagic, kPreferenceSlots, attr, buf, sizeInBytes, sizeWritten);
      s) {
    return s;
  }
  return finish(fault);
}

// ---- matrix transform descriptors -----------------------------------------------------------

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t transformDesc,
                                                                       size_t size, cudaDataType scaleType) {
  STANDIN_LT_ENTRY("cublasLtMatrixTransformDescInit_internal");
  if (transformDesc == nullptr || size < sizeof(cublasLtMatrixTransformDescOpaque_t)) return CUBLAS_STATUS_INVALID_VALUE;
  init_transform_desc(reinterpret_cast<LtTransformDesc*>(transformDesc), scaleType);
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t* transformDesc,
                                                                cudaDataType scaleType) {
  STANDIN_LT_ENTRY("cublasLtMatrixTransformDescCreate");
  if (transformDesc == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  auto* d = new cublasLtMatrixTransformDescOpaque_t;
  init_transform_desc(reinterpret_cast<LtTransformDesc*>(d), scaleType);
  *transformDesc = d;
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t transformDesc) {
  STANDIN_LT_ENTRY("cublasLtMatrixTransformDescDestroy");
  if (transformDesc != nullptr) {
    reinterpret_cast<LtTransformDesc*>(transformDesc)->magic = 0;
    delete transformDesc;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                                      cublasLtMatrixTransformDescAttributes_t attr,
                                                                      const void* buf, size_t sizeInBytes) {
  STANDIN_LT_ENTRY("cublasLtMatrixTransformDescSetAttribute");
  if (cublasStatus_t s = set_attribute(transformDesc, kLtTransformDescMagic, kTransformSlots, attr, buf, sizeInBytes); s) {
    return s;
  }
  return finish(fault);
}

STANDIN_EXPORT cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                                      cublasLtMatrixTransformDescAttributes_t attr,
                                                                      void* buf, size_t sizeInBytes, size_t* sizeWritten) {
  STANDIN_LT_ENTRY("cublasLtMatrixTransformDescGetAttribute");
  if (cublasStatus_t s = get_attribute(transformDesc, kLtTransformDescMagic, kTransformSlots, attr, buf, sizeInBytes,
                                       sizeWritten);
      s) {
    return s;
  }
  return finish(fault);
}

}  // extern "C"
