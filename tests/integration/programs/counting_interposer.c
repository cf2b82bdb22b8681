// A second interposer of the kind sites preload beside cublasspy (an accounting or GPU-sharing
// shim): it counts cublasSgemm_v2, cudaMalloc and cudaDeviceSynchronize and forwards each through
// dlsym(RTLD_NEXT), then writes its counts to $COUNTER_OUT at exit. Whichever order it is
// preloaded in with the shim, it must see every call it sees alone.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int sgemm_calls, malloc_calls, sync_calls;

static void* next(const char* name) { return dlsym(RTLD_NEXT, name); }

int cublasSgemm_v2(void* handle, int transa, int transb, int m, int n, int k, const float* alpha,
                   const float* A, int lda, const float* B, int ldb, const float* beta, float* C, int ldc) {
  atomic_fetch_add(&sgemm_calls, 1);
  int (*real)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int,
              const float*, float*, int) = next("cublasSgemm_v2");
  return real ? real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) : 1;
}

int cudaMalloc(void** p, size_t bytes) {
  atomic_fetch_add(&malloc_calls, 1);
  int (*real)(void**, size_t) = next("cudaMalloc");
  return real ? real(p, bytes) : 999;
}

int cudaDeviceSynchronize(void) {
  atomic_fetch_add(&sync_calls, 1);
  int (*real)(void) = next("cudaDeviceSynchronize");
  return real ? real() : 999;
}

__attribute__((destructor)) static void write_counts(void) {
  const char* path = getenv("COUNTER_OUT");
  if (path == NULL) return;
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  fprintf(f, "cublasSgemm_v2 %d cudaMalloc %d cudaDeviceSynchronize %d\n", atomic_load(&sgemm_calls),
          atomic_load(&malloc_calls), atomic_load(&sync_calls));
  fclose(f);
}
