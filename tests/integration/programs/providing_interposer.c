// A preloaded library that provides CUDA functions itself rather than forwarding them: cuBLASXt
// on the host (cublasXtCreate, cublasXtSgemm, cublasXtDestroy, which the stand-in lacks) and
// its own CUDA events (cudaEventCreate/Record/Synchronize/Query/ElapsedTime/Destroy), as a site
// supplement or a test double would. Preloaded after the shim, its definitions are the ones the
// dynamic linker binds, so the shim must forward to them and the program's results must not
// change.
#include <stddef.h>
#include <stdlib.h>

enum { kXtMagic = 0x5854, kEventMagic = 0xE7E7 };
enum { kInvalidValue = 7, kNotSupported = 15, kInvalidResourceHandle = 400 };

struct xt { int magic; };
static struct xt the_xt = {kXtMagic};

int cublasXtCreate(void** handle) {
  if (handle == NULL) return kInvalidValue;
  *handle = &the_xt;
  return 0;
}

int cublasXtDestroy(void* handle) { return handle == &the_xt ? 0 : kInvalidValue; }

// Column-major C = alpha * A * B + beta * C, no transposes.
int cublasXtSgemm(void* handle, int transa, int transb, size_t m, size_t n, size_t k, const float* alpha,
                  const float* A, size_t lda, const float* B, size_t ldb, const float* beta, float* C, size_t ldc) {
  if (handle != &the_xt || alpha == NULL || beta == NULL) return kInvalidValue;
  if (transa != 0 || transb != 0) return kNotSupported;
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < m; ++i) {
      float sum = 0;
      for (size_t p = 0; p < k; ++p) sum += A[i + p * lda] * B[p + j * ldb];
      C[i + j * ldc] = *alpha * sum + *beta * C[i + j * ldc];
    }
  }
  return 0;
}

struct event { int magic; int recorded; };

static int valid(const struct event* e) { return e != NULL && e->magic == kEventMagic; }

int cudaEventCreate(struct event** e) {
  if (e == NULL) return 1;
  *e = calloc(1, sizeof **e);
  if (*e == NULL) return 2;
  (*e)->magic = kEventMagic;
  return 0;
}

int cudaEventRecord(struct event* e, void* stream) {
  (void)stream;
  if (!valid(e)) return kInvalidResourceHandle;
  e->recorded = 1;
  return 0;
}

int cudaEventSynchronize(struct event* e) { return valid(e) ? 0 : kInvalidResourceHandle; }

int cudaEventQuery(struct event* e) { return valid(e) ? 0 : kInvalidResourceHandle; }

int cudaEventElapsedTime(float* ms, struct event* start, struct event* end) {
  if (ms == NULL || !valid(start) || !valid(end)) return kInvalidResourceHandle;
  *ms = start->recorded && end->recorded ? 1.5f : 0.0f;
  return 0;
}

int cudaEventDestroy(struct event* e) {
  if (!valid(e)) return kInvalidResourceHandle;
  e->magic = 0;
  free(e);
  return 0;
}
