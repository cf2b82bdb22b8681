// A fork storm: the parent (a handle, GEMMs with m = 1) forks CHILDREN children in quick
// succession, at most 8 alive at once, making a GEMM between forks. Child i enumerates devices
// and makes (i % 4) + 1 GEMMs with m = 2 on the inherited handle, then leaves: with _exit(0),
// or with `abort` by calling abort() (after its calls: its own trace is open by then).
//
//   fork_storm CHILDREN [abort]
//
// Prints "child I pid P gemms G" per child, then "parent P gemms G children-ok N".
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

constexpr int kMaxAlive = 8, kN = 2, kK = 2, kMaxM = 2;

float* device_ones(size_t floats) {
  void* p = nullptr;
  if (cudaMalloc(&p, floats * sizeof(float)) != cudaSuccess) return nullptr;
  std::vector<float> ones(floats, 1.0f);
  cudaMemcpy(p, ones.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
  return static_cast<float*>(p);
}

struct Operands {
  cublasHandle_t handle;
  float *a, *b, *c;
};

bool gemm(const Operands& o, int m) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasSgemm(o.handle, CUBLAS_OP_N, CUBLAS_OP_N, m, kN, kK, &alpha, o.a, m, o.b, kK, &beta,
                     o.c, m) == CUBLAS_STATUS_SUCCESS;
}

[[noreturn]] void child(const Operands& o, int index, bool abort_at_end) {
  int count = 0;
  cudaGetDeviceCount(&count);
  bool ok = true;
  for (int g = 0; g < index % 4 + 1; ++g) ok = gemm(o, 2) && ok;
  if (abort_at_end) std::abort();
  _exit(ok ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int children = argc > 1 ? std::atoi(argv[1]) : 16;
  const bool abort_children = argc > 2 && std::strcmp(argv[2], "abort") == 0;
  Operands o{};
  if (cublasCreate(&o.handle) != CUBLAS_STATUS_SUCCESS) return 3;
  o.a = device_ones(kMaxM * kK);
  o.b = device_ones(kK * kN);
  o.c = device_ones(kMaxM * kN);
  int parent_gemms = 0, ok_children = 0;
  if (!gemm(o, 1)) return 4;
  ++parent_gemms;

  std::map<pid_t, int> alive;  // pid -> child index
  std::vector<pid_t> pids(children);
  auto reap_one = [&] {
    int status = 0;
    pid_t done = wait(&status);
    if (done <= 0) return;
    bool expected = abort_children ? WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT
                                   : WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (expected) ++ok_children;
    else std::fprintf(stderr, "child %d ended with status 0x%x\n", alive[done], status);
    alive.erase(done);
  };
  std::fflush(stdout);
  for (int i = 0; i < children; ++i) {
    while (static_cast<int>(alive.size()) >= kMaxAlive) reap_one();
    pid_t pid = fork();
    if (pid < 0) return 5;
    if (pid == 0) child(o, i, abort_children);
    pids[i] = pid;
    alive[pid] = i;
    if (gemm(o, 1)) ++parent_gemms;
  }
  while (!alive.empty()) reap_one();
  for (int i = 0; i < children; ++i) {
    std::printf("child %d pid %d gemms %d\n", i, static_cast<int>(pids[i]), i % 4 + 1);
  }
  std::printf("parent %d gemms %d children-ok %d\n", static_cast<int>(getpid()), parent_gemms,
              ok_children);
  cublasDestroy(o.handle);
  return ok_children == children ? 0 : 1;
}
