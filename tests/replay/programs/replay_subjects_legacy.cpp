// The v1 API's GEMMs (cublas.h: no handle, char transposes, scalars by value) for the replay
// subject: each once, on the same problem as the others (replay_subjects.cpp).
#include <cstdio>

#include <cublas.h>

#include "gemm_arguments.h"

void call_legacy_gemms() {
  using namespace subjects;
  if (cublasInit() != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasInit failed\n");
    return;
  }
  Memory memory;
  auto buffer = [&](cublasspy::DataType t, int64_t elements) { return memory.device(t, elements, 5); };
  const int64_t a = (kK - 1) * kLda + kM, b = (kK - 1) * kLdb + kN, c = (kN - 1) * kLdc + kM;
  using cublasspy::DataType;
  cublasSgemm('N', 'T', kM, kN, kK, 1.5f, static_cast<float*>(buffer(DataType::kR32F, a)), kLda,
              static_cast<float*>(buffer(DataType::kR32F, b)), kLdb, 0.5f, static_cast<float*>(buffer(DataType::kR32F, c)), kLdc);
  std::printf("cublasSgemm %d\n", static_cast<int>(cublasGetError()));
  cublasDgemm('N', 'T', kM, kN, kK, 1.5, static_cast<double*>(buffer(DataType::kR64F, a)), kLda,
              static_cast<double*>(buffer(DataType::kR64F, b)), kLdb, 0.5, static_cast<double*>(buffer(DataType::kR64F, c)), kLdc);
  std::printf("cublasDgemm %d\n", static_cast<int>(cublasGetError()));
  cublasCgemm('N', 'C', kM, kN, kK, make_cuComplex(1.5f, 0.25f), static_cast<cuComplex*>(buffer(DataType::kC32F, a)), kLda,
              static_cast<cuComplex*>(buffer(DataType::kC32F, b)), kLdb, make_cuComplex(0.5f, 0),
              static_cast<cuComplex*>(buffer(DataType::kC32F, c)), kLdc);
  std::printf("cublasCgemm %d\n", static_cast<int>(cublasGetError()));
  cublasZgemm('N', 'T', kM, kN, kK, make_cuDoubleComplex(1.5, -0.5), static_cast<cuDoubleComplex*>(buffer(DataType::kC64F, a)),
              kLda, static_cast<cuDoubleComplex*>(buffer(DataType::kC64F, b)), kLdb, make_cuDoubleComplex(0.5, 0),
              static_cast<cuDoubleComplex*>(buffer(DataType::kC64F, c)), kLdc);
  std::printf("cublasZgemm %d\n", static_cast<int>(cublasGetError()));
  cublasShutdown();
}
