// Many threads calling cublasSgemm_v2 at once, each on its own handle and operands. Thread t
// passes m = t + 1, alpha = t + 1 and ldc = m + (i % 3) for its i-th call, and prints its
// operand addresses, so a test can check that each record it finds holds one thread's
// arguments, not a mix of two.
//
//   sgemm_threads THREADS CALLS_PER_THREAD
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kN = 2, kK = 3, kMaxM = 64;

struct Worker {
  int index = 0;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  int failed = 0;
};

void* device_zeros(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> zeros(floats, 0.0f);
  cudaMemcpy(p, zeros.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  int calls = argc > 2 ? std::atoi(argv[2]) : 100;
  std::vector<Worker> workers(threads);
  for (int t = 0; t < threads; ++t) {
    workers[t].index = t;
    workers[t].a = static_cast<float*>(device_zeros(kMaxM * kK));
    workers[t].b = static_cast<float*>(device_zeros(kK * kN));
    workers[t].c = static_cast<float*>(device_zeros((kMaxM + 2) * kN));
    std::printf("thread %d a %p b %p c %p\n", t, static_cast<void*>(workers[t].a),
                static_cast<void*>(workers[t].b), static_cast<void*>(workers[t].c));
  }
  std::vector<std::thread> running;
  for (Worker& w : workers) {
    running.emplace_back([&w, calls] {
      cublasHandle_t handle = nullptr;
      if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        w.failed = calls;
        return;
      }
      const int m = w.index + 1;
      const float alpha = static_cast<float>(m), beta = 0.0f;
      for (int i = 0; i < calls; ++i) {
        if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, kN, kK, &alpha, w.a, m, w.b, kK, &beta,
                        w.c, m + i % 3) != CUBLAS_STATUS_SUCCESS) {
          ++w.failed;
        }
      }
      cublasDestroy(handle);
    });
  }
  int failed = 0;
  for (size_t t = 0; t < running.size(); ++t) {
    running[t].join();
    failed += workers[t].failed;
  }
  std::printf("failed %d\n", failed);
  return failed == 0 ? 0 : 1;
}
