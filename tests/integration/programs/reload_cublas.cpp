// A program that unloads its cuBLAS and loads it again, as a plug-in host does: the library
// linking cuBLAS 13 (gemm_on_own_cublas.cpp) is loaded, used and closed, which unloads cuBLAS
// and the runtime with it; the one linking cuBLAS 12 is loaded next, into the space they
// left; then the first again, at other addresses. Every function the program calls must reach
// the library loaded now, not an address where an earlier one was. Prints each round's result
// (24 * (round + 1)), whether the runtime was unloaded and the library moved (what makes the
// test), and what the runtime kept of an error, none of which depends on a shim.
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

// One use of the library: a handle, a round, the runtime's error, the handle destroyed.
double use(const OwnCublas& own, int round, int& kept_error) {
  void* opened = own.open();
  if (opened == nullptr) return -1;
  const double sum = own.round(opened, round);
  kept_error = own.last_error();
  own.close(opened);
  return sum;
}

}  // namespace

int main() {
  OwnCublas first{}, other{}, again{};
  int error_first = 0, error_other = 0, error_again = 0;
  if (!load_own_cublas(13, first)) return 4;
  const double sum_first = use(first, 0, error_first);
  const void* first_address = reinterpret_cast<const void*>(first.round);
  dlclose(first.library);
  std::printf("cuBLAS 13 first %g, runtime unloaded with it %d\n", sum_first, !mapped("libcudart.so.13"));
  if (!load_own_cublas(12, other)) return 4;
  const double sum_other = use(other, 1, error_other);
  if (!load_own_cublas(13, again)) return 4;
  const double sum_again = use(again, 2, error_again);
  std::printf("cuBLAS 12 %g, cuBLAS 13 again %g, moved %d\n", sum_other, sum_again,
              reinterpret_cast<const void*>(again.round) != first_address);
  std::printf("runtime errors kept: %d %d %d\n", error_first, error_other, error_again);
  return 0;
}
