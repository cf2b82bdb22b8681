// The field's case with a kernel of the program's own: an indexing kernel is launched on the
// GEMMs' stream, then a correct cublasSgemm runs. Built by nvcc (shared runtime) and run on the
// CPU stand-in, whose fault plan makes the kernel "fault" on the device
// (STANDIN_ASYNC_ERROR=cudaLaunchKernel:1:700: the launch succeeds, a sticky illegal address
// follows), as an embedding index out of range does on a GPU.
//
//   diag_kernel_fault [--other-stream] [--no-gemm] [--driver-waits] [--chevrons] [--per-thread-waits]
//                     [--per-thread-launch] [--pytorch-kernel] [--late-handle]
//     --other-stream   a kernel launched on a second stream first, never waited for: no
//                      suspect of an error found on the GEMMs' stream (docs/DIAGNOSES.md)
//     --no-gemm        no GEMM: the program waits with cudaDeviceSynchronize and reads
//                      cudaGetLastError, where the error surfaces (NVIDIA's samples end so)
//     --driver-waits   first, the driver's cuStreamSynchronize and cuCtxSynchronize through
//                      cuGetProcAddress (for 13.0 the latter is cuCtxSynchronize_v2(CUcontext)),
//                      as a program with the static runtime reaches them
//     --chevrons       the indexing kernel launched by <<<...>>>, which nvcc 12.4 and later
//                      compile to the runtime's __cudaLaunchKernel with the kernel's handle
//                      (the stand-in's fault plan then names __cudaLaunchKernel)
//     --per-thread-waits  no GEMM: the waits of a program built with --default-stream
//                      per-thread: cudaStreamQuery_ptsz, cudaStreamSynchronize_ptsz, and
//                      cuStreamSynchronize looked up with the per-thread flag (_ptsz)
//     --per-thread-launch  the indexing kernel launched as a program built with
//                      --default-stream per-thread launches it: cudaLaunchKernel_ptsz (then
//                      scale_rows by cudaLaunchKernelExC_ptsz)
//     --pytorch-kernel the indexing kernel named as PyTorch's embedding lookup
//                      (at::native::indexSelectSmallIndex), whose usual cause the diagnosis knows
//     --late-handle    the cuBLAS handle created after the indexing kernel, for the GEMM, as
//                      PyTorch creates it for a program's first GEMM: a fault the host has not
//                      heard of yet (STANDIN_DELAYED_ERROR) makes cublasCreate fail
//
// Else the kernel is launched through cudaLaunchKernel, as PyTorch's kernels are. Linked with --export-dynamic so that
// dladdr names the kernel's host stub and the launching function. Prints each status; exit status 0.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void gather_rows(const float* table, const int* index, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[index[i]];
}

// The same gather under the name of PyTorch's kernel for an embedding lookup (index_select).
namespace at::native {
template <typename T, typename IndexType>
__global__ void indexSelectSmallIndex(const T* table, const IndexType* index, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[index[i]];
}
}  // namespace at::native

__global__ void scale_rows(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// What cuda_runtime_api.h names cudaStreamQuery, cudaStreamSynchronize, cudaLaunchKernel and
// cudaLaunchKernelExC under --default-stream per-thread.
extern "C" cudaError_t cudaStreamQuery_ptsz(cudaStream_t);
extern "C" cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t);
extern "C" cudaError_t cudaLaunchKernel_ptsz(const void*, dim3, dim3, void**, size_t, cudaStream_t);
extern "C" cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t*, const void*, void**);

namespace {

void report(const char* what, int status) { std::printf("%s %d\n", what, status); }

}  // namespace

// Not inlined and exported (--export-dynamic), so that the failing launch's native location
// names it: "launch_on_stream <- main".
__attribute__((noinline)) cudaError_t launch_on_stream(const void* kernel, void** args, cudaStream_t stream) {
  return cudaLaunchKernel(kernel, dim3(1), dim3(32), args, 0, stream);
}

int main(int argc, char** argv) {
  bool other_stream = false, gemm = true, driver_waits = false, chevrons = false, per_thread = false,
       per_thread_launch = false, pytorch_kernel = false, late_handle = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--other-stream") == 0) other_stream = true;
    else if (std::strcmp(argv[i], "--no-gemm") == 0) gemm = false;
    else if (std::strcmp(argv[i], "--driver-waits") == 0) driver_waits = true;
    else if (std::strcmp(argv[i], "--chevrons") == 0) chevrons = true;
    else if (std::strcmp(argv[i], "--per-thread-waits") == 0) per_thread = true, gemm = false;
    else if (std::strcmp(argv[i], "--per-thread-launch") == 0) per_thread_launch = true;
    else if (std::strcmp(argv[i], "--pytorch-kernel") == 0) pytorch_kernel = true;
    else if (std::strcmp(argv[i], "--late-handle") == 0) late_handle = true;
    else {
      std::fprintf(stderr, "diag_kernel_fault: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  // Looked up first, before anything else in the process asks for them (a static runtime does).
  CUresult (*stream_synchronize)(CUstream) = nullptr;
  CUresult (*ctx_synchronize_v2)(CUcontext) = nullptr;
  if (driver_waits) {
    CUdriverProcAddressQueryResult found{};
    void* fn = nullptr;
    report("cuGetProcAddress cuStreamSynchronize",
           cuGetProcAddress("cuStreamSynchronize", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found));
    stream_synchronize = reinterpret_cast<CUresult (*)(CUstream)>(fn);
    fn = nullptr;
    report("cuGetProcAddress cuCtxSynchronize",
           cuGetProcAddress("cuCtxSynchronize", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &found));
    ctx_synchronize_v2 = reinterpret_cast<CUresult (*)(CUcontext)>(fn);
  }
  CUresult (*stream_synchronize_ptsz)(CUstream) = nullptr;
  if (per_thread) {
    CUdriverProcAddressQueryResult found{};
    void* fn = nullptr;
    report("cuGetProcAddress cuStreamSynchronize per-thread",
           cuGetProcAddress("cuStreamSynchronize", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found));
    stream_synchronize_ptsz = reinterpret_cast<CUresult (*)(CUstream)>(fn);
  }
  constexpr int kM = 4, kN = 3, kK = 2;
  int count = -1;
  report("cudaGetDeviceCount", cudaGetDeviceCount(&count));
  cublasHandle_t handle = nullptr;
  if (!late_handle) report("cublasCreate_v2", cublasCreate(&handle));
  cudaStream_t stream = nullptr, side = nullptr;
  cudaStreamCreate(&stream);
  cudaStreamCreate(&side);
  if (!late_handle) cublasSetStream(handle, stream);

  float host[kM * kK];
  for (float& v : host) v = 1.0f;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  int* index = nullptr;
  cudaMalloc(&a, sizeof host);
  cudaMalloc(&b, sizeof host);
  cudaMalloc(&c, sizeof host);
  cudaMalloc(&index, 32 * sizeof(int));
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemcpy(b, host, sizeof host, cudaMemcpyHostToDevice);

  if (driver_waits) {
    if (stream_synchronize != nullptr) report("cuStreamSynchronize", stream_synchronize(stream));
    if (ctx_synchronize_v2 != nullptr) report("cuCtxSynchronize_v2", ctx_synchronize_v2(nullptr));
  }

  int n = 32;
  if (other_stream) {
    void* args[] = {&c, &n};
    report("cudaLaunchKernel scale_rows", launch_on_stream(reinterpret_cast<const void*>(scale_rows), args, side));
  }
  void* args[] = {&a, &index, &c, &n};
  if (chevrons) {
    gather_rows<<<1, 32, 0, stream>>>(a, index, c, n);
    report("gather_rows<<<>>>", cudaGetLastError());
  } else if (per_thread_launch) {
    report("cudaLaunchKernel_ptsz gather_rows",
           cudaLaunchKernel_ptsz(reinterpret_cast<const void*>(gather_rows), dim3(1), dim3(32), args, 0, stream));
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(2);
    config.blockDim = dim3(16);
    config.stream = stream;
    void* scale_args[] = {&c, &n};
    report("cudaLaunchKernelExC_ptsz scale_rows",
           cudaLaunchKernelExC_ptsz(&config, reinterpret_cast<const void*>(scale_rows), scale_args));
  } else if (pytorch_kernel) {
    report("cudaLaunchKernel indexSelectSmallIndex",
           launch_on_stream(reinterpret_cast<const void*>(at::native::indexSelectSmallIndex<float, int>), args, stream));
  } else {
    report("cudaLaunchKernel gather_rows", launch_on_stream(reinterpret_cast<const void*>(gather_rows), args, stream));
  }
  if (per_thread) {
    report("cudaStreamQuery_ptsz", cudaStreamQuery_ptsz(stream));
    report("cudaStreamSynchronize_ptsz", cudaStreamSynchronize_ptsz(stream));
    if (stream_synchronize_ptsz != nullptr) report("cuStreamSynchronize_ptsz", stream_synchronize_ptsz(stream));
  } else if (gemm) {
    if (late_handle) {
      report("cublasCreate_v2", cublasCreate(&handle));
      cublasSetStream(handle, stream);
    }
    const float alpha = 1.0f, beta = 0.0f;
    report("cublasSgemm_v2", cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK,
                                         &beta, c, kM));
    report("cudaStreamSynchronize", cudaStreamSynchronize(stream));
  } else {
    report("cudaDeviceSynchronize", cudaDeviceSynchronize());
    report("cudaGetLastError", cudaGetLastError());
  }
  return 0;
}
