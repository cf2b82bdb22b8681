/* Loads the shim the one way a secure-execution (set-user-ID) process can get it: dlopen by
 * absolute path (the loader ignores LD_PRELOAD paths there), then makes one intercepted call
 * through it. Under AT_SECURE the shim must pass the call through and write nothing.
 *
 *   secure_probe SHIM_PATH
 *
 * Prints "at_secure N" and "cudaGetDeviceCount S". Exit 0 when the shim loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/auxv.h>

typedef int (*DeviceCountFn)(int*);

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  printf("at_secure %lu\n", getauxval(AT_SECURE));
  void* shim = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (shim == NULL) {
    printf("dlopen failed: %s\n", dlerror());
    return 3;
  }
  DeviceCountFn count_fn = (DeviceCountFn)dlsym(shim, "cudaGetDeviceCount");
  if (count_fn == NULL) return 4;
  int count = -1;
  printf("cudaGetDeviceCount %d\n", count_fn(&count));
  return 0;
}
