// STANDIN_DELAYED_ERROR: a kernel whose fault the host hears of only at its next call that checks
// the device (standin/driver/sticky_error.cpp has the model). Each check runs in a child of its
// own, forked after the set-up, so that each is the first to look: the faulting launch and the
// error checks right after it succeed, the check under test returns the error, and from then on
// it is sticky (cudaGetLastError included).
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "selftest_check.h"

// nvcc's registration calls (crt/host_runtime.h), exported by libcudart: the kernel a program
// built by nvcc registers at load time.
extern "C" void** __cudaRegisterFatBinary(void* fatCubin);
extern "C" void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                       const char* deviceName, int thread_limit, uint3* tid, uint3* bid, dim3* bDim,
                                       dim3* gDim, int* wSize);

namespace {

constexpr cudaError_t kAssert = cudaErrorAssert;  // 710: what an index out of range trips

void index_select_stub() {}  // the kernel's host stub: its address names the kernel

struct FatbinWrapper {
  int magic, version;
  const unsigned long long* data;
  void* filename_or_fatbins;
};
const unsigned long long kNoImage[2] = {};
FatbinWrapper wrapper{0x466243b1, 1, kNoImage, nullptr};

void register_kernel() {
  void** handle = __cudaRegisterFatBinary(&wrapper);
  static char device_name[] = "index_select_kernel";
  __cudaRegisterFunction(handle, reinterpret_cast<const char*>(&index_select_stub), device_name, device_name, -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr);
}

cudaError_t launch(cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(&index_select_stub), dim3(1), dim3(32), nullptr, 0, stream);
}

// What the children share, made before the fork: nothing here checks the device after the fault.
struct Setup {
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  cublasHandle_t handle = nullptr;
  float* device = nullptr;
};

// In a child: the faulting launch, its checks (clean), then `check`, which must see the fault;
// then the error is sticky, for cudaGetLastError too.
void first_look(const char* what, const std::function<void()>& check) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    CHECK_EQ(launch(nullptr), cudaSuccess);
    CHECK_EQ(cudaGetLastError(), cudaSuccess);  // PyTorch's launch check: the kernel has not faulted yet
    CHECK_EQ(cudaPeekAtLastError(), cudaSuccess);
    int device = -1;
    CHECK_EQ(cudaGetDevice(&device), cudaSuccess);  // no check of the device's work
    check();
    CHECK_EQ(cudaPeekAtLastError(), kAssert);  // landed: sticky from now on
    CHECK_EQ(cudaGetLastError(), kAssert);
    CHECK_EQ(cudaDeviceSynchronize(), kAssert);
    std::_Exit(0);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "delayed fault: the check by %s failed\n", what);
    std::exit(1);
  }
}

}  // namespace

void case_delayed_fault() {
  setenv("STANDIN_DELAYED_ERROR", "cudaLaunchKernel:1:710", 1);
  register_kernel();
  Setup s;
  CHECK_EQ(cudaStreamCreate(&s.stream), cudaSuccess);
  CHECK_EQ(cudaEventCreate(&s.event), cudaSuccess);
  CHECK_EQ(cublasCreate(&s.handle), CUBLAS_STATUS_SUCCESS);
  std::vector<float> host(16, 1.0f);
  CHECK_EQ(cudaMalloc(reinterpret_cast<void**>(&s.device), host.size() * sizeof(float)), cudaSuccess);
  CHECK_EQ(cudaMemcpy(s.device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  CHECK_EQ(cudaEventRecord(s.event, s.stream), cudaSuccess);
  const float one = 1.0f;

  // Waits and queries.
  first_look("cudaDeviceSynchronize", [] { CHECK_EQ(cudaDeviceSynchronize(), kAssert); });
  first_look("cudaStreamSynchronize", [&] { CHECK_EQ(cudaStreamSynchronize(s.stream), kAssert); });
  first_look("cudaStreamQuery", [&] { CHECK_EQ(cudaStreamQuery(s.stream), kAssert); });
  first_look("cudaEventSynchronize", [&] { CHECK_EQ(cudaEventSynchronize(s.event), kAssert); });
  first_look("cudaEventQuery", [&] { CHECK_EQ(cudaEventQuery(s.event), kAssert); });
  first_look("cuCtxSynchronize", [] { CHECK_EQ(cuCtxSynchronize(), CUDA_ERROR_ASSERT); });
  // Copies: a blocking one, and PyTorch's .cpu() (an asynchronous copy to the host).
  first_look("cudaMemcpy to the host", [&] {
    CHECK_EQ(cudaMemcpy(host.data(), s.device, sizeof(float), cudaMemcpyDeviceToHost), kAssert);
  });
  first_look("cudaMemcpyAsync to the host", [&] {
    CHECK_EQ(cudaMemcpyAsync(host.data(), s.device, sizeof(float), cudaMemcpyDeviceToHost, s.stream), kAssert);
  });
  // An allocation, and the next launch.
  first_look("cudaMalloc", [] {
    void* p = nullptr;
    CHECK_EQ(cudaMalloc(&p, 256), kAssert);
  });
  first_look("the next launch", [&] { CHECK_EQ(launch(s.stream), kAssert); });
  // cuBLAS: the next GEMM, and a handle created after the fault (the program's first GEMM).
  first_look("cublasSgemm", [&] {
    CHECK_EQ(cublasSgemm(s.handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, s.device, 2, s.device + 4, 2, &one,
                         s.device + 8, 2),
             CUBLAS_STATUS_EXECUTION_FAILED);
  });
  first_look("cublasCreate", [] {
    cublasHandle_t late = nullptr;
    CHECK_EQ(cublasCreate(&late), CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(late == nullptr);
  });

  // Without the fault nothing here fails: the set-up's own calls are clean.
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
}
