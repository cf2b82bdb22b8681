// cuBLASLt planar complex (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET != 0): a complex matrix stored as
// two real matrices of the same layout, the real parts at the operand's pointer and the
// imaginary parts plane_offset bytes away (either sign). cublasLt.h: the layout's ld counts
// elements of one plane, and its STRIDED_BATCH_OFFSET counts real sub-elements (a stride of 512
// is 1024 bytes for CUDA_C_16F).
//
// The matmul's plan addresses each planar operand as its real plane (a view of the real part's
// type, so extents, batch strides and bounds are one plane's); run_planar_gemm gathers the two
// planes into interleaved complex<double> matrices for the GEMM core and writes D's result back
// into D's two planes.
#pragma once

#include <cublasLt.h>

#include <cstdint>

#include "gemm_core.h"
#include "lt_descriptors.h"

namespace standin {

struct LtPlanes {
  bool any = false;         // some layout is planar: then all four are (checked by plan_planes)
  int64_t offset[4] = {};   // A, B, C, D: bytes from the real plane to the imaginary one
};

// The type combinations cuBLASLt documents for planar complex, beyond the interleaved complex
// ones the stand-in computes anyway: fp16 or bf16 complex inputs, fp32 compute with a complex
// fp32 scale, C and D of the inputs' type or complex fp32.
bool planar_types_supported(int32_t compute, cudaDataType scale, cudaDataType a, cudaDataType b, cudaDataType c,
                            cudaDataType d);

// Reads the plane offsets of a matmul's layouts into `planes`. A planar call the stand-in does
// not model is NOT_SUPPORTED: planar and interleaved operands mixed, a non-complex planar layout,
// a tiled order, a pointer-array batch, or an epilogue.
cublasStatus_t plan_planes(const LtMatmulDesc& desc, const LtLayout* const layouts[4], LtPlanes* planes);

// The element type of one plane of a complex type (CUDA_C_16F: CUDA_R_16F).
cudaDataType plane_type(cudaDataType complex_type);

// Runs `problem`, whose planar operands are views of their real planes (type plane_type), with
// the imaginary planes at planes.offset.
void run_planar_gemm(const GemmProblem& problem, const LtPlanes& planes);

}  // namespace standin
