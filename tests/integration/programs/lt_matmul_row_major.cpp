// A cuBLASLt matmul described only through descriptors: TRANSA = T, every layout in ROW order,
// a batch of 3 with strides. D (4 x 3) = A^T B, with A stored 2 x 4 (k x m), B 2 x 3 (k x n).
// In cuBLASLt a layout's ROWS and COLS are the matrix's own rows and columns; ORDER only says
// how they lie in memory (for ROW, ld is the distance between rows).
//
// Runs on the stand-in (everything succeeds, D is checked) and on the real cuBLASLt without a
// driver, where handle creation fails but every descriptor call succeeds, so the matmul record
// must still show the shape and types. Prints each status.
#include <cstdio>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kM = 4, kN = 3, kK = 2, kBatch = 3;
constexpr long long kStrideA = kK * kM, kStrideB = kK * kN, kStrideD = kM * kN;

// Device memory when there is a device; the matmul fails before touching it otherwise.
float* buffer(size_t floats, float value) {
  std::vector<float> host(floats, value);
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

cublasLtMatrixLayout_t row_major(uint64_t rows, uint64_t cols, long long stride, int* failures) {
  cublasLtMatrixLayout_t layout = nullptr;
  cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  int batch = kBatch;
  *failures += cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, rows, cols, static_cast<int64_t>(cols)) != 0;
  *failures += cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row) != 0;
  *failures += cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch) != 0;
  *failures += cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                sizeof stride) != 0;
  return layout;
}

}  // namespace

int main() {
  cublasLtHandle_t lt = nullptr;
  std::printf("cublasLtCreate %d\n", static_cast<int>(cublasLtCreate(&lt)));

  int failures = 0;
  cublasLtMatmulDesc_t desc = nullptr;
  failures += cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0;
  cublasOperation_t transpose = CUBLAS_OP_T;
  failures += cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose) != 0;
  cublasLtMatrixLayout_t a_layout = row_major(kK, kM, kStrideA, &failures);
  cublasLtMatrixLayout_t b_layout = row_major(kK, kN, kStrideB, &failures);
  cublasLtMatrixLayout_t d_layout = row_major(kM, kN, kStrideD, &failures);
  std::printf("descriptor failures %d\n", failures);

  float* a = buffer(kStrideA * kBatch, 1.0f);
  float* b = buffer(kStrideB * kBatch, 1.0f);
  float* d = buffer(kStrideD * kBatch, 0.0f);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t st = cublasLtMatmul(lt, desc, &alpha, a, a_layout, b, b_layout, &beta, d, d_layout, d,
                                     d_layout, nullptr, nullptr, 0, nullptr);
  std::printf("cublasLtMatmul %d\n", static_cast<int>(st));
  if (st == CUBLAS_STATUS_SUCCESS) {
    std::vector<float> out(kStrideD * kBatch);
    cudaMemcpy(out.data(), d, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("d[0] %g d[last] %g\n", static_cast<double>(out.front()), static_cast<double>(out.back()));
  }
  cublasLtMatrixLayoutDestroy(a_layout);
  cublasLtMatrixLayoutDestroy(b_layout);
  cublasLtMatrixLayoutDestroy(d_layout);
  cublasLtMatmulDescDestroy(desc);
  if (lt != nullptr) cublasLtDestroy(lt);
  return 0;
}
