/* A library named like a CUDA one (libcudnn..., so the shim records its loads) that cannot be
   loaded with RTLD_NOW: it calls a function nobody defines. With RTLD_LAZY it would load, and
   its constructor would announce it. */
#include <unistd.h>

void shim_test_function_nobody_defines(void);

__attribute__((constructor)) static void announce(void) {
  static const char text[] = "constructor ran\n";
  ssize_t ignored = write(1, text, sizeof text - 1);
  (void)ignored;
}

void cudnn_unresolved_call(void) { shim_test_function_nobody_defines(); }
