// Forks made by one thread while another makes the process's first CUDA call, when the shim sets
// itself up and opens its trace. Every child makes a call of its own, then exits: a child made
// while another thread held the shim's set-up lock (or was half-way through its set-up) would
// wait forever for a thread that does not exist in it. Linked against the null CUDA runtime of
// the integration tests (no locks of its own to confuse the result). The call is cudaSetDevice:
// not one of the set-up calls (cudaGetDeviceCount, cublasCreate, cuInit) after which the shim
// also asks the loader which libraries are loaded (see docs/RELIABILITY.md, "Known limits").
//
//   fork_during_setup FORKS
//
// Prints "children-ok N hung H"; children still running after 20 s count as hung (and are
// killed, so that none is left behind).
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

int main(int argc, char** argv) {
  const int forks = argc > 1 ? std::atoi(argv[1]) : 100;
  std::atomic<int> made{0};
  std::vector<pid_t> children;
  std::thread forker([&] {
    for (int i = 0; i < forks; ++i) {
      pid_t pid = fork();
      if (pid == 0) {
        cudaSetDevice(0);
        _exit(0);
      }
      if (pid > 0) children.push_back(pid);
      made.store(i + 1);
    }
  });
  while (made.load() < 2) sched_yield();  // the forks are under way: now the first call
  cudaSetDevice(0);
  forker.join();

  int ok = 0, hung = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (pid_t pid : children) {
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
      usleep(1000);
    }
    if (done == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ++hung;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++ok;
    }
  }
  std::printf("children-ok %d hung %d\n", ok, hung);
  return ok == forks ? 0 : 1;
}
