// A cuBLAS GEMM captured into a CUDA graph and replayed, as torch.cuda.graph and vLLM do:
// the handle on a stream of its own, B and C in device memory, a capture of one cublasSgemm,
// an instantiation, then LAUNCHES launches, each after new values are copied into A (outside
// the capture: the graph re-reads its inputs at each launch). Prints what each step returned
// and C[0] after each launch: nothing that depends on the shim (the tests compare the output
// with and without it).
//
//   diag_graph [--launches N] [--free-b] [--worker] [--mode global|thread|relaxed]
//
// --free-b: frees B after the instantiation (the graph still names it: a replay on freed
//   memory). --worker: while the capture is underway, another thread runs a GEMM of its own on
//   another stream (a program whose other threads keep working while one captures).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "device_copy.h"

namespace {

constexpr int kM = 4, kN = 3, kK = 2;

// Another thread's GEMM on a stream of its own, made while the main thread captures: set up
// before the capture (allocations are unsafe calls during a global-mode capture), run when
// told, its status printed. It waits for nothing itself: a wait of its own during another
// thread's global-mode capture is an unsafe call that invalidates that capture.
class Worker {
 public:
  Worker() {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cublasCreate(&handle_);
    cublasSetStream(handle_, stream_);
    a_ = device_copy(std::vector<float>(kM * kK, 1.0f));
    b_ = device_copy(std::vector<float>(kK * kN, 1.0f));
    c_ = device_copy(std::vector<float>(kM * kN, 0.0f));
  }
  ~Worker() { cublasDestroy(handle_); }
  void run_gemm() {
    std::thread([this] {
      const float alpha = 1, beta = 0;
      status_ = cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a_, kM, b_, kK, &beta, c_, kM);
    }).join();
    std::printf("worker gemm %d\n", status_);
  }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  int status_ = -1;
};

}  // namespace

int main(int argc, char** argv) {
  int launches = 3;
  bool free_b = false, worker = false;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--launches") == 0 && i + 1 < argc) launches = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--free-b") == 0) free_b = true;
    else if (std::strcmp(argv[i], "--worker") == 0) worker = true;
    else if (std::strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
      const char* m = argv[++i];
      mode = std::strcmp(m, "thread") == 0    ? cudaStreamCaptureModeThreadLocal
             : std::strcmp(m, "relaxed") == 0 ? cudaStreamCaptureModeRelaxed
                                              : cudaStreamCaptureModeGlobal;
    }
  }
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("setup failed\n");
    return 3;
  }
  cublasSetStream(handle, stream);
  float* a = device_copy(std::vector<float>(kM * kK, 1.0f));
  float* b = device_copy(std::vector<float>(kK * kN, 2.0f));
  float* c = device_copy(std::vector<float>(kM * kN, 0.0f));
  const float alpha = 1, beta = 0;

  std::optional<Worker> other;
  if (worker) other.emplace();
  const int began = cudaStreamBeginCapture(stream, mode);
  const int gemm = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha, a, kM, b, kK, &beta, c, kM);
  if (other) other->run_gemm();
  cudaGraph_t graph = nullptr;
  const int ended = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  const int instantiated = graph != nullptr ? cudaGraphInstantiate(&exec, graph, 0) : -1;
  std::printf("capture began %d gemm %d ended %d instantiated %d\n", began, gemm, ended, instantiated);
  if (free_b) std::printf("freed b %d\n", cudaFree(b));

  for (int i = 1; i <= launches && exec != nullptr; ++i) {
    // New values in A, copied outside the capture: the graph reads them at its launch.
    const std::vector<float> values(kM * kK, static_cast<float>(i));
    cudaMemcpy(a, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice);
    const int launched = cudaGraphLaunch(exec, stream);
    const int synced = cudaStreamSynchronize(stream);
    float c0 = -1;
    cudaMemcpy(&c0, c, sizeof c0, cudaMemcpyDeviceToHost);
    std::printf("launch %d returned %d synchronized %d c[0] %g\n", i, launched, synced, static_cast<double>(c0));
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  cublasDestroy(handle);
  return 0;
}
