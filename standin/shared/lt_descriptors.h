// What the stand-in keeps inside cuBLASLt's opaque descriptor structs. Shared by libcublasLt
// (which creates, reads and writes them) and libcublas (which, like the real one, builds
// descriptors itself on the stack and calls cublasLtMatmul through the PLT for cublasGemmEx).
//
// The layouts must fit the semi-opaque storage of cublasLt.h, because cublasLt*Init_internal
// initializes caller-provided storage of exactly that size.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

namespace standin {

constexpr uint32_t kLtMatmulDescMagic = 0x4d4c7444u;   // "DtLM"
constexpr uint32_t kLtLayoutMagic = 0x4c4c744cu;       // "LtLL"
constexpr uint32_t kLtPreferenceMagic = 0x504c7450u;   // "PtLP"
constexpr uint64_t kLtAlgoMagic = 0x6f676c4174536e53ull;  // "SnStAlgo", in cublasLtMatmulAlgo_t::data[0]

// A cublasLtMatmulAlgo_t as the stand-in fills it (cublasLtMatmulAlgoInit, the heuristics): the
// magic, the algorithm id (see cublaslt/lt_algorithms.h) and the CUBLASLT_ALGO_CONFIG_* values.
struct LtAlgo {
  uint64_t magic;
  int32_t id;
  uint32_t tile_id;
  int32_t splitk_num;
  uint32_t reduction_scheme;
  uint32_t cta_swizzling;
  uint32_t custom_option;
  uint32_t stages_id;
  uint16_t inner_shape_id;
  uint16_t cluster_shape_id;
};
static_assert(sizeof(LtAlgo) <= sizeof(cublasLtMatmulAlgo_t));

struct LtMatmulDesc {
  uint32_t magic;
  int32_t compute_type;
  int32_t scale_type;
  int32_t pointer_mode;
  int32_t transa, transb, transc;
  int32_t fill_mode;
  uint32_t epilogue;
  int32_t sm_count_target;
  int32_t epilogue_aux_data_type;
  int32_t bias_data_type;
  int32_t a_scale_mode, b_scale_mode, c_scale_mode, d_scale_mode;
  int32_t epilogue_aux_scale_mode, d_out_scale_mode;
  int8_t fast_accum;
  const void* bias_pointer;
  int64_t bias_batch_stride;
  void* epilogue_aux_pointer;
  int64_t epilogue_aux_ld;
  int64_t epilogue_aux_batch_stride;
  int64_t alpha_vector_batch_stride;
  const void* a_scale_pointer;
  const void* b_scale_pointer;
  const void* c_scale_pointer;
  const void* d_scale_pointer;
  void* amax_d_pointer;
  void* epilogue_aux_scale_pointer;
  void* epilogue_aux_amax_pointer;
  void* d_out_scale_pointer;
  void* emulation_descriptor;
};
static_assert(sizeof(LtMatmulDesc) <= sizeof(cublasLtMatmulDescOpaque_t));

struct LtLayout {
  uint32_t magic;
  uint32_t type;  // cudaDataType
  int32_t order;  // cublasLtOrder_t
  int32_t batch_count;
  uint64_t rows;
  uint64_t cols;
  int64_t ld;
  int64_t batch_stride;  // STRIDED_BATCH_OFFSET, in elements
  int64_t plane_offset;
  uint32_t batch_mode;
};
static_assert(sizeof(LtLayout) <= sizeof(cublasLtMatrixLayoutOpaque_t));

struct LtPreference {
  uint32_t magic;
  uint32_t search_mode;
  uint64_t max_workspace_bytes;
  uint32_t reduction_scheme_mask;
  uint32_t min_alignment_a, min_alignment_b, min_alignment_c, min_alignment_d;
  float max_waves_count;
  uint64_t impl_mask;
};
static_assert(sizeof(LtPreference) <= sizeof(cublasLtMatmulPreferenceOpaque_t));

constexpr uint32_t kLtTransformDescMagic = 0x54546c4cu;  // "LlTT"

// cublasLtMatrixTransformDesc_t: C = alpha * op(A) + beta * op(B), computed in scale_type.
struct LtTransformDesc {
  uint32_t magic;
  int32_t scale_type;
  int32_t pointer_mode;
  int32_t transa, transb;
};
static_assert(sizeof(LtTransformDesc) <= sizeof(cublasLtMatrixTransformDescOpaque_t));

inline LtMatmulDesc* as_desc(cublasLtMatmulDesc_t d) { return reinterpret_cast<LtMatmulDesc*>(d); }
inline LtLayout* as_layout(cublasLtMatrixLayout_t l) { return reinterpret_cast<LtLayout*>(l); }
inline LtPreference* as_preference(cublasLtMatmulPreference_t p) { return reinterpret_cast<LtPreference*>(p); }

// The defaults documented in cublasLt.h.
inline void init_matmul_desc(LtMatmulDesc* d, int32_t compute_type, int32_t scale_type) {
  *d = LtMatmulDesc{};
  d->magic = kLtMatmulDescMagic;
  d->compute_type = compute_type;
  d->scale_type = scale_type;
  d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  d->transa = d->transb = d->transc = CUBLAS_OP_N;
  d->fill_mode = CUBLAS_FILL_MODE_FULL;
  d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  d->epilogue_aux_data_type = -1;
  d->bias_data_type = -1;
}

inline void init_layout(LtLayout* l, uint32_t type, uint64_t rows, uint64_t cols, int64_t ld) {
  *l = LtLayout{};
  l->magic = kLtLayoutMagic;
  l->type = type;
  l->order = CUBLASLT_ORDER_COL;
  l->batch_count = 1;
  l->rows = rows;
  l->cols = cols;
  l->ld = ld;
}

inline void init_transform_desc(LtTransformDesc* d, int32_t scale_type) {
  *d = LtTransformDesc{};
  d->magic = kLtTransformDescMagic;
  d->scale_type = scale_type;
  d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  d->transa = d->transb = CUBLAS_OP_N;
}

inline void init_preference(LtPreference* p) {
  *p = LtPreference{};
  p->magic = kLtPreferenceMagic;
  p->search_mode = CUBLASLT_SEARCH_BEST_FIT;
  p->reduction_scheme_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
  p->min_alignment_a = p->min_alignment_b = p->min_alignment_c = p->min_alignment_d = 256;
  p->impl_mask = ~0ull;
}

}  // namespace standin
