// A program whose plug-in brings a second CUDA major once the first is in use: the library
// linking cuBLAS 12 is loaded and makes runtime calls; then the one linking cuBLAS 13 is loaded
// by a dlopen of its own name (glibc's alone: the shim is not called for it); then runtime
// calls that must each reach the runtime of the library that makes them, and find the error
// made there (a runtime call the other major answers finds none). Prints what each runtime
// kept (10: read once; 11: peeked, then read), which does not depend on a shim.
//   local: the plug-in's entry points looked up on its handle (dlsym), as Python does an
//          extension's; its first runtime call is one the first library made before.
//   global: loaded RTLD_GLOBAL, its entry points found by name alone, as a plug-in that
//          registers itself; the first runtime call is one nobody made before.
//
//   second_major_late local|global
#include <cstdio>
#include <cstring>

#include "own_cublas_library.h"

int main(int argc, char** argv) {
  const bool global = argc > 1 && std::strcmp(argv[1], "global") == 0;
  OwnCublas own12{}, own13{};
  if (!load_own_cublas(12, own12)) return 4;
  const int before = own12.last_error();
  if (!load_own_cublas(13, own13, global)) return 4;
  const int first = global ? 0 : own13.last_error();
  const int peeked12 = own12.peek_error();
  const int peeked13 = own13.peek_error();
  std::printf("cuBLAS 12's runtime before 13 was loaded %d; cuBLAS 13's runtime first %d; then %d and %d\n",
              before, first, peeked12, peeked13);
  return 0;
}
