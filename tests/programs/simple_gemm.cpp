// A small cuBLAS program the tool tests run under the shim: device enumeration, a handle with a
// stream and host pointer mode, one cublasSgemm_v2 with host alpha/beta, one fp16 cublasGemmEx
// with algo 99 (as PyTorch calls it), then cublasDestroy_v2. It carries on whatever fails, so
// on a machine without a driver every call still happens and fails for real, and it prints
// each status so a test can compare the trace with what the program saw.
//
// Linked against the real toolkit (RUNPATH /usr/local/cuda/lib64); LD_LIBRARY_PATH can point
// it at the CPU stand-in instead. Exit status: 0, whatever the calls returned.
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

void* device_buffer(size_t bytes, const void* host) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
  if (host != nullptr) cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
  return p;
}

}  // namespace

int main() {
  int count = -1;
  cudaError_t count_status = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount %d count %d\n", static_cast<int>(count_status), count);

  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));

  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  std::printf("cublasSetStream_v2 %d\n", static_cast<int>(cublasSetStream(handle, stream)));
  std::printf("cublasSetPointerMode_v2 %d\n",
              static_cast<int>(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST)));

  // fp32: A is m x k, B is k x n, C is m x n, column-major, tight leading dimensions.
  std::vector<float> a(kM * kK, 1.0f), b(kK * kN, 2.0f), c(kM * kN, 1.0f);
  auto* da = static_cast<float*>(device_buffer(a.size() * sizeof(float), a.data()));
  auto* db = static_cast<float*>(device_buffer(b.size() * sizeof(float), b.data()));
  auto* dc = static_cast<float*>(device_buffer(c.size() * sizeof(float), c.data()));
  const float alpha = 1.5f, beta = 0.5f;
  cublasStatus_t sgemm = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, da,
                                     kM, db, kK, &beta, dc, kM);
  std::printf("cublasSgemm_v2 %d\n", static_cast<int>(sgemm));
  if (sgemm == CUBLAS_STATUS_SUCCESS) {
    cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("sgemm c[0] %g\n", static_cast<double>(c[0]));  // 1.5*2*2 + 0.5 = 6.5
  }

  // fp16 in, fp16 out, fp32 compute, algo 99: A^T is used, so A is stored k x m.
  std::vector<__half> ha(kK * kM, __float2half(1.0f)), hb(kK * kN, __float2half(1.0f)),
      hc(kM * kN, __float2half(0.0f));
  void* dha = device_buffer(ha.size() * sizeof(__half), ha.data());
  void* dhb = device_buffer(hb.size() * sizeof(__half), hb.data());
  void* dhc = device_buffer(hc.size() * sizeof(__half), hc.data());
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t gemm_ex = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, kM, kN, kK, &one, dha,
                                        CUDA_R_16F, kK, dhb, CUDA_R_16F, kK, &zero, dhc, CUDA_R_16F,
                                        kM, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  std::printf("cublasGemmEx %d\n", static_cast<int>(gemm_ex));

  std::printf("cublasDestroy_v2 %d\n", static_cast<int>(cublasDestroy(handle)));
  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dc), dha, dhb, dhc}) {
    if (p != nullptr) cudaFree(p);
  }
  if (stream != nullptr) cudaStreamDestroy(stream);
  return 0;
}
