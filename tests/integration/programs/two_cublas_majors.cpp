// A program that holds cuBLAS 12 and cuBLAS 13 at once, through two libraries beside it that
// link one each (gemm_on_own_cublas.cpp), as a process whose framework links one major and a
// plug-in the other. Both are loaded (dlopen, as plug-ins are) and both handles made first,
// then the rounds alternate between them, so that each call must be routed by its handle and
// not by the last one made. Prints each round's result (the sum of C: 24 * (round + 1)), which
// does not depend on a shim.
//
//   two_cublas_majors ROUNDS
#include <cstdio>
#include <cstdlib>

#include "own_cublas_library.h"

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  OwnCublas own12{}, own13{};
  if (!load_own_cublas(12, own12) || !load_own_cublas(13, own13)) return 4;
  void* on12 = own12.open();
  void* on13 = own13.open();
  if (on12 == nullptr || on13 == nullptr) {
    std::printf("open failed: cuBLAS 12 %s, cuBLAS 13 %s\n", on12 ? "ok" : "failed", on13 ? "ok" : "failed");
    return 3;
  }
  for (int i = 0; i < rounds; ++i) {
    const double on_12 = own12.round(on12, i);  // 12 first, then 13: the order the calls are made in
    const double on_13 = own13.round(on13, i);
    std::printf("round %d cuBLAS 12 %g cuBLAS 13 %g\n", i, on_12, on_13);
  }
  const int last_error_12 = own12.last_error();  // 10 each: the error stays in its own runtime
  const int last_error_13 = own13.last_error();
  std::printf("runtime errors kept: cuBLAS 12's runtime %d cuBLAS 13's runtime %d\n", last_error_12, last_error_13);
  std::printf("closed %d %d\n", own12.close(on12), own13.close(on13));
  return 0;
}
