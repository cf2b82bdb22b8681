// The legacy v1 cuBLAS API (cublas.h), which cannot share a file with cublas_v2.h.
#include <cublas.h>

#include <cmath>
#include <vector>

#include "selftest_check.h"

void run_legacy_case() {
  // Before cublasInit every v1 call fails with NOT_INITIALIZED, reported by cublasGetError.
  float* none = nullptr;
  cublasSgemm('N', 'N', 1, 1, 1, 1.0f, none, 1, none, 1, 0.0f, none, 1);
  CHECK_EQ(cublasGetError(), CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_EQ(cublasGetError(), CUBLAS_STATUS_SUCCESS);

  CHECK_EQ(cublasInit(), CUBLAS_STATUS_SUCCESS);
  const int m = 3, n = 2, k = 4, lda = 5, ldb = 4, ldc = 4;  // A is k x m (transposed), B is k x n
  std::vector<float> a(lda * m), b(ldb * n), c(ldc * n, 1.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK_EQ(cublasAlloc(lda * m, sizeof(float), reinterpret_cast<void**>(&da)), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasAlloc(ldb * n, sizeof(float), reinterpret_cast<void**>(&db)), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasAlloc(ldc * n, sizeof(float), reinterpret_cast<void**>(&dc)), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetMatrix(lda, m, sizeof(float), a.data(), lda, da, lda), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetMatrix(ldb, n, sizeof(float), b.data(), ldb, db, ldb), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasSetMatrix(ldc, n, sizeof(float), c.data(), ldc, dc, ldc), CUBLAS_STATUS_SUCCESS);

  cublasSgemm('t', 'N', m, n, k, 2.0f, da, lda, db, ldb, 0.5f, dc, ldc);
  CHECK_EQ(cublasGetError(), CUBLAS_STATUS_SUCCESS);
  std::vector<float> out(ldc * n);
  CHECK_EQ(cublasGetMatrix(ldc, n, sizeof(float), dc, ldc, out.data(), ldc), CUBLAS_STATUS_SUCCESS);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += a[p + i * lda] * b[p + j * ldb];
      CHECK(std::fabs(out[i + j * ldc] - (2.0 * acc + 0.5)) < 1e-4);
    }

  cublasSgemm('x', 'N', m, n, k, 1.0f, da, lda, db, ldb, 0.0f, dc, ldc);  // not an operation
  CHECK_EQ(cublasGetError(), CUBLAS_STATUS_INVALID_VALUE);
  cublasSgemm('N', 'N', m, n, k, 1.0f, da, 1, db, ldb, 0.0f, dc, ldc);  // lda < m
  CHECK_EQ(cublasGetError(), CUBLAS_STATUS_INVALID_VALUE);
  // A device end that is not device memory: MAPPING_ERROR from the copy helpers.
  CHECK_EQ(cublasSetMatrix(ldc, n, sizeof(float), c.data(), ldc, out.data(), ldc), CUBLAS_STATUS_MAPPING_ERROR);

  CHECK_EQ(cublasFree(da), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasFree(db), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasFree(dc), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasShutdown(), CUBLAS_STATUS_SUCCESS);
  CHECK_EQ(cublasShutdown(), CUBLAS_STATUS_NOT_INITIALIZED);
}
