// A program with signal handlers of its own, installed before the shim's (before the first CUDA
// call, when the shim opens its trace and installs its handlers) or after them. The stand-in
// crashes one GEMM (STANDIN_CRASH); the program's handler then does what MODE says. Whatever the
// mode, the program must print and end exactly the same with and without the shim.
//
//   signal_host MODE CALLS
//
//   before-exit     handler prints and calls _exit(7)
//   before-abort    handler prints and calls abort(): a second signal during the first
//   before-reraise  handler (no SA_NODEFER) restores the default and raises the signal again:
//                   it stays pending until the handler returns, then kills
//   before-longjmp  handler siglongjmp()s back into the loop: the program goes on and exits 0
//   after-exit      installed after the first GEMM: prints and _exit(7)
//   after-chain     installed after the first GEMM: prints, then calls the handler it found
//                   (the shim's, when preloaded), or the default action
//
// Prints "call I status S" per GEMM, "recovered at I" after a siglongjmp, "done" at the end.
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace {

std::string g_mode;
sigjmp_buf g_recover;
struct sigaction g_found;  // what after-chain replaced
int g_call = 0;            // the loop's counter: a global keeps its value across siglongjmp

void say(const char* text) {
  ssize_t ignored = write(STDOUT_FILENO, text, std::strlen(text));
  (void)ignored;
}

void on_signal(int sig, siginfo_t* info, void* context) {
  say("host handler\n");
  if (g_mode == "before-exit" || g_mode == "after-exit") _exit(7);
  if (g_mode == "before-abort") abort();
  if (g_mode == "before-longjmp") siglongjmp(g_recover, 1);
  if (g_mode == "before-reraise") {
    signal(sig, SIG_DFL);
    raise(sig);  // blocked while this handler runs: delivered when it returns
    say("reraise pending\n");
    return;
  }
  if (g_mode == "after-chain") {
    if ((g_found.sa_flags & SA_SIGINFO) && g_found.sa_sigaction != nullptr) {
      g_found.sa_sigaction(sig, info, context);
    } else if (!(g_found.sa_flags & SA_SIGINFO) && g_found.sa_handler != SIG_DFL &&
               g_found.sa_handler != SIG_IGN) {
      g_found.sa_handler(sig);
    }
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

void install() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_found);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  g_mode = argv[1];
  const int calls = std::atoi(argv[2]);
  const bool before = g_mode.rfind("before-", 0) == 0;
  if (before) install();

  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 3;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, 64);
  cudaMalloc(&b, 64);
  cudaMalloc(&c, 64);
  const float alpha = 1.0f, beta = 0.0f;
  for (g_call = 0; g_call < calls; ++g_call) {
    const int i = g_call;
    if (sigsetjmp(g_recover, 1) != 0) {
      std::printf("recovered at %d\n", g_call);
      continue;
    }
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha,
                                    static_cast<float*>(a), 2, static_cast<float*>(b), 2, &beta,
                                    static_cast<float*>(c), 2 + i);
    std::printf("call %d status %d\n", i, static_cast<int>(st));
    std::fflush(stdout);
    if (i == 0 && !before) install();
  }
  std::printf("done\n");
  cublasDestroy(handle);
  return 0;
}
