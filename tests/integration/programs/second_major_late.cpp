// A program whose plug-in brings a second CUDA major once the first is in use: the library
// linking cuBLAS 12 is loaded and makes runtime calls; then the one linking cuBLAS 13 is loaded
// by a dlopen of its own name (glibc's alone: the shim is not called after it); then the first
// library makes a runtime call it never made before, cudaPeekAtLastError, which must reach its
// own runtime and find the error made there. Prints what each runtime kept (10: read once; 11:
// peeked, then read), which does not depend on a shim.
//
//   second_major_late
#include <cstdio>

#include "own_cublas_library.h"

int main() {
  OwnCublas own12{}, own13{};
  if (!load_own_cublas(12, own12)) return 4;
  const int before = own12.last_error();
  if (!load_own_cublas(13, own13)) return 4;
  const int peeked = own12.peek_error();
  const int theirs = own13.peek_error();
  std::printf("cuBLAS 12's runtime before 13 was loaded %d, after %d; cuBLAS 13's runtime %d\n", before, peeked,
              theirs);
  return 0;
}
