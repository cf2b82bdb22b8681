// A library whose constructor creates a cuBLAS handle: the shim's hook then runs before main,
// possibly before the shim's own initializers, from inside the dynamic loader's init sequence.
#include <cublas_v2.h>

namespace {
cublasHandle_t g_handle = nullptr;
int g_status = -1;

__attribute__((constructor)) void create_handle_early() { g_status = cublasCreate(&g_handle); }
}  // namespace

extern "C" cublasHandle_t early_handle() { return g_handle; }
extern "C" int early_status() { return g_status; }
