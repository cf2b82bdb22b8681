// The library half of exit_warning: a shared object the program links, so it is initialized
// before the preloaded shim and finalized after it. Its destructor makes the program's last
// cuBLAS call, after every static destructor of the shim has run.
#include <unistd.h>

#include <cublasXt.h>

namespace {
decltype(&cublasXtDgemm) g_late = nullptr;
}  // namespace

// The function the destructor calls (the program finds it with dlsym).
void exit_late_call(decltype(&cublasXtDgemm) fn) { g_late = fn; }

__attribute__((destructor)) static void late_call() {
  if (g_late == nullptr) return;
  const double alpha = 1.0, beta = 0.0;
  g_late(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, nullptr, 1, nullptr, 1, &beta, nullptr, 1);
  static const char kDone[] = "late call done\n";
  ssize_t ignored = write(STDOUT_FILENO, kDone, sizeof kDone - 1);
  (void)ignored;
}
