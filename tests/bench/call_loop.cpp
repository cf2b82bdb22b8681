// Whole-process measurement of trace mode: N calls of cublasSgemm_v2 on a null handle (real
// cuBLAS answers NOT_INITIALIZED at once; the stand-in does too) from T threads, timed inside
// the process. Run it with and without LD_PRELOAD=libcublasspy.so: the difference per call is
// what the shim adds, program start, trace creation and exit included in the wall time printed.
//
//   call_loop CALLS THREADS   ->   "calls=... threads=... ns_per_call=... cpu_ns_per_call=... wall_ms=..."
//
// ns_per_call is wall time; cpu_ns_per_call is the threads' own CPU time per call (steadier on
// a machine shared with other work: time spent descheduled is not counted).
#include <cublas_v2.h>

#include <atomic>
#include <chrono>
#include <ctime>
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
  std::atomic<long> cpu_ns{0};
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      timespec cpu0, cpu1;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
      for (long i = 0; i < calls / threads; ++i) {
        volatile auto st = cublasSgemm_v2(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, nullptr, 8,
                                          nullptr, 8, &zero, nullptr, 8);
        (void)st;
      }
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
      cpu_ns += (cpu1.tv_sec - cpu0.tv_sec) * 1000000000L + (cpu1.tv_nsec - cpu0.tv_nsec);
    });
  }
  for (auto& th : pool) th.join();
  auto end = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(end - start).count();
  // Per call of one thread: the latency a thread sees, whatever the number of threads.
  std::printf("calls=%ld threads=%d ns_per_call=%.1f cpu_ns_per_call=%.1f wall_ms=%.1f\n", calls,
              threads, ns / (calls / threads), static_cast<double>(cpu_ns.load()) / calls,
              std::chrono::duration<double, std::milli>(end - process_start).count());
  return 0;
}
