// Many threads calling cublasSgemm_v2 at once while they also destroy and re-create their
// handles: handle creation and destruction race with GEMMs on other threads. Thread t passes
// m = t + 1, alpha = t + 1, lda = m and ldc = m + (i % 3) for its i-th GEMM, so a test can tell
// that a record holds one thread's arguments and not a mix of two.
//
//   stress_threads THREADS CALLS_PER_THREAD RECREATE_EVERY
//
// Prints, per thread, its operand addresses and every handle it used:
//   thread T a 0x.. b 0x.. c 0x.. handles 0x..,0x..,...
// then "creates N gemms N failed N".
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kN = 2, kK = 3, kMaxM = 64;

struct Worker {
  int index = 0;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<cublasHandle_t> handles;
  int failed = 0;
  int gemms = 0;
};

float* device_zeros(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> zeros(floats, 0.0f);
  cudaMemcpy(p, zeros.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

void work(Worker& w, int calls, int recreate_every) {
  cublasHandle_t handle = nullptr;
  const int m = w.index + 1;
  const float alpha = static_cast<float>(m), beta = 0.0f;
  for (int i = 0; i < calls; ++i) {
    if (i % recreate_every == 0) {
      if (handle != nullptr && cublasDestroy(handle) != CUBLAS_STATUS_SUCCESS) ++w.failed;
      if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        ++w.failed;
        return;
      }
      w.handles.push_back(handle);
    }
    ++w.gemms;
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, kN, kK, &alpha, w.a, m, w.b, kK, &beta,
                    w.c, m + i % 3) != CUBLAS_STATUS_SUCCESS) {
      ++w.failed;
    }
  }
  if (handle != nullptr && cublasDestroy(handle) != CUBLAS_STATUS_SUCCESS) ++w.failed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: stress_threads THREADS CALLS_PER_THREAD RECREATE_EVERY\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]), calls = std::atoi(argv[2]), every = std::atoi(argv[3]);
  if (threads < 1 || threads > kMaxM || calls < 1 || every < 1) return 2;
  std::vector<Worker> workers(threads);
  for (int t = 0; t < threads; ++t) {
    workers[t].index = t;
    workers[t].a = device_zeros(kMaxM * kK);
    workers[t].b = device_zeros(kK * kN);
    workers[t].c = device_zeros((kMaxM + 2) * kN);
  }
  std::vector<std::thread> running;
  for (Worker& w : workers) running.emplace_back(work, std::ref(w), calls, every);
  int failed = 0, gemms = 0, creates = 0;
  for (int t = 0; t < threads; ++t) {
    running[t].join();
    const Worker& w = workers[t];
    failed += w.failed;
    gemms += w.gemms;
    creates += static_cast<int>(w.handles.size());
    std::string list;
    for (cublasHandle_t h : w.handles) {
      char text[32];
      std::snprintf(text, sizeof text, "%s%p", list.empty() ? "" : ",", static_cast<void*>(h));
      list += text;
    }
    std::printf("thread %d a %p b %p c %p handles %s\n", t, static_cast<void*>(w.a),
                static_cast<void*>(w.b), static_cast<void*>(w.c), list.c_str());
  }
  std::printf("creates %d gemms %d failed %d\n", creates, gemms, failed);
  return failed == 0 ? 0 : 1;
}
