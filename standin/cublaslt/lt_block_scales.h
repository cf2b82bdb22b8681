// cuBLASLt's matrix scale modes (CUBLASLT_MATMUL_DESC_{A,B,C,D,D_OUT}_SCALE_MODE) for
// cublasLtMatmul: NVFP4 (CUDA_R_4F_E2M1 data, one UE4M3 scale per 16 elements), MXFP8 (fp8 data,
// one UE8M0 scale per 32 elements), fp8 with 1x128 / 128x128 fp32 block scales and with outer
// vectors, and the block-scaled outputs whose scales the matmul computes (D_OUT_SCALE).
//
// The plain per-tensor scalars (SCALAR_32F on every matrix, fp16/bf16/fp32/fp8 data) stay with
// the GEMM core (GemmProblem::scale_*); everything else comes here: A and B are dequantized into
// fp32 panels with their scales, the core computes the fp32 product, and a block-scaled D is
// quantized back with the block scales written to D_OUT_SCALE_POINTER.
#pragma once

#include <cublasLt.h>

#include <cstdint>

#include "gemm_core.h"
#include "lt_descriptors.h"

namespace standin {

// True when the descriptor or the layouts' types need this path rather than the core's scalars.
bool lt_block_scaled(const LtMatmulDesc& desc, cudaDataType a, cudaDataType d);

// The scale modes' checks of cublasLtMatmul (and of its heuristic): SUCCESS, or NOT_SUPPORTED for
// what the stand-in does not model (the combinations of cublasLt.h it does: see the .cpp).
cublasStatus_t lt_check_scale_modes(const LtMatmulDesc& desc, const LtLayout& la, const LtLayout& lb,
                                    const LtLayout& lc, const LtLayout& ld);

// Bytes of a scale tensor of `mode` for a matrix stored inner x outer (inner: its contiguous
// dimension), as cuBLASLt lays it out (0 for an unknown mode).
uint64_t lt_scale_tensor_bytes(int32_t mode, int64_t inner, int64_t outer);

// Bytes a column-major rows x cols matrix with leading dimension ld occupies, whatever the type
// (two CUDA_R_4F_E2M1 elements a byte).
uint64_t lt_matrix_bytes(cudaDataType type, int64_t rows, int64_t cols, int64_t ld);

// One member of a validated block-scaled problem: `p` as the core would compute it (A, B, C, D
// data, alpha, beta, C's scale, bias, epilogue), A and B stored a_rows x a_cols and b_rows x
// b_cols. Checks that the operands and scale tensors are device memory (if not: a device fault,
// nothing computed: *fault), then computes. INVALID_VALUE when a block mode has no scale pointer.
cublasStatus_t lt_run_block_scaled(const LtMatmulDesc& desc, GemmProblem p, int64_t a_rows, int64_t a_cols,
                                   int64_t b_rows, int64_t b_cols, int64_t a_ld, int64_t b_ld, int64_t d_ld,
                                   bool* fault);

}  // namespace standin
