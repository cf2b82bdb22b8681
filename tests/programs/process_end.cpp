// Ends in the way its argument says, after one cuBLAS handle was made and destroyed (so that
// the shim writes a trace): `exit N` (exit handlers run), `return N` (from main), `_exit N`
// (none run), `kill` (SIGKILL: nothing runs), `lookup` (calls a function the library found
// at run time lacks: the dynamic linker's "symbol lookup error", _exit(127)). The tests of how
// a process ended (tests/tools/process_end_test.cpp) run it under `cublasspy run` and without.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cublas_v2.h>

#include "ends_api.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: process_end exit|return|_exit N | kill | lookup\n");
    return 2;
  }
  cublasHandle_t handle = nullptr;
  std::printf("cublasCreate_v2 %d\n", static_cast<int>(cublasCreate(&handle)));
  if (handle != nullptr) cublasDestroy(handle);
  std::fflush(stdout);
  const char* how = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 0;
  if (std::strcmp(how, "exit") == 0) std::exit(n);
  if (std::strcmp(how, "_exit") == 0) _exit(n);
  if (std::strcmp(how, "kill") == 0) raise(SIGKILL);
  if (std::strcmp(how, "lookup") == 0) return ends_api_new_function() + ends_api_old_function();
  return n;
}
