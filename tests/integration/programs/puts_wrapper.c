/* A second preloaded library in the LTLng/libfaketime style: it wraps puts and finds the real
   one with dlsym(RTLD_NEXT). glibc resolves RTLD_NEXT relative to dlsym's caller; if the shim's
   exported dlsym became that caller, "next" would mean "after the shim" and, with the shim
   loaded first, lead back here forever. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int puts(const char* s) {
  static int (*next)(const char*);
  if (next == NULL) next = (int (*)(const char*))dlsym(RTLD_NEXT, "puts");
  if (next == NULL) return EOF;
  fputs("[wrapped] ", stdout);
  return next(s);
}
