// A small stand-in for a training step, the way PyTorch drives cuBLAS: device enumeration, one
// handle with a stream and workspace, an fp32 Linear (Sgemm), an fp16 Linear (GemmEx, algo 99,
// TF32 math toggled around it), a Linear+bias through cuBLASLt, and a batched attention-style
// matmul. It checks every status and prints what failed, like a framework would, and exits 1.
//
//   training_step [--nan]   --nan puts a NaN into the fp32 Linear's input (try CUBLASSPY_SCAN).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

void check(const char* what, int status) {
  if (status != 0) {
    std::fprintf(stderr, "training_step: %s failed with status %d\n", what, status);
    ++failures;
  }
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  void* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return static_cast<T*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  bool inject_nan = argc > 1 && std::strcmp(argv[1], "--nan") == 0;
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "training_step: cudaGetDeviceCount: %s (%d)\n", cudaGetErrorString(err), err);
    return 1;
  }
  cublasHandle_t handle = nullptr;
  cublasStatus_t st = cublasCreate(&handle);
  if (st != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "training_step: CUBLAS_STATUS %d when calling cublasCreate(handle)\n", st);
    return 1;
  }
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  check("cublasSetStream", cublasSetStream(handle, stream));
  void* workspace = nullptr;
  cudaMalloc(&workspace, 1 << 20);
  check("cublasSetWorkspace", cublasSetWorkspace(handle, workspace, 1 << 20));

  const int m = 64, n = 32, k = 48;
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n, 0.f);
  if (inject_nan) a[7 + 3 * m] = NAN;
  float *da = device_copy(a), *db = device_copy(b), *dc = device_copy(c);
  float one = 1.f, zero = 0.f;
  check("cublasSgemm", cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, db, k,
                                   &zero, dc, m));

  std::vector<__half> ha(m * k, __float2half(0.5f)), hb(k * n, __float2half(0.25f)), hc(m * n);
  __half *dha = device_copy(ha), *dhb = device_copy(hb), *dhc = device_copy(hc);
  check("cublasSetMathMode", cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
  check("cublasGemmEx", cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dha, CUDA_R_16F, m,
                                     dhb, CUDA_R_16F, k, &zero, dhc, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT_TENSOR_OP));
  check("cublasSetMathMode", cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));

  // Linear + bias through cuBLASLt (PyTorch's addmm path: the cuBLAS handle cast, C == D).
  std::vector<float> bias(m, 1.f);
  float* dbias = device_copy(bias);
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  check("cublasLtMatmulDescCreate", cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  check("cublasLtMatmulDescSetAttribute",
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  check("cublasLtMatmulDescSetAttribute",
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
  check("cublasLtMatrixLayoutCreate", cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m));
  check("cublasLtMatrixLayoutCreate", cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  check("cublasLtMatrixLayoutCreate", cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
  check("cublasLtMatmul", cublasLtMatmul(reinterpret_cast<cublasLtHandle_t>(handle), desc, &one, da, la,
                                         db, lb, &one, dc, lc, dc, lc, nullptr, workspace, 1 << 20, stream));
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);

  // Attention-style batched matmul (bmm).
  const int batch = 4;
  std::vector<float> q(batch * m * k, 0.1f), kk(batch * k * n, 0.2f), s(batch * m * n);
  float *dq = device_copy(q), *dk = device_copy(kk), *ds = device_copy(s);
  check("cublasSgemmStridedBatched",
        cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dq, m,
                                  static_cast<long long>(m) * k, dk, k, static_cast<long long>(k) * n,
                                  &zero, ds, m, static_cast<long long>(m) * n, batch));

  err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "training_step: CUDA error: %s (%d)\n", cudaGetErrorString(err), err);
    ++failures;
  }
  cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  // Sgemm gives k * 0.5 * 0.25; the Lt matmul adds it again (beta 1) plus the bias 1.
  std::printf("training_step: C[0] = %g (expected %g)%s\n", c[0], 2 * 0.5f * 0.25f * k + 1.f,
              failures ? ", with failures" : "");
  cublasDestroy(handle);
  return failures ? 1 : 0;
}
