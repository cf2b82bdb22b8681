/* dlopen(PATH, RTLD_NOW) of a library that cannot be bound: it must fail, dlerror() must say
   why, and the library must not be loaded afterwards, with or without the shim.
   usage: failing_dlopen PATH */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* h = dlopen(argv[1], RTLD_NOW);
  const char* error = dlerror();
  printf("dlopen %s\n", h ? "succeeded" : "failed");
  printf("dlerror %s\n", error ? error : "(none)");
  void* loaded = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  printf("loaded afterwards: %s\n", loaded ? "yes" : "no");
  return 0;
}
