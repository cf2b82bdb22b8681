// A program that unloads its cuBLAS and loads one again, as a plug-in host does: the library
// linking cuBLAS 13 (gemm_on_own_cublas.cpp) is loaded, used and closed, which unloads cuBLAS
// and its runtime with it; then the one linking cuBLAS 12, the same way; then the first again.
// Every call must reach the library loaded now, not an address where an earlier one was (each
// use starts with runtime calls, which no handle routes). Prints each round's result
// (24 * (round + 1)), whether each runtime was unloaded (what makes the test) and what each
// runtime kept of an error made in it, none of which depends on a shim.
//
//   reload_cublas
#include <cstdio>
#include <cstring>

#include "own_cublas_library.h"

namespace {

bool mapped(const char* name) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  char line[4096];
  bool found = false;
  while (std::fgets(line, sizeof line, maps) != nullptr) found = found || std::strstr(line, name) != nullptr;
  std::fclose(maps);
  return found;
}

// One use of the library: the runtime's error first (runtime calls, no handle: nothing but the
// load itself tells the shim that the library is new), then a handle, a round, the handle
// destroyed.
double use(const OwnCublas& own, int round, int& kept_error) {
  kept_error = own.last_error();
  void* opened = own.open();
  if (opened == nullptr) return -1;
  const double sum = own.round(opened, round);
  own.close(opened);
  return sum;
}

}  // namespace

int main() {
  OwnCublas first{}, other{}, again{};
  int error_first = 0, error_other = 0, error_again = 0;
  if (!load_own_cublas(13, first)) return 4;
  const double sum_first = use(first, 0, error_first);
  dlclose(first.library);
  std::printf("cuBLAS 13 %g, its runtime unloaded with it %d\n", sum_first, !mapped("libcudart.so.13"));
  if (!load_own_cublas(12, other)) return 4;
  const double sum_other = use(other, 1, error_other);
  dlclose(other.library);
  std::printf("cuBLAS 12 %g, its runtime unloaded with it %d\n", sum_other, !mapped("libcudart.so.12"));
  if (!load_own_cublas(13, again)) return 4;
  const double sum_again = use(again, 2, error_again);
  std::printf("cuBLAS 13 again %g\n", sum_again);
  std::printf("runtime errors kept: %d %d %d\n", error_first, error_other, error_again);
  return 0;
}
