// A cuBLAS call after everything else in the process has ended: from the destructor of a
// library the program links (exit_late_call.cpp), which is finalized after the preloaded shim,
// so the call runs after every static destructor of the shim's. Its real function is one the
// CPU stand-in lacks (cublasXt), so the shim warns (CUBLASSPY_LOG) from inside that call.
//
// main calls cublasXtSgemm, the library's destructor cublasXtDgemm: each gets a warning of its
// own. Both are found with dlsym, so the program also runs where nothing defines them (it then
// says so, makes no call and exits with 3). Prints "main done", then "late call done".
#include <dlfcn.h>

#include <cstdio>

#include <cublasXt.h>

void exit_late_call(decltype(&cublasXtDgemm) fn);

int main() {
  const auto sgemm = reinterpret_cast<decltype(&cublasXtSgemm)>(dlsym(RTLD_DEFAULT, "cublasXtSgemm"));
  const auto dgemm = reinterpret_cast<decltype(&cublasXtDgemm)>(dlsym(RTLD_DEFAULT, "cublasXtDgemm"));
  if (sgemm == nullptr || dgemm == nullptr) {
    std::printf("no cublasXt\n");
    return 3;
  }
  exit_late_call(dgemm);
  const float alpha = 1.0f, beta = 0.0f;
  sgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, nullptr, 1, nullptr, 1, &beta, nullptr, 1);
  std::printf("main done\n");
  std::fflush(stdout);  // before the late call's line, which stdio does not buffer
  return 0;
}
