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

// The driver hooks a look-up of `symbol` may answer. Names are asked for without their version
// suffix, and from the version that introduced it the driver answers one with its _v2 function
// ("cuMemcpyHtoDAsync" with cuMemcpyHtoDAsync_v2 from CUDA 3.2 on, "cuMemcpyBatchAsync" with
// cuMemcpyBatchAsync_v2 from CUDA 13): `plain` is the hook of the name itself, `versioned` the
// hook of `symbol`_v2; -1 where the shim has none.
struct DriverHooks {
  int plain = -1;
  int versioned = -1;
};
int driver_hook_named(const char* name) {
  const int id = find_hook(name);
  return id >= 0 && hook_library(static_cast<uint16_t>(id)) == Library::kCuda ? id : -1;
}
DriverHooks driver_hooks(const char* symbol) {
  DriverHooks hooks;
  hooks.plain = driver_hook_named(symbol);
  char name[format::kFunctionNameBytes];
  const int n = std::snprintf(name, sizeof name, "%s_v2", symbol);
  if (n >= 0 && static_cast<size_t>(n) < sizeof name) hooks.versioned = driver_hook_named(name);
  return hooks;
}

// Whether `fn`, which the driver handed out, is the real function of hook `id` (or the hook
// itself: a driver whose references to its own exports are interposed hands out the shim's).
bool is_real_of(uint16_t id, void* fn) {
  // The driver's own definition, not the default binding, which may be another interposer's.
  return fn == hook_address(id) || find_loaded_symbol(Library::kCuda, hook_name(id)) == fn;
}

// The per-thread-default-stream form a look-up with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
// (cudaEnablePerThreadDefaultStream) answers for hook `base`: the hook of its _ptsz form when the
// shim has one and `fn` is its real function; else -1.
int per_thread_hook(uint16_t base, void* fn) {
  char name[format::kFunctionNameBytes];
  const int n = std::snprintf(name, sizeof name, "%s_ptsz", hook_name(base));
  if (n < 0 || static_cast<size_t>(n) >= sizeof name) return -1;
  const int id = driver_hook_named(name);
  return id >= 0 && is_real_of(static_cast<uint16_t>(id), fn) ? id : -1;
}

// The hook to hand out for `fn`, which the driver answered a look-up with, when `fn` is the
// real function of hook `id` or of its per-thread form; else -1.
int hook_for(uint16_t id, void* fn) {
  if (const int per_thread = per_thread_hook(id, fn); per_thread >= 0) return per_thread;
  return is_real_of(id, fn) ? id : -1;
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
  const DriverHooks hooks = driver_hooks(symbol);
  if (hooks.plain < 0 && hooks.versioned < 0) return;
  // A name only the shim's hook of that name can answer: what the driver handed out (unless it
  // is the per-thread form) is that hook's real function, remembered.
  if (hooks.versioned < 0 && per_thread_hook(static_cast<uint16_t>(hooks.plain), *pfn) < 0) {
    remember_real(Library::kCuda, static_cast<uint16_t>(hooks.plain), *pfn);
  }
  // A name with a _v2 answers either ABI, depending on the version asked (cuMemcpyHtoDAsync's
  // 32-bit device pointers, or a batch's failIdx): never remembered as either's real function,
  // only compared with them. When the driver hands out a function that is neither's (nor their
  // per-thread forms'), the program keeps the driver's own.
  for (const int id : {hooks.versioned, hooks.plain}) {
    if (id < 0) continue;
    if (const int hook = hook_for(static_cast<uint16_t>(id), *pfn); hook >= 0) {
      *pfn = hook_address(static_cast<uint16_t>(hook));
      return;
    }
  }
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
