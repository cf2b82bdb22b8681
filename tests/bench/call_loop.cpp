// Whole-process measurement of trace mode: N calls of cublasSgemm_v2 on a null handle (real
// cuBLAS answers NOT_INITIALIZED at once; the stand-in does too) from T threads, timed inside
// the process. Run it with and without LD_PRELOAD=libcublasspy.so: the difference per call is
// what the shim adds, program start, trace creation and exit included in the wall time printed.
//
//   call_loop CALLS THREADS   ->   "calls=... threads=... ns_per_call=... wall_ms=..."
#include <cublas_v2.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  auto process_start = std::chrono::steady_clock::now();
  long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  float one = 1.f, zero = 0.f;
  std::vector<std::thread> pool;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (long i = 0; i < calls / threads; ++i) {
        volatile auto st = cublasSgemm_v2(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, nullptr, 8,
                                          nullptr, 8, &zero, nullptr, 8);
        (void)st;
      }
    });
  }
  for (auto& th : pool) th.join();
  auto end = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(end - start).count();
  // Per call of one thread: the latency a thread sees, whatever the number of threads.
  std::printf("calls=%ld threads=%d ns_per_call=%.1f wall_ms=%.1f\n", calls, threads,
              ns / (calls / threads), std::chrono::duration<double, std::milli>(end - process_start).count());
  return 0;
}
