// A program built from a .cu file by nvcc (shared runtime), run on the CUDA 13 stand-in: its
// static constructors register a fatbin and a kernel (__cudaRegisterFatBinary, ...), its host
// code runs (memory, copies, events, a 0-byte async copy), and its kernel launch fails as on a
// GPU the fatbin has no code for. With STANDIN_ASYNC_ERROR=__cudaLaunchKernel:1:700 the launch
// "runs" and faults instead: the error is sticky until cudaDeviceReset.
//   nvcc_program            expects cudaErrorNoKernelImageForDevice from the launch
//   nvcc_program fault      expects a sticky cudaErrorIllegalAddress, cleared by cudaDeviceReset
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

static int failures = 0;

static void expect(const char* what, cudaError_t got, cudaError_t want) {
  const bool ok = got == want;
  std::printf("%s %s: %s (%d), expected %s (%d)\n", ok ? "ok  " : "FAIL", what, cudaGetErrorName(got), got,
              cudaGetErrorName(want), want);
  failures += ok ? 0 : 1;
}

int main(int argc, char** argv) {
  const bool fault = argc > 1 && std::strcmp(argv[1], "fault") == 0;
  float host[32];
  for (int i = 0; i < 32; ++i) host[i] = static_cast<float>(i);
  float* dev = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  expect("cudaMalloc", cudaMalloc(&dev, sizeof host), cudaSuccess);
  expect("cudaStreamCreate", cudaStreamCreate(&stream), cudaSuccess);
  expect("cudaEventCreate", cudaEventCreate(&start), cudaSuccess);
  expect("cudaEventCreate", cudaEventCreate(&stop), cudaSuccess);
  expect("cudaMemcpyAsync of 0 bytes", cudaMemcpyAsync(nullptr, nullptr, 0, cudaMemcpyHostToDevice, stream), cudaSuccess);
  expect("cudaMemcpy to the device", cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
  expect("cudaEventRecord", cudaEventRecord(start, stream), cudaSuccess);
  add_one<<<1, 32, 0, stream>>>(dev, 32);
  // A faulting kernel is already done here (the stand-in runs everything at once): the error is
  // there at the first look, and it stays.
  expect("the launch", cudaGetLastError(), fault ? cudaErrorIllegalAddress : cudaErrorNoKernelImageForDevice);
  expect("cudaGetLastError after it", cudaGetLastError(), fault ? cudaErrorIllegalAddress : cudaSuccess);
  expect("cudaEventRecord", cudaEventRecord(stop, stream), fault ? cudaErrorIllegalAddress : cudaSuccess);
  expect("cudaStreamSynchronize", cudaStreamSynchronize(stream), fault ? cudaErrorIllegalAddress : cudaSuccess);
  float ms = -1.0f;
  if (!fault) expect("cudaEventElapsedTime", cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  float back[32] = {};
  expect("cudaMemcpy back", cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost),
         fault ? cudaErrorIllegalAddress : cudaSuccess);
  if (!fault && std::memcmp(back, host, sizeof host) != 0) {  // the kernel did not run: data unchanged
    std::printf("FAIL the data changed although no kernel ran\n");
    ++failures;
  }
  expect("cudaDeviceReset", cudaDeviceReset(), cudaSuccess);
  expect("cudaDeviceSynchronize after the reset", cudaDeviceSynchronize(), cudaSuccess);
  std::printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
