// How far a replayed GEMM's result may be from the host reference (host_reference.h) before
// `--verify` calls it wrong: an error relative to the magnitudes that went into each element,
// built from the unit roundoffs of what the call does:
//
//   tolerance = max(floor(output type),
//                   2 u(output) + 2 u(inputs as the math unit reads them) + u(accumulator) (4 + sqrt(k)))
//
// - output: fp64 2^-53, fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, e5m2 2^-3, integers 0;
//   floors fp64 1e-12, fp32 1e-5, fp16 1e-2, bf16 3e-2 (fp8: 2 u), integers 0 (exact);
// - inputs: TF32 (CUBLAS_COMPUTE_32F_FAST_TF32, or CUBLAS_TF32_TENSOR_OP_MATH for fp32 data) and
//   32F_FAST_16F read 10-bit mantissas (2^-10: some units truncate), 32F_FAST_16BF 7 bits
//   (2^-7); otherwise the inputs are used as stored (0);
// - accumulator: fp64 for COMPUTE_64F and double entry points, fp16 for COMPUTE_16F and Hgemm,
//   exact for COMPUTE_32I, fp32 otherwise; its error grows about as sqrt(k).
#pragma once

#include <cstdint>
#include <string>

namespace cublasspy::replay {

struct ToleranceInputs {
  int output_type = 0;     // cudaDataType of the result
  int input_type = 0;      // cudaDataType of A
  int compute_type = -1;   // cublasComputeType_t, -1 for the typed entry points (Sgemm, Hgemm, ...)
  int math_mode = -1;      // the handle's cublasMath_t, -1 unknown
  bool half_accumulate = false;  // Hgemm-style entry points: fp16 arithmetic throughout
  int64_t k = 0;
};

double tolerance_for(const ToleranceInputs& in);

// One line saying where the figure comes from, for the report: "fp32 output, TF32 inputs, k 64".
std::string tolerance_basis(const ToleranceInputs& in);

}  // namespace cublasspy::replay
