// The stand-in's cuBLASLt algorithms: which ids cublasLtMatmulAlgoGetIds lists for a compute
// type, what each one can be configured to (CUBLASLT_ALGO_CAP_*), and the check of a configured
// cublasLtMatmulAlgo_t against that (AlgoCheck and cublasLtMatmul refuse a configuration outside
// it with NOT_SUPPORTED, as cuBLASLt refuses a kernel it lacks). Every algorithm and configuration
// computes the same way on the CPU.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <span>

#include "lt_descriptors.h"

namespace standin {

struct LtAlgoInfo {
  int32_t id;
  bool double_only;                   // listed for CUBLAS_COMPUTE_64F* only
  std::span<const uint32_t> tiles;    // CUBLASLT_ALGO_CAP_TILE_IDS
  bool splitk;                        // CUBLASLT_ALGO_CAP_SPLITK_SUPPORT
  uint32_t reduction_mask;            // CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK
};

inline constexpr uint32_t kUndefinedTile[] = {CUBLASLT_MATMUL_TILE_UNDEFINED};
// A split-K double-precision algorithm with small tiles: what NVIDIA's LtDgemmPresetAlgo sample
// presets (id 10, tile 16x16, split-K 256, in-place reduction).
inline constexpr uint32_t kDgemmTiles[] = {CUBLASLT_MATMUL_TILE_16x16, CUBLASLT_MATMUL_TILE_32x32,
                                           CUBLASLT_MATMUL_TILE_64x64};

// kLtAlgoIds (0, 1, 6) for every type combination, 10 for double precision as well.
inline constexpr LtAlgoInfo kLtAlgos[] = {
    {0, false, kUndefinedTile, false, 0},
    {1, false, kUndefinedTile, false, 0},
    {6, false, kUndefinedTile, false, 0},
    {10, true, kDgemmTiles, true, CUBLASLT_REDUCTION_SCHEME_MASK},
};

inline bool is_double_compute(int32_t compute) {
  return compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC ||
         compute == CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT;
}

// The algorithm with this id, or nullptr: an id no type combination lists is outside the
// recognized range (AlgoInit: INVALID_VALUE).
inline const LtAlgoInfo* find_lt_algo(int32_t id) {
  for (const LtAlgoInfo& a : kLtAlgos)
    if (a.id == id) return &a;
  return nullptr;
}

// Listed by AlgoGetIds for this compute type (AlgoInit of another one: NOT_SUPPORTED).
inline bool lt_algo_serves(const LtAlgoInfo& a, int32_t compute) { return !a.double_only || is_double_compute(compute); }

// A configuration the algorithm's capabilities allow: a listed tile (or none chosen), split-K only
// where supported (0 and 1 mean no split), a reduction scheme of its mask (or none), swizzling 0
// or 1 (CTA_SWIZZLING_SUPPORT is 1), no custom option (CUSTOM_OPTION_MAX is 0), an undefined stage
// count (the only one listed), and cluster and inner shapes that exist.
inline bool lt_algo_config_ok(const LtAlgo& algo) {
  const LtAlgoInfo* info = find_lt_algo(algo.id);
  if (info == nullptr) return false;
  bool tile_listed = algo.tile_id == CUBLASLT_MATMUL_TILE_UNDEFINED;
  for (uint32_t t : info->tiles) tile_listed = tile_listed || t == algo.tile_id;
  const bool split = algo.splitk_num > 1;
  return tile_listed && algo.splitk_num >= 0 && (!split || info->splitk) &&
         (algo.reduction_scheme & ~info->reduction_mask) == 0 && algo.cta_swizzling <= 1 && algo.custom_option == 0 &&
         algo.stages_id == CUBLASLT_MATMUL_STAGES_UNDEFINED && algo.cluster_shape_id < CUBLASLT_CLUSTER_SHAPE_END &&
         algo.inner_shape_id < CUBLASLT_MATMUL_INNER_SHAPE_END;
}

}  // namespace standin
