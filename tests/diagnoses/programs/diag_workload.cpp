// A small cuBLAS workload whose operands and arguments a diagnosis test chooses, so one real
// program, run under the real shim, produces the trace each rule must read (or must not fire on).
//
//   diag_workload [option...]
//     --gemms N          how many cublasSgemm_v2 calls (default 1), each followed by
//                        cudaStreamSynchronize unless --no-sync
//     --no-sync          no cudaStreamSynchronize after the GEMMs
//     --nan-a            A[1] is NaN                                 (non-finite-input)
//     --fp32-overflow    A = B = 1e30: finite inputs, Inf outputs    (non-finite-output)
//     --half-overflow    one fp16 cublasGemmEx with A = B = 200, k 2: 80000 > 65504 (half-overflow)
//     --bad-lda          lda = m - 1                                  (invalid-leading-dimension)
//     --huge-lda         lda = 2^31 - 1: A spans 2^31 + 3 elements     (size-overflow; run it with
//                        STANDIN_FAIL for the Sgemm, or the stand-in reads that far)
//     --alias            C is A                                       (output-aliases-input)
//     --host-a           A is a pageable host pointer                 (host-pointer-operand)
//     --misaligned-a     A starts 2 bytes into its allocation         (misaligned-operand)
//     --small-a          A's allocation holds half of what m, k, lda span (operand-out-of-bounds)
//     --a-on-device-1    A is allocated on device 1, the call runs on 0 (device-mismatch; needs
//                        STANDIN_DEVICE_COUNT=2)
//     --device-scalars   pointer mode DEVICE with alpha/beta in host memory (pointer-mode-mismatch)
//     --bad-stride       one cublasSgemmStridedBatched, batch 2, strideC 1: the outputs overlap
//                        (invalid-stride)
//     --memset-first     a cudaMemsetAsync of C on the GEMMs' stream before them (the stand-in
//                        fault STANDIN_ASYNC_ERROR=cudaMemsetAsync:1:700 makes it "a kernel that
//                        faults", the usual cause of an EXECUTION_FAILED in the next GEMM)
//     --oom-first        a cudaMalloc of 1 TiB (fails: out of memory) before cublasCreate
//     --set-device N     cudaSetDevice(N) first
//     --segv-after       die of SIGSEGV after the last call returned (no call in flight)
//
// Linked against the real toolkit; LD_LIBRARY_PATH=<build>/standin runs it on the CPU stand-in,
// whose fault plan (STANDIN_*) the test sets. It carries on whatever fails and prints each
// status, so a test can compare what the program saw with what the trace says. Exit status 0.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace {

struct Options {
  int gemms = 1;
  bool sync = true;
  bool nan_a = false, fp32_overflow = false, half_overflow = false, bad_lda = false;
  bool huge_lda = false;
  bool alias = false, host_a = false, misaligned_a = false, oom_first = false, segv_after = false;
  bool small_a = false, a_on_device_1 = false, device_scalars = false, bad_stride = false;
  bool memset_first = false;
  int set_device = -1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--gemms" && i + 1 < argc) o.gemms = std::atoi(argv[++i]);
    else if (a == "--no-sync") o.sync = false;
    else if (a == "--nan-a") o.nan_a = true;
    else if (a == "--fp32-overflow") o.fp32_overflow = true;
    else if (a == "--half-overflow") o.half_overflow = true;
    else if (a == "--bad-lda") o.bad_lda = true;
    else if (a == "--huge-lda") o.huge_lda = true;
    else if (a == "--alias") o.alias = true;
    else if (a == "--host-a") o.host_a = true;
    else if (a == "--misaligned-a") o.misaligned_a = true;
    else if (a == "--oom-first") o.oom_first = true;
    else if (a == "--memset-first") o.memset_first = true;
    else if (a == "--segv-after") o.segv_after = true;
    else if (a == "--small-a") o.small_a = true;
    else if (a == "--a-on-device-1") o.a_on_device_1 = true;
    else if (a == "--device-scalars") o.device_scalars = true;
    else if (a == "--bad-stride") o.bad_stride = true;
    else if (a == "--set-device" && i + 1 < argc) o.set_device = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "diag_workload: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// Device copy of `bytes` of `host` (room for `slack` more bytes), nullptr when it failed.
void* to_device(const void* host, size_t bytes, size_t slack = 0) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes + slack) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
  return p;
}

constexpr int kM = 4, kN = 3, kK = 2;

void run_half_gemm(cublasHandle_t handle) {
  // 200 * 200 * k(2) = 80000: beyond fp16's largest finite value, 65504.
  std::vector<__half> a(kM * kK, __float2half(200.0f)), b(kK * kN, __float2half(200.0f)),
      c(kM * kN, __float2half(0.0f));
  void* da = to_device(a.data(), a.size() * sizeof(__half));
  void* db = to_device(b.data(), b.size() * sizeof(__half));
  void* dc = to_device(c.data(), c.size() * sizeof(__half));
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &one, da, CUDA_R_16F,
                                  kM, db, CUDA_R_16F, kK, &zero, dc, CUDA_R_16F, kM,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  std::printf("cublasGemmEx %d\n", static_cast<int>(s));
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);

  int count = -1;
  std::printf("cudaGetDeviceCount %d count %d\n", static_cast<int>(cudaGetDeviceCount(&count)), count);
  if (o.set_device >= 0) std::printf("cudaSetDevice %d\n", static_cast<int>(cudaSetDevice(o.set_device)));
  if (o.oom_first) {
    void* huge = nullptr;
    std::printf("cudaMalloc(1 TiB) %d\n", static_cast<int>(cudaMalloc(&huge, size_t{1} << 40)));
  }

  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  cublasSetStream(handle, stream);

  const float value = o.fp32_overflow ? 1e30f : 1.0f;
  std::vector<float> a(kM * kK, value), b(kK * kN, value), c(kM * kN, 0.0f);
  if (o.nan_a) a[1] = std::nanf("");
  const size_t slack = o.misaligned_a ? 16 : 0;
  if (o.a_on_device_1) cudaSetDevice(1);
  void* da = to_device(a.data(), (o.small_a ? a.size() / 2 : a.size()) * sizeof(float), slack);
  if (o.a_on_device_1) cudaSetDevice(0);
  void* db = to_device(b.data(), b.size() * sizeof(float));
  void* dc = to_device(c.data(), c.size() * sizeof(float));

  const float* A = static_cast<const float*>(da);
  if (o.host_a) A = a.data();
  if (o.misaligned_a && da != nullptr) A = reinterpret_cast<const float*>(static_cast<char*>(da) + 2);
  float* C = static_cast<float*>(dc);
  if (o.alias) C = static_cast<float*>(da);
  const int lda = o.huge_lda ? 2147483647 : o.bad_lda ? kM - 1 : kM;

  const float alpha = 1.0f, beta = 0.0f;
  if (o.device_scalars) cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);  // alpha/beta stay on the host
  if (o.bad_stride) {
    std::vector<float> c2(2 * kM * kN, 0.0f);
    void* dc2 = to_device(c2.data(), c2.size() * sizeof(float));
    cublasStatus_t s = cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, A, lda, 0,
                                                 static_cast<const float*>(db), kK, 0, &beta,
                                                 static_cast<float*>(dc2), kM, 1, 2);
    std::printf("cublasSgemmStridedBatched %d\n", static_cast<int>(s));
  }
  if (o.memset_first) {
    std::printf("cudaMemsetAsync %d\n", static_cast<int>(cudaMemsetAsync(C, 0, kM * kN * sizeof(float), stream)));
  }
  for (int i = 0; i < o.gemms; ++i) {
    cublasStatus_t s = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, A, lda,
                                   static_cast<const float*>(db), kK, &beta, C, kM);
    std::printf("cublasSgemm_v2 %d\n", static_cast<int>(s));
    if (o.sync) std::printf("cudaStreamSynchronize %d\n", static_cast<int>(cudaStreamSynchronize(stream)));
  }
  if (o.half_overflow) run_half_gemm(handle);

  std::printf("cublasDestroy_v2 %d\n", static_cast<int>(cublasDestroy(handle)));
  if (o.segv_after) {
    std::fflush(stdout);
    std::raise(SIGSEGV);
  }
  return 0;
}
