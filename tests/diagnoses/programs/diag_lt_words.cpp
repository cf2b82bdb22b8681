// cuBLASLt matmuls that break the library's own rules, for the tests of its log (the library's
// words for a refusal, which the report quotes) and of the checks of those rules.
//
//   diag_lt_words MODE
//     create          cublasLtCreate alone (the real library without a driver refuses and logs why)
//     desc            a matmul descriptor created and destroyed, no handle: nothing to refuse (the
//                     real library, asked for its log, still creates the file, empty)
//     batch-mismatch  A's layout has batch count 2, B's 1, C's and D's 2 (the pattern of
//                     github.com/NVIDIA/CUDALibrarySamples/issues/185): INVALID_VALUE
//     bias-missing    CUBLASLT_EPILOGUE_BIAS and no bias pointer: INVALID_VALUE
//     aux-ld          CUBLASLT_EPILOGUE_GELU_AUX_BIAS with a bias and an aux buffer of ld 12 (m 16;
//                     GELU's wants a multiple of 8, at least m)
//     fp8-nn          fp8 E4M3 A and B, bf16 C and D, transa=N and transb=N (Ada and Hopper take TN
//                     only; the stand-in plays an sm_90 GPU and computes it)
//     fp8-ld          fp8 in TN with k 24: lda = ldb = 24, not a multiple of 16
//     types           CUBLAS_COMPUTE_16F with fp32 matrices: NOT_SUPPORTED
//
// Each matmul is 16 x 16 x 16 (k 24 for fp8-ld) on device memory. Prints "<function> <status>"
// for each call that matters; exit status 0 whatever the library says.
#include <cstdio>
#include <cstring>
#include <string>

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace {

struct Matmul {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t ab = CUDA_R_32F, cd = CUDA_R_32F;
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int64_t m = 16, n = 16, k = 16;
  int32_t batch[4] = {1, 1, 1, 1};
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  bool bias = false, aux = false;
  int64_t aux_ld = 0;
};

size_t bytes_of(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: return 1;
    case CUDA_R_16BF: case CUDA_R_16F: return 2;
    default: return 4;
  }
}

void* device(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
  cudaMemset(p, 0, bytes);
  return p;
}

void run(cublasLtHandle_t lt, const Matmul& mm) {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatmulDescCreate(&desc, mm.compute, mm.compute == CUBLAS_COMPUTE_16F ? CUDA_R_16F : CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &mm.transa, sizeof mm.transa);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &mm.transb, sizeof mm.transb);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &mm.epilogue, sizeof mm.epilogue);
  void* bias = mm.bias ? device(mm.m * 4) : nullptr;
  if (bias) cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  void* aux = mm.aux ? device(mm.aux_ld * mm.n * 4) : nullptr;
  if (aux) {
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &mm.aux_ld, sizeof mm.aux_ld);
  }
  // As stored: op(A) is m x k, op(B) k x n.
  const bool ta = mm.transa != CUBLAS_OP_N, tb = mm.transb != CUBLAS_OP_N;
  const int64_t rows[4] = {ta ? mm.k : mm.m, tb ? mm.n : mm.k, mm.m, mm.m};
  const int64_t cols[4] = {ta ? mm.m : mm.k, tb ? mm.k : mm.n, mm.n, mm.n};
  const cudaDataType_t types[4] = {mm.ab, mm.ab, mm.cd, mm.cd};
  cublasLtMatrixLayout_t layout[4] = {};
  void* data[4] = {};
  for (int i = 0; i < 4; ++i) {
    cublasLtMatrixLayoutCreate(&layout[i], types[i], rows[i], cols[i], rows[i]);
    const int64_t stride = rows[i] * cols[i];
    cublasLtMatrixLayoutSetAttribute(layout[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &mm.batch[i], sizeof mm.batch[i]);
    cublasLtMatrixLayoutSetAttribute(layout[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    data[i] = device(stride * bytes_of(types[i]) * 2);  // room for the largest batch of any mode
  }
  const float alpha = 1.0f, beta = 0.0f;
  const __half alpha16 = __float2half(1.0f), beta16 = __float2half(0.0f);
  const bool half_scale = mm.compute == CUBLAS_COMPUTE_16F;
  cublasStatus_t s = cublasLtMatmul(lt, desc, half_scale ? static_cast<const void*>(&alpha16) : &alpha, data[0],
                                    layout[0], data[1], layout[1], half_scale ? static_cast<const void*>(&beta16) : &beta,
                                    data[2], layout[2], data[3], layout[3], nullptr, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul %d\n", static_cast<int>(s));
  for (int i = 0; i < 4; ++i) {
    cublasLtMatrixLayoutDestroy(layout[i]);
    cudaFree(data[i]);
  }
  cudaFree(bias);
  cudaFree(aux);
  cublasLtMatmulDescDestroy(desc);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "desc") {
    cublasLtMatmulDesc_t desc = nullptr;
    std::printf("cublasLtMatmulDescCreate %d\n",
                static_cast<int>(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)));
    cublasLtMatmulDescDestroy(desc);
    return 0;
  }
  cublasLtHandle_t lt = nullptr;
  cublasStatus_t created = cublasLtCreate(&lt);
  std::printf("cublasLtCreate %d\n", static_cast<int>(created));
  if (mode == "create" || created != CUBLAS_STATUS_SUCCESS) return 0;
  Matmul mm;
  if (mode == "batch-mismatch") {
    mm.batch[0] = 2, mm.batch[1] = 1, mm.batch[2] = 2, mm.batch[3] = 2;
  } else if (mode == "bias-missing") {
    mm.epilogue = CUBLASLT_EPILOGUE_BIAS;
  } else if (mode == "aux-ld") {
    mm.epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    mm.bias = mm.aux = true;
    mm.aux_ld = 12;
  } else if (mode == "fp8-nn" || mode == "fp8-ld") {
    mm.ab = CUDA_R_8F_E4M3;
    mm.cd = CUDA_R_16BF;
    if (mode == "fp8-ld") {
      mm.transa = CUBLAS_OP_T;
      mm.k = 24;
    }
  } else if (mode == "types") {
    mm.compute = CUBLAS_COMPUTE_16F;
  } else {
    std::fprintf(stderr, "diag_lt_words: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  run(lt, mm);
  cublasLtDestroy(lt);
  return 0;
}
