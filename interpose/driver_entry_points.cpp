// Programs linked with the static CUDA runtime (nvcc's default) never call an exported
// cudaGetDeviceCount: their runtime resolves every driver function through
// cuGetProcAddress_v2. Wrapping the resolvers lets the shim hand out its own cuInit and
// cuDeviceGetCount (and its resolvers again, when the program asks for them), remembering the
// real ones. Everything else, cuGetExportTable included, is passed through untouched. The
// resolvers themselves are plumbing (hundreds of look-ups at start-up) and are not recorded.
#define __CUDA_API_VERSION_INTERNAL  // declares both cuGetProcAddress (v1) and _v2
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>

#include "hook_table.h"
#include "real_functions.h"
#include "runtime.h"

#define CUBLASSPY_EXPORT extern "C" __attribute__((visibility("default")))

namespace cublasspy {
namespace {

enum Resolver { kProcV1, kProcV2, kEntryPoint, kEntryPointByVersion, kResolverCount };
constexpr const char* kResolverNames[kResolverCount] = {
    "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPointByVersion"};
constexpr Library kResolverLibrary[kResolverCount] = {Library::kCuda, Library::kCuda,
                                                      Library::kCudart, Library::kCudart};
std::atomic<void*> g_real_resolver[kResolverCount];

void* real_resolver(Resolver r) {
  void* p = g_real_resolver[r].load(std::memory_order_acquire);
  if (p == nullptr) {
    p = real_dlsym(RTLD_NEXT, kResolverNames[r]);
    if (p == nullptr) p = find_loaded_symbol(kResolverLibrary[r], kResolverNames[r]);
    g_real_resolver[r].store(p, std::memory_order_release);
  }
  return p;
}

}  // namespace

void* own_resolver(const char* symbol, void* real);

namespace {

// Names whose look-up answers a function of another prototype than the exported symbol's,
// depending on the version asked: from CUDA 13, "cuCtxSynchronize" gives
// cuCtxSynchronize_v2(CUcontext). The wrapper has the header's prototype, so these are
// wrapped at the PLT only; a program that looks them up keeps the driver's function.
bool abi_depends_on_version(const char* symbol) { return std::strcmp(symbol, "cuCtxSynchronize") == 0; }

// The driver hook a look-up of `symbol` answers. Names are asked for without their version
// suffix: "cuMemcpyHtoDAsync" is answered with cuMemcpyHtoDAsync_v2 (from CUDA 3.2 on), so the
// hook of `symbol`_v2 serves where the shim has none of that name (`versioned`); -1 if neither.
int driver_hook(const char* symbol, bool* versioned) {
  *versioned = false;
  int id = find_hook(symbol);
  if (id < 0) {
    char name[format::kFunctionNameBytes];
    const int n = std::snprintf(name, sizeof name, "%s_v2", symbol);
    if (n < 0 || static_cast<size_t>(n) >= sizeof name) return -1;
    id = find_hook(name);
    *versioned = id >= 0;
  }
  if (id < 0 || hook_library(static_cast<uint16_t>(id)) != Library::kCuda) return -1;
  return id;
}

// Whether `fn`, which the driver handed out, is the real function of hook `id` (or the hook
// itself: a driver whose references to its own exports are interposed hands out the shim's).
bool is_real_of(uint16_t id, void* fn) {
  return fn == hook_address(id) || resolve_real(Library::kCuda, id, hook_name(id), kDefaultVariant) == fn;
}

// The per-thread-default-stream form a look-up with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
// (cudaEnablePerThreadDefaultStream) answers for hook `base`: the hook of its _ptsz form when the
// shim has one and `fn` is its real function; else -1.
int per_thread_hook(uint16_t base, void* fn) {
  char name[format::kFunctionNameBytes];
  const int n = std::snprintf(name, sizeof name, "%s_ptsz", hook_name(base));
  if (n < 0 || static_cast<size_t>(n) >= sizeof name) return -1;
  const int id = find_hook(name);
  if (id < 0 || hook_library(static_cast<uint16_t>(id)) != Library::kCuda) return -1;
  return is_real_of(static_cast<uint16_t>(id), fn) ? id : -1;
}

// After a successful look-up: swap in the shim's function where it has one.
void redirect(const char* symbol, void** pfn) {
  if (symbol == nullptr || pfn == nullptr || *pfn == nullptr) return;
  if (thread_state().internal) return;
  if (abi_depends_on_version(symbol)) return;
  if (void* own = own_resolver(symbol, *pfn)) {
    *pfn = own;
    return;
  }
  bool versioned = false;
  const int found = driver_hook(symbol, &versioned);
  if (found < 0) return;
  const uint16_t id = static_cast<uint16_t>(found);
  if (const int per_thread = per_thread_hook(id, *pfn); per_thread >= 0) {
    *pfn = hook_address(static_cast<uint16_t>(per_thread));
    return;
  }
  // A versioned name answers the older ABI to an older version asked for (cuMemcpyHtoDAsync with
  // 32-bit device pointers): never remembered as the _v2's real function, only compared with it.
  if (!versioned) remember_real(Library::kCuda, id, *pfn);
  // The wrapper calls the one real function remembered for its name: when the driver hands out
  // another for it that is no per-thread form the shim hooks, the program keeps the driver's own.
  if (!is_real_of(id, *pfn)) return;
  *pfn = hook_address(id);
}

}  // namespace
}  // namespace cublasspy

using namespace cublasspy;

CUBLASSPY_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                               cuuint64_t flags,
                                               CUdriverProcAddressQueryResult* symbolStatus) {
  using Fn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto real = reinterpret_cast<Fn>(real_resolver(kProcV2));
  if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
  if (rc == CUDA_SUCCESS) redirect(symbol, pfn);
  return rc;
}

CUBLASSPY_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                            cuuint64_t flags) {
  using Fn = CUresult (*)(const char*, void**, int, cuuint64_t);
  auto real = reinterpret_cast<Fn>(real_resolver(kProcV1));
  if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult rc = real(symbol, pfn, cudaVersion, flags);
  if (rc == CUDA_SUCCESS) redirect(symbol, pfn);
  return rc;
}

CUBLASSPY_EXPORT cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr,
                                                      unsigned long long flags,
                                                      cudaDriverEntryPointQueryResult* driverStatus) {
  using Fn = cudaError_t (*)(const char*, void**, unsigned long long, cudaDriverEntryPointQueryResult*);
  auto real = reinterpret_cast<Fn>(real_resolver(kEntryPoint));
  if (real == nullptr) return cudaErrorInsufficientDriver;
  cudaError_t rc = real(symbol, funcPtr, flags, driverStatus);
  if (rc == cudaSuccess) redirect(symbol, funcPtr);
  return rc;
}

CUBLASSPY_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char* symbol, void** funcPtr, unsigned int cudaVersion, unsigned long long flags,
    cudaDriverEntryPointQueryResult* driverStatus) {
  using Fn = cudaError_t (*)(const char*, void**, unsigned int, unsigned long long,
                             cudaDriverEntryPointQueryResult*);
  auto real = reinterpret_cast<Fn>(real_resolver(kEntryPointByVersion));
  if (real == nullptr) return cudaErrorInsufficientDriver;
  cudaError_t rc = real(symbol, funcPtr, cudaVersion, flags, driverStatus);
  if (rc == cudaSuccess) redirect(symbol, funcPtr);
  return rc;
}

namespace cublasspy {

// A program asking the driver (or dlsym) for cuGetProcAddress gets the shim's, so that what it resolves
// later is wrapped too. Which of the two the driver returned tells which signature it has.
void* own_resolver(const char* symbol, void* real) {
  if (std::strcmp(symbol, "cuGetProcAddress") != 0 && std::strcmp(symbol, "cuGetProcAddress_v2") != 0) {
    return nullptr;
  }
  // A look-up that found the shim itself (RTLD_DEFAULT) is already answered; remembering it
  // as "real" would make the resolver call itself.
  if (real == reinterpret_cast<void*>(&::cuGetProcAddress) ||
      real == reinterpret_cast<void*>(&::cuGetProcAddress_v2)) {
    return nullptr;
  }
  void* v1 = find_loaded_symbol(Library::kCuda, "cuGetProcAddress");
  if (real == v1) {
    g_real_resolver[kProcV1].store(real, std::memory_order_release);
    return reinterpret_cast<void*>(&::cuGetProcAddress);
  }
  g_real_resolver[kProcV2].store(real, std::memory_order_release);
  return reinterpret_cast<void*>(&::cuGetProcAddress_v2);
}

}  // namespace cublasspy
